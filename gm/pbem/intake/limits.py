"""Caps against floods, loops and mail aimed at third parties, kept on disk.

Counts are per UTC day and per normalized address, and survive a restart:
an auto-responder must not get a fresh allowance each time the daemon
starts. They live in ``DATA/limits/YYYY-MM-DD``: each count appends one
``name<TAB>count`` line, and reading takes each name's highest count. An
append costs one small write (no file is held open between counts) where rewriting the whole file and renaming it
into place cost a tenth of the master's time under load (bench/README). The
file is not fsynced: a power cut may forget the last few counts, which lets
a few more mails through once; a crash of the process forgets nothing, and a
line it cut short is read as a lower count or not at all, never a higher one.

A player over the day's allowance for a game is told so once that day
(`tell_capped`): a cap that stays silent looks like a GM that stopped
answering.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ...kernel.addresses import mail_address
from ...kernel.clock import utc_minute
from ...kernel.model import MailGame
from ...kernel.shown import resolve
from ...kernel.values import Notice
from ..data.store import Store
from ..data.tokens import reveal, token
from ..writing.mailer import Identity, build
from ..writing.writer import as_bytes


@dataclass(frozen=True)
class Limits:
    """Caps against floods and loops."""

    replies_per_day: int = 50
    """Mails a day handled from one address to one game with another person
    in it; past that they go to the shunt, and the player is told once."""
    replies_to_robot_per_day: int = 500
    """The same, to a game against the GM's robot alone: the robot answers
    at once, so a game played in one sitting takes a few hundred mails."""
    answers_outside_games_per_day: int = 1
    """Mails a day the GM sends an address about no game: a games list, the
    confirmation of a challenge, how to send orders."""
    answers_to_gm_mail_per_day: int = 3
    """Mails a day the GM sends an address in answer to its replies to the
    GM's own mail about no game (the games list): each says where orders go,
    so a reply that holds them is never swallowed silently."""
    challenges_per_day: int = 3
    """Confirmed challenges a day that reach any one address."""
    league_answers_per_day: int = 12
    """Mails a day the GM sends one address in answer to its mail about
    public names and seeks (`gm.pbem.answers.league`) and tournaments
    (`gm.pbem.answers.tournaments`, which share it): each step asks for a
    confirmation from the sender's own mailbox, so setting a name, posting
    a seek and taking one take a few each."""

    def replies_to(self, game: MailGame) -> int:
        """The day's allowance of one player's mails to ``game``."""
        against_robot = sum(not seat.robot for seat in game.seats) == 1
        return self.replies_to_robot_per_day if against_robot else self.replies_per_day


def normalized(text: str) -> str | None:
    """The one mail address ``text`` names (`gm.kernel.addresses`, the
    project's one address policy), lower-cased to count and compare by, or
    None when it names none or several: ``<Victim@X.example>,`` is
    ``victim@x.example``; ``a@x.example, b@y.example`` is None."""
    address = mail_address(text)
    return address.lower() if address else None


class DailyCounts:
    """Durable per-day counters (see the module's docstring)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._day: str | None = None
        self._counts: dict[str, int] = {}

    def add(self, at: datetime, name: str) -> int:
        """Count one more ``name`` on ``at``'s day; returns the day's count."""
        day = at.strftime("%Y-%m-%d")
        self._load(day)
        key = " ".join(name.split())  # one line per counter, whatever the address held
        count = self._counts[key] = self._counts.get(key, 0) + 1
        file = os.open(self.path / day, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(file, f"{key}\t{count}\n".encode())  # one write: a crash keeps it or cuts it short
        finally:
            os.close(file)
        return count

    def _load(self, day: str) -> None:
        if day == self._day:
            return
        self._day, self._counts = day, {}
        try:
            text = (self.path / day).read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        for line in text.splitlines(keepends=True):
            name, _, count = line.rstrip("\n").rpartition("\t")
            if name and count.isdigit() and line.endswith("\n"):  # a line a crash cut short counts for nothing
                self._counts[name] = max(self._counts.get(name, 0), int(count))
        for old in self.path.iterdir():  # yesterday's counts are no longer needed
            if old.name < day and not old.name.startswith("."):
                old.unlink(missing_ok=True)


def tell_capped(store: Store, identity: Identity, game: MailGame, player: int, limit: int, now: datetime) -> None:
    """Tell a player, once a day, that their mail to ``game`` is set aside
    for the rest of the UTC day and why (a silent cap looked like a GM
    that stopped answering). It goes to the seat's own address only, never
    to a mail's From, which may be forged."""
    day = now.strftime("%Y-%m-%d")
    key = f"capped.{game.id}.{player}.{day}"
    if key in store.outbox or key in store.sent:
        return
    lifts = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), now.tzinfo)
    (notice,) = resolve([Notice(player, "capped", "Your mail is set aside until tomorrow",
                                game.rules.common(game, player, None) | {
                                    "limit": limit, "lifts": utc_minute(lifts),
                                    "hours": max(1, round((lifts - now).total_seconds() / 3600))})])
    message = build(notice, game, identity, 0, 0, now, [],
                    given_id=f"<{key}{'.' + game.instance if game.instance else ''}@{identity.domain}>")
    store.outbox.add(reveal(as_bytes(message), token(store.key, game.secret_subject_of(player), player)), key)
