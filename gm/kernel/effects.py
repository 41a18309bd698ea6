"""What a notice asks of the edge beside its own text, as values: what a
player's mail asks the GM to do apart from the game's own mail (`Effect`:
the games list, an address to confirm) and a seat's deadline as a calendar
event (`CalendarEvent`). The kernel makes them (`gm.kernel.engine`,
`gm.kernel.moving`, `gm.kernel.calendar`); the edge acts on them
(`gm.pbem.master.screening`, `gm.pbem.writing.calendar`); `gm.kernel.values`'
`Notice` and `Reply` carry them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class CalendarEvent:
    """A seat's deadline as a calendar event (`gm.kernel.calendar`), for the
    edge to write as an iCalendar part: one event per game and seat, moved
    with each ``sequence`` the seat is told of.

    ``start`` is the deadline; ``summary`` names the game and what is due;
    ``alarm`` is how long before ``start`` to remind, as
    `gm.kernel.values.Options.reminder_before`. A ``cancelled`` event (the game paused or
    over) keeps the deadline and summary the seat was last told of."""

    sequence: int
    start: datetime
    summary: str
    alarm: timedelta
    cancelled: bool = False


@dataclass(frozen=True)
class SendGamesList:
    """A player's mail asked for the list of their games (``games``): the
    edge mails it apart, as it is no mail of this game's."""

    player: int


@dataclass(frozen=True)
class ConfirmAddress:
    """A player's mail asked to move their seat to ``address`` (``address
    NEW``, `gm.kernel.moving`): the edge mails that address for its
    confirmation, which only then moves the seat."""

    player: int
    address: str


Effect = SendGamesList | ConfirmAddress
"""What a player's mail asks of the edge beside the game's own mail (`gm.kernel.values.Notice.effects`)."""
