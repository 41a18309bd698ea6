"""Making data durable: fsync or syncfs, through the `Syncer` each kind of
writer has (the group commit that uses it is `gm.storage.batches`).

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
"""

from __future__ import annotations

import ctypes
import os
import platform
import threading
from collections.abc import Callable, Iterable
from pathlib import Path


def fsync_dir(path: Path | str) -> None:
    """Make a directory's entries (a rename, a new file) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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
        self._device_of: dict[str, int] = {}
        """The file system of each folder watched, by its path as a string."""
        self._fds: dict[int, int] = {}
        """A descriptor per file system, opened before the first file
        written there, for syncfs to report errors since then."""
        self._lock = threading.Lock()

    def watch(self, directory: Path | str) -> None:
        folder = os.fspath(directory)
        if self.mode != "syncfs" or folder in self._device_of:
            return
        device = os.stat(folder).st_dev
        with self._lock:
            if device not in self._fds:
                self._fds[device] = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
            self._device_of[folder] = device

    def written(self, fd: int) -> None:
        """A file was written through ``fd`` (still open)."""
        if self.mode == "fsync":
            os.fsync(fd)

    def _syncfs(self, directories: Iterable[Path | str]) -> None:
        folders = [os.fspath(d) for d in directories]
        for folder in folders:
            self.watch(folder)
        devices = {self._device_of[f] for f in folders}
        for device in sorted(devices):
            if _syncfs(self._fds[device]) != 0:  # type: ignore[misc]
                number = ctypes.get_errno()
                raise OSError(number, f"syncfs: {os.strerror(number)}")

    def data_barrier(self, directories: set[str], entries: bool) -> None:
        """Make durable every file written (with `written`) into
        ``directories``; with ``entries``, also those files' names there
        (a manifest will look for them after a power cut)."""
        if self.mode == "syncfs":
            self._syncfs(directories)
        elif entries:  # each file was fsynced when written; its name in the staging folder:
            for directory in sorted(directories):
                fsync_dir(directory)

    def name_barrier(self, directories: set[str]) -> None:
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
