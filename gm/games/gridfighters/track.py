"""What one Grid Fighters seat knows, and where the opponent's pieces may be.

`SeatView` is everything a seat has been told: the same `View` the turn
sheets are drawn from, the seat's own setup, and every move report as the
seat heard it (its own moves whole, the opponent's through
`MoveReport.public`). `track` replays those reports and keeps, for each
opponent piece still standing, the set of squares it may stand on now (its
setup square, or where its last move ended), consistent with everything
told:

* an announced departure puts the piece on that square (a first departure
  also says no asteroid or home planet was set up there, since those stand
  alone [setup]); after it the piece is somewhere one legal move away;
* the path between two announced departures is known, and a player may
  neither cross nor land on their own home planet, nor cross their own
  asteroids (landing on one is a ram, which is told: ruling 4), so no
  standing asteroid or home planet is on it;
* a collision puts the piece met on its square (if it never moved, or is
  an asteroid, that is its setup square, so no other asteroid or home
  planet is there), and a piece whose path was met has its destination on
  a line through that square;
* a path of ours that was checked without meeting an opponent piece says
  that piece did not stand on any of its squares when the move began
  (ruling 5: who stands where is taken once, at the start).

Squares are indices ``row * 10 + column`` here, for speed. Pure: no I/O,
no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from .board import ALL_SQUARES, IMMOBILE, SIZE, Square, destinations, in_territory, kind, path
from .events import MoveReport, View, tag, untag
from .notation import Placement
from .variants import Variant


@dataclass(frozen=True)
class SeatView:
    """Everything a robot may know: its own pieces and what its seat has been told.

    ``view`` is `Grid.view` (what the sheets show), ``setup`` the seat's own
    placements, ``history`` every move as the seat heard it, in order.
    """

    view: View
    variant: Variant
    setup: tuple[Placement, ...]
    history: tuple[MoveReport, ...]

    @property
    def player(self) -> int:
        return self.view.player

    @property
    def my_move(self) -> bool:
        return self.view.result is None and self.view.to_move == self.view.player


def index(square: Square) -> int:
    return square.row * SIZE + square.column


SQUARES = ALL_SQUARES
"""``SQUARES[i]`` is the square of index i."""


@cache
def territory(player: int) -> frozenset[int]:
    """The indices of ``player``'s rows."""
    return frozenset(index(s) for s in ALL_SQUARES if in_territory(player, s))


@cache
def route(piece_kind: str, frm: int, to: int) -> tuple[int, ...]:
    """The indices a move passes through and lands on (`board.path`)."""
    squares = path(piece_kind, SQUARES[frm], SQUARES[to])
    assert squares is not None
    return tuple(index(s) for s in squares)


@cache
def reach(piece_kind: str, frm: int) -> frozenset[int]:
    """Every square the kind could move to from ``frm`` on an empty board."""
    return frozenset(index(s) for s in destinations(piece_kind, SQUARES[frm]))


@cache
def lines_through(piece_kind: str, frm: int, square: int) -> frozenset[int]:
    """The destinations from ``frm`` whose path passes through or lands on ``square``."""
    return frozenset(t for t in reach(piece_kind, frm) if square in route(piece_kind, frm, t))


@dataclass
class Own:
    """One of the seat's own pieces, as the seat itself knows it."""

    at: int
    path: tuple[int, ...] | None = None
    destroyed: bool = False


@dataclass
class Knowledge:
    """The result of `track`: the seat's pieces and the opponent's possible squares."""

    player: int
    own: dict[str, Own]
    possible: dict[str, set[int]]
    """Each opponent piece still standing: the squares it may stand on now."""
    departed: dict[str, int] = field(default_factory=dict)
    """Each opponent piece that has moved: its last announced departure."""

    @property
    def opponent(self) -> int:
        return 3 - self.player


def track(seat: SeatView) -> Knowledge:
    """Replay the seat's history into what it knows now (see the module's docstring)."""
    me = seat.player
    opp = 3 - me
    own = {p.piece: Own(index(p.square)) for p in seat.setup}
    start = territory(opp)
    possible: dict[str, set[int]] = {name: set(start) for name in seat.variant.pieces}
    departed: dict[str, int] = {}
    for report in seat.history:
        _replay(report, me, opp, own, possible, departed)
    return Knowledge(me, own, possible, departed)


def _replay(report: MoveReport, me: int, opp: int, own: dict[str, Own], possible: dict[str, set[int]],
            departed: dict[str, int]) -> None:
    """One move: what it tells about the opponent's pieces as they stood when
    it began, then what it changes."""
    immobile = [name for name in possible if kind(name) in IMMOBILE]
    frm = index(report.frm)
    if report.by == opp:
        mover = report.piece
        previous = departed.get(mover)
        if previous is not None:  # the path between two departures, legal for its owner
            crossed = route(kind(mover), previous, frm)
            for name in immobile:
                possible[name].difference_update(crossed)
        else:  # a first departure leaves the setup square, where no asteroid or home stood
            for name in immobile:
                possible[name].discard(frm)
        if mover in possible:
            possible[mover] = {frm}
    met: set[frozenset[str]] = set()
    checked: dict[str, tuple[int, ...]] = {}
    mover_path = own[report.piece].path if report.by == me else None
    if mover_path is not None:
        checked[report.piece] = mover_path
    for collision in report.collisions:
        met.add(frozenset(collision.pieces))
        square = index(collision.square)
        (standing_side, standing), (moving_side, moving) = untag(collision.pieces[0]), untag(collision.pieces[1])
        if standing_side == opp and standing in possible:
            possible[standing] &= {square}
        if standing_side == opp and (kind(standing) in IMMOBILE or standing not in departed):
            for name in immobile:  # met on its setup square, where nothing else was set up
                if name != standing:
                    possible[name].discard(square)
        if (moving_side == opp and standing_side == me and not (report.by == opp and moving == report.piece)
                and moving in possible and moving in departed):
            possible[moving] &= lines_through(kind(moving), departed[moving], square)
        if standing_side == me:
            path_of = own[standing].path
            if path_of is not None:
                checked.setdefault(standing, path_of)
    if report.by == me and report.rammed and report.to is not None:
        checked[report.piece + "+ram"] = route(kind(report.piece), frm, index(report.to))
    for name, squares in checked.items():
        mine = tag(me, name.removesuffix("+ram"))
        for other, where in possible.items():
            if frozenset((mine, tag(opp, other))) not in met:
                where.difference_update(squares)
    for reveal in report.revealed:
        side, name = untag(reveal.piece)
        if side == opp and name in possible:
            possible[name] &= {index(reveal.square)}
    if report.by == me:
        piece = own[report.piece]
        if not report.spent and report.to is not None:
            piece.path = route(kind(report.piece), frm, index(report.to))
            piece.at = index(report.to)
    else:
        departed[report.piece] = frm
        if report.piece in possible and not report.spent and not report.rammed:
            possible[report.piece] = set(reach(kind(report.piece), frm))
    for tagged in report.destroyed:
        side, name = untag(tagged)
        if side == opp:
            possible.pop(name, None)
        else:
            own[name].destroyed = True
