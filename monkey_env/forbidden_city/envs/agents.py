"""Opponents of the single-agent views: agents by name for Forbidden City (through the registry)."""

from __future__ import annotations

GAME = "forbidden_city"


def batch_agent(spec, seed: int):
    """An agent with act_batch: a name of Forbidden City's agents (the registry) or an object."""
    from monkey_env.agents.registry import make_batch_agent
    return make_batch_agent(spec, seed, game=GAME)
