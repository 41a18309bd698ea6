"""A player's fleet as recorded in setup [2.1], checked against the rules [3].

`build_fleet` turns setup lines into a `Fleet`, or raises `SetupError`
listing every problem with the clause it breaks, so that a player can fix
them all in one go.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .geometry import Cell
from .orders import Placement
from .ruleset import DEFAULT, Ruleset
from .ships import Ship, ShipType, shape_problem, ship_label

STANDARD_FLEET: tuple[tuple[ShipType, ...], ...] = (
    (ShipType.DS,),
    (ShipType.KC,),
    (ShipType.FS, ShipType.PC),
    (ShipType.MD,),
    (ShipType.LS, ShipType.HS),
)
"""The standard fleet [3.7]: one ship of each group."""

EARLY_FLEET: tuple[tuple[ShipType, ...], ...] = (
    (ShipType.DS,), (ShipType.KC,), (ShipType.FS,), (ShipType.MD,), (ShipType.HF,),
)
"""The early rules' fleet [early 3.3]: one of each."""
EARLY_TYPES = frozenset(t for group in EARLY_FLEET for t in group)
GUNBOATS = frozenset({ShipType.AG, ShipType.LG})


def composition_table(cells: int, table: str) -> list[tuple[ShipType, ...]]:
    """The ships carried-over resources must be built into, by the
    explanation's tables [explanation 6.3.1], [6.3.2]: each entry a group of
    types of which one ship is built. For 9 or more cells one of the largest
    kind is built and the rest starts over."""
    fs_or_pc = (ShipType.FS, ShipType.PC)
    small: dict[int, list[tuple[ShipType, ...]]] = {
        1: [(ShipType.LG,)], 2: [(ShipType.AG,)], 3: [(ShipType.MD,)], 4: [fs_or_pc],
        5: [fs_or_pc, (ShipType.LG,)], 6: [(ShipType.KC,)], 7: [fs_or_pc, (ShipType.MD,)],
        8: [(ShipType.KC,), (ShipType.AG,)] if table == "one" else [(ShipType.DS,)],
    }
    groups: list[tuple[ShipType, ...]] = []
    largest = (ShipType.KC, 6) if table == "one" else (ShipType.DS, 8)
    while cells >= 9:
        groups.append((largest[0],))
        cells -= largest[1]
    if cells:
        groups += small[cells]
    return groups


@dataclass(frozen=True)
class SetupProblem:
    """One thing wrong with a setup: which line (0-based, or None for the
    fleet as a whole) and why, naming the clause."""

    line: int | None
    reason: str

    def __str__(self) -> str:
        return self.reason if self.line is None else f"ship {self.line + 1}: {self.reason}"


class SetupError(ValueError):
    """A setup that breaks the rules; ``problems`` lists every reason."""

    def __init__(self, problems: list[SetupProblem]):
        self.problems = problems
        super().__init__("; ".join(map(str, problems)))


@dataclass(frozen=True)
class Fleet:
    """A player's ships, as placed in setup: fixed for the whole game."""

    ships: tuple[Ship, ...]
    ship_at: tuple[int, ...] = field(init=False, repr=False, compare=False)
    occupied: int = field(init=False, repr=False, compare=False)
    missiles: int = field(init=False, repr=False, compare=False)
    scanners: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        ship_at = [-1] * 125
        occupied = missiles = 0
        for index, ship in enumerate(self.ships):
            for cell in ship.cells:
                ship_at[cell.index] = index
            occupied |= ship.mask
            if ship.type.missiles:
                missiles |= ship.mask
        object.__setattr__(self, "ship_at", tuple(ship_at))
        object.__setattr__(self, "occupied", occupied)
        object.__setattr__(self, "missiles", missiles)
        object.__setattr__(self, "scanners", tuple(i for i, s in enumerate(self.ships) if s.type.scanner))

    def ship_of(self, cell: Cell) -> Ship | None:
        index = self.ship_at[cell.index]
        return None if index < 0 else self.ships[index]

    def find(self, type: ShipType, identity: int | None) -> int | None:
        """The index of the ship with this type and identity, or None."""
        for index, ship in enumerate(self.ships):
            if ship.type is type and (ship.identity == identity or (identity == 1 and ship.identity is None)):
                return index
        return None

    @property
    def cost(self) -> int:
        return sum(ship.type.cost for ship in self.ships)

    @property
    def size(self) -> int:
        return bin(self.occupied).count("1")

    def setup_lines(self) -> list[str]:
        """The fleet written as setup lines [11.6], one ship each."""
        return [str(ship) for ship in self.ships]

    def __str__(self) -> str:
        return "\n".join(self.setup_lines())


def build_fleet(placements: Iterable[Placement], ruleset: Ruleset = DEFAULT, additional_cost: int = 0) -> Fleet:
    """The fleet these setup lines record, checked against the ruleset.

    ``additional_cost`` is the cost of additional ships allowed in a
    continued match [10.3]. Raises `SetupError` listing every problem.
    """
    placements = list(placements)
    problems: list[SetupProblem] = []
    geometry = ruleset.geometry
    owner: dict[Cell, int] = {}
    for line, placement in enumerate(placements):
        cells = placement.cells(geometry)
        repeated = sorted({c for c in cells if cells.count(c) > 1})
        if repeated:
            problems.append(SetupProblem(line, f"{' '.join(map(str, repeated))} named twice"))
        problem = shape_problem(placement.type, cells, geometry, ruleset.cube_death_star)
        if problem:
            problems.append(SetupProblem(line, problem))
        if ruleset.allowed_types is not None and placement.type not in ruleset.allowed_types:
            problems.append(SetupProblem(line, f"{placement.type.title}s are not allowed in this game [3.7.1]"))
        elif (ruleset.early and placement.type not in EARLY_TYPES
              and not (ruleset.composition and placement.type in GUNBOATS)):
            problems.append(SetupProblem(line,
                                         f"the early rules have no {placement.type.title}s [early 3.3], [early 6]"))
        elif not ruleset.early and placement.type is ShipType.HF:
            problems.append(SetupProblem(line, "heavy fighters belong to the early rules (variant early) [early 6.5]"))
        for cell in dict.fromkeys(cells):
            if cell in owner:
                other = placements[owner[cell]]
                problems.append(SetupProblem(line,
                                             f"{cell} is also in the {other.type.title} {other}: ships may not "
                                             "intersect [3.4]"))
            else:
                owner[cell] = line
    identities, identity_problems = _identities(placements)
    problems += identity_problems
    problems += _composition_problems([p.type for p in placements], ruleset, additional_cost)
    if problems:
        raise SetupError(problems)
    ships = tuple(
        Ship(p.type, identity, tuple(dict.fromkeys(p.cells(geometry))))
        for p, identity in zip(placements, identities)
    )
    return Fleet(ships)


def _identities(placements: list[Placement]) -> tuple[list[int | None], list[SetupProblem]]:
    """Identities per [3.3], [11.6.1]: none for a lone ship of its type,
    else 1, 2, ... with any left unwritten given the lowest free number."""
    problems: list[SetupProblem] = []
    counts = Counter(p.type for p in placements)
    result: list[int | None] = [None] * len(placements)
    for type, count in counts.items():
        lines = [i for i, p in enumerate(placements) if p.type is type]
        if count == 1:
            written = placements[lines[0]].identity
            if written not in (None, 1):
                problems.append(SetupProblem(lines[0],
                                             f"the only {type.title} is {type.code} (or {type.code}1), not "
                                             f"{type.code}{written} [11.6.1]"))
            continue
        taken: dict[int, int] = {}
        for line in lines:
            written = placements[line].identity
            if written is None:
                continue
            if written > count:
                problems.append(SetupProblem(line,
                                             f"{type.code}{written}: with {count} {type.title}s the identities are 1 "
                                             f"to {count} [11.6.1]"))
            elif written in taken:
                problems.append(SetupProblem(line,
                                             f"{type.code}{written} is also ship {taken[written] + 1}: identities must "
                                             "differ [3.3]"))
            else:
                taken[written] = line
        free = iter(i for i in range(1, count + 1) if i not in taken)
        for line in lines:
            written = placements[line].identity
            result[line] = written if written is not None and written <= count else next(free, None)
    return result, problems


def _composition_problems(types: list[ShipType], ruleset: Ruleset, additional: int) -> list[SetupProblem]:
    """Whether the ships make the ruleset's fleet, plus ``additional`` carried
    over from the last game of a match: a cost [10.3], or a number of cells
    in the early rules [early 7.2]."""
    cost = sum(t.cost for t in types)
    if ruleset.fleet_cost is not None:
        target = ruleset.fleet_cost + additional
        if cost != target:
            return [SetupProblem(None, f"the ships cost {cost} in all; this game's fleet costs {target} [3.7.1]")]
        return []
    problems = []
    remaining = Counter(types)
    fleet, clause = (EARLY_FLEET, "early 3.3") if ruleset.early else (STANDARD_FLEET, "3.7")
    for group in fleet:
        choice = next((t for t in group if remaining[t]), None)
        if choice is None:
            names = " or ".join(f"a {t.title}" for t in group)
            problems.append(SetupProblem(None, f"the fleet needs {names} [{clause}]"))
        else:
            remaining[choice] -= 1
    remaining = +remaining
    if problems:
        return problems
    measure = (lambda t: t.size) if ruleset.carried_in_cells else (lambda t: t.cost)
    extra = sum(measure(t) * n for t, n in remaining.items())
    spare = " ".join(ship_label(t, None)
                     for t, n in sorted(remaining.items(), key=lambda i: i[0].cost) for _ in range(n))
    if extra != additional:
        if additional == 0:
            problems.append(SetupProblem(None,
                                         f"the fleet has one ship of each kind; {spare} "
                                         f"{'is' if len(spare.split()) == 1 else 'are'} too many [3.6], [{clause}]"))
        elif ruleset.carried_in_cells:
            problems.append(SetupProblem(None,
                                         f"the additional ships hold {extra} cells, not the {additional} carried over "
                                         "[early 7.2]"))
        else:
            problems.append(SetupProblem(None,
                                         f"the additional ships cost {extra}, not the {additional} carried over "
                                         "[10.3]"))
    elif ruleset.composition and additional:
        wanted = composition_table(additional, ruleset.composition)
        left = Counter(remaining)
        for group in wanted:
            choice = next((t for t in group if left[t]), None)
            if choice is None:
                break
            left[choice] -= 1
        else:
            if not +left:
                return problems
        table = " + ".join("/".join(t.code for t in group) for group in wanted)
        problems.append(SetupProblem(
            None, f"carried-over resources of {additional} must be built as {table} by the "
                  f"'{ruleset.composition} death star{'s' * (ruleset.composition == 'many')}' table, not {spare} "
                  "[explanation 6.3]"))
    return problems
