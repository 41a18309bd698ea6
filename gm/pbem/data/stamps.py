"""What was derived from the files of some folders, kept while the folders
stay as they were: the GM's clock looks at every player's settings (the
digests, `gm.pbem.master.digests`) and every seek (their fills,
`gm.pbem.master.fills`) each time it wakes, and without this that cost
would grow with the data.

The folders' records are written once and never changed in place (a
Maildir's message, a marker in ``handled/``): a change is a file renamed
into a folder or removed from it, which changes the folder's own times. So a
folder's stamp (its device, inode, size, mtime and ctime) says whether
anything in it changed, whichever process changed it (``gm`` commands, or
another master). A stamp is trusted only when the folder stayed unchanged
for `SETTLED_NS` before it was taken: a change within the file system's
timestamp granularity after it could keep the same times. The ctime
cannot be set back by a program, so a folder restored over the old one is
no match either.

Inside a batch (`gm.storage.batches.Batch`) the thread sees files its
batch staged, which the folders do not show yet: nothing is kept then.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Generic, TypeVar

from ...storage.batches import current_batch

SETTLED_NS = 2_000_000_000
"""How long the folders must have stayed unchanged before their stamp is
trusted (nanoseconds): more than the coarsest timestamp granularity of the
file systems gm runs on."""

Stamp = tuple[int, ...]
T = TypeVar("T")


def settled_stamp(folders: Sequence[Path]) -> Stamp | None:
    """The stamp of ``folders`` now, when none of them changed within
    `SETTLED_NS` of now (nor after it: a clock set back); else None (also
    when one is missing)."""
    now = time.time_ns()
    found: list[int] = []
    for folder in folders:
        try:
            status = os.stat(folder)
        except OSError:
            return None
        if max(status.st_mtime_ns, status.st_ctime_ns) > now - SETTLED_NS:
            return None
        found += [status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns]
    return tuple(found)


class FolderCache(Generic[T]):
    """Values derived from the files of folders, each kept with the stamp
    the folders had before it was derived, and derived again once that
    stamp no longer holds (or could not be trusted)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[Path, ...], tuple[Stamp, T]] = {}

    def get(self, folders: Sequence[Path], derive: Callable[[], T]) -> T:
        """What ``derive`` gives, derived again only when a file of ``folders`` may have changed."""
        if current_batch() is not None:
            return derive()
        key = tuple(folders)
        found = settled_stamp(key)  # before deriving: a change while it reads makes the next stamp differ
        kept = self._kept.get(key)
        if found is not None and kept is not None and kept[0] == found:
            return kept[1]
        value = derive()
        if found is None:
            self._kept.pop(key, None)
        else:
            self._kept[key] = (found, value)
        return value
