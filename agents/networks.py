"""What the games' policy-and-value networks of the JAX PPO share.

A game's network (its ``policy`` part builds it: monkey_env/<game>/agents/network.py) returns
(logits over the game's whole action space, value) for a batch of inputs; the trainer and the
agent mask the logits (:func:`masked_logits`: illegal actions at -1e9, never drawn). A network
over a flat action space reads :class:`FlatInputs` (the observation's planes and vector, and
the greedy agent's one-turn value of every action) and may add greedy's values to its logits
with learned weights (:func:`with_greedy`): the policy then starts near the greedy agent and
learns what a one-turn rule cannot see.
"""

from __future__ import annotations

from typing import NamedTuple

import flax.linen as nn
import jax
import jax.numpy as jnp

RELATIVE_FLOOR = -8.0       # greedy values below the best by more than this count as this


class FlatInputs(NamedTuple):
    """One decision's network input (a batch adds a leading axis B)."""
    planes: jnp.ndarray        # (C, H, W) float32 the observation's planes
    vector: jnp.ndarray        # (V,) float32 the observation's vector
    values: jnp.ndarray        # (A,) float32 greedy's one-turn value of every action (0 where not computed)
    mask: jnp.ndarray          # (A,) bool legal actions
    majority: jnp.ndarray | None = None   # (A,) float32 a game's second per-action input, None if unused


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


def with_greedy(module: nn.Module, logits, c: FlatInputs, use: bool, scale: float, init):
    """``logits`` plus greedy's features (:func:`greedy_features`) times learned weights (``init``
    before training) where ``use``; ``logits`` unchanged otherwise."""
    if not use:
        return logits
    weights = module.param("feature_weights", lambda key: jnp.asarray(init, jnp.float32))
    return logits + greedy_features(c.values, c.mask, scale) @ weights


def masked_logits(logits, mask):
    """Logits with illegal actions at -1e9 (never sampled: exp underflows to exactly zero)."""
    return jnp.where(mask, logits, -1e9)


def masked_log_softmax(logits, mask):
    return jax.nn.log_softmax(masked_logits(logits, mask), -1)


def masked_entropy(logits, mask):
    logp = masked_log_softmax(logits, mask)
    return -jnp.sum(jnp.where(mask, jnp.exp(logp) * logp, 0.0), -1)
