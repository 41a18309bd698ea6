"""A robot opponent for Spaceships that plays well, at three levels.

The robot sees only what its seat may see: `seat_view` copies the player's
own side, its entitlement and its own views of past turns (the views the
turn sheets are made from) out of a game, and `robot_orders` reads nothing
else. Its orders are always legal: they are made from the entitlement
[4], [8] the rules core worked out.

The levels differ by how much of the model (`robot_model`) they use:

``easy``    strikes at random, but around unexplained hits first;
``normal``  the density model of misses, hits and destroyed ships, its
            likeliest cells struck, beams along the likeliest lines;
``hard``    every refinement of the model, each turn's salvo spread by
            conditioning on misses, scans where the robot is least sure,
            kamikaze strikes only when they pay, and a setup that is hard to
            hunt.

Randomness comes in as a `random.Random`, so a robot's game replays from
its seed.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from .bot import random_setup
from .events import PlayerView, TurnReport
from .fleet import EARLY_FLEET, EARLY_TYPES, GUNBOATS, STANDARD_FLEET, composition_table
from .geometry import ALL_CELLS, Cell, Geometry, cells_of, is_axis
from .orders import Beam, Kamikaze, Missile, MissileSelector, Order, Placement, Scan, ShipRef, Strike
from .robot_model import Density, Knowledge, placement_table, read_views
from .ruleset import Ruleset
from .ships import ShipType
from .state import Entitlement, GameState, Side

LEVELS = ("easy", "normal", "hard")


@dataclass(frozen=True)
class SeatView:
    """Everything the robot may know, and nothing else."""

    player: int
    ruleset: Ruleset
    turn: int
    """The turn being ordered."""
    side: Side
    """The robot's own side: its fleet, damage, fired missiles."""
    entitlement: Entitlement
    """What it may order this turn."""
    views: tuple[PlayerView, ...]
    """Its own views of every past turn, oldest first (`TurnReport.view`)."""


def seat_view(state: GameState, player: int, reports: Sequence[TurnReport]) -> SeatView:
    """What ``player`` may know before ordering the state's next turn: the
    only function here that touches a `GameState` (a `Game` keeps it as
    ``game.state`` and the reports as ``game.reports``)."""
    entitled = state.entitlement(player)
    entitled = dataclasses.replace(entitled, beam_directions=dict(entitled.beam_directions))
    return SeatView(player, state.ruleset, state.turn, state.side(player), entitled,
                    tuple(report.view(player) for report in reports))


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown robot level {level!r}: one of {', '.join(LEVELS)}")


# Setup.

def fleet_types(ruleset: Ruleset, rng: random.Random, additional: int = 0) -> list[ShipType]:
    """The ship types of a legal fleet [3.7], [3.7.1], [early 3.3], with
    ships bought by ``additional`` carried over in a continued match [10.3]."""
    if ruleset.fleet_cost is not None:
        return _types_costing(ruleset.fleet_cost + additional, ruleset, rng)
    types = [rng.choice(group) for group in (EARLY_FLEET if ruleset.early else STANDARD_FLEET)]
    if additional and ruleset.composition:
        for group in composition_table(additional, ruleset.composition):
            allowed = [t for t in group if not ruleset.early or t in EARLY_TYPES | GUNBOATS]  # [early 3.3]
            types.append(rng.choice(allowed))
    elif additional:
        types += _types_costing(additional, ruleset, rng)
    return types


def _types_costing(total: int, ruleset: Ruleset, rng: random.Random) -> list[ShipType]:
    """Random ships whose costs (or cells, in the early rules [early 7.2]) add up to ``total``."""
    if ruleset.allowed_types is not None:
        kinds = sorted(ruleset.allowed_types, key=lambda t: t.name)
    elif ruleset.early:
        kinds = [t for group in EARLY_FLEET for t in group]
    else:
        kinds = [t for t in ShipType if t is not ShipType.HF]
    measure = (lambda t: t.size) if ruleset.carried_in_cells else (lambda t: t.cost)
    reachable = [True] + [False] * total
    for n in range(1, total + 1):
        reachable[n] = any(measure(t) <= n and reachable[n - measure(t)] for t in kinds)
    if not reachable[total]:
        raise ValueError(f"no fleet of {', '.join(t.code for t in kinds)} costs exactly {total} [3.7.1]")
    types = []
    while total:
        choices = [t for t in kinds if measure(t) <= total and reachable[total - measure(t)]]
        pick = rng.choice(choices)
        types.append(pick)
        total -= measure(pick)
    return types


def robot_setup(ruleset: Ruleset, level: str, rng: random.Random, additional: int = 0) -> list[Placement]:
    """Setup lines for a legal fleet under ``ruleset`` [2.1], [3].

    Easy and normal robots place a random legal fleet. A hard robot draws a
    few dozen random legal fleets and picks at random among the best
    quarter by two measures: ships that touch (loosely adjacent [1.2.4]) are
    found together by a hunter striking around a hit, so touching is
    penalised; and cells that many placements cover are where a density
    hunter strikes first, so low-density (outer) cells are preferred. The
    pick stays random among many good fleets, so the setup is not
    predictable. ``additional``: the cost carried over in a continued match."""
    _check_level(level)
    types = fleet_types(ruleset, rng, additional)
    if level != "hard":
        return random_setup(rng, ruleset, types)
    density = _prior_density(ruleset.geometry, ruleset.cube_death_star)
    geometry = ruleset.geometry
    scored = []
    for _ in range(32):
        masks = _random_masks(types, ruleset, rng)
        lines = [Placement(t, None, tuple(cells_of(m))) for t, m in zip(types, masks)]
        touching = 0
        for i, a in enumerate(masks):
            halo = 0
            for c in cells_of(a):
                halo |= geometry.loose_mask(c)
            touching += sum(1 for b in masks[i + 1:] if halo & b)
        hunted = sum(density[c.index] for m in masks for c in cells_of(m))
        scored.append((touching * 3.0 + hunted, lines))
    scored.sort(key=lambda s: s[0])
    return rng.choice(scored[:8])[1]


def _random_masks(types: list[ShipType], ruleset: Ruleset, rng: random.Random) -> list[int]:
    """A random legal placement of each type, none intersecting [3.4]:
    drawn whole and redrawn on a collision, which is quick in a space this
    sparse (a fleet fills a fifth of it at most)."""
    tables = [placement_table(t, ruleset.geometry, ruleset.cube_death_star) for t in types]
    while True:
        used = 0
        masks = []
        for table in tables:
            for _ in range(200):
                mask = rng.choice(table)[0]
                if not mask & used:
                    break
            else:
                break
            used |= mask
            masks.append(mask)
        else:
            return masks


@cache
def _prior_density(geometry: Geometry, cube: bool) -> tuple[float, ...]:
    """How often a density hunter with no information strikes each cell,
    scaled to a mean of 1: the cover of the standard fleet's placements."""
    counts = [0.0] * 125
    for type in (ShipType.DS, ShipType.KC, ShipType.FS, ShipType.PC, ShipType.MD, ShipType.HS):
        table = placement_table(type, geometry, cube)
        for _, cells in table:
            for i in cells:
                counts[i] += 1.0 / len(table)
    mean = sum(counts) / 125
    return tuple(c / mean for c in counts)


# Orders.

class _Plan:
    """One turn's targeting: a weight per cell, updated as cells are chosen."""

    def __init__(self, view: SeatView, level: str, rng: random.Random, known: Knowledge):
        self.level = level
        self.rng = rng
        self.known = known
        self.taken = 0
        self.density: Density | None = None
        if level == "easy":
            halo = 0
            for c in cells_of(known.unresolved):
                halo |= view.ruleset.geometry.adjacent_mask(c)
            self.weights = [(1.0 if halo & c.bit else 0.0) + rng.random() * 0.5 if known.strikeable & c.bit else 0.0
                            for c in ALL_CELLS]
            for c in cells_of(known.sure):
                self.weights[c.index] = 2.0
        else:
            self.density = Density(known, view.ruleset, view.side.fleet, level)
            self.weights = self.density.cell_map()
            if sum(self.weights) < 1e-9:  # the model found nowhere: strike anywhere untried
                self.weights = [rng.random() * 0.1 if known.strikeable & c.bit else 0.0 for c in ALL_CELLS]

    def value(self, cell: Cell) -> float:
        return 0.0 if self.taken & cell.bit else self.weights[cell.index]

    def take(self, cell: Cell) -> None:
        """Mark a cell struck this turn; hard robots condition on a miss there."""
        self.taken |= cell.bit
        if self.level == "hard" and self.density is not None and not self.known.sure & cell.bit:
            self.density.assume_miss(cell.index)
            fresh = self.density.cell_map()
            if sum(fresh) > 1e-9:
                self.weights = fresh

    def best(self) -> Cell:
        """The most valuable cell not yet chosen (ties broken at random)."""
        top = max(self.value(c) for c in ALL_CELLS)
        if top <= 0:
            free = [c for c in ALL_CELLS if not self.taken & c.bit and self.known.strikeable & c.bit]
            return self.rng.choice(free or [c for c in ALL_CELLS if not self.taken & c.bit] or list(ALL_CELLS))
        near = [c for c in ALL_CELLS if self.value(c) >= top * 0.999]
        return self.rng.choice(near)


def _lines(geometry: Geometry, directions: frozenset) -> list[tuple[Cell, Cell, Cell]]:
    """Every line of three cells [8.2.1] in one of these directions."""
    found = []
    for d in sorted(directions):
        for start in ALL_CELLS:
            middle = geometry.step(start, d)
            end = geometry.step(middle, d) if middle is not None else None
            if middle is not None and end is not None:
                found.append((start, middle, end))
    return found


def _beam(view: SeatView, plan: _Plan, index: int, level: str, rng: random.Random) -> Beam:
    """The beam firing [8.2] whose three cells carry the most weight. A
    diagonal beam burns out if both ends hit [8.2.4]; the hard robot counts
    that risk, the normal one keeps to the axes when it can."""
    geometry = view.ruleset.geometry
    ship = view.side.fleet.ships[index]
    several = sum(1 for s in view.side.fleet.ships if s.type.beam) > 1
    named = ShipRef(ship.type, ship.identity) if several else None
    if view.ruleset.early:
        lines5 = []
        for through in ship.cells:
            x, y, z = geometry.position(through)
            for axis in range(3):
                ends = []
                for value in (0, 4):
                    p = [x, y, z]
                    p[axis] = value
                    ends.append(geometry.at(*p))
                line = geometry.line_of_five(ends[0], ends[1])  # type: ignore[arg-type]
                assert line is not None
                lines5.append(line)
        line5 = rng.choice(lines5) if level == "easy" else max(lines5,
                                                               key=lambda cells: sum(plan.value(c) for c in cells))
        for c in line5:
            plan.take(c)
        return Beam(line5[0], line5[-1], named)
    directions = view.entitlement.beam_directions[index]
    if level == "normal" and any(is_axis(d) for d in directions):
        directions = frozenset(d for d in directions if is_axis(d))
    lines = _lines(geometry, directions)
    if level == "easy":
        pick = rng.choice(lines)
    else:
        def score(line: tuple[Cell, Cell, Cell]) -> float:
            value = sum(plan.value(c) for c in line) + rng.random() * 1e-6
            d = geometry.direction(line[0], line[1])
            if level == "hard" and d is not None and not is_axis(d):
                value -= 2.0 * min(1.0, plan.value(line[0])) * min(1.0, plan.value(line[2]))
            return value
        pick = max(lines, key=score)
    for c in pick:
        plan.take(c)
    return Beam(pick[0], pick[2], named)


def _missile(side: Side, index: int, level: str, rng: random.Random, geometry: Geometry) -> Missile:
    """A missile launch [8.1.3] from the ship; the hard robot fires the cell
    whose explosion, if hit unfired, would take most of the ship with it [8.1.4]."""
    ship = side.fleet.ships[index]
    unfired = cells_of(ship.mask & side.unfired_missiles)
    if level == "hard":
        undamaged = side.undamaged(ship)
        most = max(bin(geometry.adjacent_mask(c) & undamaged).count("1") for c in unfired)
        unfired = [c for c in unfired if bin(geometry.adjacent_mask(c) & undamaged).count("1") == most]
    cell = rng.choice(unfired)
    return Missile(MissileSelector(cell.colour, cell.letter, cell.number))


def _scores(view: SeatView, known: Knowledge, density: Density | None) -> tuple[int, float]:
    """The robot's score if the game ended now and the most the opponent's
    could be [2.3.3], [2.3.5] (or hits under scoring by hits)."""
    if view.ruleset.scoring_by_hits:
        return view.side.hits, float(known.opponent_hits)
    cells = density.max_cells() if density is not None else None
    if cells is None:
        return view.side.remaining_materiel, float("inf")
    return view.side.remaining_materiel, float(cells - known.destroyed.bit_count())


def _kamikazes(view: SeatView, plan: _Plan, level: str, rng: random.Random) -> list[Kamikaze]:
    """Kamikaze strikes [4.5], launched only when they pay.

    A launch costs a cell of the robot's own materiel [4.5.3], [2.3.5] and a
    strike gains at most one of the opponent's, so it pays only on a sure
    hit (and never with the robot's last cell), or when the robot could
    otherwise only stop: with nothing but kamikaze strikes left, recording
    none ends the game [2.3.2], which a robot ahead on score wants and one
    behind does not. Under scoring by hits [explanation 6.2] a launch costs
    no score, so it is always worth one."""
    entitled = view.entitlement
    if not entitled.kamikaze_ships:
        return []
    mine, theirs = _scores(view, plan.known, plan.density)
    if entitled.only_kamikaze_and_scans:
        if level != "easy" and mine > theirs:
            return []
        count = len(entitled.kamikaze_ships)
    elif level == "hard":
        if view.ruleset.scoring_by_hits:
            count = len(entitled.kamikaze_ships)
        else:
            sure = [c for c in cells_of(plan.known.sure) if not plan.taken & c.bit]
            count = min(len(sure), len(entitled.kamikaze_ships))
        count = min(count, view.side.remaining_materiel - 1)  # never by its own hand to no ships [2.3.1]
    else:
        return []
    launches = []
    side = view.side
    for index in entitled.kamikaze_ships[:count]:
        launches.append(Kamikaze(rng.choice(cells_of(side.undamaged(side.fleet.ships[index])))))
    return launches


def robot_orders(view: SeatView, level: str, rng: random.Random) -> list[Order]:
    """The robot's orders for the coming turn, from what its seat knows."""
    _check_level(level)
    known = read_views(view.player, view.views)
    plan = _Plan(view, level, rng, known)
    entitled = view.entitlement
    geometry = view.ruleset.geometry
    orders: list[Order] = []
    for index in sorted(entitled.beam_directions):
        orders.append(_beam(view, plan, index, level, rng))
    for index in entitled.missile_ships:
        orders.append(_missile(view.side, index, level, rng, geometry))
    strikes = entitled.conventional + len(entitled.missile_ships)
    targets = []
    for _ in range(strikes):
        cell = plan.best()
        plan.take(cell)
        targets.append(cell)
    kamikazes = _kamikazes(view, plan, level, rng)
    orders += kamikazes
    for _ in kamikazes:
        cell = plan.best()
        plan.take(cell)
        targets.append(cell)
    if view.ruleset.scans:
        for _ in range(entitled.scans):
            orders.append(Scan(_scan_target(plan, level, rng)))
    orders += [Strike(c) for c in targets]
    return orders


def _scan_target(plan: _Plan, level: str, rng: random.Random) -> Cell:
    """Where a scan [8.3.3] tells most: the cell whose weight is nearest an
    even chance (hard), the likeliest cell (normal), or any (easy)."""
    free = [c for c in ALL_CELLS if plan.known.strikeable & ~plan.known.sure & ~plan.taken & c.bit]
    if not free:
        free = [c for c in ALL_CELLS if not plan.taken & c.bit] or list(ALL_CELLS)
    if level == "easy":
        pick = rng.choice(free)
    elif level == "normal":
        pick = max(free, key=lambda c: (plan.value(c), rng.random()))
    else:
        def uncertainty(c: Cell) -> float:
            p = min(1.0, plan.value(c))
            return p * (1.0 - p) + rng.random() * 1e-9
        pick = max(free, key=uncertainty)
    plan.taken |= pick.bit
    return pick

