"""The Shadow Theater as a Stable-Baselines3 ``VecEnv`` over a batch of JAX games.

    venv = ShadowTheaterVecEnv(64, opponents="greedy", seed=0)

Every game's VecEnv (monkey_env.envs.vec_env) says how seats, opponents and restarts work;
observations, actions and rewards are those of :mod:`monkey_env.shadow_theater.envs.pettingzoo_env`.
"""

from __future__ import annotations

from monkey_env.envs.vec_env import JaxVecEnv
from monkey_env.shadow_theater.envs.pettingzoo_env import HOOKS


class ShadowTheaterVecEnv(JaxVecEnv):
    hooks = HOOKS
