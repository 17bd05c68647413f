"""Forbidden City: the JAX engine against the reference engine on many random games, decision
by decision (the shared suite's test at scale; 10,000 games is the full check).

    nice -n 15 .venv/bin/python experiments/forbidden_city_differential.py --games 10000 \
        --out reports/forbidden_city_differential.json [--max-minutes 30]

Games cycle over 2-4 players, both start-tile sides and both endings (parity.game_settings);
the batch starting at game g uses seed g. The JSON summary (games, decisions, disagreements
with their messages, seconds, every invocation's command and load) is rewritten after each
batch, and the same command continues a stopped run (``--fresh`` starts again). A disagreement
stops its batch (reported with its message); the run goes on with the next.
"""

from __future__ import annotations

try:
    from experiments.differential_runs import arguments, run
except ImportError:                     # run as a script: experiments/ is on sys.path
    from differential_runs import arguments, run


def main() -> int:
    args = arguments(__doc__, "reports/forbidden_city_differential.json").parse_args()
    from monkey_env.forbidden_city.jaxgame.env import jax_game_for
    from monkey_env.forbidden_city.jaxgame.parity import differential_batch
    return run("forbidden_city", jax_game_for(), differential_batch, args)


if __name__ == "__main__":
    raise SystemExit(main())
