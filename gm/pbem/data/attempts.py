"""How often handling each spooled message has begun: the master's record
of the messages it died on (`Attempts`), apart from `gm.pbem.data.store`,
which keeps one per master (``attempts/``, or ``masters/K/attempts/``)."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from ...logs import event

_UNUSABLE = (IsADirectoryError, NotADirectoryError, PermissionError)
"""What opening the table may fail with that no waiting mends (a directory
in its place): the counts are then kept in memory only, rather than pause
the spool as a full disk does."""


class Attempts:
    """How many times handling each spooled message has begun, for the
    messages whose handling began and did not end (normally none, or the
    one being handled): a small table in ``attempts/in-progress``, written
    whole at each change with one write at its start (a process killed
    meanwhile leaves it whole; its first line says how many lines follow,
    so that a shorter table written over a longer one needs no truncation
    to be read right). Not fsynced: it must survive the process being
    killed (the page cache does), not a power cut (which merely allows
    another attempt). Files ``attempts/KEY`` holding a count (from before
    the table) are read once and then taken into it.

    A table that does not read whole (a line of another shape, fewer lines
    than its first says, bytes that are no table) is logged once and read
    for the lines that do: its counts only ever allow another attempt, and
    it is written whole at the next change. One that cannot be opened (a
    directory in its place) is logged, and the counts are kept in memory:
    a message that kills gm is then not known to have done so by the next
    process, which is what deleting the table costs too.

    A message whose handling began and did not end in an earlier process
    was being handled when gm died (`died`): the master then handles it
    alone, in a batch of its own, and counts those attempts apart (a third
    column), so that the poison rule blames a message only for deaths that
    were its own doing, not for a crash that caught it in a batch with
    others."""

    TABLE = "in-progress"

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._counts: dict[str, int] = {}
        self._alone: dict[str, int] = {}
        self._fd: int | None = None
        """The table's file; -1: it cannot be opened, the counts are in memory only."""
        self._legacy: list[Path] = []

    def _open(self) -> int:
        if self._fd is not None:
            return self._fd
        table = self.path / self.TABLE
        try:
            fd = os.open(table, os.O_RDWR | os.O_CREAT, 0o644)
        except _UNUSABLE as error:
            event("attempts table unusable", logging.WARNING, file=str(table), reason=error.strerror or str(error),
                  note="the attempts at each mail are counted in memory only")
            self._fd = -1
            return self._fd
        text = os.pread(fd, 1 << 20, 0)
        lines = text.decode("utf-8", "replace").split("\n")
        first = lines[0].strip()
        said = int(first) if first.isdigit() else 0
        counted = lines[1:1 + said]
        damaged = bool(text) and (not first.isdigit() or len(counted) < said)
        for line in counted:
            fields = line.split("\t")
            if len(fields) == 3 and fields[2].isdigit():
                key, number, alone = fields
            else:
                (key, _, number), alone = line.rpartition("\t"), "0"
            if key and number.isdigit():
                self._counts[key] = int(number)
                if int(alone):
                    self._alone[key] = int(alone)
            else:
                damaged = True
        if damaged:
            event("attempts table damaged", logging.WARNING, file=str(table),
                  note="its lines that read are kept; it is written whole at its next change")
        for old in self.path.iterdir():  # one file per key, from before the table
            if old.name != self.TABLE and not old.name.startswith("."):
                try:
                    count = int(old.read_text() or 0)
                except (OSError, ValueError):
                    count = 0
                self._counts[old.name] = max(self._counts.get(old.name, 0), count)
                self._legacy.append(old)
        self._fd = fd
        if self._legacy:
            self._write()
            for old in self._legacy:
                old.unlink(missing_ok=True)
            self._legacy = []
        return fd

    def _write(self) -> None:
        assert self._fd is not None
        if self._fd < 0:
            return
        lines = [f"{key}\t{count}" + (f"\t{self._alone[key]}" if key in self._alone else "")
                 for key, count in sorted(self._counts.items()) if "\n" not in key and "\t" not in key]
        text = f"{len(lines)}\n" + "".join(line + "\n" for line in lines)
        os.pwrite(self._fd, text.encode(), 0)

    def begin(self, key: str, alone: bool = False) -> int:
        """Count one more attempt at ``key`` (one ``alone``, if it is); returns
        the count, this one included."""
        self._open()
        self._counts[key] = self._counts.get(key, 0) + 1
        if alone:
            self._alone[key] = self._alone.get(key, 0) + 1
        self._write()
        return self._counts[key]

    def died(self, key: str) -> bool:
        """Whether handling ``key`` began and never ended: gm died during it."""
        self._open()
        return key in self._counts

    def alone(self, key: str) -> int:
        """The attempts at ``key`` begun alone (`begin`), the current one included."""
        self._open()
        return self._alone.get(key, 0)

    def end(self, key: str) -> None:
        self._open()
        self._alone.pop(key, None)
        if self._counts.pop(key, None) is not None:
            self._write()

    def pending(self) -> dict[str, int]:
        """The counts of messages whose handling began and did not end."""
        self._open()
        return dict(self._counts)
