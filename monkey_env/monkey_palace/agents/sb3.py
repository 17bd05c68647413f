"""Monkey Palace's Stable-Baselines3 PPO (its ``sb3`` part): sb3-contrib's MaskablePPO with a feature extractor for the palace.

The policy sees the observation of :mod:`monkey_env.monkey_palace.envs.observation`: a small CNN reads the
plate's planes (20×32×32) and an MLP the vector; their features are joined and fed to the
policy and value heads. ``PPOAgent`` plays a saved checkpoint behind both agent interfaces
(``act`` on the reference engine, ``act_batch`` on JAX batches), deterministically (the most
probable legal action) unless ``deterministic=False``.

Checkpoints are SB3 zip files. ``make_agent("ppo")`` loads the default checkpoint
(``agents/checkpoints/ppo_2p_map1.zip``); ``"ppo:PATH"`` names another; the agent's
``version`` is the checkpoint's SHA-256 prefix, so results record which weights played.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from monkey_env.agents.ppo_jax import CHECKPOINTS

DEFAULT_CHECKPOINT = CHECKPOINTS / "ppo_2p_map1.zip"     # in agents/checkpoints/, beside every shipped checkpoint


class PalaceExtractor(BaseFeaturesExtractor):
    """CNN over the planes + MLP over the vector, concatenated."""

    def __init__(self, observation_space: spaces.Dict, cnn_channels: int = 32, vector_features: int = 128,
                 features_dim: int = 256):
        super().__init__(observation_space, features_dim)
        planes = observation_space["planes"].shape[0]
        self.cnn = nn.Sequential(
            nn.Conv2d(planes, cnn_channels, 3, padding=1), nn.ReLU(),
            nn.Conv2d(cnn_channels, cnn_channels, 3, stride=2, padding=1), nn.ReLU(),   # 16×16
            nn.Conv2d(cnn_channels, cnn_channels * 2, 3, stride=2, padding=1), nn.ReLU(),  # 8×8
            nn.AdaptiveAvgPool2d(4), nn.Flatten())
        self.mlp = nn.Sequential(nn.Linear(observation_space["vector"].shape[0], vector_features), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(cnn_channels * 2 * 16 + vector_features, features_dim), nn.ReLU())

    def forward(self, obs: dict) -> torch.Tensor:
        return self.head(torch.cat([self.cnn(obs["planes"]), self.mlp(obs["vector"])], dim=1))


def policy_kwargs(cnn_channels: int = 32, vector_features: int = 128, features_dim: int = 256,
                  net_arch: tuple = (128,)) -> dict:
    return {"features_extractor_class": PalaceExtractor,
            "features_extractor_kwargs": {"cnn_channels": cnn_channels, "vector_features": vector_features,
                                          "features_dim": features_dim},
            "net_arch": list(net_arch)}


def checkpoint_hash(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]


def saved_policy_kwargs(path: str | Path) -> dict:
    """The checkpoint's policy settings read from its JSON, with this module's extractor class.

    SB3 also stores them pickled, and the pickle names the extractor by the module it was trained
    under (``agents.ppo``, before the agents moved into ``monkey_env`` and then into the game's folder), which an installed copy
    cannot import; SB3's ``custom_objects`` takes this copy instead. Other extractors: unchanged."""
    with zipfile.ZipFile(path) as z:
        saved = json.loads(z.read("data")).get("policy_kwargs", {})
    if not str(saved.get("features_extractor_class", "")).endswith(".PalaceExtractor'>"):
        return {}
    return {"policy_kwargs": {"features_extractor_class": PalaceExtractor,
                              "features_extractor_kwargs": saved.get("features_extractor_kwargs", {}),
                              "net_arch": saved.get("net_arch", [128])}}


class PPOAgent:
    name = "ppo"

    def __init__(self, checkpoint: str | Path | None = None, seed: int = 0, deterministic: bool = True,
                 model=None):
        from sb3_contrib import MaskablePPO

        if model is None:
            path = Path(checkpoint) if checkpoint else DEFAULT_CHECKPOINT
            if not path.exists():
                raise ValueError(f"PPO checkpoint not found: {path} (train one with `monkey-palace train`)")
            try:
                model = MaskablePPO.load(str(path), device="cpu", custom_objects=saved_policy_kwargs(path))
            except Exception as e:  # a zip that is not an SB3 model
                raise ValueError(f"PPO checkpoint {path} cannot be loaded: {e}") from e
            self.version = checkpoint_hash(path)
        else:
            self.version = "in-memory"
        self.model = model
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        self._observe = None

    def cannot_play(self, options) -> str | None:
        """A checkpoint plays the action space it was trained in, and the build action sets it."""
        from monkey_env.monkey_palace.engine import action_layout

        trained, needed = int(self.model.action_space.n), action_layout(options.game_data(), options.build_action).size
        if trained == needed:
            return None
        return (f"its checkpoint was trained for {trained} actions and build_action {options.build_action!r} "
                f"has {needed} (the shipped ppo-sb3 plays the catalogue: --build-action catalogue)")

    def act_batch(self, jax_game, states, masks, key):
        import jax

        if self._observe is None or self._observe[0] is not jax_game:
            self._observe = (jax_game, jax.jit(jax.vmap(jax_game.observe)))
        obs = self._observe[1](states, states.current)
        obs = {"planes": np.asarray(obs["planes"]), "vector": np.asarray(obs["vector"])}
        masks = np.array(masks, dtype=bool)  # a writable copy: torch refuses read-only arrays
        actions, _ = self.model.predict(obs, action_masks=masks, deterministic=self.deterministic)
        # A finished game has no legal action; its (ignored) action is 0.
        return np.where(masks.any(1), actions, 0).astype(np.int32)

    def act(self, game, mask: np.ndarray) -> int:
        import jax

        from monkey_env.monkey_palace.jaxgame.env import jax_game_for
        from monkey_env.monkey_palace.jaxgame.from_reference import jax_state_from_game

        jg = jax_game_for(game.options)   # the engine of the game's own data
        state = jax.tree_util.tree_map(lambda x: x[None], jax_state_from_game(jg, game))
        return int(self.act_batch(jg, state, np.asarray(mask)[None], None)[0])
