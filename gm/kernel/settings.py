"""A player's own settings, the same in every game they play (issue 24).

A player sets them by mail to the GM's own address (`gm.pbem.answers.settings`);
the GM keeps them beside the games (`gm.pbem.data.settings`) and records them
in each game the player is in as a ``settings`` event (`SettingsChanged`), so
that a game's mail depends only on its own archive and replays byte for byte.
Here are the values and what a game does when they change; what each setting
does to a game's mail lives with the feature (local time in `gm.kernel.shown`,
quiet hours, calendar parts, reminders).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import time

REMINDERS = ("each", "digest", "off")
"""How a player is reminded of the orders a game waits for: a reminder per
game (``each``, what gm always did), one daily ``digest`` of every game that
waits, or ``off``."""

_QUIET = re.compile(r"^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$")


def quiet_text(quiet: tuple[time, time]) -> str:
    """Quiet hours as written: ``23:00-07:00``."""
    return f"{quiet[0].strftime('%H:%M')}-{quiet[1].strftime('%H:%M')}"


def parse_quiet(text: str) -> tuple[time, time]:
    """``23:00-07:00`` as two local times; ValueError, worded for the player,
    when it is not that shape or names no time of day, or the two are equal."""
    found = _QUIET.match(text.strip().replace(" ", ""))
    if not found:
        raise ValueError(f"{text.strip()!r}: write the quiet hours as HH:MM-HH:MM, such as 23:00-07:00")
    hours = int(found[1]), int(found[3])
    minutes = int(found[2]), int(found[4])
    if max(hours) > 23 or max(minutes) > 59:
        raise ValueError(f"{text.strip()!r}: a time of day runs from 00:00 to 23:59")
    start, end = time(hours[0], minutes[0]), time(hours[1], minutes[1])
    if start == end:
        raise ValueError(f"{text.strip()!r}: the quiet hours must end at another time than they start")
    return start, end


@dataclass(frozen=True)
class PlayerSettings:
    """What one player set; the defaults are what gm did before settings."""

    zone: str | None = None
    """An IANA time zone name (``Europe/Berlin``); None shows UTC only."""
    quiet: tuple[time, time] | None = None
    """Local hours (start, end; the end may be the next day) in which no
    deadline of the player's games falls."""
    reminders: str = "each"
    """One of `REMINDERS`."""
    deputy: str | None = None
    """The address of the player's confirmed deputy, who may play their seats."""

    def fields(self) -> dict[str, str]:
        """The settings that differ from the default, by the names players
        write them with, in a fixed order (as archived and recorded)."""
        out: dict[str, str] = {}
        if self.zone is not None:
            out["timezone"] = self.zone
        if self.quiet is not None:
            out["quiet"] = quiet_text(self.quiet)
        if self.reminders != "each":
            out["reminders"] = self.reminders
        if self.deputy is not None:
            out["deputy"] = self.deputy
        return out

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> PlayerSettings:
        """The settings ``fields`` wrote; names it does not know are ignored,
        so that a record written by a later gm still reads."""
        settings = cls()
        if fields.get("timezone"):
            settings = replace(settings, zone=fields["timezone"].strip())
        if fields.get("quiet"):
            settings = replace(settings, quiet=parse_quiet(fields["quiet"]))
        if fields.get("reminders", "").strip() in REMINDERS:
            settings = replace(settings, reminders=fields["reminders"].strip())
        if fields.get("deputy"):
            settings = replace(settings, deputy=fields["deputy"].strip())
        return settings

    def lines(self) -> list[str]:
        """``name: value`` lines of `fields`, as a ``settings`` event's body holds them."""
        return [f"{name}: {value}" for name, value in self.fields().items()]


DEFAULT = PlayerSettings()
