"""Comparing a reference Game with a JAX State field by field (the differential test's eye)."""

from __future__ import annotations

import numpy as np

from monkey_env.engine import Game
from monkey_env.jaxgame.state import State

END_KINDS = {"arches": 0, "bricks": 1, "columns": 2, "arches and bricks": 3}


def reference_view(game: Game) -> dict:
    n = game.options.players
    owner = np.full(len(game.data.cards), -1)
    for seat in range(n):
        for c in game.owned_cards(seat):
            owner[c] = seat
    tops = np.full((n, 4), -1)
    depth = np.zeros((n, 4), int)
    for seat, p in enumerate(game.players):
        for i, slot in enumerate(p.slots):
            tops[seat, i] = slot[-1] if slot else -1
            depth[seat, i] = len(slot)
    return {
        "phase": int(game.phase), "current": game.current, "round": game.round, "turns_played": game.turns_played,
        "end_triggered": game.end_triggered,
        "end_kind": END_KINDS[game.end_reason.split(" ran out")[0]] if game.end_triggered else -1,
        "height": game.palace.height.astype(int), "knob": game.palace.knob.astype(int),
        "animals": np.array(game.palace.animals), "deco_max": np.array(game.palace.deco_max),
        "tray": np.array(game.tray.as_tuple()), "supply": np.array([p.supply.as_tuple() for p in game.players]),
        "pile_len": np.array([len(p) for p in game.piles]),
        "pile_tops": np.array([p[-1] if p else -1 for p in game.piles]),
        "card_owner": owner, "slot_top": tops, "slot_depth": depth,
        "holders": np.array([game.holders[k] for k in ("monkey", "butterfly", "frog")]),
        "bonus_left": game.bonus_left, "bonus_cards": np.array([p.bonus_cards for p in game.players]),
        "scores": np.array(game.scores()), "mask": game.legal_mask(),
        "credits": game.turn.credits if game.phase.name == "BUY" else -1,
    }


def jax_view(jg, s: State) -> dict:
    n = jg.players
    pile_len = np.asarray(s.pile_len)
    cards = np.asarray(s.pile_cards)
    return {
        "phase": int(s.phase), "current": int(s.current), "round": int(s.round), "turns_played": int(s.turns_played),
        "end_triggered": bool(s.end_triggered), "end_kind": int(s.end_kind),
        "height": np.asarray(s.height).astype(int), "knob": np.asarray(s.knob).astype(int),
        "animals": np.asarray(s.animals), "deco_max": np.asarray(s.deco_max),
        "tray": np.asarray(s.tray), "supply": np.asarray(s.supply)[:n],
        "pile_len": pile_len, "pile_tops": np.array([cards[p, pile_len[p] - 1] if pile_len[p] else -1 for p in range(12)]),
        "card_owner": np.asarray(s.card_owner).astype(int), "slot_top": np.asarray(s.slot_top)[:n],
        "slot_depth": np.asarray(s.slot_depth)[:n].astype(int),
        "holders": np.asarray(s.holders), "bonus_left": int(s.bonus_left),
        "bonus_cards": np.asarray(s.bonus_cards)[:n], "scores": jg.scores(s),
        "mask": np.asarray(jg.legal_action_mask(s)),
        "credits": int(s.credits) if int(s.phase) == 2 else -1,
    }


def differences(ref: dict, jx: dict) -> list[str]:
    out = []
    for k in ref:
        a, b = np.asarray(ref[k]), np.asarray(jx[k])
        if a.shape != b.shape or not np.array_equal(a, b):
            if k in ("height", "knob", "mask") and a.shape == b.shape:
                where = np.argwhere(a != b)[:5].tolist()
                out.append(f"{k} differs at {where}: reference {a[tuple(np.array(where).T)]} jax {b[tuple(np.array(where).T)]}")
            else:
                out.append(f"{k}: reference {a.tolist()} jax {b.tolist()}")
    return out
