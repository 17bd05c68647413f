"""The JAX bench of any registered game: whole batches replayed until the timed span is long enough."""

import pytest

from monkey_env.apps.bench import bench_any_jax
from monkey_env.games import game_names, game_spec

NAME = "pebble_piles"      # the example game: the smallest engine, quick to compile
pytestmark = pytest.mark.skipif(NAME not in game_names(), reason="the example game is not installed")


def test_a_short_batch_is_replayed_until_min_seconds_and_every_live_decision_counts():
    spec = game_spec(NAME)
    options = spec.load("options")(players=2)
    engine = spec.load("jax_engine")(options)
    row = bench_any_jax(engine, options, batch=8, seed=0, max_seconds=30.0, min_seconds=0.5)
    assert row["rounds"] >= 2                      # one batch of this game ends in far less than 0.5 s
    assert row["seconds"] >= 0.5
    # Each round plays the same 8 deals to their end: at least one decision per game per round.
    assert row["decisions"] >= 8 * row["rounds"]
    assert row["decisions_per_second"] == pytest.approx(row["decisions"] / row["seconds"])
