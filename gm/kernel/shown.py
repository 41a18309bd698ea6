"""The deadline a notice shows, decided once its event is over.

A notice shows the deadline as the kernel last set it; but an absence
declared on a later line of the same mail (`gm.kernel.absence`) can still
move that deadline. So the notices built since the kernel last set the
deadline share one `ShownDeadline`, and hold it (`Shown`) in place of the
text; once the event is over and the deadline decided, `resolve` puts the
text in. A notice built before the deadline was last set keeps what it
showed: it belongs to another one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from .clock import utc_minute
from .text import span
from .values import Notice


@dataclass
class ShownDeadline:
    """One deadline the kernel set, as the events since have ``decided`` it."""

    decided: datetime


@dataclass(frozen=True)
class Shown:
    """In a notice's data: the ``deadline`` (``built`` when the notice was),
    or the time ``remaining`` until it from ``at``, not yet decided."""

    deadline: ShownDeadline
    built: datetime
    at: datetime | None = None

    def text(self, decided: bool) -> str:
        when = self.deadline.decided if decided else self.built
        return span(when - self.at) if self.at is not None else utc_minute(when)


class Showing(Protocol):
    """A game's deadline, and the one its notices show (`MailGame.shown`)."""

    @property
    def deadline(self) -> datetime | None: ...

    @property
    def shown(self) -> ShownDeadline | None: ...


def fields(game: Showing, at: datetime | None) -> dict[str, Any]:
    """The ``deadline`` and ``remaining`` of a notice's data built now, from
    ``at``: the notices built since the deadline was last set share it."""
    if game.deadline is None:
        return {"deadline": None, "remaining": None}
    shown = (game.shown if game.shown is not None and game.shown.decided == game.deadline
             else ShownDeadline(game.deadline))
    built = game.deadline
    return {"deadline": Shown(shown, built), "remaining": None if at is None else Shown(shown, built, at)}


def resolve(notices: list[Notice]) -> list[Notice]:
    """The notices with the deadlines they show put into words: a notice's
    own as decided; those of the documents enclosed in a reply, or held
    deeper in a notice's data (an observer's records of the game), as they
    were when those were made."""
    for notice in notices:
        _put(notice.data, True)
        for enclosed in notice.enclosed:
            _put(enclosed.data, False)
    return notices


def _put(data: Any, decided: bool) -> None:
    """Put in the words of every `Shown` in ``data`` (a dict or a list), at any depth."""
    for key, value in data.items() if isinstance(data, dict) else enumerate(data):
        if isinstance(value, Shown):
            data[key] = value.text(decided)
        elif isinstance(value, (dict, list)):
            _put(value, False)
