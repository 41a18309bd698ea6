"""The state of a game between turns, and what it entitles each player to.

`Side` is one player's fleet and what has happened to it; `GameState` is both
sides, the turn number and, once the game has ended, its result. Both are
immutable: `gm.resolution` makes the next state from the last.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from .fleet import Fleet
from .geometry import LINE_DIRECTIONS, Cell, Geometry, Vector, cells_of
from .ruleset import DEFAULT, Ruleset
from .ships import Ship, ShipType


@dataclass(frozen=True)
class Side:
    """One player's fleet and its damage [3.8], fired missiles [8.1] and
    burnt-out beam weapons [8.4] at the start of a turn [2.4]."""

    fleet: Fleet
    destroyed: int = 0
    """Mask of destroyed cells [3.8]."""
    fired: int = 0
    """Mask of fired missiles [8.1]."""
    burnt_out: frozenset[int] = frozenset()
    """Indices of ships whose beam weapon has burnt out [8.4]."""
    lost_last_turn: int = 0
    """How many of this side's cells became destroyed in the previous turn [8.3.1.1]."""
    hits: int = 0
    """Hits this side has scored so far, for scoring by hits [explanation 6.2]."""

    def undamaged(self, ship: Ship) -> int:
        """Mask of the ship's undamaged cells [3.8]."""
        return ship.mask & ~self.destroyed

    def is_destroyed(self, ship: Ship) -> bool:
        """[3.10] all of the ship's cells are destroyed."""
        return not ship.mask & ~self.destroyed

    @property
    def unfired_missiles(self) -> int:
        """Mask of unfired missiles; a destroyed cell is no missile [8.1.2]."""
        return self.fleet.missiles & ~self.fired & ~self.destroyed

    @property
    def remaining_materiel(self) -> int:
        """[2.3.5] the number of undamaged cells in this side's ships."""
        return bin(self.fleet.occupied & ~self.destroyed).count("1")

    @property
    def afloat(self) -> bool:
        """Some ship is not destroyed [2.3.1]."""
        return bool(self.fleet.occupied & ~self.destroyed)

    def has_scanner(self) -> bool:
        """[8.3], [8.3.2] some ship with a scanner is not destroyed."""
        return any(not self.is_destroyed(self.fleet.ships[i]) for i in self.fleet.scanners)


@dataclass(frozen=True)
class Entitlement:
    """What a side may do in a turn, worked out from the state at its start [2.4]."""

    conventional: int
    """Conventional strikes [4.4.1], [6.2.4]."""
    conventional_by_ship: tuple[int, ...]
    missile_ships: tuple[int, ...]
    """Ships holding an unfired missile, each good for one missile strike [8.1.3]."""
    kamikaze_ships: tuple[int, ...]
    """Ships entitled to neither of the above, which may launch a kamikaze [4.5], [6.8.2]."""
    beam_directions: dict[int, frozenset[Vector]]
    """For each ship whose beam weapon may fire [8.2.2], [8.4], the line
    directions its undamaged loosely adjacent firing pairs allow."""
    scans: int
    """Scans allowed [8.3.1]."""

    @property
    def only_kamikaze_and_scans(self) -> bool:
        """[2.3.2] no possible actions other than kamikaze strikes and scans."""
        return not (self.conventional or self.missile_ships or self.beam_directions)


@lru_cache(maxsize=65536)
def max_matching(mask: int, geometry: Geometry) -> int:
    """The most non-overlapping adjacent pairs among the cells of ``mask`` [4.4.1]."""
    if not mask:
        return 0
    low = mask & -mask
    cell = Cell.from_index(low.bit_length() - 1)
    rest = mask ^ low
    best = max_matching(rest, geometry)  # leave this cell unpaired
    partners = geometry.adjacent_mask(cell) & rest
    while partners:
        partner = partners & -partners
        best = max(best, 1 + max_matching(rest ^ partner, geometry))
        partners ^= partner
    return best


@lru_cache(maxsize=65536)
def firing_directions(undamaged: int, geometry: Geometry) -> frozenset[Vector]:
    """Line directions of the loosely adjacent pairs among these cells [8.2.2]."""
    found = set()
    cells = cells_of(undamaged)
    for i, a in enumerate(cells):
        for b in cells[i + 1:]:
            d = geometry.direction(a, b)
            if d is not None:
                found.add(d if d in LINE_DIRECTIONS else (-d[0], -d[1], -d[2]))
    return frozenset(found)


AXES = frozenset({(1, 0, 0), (0, 1, 0), (0, 0, 1)})


def entitlement(side: Side, ruleset: Ruleset, turn: int) -> Entitlement:
    """What ``side`` may do in turn number ``turn`` (1-based), under the ruleset."""
    geometry = ruleset.geometry
    conventional_by_ship = []
    missile_ships = []
    kamikaze_ships = []
    beams: dict[int, frozenset[Vector]] = {}
    unfired = side.unfired_missiles
    for index, ship in enumerate(side.fleet.ships):
        undamaged = ship.mask & ~side.destroyed
        if not undamaged:
            conventional_by_ship.append(0)
            continue
        strikes = 1 if ship.type is ShipType.DS else max_matching(undamaged, geometry)  # DS: [6.2.4]
        conventional_by_ship.append(strikes)
        has_missile = bool(ship.mask & unfired)
        if has_missile:
            missile_ships.append(index)
        if ruleset.early:
            if not strikes:  # [early 4.4]: missiles do not matter
                kamikaze_ships.append(index)
            if ship.type.beam and undamaged == ship.mask:  # [early 6.1.3]: an undamaged death star
                beams[index] = AXES
            continue
        if not strikes and not has_missile and ship.type is not ShipType.LS:
            kamikaze_ships.append(index)
        if ship.type.beam and index not in side.burnt_out:
            directions = firing_directions(undamaged, geometry)
            if directions:
                beams[index] = directions
    scans = 0
    if ruleset.scans and side.has_scanner():
        scans = 1 if turn == 1 else max(1, side.lost_last_turn)  # [8.3.1.1], [8.3.1.2]
    return Entitlement(
        conventional=sum(conventional_by_ship),
        conventional_by_ship=tuple(conventional_by_ship),
        missile_ships=tuple(missile_ships),
        kamikaze_ships=tuple(kamikaze_ships),
        beam_directions=beams,
        scans=scans,
    )


NO_SHIPS = "no-ships"
"""A side has no ships left [2.3.1]."""
ONLY_KAMIKAZE_NO_ACTION = "only-kamikaze-no-action"
"""A side could do nothing but kamikaze strikes, and recorded no action [early 2.3.2]."""
ONLY_KAMIKAZE_SCANS = "only-kamikaze-scans"
"""A side could do nothing but kamikaze strikes and scans, and recorded only scans [2.3.2]."""


@dataclass(frozen=True)
class Ending:
    """One reason the game ended [2.3]: its code (`NO_SHIPS`,
    `ONLY_KAMIKAZE_NO_ACTION`, `ONLY_KAMIKAZE_SCANS`) and the player it
    concerns; `ending_words` says it."""

    code: str
    player: int


def ending_words(ending: Ending, names: Mapping[int, str] | None = None, viewer: int | None = None) -> str:
    """The one wording of an end's reason, with its clause: the player as
    "player N" for the record without ``names``, else by name, and as "you"
    (the verb agreeing) when the reader is that player."""
    p = ending.player
    you = p == viewer
    who = "you" if you else names.get(p, f"player {p}") if names is not None else f"player {p}"
    if ending.code == NO_SHIPS:
        return f"{who} {'have' if you else 'has'} no ships left [2.3.1]"
    if ending.code == ONLY_KAMIKAZE_NO_ACTION:
        return f"{who} could do nothing but kamikaze strikes, and recorded no action [early 2.3.2]"
    assert ending.code == ONLY_KAMIKAZE_SCANS, ending.code
    return f"{who} could do nothing but kamikaze strikes and scans, and recorded no action but scans [2.3.2]"


@dataclass(frozen=True)
class GameResult:
    """How a game ended [2.3]: after which turn, why, the scores and the winner."""

    ended_after_turn: int
    endings: tuple[Ending, ...]
    scores: tuple[int, int]
    """Each player's score: remaining materiel [2.3.3], or hits under the
    explanation's scoring by hits [explanation 6.2]."""
    tiebreak: tuple[int, int] | None = None
    """Hypothetical hits in the last turn, deciding a draw [explanation 6.1]."""

    @property
    def reason(self) -> str:
        """Why, in the record's words ("player 2 has no ships left [2.3.1]")."""
        return self.words()

    def words(self, names: Mapping[int, str] | None = None, viewer: int | None = None) -> str:
        """Why, for a reader (`ending_words`), the reasons joined by "; "."""
        return "; ".join(ending_words(e, names, viewer) for e in self.endings)

    @property
    def winner(self) -> int | None:
        """Player 1 or 2, or None for a draw [2.3.4]."""
        for a, b in (self.scores, self.tiebreak or (0, 0)):
            if a != b:
                return 1 if a > b else 2
        return None


@dataclass(frozen=True)
class GameState:
    """Both sides between turns. ``turn`` is the number of the next turn."""

    sides: tuple[Side, Side]
    ruleset: Ruleset = DEFAULT
    turn: int = 1
    result: GameResult | None = None
    _entitlements: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def new(cls, fleet1: Fleet, fleet2: Fleet, ruleset: Ruleset = DEFAULT) -> GameState:
        """The state just after setup [2.1], [3.8], [8.1.1]."""
        return cls((Side(fleet1), Side(fleet2)), ruleset)

    def side(self, player: int) -> Side:
        return self.sides[player - 1]

    def entitlement(self, player: int) -> Entitlement:
        """What ``player`` (1 or 2) may do in the coming turn."""
        if player not in self._entitlements:
            self._entitlements[player] = entitlement(self.side(player), self.ruleset, self.turn)
        return self._entitlements[player]

    @property
    def initially_active(self) -> int:
        """Who reports first this turn [11.7.1]: player 1 on odd turns, 2 on even."""
        return 1 if self.turn % 2 else 2

    @property
    def over(self) -> bool:
        return self.result is not None
