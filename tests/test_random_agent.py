"""The batched random agent: a legal action, uniformly, the same for the same key."""

import jax
import jax.numpy as jnp
import numpy as np
from scipy.stats import chisquare

from monkey_env.agents.random_agent import random_legal_actions


def test_it_picks_a_legal_action_in_every_row_and_action_0_in_a_row_with_none():
    pick = random_legal_actions()
    rng = np.random.default_rng(0)
    for actions in (1, 5, 127, 128, 129, 1563, 2917):
        masks = rng.random((300, actions)) < rng.random((300, 1)) * 0.3
        masks[0] = False
        masks[1] = False
        masks[1, actions - 1] = True            # the last action alone (in the padded lane)
        masks[2] = True
        chosen = np.asarray(pick(jax.random.PRNGKey(actions), jnp.asarray(masks)))
        assert chosen[0] == 0 and chosen[1] == actions - 1
        has = masks.any(1)
        assert masks[np.arange(300), chosen][has].all(), actions


def test_every_legal_action_is_equally_likely():
    legal = [0, 5, 127, 128, 129, 700, 1500, 2916]   # lanes 0, 5, 127, 0, 1, ...: every place of the order
    masks = np.zeros((16_000, 2917), bool)
    masks[:, legal] = True
    chosen = np.asarray(random_legal_actions()(jax.random.PRNGKey(1), jnp.asarray(masks)))
    counts = np.array([(chosen == a).sum() for a in legal])
    assert counts.sum() == 16_000
    assert chisquare(counts).pvalue > 0.001, counts


def test_the_same_key_gives_the_same_choices_and_another_key_others():
    masks = jnp.asarray(np.random.default_rng(2).random((256, 400)) < 0.5)
    pick = random_legal_actions()
    a, b = pick(jax.random.PRNGKey(3), masks), pick(jax.random.PRNGKey(3), masks)
    assert (a == b).all()
    assert (a != pick(jax.random.PRNGKey(4), masks)).any()
