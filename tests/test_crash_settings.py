"""SIGKILL while a player's settings are confirmed (issue 24): after the
restart the change is kept once, recorded once in each of the player's
games, and the player told once; each game replays from its own archive.

The scaffold is tests/crash_confirming.py's: the games and the request are
made by a daemon that does not crash, then one restarted with GM_CRASH_AT
handles the player's ``confirm`` and dies at the chosen step."""

from __future__ import annotations

import pytest

from crash_confirming import confirmed_through_a_crash, nothing_left, recorded_once_in_each_game
from crash_league import subjects
from gm.pbem.data.settings import settings_of
from gmtest import ALICE, BOB
from test_crash_seeks import POINTS as SEEK_POINTS

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = [point.replace("mid-delivery:2", "mid-delivery:1") for point in SEEK_POINTS]
"""The seek's points: the confirmation sends one mail (its games' events send
none). At ``mid-sent:1`` that one mail is sent and the outbox empty, so the
daemon may look idle before it dies: the test waits for the death itself
(`wait_for_crash`), which every point must bring."""


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_settings_are_confirmed_records_them_once_in_each_game(tmp_path, point):
    root = tmp_path / "data"
    store = confirmed_through_a_crash(root, point, [(ALICE, "timezone Asia/Kolkata\nreminders digest", None)],
                                      ALICE, "[gm] Confirm your settings")
    assert settings_of(store, ALICE).fields() == {"timezone": "Asia/Kolkata", "reminders": "digest"}
    assert len(store.settings.keys()) == 1
    recorded_once_in_each_game(store, root, "settings")
    assert subjects(root, ALICE).count("[gm] Your settings") == 1
    assert not [s for s in subjects(root, ALICE) + subjects(root, BOB) if "Refused" in s or "unchanged" in s]
    nothing_left(root)
