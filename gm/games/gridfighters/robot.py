"""A Grid Fighters robot: a setup and a move for one seat, from what that seat knows.

The robot sees only `SeatView` (`seat_view` is the one function here that
reads a `Grid`), so it cannot play on what its player may not know. Its
moves are worked out from its own pieces, as a player's are (the legality
of a move depends only on the mover's own pieces, `Grid.check`).

The game is a race to find the other home planet: a path is checked when
its piece next departs, and every opponent piece standing on it is then
met, so each move *cashes* the last path of the piece it moves and lays a
new one. The levels differ in how much of `track`'s knowledge they use:

* easy: a random legal move, slightly preferring moves into the
  opponent's rows;
* normal: the move whose cashed and new paths cover most of the squares
  where the home planet may still stand (by `track`);
* hard: as normal, plus a look one move further (the best path the piece
  could lay from where it lands), the risk of losing the piece on
  asteroids and stronger fighters, the worth of the opponent's fighters it
  may meet (more for those that could reach its own home planet), and a
  setup with the home planet in a back corner, which fewest lines reach.

Randomness comes only from the `random.Random` passed in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from random import Random

from .board import ALL_SQUARES, IMMOBILE, SIZE, home_rows, kind, strength
from .bot import random_setup
from .events import MoveReport
from .game import Grid
from .notation import Move, Placement
from .track import SQUARES, Knowledge, SeatView, index, route, territory, track
from .variants import Variant

__all__ = ["LEVELS", "SeatView", "legal_moves", "robot_move", "robot_setup", "seat_view", "track"]

LEVELS = ("easy", "normal", "hard")

_WORTH = {"W": 5.0, "B": 4.0, "X": 3.0, "Y": 2.0, "Z": 1.5, "A": 0.5, "H": 0.0}
"""What losing a piece of each kind costs, in the units of a home planet found (hard)."""
_NEW = 0.9
"""A new path is worth a little less than one checked now: it is checked only later."""
_LOOK = 0.45
"""The weight of the best path the piece could lay next from where it lands (hard)."""
_RISK = 0.04
"""The weight of the piece's worth times the chance of losing it on its new path (hard)."""
_KILL = 0.03
"""The weight of the worth of the opponent's fighters the new path may destroy (hard)."""
_THREAT = 0.3
"""An opponent's fighter one move from one of our home planets is worth this much more, in W fighters (hard)."""
_RAM = 10.0
"""Ramming one's own asteroid loses two pieces for nothing: done only when nothing else is left."""


def seat_view(grid: Grid, player: int, reports: Iterable[object]) -> SeatView:
    """What ``player`` may know: the sheets' `Grid.view`, their own setup, and
    every `MoveReport` in ``reports`` (the game's log; other entries, such
    as missed deadlines, tell nothing of the pieces) as they heard it.

    ``reports`` must hold every move made so far, in order: the tracking is
    only as good as its history, so a gap is an error, not a guess.
    """
    history = tuple(r if r.by == player else r.public() for r in reports if isinstance(r, MoveReport))
    if [r.n for r in history] != list(range(1, grid.moves + 1)):
        raise ValueError(f"the reports must be moves 1 to {grid.moves} in order, not {[r.n for r in history]}")
    return SeatView(grid.view(player), grid.variant, grid.setups[player - 1], history)


# Setup

def robot_setup(player: int, variant: Variant, level: str, rng: Random) -> list[Placement]:
    """A legal setup for ``player``. Easy: random. Normal: home planets on the
    back row. Hard: home planets in the back corners (then the back row),
    asteroids in the middle rows, fighters on the front row, ready to go."""
    _check_level(level)
    if level == "easy":
        return random_setup(player, rng, variant)
    rows = home_rows(player)
    back, front = (rows[0], rows[-1]) if player == 1 else (rows[-1], rows[0])
    own = [s for s in ALL_SQUARES if s.letter in rows]
    homes = [p for p in variant.pieces if kind(p) == "H"]
    back_row = [s for s in own if s.letter == back]
    if level == "hard":
        corners = [s for s in back_row if s.column in (0, SIZE - 1)]
        rng.shuffle(corners)
        rest = [s for s in back_row if s not in corners]
        rng.shuffle(rest)
        home_squares = (corners + rest)[:len(homes)]
    else:
        home_squares = rng.sample(back_row, len(homes))
    where = dict(zip(homes, home_squares))
    middle = [s for s in own if s.letter not in (back, front) and s not in home_squares]
    if level == "normal":
        middle = [s for s in own if s.letter != front and s not in home_squares]
    for piece, square in zip([p for p in variant.pieces if kind(p) == "A"], rng.sample(middle, 7)):
        where[piece] = square
    front_row = [s for s in own if s.letter == front]
    fighters = [p for p in variant.pieces if kind(p) not in IMMOBILE]
    spots = rng.sample(front_row, len(front_row)) + rng.sample(front_row, len(fighters) - len(front_row))
    where.update(zip(fighters, spots))
    return [Placement(piece, where[piece], line) for line, piece in enumerate(variant.pieces, 1)]


# Moves

@cache
def _rays(piece_kind: str, frm: int) -> tuple[tuple[int, ...], ...]:
    """The squares along each line the kind moves on from ``frm``, nearest
    first (a knight's moves are lines of one square)."""
    r0, c0 = divmod(frm, SIZE)
    if piece_kind == "W":
        jumps = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
        return tuple((r * SIZE + c,) for dr, dc in jumps
                     if 0 <= (r := r0 + dr) < SIZE and 0 <= (c := c0 + dc) < SIZE)
    steps = {"X": ((1, 0), (-1, 0), (0, 1), (0, -1)), "Y": ((1, 1), (1, -1), (-1, 1), (-1, -1))}
    directions = steps.get(piece_kind, steps["X"] + steps["Y"])
    rays = []
    for dr, dc in directions:
        ray = []
        r, c = r0 + dr, c0 + dc
        while 0 <= r < SIZE and 0 <= c < SIZE:
            ray.append(r * SIZE + c)
            r, c = r + dr, c + dc
        if ray:
            rays.append(tuple(ray))
    return tuple(rays)


def legal_moves(seat: SeatView) -> list[Move]:
    """Every move the seat may make now, worked out from its own pieces
    alone (the same set as `Grid.legal_moves`): a fighter may not cross its
    own asteroids or home planets, nor land on its home planets [setup]
    (ruling 4)."""
    if not seat.my_move:
        return []
    blockers = {index(p.square): kind(p.piece) for p in seat.view.own if kind(p.piece) in IMMOBILE}
    moves = []
    for piece in seat.view.own:
        k = kind(piece.piece)
        if k in IMMOBILE:
            continue
        frm = index(piece.square)
        for ray in _rays(k, frm):
            for to in ray:
                blocker = blockers.get(to)
                if blocker != "H":
                    moves.append(Move(piece.piece, piece.square, SQUARES[to]))
                if blocker is not None:
                    break
    return moves


def robot_move(seat: SeatView, level: str, rng: Random) -> Move | None:
    """The robot's move for the seat, one of `legal_moves`; None when it is
    not the seat's move or the game is over."""
    _check_level(level)
    moves = legal_moves(seat)
    if not moves:
        return None
    if level == "easy":
        return _easy(seat, moves, rng)
    knowledge = track(seat)
    return _best(seat, knowledge, moves, level == "hard", rng)


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: the levels are {', '.join(LEVELS)}")


def _easy(seat: SeatView, moves: list[Move], rng: Random) -> Move:
    """Random, but one time in three only among moves into the opponent's rows."""
    theirs = territory(3 - seat.player)
    forward = [m for m in moves if index(m.to) in theirs]
    return rng.choice(forward if forward and rng.random() < 1 / 3 else moves)


def _probabilities(knowledge: Knowledge, kinds: str) -> list[float]:
    """For each square, the expected number of the opponent's pieces of
    ``kinds`` on it, each piece equally likely on any of its possible squares."""
    chance = [0.0] * (SIZE * SIZE)
    for name, where in knowledge.possible.items():
        if kind(name) in kinds and where:
            share = 1.0 / len(where)
            for square in where:
                chance[square] += share
    return chance


def _best(seat: SeatView, knowledge: Knowledge, moves: Sequence[Move], hard: bool, rng: Random) -> Move:
    """The move of highest score, ties broken by ``rng``. A move's score is
    the chance of the home planets on the path it checks (the moving
    piece's last one) plus what the path it lays adds (squares no pending
    path of ours covers; for hard, also the look ahead, the prey and the
    risk, all discounted by the chance the piece survives the check)."""
    home = _probabilities(knowledge, "H")
    pending = {name: own.path for name, own in knowledge.own.items() if not own.destroyed and own.path is not None}
    covered: set[int] = set()
    for squares in pending.values():
        covered.update(squares)
    cash = {name: sum(home[i] for i in squares) for name, squares in pending.items()}
    own_asteroids = {index(p.square) for p in seat.view.own if kind(p.piece) == "A"}
    if hard:
        danger, prey = _dangers(seat, knowledge)
    survival: dict[str, float] = {}
    """The chance each piece survives the check of its last path: a piece
    lost there spends the move, and lays no new path (hard)."""
    best: list[tuple[float, int]] = []
    for number, move in enumerate(moves):
        k = kind(move.piece)
        frm, to = index(move.frm), index(move.to)
        new = route(k, frm, to)
        laid = _NEW * sum(home[i] for i in new if i not in covered)
        if to in own_asteroids:
            laid -= _RAM
        if hard:
            laid += _LOOK * _best_path(k, to, home, covered.union(new))
            laid += _KILL * sum(prey[k][i] for i in new)
            laid -= _RISK * _WORTH[k] * (1.0 - _survival(danger[k], new))
            laid *= survival.setdefault(move.piece, _survival(danger[k], pending.get(move.piece, ())))
        score = cash.get(move.piece, 0.0) + laid
        best.append((score, number))
    top = max(score for score, _ in best)
    choices = [number for score, number in best if score >= top - 1e-9]
    return moves[rng.choice(choices)]


def _survival(danger: list[float], squares: Iterable[int]) -> float:
    alive = 1.0
    for i in squares:
        alive *= max(0.0, 1.0 - danger[i])
    return alive


def _best_path(piece_kind: str, frm: int, home: list[float], seen: set[int]) -> float:
    """The most home-planet chance any one path from ``frm`` could cover
    outside ``seen`` (own blockers ignored: a look ahead, not a move)."""
    best = 0.0
    for ray in _rays(piece_kind, frm):
        total = 0.0
        for i in ray:
            if i not in seen:
                total += home[i]
                if total > best:
                    best = total
    return best


def _dangers(seat: SeatView, knowledge: Knowledge) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """For each kind of our fighters and each square: the chance of meeting
    there something that destroys it (asteroids, fighters as strong or
    stronger), and the worth of what it would destroy there (weaker
    fighters, more for those that could reach one of our home planets)."""
    asteroids = _probabilities(knowledge, "A")
    homes = {index(p.square) for p in seat.view.own if kind(p.piece) == "H"}
    danger = {k: list(asteroids) for k in "WBXYZ"}
    prey = {k: [0.0] * (SIZE * SIZE) for k in "WBXYZ"}
    for name, where in knowledge.possible.items():
        theirs = kind(name)
        if theirs in IMMOBILE or not where:
            continue
        share = 1.0 / len(where)
        for square in where:
            threat = _THREAT * _WORTH["W"] if any(h in _reachable(theirs, square) for h in homes) else 0.0
            for k in "WBXYZ":
                if strength(theirs) >= strength(k):
                    danger[k][square] += share
                if strength(theirs) <= strength(k):
                    prey[k][square] += share * (_WORTH[theirs] + threat)
    return danger, prey


@cache
def _reachable(piece_kind: str, frm: int) -> frozenset[int]:
    return frozenset(i for ray in _rays(piece_kind, frm) for i in ray)
