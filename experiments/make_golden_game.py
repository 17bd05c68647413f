"""Write tests/games/monkey_palace/data/golden_game.json: a recorded random game (deal, actions) and its final state.

    python -m experiments.make_golden_game

Run it again only when the rules change on purpose: the golden file pins the game down.
"""

import json
from pathlib import Path

import jax
import numpy as np

from monkey_env import Game
from monkey_env.monkey_palace.jaxgame import JaxGame
from monkey_env.monkey_palace.jaxgame.parity import reference_view

SETTINGS = dict(players=3, map=4, butterfly=True, frog=True)
JAX_SEED = 42
FIELDS = ("height", "knob", "animals", "deco_max", "tray", "supply", "pile_len", "card_owner", "slot_top",
          "holders", "bonus_left", "bonus_cards", "scores", "round", "turns_played", "end_kind", "phase")


def main() -> None:
    jg = JaxGame(**SETTINGS)
    dealt = jax.jit(jg._deal)(jax.random.PRNGKey(JAX_SEED), jg.default_params)
    orders = jg.pile_orders(dealt)
    game = Game.new(pile_orders=orders, **SETTINGS)
    rng = np.random.default_rng(JAX_SEED)
    while not game.game_over:
        game.apply(int(rng.choice(np.flatnonzero(game.legal_mask()))))
    view = reference_view(game)
    out = {"settings": SETTINGS, "jax_seed": JAX_SEED, "pile_orders": orders, "actions": game.history,
           "final": {k: np.asarray(view[k]).tolist() for k in FIELDS}}
    path = Path(__file__).resolve().parents[1] / "tests" / "games" / "monkey_palace" / "data" / "golden_game.json"
    path.write_text(json.dumps(out))
    print(f"wrote {path}: {len(game.history)} actions, scores {game.scores()}")


if __name__ == "__main__":
    main()
