"""What a game's hooks tell the kernel (`gm.kernel.protocol.GameRules`): what a
mail's notation lines did (`Submitted`), what starting the game or running a
turn produced (`Turn`), what follows a game of a series (`NextGame`), and a
whole record played again for ``gm verify`` (`Replayed`).

Values handed back from a hook and used at once: none is kept in a game's
state, so none is in a snapshot.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from .values import GameEnd, Notice


class Did(enum.Enum):
    """What a player's notation lines (setup, orders, a move) did."""

    ACCEPTED = "accepted"
    """In force now: the seat is no longer missing, and its count of
    deadlines missed in a row starts again."""
    CHECKED = "checked"
    """Checked as the mail asked (``check``), not submitted."""
    REJECTED = "rejected"
    """Not taken: unreadable, against the rules, or not the seat's move."""
    LATE = "late"
    """Written for a turn that ran before the mail came: not used."""
    IGNORED = "ignored"
    """Nothing the seat may do now (a resigned empire's orders)."""


@dataclass(frozen=True)
class Submitted:
    """What the game did with a mail's notation lines: ``did`` and the
    notices to send at once, after the reply (a late mail's current sheet).
    ``then`` adds the game's last words to the reply once the kernel has
    acted on the submission (started the game or run the turn it completed)."""

    did: Did
    notices: tuple[Notice, ...] = ()
    then: Callable[[], None] | None = None


@dataclass(frozen=True)
class Turn:
    """What starting the game, running a turn (or making a move), or a
    resignation produced: ``end`` when the game ended, and ``sheets``, the
    seats' notices, built only once the kernel has set the phase and the
    deadline they show. ``done`` is what the reply to the mail that made it
    run says of it."""

    sheets: Callable[[], list[Notice]]
    end: GameEnd | None = None
    done: tuple[str, ...] = ()


@dataclass(frozen=True)
class NextGame:
    """A game of a series (a Spaceships match) has ended: the notices that
    say what follows, built once the kernel has set the series up, and
    whether another game of the series begins (in its setup phase)."""

    notices: Callable[[], list[Notice]]
    begins: bool
    ranking: tuple[tuple[int, ...], ...] = ()
    """When the series ends: its final places (`GameEnd.ranking`), which
    the game's outcome then carries, as the series' result is not its last
    game's."""


@dataclass(frozen=True)
class Replayed:
    """A whole record of a game played again under the rules, as one seat was
    told it (`gm.kernel.protocol.GameRules.replayed`), for ``gm verify``."""

    values: tuple[tuple[str, bytes], ...]
    """The committed values the record implies (each side's setup), by label."""
    turns: tuple[tuple[str, tuple[str, ...]], ...]
    """Each turn (or move) in order: its name ("turn 3") and the lines the
    seat's sheet for it shows, as one block of consecutive lines; a turn
    whose sheet shows several such blocks has one entry for each, in the
    order the sheet shows them."""
