"""The one check of a game's data folder (``--config-dir`` or a ``config_dir`` option): a folder
named for the game's data must exist and hold at least one of its files, for every game, so an
empty or mistyped folder is refused rather than quietly replaced by the shipped data. A folder
holding some of the files is allowed where the game documents it (the rest come from the
shipped data)."""

from __future__ import annotations

from pathlib import Path


def data_folder_problem(config_dir: str | Path, folder: str, files: tuple[str, ...]) -> str | None:
    """Why ``config_dir`` cannot hold the data laid out as ``folder/`` + ``files``, or None."""
    root = Path(config_dir)
    if not root.is_dir():
        return f"{root}: no such folder"
    where = root / folder if folder else root
    if folder and not where.is_dir():
        return f"{root} has no {folder} folder ({', '.join(files)}); lay it out like the shipped configs/"
    if files and not any((where / f).is_file() for f in files):
        return f"{where} holds none of the game data files ({', '.join(files)})"
    return None
