"""Forbidden City's policy-and-value network of the JAX PPO (its ``policy`` part builds it).

The observation keeps the table's geometry (30 planes of 27×27 cells and a 45-long vector of the
hand tile and the counts), and the action is a cell and a rotation (``(y·27 + x)·4 + turns``,
then one "set aside"), so a convolutional trunk over the cells with the vector broadcast onto
every cell, and a per-cell head of 4 rotation logits:

    planes (27×27×30) ⊕ Dense(vector) on every cell ──3×3 conv──▶ residual 3×3 convs ──▶ t (27×27×W)
    cell logits     = 1×1 conv of [t, Dense(vector)] → 4 rotations per cell      (27·27·4)
    set-aside logit = Dense over the pooled trunk and the vector                  (1)
    value           = MLP over [mean- and max-pooled t, vector]                   ()

Greedy's values (``greedy_inputs: 1``) and each placement's majority potential
(``majority_inputs: 1``, agents/majority.py, in ``FlatInputs.majority``) may be per-action inputs.
"""

from __future__ import annotations

import flax.linen as nn
import jax.numpy as jnp

from monkey_env.agents.networks import FlatInputs, with_greedy


class CityNet(nn.Module):
    """A convolutional trunk over the table's cells with a per-cell × rotation policy head (Forbidden City)."""

    n_actions: int                 # cells × 4 rotations + 1 (set aside)
    width: int = 32                # channels of the trunk
    hidden: int = 128              # global features (value, set aside)
    blocks: int = 2                # residual 3×3 convolutions after the first
    greedy_inputs: int = 0         # 1: greedy's values are per-action inputs
    majority_inputs: int = 0       # 1: the majority potential (agents/majority.py) is one more
    majority_prior: float = 0.0    # its logit weight before training
    majority_gain: int = 1         # the weight is learned in units of 1/gain (Adam moves a weight about the
                                   # learning rate a step, whatever its scale: a gain of 10 learns it 10x faster)
    value_scale: float = 1.0       # coins per feature unit

    @nn.compact
    def __call__(self, c: FlatInputs):
        batch = c.vector.shape[0]
        x = c.planes.transpose(0, 2, 3, 1)                                       # (B, H, W, C)
        h_cells, w_cells = x.shape[1], x.shape[2]
        v = nn.relu(nn.Dense(self.hidden, name="vector_in")(c.vector))          # (B, hidden)
        on_cells = nn.Dense(self.width, name="vector_to_cells")(v)[:, None, None]
        t = nn.relu(nn.Conv(self.width, (3, 3), padding="SAME", name="conv_in")(x) + on_cells)
        for i in range(self.blocks):
            t = t + nn.relu(nn.Conv(self.width, (3, 3), padding="SAME", name=f"conv{i}")(t))
        hand = jnp.broadcast_to(nn.Dense(16, name="hand_to_cells")(v)[:, None, None], (batch, h_cells, w_cells, 16))
        s = nn.relu(nn.Dense(self.width, name="cell_hidden")(jnp.concatenate([t, hand], -1)))
        cell_logits = nn.Dense(4, name="cell_out", kernel_init=nn.initializers.zeros)(s)       # (B, H, W, 4)
        pooled = jnp.concatenate([t.mean((1, 2)), t.max((1, 2)), v], -1)
        g = nn.relu(nn.Dense(self.hidden, name="global")(pooled))
        aside = nn.Dense(1, name="aside_out", kernel_init=nn.initializers.zeros)(g)
        logits = jnp.concatenate([cell_logits.reshape(batch, -1), aside], -1)
        assert logits.shape[-1] == self.n_actions, (logits.shape, self.n_actions)
        logits = with_greedy(self, logits, c, bool(self.greedy_inputs), self.value_scale, [1.0, 1.0])
        if self.majority_inputs:   # a coin of majority margin per open side is worth `majority_weight` logits
            gain = float(self.majority_gain)
            weight = self.param("majority_weight", lambda key: jnp.asarray(self.majority_prior / gain, jnp.float32))
            logits = logits + jnp.where(c.mask, c.majority, 0.0) * (gain * weight)
        value = nn.Dense(1, name="value_out")(nn.relu(nn.Dense(self.hidden, name="value_hidden")(g)))[:, 0]
        return logits, value
