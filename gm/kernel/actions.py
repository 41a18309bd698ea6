"""What the operator's actions do to a game (`gm pause`, `gm resume`, `gm
deadline`, `gm replace`, `gm cancel`, `gm answer`, or the owner's mail).

The actions are events of the game's archive (`gm.kernel.values`), like a
player's mail, so `gm replay` reproduces what they did; the engine
(`gm.kernel.engine`) hands them here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from . import calendar, takeover
from .addresses import is_mail_address
from .clock import utc_minute
from .model import MailGame
from .shown import moment
from .values import (
    ENDED,
    OPERATOR_EVENTS,
    Action,
    AddressReplaced,
    Answered,
    Cancelled,
    DeadlineSet,
    EndKind,
    GameEnd,
    Notice,
    Paused,
    Resumed,
    Seat,
    SeatHanded,
)


def operator_refusal(game: MailGame, event: object) -> str | None:
    """Why the operator's action cannot be done to the game as it stands
    (None when it can, or when ``event`` is no action of the operator's).
    The command line and the daemon both ask, so a refused action is
    answered and never archived."""
    if not isinstance(event, OPERATOR_EVENTS):
        return None
    if game.phase == ENDED:
        return f"game {game.id} is over"
    if isinstance(event, Paused) and game.paused:
        return f"game {game.id} is paused already"
    if isinstance(event, Resumed) and not game.paused:
        return f"game {game.id} is not paused"
    if isinstance(event, DeadlineSet):
        if game.paused:
            return f"game {game.id} is paused: resume it first (its deadline starts again then)"
        if event.deadline is None and (event.extend is None or game.deadline is None):
            return "give a new deadline, or a time to extend the deadline by"
        moved = event.deadline if event.deadline is not None else _moved(game.deadline, event.extend)
        if moved <= event.at:
            return f"the new deadline {utc_minute(moved)} is not in the future"
    if isinstance(event, AddressReplaced):
        if not 1 <= event.player <= len(game.seats):
            return f"game {game.id} has no player {event.player}: its players are 1 to {len(game.seats)}"
        if not is_mail_address(event.address):
            return f"{event.address!r} is not a mail address"
        if game.seat_of(event.address) is not None:
            return f"{event.address} already plays in game {game.id}"
    if isinstance(event, SeatHanded):
        return takeover.handing_refusal(game, event)
    if isinstance(event, Cancelled) and not event.reason.strip():
        return "say why the game is cancelled: the players are told"
    if isinstance(event, Answered):
        if not 1 <= event.player <= len(game.seats):
            return f"game {game.id} has no player {event.player}: its players are 1 to {len(game.seats)}"
        if not event.text.strip():
            return "give the answer's text: the player is sent it"
    return None


def operator(game: MailGame, event: Action) -> list[Notice]:
    if operator_refusal(game, event) is not None:
        return []  # (the daemon refuses it before it is archived)
    rules = game.rules

    def everyone(template: str, subject: str, **data: Any) -> list[Notice]:
        return [Notice(p, template, subject, rules.common(game, p, event.at) | data) for p in game.players]

    if isinstance(event, Paused):
        game.paused = event.at
        game.set_deadline(None)
        return everyone("paused", "The game is paused")
    if isinstance(event, Resumed):
        game.paused = None
        game.set_deadline(event.at + game.options.deadline)
        game.reminded.clear()
        return everyone("resumed", "The game goes on")
    if isinstance(event, DeadlineSet):
        before = game.deadline
        assert before is not None
        moved = event.deadline if event.deadline is not None else _moved(before, event.extend)
        game.set_deadline(moved)
        if moved - game.options.reminder_before > event.at:
            game.reminded.clear()  # a reminder is due again before the new deadline
        return everyone("deadline_moved", "The deadline has moved", before=moment(before))
    if isinstance(event, AddressReplaced):
        old = game.seat(event.player)
        game.seats = tuple(Seat(s.player, event.address, s.alias) if s.player == event.player else s
                           for s in game.seats)
        game.replaced[event.player] = game.replaced.get(event.player, 0) + 1
        game.bouncing.discard(event.player)
        calendar.untold(game, event.player)
        welcome = Notice(event.player, "seat_replaced", f"You now play {old.alias}",
                         rules.common(game, event.player, event.at))
        return [welcome, rules.status(game, event.player, event.at)]
    if isinstance(event, SeatHanded):
        return takeover.handed(game, event)
    if isinstance(event, Answered):
        return rules.answer(game, event.at, event.player, event.text.strip())
    assert isinstance(event, Cancelled)
    game.phase, game.paused, game.ended_at = ENDED, None, event.at
    game.set_deadline(None)
    game.draw_offers.clear()
    game.outcome = GameEnd(EndKind.CANCELLED, game.turn, clause=event.reason.strip())
    return everyone("cancelled", "The game is cancelled", reason=event.reason.strip())


def _moved(deadline: datetime | None, extend: timedelta | None) -> datetime:
    assert deadline is not None and extend is not None
    return deadline + extend


def clock_stopped(game: MailGame) -> None:
    """A paused game's clock stays stopped, even when a player's mail made a
    turn run (`gm.kernel.lifecycle` sets no deadline while it is). A game
    that ended meanwhile (a resignation) is no longer paused."""
    if game.phase == ENDED:
        game.paused = None
