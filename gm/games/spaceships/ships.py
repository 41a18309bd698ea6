"""Ship types, their shapes and costs [6], and ships as placed in setup [3].

The shape rules are checked against a `Geometry`, since adjacency depends on
the variant's colour order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import Enum
from itertools import product

from .geometry import ALL_CELLS, Cell, Geometry, mask_of


class ShipType(Enum):
    """The nine types of ship [6], by their two-letter code [11.6]."""

    DS = ("death star", 8, 8, "6.2")
    KC = ("kill cruiser", 6, 6, "6.3")
    FS = ("flying saucer", 4, 4, "6.4")
    PC = ("patrol cruiser", 4, 4, "6.5")
    MD = ("missile destroyer", 3, 3, "6.6")
    HS = ("heavy scout", 2, 3, "6.7")
    LS = ("light scout", 1, 3, "6.8")
    AG = ("assault gunboat", 2, 2, "6.9")
    LG = ("light gunboat", 1, 1, "6.10")
    HF = ("heavy fighter", 2, 2, "early 6.5")
    """Only in the early rules: two adjacent cells [early 6.5]."""

    def __init__(self, title: str, size: int, cost: int, clause: str):
        self.title = title
        self.size = size
        self.cost = cost
        self.clause = clause

    @property
    def code(self) -> str:
        return self.name

    @property
    def missiles(self) -> bool:
        """Every cell is a missile [6.6.3], [6.9.1], [6.10.1]."""
        return self in (ShipType.MD, ShipType.AG, ShipType.LG)

    @property
    def scanner(self) -> bool:
        """The ship has a scanner [6.7.2], [6.8.1]."""
        return self in (ShipType.HS, ShipType.LS)

    @property
    def beam(self) -> bool:
        """The ship has a beam weapon [6.2.5]."""
        return self is ShipType.DS

    def __repr__(self) -> str:
        return f"ShipType.{self.name}"


def ship_label(type: ShipType, identity: int | None) -> str:
    """Type and identity written together, e.g. ``FS2`` or ``KC`` [11.6.2]."""
    return type.code if identity is None else f"{type.code}{identity}"


@dataclass(frozen=True)
class Ship:
    """A ship: a type, cells, and an identity among ships of its type [3].

    ``identity`` is None for a player's only ship of its type [11.6.1].
    """

    type: ShipType
    identity: int | None
    cells: tuple[Cell, ...]
    mask: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cells", tuple(sorted(self.cells)))
        object.__setattr__(self, "mask", mask_of(self.cells))

    @property
    def label(self) -> str:
        return ship_label(self.type, self.identity)

    def __str__(self) -> str:
        return " ".join([self.label, *map(str, self.cells)])


def shape_problem(type: ShipType, cells: Iterable[Cell], geometry: Geometry,
                  cube_death_star: bool = False) -> str | None:
    """Why these cells cannot form a ship of this type, or None if they can [3.5].
    ``cube_death_star``: the early rules' death star, a 2x2x2 cube only [early 6.1.1]."""
    cells = sorted(set(cells))
    if len(cells) != type.size:
        return f"a {type.title} has {type.size} cell{'s' * (type.size > 1)}, not {len(cells)} [{type.clause}]"
    if type is ShipType.DS and cube_death_star:
        return None if geometry.is_box(cells, (2, 2, 2)) else "a death star is a 2x2x2 cube of cells [early 6.1.1]"
    if type is ShipType.DS:
        return _death_star_problem(cells, geometry)
    boxes = {
        ShipType.KC: ((1, 2, 3), "a 3x2x1 rectangle [6.3.2]"),
        ShipType.FS: ((1, 2, 2), "a 2x2x1 square [6.4.2]"),
        ShipType.PC: ((1, 1, 4), "a straight line of adjacent cells [6.5.2]"),
        ShipType.MD: ((1, 1, 3), "a straight line of adjacent cells [6.6.2]"),
        ShipType.HS: ((1, 1, 2), "two adjacent cells [6.7.1]"),
        ShipType.AG: ((1, 1, 2), "two adjacent cells [6.9]"),
        ShipType.HF: ((1, 1, 2), "two adjacent cells [early 6.5]"),
    }
    if type in boxes:
        sizes, what = boxes[type]
        if not geometry.is_box(cells, sizes):
            return f"a {type.title}'s cells must form {what}"
    return None


def _death_star_problem(cells: list[Cell], geometry: Geometry) -> str | None:
    mask = mask_of(cells)
    for cell in cells:
        if bin(geometry.adjacent_mask(cell) & mask).count("1") < 2:
            return (
                f"each cell of a death star must be adjacent to at least two others "
                f"in it, and {cell} is not [6.2.2]"
            )
    if not _contains_cube_or_rectangle(cells, geometry):
        return "a death star must contain a 2x2x2 cube or a 3x2x1 rectangle [6.2.3]"
    return None


def _contains_cube_or_rectangle(cells: list[Cell], geometry: Geometry) -> bool:
    if geometry.is_box(cells, (2, 2, 2)):
        return True
    mask = mask_of(cells)
    shapes = {tuple(s) for s in ((1, 2, 3), (1, 3, 2), (2, 1, 3), (2, 3, 1), (3, 1, 2), (3, 2, 1))}
    for corner in cells:
        x, y, z = geometry.position(corner)
        for dx, dy, dz in shapes:
            far = geometry.at(x + dx - 1, y + dy - 1, z + dz - 1)
            if far is not None and mask_of(geometry.box(corner, far)) & ~mask == 0:
                return True
    return False


def placements(type: ShipType, geometry: Geometry) -> list[frozenset[Cell]]:
    """Every set of cells in a space that makes a legal ship of this type.

    For the death star this follows [6.2.2]-[6.2.3] directly: a cube, or a
    3x2x1 rectangle plus two more cells, each cell touching two others.
    """
    if type is ShipType.DS:
        return _death_star_placements(geometry)
    found = set()
    for corner in ALL_CELLS:
        x, y, z = geometry.position(corner)
        for sizes in set(_orientations(type)):
            far = geometry.at(x + sizes[0] - 1, y + sizes[1] - 1, z + sizes[2] - 1)
            if far is not None:
                found.add(frozenset(geometry.box(corner, far)))
    return sorted(found, key=lambda s: sorted(s))


def _orientations(type: ShipType) -> list[tuple[int, int, int]]:
    base = {
        ShipType.KC: (1, 2, 3), ShipType.FS: (1, 2, 2), ShipType.PC: (1, 1, 4),
        ShipType.MD: (1, 1, 3), ShipType.HS: (1, 1, 2), ShipType.AG: (1, 1, 2),
        ShipType.LS: (1, 1, 1), ShipType.LG: (1, 1, 1), ShipType.HF: (1, 1, 2),
    }[type]
    return [(p[0], p[1], p[2]) for p in product(*[base] * 3) if sorted(p) == sorted(base)]


def _death_star_placements(geometry: Geometry) -> list[frozenset[Cell]]:
    found: set[frozenset[Cell]] = set()
    cores = placements(ShipType.KC, geometry)
    for corner in ALL_CELLS:
        x, y, z = geometry.position(corner)
        far = geometry.at(x + 1, y + 1, z + 1)
        if far is not None:
            found.add(frozenset(geometry.box(corner, far)))
    for core in cores:
        core_mask = mask_of(core)
        # Each extra cell needs two neighbours in the ship, and a cell outside a
        # flat rectangle touches at most one of its cells, so the two extra
        # cells touch each other and each touches the core.
        border = 0
        for cell in core:
            border |= geometry.adjacent_mask(cell)
        border &= ~core_mask
        for a in _cells_in(border):
            for b in _cells_in(geometry.adjacent_mask(a) & border):
                if a < b:
                    ship = core | {a, b}
                    if shape_problem(ShipType.DS, ship, geometry) is None:
                        found.add(frozenset(ship))
    return sorted(found, key=lambda s: sorted(s))


def _cells_in(mask: int) -> list[Cell]:
    return [c for c in ALL_CELLS if mask & c.bit]


def canonical_shape(cells: Iterable[Cell], geometry: Geometry) -> tuple:
    """A name for the shape of a set of cells up to moving, turning and
    mirroring it [1.2.2]: equal for congruent sets, different otherwise."""
    points = [geometry.position(c) for c in cells]
    best = None
    for perm in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
        for signs in product((1, -1), repeat=3):
            moved = [tuple(signs[i] * p[perm[i]] for i in range(3)) for p in points]
            low = [min(m[i] for m in moved) for i in range(3)]
            form = tuple(sorted(tuple(m[i] - low[i] for i in range(3)) for m in moved))
            if best is None or form < best:
                best = form
    return best  # type: ignore[return-value]
