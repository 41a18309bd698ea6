"""Industry at work: unbuilding units (step 13), ore transmutation (14),
building on planets (15) and building units on ships (16), with Earth's
removal of its spacemines in step 15 (manual §Unbuilding l.1302-1343,
§Ore Transmutation l.1529-1546, §Building l.1345-1439; spec 7.13-7.16).

Every industry of a planet is used at most once a turn, across all these
steps and Earth contracting (step 9): the budget is the `Report`'s
(`Report.free_industry`, `Report.use_industry`, ruling R-53), so no step
can spend what another already spent, and industry built, unloaded or made
this turn waits for the next.

Orders are reduced to what can be done (principle P1, ruling R-25), and the
command history shows the order actually carried out with the limit that
cut it, in the manual's codes (`answers.outcome`, l.2386-2396):
``123B20M3`` done as ``123B5M3, cut by R8: ...``.
"""

from __future__ import annotations

from collections.abc import Sequence

from .answers import Limit, as_carried_out, outcome, own_planet, own_ship, reduce
from .formulas import (
    BUILD_HYPERDRIVE,
    BUILD_INDUSTRY,
    BUILD_MINE,
    BUILD_PDU,
    BUILD_SHIP_UNIT,
    BUILD_SPACEMINE_INDUSTRY,
    UNBUILD_SHIP_UNIT,
)
from .galaxy import FIRST_NUMBER, ORE_TYPES
from .orders import AllianceLevel, Order, Unit
from .orders_empire import (
    BuildHyperdrives,
    BuildIndustry,
    BuildMines,
    BuildPDUs,
    BuildSpacemines,
    BuildUnits,
    Transmute,
    Unbuild,
)
from .report import Report
from .rotation import in_sub_steps
from .state import GameState, Planet, Ship, draws, no_ore

UNIT_ORDER = (Unit.CARGO, Unit.FIGHTER, Unit.TRACTOR, Unit.SHIELD)
"""Sub-steps a-d of steps 9, 13 and 16: cargo, fighter, tractor, shield (l.242-302)."""
UNIT_NAMES = {Unit.CARGO: "cargo", Unit.FIGHTER: "fighter", Unit.TRACTOR: "tractor", Unit.SHIELD: "shield"}
TRANSMUTE_INDUSTRY = 10
"""Industry to transmute one unit of ore (l.1536)."""
EARTH_SPACEMINE_REMOVAL = 10
"""Earth removes one in this many of the spacemines orbiting it, rounded up, in step 15 (l.746-747, R-33)."""
LAST_SHIP_NUMBER = FIRST_NUMBER + 899
"""Ship numbers are three digits, 100-999 (R-54, R-75)."""

Cost = tuple[list[int], int]
"""What one item costs: ore of each type, and industry."""


def cost_of(entry: tuple[tuple[int, ...], int, int]) -> Cost:
    """One item's cost from a row of the manual's table "build" (l.1369-1383)."""
    types, each, industry = entry
    ore = no_ore()
    for t in types:
        ore[t] = each
    return ore, industry


def unit_cost(unit: Unit) -> Cost:
    """What one unit of ``unit`` costs to build onto a ship (Table "build", l.1369-1383)."""
    return cost_of(BUILD_SHIP_UNIT[unit])


def ship_cost(fighters: int, cargo: int, tractors: int, shields: int) -> Cost:
    """A new ship: the hyperdrive (10 each of ore 4-7, 40 industry) and every unit on it (l.1381)."""
    ore, industry = cost_of(BUILD_HYPERDRIVE)
    for unit, count in ((Unit.FIGHTER, fighters), (Unit.CARGO, cargo), (Unit.TRACTOR, tractors),
                        (Unit.SHIELD, shields)):
        unit_ore, unit_industry = unit_cost(unit)
        ore = [a + count * b for a, b in zip(ore, unit_ore)]
        industry += count * unit_industry
    return ore, industry


def affordable(ore_have: Sequence[int], industry_free: int, cost: Cost, where: str) -> list[Limit]:
    """The limits that ``where``'s ore and ``industry_free`` put on items costing ``cost``."""
    ore, industry = cost
    limits: list[Limit] = []
    if industry:
        limits.append((industry_free // industry, "I", f"{industry_free} industry free"))
    for t in range(ORE_TYPES):
        if ore[t]:
            limits.append((ore_have[t] // ore[t], f"R{t}", f"{ore_have[t]} ore {t} {where}"))
    return limits


def spend(planet: Planet, cost: Cost, n: int, report: Report) -> None:
    """Take ``n`` items' ore from the planet and mark their industry used."""
    ore, industry = cost
    for t in range(ORE_TYPES):
        planet.ore[t] -= n * ore[t]
        assert planet.ore[t] >= 0
    report.use_industry(planet, n * industry)


def by_unit(order: Order) -> object:
    """The unit an unbuild or build order is for: steps 13 and 16 take them by unit."""
    return getattr(order, "unit", None)


def unbuilding(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SxxxZyyC/F/T/S``: remove units from one's own ship at one's own
    planet, with the planet's free industry (as much as building them); half
    the ore comes back to the planet, rounded down for the whole order (R-52).
    Only empty cargo units can be removed."""
    for empire, order in in_sub_steps(orders, UNIT_ORDER, by_unit):
        assert isinstance(order, Unbuild)
        ship = own_ship(state, empire, order.ship, order, report)
        if ship is None:
            continue
        planet = state.planets[ship.planet]
        if planet.owner != empire:  # the industry used is the planet's below
            report.refused(empire, order, f"unbuilding uses the industry of a planet of yours; ship {ship.number} "
                                          f"is at planet {planet.number}, which is not yours")
            continue
        types, back, industry = UNBUILD_SHIP_UNIT[order.unit]
        name = UNIT_NAMES[order.unit]
        have = {Unit.CARGO: max(0, ship.free_space()), Unit.FIGHTER: ship.fighters,
                Unit.TRACTOR: ship.tractors, Unit.SHIELD: ship.shields}[order.unit]
        what = f"{have} empty cargo units" if order.unit == Unit.CARGO else f"{have} {name} units"
        free = report.free_industry(planet)
        n, code, why = reduce(order.amount, [(have, order.unit.value, what),
                                             (free // industry, "I", f"{free} industry free")])
        if n == 0:
            report.refused(empire, order, f"{code}: {why}" if code else "no units asked for")
            continue
        report.use_industry(planet, n * industry)
        add_units(ship, order.unit, -n)
        recovered = int(n * back)
        for t in types:
            planet.ore[t] += recovered
        ore = ", ".join(f"{recovered} ore {t}" for t in types)
        report.did(empire, order, outcome(as_carried_out(order, n), code, why,
                                          f"{ore} to planet {planet.number}"))


def transmutation(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``xxxXyyRzRw``: an own planet turns ore z into ore w, 10 industry a unit (l.1529-1546)."""
    for empire, order in orders:
        assert isinstance(order, Transmute)
        planet = own_planet(state, empire, order.planet, order, report)
        if planet is None:
            continue
        if order.from_type == order.to_type:
            report.refused(empire, order, f"ore {order.from_type} is already ore {order.to_type}")
            continue
        free = report.free_industry(planet)
        z = order.from_type
        n, code, why = reduce(order.amount, [(planet.ore[z], f"R{z}", f"{planet.ore[z]} ore {z} on the planet"),
                                             (free // TRANSMUTE_INDUSTRY, "I", f"{free} industry free")])
        if n == 0:
            report.refused(empire, order, f"{code}: {why}" if code else "no ore asked for")
            continue
        report.use_industry(planet, n * TRANSMUTE_INDUSTRY)
        planet.ore[z] -= n
        planet.ore[order.to_type] += n
        report.did(empire, order, outcome(as_carried_out(order, n), code, why))


PLANET_STEPS: tuple[type, ...] = (BuildIndustry, BuildSpacemines, BuildPDUs, BuildMines, BuildHyperdrives)
"""Step 15's sub-steps: a industry, b spacemines, c PDUs, d mines, e hyperdrives (l.281-290)."""


def _item_cost(order: Order) -> tuple[Cost, str]:
    """What one item of a planet's build order costs, and what it is called."""
    if isinstance(order, BuildIndustry):
        return cost_of(BUILD_INDUSTRY), "industry"
    if isinstance(order, BuildPDUs):
        return cost_of(BUILD_PDU), "PDUs"
    if isinstance(order, BuildMines):
        return cost_of(BUILD_MINE), f"mines of type {order.mine_type}"
    if isinstance(order, BuildSpacemines):
        ore = no_ore()
        ore[order.ore_type] = 1
        return (ore, BUILD_SPACEMINE_INDUSTRY), "spacemines"
    assert isinstance(order, BuildHyperdrives)
    return ship_cost(order.fighters, order.cargo, order.tractors, order.shields), "new ships"


def planet_building(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``xxxByyI``, ``xxxByySz``, ``xxxByyD``, ``xxxByyMz``, ``xxxByyHf/c/t/s``:
    an own planet builds from its ore and free industry (Table "build"),
    reduced to what it can afford (l.1358-1367, R-25); new ships only whole,
    with all their units (R-54). Then Earth removes a tenth of the
    spacemines orbiting it, rounded up (l.746-747, R-33)."""
    numbers: list[int] | None = None  # drawn at the first new ship: no step before it here adds or drops a ship
    for empire, order in in_sub_steps(orders, PLANET_STEPS):
        assert isinstance(order, (BuildIndustry, BuildSpacemines, BuildPDUs, BuildMines, BuildHyperdrives))
        planet = own_planet(state, empire, order.planet, order, report)
        if planet is None:
            continue
        cost, what = _item_cost(order)
        limits = affordable(planet.ore, report.free_industry(planet), cost, "on the planet")
        if isinstance(order, BuildHyperdrives):
            numbers = _free_ship_numbers(state) if numbers is None else numbers
            limits.append((len(numbers), "H", "no ship numbers left"))
        n, code, why = reduce(order.amount, limits)
        if n == 0:
            report.refused(empire, order, f"{code}: {why}" if code else f"no {what} asked for")
            continue
        spend(planet, cost, n, report)
        note = ""
        if isinstance(order, BuildIndustry):
            planet.industry += n  # usable from next turn
        elif isinstance(order, BuildPDUs):
            planet.pdus += n
        elif isinstance(order, BuildMines):
            planet.mines[order.mine_type] += n
        elif isinstance(order, BuildSpacemines):
            planet.spacemines += n  # stored, not deployed (l.881-887)
        else:
            assert numbers is not None
            built = [numbers.pop() for _ in range(n)]
            for number in built:
                state.ships[number] = Ship(number, empire, planet.number, fighters=order.fighters,
                                           cargo_units=order.cargo, tractors=order.tractors,
                                           shields=order.shields)
            note = "new ships " + ", ".join(str(number) for number in built)
        report.did(empire, order, outcome(as_carried_out(order, n), code, why, note))
    earth_removes_spacemines(state)


def _free_ship_numbers(state: GameState) -> list[int]:
    """The unused ship numbers, in the order new ships take them (from the
    end): shuffled by the game's seed for this turn, so numbers tell nothing (R-54)."""
    free = [n for n in range(FIRST_NUMBER, LAST_SHIP_NUMBER + 1) if n not in state.ships]
    draws(state.seed, state.turn, "new-ship-numbers").shuffle(free)
    return free


def earth_removes_spacemines(state: GameState) -> int:
    """Earth removes ceil(10%) of the spacemines deployed around it, "In order
    to encourage trade" (l.746-747, R-33); returns how many."""
    earth = state.planets[state.earth]
    removed = -(-earth.deployed // EARTH_SPACEMINE_REMOVAL)
    earth.deployed -= removed
    return removed


def ship_building(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SxxxByyC/F/T/S``: units built onto a ship from the ore and free
    industry of the planet it orbits, which the builder must own (l.1416-1423);
    the ship is the builder's or an empire's that rates the builder ALLY (R-55).
    Over Earth units come only by a bid (R-10)."""
    for empire, order in in_sub_steps(orders, UNIT_ORDER, by_unit):
        assert isinstance(order, BuildUnits)
        ship = state.ships.get(order.ship)
        if ship is None or (ship.owner != empire and state.rating(ship.owner, empire) != AllianceLevel.ALLY):
            # the same words whether the ship exists or not, and nothing of where it is (R-5, spec 8)
            report.refused(empire, order, f"ship {order.ship} is not yours, nor an ally's that rates you ALLY")
            continue
        planet = state.planets[ship.planet]
        if planet.owner != empire:
            if planet.number == state.earth:
                why = (f"Earth's industry is hired by a bid, e.g. S{order.ship}B{order.amount}"
                       f"{order.unit.value}{state.market.minimum_bids.get(order.unit, 1)} (ruling R-10)")
            else:
                why = f"ship {order.ship} is at planet {planet.number}, which is not yours: " \
                      "units are built from the ore and industry of the planet below"
            report.refused(empire, order, why)
            continue
        cost = unit_cost(order.unit)
        n, code, why = reduce(order.amount, affordable(planet.ore, report.free_industry(planet), cost,
                                                       "on the planet"))
        if n == 0:
            report.refused(empire, order, f"{code}: {why}" if code else "no units asked for")
            continue
        spend(planet, cost, n, report)
        add_units(ship, order.unit, n)
        report.did(empire, order, outcome(as_carried_out(order, n), code, why))


def add_units(ship: Ship, unit: Unit, n: int) -> None:
    """Put ``n`` new units of ``unit`` on the ship (take them off when negative)."""
    if unit == Unit.CARGO:
        ship.cargo_units += n
    elif unit == Unit.FIGHTER:
        ship.fighters += n
    elif unit == Unit.TRACTOR:
        ship.tractors += n
    else:
        ship.shields += n
