"""The JAX engine: the same game as monkey_env.monkey_palace.engine, as pure, jittable, vmappable functions."""

from monkey_env.monkey_palace.jaxgame.env import JaxGame
from monkey_env.monkey_palace.jaxgame.state import State

__all__ = ["JaxGame", "State"]
