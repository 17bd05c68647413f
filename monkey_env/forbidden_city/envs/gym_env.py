"""A single-agent Gymnasium view of Forbidden City (``ForbiddenCity-v0``): one learning seat,
the other seats played by agents (monkey_env.envs.gym_view says how).

    env = ForbiddenCityGymEnv(players=2, opponents="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(env.action_masks().nonzero()[0][0]))

Observation ``Dict(planes=(30, 27, 27), vector=(45,))`` from the learner's seat, action
``Discrete(2917)`` with ``action_masks()``; a step is the learner's turn and the opponents'
turns up to its next one, its reward the learner's reward over them (default: coins won).
"""

from __future__ import annotations

from monkey_env.envs.gym_view import JaxGymView
from monkey_env.forbidden_city.envs.pettingzoo_env import raw_env


class ForbiddenCityGymEnv(JaxGymView):
    aec_class = raw_env
