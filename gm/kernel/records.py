"""Refereeing a whole game record, for any game: the dispatch behind ``gm referee``.

A record may open with a ``game NAME`` line (after blank lines and ``;``
comments); a record without one is a Spaceships record, as every record was
before gm hosted other games. The line is blanked, not removed, so that the
game's own reader names the lines the author wrote.
"""

from __future__ import annotations

import re

from .errors import RecordError
from .protocol import Refereed, game_named
from .values import DEFAULT_GAME

EXIT_LEGAL = 0
EXIT_REJECTED = 1
EXIT_UNREADABLE = 2

_GAME_LINE = re.compile(r"^\s*game\s+(\S+)\s*(;.*)?$", re.I)


def game_of_record(text: str) -> tuple[str | None, str]:
    """The game a record names (None when it names none), and the record with
    that line blanked."""
    lines = text.split("\n")
    for number, line in enumerate(lines):
        bare = line.split(";", 1)[0].strip()
        if not bare:
            continue
        found = _GAME_LINE.match(line)
        if found is None:
            return None, text
        lines[number] = ""
        return found.group(1).lower(), "\n".join(lines)
    return None, text


def referee_record(text: str) -> Refereed:
    """Referee a record of whichever game it names; raises `RecordError` (or
    the game's `NotationError`) when it cannot be read."""
    name, body = game_of_record(text)
    try:
        rules = game_named(name or DEFAULT_GAME)
    except ValueError as error:
        raise RecordError(f"line 1: {error}") from None
    return rules.referee(body)
