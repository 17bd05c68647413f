"""Agents by name, per game: the built-in ones of Monkey Palace (``random``, ``greedy``, ``ppo`` =
the shipped checkpoint, ``ppo-sample`` = the same sampling from its policy, ``ppo:PATH`` = another
checkpoint), those another game registers (its ``agents`` part in monkey_env.games: a dict name ->
factory(seed)), or any class given by import path ``package.module:Class``.

``random`` plays any game (it reads only the legal mask, in ``act`` and ``act_batch``); every
function takes ``game=`` (default ``monkey_palace``, so existing calls are Monkey Palace's).

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


BUILT_IN: dict[str, Callable[[int], object]] = {"random": _random, "greedy": _greedy, "ppo": _ppo,
                                                "ppo-sample": _ppo_sample}


DEFAULT_GAME = "monkey_palace"
GENERIC: dict[str, Callable[[int], object]] = {"random": _random}   # agents that play every game


def register(name: str, factory: Callable[[int], object], game: str = DEFAULT_GAME) -> None:
    """Add a built-in agent name for a game (the baselines register themselves here)."""
    agents_of(game)[name] = factory


def agents_of(game: str = DEFAULT_GAME) -> dict[str, Callable[[int], object]]:
    """The named agents of a game: Monkey Palace's BUILT_IN, else the game's ``agents`` part
    (monkey_env.games) with the generic ones (random) beside it."""
    if game == DEFAULT_GAME:
        return BUILT_IN
    if game not in _PER_GAME:
        from monkey_env.games import game_spec

        spec = game_spec(game)                      # an unknown game raises, naming the known ones
        _PER_GAME[game] = {**GENERIC, **(spec.load("agents") if spec.has("agents") else {})}
    return _PER_GAME[game]


_PER_GAME: dict[str, dict[str, Callable[[int], object]]] = {}


def known_names(game: str = DEFAULT_GAME) -> list[str]:
    return sorted(agents_of(game))


def make_agent(name: str, seed: int = 0, game: str = DEFAULT_GAME):
    """The agent called `name` for `game` (a built-in name or ``package.module:Class``), seeded."""
    named = agents_of(game)
    if name in named:
        return named[name](seed)
    if name.startswith("ppo:") and game == DEFAULT_GAME:  # a Monkey Palace PPO checkpoint by path
        from monkey_env.agents.ppo import PPOAgent
        return PPOAgent(name[4:], seed=seed)
    if ":" not in name:
        raise ValueError(f"unknown agent {name!r} for {game}; known: {', '.join(known_names(game))}, "
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


def make_batch_agent(spec, seed: int = 0, game: str = DEFAULT_GAME):
    """An agent for batched JAX play: a name (as make_agent) or an agent object with act_batch."""
    agent = make_agent(spec, seed, game) if isinstance(spec, str) else spec
    if not hasattr(agent, "act_batch"):
        raise ValueError(f"agent {getattr(agent, 'name', agent)!r} has no act_batch (agents/base.py)")
    return agent
