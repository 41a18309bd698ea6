"""Random but plausible Celestial Empire orders, for the fuzz test and the
turn benchmark (tests/test_celestial_fuzz.py, bench/celestial_turns.py).

`mail_for(state, empire, rng)` writes one empire's order mail as text in the
manual's notation, from what that empire can see: jumps along real links
from where its ships are, loads and unloads of what is there, tends to the
ships beside them, building on its planets, attacks at the planets its
ships orbit, deploys and retrieves, Earth trade over Earth, contracts,
gifts, alliances, scans, standing orders, messages, votes on the game's
length, unbuilding and transmutation, and research lines on research turns;
and a share of nonsense (ships and planets not its own, amounts of zero and
of a trillion). The mail is read with `notation.parse_orders`, so the
grammar is exercised too. Everything drawn comes from ``rng``, so a seed
replays a game.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable

from gm.games.celestial_empire.galaxy import ORE_TYPES, generate
from gm.games.celestial_empire.orders import AllianceLevel
from gm.games.celestial_empire.research import is_research_turn
from gm.games.celestial_empire.state import GameState, Planet, Ship, new_game

NAMES = ("Grok", "Winter", "Master", "Assassins", "PsiNinja", "Warlord", "Zed", "Orion", "Vega")
LONG = "Wwwwwwwwwwwwwwwwwwwwwww"
"""A name as long as names go (23 characters, l.351), in wide letters."""
UNITS = "CFTS"
HUGE = 10 ** 12


def amount(rng: random.Random, plausible: int) -> int:
    """Mostly up to ``plausible`` (what there is), sometimes zero or huge."""
    roll = rng.random()
    if roll < 0.08:
        return 0
    if roll < 0.14:
        return rng.choice((HUGE, 10 ** 6, 99999))
    return rng.randint(1, max(1, plausible))


def count(rng: random.Random, plausible: int) -> str:
    """An optional fighter or PDU count: mostly absent (all fire)."""
    return "" if rng.random() < 0.6 else str(amount(rng, plausible))


def ore_type(rng: random.Random, ore: list[int]) -> int:
    """A type there is some of, most of the time."""
    present = [t for t, n in enumerate(ore) if n]
    return rng.choice(present) if present and rng.random() < 0.8 else rng.randrange(10)


def path_from(state: GameState, start: int, rng: random.Random) -> list[int]:
    """A walk of one to five planets along real links (now and then a planet that is no neighbour)."""
    path, here = [], start
    for _ in range(rng.randint(1, 5)):
        links = state.planets[here].links
        here = rng.choice(links) if links and rng.random() < 0.95 else rng.choice(sorted(state.planets))
        path.append(here)
    return path


def route(state: GameState, start: int, goal: int) -> list[int]:
    """The planets of a shortest way from ``start`` to ``goal``, at most five of them."""
    before: dict[int, int] = {start: start}
    queue = deque([start])
    while queue and goal not in before:
        here = queue.popleft()
        for there in state.planets[here].links:
            if there not in before:
                before[there] = here
                queue.append(there)
    path = []
    while goal in before and goal != start:
        path.append(goal)
        goal = before[goal]
    return path[::-1][:5]


def goals(state: GameState, empire: int) -> list[int]:
    """Where an empire's ships want to go: Earth, the other empires' homes, planets their ships orbit."""
    wanted = [state.earth] + [e.home for n, e in sorted(state.empires.items()) if n != empire]
    return wanted + sorted({s.planet for s in state.ships.values() if s.owner != empire})[:5]


def ship_order(state: GameState, empire: int, ship: Ship, rng: random.Random) -> str:
    """One plausible order for ``ship``, written without its leading ``S<number>``."""
    planet = state.planets[ship.planet]
    hold = ship.hold
    others = [s for s in state.ships_at(ship.planet) if s.number != ship.number]
    foreign = [s for s in others if s.owner != empire]
    free = max(1, ship.free_space())
    choices: list[Callable[[], str]] = [
        lambda: "".join(f"J{p}" for p in path_from(state, ship.planet, rng)),
        lambda: "".join(f"J{p}" for p in route(state, ship.planet, rng.choice(goals(state, empire))))
        or f"J{rng.choice(planet.links)}",
        lambda: "".join(f"J{p}" for p in route(state, ship.planet, rng.choice(goals(state, empire))))
        or f"J{rng.choice(planet.links)}",
        lambda: f"L{amount(rng, free)}R0",
        lambda: f"L{amount(rng, free)}R{ore_type(rng, planet.ore)}",
        lambda: f"L{amount(rng, free // 20)}M{ore_type(rng, planet.mines)}",
        lambda: f"L{amount(rng, min(planet.industry, free // 10))}I",
        lambda: f"L{amount(rng, min(planet.pdus, free // 2))}D",
        lambda: f"L{amount(rng, planet.spacemines)}S",
        lambda: "L" if rng.random() < 0.5 else "L(" + "".join(rng.sample("0123456789DS", rng.randint(1, 4))) + ")",
        lambda: f"U{amount(rng, sum(hold.ore))}R{ore_type(rng, hold.ore)}",
        lambda: f"U{amount(rng, hold.mines)}M{rng.randrange(10)}",
        lambda: f"U{amount(rng, hold.industry)}I",
        lambda: f"U{amount(rng, hold.pdus)}D",
        lambda: f"U{amount(rng, hold.spacemines)}S",
        lambda: "U",
        lambda: f"D{amount(rng, hold.spacemines)}",
        lambda: f"R{amount(rng, planet.deployed)}",
        lambda: f"A{count(rng, ship.fighters)}D",
        lambda: f"A{count(rng, ship.fighters)}M{ore_type(rng, planet.mines)}",
        lambda: f"A{count(rng, ship.fighters)}R{ore_type(rng, planet.ore)}",
        lambda: f"A{count(rng, ship.fighters)}I",
        lambda: f"A{count(rng, ship.fighters)}SM",
        lambda: f"Z{amount(rng, 3)}{rng.choice(UNITS)}",
        lambda: f"B{amount(rng, 5)}{rng.choice(UNITS)}",
        lambda: f"={rng.choice(('Black Arrow', 'x', LONG, 'Star of ' + NAMES[empire - 1]))}",
        lambda: f"G{rng.choice((*NAMES[:len(state.empires)], 'Nobody'))}",
    ]
    if foreign or others:
        target = rng.choice(foreign or others)
        choices += 2 * [
            lambda: f"A{count(rng, ship.fighters)}S{target.number}",
            lambda: f"A{count(rng, ship.fighters)}S{target.number}",
            lambda: f"ES{target.number}",
            lambda: f"T{amount(rng, sum(hold.ore))}S{target.number}R{ore_type(rng, hold.ore)}",
            lambda: f"T{amount(rng, hold.industry)}S{target.number}I",
            lambda: f"T{amount(rng, hold.mines)}S{target.number}M",
            lambda: f"T{amount(rng, hold.pdus)}S{target.number}D",
            lambda: f"T{amount(rng, hold.spacemines)}S{target.number}S",
            lambda: f"TS{target.number}",
        ]
    if ship.planet == state.earth:
        choices += 6 * [
            lambda: f"P{amount(rng, free)}R{rng.randrange(10)}",
            lambda: f"X{amount(rng, sum(hold.ore))}R{ore_type(rng, hold.ore)}",
            lambda: "X",
            lambda: f"B{amount(rng, 8)}{rng.choice(UNITS)}{rng.choice((0, 1, 2, 3, 5, 20, HUGE))}",
            lambda: f"P{amount(rng, free)}R0",
        ]
    return rng.choice(choices)()


def planet_order(state: GameState, empire: int, planet: Planet, rng: random.Random) -> str:
    """One plausible order for ``planet``, written without its number."""
    foreign = [s for s in state.ships_at(planet.number) if s.owner != empire]
    choices: list[Callable[[], str]] = [
        lambda: f"B{amount(rng, 10)}D",
        lambda: f"B{amount(rng, 3)}M{rng.randrange(10)}",
        lambda: f"B{amount(rng, 3)}I",
        lambda: f"B{amount(rng, 10)}S{ore_type(rng, planet.ore)}",
        lambda: (f"B{amount(rng, 2)}H{rng.randint(0, 3)}/{rng.randint(0, 20)}/"
                 f"{rng.randint(0, 2)}/{rng.randint(0, 2)}"),
        lambda: f"X{amount(rng, max(planet.ore))}R{ore_type(rng, planet.ore)}R{rng.randrange(10)}",
        lambda: f"D{amount(rng, planet.spacemines)}",
        lambda: f"A{count(rng, planet.pdus)}SM",
        lambda: f"={rng.choice(('Capital', 'Arakos I', LONG))}",
        lambda: f"G{rng.choice(NAMES[:len(state.empires)])}",
    ]
    if foreign:
        target = rng.choice(foreign)
        choices += [lambda: f"A{count(rng, planet.pdus)}S{target.number}"] * 3
    return rng.choice(choices)()


def empire_order(state: GameState, empire: int, rng: random.Random) -> str:
    """An order of the whole empire: alliances, scans, messages, votes."""
    others = [e.name for n, e in sorted(state.empires.items()) if n != empire] or ["Nobody"]
    level = rng.choice(("ALLY", "friend", "Neutral", "ENEMY", "hostile"))
    return rng.choice([
        lambda: f"+{rng.choice(others)}",
        lambda: f"-{rng.choice(others)}",
        lambda: f"SCAN{rng.choice(sorted(state.planets))}",
        lambda: rng.choice((f"{{Greetings from {NAMES[empire - 1]}}}", "{" + "Long live the empire! " * 6 + "}")),
        lambda: f"&{rng.choice(others)} Leave now or face war.&",
        lambda: f"({level} We must strike at P{rng.choice(sorted(state.planets))} now)",
        lambda: f"TURN{rng.choice((0, 1, state.turn, state.turn + 5, 30, 200))}",
    ])()


def nonsense(state: GameState, rng: random.Random) -> str:
    """An order for something not the empire's, or that does not exist."""
    ship = rng.choice([*state.ships, 999, 100000]) if rng.random() < 0.8 else 5
    planet = rng.choice([*state.planets, 0, 9999])
    return rng.choice([
        f"S{ship}J{planet}", f"S{ship}L{HUGE}R3", f"S{ship}U0R1", f"S{ship}A0S{ship}", f"S{ship}ES{ship}",
        f"S{ship}T{HUGE}S{ship}R2", f"S{ship}Z{HUGE}C", f"S{ship}B{HUGE}F", f"{planet}B{HUGE}I",
        f"{planet}B0H0/0/0/0", f"{planet}B{HUGE}H{HUGE}/1/1/1", f"{planet}X{HUGE}R1R1", f"{planet}D{HUGE}",
        f"{planet}A{HUGE}S{ship}", f"S{ship}GNobody", f"{planet}G{NAMES[0]}", f"S{ship}P{HUGE}R1",
        f"S{ship}B{HUGE}C{HUGE}", f"XS{ship}", f"X{planet}", f"OS{ship}J{planet}", f"O{planet}B1D",
        f"S{ship}R{HUGE}", f"S{ship}D{HUGE}", "TURN0", f"SCAN{planet}",
    ])


def research_lines(state: GameState, empire: int, rng: random.Random) -> list[str]:
    """``;RP`` lines for the empire's research planets (and a stray one) on research turns."""
    if not is_research_turn(state.turn):
        return []
    lines = []
    ships = [s.number for s in state.ships_of(empire)] or [100]
    for planet in [p for p in state.planets_of(empire) if p.research] + [rng.choice(list(state.planets.values()))]:
        own = [p.number for p in state.planets_of(empire)] or [planet.number]
        benefit = rng.choice([
            f"LINK {rng.choice(own)} {rng.choice(own)}", f"CARGO S{rng.choice(ships)}", "IND",
            f"MINE {rng.randrange(10)}", f"PDU {rng.choice(own)}", "PDU",
            f"ORE {rng.randrange(10)} {rng.randrange(10)}", f"MINES {rng.randrange(10)} {rng.randrange(10)}",
            f"FUEL S{rng.choice(list(state.ships) or [100])}", f"SHIPS {rng.choice(NAMES)}", "OWNERS",
            f"EFF S{rng.choice(ships)}", "Make me a deathstar please",
        ])
        lines.append(f";RP{planet.number} {benefit}")
    return lines


def mail_for(state: GameState, empire: int, rng: random.Random) -> str:
    """The empire's order mail for ``state.turn``: text in the manual's notation."""
    lines: list[str] = []
    for ship in state.ships_of(empire):
        for _ in range(rng.choice((0, 1, 1, 2))):
            order = f"S{ship.number}{ship_order(state, empire, ship, rng)}"
            lines.append(order)
        roll = rng.random()
        if roll < 0.04:
            lines.append(f"OS{ship.number}{ship_order(state, empire, ship, rng)}")
        elif roll < 0.06:
            lines.append(f"XS{ship.number}")
    for planet in state.planets_of(empire):
        for _ in range(rng.choice((0, 1, 2))):
            lines.append(f"{planet.number}{planet_order(state, empire, planet, rng)}")
        roll = rng.random()
        if roll < 0.05:
            lines.append(f"O{planet.number}{planet_order(state, empire, planet, rng)}")
        elif roll < 0.07:
            lines.append(f"X{planet.number}")
    lines += [empire_order(state, empire, rng) for _ in range(rng.randint(0, 3))]
    lines += [nonsense(state, rng) for _ in range(rng.randint(0, 3))]
    rng.shuffle(lines)
    if rng.random() < 0.3:
        lines.append("; a comment line")
    return "\n".join(lines + research_lines(state, empire, rng)) + "\n"


def scattered_game(seed: int, empires: int) -> GameState:
    """A new game moved on into the middle of things, so that the orders meet
    each other early: every empire's ships get fuel, fighters, tractors and
    shields, and two of them start over Earth (some ore aboard, for
    contracts) and over a neighbour's home; homes get PDUs and stored
    spacemines and a research planet beside them, Earth some spacemines
    deployed; empires get Earth credits and rate the others at random."""
    state = new_game(generate(seed, empires), list(NAMES[:empires]))
    rng = random.Random(seed)
    homes = [e.home for _, e in sorted(state.empires.items())]
    for number, empire in sorted(state.empires.items()):
        empire.credits = rng.choice((0, 5, 50, 500))
        ships = state.ships_of(number)
        for ship in ships:
            ship.fighters += rng.randint(0, 20)
            ship.tractors += rng.choice((0, 0, 2, 10))
            ship.shields += rng.choice((0, 0, 3, 15))
            ship.cargo_units += rng.choice((0, 20, 60))
            ship.hold.ore[0] = min(ship.cargo_units, ship.hold.ore[0] + rng.randint(0, 40))
        ships[0].planet = state.earth
        ships[0].tractors += rng.choice((0, 40))
        ships[1].planet = rng.choice([h for h in homes if h != empire.home] or [empire.home])
        for t in range(1, ORE_TYPES):
            ships[0].hold.ore[t] += min(ships[0].free_space(), rng.choice((0, 3, 10)))
        home = state.planets[empire.home]
        research = state.planets[rng.choice(home.links)]
        if research.home_of is None and research.number != state.earth:
            research.owner, research.research = number, True
        home.pdus += rng.randint(0, 30)
        home.spacemines += rng.randint(0, 20)
        for other in state.empires:
            if other != number and rng.random() < 0.5:
                empire.ratings[other] = rng.choice(list(AllianceLevel))
    state.planets[state.earth].deployed += rng.randint(0, 10)
    return state


def upheaval(state: GameState) -> GameState:
    """The state turned upside down: empire 2 has lost every planet (to
    empire 1) and every ship (to empire 3), and empire 3 holds Earth, its
    PDUs gone. The rules and the sheets must cope with an empire that has
    nothing and an Earth that is not NEUTRAL's."""
    for planet in state.planets_of(2):
        planet.owner = 1
    for ship in state.ships_of(2):
        ship.owner = 3
    earth = state.planets[state.earth]
    earth.owner, earth.pdus = 3, 0
    return state
