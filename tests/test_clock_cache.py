"""The clock looks at every player's settings (the digests) and every seek
(their fills) each time it wakes; what it derives from them is kept while
their folders stay as they were (`gm.pbem.data.stamps`), so a wake reads
nothing of an unchanged folder, and a change another process makes on disk
(a ``gm`` command, another master) is seen at the next wake.

The other process here is a real one, writing through gm's own writers; the
folders' stamps are trusted only once they stayed unchanged for
`gm.pbem.data.stamps.SETTLED_NS` of the wall clock, which the tests wait."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gm.pbem.data import stamps
from gm.pbem.data.store import Store
from gm.pbem.master import digests, fills
from gm.pbem.master.game_master import GameMaster
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM

CAROL = "carol@example.com"
WRITERS = """
from datetime import datetime, timedelta
from gm.kernel.settings import PlayerSettings
from gm.league.filling import FillTerms
from gm.league.seeks import Seek
from gm.pbem.data.seeks import seek_record
from gm.pbem.data.settings import record
from gm.pbem.data.store import Store


def digest(store, address):
    record(store, f"From: {address}\\n\\nreminders digest\\n".encode(), address,
           PlayerSettings.from_fields({"reminders": "digest"}), "r" + address.split("@")[0])


def seek(store, seek_id, fill):
    fill = datetime.fromisoformat(fill)
    terms = FillTerms(4, fill, "normal", "")
    made = Seek(seek_id, "alice@example.com", "celestial-empire", "standard", "3d", False, True,
                fill - timedelta(days=1), fill, gm="gm@example.org", filling=terms)
    store.seeks.add(seek_record(b"From: alice@example.com\\n\\nseek celestial-empire\\n", made), seek_id)
    store.handled.add(f"confirmed-{seek_id}")
"""


def elsewhere(root: Path, code: str) -> None:
    """Run ``code`` (with `WRITERS` and ``store``, the data directory) in another process."""
    script = WRITERS + f"\nstore = Store({str(root)!r})\n" + textwrap.dedent(code)
    subprocess.run([sys.executable, "-P", "-c", script], check=True, timeout=60)


def settle() -> None:
    """Until what was written is older than a stamp must be to be trusted."""
    time.sleep(stamps.SETTLED_NS / 1e9 + 0.1)


class Counting:
    """A reader that counts its calls."""

    def __init__(self, reader):
        self.reader, self.calls = reader, 0

    def __call__(self, *args):
        self.calls += 1
        return self.reader(*args)


def test_digests_read_the_settings_again_only_when_another_process_changed_them(tmp_path, monkeypatch):
    root = tmp_path / "data"
    elsewhere(root, f"digest(store, {ALICE!r})\ndigest(store, {BOB!r})\n")
    master = GameMaster(Store(root), Identity(GM))
    reads = Counting(digests.all_settings)
    monkeypatch.setattr(digests, "all_settings", reads)
    settle()
    now = datetime.now(UTC)
    assert master.digests_due(now) == 2  # each one's digest of the day
    assert master.next_digest(now) is not None
    assert reads.calls == 1
    for _ in range(5):  # the clock wakes, nothing changed
        assert master.digests_due(now) == 0 and master.next_digest(now) is not None
    assert reads.calls == 1
    elsewhere(root, f"digest(store, {CAROL!r})\n")
    assert master.digests_due(now) == 1  # Carol's, at the next wake
    settle()
    before = reads.calls
    for _ in range(5):
        assert master.digests_due(now) == 0
    assert reads.calls == before + 1  # read once more, then kept under the new stamp


def test_fills_read_the_seeks_again_only_when_another_process_changed_them(tmp_path, monkeypatch):
    root = tmp_path / "data"
    first = datetime.now(UTC).replace(microsecond=417123) + timedelta(hours=1)
    elsewhere(root, f"seek(store, 's0123456789', {first.isoformat()!r})\n")
    master = GameMaster(Store(root), Identity(GM))
    reads = Counting(fills.stored_seek)
    monkeypatch.setattr(fills, "stored_seek", reads)
    settle()
    assert master.next_fill() == first
    assert reads.calls == 1
    for _ in range(5):
        assert master.next_fill() == first and master.fills_due(datetime.now(UTC)) == 0
    assert reads.calls == 1
    sooner = first - timedelta(minutes=30, microseconds=250001)
    elsewhere(root, f"seek(store, 's9876543210', {sooner.isoformat()!r})\n")
    assert master.next_fill() == sooner  # a new seek, at the next wake
    settle()
    assert master.next_fill() == sooner
    before = reads.calls
    assert master.next_fill() == sooner and reads.calls == before
    elsewhere(root, "store.handled.add('accepted-s9876543210')\n")  # its game began: only a marker changed
    assert master.next_fill() == first
    assert master.fills_due(first + timedelta(seconds=1)) == 1
