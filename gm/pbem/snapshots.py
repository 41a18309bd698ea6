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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .resident import GameSummary

MAGIC = b"gm-snapshot 1\n"
_LENGTH = struct.Struct(">Q")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of the Python version and of every file of the installed gm
    package (code, grammars, templates): a snapshot pickled by other code
    may not mean the same state, so only one written by exactly this gm is
    used. (A game registered from outside gm, `gm.kernel.protocol.REGISTRY`,
    is not covered: change its name when its rules change.)"""
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
    summary: GameSummary
    """The game's summary after that event."""
    last_messages: list[tuple[str, int]] = field(default_factory=list)
    """The archive key and player of each message that event sent."""


def path_of(root: Path, game_id: str) -> Path:
    """Where a game's snapshot lives in the data directory ``root``."""
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
    try:
        tmp.write_bytes(MAGIC + _frame(head) + _frame(body))
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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


def _open(root: Path, game_id: str, body: bool) -> tuple[Head, Any] | None:
    """Head (and body, if asked) read from one open file: a snapshot renamed
    over this one meanwhile cannot pair one's head with the other's body."""
    try:
        with open(path_of(root, game_id), "rb") as handle:
            if handle.read(len(MAGIC)) != MAGIC:
                return None
            head_data = _read_frame(handle)
            body_data = _read_frame(handle) if body and head_data is not None else None
    except OSError:
        return None
    if head_data is None or (body and body_data is None):
        return None
    try:
        head = pickle.loads(head_data)
        if not isinstance(head, Head) or head.fingerprint != code_fingerprint() or head.game_id != game_id:
            return None
        return head, pickle.loads(body_data) if body_data is not None else None
    except Exception:  # a snapshot of other code, or one that no longer unpickles: ignored, as said above
        return None


def read_head(root: Path, game_id: str) -> Head | None:
    """The head of a game's snapshot, or None when there is none that this
    gm wrote for this game (missing, torn, or from other code)."""
    found = _open(root, game_id, body=False)
    return None if found is None else found[0]


def read(root: Path, game_id: str) -> tuple[Head, Any] | None:
    """A game's snapshot, head and body; None as for `read_head`."""
    return _open(root, game_id, body=True)
