"""What identifies an agent's behaviour in the results: its version, checkpoint hash or code hash."""

from __future__ import annotations

import hashlib
import inspect
import json
from pathlib import Path


def file_hash(path: str | Path, length: int = 12) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:length]


def agent_version(agent) -> str:
    """The agent's ``version`` attribute if it has one; else the hash of its checkpoint file
    (a ``checkpoint`` or ``checkpoint_path`` attribute); else the hash of its class's source file,
    so a changed agent is never mistaken for the old one."""
    version = getattr(agent, "version", None)
    if version:
        return str(version)
    for attr in ("checkpoint", "checkpoint_path"):
        path = getattr(agent, attr, None)
        if path and Path(str(path)).is_file():
            return "ckpt-" + file_hash(path)
    try:
        source = inspect.getsourcefile(type(agent))
    except TypeError:
        source = None
    return "code-" + file_hash(source) if source else "unknown"


def config_hash(obj, length: int = 16) -> str:
    """A short stable hash of a JSON-able object (keys sorted)."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:length]
