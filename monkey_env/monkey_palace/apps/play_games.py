"""Monkey Palace's own pipeline for many games (the ``play_games`` part, monkey_env.games): the
games of ``monkey_env.apps.results_table.play_games`` on either engine, with what the balance lab
reads beside the table (cards, colours, trophies: :class:`BatchResult`).

    results = play_batch(JaxGame(), ["greedy", "random"], players=2, map=1, seeds=range(1024))

Agents offer ``act_batch`` (see agents/base.py). Seat ``s`` of every game is played by
``agents[s]``; a seat rotation is the caller's business (give the agents in another order).
Each step asks every seat's agent for the whole batch, with empty legal masks for the games
where another seat is to play, and keeps, per game, the action of the seat to play. An agent
that skips games without a legal action (as finished games have), like the greedy one, so
spends its effort only on its own decisions.

Who won each game is the rulebook's (monkey_env.core.outcome): ``places`` come from the final
scores with the Monkey trophy's holder winning a tie (``JaxGame.batch_places``); a win shared
by k seats that the tie-break does not settle counts 1/k for each (``win_shares``). The winners
of a reference game are the same rule's (``game_summary``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from monkey_env.apps.results_table import (
    GameResults,
    agent_names,
    options_hash,
    play_in_batches,
    play_reference,
    shares_from_places,
)
from monkey_env.apps.results_table import play_batch as generic_play_batch
from monkey_env.core.outcome import batch_places, win_shares
from monkey_env.monkey_palace.engine import Game
from monkey_env.monkey_palace.game_data import GameData
from monkey_env.monkey_palace.options import GameOptions

if TYPE_CHECKING:                # JAX is imported where the JAX engine plays (a reference game needs none)
    from monkey_env.monkey_palace.jaxgame.env import JaxGame

END_KIND_NAMES = ("arches", "bricks", "columns", "arches and bricks")
RULE_FIELDS = ("butterfly", "frog", "monkey_move", "butterfly_rule", "end_trigger")

@dataclass
class BatchResult:
    """What each game of a batch did (numpy arrays, axis 0 = game)."""

    seeds: np.ndarray            # (B,) int seed of each game (the deal comes from it)
    scores: np.ndarray           # (B, players) final Banana Points
    rounds: np.ndarray           # (B,) rounds played
    end_kind: np.ndarray         # (B,) END_KIND_NAMES index, -1 if none (illegal action)
    illegal: np.ndarray          # (B,) bool a game ended on an illegal action
    decisions: np.ndarray        # (B,) decisions made
    card_owner: np.ndarray       # (B, C) seat that bought each card, -1 never bought
    card_round: np.ndarray       # (B, C) round in which it was bought, -1 never
    colour_builds: np.ndarray    # (B, players, 3) staircases built on light / dark / gold studs
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    # Added for the balance report (None when a caller builds a BatchResult without them):
    card_top_turns: np.ndarray | None = None  # (B, C) owner's turns ended with the card on top of a slot
    #                                           (turns it paid its recurring supply)
    holders: np.ndarray | None = None         # (B, 3) seat holding the monkey, butterfly, frog trophy at the end; -1
    bonus_cards: np.ndarray | None = None     # (B, players) bonus cards earned
    places: np.ndarray | None = None          # (B, players) rulebook place of each seat, 1 = winner

    def ranks(self) -> np.ndarray:
        """(B, players) place of each seat, 1 = best, by the rulebook (monkey_env.core.outcome): more
        Banana Points, and on equal points the Monkey trophy's holder; other tied seats share a place."""
        if self.places is not None:
            return self.places
        scores = np.asarray(self.scores)
        monkey = np.full(len(scores), -1) if self.holders is None else np.asarray(self.holders)[:, 0]
        return batch_places(scores, np.full(len(scores), scores.shape[1]), monkey)

    def winners(self) -> np.ndarray:
        """(B, players) bool: the rulebook's winners (several only for a tie the Monkey does not settle)."""
        return self.ranks() == 1

    def win_shares(self) -> np.ndarray:
        """(B, players) each seat's share of the win: 1 alone, 1/k for each of k tied winners."""
        w = self.winners().astype(float)
        return w / w.sum(1, keepdims=True)

    def take(self, rows) -> BatchResult:
        """The games at these rows (an index array or slice); ``seconds`` is shared out by games."""
        rows = np.arange(len(self.seeds))[rows]
        pick = lambda v: None if v is None else np.asarray(v)[rows]
        return BatchResult(
            seeds=self.seeds[rows], scores=self.scores[rows], rounds=self.rounds[rows], end_kind=self.end_kind[rows],
            illegal=self.illegal[rows], decisions=self.decisions[rows], card_owner=self.card_owner[rows],
            card_round=self.card_round[rows], colour_builds=self.colour_builds[rows],
            seconds=self.seconds * len(rows) / max(len(self.seeds), 1), extra=dict(self.extra),
            card_top_turns=pick(self.card_top_turns), holders=pick(self.holders), bonus_cards=pick(self.bonus_cards),
            places=pick(self.places))

    @staticmethod
    def concat(parts: list[BatchResult]) -> BatchResult:
        """One result of several batches' games, in order."""
        cat = lambda name: (None if any(getattr(p, name) is None for p in parts)
                            else np.concatenate([getattr(p, name) for p in parts]))
        names = ("seeds", "scores", "rounds", "end_kind", "illegal", "decisions", "card_owner", "card_round",
                 "colour_builds", "card_top_turns", "holders", "bonus_cards", "places")
        return BatchResult(**{n: cat(n) for n in names}, seconds=sum(p.seconds for p in parts))


def play_batch(jg: JaxGame, agents: list, *, players: int, map: int | str = 1, seeds, options: dict | None = None,
               agent_key: int = 0, max_decisions: int = 2000, share_agents: bool = False) -> BatchResult:
    """Play the games with these seeds to their end; `agents[s]` plays seat s of every game
    (results_table.play_batch, with share_agents), noting at each step the cards bought, the
    staircases built by colour and the cards on top of a slot at each turn's end."""
    if len(agents) != players:
        raise ValueError(f"{players} players need {players} agents, got {len(agents)}")
    seeds = np.asarray(seeds, np.int64)
    noted: dict[str, np.ndarray] = {}

    def start(shape) -> dict[str, np.ndarray]:     # (B, C): the games and the cards
        return {"card_round": np.full(shape, -1, np.int64), "card_top_turns": np.zeros(shape, np.int64),
                "colour_builds": np.zeros((shape[0], players, 3), np.int64)}

    def note(before, states, done) -> None:
        if not noted:
            noted.update(start(states.card_owner.shape))
        card_round, colour_builds, card_top_turns = noted["card_round"], noted["colour_builds"], noted["card_top_turns"]
        before_current = np.asarray(before.current)
        new_cards = np.asarray((before.card_owner < 0) & (states.card_owner >= 0))
        if new_cards.any():
            card_round[new_cards] = np.broadcast_to(np.asarray(states.round)[:, None], new_cards.shape)[new_cards]
        built = np.asarray((before.colour < 0) & (states.colour >= 0) & ~states.illegal)
        if built.any():
            rows = np.flatnonzero(built)
            colour_builds[rows, before_current[rows], np.asarray(states.colour)[rows]] += 1
        ended = np.asarray((states.turns_played > before.turns_played) & ~states.illegal)
        if ended.any():
            rows = np.flatnonzero(ended)
            tops = np.asarray(states.slot_top)[rows, before_current[rows]]  # (r, slots): what paid the recurring supply
            r_idx = np.repeat(rows, tops.shape[1])
            ok = tops.reshape(-1) >= 0
            np.add.at(card_top_turns, (r_idx[ok], tops.reshape(-1)[ok]), 1)

    params = jg.params(players=players, map=map, **(options or {}))
    r = generic_play_batch(jg, agents, None, seeds, agent_key=agent_key, max_decisions=max_decisions, params=params,
                           share_agents=share_agents, on_step=note)
    states = r["states"]
    if not noted:                                   # no step was played
        noted.update(start(states.card_owner.shape))
    return BatchResult(seeds=seeds, scores=r["scores"][:, :players], rounds=np.asarray(states.round),
                       end_kind=np.asarray(states.end_kind), illegal=r["illegal"], decisions=r["decisions"],
                       card_owner=np.asarray(states.card_owner).astype(np.int64), card_round=noted["card_round"],
                       colour_builds=noted["colour_builds"], seconds=r["seconds"],
                       card_top_turns=noted["card_top_turns"], holders=np.asarray(states.holders).astype(np.int64),
                       bonus_cards=np.asarray(states.bonus_cards)[:, :players].astype(np.int64),
                       places=r["places"][:, :players])


# ---------------------------------------------------------------------------- one game on the reference engine
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


# ---------------------------------------------------------------------------- the table
def play_games(engine: str, agents, options: GameOptions, seeds: np.ndarray, *, names=None, batch: int = 256,
               pad: bool | None = None, agent_key=0, share_agents: bool = False, max_decisions: int = 2000,
               jax_game=None, data: GameData | None = None, on_game=None, progress=None) -> GameResults:
    """The ``play_games`` part: results_table.play_games's games of Monkey Palace on ``engine``
    ("jax" or "reference", already chosen), their ``GameResults.batch`` the JAX engine's details."""
    if engine == "jax":
        return _play_jax(list(agents), options, seeds, names, batch, pad, agent_key, share_agents, max_decisions,
                         jax_game, progress)
    return _play_reference(agents, options, seeds, names, data, on_game, progress)


def _play_jax(agents, options, seeds, names, batch, pad, agent_key, share_agents, max_decisions, jg,
              progress) -> GameResults:
    if jg is None:
        from monkey_env.monkey_palace.jaxgame.env import jax_game_for
        jg = jax_game_for(options)
    names = list(names) if names is not None else agent_names(agents)
    rules = {k: getattr(options, k) for k in RULE_FIELDS}
    h = options_hash(options, jg.data.fingerprint_without_map)

    def chunk_results(padded, key: int, n: int) -> GameResults:
        r = play_batch(jg, agents, players=options.players, map=options.map, seeds=padded, options=rules,
                       agent_key=key, max_decisions=max_decisions, share_agents=share_agents)
        r = r.take(slice(0, n)) if len(padded) > n else r
        end = np.asarray(["illegal action" if r.illegal[i] else END_KIND_NAMES[r.end_kind[i]] if r.end_kind[i] >= 0
                          else "" for i in range(n)], dtype=object)
        places = r.ranks().astype(np.int64)
        return GameResults(seed=r.seeds.astype(np.int64), options_hash=np.full(n, h, dtype=object),
                           engine=np.full(n, "jax", dtype=object), agents=np.asarray([names] * n, dtype=object),
                           scores=r.scores.astype(np.int64), places=places, win_shares=shares_from_places(places),
                           rounds=r.rounds.astype(np.int64), end_trigger=end, decisions=r.decisions.astype(np.int64),
                           duration=np.full(n, r.seconds / max(n, 1)),
                           monkey_holder=(np.full(n, -1) if r.holders is None
                                          else np.asarray(r.holders)[:, 0]).astype(np.int64),
                           batch=r)
    return play_in_batches(seeds, batch, pad, agent_key, chunk_results, progress)


def _play_reference(agents, options, seeds, names, data, on_game, progress) -> GameResults:
    data = data or options.game_data()
    return play_reference(agents, options, seeds, names, on_game, progress,
                          play=lambda one_options, seated: play_game(one_options, seated, data),
                          hashed=options_hash(options, data.fingerprint_without_map))
