"""What the GM commits to in a game of Spaceships, and a record played
again as one player was told it, for ``gm verify`` (docs/verification.md).

A side's setup is committed once both are in and the game begins: its lines
as the record writes them (``DS Rv1-Ow2``), one a line, in the order the
player sent them, each ended by a line feed, UTF-8. Of a match's later
games, the labels say which game (``game-2-setup-1``).
"""

from __future__ import annotations

from ...kernel.commitments import text_value
from ...kernel.outcomes import Replayed
from .events import TurnReport
from .notation import parse_record
from .orders import Placement
from .referee import referee
from .sheets import happened


def setup_label(player: int, series: int = 1) -> str:
    """The label of ``player``'s setup in game ``series`` of a match (1: no match)."""
    return f"setup-{player}" if series == 1 else f"game-{series}-setup-{player}"


def setup_value(placements: list[Placement]) -> bytes:
    """A setup's canonical serialisation."""
    return text_value([str(p) for p in placements])


def told(report: TurnReport, player: int) -> tuple[str, ...]:
    """The lines of ``player``'s sheet on what turn ``report`` did
    (turn_sheet.txt's section "What happened in turn N")."""
    seen = happened(report, player)
    return (f"== What happened in turn {seen['turn']} ({seen['first']} reported first) ==",
            *(f"  {line}" for line in seen["lines"] or ["Nothing was announced."]),
            *(f"  The beam weapon of your {b} burnt out [8.2.4]." for b in seen["burn_outs"]))


def replayed(record: str, player: int) -> Replayed:
    """``record`` refereed under its rules, as ``player`` was told it."""
    parsed = parse_record(record)
    outcome = referee(parsed)
    return Replayed(tuple((setup_label(p), setup_value(parsed.setups[p - 1])) for p in (1, 2)),
                    tuple((f"turn {report.turn}", told(report, player)) for report in outcome.reports))
