"""Small text helpers every game's mail uses: wrapping and time spans."""

from __future__ import annotations

import functools
import textwrap
from datetime import timedelta

MAX_KEPT_TEXT = 512
"""The longest text whose wrapping `wrap` keeps for the next time it is asked."""


def wrap(text: str, first: str = "", rest: str = "", width: int = 76) -> list[str]:
    """Lines of at most ``width`` characters, for mail clients' narrow windows.
    A short text is wrapped once: the same lines (a ship's beams, a legend)
    come back in sheet after sheet."""
    if len(text) <= MAX_KEPT_TEXT:
        return list(_wrapped(text, first, rest, width))
    return _wrap(text, first, rest, width)


@functools.lru_cache(maxsize=2048)
def _wrapped(text: str, first: str, rest: str, width: int) -> tuple[str, ...]:
    return tuple(_wrap(text, first, rest, width))


def _wrap(text: str, first: str, rest: str, width: int) -> list[str]:
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
