"""A mail with an order line gm could not read does not run the turn
(Spaceships' ruling v2, Celestial Empire's R-12; `gm.kernel.correction`):
its readable lines are the orders in force, as ruling v says, but the turn
waits for the corrected mail, or runs at the deadline with what is in
force. Games made before `WAIT_FOR_CORRECTION_EDITION` run the turn on it,
as they always did."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from gm.kernel.correction import WAIT_FOR_CORRECTION_EDITION
from gm.kernel.engine import apply, create
from gm.kernel.model import MailGame
from gm.kernel.values import SETTLED_EDITION, Created, Options, PlayerMail, Seat
from gm.mail.reading import parse_message
from gm.pbem.operator.admin import request_game, verify_replay
from gmprocess import free_port, gm, inbox, serving, wait_for
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, START, Player, World, run, started_game, text
from test_deadline_real_clock import reply

TYPO = "Rv1\nRw2 rx1"
"""Orders whose second line cannot be read ('rx1': colours are capitals)."""
WAITS = "As a line could not be read, your orders are not counted as in: the turn\ndoes not run on this mail."


def subjects(player: Player) -> list[str]:
    return [str(m["Subject"]) for m in player.inbox()]


def replays(tmp_path, game_id: str = "g1") -> None:
    count, differences = verify_replay(str(tmp_path / "data" / "games" / game_id))
    assert count and not differences, differences


@asynccontextmanager
async def started(tmp_path) -> AsyncIterator[tuple[World, MailGame]]:
    """A world whose game g1 between Alice and Bob collects turn 1 (both
    setups in), and that game."""
    async with World(tmp_path) as world:
        await started_game(world)
        yield world, world.daemon.master.games["g1"]


def test_against_the_robot_a_typo_waits_for_the_corrected_mail(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE], "2.6.1", Options(), world.clock(),
                         robot="easy", robot_seed=7)
            await world.settle()
            await world.act(world.alice.reply, SETUP_ALICE)
            game = world.daemon.master.games["g1"]
            assert game.edition >= WAIT_FOR_CORRECTION_EDITION and game.waiting_for == [1]  # the robot's are in
            await world.act(world.alice.reply, TYPO)
            answered, answer = world.alice.latest(), world.alice.latest_text()
            assert str(answered["Subject"]) == "[gm g1] Turn 1: orders received, 1 line not understood"
            assert "Line 2, column 5:" in answer and WAITS in answer
            assert "It waits for your corrected orders" in answer and "Orders in force for turn 1:\n    Rv1\n" in answer
            assert game.turn == 1 and game.correcting == {1} and game.waiting_for == []
            assert not any("Turn 1 results" in s for s in subjects(world.alice))
            listed = await world.write_gm(world.alice, "games")
            assert "turn 1, deadline" in text(listed) and "; waiting for corrected orders" in text(listed)
            await world.act(world.alice.reply, "Rv1 Rw2", to=answered)  # corrected: it replaces all she sent
            assert any("Turn 1 results" in s for s in subjects(world.alice))
            assert game.turn == 2 and game.correcting == set()
        replays(tmp_path)
    run(scenario())


def test_a_typo_does_not_run_the_turn_the_opponent_is_told_and_the_deadline_runs_it(tmp_path, monkeypatch):
    """In a game of edition 8 (`SETTLED_EDITION`), as it shipped: the seat
    waiting for its correction is not reminded. From edition 9 on it is
    (tests/test_correction_reminder.py)."""
    monkeypatch.setattr("gm.pbem.archive.creation.EDITION", SETTLED_EDITION)

    async def scenario():
        async with started(tmp_path) as (world, game):
            await world.act(world.bob.reply, "Bz5")
            await world.act(world.alice.reply, TYPO)
            assert WAITS in world.alice.latest_text() and game.turn == 1 and game.edition == SETTLED_EDITION
            await world.act(world.bob.reply, "Bz5 By5")  # his new orders do not run it either
            assert ("The turn runs when Player 1's corrected orders are in, or at the deadline."
                    in world.bob.latest_text())
            assert game.turn == 1 and game.correcting == {1}
            world.clock.advance(hours=71)
            await world.settle()
            assert "Reminder" not in subjects(world.alice)[-1]  # reminders as before: her orders are in force
            world.clock.advance(hours=1)  # the deadline: the turn runs with what is in force
            await world.settle()
            sheet = world.bob.latest_text()
            assert "Turn 1 results" in subjects(world.bob)[-1]
            assert "they  strike Rv1: hit" in sheet and "Rw2" not in sheet
            assert game.turn == 2 and game.correcting == set() and game.missed == {1: 0, 2: 0}
        replays(tmp_path)
    run(scenario())


def test_the_corrected_mail_runs_the_turn_in_a_two_person_game(tmp_path):
    async def scenario():
        async with started(tmp_path) as (world, game):
            await world.act(world.alice.reply, TYPO)
            assert WAITS in world.alice.latest_text()
            await world.act(world.alice.reply, "Rw2 rx1")  # nothing readable: Rv1 stays, and it still waits
            assert "Your previous orders stay in force:\n    Rv1\n" in world.alice.latest_text()
            await world.act(world.bob.reply, "Bz5")
            assert game.turn == 1 and "Player 1's corrected orders" in world.bob.latest_text()
            await world.act(world.alice.reply, "Rv1\nRw2 Rx1")
            assert "Turn 1 results" in subjects(world.alice)[-1] and "strike Rx1" in world.bob.latest_text()
        replays(tmp_path)
    run(scenario())


def test_the_robots_mail_is_never_held_for_a_correction_no_one_would_send():
    """A line of the GM's robot's that could not be read (it sends none)
    would wait for a correction that never comes: it runs as before."""
    seats = (Seat(1, ALICE, "Player 1"), Seat(2, BOB, "Player 2", robot="easy"))
    game, _ = create(Created(START, "g1", seats, "2.6.1", Options(), edition=WAIT_FOR_CORRECTION_EDITION))
    for player, setup in ((1, SETUP_ALICE), (2, SETUP_BOB)):
        apply(game, PlayerMail(START, player, setup, robot=player == 2))
    apply(game, PlayerMail(START + timedelta(seconds=1.5), 2, "Rv1\nRw2 rx1", robot=True))
    assert game.turn == 1 and game.correcting == set()
    apply(game, PlayerMail(START + timedelta(seconds=2.5), 1, "Bz5"))
    assert game.turn == 2


def test_a_game_of_edition_7_runs_the_turn_on_a_typo_as_before(tmp_path, monkeypatch):
    monkeypatch.setattr("gm.pbem.archive.creation.EDITION", WAIT_FOR_CORRECTION_EDITION - 1)

    async def scenario():
        async with started(tmp_path) as (world, game):
            await world.act(world.bob.reply, "Bz5")
            await world.act(world.alice.reply, TYPO)
            assert game.edition == WAIT_FOR_CORRECTION_EDITION - 1 and game.turn == 2
            (answer,) = [text(m) for m in world.alice.inbox() if "orders received" in str(m["Subject"])]
            assert "Line 2, column 5:" in answer and WAITS not in answer
            assert "Turn 1 results" in subjects(world.alice)[-1]
        replays(tmp_path)
    run(scenario())


async def celestial_game(world: World) -> tuple[Player, Player]:
    """A two-empire Celestial Empire game (Ann, then Bea; 48-hour deadlines)
    begun in ``world``, and its two players."""
    addresses = ("ann@example.org", "bea@example.net")
    request_game(world.daemon.store, world.config.identity, list(addresses), "standard",
                 Options(deadline=timedelta(hours=48)), world.clock(), aliases=["Grok", "Winter"],
                 game="celestial-empire")
    await world.settle()
    ann, bea = (Player(a, world) for a in addresses)
    return ann, bea


def test_celestial_empire_waits_for_the_corrected_orders(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            ann, bea = await celestial_game(world)
            game = world.daemon.master.games["g1"]
            await world.act(bea.reply, "+Grok\n")
            await world.act(ann.reply, "+Winter\nS1x2y\n")
            answer = ann.latest_text()
            assert "line 2, column" in answer and WAITS in answer
            assert "Every empire is in" not in answer and game.turn == 1 and game.correcting == {1}
            await world.act(bea.reply, "+Grok\n")
            assert ("The turn runs when Grok has sent corrected orders, or at the deadline."
                    in bea.latest_text()) and game.turn == 1
            before = len(ann.inbox())
            await world.act(ann.reply, "+Winter\n")
            assert any("Every empire is in: the turn runs now." in text(m) for m in ann.inbox()[before:])
            assert game.turn == 2
        replays(tmp_path)
    run(scenario())


def test_you_at_localhost_against_the_robot_by_the_real_daemon(tmp_path):
    """The README's first game, with the GM's robot as the other seat: the
    robot's orders are in at once, so only the correction holds the turn."""
    data, port, you = tmp_path / "gm-data", free_port(), "you@localhost"
    with serving(data, port, None, tmp_path):
        made = gm("new", "--data", str(data), "--player", you, "--robot", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        invitation = wait_for("your invitation", lambda: inbox(data, you))
        reply(port, you, invitation[-1], SETUP_ALICE)
        begun = wait_for("turn 1", lambda: [m for m in inbox(data, you) if "the game begins" in str(m["Subject"])])

        def shown() -> dict:
            return json.loads(gm("show", "g1", "--data", str(data), cwd=tmp_path).stdout)

        wait_for("the robot's orders", lambda: len(shown()["waiting_for"]) == 1)
        reply(port, you, begun[-1], TYPO)
        answer = wait_for("the answer to the typo", lambda: [m for m in inbox(data, you) if "not understood"
                                                             in str(m["Subject"])])[-1]
        assert WAITS in text(parse_message(answer.as_bytes()))
        status = shown()
        assert status["turn"] == 1 and status["waiting_for"] == [] and len(status["waiting_for_correction"]) == 1
        assert not [m for m in inbox(data, you) if "Turn 1 results" in str(m["Subject"])]
        reply(port, you, answer, "Rv1 Rw2")
        wait_for("turn 1's results", lambda: [m for m in inbox(data, you) if "Turn 1 results" in str(m["Subject"])])
        assert "waiting_for_correction" not in shown()
