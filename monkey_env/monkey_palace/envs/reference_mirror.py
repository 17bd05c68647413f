"""The reference engine's copy of a game played on the JAX engine, for pictures and text.

The JAX state holds heights and knobs but not the pieces (which arch stands where), which a
picture needs. The mirror starts the reference engine on the same deal and replays the
actions on request, so an environment pays for it only when it renders.
"""

from __future__ import annotations

import jax

from monkey_env.monkey_palace.engine import Game
from monkey_env.monkey_palace.options import GameOptions


class ReferenceMirror:
    def __init__(self, jax_game, first_state, options: GameOptions):
        self._orders = jax_game.pile_orders(jax.device_get(first_state))
        self._options = options
        self._actions: list[int] = []
        self._game: Game | None = None

    def record(self, action: int) -> None:
        """An action the JAX engine took as legal."""
        self._actions.append(action)

    def game(self) -> Game:
        """The reference game at the same decision as the JAX game."""
        if self._game is None:
            self._game = Game.from_options(self._options, pile_orders=self._orders)
        for action in self._actions[len(self._game.history):]:
            self._game.apply(action)
        return self._game
