"""The Shadow Theater's network sizes in the JAX trainer's config (the ``network`` part: the ``network:``
of a config whose ``game:`` is shadow_theater, monkey_env/apps/jax_trainer.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class FlatNetworkConfig(BaseModel):
    """The Shadow Theater's MLP (monkey_env/shadow_theater/agents/network.py FlatNet)."""
    model_config = ConfigDict(extra="forbid")
    hidden: int = Field(128, ge=1, description="units of each hidden layer")
    greedy_inputs: int = Field(1, ge=0, le=1, description="1: greedy's one-turn values are per-action inputs")
