"""The data directory: where every message gm keeps lives, as Maildirs.

    DATA/
      secret.key     the server key players' tokens derive from (mode 0600)
      spool/         mail accepted (250) and not yet handled, oldest first
      games/GAME/    one Maildir per game: every message that changed it, in
                     order, and a masked copy of every message the GM sent
      outbox/        mail waiting for the relay (or for local delivery)
      delivered/     local delivery when no relay is configured
      shunt/         mail that could not be parsed, routed or trusted, with
                     the reason in an X-GM-Shunt-Reason header
      undeliverable/ outgoing mail the relay refused for good (5xx), with the
                     reason in an X-GM-Undeliverable-Reason header
      challenges/    challenges made by mail, until accepted
      handled/       one empty marker per accepted challenge
      sent/          one empty marker per message delivered (sent once)
      attempts/      how often handling a spooled message has begun
      limits/        today's counts of mail per address (`gm.pbem.limits`)

Spool keys start with the time of arrival in nanoseconds, zero-padded, then
the origin: ``smtp``, ``lmtp`` and ``imap`` for mail from outside, ``admin``
(``gm new``) and ``clock`` (deadlines and reminders) for the GM's own events.
Only the last two may carry GM events.
"""

from __future__ import annotations

import os
import secrets
from datetime import datetime, timedelta, timezone
from pathlib import Path

from ..storage import DurableMaildir, fsync_dir
from .tokens import load_key

OUTSIDE_ORIGINS = ("smtp", "lmtp", "imap")
TRUSTED_ORIGINS = ("admin", "clock")


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROSECOND = timedelta(microseconds=1)


def spool_key(at: datetime, origin: str, name: str | None = None) -> str:
    """A spool key that sorts by arrival time; ``name`` makes it deterministic.

    The time is gm's one resolution, whole microseconds in UTC, computed in
    integers (a float timestamp can be a microsecond off), so that
    `time_of` gives back exactly ``at``."""
    ns = ((at - _EPOCH) // _MICROSECOND) * 1000
    return f"{ns:020d}.{origin}.{name or secrets.token_hex(8)}"


def origin_of(key: str) -> str:
    return key.split(".")[1]


def time_of(key: str) -> datetime:
    """The arrival time a spool key holds, to the microsecond."""
    return _EPOCH + int(key.split(".")[0]) // 1000 * _MICROSECOND


class Markers:
    """A durable set of names, one empty file each."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)

    def __contains__(self, name: str) -> bool:
        return (self.path / name).exists()

    def add(self, name: str) -> None:
        target = self.path / name
        if target.exists():
            return
        fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.path)


class Attempts:
    """How many times handling each spooled message has begun, one small
    file each in ``attempts/``, removed when handling ends. Not fsynced: it
    must survive the process being killed (the page cache does), not a power
    cut (which merely allows another attempt)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)

    def begin(self, key: str) -> int:
        """Count one more attempt at ``key``; returns the count, this one included."""
        marker = self.path / key
        try:
            count = int(marker.read_text() or 0) + 1
        except (FileNotFoundError, ValueError):
            count = 1
        marker.write_text(str(count))
        return count

    def end(self, key: str) -> None:
        (self.path / key).unlink(missing_ok=True)


class MissingDataDirectory(FileNotFoundError):
    """There is no data directory (with its ``secret.key``) where one was named."""

    def __init__(self, root: Path):
        super().__init__(f"no gm data directory at {root} (no {root / 'secret.key'}); "
                         f"`gm serve --data {root}` makes one, or give the right --data or --config")
        self.root = root


class Store:
    """The data directory of one gm instance."""

    def __init__(self, root: str | os.PathLike[str], create: bool = True):
        """Open the data directory at ``root``. With ``create`` (what the
        daemon does) a missing one is made, with a new server key; without
        it, MissingDataDirectory is raised, so that a mistyped ``--data`` in
        an administrator's command cannot quietly start a second, empty
        installation whose key no player's address matches."""
        self.root = Path(root)
        if not create and not (self.root / "secret.key").is_file():
            raise MissingDataDirectory(self.root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.spool = DurableMaildir(self.root / "spool")
        self.outbox = DurableMaildir(self.root / "outbox")
        self.delivered = DurableMaildir(self.root / "delivered")
        self.shunt = DurableMaildir(self.root / "shunt")
        self.undeliverable = DurableMaildir(self.root / "undeliverable")
        self.challenges = DurableMaildir(self.root / "challenges")
        self.handled = Markers(self.root / "handled")
        self.sent = Markers(self.root / "sent")
        self.attempts = Attempts(self.root / "attempts")
        self.games_dir = self.root / "games"
        self.games_dir.mkdir(exist_ok=True)
        self.key = load_key(self.root / "secret.key")
        self._archives: dict[str, DurableMaildir] = {}
        self._last_id: int | None = None

    def archive(self, game: str) -> DurableMaildir:
        """A game's archive (one object per game, made durable once)."""
        if game not in self._archives:
            self._archives[game] = DurableMaildir(self.games_dir / game)
        return self._archives[game]

    def game_ids(self) -> list[str]:
        """Every game's id, in the order the games were made."""
        ids = [p.name for p in self.games_dir.iterdir() if (p / "new").is_dir()]
        return sorted(ids, key=lambda g: (len(g), g))

    def _numbers(self) -> list[int]:
        """The numbers of every game directory, reserved ones included."""
        return [int(p.name[1:]) for p in self.games_dir.iterdir() if p.name[:1] == "g" and p.name[1:].isdigit()]

    def reserve_game_id(self) -> str:
        """A new game's id, reserved at once by making its directory
        (exclusively: two ``gm new`` at the same moment never get the same),
        so that ``gm new`` can name the game before the daemon makes it.
        A shard (`gm.pbem.shards`) takes only the numbers that are its own."""
        from .shards import numbering

        following = numbering(self.root)
        number = max(self._numbers(), default=0)
        while True:
            number = following(number)
            try:
                os.mkdir(self.games_dir / f"g{number}")
            except FileExistsError:
                continue
            fsync_dir(self.games_dir)
            return f"g{number}"

    def next_game_id(self) -> str:
        """The id for a new game whose request named none (requests spooled
        before ``gm new`` reserved ids). The daemon is the only maker of
        games, so the directory is listed once and the count kept in memory
        after; reserved ids are skipped, and so, in a shard, are the numbers
        of the other shards."""
        from .shards import numbering

        following = numbering(self.root)
        if self._last_id is None:
            self._last_id = max(self._numbers(), default=0)
        self._last_id = following(self._last_id)
        while (self.games_dir / f"g{self._last_id}").exists():
            self._last_id = following(self._last_id)
        return f"g{self._last_id}"

    def shunt_message(self, raw: bytes, key: str, reason: str) -> None:
        header = f"X-GM-Shunt-Reason: {reason}\r\n".encode()
        self.shunt.add(header + raw, key)
