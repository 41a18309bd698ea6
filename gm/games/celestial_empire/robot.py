"""The GM's robot for Celestial Empire: one empire's orders for a turn,
chosen from that empire's turn sheet alone (`robot_view.View`) and written
as the lines of a player's mail, in the manual's notation.

Three levels, as the other games' robots have:

* ``easy`` develops its economy (mines of the ore that industry and mines
  are made of, then industry), sends its cargo ship to sell its surplus ore
  at Earth and buy the ore it builds with, and defends what it has (PDUs,
  and its PDUs and ships fire at armed strangers over its planets);
* ``normal`` also expands: its ships walk the map one jump at a time (the
  cheapest fuel, Table "jump") onto neutral planets without PDUs, which
  they take by orbiting them alone (l.1635); it scans the planets beyond
  its frontier, builds new ships and a warship, fights for planets and
  sets standing orders on planets that can build PDUs by themselves;
* ``hard`` also plays to the variant's winning conditions (a bigger fleet
  for planets and score, credits kept when credits win), makes and keeps
  alliances by the manual's rules (one level a turn, returned in kind, a
  win shared with allies, R-18) and fights only where its shots beat the
  most the enemy's type can hold.

Every choice is made in order, over sorted numbers, with the ``rng``
given as the only chance (ties between equally good moves), so the same
sheet and seed give the same orders. `robot_mail` is what the mail adapter
calls.
"""

from __future__ import annotations

from random import Random

from .report import Report
from .robot_plans import (
    EASY,
    HARD,
    LEVELS,
    Plan,
    arm_warship,
    cargo_for_earth,
    diplomacy,
    economy,
    trade_at_earth,
)
from .robot_view import OwnShip, PlanetView, SeenShip, View, route, view_of
from .sheets import sheet_data
from .state import GameState
from .winning import Conditions

__all__ = ["LEVELS", "robot_mail", "robot_orders"]

AMNESTY_ENDS = 15
"""No shots at Earth or at ships over it before this turn (l.757-760): the robot never fires there."""


def robot_mail(state: GameState, report: Report | None, empire: int, conditions: Conditions | None,
               level: str, rng: Random) -> str:
    """The robot's order mail for ``empire``: read from its sheet (the data
    `sheets.sheet_data` renders, nothing more), one order a line."""
    return "\n".join(robot_orders(view_of(sheet_data(state, report, empire, conditions)), level, rng)) + "\n"


def robot_orders(view: View, level: str, rng: Random) -> list[str]:
    """The order lines of the robot at ``level`` for the turn its view asks orders for."""
    if level not in LEVELS:
        raise ValueError(f"no Celestial Empire robot level {level!r}")
    plan = Plan(view, level)
    intruders = {s.owner for p in view.own_planets for s in p.others if s.armed and s.owner != "NEUTRAL"}
    ratings = diplomacy(plan, intruders)
    defend(plan, ratings)
    economy(plan)
    ships = [s for s in view.ships if s.number not in plan.busy]
    trader = max((s for s in ships if s.fighters == 0), key=lambda s: (s.cargo_units, -s.number), default=None)
    warship = max((s for s in ships if s is not trader), key=lambda s: (s.fighters, -s.number), default=None)
    if warship is not None and level != EASY:
        arm_warship(plan, warship)
        if warship.fighters >= 20:
            hunt(plan, warship, ratings)
    if trader is not None:
        trade(plan, trader, rng)
    claimed: set[int] = set()
    for ship in ships:
        if ship is trader or ship.number in plan.busy or (ship is warship and ship.fighters >= 20):
            continue
        if level == EASY:
            continue
        explore(plan, ship, ratings, claimed, rng)
    scan(plan, rng)
    if voted := vote(view, level):
        plan.add(voted)
    if not plan.lines:
        plan.add(idle(view))
    return plan.lines


def idle(view: View) -> str:
    """An order that changes nothing, for a turn with nothing else to do (a mail must hold an order for
    the turn to stop waiting for it, R-12): a scan of its own home, or a message when it has no scan."""
    if view.scans and view.home is not None:
        return f"SCAN{view.home.number}"
    return f"{{{view.name} stands by}}"


def hostile(ratings: dict[str, str], owner: str) -> bool:
    """Whether the robot may fire at ``owner``'s ships after this turn's changes (not a FRIEND or ALLY, l.1057)."""
    return owner != "NEUTRAL" and ratings.get(owner, "NEUTRAL") in ("NEUTRAL", "HOSTILE")


def beats(view: View, level: str, shots: int, target: SeenShip) -> bool:
    """Whether an attack of ``shots`` is worth making on ``target``: the hard robot wants more shots
    than the most units the target's type allows; the others fire whenever they can."""
    return shots > 0 and (level != HARD or shots >= 2 * target.strength)


def defend(plan: Plan, ratings: dict[str, str]) -> None:
    """The battle step's orders at the robot's planets: the PDUs of each
    planet fire at the strongest armed ship there of an empire rated HOSTILE
    (l.1082-1083), and its ships with shots fire at armed ships they may
    fire at (never over Earth)."""
    view = plan.view
    for planet in view.own_planets:
        if planet.earth:
            continue
        targets = sorted((s for s in planet.others if s.armed and ratings.get(s.owner) == "HOSTILE"),
                         key=lambda s: (-s.strength, s.number))
        if targets and planet.pdus > 0:
            plan.add(f"{planet.number}AS{targets[0].number}")
    for ship in view.ships:
        here = view.planets.get(ship.planet)
        if here is None or here.earth or ship.shots <= 0:
            continue
        targets = sorted((s for s in here.others if s.armed and hostile(ratings, s.owner)
                          and (here.own or plan.level != EASY) and beats(view, plan.level, ship.shots, s)),
                         key=lambda s: (-s.strength, s.number))
        if targets:
            plan.add(f"S{ship.number}AS{targets[0].number}")
            plan.busy.add(ship.number)


def fuel_for(ship: OwnShip) -> int | None:
    """Fuel for a jump of one link at the ship's effective efficiency (Table "jump": 2 at -1, else 1); None
    if it cannot jump at all (below -1, l.1472-1474). The robot jumps one link a turn, the cheapest way."""
    if ship.effective < -1:
        return None
    return 2 if ship.effective < 0 else 1


def refuel(plan: Plan, ship: OwnShip, most: int) -> int:
    """Load fuel at an own planet (step 7, before movement): the fuel the ship will have."""
    have = plan.ore.get(ship.planet)
    if have is None or ship.fuel >= most:
        return ship.fuel
    n = min(most - ship.fuel, have[0], ship.empty)
    if n > 0:
        plan.add(f"S{ship.number}L{n}R0")
        have[0] -= n
        return ship.fuel + n
    return ship.fuel


def jump(plan: Plan, ship: OwnShip, to: int) -> None:
    """One jump, to a linked planet."""
    plan.add(f"S{ship.number}J{to}")
    plan.busy.add(ship.number)


def value(view: View, level: str, planet: PlanetView | None, ratings: dict[str, str]) -> float:
    """How much an explorer wants to stop at a planet: a neutral one without
    PDUs it would take; one it has not seen may be such; another empire's
    undefended planet (normal and hard, not a friend's); its own, to pass."""
    if planet is None:
        return 3.0
    if planet.earth or planet.deployed or (planet.pdus and not planet.own):
        return 0.0
    if planet.own:
        return 0.5
    if any(s.armed for s in planet.others):
        return 0.2
    if planet.neutral:
        return 4.0 + sum(planet.mines) / 10 + (2 if planet.research else 0)
    if ratings.get(planet.owner, "NEUTRAL") in ("NEUTRAL", "HOSTILE") and level != EASY:
        return 2.5 if level == HARD else 2.0
    return 0.0


def explore(plan: Plan, ship: OwnShip, ratings: dict[str, str], claimed: set[int], rng: Random) -> None:
    """An explorer's turn: take on fuel where it can, then jump one link to
    the best planet beside it; with nothing worth taking beside it, go by
    the known map towards the nearest planet that has one (its frontier),
    or home for fuel when it runs low."""
    view = plan.view
    here = view.planets.get(ship.planet)
    need = fuel_for(ship)
    if here is None or need is None:
        return
    fuel = refuel(plan, ship, min(ship.cargo_units, 10)) if here.own else ship.fuel
    if fuel < need:
        return
    scored = [(value(view, plan.level, view.planets.get(n), ratings) - (1.0 if n in claimed else 0.0)
               + rng.random() / 10, n) for n in here.links]
    best = max(scored, default=(0.0, 0))
    links = view.links
    if fuel < 2 * need:  # the last jump: towards its own planets with fuel
        goals = {p.number for p in view.own_planets if p.ore[0] >= 3 and p.number != ship.planet}
        path = route(links, ship.planet, goals)
        if path:
            jump(plan, ship, path[0])
            return
    if best[0] >= 1.0:
        claimed.add(best[1])
        jump(plan, ship, best[1])
        return
    frontier = {n for p in view.own_planets for n in p.links
                if value(view, plan.level, view.planets.get(n), ratings) >= 1.0 and n not in claimed}
    path = route(links, ship.planet, frontier, avoid={n for n, p in view.planets.items() if p.deployed or
                                                      (p.pdus and not p.own)})
    if path:
        claimed.add(path[-1])
        jump(plan, ship, path[0])


def hunt(plan: Plan, ship: OwnShip, ratings: dict[str, str]) -> None:
    """The warship: stays home while it is threatened; otherwise goes to an
    own planet that armed strangers orbit, or to the weakest undefended
    planet of an empire it may fight that it can see beside its own."""
    view = plan.view
    home = view.home
    if home is None or ship.number in plan.busy or fuel_for(ship) is None:
        return
    here = view.planets.get(ship.planet)
    fuel = refuel(plan, ship, min(ship.empty + ship.fuel, 10)) if here is not None and here.own else ship.fuel
    need = fuel_for(ship) or 1
    if fuel < need:
        return
    links = view.links
    troubled = {p.number for p in view.own_planets if any(s.armed and hostile(ratings, s.owner) for s in p.others)}
    targets = {n for n, p in view.planets.items() if not p.own and not p.neutral and not p.pdus and not p.earth
               and not p.deployed and hostile(ratings, p.owner)}
    for goals in (troubled, targets):
        goals = goals - {ship.planet}
        if goals and not (ship.planet == home.number and home.number in troubled):
            path = route(links, ship.planet, goals)
            if path and fuel >= need:
                jump(plan, ship, path[0])
                return


def trade(plan: Plan, ship: OwnShip, rng: Random) -> None:
    """The cargo ship's round: load the surplus at home, go to Earth by the
    known map (exploring one link at a time while no way there is known),
    trade, come home and unload what it bought."""
    view = plan.view
    home = view.home
    if home is None:
        return
    links = view.links
    if ship.planet == view.earth:
        trade_at_earth(plan, ship)
        path = route(links, ship.planet, {home.number}, avoid={view.earth})
        if path and ship.fuel >= (fuel_for(ship) or 99):
            jump(plan, ship, path[0])
        return
    bought = sum(ship.ore[1:]) > 0
    if ship.planet == home.number:
        if (bought and plan.level != EASY) or any(ship.ore[z] for z in (4, 5, 6, 7, 8, 9)):
            plan.add(f"S{ship.number}U")
        cargo_for_earth(plan, ship, home)
        fuel = min(ship.fuel + max(0, min(12 - ship.fuel, home.ore[0], ship.empty)), 12)
    else:
        fuel = refuel(plan, ship, 12) if view.planets.get(ship.planet, None) and view.planets[ship.planet].own \
            else ship.fuel
    need = fuel_for(ship)
    if need is None or fuel < need:
        return
    going_home = ship.planet != home.number and ((bought and not any(ship.ore[z] for z in (1, 2, 3)))
                                                 or fuel < 5)
    goal = home.number if going_home else view.earth
    path = route(links, ship.planet, {goal}, avoid={n for n, p in view.planets.items() if p.deployed})
    if path:
        jump(plan, ship, path[0])
        return
    here = view.planets.get(ship.planet)
    if here is None:
        return
    unknown = [n for n in here.links if n not in view.planets and n != view.earth]
    choices = unknown or [n for n in here.links if n in view.planets and view.planets[n].own]
    if choices:
        jump(plan, ship, rng.choice(sorted(choices)))


def scan(plan: Plan, rng: Random) -> None:
    """Scans (l.1563-1571): the planets beyond its frontier it has not seen,
    nearest first (the easy robot looks only beside its home)."""
    view = plan.view
    own = view.own_planets if plan.level != EASY else [p for p in [view.home] if p is not None]
    unseen = sorted({n for p in own for n in p.links if n not in view.planets and n != view.earth})
    rng.shuffle(unseen)
    for number in unseen[:view.scans]:
        plan.add(f"SCAN{number}")


def vote(view: View, level: str) -> str | None:
    """In a game whose length the empires vote on (l.1998-2008): the hard
    robot votes to end soon while it leads on score and late while it does
    not; the others do not vote."""
    if level != HARD or not view.voting:
        return None
    leading = view.score >= max(view.scores, default=0)
    wanted = max(10, view.turn + 2) if leading else 100
    return None if view.vote == wanted else f"TURN{wanted}"

