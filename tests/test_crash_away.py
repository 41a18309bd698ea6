"""SIGKILL while a vacation for all games is confirmed, or a deputy agrees
(issue 24): after the restart the vacation (or the deputy) is kept once,
reaches each of the player's games once, and everyone is answered or told
once; each game replays from its own archive.

As tests/test_crash_settings.py: the games and the request are made by a
daemon that does not crash, then one restarted with GM_CRASH_AT handles the
player's ``confirm`` and dies at the chosen step."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gm.kernel.values import Options
from gm.mail.reading import parse_message
from gm.pbem.data.settings import settings_of
from gm.pbem.data.store import Store
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM
from test_crash import Server, wait_until_idle
from test_crash_seeks import POINTS as SEEK_POINTS
from test_crash_seeks import mail, subjects

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = [*SEEK_POINTS, "after-archive:1", "after-apply:2", "after-queue:2"]
"""The seek's points, and those of the absence events the confirmation spools into the two games."""


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_a_vacation_is_confirmed_reaches_each_game_once(tmp_path, point):
    root = tmp_path / "data"
    store = Store(root)
    for _ in range(2):
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(None)
    try:
        wait_until_idle(server, root)
        mail(server, root, ALICE, "vacation 10d")
    finally:
        server.stop()
    assert server.crashes == 0
    server.start(point)
    try:
        mail(server, root, ALICE, "confirm", answering="[gm] Confirm your vacation")
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {point} never fired"
    store = Store(root)
    assert len(store.settings.keys()) == 1
    for game_id in ("g1", "g2"):
        archive = store.archive(game_id)
        kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
        assert kinds.count("absence") == 1, (game_id, kinds)
        count, differences = verify_replay(str(root / "games" / game_id))
        assert count and not differences, differences
    assert subjects(root, ALICE).count("[gm] Your vacation") == 1
    told = [s for s in subjects(root, BOB) if "Player 1 is away until" in s]
    assert len(told) == 2 and {s.split("]")[0] for s in told} == {"[gm g1", "[gm g2"}
    assert not [s for s in subjects(root, ALICE) + subjects(root, BOB) if "Refused" in s]
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())


CAROL = "carol@example.com"


@pytest.mark.parametrize("point", [*SEEK_POINTS, "after-archive:1"])
def test_sigkill_while_a_deputy_agrees_names_them_once_in_each_game(tmp_path, point):
    root = tmp_path / "data"
    store = Store(root)
    for _ in range(2):
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(None)
    try:
        wait_until_idle(server, root)
        mail(server, root, ALICE, f"deputy {CAROL}")
        mail(server, root, ALICE, "confirm", answering="[gm] Confirm your deputy")
    finally:
        server.stop()
    assert server.crashes == 0
    server.start(point)
    try:
        mail(server, root, CAROL, "confirm", answering="[gm] Will you be a deputy?")
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {point} never fired"
    store = Store(root)
    assert settings_of(store, ALICE).deputy == CAROL and len(store.settings.keys()) == 1
    for game_id in ("g1", "g2"):
        archive = store.archive(game_id)
        kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
        assert kinds.count("settings") == 1, (game_id, kinds)
        count, differences = verify_replay(str(root / "games" / game_id))
        assert count and not differences, differences
    assert subjects(root, ALICE).count("[gm] Your deputy") == 1
    assert subjects(root, CAROL).count(f"[gm] You are {ALICE}'s deputy") == 1
    assert all("deputy" not in s for s in subjects(root, BOB))
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
