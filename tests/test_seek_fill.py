"""Seeks that fill their empty seats with robots (issue 25): a Celestial
Empire seek for K empires that people join by mail until its fill time;
then the game begins with them and the GM's robots in the seats nobody
took, everyone told which empires are the robots'. Through the daemon on
the test's clock; tests/test_crash_fills.py runs it on the wall clock and
kills it mid-way."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gm.kernel.protocol import game_named
from gm.league.filling import fill_moment, parse_fill
from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, BOB, World, run, shunt_reasons, text
from test_seeks import named_world, own_answer, seek

SHORT = "standard+turns=3"


async def join(world: World, player, seek_id: str):
    confirmation = await world.write_gm(player, f"accept {seek_id}")
    assert str(confirmation["Subject"]).startswith("[gm] Confirm you take"), text(confirmation)
    assert "To join it" in text(confirmation)
    world.clock.advance(seconds=1)
    await world.act(player.reply, "confirm", to=confirmation)
    return own_answer(player)


def test_the_fill_time_begins_the_game_with_those_who_joined_and_robots(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = await named_world(world)
            seek_id = await seek(world, world.alice, f"seek celestial-empire\nvariant {SHORT}\nempires 5\n"
                                                     "fill 1h\nlevel easy\ntake-over hard\n")
            listing = text(await world.write_gm(carol, "seeks"))
            assert "5 empires, 1 of them taken" in listing  # the seeker's
            assert "the GM's robots (easy) in the seats nobody took" in " ".join(listing.split())
            assert f"to join it, write: accept {seek_id}" in listing
            done = await join(world, world.bob, seek_id)
            assert str(done["Subject"]) == "[gm] You joined Ahab's seek", text(done)
            assert "2 of its 5 empires are" in text(done)
            assert [m for m in world.alice.inbox() if str(m["Subject"]) == "[gm] Ishmael joined your seek"]
            assert "5 empires, 2 of them taken" in text(await world.write_gm(carol, "seeks"))
            assert not world.daemon.master.games.all(), "the game waits for its fill time"
            refused = await world.write_gm(world.bob, f"accept {seek_id}")
            assert "you joined seek" in text(refused)
            world.clock.advance(minutes=59)
            await world.settle()
            assert not world.daemon.master.games.all()
            world.clock.advance(minutes=1, seconds=1.5)
            await world.settle()
            (game,) = world.daemon.master.games.all()
            live = world.daemon.master.games[game.id]
            assert [(s.address, s.robot) for s in live.seats] == [(ALICE, None), (BOB, None), *[("robot", "easy")] * 3]
            assert live.options.take_over_level == "hard" and live.options.rated
            robots = [s.alias for s in live.seats[2:]]
            for player in (world.alice, world.bob):
                (begun,) = [m for m in player.inbox() if str(m["Subject"]).startswith(f"[gm] Game {game.id} begins")]
                assert f"The GM's robots play {', '.join(robots)}." in " ".join(text(begun).split())
                assert ALICE not in text(begun) and BOB not in text(begun)
            late = await world.write_gm(carol, f"accept {seek_id}")
            assert "its game has begun" in text(late)
            world.clock.advance(hours=2)
            await world.settle()
            assert len(world.daemon.master.games.all()) == 1
            return game.id

    game_id = run(scenario())
    count, differences = verify_replay(str(tmp_path / "data" / "games" / game_id))
    assert count and not differences, differences


def test_a_seek_whose_every_seat_is_taken_begins_at_once(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = await named_world(world)
            seek_id = await seek(world, world.alice, f"seek celestial-empire\nvariant {SHORT}\nempires 3\nfill 2d\n")
            await join(world, world.bob, seek_id)
            assert not world.daemon.master.games.all()
            await join(world, carol, seek_id)
            (game,) = world.daemon.master.games.all()
            assert [s.robot for s in game.seats] == [None, None, None]
            (begun,) = [m for m in carol.inbox() if str(m["Subject"]).startswith(f"[gm] Game {game.id} begins")]
            assert "Every empire was taken: no robot plays." in " ".join(text(begun).split())
            world.clock.advance(days=3)
            await world.settle()
            assert len(world.daemon.master.games.all()) == 1 and not shunt_reasons(world)

    run(scenario())


def test_a_seek_nobody_joined_begins_nothing_and_a_withdrawn_one_tells_who_joined(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = await named_world(world)
            lonely = await seek(world, world.alice, "seek celestial-empire\nfill 3h\n")
            world.clock.advance(hours=3, seconds=1)
            await world.settle()
            assert not world.daemon.master.games.all()
            assert f"Nobody joined your seek {lonely}" in str(own_answer(world.alice)["Subject"])
            withdrawn = await seek(world, world.bob, "seek celestial-empire\nempires 4\nfill 3h\n")
            await join(world, carol, withdrawn)
            await world.write_gm(world.bob, f"seek cancel {withdrawn}")
            assert "is withdrawn by Ishmael" in text(own_answer(carol))
            world.clock.advance(hours=4)
            await world.settle()
            assert not world.daemon.master.games.all()

    run(scenario())


def test_bad_filling_seeks_are_refused_with_the_reason(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await named_world(world)
            for lines, why in (("seek celestial-empire\n", "a line 'fill'"),
                               ("seek celestial-empire\nempires 12\nfill 1d\n", "empires 12"),
                               ("seek celestial-empire\nfill 40d\n", "at most 30 days"),
                               ("seek celestial-empire\nfill 1d\nlevel mighty\n", "level mighty"),
                               ("seek celestial-empire\nfill 1d\nlapse 2d\n", "give no lapse"),
                               ("seek spaceships\nfill 1d\n", "a fill line is for games of more than two")):
                answer = await world.write_gm(world.alice, lines)
                assert why in " ".join(text(answer).split()), (lines, text(answer))

    run(scenario())


def test_a_fill_date_is_in_the_seekers_time_zone_else_utc():
    at = datetime(2026, 11, 27, 0, 0, 0, 250000, tzinfo=UTC)
    assert fill_moment("2026-12-01", at, None) == datetime(2026, 12, 1, tzinfo=UTC)
    assert fill_moment("2026-12-01 18:30", at, "Europe/Berlin") == datetime(2026, 12, 1, 17, 30, tzinfo=UTC)
    assert fill_moment("3d", at, "Europe/Berlin") == at + timedelta(days=3)
    assert fill_moment("2s", at, None) == at + timedelta(seconds=2)
    for bad in ("2026-11-26", "2026-02-30", "soon", "31d"):
        with pytest.raises(ValueError):
            fill_moment(bad, at, None)
    terms = parse_fill(game_named("celestial-empire"), "fill 1d\n", at, None)
    assert terms.seats == 9 and terms.level == "normal" and terms.take_over == ""
