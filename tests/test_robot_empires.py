"""Celestial Empire games with the GM's robot empires (issue 25), through
the daemon: a person starts one by mail against eight robots and plays it
to the end; every person is told which empires are robots; an empire whose
player falls silent goes on under a robot, and the player comes back. Each
game's archive replays byte for byte."""

from __future__ import annotations

import re

import pytest

from gm.kernel.values import ENDED, Options
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import ALICE, BOB, World, run, shunt_reasons, text

pytestmark = pytest.mark.slow  # whole Celestial Empire games of nine empires

SHORT = "standard+turns=3"
"""A variant whose game ends after turn 3, the most score winning (R-71)."""


def replays(tmp_path, game_id: str) -> None:
    count, differences = verify_replay(str(tmp_path / "data" / "games" / game_id))
    assert count and not differences, differences


def earth_scan(sheet: str) -> str:
    """An order any empire may give from its sheet: a scan of Earth."""
    found = re.search(r"(\d+)\s+\*+ EARTH \*+", sheet)
    assert found, sheet[:3000]
    return f"SCAN{found.group(1)}\n"


def sheet_of(player) -> str:
    """The player's latest turn sheet."""
    return next(text(m) for m in reversed(player.inbox()) if "EARTH" in text(m))


def test_alice_starts_a_game_against_eight_robots_by_mail_and_plays_it_to_the_end(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            confirm = await world.challenge(world.alice, f"challenge robot\ngame celestial-empire\n"
                                                         f"variant {SHORT}\nrobots 8\nlevel easy\n")
            said = " ".join(text(confirm).split())
            assert "the robots send their orders as soon as" in said and "setup" not in said, said  # none in it
            (game,) = world.daemon.master.games.all()
            assert [seat.robot for seat in game.seats] == [None] + ["easy"] * 8
            sheet = world.alice.latest_text()
            robots = [seat.alias for seat in game.seats[1:]]
            assert f"Played by the GM's robot: {', '.join(robots)}." in " ".join(sheet.split()), sheet[:1500]
            html = world.alice.latest().get_body(preferencelist=("html",)).get_content()
            assert f"Played by the GM's robot: {', '.join(robots)}." in html
            assert world.daemon.master.games[game.id].waiting_for == [1], "the robots' orders are in before Alice's"
            turns = 0
            while world.daemon.master.games[game.id].phase != ENDED:
                turns += 1
                assert turns <= 3
                await world.act(world.alice.reply, earth_scan(world.alice.latest_text()))
            final = world.alice.latest_text()
            assert "over" in final.lower() or "won" in final.lower(), final[:2000]
            assert not shunt_reasons(world)
            return game.id

    replays(tmp_path, run(scenario()))


def test_an_empire_whose_player_falls_silent_goes_on_under_a_robot_and_the_player_comes_back(tmp_path):
    """Bob sends nothing for two turns: from the second deadline the robot
    plays his empire (Alice told by his empire's name, never his address;
    the sheets name it among the robots'), the game no longer waits for him,
    and his next orders make the empire his again (Alice told again)."""
    async def scenario():
        async with World(tmp_path) as world:
            _, game_id = request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "standard+turns=8",
                                      Options(take_over_after=2), world.clock(), game="celestial-empire")
            await world.settle()
            master = world.daemon.master
            for _ in range(2):
                await world.act(world.alice.reply, earth_scan(sheet_of(world.alice)))
                world.clock.advance(hours=72, seconds=1)
                await world.settle()
            game = master.games[game_id]
            bob = game.seat(2).alias
            assert game.stand_ins == {2: "normal"} and game.turn == 3 and game.waiting_for == [1]
            told = text(world.alice.latest())
            assert f"{bob} sent no orders for 2 turns in a row: the GM's robot plays" in " ".join(told.split())
            assert BOB not in told
            await world.act(world.alice.reply, earth_scan(sheet_of(world.alice)))
            sheet = " ".join(sheet_of(world.alice).split())
            assert master.games[game_id].turn == 4 and f"Played by the GM's robot: {bob}." in sheet
            await world.act(world.bob.reply, earth_scan(sheet_of(world.bob)))
            game = master.games[game_id]
            assert game.stand_ins == {} and game.waiting_for == [1]
            assert "you play your seat again" in " ".join(text(world.bob.latest()).split())
            assert f"{bob} is played by its player again" in " ".join(text(world.alice.latest()).split())
            await world.act(world.alice.reply, earth_scan(sheet_of(world.alice)))
            game = master.games[game_id]
            assert game.turn == 5 and game.waiting_for == [1, 2], "the game waits for Bob again"
            assert "Played by the GM's robot" not in sheet_of(world.alice)
            assert not shunt_reasons(world)
            return game_id

    replays(tmp_path, run(scenario()))


def test_a_challenge_to_a_person_may_add_robot_empires(tmp_path):
    """``challenge ADDR`` with ``robots N``: once the challenged accepts, the
    game has the two people's empires and N robot empires after them; both
    were told of the robots before agreeing. Where the game has no room, or
    no robot empires, the challenge is refused."""
    async def scenario():
        async with World(tmp_path) as world:
            confirm = await world.challenge(world.alice, f"challenge {BOB}\ngame celestial-empire\nvariant {SHORT}\n"
                                                         "robots 3\nlevel hard\n")
            assert "The GM's robots play 3 more empires, at the hard level." in text(confirm)
            (invite,) = world.bob.inbox()
            assert "The GM's robots play 3 more empires, at the hard level." in text(invite)
            await world.act(world.bob.reply, "accept", to=invite)
            (game,) = world.daemon.master.games.all()
            assert [(seat.address, seat.robot) for seat in game.seats] == [
                (ALICE, None), (BOB, None), *[("robot", "hard")] * 3]
            live = world.daemon.master.games[game.id]
            assert live.waiting_for == [1, 2] and live.options.take_over_after == 2
            for lines in (f"challenge {BOB}\ngame celestial-empire\nrobots 8\n", f"challenge {BOB}\nrobots 1\n"):
                await world.write_gm(world.alice, lines)
            reasons = b"\n".join(shunt_reasons(world))
            assert b"9 empires at most" in reasons and b"Spaceships has no robot empires" in reasons, reasons
            return game.id

    replays(tmp_path, run(scenario()))
