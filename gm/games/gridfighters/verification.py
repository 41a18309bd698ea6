"""What the GM commits to in a game of Grid Fighters, and a record played
again as one player was told it, for ``gm verify`` (docs/verification.md).

A side's setup is committed once both are in and the game begins: one line
per piece, ``PIECE SQUARE`` (``Z2 E5``), in the order the player placed them,
each ended by a line feed, UTF-8.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...kernel.commitments import text_value
from ...kernel.outcomes import Replayed
from .notation import Placement, parse_record
from .referee import referee
from .sheets import happened


def setup_value(placements: Sequence[Placement]) -> bytes:
    """A setup's canonical serialisation."""
    return text_value([f"{x.piece} {x.square}" for x in placements])


def replayed(record: str, player: int) -> Replayed:
    """``record`` refereed under its rules, as ``player`` was told each move
    (turn_sheet.txt's "Move N:" and the lines under it)."""
    parsed = parse_record(record)
    outcome = referee(parsed)
    turns = []
    for entry in outcome.entries:
        if entry.report is not None:
            seen = happened(entry.report, player)
            turns.append((f"move {seen['n']}", (f"Move {seen['n']}:", *(f"  {line}" for line in seen["lines"]))))
    return Replayed(tuple((f"setup-{p}", setup_value(parsed.setups[p - 1])) for p in (1, 2)), tuple(turns))
