"""Monkey Palace's agents (the game's ``agents`` and ``checkpoint_agent`` parts in monkey_env.games):
``greedy`` (agents/greedy.py), and the Stable-Baselines3 PPO (agents/ppo.py) as ``ppo-sb3``
(most probable action) and ``ppo-sb3-sample`` (drawing from its policy). ``random``, ``ppo``,
``ppo-sample`` and ``mcts`` are every game's (agents/registry.py).
"""

from __future__ import annotations


def _greedy(seed: int):
    from monkey_env.agents.greedy import GreedyAgent
    return GreedyAgent(seed)


def _ppo_sb3(deterministic: bool):
    def factory(seed: int):
        from monkey_env.agents.ppo import PPOAgent
        agent = PPOAgent(seed=seed, deterministic=deterministic)
        agent.name = "ppo-sb3" if deterministic else "ppo-sb3-sample"
        return agent
    return factory


AGENTS = {"greedy": _greedy, "ppo-sb3": _ppo_sb3(True), "ppo-sb3-sample": _ppo_sb3(False)}


def checkpoint_agent(path: str, seed: int):
    """``ppo:PATH`` of a Stable-Baselines3 checkpoint (a ``.zip``); None for another file (the JAX PPO's)."""
    if not path.endswith(".zip"):
        return None
    from monkey_env.agents.ppo import PPOAgent
    return PPOAgent(path, seed=seed)
