"""Playing whole games between agents, and the summary of one finished game."""

from __future__ import annotations

from dataclasses import asdict

from monkey_env.monkey_palace.engine import Game, GameOptions
from monkey_env.monkey_palace.game_data import GameData


from monkey_env.agents.registry import BUILT_IN as AGENTS, make_agent  # noqa: F401  (re-exported)


def play_game(options: GameOptions, agents: list, data: GameData | None = None) -> tuple[Game, dict]:
    """Play one game to its end, seat i played by agents[i]; returns the game and its summary."""
    game = Game.new(options.players, options.map, data=data, **{
        k: v for k, v in asdict(options).items() if k not in ("players", "map")})
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
        "rounds": game.round, "scores": game.scores(), "winners": game.winners(),
        "end_trigger": game.end_trigger, "end_reason": game.end_reason,
        "tray_left": {"arches": game.tray.arches, "bricks": game.tray.bricks, "columns": game.tray.columns},
        "decisions": decisions,
    }
