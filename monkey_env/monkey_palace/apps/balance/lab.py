"""Monkey Palace's ``monkey-palace balance``: play (or re-read) games and write its balance report.

    monkey-palace balance --players 2,4 --maps 1,2,3,4 --agents greedy --games 1100 --out reports/balance
    monkey-palace balance ... --cards my_cards.yaml --boards my_boards.yaml --maps 1,2,3,4,2=my_map2.yaml
    monkey-palace balance --from reports/balance/games.npz --out reports/again     # re-analyse saved games
    monkey-palace balance --db results.sqlite --out reports/arena                  # arena tournament games

A `--maps` item is a map number, or ``N=FILE`` (or a file named ``mapN*.yaml``): an edited copy
of map N, played beside the default map N as the what-if "maps". `--cards` and `--boards` are
each a what-if of their own over every player count and map. The flags every game's report
takes (--players, --agents, --games, --batch, --seed, --out, --quiet) are monkey_env.apps.balance.cli's.
"""

from __future__ import annotations

import argparse
import re
import time
import zipfile
from pathlib import Path

from monkey_env.agents.registry import split_agent_names
from monkey_env.monkey_palace.options import DEFAULT_BUILD_ACTION

DESCRIPTION = __doc__


def _parse_maps(text: str) -> tuple[list[str], dict[str, str]]:
    numbers, files = [], {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        if item.isdigit():
            if item not in "1234" or len(item) != 1:
                raise SystemExit(f"--maps: no ground map {item} (1-4)")
            numbers.append(item)
            continue
        m = re.fullmatch(r"([1-4])=(.+)", item)
        if m:
            num, path = m.group(1), m.group(2)
        else:
            found = re.match(r"map([1-4])", Path(item).name)
            if not found:
                raise SystemExit(f"--maps: {item!r}: write N=FILE to say which map (1-4) the edited file replaces")
            num, path = found.group(1), item
        if not Path(path).is_file():
            raise SystemExit(f"--maps: no file {path}")
        files[num] = path
        if num not in numbers:
            numbers.append(num)
    return numbers, files


def add_flags(p) -> None:
    """The flags of Monkey Palace's report beside those of every game's."""
    p.add_argument("--maps", default="1,2,3,4", help="map numbers, and N=FILE edited maps for a what-if")
    p.add_argument("--options", default="butterfly,frog,both",
                   help="option sets compared with the plain game (butterfly, frog, both; 'none' for none)")
    p.add_argument("--option-games", type=int, default=0, help="games per (players, map, option set); default games/4")
    p.add_argument("--skill", default="random,ppo",
                   help="agents compared with the main agent per map, 2 players, both seat orders ('none' to skip)")
    p.add_argument("--skill-games", type=int, default=0, help="games per (map, agent pair); default games/2")
    p.add_argument("--cards", help="edited cards.yaml: what-if beside the defaults")
    p.add_argument("--boards", help="edited boards.yaml: what-if beside the defaults")
    p.add_argument("--whatif-games", type=int, default=0, help="games per (players, map) of a what-if; default --games")
    p.add_argument("--build-action", choices=("catalogue", "complete"), default=None,
                   help="the build action of every game (default: the game's, complete); the agents must play it. With "
                        "--db: the games of that build action (default: the database's only one)")


def run(args: argparse.Namespace) -> int:
    from monkey_env.apps.cli_edges import BadArgument, check_input_file
    from monkey_env.monkey_palace.apps.balance.analysis import analyse
    from monkey_env.monkey_palace.apps.balance.collect import BalancePlan, Collector, Dataset, collect
    from monkey_env.monkey_palace.apps.balance.report import write
    from monkey_env.monkey_palace.game_data import load_game_data

    if args.from_file:                           # before anything is played or written
        check_input_file(args.from_file, "--from")
    if args.db:
        check_input_file(args.db, "--db")
    t0 = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.from_file:
        try:
            ds = Dataset.load(args.from_file)
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
            raise BadArgument("--from", f"{args.from_file}: not the games.npz of a balance run ({e})") from None
    elif args.db:
        from monkey_env.monkey_palace.apps.balance.arena_db import dataset_from_db
        try:
            ds = dataset_from_db(args.db, args.build_action)
        except ValueError as e:
            raise BadArgument("--db", str(e)) from None
    else:
        args.build_action = args.build_action or DEFAULT_BUILD_ACTION
        try:
            players = tuple(int(x) for x in (args.players or "2,4").split(","))
        except ValueError:
            raise SystemExit(f"--players: {args.players!r} is not a list of numbers") from None
        if not players or any(p not in (2, 3, 4) for p in players):
            raise SystemExit("--players: 2, 3 or 4")
        maps, map_files = _parse_maps(args.maps)
        if not maps:
            raise SystemExit("--maps: no map")
        agents = tuple(split_agent_names(args.agents))
        skill = tuple(x for x in args.skill.split(",") if x and x != "none")
        skill = tuple(dict.fromkeys(agents[:1] + agents[1:] + skill)) if (skill or len(agents) > 1) else ()
        options = tuple(x for x in args.options.split(",") if x and x != "none")
        from monkey_env.monkey_palace.apps.balance.collect import OPTION_SETS
        for o in options:
            if o not in OPTION_SETS:
                raise SystemExit(f"--options: unknown {o!r} (butterfly, frog, both, none)")
        from monkey_env.agents.registry import make_agent
        for a in set(agents) | set(skill):
            try:
                make_agent(a, 0)
            except ValueError as e:
                raise SystemExit(f"--agents: {e}") from None
        collector = Collector(batch=min(args.batch, max(args.games, 1)), seed=args.seed, progress=not args.quiet,
                              config_dir=args.config_dir, build_action=args.build_action)
        variants, files = [], {}
        for name, kw in (("cards", dict(cards=args.cards)), ("boards", dict(boards=args.boards))):
            if kw[name]:
                load_game_data(1, config_dir=args.config_dir, **kw)   # validate now, not after the default games
                collector.add_variant(name, **kw)
                variants.append(name)
                files[name] = kw
        if map_files:
            from monkey_env.monkey_palace.config import load_map
            for f in map_files.values():
                load_map(f)
            collector.add_variant("maps", maps=map_files)
            variants.append("maps")
            files["maps"] = map_files
        plan = BalancePlan(players=players, maps=tuple(maps), agents=agents, games=args.games,
                    option_games=args.option_games, options=options, skill=skill, skill_games=args.skill_games,
                    variants=tuple(variants), seed=args.seed, build_action=args.build_action)
        wg = args.whatif_games or args.games
        plan_cells = plan.cells()
        # A what-if map replaces only its own map: keep those variant cells on the edited maps.
        cells = [(c, wg if c.variant != "default" else g, s) for c, g, s in plan_cells
                 if not (c.variant == "maps" and c.map not in map_files)]
        ds = collect(plan, collector, dict(variants=files), cells, save_to=out / "games.npz")
    fig = analyse(ds, load_game_data(1, config_dir=args.config_dir))
    fig["meta"]["report_seconds"] = time.perf_counter() - t0
    page = write(fig, out)
    if not args.quiet:
        print(f"balance report: {page} ({fig['meta']['games_total']} games, "
              f"{time.perf_counter() - t0:.0f} s); figures: {out / 'figures.json'}")
    return 0
