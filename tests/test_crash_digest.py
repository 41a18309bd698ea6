"""SIGKILL while the daily digest (issue 24) is sent: after the restart the
player has exactly one digest of the day, and its marker.

The daemon runs as a real process (`gm serve`) on the wall clock, as in
tests/test_crash.py, whose helpers these are; its ``--digest-time`` is set
a few seconds ahead (with a sub-second part), and the digest of the day
before is marked sent, so the one digest due is the timed one: the daemon
dies at the chosen step of sending it, after its time."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from gm.kernel.settings import PlayerSettings
from gm.pbem.data.store import Store
from gm.pbem.master.digests import latest_due, marker
from gmtest import ALICE
from test_crash import wait_for_crash, wait_until_idle
from test_digest_serve import a_game_and_a_digest_player, digest_time, digests, wait_for_digests

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = ["mid-handle:1", "between-messages:1", "batch-synced:1", "mid-batch-commit:1", "mid-batch-commit:2",
          "after-batch-commit:1", "delivery-synced:1", "mid-delivery-commit:1", "mid-delivery:1", "mid-sent:1"]
"""The steps of handling the digest's event (its mail queued and its marker
written in one batch) and of delivering its one mail, the last of them
(``mid-sent:1``) found by waiting for the death itself (`wait_for_crash`)."""


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_the_digest_is_sent_sends_it_once(tmp_path, point):
    root = tmp_path / "data"
    server = a_game_and_a_digest_player(root)
    due, day = digest_time(server)
    earlier = latest_due(PlayerSettings(reminders="digest"), due - timedelta(microseconds=1), due.time())[0]
    Store(root).handled.add(marker(ALICE, earlier.isoformat()))  # the day before's went: the timed one is due
    server.start(point)
    try:
        wait_for_crash(server)
        assert datetime.now(UTC) >= due, f"{point} fired before the digest's time"
        wait_for_digests(root, server, 1)
        time.sleep(0.5)
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1
    (digest,) = digests(root, ALICE)
    assert str(digest["Message-ID"]) == f"<{marker(ALICE, day)}@example.org>"
    assert marker(ALICE, day) in Store(root).handled
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
