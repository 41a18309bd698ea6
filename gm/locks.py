"""Locks that hold between processes: ``flock`` on a file, beside a thread lock.

The daemon with several master processes (`gm.masters`) needs two:

- the *publishing* lock (`PublishingLock`): each master holds it shared
  while it renames a batch into place and makes that durable, the delivery
  holds it exclusive while it lists the outbox, so that it never sends a
  reply of a batch that is not yet durable (in one process a thread lock
  did this);
- the *generation* lock (`hold`): every master holds it shared for its whole
  life, and a daemon that starts takes it exclusive first, so that it never
  runs beside masters left behind by a daemon that was killed (they notice
  and stop, but may be finishing a batch).

A lock held with ``flock`` is released by the kernel when its process dies,
however it dies, so a SIGKILL never leaves one held.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path
from types import TracebackType


def hold(path: Path, exclusive: bool) -> int:
    """Open ``path`` (made if missing) and lock it, waiting as long as it
    takes; returns the descriptor, whose closing (or the process's end)
    releases the lock."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
    except BaseException:
        os.close(fd)
        raise
    return fd


def try_hold(path: Path, exclusive: bool) -> int | None:
    """As `hold`, but None at once when another process holds the lock."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


class PublishingLock:
    """The publishing lock of a data directory served by several master
    processes: a context manager, like the thread lock it stands for.

    A master (``exclusive`` False) that fails half way through publishing a
    batch (an OSError: a full disk) keeps holding it until a later
    publication succeeds: the files it renamed are then in place but not
    durable, and the delivery must not see them (in one process
    `gm.pbem.data.store.Store.batch_pending` told the delivery so)."""

    def __init__(self, path: Path, exclusive: bool):
        self.path = path
        self.exclusive = exclusive
        self._thread = threading.Lock()
        self._fd: int | None = None

    def __enter__(self) -> PublishingLock:
        self._thread.acquire()
        try:
            if self._fd is None:
                self._fd = hold(self.path, self.exclusive)
        except BaseException:
            self._thread.release()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        try:
            if error is None or self.exclusive:
                self.release()
        finally:
            self._thread.release()

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
