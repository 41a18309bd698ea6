"""SIGKILL while a seek is being taken (issue 23): after the restart there
is exactly one game, made once, and each player told once.

The daemon runs as a real process (`gm serve`), with the league crash
tests' scaffold (tests/crash_league.py): names and a seek are set up by a
daemon that does not crash, then one restarted with GM_CRASH_AT handles the
taker's confirmation and dies at the chosen step."""

from __future__ import annotations

import pytest

from crash_league import each_sent_once, games_made, mail, named_seek, serving, subjects
from gm.pbem.data.store import Store
from gmtest import ALICE, BOB
from test_crash import Server

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = ["after-spool:1", "mid-handle:1", "after-queue:1", "between-messages:1", "batch-synced:1",
          "mid-batch-commit:1", "mid-batch-commit:3", "after-batch-commit:1", "batch-synced:2",
          "mid-batch-commit:5", "mid-delivery:2", "mid-sent:1"]


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_a_seek_is_taken_makes_one_game(tmp_path, point):
    root = tmp_path / "data"
    server = Server(root, None)
    with serving(server):
        seek_id = named_seek(server, root, "seek spaceships")
        mail(server, root, BOB, f"accept {seek_id}")
    with serving(server, point):
        mail(server, root, BOB, "confirm", answering="[gm] Confirm you take")
    # One game (a crash may leave the id reserved before it unused, as a challenge's does).
    (game_id,) = games_made(Store(root))
    assert subjects(root, ALICE).count("[gm] Ishmael took your seek") == 1
    assert subjects(root, BOB).count("[gm] You took Ahab's seek") == 1
    for address in (ALICE, BOB):
        invitations = [s for s in subjects(root, address) if s.startswith(f"[gm {game_id}] Invitation")]
        assert len(invitations) == 1, subjects(root, address)
    # Nobody is told anything twice, nor told the redone confirmation was refused.
    assert not [s for s in subjects(root, ALICE) + subjects(root, BOB) if "Refused" in s]
    each_sent_once(root)
