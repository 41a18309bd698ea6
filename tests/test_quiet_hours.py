"""Quiet hours and absences together (issue 24), through the daemon with a
clock the test moves: an absence's end inside a player's quiet hours moves
on out of them, and ``back`` still returns the deadline to what it was."""

from __future__ import annotations

from datetime import UTC, datetime

from gm.pbem.operator.admin import verify_replay
from gmtest import START, World, run, started_game, text


def flat(message) -> str:
    return " ".join(text(message).split())


def moved(player) -> str:
    """The text of the player's latest mail telling them the deadline moved."""
    return flat([m for m in player.inbox() if "deadline has moved" in str(m["Subject"])][-1])


def test_an_absence_ending_in_quiet_hours_moves_on_and_back_restores_the_deadline(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            assert game.deadline == datetime(2026, 11, 24, 12, 0, 0, 417_123, tzinfo=UTC)
            confirmation = await world.write_gm(world.alice, "quiet 10:00-14:00")  # UTC: Alice names no zone
            world.clock.advance(seconds=1.5)
            await world.act(world.alice.reply, "confirm", to=confirmation)
            await world.settle()  # the settings event moves the running deadline, and both are told
            assert game.deadline == datetime(2026, 11, 24, 14, tzinfo=UTC)
            told = moved(world.alice)
            assert "Deadline 2026-11-24 14:00 UTC, in " in told
            assert "The deadline was moved to 14:00 UTC, after your quiet hours." in told
            assert "after Player 1's quiet hours." in moved(world.bob)
            await world.act(world.bob.reply, "vacation 10d")  # to 2026-12-01 12:00, inside Alice's quiet hours
            assert game.deadline == datetime(2026, 12, 1, 14, tzinfo=UTC)
            assert "Deadline 2026-12-01 14:00 UTC" in flat(world.bob.latest())
            assert "The deadline was moved to 14:00 UTC, after Player 1's quiet hours." in flat(world.bob.latest())
            world.clock.advance(hours=5)
            await world.act(world.bob.reply, "back")
            assert game.deadline == datetime(2026, 11, 24, 14, tzinfo=UTC)
            assert world.clock() > START
        count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert count and not differences, differences
    run(scenario())
