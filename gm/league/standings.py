"""A tournament's standings: points, then the usual tie-break.

Round-robin tournaments break ties by Sonneborn-Berger (the points of the
opponents one beat, and half the points of those one drew with), Swiss ones
by Buchholz (the sum of one's opponents' points). A bye scores a win and
adds nothing to either tie-break: it had no opponent. Entrants equal on
both share a place (shown "=2").
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from .pairing import Result, points


class System(enum.Enum):
    """How a tournament is paired (and so which tie-break it uses)."""

    ROUND_ROBIN = "round-robin"
    SWISS = "swiss"

    @property
    def tiebreak(self) -> str:
        return "Sonneborn-Berger" if self is System.ROUND_ROBIN else "Buchholz"


@dataclass(frozen=True)
class Standing:
    """One entrant's line of the standings."""

    place: int
    shared: bool
    """Another entrant has the same place."""
    entrant: str
    points: float
    tiebreak: float
    played: int
    """Games played, byes not counted."""
    won: int
    drawn: int
    lost: int

    @property
    def place_text(self) -> str:
        return f"={self.place}" if self.shared else str(self.place)


def standings(entrants: Sequence[str], results: Sequence[Result], system: System) -> tuple[Standing, ...]:
    """The standings of ``entrants`` (every one who ever entered) after ``results``, best first."""
    score = points(results)
    tiebreak = dict.fromkeys(entrants, 0.0)
    played = dict.fromkeys(entrants, 0)
    won, drawn, lost = dict.fromkeys(entrants, 0), dict.fromkeys(entrants, 0), dict.fromkeys(entrants, 0)
    for r in results:
        if r.second is None:
            continue
        for me, other, mine in ((r.first, r.second, r.points_first), (r.second, r.first, r.points_second)):
            played[me] += 1
            (won if mine == 1 else drawn if mine == 0.5 else lost)[me] += 1
            weight = mine if system is System.ROUND_ROBIN else 1
            tiebreak[me] += weight * score.get(other, 0)
    order = sorted(entrants, key=lambda e: (-score.get(e, 0), -tiebreak[e], e))
    key = {e: (score.get(e, 0), tiebreak[e]) for e in entrants}
    places: dict[str, int] = {}
    for index, entrant in enumerate(order):
        before = order[index - 1] if index else None
        places[entrant] = places[before] if before is not None and key[before] == key[entrant] else index + 1
    counts = {place: list(places.values()).count(place) for place in places.values()}
    return tuple(Standing(places[e], counts[places[e]] > 1, e, score.get(e, 0), tiebreak[e], played[e],
                          won[e], drawn[e], lost[e]) for e in order)
