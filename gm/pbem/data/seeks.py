"""The store of open seeks (`gm.league.seeks` says what a seek is).

Each seek is its ``seek`` mail kept whole in ``DATA/seeks/`` under the
seek's id, with a first header that records it (``X-GM-Seek: id=...;
seeker=...; game=...``); where it stands is read from the markers in
``handled/``: ``confirmed-ID`` (its seeker confirmed it: it is open),
``accepted-ID`` (taken) and ``cancelled-ID`` (withdrawn), each written in
the batch of the mail that did it (`gm.pbem.answers.league`).

A seek that fills its seats with robots (`gm.league.filling`) is joined
rather than taken: each confirmed joining is a record ``ID.join.HASH`` in
``seeks/`` (the joiner and when), and ``accepted-ID`` marks its game begun,
when every seat was taken or at its fill time (`gm.pbem.master.fills`).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime

from ...league.seeks import Seek, Status
from .names import header_fields
from .store import Store

SEEK_HEADER = "X-GM-Seek"
JOIN_HEADER = "X-GM-Seek-Join"
_SEEK_ID = re.compile(r"s[0-9a-f]{10}")


def join_key(seek_id: str, address: str) -> str:
    """Where the record of ``address`` joining the seek is kept: one per joiner."""
    return f"{seek_id}.join.{hashlib.sha256(address.lower().encode()).hexdigest()[:12]}"


def add_join(store: Store, seek_id: str, address: str, at: datetime) -> None:
    """Record that ``address`` joined the seek at ``at`` (once: a redo finds it there)."""
    key = join_key(seek_id, address)
    if key not in store.seeks:
        store.seeks.add(f"{JOIN_HEADER}: address={address}; at={at.isoformat()}\n\n".encode(), key)


def joiners(store: Store, seek_id: str) -> list[str]:
    """Who joined the seek, first come first."""
    found = []
    for key in store.seeks.keys():
        if key.startswith(f"{seek_id}.join."):
            fields = header_fields(store.seeks.get_bytes(key), JOIN_HEADER)
            assert fields is not None
            found.append((fields["at"], fields["address"]))
    return [address for _, address in sorted(found)]


def seek_record(raw: bytes, seek: Seek) -> bytes:
    """``raw`` (the seeker's mail) with the header that records ``seek``."""
    eol = b"\r\n" if b"\r\n" in raw[:2000] else b"\n"
    return f"{SEEK_HEADER}: {'; '.join(f'{k}={v}' for k, v in seek.fields().items())}".encode() + eol + raw


def stored_seek(store: Store, seek_id: str) -> Seek | None:
    """The seek of that id, or None."""
    if seek_id not in store.seeks:
        return None
    fields = header_fields(store.seeks.get_bytes(seek_id), SEEK_HEADER)
    return None if fields is None else Seek.from_fields(fields)


def status_of(store: Store, seek_id: str) -> Status:
    """Where the seek stands, from its markers."""
    if f"accepted-{seek_id}" in store.handled:
        return Status.TAKEN
    if f"cancelled-{seek_id}" in store.handled:
        return Status.CANCELLED
    return Status.OPEN if f"confirmed-{seek_id}" in store.handled else Status.UNCONFIRMED


def open_seeks(store: Store, at: datetime) -> list[Seek]:
    """The seeks open at ``at`` (confirmed, neither taken nor withdrawn, not lapsed), oldest first."""
    found = []
    for seek_id in store.seeks.keys():
        # Its markers say whether it is open: its mail is not read. A joining's record is no seek.
        if not _SEEK_ID.fullmatch(seek_id) or status_of(store, seek_id) is not Status.OPEN:
            continue
        seek = stored_seek(store, seek_id)
        if seek is not None and not seek.lapsed(at):
            found.append(seek)
    return sorted(found, key=lambda seek: (seek.at, seek.id))
