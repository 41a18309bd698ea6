"""The GM's robot in a Spaceships game by mail: what it sends when the game
waits for its seat (`gm.kernel.protocol.GameRules.robot_text`).

It reads the game only through the seat's view (`robot.seat_view`: its own
side and the views of past turns that its turn sheets show), and answers
with text a player would mail: its setup lines, or its orders for the turn.
"""

from __future__ import annotations

from random import Random

from ...kernel.protocol import Table
from ...kernel.values import PLAY, SETUP
from .orders import format_orders
from .robot import robot_orders, robot_setup, seat_view


def robot_text(game: Table, player: int, level: str, rng: Random) -> str | None:
    """The robot's setup (in the setup phase) or orders for the turn being
    collected; None when it has sent them already."""
    play = game.play
    if game.phase == SETUP and player not in play.setups:
        additional = play.additional_costs[player - 1]  # a continued match's extra ships [10.3]
        return "\n".join(str(placement) for placement in robot_setup(play.ruleset, level, rng, additional))
    if game.phase == PLAY and player not in play.pending and play.game is not None:
        view = seat_view(play.game.state, player, play.game.reports)
        return format_orders(robot_orders(view, level, rng)) or None
    return None
