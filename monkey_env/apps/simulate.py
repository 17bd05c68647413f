"""Playing whole games between agents on the reference engine, and the summary of one finished game.

Many games at once, on either engine, with one table of results: monkey_env.apps.results_table.
The winners are the rulebook's (monkey_env.core.outcome): the most Banana Points, and on equal
points the Monkey trophy's holder; a win shared by k seats counts 1/k (``win_shares``).
"""

from __future__ import annotations

from monkey_env.core.outcome import win_shares
from monkey_env.monkey_palace.engine import Game, GameOptions
from monkey_env.monkey_palace.game_data import GameData


def play_game(options: GameOptions, agents: list, data: GameData | None = None) -> tuple[Game, dict]:
    """Play one game to its end, seat i played by agents[i]; returns the game and its summary."""
    game = Game.from_options(options, data=data)
    decisions = 0
    while not game.game_over:
        game.apply(agents[game.current].act(game, game.legal_mask()))
        decisions += 1
    return game, game_summary(game, decisions)


def game_summary(game: Game, decisions: int | None = None) -> dict:
    o = game.options
    return {
        "seed": o.seed, "map": o.map, "players": o.players,
        "options": {"butterfly": o.butterfly, "frog": o.frog, "monkey_move": o.monkey_move,
                    "butterfly_rule": o.butterfly_rule, "end_trigger": o.end_trigger},
        "rounds": game.round, "scores": game.scores(), "winners": game.winners(), "places": game.places(),
        "win_shares": win_shares(game.scores(), game.holders["monkey"]), "monkey_holder": game.holders["monkey"],
        "end_trigger": game.end_shortage, "end_reason": game.end_reason,
        "tray_left": {"arches": game.tray.arches, "bricks": game.tray.bricks, "columns": game.tray.columns},
        "decisions": decisions,
    }
