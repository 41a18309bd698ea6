"""Agreeing by mail to show a game on the web archive after each turn.

A challenge with a line ``public`` asks for it; the challenged agrees by
accepting a challenge that says so; a game against the robot needs only
its one player. Without the line, a game is shown only when it is over. A line ``rated``
asks, the same way, that the game count for the players' ratings."""

from __future__ import annotations

from gmtest import BOB, World, run, text


def test_public_is_asked_in_the_challenge_and_agreed_by_accepting(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\npublic\n")
            (invite,) = world.bob.inbox()
            assert "shown on the game master's public\nweb archive after each turn" in text(invite)
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            assert world.daemon.master.games["g1"].options.public_each_turn

    run(scenario())


def test_a_challenge_without_public_shows_the_game_only_when_it_is_over(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\n")
            (invite,) = world.bob.inbox()
            assert "web archive" not in text(invite)
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            assert not world.daemon.master.games["g1"].options.public_each_turn
            assert not world.daemon.master.games["g1"].options.rated and "rating" not in text(invite)

    run(scenario())


def test_a_public_game_against_the_robot_needs_only_its_player(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            confirmation = await world.challenge(world.alice, "challenge robot\npublic\n")
            assert "public web archive" in text(confirmation) and "rating" not in text(confirmation)
            (game,) = world.daemon.master.games.all()
            assert world.daemon.master.games[game.id].options.public_each_turn
            assert not world.daemon.master.games[game.id].options.rated

    run(scenario())


def test_rated_is_asked_in_the_challenge_and_agreed_by_accepting(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            confirmation = await world.challenge(world.alice, f"challenge {BOB}\nrated\n")
            assert "count for both players' ratings" in " ".join(text(confirmation).split())
            (invite,) = world.bob.inbox()
            assert "asks that the game count for both players' ratings" in " ".join(text(invite).split())
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            assert world.daemon.master.games["g1"].options.rated

    run(scenario())


def test_a_person_asks_for_a_rated_game_against_the_robot(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            confirmation = await world.challenge(world.alice, "challenge robot\nrated\n")
            assert "count for your rating too" in " ".join(text(confirmation).split())
            (game,) = world.daemon.master.games.all()
            assert world.daemon.master.games[game.id].options.rated

    run(scenario())
