"""Caps against floods, loops and mail aimed at third parties, kept on disk.

Counts are per UTC day and per normalized address, and survive a restart:
an auto-responder must not get a fresh allowance each time the daemon
starts. They live in ``DATA/limits/YYYY-MM-DD``, one file a day for every
master process of the data directory (`gm.masters`): whichever master
answers an address, its count is the address's one count.

Each count appends one record (``name<TAB>spool key<TAB>n<TAB>.``, between
newlines) with ``O_APPEND``, in one write, and no file is held open between
counts. The kernel puts the appends of all the masters one after the other,
so the file's order is the order of the counts: a master reads the records
the others appended since it last looked, up to its own, and its count is
its record's place among the name's. No master ever waits for another (no
lock, nothing asked through the spool, where an owner of the counts would
make every answering master wait for that owner's pass over its own mail),
and two masters counting one address at the same moment get two different
counts, never the same one. The cost is a small read of what the others
appended beside each append.

A record names the spooled mail it was counted for, and which count of its
name in that mail's handling it was: handled again after a crash (its
batch was not committed), a mail finds its records and gets the counts it
got the first time, so a mail is counted exactly once however often it is
handled. A record a crash cut short (it lacks its closing ``.``) counts for
nothing; the file is not fsynced, so a power cut may forget the last few
counts, which lets a few more mails through once.

On the day of an upgrade the counts go on from the release before, whose
masters each appended ``name<TAB>count`` lines to a file of their own
(``DATA/limits/DAY`` for the first, ``DATA/masters/K/limits/DAY`` for
master K): a name's count starts from the largest old count read for it,
in every master alike, since they all read the same old lines. The old
folders are read all that day and removed with their last day's file, when
a master's first count of a later day forgets the days before it.

A player over the day's allowance for a game is told so once that day
(`tell_capped`): a cap that stays silent looks like a GM that stopped
answering.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ...kernel.addresses import mail_address
from ...kernel.clock import utc_minute
from ...kernel.model import MailGame
from ...kernel.shown import resolve
from ...kernel.values import Notice
from ...logs import event
from ..data.crashpoints import crashpoint
from ..data.store import MASTERS, Store
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
    confirmation of a challenge, how to send orders. Past it, an address the
    GM does not know is answered by nothing (its From may be forged)."""
    answers_outside_games_to_players_per_day: int = 6
    """The same, to an address that holds a seat in one of the GM's games
    (it showed its mailbox is its own when it confirmed or accepted that
    game): a newcomer's first day is a challenge, then a second, the games
    list, the ratings. Past it, the player is told once a day."""
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
    """Durable per-day counters, one count per name across every master
    process of the data directory (see the module's docstring)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._day: str | None = None
        self._file: tuple[int, int] | None = None
        """The day's file as last read (device, inode): another master may have made it anew."""
        self._read = 0
        """How far the day's file was read."""
        self._counts: dict[str, int] = {}
        self._before: dict[str, int] = {}
        """The day's largest counts in the per-master files of the release before (see the module's docstring)."""
        self._head = True
        """Still reading the file's head, where the release before's ``name<TAB>count`` lines are: a
        cut-short record further on (``name<TAB>digits of its spool key``) must never read as one."""
        self._known: dict[tuple[str, str, int], int] = {}
        """The count each mail's record got, by (name, spool key, nth count of the name in its handling)."""
        self._key = ""
        self._nth: dict[str, int] = {}
        self._begun = False
        """Whether the line read last was a record's leading newline: a record begins on the next."""
        self._told: str | None = None
        """The day whose skipped records were logged (`_damaged`)."""

    def begin(self, key: str) -> None:
        """The spooled mail ``key`` is being handled: its counts are its
        own, so that handling it again after a crash counts nothing twice."""
        self._key, self._nth = key, {}

    def end(self) -> None:
        """The mail's handling ended: what is counted next is no mail's."""
        self._key, self._nth = "", {}

    def add(self, at: datetime, name: str) -> int:
        """Count one more ``name`` on ``at``'s day, in every master; returns
        the day's count. Counted again for the same mail (see `begin`), it
        returns what it returned the first time."""
        day = at.strftime("%Y-%m-%d")
        if day != self._day:
            self._day, self._file, self._read, self._counts, self._known = day, None, 0, {}, {}
            self._forget_before(day)
            self._before = self._per_master_counts(day)
        name = " ".join(name.split())  # one line per counter, whatever the address held
        mine: tuple[str, str, int] | None = None
        if self._key:
            nth = self._nth[name] = self._nth.get(name, 0) + 1
            mine = (name, self._key, nth)
        try:
            file = os.open(self.path / day, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        except (IsADirectoryError, NotADirectoryError, PermissionError) as error:  # no waiting mends these
            return self._unkept(day, name, mine, error)
        try:
            self._catch_up(file, os.fstat(file).st_size)
            if mine is not None and mine in self._known:
                return self._known[mine]  # counted before a crash: the same answer again
            record = f"\n{name}\t{mine[1] if mine else ''}\t{mine[2] if mine else 0}\t.\n".encode()
            if os.write(file, record) != len(record):  # one write: O_APPEND orders the masters' records
                raise OSError(errno.ENOSPC, f"a count was cut short in {self.path / day}")
            ends = os.lseek(file, 0, os.SEEK_CUR)
            self._catch_up(file, ends - len(record) + 1)  # the other masters' records before this one
            count = self._counts[name] = self._counts.get(name, 0) + 1
            if mine is not None:
                self._known[mine] = count
            self._read, self._begun = ends, False
        finally:
            os.close(file)
        crashpoint("after-count")
        return count

    def _catch_up(self, file: int, upto: int) -> None:
        """Read the records written since the last read, up to ``upto``:
        each name's count, once per mail (a record a crash repeated or cut
        short counts for nothing). Any other line that is no record (random
        bytes, a later gm's shape) counts for nothing too, and is logged
        once a day (`_damaged`)."""
        stat = os.fstat(file)
        if self._file != (stat.st_dev, stat.st_ino) or stat.st_size < self._read:
            self._file, self._read, self._counts, self._known = (stat.st_dev, stat.st_ino), 0, dict(self._before), {}
            self._head, self._begun = True, False
        data = os.pread(file, max(0, upto - self._read), self._read)
        complete = data.rfind(b"\n") + 1  # a record another master is writing is read next time
        damaged = False
        for line in data[:complete].decode("utf-8", "replace").split("\n")[:-1]:
            fields = line.split("\t")
            begun, self._begun = self._begun, not line
            if not line:
                self._head = False  # each record begins with a newline: past the release before's lines
            elif self._head and len(fields) == 2 and fields[0] and fields[1].isdigit():
                self._counts[fields[0]] = max(self._counts.get(fields[0], 0), int(fields[1]))
                continue
            if len(fields) != 4 or fields[3] != "." or not fields[0] or not fields[2].isdigit():
                damaged = damaged or (bool(line) and not (begun and _cut_short(fields)))
                continue
            if fields[1]:
                counted = (fields[0], fields[1], int(fields[2]))
                if counted in self._known:
                    continue
            count = self._counts[fields[0]] = self._counts.get(fields[0], 0) + 1
            if fields[1]:
                self._known[counted] = count
        self._read += complete
        if damaged:
            self._damaged()

    def _damaged(self) -> None:
        """Tell the operator, once a day, that the day's file holds lines
        that are no records, as each derived file's damage is told
        (docs/data.md). A record a crash cut short is not told: after a
        crash that is the file's normal state."""
        if self._told != self._day:
            self._told = self._day
            event("daily count records skipped", logging.WARNING, file=str(self.path / (self._day or "")),
                  note="damaged: they count for nothing, so a few more mails may get through today")

    def _unkept(self, day: str, name: str, mine: tuple[str, str, int] | None, error: OSError) -> int:
        """Count in this process's memory alone, when the day's file cannot
        be opened (a directory in its place): logged once a day, and never
        a reason to stop handling mail, as a full disk is. The other
        masters' counts are then not seen, nor these kept past a restart."""
        if self._file != (-1, -1):
            self._file = (-1, -1)
            event("daily counts unusable", logging.WARNING, file=str(self.path / day),
                  reason=error.strerror or str(error), note="today's mail is counted in memory only")
        if mine is not None and mine in self._known:
            return self._known[mine]
        count = self._counts[name] = self._counts.get(name, 0) + 1
        if mine is not None:
            self._known[mine] = count
        return count

    def _forget_before(self, day: str) -> None:
        """Remove the days before ``day``: their counts are no longer needed,
        and a per-master folder of the release before goes with its last day."""
        for folder in [self.path, *self._per_master_folders()]:
            for old in folder.iterdir():
                if old.name < day and not old.name.startswith(".") and not old.is_dir():
                    old.unlink(missing_ok=True)
            if folder != self.path:
                with contextlib.suppress(OSError):  # not empty: today's file, read all day
                    folder.rmdir()

    def _per_master_folders(self) -> list[Path]:
        """The release before's ``DATA/masters/K/limits`` folders still on disk."""
        return [folder for folder in (self.path.parent / MASTERS).glob("*/limits") if folder.is_dir()]

    def _per_master_counts(self, day: str) -> dict[str, int]:
        """Each name's largest count in the release before's per-master files of ``day``."""
        counts: dict[str, int] = {}
        for folder in self._per_master_folders():
            try:
                text = (folder / day).read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                continue
            for line in text.splitlines(keepends=True):
                name, _, count = line.rstrip("\n").rpartition("\t")
                if name and count.isdigit() and line.endswith("\n"):  # a line a crash cut short counts for nothing
                    counts[name] = max(counts.get(name, 0), int(count))
        return counts


def _cut_short(fields: list[str]) -> bool:
    """Whether a record's fields are what a crash leaves of one it cut
    short: the start of ``name<TAB>key<TAB>n<TAB>.`` without its end,
    printable (random bytes seldom are)."""
    shape = len(fields) <= 3 or (len(fields) == 4 and fields[2] != "" and not fields[3])
    count = fields[2] if len(fields) > 2 else ""
    return (shape and bool(fields[0]) and (count == "" or count.isdigit())
            and all(field.isprintable() and "\ufffd" not in field for field in fields))


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
