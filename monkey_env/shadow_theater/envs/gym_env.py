"""The Shadow Theater as a Gymnasium single-agent environment (``gymnasium.make("ShadowTheater-v0")``).

The learner plays one seat (``learner_seat``: 0, 1, or None for a seat drawn each game from the
env's seeded generator) against ``opponents`` (an agent name of the registry, ``random`` or
``greedy``; or an agent object) between the learner's decisions (monkey_env.envs.gym_view).

Observation: ``Dict(planes (2,3,3), vector (V,))`` float32 (jaxgame.engine.observe); action:
``Discrete(29)``; ``action_masks()`` gives the legal actions (sb3-contrib's MaskablePPO reads it).
Reward: the learner's reward of the options' ``reward_mode`` summed over its decision and the
opponents' decisions that follow. An illegal action ends the game with the penalty (-10).
"""

from __future__ import annotations

from monkey_env.envs.gym_view import JaxGymView
from monkey_env.shadow_theater.envs.pettingzoo_env import raw_env


class ShadowTheaterGymEnv(JaxGymView):
    aec_class = raw_env
