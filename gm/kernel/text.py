"""Small text helpers every game's mail uses: wrapping and time spans."""

from __future__ import annotations

import textwrap
from datetime import timedelta


def wrap(text: str, first: str = "", rest: str = "", width: int = 76) -> list[str]:
    """Lines of at most ``width`` characters, for mail clients' narrow windows."""
    return textwrap.wrap(text, width, initial_indent=first, subsequent_indent=rest, break_on_hyphens=False) or [first]


def span(delta: timedelta) -> str:
    """A time left, in words: "2 days 3 hours", "40 minutes"."""
    seconds = max(0, int(delta.total_seconds()))
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes = seconds // 60
    parts = [f"{days} day{'s' * (days != 1)}"] if days else []
    if hours:
        parts.append(f"{hours} hour{'s' * (hours != 1)}")
    if not days and minutes:
        parts.append(f"{minutes} minute{'s' * (minutes != 1)}")
    return " ".join(parts) or "less than a minute"
