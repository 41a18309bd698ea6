"""The deadline a notice shows, decided once its event is over.

A notice shows the deadline as the kernel last set it; but an absence
declared on a later line of the same mail (`gm.kernel.absence`) can still
move that deadline. So the notices built since the kernel last set the
deadline share one `ShownDeadline`, and hold it (`Shown`) in place of the
text; once the event is over and the deadline decided, `resolve` puts the
text in, in the words of the notice's reader: their own time zone, in games
of `TIME_EDITION` on (`gm.kernel.zones`). A notice built before the deadline
was last set keeps what it showed: it belongs to another one.

A deadline moved out of the players' quiet hours (`gm.kernel.quiet`) is
shown with a note saying so, in the notice's ``moved`` (games of
`TIME_EDITION` on): "The deadline was moved to 07:00 CET, after Bob's quiet
hours." It names the seats by their aliases, never an address or a zone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .text import span
from .values import TIME_EDITION, Notice
from .zones import clock_time, local_minute

Zones = Callable[[int], str | None]
"""The time zone of a notice's reader, by their seat (0 for an observer);
None for UTC, as gm always showed."""


def utc(player: int) -> str | None:
    """No reader's zone: UTC, as gm always showed."""
    return None


@dataclass
class ShownDeadline:
    """One deadline the kernel set, as the events since have ``decided`` it,
    and the seats (number and alias) whose quiet hours moved it there."""

    decided: datetime
    movers: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class Shown:
    """In a notice's data: the ``deadline`` (``built`` when the notice was),
    or the time ``remaining`` until it from ``at``, not yet decided."""

    deadline: ShownDeadline
    built: datetime
    at: datetime | None = None

    def text(self, decided: bool, zone: str | None = None, reader: int = 0) -> str:
        when = self.deadline.decided if decided else self.built
        return span(when - self.at) if self.at is not None else local_minute(when, zone)


@dataclass(frozen=True)
class ShownMove:
    """In a notice's data: the note that its ``deadline`` was moved out of
    quiet hours (empty when it was not), not yet decided."""

    deadline: ShownDeadline
    built: datetime
    built_movers: tuple[tuple[int, str], ...]

    def text(self, decided: bool, zone: str | None = None, reader: int = 0) -> str:
        when, movers = (self.deadline.decided, self.deadline.movers) if decided else (self.built, self.built_movers)
        if not movers:
            return ""
        names = [("your" if player == reader else f"{alias}'s") for player, alias in movers]
        named = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return (f"The deadline was moved to {clock_time(when, zone)},"
                f" after {named} quiet hours.")


class Showing(Protocol):
    """A game's deadline, and the one its notices show (`MailGame.shown`)."""

    @property
    def deadline(self) -> datetime | None: ...

    @property
    def shown(self) -> ShownDeadline | None: ...

    @property
    def edition(self) -> int: ...


def fields(game: Showing, at: datetime | None) -> dict[str, Any]:
    """The ``deadline`` and ``remaining`` of a notice's data built now, from
    ``at``: the notices built since the deadline was last set share it; in
    games of `TIME_EDITION` on, also the note that it was ``moved`` out of
    quiet hours."""
    timed = game.edition >= TIME_EDITION
    if game.deadline is None:
        return {"deadline": None, "remaining": None} | ({"moved": ""} if timed else {})
    shown = (game.shown if game.shown is not None and game.shown.decided == game.deadline
             else ShownDeadline(game.deadline))
    built = game.deadline
    return ({"deadline": Shown(shown, built), "remaining": None if at is None else Shown(shown, built, at)}
            | ({"moved": ShownMove(shown, built, shown.movers)} if timed else {}))


def moment(when: datetime) -> Shown:
    """A moment other than the deadline (the deadline it replaced), shown
    like a deadline: in the reader's own time."""
    return Shown(ShownDeadline(when), when)


def resolve(notices: list[Notice], zones: Zones = utc) -> list[Notice]:
    """The notices with the deadlines they show put into words, in the time
    zone of each notice's reader (``zones``): a notice's own as decided;
    those of the documents enclosed in a reply, or held deeper in a notice's
    data (an observer's records of the game), as they were when those were
    made."""
    for notice in notices:
        zone = zones(notice.player) if not notice.observer else None
        _put(notice.data, True, zone, notice.player)
        for enclosed in notice.enclosed:
            _put(enclosed.data, False, zone, notice.player)
    return notices


def _put(data: Any, decided: bool, zone: str | None, reader: int) -> None:
    """Put in the words of every `Shown` and `ShownMove` in ``data`` (a dict
    or a list), at any depth, for ``reader`` in ``zone``. A string, most
    of what a sheet's data holds (its grids' lines, its legend), is passed
    over first."""
    for key, value in data.items() if isinstance(data, dict) else enumerate(data):
        if type(value) is str:
            continue
        if isinstance(value, (Shown, ShownMove)):
            data[key] = value.text(decided, zone, reader)
        elif isinstance(value, (dict, list)):
            _put(value, False, zone, reader)
