"""Time in words, read and written the same way everywhere in gm: a length
of time typed by a person (``72h``, ``+24h``) and a moment to the minute
(``2026-12-01 12:00 UTC``). It imports nothing of gm, so every layer may use it.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_DURATION = re.compile(r"\+?(\d+(?:\.\d*)?|\.\d+)([dhms])", re.ASCII)
_UNITS = {"d": "days", "h": "hours", "m": "minutes", "s": "seconds"}


def parse_duration(text: str, example: str = "72h") -> timedelta:
    """A number and a unit: ``72h``, ``3d``, ``90m``, ``45s``, ``1.5h``.

    A leading ``+`` (the owner's ``deadline g1 +24h``), capitals and spaces
    around are let through. ValueError otherwise, worded for the person who
    typed it, offering ``example`` first (what suits the question asked)."""
    found = _DURATION.fullmatch(text.strip().lower())
    if not found:
        raise ValueError(f"{text!r}: give a number and a unit, such as {example}, 3d or 90m")
    try:
        return timedelta(**{_UNITS[found[2]]: float(found[1])})
    except OverflowError:
        raise ValueError(f"{text!r}: too long, give at most {timedelta.max.days} days") from None


def utc_minute(moment: datetime) -> str:
    """A moment to the minute, as mail, sheets and listings write it:
    ``2026-12-01 12:00 UTC``. ``moment`` is in UTC already, as gm keeps
    every moment."""
    return moment.strftime("%Y-%m-%d %H:%M UTC")
