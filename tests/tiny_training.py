"""The tiny trainer runs that tests/test_jax_trainer.py and tests/test_ppo_games.py share."""

import jax


def two_iterations(trainer):
    """Initialise ``trainer`` and run two compiled iterations on fresh games (keys 10 and 11).
    Returns (params before, runner after, each iteration's metrics as floats)."""
    runner = trainer.init(jax.random.PRNGKey(0))
    before = runner.params
    metrics = []
    for i in range(2):
        runner, m = trainer.iteration(runner, trainer.new_games(jax.random.PRNGKey(10 + i)))
        metrics.append({k: float(v) for k, v in m.items()})
    return before, runner, metrics
