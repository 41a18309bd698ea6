"""Step 11, battle (§Battle l.936-1265, §Tractor Beams l.1890-1928; spec
7.11; rulings R-31, R-32, R-40 to R-47, R-49, R-50, R-59).

"All battle is simultaneous" (l.938): every attack is computed from the
state at the start of the step (R-40) and nothing changes until the damage
resolution (11j), where the shots at each ship are pooled (R-42, in
`damage`) and the losses of each planet are the sum of its attacks', each
attack converted by its own threshold (R-46) and the sum capped by what
there was. The sub-steps a to h only decide which attack uses a ship's
fighters first (R-43) and which PDUs have fired (R-32, R-45). Because each
ship and each planet is ordered by one empire only, the outcome does not
depend on the order the empires' orders are taken in.

For movement (step 17) this step leaves `Report.fought` (ships that
initiated battle, R-49) and `Report.towing` (tractor links, R-59).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .answers import outcome, own_planet, own_ship, owned_ship, ship_not_yours
from .damage import amnesty, resolve
from .formulas import mass, pdu_shots, shots
from .orders import AllianceLevel, Order
from .orders_empire import (
    AttackIndustry,
    AttackMines,
    AttackOre,
    AttackPDUs,
    AttackShip,
    AttackSpacemines,
    Engage,
    PlanetAttackShip,
    PlanetAttackSpacemines,
)
from .report import Entry, Report, Volley
from .rotation import in_sub_steps
from .state import NEUTRAL, GameState, Planet, Ship

SHOTS_PER = {"pdus": 3, "industry": 10, "mines": 10, "ore": 1, "deployed": 1}
"""Shots to destroy one of each target (l.1097, l.1115, l.1160, l.1146, l.1180; spec 5.12)."""

AMNESTY = "Earth amnesty in effect until turn 15: no shots allowed (ruling R-31)"

PlanetAttack = AttackPDUs | AttackIndustry | AttackMines | AttackOre | AttackSpacemines


@dataclass
class Claim:
    """What one attack destroys of one of a planet's stocks, before and after the cap."""

    kind: str
    """"pdus", "industry", "mines", "ore" or "deployed" (spacemines in orbit)."""
    type: int
    wanted: int
    got: int = 0

    def label(self) -> str:
        """What the claim destroys, as the history and the planet's owner are told it."""
        return {"pdus": "PDUs", "industry": "industry", "deployed": "spacemines",
                "mines": f"mines of type {self.type}", "ore": f"ore of type {self.type}"}[self.kind]


@dataclass
class Attack:
    """An attack carried out on a planet's PDUs, industry, mines, ore or spacemines."""

    entry: Entry
    attacker: int
    planet: int
    by: str
    claims: list[Claim] = field(default_factory=list)


def _stock(planet: Planet, claim: Claim) -> int:
    value = getattr(planet, claim.kind)
    return int(value[claim.type] if isinstance(value, list) else value)


def _take(planet: Planet, claim: Claim) -> None:
    value = getattr(planet, claim.kind)
    if isinstance(value, list):
        value[claim.type] -= claim.got
    else:
        setattr(planet, claim.kind, value - claim.got)


def targets(planet: Planet, order: PlanetAttack) -> Callable[[int], list[Claim]] | None:
    """What an attack of ``shots`` destroys: each attack converted by its own
    threshold against the planet's stock at the start of battle (R-46); a
    mine attack's shots beyond ten for every mine of the type destroy ore of
    that type (l.1119-1121). None when there is nothing to attack."""
    if isinstance(order, AttackPDUs):
        return _one("pdus", 0, planet.pdus)
    if isinstance(order, AttackIndustry):
        return _one("industry", 0, planet.industry)
    if isinstance(order, AttackMines):
        y, m = order.mine_type, planet.mines[order.mine_type]
        if not m and not planet.ore[y]:
            return None
        beyond = SHOTS_PER["mines"] * m
        return lambda s: [Claim("mines", y, min(m, s // SHOTS_PER["mines"])),
                          Claim("ore", y, min(planet.ore[y], max(0, s - beyond) // SHOTS_PER["ore"]))]
    if isinstance(order, AttackOre):
        return _one("ore", order.ore_type, planet.ore[order.ore_type])
    return _one("deployed", 0, planet.deployed)


def _one(kind: str, of_type: int, stock: int) -> Callable[[int], list[Claim]] | None:
    """An attack on one stock: ``shots`` destroy one of it for every `SHOTS_PER` of its kind."""
    return (lambda s: [Claim(kind, of_type, min(stock, s // SHOTS_PER[kind]))]) if stock else None


def nothing(order: PlanetAttack) -> str:
    """What a planet lacks when an attack finds nothing there."""
    if isinstance(order, AttackMines):
        return f"mines or ore of type {order.mine_type}"
    if isinstance(order, AttackOre):
        return f"ore of type {order.ore_type}"
    return {AttackPDUs: "PDUs", AttackIndustry: "industry"}.get(type(order), "spacemines deployed")


class Battle:
    """The bookkeeping of one battle step."""

    def __init__(self, state: GameState, report: Report) -> None:
        self.state, self.report = state, report
        self.used: dict[int, int] = {}
        """Fighters each ship has used this turn (R-43)."""
        self.pdus_used: dict[int, int] = {}
        """PDUs of each planet ordered to fire this turn (R-45)."""
        self.fired: set[int] = set()
        """Planets whose PDUs fired, by order or in reaction (R-32)."""
        self.reacted: set[tuple[int, int]] = set()
        self.volleys: list[Volley] = []
        self.attacks: list[Attack] = []

    # Who fires --------------------------------------------------------

    def shooter(self, empire: int, order: AttackShip | PlanetAttack) -> Ship | None:
        """The ordering empire's ship, if it may fire where it is (R-5, R-31)."""
        ship = own_ship(self.state, empire, order.ship, order, self.report)
        if ship is None:
            return None
        if amnesty(self.state, ship.planet):
            self.report.refused(empire, order, AMNESTY)
            return None
        return ship

    def fighters(self, empire: int, order: AttackShip | PlanetAttack, ship: Ship) -> int | None:
        """The fighters this attack uses: those asked for, or all not yet used (R-43)."""
        left = ship.fighters - self.used.get(ship.number, 0)
        n = left if order.fighters is None else min(order.fighters, left)
        if n <= 0:
            why = ("no fighters asked for" if order.fighters is not None and order.fighters <= 0 else
                   f"ship {ship.number} has no fighter units" if ship.fighters == 0 else
                   f"ship {ship.number} has no fighter units left this turn (each fires once a turn)")
            self.report.refused(empire, order, why)
            return None
        self.used[ship.number] = self.used.get(ship.number, 0) + n
        self.report.fought.add(ship.number)
        return n

    def record(self, empire: int, order: AttackShip | PlanetAttack, n: int, done: str) -> Entry:
        """The history line of a carried-out attack; ``zz`` larger than the fighters left is cut (P1, F)."""
        if order.fighters is None or n == order.fighters:
            return self.report.did(empire, order, done)
        why = f"ship {order.ship} had {n} fighter units left"
        return self.report.did(empire, order, outcome(replace(order, fighters=n), "F", why, done))

    def fired_on_earth(self, empire: int) -> None:
        """R-32: an empire that fires upon NEUTRAL's Earth is hostile to NEUTRAL for good."""
        if self.state.planets[self.state.earth].owner != NEUTRAL or self.state.empires[empire].hostile_to_earth:
            return
        self.state.empires[empire].hostile_to_earth = True
        self.report.tell(empire, "You fired upon Earth: NEUTRAL lists you as hostile from now on, and every "
                                 "neutral planet's unfired PDUs will fire at your ships in its orbit (ruling R-32)")

    # a, b: PDUs -------------------------------------------------------

    def firing_planet(self, empire: int, order: PlanetAttackShip | PlanetAttackSpacemines) -> Planet | None:
        """The ordering empire's planet, if its PDUs may fire (R-5, R-31)."""
        planet = own_planet(self.state, empire, order.planet, order, self.report)
        if planet is None:
            return None
        if amnesty(self.state, planet.number):
            self.report.refused(empire, order, AMNESTY)
            return None
        return planet

    def pdus(self, empire: int, order: PlanetAttackShip | PlanetAttackSpacemines, planet: Planet) -> int | None:
        """The PDUs this order fires: those asked for, or all not yet ordered; each PDU once (R-45)."""
        left = planet.pdus - self.pdus_used.get(planet.number, 0)
        n = left if order.pdus is None else min(order.pdus, left)
        if n <= 0:
            why = ("no PDUs asked for" if order.pdus is not None and order.pdus <= 0 else
                   f"planet {planet.number} has no PDUs" if planet.pdus == 0 else
                   f"planet {planet.number} has no PDUs left to fire this turn")
            self.report.refused(empire, order, why)
            return None
        self.pdus_used[planet.number] = self.pdus_used.get(planet.number, 0) + n
        self.fired.add(planet.number)
        return n

    def pdu_record(self, empire: int, order: PlanetAttackShip | PlanetAttackSpacemines, n: int, done: str) -> Entry:
        """The history line of a carried-out PDU order; ``yy`` larger than the PDUs left is cut (P1, PDU)."""
        if order.pdus is None or n == order.pdus:
            return self.report.did(empire, order, done)
        why = f"planet {order.planet} had {n} PDUs left to fire"
        return self.report.did(empire, order, outcome(replace(order, pdus=n), "PDU", why, done))

    def planet_attack_ship(self, empire: int, order: PlanetAttackShip) -> None:
        """11a ``123A120S234``: only at a ship over the planet whose owner the
        planet's owner rates HOSTILE (l.1197-1199, R-47)."""
        planet = self.firing_planet(empire, order)
        if planet is None:
            return
        target = self.state.ships.get(order.target)
        if target is None or target.planet != planet.number:
            self.report.refused(empire, order, f"there is no ship {order.target} over planet {planet.number}")
            return
        if target.owner == empire or self.state.rating(empire, target.owner) != AllianceLevel.HOSTILE:
            whose = ("yours" if target.owner == empire
                     else f"of {self.state.name_of(target.owner)}, whom you do not rate HOSTILE")
            self.report.refused(empire, order, f"ship {order.target} is {whose}: PDUs may fire only at ships "
                                               "of empires you rate HOSTILE (ruling R-47)")
            return
        n = self.pdus(empire, order, planet)
        if n is None:
            return
        fire = pdu_shots(n)
        entry = self.pdu_record(empire, order, n, f"{n} PDUs fired {fire} shots at ship {target.number}")
        self.volleys.append(Volley(target.number, fire, f"the PDUs of planet {planet.number}", cargo=False,
                                   entry=entry, attacker=empire))

    def planet_attack_spacemines(self, empire: int, order: PlanetAttackSpacemines) -> None:
        """11b ``123A20SM``: one deployed spacemine destroyed for every PDU (l.1242)."""
        planet = self.firing_planet(empire, order)
        if planet is None:
            return
        if planet.deployed <= 0:
            self.report.refused(empire, order, f"no spacemines are deployed around planet {planet.number}")
            return
        n = self.pdus(empire, order, planet)
        if n is None:
            return
        entry = self.pdu_record(empire, order, n, f"{n} PDUs fired at the spacemines around planet {planet.number}")
        self.attacks.append(Attack(entry, empire, planet.number, f"the PDUs of planet {planet.number}",
                                   [Claim("deployed", 0, min(planet.deployed, n))]))

    # c to h: ships ----------------------------------------------------

    def attack_ship(self, empire: int, order: AttackShip) -> None:
        """11c ``S231A34S321``: any other ship in the same orbit, the
        empire's own included, but not ships of empires it rates FRIENDLY or
        ALLY (l.1057-1060, R-47)."""
        ship = self.shooter(empire, order)
        if ship is None:
            return
        target = self.state.ships.get(order.target)
        if target is None or target.planet != ship.planet or target.number == ship.number:
            why = ("a ship cannot attack itself" if target is ship else
                   f"there is no ship {order.target} over planet {ship.planet}")
            self.report.refused(empire, order, why)
            return
        rating = self.state.rating(empire, target.owner)
        if target.owner != empire and rating in (AllianceLevel.FRIENDLY, AllianceLevel.ALLY):
            self.report.refused(empire, order, f"you rate {self.state.name_of(target.owner)} {rating.value}: "
                                               "you cannot fire on their ships (ruling R-47)")
            return
        n = self.fighters(empire, order, ship)
        if n is None:
            return
        fire = shots(ship, n)
        entry = self.record(empire, order, n, f"{n} fighter units fired {fire} shots at ship {target.number}")
        self.volleys.append(Volley(target.number, fire, f"ship {ship.number} ({self.state.name_of(empire)})",
                                   entry=entry, attacker=empire))
        if target.owner == NEUTRAL and ship.planet == self.state.earth:
            self.fired_on_earth(empire)

    def attack_planet(self, empire: int, order: PlanetAttack) -> None:
        """11d-h: the PDUs, industry, mines, ore or deployed spacemines of
        the planet the ship orbits; not a planet of an empire the attacker
        rates ALLY, except its spacemines (l.443-444, R-47). Attacks on
        anything but spacemines make the planet's PDUs fire back (R-45)."""
        ship = self.shooter(empire, order)
        if ship is None:
            return
        planet = self.state.planets[ship.planet]
        if not isinstance(order, AttackSpacemines):
            rating = self.state.rating(empire, planet.owner)
            if planet.owner == empire or rating == AllianceLevel.ALLY:
                whose = ("yours" if planet.owner == empire
                         else f"{self.state.name_of(planet.owner)}'s, whom you rate ALLY")
                self.report.refused(empire, order, f"planet {planet.number} is {whose} (ruling R-47)")
                return
        wants = targets(planet, order)
        if wants is None:
            self.report.refused(empire, order, f"planet {planet.number} has no {nothing(order)}: nothing to attack")
            return
        n = self.fighters(empire, order, ship)
        if n is None:
            return
        fire = shots(ship, n)
        what = wants(fire)
        entry = self.record(empire, order, n, f"{n} fighter units fired {fire} shots at the "
                                              f"{what[0].label()} of planet {planet.number}")
        self.attacks.append(Attack(entry, empire, planet.number,
                                   f"ship {ship.number} ({self.state.name_of(empire)})", what))
        if isinstance(order, AttackSpacemines):
            return
        if planet.pdus > 0 and (planet.number, ship.number) not in self.reacted:
            self.reacted.add((planet.number, ship.number))
            self.fired.add(planet.number)
            self.volleys.append(Volley(ship.number, pdu_shots(planet.pdus), f"the PDUs of planet {planet.number}",
                                       cargo=False))
        if planet.number == self.state.earth:
            self.fired_on_earth(empire)

    # i, j -------------------------------------------------------------

    def neutral_retaliation(self) -> None:
        """11i: while NEUTRAL holds Earth (R-34), every neutral planet whose
        PDUs have not fired this turn fires all of them at each ship of an
        empire hostile to Earth in its orbit, after all normal attacks (l.1258-1264, R-32)."""
        state = self.state
        if state.planets[state.earth].owner != NEUTRAL:
            return
        hostile = {e for e, empire in state.empires.items() if empire.hostile_to_earth}
        for planet in state.planets_of(NEUTRAL):
            if planet.pdus <= 0 or planet.number in self.fired or amnesty(state, planet.number):
                continue
            for ship in state.ships_at(planet.number):
                if ship.owner in hostile:
                    self.fired.add(planet.number)
                    self.volleys.append(Volley(ship.number, pdu_shots(planet.pdus),
                                               f"the PDUs of neutral planet {planet.number}", cargo=False))

    def resolve(self) -> None:
        """11j: the planets' losses (each attack's own count, their sum capped
        by the stock, R-46), then the ships' pooled damage and cargo overflow
        (R-42, R-50; after the planets', so what falls from a hold is not lost)."""
        for attack in self.attacks:
            planet = self.state.planets[attack.planet]
            for claim in attack.claims:
                claim.got = min(claim.wanted, _stock(planet, claim))
                _take(planet, claim)
            first, *more = attack.claims
            destroyed = ", ".join(f"{c.got} {c.label()}" for c in [first, *(c for c in more if c.got)])
            attack.entry.done += f"; destroyed {destroyed}"
            if planet.owner in self.state.empires and planet.owner != attack.attacker:
                self.report.tell(planet.owner, f"planet {planet.number} was attacked by {attack.by}: "
                                               f"{destroyed} destroyed")
        resolve(self.state, self.volleys, self.report, "overflow")


def battle(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Step 11: sub-steps a to k in the manual's order (l.258-270)."""
    fight = Battle(state, report)
    sub_steps: dict[type, Callable[[int, Any], None]] = {
        PlanetAttackShip: fight.planet_attack_ship, PlanetAttackSpacemines: fight.planet_attack_spacemines,
        AttackShip: fight.attack_ship, AttackPDUs: fight.attack_planet, AttackIndustry: fight.attack_planet,
        AttackMines: fight.attack_planet, AttackOre: fight.attack_planet, AttackSpacemines: fight.attack_planet}
    for empire, order in in_sub_steps([(e, o) for e, o in orders if type(o) in sub_steps], tuple(sub_steps)):
        sub_steps[type(order)](empire, order)
    fight.neutral_retaliation()
    fight.resolve()
    engage(state, [(e, o) for e, o in orders if isinstance(o, Engage)], report)


def engage(state: GameState, orders: Sequence[tuple[int, Engage]], report: Report) -> None:
    """11k, after the damage: engagements in order of the engager's tractor
    units, most first (ties in R-11 order), so the most tractors wins a
    contested target; a ship already in an engagement, as engager or as
    target, can take part in no other (no daisy chains); the engager's
    tractor units must be at least the target's mass (l.1890-1928, R-59).
    Links go to `Report.towing` for movement."""
    linked: set[int] = set()

    def tractors(item: tuple[int, Engage]) -> int:
        ship = state.ships.get(item[1].ship)
        return ship.tractors if ship is not None else 0

    strongest = sorted(orders, key=tractors, reverse=True)  # stable: ties stay in R-11 order
    for empire, order in strongest:
        ship, target = owned_ship(state, empire, order.ship), state.ships.get(order.target)
        if ship is None:
            report.refused(empire, order, ship_not_yours(order.ship))
        elif target is None or target.planet != ship.planet or target is ship:
            why = "a ship cannot engage itself" if target is ship else \
                f"there is no ship {order.target} over planet {ship.planet}"
            report.refused(empire, order, why)
        elif ship.number in report.retrieved:
            report.refused(empire, order, f"ship {ship.number}'s tractor beams retrieved spacemines this turn "
                                          "(ruling R-39)")
        elif ship.number in linked:
            report.refused(empire, order, f"ship {ship.number} is already held by, or holding, another ship's "
                                          "tractor beams (ruling R-59)")
        elif target.number in linked:
            report.refused(empire, order, f"ship {target.number} is already held by, or holding, another ship's "
                                          "tractor beams (ruling R-59)")
        elif ship.tractors < mass(target):
            report.refused(empire, order, f"ship {ship.number}'s tractor beams are too weak to hold ship "
                                          f"{target.number}")
        else:
            linked |= {ship.number, target.number}
            report.towing[ship.number] = target.number
            report.did(empire, order, f"ship {ship.number} holds ship {target.number} with its tractor beams "
                                      "this turn")
            if target.owner != empire and target.owner in state.empires:
                report.tell(target.owner, f"ship {target.number} at planet {target.planet} is held by the tractor "
                                          f"beams of ship {ship.number} ({state.name_of(empire)}) this turn")
