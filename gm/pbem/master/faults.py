"""Mail shunted through gm's own fault, and its retry once the fault is gone.

A mail gm fails on (an exception while handling it that is no temporary
fault of the disk) is kept in the shunt, never lost. That is gm's fault,
not the player's, and the shunt reason says so with a marker at its end:

    gm failed on this mail: KeyError: 'x' [gm's own fault: code 0123456789ab]
    gm could not load g1: ValueError: ... [gm's own fault: g1 did not load; code 0123456789ab]

``code`` names the gm that failed (the start of `snapshots.code_fingerprint`).
When the daemon starts (`retry`), such a mail is handled again, as the
operator's ``gm shunt release`` would, once its fault can be gone:

- a game that did not load (a damaged file, a fault of memory): when that
  game now loads cleanly;
- a fault in handling the mail itself (a bug): when gm's code is not the one
  that failed on it (an upgrade may have fixed it). Mail shunted with the
  reason ``gm failed on this mail`` by a gm from before these markers counts
  as failed by other code, so it is tried once more.

Never a loop: a retry that fails again is shunted again with the same kind
of marker, and the same code does not retry a fault of its own code; a game
that still does not load keeps its mail where it is, untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from ...logs import event
from ..data.store import Store
from ..operator.actions import release, split_reason
from ..state.snapshots import code_fingerprint

LEGACY = "gm failed on this mail:"
"""How a gm from before the markers began the reason of a mail it failed on."""
_MARKER = re.compile(r" \[gm's own fault: (?:(?P<game>g\d+) did not load; )?code (?P<code>[0-9a-f]+)\]$")


class GameNotLoaded(Exception):
    """A game could not be loaded (its snapshot and archive read into
    memory) for a reason that is no temporary fault of the disk."""

    def __init__(self, game_id: str, error: BaseException):
        super().__init__(f"{type(error).__name__}: {error}")
        self.game_id = game_id


def code() -> str:
    """The running gm, as a shunt reason names it."""
    return code_fingerprint()[:12]


def failed_on_mail(error: BaseException) -> str:
    """The shunt reason of a mail gm failed on (a bug, or memory)."""
    return _one_line(f"{LEGACY} {type(error).__name__}: {error} [gm's own fault: code {code()}]")


def game_not_loaded(error: GameNotLoaded) -> str:
    """The shunt reason of a mail whose game could not be loaded."""
    game = error.game_id
    return _one_line(f"gm could not load {game}: {error} [gm's own fault: {game} did not load; code {code()}]")


def _one_line(reason: str) -> str:
    return reason.replace("\r", " ").replace("\n", " ")


@dataclass(frozen=True)
class OwnFault:
    """What a shunt reason says of gm's own fault."""

    game_id: str | None
    """The game that did not load; None for a fault in handling the mail."""
    code: str | None
    """The gm that failed; None for one from before the markers."""


def own_fault(reason: str) -> OwnFault | None:
    """The fault a shunt reason marks as gm's own; None for any other shunt."""
    found = _MARKER.search(reason)
    if found is not None:
        return OwnFault(found["game"], found["code"])
    if reason.startswith(LEGACY):
        return OwnFault(None, None)
    return None


def retry(store: Store, now: datetime, loads: Callable[[str], bool],
          mine: Callable[[str | None], bool] | None = None) -> list[str]:
    """Spool again every shunted mail whose fault of gm's own can be gone
    (see the module's docstring); ``loads`` tells whether a game loads
    cleanly now. ``mine``: of several master processes, which faults this
    one looks at (by the game that did not load; None for the others).
    Returns the shunt keys retried."""
    retried = []
    undone: dict[str, bool] = {}
    for key in store.shunt.keys():
        reason, _ = split_reason(store.shunt.get_bytes(key))
        fault = own_fault(reason)
        if fault is None or (mine is not None and not mine(fault.game_id)):
            continue
        if fault.game_id is not None:
            if fault.game_id not in undone:
                undone[fault.game_id] = loads(fault.game_id)
            if not undone[fault.game_id]:
                continue
        elif fault.code == code():
            continue
        event("mail retried", key=key, note=release(store, key, now), reason=reason)
        retried.append(key)
    return retried
