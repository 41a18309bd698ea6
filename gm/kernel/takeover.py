"""The GM's robot standing in for a person who went silent (issue 25).

A game whose `Options.take_over_after` is set (Celestial Empire's, by
default) hands a person's seat to the GM's robot once its person missed that
many deadlines in a row, instead of leaving it idle: decided at the deadline
event, from the game alone, so that ``gm replay`` decides it alike. The
operator can also give a seat to the robot, or take it back (`SeatHanded`,
``gm replace --robot LEVEL`` and ``--person``).

While the robot stands in (`MailGame.stand_ins`) the game waits for the seat
as for any other, and the robot's orders are events of the GM's own
(`gm.pbem.master.robots`); the person is still sent the seat's mail, but
not the replies to the robot's orders. Their next mail with orders makes the
seat theirs again, and those orders are the seat's for the turn. The other
seats are told each time, by the seat's alias, never its address.

Only games of `TIME_EDITION` on, of a game that has a robot, take over, so
that no earlier game's mail changes.
"""

from __future__ import annotations

from datetime import datetime

from .model import MailGame
from .values import TIME_EDITION, Notice, PlayerMail, Reply, SeatHanded

STAND_IN_LEVEL = "normal"
"""The level of the robot that stands in for a silent person unless the
game's `Options.take_over_level` names another (the game's weakest, where it
has neither)."""


def takes_over(game: MailGame) -> bool:
    """Whether the game hands a silent seat to the robot."""
    return (game.options.take_over_after > 0 and bool(game.rules.robot_levels)
            and game.edition >= TIME_EDITION)


def stand_in_level(game: MailGame) -> str:
    """The level the robot stands in at, in ``game``: its option's, which its
    creation event recorded, so that a replay hands the seat alike."""
    levels = game.rules.robot_levels
    if game.options.take_over_level in levels:
        return game.options.take_over_level
    return STAND_IN_LEVEL if STAND_IN_LEVEL in levels else levels[0]


def at_deadline(game: MailGame, at: datetime, missing: list[int]) -> list[Notice]:
    """After a deadline the seats ``missing`` missed (their counts already
    raised): the robot takes each person's seat that has now missed
    `Options.take_over_after` in a row and is still playing, unless its
    player declared an absence that is not over (`gm.kernel.absence`)."""
    if not takes_over(game):
        return []
    playing = game.rules.playing(game)
    taken = [p for p in missing if p in playing and game.robot_level(p) is None and p not in game.absent
             and game.missed[p] >= game.options.take_over_after]
    notices: list[Notice] = []
    for player in taken:
        game.stand_ins[player] = stand_in_level(game)
        notices += _told(game, player, at, missed=game.missed[player], back=False)
    return notices


def returned(game: MailGame, event: PlayerMail, reply: Reply) -> list[Notice]:
    """A person's mail with orders for a seat the robot stands in for: the
    seat is theirs again (those orders are the seat's), and the others are told."""
    if event.robot or event.player not in game.stand_ins:
        return []
    del game.stand_ins[event.player]
    reply.done.append("you play your seat again: the GM's robot no longer plays it for you")
    return _told(game, event.player, event.at, missed=0, back=True, mine=False)


def handed(game: MailGame, event: SeatHanded) -> list[Notice]:
    """The operator gave the seat to the robot, or back to its person."""
    if event.level is None:
        game.stand_ins.pop(event.player, None)
    else:
        game.stand_ins[event.player] = event.level
    return _told(game, event.player, event.at, missed=0, back=event.level is None, by_operator=True)


def handing_refusal(game: MailGame, event: SeatHanded) -> str | None:
    """Why the operator cannot give that seat to the robot, or take it back."""
    if not 1 <= event.player <= len(game.seats):
        return f"game {game.id} has no player {event.player}: its players are 1 to {len(game.seats)}"
    seat = game.seat(event.player)
    if seat.robot:
        return (f"seat {event.player} of game {game.id} is the robot's own: give it to a person with "
                f"gm replace {game.id} {event.player} ADDRESS")
    if event.level is None:
        return None if event.player in game.stand_ins else f"{seat.alias} is played by its person already"
    if not game.rules.robot_levels:
        return f"{game.rules.title} has no robot to play"
    if event.level not in game.rules.robot_levels:
        return f"the robot's level is one of {', '.join(game.rules.robot_levels)}, not {event.level!r}"
    if game.stand_ins.get(event.player) == event.level:
        return f"the robot plays {seat.alias} at {event.level} already"
    return None


def _told(game: MailGame, player: int, at: datetime, missed: int, back: bool, mine: bool = True,
          by_operator: bool = False) -> list[Notice]:
    """What the seat's person (when ``mine``) and the others are told."""
    who = game.seat(player).alias
    subject = f"{who} plays again" if back else f"The GM's robot plays {who}"
    data = {"who": who, "missed": missed, "back": back, "by_operator": by_operator}
    told = [Notice(p, "stand_in", subject, game.rules.common(game, p, at) | data | {"yours": p == player})
            for p in game.players if p != player or mine]
    return told


def robot_seats(game: MailGame) -> list[str]:
    """The aliases of the seats the robot plays now, its own and those it
    stands in for, in seat order: every person is shown them."""
    return [seat.alias for seat in game.seats if game.robot_level(seat.player) is not None]
