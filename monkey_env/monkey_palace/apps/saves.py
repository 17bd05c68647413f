"""Monkey Palace's part of the save files every game shares (monkey_env.apps.saves)."""

from __future__ import annotations


def checked_save(doc: dict) -> dict:
    """The ``checked_save`` part: a save as its own format reads it (the schema and the game data
    checked before the replay, so a malformed save says so), as ``to_dict()`` writes it."""
    from monkey_env.monkey_palace.engine import Game

    return Game.from_dict(doc).to_dict()
