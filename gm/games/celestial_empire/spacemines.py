"""Spacemines: deploying and retrieving them (step 10) and their attacks on
ships that came into a planet (step 20) (§Spacemines l.877-934; spec 7.10,
7.20; rulings R-36 to R-39).

Deployed spacemines belong to nobody and attack every ship entering their
planet, the owner's own included. Movement (step 17) reports each entry of
a ship into a planet with `spacemine_attack`, in the order of jumping; step
20 resolves them in that order, each attack with the spacemines deployed at
that moment, and queues the shots for the damage resolution of step 22.
"""

from __future__ import annotations

from collections.abc import Sequence

from .answers import outcome, own_planet, own_ship, reduce
from .orders import DeployFromShip, Order, Retrieve
from .orders_empire import DeployFromPlanet
from .report import Report, Volley
from .rotation import in_sub_steps
from .state import GameState, Ship


def spacemines(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Step 10: a planets deploy from their stockpile, b ships deploy from
    their hold, c ships retrieve deployed spacemines (R-39)."""
    for empire, order in in_sub_steps(orders, (DeployFromPlanet, DeployFromShip, Retrieve)):
        if isinstance(order, DeployFromPlanet):
            deploy_from_planet(state, empire, order, report)
        elif isinstance(order, DeployFromShip):
            deploy_from_ship(state, empire, order, report)
        elif isinstance(order, Retrieve):
            retrieve(state, empire, order, report)


def deploy_from_planet(state: GameState, empire: int, order: DeployFromPlanet, report: Report) -> None:
    """``234D2``: only the planet's owner deploys its stockpile (R-39)."""
    planet = own_planet(state, empire, order.planet, order, report)
    if planet is None:
        return
    n, code, why = reduce(order.amount, [(planet.spacemines, "SM",
                                          f"planet {order.planet} had {planet.spacemines} spacemines stored")])
    if n <= 0:
        why = "nothing to deploy" if order.amount <= 0 else f"planet {order.planet} has no spacemines stored"
        report.refused(empire, order, why)
        return
    planet.spacemines -= n
    planet.deployed += n
    report.did(empire, order, outcome(DeployFromPlanet(order.planet, n), code, why) if code
               else f"{n} spacemines deployed around planet {order.planet}")


def deploy_from_ship(state: GameState, empire: int, order: DeployFromShip, report: Report) -> None:
    """``S123D34``: from the ship's hold, at any planet, owned or not (l.908-909, R-39)."""
    ship = own_ship(state, empire, order.ship, order, report)
    if ship is None:
        return
    n, code, why = reduce(order.amount, [(ship.hold.spacemines, "SM",
                                          f"ship {order.ship} carried {ship.hold.spacemines} spacemines")])
    if n <= 0:
        why = "nothing to deploy" if order.amount <= 0 else f"ship {order.ship} carries no spacemines"
        report.refused(empire, order, why)
        return
    ship.hold.spacemines -= n
    state.planets[ship.planet].deployed += n
    report.did(empire, order, outcome(DeployFromShip(order.ship, n), code, why) if code
               else f"{n} spacemines deployed around planet {ship.planet}")


def retrieve(state: GameState, empire: int, order: Retrieve, report: Report) -> None:
    """``S123R23``: one tractor unit and one free cargo unit a spacemine,
    always locking on (l.911-915, l.1924-1926); any ship at any planet; a
    ship that retrieves cannot engage tractors this turn (R-39)."""
    ship = own_ship(state, empire, order.ship, order, report)
    if ship is None:
        return
    planet = state.planets[ship.planet]
    free = ship.free_space()
    n, code, why = reduce(order.amount, [
        (planet.deployed, "SM", f"{planet.deployed} spacemines were deployed around planet {ship.planet}"),
        (ship.tractors, "tractor units", f"ship {order.ship} has {ship.tractors} tractor units"),
        (free, "C", f"ship {order.ship} had {max(0, free)} free cargo units")])
    if n <= 0:
        report.refused(empire, order, {
            "": "nothing to retrieve", "SM": f"no spacemines are deployed around planet {ship.planet}",
            "tractor units": f"ship {order.ship} has no tractor units",
            "C": f"ship {order.ship} has no free cargo units"}[code])
        return
    planet.deployed -= n
    ship.hold.spacemines += n
    report.retrieved.add(ship.number)
    report.did(empire, order, outcome(Retrieve(order.ship, n), code, why) if code
               else f"{n} spacemines retrieved from around planet {ship.planet}")


def spacemine_attack(state: GameState, ship: Ship, planet: int, report: Report) -> None:
    """For movement (step 17): ``ship`` has just entered ``planet``, passing
    through or ending its jump there, jumping or towed. Call it for every
    entry, in the order of jumping (jumps of 1 link first, then R-11 order,
    then along the path; a towed ship right after its tower): step 20
    resolves the attacks in that order (R-37). Ships that did not move, were
    built or placed by research are not attacked (R-38): do not call it for
    them. Nothing changes until step 20."""
    report.minefield.append((ship.number, planet))


def shots_of(deployed: int) -> int:
    """Shots of an attack by ``deployed`` spacemines: two to destroy a ship unit (l.890-891, R-36)."""
    return deployed // 2


def losses_of(deployed: int) -> int:
    """Spacemines destroyed by their own attack: 10%, rounded up (l.895-897)."""
    return -(-deployed // 10)


def spacemine_attacks(state: GameState, report: Report) -> None:
    """Step 20, spacemine attack resolution: each queued entry in turn is
    attacked by all the spacemines then deployed at the planet, floor(d/2)
    shots (R-36) queued for step 22, and ceil(d/10) of them are destroyed
    at once, before the next entry (l.895-898, R-37)."""
    for number, planet in report.minefield:
        there = state.planets[planet]
        d = there.deployed
        if d <= 0 or number not in state.ships:
            continue
        there.deployed -= losses_of(d)
        report.volleys.append(Volley(number, shots_of(d), f"{d} spacemines at planet {planet}"))
    report.minefield = []
