"""Observations of every game: ``{"planes": (C, H, W), "vector": (V,)}`` float32 arrays, or one
flat vector (the planes channel-major, then the vector) for clients that take a single Box."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces


def to_numpy(obs: dict) -> dict:
    return {"planes": np.asarray(obs["planes"], np.float32), "vector": np.asarray(obs["vector"], np.float32)}


def flatten(obs: dict) -> np.ndarray:
    """A structured observation as the flat one."""
    return np.concatenate([np.asarray(obs["planes"], np.float32).reshape(-1), np.asarray(obs["vector"], np.float32)])


def flat_space(structured: spaces.Dict) -> spaces.Box:
    """The flat observation's Box, with the structured one's bounds."""
    low = np.concatenate([structured[k].low.reshape(-1) for k in ("planes", "vector")])
    high = np.concatenate([structured[k].high.reshape(-1) for k in ("planes", "vector")])
    return spaces.Box(low, high, low.shape, np.float32)


def flatten_batch(obs: dict) -> np.ndarray:
    """(B, ...) structured observations as (B, N) flat ones."""
    return np.concatenate([obs["planes"].reshape(len(obs["planes"]), -1), obs["vector"]], axis=1)
