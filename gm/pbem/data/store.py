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
      handled/       one empty marker per step of a challenge or seek done
      names/         players' public names: each accepted ``name`` mail
                     (`gm.pbem.data.names`)
      settings/      players' own settings: each accepted change, the mail
                     that asked for it kept whole (`gm.pbem.data.settings`)
      requests/      name changes and seek acceptances waiting for their
                     sender's confirmation (`gm.pbem.answers.league`)
      seeks/         open challenges anyone may take, from their ``seek``
                     mail on (`gm.pbem.answers.league`)
      tournaments/   each tournament's record, sign-ups and rounds
                     (`gm.pbem.data.tournaments`)
      sent/          one empty file per message delivered (sent once): its
                     outbox file, renamed there and emptied
      attempts/      how often handling a spooled message has begun (one
                     small table, ``in-progress``)
      limits/        today's counts of mail per address (`gm.pbem.intake.limits`),
                     one count for every master process
      commit         the manifest of the master's batch being committed
                     (`gm.storage`): empty, but after a crash
      shard          which shard of several daemons' this one is (``K/S``,
                     `Shard`), when it is one (`gm.pbem.operator.shards`)
      masters/       with several master processes (`gm.masters`): the
                     generation and publishing locks, and each master's but
                     the first's own ``K/commit`` and ``K/attempts/`` (the
                     first keeps the ones above)

Spool keys start with the time of arrival in nanoseconds, zero-padded, then
the origin: ``smtp``, ``lmtp``, ``imap`` and ``web`` (a one-click unsubscribe) for mail from outside, ``admin``
(``gm new``) and ``clock`` (deadlines and reminders) for the GM's own events.
Only the last two may carry GM events.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from ...locks import PublishingLock
from ...storage.batches import Batch, Staged, current_batch, finish_interrupted, staging_name, write_staged
from ...storage.maildirs import DurableMaildir
from ...storage.removals import drop_gone
from ...storage.syncing import Syncer, fsync_dir
from .attempts import Attempts
from .crashpoints import crashpoint
from .tokens import load_key

OUTSIDE_ORIGINS = ("smtp", "lmtp", "imap", "web")
"""Where mail from outside comes from: the listeners, the IMAP poller, and the web archive's
one-click unsubscribe (`gm.web.unsubscribe`), which spools the mail its link stands for."""
TRUSTED_ORIGINS = ("admin", "clock", "robot")


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
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


# Shards (`gm.pbem.operator.shards`): which game numbers this data directory makes

SHARD_FILE = "shard"
"""The file in a data directory that says which shard it is (``K/S``)."""
ROUTABLE_COUNTS = (1, 2, 4, 5, 10, 20, 25, 50, 100)
"""Shard counts a regexp on the id's last two digits can route."""
GAME_ID = re.compile(r"g\d+")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count``: it makes the ids gN with N mod count = index."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``K/S``, such as ``1/2``; ValueError with the reason otherwise."""
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise ValueError(f"{text.strip()!r}: give K/S, such as 0/2 or 1/2 (shard K of S, K from 0 to S-1)")
        index, count = int(match[1]), int(match[2])
        if count not in ROUTABLE_COUNTS:
            raise ValueError(f"{count} shards: the transport map routes by an id's last two digits, so the "
                             f"number of shards must divide 100 ({', '.join(map(str, ROUTABLE_COUNTS))})")
        if not 0 <= index < count:
            raise ValueError(f"shard {index} of {count}: K runs from 0 to {count - 1}")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, game_id: str) -> bool:
        """Whether a game of this id is made here (and routed here unless moved)."""
        return bool(GAME_ID.fullmatch(game_id)) and int(game_id[1:]) % self.count == self.index

    def after(self, number: int) -> int:
        """The first game number past ``number`` that this shard makes."""
        following = number + 1
        return following + (self.index - following) % self.count


def shard_of(root: str | os.PathLike[str]) -> Shard | None:
    """The shard a data directory is (None: it is the only one)."""
    try:
        text = (Path(root) / SHARD_FILE).read_text()
    except FileNotFoundError:
        return None
    try:
        return Shard.parse(text)
    except ValueError as error:
        raise ValueError(f"{Path(root) / SHARD_FILE}: {error}") from None


@dataclass(frozen=True)
class Part:
    """Master ``index`` of ``count`` master processes of one data directory
    (`gm.masters`): it runs the games `owns` says are its own. Games are
    dealt out by number: a shard's numbers (N mod S = K) are counted among
    themselves first, so that each master gets its share of any shard's."""

    index: int
    count: int
    shards: int = 1
    """How many shards the data directory's numbers are dealt among (1: none)."""

    def owner(self, game_id: str) -> int:
        """The master that runs ``game_id`` (the first for what is no game id)."""
        if not GAME_ID.fullmatch(game_id):
            return 0
        return int(game_id[1:]) // self.shards % self.count

    def owns(self, game_id: str) -> bool:
        return self.owner(game_id) == self.index

    @property
    def front(self) -> bool:
        """Whether this master takes the mail that names no game (the first)."""
        return self.index == 0

    def folder(self, root: Path) -> Path:
        """Where this master keeps what is its own (the first: the data directory itself)."""
        return root if self.index == 0 else root / MASTERS / str(self.index)


MASTERS = "masters"
"""The data directory's folder for several master processes (`Part`)."""


def manifests(root: Path) -> list[Path]:
    """Every master's batch manifest: the data directory's ``commit``, and
    each ``masters/K/commit`` that a daemon with several masters left."""
    found = [root / "commit"]
    folder = root / MASTERS
    if folder.is_dir():
        found += sorted(p / "commit" for p in folder.iterdir() if p.name.isdigit())
    return found


def numbering(root: str | os.PathLike[str]) -> Callable[[int], int]:
    """The next game number after a given one, for this data directory:
    its shard's next, or simply the next when it is no shard."""
    shard = shard_of(root)
    return shard.after if shard else (lambda number: number + 1)


_ABSENT = (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP)
"""The errors for which ``Path.exists`` says a file is not there, rather than raising them."""


class Markers:
    """A durable set of names, one empty file each (in a `Batch`, staged
    under a dot-name in the same folder, and renamed at its commit)."""

    def __init__(self, path: Path):
        self.path = path
        self._folder = os.fspath(path)
        path.mkdir(parents=True, exist_ok=True)

    def __contains__(self, name: str) -> bool:
        """Whether ``name`` is marked (or staged in the current batch). The
        master asks for each mail it handles: its file is looked for by
        its name as a string, as ``Path.exists`` looks (an absent file, or
        one under something that is no folder, is not there; any other
        error is raised), without making a Path of it first."""
        batch = current_batch()
        if batch is not None and batch.state(self, name):
            return True
        if "/" in name:  # a name no marker has: as a Path would read it
            return (self.path / name).exists()
        try:
            os.stat(os.path.join(self._folder, name))
        except OSError as error:
            if error.errno not in _ABSENT:
                raise
            return False
        except ValueError:  # a name no file can have (a NUL in it)
            return False
        return True

    def add(self, name: str) -> None:
        if "/" in name or name.startswith("."):
            raise ValueError(f"bad marker name {name!r}")
        if name in self:
            return
        batch = current_batch()
        if batch is not None:
            tmp = self.path / ("." + staging_name(name))
            write_staged(batch.syncer, tmp, b"")
            batch.stage(Staged(self, name, tmp, self.path / name))
            return
        fd = os.open(self.path / name, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        fsync_dir(self.path)

    def _published(self, name: str) -> None:
        pass

    def _removed(self, name: str) -> None:
        pass


class MissingDataDirectory(FileNotFoundError):
    """There is no data directory (with its ``secret.key``) where one was named."""

    def __init__(self, root: Path):
        if holds_data(root):  # `gm serve` refuses it too: every token was derived from the lost key
            why = (f"the gm data directory at {root} has lost its {root / 'secret.key'}; restore the key from "
                   "the backup (docs/operations.md, \"Backups\"): a new one would match no player's address")
        else:
            why = (f"no gm data directory at {root} (no {root / 'secret.key'}); "
                   f"`gm serve --data {root}` makes one, or give the right --data or --config")
        super().__init__(why)
        self.root = root


RECORD = ("games", "spool", "outbox", "delivered", "shunt", "undeliverable", "challenges", "handled", "names",
          "settings", "requests", "seeks", "tournaments", "operator", "sent", SHARD_FILE, "moved", "moving-in",
          "moving-out")
"""What of a data directory is its record (docs/data.md), beside
``secret.key``: the games, the mail and the requests, which the key's
tokens were derived for. The derived files and the bookkeeping (snapshots,
ratings, counts, attempts, manifests) are not: they hold no token."""


def holds_data(root: Path) -> bool:
    """Whether ``root`` holds any of its record (`RECORD`): a game (even
    an id reserved with no mail yet), or a file in or at any other of its
    places. Folders with no file in them, all that a first start cut short
    before it made the key leaves, are no record: no token was derived yet."""
    games = root / "games"
    if games.is_dir() and any(games.iterdir()):
        return True
    for name in RECORD:
        path = root / name
        if path.is_dir():
            if any(files for _, _, files in os.walk(path)):
                return True
        elif path.exists():
            return True
    return False


class Store:
    """The data directory of one gm instance."""

    def __init__(self, root: str | os.PathLike[str], create: bool = True, part: Part | None = None):
        """Open the data directory at ``root``. With ``create`` (what the
        daemon does) a missing one is made, with a new server key; without
        it, MissingDataDirectory is raised, so that a mistyped ``--data`` in
        an administrator's command cannot quietly start a second, empty
        installation whose key no player's address matches. ``part``: the
        store of one of several master processes (`Part`), with its own
        manifest and attempts, and making only game ids that are its own."""
        self.root = Path(root)
        self.part = part
        if not create and not (self.root / "secret.key").is_file():
            raise MissingDataDirectory(self.root)
        fresh = not (self.root / "secret.key").exists() and not holds_data(self.root)  # before any folder is made
        self.root.mkdir(parents=True, exist_ok=True)
        self.spool = DurableMaildir(self.root / "spool")
        self.outbox = DurableMaildir(self.root / "outbox")
        self.delivered = DurableMaildir(self.root / "delivered")
        self.shunt = DurableMaildir(self.root / "shunt")
        self.undeliverable = DurableMaildir(self.root / "undeliverable")
        self.challenges = DurableMaildir(self.root / "challenges")
        self.handled = Markers(self.root / "handled")
        self.names = DurableMaildir(self.root / "names")
        self.settings = DurableMaildir(self.root / "settings")
        self.requests = DurableMaildir(self.root / "requests")
        self.seeks = DurableMaildir(self.root / "seeks")
        self.tournaments = DurableMaildir(self.root / "tournaments")
        self.sent = Markers(self.root / "sent")
        own = part.folder(self.root) if part is not None else self.root
        self.attempts = Attempts(own / "attempts")
        self.limits_path = self.root / "limits"
        """Where every master counts mail per address and day (`gm.pbem.intake.limits`)."""
        self._manifest = own / "commit"
        self.games_dir = self.root / "games"
        self.games_dir.mkdir(exist_ok=True)
        self.key = load_key(self.root / "secret.key", make=fresh)
        self._archives: dict[str, DurableMaildir] = {}
        self._last_id: int | None = None
        self._syncers: dict[str, Syncer] = {}
        self._batch: Batch | None = None
        self.publishing: AbstractContextManager[Any] = threading.Lock()
        """Held while the master's batch is being published (renamed into
        place and made durable): the delivery lists the outbox under it, so
        that it never sends a message of a batch that is not yet durable.
        Between processes (`share_publishing`) a `gm.locks.PublishingLock`."""
        if part is not None and part.count > 1:
            self.share_publishing(exclusive=False)

    def share_publishing(self, exclusive: bool) -> None:
        """Take the publishing lock between processes: several master
        processes publish (shared), the delivery lists the outbox (``exclusive``)."""
        folder = self.root / MASTERS
        folder.mkdir(exist_ok=True)
        self.publishing = PublishingLock(folder / "publishing.lock", exclusive)

    # Group commit (`gm.storage`)

    def syncer(self, role: str) -> Syncer:
        """The `Syncer` of one kind of writer (``spool``, ``master``,
        ``delivery``): each its own, so that each sees the write errors
        that happened since its own last barrier.

        The spool's fsyncs each file, in the thread of the SMTP or LMTP
        session that wrote it, and then its folder once per group: a 250
        then waits for that mail's own data (the file system joins the
        sessions' fsyncs into one journal commit), never for what the master
        or another program wrote meanwhile, as a syncfs would. (Measured
        alone, without the master, a spool on syncfs keeps up with a bare
        durable Maildir where one on fsync reaches 0.7 to 0.85 of it; with
        the master running, the two are within the noise, and the spool
        is not what limits gm.) ``GM_SYNC=syncfs`` in the environment puts
        the spool on syncfs too. The master's and the delivery's batches,
        many files in many folders, use syncfs where it may be used
        (`gm.storage.syncing.sync_mode`). Each passes the steps of its commits to
        the crash points (`gm.pbem.data.crashpoints`)."""
        if role not in self._syncers:
            spool_fsync = role == "spool" and os.environ.get("GM_SYNC", "").strip().lower() != "syncfs"
            self._syncers[role] = Syncer("fsync" if spool_fsync else None, crashpoint)
        return self._syncers[role]

    def batch(self) -> Batch:
        """A batch of the master's (see `gm.storage.batches.Batch`): published whole
        or not at all (its manifest is ``DATA/commit``), and not seen by
        the delivery before it is durable; what it removes is unlinked by
        another thread (`gm.storage.removals`). The previous one must be
        committed (`commit_pending`)."""
        if self._batch is not None and self._batch.unfinished:
            raise RuntimeError("the master's previous batch is not committed")
        self._batch = Batch(self.syncer("master"), label="batch", manifest=self._manifest, root=self.root,
                            lock=self.publishing, after_commit="after-batch-commit", remove_later=True)
        return self._batch

    def drop_gone(self) -> int:
        """Delete what a process that died left to be unlinked in the
        Maildirs' ``tmp/`` (`gm.storage.removals`): the daemon does this at
        its start, before any master runs. How many files."""
        boxes = (self.spool, self.outbox, self.shunt, self.challenges, self.names, self.settings, self.requests,
                 self.seeks, self.tournaments)
        return sum(drop_gone(box.path / "tmp") for box in boxes)

    def commit_pending(self) -> None:
        """Commit the master's last batch, if a full disk kept it from being
        committed (raises that OSError again while the disk is full)."""
        if self._batch is not None and self._batch.unfinished:
            self._batch.commit()

    def batch_pending(self) -> bool:
        """Whether the master's last batch is not committed yet: then some of
        its files may be in place but not durable, and the delivery waits."""
        return self._batch is not None and self._batch.unfinished

    def finish_interrupted(self, everyone: bool = True) -> int:
        """Complete a batch of the master's whose commit a crash cut short
        (see `gm.storage.batches.finish_interrupted`); the daemon does this at start,
        before it reads anything; with ``everyone``, the batches of every
        master process a daemon with several left (`manifests`), else only
        this store's own. Returns the number of files renamed."""
        if not everyone:
            return finish_interrupted(self._manifest, self.root)
        return sum(finish_interrupted(manifest, self.root) for manifest in manifests(self.root))

    def mark_sent(self, key: str, source: Path | None = None) -> None:
        """Record that outbox message ``key`` was delivered, and take it out
        of the outbox, in one step: its file is renamed to ``sent/KEY`` (so
        that ``key in sent`` holds, as for the empty markers of older data
        directories) and then emptied (the token it carries is not kept).
        No new file, and not made durable here: the caller makes ``sent/``
        durable once for all it marked (`sync_sent`). Killed between the
        rename and the emptying, the file keeps its text: harmless, but
        the one place a delivered message's real token can stay at rest.
        ``source``: its file in the outbox, when the caller has just read it
        from there (the outbox's one reader is the delivery), so that it is
        not looked up again."""
        if source is None:
            source = self.outbox.file_of(key)
        target = self.sent.path / key
        os.replace(source, target)
        self.outbox._removed(key)
        os.truncate(target, 0)

    def sync_sent(self) -> None:
        """Make the messages marked sent since the last call durably so."""
        fsync_dir(self.sent.path)

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
        A shard (`gm.pbem.operator.shards`) takes only the numbers that are its own."""
        following = numbering(self.root)
        number = max(self._numbers(), default=0)
        while True:
            number = following(number)
            if self.part is not None and not self.part.owns(f"g{number}"):
                continue  # another master's
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
        following = numbering(self.root)
        if self._last_id is None:
            self._last_id = max(self._numbers(), default=0)
        self._last_id = following(self._last_id)
        while (self.games_dir / f"g{self._last_id}").exists() or (
                self.part is not None and not self.part.owns(f"g{self._last_id}")):
            self._last_id = following(self._last_id)
        return f"g{self._last_id}"

    def shunt_message(self, raw: bytes, key: str, reason: str) -> None:
        header = f"X-GM-Shunt-Reason: {reason}\r\n".encode()
        self.shunt.add(header + raw, key)
