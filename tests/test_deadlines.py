"""Deadlines, reminders and forfeits, driven by a clock the test moves."""

import asyncio
from datetime import datetime, timedelta, timezone

from gmtest import SETUP_ALICE, SETUP_BOB, World


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
            assert game.deadline == datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc) + timedelta(hours=48 + 48)  # the turn ran at the deadline
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
        world.clock.now = datetime(2026, 10, 24, 9, 30, tzinfo=timezone.utc)
        async with world:
            await world.new_game(deadline=timedelta(hours=72))
            assert "Deadline 2026-10-27 09:30 UTC, in 3 days." in world.alice.latest_text()
            assert world.daemon.master.games["g1"].deadline == datetime(2026, 10, 27, 9, 30, tzinfo=timezone.utc)
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
