"""The manual's tables and formulas (docs/celestial_empire/spec.md, sections 4
and 5), each with the line of the manual it comes from.

The curves (shots per fighter, shield absorption, PDU shots) are the
polylines through the vertices the manual's footnotes give, computed in exact
fractions so that rounding down is the manual's and never a float's (R-41).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache
from math import floor

from .orders import Unit
from .state import Ship

# Table "build", l.1369-1383: (ore types, ore of each type, industry).
BUILD_SHIP_UNIT: dict[Unit, tuple[tuple[int, ...], int, int]] = {
    Unit.CARGO: ((1,), 1, 1),
    Unit.FIGHTER: ((2, 3), 1, 2),
    Unit.TRACTOR: ((7,), 2, 2),
    Unit.SHIELD: ((5, 6), 1, 2),
}
BUILD_PDU = ((4,), 1, 1)
BUILD_INDUSTRY = ((8, 9), 5, 10)
BUILD_MINE = ((8, 9), 5, 10)
BUILD_SPACEMINE_INDUSTRY = 1
"""A spacemine takes 1 ore of the type the order names and 1 industry."""
BUILD_HYPERDRIVE = ((4, 5, 6, 7), 10, 40)

# Table "unbuild", l.1315-1327: (ore types, ore recovered of each, industry); half lost, rounded down.
UNBUILD_SHIP_UNIT: dict[Unit, tuple[tuple[int, ...], Fraction, int]] = {
    Unit.CARGO: ((1,), Fraction(1, 2), 1),
    Unit.FIGHTER: ((2, 3), Fraction(1, 2), 2),
    Unit.TRACTOR: ((7,), Fraction(1), 2),
    Unit.SHIELD: ((5, 6), Fraction(1, 2), 2),
}

# Table "jump", l.1485-1495: fuel for a jump of n links at effective efficiency -1 .. 4.
FUEL = {
    1: (2, 1, 1, 1, 1, 1),
    2: (8, 4, 2, 2, 2, 2),
    3: (18, 9, 6, 3, 3, 3),
    4: (32, 16, 12, 8, 4, 4),
    5: (50, 25, 20, 15, 10, 5),
}
MAX_JUMP = 5

# Table "income", l.1936-1951.
INCOME_PLANET, INCOME_MINE, INCOME_INDUSTRY = 20, 1, 5
RESEARCH_BONUS = (0, 1, 16, 81, 256)

SIZES = ((10, "Small"), (30, "Medium"), (75, "Large"), (150, "Super"), (250, "Mega"))


def _polyline(points: tuple[tuple[int, Fraction], ...], x: Fraction) -> Fraction:
    """The value at ``x`` of the polyline through ``points`` (constant after the last)."""
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[-1][1]


def mass(ship: Ship) -> Fraction:
    """mass = 1 + empty cargo + 1.5 full cargo + tractors/2 + shields/2 + fighters/10 (l.957-969)."""
    return _mass(ship.fighters, ship.cargo_units, min(ship.hold.space(), ship.cargo_units), ship.tractors,
                 ship.shields)


def _mass(fighters: int, cargo_units: int, full: int, tractors: int, shields: int) -> Fraction:
    """`mass` of a ship of these units, ``full`` of its cargo units full."""
    empty = cargo_units - full
    return (1 + empty + Fraction(3, 2) * full + Fraction(tractors, 2) + Fraction(shields, 2)
            + Fraction(fighters, 10))


SHOTS_PER_FIGHTER = ((0, Fraction(0)), (1, Fraction(1)), (10, Fraction(3)), (16, Fraction(3)))
"""Vertices (0,0), (1,1), (10,3), (16,3) of the footnote at l.975-976 (R-41)."""

KEPT = 4096
"""Results kept by the formulas below that a turn and every sheet compute
for each ship again and again, in exact fractions (`shots`, `ship_type`,
`pdu_shots`): each is a function of a few whole numbers."""


def shots(ship: Ship, fighters: int | None = None) -> int:
    """The shots of ``fighters`` of the ship's fighter units (all when None):
    floor(fighters x spf(fighters / mass)) (l.955-997, R-41)."""
    used = ship.fighters if fighters is None else min(fighters, ship.fighters)
    if used <= 0:
        return 0
    return _shots(used, ship.fighters, ship.cargo_units, min(ship.hold.space(), ship.cargo_units), ship.tractors,
                  ship.shields)


@lru_cache(maxsize=KEPT)
def _shots(used: int, fighters: int, cargo_units: int, full: int, tractors: int, shields: int) -> int:
    """`shots` of ``used`` fighters of a ship of these units (`_mass`)."""
    return floor(used * _polyline(SHOTS_PER_FIGHTER, Fraction(used) / _mass(fighters, cargo_units, full, tractors,
                                                                            shields)))


ABSORPTION = ((0, Fraction(1)), (20, Fraction(2)), (90, Fraction(4)))
"""Vertices (0,1), (20,2), (90,4) of the figure at l.1025 (R-42)."""


def absorbed(ship: Ship) -> int:
    """Shots the ship's shields absorb: floor(shields x apu(percent of its units that are shields))."""
    if ship.shields <= 0:
        return 0
    percent = Fraction(100 * ship.shields, ship.units())
    return floor(ship.shields * _polyline(ABSORPTION, percent))


PDU_CURVE = ((0, Fraction(1)), (20, Fraction(2)), (100, Fraction(3)), (500, Fraction(4)))
"""Vertices (0,1), (20,2), (100,3), (500,4) of l.1201-1202."""


@lru_cache(maxsize=KEPT)
def pdu_shots(pdus: int) -> int:
    """The shots of ``pdus`` PDUs firing together: 4 give 4, 120 give 366, 200 give 650 (l.2277, 2317, 2297)."""
    if pdus <= 0:
        return 0
    return floor(pdus * _polyline(PDU_CURVE, Fraction(pdus)))


def effective_efficiency(ship: Ship) -> int:
    """The drive's efficiency less one for every 200 units past the first 200, at most 4 (l.1463-1476, R-57)."""
    over = max(0, ship.units() - 200)
    return min(4, ship.efficiency - (over + 199) // 200)


def fuel(links: int, efficiency: int) -> int | None:
    """Fuel for a jump of ``links`` links at effective ``efficiency``; None if the ship cannot make it."""
    if efficiency < -1 or not 1 <= links <= MAX_JUMP:
        return None
    return FUEL[links][min(efficiency, 4) + 1]


def ship_type(ship: Ship) -> str:
    """The class others see the ship as (l.1845-1888, R-79)."""
    return _ship_type(ship.fighters, ship.cargo_units)


@lru_cache(maxsize=KEPT)
def _ship_type(f: int, c: int) -> str:
    """`ship_type` of a ship of ``f`` fighter and ``c`` cargo units."""
    if f == 0 and c == 0:
        return "Empty Ship"
    if c and Fraction(f, c) < Fraction(1, 2):
        return f"{_size(c)} Cargo"
    ratio = Fraction(f, c) if c else None
    if ratio is not None and ratio <= 2:
        return f"{_size(f)} Ship"
    if ratio is not None and ratio < 9:
        return f"{_size(f)} Battle"
    return f"{_size(f)} Deathstar"


def _size(units: int) -> str:
    for top, name in SIZES:
        if units <= top:
            return name
    return "Ultra"


def research_bonus(research_planets: int) -> int:
    """The income an empire adds for owning this many research planets (Table "income", l.1945-1951)."""
    return RESEARCH_BONUS[min(research_planets, len(RESEARCH_BONUS) - 1)]


def sell_price(price: int, amount: int) -> int:
    """Credits for selling ``amount`` ore to Earth at two thirds of its price, rounded down (R-28)."""
    return floor(Fraction(2, 3) * price * amount)
