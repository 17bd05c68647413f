"""Opponents of the single-agent views: agents by name for Forbidden City (the agent registry)."""

from __future__ import annotations

import inspect

GAME = "forbidden_city"


def batch_agent(spec, seed: int):
    """An agent with act_batch: a name from the registry (Forbidden City's agents) or an object."""
    if not isinstance(spec, str):
        if not hasattr(spec, "act_batch"):
            raise ValueError(f"agent {getattr(spec, 'name', spec)!r} has no act_batch (agents/base.py)")
        return spec
    from monkey_env.agents import registry
    if "game" in inspect.signature(registry.make_batch_agent).parameters:
        return registry.make_batch_agent(spec, seed, game=GAME)
    if spec == "greedy":   # before the registry knew games
        from monkey_env.agents.forbidden_city_greedy import ForbiddenCityGreedy
        return ForbiddenCityGreedy(seed)
    return registry.make_batch_agent(spec, seed)
