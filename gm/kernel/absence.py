"""A player's absence, as njudge's SET ABSENCE: the deadlines wait for them.

A player declares it by mail (games of edition 2 on, `ABSENCE_EDITION`):

- ``absent until 2026-12-24``: to the end of that day, UTC;
- ``vacation 10d`` (or ``absent 10d``, ``vacation 72h``): for that long from
  the mail;
- ``absent cancel`` or ``back``: it ends now.

The same absence reaches every game of a player's from one mail to the GM's
own address (`away`, an `Away` event in each game): each game applies it
within its own caps.

While a player is absent, a deadline that falls inside the absence, for a
turn or move the game waits for them in, is extended to the absence's end,
and a reminder waits with it; the other players are told. An extension,
once made, stands until the turn runs or the player is back early, when the
deadline returns to what it was (never sooner than the reminder time from
then, so nobody is surprised by a deadline that has just passed).

So that a game cannot be stalled forever, an absence lasts at most
``Options.absence_max`` and a player's absences in a game add up to at
most ``Options.absence_total``; a request past either is answered with the
reason and the longest absence allowed. Time comes from the mail's event,
never from a clock, so a replay repeats it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime, time, timedelta
from typing import Any

from .clock import utc_minute
from .commands import Command
from .model import MailGame
from .text import span
from .values import ENDED, Away, Notice, PlayerMail, Reply

ABSENCE_EDITION = 2
"""The first edition of gm's mail rules that knows absences; games of an
earlier edition answer ``absent`` as "not understood", as they always did."""
KEYWORDS = ("absent", "vacation", "back")

_DURATION = re.compile(r"^(\d+)\s*(d|h|days?|hours?)$", re.I)
_DATE = re.compile(r"^(?:until\s+)?(\d{4})-(\d{2})-(\d{2})$", re.I)
LONGEST_DIGITS = 6
"""The most digits an absence's length is read with: a million days is past
the year 4700, longer than any absence a game allows."""
USAGE = "write: absent until YYYY-MM-DD, vacation 10d (or 72h), or absent cancel"


def keywords(game: MailGame) -> tuple[str, ...]:
    """The absence commands, in games whose edition has them."""
    return KEYWORDS if game.edition >= ABSENCE_EDITION else ()


def when(moment: datetime) -> str:
    """An absence's end in words: a whole day's end by its day."""
    if moment.time() == time(0):
        return f"the end of {(moment - timedelta(days=1)).strftime('%Y-%m-%d')} (UTC)"
    return utc_minute(moment)


YEAR = timedelta(days=365)
"""The rolling year a player's vacations for all games are counted in."""


def bank_used(vacations: Iterable[tuple[datetime, datetime]], at: datetime) -> timedelta:
    """How much of a player's yearly bank their vacations for all games
    (from, until; one that ended early until its end) take at ``at``: each
    as far as it falls after a year before ``at``, the part still to come
    included. A new vacation that fits what is left keeps every rolling
    year within the bank, since a year that ends later holds no more of the
    earlier ones."""
    since = at - YEAR
    return sum((max(end - max(start, since), timedelta(0)) for start, end in vacations), timedelta(0))


def days(length: timedelta) -> str:
    """A length in words, in whole days where it is whole days."""
    return span(length) if length % timedelta(days=1) else f"{length.days} day{'s' * (length.days != 1)}"


def end_of(argument: str, at: datetime) -> datetime | None:
    """When an absence asked for at ``at`` as ``argument`` (``until
    2026-12-24``, ``10d``, ``72h``) ends; None when unreadable."""
    text = argument.strip()
    date = _DATE.match(text)
    if date:
        try:
            day = datetime(int(date[1]), int(date[2]), int(date[3]), tzinfo=at.tzinfo)
        except ValueError:
            return None
        return day + timedelta(days=1)
    duration = _DURATION.match(text)
    if duration:
        unit = "days" if duration[2].lower().startswith("d") else "hours"
        if len(duration[1]) > LONGEST_DIGITS:  # longer than any absence: say so, past any date gm can write
            return datetime.max.replace(tzinfo=at.tzinfo)
        return at + timedelta(**{unit: int(duration[1])})
    return None


def _used(game: MailGame, player: int, at: datetime) -> timedelta:
    """How much of the player's allowance is spent, counting a running
    absence up to ``at`` only (the rest is theirs again if they replace it)."""
    used = game.absence_used.get(player, timedelta(0))
    if player in game.absent:
        start, end = game.absent[player]
        used += min(at, end) - start
    return used


def command(game: MailGame, event: PlayerMail, command: Command, reply: Reply) -> list[Notice]:
    """``absent``, ``vacation`` or ``back`` on a line of a player's mail."""
    player, keyword, argument = event.player, command.keyword, command.argument.strip()
    where = f"line {command.line}: {keyword}"
    if keyword == "back" or argument.lower() == "cancel":
        if argument and keyword == "back":
            reply.not_understood.append(f"{where}: 'back' takes nothing after it")
            return []
        return _back(game, event, where, reply)
    if not argument:
        reply.not_understood.append(f"{where}: say until when ({USAGE})")
        return []
    end = end_of(argument, event.at)
    if end is None:
        reply.not_understood.append(f"{where}: {argument!r} is no date or length ({USAGE})")
        return []
    if end <= event.at:
        reply.not_understood.append(f"{where}: {when(end)} has passed already ({USAGE})")
        return []
    allowed = min(game.options.absence_max, game.options.absence_total - _used(game, player, event.at))
    if end - event.at > allowed:
        reply.ignored.append(f"{where}: " + _refusal(game, player, event.at, end, allowed))
        return []
    reply.done.append(f"{where}: you are away until {when(end)}; deadlines that fall before then wait for you")
    return _away(game, player, event.at, end)


def _away(game: MailGame, player: int, at: datetime, end: datetime) -> list[Notice]:
    """The player is away from ``at`` until ``end``; the others are told."""
    if player in game.absent:  # a new absence replaces the running one: as if back, then away again,
        game.absence_back.add(player)  # so the old extension does not outlast it (review: the cap held)
    _close(game, player, at)
    game.absent[player] = (at, end)
    alias = game.seat(player).alias
    return [Notice(seat.player, "absence", f"{alias} is away until {when(end)}",
                   game.rules.common(game, seat.player, at) | {"who": alias, "until": when(end)})
            for seat in game.others(player)]


def vacation_end(game: MailGame, player: int, at: datetime, until: datetime) -> datetime | None:
    """Where a vacation for all games (`Away`) from ``at`` to ``until``
    ends in this game: at ``until``, or sooner where the game's caps allow
    less; None where they allow nothing, or the game knows no absences."""
    if game.edition < ABSENCE_EDITION or game.phase == ENDED:
        return None
    allowed = min(game.options.absence_max, game.options.absence_total - _used(game, player, at))
    end = min(until, at + allowed)
    return end if end > at else None


def away(game: MailGame, event: Away) -> list[Notice]:
    """A vacation for all games as it reaches this game: the same absence
    a player's ``vacation`` line makes, within this game's caps, or ``back``.
    The player was answered by the GM's own address, so only the others are
    told (and, by `settle`, of a return)."""
    player = event.player
    if event.until is None:
        if player in game.absent:
            _close(game, player, event.at)
            game.absence_back.add(player)
        return []
    end = vacation_end(game, player, event.at, event.until)
    return [] if end is None else _away(game, player, event.at, end)


def _refusal(game: MailGame, player: int, at: datetime, end: datetime, allowed: timedelta) -> str:
    options = game.options
    rule = (f"an absence lasts at most {days(options.absence_max)}, and your absences in this game "
            f"add up to at most {days(options.absence_total)}")
    if allowed <= timedelta(0):
        return f"refused: {rule}, and you have used them all"
    longest = at + allowed
    last_day = longest.date() - timedelta(days=1)  # the last whole day that ends by then
    by_date = f", or absent until {last_day.isoformat()}" if last_day >= at.date() else ""
    return (f"refused: until {when(end)} is too long ({rule}); the longest you may ask for now is "
            f"{days(allowed)}, until {when(longest)} (vacation {_hours(allowed)}{by_date})")


def _hours(length: timedelta) -> str:
    whole = length // timedelta(hours=1)
    return f"{whole // 24}d" if whole % 24 == 0 else f"{whole}h"


def _close(game: MailGame, player: int, at: datetime) -> None:
    """End the player's running absence at ``at``, counting the time it ran."""
    if player in game.absent:
        game.absence_used[player] = _used(game, player, at)
        del game.absent[player]


def _back(game: MailGame, event: PlayerMail, where: str, reply: Reply) -> list[Notice]:
    player = event.player
    if player not in game.absent:
        reply.ignored.append(f"{where}: you were not away")
        return []
    _close(game, player, event.at)
    reply.done.append(f"{where}: welcome back; the deadlines no longer wait for you")
    game.absence_back.add(player)
    return []


def settle(game: MailGame, at: datetime, notices: list[Notice]) -> list[Notice]:
    """After each event of a game that knows absences: drop the absences
    that are over, and extend a deadline that falls inside the absence of a
    player the game waits for (or restore it when they came back), before
    the notices of the event are put into words (`gm.kernel.shown`), so
    that they show the deadline as it now is."""
    for player, (_, end) in list(game.absent.items()):
        if end <= at:
            _close(game, player, end)
    back, game.absence_back = game.absence_back, set()
    if game.deadline is None or game.phase == ENDED:
        game.normal_deadline = game.extended_deadline = None
        return notices + _announce_back(game, at, back)
    before = game.deadline
    if game.deadline != game.extended_deadline:  # set afresh: a turn ran, the operator moved it
        game.normal_deadline = game.deadline
    normal = game.normal_deadline
    assert normal is not None
    target = normal
    waiting = game.waiting_for
    changed = True
    while changed:
        changed = False
        for player, (start, end) in game.absent.items():
            if player in waiting and start <= target < end:
                target, changed = end, True
    if back and target == normal and before != normal:  # back before the extension ran out
        target = max(normal, at + game.options.reminder_before)
    elif before > target:
        target = before  # an extension, once made, stands
    game.decide_deadline(target)
    game.extended_deadline = target
    if target != before and target - game.options.reminder_before > at:
        game.reminded.clear()  # the reminder waits for the new deadline
    return notices + _announce_back(game, at, back)


def _announce_back(game: MailGame, at: datetime, back: set[int]) -> list[Notice]:
    out = []
    for player in sorted(back):
        if player in game.absent:
            continue  # away again, in the same mail: the new absence is announced instead
        alias = game.seat(player).alias
        for seat in game.others(player):
            data: dict[str, Any] = game.rules.common(game, seat.player, at) | {"who": alias}
            out.append(Notice(seat.player, "absence_over", f"{alias} is back", data))
    return out
