"""Whole numbers in what players write, read to one limit by every game.

Python's ``int()`` reads at most 4,300 digits from text (its default guard
against slow conversions, ``sys.int_info.default_max_str_digits``) and
raises a ValueError beyond, which no game expects of text its grammar has
accepted: one long number in an order made the whole mail fail. So every
game reads a number of more than `MAX_DIGITS` digits as too large, and
answers the line that holds it as it answers any other slip there ("number
too large"), keeping the mail's other lines. No count in any game comes
near such a number, and a number of up to `MAX_DIGITS` digits reads as it
always did, so that every archive replays as it was played.
"""

from __future__ import annotations

MAX_DIGITS = 4300
"""The most digits a number may have: Python's default limit."""

TOO_LARGE = "number too large"
"""What a game answers a number of more than `MAX_DIGITS` digits with."""


def too_large(digits: str) -> bool:
    """Whether ``digits`` writes a number of more than `MAX_DIGITS` digits."""
    return len(digits) > MAX_DIGITS


def whole_number(text: str) -> int | None:
    """The number ``text`` writes in decimal digits (of any script, as
    ``int()`` reads them), or None when it writes none: empty, another
    character than a digit (a superscript ² is no decimal digit, though
    ``str.isdigit`` says it is a digit), or `too_large`."""
    if not text.isdecimal() or too_large(text):
        return None
    return int(text)
