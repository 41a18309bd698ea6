"""The Grid Fighters board and pieces: squares, strength and movement.

Everything here is a pure function of the rules text and the procedure note
(``/work/shared/rules/``): which pieces a player has, which of two colliding
pieces is destroyed, and which squares a move passes through. Nothing here
knows where the opponent stands; that is `gm.games.gridfighters.game`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

ROWS = "ABCDEFGHIJ"
"""Row letters, top to bottom on player 2's board [summary]."""
SIZE = 10

_SQUARE = re.compile(r"([A-J])(10|[1-9])", re.I)


@dataclass(frozen=True, order=True, repr=False)
class Square:
    """One square of the 10x10 grid. ``row`` is 0 for A to 9 for J, ``column``
    0 for 1 to 9 for 10; both players use the same coordinates [summary]."""

    row: int
    column: int

    def __post_init__(self) -> None:
        if not (0 <= self.row < SIZE and 0 <= self.column < SIZE):
            raise ValueError(f"no such square: row {self.row}, column {self.column}")

    @classmethod
    def parse(cls, text: str) -> Square:
        """``"e2"`` or ``"E2"`` (row letter A-J, then column 1-10)."""
        match = _SQUARE.fullmatch(text.strip())
        if not match:
            raise ValueError(f"not a square: {text!r} (rows A to J, columns 1 to 10, such as E2)")
        return cls(ROWS.index(match[1].upper()), int(match[2]) - 1)

    @property
    def letter(self) -> str:
        return ROWS[self.row]

    @property
    def number(self) -> int:
        return self.column + 1

    @property
    def colour(self) -> int:
        """0 or 1: the chessboard colour, which a Y fighter never leaves [game play]."""
        return (self.row + self.column) % 2

    def __str__(self) -> str:
        return f"{self.letter}{self.number}"

    def __repr__(self) -> str:
        return f"Square.parse({str(self)!r})"


ALL_SQUARES = tuple(Square(r, c) for r in range(SIZE) for c in range(SIZE))


def home_rows(player: int) -> str:
    """Player 1 owns rows A to E, player 2 rows F to J [summary]."""
    if player not in (1, 2):
        raise ValueError(f"no player {player}: players are 1 and 2")
    return ROWS[:5] if player == 1 else ROWS[5:]


def in_territory(player: int, square: Square) -> bool:
    return square.letter in home_rows(player)


# Pieces

PIECES = ("H", "A1", "A2", "A3", "A4", "A5", "A6", "A7", "W", "B", "X1", "X2", "Y1", "Y2", "Z1", "Z2", "Z3", "Z4")
"""One player's 18 pieces in the standard game [setup]."""
THREE_HOMES = ("H1", "H2", "H3")
"""The home planets of the optional three-home-planet rule [update of 11 February 2004]."""

KINDS = "AWBXYZH"
"""Kinds from strongest to weakest, as the rules text lists them [setup]."""
IMMOBILE = frozenset("AH")
"""Asteroids and home planets never move [setup]."""
KIND_NAMES = {
    "A": "asteroid", "W": "W fighter", "B": "B fighter", "X": "X fighter",
    "Y": "Y fighter", "Z": "Z fighter", "H": "home planet",
}
MOVES_LIKE = {"W": "a chess knight", "B": "a chess queen", "X": "a chess rook", "Y": "a chess bishop",
              "Z": "a chess queen"}


def pieces_for(homes: int = 1) -> tuple[str, ...]:
    """A player's pieces: `PIECES`, or with ``homes=3`` H1 H2 H3 for H (20 pieces)."""
    if homes == 1:
        return PIECES
    if homes == 3:
        return THREE_HOMES + PIECES[1:]
    raise ValueError(f"homes must be 1 or 3, not {homes}")


def kind(piece: str) -> str:
    """The kind of a piece name: ``"Z2"`` -> ``"Z"``, ``"H1"`` -> ``"H"``."""
    letter = piece[:1].upper()
    if letter not in KINDS:
        raise ValueError(f"not a piece: {piece!r}")
    return letter


def strength(piece_kind: str) -> int:
    """Higher is stronger: W 5, B 4, X 3, Y 2, Z 1, home planet 0 [setup].
    Asteroids have no strength; `collide` treats them apart."""
    return {"W": 5, "B": 4, "X": 3, "Y": 2, "Z": 1, "H": 0}[piece_kind]


def collide(a_kind: str, b_kind: str) -> tuple[bool, bool]:
    """Whether a and b are destroyed when they collide [setup]: asteroids
    destroy everything and are destroyed by everything; equal kinds destroy
    each other; otherwise the stronger destroys the weaker (the home planet,
    listed last, is the weakest [procedure: movement])."""
    if a_kind == "A" or b_kind == "A" or a_kind == b_kind:
        return (True, True)
    sa, sb = strength(a_kind), strength(b_kind)
    return (sa < sb, sb < sa)


# Movement

_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_ROOK = ((1, 0), (-1, 0), (0, 1), (0, -1))
_BISHOP = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_LINES = {"B": _ROOK + _BISHOP, "Z": _ROOK + _BISHOP, "X": _ROOK, "Y": _BISHOP}


def path(piece_kind: str, frm: Square, to: Square) -> tuple[Square, ...] | None:
    """The squares a move passes through and lands on, in order, without the
    departure square; None when the kind cannot move so [movement].

    A W jumps like a knight: only its landing square is on its path
    (ruling 1). B and Z move like queens and X like a rook, Y like a bishop,
    any distance (ruling 2). The board holds no blockers here: which squares
    a player may not cross is `gm.games.gridfighters.game`'s business.
    """
    if piece_kind in IMMOBILE or frm == to:
        return None
    dr, dc = to.row - frm.row, to.column - frm.column
    if piece_kind == "W":
        return (to,) if (dr, dc) in _KNIGHT else None
    lines = _LINES.get(piece_kind)
    if lines is None:
        raise ValueError(f"not a kind of piece: {piece_kind!r}")
    steps = max(abs(dr), abs(dc))
    step = (dr // steps, dc // steps)
    if (dr, dc) != (step[0] * steps, step[1] * steps) or step not in lines:
        return None
    return tuple(Square(frm.row + step[0] * i, frm.column + step[1] * i) for i in range(1, steps + 1))


def destinations(piece_kind: str, frm: Square) -> Iterator[Square]:
    """Every square the kind could move to from ``frm`` on an empty board."""
    if piece_kind in IMMOBILE:
        return
    if piece_kind == "W":
        for dr, dc in _KNIGHT:
            if 0 <= frm.row + dr < SIZE and 0 <= frm.column + dc < SIZE:
                yield Square(frm.row + dr, frm.column + dc)
        return
    for dr, dc in _LINES[piece_kind]:
        r, c = frm.row + dr, frm.column + dc
        while 0 <= r < SIZE and 0 <= c < SIZE:
            yield Square(r, c)
            r, c = r + dr, c + dc


def can_ever_reach(piece_kind: str, frm: Square, target: Square) -> bool:
    """Whether the kind could, in some number of moves on an otherwise empty
    board, pass through or land on ``target``: knights, rooks and queens reach
    every square of a 10x10 board; a bishop only squares of its own colour
    [game play]; asteroids and home planets nothing."""
    if piece_kind in IMMOBILE:
        return False
    if piece_kind == "Y":
        return frm.colour == target.colour
    return True
