"""SIGKILL while a vacation for all games is confirmed, or a deputy agrees
(issue 24): after the restart the vacation (or the deputy) is kept once,
reaches each of the player's games once, and everyone is answered or told
once; each game replays from its own archive.

The scaffold is tests/crash_confirming.py's (as tests/test_crash_settings.py):
the games and the request are made by a daemon that does not crash, then one
restarted with GM_CRASH_AT handles the player's ``confirm`` and dies at the
chosen step."""

from __future__ import annotations

import pytest

from crash_confirming import confirmed_through_a_crash, nothing_left, recorded_once_in_each_game
from crash_league import subjects
from gm.pbem.data.settings import settings_of
from gmtest import ALICE, BOB
from test_crash_seeks import POINTS as SEEK_POINTS

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = [*SEEK_POINTS, "after-archive:1", "after-apply:2", "after-queue:2"]
"""The seek's points, and those of the absence events the confirmation spools into the two games."""


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_a_vacation_is_confirmed_reaches_each_game_once(tmp_path, point):
    root = tmp_path / "data"
    store = confirmed_through_a_crash(root, point, [(ALICE, "vacation 10d", None)], ALICE,
                                      "[gm] Confirm your vacation")
    assert len(store.settings.keys()) == 1
    recorded_once_in_each_game(store, root, "absence")
    assert subjects(root, ALICE).count("[gm] Your vacation") == 1
    told = [s for s in subjects(root, BOB) if "Player 1 is away until" in s]
    assert len(told) == 2 and {s.split("]")[0] for s in told} == {"[gm g1", "[gm g2"}
    assert not [s for s in subjects(root, ALICE) + subjects(root, BOB) if "Refused" in s]
    nothing_left(root)


CAROL = "carol@example.com"


@pytest.mark.parametrize("point", [*SEEK_POINTS, "after-archive:1"])
def test_sigkill_while_a_deputy_agrees_names_them_once_in_each_game(tmp_path, point):
    root = tmp_path / "data"
    asked = [(ALICE, f"deputy {CAROL}", None), (ALICE, "confirm", "[gm] Confirm your deputy")]
    store = confirmed_through_a_crash(root, point, asked, CAROL, "[gm] Will you be a deputy?")
    assert settings_of(store, ALICE).deputy == CAROL and len(store.settings.keys()) == 1
    recorded_once_in_each_game(store, root, "settings")
    assert subjects(root, ALICE).count("[gm] Your deputy") == 1
    assert subjects(root, CAROL).count(f"[gm] You are {ALICE}'s deputy") == 1
    assert all("deputy" not in s for s in subjects(root, BOB))
    nothing_left(root)
