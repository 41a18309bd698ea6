"""Checking a Grid Fighters setup [setup].

Each player places every one of their pieces exactly once, within their own
rows; asteroids and home planets each stand alone on their square, while
fighters may share squares with one another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import IMMOBILE, KIND_NAMES, home_rows, in_territory, kind
from .notation import Placement
from .variants import Variant


@dataclass(frozen=True)
class SetupProblem:
    """Why a setup is illegal: ``line`` is the placement's line in the text
    it was read from (None when the problem is the whole setup's)."""

    player: int
    line: int | None
    reason: str


class SetupError(ValueError):
    """One or both setups are illegal; ``problems`` says every reason."""

    def __init__(self, problems: Sequence[SetupProblem]):
        self.problems = tuple(problems)
        super().__init__("; ".join(
            f"setup {p.player}: " + (f"line {p.line}: " if p.line is not None else "") + p.reason
            for p in self.problems))


def setup_problems(player: int, placements: Sequence[Placement], variant: Variant) -> list[SetupProblem]:
    """Everything wrong with one player's setup; empty when it is legal."""
    problems: list[SetupProblem] = []
    pieces = variant.pieces
    rows = home_rows(player)
    seen: dict[str, Placement] = {}
    for p in placements:
        if p.piece not in pieces:
            if kind(p.piece) == "H":
                right = "H" if variant.homes == 1 else "H1, H2 and H3"
                reason = (f"{p.piece} is not a piece in this variant: "
                          f"the home planet{'s are' if variant.homes > 1 else ' is'} {right}")
            else:
                reason = f"{p.piece} is not a piece in this variant"
            problems.append(SetupProblem(player, p.line, reason + " [setup]"))
            continue
        if p.piece in seen:
            problems.append(SetupProblem(player, p.line,
                                         f"{p.piece} is placed twice (first on line {seen[p.piece].line}) [setup]"))
            continue
        seen[p.piece] = p
        if not in_territory(player, p.square):
            problems.append(SetupProblem(
                player, p.line,
                                         f"{p.piece} on {p.square} is outside player {player}'s rows {rows[0]} to "
                                         f"{rows[-1]} [setup]"))
    missing = [piece for piece in pieces if piece not in seen]
    if missing:
        problems.append(SetupProblem(player, None,
                                     f"not placed: {', '.join(missing)}; each piece is placed once [setup]"))
    by_square: dict[object, list[Placement]] = {}
    for p in seen.values():
        by_square.setdefault(p.square, []).append(p)
    for square, together in by_square.items():
        if len(together) < 2:
            continue
        for p in together:
            if kind(p.piece) in IMMOBILE:
                others = ", ".join(q.piece for q in together if q is not p)
                problems.append(SetupProblem(
                    player, p.line,
                    f"{KIND_NAMES[kind(p.piece)]} {p.piece} on {square} shares its square with {others}: "
                    "asteroids and the home planet must be placed on squares by themselves [setup]"))
    return problems
