"""Monkey Palace as a Stable-Baselines3 ``VecEnv`` over a batch of JAX games: the training interface.

    venv = MonkeyPalaceVecEnv(256, players=2, map=1, opponents=["random", "greedy"], seed=0)
    model = MaskablePPO("MultiInputPolicy", venv)      # sb3-contrib; masks from action_masks()

Every game's VecEnv (monkey_env.envs.vec_env) says how seats, opponents and restarts work;
observations, actions and rewards are those of :mod:`monkey_env.monkey_palace.envs.pettingzoo_env`.
"""

from __future__ import annotations

from monkey_env.envs.vec_env import JaxVecEnv
from monkey_env.monkey_palace.envs.pettingzoo_env import HOOKS


class MonkeyPalaceVecEnv(JaxVecEnv):
    hooks = HOOKS
