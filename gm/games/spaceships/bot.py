"""A random but legal player, for benchmarks and property tests.

Randomness comes in from the caller as a `random.Random`, so the rules core
stays pure and every game the bot plays can be replayed from its seed.
"""

from __future__ import annotations

import random
from functools import cache

from .fleet import EARLY_FLEET, Fleet, build_fleet
from .geometry import ALL_CELLS, Cell, Geometry, cells_of
from .orders import Beam, Kamikaze, Missile, MissileSelector, Order, Placement, Scan, ShipRef, Strike
from .ruleset import DEFAULT, Ruleset
from .ships import ShipType, placements
from .state import GameState

STANDARD_CHOICES = (
    (ShipType.DS,), (ShipType.KC,), (ShipType.FS, ShipType.PC), (ShipType.MD,), (ShipType.LS, ShipType.HS),
)


@cache
def _placements(type: ShipType, geometry: Geometry, cube_only: bool = False) -> list[frozenset[Cell]]:
    found = placements(type, geometry)
    if type is ShipType.DS and cube_only:
        found = [p for p in found if geometry.is_box(p, (2, 2, 2))]
    return found


def random_setup(rng: random.Random, ruleset: Ruleset = DEFAULT,
                 types: list[ShipType] | None = None) -> list[Placement]:
    """Setup lines for a random legal fleet: the standard fleet [3.7] unless
    ``types`` says which ships to place."""
    if types is None:
        types = [rng.choice(group) for group in (EARLY_FLEET if ruleset.early else STANDARD_CHOICES)]
    while True:
        used = 0
        lines = []
        for type in types:
            options = [p for p in _placements(type, ruleset.geometry, ruleset.cube_death_star) if not _mask(p) & used]
            if not options:
                break
            cells = rng.choice(options)
            used |= _mask(cells)
            lines.append(Placement(type, None, tuple(sorted(cells))))
        else:
            return lines


def random_fleet(rng: random.Random, ruleset: Ruleset = DEFAULT) -> Fleet:
    return build_fleet(random_setup(rng, ruleset), ruleset)


def _mask(cells: frozenset[Cell]) -> int:
    mask = 0
    for c in cells:
        mask |= c.bit
    return mask


def random_orders(state: GameState, player: int, rng: random.Random, eagerness: float = 0.8) -> list[Order]:
    """Random orders that the rules allow ``player`` in the coming turn.

    ``eagerness`` is the chance of using each action the player is entitled
    to; the strikes are written in a random order among the launches."""
    side = state.side(player)
    entitled = state.entitlement(player)
    geometry = state.ruleset.geometry
    fleet = side.fleet
    orders: list[Order] = []
    several_beams = len(entitled.beam_directions) > 1
    for index, directions in entitled.beam_directions.items():
        if state.ruleset.early:
            if rng.random() < eagerness:
                orders.append(_early_beam(fleet.ships[index], geometry, rng))
            continue
        if rng.random() < eagerness:
            direction = rng.choice(sorted(directions))
            if rng.random() < 0.5:
                direction = (-direction[0], -direction[1], -direction[2])
            start = rng.choice(ALL_CELLS)
            middle = geometry.step(start, direction)
            end = geometry.step(middle, direction) if middle else None
            if end is not None:
                ship = fleet.ships[index]
                named = ShipRef(ship.type, ship.identity) if several_beams or rng.random() < 0.2 else None
                orders.append(Beam(start, end, named))
    extra_strikes = 0
    unfired = cells_of(side.unfired_missiles)
    for index in entitled.missile_ships:
        if rng.random() < eagerness:
            cell = rng.choice([c for c in unfired if fleet.ship_at[c.index] == index])
            orders.append(Missile(_shortest_selector(cell, unfired, rng)))
            extra_strikes += 1
    for index in entitled.kamikaze_ships:
        if rng.random() < eagerness:
            orders.append(Kamikaze(rng.choice(cells_of(side.undamaged(fleet.ships[index])))))
            extra_strikes += 1
    for _ in range(entitled.scans if state.ruleset.scans else 0):
        if rng.random() < eagerness:
            orders.append(Scan(rng.choice(ALL_CELLS)))
    strikes = sum(rng.random() < eagerness for _ in range(entitled.conventional)) + extra_strikes
    for _ in range(strikes):
        orders.insert(rng.randrange(len(orders) + 1), Strike(rng.choice(ALL_CELLS)))
    return orders


def _early_beam(ship, geometry: Geometry, rng: random.Random) -> Beam:
    """A five-cell line through the death star [early 6.1.3]."""
    through = rng.choice(ship.cells)
    axis = rng.randrange(3)
    x, y, z = geometry.position(through)
    ends = []
    for value in (0, 4):
        position = [x, y, z]
        position[axis] = value
        end = geometry.at(*position)
        assert end is not None, "a beam's end lies in the space"
        ends.append(end)
    if rng.random() < 0.5:
        ends.reverse()
    return Beam(ends[0], ends[1])


def _shortest_selector(cell: Cell, unfired: list[Cell], rng: random.Random) -> MissileSelector:
    """A selector for ``cell`` that matches no other unfired missile [11.5.3]."""
    full = (cell.colour, cell.letter, cell.number)
    candidates = []
    for keep in ((0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)):
        values = [full[i] if i in keep else None for i in range(3)]
        selector = MissileSelector(*values)  # type: ignore[arg-type]
        if [c for c in unfired if selector.matches(c)] == [cell]:
            candidates.append(selector)
    return rng.choice(candidates)
