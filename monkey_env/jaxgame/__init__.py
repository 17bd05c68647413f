"""The JAX engine: the same game as monkey_env.engine, as pure, jittable, vmappable functions."""

from monkey_env.jaxgame.env import JaxGame
from monkey_env.jaxgame.state import State

__all__ = ["JaxGame", "State"]
