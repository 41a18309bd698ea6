"""Snapshots: each game's state after its last event, kept beside its archive
so that gm starts without replaying every game's history.

A snapshot is a cache, never the truth: the archive is. One is trusted only
when it was written by exactly this gm (`code_fingerprint`: every file of the
installed package), for this game, after the event that is the archive's
last; one written after an earlier event of the same archive is a base that
the later events are replayed onto. Anything else (another version of gm, a
torn or foreign file, an archive that does not hold the event) is ignored,
and the game is rebuilt from its archive and a new snapshot written. So
deleting every snapshot gives back the same games, by replay.

    DATA/snapshots/GAME

The file is a short head, read alone at start-up (what gm must know of
every game, `gm.pbem.resident.GameSummary`, without loading it), then the
body (the game itself), each checked by its SHA-256 digest:

    b"gm-snapshot 1\\n" LENGTH(8) DIGEST(32) HEAD LENGTH(8) DIGEST(32) BODY

Head and body are pickles. gm reads only snapshots it wrote itself into its
own data directory, which also holds the server key; nothing from outside
is ever unpickled. Snapshots are written without fsync: a snapshot lost or
torn by a power cut fails its digest and is rebuilt from the archive.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import struct
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

MAGIC = b"gm-snapshot 1\n"
_LENGTH = struct.Struct(">Q")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the Python version and of every file of the installed gm
    package (code, grammars, templates): a snapshot pickled by other code
    may not mean the same state, so only one written by exactly this gm is
    used."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(sys.version.encode() + b"\0")
    for folder, dirs, files in sorted(os.walk(root, followlinks=True)):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = Path(folder) / name
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass
class Head:
    """What a snapshot says of itself and of its game, read without the body."""

    fingerprint: str
    game_id: str
    last_in: str
    """The archive key of the last inbound event the snapshot includes."""
    number: int
    """That event's sequence number."""
    summary: Any
    """The game's `gm.pbem.resident.GameSummary` after that event."""
    last_messages: list[tuple[str, int]] = field(default_factory=list)
    """The archive key and player of each message that event sent."""


def path_of(root: Path, game_id: str) -> Path:
    return root / "snapshots" / game_id


def _frame(data: bytes) -> bytes:
    return _LENGTH.pack(len(data)) + hashlib.sha256(data).digest() + data


def write(root: Path, head: Head, body: Any) -> None:
    """Write a game's snapshot atomically (a rename over the old one)."""
    write_pickled(root, head.game_id, pickle.dumps(head, protocol=5), pickle.dumps(body, protocol=5))


def write_pickled(root: Path, game_id: str, head: bytes, body: bytes) -> None:
    """Write a snapshot whose head and body are pickled already."""
    target = path_of(root, game_id)
    target.parent.mkdir(exist_ok=True)
    tmp = target.with_name(f".{game_id}.{os.getpid()}.tmp")
    tmp.write_bytes(MAGIC + _frame(head) + _frame(body))
    os.replace(tmp, target)


def remove(root: Path, game_id: str) -> None:
    path_of(root, game_id).unlink(missing_ok=True)


def clear_unfinished(root: Path) -> None:
    """Remove what a process killed while writing a snapshot left behind
    (called at start-up, when no other gm writes here)."""
    folder = root / "snapshots"
    if folder.is_dir():
        for entry in folder.glob(".*.tmp"):
            entry.unlink(missing_ok=True)


def _read_frame(handle: Any) -> bytes | None:
    prefix = handle.read(_LENGTH.size + 32)
    if len(prefix) != _LENGTH.size + 32:
        return None
    (length,) = _LENGTH.unpack(prefix[:_LENGTH.size])
    data = handle.read(length)
    if len(data) != length or hashlib.sha256(data).digest() != prefix[_LENGTH.size:]:
        return None
    return data


def read_head(root: Path, game_id: str) -> Head | None:
    """The head of a game's snapshot, or None when there is none that this
    gm wrote for this game (missing, torn, or from other code)."""
    try:
        with open(path_of(root, game_id), "rb") as handle:
            if handle.read(len(MAGIC)) != MAGIC:
                return None
            data = _read_frame(handle)
    except OSError:
        return None
    if data is None:
        return None
    try:
        head = pickle.loads(data)
    except Exception:  # a snapshot of other code: ignored, as the docstring says
        return None
    if not isinstance(head, Head) or head.fingerprint != code_fingerprint() or head.game_id != game_id:
        return None
    return head


def read(root: Path, game_id: str) -> tuple[Head, Any] | None:
    """A game's snapshot, head and body; None as for `read_head`."""
    head = read_head(root, game_id)
    if head is None:
        return None
    try:
        with open(path_of(root, game_id), "rb") as handle:
            handle.read(len(MAGIC))
            if _read_frame(handle) is None:
                return None
            data = _read_frame(handle)
        if data is None:
            return None
        return head, pickle.loads(data)
    except Exception:
        return None
