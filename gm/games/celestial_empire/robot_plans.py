"""The Celestial Empire robot's plans for its planets, its trade with Earth
and its diplomacy, written as order lines in the manual's notation.

Each plan reads the `View` and writes into a `Plan`: the order lines so far
and a ledger of what each own planet still has to spend this turn (its ore
and its industry), so that no two orders count on the same ore or industry
and each order is one the turn carries out (the manual's costs, Table
"build", l.1369-1383, are the rules' own tables in `formulas`). Nothing here
draws a random number or reads anything but the view.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .formulas import BUILD_HYPERDRIVE, BUILD_INDUSTRY, BUILD_PDU, BUILD_SHIP_UNIT, sell_price
from .orders import Unit
from .robot_view import ORE_TYPES, OwnShip, PlanetView, View

EASY, NORMAL, HARD = "easy", "normal", "hard"
LEVELS = (EASY, NORMAL, HARD)
"""The robot's levels, weakest first (`GameRules.robot_levels`)."""

HOME_PDUS = 100
"""The home planet's PDUs at the start (l.639): the robot keeps at least these."""
EARTH_NEEDS = 100
"""Limited Selling: Earth buys an ore type only while it holds fewer than this (l.853-856, R-28)."""
SCOUT = (0, 6, 0, 0)
"""A new explorer: no fighters, six cargo units for fuel (fighters, cargo, tractors, shields)."""
FLEET_CAP = {EASY: 0, NORMAL: 10, HARD: 16}
"""How many ships the robot builds up to with hyperdrives."""
WARSHIP_FIGHTERS = {EASY: 0, NORMAL: 40, HARD: 80}
"""Fighter units the robot builds onto its warship at home, at most."""
RESERVE = (0, 10, 10, 10, 10, 10, 10, 10, 10, 10)
"""Ore of each type the home planet keeps, not sold to Earth."""


@dataclass
class Plan:
    """The orders chosen so far, and what each own planet has left to spend."""

    view: View
    level: str
    lines: list[str] = field(default_factory=list)
    ore: dict[int, list[int]] = field(default_factory=dict)
    industry: dict[int, int] = field(default_factory=dict)
    busy: set[int] = field(default_factory=set)
    """Ships with a battle or movement order already (a ship cannot do both, l.330-333)."""

    def __post_init__(self) -> None:
        for planet in self.view.own_planets:
            self.ore[planet.number] = list(planet.ore)
            self.industry[planet.number] = planet.industry

    def add(self, line: str) -> None:
        """Add an order line."""
        self.lines.append(line)

    def can_build(self, planet: int, ore: list[int], industry: int) -> int:
        """How many items of this cost the planet can still pay for."""
        have = self.ore.get(planet, [0] * ORE_TYPES)
        counts = [self.industry.get(planet, 0) // industry] if industry else []
        counts += [have[t] // ore[t] for t in range(ORE_TYPES) if ore[t]]
        return min(counts) if counts else 0

    def spend(self, planet: int, ore: list[int], industry: int, n: int) -> None:
        """Count ``n`` items of this cost as paid from the planet's ledger."""
        have = self.ore[planet]
        for t in range(ORE_TYPES):
            have[t] -= n * ore[t]
        self.industry[planet] -= n * industry


def cost(row: tuple[tuple[int, ...], int, int]) -> tuple[list[int], int]:
    """A row of Table "build" as (ore of each type, industry)."""
    types, each, industry = row
    return [each if t in types else 0 for t in range(ORE_TYPES)], industry


def ship_cost(fighters: int, cargo: int, tractors: int, shields: int) -> tuple[list[int], int]:
    """A hyperdrive with these units (l.1381)."""
    ore, industry = cost(BUILD_HYPERDRIVE)
    for unit, count in ((Unit.FIGHTER, fighters), (Unit.CARGO, cargo), (Unit.TRACTOR, tractors),
                        (Unit.SHIELD, shields)):
        unit_ore, unit_industry = cost(BUILD_SHIP_UNIT[unit])
        ore = [a + count * b for a, b in zip(ore, unit_ore)]
        industry += count * unit_industry
    return ore, industry


def threatened(view: View, planet: PlanetView) -> bool:
    """Whether armed ships of an empire it does not count as a friend orbit the planet or a neighbour it sees."""
    near = [planet] + [view.planets[n] for n in planet.links if n in view.planets]
    return any(s.armed and s.owner != "NEUTRAL" and view.rating(s.owner) not in ("ALLY", "FRIENDLY")
               for p in near for s in p.others)


def build(plan: Plan, planet: PlanetView, what: str, row: tuple[tuple[int, ...], int, int], wanted: int) -> int:
    """Order ``planet`` to build up to ``wanted`` items (``what``: ``D``, ``I``, ``M8``) it can pay for; how many."""
    ore, industry = cost(row)
    n = min(wanted, plan.can_build(planet.number, ore, industry))
    if n > 0:
        plan.spend(planet.number, ore, industry, n)
        plan.add(f"{planet.number}B{n}{what}")
    return max(0, n)


def economy(plan: Plan) -> None:
    """What the home planet builds (and other planets with industry): PDUs
    when armed strangers are near or below the home's 100, new ships up to the
    level's fleet, mines of ore 8 and 9 (what industry and mines are made of)
    and of 7 (hyperdrives), then industry, the income that makes score."""
    view, level = plan.view, plan.level
    home = view.home
    if home is None:
        return
    for planet in view.own_planets:
        if planet.industry == 0 or planet.number == home.number:
            continue
        if planet.standing is None and planet.mines[4] and level != EASY:  # a person's standing order
            plan.add(f"O{planet.number}B{planet.industry}D")
    danger = threatened(view, home)
    floor = HOME_PDUS + (30 if danger else 0) + (view.turn // 4 if level == EASY else 0)
    if home.pdus < floor:
        build(plan, home, "D", BUILD_PDU, min(20 if danger else 5, floor - home.pdus))
    fleet = len(view.ships)
    if fleet < FLEET_CAP[level] and (view.turn % (2 if level == HARD else 3) == 1 or fleet < 5):
        ore, industry = ship_cost(*SCOUT)
        if plan.can_build(home.number, ore, industry) >= 1:
            plan.spend(home.number, ore, industry, 1)
            plan.add(f"{home.number}B1H{'/'.join(str(n) for n in SCOUT)}")
    mines = home.mines
    wanted_mines = [(t, goal) for t, goal in ((8, 6), (9, 6), (7, 2 if level != EASY else 0), (4, 3))
                    if mines[t] < goal]
    for t, goal in wanted_mines:
        build(plan, home, f"M{t}", BUILD_INDUSTRY, goal - mines[t])
    build(plan, home, "I", BUILD_INDUSTRY, 1000)
    if level == EASY and danger:
        build(plan, home, "D", BUILD_PDU, 1000)


def arm_warship(plan: Plan, ship: OwnShip) -> None:
    """Build fighters onto ``ship`` from the home planet's leftover ore and
    industry, up to the level's size of warship (step 16)."""
    home = plan.view.home
    room = WARSHIP_FIGHTERS[plan.level] - ship.fighters
    if home is None or ship.planet != home.number or room <= 0:
        return
    ore, industry = cost(BUILD_SHIP_UNIT[Unit.FIGHTER])
    n = min(room, plan.can_build(home.number, ore, industry))
    if n > 0:
        plan.spend(home.number, ore, industry, n)
        plan.add(f"S{ship.number}B{n}F")


def needed_ore(level: str) -> set[int]:
    """The ore types the robot buys at Earth: 8 and 9 (industry, mines), and for a fleet 4 to 7 (hyperdrives)."""
    return {8, 9} if level == EASY else {4, 5, 6, 7, 8, 9}


def trade_at_earth(plan: Plan, ship: OwnShip) -> None:
    """Over Earth: sell every ore of the hold but fuel that Earth still buys
    (its Limited Selling), then buy the ore the robot needs with the credits
    it will have, and fuel for the way home (step 8: selling comes before buying)."""
    view = plan.view
    credits = view.credits
    free = ship.empty
    keep_credits = "Credits" in view.winning and plan.level == HARD
    for z in range(1, ORE_TYPES):
        n = ship.ore[z]
        if view.limited:
            n = min(n, max(0, EARTH_NEEDS - view.stock[z]))
        if n > 0:
            plan.add(f"S{ship.number}X{n}R{z}")
            credits += sell_price(view.prices[z], n)
            free += n
    if ship.fuel < 8 and view.stock[0] > 0:
        n = min(8 - ship.fuel, view.stock[0], free, credits // max(1, view.prices[0]))
        if n > 0:
            plan.add(f"S{ship.number}P{n}R0")
            credits -= n * view.prices[0]
            free -= n
    if keep_credits:
        return
    wanted = sorted(needed_ore(plan.level), key=lambda z: (view.prices[z], z))
    for z in wanted:
        share = free // max(1, len(wanted))
        n = min(share, view.stock[z] // 2, credits // max(1, view.prices[z]))
        if n > 0:
            plan.add(f"S{ship.number}P{n}R{z}")
            credits -= n * view.prices[z]
            free -= n


def cargo_for_earth(plan: Plan, ship: OwnShip, planet: PlanetView) -> None:
    """At the home planet: load what the robot does not use for sale at Earth (surplus over `RESERVE` of the
    types it does not need), and fuel for the round trip."""
    have = plan.ore.get(planet.number)
    if have is None:
        return
    free = ship.empty
    fuel = min(12 - ship.fuel, have[0], free)
    if fuel > 0:
        plan.add(f"S{ship.number}L{fuel}R0")
        have[0] -= fuel
        free -= fuel
    keep = needed_ore(plan.level)
    for z in range(1, ORE_TYPES):
        n = min(free, have[z] - RESERVE[z] - (40 if z in keep else 0))
        if n > 0 and (z not in keep or have[z] > 80):
            plan.add(f"S{ship.number}L{n}R{z}")
            have[z] -= n
            free -= n


def diplomacy(plan: Plan, intruders: set[str]) -> dict[str, str]:
    """Alliance changes (one level a turn, l.431-437): every level answers an
    empire that rates it HOSTILE in kind and rates HOSTILE the owners of armed
    ships at its planets, so its PDUs may fire (l.1082-1083); the hard robot
    also offers friendship to the empires it has met and returns what they
    offer, up to ALLY, whose win it would share (R-18). The ratings the turn
    will have after the changes, by empire name."""
    view = plan.view
    after = {name: view.rating(name) for name in view.empires_seen()}
    down = {"ALLY": "FRIENDLY", "FRIENDLY": "NEUTRAL", "NEUTRAL": "HOSTILE"}
    up = {"HOSTILE": "NEUTRAL", "NEUTRAL": "FRIENDLY", "FRIENDLY": "ALLY"}
    for name in view.empires_seen():
        mine, theirs = view.rating(name), view.rated_by(name)
        friendly = theirs in ("FRIENDLY", "ALLY")
        if (theirs == "HOSTILE" or (name in intruders and not friendly)) and mine in down:
            plan.add(f"-{name}")
            after[name] = down[mine]
        elif plan.level == HARD and mine in up and name not in intruders:
            target = "ALLY" if theirs == "ALLY" else "FRIENDLY"
            if mine != target and (mine != "FRIENDLY" or theirs == "ALLY"):
                plan.add(f"+{name}")
                after[name] = up[mine]
    if plan.level == HARD and view.turn % 10 == 2:
        plan.add(f"{{{view.name} offers peace: rate {view.name} FRIENDLY and {view.name} will do the same}}")
    return after
