"""A player's own time: a moment in their zone's words, and quiet hours.

A player may name their time zone (``timezone Europe/Berlin``): each
deadline they are shown is then written in their local time, with the
weekday and the zone's abbreviation, and in UTC beside it, as

    Tue 1 Dec 18:00 CET (17:00 UTC)

(when the day in UTC is another, it is named too: ``(Wed 2 Dec 00:30 UTC)``).
A player who named none is shown what gm always showed (`utc_minute`).

Quiet hours (``quiet 23:00-07:00``, in the player's local time) are hours
in which no deadline of their games may fall: `out_of_quiet` moves a
deadline to the end of the quiet hours it falls in, the latest end among
the players, again and again until it falls in nobody's. The wall clock of
each moment decides, so a change of daylight saving time is right on both
sides, and inside a repeated or skipped hour too. Pure: every time comes
from the caller.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from .clock import utc_minute

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
LONGEST_QUIET = timedelta(hours=12)
"""The longest quiet hours a player may ask for: a game must still be able
to have a deadline on each of their days."""
SEARCH = timedelta(days=2)
"""How far past the deadline asked for a moment out of everyone's quiet
hours is looked for: when the players' quiet hours together cover every
hour of the day, none is found, and the deadline stays as asked."""
_STEP = timedelta(minutes=1)


@lru_cache(maxsize=1024)
def zone_named(name: str) -> ZoneInfo | None:
    """The zone of an IANA name exactly as zoneinfo knows it; None if none."""
    if name not in _names():
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


@lru_cache(maxsize=1)
def _names() -> frozenset[str]:
    return frozenset(available_timezones())


def canonical(name: str) -> str | None:
    """The IANA name ``name`` means, whatever its case (``europe/berlin``
    is Europe/Berlin); None if zoneinfo knows no such zone."""
    folded = {known.lower(): known for known in _names()}
    return folded.get(name.strip().lower())


def near(name: str, count: int = 3) -> list[str]:
    """The IANA names closest to a wrong one, whatever its case
    (``europe/berln``: Europe/Berlin), best first; none if none is close."""
    wanted = name.strip().lower()
    folded = {known.lower(): known for known in _names()}
    close = [folded[found] for found in difflib.get_close_matches(wanted, sorted(folded), n=count, cutoff=0.8)]
    cities: dict[str, list[str]] = {}
    for known in sorted(_names()):
        cities.setdefault(known.rsplit("/", 1)[-1].replace("_", " ").lower(), []).append(known)
    city_wanted = wanted.rsplit("/", 1)[-1].replace("_", " ")
    for city in difflib.get_close_matches(city_wanted, sorted(cities), n=count, cutoff=0.8):
        close += [known for known in cities[city] if known not in close]
    return close[:count]


def _day(moment: datetime) -> str:
    return f"{_DAYS[moment.weekday()]} {moment.day} {_MONTHS[moment.month - 1]}"


def local_minute(moment: datetime, zone: str | None) -> str:
    """``moment`` (in UTC) as a player in ``zone`` is shown it: their local
    time with weekday and abbreviation, and UTC beside it; with no zone (or
    one this machine does not know), as gm always wrote it."""
    where = zone_named(zone) if zone is not None else None
    if where is None:
        return utc_minute(moment)
    local, utc = moment.astimezone(where), moment.astimezone(UTC)
    beside = f"{utc:%H:%M} UTC" if utc.date() == local.date() else f"{_day(utc)} {utc:%H:%M} UTC"
    return f"{_day(local)} {local:%H:%M} {local.tzname()} ({beside})"


def clock_time(moment: datetime, zone: str | None) -> str:
    """The time of day of ``moment`` in ``zone``, as ``07:00 CET`` (UTC
    with no zone): how the note of a deadline moved out of quiet hours
    names the time it was moved to."""
    where = zone_named(zone) if zone is not None else None
    local = moment.astimezone(where or UTC)
    return f"{local:%H:%M} {local.tzname() if where is not None else 'UTC'}"


@dataclass(frozen=True)
class Quiet:
    """One player's quiet hours: from ``start`` to ``end`` on their wall
    clock in ``zone`` (None: UTC); ``start`` after ``end`` spans midnight."""

    player: int
    start: time
    end: time
    zone: str | None = None

    def holds(self, moment: datetime) -> bool:
        """Whether ``moment`` falls inside these quiet hours."""
        where = zone_named(self.zone) if self.zone is not None else None
        wall = moment.astimezone(where or UTC).time().replace(tzinfo=None)
        if self.start <= self.end:
            return self.start <= wall < self.end
        return wall >= self.start or wall < self.end

    def after(self, moment: datetime) -> datetime:
        """The end of the quiet hours ``moment`` falls in: the first whole
        minute after it that is out of them (on the wall clock, so across
        a change of daylight saving time too); ``moment`` itself if it falls
        in none."""
        if not self.holds(moment):
            return moment
        step = moment.replace(second=0, microsecond=0) + _STEP
        while self.holds(step):
            step += _STEP
        return step


def out_of_quiet(deadline: datetime, quiets: Sequence[Quiet]) -> tuple[datetime, tuple[int, ...]]:
    """The deadline moved out of every quiet hours in ``quiets``, and the
    players whose quiet hours moved it (in order of their seats): each
    round moves it to the latest end among the quiet hours it falls in,
    until it falls in none. If no such moment comes within `SEARCH`, the
    deadline stays as asked (and no player moved it)."""
    moved, movers = deadline, set[int]()
    while True:
        inside = [quiet for quiet in quiets if quiet.holds(moved)]
        if not inside:
            return moved, tuple(sorted(movers))
        moved = max(quiet.after(moved) for quiet in inside)
        movers.update(quiet.player for quiet in inside)
        if moved - deadline > SEARCH:
            return deadline, ()


def quiet_span(start: time, end: time) -> timedelta:
    """How long quiet hours from ``start`` to ``end`` last on a day without
    a change of clocks."""
    length = datetime.combine(datetime.min, end) - datetime.combine(datetime.min, start)
    return length if length > timedelta(0) else length + timedelta(days=1)
