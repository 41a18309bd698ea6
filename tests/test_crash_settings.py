"""SIGKILL while a player's settings are confirmed (issue 24): after the
restart the change is kept once, recorded once in each of the player's
games, and the player told once; each game replays from its own archive.

As tests/test_crash_seeks.py: the game and the request are made by a daemon
that does not crash, then one restarted with GM_CRASH_AT handles the
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
from test_crash import Server, wait_for_crash, wait_until_idle
from test_crash_seeks import POINTS as SEEK_POINTS
from test_crash_seeks import mail, subjects

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = [point.replace("mid-delivery:2", "mid-delivery:1") for point in SEEK_POINTS]
"""The seek's points: the confirmation sends one mail (its games' events send
none). At ``mid-sent:1`` that one mail is sent and the outbox empty, so the
daemon may look idle before it dies: the test waits for the death itself
(`wait_for_crash`), which every point must bring."""


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_settings_are_confirmed_records_them_once_in_each_game(tmp_path, point):
    root = tmp_path / "data"
    store = Store(root)
    for _ in range(2):
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(None)
    try:
        wait_until_idle(server, root)
        mail(server, root, ALICE, "timezone Asia/Kolkata\nreminders digest")
    finally:
        server.stop()
    assert server.crashes == 0
    server.start(point)
    try:
        mail(server, root, ALICE, "confirm", answering="[gm] Confirm your settings")
        wait_for_crash(server)
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {point} never fired"
    store = Store(root)
    assert settings_of(store, ALICE).fields() == {"timezone": "Asia/Kolkata", "reminders": "digest"}
    assert len(store.settings.keys()) == 1
    for game_id in ("g1", "g2"):
        archive = store.archive(game_id)
        kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
        assert kinds.count("settings") == 1, (game_id, kinds)
        count, differences = verify_replay(str(root / "games" / game_id))
        assert count and not differences, differences
    assert subjects(root, ALICE).count("[gm] Your settings") == 1
    assert not [s for s in subjects(root, ALICE) + subjects(root, BOB) if "Refused" in s or "unchanged" in s]
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
