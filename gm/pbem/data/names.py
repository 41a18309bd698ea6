"""The store of players' public names (`gm.league.names` says what a name may be).

Each accepted name is its ``name`` mail kept whole in ``DATA/names/``,
under its number in the order names were accepted and its request's id
(``00000001.nID``: so they sort in that order, whatever the clock), with
a first header recording the address and the name:
``X-GM-Name: address=alice@example.org; name=Ahab``. The table
of names is derived from them alone, in order, each later one replacing
its address's earlier name (which is thereby freed): nothing else holds it,
and a mail stored by a batch that a crash cut short is either there whole
or not at all (`gm.storage`), so the table is the same after a SIGKILL at
any point.
"""

from __future__ import annotations

from pathlib import Path

from ...league.names import holder_of
from .store import Store

NAME_HEADER = "X-GM-Name"


def name_record(raw: bytes, address: str, name: str) -> bytes:
    """``raw`` (the player's ``name`` mail) with the header that records it."""
    eol = b"\r\n" if b"\r\n" in raw[:2000] else b"\n"
    return f"{NAME_HEADER}: address={address}; name={name}".encode() + eol + raw


def header_fields(raw: bytes, header: str) -> dict[str, str] | None:
    """The ``name=value; ...`` fields of gm's own ``header`` on top of a kept
    mail, or None if its first line is not that header."""
    first = raw.split(b"\n", 1)[0].decode("utf-8", "replace").strip()
    label, _, value = first.partition(":")
    if label.strip().lower() != header.lower():
        return None
    return dict(part.strip().split("=", 1) for part in value.split(";") if "=" in part)


def _recorded(raw: bytes) -> tuple[str, str] | None:
    """The address and name a record's first header holds."""
    fields = header_fields(raw, NAME_HEADER)
    if not fields or not fields.get("address") or not fields.get("name"):
        return None
    return fields["address"], fields["name"]


_read: dict[Path, tuple[list[str], dict[str, str]]] = {}
"""Each names folder's keys as last read, and the table they made: a
record never changes once written, so only the records added since are
read (every mail to the GM's own address asks for the table)."""


def public_names(store: Store) -> dict[str, str]:
    """Every player's public name: normalized address -> name."""
    keys = store.names.keys()
    done, names = _read.get(store.names.path, ([], {}))
    if keys[:len(done)] != done:  # not what was read before and more: read it all
        done, names = [], {}
    names = dict(names)
    for key in keys[len(done):]:
        recorded = _recorded(store.names.get_bytes(key))
        if recorded:
            names[recorded[0]] = recorded[1]
    _read[store.names.path] = (keys, names)
    return dict(names)


def address_of(store: Store, name: str) -> str | None:
    """The address whose public name is ``name`` (any capitals), or None."""
    return holder_of(public_names(store), name)
