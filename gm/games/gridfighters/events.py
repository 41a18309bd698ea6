"""What a Grid Fighters move reports, what ends a game, and what a player sees.

Pieces are named ``"player:piece"`` (``"2:Y1"``) wherever both sides' pieces
appear together. These are plain immutable values: `gm.games.gridfighters.game`
makes them, the referee and the mail front end print them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .board import Square


def tag(player: int, piece: str) -> str:
    """``tag(2, "Y1")`` -> ``"2:Y1"``."""
    return f"{player}:{piece}"


def untag(tagged: str) -> tuple[int, str]:
    """``untag("2:Y1")`` -> ``(2, "Y1")``."""
    player, _, piece = tagged.partition(":")
    return int(player), piece


@dataclass(frozen=True)
class Collision:
    """Two pieces of opposite sides met on ``square`` (or a piece rammed its
    own asteroid there). ``pieces`` is (the piece standing on the square, the
    piece whose path crossed it); ``destroyed`` those of them destroyed."""

    square: Square
    pieces: tuple[str, str]
    destroyed: tuple[str, ...]


@dataclass(frozen=True)
class Reveal:
    """``piece`` was shown to stand on ``square`` to player ``to`` (ruling 7)."""

    square: Square
    piece: str
    to: int


@dataclass(frozen=True)
class Result:
    """How a game ended. ``winner`` is 1, 2 or None for a draw; ``code`` is one
    of `RESULT_CODES`; ``loser`` is the player whose (last) home planet fell,
    None when both fell or the end is another; ``homes`` is how many home
    planets a side starts with, ``quiet`` how many moves in a row destroyed
    nothing. `result_words` says it, citing the rules."""

    ended_after_move: int
    winner: int | None
    code: str
    loser: int | None = None
    homes: int = 1
    quiet: int = 0

    @property
    def reason(self) -> str:
        """The end in the record's words ("player 1's home planet is destroyed [game play]")."""
        return self.words()

    def words(self, names: Mapping[int, str] | None = None, viewer: int | None = None) -> str:
        """The end for a reader (`result_words`)."""
        return result_words(self, names, viewer)


RESULT_CODES = ("home-destroyed", "unreachable", "no-destruction-limit", "no-legal-move", "agreed")


def result_words(result: Result, names: Mapping[int, str] | None = None, viewer: int | None = None) -> str:
    """The one wording of a game's end: the loser as "player N's" for the
    record without ``names``, else by name, and as "your" when the reader
    is the loser."""
    last = "home planet" if result.homes == 1 else "last home planet"
    if result.code == "home-destroyed":
        p = result.loser
        if p is None:
            return f"both players' {last}s were destroyed in the same move (ruling 10)"
        who = f"player {p}" if names is None else names.get(p, f"player {p}")
        whose = "your" if p == viewer else f"{who}'s"
        return f"{whose} {last} is destroyed [game play]"
    if result.code == "unreachable":
        return "neither side can ever reach the other's home planet [game play] (ruling 13)"
    if result.code == "no-destruction-limit":
        return f"{result.quiet} moves in a row without a piece destroyed (ruling 12)"
    if result.code == "no-legal-move":
        return "neither player has a legal move (ruling 11)"
    assert result.code == "agreed", result.code
    return "drawn by agreement of both players"


@dataclass(frozen=True)
class MoveReport:
    """What happened in move ``n``, by player ``by``.

    Everything but ``to`` is told to both players: the piece and its
    announced departure ``frm`` [procedure 2], whether the move was
    ``spent`` because checking the piece's previous path found it destroyed
    [procedure 4], every collision of the chain [procedure 3], every piece
    destroyed (``"player:piece"``), the squares revealed, the players who
    then had no legal move and passed (ruling 11), and the result if the
    game ended. ``to`` is the secret destination (None when spent) and
    ``rammed`` whether it was the mover's own asteroid (ruling 4), which is
    then told too.
    """

    n: int
    by: int
    piece: str
    frm: Square
    to: Square | None
    spent: bool
    collisions: tuple[Collision, ...] = ()
    destroyed: tuple[str, ...] = ()
    revealed: tuple[Reveal, ...] = ()
    passes: tuple[int, ...] = ()
    rammed: bool = False
    result: Result | None = None

    def public(self) -> MoveReport:
        """The report as the opponent hears it: the destination withheld
        unless the move rammed the mover's own asteroid (ruling 4)."""
        if self.rammed:
            return self
        return MoveReport(self.n, self.by, self.piece, self.frm, None, self.spent, self.collisions,
                          self.destroyed, self.revealed, self.passes, self.rammed, self.result)


@dataclass(frozen=True)
class OwnPiece:
    """One of the viewing player's pieces that is not destroyed: where it
    stands (its setup square, or where its last move ended) and whether it is
    in transit (it has moved, and has not departed since) [procedure 2]."""

    piece: str
    square: Square
    in_transit: bool


@dataclass(frozen=True)
class Sighting:
    """An opponent piece seen on ``square`` in move ``move`` (a collision
    revealed it, or it rammed its own asteroid there)."""

    piece: str
    square: Square
    move: int


@dataclass(frozen=True)
class View:
    """Everything ``player`` may know of the game, and nothing more.

    ``departures`` is the opponent's last announced departure square for each
    opponent piece that has moved [procedure 3]; ``sightings`` the latest
    revealed square of each opponent piece ever revealed; ``destroyed`` the
    destroyed pieces of player 1 and of player 2 (every destruction is
    announced, ruling 7).
    """

    player: int
    to_move: int | None
    moves: int
    own: tuple[OwnPiece, ...]
    departures: tuple[tuple[str, Square], ...]
    sightings: tuple[Sighting, ...]
    destroyed: tuple[tuple[str, ...], tuple[str, ...]]
    result: Result | None
