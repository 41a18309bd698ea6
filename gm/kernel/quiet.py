"""Quiet hours in a game: no deadline falls inside any of its players'.

After each event of a game of `TIME_EDITION` on (as `gm.kernel.absence`
settles absences), a deadline that falls inside a player's quiet hours
(their ``quiet`` setting, in their own time zone) is moved to the end of
them, the latest end among the players, until it falls in nobody's
(`gm.kernel.zones.out_of_quiet`). That covers every place the kernel sets
a deadline (the game's start, a turn that ran, the operator's, a resumed
game, an absence's end); and a settings change that brings new quiet hours
moves the running deadline at once (`gm.kernel.engine`'s
``_settings_changed``), every player told. The notices show the moved
deadline with a note naming the seats whose quiet hours moved it
(`gm.kernel.shown.ShownMove`). Pure: the time is the event's.
"""

from __future__ import annotations

from datetime import datetime

from .model import MailGame
from .shown import moment
from .values import ENDED, Notice
from .zones import Quiet, out_of_quiet


def quiets(game: MailGame) -> list[Quiet]:
    """The quiet hours of the game's players, as each game's settings
    record them (a robot has none)."""
    found = []
    for seat in game.seats:
        settings = game.settings_of(seat.player)
        if settings.quiet is not None:
            start, end = settings.quiet
            found.append(Quiet(seat.player, start, end, settings.zone))
    return found


def settle(game: MailGame, at: datetime, notices: list[Notice], tell: bool = False) -> list[Notice]:
    """After an event at ``at``: the deadline moved out of the players'
    quiet hours, before the notices are put into words; with ``tell`` (new
    quiet hours moved the running deadline), each player told of the move."""
    before = game.deadline
    if before is None or game.phase == ENDED:
        return notices
    target, movers = out_of_quiet(before, quiets(game))
    if target == before:
        return notices
    game.decide_deadline(target)
    if game.extended_deadline == before:
        game.extended_deadline = target  # still the absences' extension: `back` restores what it extended
    if game.shown is not None:
        game.shown.movers = tuple((player, game.seat(player).alias) for player in movers)
    if target - game.options.reminder_before > at:
        game.reminded.clear()  # the reminder waits for the new deadline
    if not tell:
        return notices
    return notices + [Notice(player, "deadline_moved", "The deadline has moved",
                             game.rules.common(game, player, at) | {"before": moment(before)})
                      for player in game.players]
