"""The Celestial Empire galaxy: 256 linked planets, generated from a seed.

`generate(seed, empires)` is pure: the same seed and number of empires give
the same galaxy on every Python version (>= 3.11), so `gm replay` rebuilds it
from the seed the archive records. All randomness comes from one
`random.Random(seed)`, which is asked only for `randrange`, `choice` and
`shuffle` (stable since Python 3.2); no set is ever iterated.

The manual (../shared/rules/celestial-empire-manual.tex) fixes: 256 planets
(l.148: a quarter of the galaxy is 64 planets); links work both ways and
every planet has one to four (l.166-170); Earth is four jumps by the
shortest route from every home planet (l.738); about 10% of the planets are
research planets (l.1695); nine empires at most (l.135); home planets start
with 60 industry (l.657) and 100 PDUs (l.639); Earth has 60 industry, 200
PDUs (l.2297) and no mines (its income, 320, is 20 + 5 x 60); neutral planets
have a few mines of a few types, some have industry, under 5% have PDUs
(l.1660, l.1685, l.162). docs/celestial_empire/galaxy.md gives every
decision taken where the manual is silent, with the part it interprets.

Construction, for fairness by symmetry: Earth is linked to three hubs; each
hub to the gates of three of nine identical sectors of 28 planets
(1 + 3 + 9 x 28 = 256). A sector is one random template copied nine times:
its gate, an approach planet and the home position (gate - approach - home,
so the home is four jumps from Earth), the rest a random tree plus extra
links. Sector s is linked to sector s+1 (mod 9) by "border" links chosen
so that the whole galaxy has the symmetries of a regular nine-sided polygon
(rotations and reflections): every home position can be mapped to every
other by a symmetry of the galaxy, contents and research planets included.
Hence every home position sees exactly the same galaxy around it. Planet
numbers (100 to 355, as in the manual's examples) are then shuffled so the
pattern does not show in the numbers.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from gm.games.celestial_empire.names import planet_names

PLANETS = 256
FIRST_NUMBER = 100
"""Planets are numbered 100 to 355: the manual's orders are written with three-digit
numbers ({\\em xxx}) and every planet number in its examples lies in that range."""
SEATS = 9
ORE_TYPES = 10
EARTH_DISTANCE = 4
MAX_LINKS = 4
HUBS = 3
SECTOR = (PLANETS - 1 - HUBS) // SEATS  # 28
GATE, APPROACH, HOME = 0, 1, 2
"""Template positions of a sector's gate (linked to a hub), approach and home position."""
RESEARCH_PER_SECTOR = 3
"""27 research planets, 10.5% of 256: "about 10%" (l.1695)."""
MIN_HOME_DISTANCE = 5
"""No two home positions closer than this (shortest path in jumps)."""
RESEARCH_HOME_DISTANCE = 3
"""No research planet closer than this to any home position."""
MAX_ATTEMPTS = 100

HOME_INDUSTRY = 60
HOME_PDUS = 100
HOME_MINES = (4, 3, 3, 2, 2, 1, 1, 0, 4, 4)
HOME_ORE = (30,) * ORE_TYPES
EARTH_INDUSTRY = 60
EARTH_PDUS = 200
EARTH_ORE = (100,) * ORE_TYPES

NO_ORE = (0,) * ORE_TYPES


@dataclass(frozen=True)
class Planet:
    """A planet as the game starts: its links (numbers, ascending) and contents.

    ``mines[t]`` is the number of mines of type t, ``ore[t]`` the ore of
    type t stockpiled. Ownership is not here: at the start homes belong to
    their seats and every other planet, Earth included, to NEUTRAL."""

    number: int
    name: str
    links: tuple[int, ...]
    mines: tuple[int, ...] = NO_ORE
    ore: tuple[int, ...] = NO_ORE
    industry: int = 0
    pdus: int = 0
    research: bool = False


@dataclass(frozen=True)
class Galaxy:
    """The galaxy at the start of a game.

    ``planets[n - FIRST_NUMBER]`` is planet n. ``homes[s - 1]`` is the home
    position of seat s (1 to 9); seats 1 to ``empires`` are played, the
    others' home positions are ordinary neutral planets. ``research`` lists
    the research planets, ascending."""

    seed: int
    empires: int
    planets: tuple[Planet, ...]
    earth: int
    homes: tuple[int, ...]
    research: tuple[int, ...]

    def planet(self, number: int) -> Planet:
        """Planet ``number`` (100 to 355); KeyError if there is none."""
        index = number - FIRST_NUMBER
        if not 0 <= index < len(self.planets):
            raise KeyError(number)
        return self.planets[index]

    def home(self, seat: int) -> Planet:
        """The home planet of ``seat`` (1 to 9)."""
        return self.planet(self.homes[seat - 1])

    @property
    def played_homes(self) -> tuple[int, ...]:
        """The home planets of the seats in play, seat 1 first."""
        return self.homes[:self.empires]


def distances(galaxy: Galaxy, start: int) -> dict[int, int]:
    """Jumps by the shortest route from planet ``start`` to every planet."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in galaxy.planet(here).links:
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


def _bfs(adj: Sequence[Sequence[int]], start: int) -> list[int]:
    """Distances from ``start`` over index adjacency lists; -1 where unreachable."""
    dist = [-1] * len(adj)
    dist[start] = 0
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in adj[here]:
            if dist[there] < 0:
                dist[there] = dist[here] + 1
                queue.append(there)
    return dist


# Abstract node ids while building: 0 Earth, 1..3 the hubs, then sector s's
# template position t is 1 + HUBS + s * SECTOR + t.
EARTH_NODE = 0


def _node(sector: int, position: int) -> int:
    return 1 + HUBS + (sector % SEATS) * SECTOR + position


@dataclass
class _Template:
    """One sector's shape: links inside it and border links to the next sector."""

    adj: list[list[int]]
    borders: list[tuple[int, int]]
    """(u, v): u in sector s is linked to v in sector s + 1. Closed under swapping."""


def _link(adj: list[list[int]], a: int, b: int) -> None:
    adj[a].append(b)
    adj[b].append(a)


def _template(rng: random.Random) -> _Template:
    """A random sector: a tree grown from gate - approach - home, border
    links, then extra links, all within the four-link limit (the gate keeps
    one for its hub, border planets two for their neighbouring sectors)."""
    adj: list[list[int]] = [[] for _ in range(SECTOR)]
    _link(adj, GATE, APPROACH)
    _link(adj, APPROACH, HOME)
    # The home gets two or three more links, the gate at most one more.
    around_home = 2 + rng.randrange(2)
    for new in range(3, SECTOR):
        if new < 3 + around_home:
            parent = HOME
        else:
            parent = rng.choice([p for p in range(new) if p != HOME and len(adj[p]) < (2 if p == GATE else 3)])
        _link(adj, new, parent)
    # Border planets: not the gate, approach or home, nor next to the home;
    # each gains two links (to the previous and the next sector).
    candidates = [p for p in range(3, SECTOR) if len(adj[p]) <= 2 and HOME not in adj[p]]
    borders: list[tuple[int, int]] = []
    for _ in range(2 + rng.randrange(2)):
        if not candidates:
            break
        u = rng.choice(candidates)
        candidates.remove(u)
        if candidates and rng.randrange(2):
            v = rng.choice(candidates)
            candidates.remove(v)
            borders += [(u, v), (v, u)]
        else:
            borders.append((u, u))
    extra = {u for u, _ in borders}  # membership only
    room = [MAX_LINKS - len(adj[p]) - (1 if p == GATE else 0) - (2 if p in extra else 0) for p in range(SECTOR)]
    for _ in range(8 + rng.randrange(5)):
        pairs = [(a, b) for a in range(SECTOR) for b in range(a + 1, SECTOR)
                 if room[a] > 0 and room[b] > 0 and b not in adj[a] and (a, b) != (GATE, HOME)]
        if not pairs:
            break
        a, b = rng.choice(pairs)
        _link(adj, a, b)
        room[a] -= 1
        room[b] -= 1
    return _Template(adj, borders)


def _assemble(template: _Template) -> list[list[int]]:
    """The whole galaxy's adjacency from one sector template (abstract ids)."""
    adj: list[list[int]] = [[] for _ in range(PLANETS)]
    for hub in range(HUBS):
        _link(adj, EARTH_NODE, 1 + hub)
    for sector in range(SEATS):
        _link(adj, 1 + sector % HUBS, _node(sector, GATE))
        for a in range(SECTOR):
            for b in template.adj[a]:
                if a < b:
                    _link(adj, _node(sector, a), _node(sector, b))
        for u, v in template.borders:
            _link(adj, _node(sector, u), _node(sector + 1, v))
    return adj


def _ordinary_contents(rng: random.Random) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Mines and ore of a neutral planet: nine in ten have mines, of one to
    three types, one to five of each (mostly few), a little ore of the types
    mined, and sometimes a little of a type not mined (like planet 107 in
    the manual's planet summary, l.2216)."""
    mines = [0] * ORE_TYPES
    ore = [0] * ORE_TYPES
    if rng.randrange(10):
        types = list(range(ORE_TYPES))
        rng.shuffle(types)
        for kind in types[:rng.choice((1, 1, 1, 2, 2, 3))]:
            mines[kind] = rng.choice((1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5))
            ore[kind] = rng.randrange(2 * mines[kind] + 1)
    if not rng.randrange(6):
        kind = rng.randrange(ORE_TYPES)
        if not mines[kind]:
            ore[kind] = 1 + rng.randrange(5)
    return tuple(mines), tuple(ore)


def _fairness(dist: Sequence[Sequence[int]], occupied: Sequence[int]) -> tuple[int, int, int, int]:
    """How unfair it is to seat empires at the home positions ``occupied``
    (sectors): the spread (max - min over the empires) of their territory
    (planets strictly nearer to them than to any other empire), of the
    distance to the nearest other empire, of the summed distance to the
    others, then minus the nearest distance (closer neighbours are worse)."""
    territory = {p: 0 for p in occupied}
    for x in range(PLANETS):
        best = min(occupied, key=lambda p: dist[p][x])
        if sum(1 for p in occupied if dist[p][x] == dist[best][x]) == 1:
            territory[best] += 1
    nearest = [min(dist[p][_node(q, HOME)] for q in occupied if q != p) for p in occupied]
    total = [sum(dist[p][_node(q, HOME)] for q in occupied) for p in occupied]
    sizes = list(territory.values())
    return (max(sizes) - min(sizes), max(nearest) - min(nearest), max(total) - min(total), -min(nearest))


def _occupied(rng: random.Random, dist: Sequence[Sequence[int]], empires: int) -> list[int]:
    """The sectors whose home positions are played: the fairest choice by
    `_fairness` (ties broken by the seed), turned by a random rotation.
    Only one choice per rotation class is scored: the galaxy's symmetry
    makes rotated choices equally fair."""
    if empires == SEATS:
        return list(range(SEATS))
    classes = []
    for chosen in itertools.combinations(range(SEATS), empires):
        turned = [tuple(sorted((p + r) % SEATS for p in chosen)) for r in range(SEATS)]
        if chosen == min(turned):
            classes.append(chosen)
    scored = [(_fairness(dist, chosen), chosen) for chosen in classes]
    best = min(score for score, _ in scored)
    chosen = rng.choice([c for score, c in scored if score == best])
    turn = rng.randrange(SEATS)
    return [(p + turn) % SEATS for p in chosen]


def generate(seed: int, empires: int) -> Galaxy:
    """The galaxy for ``seed`` with ``empires`` (2 to 9) seats in play.

    The map, numbers, names and contents depend on the seed alone; the
    number of empires only decides which home positions are played
    (spread as fairly as `_fairness` measures) and which seat gets which.
    Raises ValueError for a bad number of empires."""
    if not 2 <= empires <= SEATS:
        raise ValueError(f"Celestial Empire is for 2 to {SEATS} empires, not {empires}")
    rng = random.Random(seed)
    for _ in range(MAX_ATTEMPTS):
        template = _template(rng)
        adj = _assemble(template)
        homes = [_node(s, HOME) for s in range(SEATS)]
        dist = [_bfs(adj, h) for h in homes]
        earth = _bfs(adj, EARTH_NODE)
        if (min(len(links) for links in adj) < 1 or max(len(links) for links in adj) > MAX_LINKS
                or min(earth) < 0 or any(earth[h] != EARTH_DISTANCE for h in homes)
                or min(dist[0][h] for h in homes[1:]) < MIN_HOME_DISTANCE):
            continue
        eligible = [t for t in range(3, SECTOR)
                    if min(d[_node(0, t)] for d in dist) >= RESEARCH_HOME_DISTANCE]
        if len(eligible) >= RESEARCH_PER_SECTOR:
            break
    else:
        raise RuntimeError(f"no galaxy for seed {seed} in {MAX_ATTEMPTS} attempts")
    # Research planets: one equidistant between this sector's home and a
    # neighbour's if possible (the manual's hint, l.2778), the rest anywhere
    # eligible.
    equidistant = [t for t in eligible if dist[0][_node(0, t)] in (dist[1][_node(0, t)], dist[8][_node(0, t)])]
    research = [rng.choice(equidistant or eligible)]
    while len(research) < RESEARCH_PER_SECTOR:
        pick = rng.choice(eligible)
        if pick not in research:
            research.append(pick)
    # Contents, one per template position, the same in every sector.
    contents = [_ordinary_contents(rng) for _ in range(SECTOR)]
    hub_mines, hub_ore = _ordinary_contents(rng)  # the hubs too are alike
    others = [t for t in range(SECTOR) if t != HOME]
    industrial = rng.choice(others)
    industry = 1 + rng.randrange(5)
    armed = rng.choice(others)
    pdus = 1 + rng.randrange(10)
    # Numbers and names.
    numbers = list(range(FIRST_NUMBER, FIRST_NUMBER + PLANETS))
    rng.shuffle(numbers)
    names = planet_names(rng, PLANETS - 1)
    occupied = _occupied(rng, dist, empires)
    empty = [s for s in range(SEATS) if s not in occupied]
    rng.shuffle(occupied)
    rng.shuffle(empty)
    seat_sectors = occupied + empty
    planets: list[Planet | None] = [None] * PLANETS
    name_of = iter(names)
    for node in range(PLANETS):
        number = numbers[node]
        links = tuple(sorted(numbers[n] for n in adj[node]))
        if node == EARTH_NODE:
            planet = Planet(number, "Earth", links, ore=EARTH_ORE, industry=EARTH_INDUSTRY, pdus=EARTH_PDUS)
        elif node <= HUBS:
            planet = Planet(number, next(name_of), links, hub_mines, hub_ore)
        else:
            sector, position = divmod(node - 1 - HUBS, SECTOR)
            mines, ore = contents[position]
            if position == HOME and sector in occupied:
                planet = Planet(number, next(name_of), links, HOME_MINES, HOME_ORE, HOME_INDUSTRY, HOME_PDUS)
            else:
                planet = Planet(number, next(name_of), links, mines, ore,
                                industry if position == industrial else 0, pdus if position == armed else 0,
                                position in research)
        planets[number - FIRST_NUMBER] = planet
    galaxy = Galaxy(seed, empires, tuple(p for p in planets if p is not None), numbers[EARTH_NODE],
                    tuple(numbers[_node(s, HOME)] for s in seat_sectors),
                    tuple(sorted(p.number for p in planets if p is not None and p.research)))
    wrong = problems(galaxy)
    if wrong:  # the construction guarantees these; a failure here is a bug in it
        raise AssertionError(f"galaxy for seed {seed}: {'; '.join(wrong)}")
    return galaxy


def home_profile(galaxy: Galaxy, home: int) -> tuple[tuple[int, ...], ...]:
    """What a home position sees of the galaxy around it, for comparing
    home positions: the distance to Earth; how many planets lie within 1, 2,
    ... 6 jumps; how many research planets within 1 ... 8 jumps; how many
    mines, industry and PDUs on planets within 1 ... 4 jumps (home
    positions' own contents left out, since played and empty ones differ);
    and the distances to the other eight home positions, ascending."""
    dist = distances(galaxy, home)
    homes = set(galaxy.homes)  # membership only
    def within(r: int) -> list[Planet]:
        return [p for p in galaxy.planets if dist[p.number] <= r]
    return (
        (dist[galaxy.earth],),
        tuple(len(within(r)) for r in range(1, 7)),
        tuple(sum(p.research for p in within(r)) for r in range(1, 9)),
        tuple(sum(sum(p.mines) for p in within(r) if p.number not in homes) for r in range(1, 5)),
        tuple(sum(p.industry + 1000 * p.pdus for p in within(r) if p.number not in homes) for r in range(1, 5)),
        tuple(sorted(dist[h] for h in galaxy.homes if h != home)),
    )


def seat_profile(galaxy: Galaxy, seat: int) -> tuple[int, int, int]:
    """What the empire at ``seat`` (one in play) has compared with the other
    empires in play: its territory (planets strictly nearer to its home than
    to any other played home), the distance to the nearest other played
    home, and the summed distance to all of them."""
    played = galaxy.played_homes
    dist = {h: distances(galaxy, h) for h in played}
    mine = played[seat - 1]
    territory = sum(1 for p in galaxy.planets
                    if all(dist[mine][p.number] < dist[h][p.number] for h in played if h != mine))
    others = [dist[mine][h] for h in played if h != mine]
    return territory, min(others), sum(others)


def problems(galaxy: Galaxy) -> list[str]:
    """Every way ``galaxy`` breaks a property the generator guarantees
    (empty if none), checked from the galaxy alone, not from how it was
    built: the numbering and names; links two-way, one to four per planet,
    all connected; Earth four jumps from every home position; home positions
    at least MIN_HOME_DISTANCE apart and alike (`home_profile`); the research
    planets; the starting contents."""
    found: list[str] = []
    planets = galaxy.planets
    if [p.number for p in planets] != list(range(FIRST_NUMBER, FIRST_NUMBER + PLANETS)):
        return [f"planets are not numbered {FIRST_NUMBER} to {FIRST_NUMBER + PLANETS - 1} in order"]
    names = [p.name.lower() for p in planets]
    if len(set(names)) != PLANETS or any(not 0 < len(p.name) < 24 for p in planets):
        found.append("planet names not unique or not 1 to 23 characters")
    if galaxy.planet(galaxy.earth).name != "Earth":
        found.append("Earth is not named Earth")
    for p in planets:
        if not 1 <= len(p.links) <= MAX_LINKS or len(set(p.links)) != len(p.links) or p.number in p.links:
            found.append(f"planet {p.number} has links {p.links}")
        for q in p.links:
            if p.number not in galaxy.planet(q).links:
                found.append(f"link {p.number}-{q} is one-way")
    if found:
        return found
    if len(distances(galaxy, galaxy.earth)) != PLANETS:
        found.append("the galaxy is not connected")
    if len(set(galaxy.homes)) != SEATS or galaxy.earth in galaxy.homes:
        found.append(f"home positions {galaxy.homes} are not nine other planets than Earth")
    for h in galaxy.homes:
        dist = distances(galaxy, h)
        if dist[galaxy.earth] != EARTH_DISTANCE:
            found.append(f"home {h} is {dist[galaxy.earth]} jumps from Earth")
        near = [o for o in galaxy.homes if o != h and dist[o] < MIN_HOME_DISTANCE]
        if near:
            found.append(f"home {h} is too near homes {near}")
        close = [r for r in galaxy.research if dist[r] < RESEARCH_HOME_DISTANCE]
        if close:
            found.append(f"home {h} is too near research planets {close}")
    profiles = {home_profile(galaxy, h) for h in galaxy.homes}
    if len(profiles) != 1:
        found.append(f"home positions see {len(profiles)} different galaxies around them")
    if galaxy.research != tuple(p.number for p in planets if p.research) \
            or len(galaxy.research) != RESEARCH_PER_SECTOR * SEATS:
        found.append(f"research planets {galaxy.research} are not {RESEARCH_PER_SECTOR * SEATS} flagged planets")
    for seat, h in enumerate(galaxy.homes, 1):
        p = galaxy.planet(h)
        home = (p.mines, p.ore, p.industry, p.pdus) == (HOME_MINES, HOME_ORE, HOME_INDUSTRY, HOME_PDUS)
        if home != (seat <= galaxy.empires) or p.research:
            found.append(f"home position of seat {seat} has the wrong contents")
    earth = galaxy.planet(galaxy.earth)
    if (earth.mines, earth.ore, earth.industry, earth.pdus) != (NO_ORE, EARTH_ORE, EARTH_INDUSTRY, EARTH_PDUS):
        found.append("Earth has the wrong contents")
    neutral = [p for p in planets if p.number != galaxy.earth and p.number not in galaxy.played_homes]
    if 20 * sum(1 for p in neutral if p.pdus) >= len(neutral):
        found.append("5% or more of the neutral planets have PDUs")
    return found


def describe(galaxy: Galaxy) -> str:
    """The galaxy as text, one planet a line, for debugging and as the
    canonical form `fingerprint` hashes (so it must not change lightly)."""
    lines = [f"Celestial Empire galaxy: seed {galaxy.seed}, {galaxy.empires} empires, Earth {galaxy.earth}",
             "homes: " + " ".join(f"{seat}:{h}" for seat, h in enumerate(galaxy.homes, 1)),
             "research: " + " ".join(map(str, galaxy.research))]
    marks = {galaxy.earth: "E"} | {h: f"H{seat}" for seat, h in enumerate(galaxy.homes, 1)}
    for p in galaxy.planets:
        mark = marks.get(p.number, "") + ("R" if p.research else "")
        lines.append(f"{p.number} {p.name:<10} {mark:<3} links {','.join(map(str, p.links)):<15}"
                     f" mines {''.join(map(str, p.mines))} ore {'/'.join(map(str, p.ore))}"
                     f" ind {p.industry} pdu {p.pdus}")
    return "\n".join(lines) + "\n"


def fingerprint(galaxy: Galaxy) -> str:
    """sha256 of `describe`: pinned in the tests, since a changed galaxy for
    a recorded seed would break the replay of archived games."""
    return hashlib.sha256(describe(galaxy).encode()).hexdigest()
