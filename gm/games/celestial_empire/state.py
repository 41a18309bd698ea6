"""The state of a Celestial Empire game between two turns.

Plain dataclasses, one for each thing the manual names: the empires, the
planets, the ships, Earth's market (docs/celestial_empire/spec.md, section 3).
They are mutable so that a step of the turn can be written plainly, but the
rules core never changes a state it is given: `run_turn` works on a copy
(`GameState.copy`) and returns it, so the turn stays a pure function of
(state, orders) as the other games' cores are. Each class copies itself
(`copy`): a new object of every one that a turn may change (each planet,
ship, hold, empire and the market, each list and dict they hold), sharing
only what cannot change (numbers, strings, tuples, enums). That is what
`copy.deepcopy` made, at a small part of its cost, since deepcopy looks up
how to copy each value and remembers each object it met; the state holds no
mutable object twice, so there is nothing to remember. Nothing here does I/O, reads
a clock or draws a random number; the one seed the game was made with is
recorded here and every draw derives from it (`draws`).

`new_game` builds turn 1's state from the generated galaxy
(`gm.games.celestial_empire.galaxy`) and the starting values of
rulings R-73 and R-74.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import TypeVar

from .galaxy import FIRST_NUMBER, ORE_TYPES, Galaxy
from .orders import AllianceLevel, Unit

NEUTRAL = 0
"""The owner of every planet and ship no empire owns, Earth included (l.2050)."""


def no_ore() -> list[int]:
    """A fresh count of zero for each ore type, for a field's default (never shared between objects)."""
    return [0] * ORE_TYPES


Thing = TypeVar("Thing")


def _twin(thing: Thing) -> Thing:
    """A new object of ``thing``'s class holding the very same field values:
    the first half of each class's ``copy``, which then gives the twin its
    own copy of every mutable field."""
    twin: Thing = object.__new__(type(thing))
    twin.__dict__.update(thing.__dict__)
    return twin


@dataclass
class Cargo:
    """What a ship carries, in the units of the manual's cargo table (l.600-611)."""

    ore: list[int] = field(default_factory=no_ore)
    mines: int = 0
    """Mines in the hold carry no type (R-23): a mine takes its type where it is unloaded."""
    industry: int = 0
    pdus: int = 0
    spacemines: int = 0

    def space(self) -> int:
        """Cargo units filled: ore and spacemines 1 each, a PDU 2, an industry 10, a mine 20."""
        return sum(self.ore) + self.spacemines + 2 * self.pdus + 10 * self.industry + 20 * self.mines

    def empty(self) -> bool:
        """Nothing aboard at all."""
        return self.space() == 0

    def copy(self) -> Cargo:
        """A copy sharing nothing a turn may change."""
        twin = _twin(self)
        twin.ore = list(self.ore)
        return twin


@dataclass
class Ship:
    """A ship: its hull (never destroyed), its units, its drive, its hold."""

    number: int
    owner: int
    planet: int
    name: str = ""
    fighters: int = 0
    cargo_units: int = 0
    tractors: int = 0
    shields: int = 0
    efficiency: int = 0
    """The drive's efficiency; the effective one falls with size (`formulas.effective_efficiency`)."""
    hold: Cargo = field(default_factory=Cargo)
    standing: str | None = None
    """The standing order's text, as the empire wrote it (at most one, l.1576)."""

    def units(self) -> int:
        """All units on the hull, of every kind: what ownership and empty hulls are judged by (R-65)."""
        return self.fighters + self.cargo_units + self.tractors + self.shields

    def is_empty_hull(self) -> bool:
        """No units at all (R-65): it may be taken by whoever orbits it alone."""
        return self.units() == 0

    def free_space(self) -> int:
        """Empty cargo units: what loading, tending, buying and retrieving may
        still fill (callers that need a count clamp it at 0)."""
        return self.cargo_units - self.hold.space()

    def copy(self) -> Ship:
        """A copy sharing nothing a turn may change: its own hold."""
        twin = _twin(self)
        twin.hold = self.hold.copy()
        return twin


@dataclass
class Planet:
    """A planet: whose it is, what is on it and what orbits it deployed."""

    number: int
    name: str
    links: tuple[int, ...]
    owner: int = NEUTRAL
    mines: list[int] = field(default_factory=no_ore)
    ore: list[int] = field(default_factory=no_ore)
    industry: int = 0
    pdus: int = 0
    spacemines: int = 0
    """Spacemines stored on the planet (inactive)."""
    deployed: int = 0
    """Spacemines deployed in orbit: no one's, they attack every ship that comes (l.881-897)."""
    research: bool = False
    home_of: int | None = None
    """The empire whose home planet this is, for good (R-22)."""
    standing: str | None = None

    def copy(self) -> Planet:
        """A copy sharing nothing a turn may change (``links`` is a tuple,
        which research replaces rather than changes)."""
        twin = _twin(self)
        twin.mines = list(self.mines)
        twin.ore = list(self.ore)
        return twin


@dataclass
class Empire:
    """An empire: its name, home, score, Earth credits and how it rates the others."""

    number: int
    name: str
    home: int
    score: int = 0
    credits: int = 0
    ratings: dict[int, AllianceLevel] = field(default_factory=dict)
    """How this empire rates each other empire; NEUTRAL when not listed (l.434)."""
    hostile_to_earth: bool = False
    """Set for good once it fires upon Earth (R-32)."""
    vote: int | None = None
    """The turn it wants the game to end, in games whose length the players set."""

    def rating(self, other: int) -> AllianceLevel:
        """How this empire rates ``other``: NEUTRAL unless it has changed it (l.434)."""
        return self.ratings.get(other, AllianceLevel.NEUTRAL)

    def copy(self) -> Empire:
        """A copy sharing nothing a turn may change: its own ratings."""
        twin = _twin(self)
        twin.ratings = dict(self.ratings)
        return twin


@dataclass
class Market:
    """Earth's market and industry for hire (R-27, R-74)."""

    price: list[int]
    """Earth's selling price of each ore type; it buys at two thirds (R-28)."""
    stock: list[int]
    """The ore of each type Earth has to sell."""
    minimum_bids: dict[Unit, int]
    score_per_credit: int
    """How many points of score stand for one Earth credit when credits run short (l.787-791)."""
    limited_selling: bool = True

    def copy(self) -> Market:
        """A copy sharing nothing a turn may change."""
        twin = _twin(self)
        twin.price = list(self.price)
        twin.stock = list(self.stock)
        twin.minimum_bids = dict(self.minimum_bids)
        return twin


@dataclass
class GameState:
    """Everything the rules need between turns."""

    turn: int
    seed: int
    planets: dict[int, Planet]
    ships: dict[int, Ship]
    empires: dict[int, Empire]
    earth: int
    market: Market
    earth_held: tuple[int, int] | None = None
    """(empire, turn) when an empire took Earth and has held it since (R-26)."""
    voting: bool = True
    """Whether the empires vote on the game's length (``TURNxx``, l.1998-2008);
    a game whose variant fixes its length, or plays until won, says no (R-72)."""
    routes_before_fuel: bool = False
    """Whether a jump whose first planet does not exist, or is not linked to
    the ship's, is refused for that before its fuel is counted (R-60), as in
    games of gm's mail rules edition 5 on; games made before answered "not
    enough fuel" when the hold was short too, and kept that answer."""

    def copy(self) -> GameState:
        """A copy for a turn to change, sharing nothing it may change: what
        `copy.deepcopy` would make (tests/test_celestial_cost.py), faster."""
        twin = _twin(self)
        twin.planets = {number: planet.copy() for number, planet in self.planets.items()}
        twin.ships = {number: ship.copy() for number, ship in self.ships.items()}
        twin.empires = {number: empire.copy() for number, empire in self.empires.items()}
        twin.market = self.market.copy()
        return twin

    def ships_at(self, planet: int) -> list[Ship]:
        """The ships orbiting ``planet``, by number."""
        return sorted((s for s in self.ships.values() if s.planet == planet), key=lambda s: s.number)

    def planets_of(self, empire: int) -> list[Planet]:
        """The planets ``empire`` owns (NEUTRAL's too), by number: the same order on every replay."""
        planets = self.planets  # only the empire's are sorted: most calls want a few of many
        return [planets[n] for n in sorted([n for n, p in planets.items() if p.owner == empire])]

    def ships_of(self, empire: int) -> list[Ship]:
        """The ships ``empire`` owns (NEUTRAL's too), by number: the same order on every replay."""
        ships = self.ships
        return [ships[n] for n in sorted([n for n, s in ships.items() if s.owner == empire])]

    def name_of(self, empire: int) -> str:
        """What the sheets and notices call ``empire``: its name, or "NEUTRAL"
        for no empire (l.2050) or one no longer in the game."""
        return self.empires[empire].name if empire in self.empires else "NEUTRAL"

    def empire_named(self, name: str) -> int | None:
        """The empire called ``name``, in any case (R-2); None if there is none."""
        wanted = name.strip().lower()
        for number, empire in sorted(self.empires.items()):
            if empire.name.lower() == wanted:
                return number
        return None

    def rating(self, empire: int, other: int) -> AllianceLevel:
        """How ``empire`` rates ``other`` (NEUTRAL rates everyone NEUTRAL
        but empires hostile to Earth, which it rates HOSTILE)."""
        if empire == other:
            return AllianceLevel.ALLY
        if empire == NEUTRAL:
            hostile = other in self.empires and self.empires[other].hostile_to_earth
            return AllianceLevel.HOSTILE if hostile else AllianceLevel.NEUTRAL
        return self.empires[empire].rating(other) if empire in self.empires else AllianceLevel.NEUTRAL


def draws(seed: int, turn: int, purpose: str) -> random.Random:
    """The random numbers for one purpose of one turn ("ship-numbers",
    "overflow:S123"): from a stable hash of the game's seed, so a replay
    draws the same (spec section 12.2). Use only ``randrange``, ``choice``
    and ``shuffle`` of what it returns, over sorted sequences."""
    digest = hashlib.sha256(f"{seed}:{turn}:{purpose}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# Starting values: every figure the manual does not state, from its
# turn-3 example sheet where it shows one.

START_SHIPS = ((1, 10), (1, 10), (1, 10), (1, 10), (0, 40))
"""The five small ships each empire starts with (l.137), as (fighters, cargo
units): four of f=1 c=10 and one of c=40, as the example sheet shows them (l.2183-2197)."""
START_FUEL = 4
"""Fuel (ore 0) in the hold of each starting ship with fighters (l.2183-2190)."""
START_PRICES = (10, 16, 6, 6, 15, 6, 5, 3, 12, 14)
START_STOCK = (89, 76, 99, 98, 71, 100, 95, 90, 81, 74)
START_MINIMUM_BIDS = {Unit.CARGO: 1, Unit.FIGHTER: 3, Unit.SHIELD: 2, Unit.TRACTOR: 2}
START_SCORE_PER_CREDIT = 2


def new_game(galaxy: Galaxy, names: list[str]) -> GameState:
    """Turn 1 of a game for ``len(names)`` empires on ``galaxy``: each empire
    owns its home planet and five ships there (numbers drawn from the seed,
    l.2028); every other planet is NEUTRAL's."""
    planets: dict[int, Planet] = {}
    for p in galaxy.planets:
        planets[p.number] = Planet(p.number, p.name, p.links, mines=list(p.mines), ore=list(p.ore),
                                   industry=p.industry, pdus=p.pdus, research=p.research)
    empires: dict[int, Empire] = {}
    for seat, name in enumerate(names, 1):
        home = galaxy.homes[seat - 1]
        planets[home].owner = seat
        planets[home].home_of = seat
        empires[seat] = Empire(seat, name, home)
    numbers = list(range(FIRST_NUMBER, FIRST_NUMBER + 900))
    draws(galaxy.seed, 1, "ship-numbers").shuffle(numbers)
    ships: dict[int, Ship] = {}
    for seat in empires:
        for fighters, cargo in START_SHIPS:
            number = numbers.pop()
            hold = Cargo()
            if fighters:
                hold.ore[0] = START_FUEL
            ships[number] = Ship(number, seat, empires[seat].home, fighters=fighters, cargo_units=cargo, hold=hold)
    market = Market(list(START_PRICES), list(START_STOCK), dict(START_MINIMUM_BIDS), START_SCORE_PER_CREDIT)
    return GameState(1, galaxy.seed, planets, ships, empires, galaxy.earth, market)
