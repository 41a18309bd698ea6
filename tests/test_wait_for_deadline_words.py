"""In a game that waits for its deadline, the answer to a player's orders
says only that (issue 22, a small one: it said both "runs at the deadline"
and "runs when Player 2's orders are in", and Celestial Empire "runs when
Winter has sent orders, or at the deadline")."""

from __future__ import annotations

from datetime import timedelta

from gmtest import SETUP_ALICE, SETUP_BOB, World, run, text


def test_spaceships_waiting_for_the_deadline_does_not_say_the_turn_runs_when_the_opponent_is_in(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(wait_for_deadline=True, deadline=timedelta(hours=24))
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "Rv1")
            said = " ".join(text(world.alice.latest()).split())
            assert "orders are in, or at the deadline" not in said
            assert "The turn runs at the deadline; Player 2's orders are not in yet." in said
    run(scenario())


def test_celestial_empire_waiting_for_the_deadline_says_only_that(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="celestial-empire", wait_for_deadline=True, deadline=timedelta(hours=24))
            game = world.daemon.master.games["g1"]
            await world.act(world.alice.reply, f"SCAN{game.play.state.earth}\n")
            said = " ".join(text(world.alice.latest()).split())
            assert "sent orders, or at the deadline" not in said
            bob = game.seat(2).alias
            assert f"This game's turns run at the deadline; orders are not in yet from {bob}." in said
    run(scenario())
