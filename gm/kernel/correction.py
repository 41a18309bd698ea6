"""Orders with a line that could not be read wait for their correction.

Ruling v stands as it was: a mail's order lines are read one by one, the
readable ones replace the orders in force, and each line that cannot be
read is answered with its line, column and what was expected. But its
writer meant that line too: in a game of `WAIT_FOR_CORRECTION_EDITION` on,
played in simultaneous turns (`TurnPolicy.SIMULTANEOUS`) that may run
before their deadline, such a mail does not count as the seat's orders
being in (Spaceships' ruling v2, [2.2.1], [11.5]; Celestial Empire's
R-12). The turn waits for the seat's corrected mail, which (as any mail
with orders) replaces all sent before, or runs at its deadline with the
orders in force: the deadline, its reminders, the count of deadlines
missed and the robot's take-over of a silent seat go on as they did, since
the seat is not silent. No command says "run with what is in force": the
orders in force, sent again unchanged, are a mail whose lines all read.

From `REMIND_EDITION` on the wait shows: the reminder before the deadline
goes to a seat waiting for its correction as to a seat whose orders are
missing, at the same time and in the same settings, and names the lines
that could not be read as the seat's reply showed them (`reminder`); the
owner's summary and the web page of a game in play name the seat (never the
line: another player's orders are hidden) (`awaited`).

A game in alternating play needs none of this: a move that cannot be read
is not made, and the move stays the player's.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from datetime import datetime

from .model import MailGame
from .outcomes import Did
from .protocol import TurnPolicy
from .values import PLAY, SETTLED_EDITION, STEADY_EDITION, Notice, PlayerMail, Reply

WAIT_FOR_CORRECTION_EDITION = SETTLED_EDITION
"""The first edition whose turn waits for a seat's corrected orders when
its last mail had an order line that could not be read. Games made before
it run the turn on such a mail, as their archives show."""

REMIND_EDITION = STEADY_EDITION
"""The first edition whose seats waiting for their correction are reminded
before the deadline, of the lines that could not be read, and named as
awaited in the owner's summary and on the web page. Games made before it
send the reminder only to seats whose orders are missing, as their archives
show."""


def applies(game: MailGame) -> bool:
    """Whether ``game`` waits for corrected orders: its edition, its play,
    and a turn that may run before its deadline (one that waits for the
    deadline anyway runs with the orders in force then)."""
    return (game.edition >= WAIT_FOR_CORRECTION_EDITION and game.rules.policy is TurnPolicy.SIMULTANEOUS
            and not game.options.wait_for_deadline)


def unreadable(reply: Reply) -> bool:
    """Whether the game found an order line it could not read in the mail:
    each game shows the first such line as ``syntax`` in its reply's data
    (`gm.kernel.engine.syntax_data`)."""
    return "syntax" in reply.data


def noted(game: MailGame, event: PlayerMail, did: Did, reply: Reply) -> None:
    """After the game took a mail's orders (``did``): a mail that replaced
    the orders in force, or that could read none of them, with a line that
    could not be read, leaves the seat waiting for its correction, and the
    reply says so (``correction``); a mail whose orders all read ends the
    wait. From `REMIND_EDITION` on the unread lines are kept for the seat's
    reminder, and a mail that comes after the reminder time counts as
    reminded: its answer is the reminder. A check, a mail for a turn that
    has run and a resigned empire's orders change nothing, and nor does the
    GM's robot's mail: no one would correct it."""
    if not applies(game) or game.phase != PLAY or event.robot:
        return
    if did in (Did.ACCEPTED, Did.REJECTED) and unreadable(reply):
        game.correcting.add(event.player)
        reply.data["correction"] = True
        if game.edition >= REMIND_EDITION:
            game.unread[event.player] = [reply.data["syntax"], *reply.data.get("syntax_more", [])]
            due = game.reminder_due()
            if due is not None and event.at >= due:
                game.reminded.add(event.player)  # past the reminder time, the answer says all a reminder would
    elif did is Did.ACCEPTED:
        game.correcting.discard(event.player)
        game.unread.pop(event.player, None)


def cleared(game: MailGame) -> None:
    """The turn ran, or the game ended: it waits for no correction."""
    game.correcting.clear()
    game.unread.clear()


def holding(game: MailGame) -> list[int]:
    """The seats still playing whose corrected orders the turn waits for."""
    playing = game.rules.playing(game)
    return [p for p in sorted(game.correcting) if p in playing]


def awaited(game: MailGame) -> list[int]:
    """The seats waiting for their correction that the reminder goes to and
    that the owner's summary and the web page name: those `holding` the
    turn, in a game of `REMIND_EDITION` on; none in earlier games."""
    return holding(game) if game.edition >= REMIND_EDITION else []


def to_remind(waiting_for: Iterable[int], correcting: Iterable[int], reminded: Container[int]) -> list[int]:
    """The seats the next reminder goes to (each once, in this order): those
    the game waits for, then those waiting for their correction (`awaited`),
    but the ones ``reminded`` already this deadline. The one rule for the
    reminder mail (`gm.kernel.engine`) and for the clock that decides to
    send it (`gm.pbem.state.resident.GameSummary`, from a game's summary)."""
    return [player for player in dict.fromkeys((*waiting_for, *correcting)) if player not in reminded]


def reminder(game: MailGame, player: int, at: datetime, what: str) -> Notice:
    """The reminder to a seat waiting for its correction: what is waited
    for (``what``, the game's `GameRules.reminder_what`), the lines that
    could not be read as its reply showed them, and that the turn runs at
    the deadline with the orders in force if no corrected mail comes."""
    return Notice(player, "reminder", f"Reminder: your corrected {what}",
                  game.rules.common(game, player, at) | {"what": what, "unread": game.unread.get(player, [])})
