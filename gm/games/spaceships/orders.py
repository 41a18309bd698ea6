"""Orders and setup lines as values: what a player writes in conventional
notation [11.5], [11.6], parsed by `gm.notation` and printed back by ``str``.

Every type here prints exactly the notation it stands for, so
``str(parse_orders(text)[0])`` is the canonical form of what was written.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .geometry import COLOURS, LETTERS, STANDARD, Cell, Geometry
from .ships import ShipType, ship_label


@dataclass(frozen=True)
class ShipRef:
    """A ship named by type and identity, ``DS2`` or ``KC`` [11.6.2]."""

    type: ShipType
    identity: int | None = None

    def __str__(self) -> str:
        return ship_label(self.type, self.identity)


@dataclass(frozen=True)
class Strike:
    """A strike on a target cell, written as the bare cell ``Rv1`` [11.5.1].

    Conventional strikes and the strikes of missiles and kamikazes are all
    written this way; the player need not say which is which [4.7]."""

    target: Cell

    def __str__(self) -> str:
        return str(self.target)


@dataclass(frozen=True)
class Beam:
    """A beam weapon firing, ``bRv1Rx1`` or ``bRv1Rx1(DS2)`` [11.5.2]."""

    start: Cell
    end: Cell
    ship: ShipRef | None = None

    def __str__(self) -> str:
        suffix = f"({self.ship})" if self.ship else ""
        return f"b{self.start}{self.end}{suffix}"


@dataclass(frozen=True)
class MissileSelector:
    """One to three coordinate values that pick out a missile launch cell,
    as in ``mRv2``, ``mRv``, ``m2`` or ``mv`` [11.5.3]."""

    colour: str | None = None
    letter: str | None = None
    number: int | None = None

    def __post_init__(self) -> None:
        if self.colour is None and self.letter is None and self.number is None:
            raise ValueError("a missile selector needs at least one coordinate [11.5.3]")
        if self.colour is not None and self.colour not in COLOURS:
            raise ValueError(f"bad colour {self.colour!r}")
        if self.letter is not None and self.letter not in LETTERS:
            raise ValueError(f"bad letter {self.letter!r}")
        if self.number is not None and not 1 <= self.number <= 5:
            raise ValueError(f"bad number {self.number!r}")

    def matches(self, cell: Cell) -> bool:
        return (
            (self.colour is None or self.colour == cell.colour)
            and (self.letter is None or self.letter == cell.letter)
            and (self.number is None or self.number == cell.number)
        )

    def __str__(self) -> str:
        return "".join(str(v) for v in (self.colour, self.letter, self.number) if v is not None)


@dataclass(frozen=True)
class Missile:
    """A missile launch, ``mRv2``; its target is one more strike in the list [11.5.3]."""

    launch: MissileSelector

    def __str__(self) -> str:
        return f"m{self.launch}"


@dataclass(frozen=True)
class Kamikaze:
    """A kamikaze launch, ``kGy3``; its target is one more strike in the list [11.5.5]."""

    launch: Cell

    def __str__(self) -> str:
        return f"k{self.launch}"


@dataclass(frozen=True)
class Scan:
    """A scan of a cell in the opponent's space, ``sBz5`` [11.5.4]."""

    target: Cell

    def __str__(self) -> str:
        return f"s{self.target}"


Order = Strike | Beam | Missile | Kamikaze | Scan


@dataclass(frozen=True)
class Placement:
    """One setup line: a ship type, an optional identity, and its cells [2.1], [11.6].

    ``written`` keeps the cells as the player grouped them (single cells, or
    ``Rv1-Rw3`` boxes given by two opposite corners) so that the line prints
    back as it was written; `cells` says which cells they stand for, which for
    a box depends on the variant's colour order."""

    type: ShipType
    identity: int | None
    written: tuple[Cell | tuple[Cell, Cell], ...]
    line: int = field(default=0, compare=False, repr=False)
    """The line it was written on, where known (for messages)."""

    def cells(self, geometry: Geometry = STANDARD) -> list[Cell]:
        """The cells named, boxes expanded, in the order written (repeats kept)."""
        out: list[Cell] = []
        for item in self.written:
            out.extend(geometry.box(*item) if isinstance(item, tuple) else [item])
        return out

    def __str__(self) -> str:
        parts = [ship_label(self.type, self.identity)]
        for item in self.written:
            parts.append(f"{item[0]}-{item[1]}" if isinstance(item, tuple) else str(item))
        return " ".join(parts)


def format_orders(orders: list[Order] | tuple[Order, ...]) -> str:
    """Orders written on one line, separated by spaces [11.5]."""
    return " ".join(map(str, orders))
