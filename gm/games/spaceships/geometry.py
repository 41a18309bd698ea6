"""Cells, coordinates and the shape of a space [1.2], [11.4].

A space is a 5x5x5 grid of cells [1.2.1] that does not wrap [1.2.6]. A cell is
named by three coordinates, colour-letter-number [11.4.4], such as ``Rv1``.

`Cell` is a name only: 125 interned values, comparable by identity, usable as
bits of an ``int`` mask (``cell.bit``) so that sets of cells are cheap.
Where cells *are* in relation to each other (which are adjacent, which lie in
a straight line) is the business of a `Geometry`, because a variant may order
the colours differently (the explanation of the rules lists them R-Y-G-O-B),
and adjacency follows from that order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import product
from typing import cast

COLOURS = "ROYGB"
"""Colour coordinate values in the default order, Red to Blue [11.4.1]."""
LETTERS = "vwxyz"
"""Letter coordinate values [11.4.2]."""
NUMBERS = "12345"
"""Number coordinate values [11.4.3]."""

COLOUR_NAMES = {"R": "Red", "O": "Orange", "Y": "Yellow", "G": "Green", "B": "Blue"}


class Cell:
    """One cell, named by colour, letter and number [11.4].

    Cells are interned: ``Cell.parse("Rv1") is Cell.parse("Rv1")``. The
    attributes ``colour``, ``letter`` and ``number`` give the coordinate as
    written; ``index`` (0-124) and ``bit`` (``1 << index``) are for masks.
    """

    __slots__ = ("_text", "bit", "colour", "index", "letter", "number")

    colour: str
    letter: str
    number: int
    index: int
    bit: int
    _text: str

    def __new__(cls, colour: str, letter: str, number: int) -> Cell:
        try:
            return _BY_TEXT[f"{colour}{letter}{number}"]
        except KeyError:
            raise ValueError(
                f"no such cell {colour!r}{letter!r}{number!r}: colour is one of "
                f"{' '.join(COLOURS)}, letter one of {' '.join(LETTERS)}, number 1 to 5 [11.4]"
            ) from None

    @classmethod
    def _create(cls, c: int, le: int, n: int) -> Cell:
        cell = object.__new__(cls)
        for name, value in (
            ("colour", COLOURS[c]),
            ("letter", LETTERS[le]),
            ("number", n + 1),
            ("index", c * 25 + le * 5 + n),
            ("bit", 1 << (c * 25 + le * 5 + n)),
            ("_text", COLOURS[c] + LETTERS[le] + NUMBERS[n]),
        ):
            object.__setattr__(cell, name, value)
        return cell

    @classmethod
    def parse(cls, text: str) -> Cell:
        """The cell written as ``text`` in conventional notation, e.g. ``Rv1``."""
        try:
            return _BY_TEXT[text]
        except KeyError:
            raise ValueError(
                f"{text!r} is not a cell: write colour, letter, number, such as Rv1 "
                f"(colour {' '.join(COLOURS)}, letter {' '.join(LETTERS)}, number 1-5) [11.4]"
            ) from None

    @staticmethod
    def from_index(index: int) -> Cell:
        return ALL_CELLS[index]

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Cell is immutable")

    def __reduce__(self) -> tuple:
        return (Cell.from_index, (self.index,))

    def __lt__(self, other: Cell) -> bool:
        return self.index < other.index

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"Cell.parse({self._text!r})"


ALL_CELLS: tuple[Cell, ...] = tuple(
    Cell._create(c, le, n) for c in range(5) for le in range(5) for n in range(5)
)
_BY_TEXT: dict[str, Cell] = {str(cell): cell for cell in ALL_CELLS}


def cells_of(mask: int) -> list[Cell]:
    """The cells whose bits are set in ``mask``, in index order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(ALL_CELLS[low.bit_length() - 1])
        mask ^= low
    return out


def mask_of(cells: Iterable[Cell]) -> int:
    mask = 0
    for cell in cells:
        mask |= cell.bit
    return mask


Vector = tuple[int, int, int]

LINE_DIRECTIONS: tuple[Vector, ...] = tuple(
    cast(Vector, d)
    for d in product((-1, 0, 1), repeat=3)
    if d != (0, 0, 0) and d > (0, 0, 0)  # one of each opposite pair
)
"""The 13 directions of a straight line through cells: 3 along the axes,
6 face diagonals and 4 space diagonals."""

STEPS: tuple[Vector, ...] = LINE_DIRECTIONS + tuple((-a, -b, -c) for a, b, c in LINE_DIRECTIONS)
"""The 26 steps from a cell to a loosely adjacent one [1.2.4]."""


def is_axis(direction: Vector) -> bool:
    """True for a step to a face-adjacent cell [1.2.3]."""
    return sum(map(abs, direction)) == 1


class Geometry:
    """Where cells lie relative to each other, for one order of the colours.

    Positions are (colour, letter, number) indices along the three axes. The
    default geometry orders the colours R O Y G B [11.4.1]; a variant may pass
    another order, which changes which cells are adjacent.
    """

    def __init__(self, colour_order: str = COLOURS):
        if sorted(colour_order) != sorted(COLOURS):
            raise ValueError(f"colour order must be a permutation of {COLOURS}, not {colour_order!r}")
        self.colour_order = colour_order
        self._position: list[Vector] = [
            (colour_order.index(cell.colour), LETTERS.index(cell.letter), cell.number - 1)
            for cell in ALL_CELLS
        ]
        self._at: dict[Vector, Cell] = {p: ALL_CELLS[i] for i, p in enumerate(self._position)}
        self._step: dict[tuple[int, Vector], Cell] = {}
        self._adjacent: list[int] = []
        self._loose: list[int] = []
        for cell in ALL_CELLS:
            face = loose = 0
            for step in STEPS:
                other = self.at(*self._add(self._position[cell.index], step))
                if other is None:
                    continue
                self._step[cell.index, step] = other
                loose |= other.bit
                if is_axis(step):
                    face |= other.bit
            self._adjacent.append(face)
            self._loose.append(loose)

    def __reduce__(self) -> tuple:
        """A geometry pickles as its colour order (a game's snapshot), and is
        read back as the one geometry of that order, not a copy of its tables."""
        return (geometry_of, (self.colour_order,))

    def __repr__(self) -> str:
        return f"Geometry({self.colour_order!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Geometry) and other.colour_order == self.colour_order

    def __hash__(self) -> int:
        return hash(self.colour_order)

    @staticmethod
    def _add(p: Vector, d: Vector) -> Vector:
        return (p[0] + d[0], p[1] + d[1], p[2] + d[2])

    def position(self, cell: Cell) -> Vector:
        return self._position[cell.index]

    def at(self, x: int, y: int, z: int) -> Cell | None:
        """The cell at a position, or None outside the space [1.2.6]."""
        return self._at.get((x, y, z))

    def step(self, cell: Cell, direction: Vector) -> Cell | None:
        """The cell one step from ``cell``, or None past the edge of the space."""
        return self._step.get((cell.index, direction))

    def adjacent_mask(self, cell: Cell) -> int:
        """Cells sharing a face with ``cell`` [1.2.3], as a mask."""
        return self._adjacent[cell.index]

    def loose_mask(self, cell: Cell) -> int:
        """Cells sharing a face, edge or vertex with ``cell`` [1.2.4], as a mask."""
        return self._loose[cell.index]

    def adjacent(self, a: Cell, b: Cell) -> bool:
        """[1.2.3] the two cells share a face."""
        return bool(self._adjacent[a.index] & b.bit)

    def loosely_adjacent(self, a: Cell, b: Cell) -> bool:
        """[1.2.4] the two cells share a face, an edge or a vertex."""
        return bool(self._loose[a.index] & b.bit)

    def set_adjacent(self, cells: Iterable[Cell]) -> bool:
        """[1.2.5] every cell of a set of several is adjacent to another of the set."""
        return self._set_related(cells, self._adjacent)

    def set_loosely_adjacent(self, cells: Iterable[Cell]) -> bool:
        """[1.2.5] every cell of a set of several is loosely adjacent to another."""
        return self._set_related(cells, self._loose)

    @staticmethod
    def _set_related(cells: Iterable[Cell], table: list[int]) -> bool:
        cells = list(cells)
        if len(cells) < 2:
            return False
        mask = mask_of(cells)
        return all(table[c.index] & mask for c in cells)

    def direction(self, a: Cell, b: Cell) -> Vector | None:
        """The step from ``a`` to ``b`` if they are loosely adjacent, else None."""
        pa, pb = self._position[a.index], self._position[b.index]
        d = (pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2])
        return d if d in STEPS else None

    def line_of_three(self, start: Cell, end: Cell) -> tuple[Cell, Cell, Cell] | None:
        """The three loosely adjacent cells of a straight line from ``start`` to
        ``end`` [8.2.1], or None when the ends are not two steps apart on one."""
        pa, pb = self._position[start.index], self._position[end.index]
        delta = (pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2])
        if any(v % 2 for v in delta):
            return None
        step = (delta[0] // 2, delta[1] // 2, delta[2] // 2)
        if step not in STEPS:
            return None
        middle = self._step[start.index, step]
        return (start, middle, end)

    def line_of_five(self, start: Cell, end: Cell) -> tuple[Cell, ...] | None:
        """The five adjacent cells of a straight line from ``start`` to ``end``,
        which must be four face steps apart (the early rules' beam), or None."""
        pa, pb = self._position[start.index], self._position[end.index]
        delta = tuple(b - a for a, b in zip(pa, pb))
        if sorted(map(abs, delta)) != [0, 0, 4]:
            return None
        step = tuple(v // 4 for v in delta)
        cells = [start]
        for _ in range(4):
            cells.append(self._step[cells[-1].index, step])  # type: ignore[index]
        return tuple(cells)

    def box(self, a: Cell, b: Cell) -> list[Cell]:
        """Every cell of the box with opposite corners ``a`` and ``b``."""
        pa, pb = self._position[a.index], self._position[b.index]
        ranges = [range(min(u, v), max(u, v) + 1) for u, v in zip(pa, pb)]
        return sorted(self._at[cast(Vector, p)] for p in product(*ranges))

    def extent(self, cells: Iterable[Cell]) -> tuple[int, int, int]:
        """The size of the smallest box holding the cells, along each axis."""
        positions = [self._position[c.index] for c in cells]
        return tuple(  # type: ignore[return-value]
            max(p[axis] for p in positions) - min(p[axis] for p in positions) + 1
            for axis in range(3)
        )

    def is_box(self, cells: Iterable[Cell], sizes: tuple[int, int, int]) -> bool:
        """True if the cells exactly fill a box of these sizes, in any orientation."""
        cells = set(cells)
        extent = self.extent(cells)
        volume = extent[0] * extent[1] * extent[2]
        return volume == len(cells) and sorted(extent) == sorted(sizes)

    def translate(self, cells: Iterable[Cell], by: Vector) -> list[Cell] | None:
        """The cells moved by a vector, or None if any would leave the space."""
        moved = []
        for cell in cells:
            target = self.at(*self._add(self._position[cell.index], by))
            if target is None:
                return None
            moved.append(target)
        return moved

    def cells(self) -> Iterator[Cell]:
        return iter(ALL_CELLS)


STANDARD = Geometry()

_GEOMETRIES: dict[str, Geometry] = {COLOURS: STANDARD}


def geometry_of(colour_order: str) -> Geometry:
    """The geometry of a colour order, made once: it is only tables."""
    if colour_order not in _GEOMETRIES:
        _GEOMETRIES[colour_order] = Geometry(colour_order)
    return _GEOMETRIES[colour_order]
"""The geometry of the default rules, colours ordered R O Y G B [11.4.1]."""
