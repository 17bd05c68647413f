"""Monkey Palace's agents, heuristics and policy networks (the game's ``agents``,
``checkpoint_agent``, ``policy`` and ``sb3`` parts in monkey_env.games).

``AGENTS``: ``greedy`` (greedy.py, its batched scores from staircase_values.py), and the
Stable-Baselines3 PPO (sb3.py) as ``ppo-sb3`` (most probable action) and ``ppo-sb3-sample``
(drawing from its policy). ``random``, ``ppo``, ``ppo-sample`` and ``mcts`` are every game's
(the generic agents/registry.py), the JAX PPO's parts are policy.py and network.py.
"""

from __future__ import annotations


def _greedy(seed: int):
    from monkey_env.monkey_palace.agents.greedy import GreedyAgent
    return GreedyAgent(seed)


def _ppo_sb3(deterministic: bool):
    def factory(seed: int):
        from monkey_env.monkey_palace.agents.sb3 import PPOAgent
        agent = PPOAgent(seed=seed, deterministic=deterministic)
        agent.name = "ppo-sb3" if deterministic else "ppo-sb3-sample"
        return agent
    return factory


AGENTS = {"greedy": _greedy, "ppo-sb3": _ppo_sb3(True), "ppo-sb3-sample": _ppo_sb3(False)}


def checkpoint_agent(path: str, seed: int):
    """``ppo:PATH`` of a Stable-Baselines3 checkpoint (a ``.zip``); None for another file (the JAX PPO's)."""
    if not path.endswith(".zip"):
        return None
    from monkey_env.monkey_palace.agents.sb3 import PPOAgent
    return PPOAgent(path, seed=seed)
