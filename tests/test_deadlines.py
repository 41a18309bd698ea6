"""Deadlines, reminders and forfeits, driven by a clock the test moves."""

import asyncio
from datetime import UTC, datetime, timedelta

from gmtest import SETUP_ALICE, SETUP_BOB, START, World


def run(coroutine):
    return asyncio.run(coroutine)


def subjects(player) -> list[str]:
    return [str(m["Subject"]) for m in player.inbox()]


async def in_play(world: World, **options) -> None:
    await world.new_game(**options)
    await world.act(world.alice.reply, SETUP_ALICE)
    await world.act(world.bob.reply, SETUP_BOB)


def test_reminder_before_the_deadline_then_the_turn_runs_without_the_late_player(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await in_play(world, deadline=timedelta(hours=48), reminder_before=timedelta(hours=6))
            await world.act(world.alice.reply, "Rv1")
            world.clock.advance(hours=41)
            await world.settle()
            assert not any("Reminder" in s for s in subjects(world.bob))
            world.clock.advance(hours=1)  # 42 h: six hours before the deadline
            await world.settle()
            assert "Reminder" in subjects(world.bob)[-1]
            assert not any("Reminder" in s for s in subjects(world.alice))  # her orders are in
            world.clock.advance(hours=1)
            await world.settle()
            assert sum("Reminder" in s for s in subjects(world.bob)) == 1  # only once
            world.clock.advance(hours=5)  # the deadline
            await world.settle()
            sheet = world.bob.latest_text()
            assert "Turn 1 results" in str(world.bob.latest()["Subject"])
            assert "they  strike Rv1: hit" in sheet and "as carried out ==\n  (you sent no orders)" in sheet
            game = world.daemon.master.games["g1"]
            assert game.turn == 2 and game.missed == {1: 0, 2: 1}
            assert game.deadline == START + timedelta(hours=48 + 48)  # the turn ran at the deadline
    run(scenario())


def test_turn_runs_early_unless_the_game_waits_for_its_deadline(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await in_play(world, wait_for_deadline=True, deadline=timedelta(hours=24))
            await world.act(world.alice.reply, "Rv1")
            await world.act(world.bob.reply, "Bz5")
            assert world.daemon.master.games["g1"].turn == 1  # both in, but it waits
            world.clock.advance(hours=24)
            await world.settle()
            assert world.daemon.master.games["g1"].turn == 2
            assert "strike Bz5: hit" in world.alice.latest_text()
    run(scenario())


def test_three_turns_without_orders_forfeit_and_nothing_comes_after(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await in_play(world, deadline=timedelta(hours=24), reminder_before=timedelta(hours=2))
            for _ in range(3):
                await world.act(world.alice.reply, "Rz5")
                world.clock.advance(hours=25)
                await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.phase == "ended" and game.outcome.winner == 1
            final = world.alice.latest_text()
            assert "Player 2 sent nothing for 3 turns in a row and forfeits." in final and "You win." in final
            count = len(world.bob.inbox())
            world.clock.advance(days=10)
            await world.settle()
            assert len(world.bob.inbox()) == count  # no reminders or deadlines after the end
            await world.act(world.bob.reply, "Rv1")
            assert "over" in str(world.bob.latest()["Subject"])
    run(scenario())


def test_missing_setup_moves_the_deadline_and_finally_forfeits(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(deadline=timedelta(hours=24))
            await world.act(world.alice.reply, SETUP_ALICE)
            for missed in (1, 2):
                world.clock.advance(hours=24)
                await world.settle()
                assert f"({missed} of 3 allowed)" in world.bob.latest_text()
            world.clock.advance(hours=24)
            await world.settle()
            assert world.daemon.master.games["g1"].phase == "ended"
    run(scenario())


def test_deadlines_are_utc_and_do_not_drift_across_daylight_saving(tmp_path):
    async def scenario():
        world = World(tmp_path)
        # Europe leaves summer time at 01:00 UTC on 25 October 2026.
        world.clock.now = datetime(2026, 10, 24, 9, 30, tzinfo=UTC)
        async with world:
            await world.new_game(deadline=timedelta(hours=72))
            assert "Deadline 2026-10-27 09:30 UTC, in 3 days." in world.alice.latest_text()
            assert world.daemon.master.games["g1"].deadline == datetime(2026, 10, 27, 9, 30, tzinfo=UTC)
    run(scenario())


def test_deadlines_survive_a_restart(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await in_play(world, deadline=timedelta(hours=24))
            clock = world.clock
        world2 = World(tmp_path)
        world2.clock = clock
        world2.daemon.clock = clock
        world2.daemon.master.clock = clock
        async with world2:
            game = world2.daemon.master.games["g1"]
            assert world2.daemon.master.next_wakeup() == game.deadline - game.options.reminder_before
            clock.advance(hours=24)
            await world2.settle()
            assert world2.daemon.master.games["g1"].turn == 2
    run(scenario())


def test_a_deadline_that_passed_while_the_daemon_was_down_runs_once_when_it_is_back(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await in_play(world, deadline=timedelta(hours=24))
            await world.act(world.alice.reply, "Rv1")
            clock = world.clock
        clock.advance(days=5)  # five deadlines' worth of outage
        world2 = World(tmp_path)
        world2.clock = world2.daemon.clock = world2.daemon.master.clock = clock
        async with world2:
            await world2.settle()
            game = world2.daemon.master.games["g1"]
            assert game.turn == 2 and game.missed == {1: 0, 2: 1}  # one deadline, not five
            assert game.deadline == clock.now + timedelta(hours=24)  # a full turn from when it ran
            await world2.settle()
            assert world2.daemon.master.games["g1"].turn == 2
    run(scenario())


def test_sub_second_deadlines_fire_and_replay_byte_for_byte(tmp_path):
    from gm.pbem.operator.admin import verify_replay

    async def scenario():
        async with World(tmp_path) as world:
            await in_play(world, deadline=timedelta(seconds=20.25), reminder_before=timedelta(seconds=5))
            start = world.clock.now
            for turn in (1, 2, 3):
                await world.act(world.alice.reply, "Rz5")
                world.clock.advance(seconds=20.25, microseconds=333)
                await world.settle()
                assert (world.daemon.master.games["g1"].turn == turn + 1
                        or world.daemon.master.games["g1"].phase == "ended")
            assert world.daemon.master.games["g1"].phase == "ended"  # bob forfeits after three silent turns
            assert world.clock.now - start == 3 * timedelta(seconds=20.25, microseconds=333)
        count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert count > 0 and differences == []
    run(scenario())


def test_a_deadline_event_for_a_deadline_that_moved_is_stale():
    """A deadline spooled while the turn ran early belongs to the old
    deadline and changes nothing, however close the two moments are."""
    from gm.kernel.engine import _stale
    from gm.kernel.model import MailGame
    from gm.kernel.protocol import game_named
    from gm.kernel.values import DeadlinePassed, Options, Seat

    game = MailGame("g1", (Seat(1, "a@x", "A"), Seat(2, "b@x", "B")), game_named("spaceships"), Options(), START,
                    "2.6.1")
    game.deadline = START + timedelta(seconds=20, microseconds=5)
    assert not _stale(game, DeadlinePassed(game.deadline + timedelta(seconds=3), game.deadline))
    assert _stale(game, DeadlinePassed(game.deadline, game.deadline - timedelta(microseconds=1)))
    assert _stale(game, DeadlinePassed(game.deadline - timedelta(seconds=1)))  # an old archive's event, too early
    assert not _stale(game, DeadlinePassed(game.deadline))


def test_creation_keeps_deadlines_exact_to_the_microsecond():
    from gm.kernel.values import Options, Seat
    from gm.pbem.archive.creation import parse_fields, request_fields, seats_and_options

    seats = (Seat(1, "a@x", "A"), Seat(2, "b@x", "B"))
    for deadline in (timedelta(seconds=20), timedelta(seconds=20.25), timedelta(days=30),
                     timedelta(microseconds=1_000_001)):
        options = Options(deadline=deadline, reminder_before=deadline / 3)
        fields = parse_fields("\n".join(request_fields(seats, "2.6.1", options)))
        assert seats_and_options(fields)[2] == options
    old = parse_fields("deadline-hours: 0.5\nreminder-hours: 0.1\nplayer-1: a@x\nplayer-2: b@x")  # archives before
    assert seats_and_options(old)[2].deadline == timedelta(minutes=30)
