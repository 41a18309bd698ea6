"""Caps against floods, loops and mail aimed at third parties, kept on disk.

Counts are per UTC day and per normalized address, and survive a restart:
an auto-responder must not get a fresh allowance each time the daemon
starts. They live in ``DATA/limits/YYYY-MM-DD`` (one ``name<TAB>count``
line each), rewritten whole and renamed into place after each change. The
file is not fsynced: a power cut may forget the last few counts, which lets
a few more mails through once; a crash of the process forgets nothing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ..kernel.addresses import mail_address


@dataclass(frozen=True)
class Limits:
    """Caps against floods and loops."""

    replies_per_day: int = 50
    """Mails a day handled from one address; past that they go to the shunt."""
    answers_outside_games_per_day: int = 1
    """Mails a day the GM sends an address about no game: a games list, the
    confirmation of a challenge, how to send orders."""
    challenges_per_day: int = 3
    """Confirmed challenges a day that reach any one address."""


def normalized(text: str) -> str | None:
    """The one mail address ``text`` names (`gm.kernel.addresses`, the
    project's one address policy), lower-cased to count and compare by, or
    None when it names none or several: ``<Victim@X.example>,`` is
    ``victim@x.example``; ``a@x.example, b@y.example`` is None."""
    address = mail_address(text)
    return address.lower() if address else None


class DailyCounts:
    """Durable per-day counters (see the module's docstring)."""

    def __init__(self, path: Path):
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self._day: str | None = None
        self._counts: dict[str, int] = {}

    def add(self, at: datetime, name: str) -> int:
        """Count one more ``name`` on ``at``'s day; returns the day's count."""
        self._load(at.strftime("%Y-%m-%d"))
        key = " ".join(name.split())  # one line per counter, whatever the address held
        self._counts[key] = self._counts.get(key, 0) + 1
        self._save()
        return self._counts[key]

    def _load(self, day: str) -> None:
        if day == self._day:
            return
        self._day, self._counts = day, {}
        try:
            text = (self.path / day).read_text(encoding="utf-8")
        except FileNotFoundError:
            text = ""
        for line in text.splitlines():
            name, _, count = line.rpartition("\t")
            if name and count.isdigit():
                self._counts[name] = int(count)
        for old in self.path.iterdir():  # yesterday's counts are no longer needed
            if old.name < day and not old.name.startswith("."):
                old.unlink(missing_ok=True)

    def _save(self) -> None:
        assert self._day is not None
        temporary = self.path / f".{self._day}.tmp"
        temporary.write_text("".join(f"{name}\t{count}\n" for name, count in sorted(self._counts.items())),
                             encoding="utf-8")
        os.replace(temporary, self.path / self._day)
