"""The robot's picture of the opponent's space: what its seat was told
(`read_views`) and a probability (density) model of where the opponent's
ships that are still afloat can be (`Density`).

The model is classic Battleships targeting in three dimensions: for each
ship the opponent may still have, every placement the fleet rules allow
[3.5], [6] is kept if it agrees with everything the seat was told (misses,
empty scans and empty flashcube cells, cells of ships reported destroyed,
cells whose ship is known from flashcube data [7] or explosions [8.1.4]),
and is weighted by how many known but unexplained hits it covers, so that
hits pull placements towards them. A cell's weight is the sum, over the
ships, of the share of their placements that cover it. Everything works on
125-bit masks, so a turn costs a few milliseconds in pure Python: numpy
would be faster still but is not otherwise a dependency of gm, and the
target (100 ms a turn) does not need it.

Some of the hard level's refinements hold only for a fleet the robot knows
exactly (the standard [3.7] or early fleet). Under a fleet of any ships by
cost [3.7.1], or when the opponent may have ships the model does not expect
(a continued match's additional ships [10.2]), the model uses generic slots
that may hold a ship of any allowed type, and leaves those refinements out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

from .events import PlayerView, Result
from .fleet import EARLY_FLEET, EARLY_TYPES, GUNBOATS, STANDARD_FLEET, Fleet
from .geometry import ALL_CELLS, Geometry, cells_of
from .ruleset import Ruleset
from .ships import Ship, ShipType, placements

ALL = (1 << 125) - 1
HIT_WEIGHT = {"normal": 8.0, "hard": 12.0}
"""How much more likely a placement is for each unexplained hit it covers."""


@dataclass
class Knowledge:
    """What a seat was told of the opponent's space, as masks of cells."""

    empty: int = 0
    """Known to hold no ship: misses, empty scans, empty flashcube cells."""
    occupied: int = 0
    """Known to hold a ship: hits, scans, kamikaze deaths, flashcube data."""
    destroyed: int = 0
    """Known to be destroyed [3.8]."""
    labels: dict[int, str] = field(default_factory=dict)
    """Cell index to the label of the ship there (flashcube data, destruction reports)."""
    sunk: list[Ship] = field(default_factory=list)
    """The opponent's ships reported destroyed [2.2.4]."""
    sunk_cells: int = 0
    explosions: list[int] = field(default_factory=list)
    """Each missile explosion's cells [8.1.4.2]: one ship's cells."""
    opponent_hits: int = 0
    """Hits the opponent scored on the seat, for scoring by hits."""

    @property
    def unresolved(self) -> int:
        """Occupied cells of ships not yet reported destroyed."""
        return self.occupied & ~self.sunk_cells

    @property
    def sure(self) -> int:
        """Cells known to hold an undamaged ship cell: a strike there hits."""
        return self.occupied & ~self.destroyed

    @property
    def strikeable(self) -> int:
        """Cells where a strike may still hit."""
        return ALL & ~self.empty & ~self.destroyed


def read_views(player: int, views: Sequence[PlayerView]) -> Knowledge:
    """Everything ``player`` was told of the opponent's space, from their views."""
    k = Knowledge()
    opponent = 3 - player
    for view in views:
        for a in view.announcements:
            bit = a.cell.bit
            if a.by == player and a.kind in ("strike", "beam"):
                if a.result is Result.MISS:
                    k.empty |= bit
                else:
                    k.occupied |= bit
                    k.destroyed |= bit
                if a.explosions:
                    group = sum(c.bit for c in a.explosions)
                    k.explosions.append(group)
                    k.occupied |= group
                    k.destroyed |= group
            elif a.by == player and a.kind == "scan":
                if a.result is Result.EMPTY:
                    k.empty |= bit
                else:
                    k.occupied |= bit
                    if a.result is Result.DESTROYED:
                        k.destroyed |= bit
            elif a.by == opponent and a.kind == "kamikaze":
                k.occupied |= bit
                k.destroyed |= bit
            elif a.by == opponent and a.kind in ("strike", "beam") and a.result in (Result.HIT, Result.EXPLOSION):
                k.opponent_hits += 1
            for d in a.destroyed:
                if d.owner == opponent:
                    k.sunk.append(d.ship)
                    k.sunk_cells |= d.ship.mask
                    k.occupied |= d.ship.mask
                    k.destroyed |= d.ship.mask
                    for c in d.ship.cells:
                        k.labels[c.index] = d.ship.label
                    continue
                for f in d.flashcube:
                    if f.ship is None:
                        k.empty |= f.cell.bit
                    else:
                        k.occupied |= f.cell.bit
                        k.labels[f.cell.index] = f.ship
                        if f.destroyed:
                            k.destroyed |= f.cell.bit
    return k


@cache
def placement_table(type: ShipType, geometry: Geometry, cube_only: bool) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Every legal placement of a ship type as (mask, cell indices)."""
    found = placements(type, geometry)
    if type is ShipType.DS and cube_only:
        found = [p for p in found if geometry.is_box(p, (2, 2, 2))]
    return tuple((sum(c.bit for c in p), tuple(sorted(c.index for c in p))) for p in found)


def _generic_types(ruleset: Ruleset) -> tuple[ShipType, ...]:
    if ruleset.allowed_types is not None:
        return tuple(sorted(ruleset.allowed_types, key=lambda t: t.name))
    if ruleset.early:
        return tuple(sorted(EARLY_TYPES | GUNBOATS, key=lambda t: t.name))
    return tuple(t for t in ShipType if t is not ShipType.HF)


def fleet_slots(ruleset: Ruleset, known: Knowledge, own: Fleet) -> tuple[list[tuple[ShipType, ...]], bool]:
    """The ships the opponent may still have afloat, each a group of the
    types it may be, and whether the fleet is known exactly (the ruleset's
    fixed fleet [3.7], [early 3.3]); ships reported destroyed are taken out."""
    if ruleset.fleet_cost is not None:
        generic = _generic_types(ruleset)
        count = max(1, ruleset.fleet_cost // 4 - len(known.sunk))
        return [generic] * count, False
    slots = list(EARLY_FLEET if ruleset.early else STANDARD_FLEET)
    exact = True
    extra = len(own.ships) - len(slots)
    for ship in known.sunk:
        group = next((g for g in slots if ship.type in g), None)
        if group is None:
            exact = False
            extra -= 1
        else:
            slots.remove(group)
    if extra > 0:  # a continued match: the opponent's additional ships [10.2] are unknown
        slots += [_generic_types(ruleset)] * extra
        exact = False
    return slots, exact


class _Alternative:
    """One type a slot's ship may be, with its weighted placements."""

    def __init__(self, type: ShipType, table: tuple[tuple[int, tuple[int, ...]], ...], bad: int, must: int,
                 known: Knowledge, hit_weight: float, need_undamaged: bool):
        self.type = type
        self.prior = len(table)
        self.masks: list[int] = []
        self.cells: list[tuple[int, ...]] = []
        self.weights: list[float] = []
        self.cover = 0
        unresolved = known.unresolved
        destroyed = known.destroyed
        for mask, cells in table:
            if mask & bad or mask & must != must:
                continue
            if need_undamaged and not mask & ~destroyed:
                continue  # it would have been reported destroyed [2.2.4]
            self.masks.append(mask)
            self.cells.append(cells)
            self.weights.append(hit_weight ** (mask & unresolved).bit_count())
            self.cover |= mask
        self.sums = [0.0] * 125
        for cells, w in zip(self.cells, self.weights):
            for i in cells:
                self.sums[i] += w
        self.total = sum(self.weights)

    def remove_covering(self, bit: int) -> None:
        """Drop the placements through a cell, as if a strike there missed."""
        sums = self.sums
        for j, mask in enumerate(self.masks):
            w = self.weights[j]
            if w and mask & bit:
                for i in self.cells[j]:
                    sums[i] -= w
                self.total -= w
                self.weights[j] = 0.0


class Density:
    """Where the opponent's afloat ships can be, cell by cell.

    ``level`` ``normal`` keeps the placements that agree with misses, hits
    and destroyed ships; ``hard`` adds every refinement: ship types known
    from flashcube data and explosions, ships not reported destroyed have an
    undamaged cell, unexplained hits only one ship can cover force it there,
    and the fleet's choices [3.7] are weighed by how well each explains what
    was seen."""

    def __init__(self, known: Knowledge, ruleset: Ruleset, own: Fleet, level: str):
        self.known = known
        self.level = level
        slots, exact = fleet_slots(ruleset, known, own)
        self.exact = exact
        hard = level == "hard"
        labels = dict(known.labels)
        if hard and exact and any(ShipType.MD in g for g in slots):
            for group in known.explosions:  # the standard fleet's only missiles are the MD's [6.6.3]
                for c in cells_of(group & ~known.sunk_cells):
                    labels.setdefault(c.index, "MD")
        use_labels = hard and exact
        need_undamaged = hard and ruleset.destruction_reports
        weight = HIT_WEIGHT.get(level, HIT_WEIGHT["normal"])
        cube = ruleset.cube_death_star
        geometry = ruleset.geometry

        def build(must_by_slot: list[int]) -> list[list[_Alternative]]:
            built = []
            made: dict[tuple, list[_Alternative]] = {}
            for group, must in zip(slots, must_by_slot):
                if (group, must) in made:  # generic slots alike: one list, counted once per slot
                    built.append(made[group, must])
                    continue
                alternatives = made[group, must] = []
                for type in group:
                    bad = known.empty | known.sunk_cells
                    own_must = must
                    if use_labels:
                        for index, label in labels.items():
                            if label == type.code:
                                own_must |= 1 << index
                            elif label in {t.code for t in group}:
                                bad = ALL  # the slot's ship is of another type
                            else:
                                bad |= 1 << index
                    alternatives.append(_Alternative(type, placement_table(type, geometry, cube), bad, own_must,
                                                     known, weight, need_undamaged))
                built.append(alternatives)
            return built

        musts = [0] * len(slots)
        self.slots = build(musts)
        if hard and exact and self._feasible():
            for _ in range(4):  # an unexplained hit that only one ship can cover is that ship's [3.6]
                changed = False
                for c in cells_of(known.unresolved):
                    covering = [i for i, alts in enumerate(self.slots) if any(a.cover & c.bit for a in alts)]
                    if len(covering) == 1 and not musts[covering[0]] & c.bit:
                        musts[covering[0]] |= c.bit
                        changed = True
                if not changed:
                    break
                forced = build(musts)
                if not self._feasible(forced):
                    break
                self.slots = forced
        self.share = [self._shares(alts, hard) for alts in self.slots]

    def _feasible(self, slots: list[list[_Alternative]] | None = None) -> bool:
        slots = self.slots if slots is None else slots
        if any(not any(a.total > 0 for a in alts) for alts in slots):
            return False
        cover = 0
        for alts in slots:
            for a in alts:
                cover |= a.cover
        return not self.known.unresolved & ~cover

    @staticmethod
    def _shares(alternatives: list[_Alternative], hard: bool) -> list[float]:
        """The chance the slot's ship is each type: by how well each explains
        what was seen (hard), or evenly among those still possible."""
        if hard:
            raw = [a.total / a.prior if a.prior else 0.0 for a in alternatives]
        else:
            raw = [1.0 if a.total > 0 else 0.0 for a in alternatives]
        total = sum(raw)
        return [r / total if total else 0.0 for r in raw]

    def cell_map(self) -> list[float]:
        """Each strikeable cell's weight: the expected number of afloat ships
        covering it (1 for a cell known to hold an undamaged ship cell)."""
        out = [0.0] * 125
        for alts, shares in zip(self.slots, self.share):
            for a, share in zip(alts, shares):
                if share and a.total > 1e-12:
                    scale = share / a.total
                    sums = a.sums
                    for i in range(125):
                        if sums[i]:
                            out[i] += sums[i] * scale
        strikeable = self.known.strikeable
        sure = self.known.sure
        for i, cell in enumerate(ALL_CELLS):
            if sure & cell.bit:
                out[i] = 1.0
            elif not strikeable & cell.bit:
                out[i] = 0.0
            else:
                out[i] = max(0.0, out[i])
        return out

    def assume_miss(self, index: int) -> None:
        """Condition on a strike at this cell missing: the greedy way to
        spread one turn's salvo over the likeliest distinct placements."""
        bit = 1 << index
        if self.known.sure & bit:
            return
        for alts in {id(alts): alts for alts in self.slots}.values():
            for a in alts:
                a.remove_covering(bit)

    def max_cells(self) -> int | None:
        """The most cells the opponent's fleet can hold, or None if unknown."""
        if not self.exact:
            return None
        afloat = 0
        for alts, shares in zip(self.slots, self.share):
            sizes = [a.type.size for a, s in zip(alts, shares) if s > 0] or [max(a.type.size for a in alts)]
            afloat += max(sizes)
        return afloat + sum(len(s.cells) for s in self.known.sunk)
