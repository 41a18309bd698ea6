"""Files a batch took out of their Maildirs, unlinked by a thread of their own.

The master's batches (`gm.storage.batches.Batch` with ``remove_later``) end
by removing the spooled messages they handled. On ext4 under a stream of
fsyncs (the spool's, while mail comes in), unlinking a file takes 0.7 to
3 ms: its inode and blocks are freed through the journal, which the
fsyncs keep busy. Renaming it takes 0.01 to 0.03 ms. So `remove_later`
renames the file out of its folder, into its Maildir's ``tmp/`` under a
name beginning ``gone.``, at once (it has left the Maildir: nothing lists
or finds it there), and one thread of this process unlinks it soon after,
while the master goes on.

Not durable either way, as before: a removal lost in a power cut brings
the message back, and its redo finds everything done. A process killed
before its thread caught up leaves ``gone.`` files in ``tmp/``, which the
daemon's next start deletes (`drop_gone`); a process that stops cleanly
waits for them first (`removed_later`).
"""

from __future__ import annotations

import os
import queue
import secrets
import threading
from contextlib import suppress
from pathlib import Path

GONE = "gone."
"""How the name of a file waiting in a Maildir's ``tmp/`` to be unlinked begins."""
_PROCESS = f"{os.getpid()}-{secrets.token_hex(4)}"
_numbers = iter(range(1, 1 << 62))
_gone: queue.SimpleQueue[str] = queue.SimpleQueue()
_waiting = 0
_lock = threading.Condition()
_thread: threading.Thread | None = None


def remove_later(path: Path, trash: str) -> None:
    """Take ``path`` out of its folder now (renamed into ``trash``, a
    Maildir's ``tmp/``) and unlink it soon, in this process's remover thread."""
    global _waiting, _thread
    with _lock:
        number = next(_numbers)
    gone = f"{trash}/{GONE}{path.name}.{_PROCESS}.{number}"
    try:
        os.replace(path, gone)
    except FileNotFoundError:
        return
    with _lock:
        _waiting += 1
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_unlink_gone, name="gm-remover", daemon=True)
            _thread.start()
    _gone.put(gone)


def _unlink_gone() -> None:
    global _waiting
    while True:
        gone = _gone.get()
        with suppress(OSError):
            os.unlink(gone)
        with _lock:
            _waiting -= 1
            if not _waiting:
                _lock.notify_all()


def removed_later(timeout: float | None = None) -> bool:
    """Wait until every removal left to the remover's thread is done (a
    process about to end calls this, so that it leaves no ``gone.`` file);
    whether they are."""
    with _lock:
        return _lock.wait_for(lambda: not _waiting, timeout)


def drop_gone(folder: Path) -> int:
    """Delete the ``gone.`` files a process that died left in ``folder`` (a
    Maildir's ``tmp/``); how many. For the daemon's start, before any
    master runs."""
    dropped = 0
    with suppress(FileNotFoundError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(GONE):
                with suppress(FileNotFoundError):
                    os.unlink(entry.path)
                dropped += 1
    return dropped
