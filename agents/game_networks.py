"""The policy-and-value networks of the JAX PPO for the games with a flat action space.

Both return (logits over the game's whole action space, value) for a batch of inputs; the
trainer masks the logits (illegal actions at -1e9, never drawn). Both may take the greedy
agent's one-turn value of every action as per-action inputs, added to the logits with learned
weights (as Monkey Palace's network does, agents/palace_network.py): the policy then starts
near the greedy agent and learns what a one-turn rule cannot see.

**The Shadow Theater** (:class:`FlatNet`): the observation is small (2×3×3 planes and a
102-long vector), so an MLP over both, flattened:

    [planes, vector] ──Dense+ReLU──▶ h ──Dense+ReLU──▶ g ──▶ logits (29) + greedy features · w
                                                          └─▶ value

**Forbidden City** (:class:`CityNet`): the observation keeps the table's geometry (30 planes of
27×27 cells and a 45-long vector of the hand tile and the counts), and the action is a cell and
a rotation (``(y·27 + x)·4 + turns``, then one "set aside"), so a convolutional trunk over the
cells with the vector broadcast onto every cell, and a per-cell head of 4 rotation logits:

    planes (27×27×30) ⊕ Dense(vector) on every cell ──3×3 conv──▶ residual 3×3 convs ──▶ t (27×27×W)
    cell logits     = 1×1 conv of [t, Dense(vector)] → 4 rotations per cell      (27·27·4)
    set-aside logit = Dense over the pooled trunk and the vector                  (1)
    value           = MLP over [mean- and max-pooled t, vector]                   ()
"""

from __future__ import annotations

from typing import NamedTuple

import flax.linen as nn
import jax.numpy as jnp

RELATIVE_FLOOR = -8.0       # greedy values below the best by more than this count as this


class FlatInputs(NamedTuple):
    """One decision's network input (a batch adds a leading axis B)."""
    planes: jnp.ndarray        # (C, H, W) float32 the observation's planes
    vector: jnp.ndarray        # (V,) float32 the observation's vector
    values: jnp.ndarray        # (A,) float32 greedy's one-turn value of every action (0 where not computed)
    mask: jnp.ndarray          # (A,) bool legal actions
    majority: jnp.ndarray | None = None   # (A,) float32 Forbidden City's majority potential of every action, None if unused


def greedy_features(values, mask, scale: float) -> jnp.ndarray:
    """(B, A, 2) float32: each legal action's greedy value relative to the best legal one
    (/ scale, floored at RELATIVE_FLOOR), and whether it is greedy's choice (the lowest index
    among the best)."""
    v = values.astype(jnp.float32) / scale
    best = jnp.max(jnp.where(mask, v, -1e9), -1, keepdims=True)
    relative = jnp.where(mask, jnp.maximum(v - best, RELATIVE_FLOOR), 0.0)
    choice = jnp.argmax(jnp.where(mask, v, -1e9), -1)
    chosen = (jnp.arange(v.shape[-1])[None] == choice[:, None]) & mask
    return jnp.stack([relative, chosen.astype(jnp.float32)], -1)


def _with_greedy(module: nn.Module, logits, c: FlatInputs, use: bool, scale: float, init):
    if not use:
        return logits
    weights = module.param("feature_weights", lambda key: jnp.asarray(init, jnp.float32))
    return logits + greedy_features(c.values, c.mask, scale) @ weights


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
        logits = _with_greedy(self, logits, c, bool(self.greedy_inputs), self.value_scale, [1.0, 1.0])
        value = nn.Dense(1, name="value_out")(nn.relu(nn.Dense(self.hidden, name="value_hidden")(g)))[:, 0]
        return logits, value


class CityNet(nn.Module):
    """A convolutional trunk over the table's cells with a per-cell × rotation policy head (Forbidden City)."""

    n_actions: int                 # cells × 4 rotations + 1 (set aside)
    width: int = 32                # channels of the trunk
    hidden: int = 128              # global features (value, set aside)
    blocks: int = 2                # residual 3×3 convolutions after the first
    greedy_inputs: int = 0         # 1: greedy's values are per-action inputs
    majority_inputs: int = 0       # 1: the majority potential (agents/forbidden_city_majority.py) is one more
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
        logits = _with_greedy(self, logits, c, bool(self.greedy_inputs), self.value_scale, [1.0, 1.0])
        if self.majority_inputs:   # a coin of majority margin per open side is worth `majority_weight` logits
            gain = float(self.majority_gain)
            weight = self.param("majority_weight", lambda key: jnp.asarray(self.majority_prior / gain, jnp.float32))
            logits = logits + jnp.where(c.mask, c.majority, 0.0) * (gain * weight)
        value = nn.Dense(1, name="value_out")(nn.relu(nn.Dense(self.hidden, name="value_hidden")(g)))[:, 0]
        return logits, value
