"""Find last-turn positions where greedy's staircase loses the game and another one wins it:
the tactical test of tests/test_mcts.py plays one of them (greedy against greedy on the
reference engine from a seed, up to the last turn's anchor decision).

    python -m experiments.find_tactical_position --seeds 0:60

For each seed: greedy plays both seats to the first decision of the game's last turn (the end
is triggered and the last seat of the round is to play); then every legal anchor is tried,
the rest of the turn played by greedy, and the winner noted. Prints the seeds where greedy's
anchor loses and some other anchor wins, with the winning anchors.
"""

from __future__ import annotations

import argparse
import copy

from monkey_env.agents.greedy import GreedyAgent
from monkey_env.monkey_palace.actions import Phase
from monkey_env.monkey_palace.engine import Game


def at_last_turn(seed: int, players: int = 2, map: int = 1) -> Game | None:
    """Greedy against greedy from `seed` up to the last turn's anchor decision (None if the
    game ends otherwise)."""
    game, greedy = Game.new(players=players, map=map, seed=seed), GreedyAgent()
    while not game.game_over:
        if game.end_triggered and game.current == players - 1 and game.phase == Phase.ANCHOR:
            return game
        game.apply(greedy.act(game, game.legal_mask()))
    return None


def finish_with_greedy(game: Game, first_action: int) -> Game:
    game, greedy = copy.deepcopy(game), GreedyAgent()
    game.apply(first_action)
    while not game.game_over:
        game.apply(greedy.act(game, game.legal_mask()))
    return game


def winning_anchors(game: Game) -> tuple[int, list[int]]:
    """(greedy's anchor action, the anchor actions after which the seat to play wins alone)."""
    seat, mask = game.current, game.legal_mask()
    choice = GreedyAgent().act(game, mask)
    wins = [int(a) for a in mask.nonzero()[0] if finish_with_greedy(game, int(a)).winners() == [seat]]
    return choice, wins


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default="0:40", help="first:last (exclusive)")
    p.add_argument("--players", type=int, default=2)
    args = p.parse_args(argv)
    lo, hi = (int(x) for x in args.seeds.split(":"))
    for seed in range(lo, hi):
        game = at_last_turn(seed, args.players)
        if game is None:
            continue
        choice, wins = winning_anchors(game)
        if wins and choice not in wins:
            print(f"seed {seed}: scores {game.scores()}, greedy {choice} loses, winning anchors {wins}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
