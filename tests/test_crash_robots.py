"""SIGKILL while robots play (issue 25): after the restart each robot seat
has sent exactly one set of orders (or one setup) for each turn, whether
the seat is the robot's own or a silent person's it took over, and ``gm
replay`` rebuilds the game byte for byte.

The daemon runs as a real process (`gm serve`), as in tests/test_crash.py,
whose helpers these are; GM_CRASH_AT kills it at the chosen step."""

from __future__ import annotations

import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from gm.kernel.model import MailGame
from gm.kernel.values import ENDED, DeadlineSet, Options
from gm.mail.reading import parse_message
from gm.pbem.archive.creation import parse_fields
from gm.pbem.archive.events import EVENT_HEADER
from gm.pbem.data.store import Store
from gm.pbem.operator.actions import request_action
from gm.pbem.operator.admin import load_games, request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gm.storage.maildirs import DurableMaildir
from gmtest import ALICE, BOB, GM, SETUP_ALICE
from test_crash import Server, delivered, reply, send_until_accepted, wait_until_idle

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed while robots play

WAIT = 60.0  # seconds: a whole game between two robots, with a restart


def robot_sets(root: Path, game: MailGame) -> Counter:
    """How many robot events the archive holds for each (seat, turn answered)."""
    archive = DurableMaildir(root / "games" / game.id, create=False)
    found: Counter = Counter()
    for key in sorted(archive.keys()):
        message = parse_message(archive.get_bytes(key))
        if ".in." in key and message.get(EVENT_HEADER) == "robot":
            head = message.get_content().replace("\r\n", "\n").partition("\n\n")[0]
            found[int(parse_fields(head)["player"]), game.turn_of_event[int(key.split(".")[0]) - 1]] += 1
    return found


def the_game(root: Path) -> MailGame | None:
    """The one game, as its archive stands (None before it is made)."""
    games = load_games(Store(root), Identity(GM))
    return games[0][1] if games else None


def until(server: Server, root: Path, done) -> None:
    """Until ``done(game)``, restarting the daemon after its crash; then idle."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        server.alive()
        game = the_game(root)
        if game is not None and done(game):
            wait_until_idle(server, root)
            return
        time.sleep(0.1)
    raise AssertionError("the game did not get there")


ROBOTS_POINTS = ["mid-handle:3", "after-archive:4", "after-apply:5", "after-queue:6", "between-messages:2",
                 "batch-synced:2", "mid-batch-commit:3", "after-batch-commit:4", "mid-delivery:1", "mid-sent:1"]


@pytest.mark.parametrize("spec", ROBOTS_POINTS)
def test_sigkill_while_two_robot_seats_play_gives_one_set_each_turn(tmp_path, spec):
    """A game between two robot seats (Alice watches) plays to its end
    through a crash; every seat answers every turn once."""
    root = tmp_path / "data"
    request_game(Store(root), Identity(GM), [], "2.6.1", Options(), datetime.now(UTC), robot="easy", robots=2,
                 robot_seed=11, observers=[ALICE])
    server = Server(root, None)
    server.start(spec)
    try:
        until(server, root, lambda game: game.phase == ENDED)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {spec} never fired"
    game = the_game(root)
    assert game is not None
    sets = robot_sets(root, game)
    assert set(sets) == {(p, turn) for p in (1, 2) for turn in range(game.outcome.after_turn + 1)}
    assert max(sets.values()) == 1, [k for k, n in sets.items() if n > 1]
    to_alice = [str(m["Subject"]) for m in delivered(root)]
    assert len(to_alice) == len(set(to_alice)) == 2, to_alice  # the invitation and the whole game, once each
    count, differences = verify_replay(str(root / "games" / game.id))
    assert count == 2 and not differences, differences


TAKE_OVER_POINTS = ["mid-handle:3", "after-archive:3", "after-apply:4", "after-queue:4", "between-messages:2",
                    "batch-synced:3", "mid-batch-commit:4", "after-batch-commit:3", "mid-delivery:4", "mid-sent:3"]


@pytest.mark.parametrize("spec", TAKE_OVER_POINTS)
def test_sigkill_around_a_take_over_gives_one_set_each_turn(tmp_path, spec):
    """Bob sends no setup: at the deadline (which the operator brings
    forward once Alice's setup is in, so that a slow machine cannot make her
    miss it) the robot takes his seat over (the game's option, after one
    missed deadline), sends his setup and his orders while Alice plays; then
    Bob's own orders make the seat his again. A crash anywhere in that
    leaves one robot set for each turn it played."""
    root = tmp_path / "data"
    options = Options(deadline=timedelta(hours=1), reminder_before=timedelta(minutes=30), take_over_after=1)
    request_game(Store(root), Identity(GM), [ALICE, BOB], "2.6.1", options, datetime.now(UTC))
    server = Server(root, None)
    server.start(spec)
    try:
        wait_until_idle(server, root)
        raw, to = reply(root, ALICE, SETUP_ALICE)
        send_until_accepted(server, raw, ALICE, to)
        until(server, root, lambda game: game.waiting_for == [2])
        now = datetime.now(UTC)
        request_action(Store(root), Identity(GM), "g1", DeadlineSet(now, deadline=now + timedelta(seconds=1)))
        until(server, root, lambda game: game.turn == 1 and game.waiting_for == [1])
        assert the_game(root).stand_ins == {2: "normal"}  # type: ignore[union-attr]
        raw, to = reply(root, ALICE, "Rv1 Rv2")
        send_until_accepted(server, raw, ALICE, to)
        until(server, root, lambda game: game.turn == 2 and game.waiting_for == [1])
        raw, to = reply(root, BOB, "Gv1")
        send_until_accepted(server, raw, BOB, to)
        until(server, root, lambda game: not game.stand_ins)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {spec} never fired"
    game = the_game(root)
    assert game is not None
    assert game.turn == 2 and game.waiting_for == [1] and game.phase != ENDED
    sets = robot_sets(root, game)
    assert set(sets) == {(2, 0), (2, 1), (2, 2)} and max(sets.values()) == 1, sets
    ids = [str(m["Message-ID"]) for m in delivered(root)]
    assert len(ids) == len(set(ids)), "a mail was delivered twice"
    count, differences = verify_replay(str(root / "games" / game.id))
    assert count and not differences, differences
