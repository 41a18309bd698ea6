"""The terms of a seek that fills its empty seats with robots (issue 25): a
seek for a game of more than two seats (Celestial Empire) for K empires,
which people join by mail until its fill time; then the game begins with
the seeker, those who joined and the GM's robots in the seats nobody took.

    seek celestial-empire
    empires 6              (2 to 9; the game's most if not said)
    fill 2026-12-01        (or 2026-12-01 18:00, or a time from now: 3d, 12h, 90m, 30s)
    level hard             (the robots'; normal if not said)
    take-over easy         (the robot's that takes over a silent empire; normal if not said)

A date (and time) is in the seeker's own time zone (their ``timezone``
setting), else UTC; a date alone means its first minute. Pure: the moment
the seek was posted and the zone are given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ..kernel.clock import parse_duration
from ..kernel.protocol import GameRules
from ..kernel.zones import zone_named

LONGEST_FILL = timedelta(days=30)
"""How far after the seek its fill time may be."""
_EMPIRES = re.compile(r"^\s*empires\s+(\d{1,2})\s*$", re.I | re.M)
_FILL = re.compile(r"^\s*fill\s+(.+?)\s*$", re.I | re.M)
_LEVEL = re.compile(r"^\s*level\s+(\S+)\s*$", re.I | re.M)
_TAKE_OVER = re.compile(r"^\s*take-over\s+(\S+)\s*$", re.I | re.M)
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[ T](\d{1,2}:\d{2}))?")


@dataclass(frozen=True)
class FillTerms:
    """What a filling seek asks for beyond a seek's own terms."""

    seats: int
    """How many empires the game has: the seeker's, those who join, the robots'."""
    fill: datetime
    """When the game begins, in UTC: the seats nobody took by then are the robots'."""
    level: str
    """The robots' level."""
    take_over: str
    """The level of the robot that takes over a silent empire ("" for the default)."""


def wants_fill(rules: GameRules[Any]) -> bool:
    """Whether a seek for this game is a filling one (a game of more than two seats, with robots)."""
    return max(rules.seats) > 2


def parse_fill(rules: GameRules[Any], text: str, at: datetime, zone: str | None) -> FillTerms:
    """The filling terms of a seek for ``rules``' game posted at ``at`` by a
    seeker in ``zone`` (None: UTC); ValueError with the reason, in words for
    the seeker."""
    if not rules.robot_levels:
        raise ValueError(f"a seek for {rules.title} fills its seats with robots, and it has none")
    found = _EMPIRES.search(text)
    most = max(rules.seats)
    seats = int(found.group(1)) if found else most
    if not 2 <= seats <= most:
        raise ValueError(f"empires {seats}: a game of {rules.title} has 2 to {most}")
    found = _FILL.search(text)
    if not found:
        raise ValueError("say when the seats nobody took go to the GM's robots: a line 'fill' and a date "
                         "(fill 2026-12-01, or fill 2026-12-01 18:00, in your time zone) or a time from now "
                         "(fill 3d)")
    fill = fill_moment(found.group(1), at, zone)
    level = _level(rules, _LEVEL, text, "level") or "normal"
    take_over = _level(rules, _TAKE_OVER, text, "take-over") or ""
    return FillTerms(seats, fill, level, take_over)


def fill_moment(text: str, at: datetime, zone: str | None) -> datetime:
    """The moment ``fill TEXT`` names, in UTC: a date (and time of day) in
    ``zone`` (UTC if None), or a time after ``at``; ValueError unless it is
    after ``at`` and at most `LONGEST_FILL` later."""
    dated = _DATE.fullmatch(text.strip())
    if dated:
        where = (zone_named(zone) if zone else None) or UTC
        try:
            local = datetime.fromisoformat(f"{dated.group(1)}T{dated.group(2) or '00:00'}")
        except ValueError:
            raise ValueError(f"fill {text}: no such date") from None
        moment = local.replace(tzinfo=where).astimezone(UTC)
    else:
        try:
            moment = at + parse_duration(text, "3d")
        except ValueError as error:
            raise ValueError(f"fill {error}, or a date such as 2026-12-01") from None
    if not at < moment <= at + LONGEST_FILL:
        raise ValueError(f"fill {text}: give a time after now and at most {LONGEST_FILL.days} days ahead")
    return moment


def _level(rules: GameRules[Any], pattern: re.Pattern[str], text: str, what: str) -> str | None:
    found = pattern.search(text)
    if not found:
        return None
    level = found.group(1).lower()
    if level not in rules.robot_levels:
        raise ValueError(f"{what} {level[:20]}: the robot's levels are {', '.join(rules.robot_levels)}")
    return level
