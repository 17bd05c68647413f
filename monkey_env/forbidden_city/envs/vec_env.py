"""Forbidden City as a Stable-Baselines3 ``VecEnv`` over a batch of JAX games.

    venv = ForbiddenCityVecEnv(256, players=2, opponents=["random", "greedy"], seed=0)

Every game's VecEnv (monkey_env.envs.vec_env) says how seats, opponents and restarts work;
observations, actions and rewards are those of :mod:`monkey_env.forbidden_city.envs.pettingzoo_env`.
"""

from __future__ import annotations

from monkey_env.envs.vec_env import JaxVecEnv
from monkey_env.forbidden_city.envs.pettingzoo_env import HOOKS


class ForbiddenCityVecEnv(JaxVecEnv):
    hooks = HOOKS
