"""A seek that fills its empty seats with robots, on the wall clock of a real
daemon (issue 25): the fill event fires from the master's timer at the fill
time (a moment with sub-second parts, a few seconds after the seek), and
runs exactly once even when the daemon is SIGKILLed while running it.

`gm serve` runs as its own process, with the league crash tests' scaffold
(tests/crash_league.py). Names, the seek and Bob's joining are mailed first; then
either the daemon keeps running and the fill is timed, or it is stopped and
started again after the fill time with GM_CRASH_AT, so that the fill is
what it is killed in, and restarted without it."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import pytest

from crash_league import each_sent_once, games_made, mail, named_seek, serving, subjects
from gm.pbem.data.seeks import stored_seek
from gm.pbem.data.store import Store
from gmtest import ALICE, BOB
from test_crash import WAIT, Server, delivered, wait_until_idle

pytestmark = pytest.mark.slow  # a real daemon, waiting for the wall clock, SIGKILLed at each point

FILL = 12
"""Seconds from the seek to its fill time: the four mails before it must fit."""
POINTS = [None, "mid-fill:1", "mid-handle:1", "batch-synced:1", "mid-batch-commit:2", "after-batch-commit:1"]


def begun(root, address: str) -> list[str]:
    return [s for s in subjects(root, address) if re.fullmatch(r"\[gm\] Game g\d+ begins: seek s[0-9a-f]{10}", s)]


def wait_for_begun(server: Server, root) -> datetime:
    """Until both people were told the game began (restarting the daemon
    after a crash); the wall-clock time that was seen."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        server.alive()
        if begun(root, ALICE) and begun(root, BOB):
            return datetime.now(UTC)
        time.sleep(0.02)
    raise AssertionError("the fill never ran")


@pytest.mark.parametrize("point", POINTS)
def test_a_seeks_fill_begins_its_game_once_on_the_wall_clock(tmp_path, point):
    root = tmp_path / "data"
    server = Server(root, None)
    with serving(server):
        seek_id = named_seek(server, root, "seek celestial-empire\nvariant standard+turns=3\nempires 4\n"
                                           f"fill {FILL}s\nlevel easy\n")
        mail(server, root, BOB, f"accept {seek_id}")
        mail(server, root, BOB, "confirm", answering="[gm] Confirm you take")
        seek = stored_seek(Store(root), seek_id)
        assert seek is not None and seek.filling is not None
        fill = seek.filling.fill
        assert fill.microsecond, "the fill time runs from the seek mail's arrival, to the microsecond"
        assert datetime.now(UTC) < fill, "the mails before the fill time took longer than it"
        assert not begun(root, ALICE)
        if point is None:
            seen = wait_for_begun(server, root)
            assert fill <= seen < fill + timedelta(seconds=5), (fill, seen)
            wait_until_idle(server, root)
    if point is not None:
        time.sleep(max(0.0, (fill - datetime.now(UTC)).total_seconds()) + 0.3)
        with serving(server, point):
            wait_for_begun(server, root)
            wait_until_idle(server, root)
    (game_id,) = games_made(Store(root))
    for address in (ALICE, BOB):
        assert begun(root, address) == [f"[gm] Game {game_id} begins: seek {seek_id}"]
        assert subjects(root, address).count("The game begins: turn 1") <= 1
        firsts = [m for m in delivered(root) if address in str(m["To"]) and str(m["X-GM-Game"]).strip() == game_id
                  and "game begins" in str(m["Subject"])]
        assert len(firsts) == 1, subjects(root, address)
    each_sent_once(root)
    assert not list((root / "shunt" / "new").iterdir())
