"""What happens in a turn, as the players report it to each other [2.2.2]-[2.2.4], [11.7].

A `TurnReport` holds everything: both players' checked orders (private) and
the announcements both of them hear (public). `TurnReport.view` keeps only
what one player may know.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .checking import OrderCheck
from .geometry import Cell
from .ships import Ship
from .state import GameResult


class Result(Enum):
    """A visible result [2.2.3]: of a strike [5.2] or of a scan [8.3.4.1]."""

    MISS = "miss"
    HIT = "hit"
    DUPLICATE = "duplicate"
    EXPLOSION = "explosion"
    EMPTY = "empty"
    UNDAMAGED = "undamaged"
    DESTROYED = "destroyed"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class FlashcubeCell:
    """Flashcube data for one cell [7.2]: the ship there (type, and identity
    if its owner has several of that type), or None, and whether the cell is
    destroyed when reported. Missiles fired or not are not told."""

    cell: Cell
    ship: str | None
    destroyed: bool

    def __str__(self) -> str:
        if self.ship is None:
            return f"{self.cell} empty"
        return f"{self.cell} {self.ship} {'destroyed' if self.destroyed else 'undamaged'}"


@dataclass(frozen=True)
class Destruction:
    """A ship reported destroyed by its owner [2.2.4], [11.7.3], with the
    flashcube data the other player returns for the same cells [7.1]."""

    owner: int
    ship: Ship
    flashcube: tuple[FlashcubeCell, ...]

    def __str__(self) -> str:
        return f"player {self.owner}'s {self.ship.type.title} {self.ship} destroyed"


@dataclass(frozen=True)
class Announcement:
    """One visible aspect with its visible result, in the order reported [11.7].

    ``kind`` is ``beam``, ``strike``, ``scan`` or ``kamikaze`` (a kamikaze
    death [5.4], whose ``cell`` is the launch cell in the active player's own
    space and whose ``result`` is None). ``explosions`` lists the exploding
    cells, target first [8.1.4.2]. ``destroyed`` holds the destructions
    reported together with this announcement [11.7.3].
    """

    by: int
    kind: str
    cell: Cell
    result: Result | None
    explosions: tuple[Cell, ...] = ()
    destroyed: tuple[Destruction, ...] = ()
    beam: tuple[Cell, Cell] | None = None
    """A beam strike's end cells as ordered, grouping the three strikes of one firing."""

    def __str__(self) -> str:
        if self.kind == "kamikaze":
            text = f"kamikaze death {self.cell}"
        elif self.kind == "scan":
            text = f"scan {self.cell}: {self.result}"
        else:
            text = f"{'beam strike' if self.kind == 'beam' else 'strike'} {self.cell}: {self.result}"
        if self.explosions:
            text += f" ({' '.join(map(str, self.explosions))} explode)"
        return text


@dataclass(frozen=True)
class BurnOut:
    """A beam weapon burnt out [8.2.4], [8.4]."""

    player: int
    ship: str


@dataclass(frozen=True)
class TurnReport:
    """Everything that happened in one turn."""

    turn: int
    initially_active: int
    checks: tuple[OrderCheck, OrderCheck]
    announcements: tuple[Announcement, ...]
    burn_outs: tuple[BurnOut, ...]
    lost: tuple[int, int]
    """How many cells each player lost this turn."""
    result: GameResult | None

    @property
    def destructions(self) -> list[Destruction]:
        return [d for a in self.announcements for d in a.destroyed]

    def view(self, player: int) -> PlayerView:
        """The part of this report that ``player`` may know."""
        return PlayerView(
            turn=self.turn,
            player=player,
            initially_active=self.initially_active,
            check=self.checks[player - 1],
            announcements=self.announcements,
            burn_outs=tuple(b for b in self.burn_outs if b.player == player),
            result=self.result,
        )


@dataclass(frozen=True)
class PlayerView:
    """One player's knowledge of a turn: their own orders as checked, every
    announcement and result both players heard, their own burnt-out beams,
    and the game's result if it ended. Nothing of the opponent's orders beyond
    their visible aspects [5]."""

    turn: int
    player: int
    initially_active: int
    check: OrderCheck
    announcements: tuple[Announcement, ...]
    burn_outs: tuple[BurnOut, ...]
    result: GameResult | None
