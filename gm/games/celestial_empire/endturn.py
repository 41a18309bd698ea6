"""The automatic steps at the end of the turn that take no orders: step 21
mining, step 23 change of ownership, step 24 score adjustment (spec sections
7.21, 7.23, 7.24). Steps 20 (spacemine attacks) and 22 (damage) are in
`spacemines` and `damage`; the manual's order is 20 spacemine attacks,
21 mining, 22 damage, 23 ownership, 24 score, and each step here says where
it belongs. `steps.END_OF_TURN` lists them all, by name, in that order.
"""

from __future__ import annotations

from .formulas import INCOME_INDUSTRY, INCOME_MINE, INCOME_PLANET, research_bonus
from .orders import AllianceLevel
from .report import Report
from .state import NEUTRAL, GameState, Planet


def mining(state: GameState, report: Report) -> None:
    """Step 21 (after 20 spacemine attacks, before 22 damage): every mine
    gives one ore of its type to its planet's stock (l.1685-1687), on every
    planet an empire owns now, and on Earth, whoever owns it, which "produces
    all the time" (l.1688-1690, R-35). Mines that came this turn, built,
    unloaded or made by research, produce too; a neutral planet taken in step
    23 has not mined this turn (R-83)."""
    for _, planet in sorted(state.planets.items()):
        if planet.owner != NEUTRAL or planet.number == state.earth:
            planet.ore = [ore + mines for ore, mines in zip(planet.ore, planet.mines)]


def ownership(state: GameState, report: Report) -> None:
    """Step 23 (after 22 damage, before 24 score): planets first, all judged
    from the state after damage, then hulls take the owner of their planet as
    just decided (R-64). A planet without PDUs passes to the one empire whose
    ships (not hulls) are alone over it, any number of them, unless its owner
    rates that empire ALLY (l.1631-1658, R-63). An empty hull belongs to the
    owner of the planet it orbits (l.1664-1673, R-65). Whatever changes owner
    loses its standing order (l.1601). A home planet stays its empire's home
    whoever holds it (R-22). Who holds Earth, and since when, is kept for the
    Earth condition (``state.earth_held``, R-26)."""
    crewed: dict[int, set[int]] = {}  # by planet, the owners of the ships (not hulls) over it
    for ship in state.ships.values():
        if not ship.is_empty_hull():
            crewed.setdefault(ship.planet, set()).add(ship.owner)
    taken: dict[int, int] = {}
    for number, planet in sorted(state.planets.items()):
        taker = _taker(state, planet, crewed.get(number, set()))
        if taker is not None:
            taken[number] = taker
    for number, taker in taken.items():
        planet = state.planets[number]
        loser, planet.owner, planet.standing = planet.owner, taker, None
        report.tell(taker, f"Planet {number} liberated from {state.name_of(loser)}")
        if loser != NEUTRAL:
            report.tell(loser, f"Planet {number} defeated by Space Attack")  # not told by whom
    for number, ship in sorted(state.ships.items()):
        owner = state.planets[ship.planet].owner
        if ship.is_empty_hull() and ship.owner != owner:
            lost, ship.owner, ship.standing = ship.owner, owner, None
            if owner != NEUTRAL:
                report.tell(owner, f"Ship S{number} has been boarded by your space marines")
            if lost != NEUTRAL:
                report.tell(lost, f"Ship S{number} lost to space pirates")
    earth = state.planets[state.earth].owner
    if earth == NEUTRAL:
        state.earth_held = None
    elif state.earth_held is None or state.earth_held[0] != earth:
        state.earth_held = (earth, state.turn)


def _taker(state: GameState, planet: Planet, owners: set[int]) -> int | None:
    """The empire that takes ``planet`` now, or None (R-63); ``owners`` own the ships (not hulls) over it."""
    if planet.pdus > 0:
        return None
    if len(owners) != 1:
        return None
    (owner,) = owners
    if owner == planet.owner or owner == NEUTRAL:
        return None
    if planet.owner != NEUTRAL and state.rating(planet.owner, owner) == AllianceLevel.ALLY:
        return None  # "Having an allies ship in orbit above your planet will not change ownership" (l.446-447)
    return owner


def planet_income(planet: Planet) -> int:
    """20 for the planet, 1 for each mine, 5 for each industry (Table "income",
    l.1936-1955): 12 mines and 3 industry give 47. A research planet adds
    nothing of its own: its bonus is the empire's (l.1956-1958)."""
    return INCOME_PLANET + INCOME_MINE * sum(planet.mines) + INCOME_INDUSTRY * planet.industry


def income(state: GameState, empire: int) -> int:
    """The empire's income (R-69): its planets' (`planet_income`), the mines
    and industry its ships carry (1 and 5 each: the example sheet's 539 is its
    nine planets' 534 and one industry on S104, l.2139, l.2212-2229), and the
    research bonus for the number of research planets it owns (l.1945-1951)."""
    planets = state.planets_of(empire)
    carried = sum(INCOME_MINE * s.hold.mines + INCOME_INDUSTRY * s.hold.industry for s in state.ships_of(empire))
    return sum(planet_income(p) for p in planets) + carried + research_bonus(sum(p.research for p in planets))


def score(state: GameState, report: Report) -> None:
    """Step 24, the last (after 23 ownership): each empire's score grows by its
    income, computed from the state after ownership (R-69). Earth credits do
    not change here: they come only from trade (l.859)."""
    earned = incomes(state)
    for number, empire in sorted(state.empires.items()):
        empire.score += earned[number]


def incomes(state: GameState) -> dict[int, int]:
    """Every empire's `income`, from one look at the planets and the ships
    (`income` for each empire looks at all of them for each)."""
    planets: dict[int, list[Planet]] = {number: [] for number in state.empires}
    carried = dict.fromkeys(state.empires, 0)
    for planet in state.planets.values():
        if planet.owner in planets:
            planets[planet.owner].append(planet)
    for ship in state.ships.values():
        if ship.owner in carried:
            carried[ship.owner] += INCOME_MINE * ship.hold.mines + INCOME_INDUSTRY * ship.hold.industry
    return {number: sum(planet_income(p) for p in owned) + carried[number]
            + research_bonus(sum(p.research for p in owned)) for number, owned in planets.items()}
