"""What the Celestial Empire robot knows: the "view" of one empire, read
from the data its turn sheet is rendered from (`sheets.sheet_data`) and
nothing else.

The robot (`gm.games.celestial_empire.robot`) decides from a `View` alone,
so it can use no more than the player of that empire would: its own ships
and planets in full, the planets it has an interest in (owned, orbited or
scanned) with other empires' ships there by owner, name and type only,
Earth's listing, the ally status, the scores by number, its messages and
its command history. `view_of` reads the sheet's dictionary into frozen
values and nothing in this module sees a `GameState`, which is what keeps
the robot's orders blind to the hidden state (tests/test_celestial_robot.py
checks the property).

The map the robot can reason about is `View.links`: every link printed on
the sheet (each planet of the planet list, and Earth's), both ways, since
links run in both directions (l.166-170).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import Any

ORE_TYPES = 10
BANDS = {"Small": 10, "Medium": 30, "Large": 75, "Super": 150, "Mega": 250, "Ultra": 500}
"""The most units of the kind a ship type's size counts, as Table "types" bands them (l.1857-1886)."""


@dataclass(frozen=True)
class OwnShip:
    """One of the empire's ships, as its ship summary shows it."""

    number: int
    planet: int
    fighters: int
    cargo_units: int
    empty: int
    tractors: int
    shields: int
    effective: int
    shots: int
    ore: tuple[int, ...]
    mines: int
    industry: int
    pdus: int
    spacemines: int
    standing: str | None

    @property
    def fuel(self) -> int:
        """Ore 0 in the hold."""
        return self.ore[0]


@dataclass(frozen=True)
class SeenShip:
    """Another empire's (or NEUTRAL's) ship: number, owner's name and type only."""

    number: int
    owner: str
    kind: str

    @property
    def armed(self) -> bool:
        """Whether its type says it has fighters (cargo classes may have a few; empty ships none)."""
        return not self.kind.endswith(("Cargo", "Empty Ship"))

    @property
    def strength(self) -> int:
        """The most fighter units its type allows: the top of its size band (0 for cargo and empty ships)."""
        if not self.armed:
            return 0
        return BANDS.get(self.kind.split()[0], 500)


@dataclass(frozen=True)
class PlanetView:
    """A planet of the planet list (or Earth), as the sheet prints it."""

    number: int
    owner: str
    own: bool
    links: tuple[int, ...]
    industry: int
    pdus: int
    spacemines: int
    deployed: int
    research: bool
    earth: bool
    ore: tuple[int, ...]
    mines: tuple[int, ...]
    standing: str | None
    own_ships: tuple[int, ...]
    others: tuple[SeenShip, ...]

    @property
    def neutral(self) -> bool:
        """Owned by no empire."""
        return self.owner == "NEUTRAL"


@dataclass(frozen=True)
class Entry:
    """A line of the command history: the order as written, what was done, or why not."""

    written: str
    done: str
    why: str


@dataclass(frozen=True)
class View:
    """Everything the robot decides from: one empire's sheet."""

    empire: int
    name: str
    turn: int
    score: int
    income: int
    credits: int
    scans: int
    winning: str
    voting: bool
    vote: int | None
    scores: tuple[int, ...]
    ships: tuple[OwnShip, ...]
    planets: Mapping[int, PlanetView]
    earth: int
    earth_links: tuple[int, ...]
    earth_ships: tuple[SeenShip, ...]
    prices: tuple[int, ...]
    stock: tuple[int, ...]
    limited: bool
    amnesty: bool
    allies: Mapping[str, tuple[str, str]]
    """By empire name: (how this empire rates it, how it rates this empire), where either is not NEUTRAL."""
    history: tuple[Entry, ...]

    @property
    def own_planets(self) -> list[PlanetView]:
        """The empire's planets, by number."""
        return [p for _, p in sorted(self.planets.items()) if p.own]

    @property
    def home(self) -> PlanetView | None:
        """The planet it builds at: its own planet with the most industry (the home planet's 60 at the start)."""
        own = self.own_planets
        return max(own, key=lambda p: (p.industry, -p.number)) if own else None

    def rating(self, name: str) -> str:
        """How this empire rates empire ``name`` (NEUTRAL unless the ally status says otherwise)."""
        return self.allies.get(name, ("NEUTRAL", "NEUTRAL"))[0]

    def rated_by(self, name: str) -> str:
        """How empire ``name`` rates this one."""
        return self.allies.get(name, ("NEUTRAL", "NEUTRAL"))[1]

    def empires_seen(self) -> list[str]:
        """The other empires it knows by name: those in its ally status and those whose ships it sees."""
        names = set(self.allies)
        for planet in self.planets.values():
            names |= {s.owner for s in planet.others}
        names |= {s.owner for s in self.earth_ships}
        return sorted(names - {self.name, "NEUTRAL"})

    @property
    def links(self) -> dict[int, set[int]]:
        """The map as far as the sheet shows it: planet -> linked planets, both ways."""
        found: dict[int, set[int]] = {}
        edges = [(p.number, q) for p in self.planets.values() for q in p.links]
        edges += [(self.earth, q) for q in self.earth_links]
        for a, b in edges:
            found.setdefault(a, set()).add(b)
            found.setdefault(b, set()).add(a)
        return found


def route(links: Mapping[int, set[int]], start: int, goals: set[int],
          avoid: Set[int] = frozenset()) -> list[int]:
    """The planets of a shortest known way from ``start`` to the nearest of
    ``goals`` (not ``start`` itself), passing none of ``avoid``; [] if none is known."""
    before: dict[int, int] = {start: start}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here in goals and here != start:
            path = [here]
            while before[path[-1]] != start:
                path.append(before[path[-1]])
            return path[::-1]
        for there in sorted(links.get(here, ())):
            if there not in before and (there not in avoid or there in goals):
                before[there] = here
                queue.append(there)
    return []


def _hold(items: list[str]) -> tuple[tuple[int, ...], int, int, int, int]:
    """The sheet's cargo list (``R0 4``, ``M 1``, ``I 1``, ``PDU 2``, ``SM 3``): ore, mines, industry,
    PDUs and spacemines aboard."""
    ore = [0] * ORE_TYPES
    rest = {"M": 0, "I": 0, "PDU": 0, "SM": 0}
    for item in items:
        label, amount = item.split()
        if label.startswith("R"):
            ore[int(label[1:])] += int(amount)
        else:
            rest[label] += int(amount)
    return tuple(ore), rest["M"], rest["I"], rest["PDU"], rest["SM"]


def _seen(ship: dict[str, Any]) -> SeenShip:
    return SeenShip(ship["number"], ship["owner"], ship["type"])


def _planet(data: dict[str, Any]) -> PlanetView:
    ore, mines = [0] * ORE_TYPES, [0] * ORE_TYPES
    for column in data["mine_columns"]:
        ore[column["type"]], mines[column["type"]] = column["stored"], column["production"]
    return PlanetView(
        data["number"], data["owner"], data["own"], tuple(data["links"]), data["industry"], data["pdus"],
        data["spacemines"], data["deployed"], data["research"], data["earth"], tuple(ore), tuple(mines),
        data["standing"], tuple(s["number"] for s in data["ships"] if s["own"]),
        tuple(_seen(s) for s in data["ships"] if not s["own"]))


def _ship(data: dict[str, Any]) -> OwnShip:
    ore, mines, industry, pdus, spacemines = _hold(data["cargo"])
    return OwnShip(data["number"], data["planet"], data["fighters"], data["cargo_units"], data["empty"],
                   data["tractors"], data["shields"], data["effective"], data["shots"], ore, mines, industry,
                   pdus, spacemines, data["standing"])


def view_of(sheet: Mapping[str, Any]) -> View:
    """The view of the empire whose sheet data ``sheet`` is (`sheets.sheet_data`'s keys only)."""
    earth = sheet["earth"]
    return View(
        empire=sheet["empire"], name=sheet["empire_name"], turn=sheet["turn_number"], score=sheet["score"],
        income=sheet["income"], credits=sheet["credits"], scans=sheet["scans"], winning=sheet["winning"],
        voting=sheet["ending_how"] in ("the middle vote", "no votes yet"), vote=sheet["vote"],
        scores=tuple(score for row in sheet["scores"] for score in row),
        ships=tuple(_ship(s) for s in sheet["ships"]),
        planets={p["number"]: _planet(p) for p in sheet["planets"]},
        earth=earth["number"], earth_links=tuple(earth["links"]),
        earth_ships=tuple(_seen(s) for s in earth["ships"] if not s["own"]),
        prices=tuple(earth["prices"]), stock=tuple(earth["amounts"]), limited=earth["limited"],
        amnesty=bool(earth["amnesty"]),
        allies={row["name"]: (row["you"], row["they"]) for row in sheet["allies"]},
        history=tuple(Entry(e["written"], e["done"], e["why"]) for e in sheet["history"]))
