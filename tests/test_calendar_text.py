"""A deadline's calendar part (`gm.pbem.writing.calendar`) is written by gm
itself for plain games, at a fraction of what the ``icalendar`` package
costs (issue 27: it was a sixth of `gm replay`'s time), and must be the
package's text to the byte, whatever the game, names, times and alarm:
anything the fast writer does not write as the package does (escapes,
quotes, folds, time zones) is left to the package."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import icalendar
import pytest

from gm.kernel.values import CalendarEvent
from gm.pbem.writing import calendar

SUMMARIES = [
    "Spaceships g1: deadline for turn 1",
    "Celestial Empire g12: orders for turn 7 (Grok)",
    "x",
    "a, b; c",
    "back\\slash",
    'say "hi"',
    "it's due: now!",
    "Zoë's turn",
    "tab\there",
    "line\nbreak",
    *("w" * n for n in range(58, 70)),  # SUMMARY: and DESCRIPTION: lines around the fold at 75 octets
]
NAMES = ["Spaceships GM", "GM", "Grid Fighters GM", "O'Brien's GM", "Ann: GM", 'a "b"', "Zoë GM", "^x", "a,b",
         "back\\slash GM", "(the) GM", "n" * 70]
ORGANIZERS = ["gm@example.org", "g.m+x@mail.example.net", "gm;x@example.org", "o" * 60 + "@example.org"]
ALARMS = [timedelta(hours=12), timedelta(0), timedelta(days=1), timedelta(minutes=90),
          timedelta(days=1, minutes=30, seconds=5), timedelta(seconds=45), timedelta(hours=1, seconds=5),
          timedelta(hours=2, microseconds=500_000), timedelta(days=8), -timedelta(hours=3)]
AT = datetime(2026, 11, 26, 23, 16, 6, 250_000, tzinfo=UTC)
ZONES = [UTC, timezone(timedelta(0)), timezone(timedelta(0), "UTC"), ZoneInfo("UTC"), ZoneInfo("Europe/Berlin"),
         timezone(timedelta(hours=-5))]


def both(event: CalendarEvent, game, player: int = 1, organizer: str = "gm@example.org",
         name: str = "Spaceships GM", domain: str = "example.org", at: datetime = AT) -> tuple[str, str]:
    args = (event, game, player, organizer, name, domain, at)
    return calendar.ical(*args), calendar._by_package(*args)


def game(id: str = "g1", instance: str | None = "cd2c99b5df"):
    return SimpleNamespace(id=id, instance=instance)


def event(summary: str = SUMMARIES[0], alarm: timedelta = ALARMS[0], cancelled: bool = False,
          start: datetime = datetime(2026, 12, 26, 23, 16, 6, 999_999, tzinfo=UTC), sequence: int = 1):
    return CalendarEvent(sequence, start, summary, alarm, cancelled)


@pytest.mark.parametrize("summary", SUMMARIES)
@pytest.mark.parametrize("cancelled", [False, True])
def test_every_summary_is_written_as_the_package_writes_it(summary, cancelled):
    ours, package = both(event(summary, cancelled=cancelled), game())
    assert ours == package


@pytest.mark.parametrize(("name", "organizer"), list(itertools.product(NAMES, ORGANIZERS)))
def test_every_organizer_is_written_as_the_package_writes_it(name, organizer):
    ours, package = both(event(), game(), organizer=organizer, name=name)
    assert ours == package


@pytest.mark.parametrize("alarm", ALARMS)
def test_every_alarm_is_written_as_the_package_writes_it(alarm):
    ours, package = both(event(alarm=alarm), game())
    assert ours == package


@pytest.mark.parametrize(("start_zone", "at_zone"), list(itertools.product(ZONES, ZONES)))
def test_times_in_any_zone_are_written_as_the_package_writes_them(start_zone, at_zone):
    start = datetime(2027, 3, 28, 1, 30, 0, 1, tzinfo=start_zone)
    ours, package = both(event(start=start), game(), at=AT.astimezone(at_zone))
    assert ours == package


@pytest.mark.parametrize(("ident", "instance", "player", "domain", "sequence"), [
    ("g1", "cd2c99b5df", 1, "example.org", 0), ("g12345", None, 2, "mail.example.net", 12345),
    ("g1", "a,b", 1, "example.org", 3), ("g7", "t" * 40, 9, "d" * 30 + ".example", 1),
    ("g9", None, 3, "ex;ample.org", 2), ("g1", "tag", 1, "example.org", -1),
])
def test_every_uid_and_sequence_is_written_as_the_package_writes_it(ident, instance, player, domain, sequence):
    ours, package = both(event(sequence=sequence), game(ident, instance), player=player, domain=domain)
    assert ours == package


def test_a_plain_games_calendar_part_is_written_without_the_package(monkeypatch):
    expected = {cancelled: calendar.ical(event(cancelled=cancelled), game(), 2, "gm@example.org", "Spaceships GM",
                                         "example.org", AT) for cancelled in (False, True)}

    def refused(*args, **kwargs):
        raise AssertionError("the icalendar package was asked to write a plain game's calendar part")

    for name in ("to_ical", "add", "add_component"):
        monkeypatch.setattr(icalendar.Calendar, name, refused)
    for cancelled in (False, True):
        assert calendar.ical(event(cancelled=cancelled), game(), 2, "gm@example.org", "Spaceships GM",
                             "example.org", AT) == expected[cancelled]
