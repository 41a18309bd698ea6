"""Cargo between ships and planets and from ship to ship: unloading (step 6),
loading (step 7) and tending (step 12) (§Unloading l.481-589, §Loading
l.591-734, §Ship Tending l.1268-1300; spec sections 7.6, 7.7, 7.12).

Each of the three steps runs in the manual's sub-steps: industry, then
spacemines, PDUs, ore, mines, and the global order last; inside a sub-step
the orders come in the turn's rotation (R-11). Every quantity is reduced to
what can be done and the limit named (P1): what the ship carried, what the
planet had, what its population keeps (POP, R-20), the room in the hold (C).

What moves is an `Item`; its cargo space is the manual's table (l.600-611).
A ship carries mines as a bare count (R-23): a mine takes the type it is
unloaded as.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .answers import Limit, outcome, own_ship, reduce
from .galaxy import ORE_TYPES
from .orders import (
    AllianceLevel,
    LoadAll,
    LoadIndustry,
    LoadMines,
    LoadOre,
    LoadPDUs,
    LoadSpacemines,
    Order,
    ShipOrder,
    TendAllOre,
    TendIndustry,
    TendMines,
    TendOre,
    TendPDUs,
    TendSpacemines,
    UnloadAllOre,
    UnloadIndustry,
    UnloadMines,
    UnloadOre,
    UnloadPDUs,
    UnloadSpacemines,
)
from .report import Report
from .rotation import in_sub_steps
from .state import NEUTRAL, Cargo, GameState, Planet, Ship

SIZE = {"ore": 1, "spacemines": 1, "pdus": 2, "industry": 10, "mines": 20}
"""Cargo units one of each takes (Table "cargo", l.600-611)."""
FLOOR = {"pdus": 100, "industry": 60}
"""What the population of a home planet keeps: its initial PDUs and industry (l.638-640, l.654-658, R-20)."""
GLOBAL_ORE = range(1, ORE_TYPES)
"""Global unloading, loading and tending move ore 1 to 9, never fuel (l.572-574, l.709-710, l.1288)."""


@dataclass(frozen=True)
class Item:
    """A kind of cargo: ore of a type, mines (of a type on a planet, none in a hold), industry, PDUs, spacemines."""

    kind: str
    type: int | None = None

    @property
    def size(self) -> int:
        """Cargo units one of it takes (l.600-611)."""
        return SIZE[self.kind]

    @property
    def noun(self) -> str:
        """What it is called aboard: "ore 3", "industry", "PDUs", "spacemines", "mines" (untyped there)."""
        if self.kind == "ore":
            return f"ore {self.type}"
        return {"industry": "industry", "pdus": "PDUs", "spacemines": "spacemines", "mines": "mines"}[self.kind]

    @property
    def code(self) -> str:
        """The manual's limit code for it (l.2386-2396): R0-R9, M, I, PDU, SM."""
        if self.kind == "ore":
            return f"R{self.type}"
        return {"industry": "I", "pdus": "PDU", "spacemines": "SM", "mines": "M"}[self.kind]

    def words(self, n: int) -> str:
        """``n`` of it as the history says it: "3 ore 2", "1 PDU", "6 industry"."""
        if self.kind == "ore":
            return f"{n} ore {self.type}"
        if self.kind == "industry":
            return f"{n} industry"
        noun = {"pdus": "PDU", "spacemines": "spacemine", "mines": "mine"}[self.kind]
        plural = "" if n == 1 else "s"
        kind = f" of type {self.type}" if self.kind == "mines" and self.type is not None else ""
        return f"{n} {noun}{plural}{kind}"


def held(hold: Cargo, item: Item) -> int:
    """How many of ``item`` the hold carries (mines whatever their type: they have none aboard)."""
    return hold.ore[item.type] if item.kind == "ore" and item.type is not None else int(getattr(hold, item.kind))


def stocked(planet: Planet, item: Item) -> int:
    """How many of ``item`` the planet has (spacemines: its stockpile, never the deployed ones)."""
    if item.kind in ("ore", "mines"):
        assert item.type is not None
        return getattr(planet, item.kind)[item.type]  # type: ignore[no-any-return]
    return int(getattr(planet, item.kind))


def move(ship: Ship, planet: Planet, item: Item, n: int) -> None:
    """``n`` of ``item`` from the planet into the hold (negative: from the hold onto the planet)."""
    if item.kind in ("ore", "mines"):
        assert item.type is not None
        getattr(planet, item.kind)[item.type] -= n
    else:
        setattr(planet, item.kind, getattr(planet, item.kind) - n)
    shift(ship.hold, item, n)


def shift(hold: Cargo, item: Item, n: int) -> None:
    """Add ``n`` (perhaps negative) of ``item`` to the hold."""
    if item.kind == "ore":
        assert item.type is not None
        hold.ore[item.type] += n
    else:
        setattr(hold, item.kind, getattr(hold, item.kind) + n)


def room(ship: Ship, item: Item) -> int:
    """How many of ``item`` fit in the ship's empty cargo units."""
    return max(0, ship.free_space()) // item.size


def asked(order: Order) -> tuple[Item, int]:
    """The item and amount of a one-item order."""
    kind = {UnloadIndustry: "industry", LoadIndustry: "industry", TendIndustry: "industry",
            UnloadSpacemines: "spacemines", LoadSpacemines: "spacemines", TendSpacemines: "spacemines",
            UnloadPDUs: "pdus", LoadPDUs: "pdus", TendPDUs: "pdus",
            UnloadOre: "ore", LoadOre: "ore", TendOre: "ore",
            UnloadMines: "mines", LoadMines: "mines", TendMines: "mines"}[type(order)]
    number = getattr(order, "ore_type", getattr(order, "mine_type", None))
    # Only the one-item kinds above have an amount, which the type Order does not declare.
    return Item(kind, number), int(getattr(order, "amount"))  # noqa: B009


def bad_type(item: Item) -> str:
    """Why an order naming an ore or mine type outside 0 to 9 cannot run ("" if it can)."""
    if item.type is not None and not 0 <= item.type < ORE_TYPES:
        return f"there is no {'mine' if item.kind == 'mines' else 'ore'} type {item.type} (types are 0 to 9)"
    return ""


# Step 6: unloading -----------------------------------------------------------

UNLOAD_STEPS: tuple[type, ...] = (UnloadIndustry, UnloadSpacemines, UnloadPDUs, UnloadOre, UnloadMines, UnloadAllOre)


def unloading(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Unload onto the planet below, whoever owns it (l.483-485): PDUs defend
    it "even against the player who unloaded them" (l.510-512), spacemines
    join its stockpile (l.555-557), mines join a type already there (R-23),
    the global unload moves ore 1 to 9 (l.572-574). A planet's owner is told
    what another empire unloads on it: that is how ore and mines are given (l.394)."""
    for empire, order in in_sub_steps(orders, UNLOAD_STEPS):
        assert isinstance(order, ShipOrder)
        ship = own_ship(state, empire, order.ship, order, report)
        if ship is None:
            continue
        planet = state.planets[ship.planet]
        if isinstance(order, UnloadAllOre):
            moved = [(Item("ore", t), ship.hold.ore[t]) for t in GLOBAL_ORE if ship.hold.ore[t] > 0]
            if not moved:
                report.refused(empire, order, "no ore to unload (fuel, ore 0, stays aboard)")
                continue
        else:
            assert isinstance(order, (UnloadIndustry, UnloadSpacemines, UnloadPDUs, UnloadOre, UnloadMines))
            item, amount = asked(order)
            carried = held(ship.hold, item)
            why = bad_type(item) or ("the order asks for none" if amount <= 0 else "")
            if not why and carried == 0:
                why = f"ship {ship.number} carries no {item.noun}"
            if not why and item.kind == "mines" and stocked(planet, item) == 0:
                why = f"planet {planet.number} has no type-{item.type} mine for them to join (ruling R-23)"
            if why:
                report.refused(empire, order, why)
                continue
            moved = [(item, min(amount, carried))]
        for item, n in moved:
            move(ship, planet, item, -n)
        what = ", ".join(item.words(n) for item, n in moved)
        if isinstance(order, UnloadAllOre):
            report.did(empire, order, f"unloaded {what} onto planet {planet.number}")
        else:
            (item, n), = moved
            report.did(empire, order, f"unloaded {what} onto planet {planet.number}" if n == amount
                       else outcome(replace(order, amount=n), item.code, f"the ship carried {n}"))
        if planet.owner not in (empire, NEUTRAL):
            report.tell(planet.owner, f"{state.name_of(empire)}'s ship {ship.number} unloaded {what} "
                                      f"onto your planet {planet.number}")


# Step 7: loading -------------------------------------------------------------

LOAD_STEPS: tuple[type, ...] = (LoadIndustry, LoadSpacemines, LoadPDUs, LoadOre, LoadMines, LoadAll)
PRIORITY_ITEMS = {"D": Item("pdus"), "P": Item("pdus"), "S": Item("spacemines"),
                  **{str(t): Item("ore", t) for t in range(ORE_TYPES)}}
"""What a global load's priority list may name (l.713-719, R-24)."""


def is_held_home(planet: Planet) -> bool:
    """A home planet held by its own empire: only there do the home rules apply (R-22)."""
    return planet.home_of is not None and planet.home_of == planet.owner


def may_load(state: GameState, empire: int, planet: Planet, item: Item) -> str:
    """Why ``empire`` may not load ``item`` from ``planet`` ("" if it may): the
    planet must be its own or its owner must rate it ALLY, judged now (R-17,
    R-21); mines and industry come only from a home planet held by its empire (R-22)."""
    if planet.number == state.earth and planet.owner == NEUTRAL:
        return "Earth's ore is bought, not loaded (SxxxPyyRz, l.676-677)"
    if state.rating(planet.owner, empire) != AllianceLevel.ALLY:
        return f"planet {planet.number} is not yours, nor an ally's that rates you ALLY (ruling R-17)"
    if item.kind in ("mines", "industry") and not is_held_home(planet):
        noun = "mines" if item.kind == "mines" else "industry"
        return f"{noun} can be loaded only from your home planet (or an ally's, ruling R-22)"
    return ""


def loadable(planet: Planet, item: Item) -> int:
    """What of ``item`` the planet lets go: all of it, but the population's floor on a held home (R-20)."""
    floor = FLOOR.get(item.kind, 0) if is_held_home(planet) else 0
    return max(0, stocked(planet, item) - floor)


def load_limit(ship: Ship, planet: Planet, item: Item, amount: int) -> Limit:
    """How many of ``amount`` to load, and the limit that cut it: what the
    planet lets go (its stock, or POP on a held home), then the hold's room (C)."""
    stock, free = loadable(planet, item), room(ship, item)
    if stock < stocked(planet, item):
        kept = f"planet {planet.number} had {stocked(planet, item)} and its population keeps {FLOOR[item.kind]}"
        planet_limit = (stock, "POP", kept)
    else:
        planet_limit = (stock, item.code, f"planet {planet.number} had {stock}")
    return reduce(amount, [planet_limit, (free, "C", f"the hold had room for {free}")])


def nothing_loaded(code: str, why: str) -> str:
    """The refusal when a limit leaves nothing to load: the hold's and the
    population's name their code (C, POP: ruling R-20), the planet's stock not."""
    after = {"C": " (C)", "POP": " (POP, ruling R-20)"}.get(code, "")
    return f"nothing loaded: {why}{after}"


def loading(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Load from the planet below, after all unloading (l.597-599): industry,
    spacemines (the stockpile only, l.690-691), PDUs, ore, mines of a named
    type (R-6), then every global load of every empire (l.711, R-24)."""
    for empire, order in in_sub_steps(orders, LOAD_STEPS):
        assert isinstance(order, ShipOrder)
        ship = own_ship(state, empire, order.ship, order, report)
        if ship is None:
            continue
        planet = state.planets[ship.planet]
        if isinstance(order, LoadAll):
            load_all(state, empire, ship, planet, order, report)
            continue
        assert isinstance(order, (LoadIndustry, LoadSpacemines, LoadPDUs, LoadOre, LoadMines))
        item, amount = asked(order)
        why = (bad_type(item) or ("the order asks for none" if amount <= 0 else "")
               or may_load(state, empire, planet, item))
        n, code, limit = (0, "", "") if why else load_limit(ship, planet, item, amount)
        if not why and n == 0:
            why = nothing_loaded(code, limit)
        if why:
            report.refused(empire, order, why)
            continue
        move(ship, planet, item, n)
        report.did(empire, order, outcome(replace(order, amount=n), code, limit) if code
                   else f"loaded {item.words(n)} from planet {planet.number}")
        told_owner(state, empire, ship, planet, item.words(n), report)


def load_all(state: GameState, empire: int, ship: Ship, planet: Planet, order: LoadAll, report: Report) -> None:
    """``SxxxL(spec)``: the priority list's items in its order, a repeated
    one once, fuel only if listed; then ore 1 to 9; each as much as fits (R-24)."""
    unknown = [entry for entry in order.priority if entry.upper() not in PRIORITY_ITEMS]
    if unknown:
        report.refused(empire, order,
                       f"{unknown[0]} in the priority list is not an ore type, D, P or S (ruling R-24)")
        return
    items: list[Item] = []
    for entry in [*(p.upper() for p in order.priority), *(str(t) for t in GLOBAL_ORE)]:
        if PRIORITY_ITEMS[entry] not in items:
            items.append(PRIORITY_ITEMS[entry])
    why = may_load(state, empire, planet, items[0])
    if why:
        report.refused(empire, order, why)
        return
    moved: list[tuple[Item, int]] = []
    left_behind = False
    for item in items:
        n = min(loadable(planet, item), room(ship, item))
        left_behind = left_behind or n < loadable(planet, item)
        if n > 0:
            move(ship, planet, item, n)
            moved.append((item, n))
    if not moved:
        report.refused(empire, order, "nothing loaded: the hold is full (C)" if left_behind
                       else f"nothing loaded: planet {planet.number} had nothing the order takes")
        return
    what = ", ".join(item.words(n) for item, n in moved)
    done = f"loaded {what} from planet {planet.number}"
    report.did(empire, order, outcome(order, "C", "the hold is full", done) if left_behind else done)
    told_owner(state, empire, ship, planet, what, report)


def told_owner(state: GameState, empire: int, ship: Ship, planet: Planet, what: str, report: Report) -> None:
    """An ally that lets another empire load from its planet is told what was taken."""
    if planet.owner not in (empire, NEUTRAL):
        report.tell(planet.owner,
                    f"{state.name_of(empire)}'s ship {ship.number} loaded {what} from your planet {planet.number}")


# Step 12: tending -----------------------------------------------------------

TEND_STEPS: tuple[type, ...] = (TendIndustry, TendSpacemines, TendPDUs, TendOre, TendMines, TendAllOre)


def receiver(state: GameState, empire: int, ship: Ship, to: int) -> tuple[Ship | None, str]:
    """The ship ``to`` if ``ship`` may tend to it: another ship at the same
    planet, the empire's own or one whose owner rates it ALLY (R-51, P2)."""
    other = state.ships.get(to)
    if to == ship.number:
        return None, "a ship cannot tend to itself"
    if other is None or other.planet != ship.planet:
        return None, f"there is no ship {to} at planet {ship.planet}"
    if state.rating(other.owner, empire) != AllianceLevel.ALLY:
        return None, f"ship {to} is not yours, nor an ally's that rates you ALLY (ruling R-51)"
    return other, ""


def tending(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Move cargo from one ship into another's hold at the same planet (l.1270-1274):
    each order sees the effect of the ones before it, so two ships tending to
    each other are carried out in the rotation's order (R-11, R-51)."""
    for empire, order in in_sub_steps(orders, TEND_STEPS):
        assert isinstance(order, (TendAllOre, TendIndustry, TendSpacemines, TendPDUs, TendOre, TendMines))
        ship = own_ship(state, empire, order.ship, order, report)
        if ship is None:
            continue
        other, why = receiver(state, empire, ship, order.to)
        if other is None:
            report.refused(empire, order, why)
            continue
        if isinstance(order, TendAllOre):
            items = [Item("ore", t) for t in GLOBAL_ORE if ship.hold.ore[t] > 0]
            if not items:
                report.refused(empire, order, "no ore to tend (fuel, ore 0, stays aboard)")
                continue
            moved = [(item, tend(ship, other, item, held(ship.hold, item))) for item in items]
            moved = [(item, n) for item, n in moved if n > 0]
            if not moved:
                report.refused(empire, order, f"ship {other.number} has no empty cargo units (C)")
                continue
            what = ", ".join(item.words(n) for item, n in moved)
            done = f"tended {what} to ship {other.number}"
            report.did(empire, order, outcome(order, "C", f"ship {other.number} is full", done)
                       if held_ore(ship) > 0 else done)
        else:
            item, amount = asked(order)
            carried = held(ship.hold, item)
            why = bad_type(item) or ("the order asks for none" if amount <= 0 else "")
            if not why and carried == 0:
                why = f"ship {ship.number} carries no {item.noun}"
            if not why and room(other, item) == 0:
                why = f"ship {other.number} has no room for any (C)"
            if why:
                report.refused(empire, order, why)
                continue
            n, code, limit = reduce(amount, [(carried, item.code, f"the ship carried {carried}"),
                                             (room(other, item), "C", f"ship {other.number} had room for "
                                                                      f"{room(other, item)}")])
            tend(ship, other, item, n)
            what = item.words(n)
            report.did(empire, order, outcome(replace(order, amount=n), code, limit) if code
                       else f"tended {what} to ship {other.number}")
        if other.owner != empire:
            report.tell(other.owner, f"{state.name_of(empire)}'s ship {ship.number} tended {what} "
                                     f"to your ship {other.number}")


def tend(giver: Ship, taker: Ship, item: Item, amount: int) -> int:
    """Move up to ``amount`` of ``item`` from ``giver``'s hold into ``taker``'s, as much as it carries and fits."""
    n = min(amount, held(giver.hold, item), room(taker, item))
    shift(giver.hold, item, -n)
    shift(taker.hold, item, n)
    return n


def held_ore(ship: Ship) -> int:
    """The ore of types 1 to 9 still aboard."""
    return sum(ship.hold.ore[t] for t in GLOBAL_ORE)
