"""Agents by name, per game: the built-in ones of Monkey Palace (``random``, ``greedy``, ``ppo`` =
the shipped checkpoint of the JAX trainer, ``ppo-sample`` = the same sampling from its policy,
``ppo-sb3`` and ``ppo-sb3-sample`` = the Stable-Baselines3 checkpoint, ``ppo:PATH`` = another
checkpoint: a ``.zip`` is an SB3 one, anything else a JAX one, ``mcts`` = the search agent,
``mcts:sims=64,det=2,depth=0,temp=0`` = with those settings), those another game registers (its
``agents`` part in monkey_env.games: a dict name -> factory(seed)), or any class given by import
path ``package.module:Class``.

``mcts`` and ``mcts:...`` (agents/mcts.py) exist for every game with a JAX PPO, a JAX engine and
a ``search`` part.

``random`` plays any game (it reads only the legal mask, in ``act`` and ``act_batch``); every
function takes ``game=`` (default ``monkey_palace``, so existing calls are Monkey Palace's).
Every game with a JAX PPO (``ppo_jax.JAX_PPO_GAMES``) has ``ppo`` and ``ppo-sample`` (its shipped
checkpoint ``agents/checkpoints/ppo_jax_<game>.msgpack``) and ``ppo:PATH`` (another checkpoint).

A factory takes the agent's seed (every random choice of the agent comes from it). User
classes are built as ``Class(seed=seed)`` when their constructor takes a seed, else ``Class()``.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable

from monkey_env.games import DEFAULT_GAME  # the registry says which game is the default, once


def _random(seed: int):
    from monkey_env.agents.random_agent import RandomAgent
    return RandomAgent(seed)


def _greedy(seed: int):
    from monkey_env.agents.greedy import GreedyAgent
    return GreedyAgent(seed)


def _ppo(seed: int):
    from monkey_env.agents.ppo_jax import JaxPPOAgent
    return JaxPPOAgent(seed=seed)


def _ppo_sample(seed: int):
    """The shipped checkpoint drawing its actions from its policy (from the seed, or the batch's
    key): games of a deterministic agent repeat their openings, this one's vary."""
    from monkey_env.agents.ppo_jax import JaxPPOAgent
    agent = JaxPPOAgent(seed=seed, deterministic=False)
    agent.name = "ppo-sample"
    return agent


def _ppo_sb3(seed: int):
    from monkey_env.agents.ppo import PPOAgent
    agent = PPOAgent(seed=seed)
    agent.name = "ppo-sb3"
    return agent


def _ppo_sb3_sample(seed: int):
    from monkey_env.agents.ppo import PPOAgent
    agent = PPOAgent(seed=seed, deterministic=False)
    agent.name = "ppo-sb3-sample"
    return agent


def _mcts(seed: int):
    from monkey_env.agents.mcts import make_mcts
    return make_mcts("", seed)


def _game_mcts(game: str, settings: str = ""):
    def factory(seed: int):
        from monkey_env.agents.mcts import make_mcts
        agent = make_mcts(settings, seed, game=game)
        agent.name = "mcts"
        return agent
    return factory


def _game_ppo(game: str, deterministic: bool):
    """A game's shipped JAX PPO checkpoint, as ``ppo`` (most probable action) or ``ppo-sample``."""
    def factory(seed: int):
        from monkey_env.agents.ppo_jax import JaxPPOAgent
        agent = JaxPPOAgent(seed=seed, deterministic=deterministic, game=game)
        agent.name = "ppo" if deterministic else "ppo-sample"
        return agent
    return factory


def _ppo_path(path: str, seed: int):
    if path.endswith(".zip"):
        from monkey_env.agents.ppo import PPOAgent
        return PPOAgent(path, seed=seed)
    from monkey_env.agents.ppo_jax import JaxPPOAgent
    return JaxPPOAgent(path, seed=seed)


BUILT_IN: dict[str, Callable[[int], object]] = {"random": _random, "greedy": _greedy, "ppo": _ppo,
                                                "ppo-sample": _ppo_sample, "ppo-sb3": _ppo_sb3,
                                                "ppo-sb3-sample": _ppo_sb3_sample, "mcts": _mcts}


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
        from monkey_env.agents.ppo_jax import JAX_PPO_GAMES
        from monkey_env.games import game_spec

        spec = game_spec(game)                      # an unknown game raises, naming the known ones
        ppo = {"ppo": _game_ppo(game, True), "ppo-sample": _game_ppo(game, False)} if game in JAX_PPO_GAMES else {}
        # the search agent (agents/mcts.py) where the game has a JAX engine and a search part: the
        # game's PPO as prior and value, or without one every legal action alike and a value of 0
        if spec.has("jax_engine") and spec.has("search"):
            ppo["mcts"] = _game_mcts(game, "" if ppo else "prior=uniform")
        _PER_GAME[game] = {**GENERIC, **ppo, **(spec.load("agents") if spec.has("agents") else {})}
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
    if name.startswith("ppo:") and game == DEFAULT_GAME:  # a Monkey Palace PPO checkpoint by path
        return _ppo_path(name[4:], seed)
    if name.startswith("ppo:") and "ppo" in named:     # another game's JAX PPO checkpoint by path
        from monkey_env.agents.ppo_jax import JaxPPOAgent
        agent = JaxPPOAgent(name[4:], seed=seed, game=game)
        agent.name = name
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


def make_batch_agent(spec, seed: int = 0, game: str = DEFAULT_GAME):
    """An agent for batched JAX play: a name (as make_agent) or an agent object with act_batch."""
    agent = make_agent(spec, seed, game) if isinstance(spec, str) else spec
    if not hasattr(agent, "act_batch"):
        raise ValueError(f"agent {getattr(agent, 'name', agent)!r} has no act_batch (agents/base.py)")
    return agent
