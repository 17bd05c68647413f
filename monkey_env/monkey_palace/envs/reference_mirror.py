"""The reference engine's copy of a game played on the JAX engine, for pictures and text.

The JAX state holds heights and knobs but not the pieces (which arch stands where), which a
picture needs. The mirror starts the reference engine on the same deal and replays the
actions on request, so an environment pays for it only when it renders.
"""

from __future__ import annotations

import jax

from monkey_env.monkey_palace.engine import Game
from monkey_env.monkey_palace.game_data import load_game_data


class ReferenceMirror:
    def __init__(self, jax_game, first_state, settings: dict, catalogue: str | None, seed: int):
        self._orders = jax_game.pile_orders(jax.device_get(first_state))
        self._settings = dict(settings)
        self._catalogue = catalogue
        self._seed = seed
        self._actions: list[int] = []
        self._game: Game | None = None

    def record(self, action: int) -> None:
        """An action the JAX engine took as legal."""
        self._actions.append(action)

    def game(self) -> Game:
        """The reference game at the same decision as the JAX game."""
        if self._game is None:
            data = load_game_data(self._settings["map"], catalogue=self._catalogue)
            self._game = Game.new(data=data, pile_orders=self._orders, seed=self._seed, **self._settings)
        for action in self._actions[len(self._game.history):]:
            self._game.apply(action)
        return self._game
