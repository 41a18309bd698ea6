"""A tournament as a value: who entered, which rounds were paired, what each
game gave, and so who plays whom next, who withdrew, and when it is over.

The mail edge keeps a tournament's record and its rounds' pairings and
reads each game's result from its archive; everything here is a pure
function of those, so a tournament rebuilt from the archives pairs, scores
and withdraws exactly as the live one did.

- Round-robin: every round comes from the circle method (`round_robin`)
  over the entrants in the order they entered; an odd field gives one bye
  a round.
- Swiss: each round is `swiss_round` over the entrants still in, ordered by
  points, then rating; `planned_rounds` says how many (the operator's
  number, else ceil(log2(entrants)) + 1, never more than a round-robin
  would have). It ends early when no round can be paired without a rematch.
- A bye scores a win. A game a seat lost by missed turns is a forfeit; an
  entrant with `WITHDRAW_AFTER` forfeits is withdrawn: a Swiss pairs them no
  more, and a round-robin starts none of their later games and scores each
  as their loss (a game between two withdrawn entrants, or a withdrawn
  entrant's bye, is not played and scores nothing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from .pairing import NoPairing, Pairing, Result, round_robin, swiss_round
from .standings import System

WITHDRAW_AFTER = 2
"""Forfeits after which an entrant is withdrawn."""


@dataclass(frozen=True)
class Played:
    """One pairing of a round as it stands: a game, a bye, or a game not played."""

    round: int
    first: str
    second: str | None
    """None: a bye."""
    game_id: str | None = None
    """None: a bye, or a game not started because an entrant had withdrawn."""
    points_first: float | None = None
    """None while the game is being played."""
    forfeited: tuple[str, ...] = ()
    """The entrants who lost this game by missed turns."""

    @property
    def result(self) -> Result | None:
        return None if self.points_first is None else Result(self.first, self.second, self.points_first)


def planned_rounds(system: System, entrants: int, asked: int | None = None) -> int:
    """How many rounds a tournament of ``entrants`` plays (see the module)."""
    most = entrants - 1 if entrants % 2 == 0 else entrants
    if system is System.ROUND_ROBIN:
        return max(most, 0)
    wanted = asked if asked is not None else math.ceil(math.log2(max(entrants, 2))) + 1
    return max(0, min(wanted, most))


def withdrawn(played: Sequence[Played]) -> frozenset[str]:
    """The entrants with `WITHDRAW_AFTER` forfeits or more."""
    count: dict[str, int] = {}
    for game in played:
        for entrant in game.forfeited:
            count[entrant] = count.get(entrant, 0) + 1
    return frozenset(e for e, n in count.items() if n >= WITHDRAW_AFTER)


def results(played: Sequence[Played]) -> list[Result]:
    """The results so far, byes and games not played included."""
    return [r for r in (game.result for game in played) if r is not None]


def next_round(system: System, entrants: Sequence[str], number: int, rounds: int,
               ratings: Mapping[str, float], played: Sequence[Played]) -> tuple[Played, ...] | None:
    """Round ``number``'s pairings as `Played` (byes and games not played
    already scored, games to start without a result or id), or None when
    the tournament is over instead."""
    if number > rounds:
        return None
    out = withdrawn(played)
    if system is System.ROUND_ROBIN:
        pairs: Sequence[Pairing] = round_robin(entrants)[number - 1]
    else:
        still = [e for e in entrants if e not in out]
        if len(still) < 2:
            return None
        try:
            pairs = swiss_round(still, ratings, results(played))
        except NoPairing:
            return None
    return tuple(_scheduled(number, pair, out) for pair in pairs
                 if pair.first not in out or (pair.second is not None and pair.second not in out))


def _scheduled(number: int, pair: Pairing, out: frozenset[str]) -> Played:
    if pair.second is None:
        return Played(number, pair.first, None, points_first=1.0)
    if pair.first in out or pair.second in out:
        return Played(number, pair.first, pair.second, points_first=0.0 if pair.first in out else 1.0)
    return Played(number, pair.first, pair.second)


def finished_round(games: Sequence[Played]) -> bool:
    """Whether every game of a round has ended."""
    return all(game.points_first is not None for game in games)


def round_ended_at(games: Sequence[Played], ended: Mapping[str, datetime], started: datetime) -> datetime:
    """When a finished round ended: its last game's end, or its start when it had no game."""
    moments = [ended[g.game_id] for g in games if g.game_id is not None and g.game_id in ended]
    return max([started, *moments])
