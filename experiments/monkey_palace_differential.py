"""Monkey Palace: the JAX engine against the reference engine on many random games, decision by
decision, resumable and in chunks (experiments/jax_differential.py is the one-shot form).

    nice -n 15 .venv/bin/python experiments/monkey_palace_differential.py --games 10000 \
        --build-action complete --out reports/monkey_palace_differential_complete.json [--max-minutes 30]

Games cycle over the maps, 2-4 players and the options (parity.game_settings); the batch starting
at game g uses seed g. With ``--build-action complete`` both engines build arch by arch, and the
games whose player held more than the JAX masks' caps are compared up to that turn and listed in
the summary's ``over_cap``. The JSON summary is rewritten after each batch; the same command
continues a stopped run (``--fresh`` starts again). Split a run over processes with ``--first``.
"""

from __future__ import annotations

try:
    from experiments.differential_runs import arguments, run
except ImportError:                     # run as a script: experiments/ is on sys.path
    from differential_runs import arguments, run


def main() -> int:
    parser = arguments(__doc__, "reports/monkey_palace_differential.json")
    from monkey_env.monkey_palace.jaxgame import JaxGame
    from monkey_env.monkey_palace.jaxgame.parity import differential_batch
    from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION, GameOptions
    parser.add_argument("--build-action", choices=("catalogue", "complete"), default=DEFAULT_BUILD_ACTION)
    args = parser.parse_args()
    engine = JaxGame(GameOptions(build_action=args.build_action))
    return run(f"monkey_palace ({args.build_action})", engine, differential_batch, args)


if __name__ == "__main__":
    raise SystemExit(main())
