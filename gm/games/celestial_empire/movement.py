"""Step 17, movement (§Movement, manual l.1442-1527; spec section 7.17).

Jump orders are carried out by their length: every one-link jump first,
then the two-link jumps, and so on up to five (l.314-318), each length in
the rotation of ruling R-11. A jump pays its fuel (ore of type 0 in the
ship's hold) from the manual's table at the ship's effective efficiency
(`formulas.fuel`, `formulas.effective_efficiency`, R-57), in full when it
starts, and then follows its route link by link as far as the links allow
(R-58, R-60). A ship held by another's tractor beams follows its tower, at
no cost, and cannot jump by itself; a ship that initiated battle this turn
cannot jump by itself either (R-49).

What movement sets off, battle resolves later in the turn: each entry of
a ship into a planet's system is queued for the spacemines there
(`spacemines.spacemine_attack`, resolved in step 20 in the order of jumping,
R-37, R-38), and the PDUs of a planet a ship passes through fire at it if
ruling R-48 says they do (`damage.pdu_passage_fire`, applied in step 22).
Battle (step 11) records which ships initiated battle (``Report.fought``,
R-49) and which tow which (``Report.towing``, R-59).
"""

from __future__ import annotations

from collections.abc import Sequence

from .answers import no_such_planet, own_ship
from .damage import pdu_passage_fire
from .formulas import MAX_JUMP, effective_efficiency, fuel
from .orders import Order
from .orders_empire import Jump
from .report import Report
from .spacemines import spacemine_attack
from .state import GameState, Planet, Ship


def entering(state: GameState, ship: Ship, planet: Planet, report: Report) -> None:
    """``ship`` entered ``planet``'s system: the spacemines deployed there
    attack it in step 20, in the order of these calls (R-37: jump length,
    then R-11, then along the path; a towed ship right after its tower).
    Every ship that moves is attacked, the planet's owner's too (R-38)."""
    spacemine_attack(state, ship, planet.number, report)


def passing(state: GameState, ship: Ship, planet: Planet, report: Report) -> None:
    """``ship`` passed through ``planet``: its PDUs fire at it if R-48 says
    they do; the ship cannot fire back (l.1498-1500) and its jump goes on,
    the shots taking effect in step 22."""
    pdu_passage_fire(state, ship, planet.number, report)


def movement(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SxxxJyyy...``: every jump of one link first, then of two, ... five
    (l.314-318); inside a length, in the order of R-11."""
    tows = dict(report.towing)
    held = {target: engager for engager, target in tows.items()}
    moved: set[int] = set()
    for links in range(1, MAX_JUMP + 1):
        for empire, order in orders:
            assert isinstance(order, Jump)
            if len(order.path) == links:
                _jump(state, empire, order, report, frozenset(report.fought), tows, held, moved)


def _jump(state: GameState, empire: int, order: Jump, report: Report, battled: frozenset[int],
          tows: dict[int, int], held: dict[int, int], moved: set[int]) -> None:
    """One jump order: checked, paid, then flown link by link (R-58, R-60)."""
    ship = own_ship(state, empire, order.ship, order, report)
    if ship is None:
        return
    why = _cannot_start(state, ship, order, battled, held, moved)
    if why:
        report.refused(empire, order, why)
        return
    links = len(order.path)
    cost = fuel(links, effective_efficiency(ship))
    assert cost is not None
    ship.hold.ore[0] -= cost
    towed = state.ships.get(tows[ship.number]) if ship.number in tows else None
    route = _reachable(state, ship.planet, order.path)
    for index, number in enumerate(route):
        planet = state.planets[number]
        for mover in (ship, towed):
            if mover is None:
                continue
            mover.planet = number
            entering(state, mover, planet, report)
            if index < len(route) - 1:
                passing(state, mover, planet, report)
    moved.add(ship.number)
    done = f"at planet {route[-1]}, {cost} fuel used"
    if len(route) < links:
        done += (f" as for the whole route; planet {order.path[len(route)]} is not linked to"
                 f" {route[-1]} (ruling R-58)")
    if towed is not None:
        moved.add(towed.number)
        done += f", towing ship {towed.number}"
        if towed.owner != empire:
            report.tell(towed.owner, f"Ship {towed.number} was towed by tractor beams to planet {route[-1]}")
    report.did(empire, order, done)


def route_problem(state: GameState, ship: Ship, path: tuple[int, ...]) -> str:
    """Why a route cannot be started from where ``ship`` is, whatever the
    rest of the turn does: its first planet does not exist, or is not linked
    to the ship's ("you got the first planet wrong, no fuel will be lost",
    l.1481-1482; ruling R-60); "" if it can. The turn and ``check`` both ask."""
    first = path[0]
    if first not in state.planets:
        return f"{no_such_planet(first)}: no fuel used (ruling R-60)"
    if first not in state.planets[ship.planet].links:
        return f"planet {first} is not linked to planet {ship.planet}: no fuel used (ruling R-60)"
    return ""


def _cannot_start(state: GameState, ship: Ship, order: Jump, battled: frozenset[int],
                  held: dict[int, int], moved: set[int]) -> str:
    """Why the jump cannot start (nothing is paid then), or "" if it can.
    A wrong first planet is the reason before the fuel is counted in games
    that say so (`GameState.routes_before_fuel`); older games counted the
    fuel first, and called a planet that does not exist "not linked"."""
    if ship.number in moved:
        return f"ship {ship.number} has already moved this turn"
    if ship.number in battled:
        return f"ship {ship.number} initiated battle this turn and cannot jump by itself (ruling R-49)"
    if ship.number in held:
        return f"ship {ship.number} is held by tractor beams and follows the ship that holds it (ruling R-58)"
    if state.routes_before_fuel and (why := route_problem(state, ship, order.path)):
        return why
    efficiency = effective_efficiency(ship)
    cost = fuel(len(order.path), efficiency)
    if cost is None:
        return f"effective efficiency {efficiency}: below -1 the ship cannot move (l.1472-1474)"
    if ship.hold.ore[0] < cost:
        return f"not enough fuel: needs {cost}, has {ship.hold.ore[0]}"
    first = order.path[0]
    if first not in state.planets[ship.planet].links:
        return f"planet {first} is not linked to planet {ship.planet}: no fuel used (ruling R-60)"
    return ""


def _reachable(state: GameState, start: int, path: tuple[int, ...]) -> list[int]:
    """The planets of ``path`` the ship reaches from ``start``: up to the first
    that is not linked to the one before it (R-58: "as far as it is able")."""
    reached: list[int] = []
    here = start
    for number in path:
        if number not in state.planets[here].links:
            break
        reached.append(number)
        here = number
    return reached
