"""The GM's robot in a Grid Fighters game by mail: what it sends when the
game waits for its seat (`gm.kernel.protocol.GameRules.robot_text`).

It reads the game only through the seat's view (`robot.seat_view`: its own
pieces, and every move as that seat was told of it), and answers with text
a player would mail: its setup, one placement a line, or its move.
"""

from __future__ import annotations

from random import Random

from ...kernel.protocol import Table
from ...kernel.values import PLAY, SETUP
from .robot import robot_move, robot_setup, seat_view


def robot_text(game: Table, player: int, level: str, rng: Random) -> str | None:
    """The robot's setup (in the setup phase) or its move; None when it has
    nothing to send (its setup is in, or it is not its move)."""
    play = game.play
    if game.phase == SETUP and player not in play.setups:
        return "\n".join(f"{p.piece} {p.square}" for p in robot_setup(player, play.variant, level, rng))
    if game.phase == PLAY and play.grid is not None and play.grid.to_move == player:
        move = robot_move(seat_view(play.grid, player, play.log), level, rng)
        return None if move is None else str(move)
    return None
