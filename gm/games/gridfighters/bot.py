"""A random but legal Grid Fighters player, for tests and for practice games.

It draws every choice from the `random.Random` it is given, so a seed
replays a game exactly; it knows nothing the rules core would not let its
player know (it chooses among `Grid.legal_moves`, which depend only on the
player's own pieces).
"""

from __future__ import annotations

from random import Random

from .board import ALL_SQUARES, IMMOBILE, in_territory, kind
from .game import Grid
from .notation import Move, Placement
from .variants import STANDARD, Variant


def random_setup(player: int, rng: Random, variant: Variant = STANDARD) -> list[Placement]:
    """A legal setup for ``player``: asteroids and home planets on squares of
    their own, fighters anywhere in the player's rows (sharing allowed)."""
    own = [s for s in ALL_SQUARES if in_territory(player, s)]
    pieces = variant.pieces
    immobile = [p for p in pieces if kind(p) in IMMOBILE]
    alone = rng.sample(own, len(immobile))
    free = [s for s in own if s not in alone]
    where = dict(zip(immobile, alone))
    for piece in pieces:
        if piece not in where:
            where[piece] = rng.choice(free)
    return [Placement(piece, where[piece], line) for line, piece in enumerate(pieces, 1)]


def random_move(grid: Grid, player: int, rng: Random) -> Move | None:
    """One of ``player``'s legal moves, uniformly; None when they have none
    (not their move, or the game is over)."""
    moves = grid.legal_moves(player)
    return rng.choice(moves) if moves else None
