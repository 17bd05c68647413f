"""A single-agent Gymnasium view of Monkey Palace: one learning seat, the others played by agents.

    env = MonkeyPalaceGymEnv(players=2, map=1, opponents="random")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().nonzero()[0][0])

Observation: ``Dict(planes=(20, 32, 32) float32, vector=(V,) float32)`` from the learner's
seat (see :mod:`monkey_env.monkey_palace.envs.pettingzoo_env` for every entry). Action: ``Discrete(2438)``;
``action_masks()`` gives the legal ones (for sb3-contrib's MaskablePPO). A step is one
decision of the learner, followed by the opponents' decisions up to the learner's next one;
its reward is what the learner's reward mode gave over those decisions (by default the
change of its Banana Points, so the rewards of an episode sum to its final score). An illegal
action ends the episode with the illegal penalty.

Opponents are agents by name or as objects: one for every other seat, or a list in seat
order (skipping the learner). ``learner_seat=None`` draws the learner's seat at every reset
(from the reset's seed), so it learns every seat (monkey_env.envs.gym_view, every game's view).
"""

from __future__ import annotations

from monkey_env.envs.gym_view import JaxGymView
from monkey_env.monkey_palace.envs.pettingzoo_env import raw_env


class MonkeyPalaceGymEnv(JaxGymView):
    aec_class = raw_env
