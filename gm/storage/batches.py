"""Staged files and group commit (`Batch`, `publish`), and the manifest that
makes a batch's publication all or nothing (`finish_interrupted`).

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
   The master's batches (``remove_later``) only rename such a file out of
   its Maildir, into that Maildir's ``tmp/`` under a ``gone.`` name, and
   leave the unlink to a thread of its own (`gm.storage.removals`): on ext4 under
   a stream of fsyncs, unlinking a file takes 0.7 to 3 ms (the inode and
   its blocks are freed through the journal), renaming it 0.01 to 0.03 ms,
   and the master waits for every call it makes. A process that dies
   leaves its ``gone.`` files, which the next start deletes.

A file is never published (renamed into a place where anything relies on
it) before its data is durable, so a power cut never leaves a torn file in
``new/`` or ``cur/``. The master's batches also have a manifest, written and
made durable with the data: a power cut (or SIGKILL) during step 3 leaves
some renames done and others not, and `finish_interrupted` (run by the
daemon at start, before it reads anything) completes them from the
manifest, so a batch is published whole or not at all. The spool's and
local delivery's batches need none: their files are independent.

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

import errno
import hashlib
import json
import logging
import os
import re
import secrets
import socket
import threading
import time
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from ..logs import event
from . import removals
from .syncing import Syncer, fsync_dir

HOST = socket.gethostname().replace("/", "_").replace(":", "_") or "localhost"
"""This host, as the names of staged files carry it (the Maildir way)."""


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
    """A file written where nothing looks, waiting to be renamed into place.

    Its paths may be strings: a Maildir joins them as strings, which costs
    a fraction of making Path objects for every file of every batch."""

    owner: _Place
    key: str
    tmp: Path | str
    target: Path | str
    published: bool = False
    """Renamed into place (a commit cut short may have done some)."""
    tmp_dir: str = ""
    """The folder of ``tmp`` (found from it if not given)."""
    target_dir: str = ""
    """The folder of ``target`` (found from it if not given)."""

    def __post_init__(self) -> None:
        if not self.tmp_dir:
            self.tmp_dir = os.path.dirname(self.tmp)
        if not self.target_dir:
            self.target_dir = os.path.dirname(self.target)


_counter = iter(range(1, 1 << 62))
_counter_lock = threading.Lock()
_PROCESS = f"{os.getpid()}-{time.time_ns():x}-{secrets.token_hex(4)}"
"""This process among all that ever wrote here (a pid is reused after a restart)."""


def staging_name(key: str) -> str:
    """A name no other staged file has had or will have (the manifest of a
    batch cut short may be completed long after, so names are never reused)."""
    with _counter_lock:
        number = next(_counter)
    return f"{key}.{_PROCESS}.{number}.{HOST}"


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_staged(syncer: Syncer, tmp: Path | str, data: bytes, folder: str = "") -> None:
    """Write a new file to be published later (fsynced now in fsync mode);
    ``folder``: its folder, when the caller knows it."""
    syncer.watch(folder or os.path.dirname(tmp))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            _write_all(fd, data)
            syncer.written(fd)
        finally:
            os.close(fd)
    except BaseException:
        drop_half_written(tmp)
        raise


def drop_half_written(tmp: Path | str) -> None:
    """Remove a file a write failed in: a half-written file (a full disk)
    would keep its space taken. A failure to remove it is not the fault
    being raised, so it is not raised."""
    with suppress(OSError):
        os.unlink(tmp)


def _manifest_text(lines: list[str]) -> bytes:
    body = "".join(line + "\n" for line in lines)
    return (body + "end " + hashlib.sha256(body.encode()).hexdigest() + "\n").encode()


def _relative(path: Path | str, root: str) -> str:
    text = os.fspath(path)
    return text[len(root):] if text.startswith(root) else os.path.relpath(text, root)


_PLAIN_NAME = re.compile(r'[^"\\\x00-\x1f\x7f-\U0010ffff]*')
"""A path json.dumps writes as it is, between quotes (printable ASCII, no
quote or backslash): every name gm makes."""


def _manifest_line(tmp: str, target: str) -> str:
    """``json.dumps([tmp, target])``, byte for byte, written directly for
    the plain names gm makes (a batch's every file has a line)."""
    if _PLAIN_NAME.fullmatch(tmp) and _PLAIN_NAME.fullmatch(target):
        return f'["{tmp}", "{target}"]'
    return json.dumps([tmp, target])


def _write_manifest(manifest: Path, root: Path, staged: list[Staged], syncer: Syncer) -> None:
    base = str(root) + os.sep
    lines = [_manifest_line(_relative(s.tmp, base), _relative(s.target, base)) for s in staged]
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
            event("batch manifest ignored", logging.WARNING, file=str(manifest), reason="torn or damaged",
                  note="its batch counts as never published: its mail is handled again from the spool")
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
    removed: dict[tuple[str, str], tuple[_Place, Path, str | None]] = field(default_factory=dict)
    """(folder, key) -> the place, its published file, and the folder to move it into (a Maildir's tmp/)."""
    remove_later: bool = False
    """Removals are renamed into their Maildir's ``tmp/`` and unlinked by
    another thread (see the module's docstring)."""
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
        return Path(item.target if item.published else item.tmp) if item else None

    def changes(self, owner: _Place) -> tuple[set[str], set[str]]:
        """(keys staged, keys removed) in ``owner``."""
        mine = str(owner.path)
        return ({k for (o, k) in self.staged if o == mine}, {k for (o, k) in self.removed if o == mine})

    # Changes

    def stage(self, item: Staged) -> None:
        self.removed.pop((str(item.owner.path), item.key), None)
        self.staged[(str(item.owner.path), item.key)] = item

    def remove(self, owner: _Place, key: str, path: Path | None, trash: str | None = None) -> None:
        """``key`` leaves ``owner`` (``path`` being its published file, if
        any; ``trash``, the folder it may be moved into before it is
        unlinked: a Maildir's ``tmp/``)."""
        item = self.staged.get((str(owner.path), key))
        if item is not None and not item.published:  # staged and removed in this batch: never published
            del self.staged[(str(owner.path), key)]
            with suppress(FileNotFoundError):
                os.unlink(item.tmp)
        elif item is not None:
            path = Path(item.target)
        if path is not None:
            self.removed[(str(owner.path), key)] = (owner, path, trash)

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
        for (_, key), (owner, path, trash) in removed:
            if self.remove_later and trash is not None:
                removals.remove_later(path, trash)
            else:
                path.unlink(missing_ok=True)
            owner._removed(key)

    def _publish(self, items: list[Staged]) -> None:
        sources = {item.tmp_dir for item in items}
        if self.manifest is not None:
            assert self.root is not None
            if not self._manifest_durable:
                _write_manifest(self.manifest, self.root, list(self.staged.values()), self.syncer)
            sources.add(os.path.dirname(self.manifest))
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
            targets = {item.target_dir for item in items}
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
                with suppress(FileNotFoundError):
                    os.unlink(item.tmp)
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

