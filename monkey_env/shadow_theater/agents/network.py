"""The Shadow Theater's policy-and-value network of the JAX PPO (its ``policy`` part builds it).

The observation is small (2×3×3 planes and a 102-long vector), so an MLP over both, flattened,
with greedy's one-turn value of every action as per-action inputs (agents/networks.py):

    [planes, vector] ──Dense+ReLU──▶ h ──Dense+ReLU──▶ g ──▶ logits (29) + greedy features · w
                                                          └─▶ value
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from monkey_env.agents.networks import FlatInputs, with_greedy


class FlatNet(nn.Module):
    """An MLP over the flattened observation (The Shadow Theater)."""

    n_actions: int
    hidden: int = 128
    greedy_inputs: int = 1         # 1: greedy's values are per-action inputs
    value_scale: float = 1.0       # greedy value units per feature unit

    @nn.compact
    def __call__(self, c: FlatInputs):
        batch = c.vector.shape[0]
        x = jnp.concatenate([c.planes.reshape(batch, -1), c.vector], -1)
        h = nn.relu(nn.Dense(self.hidden, name="hidden0")(x))
        g = nn.relu(nn.Dense(self.hidden, name="hidden1")(h))
        logits = nn.Dense(self.n_actions, name="policy_out", kernel_init=nn.initializers.zeros)(g)
        # initially a point of greedy's value is worth one logit, greedy's choice one more
        logits = with_greedy(self, logits, c, bool(self.greedy_inputs), self.value_scale, [1.0, 1.0])
        value = nn.Dense(1, name="value_out")(nn.relu(nn.Dense(self.hidden, name="value_hidden")(g)))[:, 0]
        return logits, value
