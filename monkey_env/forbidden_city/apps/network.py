"""Forbidden City's network sizes in the JAX trainer's config (the ``network`` part: the ``network:``
of a config whose ``game:`` is forbidden_city, monkey_env/apps/jax_trainer.py)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CityNetworkConfig(BaseModel):
    """Forbidden City's convolutional net (monkey_env/forbidden_city/agents/network.py CityNet)."""
    model_config = ConfigDict(extra="forbid")
    width: int = Field(32, ge=1, description="channels of the convolutional trunk")
    hidden: int = Field(128, ge=1, description="global features (value, set aside)")
    blocks: int = Field(2, ge=0, description="residual 3×3 convolutions after the first")
    greedy_inputs: int = Field(0, ge=0, le=1, description="1: greedy's one-turn values are per-action inputs (costly)")
    majority_inputs: int = Field(0, ge=0, le=1, description=(
        "1: each placement's majority potential (monkey_env/forbidden_city/agents/majority.py) is a per-action input"))
    majority_prior: float = Field(0.0, description="the potential's logit weight before training (learned after)")
    majority_gain: int = Field(1, ge=1, description=(
        "the potential's weight is learned in units of 1/gain: Adam moves it by about the learning rate a step "
        "whatever its scale, so a gain of 10 learns it 10 times faster"))
