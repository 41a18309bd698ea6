"""What a player knows: the two sets of five 5x5 grids the rules ask each
player to keep [11.3], worked out from the game instead of kept by hand.

`own_space` is the player's own fleet as it stands [11.3.1]-[11.3.2];
`opponent_space` is everything the player has been told about the
opponent's space [11.3.3]-[11.3.5]: the results of their own strikes and
scans, destruction reports, flashcube data and the opponent's kamikaze
deaths. Both are pure functions of the player's own side and the views of
past turns (`TurnReport.view`), so nothing the rules keep hidden can leak in.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .events import PlayerView, Result
from .geometry import ALL_CELLS, Cell
from .state import Side


@dataclass(frozen=True)
class OwnCell:
    """A cell of the player's own space."""

    ship: str | None
    """The label of the ship there (``KC``, ``FS2``), or None."""
    destroyed: bool = False
    missile: str | None = None
    """``unfired`` or ``fired`` for a missile cell [8.1], else None."""


_EMPTY = OwnCell(None)


@functools.lru_cache(maxsize=1024)
def _own_cell(ship: str, destroyed: bool, missile: str | None) -> OwnCell:
    """A cell of a ship, made once for all the sheets that show one like it."""
    return OwnCell(ship, destroyed, missile)


def own_space(side: Side) -> dict[Cell, OwnCell]:
    """Every cell of the player's own space [11.3.1], [11.3.2]."""
    cells = {}
    fleet = side.fleet
    labels = [ship.label for ship in fleet.ships]
    for cell in ALL_CELLS:
        index = fleet.ship_at[cell.index]
        if index < 0:
            cells[cell] = _EMPTY
            continue
        destroyed = bool(side.destroyed & cell.bit)
        missile = None
        if fleet.ships[index].type.missiles and not destroyed:
            missile = "fired" if side.fired & cell.bit else "unfired"
        cells[cell] = _own_cell(labels[index], destroyed, missile)
    return cells


@dataclass
class KnownCell:
    """What the player knows of one cell of the opponent's space."""

    strikes: list[str] = field(default_factory=list)
    """Results of the player's own strikes here, in order: miss, hit, duplicate, explosion."""
    scan: str | None = None
    """The latest scan result here: empty, undamaged or destroyed."""
    ship: str | None = None
    """The ship known to be here, from a destruction report or flashcube data."""
    destroyed: bool | None = None
    """True or False when the player knows; None when not."""
    empty: bool = False
    """Known to hold no ship."""
    kamikaze: bool = False
    """The opponent launched a kamikaze strike from here [5.4]."""
    exploded: bool = False
    """A missile explosion was announced here [8.1.4.2]."""

    @property
    def occupied(self) -> bool | None:
        if self.empty:
            return False
        if self.ship or self.destroyed is not None or self.kamikaze:
            return True
        return None


def opponent_space(player: int, views: list[PlayerView]) -> dict[Cell, KnownCell]:
    """Everything ``player`` has been told about the opponent's space."""
    told = known_cells(player, views)
    return {cell: told.get(cell) or KnownCell() for cell in ALL_CELLS}


class Told(dict):
    """Cells as `known_cells` finds them: a cell is made when first told of."""

    def __missing__(self, cell: Cell) -> KnownCell:
        self[cell] = made = KnownCell()
        return made


def known_cells(player: int, views: list[PlayerView]) -> dict[Cell, KnownCell]:
    """The cells of the opponent's space ``player`` has been told something
    about (`opponent_space` without the cells of which nothing is known,
    which a sheet draws alike: most of them, most of the game)."""
    known = Told()
    told_since(known, player, views)
    return dict(known)


def told_since(known: Told, player: int, views: list[PlayerView]) -> set[Cell]:
    """Add to ``known`` (the cells as earlier views told them) what
    ``views``, the turns after those, told ``player``; the cells they told
    of. So a sheet kept from turn to turn (`gm.games.spaceships.seat_grids`)
    reads each turn's view once."""
    touched: set[Cell] = set()

    def at(cell: Cell) -> KnownCell:
        touched.add(cell)
        return known[cell]

    opponent = 3 - player
    for view in views:
        for a in view.announcements:
            if a.by == player and a.kind in ("strike", "beam"):
                cell = at(a.cell)
                cell.strikes.append(a.result.value)  # type: ignore[union-attr]
                if a.result is Result.MISS:
                    cell.empty = True
                else:
                    cell.destroyed = True
                for exploded in a.explosions:
                    at(exploded).destroyed = True
                    at(exploded).exploded = True
            elif a.by == player and a.kind == "scan":
                cell = at(a.cell)
                cell.scan = a.result.value  # type: ignore[union-attr]
                if a.result is Result.EMPTY:
                    cell.empty = True
                else:
                    cell.destroyed = a.result is Result.DESTROYED
            elif a.by == opponent and a.kind == "kamikaze":
                cell = at(a.cell)
                cell.kamikaze = True
                cell.destroyed = True
            for d in a.destroyed:
                if d.owner == opponent:
                    for c in d.ship.cells:
                        at(c).ship = d.ship.label
                        at(c).destroyed = True
                else:
                    for f in d.flashcube:  # the opponent's cells at my lost ship [7]
                        target = at(f.cell)
                        if f.ship is None:
                            target.empty = True
                        else:
                            target.ship = f.ship
                            if target.destroyed is not True:
                                target.destroyed = f.destroyed
    return touched
