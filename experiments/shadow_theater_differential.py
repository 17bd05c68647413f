"""The Shadow Theater: the JAX engine against the reference engine on many random games,
decision by decision (monkey_env.shadow_theater.jaxgame.parity). The figure of the docs.

    nice -n 15 .venv/bin/python experiments/shadow_theater_differential.py --games 10000 \
        --out reports/shadow_theater/differential.json [--max-minutes 30]

Game g is dealt from seed g. Batches of ``--batch`` games; the JSON summary (games, decisions,
disagreements with their messages, seconds, every invocation's command and load) is rewritten
after each batch, and the same command continues a stopped run (``--fresh`` starts again).
A disagreement stops its batch (reported with its message); the run goes on with the next.
"""

from __future__ import annotations

try:
    from experiments.differential_runs import arguments, run
except ImportError:                     # run as a script: experiments/ is on sys.path
    from differential_runs import arguments, run


def main() -> int:
    args = arguments(__doc__, "reports/shadow_theater/differential.json").parse_args()
    from monkey_env.shadow_theater.jaxgame.engine import jax_engine_for
    from monkey_env.shadow_theater.jaxgame.parity import differential_batch
    return run("shadow_theater", jax_engine_for(), differential_batch, args)


if __name__ == "__main__":
    raise SystemExit(main())
