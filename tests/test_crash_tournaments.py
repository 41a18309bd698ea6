"""SIGKILL while a tournament's round starts (issue 23): after the restart
each pairing of the round has exactly one game, made once, and each player
one invitation.

The daemon runs as a real process (`gm serve`, with the league crash tests'
scaffold, tests/crash_league.py); a round-robin of four is recorded with
``gm tournament new`` while
it is stopped, and the daemon restarted with GM_CRASH_AT starts round 1 (one
batch: the games' requests and the round's record), then makes its games,
and dies at the chosen step of either."""

from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path

import pytest

from crash_league import games_made, serving
from gm.cli import main
from gm.pbem.data import tournaments as data
from gm.pbem.data.store import Store
from gmtest import ALICE, BOB
from test_crash import WAIT, Server, delivered, wait_until_idle

PLAYERS = [ALICE, BOB, "cy@example.com", "di@example.com"]
POINTS = ["batch-synced:1", "mid-batch-commit:1", "mid-batch-commit:2", "after-batch-commit:1",
          "after-archive:1", "after-queue:2", "batch-synced:2", "mid-batch-commit:4", "after-batch-commit:2"]


def round_made(server: Server, root: Path) -> None:
    """Until round 1 is recorded, both its games made, and everything sent (restarting after a crash)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        server.alive()
        store = Store(root)  # afresh: another process writes it
        rounds = data.rounds(store, "t1")
        if rounds and all(store.archive(g.game_id).keys() for g in rounds[0][1] if g.game_id):
            wait_until_idle(server, store.root)
            return
        time.sleep(0.05)
    raise AssertionError("round 1 was not started")


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_a_round_starts_makes_each_game_once(tmp_path, point):
    root = tmp_path / "data"
    server = Server(root, None)
    with serving(server):
        wait_until_idle(server, root)
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["tournament", "new", "--data", str(root), "--game", "spaceships", "--format", "round-robin",
                     "--players", *PLAYERS]) == 0
    with serving(server, point):
        round_made(server, root)
    store = Store(root)
    (_, games), = data.rounds(store, "t1")
    assert [(g.first, g.second) for g in games] == [(ALICE, "di@example.com"), (BOB, "cy@example.com")]
    assert sorted(games_made(store)) == sorted(g.game_id for g in games)  # no game made twice
    for address in PLAYERS:
        invitations = [m for m in delivered(root) if address in str(m["To"]) and "Invitation" in str(m["Subject"])]
        assert len(invitations) == 1, [str(m["Subject"]) for m in delivered(root)]
