"""Damage to ships: shots pooled per ship and resolved at once (step 11j for
battle, step 22 for what movement brought: PDU passage fire and spacemines),
and the cargo a damaged ship can no longer hold (spec sections 5.3, 7.11,
7.22).

A *volley* is a number of shots aimed at one ship, with where they came
from. Volleys are pooled per ship (ruling R-42): the ship's shields absorb
the first ``formulas.absorbed(ship)`` shots of the pool, and each shot left
destroys one unit, shields first, then fighters, tractors and last cargo
units. PDU shots never destroy cargo units (R-44); in a pool that mixes
them with ship or spacemine shots the PDU shots count first, so the
outcome does not depend on the order the volleys arrived in. The hull is
never destroyed (l.1032).

`pdu_passage_fire` is for movement (step 17): it queues the fire of a
planet's PDUs at a ship passing through (R-48) for step 22.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .formulas import absorbed, pdu_shots
from .orders import AllianceLevel
from .report import Report, Volley
from .state import GameState, Ship, draws

AMNESTY_ENDS = 15
"""No shots at or over Earth before turn 15 (l.757-760, R-31)."""


def amnesty(state: GameState, planet: int) -> bool:
    """Whether the Earth amnesty forbids shots at ``planet`` this turn (R-31)."""
    return planet == state.earth and state.turn < AMNESTY_ENDS


@dataclass
class Losses:
    """What one damage resolution did to one ship."""

    shots: int = 0
    absorbed: int = 0
    shields: int = 0
    fighters: int = 0
    tractors: int = 0
    cargo: int = 0
    sources: list[str] = field(default_factory=list)

    def units(self) -> int:
        """Units lost of every kind."""
        return self.shields + self.fighters + self.tractors + self.cargo

    def text(self) -> str:
        """The losses in the words of the history and notices: "lost 2 shield, 1 cargo units"."""
        lost = [f"{n} {what}" for n, what in ((self.shields, "shield"), (self.fighters, "fighter"),
                                             (self.tractors, "tractor"), (self.cargo, "cargo")) if n]
        return "lost " + ", ".join(lost) + " units" if lost else "lost nothing"


def hit(ship: Ship, pdu: int, other: int) -> Losses:
    """Apply ``pdu`` PDU shots and ``other`` shots that can destroy cargo to
    ``ship`` as one pool (R-42, R-44): absorption, then shields, fighters,
    tractors, cargo, one unit a shot; the PDU shots count first."""
    losses = Losses(shots=pdu + other, absorbed=min(pdu + other, absorbed(ship)))
    left = losses.shots - losses.absorbed
    may_hit_cargo = min(other, left)
    losses.shields = min(ship.shields, left)
    left -= losses.shields
    losses.fighters = min(ship.fighters, left)
    left -= losses.fighters
    losses.tractors = min(ship.tractors, left)
    left -= losses.tractors
    losses.cargo = min(ship.cargo_units, left, may_hit_cargo)
    ship.shields -= losses.shields
    ship.fighters -= losses.fighters
    ship.tractors -= losses.tractors
    ship.cargo_units -= losses.cargo
    return losses


def overflow(state: GameState, ship: Ship, purpose: str) -> str:
    """Unload what no longer fits in ``ship``'s cargo units onto its planet
    (l.1032-1040, R-50): one item at a time, mines first (each joins a mine
    type drawn among the planet's, or is destroyed if it has none), then
    industry, PDUs, spacemines (deployed), ore from type 9 down to 0, until
    the rest fits. Returns what fell, for the owner ("" if nothing did)."""
    planet = state.planets[ship.planet]
    hold = ship.hold
    fell: list[str] = []

    def excess() -> int:
        return max(0, hold.space() - ship.cargo_units)

    if excess() and hold.mines:
        n = min(hold.mines, -(-excess() // 20))
        hold.mines -= n
        types = [t for t in range(len(planet.mines)) if planet.mines[t] > 0]
        if types:
            rng = draws(state.seed, state.turn, purpose)
            for _ in range(n):
                planet.mines[rng.choice(types)] += 1
            fell.append(f"{n} mines")
        else:
            fell.append(f"{n} mines (destroyed: the planet has no mines)")
    for name, size in (("industry", 10), ("pdus", 2), ("spacemines", 1)):
        have = getattr(hold, name)
        if excess() and have:
            n = min(have, -(-excess() // size))
            setattr(hold, name, have - n)
            if name == "spacemines":
                planet.deployed += n
                fell.append(f"{n} spacemines (now deployed)")
            else:
                setattr(planet, name, getattr(planet, name) + n)
                fell.append(f"{n} {'PDUs' if name == 'pdus' else name}")
    for ore in range(len(hold.ore) - 1, -1, -1):
        if excess() and hold.ore[ore]:
            n = min(hold.ore[ore], excess())
            hold.ore[ore] -= n
            planet.ore[ore] += n
            fell.append(f"{n} ore of type {ore}")
    return ", ".join(fell)


def resolve(state: GameState, volleys: list[Volley], report: Report, purpose: str) -> dict[int, Losses]:
    """One damage resolution: the volleys pooled per ship and applied at
    once (R-40, R-42); the cargo that no longer fits unloaded (R-50); the
    ship's owner told what hit it and what it lost, and each attacker's
    line finished with the total the ship took this turn and its own part
    (l.1062-1065). ``purpose`` names the overflow draws of this resolution."""
    pooled: dict[int, list[Volley]] = {}
    for volley in volleys:
        if volley.ship in state.ships:
            pooled.setdefault(volley.ship, []).append(volley)
    done: dict[int, Losses] = {}
    for number, pool in sorted(pooled.items()):
        ship = state.ships[number]
        pdu = sum(v.shots for v in pool if not v.cargo)
        other = sum(v.shots for v in pool if v.cargo)
        losses = hit(ship, pdu, other)
        losses.sources = sorted({v.source for v in pool})
        done[number] = losses
        fell = overflow(state, ship, f"{purpose}:S{number}")
        if ship.owner in state.empires:
            text = (f"ship {number} at planet {ship.planet} took {losses.shots} shots from "
                    f"{', '.join(losses.sources)}; its shields absorbed {losses.absorbed}; {losses.text()}")
            report.tell(ship.owner, text + (f"; no longer fitting in its hold, unloaded: {fell}" if fell else ""))
        for volley in pool:
            if volley.entry is not None:
                volley.entry.done += (f"; ship {number} took {losses.shots} shots this turn "
                                      f"({volley.shots} of them yours) and lost {losses.units()} units")
    return done


def pdu_passage_fire(state: GameState, ship: Ship, planet: int, report: Report) -> int:
    """For movement (step 17): ``ship`` passes *through* ``planet`` (not
    ending its jump there). If the planet's PDUs fire at it (R-48: the
    planet has PDUs, is not the ship's owner's, its owner rates the ship's
    owner NEUTRAL or HOSTILE, the ship is not an empty hull, and it is not
    Earth during the amnesty, R-31), queue pdu_shots(all its PDUs) at the
    ship for step 22 and return them; else return 0. PDU shots never
    destroy cargo (R-44), so the fire cannot stop the jump."""
    there = state.planets[planet]
    if there.pdus <= 0 or there.owner == ship.owner or ship.is_empty_hull() or amnesty(state, planet):
        return 0
    if state.rating(there.owner, ship.owner) not in (AllianceLevel.NEUTRAL, AllianceLevel.HOSTILE):
        return 0
    shots = pdu_shots(there.pdus)
    report.volleys.append(Volley(ship.number, shots, f"the PDUs of planet {planet} as it passed", cargo=False))
    return shots


def damage(state: GameState, report: Report) -> None:
    """Step 22, damage resolution: the shots movement brought (PDU passage
    fire, spacemines) applied as in battle, at the planet each ship ended
    on (spec 7.22)."""
    volleys, report.volleys = report.volleys, []
    resolve(state, volleys, report, "overflow-after-movement")
