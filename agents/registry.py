"""Agents by name, per game, from the game's parts in the registry (monkey_env.games):

- ``random`` plays every game (it reads only the legal mask, in ``act`` and ``act_batch``);
- a game with a ``policy`` part (a JAX PPO, ``ppo_jax.JAX_PPO_GAMES``) has ``ppo`` (its shipped
  checkpoint, ``ppo_jax.default_checkpoint(game)``), ``ppo-sample`` (the same drawing from its
  policy) and ``ppo:PATH`` (another checkpoint: the game's ``checkpoint_agent`` part reads the
  formats of its own, Monkey Palace's Stable-Baselines3 ``.zip``; anything else is a JAX one);
- a game with a ``jax_engine`` and a ``search`` part has ``mcts`` (agents/mcts.py) and
  ``mcts:sims=64,det=2,depth=0,temp=0`` (with those settings), its PPO as prior and value, or
  ``prior=uniform`` without one;
- a game's ``agents`` part adds its own (a dict name -> factory(seed): Monkey Palace's ``greedy``,
  ``ppo-sb3``, ``ppo-sb3-sample``: each game's in monkey_env/<game>/agents/__init__.py);
- any class given by import path ``package.module:Class``.

Every function takes ``game=`` (default ``games.DEFAULT_GAME``). A factory takes the agent's
seed (every random choice of the agent comes from it). User classes are built as
``Class(seed=seed)`` when their constructor takes a seed, else ``Class()``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

from monkey_env.games import DEFAULT_GAME  # the registry says which game is the default, once


def _random(seed: int):
    from monkey_env.agents.random_agent import RandomAgent
    return RandomAgent(seed)


def _game_mcts(game: str, settings: str = ""):
    def factory(seed: int):
        from monkey_env.agents.mcts import make_mcts
        agent = make_mcts(settings, seed, game=game)
        agent.name = "mcts"
        return agent
    return factory


def _game_ppo(game: str, deterministic: bool):
    """A game's shipped JAX PPO checkpoint, as ``ppo`` (most probable action) or ``ppo-sample``
    (drawing from its policy, from the seed or the batch's key: a deterministic agent's games
    repeat their openings, this one's vary)."""
    def factory(seed: int):
        from monkey_env.agents.ppo_jax import JaxPPOAgent
        agent = JaxPPOAgent(seed=seed, deterministic=deterministic, game=game)
        agent.name = "ppo" if deterministic else "ppo-sample"
        return agent
    return factory


GENERIC: dict[str, Callable[[int], object]] = {"random": _random}   # agents that play every game


def register(name: str, factory: Callable[[int], object], game: str = DEFAULT_GAME) -> None:
    """Add a built-in agent name for a game (the baselines register themselves here)."""
    agents_of(game)[name] = factory


def agents_of(game: str = DEFAULT_GAME) -> dict[str, Callable[[int], object]]:
    """The named agents of a game, from its parts in the registry (monkey_env.games): the generic
    ones (random), ``ppo`` and ``ppo-sample`` where it has a ``policy``, ``mcts`` where it has a
    ``jax_engine`` and a ``search`` part, and its own ``agents`` part."""
    if game not in _PER_GAME:
        from monkey_env.games import game_spec

        spec = game_spec(game)                      # an unknown game raises, naming the known ones
        named = dict(GENERIC)
        if spec.has("policy"):
            named |= {"ppo": _game_ppo(game, True), "ppo-sample": _game_ppo(game, False)}
        # the search agent (agents/mcts.py) where the game has a JAX engine and a search part: the
        # game's PPO as prior and value, or without one every legal action alike and a value of 0
        if spec.has("jax_engine") and spec.has("search"):
            named["mcts"] = _game_mcts(game, "" if spec.has("policy") else "prior=uniform")
        _PER_GAME[game] = named | (spec.load("agents") if spec.has("agents") else {})
    return _PER_GAME[game]


_PER_GAME: dict[str, dict[str, Callable[[int], object]]] = {}


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


def known_names(game: str = DEFAULT_GAME) -> list[str]:
    return sorted(agents_of(game))


def make_agent(name: str, seed: int = 0, game: str = DEFAULT_GAME):
    """The agent called `name` for `game` (a built-in name or ``package.module:Class``), seeded."""
    named = agents_of(game)
    if name in named:
        return named[name](seed)
    if name.startswith("ppo:"):                     # a checkpoint by path
        agent = _checkpoint_agent(name[4:], seed, game, named)
        agent.name = name   # as asked for: results tables show the name given
        return agent
    if name.startswith("mcts:") and "mcts" in named:  # the search agent with settings (agents/mcts.py)
        from monkey_env.agents.mcts import make_mcts
        settings = name[5:]
        if "ppo" not in named and "prior=" not in settings:      # a game without a JAX PPO
            settings = ",".join(filter(None, ["prior=uniform", settings]))
        agent = make_mcts(settings, seed, game=game)
        agent.name = name   # as asked for: results tables show the name given
        return agent
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
    if not inspect.isclass(cls):       # never call a function (os:system) as if it made an agent
        kind = "function" if inspect.isroutine(cls) else type(cls).__name__
        raise ValueError(f"agent {name!r}: {module_name}.{class_name} is a {kind}, not an agent class "
                         "(package.module:Class, with act(game, mask) or act_batch)")
    takes_seed = "seed" in inspect.signature(cls).parameters
    agent = cls(seed=seed) if takes_seed else cls()
    if not (hasattr(agent, "act") or hasattr(agent, "act_batch")):
        raise ValueError(f"agent {name!r}: {class_name} has neither act(game, mask) nor act_batch(...)")
    return agent


def _checkpoint_agent(path: str, seed: int, game: str, named: dict):
    """``ppo:PATH``: the game's own checkpoint format where its ``checkpoint_agent`` part reads the
    file (Monkey Palace's SB3 ``.zip``), else its JAX PPO's."""
    from monkey_env.games import game_spec

    spec = game_spec(game)
    agent = spec.load("checkpoint_agent")(path, seed) if spec.has("checkpoint_agent") else None
    if agent is not None:
        return agent
    if "ppo" not in named:
        raise ValueError(f"agent 'ppo:{path}': {game} has no JAX PPO (no policy part in monkey_env.games)")
    from monkey_env.agents.ppo_jax import JaxPPOAgent
    return JaxPPOAgent(path, seed=seed, game=game)


def make_batch_agent(spec, seed: int = 0, game: str = DEFAULT_GAME):
    """An agent for batched JAX play: a name (as make_agent) or an agent object with act_batch."""
    agent = make_agent(spec, seed, game) if isinstance(spec, str) else spec
    if not hasattr(agent, "act_batch"):
        raise ValueError(f"agent {getattr(agent, 'name', agent)!r} has no act_batch (agents/base.py)")
    return agent
