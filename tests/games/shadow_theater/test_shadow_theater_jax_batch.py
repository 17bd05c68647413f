"""The Shadow Theater's batch_step (the rare parts of a step computed only on the games that need
them, for batches of RARE_MIN_BATCH games or more) gives exactly vmap(step), decision by decision.
The differential test plays batches of 100, under the threshold: this one covers the big batches."""

import jax
import numpy as np

from monkey_env.agents.random_agent import random_legal_actions
from monkey_env.apps.batch_play import game_keys
from monkey_env.shadow_theater.actions import DRAFT, TURN
from monkey_env.shadow_theater.jaxgame.engine import RARE_FRACTION, RARE_MIN_BATCH, jax_engine_for


def test_batch_step_equals_vmapped_step_on_a_big_batch():
    engine = jax_engine_for()
    batch = RARE_MIN_BATCH
    slots = batch // RARE_FRACTION
    step_each = jax.jit(jax.vmap(engine.step))
    pick = random_legal_actions()
    states = engine.batch_init(game_keys(np.arange(batch)), None)
    key = jax.random.PRNGKey(0)
    rare_counts = []
    for _ in range(400):
        if bool(np.asarray(states.terminated).all()):
            break
        key, k = jax.random.split(key)
        actions = pick(k, engine.batch_legal_mask(states))
        batched, each = engine.batch_step(states, actions), step_each(states, actions)
        for name, a, b in zip(states._fields, batched, each):
            assert np.array_equal(np.asarray(a), np.asarray(b)), name
        before, after = states, batched
        begun = (np.asarray(before.phase) == DRAFT) & (np.asarray(after.phase) == TURN)
        scored = (np.asarray(before.round_winner) != np.asarray(after.round_winner)).any(1)
        rare_counts.append(int(begun.sum() + scored.sum()))
        states = batched
    assert bool(np.asarray(states.terminated).all())
    # both ways were taken: the gathered few, and the whole batch (every game leaving its draft at once)
    assert any(0 < n <= slots for n in rare_counts) and any(n > slots for n in rare_counts)
