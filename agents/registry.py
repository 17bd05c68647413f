"""Agents by name: the built-in ones (``random``, ``greedy``, ``ppo`` = the shipped checkpoint,
``ppo-sample`` = the same sampling from its policy, ``ppo:PATH`` = another checkpoint, ``mcts`` =
the search agent, ``mcts:sims=64,det=2,depth=0,temp=0`` = with those settings), or any class
given by import path ``package.module:Class``.

A factory takes the agent's seed (every random choice of the agent comes from it). User
classes are built as ``Class(seed=seed)`` when their constructor takes a seed, else ``Class()``.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Callable


def _random(seed: int):
    from monkey_env.agents.random_agent import RandomAgent
    return RandomAgent(seed)


def _greedy(seed: int):
    from monkey_env.agents.greedy import GreedyAgent
    return GreedyAgent(seed)


def _ppo(seed: int):
    from monkey_env.agents.ppo import PPOAgent
    return PPOAgent(seed=seed)


def _ppo_sample(seed: int):
    """The shipped checkpoint drawing its actions from its policy (torch's generator, seeded
    here): games of a deterministic agent repeat their openings, this one's vary."""
    from monkey_env.agents.ppo import PPOAgent
    agent = PPOAgent(seed=seed, deterministic=False)
    agent.name = "ppo-sample"
    return agent


def _mcts(seed: int):
    from monkey_env.agents.mcts import make_mcts
    return make_mcts("", seed)


BUILT_IN: dict[str, Callable[[int], object]] = {"random": _random, "greedy": _greedy, "ppo": _ppo,
                                                "ppo-sample": _ppo_sample, "mcts": _mcts}


def register(name: str, factory: Callable[[int], object]) -> None:
    """Add a built-in agent name (the baselines register themselves here)."""
    BUILT_IN[name] = factory


def split_agent_names(text: str) -> list[str]:
    """A comma-separated list of agent names, where an agent's own settings may hold commas
    too: ``"mcts:sims=64,det=2,greedy"`` is ``["mcts:sims=64,det=2", "greedy"]`` (a piece
    ``key=value`` without a colon belongs to the name before it)."""
    names: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if names and "=" in piece and ":" not in piece and ":" in names[-1]:
            names[-1] += "," + piece
        else:
            names.append(piece)
    return names


def known_names() -> list[str]:
    return sorted(BUILT_IN)


def make_agent(name: str, seed: int = 0):
    """The agent called `name` (a built-in name or ``package.module:Class``), seeded."""
    if name in BUILT_IN:
        return BUILT_IN[name](seed)
    if name.startswith("ppo:"):  # a PPO checkpoint by path
        from monkey_env.agents.ppo import PPOAgent
        return PPOAgent(name[4:], seed=seed)
    if name.startswith("mcts:"):  # the search agent with settings (agents/mcts.py: MCTSSettings)
        from monkey_env.agents.mcts import make_mcts
        agent = make_mcts(name[5:], seed)
        agent.name = name   # as asked for: results tables show the name given
        return agent
    if ":" not in name:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(known_names())}, "
                         "or an import path package.module:Class")
    module_name, _, class_name = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"agent {name!r}: cannot import module {module_name!r} ({e})") from e
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ValueError(f"agent {name!r}: module {module_name!r} has no {class_name!r}")
    takes_seed = "seed" in inspect.signature(cls).parameters
    agent = cls(seed=seed) if takes_seed else cls()
    if not (hasattr(agent, "act") or hasattr(agent, "act_batch")):
        raise ValueError(f"agent {name!r}: {class_name} has neither act(game, mask) nor act_batch(...)")
    return agent


def make_batch_agent(spec, seed: int = 0):
    """An agent for batched JAX play: a name (as make_agent) or an agent object with act_batch."""
    agent = make_agent(spec, seed) if isinstance(spec, str) else spec
    if not hasattr(agent, "act_batch"):
        raise ValueError(f"agent {getattr(agent, 'name', agent)!r} has no act_batch (agents/base.py)")
    return agent
