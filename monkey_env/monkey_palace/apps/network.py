"""Monkey Palace's network sizes in the JAX trainer's config (the ``network`` part: the ``network:``
of a config whose ``game:`` is monkey_palace, monkey_env/apps/jax_trainer.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class NetworkConfig(BaseModel):
    """Monkey Palace's network sizes (monkey_env/monkey_palace/agents/network.py)."""
    model_config = ConfigDict(extra="forbid")
    width: int = Field(32, ge=1, description="channels of the 8×8 token grid")
    hidden: int = Field(128, ge=1, description="global features")
    stud_features: int = Field(16, ge=1, description="features of each stud")
