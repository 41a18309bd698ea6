"""What each event does to a game by mail, and what the GM says in reply.

Pure: an event carries its own time, so the same events in the same order
always give the same game and the same notices. That is what lets
``gm replay`` rebuild a game from its archive and reproduce every message.

The engine knows no game: what notation lines do, when a turn or a move runs
and what the sheets show are the game's (`gm.kernel.protocol.GameRules`);
everything else is here, for any number of seats.

Events:

- `Created`: a game (or a match of games) is set up between its players
  (``gm new``, or a challenge accepted by mail);
- `PlayerMail`: an authenticated player's own text, from a mail, read as
  commands and notation (`gm.kernel.commands`);
- `DeadlinePassed` and `ReminderDue`: the GM's clock, written into the
  archive as messages of the GM's own;
- `Bouncing`: mail to a player failed for good;
- `Away`: a player's vacation for all games reaches this one (`gm.kernel.absence.away`);
- `ObserverLeft`: an observer unsubscribed from the game's mail (`gm.kernel.observers.left`);
- `Paused`, `Resumed`, `DeadlineSet`, `AddressReplaced`, `Cancelled`, `Answered`: the
  operator's actions (`OPERATOR_EVENTS`), archived like the clock's.

The events are values (`gm.kernel.values`). Each returns `Notice` values:
who is told what, as a template name and data (``gm.pbem.writing.mailer`` turns
them into mail). The answer to a player's mail is
one ``reply`` with sections, as Mailman's are: done, not understood, ignored.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from . import absence, calendar, correction, deputies, lifecycle, moving, press, quiet, shown, takeover
from . import observers as watchers
from .actions import clock_stopped, operator
from .commands import ABSENCE_HELP, Command, Mail, read_mail
from .effects import SendGamesList
from .errors import NotationError, found_phrase
from .model import MailGame
from .outcomes import Did
from .protocol import Table, TurnPolicy, game_named
from .text import wrap
from .values import (
    ENDED,
    ONE_REPLY_EDITION,
    OPERATOR_EVENTS,
    PLAY,
    SETUP,
    TIME_EDITION,
    WORDS_EDITION,
    Away,
    Bouncing,
    Created,
    DeadlinePassed,
    EndKind,
    Event,
    GameEnd,
    Notice,
    ObserverLeft,
    PlayerMail,
    ReminderDue,
    Reply,
    Seat,
    SettingsChanged,
)


def create(event: Created) -> tuple[MailGame, list[Notice]]:
    """A new game in its setup phase, and the invitations."""
    rules = game_named(event.game)
    game = MailGame(event.game_id, event.seats, rules, event.options, event.at, event.variant,
                    instance=event.instance, edition=event.edition, observers=event.observers,
                    robot_seed=event.robot_seed, settings=dict(event.settings), commit_key=event.commit_key)
    if not rules.has_setup:
        game.phase = PLAY
    game.play = rules.new_play(game, event.terms)
    game.set_deadline(event.at + event.options.deadline)
    game.asked_for()
    game.events = 1
    game.turn_of_event[1] = game.turn
    if game.edition >= TIME_EDITION:
        quiet.settle(game, event.at, [])
    invited = _for_people(game, rules.invitations(game, event.at) + watchers.invited(game, event.at))
    return game, shown.resolve(calendar.tell(game, invited), _zones(game))


def apply(game: MailGame, event: Event) -> list[Notice]:
    """Apply one event to ``game`` (changing it) and return the notices:
    the seats' first, then, in the event that ends the game, the observers'.
    The reply to a player's mail carries what the mail asks of the edge
    beside it (`Notice.effects`), read from the mail once, here; a seat's
    last notice carries its deadline's calendar event when that changed
    (`gm.kernel.calendar`)."""
    game.events += 1
    was_over = game.phase == ENDED
    notices = _apply(game, event)
    if game.edition >= absence.ABSENCE_EDITION:
        notices = absence.settle(game, event.at, notices)
    if game.edition >= TIME_EDITION:
        notices = quiet.settle(game, event.at, notices)
    game.turn_of_event[game.events] = game.turn
    if not was_over and game.phase == ENDED:
        notices += watchers.game_over(game, event.at)
    return shown.resolve(calendar.tell(game, _for_people(game, notices)), _zones(game))


def _zones(game: MailGame) -> shown.Zones:
    """Each reader's time zone, as the game recorded their settings: in
    games of `TIME_EDITION` on; older games show UTC, as they always did."""
    if game.edition < TIME_EDITION:
        return shown.utc
    return lambda player: game.settings_of(player).zone


def _for_people(game: MailGame, notices: list[Notice]) -> list[Notice]:
    """The notices without those to the GM's robot: it reads the game
    through its seat's view (`GameRules.robot_text`), never by mail (so a
    game may build notices only for the seats `protocol.mailed` names). From
    `TIME_EDITION` on, in a game the robot plays seats of, each notice to a
    person names them (``robot_seats``: `gm.kernel.takeover.robot_seats`)."""
    robots = game.robots
    notices = [n for n in notices if n.observer or n.player not in robots] if robots else notices
    shown_robots = takeover.robot_seats(game) if game.edition >= TIME_EDITION else []
    if shown_robots:
        for notice in notices:
            notice.data.setdefault("robot_seats", shown_robots)
    return notices


def answered_turn(game: Table[Any], event: PlayerMail) -> int | None:
    """The turn a player's mail answers, if it says: the turn the GM's mail it
    replies to asked for (its Message-ID names the event that sent it), or
    else the last turn its subject names ("Re: [gm g1] Turn 2 results;
    orders for turn 3" answers turn 3)."""
    if event.in_reply_to:
        found = re.match(rf"<{re.escape(game.id)}\.(\d{{1,18}})\.\d+[.@]", event.in_reply_to)
        if found and int(found.group(1)) in game.turn_of_event:
            return game.turn_of_event[int(found.group(1))]
    turns = re.findall(r"\bturn (\d{1,9})\b", event.subject, re.I)
    return int(turns[-1]) if turns else None


def late_for(game: Table[Any], event: PlayerMail) -> int | None:
    """The turn a player's mail answers if that turn ran before the mail
    came (ruling w), else None. Turn 0 is the setup: orders in answer to it
    are the first turn's."""
    answered = answered_turn(game, event)
    return answered if answered is not None and 1 <= answered < game.turn else None


def _apply(game: MailGame, event: Event) -> list[Notice]:
    if isinstance(event, PlayerMail):
        paused = game.paused is not None
        notices = _player_mail(game, event)
        if paused:
            clock_stopped(game)
        return notices
    if isinstance(event, SettingsChanged):
        return _settings_changed(game, event)
    if isinstance(event, ObserverLeft):
        return watchers.left(game, event)
    if game.phase == ENDED:
        return []
    if isinstance(event, OPERATOR_EVENTS):
        return operator(game, event)
    if isinstance(event, Away):
        return absence.away(game, event)
    if game.paused and isinstance(event, (DeadlinePassed, ReminderDue)):
        return []  # spooled before the pause, applied after it
    if isinstance(event, DeadlinePassed):
        if _stale(game, event):
            return []  # the turn already ran early, or the deadline moved
        return _deadline(game, event.at)
    if isinstance(event, ReminderDue):
        return _reminders(game, event.at)
    if isinstance(event, Bouncing):
        return _bouncing(game, event)
    raise TypeError(f"unknown event {event!r}")


def _settings_changed(game: MailGame, event: SettingsChanged) -> list[Notice]:
    """A player's settings, as now recorded in the game: kept, for the mail
    built from now on (a game that ended keeps them too, for its sheets sent
    again). What a setting changes at once (a quiet hour moving the running
    deadline, every player told) follows here."""
    game.settings[event.player] = event.settings
    if game.edition >= TIME_EDITION:
        return quiet.settle(game, event.at, [], tell=True)
    return []


def _aliases(seats: list[Seat]) -> str:
    return " and ".join(seat.alias for seat in seats)


def _bouncing(game: MailGame, event: Bouncing) -> list[Notice]:
    """Tell the others, once until the player writes again, that mail to
    the player is not getting through (they may wish to reach them otherwise;
    the deadlines still apply)."""
    if event.player in game.bouncing:
        return []
    game.bouncing.add(event.player)
    who = game.seat(event.player).alias
    return [Notice(seat.player, "bouncing", f"Mail to {who} is bouncing",
                   game.rules.common(game, seat.player, event.at) | {"who": who, "reason": event.reason})
            for seat in game.others(event.player)]


# A player's mail

def _player_mail(game: MailGame, event: PlayerMail) -> list[Notice]:
    rules = game.rules
    if not event.deputy:
        game.bouncing.discard(event.player)  # mail from them: their address works (a deputy's proves nothing of it)
    mail = read_mail(event.text, rules.is_notation, rules.keywords + absence.keywords(game) + moving.keywords(game),
                     rules.is_notation_comment, chat_aside=game.edition >= WORDS_EDITION)
    reply = Reply(read=not event.robot)
    later: list[Notice] = press.pass_reply(game, event, mail, reply)
    for line, text, why in mail.not_understood:
        reply.not_understood.append(f"line {line}: {text!r}: {why}")
    for line, text in mail.chat:
        reply.ignored.append(f"line {line}: {text!r}: a greeting or sign-off, passed to no one (a line "
                             "'message TEXT' passes TEXT on)")
    if mail.notation_lines:
        if game.phase == ENDED:
            reply.ignored.append(f"your {rules.orders_word}: the game is over")
        else:
            later += takeover.returned(game, event, reply)
            later += _submit(game, event, mail, reply)
    for command in mail.commands:
        later += _command(game, event, command, reply)
    if mail.mode and not mail.notation_lines:
        reply.ignored.append(rules.nothing_with_mode(game, mail.mode))
    elif not (mail.notation_lines or mail.commands or mail.not_understood or later):
        reply.ignored.append("your mail held no commands and no orders, so nothing was changed")
    header = rules.common(game, event.player, event.at) if reply.read else {}  # as things stood when the mail came
    if game.phase != ENDED and not lifecycle.at_once(game) and lifecycle.due(game):
        later += lifecycle.completed_by(game, event, reply, None)
    if not reply.read:  # the robot's own mail: its reply is sent to no one (`Reply.read`), so it is not made
        return later
    data = header | reply.data | {
        "done": reply.done, "not_understood": reply.not_understood, "ignored": reply.ignored,
    }
    if game.phase == ENDED and not later and rules.ended_reply_subject is not None:
        subject = rules.ended_reply_subject
    else:
        subject = reply.subject() if reply.subject is not None else "Re: your mail"
    if reply.enclosed and _only_asked_to_see(mail, reply):
        subject = "; ".join(notice.subject for notice in reply.enclosed)
    enclosed = tuple(reply.enclosed)
    attach = any(notice.attach_archive for notice in enclosed)
    return [Notice(event.player, "reply", subject, data, event.message_id, attach_archive=attach, enclosed=enclosed,
                   effects=tuple(reply.effects)), *later]


def _submit(game: MailGame, event: PlayerMail, mail: Mail, reply: Reply) -> list[Notice]:
    """Hand the mail's notation lines to the game; a move it accepted takes
    effect at once (`TurnPolicy.ALTERNATING`), and so does the start or the
    turn it completed in editions that run those at once
    (`lifecycle.at_once`), before the mail's later commands. Orders with a
    line that could not be read complete no turn (`gm.kernel.correction`)."""
    rules, phase = game.rules, game.phase
    submitted = rules.submit(game, event, mail, reply)
    if submitted.did is Did.ACCEPTED:
        game.missed[event.player] = 0
    if phase == PLAY:
        correction.noted(game, event, submitted.did, reply)
    later = list(submitted.notices)
    if submitted.did is Did.ACCEPTED and phase == PLAY and rules.policy is TurnPolicy.ALTERNATING:
        later += lifecycle.run(game, event.at, [])
    elif lifecycle.at_once(game) and lifecycle.due(game):
        before = rules.common(game, event.player, event.at) if reply.read else None
        later += lifecycle.completed_by(game, event, reply, before)
    if submitted.then is not None:
        submitted.then()
    return later


SHOWN = ("help", "status", "history")
"""The commands that ask to see something, answered inside the reply (`ONE_REPLY_EDITION`)."""


def _only_asked_to_see(mail: Mail, reply: Reply) -> bool:
    """Whether a mail did nothing but ask to see things: its reply is then
    named for what it holds ("Help; Turn 3: your sheet")."""
    return (not mail.notation_lines and not mail.not_understood and not reply.not_understood and not reply.ignored
            and all(command.keyword in SHOWN for command in mail.commands))


def unexpected_in(error: NotationError, edition: int) -> str:
    """What a reply says a syntax error found, in a game of ``edition``:
    worded by `gm.kernel.errors.found_phrase` ("found the end of the line")
    from `WORDS_EDITION` on; earlier editions keep what they said
    ("unexpected the end of the line"), so that their archives replay."""
    found = error.found_words("the end of the line")
    return found_phrase(found) if edition >= WORDS_EDITION else f"unexpected {found}"


def syntax_data(error: NotationError, lines: list[str], edition: int) -> dict[str, Any]:
    """What the reply shows of a syntax error, in a game of ``edition``: the
    line, a caret under the column, what was found and what was expected there."""
    source = lines[error.line - 1] if 0 < error.line <= len(lines) else ""
    expected = "\n".join(wrap("Expected " + ", ".join(error.expected) + ".", "", "  "))
    return {
        "line": error.line, "column": error.column, "text": error.text, "source": source.rstrip(),
        "caret": " " * (error.column - 1) + "^", "unexpected": unexpected_in(error, edition), "expected": expected,
        "hint": error.hint,
        "message": str(error), "hint_lines": wrap("Hint: " + error.hint, "", "  ") if error.hint else [],
    }


def _command(game: MailGame, event: PlayerMail, command: Command, reply: Reply) -> list[Notice]:
    rules, player, keyword = game.rules, event.player, command.keyword
    where = f"line {command.line}: {keyword}"
    if keyword in SHOWN:
        shown = _shown(game, event, keyword)
        if game.edition < ONE_REPLY_EDITION:
            reply.done.append(f"{where}: {SHOWN_SAYS[keyword]} follows")
            return [shown]
        if any(notice.template == shown.template for notice in reply.enclosed):
            reply.ignored.append(f"{where}: asked for already in this mail")
        else:
            reply.done.append(f"{where}: {SHOWN_SAYS[keyword]} is below")
            reply.enclosed.append(shown)
        return []
    if keyword == "games":
        reply.done.append(f"{where}: the list of your games follows in a separate mail")
        if SendGamesList(player) not in reply.effects:
            reply.effects.append(SendGamesList(player))
        return []
    if keyword == "message":
        if not command.argument:
            reply.not_understood.append(f"{where}: the message is missing (write: message TEXT)")
            return []
        people = [seat for seat in game.others(player) if not seat.robot]
        robots = [seat for seat in game.others(player) if seat.robot]
        told = [f"passed to {_aliases(people)}"] if people else []
        told += [f"{_aliases(robots)} is the GM's robot, which reads no messages"] if robots else []
        reply.done.append(f"{where}: {'; '.join(told)}")
        sender = game.seat(player).alias
        return [press.press_notice(game, event.at, seat, sender, command.argument) for seat in people]
    if keyword in ("orders", "check", "setup"):
        return []
    if event.deputy and keyword in deputies.REFUSED:
        reply.ignored.append(f"{where}: {deputies.REFUSED[keyword]}")
        return []
    if game.phase == ENDED:
        reply.ignored.append(f"{where}: the game is over")
        return []
    if keyword == "resign":
        reply.done.append(f"{where}: you resign this game")
        remaining = game.others(player)
        winners = (remaining[0].player,) if len(remaining) == 1 else ()
        end = GameEnd(EndKind.RESIGNED, winners=winners, losers=(player,), who=game.seat(player).alias)
        return lifecycle.ended(game, event.at, rules.end(game, event.at, end))
    if keyword == "draw":
        return _draw(game, event, where, reply)
    if keyword in absence.keywords(game):
        return absence.command(game, event, command, reply)
    if keyword in moving.keywords(game):
        return moving.command(game, event, command, reply)
    if keyword in ("challenge", "accept"):
        reply.ignored.append(f"{where}: send it to the GM's own address, not within a game")
        return []
    if keyword in rules.keywords:
        return rules.command(game, event, command, reply)
    reply.not_understood.append(f"{where}: not understood")
    return []


SHOWN_SAYS = {"help": "the help sheet", "status": "the current sheet", "history": "the game so far"}


def _shown(game: MailGame, event: PlayerMail, keyword: str) -> Notice:
    """What ``help``, ``status`` or ``history`` shows the player."""
    rules, player = game.rules, event.player
    if keyword == "status":
        return rules.status(game, player, event.at)
    if keyword == "history":
        return Notice(player, "history", "The game so far", rules.history(game, player, event.at))
    data = rules.help_data(game, player, event.at)
    if absence.keywords(game):  # before the last line, "help"
        data["commands"] = [*data["commands"][:-1], *ABSENCE_HELP, *data["commands"][-1:]]
    return Notice(player, "help", "Help", data)


def _draw(game: MailGame, event: PlayerMail, where: str, reply: Reply) -> list[Notice]:
    """A draw is agreed when every seat still playing (`GameRules.playing`)
    has offered one; an offer lapses when the game moves on
    (`GameRules.draw_lapses`)."""
    player = event.player
    if game.draw_offers and all(p in game.draw_offers for p in game.rules.playing(game) if p != player):
        reply.done.append(f"{where}: you accept the offer of a draw")
        return lifecycle.ended(game, event.at, game.rules.end(game, event.at, GameEnd(EndKind.DRAW_AGREED)))
    game.draw_offers.add(player)
    until = "the game begins" if game.phase == SETUP else game.rules.draw_lapses(game)
    reply.done.append(f"{where}: your offer of a draw stands until {until}")
    alias = game.seat(player).alias
    return [Notice(seat.player, "draw_offer", f"{alias} offers a draw",
                   game.rules.common(game, seat.player, event.at) | {"offered_by": alias, "lapses": until})
            for seat in game.others(player)]


# The clock

def _stale(game: MailGame, event: DeadlinePassed) -> bool:
    """Whether a deadline event is for a deadline the game no longer has."""
    if game.deadline is None:
        return True
    if event.deadline is not None:
        return event.deadline != game.deadline
    return event.at < game.deadline  # archives from before X-GM-Deadline


def _deadline(game: MailGame, at: datetime) -> list[Notice]:
    """Count who missed it; forfeit those who missed too many in a row;
    otherwise chase missing setups, or let the game go on without the missing."""
    missing = game.waiting_for
    for player in missing:  # a seat's count starts again when it sends what it owes
        game.missed[player] += 1
        game.late[player] = game.late.get(player, 0) + 1
    forfeits = ([p for p in missing if game.missed[p] >= game.options.forfeit_after]
                if game.rules.forfeit_for_silence else [])
    if forfeits:
        remaining = [p for p in game.players if p not in forfeits]
        end = GameEnd(EndKind.FORFEIT, winners=tuple(remaining) if len(remaining) == 1 else (), losers=tuple(forfeits),
                      who=" and ".join(game.seat(p).alias for p in forfeits), missed=game.options.forfeit_after,
                      steps=f"{game.rules.turn_word}s")
        return lifecycle.ended(game, at, game.rules.end(game, at, end))
    if game.phase == SETUP:
        game.set_deadline(at + game.options.deadline)
        game.asked_for()
        game.reminded.clear()
        return [
            Notice(p, "setup_late", "Deadline passed: your setup is still missing",
                   game.rules.common(game, p, at) | {"missed": game.missed[p],
                                                     "forfeit_after": game.options.forfeit_after})
            for p in missing
        ] + takeover.at_deadline(game, at, missing)
    what = game.rules.reminder_what(game)
    notices = lifecycle.run(game, at, missing)
    if game.phase == PLAY and game.rules.forfeit_for_silence and game.edition >= WORDS_EDITION:
        for notice in notices:  # each silent seat is told how many more missed deadlines forfeit
            if notice.player in missing:
                count, most = game.missed[notice.player], game.options.forfeit_after
                notice.data["missed_deadlines"] = {"what": what, "count": count, "forfeit_after": most,
                                                   "left": most - count}
    return notices + takeover.at_deadline(game, at, missing)  # told with the game as the turn left it


def _reminders(game: MailGame, at: datetime) -> list[Notice]:
    """A reminder to each seat the game waits for, and (from
    `correction.REMIND_EDITION` on) each seat waiting for its correction,
    once a deadline, but to a player who chose a daily digest of all their
    games, or none (`PlayerSettings.reminders`): their digest is no mail of
    the game's."""
    notices = []
    correcting = correction.awaited(game)
    for player in correction.to_remind(game.waiting_for, correcting, game.reminded):
        game.reminded.add(player)
        if game.settings_of(player).reminders != "each":
            continue
        what = game.rules.reminder_what(game)
        if player in correcting:
            notices.append(correction.reminder(game, player, at, what))
            continue
        notices.append(Notice(player, "reminder", f"Reminder: your {what}",
                              game.rules.common(game, player, at) | {"what": what}))
    return notices
