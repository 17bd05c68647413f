"""``monkey-palace play --game NAME``: any registered game in the terminal against bots.

Each decision shows the position (the game's ``text`` part) and numbers the legal actions in
the game's own words (``action_name``); the human types a number. The game's optional parts
make it easier to follow: ``legend`` (shown with the first position and in help),
``group_choices`` (actions that lead to the same position numbered once) and ``parse_answer``
with ``answer_hint`` (answers in the game's own words, such as coordinates). At any question:
``help``, ``show``, ``save [FILE]``, ``quit`` (saves). Bots are the game's agents by name
(monkey_env.agents.registry with ``game=``), seeded from the game's seed and decision count, so a
resumed game goes on deterministically. A game with a ``play`` part (monkey_env.games) plays its
own session instead (Monkey Palace's two-step staircase questions: monkey_palace/apps/play.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from monkey_env.agents.registry import known_names, make_agent

HELP = "Type the number of an action{hint}. At any question: help, show, save [FILE], quit (saves and stops)."


class Quit(Exception):
    """The player stopped (quit, or the input closed); the game is saved."""


def read_answer(session, prompt: str, help_text, show_text) -> str:
    """The next answer that is not one of the commands every question takes, which are done here:
    help (says ``help_text()``), show (says ``show_text()``), save [FILE], quit or exit (saves and
    stops; so does the input closing). ``session``: ``out``, ``inp``, ``say(text)``, ``save(path=None)``."""
    while True:
        session.out.write(prompt)
        session.out.flush()
        line = session.inp.readline()
        if not line:
            session.save()
            raise Quit("the input closed")
        answer = line.strip()
        word, _, rest = answer.partition(" ")
        if not answer:
            continue
        if word.lower() == "help":
            session.say(help_text())
        elif word.lower() == "show":
            session.say(show_text())
        elif word.lower() == "save":
            session.save(Path(rest.strip()) if rest.strip() else None)
        elif word.lower() in ("quit", "exit"):
            session.save()
            raise Quit("you stopped")
        else:
            return answer


class Session:
    """A terminal game of one person against bots, every game's: the subclass has ``game``, ``human``,
    ``bots`` (seat -> (name, agent)), ``out``, ``inp`` and ``save(path=None)``, and says how a
    session starts (``greeting``), plays the person's turn (``human_turn``), words a bot's move
    (``bot_words``) and ends (``finish``)."""

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def run(self) -> int:
        g = self.game
        self.say(self.greeting())
        try:
            while not g.game_over:
                if g.current == self.human:
                    self.human_turn()
                else:
                    name, bot = self.bots[g.current]
                    action = bot.act(g, g.legal_mask())
                    self.say(self.bot_words(g.current, name, action))
                    g.apply(action)
        except Quit as e:
            self.say(f"Stopped: {e}.")
            return 0
        except KeyboardInterrupt:            # Ctrl-C: keep the game, as at the end of the input
            self.say("")
            self.save()
            self.say("Stopped: interrupted.")
            return 130
        self.finish()
        return 0


class AnySession(Session):
    def __init__(self, spec, game, human: int, opponents: list[str], save_path: Path, out=None, inp=None):
        self.spec, self.game, self.human, self.opponents, self.save_path = spec, game, human, opponents, save_path
        self.out, self.inp = out or sys.stdout, inp or sys.stdin
        self.text = spec.load("text")
        optional = lambda part, default: spec.load(part) if spec.has(part) else default
        self.legend = optional("legend", "")
        self.group_choices = optional("group_choices", None)
        self.parse_answer = optional("parse_answer", None)
        hint = optional("answer_hint", "")
        self.hint = f", or {hint}" if hint else ""
        self.legend_shown = False       # the legend comes with the first position this session shows
        players = len(game.scores())
        seats = [s for s in range(players) if s != human]
        if len(opponents) != len(seats):
            raise ValueError(f"{len(seats)} opponents needed, got {len(opponents)}")
        self.bots = {s: (n, make_agent(n, seed=game.options.seed * 100 + len(game.history) * 4 + s, game=spec.name))
                     for s, n in zip(seats, opponents)}


    def save(self, path: Path | None = None) -> None:
        path = Path(path or self.save_path)
        from monkey_env.apps.saves import play_save
        doc = play_save(self.spec.name, self.human, self.opponents, self.game)   # one format for every game
        try:
            path.write_text(json.dumps(doc), encoding="utf-8")
        except OSError as e:
            self.say(f"  cannot save to {path}: {e.strerror}")
            return
        self.say(f"  game saved to {path}; resume with: monkey-palace play --resume {path}")

    def choices(self) -> list[tuple[int, str]]:
        """The numbered choices: (action, words), the game's own grouping where it has one."""
        g = self.game
        legal = [int(a) for a in np.flatnonzero(g.legal_mask())]
        if self.group_choices is not None:
            return self.group_choices(g, legal)
        return [(a, g.action_name(a)) for a in legal]

    def help(self) -> str:
        return "\n".join([HELP.format(hint=self.hint)] + ([self.legend] if self.legend else []))

    def ask_action(self) -> int:
        g = self.game
        entries = self.choices()
        actions = [a for a, _ in entries]
        self.say("")
        self.say(self.text(g, self.human))
        if self.legend and not self.legend_shown:
            self.say(self.legend)
            self.say("(help repeats this legend)")
            self.legend_shown = True
        self.say(f"Your decision (seat {self.human + 1}):")
        for i, (_, words) in enumerate(entries, 1):
            self.say(f"  {i:>2}. {words}")
        self.say(f"Type a number from 1 to {len(entries)}{self.hint}.")
        while True:
            answer = read_answer(self, "> ", self.help, lambda: self.text(g, self.human))
            if answer.isdigit() and 1 <= int(answer) <= len(entries):
                return actions[int(answer) - 1]
            action = self.game_answer(answer, actions)
            if action is not None:
                return action

    def game_answer(self, answer: str, actions: list[int]) -> int | None:
        """The action an answer in the game's own words names; None (said why) when it names none."""
        try:
            action = self.parse_answer(self.game, answer, actions) if self.parse_answer else None
        except ValueError as e:
            self.say(f"  {e}")
            return None
        if action is None:
            self.say(f"  type a number from 1 to {len(actions)}{self.hint} (or help)")
        return action

    def greeting(self) -> str:
        return (f"{self.spec.title}. You are seat {self.human + 1}. "
                + ", ".join(f"seat {s + 1}: {n}" for s, (n, _) in self.bots.items()))

    def human_turn(self) -> None:
        self.game.apply(self.ask_action())

    def bot_words(self, seat: int, name: str, action: int) -> str:
        return f"seat {seat + 1} ({name}): {self.game.action_name(action)}"

    def finish(self) -> None:
        g = self.game
        self.say(self.text(g, self.human))
        won = g.winners()
        self.say("You won!" if won == [self.human] else f"Winner: seat {', '.join(str(w + 1) for w in won)}.")


def cmd_play(args: argparse.Namespace) -> int:
    from monkey_env.apps.cli import chosen_game, game_options
    from monkey_env.apps.cli_edges import check_output_file
    from monkey_env.apps.saves import play_session

    resumed = play_session(args.resume) if args.resume else None   # the game is the file's, whatever --game says
    spec = resumed[0] if resumed else chosen_game()
    if spec.has("play"):                 # the game's own terminal session
        return spec.load("play")(args, resumed)
    if args.png is None:
        args.png = f"{spec.name}-final.png"
    if args.png:
        check_output_file(args.png, "--png")
    return play_any(spec, args, None if resumed else game_options(args), resumed=resumed)


def play_any(spec, args, options, resumed=None) -> int:
    """resumed: (spec, game, human seat, opponents) of a save (apps.saves.play_session), else a new game."""
    Game = spec.load("reference")
    if resumed:
        _, game, human, opponents = resumed
    elif args.resume:
        from monkey_env.apps.saves import play_session
        _, game, human, opponents = play_session(args.resume)
    else:
        game = Game.from_options(options)
        players = len(game.scores())
        if not 1 <= args.seat <= players:
            raise ValueError(f"--seat must be 1 to {players}, got {args.seat}")
        human = args.seat - 1
        opponents = [n.strip() for n in args.opponents.split(",") if n.strip()]
        if len(opponents) == 1:
            opponents = opponents * (players - 1)
        for n in opponents:
            if ":" not in n and n not in known_names(spec.name):
                raise ValueError(f"unknown opponent {n!r}; known: {', '.join(known_names(spec.name))}")
    save_path = Path(args.save or args.resume or f"{spec.name}-game.json")
    code = AnySession(spec, game, human, opponents, save_path).run()
    if game.game_over and args.png and spec.has("picture"):
        from monkey_env.apps.cli import save_image
        save_image(spec.load("picture")(game), args.png)
        print(f"A picture of the final position: {args.png}", flush=True)
    return code


def register(sub) -> None:
    p = sub.add_parser("play", help="play a game in the terminal against bots")
    from monkey_env.apps.cli import add_game_options

    add_game_options(p)   # a game's own session may ask them, with these as the default answers
    p.add_argument("--opponents", default="random", help="bots, comma-separated, one per opponent or one for all")
    p.add_argument("--seat", type=int, default=1, help="your seat (1 plays first)")
    p.add_argument("--yes", action="store_true", help="take the command line's settings without asking")
    p.add_argument("--resume", help="continue a saved game (of any game: the file says which)")
    p.add_argument("--save", help="where 'save' and 'quit' write (default: the resumed file, else GAME-game.json)")
    p.add_argument("--png", default=None, help="picture of the final position (default: GAME-final.png; '' for none)")
    p.set_defaults(func=cmd_play)
