"""``monkey-palace balance``: play games and write a game's balance report.

    monkey-palace balance --game NAME --players 2,3 --agents greedy --games 1100 --out reports/balance

A game with a ``balance_lab`` part (monkey_env.games) writes its own report, with flags of its
own (Monkey Palace: maps, cards, boards, option sets, skill profile, what-ifs, re-reading saved
games); every other game the generic one (apps.balance.any_game: seats, length, and the sections
of its ``balance`` part).
"""

from __future__ import annotations

import argparse


def register(sub) -> None:
    from monkey_env.apps.cli import chosen_game

    spec = chosen_game()
    lab = spec.load("balance_lab") if spec.has("balance_lab") else None
    p = sub.add_parser("balance", help="balance report: seats, length and the game's own figures (Monkey Palace: "
                                       "maps, cards, boards, options, what-ifs)",
                       description=lab.DESCRIPTION if lab else __doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--players", default=None,
                   help="player counts, comma-separated (default: the game's own)")
    p.add_argument("--agents", default="greedy",
                   help="the agent of every seat of the main games (first name); more names join the skill profile")
    p.add_argument("--games", type=int, default=1100,
                   help="games per (players, map); 1100 gives ±3%% on a 50%% seat win rate (default)")
    p.add_argument("--batch", type=int, default=275,
                   help="games per JAX batch (one compilation per size); 275 divides the default cells' game counts")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", required=True, help="folder of the report")
    p.add_argument("--quiet", action="store_true")
    p.add_argument("--from", dest="from_file", help="re-analyse the games saved by an earlier run (games.npz; a game "
                                                   "with a balance lab of its own)")
    p.add_argument("--db", help="read the games of an arena results database instead of playing (the same)")
    if lab:
        lab.add_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from monkey_env.apps.cli import chosen_game
    from monkey_env.apps.cli_edges import BadArgument, check_input_file

    spec = chosen_game()
    if spec.has("balance_lab"):
        return spec.load("balance_lab").run(args)
    for flag, value in (("--from", args.from_file), ("--db", args.db)):
        if value:                                # not ignored: the report would be of other games
            check_input_file(value, flag)
            raise BadArgument(flag, f"re-reads the games of a game's own balance lab; {spec.title}'s report "
                                    "plays its games anew")
    from monkey_env.apps.balance import any_game
    return any_game.run(spec, args)
