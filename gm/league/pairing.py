"""Who plays whom in a tournament's round: round-robin by the circle method,
Swiss by score and rating with no pair twice.

Entrants are opaque keys (the mail edge uses addresses; nothing here shows
them). A pairing's ``first`` takes the first seat (player 1: Spaceships'
first fleet, Grid Fighters' first side), the counterpart of white in chess,
and both systems balance first seats. Everything is deterministic: the same
entrants, ratings and results always give the same round, so a tournament
rebuilt from its games' archives pairs exactly as it did.

The Swiss pairing is Monrad's (the one Scandinavian chess uses): rank the
entrants by points, then rating, then key; the best unpaired entrant meets
the next one in that order they have not met yet, backtracking when a later
entrant would be left with nobody. A library was passed over: the FIDE Dutch
system's implementations (bbpPairings, JaVaFo) are programs in C++ and Java,
not Python libraries, and their rules (colour preferences over floats,
absolute colour criteria) are for over-the-board chess, not for games
played by mail where a seat matters less than meeting new opponents.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Pairing:
    """One game of a round, or a bye (``second`` None: ``first`` sits out and scores a win)."""

    first: str
    second: str | None


@dataclass(frozen=True)
class Result:
    """A finished game of a tournament (or a bye), as the standings count it."""

    first: str
    second: str | None
    points_first: float
    """1 for a win of ``first``, 0.5 for a draw, 0 for a loss; 1 for a bye."""

    @property
    def points_second(self) -> float:
        return 1 - self.points_first


class NoPairing(ValueError):
    """No round can be paired without two entrants meeting again."""


def round_robin(entrants: Sequence[str]) -> tuple[tuple[Pairing, ...], ...]:
    """Every round of a round-robin, by the circle method (Berger's tables).

    With an odd number of entrants one of them sits out each round (a bye).
    Each entrant has the first seat in half their games, rounded either way.
    """
    players: list[str | None] = list(entrants)
    if len(set(players)) != len(players):
        raise ValueError("an entrant may enter once")
    if len(players) % 2:
        players.append(None)
    n = len(players)
    fixed, rest = players[-1], players[:-1]
    rounds = []
    for number in range(n - 1):
        table = rest[number:] + rest[:number]
        pairs = [(table[0], fixed) if number % 2 == 0 else (fixed, table[0])]
        pairs += [(table[k], table[n - 1 - k]) for k in range(1, n // 2)]
        rounds.append(tuple(_pairing(a, b) for a, b in pairs))
    return tuple(rounds)


def _pairing(a: str | None, b: str | None) -> Pairing:
    if a is None:
        assert b is not None
        return Pairing(b, None)
    return Pairing(a, b)


def points(results: Sequence[Result]) -> dict[str, float]:
    """Each entrant's points: a win (or a bye) 1, a draw half, a loss 0."""
    total: dict[str, float] = {}
    for result in results:
        total[result.first] = total.get(result.first, 0) + result.points_first
        if result.second is not None:
            total[result.second] = total.get(result.second, 0) + result.points_second
    return total


def swiss_round(entrants: Sequence[str], ratings: Mapping[str, float],
                results: Sequence[Result]) -> tuple[Pairing, ...]:
    """The next round of a Swiss tournament (Monrad's pairing, see the module).

    ``entrants`` are those still playing; ``results`` every game and bye so
    far. With an odd number, the lowest-ranked entrant without a bye yet sits
    out. Raises `NoPairing` when every way of pairing would repeat a game.
    """
    score = points(results)
    ranked = sorted(entrants, key=lambda e: (-score.get(e, 0), -ratings.get(e, 0), e))
    met = {frozenset((r.first, r.second)) for r in results if r.second is not None}
    had_bye = {r.first for r in results if r.second is None}
    byes: list[str | None] = [None]
    if len(ranked) % 2:
        byes = [e for e in reversed(ranked) if e not in had_bye] or list(reversed(ranked))
    for bye in byes:
        pairs = _match([e for e in ranked if e != bye], met)
        if pairs is not None:
            seats = _first_seats(results)
            games = [_seated(a, b, seats, results) for a, b in pairs]
            return tuple(games + ([Pairing(bye, None)] if bye is not None else []))
    raise NoPairing("every pairing of this round would have two entrants meet again")


def _match(ranked: list[str], met: set[frozenset[str]]) -> list[tuple[str, str]] | None:
    """Pair ``ranked`` best first with the next one not met, backtracking."""
    if not ranked:
        return []
    top, rest = ranked[0], ranked[1:]
    for partner in rest:
        if frozenset((top, partner)) in met:
            continue
        others = _match([e for e in rest if e != partner], met)
        if others is not None:
            return [(top, partner), *others]
    return None


def _first_seats(results: Sequence[Result]) -> dict[str, int]:
    """First seats minus second seats so far, per entrant (byes count for neither)."""
    balance: dict[str, int] = {}
    for r in results:
        if r.second is not None:
            balance[r.first] = balance.get(r.first, 0) + 1
            balance[r.second] = balance.get(r.second, 0) - 1
    return balance


def _seated(a: str, b: str, balance: Mapping[str, int], results: Sequence[Result]) -> Pairing:
    """The first seat to whoever had it less; then to whoever had the second seat last; then the higher ranked."""
    if balance.get(a, 0) != balance.get(b, 0):
        return Pairing(a, b) if balance.get(a, 0) < balance.get(b, 0) else Pairing(b, a)
    last = {}
    for r in results:
        if r.second is not None:
            last[r.first], last[r.second] = "first", "second"
    if last.get(a) == "first" and last.get(b) != "first":
        return Pairing(b, a)
    return Pairing(a, b)
