"""The daily digest (issue 24) from the real ``gm serve`` on the wall clock:
the operator's ``--digest-time`` (which may hold seconds and their parts)
sets when it falls due, so a test reaches it without a test clock. The
digest of the player's day that fell due last goes at once, the next at its
time, one a day. tests/test_crash_digest.py kills the daemon while it sends
one."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path

from gm.kernel.settings import PlayerSettings
from gm.kernel.values import Options
from gm.pbem.data.settings import record
from gm.pbem.data.store import Store
from gm.pbem.master.digests import latest_due, marker
from gm.pbem.operator.admin import request_game
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM
from test_crash import WAIT, Server, delivered, wait_until_idle

LEAD = timedelta(seconds=5.25)
"""How far ahead of the start the digest time is set."""


def digests(root: Path, address: str) -> list:
    return [m for m in delivered(root) if address in str(m["To"]) and str(m["Message-ID"]).startswith("<digest-")]


def a_game_and_a_digest_player(root: Path) -> Server:
    """A game of Alice's and Bob's, made by a daemon that then stops, and
    Alice's choice of ``reminders digest`` kept as her confirmation keeps it
    (`gm.pbem.data.settings.record`)."""
    store = Store(root)
    request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(None)
    try:
        wait_until_idle(server, root)
    finally:
        server.stop()
    raw = f"From: {ALICE}\r\nTo: {GM}\r\nSubject: settings\r\n\r\nreminders digest\r\n".encode()
    record(store, raw, ALICE, PlayerSettings(reminders="digest"), "digest-test")
    return server


def digest_time(server: Server) -> tuple[datetime, str]:
    """A digest time `LEAD` ahead, with a sub-second part, given to ``server``; that moment and its day."""
    due = datetime.now(UTC) + LEAD
    server.args = ["--digest-time", due.time().isoformat()]
    return due, due.date().isoformat()


def wait_for_digests(root: Path, server: Server, count: int) -> None:
    deadline = time.monotonic() + WAIT
    while len(digests(root, ALICE)) < count:
        assert time.monotonic() < deadline, f"{len(digests(root, ALICE))} digests, not {count}"
        server.alive()
        time.sleep(0.05)
    wait_until_idle(server, root)


def test_gm_serve_sends_the_digest_at_its_time_on_the_wall_clock(tmp_path):
    root = tmp_path / "data"
    server = a_game_and_a_digest_player(root)
    due, day = digest_time(server)
    earlier = latest_due(PlayerSettings(reminders="digest"), due - timedelta(microseconds=1), due.time())[0]
    server.start(None)
    try:
        wait_for_digests(root, server, 1)  # the day's that fell due last: at once
        assert datetime.now(UTC) < due, "the machine was too slow to see the digest time come"
        (first,) = digests(root, ALICE)
        assert str(first["Message-ID"]) == f"<{marker(ALICE, earlier.isoformat())}@example.org>"
        assert str(first["Subject"]).startswith("[gm] 1 game") and "game g1:" in first.get_content()
        wait_for_digests(root, server, 2)  # today's, at its time
        second = digests(root, ALICE)[1]
        assert str(second["Message-ID"]) == f"<{marker(ALICE, day)}@example.org>"
        assert parsedate_to_datetime(str(second["Date"])) >= due.replace(microsecond=0)
        time.sleep(1.0)
        wait_until_idle(server, root)
        assert len(digests(root, ALICE)) == 2  # one a day
        assert not [m for m in delivered(root) if BOB in str(m["To"]) and "wait" in str(m["Subject"])]
    finally:
        server.stop()
    assert server.crashes == 0
