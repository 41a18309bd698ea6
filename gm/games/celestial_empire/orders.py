"""Celestial Empire orders as values: one frozen dataclass per command form.

The manual's orders are terse strings (``S132U42R2``: ship 132 unloads 42 of
ore type 2). `gm.games.celestial_empire.notation` reads them into these
values; each value's ``str()`` prints the canonical command back (upper case,
no spaces), so that ``parse_order(str(order)) == order`` and the command
history can show "what was asked" in the manual's own notation.

This module holds the shared types (`Phase`, `Unit`, `AllianceLevel`, the
`Order`, `ShipOrder` and `PlanetOrder` bases) and the ships' orders that
name, give and move cargo (naming, gifts, unloading, loading, Earth trade,
spacemines, tending); `gm.games.celestial_empire.orders_empire` holds the
ships' battle, building and movement orders, the planets' orders, the
empire's orders (alliances, scans, game length), standing orders and
messages.

Each order class carries ``phase``: the step of the manual's turn sequence
("Turn Sequence", manual l.207-320) in which it is carried out, because the
manual lists every order kind there. Messages are not in the sequence, so
theirs is None. The order *within* a step (industry before spacemines when
unloading, bids from the highest...) is the rules core's business.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import ClassVar


class Phase(enum.IntEnum):
    """The steps of the manual's turn sequence, numbered as the manual does."""

    RESEARCH = 1
    GAME_LENGTH = 2
    NAMING = 3
    GIFTING = 4
    ALLIANCES = 5
    UNLOADING = 6
    LOADING = 7
    TRADING = 8
    CONTRACTING = 9
    SPACEMINES = 10
    BATTLE = 11
    TENDING = 12
    UNBUILDING = 13
    TRANSMUTATION = 14
    PLANET_BUILDING = 15
    SHIP_BUILDING = 16
    MOVEMENT = 17
    SCANNING = 18
    STANDING_ORDERS = 19


class Unit(enum.Enum):
    """A ship unit, by the letter the orders use for it (building, contracting
    at Earth, unbuilding)."""

    CARGO = "C"
    FIGHTER = "F"
    TRACTOR = "T"
    SHIELD = "S"


class AllianceLevel(enum.Enum):
    """The four alliance levels, by the word the turn sheet's ALLY STATUS uses
    (manual l.2237-2240); alliance messages name one."""

    ALLY = "ALLY"
    FRIENDLY = "FRIENDLY"
    NEUTRAL = "NEUTRAL"
    HOSTILE = "HOSTILE"


def written_count(number: int | None) -> str:
    """An optional count as written: nothing when absent (all units fire)."""
    return "" if number is None else str(number)


@dataclass(frozen=True)
class Order:
    """Any order. ``phase`` is its step of the turn sequence (None: not in it)."""

    phase: ClassVar[Phase | None] = None
    standing: bool = field(default=False, kw_only=True, compare=False, repr=False)
    """True for a standing order, run this turn on its ship's or planet's
    behalf (l.1574-1619), so that its command-history line says so whichever
    step answers it. Where the order came from, not what it is: equality,
    hash, repr and text ignore it."""


@dataclass(frozen=True)
class ShipOrder(Order):
    """An order to ship ``ship``: written ``S<ship>`` then the action."""

    ship: int

    def action(self) -> str:
        """The order after ``S<ship>``, canonical."""
        raise NotImplementedError

    def __str__(self) -> str:
        return f"S{self.ship}{self.action()}"


@dataclass(frozen=True)
class PlanetOrder(Order):
    """An order to planet ``planet``: written as the bare number, no ``P``
    (manual l.338), then the action."""

    planet: int

    def action(self) -> str:
        """The order after the planet number, canonical."""
        raise NotImplementedError

    def __str__(self) -> str:
        return f"{self.planet}{self.action()}"


# Naming and gifting [Naming l.347, Gifts l.385]

@dataclass(frozen=True)
class NameShip(ShipOrder):
    """``S123=BLACKGUARD``: call the ship ``name`` (as written: case kept)."""

    name: str
    phase = Phase.NAMING

    def action(self) -> str:
        return f"={self.name}"


@dataclass(frozen=True)
class GiftShip(ShipOrder):
    """``S244GMASTER``: give the ship to the empire ``player``."""

    player: str
    phase = Phase.GIFTING

    def action(self) -> str:
        return f"G{self.player}"


# Unloading [l.481]

@dataclass(frozen=True)
class UnloadMines(ShipOrder):
    """``S276U4M3``: unload ``amount`` mines as type ``mine_type``."""

    amount: int
    mine_type: int
    phase = Phase.UNLOADING

    def action(self) -> str:
        return f"U{self.amount}M{self.mine_type}"


@dataclass(frozen=True)
class UnloadPDUs(ShipOrder):
    """``S234U3D``: unload ``amount`` PDUs."""

    amount: int
    phase = Phase.UNLOADING

    def action(self) -> str:
        return f"U{self.amount}D"


@dataclass(frozen=True)
class UnloadIndustry(ShipOrder):
    """``S286U2I``: unload ``amount`` industry."""

    amount: int
    phase = Phase.UNLOADING

    def action(self) -> str:
        return f"U{self.amount}I"


@dataclass(frozen=True)
class UnloadOre(ShipOrder):
    """``S132U42R2``: unload ``amount`` of ore type ``ore_type``."""

    amount: int
    ore_type: int
    phase = Phase.UNLOADING

    def action(self) -> str:
        return f"U{self.amount}R{self.ore_type}"


@dataclass(frozen=True)
class UnloadSpacemines(ShipOrder):
    """``S322U23S``: unload ``amount`` spacemines into the planet's stockpile."""

    amount: int
    phase = Phase.UNLOADING

    def action(self) -> str:
        return f"U{self.amount}S"


@dataclass(frozen=True)
class UnloadAllOre(ShipOrder):
    """``S309U``: unload all ore except fuel (type 0)."""

    phase = Phase.UNLOADING

    def action(self) -> str:
        return "U"


# Loading [l.591]

@dataclass(frozen=True)
class LoadMines(ShipOrder):
    """``S306L10M4``: load ``amount`` mines of type ``mine_type``."""

    amount: int
    mine_type: int
    phase = Phase.LOADING

    def action(self) -> str:
        return f"L{self.amount}M{self.mine_type}"


@dataclass(frozen=True)
class LoadPDUs(ShipOrder):
    """``S243L34D``: load ``amount`` PDUs."""

    amount: int
    phase = Phase.LOADING

    def action(self) -> str:
        return f"L{self.amount}D"


@dataclass(frozen=True)
class LoadIndustry(ShipOrder):
    """``S345L3I``: load ``amount`` industry."""

    amount: int
    phase = Phase.LOADING

    def action(self) -> str:
        return f"L{self.amount}I"


@dataclass(frozen=True)
class LoadOre(ShipOrder):
    """``S123L120R2``: load ``amount`` of ore type ``ore_type``."""

    amount: int
    ore_type: int
    phase = Phase.LOADING

    def action(self) -> str:
        return f"L{self.amount}R{self.ore_type}"


@dataclass(frozen=True)
class LoadSpacemines(ShipOrder):
    """``S234L34S``: load ``amount`` spacemines from the stockpile."""

    amount: int
    phase = Phase.LOADING

    def action(self) -> str:
        return f"L{self.amount}S"


@dataclass(frozen=True)
class LoadAll(ShipOrder):
    """``S276L`` or ``S276L(78D)``: load all ore it can, types 1 to 9, after
    the ``priority`` items in their order: ore types as digits, ``D`` for PDUs
    (the manual allows ``P`` too; gm prints ``D``), ``S`` for spacemines."""

    priority: tuple[str, ...] = ()
    phase = Phase.LOADING

    def action(self) -> str:
        return "L" + (f"({''.join(self.priority)})" if self.priority else "")


# Earth: contracts, buying, selling [l.736]

@dataclass(frozen=True)
class Contract(ShipOrder):
    """``S178B43F45``: bid ``bid`` credits an industry to have Earth build
    ``amount`` units of ``unit`` onto the ship."""

    amount: int
    unit: Unit
    bid: int
    phase = Phase.CONTRACTING

    def action(self) -> str:
        return f"B{self.amount}{self.unit.value}{self.bid}"


@dataclass(frozen=True)
class BuyOre(ShipOrder):
    """``S123P12R1``: buy ``amount`` of ore type ``ore_type`` from Earth."""

    amount: int
    ore_type: int
    phase = Phase.TRADING

    def action(self) -> str:
        return f"P{self.amount}R{self.ore_type}"


@dataclass(frozen=True)
class SellOre(ShipOrder):
    """``S123X23R2``: sell ``amount`` of ore type ``ore_type`` to Earth."""

    amount: int
    ore_type: int
    phase = Phase.TRADING

    def action(self) -> str:
        return f"X{self.amount}R{self.ore_type}"


@dataclass(frozen=True)
class SellAllOre(ShipOrder):
    """``S123X``: sell all ore except type 0 to Earth."""

    phase = Phase.TRADING

    def action(self) -> str:
        return "X"


# Spacemines [l.877]

@dataclass(frozen=True)
class DeployFromShip(ShipOrder):
    """``S123D34``: the ship deploys ``amount`` spacemines around its planet."""

    amount: int
    phase = Phase.SPACEMINES

    def action(self) -> str:
        return f"D{self.amount}"


@dataclass(frozen=True)
class Retrieve(ShipOrder):
    """``S123R23``: the ship retrieves ``amount`` deployed spacemines."""

    amount: int
    phase = Phase.SPACEMINES

    def action(self) -> str:
        return f"R{self.amount}"


# Tending: ship to ship [l.1268]

@dataclass(frozen=True)
class TendOre(ShipOrder):
    """``S276T4S123R5``: move ``amount`` of ore type ``ore_type`` to ship ``to``."""

    amount: int
    to: int
    ore_type: int
    phase = Phase.TENDING

    def action(self) -> str:
        return f"T{self.amount}S{self.to}R{self.ore_type}"


@dataclass(frozen=True)
class TendMines(ShipOrder):
    """``S134T9S200M``: move ``amount`` mines to ship ``to`` (no type: the
    manual's syntax names none)."""

    amount: int
    to: int
    phase = Phase.TENDING

    def action(self) -> str:
        return f"T{self.amount}S{self.to}M"


@dataclass(frozen=True)
class TendIndustry(ShipOrder):
    """``S123T1S276I``: move ``amount`` industry to ship ``to``."""

    amount: int
    to: int
    phase = Phase.TENDING

    def action(self) -> str:
        return f"T{self.amount}S{self.to}I"


@dataclass(frozen=True)
class TendPDUs(ShipOrder):
    """``S145T120S206D``: move ``amount`` PDUs to ship ``to``."""

    amount: int
    to: int
    phase = Phase.TENDING

    def action(self) -> str:
        return f"T{self.amount}S{self.to}D"


@dataclass(frozen=True)
class TendSpacemines(ShipOrder):
    """``S100T59S270S``: move ``amount`` spacemines to ship ``to``."""

    amount: int
    to: int
    phase = Phase.TENDING

    def action(self) -> str:
        return f"T{self.amount}S{self.to}S"


@dataclass(frozen=True)
class TendAllOre(ShipOrder):
    """``S103TS104``: move all ore of types 1 to 9 to ship ``to``."""

    to: int
    phase = Phase.TENDING

    def action(self) -> str:
        return f"TS{self.to}"
