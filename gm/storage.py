"""Durable Maildirs: every message gm keeps is a file any mail client can open.

`mailbox.Maildir` reads and exports well, but its ``add`` does not fsync, and
gm promises that a message acknowledged with 250 survives a power cut. So
writing goes through `DurableMaildir.add`: the message is written into
``tmp/``, made durable, renamed into ``new/`` (or ``cur/``), and that rename
is made durable, as the Maildir specification intends. Names are chosen by
the caller where they must be deterministic (so that redoing a step after a
crash finds the file already there instead of writing it twice).

Group commit
------------

Making one file durable costs a flush of its data and of its directory; most
of that cost is waiting for the disk, and it is the same for one file as for
fifty written meanwhile. So the daemon writes in batches (`Batch`): while a
batch is open in a thread, every `DurableMaildir.add` and `Markers.add` in
that thread only writes its file into a staging place (``tmp/``), invisible
to other threads and processes, and every ``remove`` is only noted; the
thread itself sees its batch as if it were done (``in``, ``keys``,
``get_bytes``). `Batch.commit` then

1. writes the batch's manifest (the list of renames, with a digest), if it
   has one;
2. makes every staged file's data (and the manifest) durable: the *data
   barrier*;
3. renames each staged file into place, in the order they were staged;
4. makes those renames durable: the *name barrier*;
5. only then removes what the batch removed (a spooled message that the
   batch handled), without waiting for that to be durable: a removal lost
   in a power cut brings back a message whose handling is durable, and
   redoing it finds everything done (the same redo as after a crash).

A file is never published (renamed into a place where anything relies on
it) before its data is durable, so a power cut never leaves a torn file in
``new/`` or ``cur/``. The master's batches also have a manifest, written and
made durable with the data: a power cut (or SIGKILL) during step 3 leaves
some renames done and others not, and `finish_interrupted` (run by the
daemon at start, before it reads anything) completes them from the
manifest, so a batch is published whole or not at all. The spool's and
local delivery's batches need none: their files are independent.

How data is made durable (`Syncer`). Per-file fsync costs one disk flush
(on ext4 a journal commit) per file, and an order mail makes about eight
files. Linux's ``syncfs(2)`` makes everything written on one file system
durable in one call, so a batch costs two calls whatever its size. The
master's and the delivery's batches use it on Linux 5.8 and later (before
that, syncfs did not report write-back errors); elsewhere, or with
``GM_SYNC=fsync`` in the environment, each file is fsynced as it is written
(still with one fsync per directory per batch). syncfs also flushes other
programs' writes on the same file system: on a file system shared with
something that writes a lot, ``GM_SYNC=fsync`` bounds gm's waits by its
own writes. The spool fsyncs each message's file, unless ``GM_SYNC=syncfs``
(see `gm.pbem.data.store.Store.syncer`): a 250 waits for that mail only. syncfs
reports an error that happened since the file descriptor it is given was
opened, so each `Syncer` keeps a descriptor per file system, opened before
any file it vouches for is written, and each kind of writer (spool,
master, delivery) has its own, so that none of them takes an error report
meant for another.

A batch whose commit fails (an I/O error from a barrier, a rename refused)
raises `CommitError`: what the thread has done in memory is then ahead of
what is durable, and the caller must not go on as if the batch were done
(the spool answers 4xx; the master stops the daemon, which restarts from
what is durable, as after a crash). Only a full disk (writing the manifest,
or a rename that needs a new directory block) is not fatal for the master's
batch: the OSError leaves the batch as it is, to be committed first by the
next pass (`gm.pbem.data.store.Store.commit_pending`); its data barrier was not
passed, or its manifest is durable, so it is never half relied on.

Whatever else the master makes durable while a batch is open must go
through the batch (a `DurableMaildir` or `gm.pbem.data.store.Markers`), or be
written after its commit: a file written durably beside a batch could
survive a crash that the batch does not, and describe a state that is not
on disk. Files that need not survive a power cut (the attempts table, the
daily counts) may be written directly.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import mailbox
import os
import platform
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

_HOST = socket.gethostname().replace("/", "_").replace(":", "_") or "localhost"


def fsync_dir(path: Path) -> None:
    """Make a directory's entries (a rename, a new file) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def unix_lines(data: bytes) -> bytes:
    """A message with the line ends mail programs expect in a Maildir on
    Unix (LF, not the CRLF of the wire). gm keeps its games and its local
    deliveries so; `gm replay` compares in this form, and the master reads
    a player's mail in it (`gm.pbem.master.incoming.Incoming.stored`)."""
    return data.replace(b"\r\n", b"\n")


# Making data durable


def _linux_at_least(major: int, minor: int) -> bool:
    if platform.system() != "Linux":
        return False
    try:
        found = tuple(int(part) for part in platform.release().split("-")[0].split(".")[:2])
    except ValueError:
        return False
    return found >= (major, minor)


def _load_syncfs():
    """libc's syncfs, or None where there is none (or it hides write errors)."""
    if not _linux_at_least(5, 8):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int]
    function.restype = ctypes.c_int
    return function


_syncfs = _load_syncfs()


def sync_mode() -> str:
    """``syncfs`` or ``fsync`` (see the module's docstring); ``GM_SYNC`` in
    the environment may ask for ``fsync`` (or for ``syncfs`` where it exists)."""
    wanted = os.environ.get("GM_SYNC", "").strip().lower()
    if wanted == "fsync" or _syncfs is None:
        return "fsync"
    return "syncfs"


def no_crashpoint(name: str) -> None:
    """A `Syncer`'s crash points unless it is given others: nothing happens."""


class Syncer:
    """Makes files and directory entries durable, by syncfs (one call per
    file system) or fsync (one per file and per directory).

    Call `watch` with a file's directory before writing the file, `written`
    with its descriptor before closing it; then `data_barrier` makes every
    such file durable, and `name_barrier` the renames into the directories
    given. Not shared between threads that commit at the same time.

    ``crashpoint`` is called with the name of each step of a commit made
    through this syncer (see `Batch`): the crash tests' hook, which the
    edge gives (`gm.pbem.data.crashpoints`); storage knows nothing of it."""

    def __init__(self, mode: str | None = None, crashpoint: Callable[[str], None] = no_crashpoint):
        self.mode = mode or sync_mode()
        self.crashpoint = crashpoint
        self._device_of: dict[Path, int] = {}
        self._fds: dict[int, int] = {}
        """A descriptor per file system, opened before the first file
        written there, for syncfs to report errors since then."""
        self._lock = threading.Lock()

    def watch(self, directory: Path) -> None:
        if self.mode != "syncfs" or directory in self._device_of:
            return
        device = os.stat(directory).st_dev
        with self._lock:
            if device not in self._fds:
                self._fds[device] = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            self._device_of[directory] = device

    def written(self, fd: int) -> None:
        """A file was written through ``fd`` (still open)."""
        if self.mode == "fsync":
            os.fsync(fd)

    def _syncfs(self, directories: Iterable[Path]) -> None:
        for directory in directories:
            self.watch(directory)
        devices = {self._device_of[d] for d in directories}
        for device in sorted(devices):
            if _syncfs(self._fds[device]) != 0:  # type: ignore[misc]
                number = ctypes.get_errno()
                raise OSError(number, f"syncfs: {os.strerror(number)}")

    def data_barrier(self, directories: set[Path], entries: bool) -> None:
        """Make durable every file written (with `written`) into
        ``directories``; with ``entries``, also those files' names there
        (a manifest will look for them after a power cut)."""
        if self.mode == "syncfs":
            self._syncfs(directories)
        elif entries:  # each file was fsynced when written; its name in the staging folder:
            for directory in sorted(directories):
                fsync_dir(directory)

    def name_barrier(self, directories: set[Path]) -> None:
        """Make durable the renames into (and out of) ``directories``."""
        if self.mode == "syncfs" and len(directories) > 1:
            self._syncfs(directories)
        else:
            for directory in sorted(directories):
                fsync_dir(directory)

    def close(self) -> None:
        with self._lock:
            for fd in self._fds.values():
                os.close(fd)
            self._fds.clear()
            self._device_of.clear()


class CommitError(RuntimeError):
    """A batch could not be made durable (its cause is the OSError)."""


# Staged files and batches


class _Place(Protocol):
    """A folder whose additions can be staged: a DurableMaildir or a Markers."""

    path: Path

    def _published(self, key: str) -> None: ...

    def _removed(self, key: str) -> None: ...


@dataclass
class Staged:
    """A file written where nothing looks, waiting to be renamed into place."""

    owner: _Place
    key: str
    tmp: Path
    target: Path
    published: bool = False
    """Renamed into place (a commit cut short may have done some)."""


_counter = iter(range(1, 1 << 62))
_counter_lock = threading.Lock()
_PROCESS = f"{os.getpid()}-{time.time_ns():x}-{secrets.token_hex(4)}"
"""This process among all that ever wrote here (a pid is reused after a restart)."""


def staging_name(key: str) -> str:
    """A name no other staged file has had or will have (the manifest of a
    batch cut short may be completed long after, so names are never reused)."""
    with _counter_lock:
        number = next(_counter)
    return f"{key}.{_PROCESS}.{number}.{_HOST}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_staged(syncer: Syncer, tmp: Path, data: bytes) -> None:
    """Write a new file to be published later (fsynced now in fsync mode)."""
    syncer.watch(tmp.parent)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            _write_all(fd, data)
            syncer.written(fd)
        finally:
            os.close(fd)
    except BaseException:
        _drop_half_written(tmp)
        raise


def _drop_half_written(tmp: Path) -> None:
    """Remove a file a write failed in: a half-written file (a full disk)
    would keep its space taken. A failure to remove it is not the fault
    being raised, so it is not raised."""
    with suppress(OSError):
        tmp.unlink(missing_ok=True)


def _manifest_text(lines: list[str]) -> bytes:
    body = "".join(line + "\n" for line in lines)
    return (body + "end " + hashlib.sha256(body.encode()).hexdigest() + "\n").encode()


def _relative(path: Path, root: str) -> str:
    text = str(path)
    return text[len(root):] if text.startswith(root) else os.path.relpath(text, root)


def _write_manifest(manifest: Path, root: Path, staged: list[Staged], syncer: Syncer) -> None:
    base = str(root) + os.sep
    lines = [json.dumps([_relative(s.tmp, base), _relative(s.target, base)]) for s in staged]
    syncer.watch(manifest.parent)
    fd = os.open(manifest, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        _write_all(fd, _manifest_text(lines))
        syncer.written(fd)
    finally:
        os.close(fd)


def finish_interrupted(manifest: Path, root: Path) -> int:
    """Complete the batch whose commit was cut short (by SIGKILL or a power
    cut) after its data barrier: every staged file its manifest names that
    is still staged is renamed into place, and that is made durable. A
    manifest that is torn (its digest does not match) was cut short before
    its data barrier, so nothing of its batch was published: it is ignored.
    Returns how many files were renamed. Only the daemon may call this,
    before it reads or writes anything: it is the only writer of batches."""
    try:
        text = manifest.read_bytes()
    except FileNotFoundError:
        return 0
    body = text.decode("utf-8", "replace").split("\n")[:-2]
    if not text or _manifest_text(body) != text:  # empty (done), or torn: nothing was published
        if text:
            os.truncate(manifest, 0)
        return 0
    renamed, folders = 0, set()
    for line in body:
        tmp_rel, target_rel = json.loads(line)
        tmp, target = root / tmp_rel, root / target_rel
        if tmp.exists():
            os.replace(tmp, target)
            renamed += 1
        folders.update({tmp.parent, target.parent})
    for folder in sorted(folders):
        if folder.is_dir():
            fsync_dir(folder)
    os.truncate(manifest, 0)
    fsync_dir(manifest.parent)
    return renamed


_local = threading.local()


def current_batch() -> Batch | None:
    """The batch open in this thread, if any."""
    return getattr(_local, "batch", None)


_RETRIED = (errno.ENOSPC, errno.EDQUOT)
"""A rename refused for want of space is retried by the next commit of the
same batch; any other failure to publish is a `CommitError`."""


@dataclass
class Batch:
    """A group commit: see the module's docstring. Used as a context
    manager, it is open in the thread that enters it, and committed when
    the block ends, also when an Exception ends it (what was staged before
    is as done in memory as it is on disk after the commit); on a
    BaseException that is no Exception (the process is being ended) it is
    left uncommitted, as a crash would leave it.

    ``label`` names the crash points: ``LABEL-synced`` (the data durable,
    nothing renamed), ``mid-LABEL-commit`` (after each rename) and
    ``after_commit`` (all durable, the removals not done), each passed to
    the syncer's ``crashpoint``. ``manifest``
    (with ``root``) makes the publication all or nothing; ``lock`` is held
    while files are renamed and until that is durable (the delivery takes
    it to list the outbox)."""

    syncer: Syncer
    label: str = "batch"
    manifest: Path | None = None
    root: Path | None = None
    lock: AbstractContextManager[Any] | None = None
    after_commit: str | None = None
    staged: dict[tuple[str, str], Staged] = field(default_factory=dict)
    """(folder, key) -> the staged file, in the order of staging."""
    removed: dict[tuple[str, str], tuple[_Place, Path]] = field(default_factory=dict)
    _manifest_durable: bool = False

    def __enter__(self) -> Batch:
        if current_batch() is not None:
            raise RuntimeError("a batch is already open in this thread")
        _local.batch = self
        return self

    def __exit__(self, kind, error, traceback) -> None:
        _local.batch = None
        if error is None or isinstance(error, Exception):
            self.commit()

    @property
    def unfinished(self) -> bool:
        """Whether something is staged or removed and not yet committed."""
        return bool(self.staged or self.removed)

    # What the thread's own view sees

    def state(self, owner: _Place, key: str) -> bool | None:
        """True if ``key`` was staged in ``owner`` by this batch, False if
        removed by it, None if the batch did not touch it."""
        if (str(owner.path), key) in self.staged:
            return True
        if (str(owner.path), key) in self.removed:
            return False
        return None

    def staged_file(self, owner: _Place, key: str) -> Path | None:
        item = self.staged.get((str(owner.path), key))
        return (item.target if item.published else item.tmp) if item else None

    def changes(self, owner: _Place) -> tuple[set[str], set[str]]:
        """(keys staged, keys removed) in ``owner``."""
        mine = str(owner.path)
        return ({k for (o, k) in self.staged if o == mine}, {k for (o, k) in self.removed if o == mine})

    # Changes

    def stage(self, item: Staged) -> None:
        self.removed.pop((str(item.owner.path), item.key), None)
        self.staged[(str(item.owner.path), item.key)] = item

    def remove(self, owner: _Place, key: str, path: Path | None) -> None:
        """``key`` leaves ``owner`` (``path`` being its published file, if any)."""
        item = self.staged.get((str(owner.path), key))
        if item is not None and not item.published:  # staged and removed in this batch: never published
            del self.staged[(str(owner.path), key)]
            item.tmp.unlink(missing_ok=True)
        elif item is not None:
            path = item.target
        if path is not None:
            self.removed[(str(owner.path), key)] = (owner, path)

    def commit(self) -> None:
        """Make the batch durable, then do its removals.

        Raises CommitError when the batch cannot be made durable. With a
        manifest, an OSError for want of space (writing the manifest, or a
        rename) leaves the batch as it is, to be committed again later
        (nothing of it relied on meanwhile)."""
        items = [item for item in self.staged.values() if not item.published]
        if items:
            self._publish(items)
        for item in self.staged.values():
            item.owner._published(item.key)
        self.staged = {}
        if self.manifest is not None and self._manifest_durable:
            self._manifest_durable = False
            with suppress(OSError):
                os.truncate(self.manifest, 0)  # durable with the next batch; harmless if it comes back
        if self.after_commit:
            self.syncer.crashpoint(self.after_commit)
        removed, self.removed = list(self.removed.items()), {}
        for (_, key), (owner, path) in removed:
            path.unlink(missing_ok=True)
            owner._removed(key)

    def _publish(self, items: list[Staged]) -> None:
        sources = {item.tmp.parent for item in items}
        if self.manifest is not None:
            assert self.root is not None
            if not self._manifest_durable:
                _write_manifest(self.manifest, self.root, list(self.staged.values()), self.syncer)
            sources.add(self.manifest.parent)
        try:
            self.syncer.data_barrier(sources, entries=self.manifest is not None)
        except OSError as error:
            raise CommitError(f"the data of {len(items)} files could not be made durable: "
                              f"{error.strerror or error}") from error
        self._manifest_durable = self.manifest is not None
        self.syncer.crashpoint(f"{self.label}-synced")
        with self.lock or nullcontext():
            for item in items:
                try:
                    os.replace(item.tmp, item.target)
                except OSError as error:
                    if self.manifest is not None and error.errno in _RETRIED:
                        raise
                    raise CommitError(f"{item.target} could not be published: {error.strerror or error}") from error
                item.published = True
                self.syncer.crashpoint(f"mid-{self.label}-commit")
            targets = {item.target.parent for item in items}
            # With a manifest the staging folders too: a staged file that came
            # back after a power cut would be published again by it.
            try:
                self.syncer.name_barrier(targets | sources if self.manifest is not None else targets)
            except OSError as error:
                raise CommitError(f"{len(items)} files published could not be made durable: "
                                  f"{error.strerror or error}") from error

    def discard(self) -> None:
        """Give the batch up (it was not committed): its staged files are
        deleted, its removals forgotten. Not for a batch with a manifest
        that may be durable (`finish_interrupted` would complete it)."""
        for item in self.staged.values():
            if not item.published:
                item.tmp.unlink(missing_ok=True)
        self.staged, self.removed = {}, {}


def publish(staged: list[Staged], syncer: Syncer, label: str) -> None:
    """Commit files staged by several threads (the spool's group commit):
    one data barrier, the renames, one name barrier. On failure (a
    CommitError) the files not published are deleted."""
    batch = Batch(syncer, label=label)
    for item in staged:
        batch.stage(item)
    try:
        batch.commit()
    except BaseException:
        batch.discard()
        raise


# Maildirs


class DurableMaildir:
    """A Maildir whose additions are durable when `add` returns (or, in a
    `Batch`, when the batch is committed).

    Keys are file names in ``new/`` or ``cur/`` without the ``:2,`` info
    suffix; `keys` lists them sorted, so callers that need an order name
    their files so that it sorts (gm's archives start each name with a
    zero-padded sequence number).

    The keys are also kept in memory once listed, so that checking for a key
    (which every idempotent write does) costs no directory scan; gm is the
    only writer of its Maildirs, and `keys` always reads the disk again (the
    spool also receives files from ``gm new`` in another process).
    """

    def __init__(self, path: str | os.PathLike[str], create: bool = True):
        self.path = Path(path)
        self._known: set[str] | None = None
        self._syncer: Syncer | None = None
        if create:
            for sub in ("tmp", "new", "cur"):
                (self.path / sub).mkdir(parents=True, exist_ok=True)
            fsync_dir(self.path)
            fsync_dir(self.path.parent)
        elif not (self.path / "new").is_dir():
            raise FileNotFoundError(f"{self.path} is not a Maildir (no new/ folder)")

    @staticmethod
    def _check(key: str) -> None:
        if "/" in key or ":" in key or key.startswith("."):
            raise ValueError(f"bad Maildir key {key!r}")

    def _target(self, key: str, seen: bool) -> Path:
        return self.path / "cur" / f"{key}:2,S" if seen else self.path / "new" / key

    def add(self, data: bytes, key: str, seen: bool = False) -> str:
        """Store ``data`` under ``key`` durably, unless the key exists already.

        Returns the key. A message stored as seen goes to ``cur/`` with the
        ``S`` flag, so a mail client shows gm's own archive as read. In a
        batch the file is staged, and durable once the batch is committed."""
        self._check(key)
        if key in self:
            return key
        batch = current_batch()
        if batch is not None:
            tmp = self.path / "tmp" / staging_name(key)
            write_staged(batch.syncer, tmp, data)
            batch.stage(Staged(self, key, tmp, self._target(key, seen)))
            return key
        tmp = self.path / "tmp" / f"{key}.{os.getpid()}.{_HOST}"
        try:
            with open(tmp, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            _drop_half_written(tmp)
            raise
        target = self._target(key, seen)
        os.replace(tmp, target)
        fsync_dir(target.parent)
        self._published(key)
        return key

    def stage(self, data: bytes, key: str, syncer: Syncer) -> Staged:
        """Write ``data`` for ``key`` where nothing looks, for `publish` to
        rename into ``new/`` (with other files, by a group commit)."""
        self._check(key)
        tmp = self.path / "tmp" / staging_name(key)
        write_staged(syncer, tmp, data)
        return Staged(self, key, tmp, self._target(key, False))

    def forget(self) -> None:
        """Forget the keys known in memory: the next look reads the disk."""
        self._known = None

    def _published(self, key: str) -> None:
        if self._known is not None:
            self._known.add(key)

    def _removed(self, key: str) -> None:
        if self._known is not None:
            self._known.discard(key)

    def _find(self, key: str) -> Path | None:
        batch = current_batch()
        if batch is not None:
            if batch.state(self, key) is False:
                return None
            staged = batch.staged_file(self, key)
            if staged is not None:
                return staged
        cur = self.path / "cur"
        # gm writes only these two names; a mail client that changed a
        # message's flags is caught by the scan below.
        for candidate in (self.path / "new" / key, cur / f"{key}:2,S", cur / key):
            if candidate.exists():
                return candidate
        for candidate in cur.glob(f"{glob_escape(key)}:2,*"):
            return candidate
        return None

    def __contains__(self, key: str) -> bool:
        batch = current_batch()
        if batch is not None:
            state = batch.state(self, key)
            if state is not None:
                return state
        if self._known is None:
            self._scan()
        return key in self._known  # type: ignore[operator]

    def _scan(self) -> set[str]:
        names = set()
        for sub in ("new", "cur"):
            for entry in os.scandir(self.path / sub):
                if not entry.name.startswith("."):
                    names.add(entry.name.split(":2,")[0])
        self._known = set(names)
        return names

    def keys(self) -> list[str]:
        names = self._scan()
        batch = current_batch()
        if batch is not None:
            staged, removed = batch.changes(self)
            names = (names | staged) - removed
        return sorted(names)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def get_bytes(self, key: str) -> bytes:
        path = self._find(key)
        if path is None:
            raise KeyError(key)
        return path.read_bytes()

    def file_of(self, key: str) -> Path:
        path = self._find(key)
        if path is None:
            raise KeyError(key)
        return path

    def remove(self, key: str) -> None:
        """Delete a message durably (no error if it is already gone). In a
        batch it is deleted once the batch is durable, not made durable
        itself (see the module's docstring)."""
        batch = current_batch()
        if batch is not None:
            if batch.state(self, key) is False:
                return
            staged = batch.staged_file(self, key) is not None
            path = None if staged else self._find(key)
            batch.remove(self, key, path)
            return
        path = self._find(key)
        if path is not None:
            path.unlink(missing_ok=True)
            fsync_dir(path.parent)
        self._removed(key)

    def mailbox(self) -> mailbox.Maildir:
        """The standard library's view of this Maildir, for reading and export."""
        return mailbox.Maildir(self.path, factory=None, create=False)


def glob_escape(text: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in text)
