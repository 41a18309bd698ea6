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

What movement sets off but does not resolve goes through two seams to the
battle module, which resolves it later in the turn:

* `entering(state, ship, planet, report)`: the ship entered the planet's
  system (through or to the end of its route); the spacemines deployed there
  attack it in step 20, in the order these calls are made (R-37, R-38).
* `passing(state, ship, planet, report)`: the ship passed *through* the
  planet; its PDUs fire at it if ruling R-48 says they do, and the shots are
  applied in step 22 with the other damage.

Until battle lands, both seams queue plain records on the report
(``report.entering``: `Entering` records; ``report.passing``: `Passage`
records), in the order of jumping. What battle must provide (and then call
here, or read from these queues):

1. step 20 "spacemine attacks": for each `Entering` in queue order, the
   attack of the spacemines then deployed at ``planet`` on ``ship``
   (floor(d / 2) shots, ceil(d / 10) spacemines lost at once, R-36);
2. step 22 "damage": the `Passage` shots (never cargo units, R-44) and the
   spacemine shots applied to the ships (R-42, R-48);
3. from step 11, on the report: ``report.fought``, the numbers of the ships
   that initiated battle (a set; R-49), and ``report.towing``, each
   successful tractor engagement as {engager ship: target ship} (R-59).
   Both are read here with `getattr` and an empty default, so movement
   works the same before battle lands (no one fought, no one is towed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .formulas import MAX_JUMP, effective_efficiency, fuel, pdu_shots
from .orders import AllianceLevel, Order, Phase
from .orders_empire import Jump
from .state import GameState, Planet, Ship
from .turn import Report, step

AMNESTY_ENDS = 15
"""Nothing fires at Earth or from it before turn 15 (l.757-760, R-31): nor do its PDUs at passing ships (R-48)."""

EXEMPT = (AllianceLevel.FRIENDLY, AllianceLevel.ALLY)
"""The ratings by a planet's owner that spare a passing ship its PDUs (l.1503-1504, R-48)."""


@dataclass(frozen=True)
class Entering:
    """A ship that entered a planet's system this turn: the deployed spacemines
    there attack it in step 20 (R-37, R-38)."""

    ship: int
    planet: int
    links: int
    """The length of the jump it came by (the tower's, for a towed ship): the queue's first key (R-37)."""


@dataclass(frozen=True)
class Passage:
    """A ship that passed through a planet whose PDUs fire at it (R-48): ``shots``, applied in step 22."""

    ship: int
    planet: int
    shots: int


def _queue(report: Report, name: str) -> list[Any]:
    """The list ``name`` on the report, made on first use (the Report does not declare it: the seam's)."""
    found: list[Any] | None = getattr(report, name, None)
    if found is None:
        found = []
        setattr(report, name, found)
    return found


def entering(state: GameState, ship: Ship, planet: Planet, report: Report, links: int) -> None:
    """Seam to battle, step 20: ``ship`` entered ``planet``'s system; queue the
    spacemine attack (R-37 order: jump length, then R-11, then along the path;
    a towed ship right after its tower). Every ship that moves is attacked,
    the planet's owner's too (l.1507-1510, R-38)."""
    _queue(report, "entering").append(Entering(ship.number, planet.number, links))


def passage_fire(state: GameState, ship: Ship, planet: Planet) -> int:
    """The shots the PDUs of ``planet`` fire at ``ship`` passing through it
    (R-48): all its PDUs' (`formulas.pdu_shots`), unless the ship is an empty
    hull (l.2043), the planet is its owner's, the owner rates the ship's
    owner FRIEND or ALLY (l.1503-1504), or it is Earth during the amnesty (R-31)."""
    if planet.pdus <= 0 or ship.is_empty_hull() or planet.owner == ship.owner:
        return 0
    if state.rating(planet.owner, ship.owner) in EXEMPT:
        return 0
    if planet.number == state.earth and state.turn < AMNESTY_ENDS:
        return 0
    return pdu_shots(planet.pdus)


def passing(state: GameState, ship: Ship, planet: Planet, report: Report) -> None:
    """Seam to battle, step 22: ``ship`` passed through ``planet``; queue the
    PDUs' fire at it, if they fire (`passage_fire`). The ship cannot fire back
    (l.1498-1500) and its jump goes on: shots take effect in step 22."""
    shots = passage_fire(state, ship, planet)
    if shots:
        _queue(report, "passing").append(Passage(ship.number, planet.number, shots))


def fought(report: Report) -> frozenset[int]:
    """The ships that initiated battle this turn, as battle recorded them (R-49); none before battle lands."""
    return frozenset(getattr(report, "fought", ()))


def towing(report: Report) -> Mapping[int, int]:
    """This turn's tractor engagements, {engager: target}, as battle recorded them (R-59); none before battle lands."""
    found: Mapping[int, int] = getattr(report, "towing", {})
    return found


@step(Phase.MOVEMENT)
def movement(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SxxxJyyy...``: every jump of one link first, then of two, ... five
    (l.314-318); inside a length, in the order of R-11."""
    tows = dict(towing(report))
    held = {target: engager for engager, target in tows.items()}
    moved: set[int] = set()
    for links in range(1, MAX_JUMP + 1):
        for empire, order in orders:
            assert isinstance(order, Jump)
            if len(order.path) == links:
                _jump(state, empire, order, report, fought(report), tows, held, moved)


def _jump(state: GameState, empire: int, order: Jump, report: Report, battled: frozenset[int],
          tows: dict[int, int], held: dict[int, int], moved: set[int]) -> None:
    """One jump order: checked, paid, then flown link by link (R-58, R-60)."""
    ship = state.ships.get(order.ship)
    if ship is None or ship.owner != empire:
        report.refused(empire, order, f"ship {order.ship} is not yours")
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
            entering(state, mover, planet, report, links)
            if index < len(route) - 1:
                passing(state, mover, planet, report)
    moved.add(ship.number)
    flown = "".join(f"J{p}" for p in route)
    done = f"S{ship.number}{flown}: at planet {route[-1]}, {cost} fuel used"
    if len(route) < links:
        done += (f" as for the whole route; planet {order.path[len(route)]} is not linked to"
                 f" {route[-1]} (ruling R-58)")
    if towed is not None:
        moved.add(towed.number)
        done += f", towing ship {towed.number}"
        if towed.owner != empire:
            report.tell(towed.owner, f"Ship {towed.number} was towed by tractor beams to planet {route[-1]}")
    report.did(empire, order, done)


def _cannot_start(state: GameState, ship: Ship, order: Jump, battled: frozenset[int],
                  held: dict[int, int], moved: set[int]) -> str:
    """Why the jump cannot start (nothing is paid then), or "" if it can."""
    if ship.number in moved:
        return f"ship {ship.number} has already moved this turn"
    if ship.number in battled:
        return f"ship {ship.number} initiated battle this turn and cannot jump by itself (ruling R-49)"
    if ship.number in held:
        return f"ship {ship.number} is held by tractor beams and follows the ship that holds it (ruling R-58)"
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
