"""The Shadow Theater's agents, heuristics and policy network (the game's ``agents`` and
``policy`` parts in monkey_env.games).

``AGENTS``: ``greedy`` (greedy.py: one decision's look-ahead). ``random``, ``ppo``,
``ppo-sample`` and ``mcts`` are every game's (the generic agents/registry.py); the JAX PPO's
parts are policy.py and network.py.
"""

from __future__ import annotations


def _greedy(seed: int):
    from monkey_env.shadow_theater.agents.greedy import ShadowTheaterGreedy
    return ShadowTheaterGreedy(seed)


AGENTS = {"greedy": _greedy}
