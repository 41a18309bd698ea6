"""A hunt-then-target baseline for the Spaceships robot's benchmark.

It strikes at random among the cells it has not yet learnt anything about
until a strike hits, then strikes the cells adjacent [1.2.3] to its hits
that no destruction report has explained yet, as a person playing
Battleships does. It fires every missile [8.1.3] at the same targets, its
beam [8.2] along a random line, and its scans [8.3] at random untried
cells; it launches a kamikaze strike [4.5] only when it could otherwise
only stop [2.3.2]. It reads the same `SeatView` as the robot, so it too
sees only its seat's knowledge, and its orders are legal by construction.
"""

from __future__ import annotations

import random

from gm.games.spaceships.geometry import ALL_CELLS, cells_of
from gm.games.spaceships.orders import Beam, Kamikaze, Missile, MissileSelector, Order, Scan, ShipRef, Strike
from gm.games.spaceships.robot import SeatView
from gm.games.spaceships.robot_model import read_views


def hunt_target_orders(view: SeatView, rng: random.Random) -> list[Order]:
    """Hunt at random until a hit, then strike around the unexplained hits."""
    known = read_views(view.player, view.views)
    geometry = view.ruleset.geometry
    side, entitled = view.side, view.entitlement
    fleet = side.fleet
    orders: list[Order] = []
    several = sum(1 for s in fleet.ships if s.type.beam) > 1
    for index, directions in sorted(entitled.beam_directions.items()):
        ship = fleet.ships[index]
        named = ShipRef(ship.type, ship.identity) if several else None
        if view.ruleset.early:  # five cells along an axis through the death star [early 6.1.3]
            x, y, z = geometry.position(rng.choice(ship.cells))
            axis = rng.randrange(3)
            ends = []
            for value in (0, 4):
                p = [x, y, z]
                p[axis] = value
                ends.append(geometry.at(*p))
            orders.append(Beam(ends[0], ends[1], named))  # type: ignore[arg-type]
            continue
        lines = []
        for d in sorted(directions):
            for start in ALL_CELLS:
                middle = geometry.step(start, d)
                end = geometry.step(middle, d) if middle is not None else None
                if end is not None:
                    lines.append((start, end))
        start, end = rng.choice(lines)
        orders.append(Beam(start, end, named))
    unfired = side.unfired_missiles
    for index in entitled.missile_ships:
        cell = rng.choice(cells_of(fleet.ships[index].mask & unfired))
        orders.append(Missile(MissileSelector(cell.colour, cell.letter, cell.number)))
    strikes = entitled.conventional + len(entitled.missile_ships)
    if entitled.only_kamikaze_and_scans:
        for index in entitled.kamikaze_ships:
            orders.append(Kamikaze(rng.choice(cells_of(side.undamaged(fleet.ships[index])))))
            strikes += 1
    fresh = known.strikeable
    around = 0
    for c in cells_of(known.unresolved):
        around |= geometry.adjacent_mask(c)
    targets = cells_of(known.sure) + _shuffled(cells_of(around & fresh & ~known.sure), rng)
    targets += _shuffled(cells_of(fresh & ~around & ~known.sure), rng)
    targets += _shuffled(list(ALL_CELLS), rng)
    chosen = targets[:strikes]
    if view.ruleset.scans:
        rest = [c for c in cells_of(fresh) if c not in chosen] or list(ALL_CELLS)
        for _ in range(entitled.scans):
            orders.append(Scan(rng.choice(rest)))
    return orders + [Strike(c) for c in chosen]


def _shuffled(cells: list, rng: random.Random) -> list:
    rng.shuffle(cells)
    return cells
