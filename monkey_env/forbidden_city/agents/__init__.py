"""Forbidden City's agents, heuristics and policy network (the game's ``agents`` and ``policy``
parts in monkey_env.games).

``AGENTS``: ``greedy`` (greedy.py: the best one-turn value). ``random``, ``ppo``,
``ppo-sample`` and ``mcts`` are every game's (the generic agents/registry.py); majority.py is
the majority potential the network may read, and the JAX PPO's parts are policy.py and
network.py.
"""

from __future__ import annotations


def _greedy(seed: int):
    from monkey_env.forbidden_city.agents.greedy import ForbiddenCityGreedy
    return ForbiddenCityGreedy(seed)


AGENTS = {"greedy": _greedy}
