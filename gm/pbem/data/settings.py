"""The store of players' own settings (`gm.kernel.settings`).

Each accepted change is the mail that asked for it, kept whole in
``DATA/settings/`` under its number in the order changes were accepted and
its request's id (``00000001.pID``, so they sort in that order whatever the
clock), with a first header recording the address and the player's whole
settings after the change:
``X-GM-Settings: address=alice@example.org; timezone=Europe/Berlin; quiet=23:00-07:00``.
The table is derived from the records alone, each replacing its address's
earlier one; a record stored by a batch that a crash cut short is either
there whole or not at all (`gm.storage`), so the table is the same after a
SIGKILL at any point.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...kernel.settings import DEFAULT, PlayerSettings
from .names import header_fields
from .store import Store

SETTINGS_HEADER = "X-GM-Settings"


def settings_record(raw: bytes, address: str, settings: PlayerSettings, also: Mapping[str, str] | None = None) -> bytes:
    """``raw`` (the player's mail that asked) with the header that records
    ``address``'s settings as they now are, and ``also`` what else the
    change was (a vacation: `gm.pbem.data.vacations`)."""
    eol = b"\r\n" if b"\r\n" in raw[:2000] else b"\n"
    fields = "".join(f"; {name}={value}" for name, value in {**settings.fields(), **(also or {})}.items())
    return f"{SETTINGS_HEADER}: address={address.lower()}{fields}".encode() + eol + raw


def record(store: Store, raw: bytes, address: str, settings: PlayerSettings, request_id: str,
           also: Mapping[str, str] | None = None) -> None:
    """Keep the change ``request_id`` made (once: a redo finds it there)."""
    if any(key.endswith(f".{request_id}") for key in store.settings.keys()):
        return
    store.settings.add(settings_record(raw, address, settings, also),
                       f"{len(store.settings.keys()) + 1:08d}.{request_id}")


def records_of(store: Store, address: str) -> list[dict[str, str]]:
    """The fields of each of ``address``'s settings records, oldest first."""
    found = []
    for key in store.settings.keys():
        fields = header_fields(store.settings.get_bytes(key), SETTINGS_HEADER)
        if fields and fields.get("address", "").lower() == address.lower():
            found.append(fields)
    return found


_read: dict[Path, tuple[list[str], dict[str, PlayerSettings]]] = {}
"""Each settings folder's keys as last read, and the table they made (a
record never changes once written: only those added since are read)."""


def all_settings(store: Store) -> dict[str, PlayerSettings]:
    """Every player's settings that differ from the default: lower-cased address -> settings."""
    keys = store.settings.keys()
    done, table = _read.get(store.settings.path, ([], {}))
    if keys[:len(done)] != done:
        done, table = [], {}
    table = dict(table)
    for key in keys[len(done):]:
        fields = header_fields(store.settings.get_bytes(key), SETTINGS_HEADER)
        if fields and fields.get("address"):
            address = fields.pop("address").lower()
            table[address] = PlayerSettings.from_fields(fields)
    _read[store.settings.path] = (keys, table)
    return {address: s for address, s in table.items() if s != DEFAULT}


def settings_of(store: Store, address: str) -> PlayerSettings:
    """``address``'s settings (the defaults when it set none)."""
    return all_settings(store).get(address.lower(), DEFAULT)
