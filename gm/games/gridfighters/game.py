"""A game of Grid Fighters as an immutable value, one move at a time.

`Grid` is the whole truth: where every piece stands (its setup square, or
where its last move ended), the path of its last move while that path is
still unchecked, the departure square last announced for it, which pieces
are destroyed, whose move it is, and the result. ``push`` makes the next
`Grid` and a `MoveReport`; ``view`` is what one player may know. Nothing
here does I/O or draws random numbers.

The move procedure is the procedure note's [procedure 1-5]: the mover
announces the piece and its departure square only; the piece's previous
path (from its previous announced departure to where it departs from now)
is checked against the opponent's pieces as they stand now, pieces in
transit counting at their destinations; every piece met is revealed and
its own last path is checked in turn, and so on. Collisions found in one
move are all applied: a piece destroyed early in the chain still meets the
pieces further on (ruling 5, the worked example).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from .board import IMMOBILE, KIND_NAMES, MOVES_LIKE, Square, can_ever_reach, collide, destinations, kind, path
from .events import Collision, MoveReport, OwnPiece, Result, Reveal, Sighting, View, tag
from .notation import Move, Placement, parse_setup
from .setup import SetupError, SetupProblem, setup_problems
from .variants import STANDARD, Variant, variant_named


class IllegalMove(ValueError):
    """A move the rules forbid; it does not spend the turn. ``reason`` cites the rules."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Piece:
    """The truth about one piece."""

    at: Square
    """Its setup square, or where its last move ended (in transit, it counts
    there for the opponent's path checks [procedure 3])."""
    departed: Square | None = None
    """The departure square last announced for it; None until it first moves."""
    path: tuple[Square, ...] | None = None
    """The squares of its last move: checked when it next departs, and
    whenever a chain of checks reaches it before that (ruling 9)."""
    destroyed: int | None = None
    """The move in which it was found destroyed; None while it is not."""

    @property
    def in_transit(self) -> bool:
        """It has departed and not departed again since [procedure 2]."""
        return self.departed is not None and self.destroyed is None


Side = Mapping[str, Piece]


@dataclass(frozen=True)
class _Chain:
    """What one chain of path checks found."""

    collisions: list[Collision]
    destroyed: list[str]
    revealed: list[Reveal]


@dataclass(frozen=True)
class Grid:
    """The state of a game between moves. Build it with `Grid.start`."""

    variant: Variant
    setups: tuple[tuple[Placement, ...], tuple[Placement, ...]]
    pieces: tuple[Side, Side]
    to_move: int | None
    """The player to move; None once the game has ended."""
    moves: int = 0
    """Moves made so far (spent moves count; rejected ones and passes do not)."""
    quiet: int = 0
    """Moves in a row, up to now, in which no piece was destroyed (ruling 12)."""
    result: Result | None = None
    sightings: tuple[Mapping[str, Sighting], Mapping[str, Sighting]] = ({}, {})
    """``sightings[p - 1]``: the latest revealed square of each of the other side's pieces, as player p saw it."""
    first: int = 1

    # Starting

    @classmethod
    def start(cls, setup1: str | Sequence[Placement], setup2: str | Sequence[Placement], first: int = 1,
              variant: Variant | str = STANDARD) -> Grid:
        """A new game from both setups (text or parsed). Raises `SetupError`
        listing every problem of either setup, `NotationError` for setup text
        that cannot be read, ValueError for a bad ``first`` or variant."""
        if isinstance(variant, str):
            variant = variant_named(variant)
        if first not in (1, 2):
            raise ValueError(f"first must be player 1 or 2, not {first!r}")
        setups = tuple(tuple(parse_setup(s) if isinstance(s, str) else s) for s in (setup1, setup2))
        problems: list[SetupProblem] = []
        for player, placements in ((1, setups[0]), (2, setups[1])):
            problems += setup_problems(player, placements, variant)
        if problems:
            raise SetupError(problems)
        sides = tuple({p.piece: Piece(p.square) for p in placements} for placements in setups)
        grid = cls(variant, (setups[0], setups[1]), (sides[0], sides[1]), first, first=first)
        return grid._hand_over(first, 0)[0]

    # Legality

    def check(self, player: int, move: Move) -> str | None:
        """Why ``player`` may not make ``move`` now, citing the rules; None if
        they may. The reason depends only on what that player knows."""
        if self.result is not None:
            return f"the game is over: {self.result.reason}"
        if player not in (1, 2):
            return f"there is no player {player}"
        if player != self.to_move:
            return f"it is player {self.to_move}'s move, not player {player}'s [game play]"
        return self._check_piece(player, move)

    def _check_piece(self, player: int, move: Move) -> str | None:
        side = self.pieces[player - 1]
        piece = side.get(move.piece)
        if piece is None:
            return f"{move.piece} is not one of your pieces in this variant [setup]"
        k = kind(move.piece)
        if piece.destroyed is not None:
            return f"{move.piece} was destroyed in move {piece.destroyed} and cannot move [game play]"
        if k in IMMOBILE:
            return f"{move.piece} is {_article(KIND_NAMES[k])}, which never moves [setup]"
        if move.frm != piece.at:
            return (f"{move.piece} does not stand on {move.frm}: a move departs from the square where the "
                    "piece's last move ended, or from its setup square [procedure 2]")
        if move.to == move.frm:
            return f"{move.piece} must leave {move.frm}: a move goes somewhere [procedure 1]"
        route = path(k, move.frm, move.to)
        if route is None:
            return f"{move.piece} moves like {MOVES_LIKE[k]}, and {move.frm} to {move.to} is no such move [movement]"
        blockers = _immobile_squares(side)
        for square in route[:-1]:
            if square in blockers:
                name = blockers[square]
                return (f"{move.piece} may not cross your own {KIND_NAMES[kind(name)]} {name} on {square} "
                        "[setup: no piece may traverse across one's own asteroids or home planet]")
        landing = blockers.get(route[-1])
        if landing is not None and kind(landing) == "H":
            return f"{move.piece} may not land on your own home planet {landing} on {route[-1]} [setup] (ruling 4)"
        return None

    def legal_moves(self, player: int) -> list[Move]:
        """Every move ``player`` may make now (none when it is not their move)."""
        if self.result is not None or player != self.to_move:
            return []
        return self._moves_of(player)

    def _moves_of(self, player: int) -> list[Move]:
        moves = []
        for name, piece in self.pieces[player - 1].items():
            if piece.destroyed is not None or kind(name) in IMMOBILE:
                continue
            for to in destinations(kind(name), piece.at):
                move = Move(name, piece.at, to)
                if self._check_piece(player, move) is None:
                    moves.append(move)
        return moves

    def _has_move(self, player: int) -> bool:
        return bool(self._moves_of(player))

    # Moving

    def push(self, player: int, move: Move) -> tuple[Grid, MoveReport]:
        """Make ``player``'s move: the next Grid and what happened. Raises
        `IllegalMove` (and the turn is not spent) when `check` objects."""
        reason = self.check(player, move)
        if reason is not None:
            raise IllegalMove(reason)
        n = self.moves + 1
        sides = [dict(self.pieces[0]), dict(self.pieces[1])]
        mover = sides[player - 1][move.piece]
        collisions: list[Collision] = []
        destroyed: list[str] = []
        revealed: list[Reveal] = []
        spent = False
        check = _MoveCheck.begin(sides)
        if mover.path is not None:  # the previous path is checked now [procedure 3]
            chain = _settle(sides, player, move.piece, mover.path, n, check)
            collisions += chain.collisions
            destroyed += chain.destroyed
            revealed += chain.revealed
            spent = sides[player - 1][move.piece].destroyed is not None
        rammed = False
        if spent:  # found destroyed on its previous path: the move is spent [procedure 4]
            sides[player - 1][move.piece] = replace(sides[player - 1][move.piece], departed=move.frm)
        else:
            route = path(kind(move.piece), move.frm, move.to)
            assert route is not None
            sides[player - 1][move.piece] = Piece(move.to, move.frm, route)
            asteroid = _immobile_squares(sides[player - 1]).get(move.to)
            if asteroid is not None:  # ramming one's own asteroid is settled at once (ruling 4)
                rammed = True
                check.checked.discard((player, move.piece))
                chain = _settle(sides, player, move.piece, route, n, check)
                collisions += chain.collisions
                destroyed += chain.destroyed
                revealed += chain.revealed
                pair = (tag(player, asteroid), tag(player, move.piece))
                collisions.append(Collision(move.to, pair, pair))
                for name in (asteroid, move.piece):
                    if sides[player - 1][name].destroyed is None:
                        sides[player - 1][name] = replace(sides[player - 1][name], destroyed=n)
                        destroyed.append(tag(player, name))
                revealed += [Reveal(move.to, t, 3 - player) for t in pair]
        sightings = [dict(self.sightings[0]), dict(self.sightings[1])]
        for r in revealed:
            sightings[r.to - 1][r.piece.partition(":")[2]] = Sighting(r.piece.partition(":")[2], r.square, n)
        grid = replace(self, pieces=(sides[0], sides[1]), moves=n, quiet=0 if destroyed else self.quiet + 1,
                       sightings=(sightings[0], sightings[1]), to_move=None)
        grid, passes = grid._hand_over(3 - player, n)
        report = MoveReport(n, player, move.piece, move.frm, None if spent else move.to, spent, tuple(collisions),
                            tuple(destroyed), tuple(revealed), passes, rammed, grid.result)
        return grid, report

    def _hand_over(self, player: int, n: int) -> tuple[Grid, tuple[int, ...]]:
        """After move ``n`` (0: the start), decide whether the game has ended,
        and otherwise who moves next: ``player``, or if they have no legal move
        the other, who then passes (ruling 11)."""
        result = self._ending(n)
        if result is not None:
            return replace(self, result=result, to_move=None), ()
        if self._has_move(player):
            return replace(self, to_move=player), ()
        other = 3 - player
        if self._has_move(other):
            return replace(self, to_move=other), (player,)
        result = Result(n, None, "no-legal-move")
        return replace(self, result=result, to_move=None), (player, other)

    def _ending(self, n: int) -> Result | None:
        homes = [[name for name,
                  p in side.items() if kind(name) == "H" and p.destroyed is None] for side in self.pieces]
        if not homes[0] and not homes[1]:
            return Result(n, None, "home-destroyed", homes=self.variant.homes)
        for loser in (1, 2):
            if not homes[loser - 1]:
                return Result(n, 3 - loser, "home-destroyed", loser, homes=self.variant.homes)
        if not (self._can_reach(1) or self._can_reach(2)):
            return Result(n, None, "unreachable")
        if self.quiet >= self.variant.quiet:
            return Result(n, None, "no-destruction-limit", quiet=self.quiet)
        return None

    def _can_reach(self, player: int) -> bool:
        """Whether some piece of ``player`` could, by its movement alone and
        ignoring every blocker, ever reach a home planet of the other side."""
        targets = [p.at for name, p in self.pieces[2 - player].items() if kind(name) == "H" and p.destroyed is None]
        return any(can_ever_reach(kind(name), p.at, t)
                   for name, p in self.pieces[player - 1].items() if p.destroyed is None for t in targets)

    def missed(self) -> tuple[Grid, tuple[int, ...]]:
        """The player to move let their deadline pass: the move goes to the
        other player, as if passed (ruling 19); no move is counted. Returns
        the next Grid and who passed (as `_hand_over` does)."""
        if self.result is not None or self.to_move is None:
            raise ValueError("nobody is to move")
        grid, passes = self._hand_over(3 - self.to_move, self.moves)
        return grid, (self.to_move, *passes)

    def agreed_draw(self) -> Grid:
        """The game drawn by agreement after the moves made so far (agreement
        itself is the players' business, outside the rules core)."""
        if self.result is not None:
            raise ValueError(f"the game is already over: {self.result.reason}")
        return replace(self, to_move=None,
                       result=Result(self.moves, None, "agreed"))

    # Knowledge

    def view(self, player: int) -> View:
        """Everything ``player`` may know, and nothing more."""
        own, other = self.pieces[player - 1], self.pieces[2 - player]
        order = self.variant.pieces
        return View(
            player=player,
            to_move=self.to_move,
            moves=self.moves,
            own=tuple(OwnPiece(name, own[name].at, own[name].in_transit) for name in order
                      if own[name].destroyed is None),
            departures=tuple((name, d) for name in order if (d := other[name].departed) is not None),
            sightings=tuple(self.sightings[player - 1][name] for name in order if name in self.sightings[player - 1]),
            destroyed=(self.destroyed(1), self.destroyed(2)),
            result=self.result,
        )

    def destroyed(self, player: int) -> tuple[str, ...]:
        """``player``'s destroyed pieces, in the variant's order."""
        side = self.pieces[player - 1]
        return tuple(name for name in self.variant.pieces if side[name].destroyed is not None)

    def where(self, player: int, piece: str) -> Square:
        """Where ``player``'s piece stands (the truth, for the GM and the piece's owner)."""
        return self.pieces[player - 1][piece].at


def _article(words: str) -> str:
    return ("an " if words[0] in "aeiou" else "a ") + words


def _immobile_squares(side: Side) -> dict[Square, str]:
    """The squares of a side's asteroids and home planets still standing."""
    return {p.at: name for name, p in side.items() if kind(name) in IMMOBILE and p.destroyed is None}


@dataclass
class _MoveCheck:
    """What every chain of one move shares: who stood where when the move's
    checks began (ruling 5), the paths checked and the pairs met (ruling 6)."""

    standing: list[dict[Square, list[str]]]
    checked: set[tuple[int, str]]
    met: set[frozenset[tuple[int, str]]]

    @classmethod
    def begin(cls, sides: list[dict[str, Piece]]) -> _MoveCheck:
        standing: list[dict[Square, list[str]]] = [{}, {}]
        for index, side in enumerate(sides):
            for piece_name, piece in side.items():
                if piece.destroyed is None:
                    standing[index].setdefault(piece.at, []).append(piece_name)
        return cls(standing, set(), set())


def _settle(sides: list[dict[str, Piece]], owner: int, name: str, route: tuple[Square, ...], n: int,
            check: _MoveCheck) -> _Chain:
    """Check ``owner``'s piece ``name`` along ``route`` against the other side's
    pieces as they stood when the move's checks began, then the last path of
    every piece met, and so on [procedure 3]; mutates ``sides`` (pieces
    destroyed) and ``check``.

    Every collision found is applied, even to a piece an earlier collision
    of the same move destroyed (ruling 5). Each path is checked at most
    once, and two pieces collide at most once, in a move (ruling 6).
    """
    standing, checked, met = check.standing, check.checked, check.met
    chain = _Chain([], [], [])
    queue: deque[tuple[int, str, tuple[Square, ...]]] = deque([(owner, name, route)])
    while queue:
        mover, moving, squares = queue.popleft()
        if (mover, moving) in checked:
            continue
        checked.add((mover, moving))
        other = 3 - mover
        for square in squares:
            for standing_name in standing[other - 1].get(square, ()):
                pair = frozenset({(mover, moving), (other, standing_name)})
                if pair in met:
                    continue
                met.add(pair)
                lost_standing, lost_moving = collide(kind(standing_name), kind(moving))
                tags = (tag(other, standing_name), tag(mover, moving))
                lost = tuple(t for t, d in zip(tags, (lost_standing, lost_moving)) if d)
                chain.collisions.append(Collision(square, tags, lost))
                for player, piece_name, d in ((other, standing_name, lost_standing), (mover, moving, lost_moving)):
                    if d and sides[player - 1][piece_name].destroyed is None:
                        sides[player - 1][piece_name] = replace(sides[player - 1][piece_name], destroyed=n)
                        chain.destroyed.append(tag(player, piece_name))
                reveal = Reveal(square, tags[0], mover)
                if reveal not in chain.revealed:
                    chain.revealed.append(reveal)
                their_path = sides[other - 1][standing_name].path
                if their_path is not None and (other, standing_name) not in checked:
                    queue.append((other, standing_name, their_path))
    return chain
