"""Each seat's deadline as a calendar event, kept in step with the game.

In games of `CALENDAR_EDITION` on, the mail that sets or moves a seat's
deadline carries it as a calendar event (`CalendarEvent`, which the edge
writes as an iCalendar part) that mail clients offer to add to a calendar.
Each seat has one event per game: a later mail moves it (the same event
with a higher ``sequence``: a turn that ran, an absence, the operator's new
deadline, a resumed game) or cancels it (the game paused or over).

After each event, `tell` compares the deadline every seat was last told of
with the game's, and puts the change on the seat's last notice of the
event. A seat sent no mail by the event is told with its next one. What
each seat was told is the game's state (`MailGame.calendar`), rebuilt by
replay like the rest, so a replay writes the same events.
"""

from __future__ import annotations

from dataclasses import replace

from .effects import CalendarEvent
from .model import MailGame
from .values import CALENDAR_EDITION, ENDED, SETUP, Notice


def summary(game: MailGame) -> str:
    """What the event says is due: the game and its turn, "Spaceships g1:
    deadline for turn 3" (never another player's name or address)."""
    due = "the setup" if game.phase == SETUP else f"{game.rules.turn_word} {game.turn}"
    return f"{game.rules.title or game.rules.name} {game.id}: deadline for {due}"


def untold(game: MailGame, player: int) -> None:
    """The seat has a new address, whose reader was told of no event: its
    next mail carries the seat's event again (the same UID, the next
    sequence)."""
    if player in game.calendar:
        game.calendar[player] = (game.calendar[player][0], None)


def tell(game: MailGame, notices: list[Notice]) -> list[Notice]:
    """The notices of an event, each seat's last one carrying its calendar
    event when the seat's deadline changed since it was last told of it
    (set, moved, or gone: a cancellation, once something was told)."""
    if game.edition < CALENDAR_EDITION:
        return notices
    deadline = game.deadline if game.phase != ENDED and game.paused is None else None
    now = (deadline, summary(game)) if deadline is not None else None
    last = {notice.player: n for n, notice in enumerate(notices) if not notice.observer}
    for player, position in sorted(last.items()):
        sequence, told = game.calendar.get(player, (-1, None))
        if told == now:
            continue
        said = now if now is not None else told
        assert said is not None
        game.calendar[player] = (sequence + 1, now)
        event = CalendarEvent(sequence + 1, said[0], said[1], game.options.reminder_before, cancelled=now is None)
        notices[position] = replace(notices[position], calendar=event)
    return notices
