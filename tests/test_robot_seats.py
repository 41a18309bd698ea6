"""Several robot seats in one game, the robot standing in for a silent
person, and the operator giving a seat to the robot and back (issue 25),
through the real daemon on the generic machinery (the two-player games'
robots), each game's archive replayed byte for byte."""

from __future__ import annotations

import logging
import random
from collections import Counter

import pytest

from gm.games.spaceships.bot import random_orders
from gm.games.spaceships.orders import format_orders
from gm.kernel.values import ENDED, Options, SeatHanded
from gm.mail.reading import parse_message
from gm.pbem.archive.creation import parse_fields
from gm.pbem.archive.events import EVENT_HEADER
from gm.pbem.operator.actions import check_action, request_action
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, World, run, shunt_reasons, text

DEADLINE_HOURS = 72


def replays(tmp_path, game_id: str) -> None:
    count, differences = verify_replay(str(tmp_path / "data" / "games" / game_id))
    assert count and not differences, differences


def robot_events(world: World, game_id: str) -> list[tuple[int, int]]:
    """Each archived robot event, as (its archive number, its seat)."""
    archive = world.daemon.store.archive(game_id)
    found = []
    for key in sorted(archive.keys()):
        message = parse_message(archive.get_bytes(key))
        if ".in." in key and message.get(EVENT_HEADER) == "robot":
            head = message.get_content().replace("\r\n", "\n").partition("\n\n")[0]
            found.append((int(key.split(".")[0]), int(parse_fields(head)["player"])))
    return found


def one_set_per_seat_and_turn(world: World, game_id: str) -> Counter:
    """Each robot event's (seat, turn it answered), checked to be once each."""
    game = world.daemon.master.games[game_id]
    answered = Counter((player, game.turn_of_event[number - 1]) for number, player in robot_events(world, game_id))
    assert answered and max(answered.values()) == 1, [k for k, n in answered.items() if n > 1]
    return answered


async def spaceships(world: World, take_over_after: int = 2) -> str:
    _, game_id = request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1",
                              Options(take_over_after=take_over_after), world.clock())
    await world.settle()
    await world.act(world.alice.reply, SETUP_ALICE)
    await world.act(world.bob.reply, SETUP_BOB)
    return game_id


async def alice_orders(world: World, game_id: str, rng: random.Random) -> None:
    game = world.daemon.master.games[game_id]
    await world.act(world.alice.reply, format_orders(random_orders(game.play.game.state, 1, rng, 1.0)) or "check")


async def deadline_passes(world: World) -> None:
    world.clock.advance(hours=DEADLINE_HOURS, seconds=1)
    await world.settle()


def test_two_robot_seats_play_a_game_to_the_end_one_set_of_orders_each_turn(tmp_path, caplog):
    """A game whose both seats are the robot's (Alice watches): each turn's
    two robot events are chosen from the same view, the second is not
    dropped for the first (simultaneous play), and each seat sends exactly
    one set each turn."""
    caplog.set_level(logging.INFO, logger="gm")

    async def scenario():
        async with World(tmp_path) as world:
            _, game_id = request_game(world.daemon.store, world.config.identity, [], "2.6.1", Options(),
                                      world.clock(), robot="easy", robots=2, robot_seed=7, observers=[ALICE])
            for _ in range(200):
                await world.settle()
                if world.daemon.master.games[game_id].phase == ENDED:
                    break
            game = world.daemon.master.games[game_id]
            assert game.phase == ENDED and game.robots == [1, 2]
            answered = one_set_per_seat_and_turn(world, game_id)
            assert {turn for _, turn in answered} == set(range(game.outcome.after_turn + 1)), "a turn went unanswered"
            assert len(answered) == 2 * (game.outcome.after_turn + 1)
            assert "robot event dropped" not in caplog.text, "a robot's choice was thrown away for the other's"
            store = world.daemon.store
            assert {str(parse_message(store.delivered.get_bytes(k))["To"]) for k in store.delivered.keys()} == {
                ALICE}, "mail went to a robot's seat"
            return game_id

    replays(tmp_path, run(scenario()))


def test_several_robot_seats_are_refused_where_they_cannot_be(tmp_path):
    store_world = World(tmp_path)
    store, identity, at = store_world.daemon.store, store_world.config.identity, store_world.clock()
    with pytest.raises(ValueError, match="has from two to nine players"):
        request_game(store, identity, [ALICE], "standard", Options(), at, game="celestial-empire",
                     robot="normal", robots=9)
    with pytest.raises(ValueError, match="one seat at least"):
        request_game(store, identity, [ALICE], "2.6.1", Options(), at, robot="normal", robots=0)
    with pytest.raises(ValueError, match="has two players"):
        request_game(store, identity, [ALICE], "2.6.1", Options(), at, robot="normal", robots=2)


def test_a_silent_seat_goes_on_under_the_robot_and_its_player_comes_back(tmp_path):
    """Bob misses two deadlines in a row: the robot plays his seat from the
    second on (Alice told, by alias), the game no longer waits for him, he
    still gets the sheets but not the robot's replies; his next orders make
    the seat his again, and are his orders for that turn (Alice told again)."""
    async def scenario():
        async with World(tmp_path) as world:
            rng = random.Random(25)
            game_id = await spaceships(world)
            master = world.daemon.master
            for _ in range(2):
                await alice_orders(world, game_id, rng)
                await deadline_passes(world)
            game = master.games[game_id]
            bob = game.seat(2).alias
            assert game.stand_ins == {2: "normal"} and game.turn == 3
            assert game.waiting_for == [1], "the robot's orders are in at once"
            told = text(world.alice.latest())
            assert f"{bob} sent no orders for 2 turns in a row: the GM's robot plays" in told
            assert BOB not in told and "Played by" not in told  # (Spaceships' header is its own)
            assert "the GM's robot plays" in text(world.bob.latest())
            world.bob.new_mail()
            await alice_orders(world, game_id, rng)
            await alice_orders(world, game_id, rng)
            assert master.games[game_id].turn == 5
            bobs = [str(m["Subject"]) for m in world.bob.new_mail()]
            assert bobs and not any(s.startswith("Re:") for s in bobs), bobs  # sheets, never the robot's replies
            robot_before = len(robot_events(world, game_id))
            await world.act(world.bob.reply, "check")  # no orders: still the robot's
            assert master.games[game_id].stand_ins == {2: "normal"}
            state = master.games[game_id].play.game.state
            await world.act(world.bob.reply, format_orders(random_orders(state, 2, rng, 1.0)) or "Gv1")
            game = master.games[game_id]
            assert game.stand_ins == {} and game.turn == 5 and game.waiting_for == [1]
            assert "you play your seat again" in text(world.bob.latest())
            assert f"{bob} is played by its player again" in text(world.alice.latest())
            await alice_orders(world, game_id, rng)
            game = master.games[game_id]
            assert game.turn == 6 and game.waiting_for == [1, 2], "the game waits for Bob again"
            assert len(robot_events(world, game_id)) == robot_before, "the robot played on"
            one_set_per_seat_and_turn(world, game_id)
            return game_id

    replays(tmp_path, run(scenario()))


def test_without_the_option_a_silent_seat_is_not_taken_over(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            rng = random.Random(3)
            game_id = await spaceships(world, take_over_after=0)
            for _ in range(2):
                await alice_orders(world, game_id, rng)
                await deadline_passes(world)
            game = world.daemon.master.games[game_id]
            assert game.stand_ins == {} and game.waiting_for == [1, 2] and not robot_events(world, game_id)
            return game_id

    replays(tmp_path, run(scenario()))


def test_the_operator_gives_a_seat_to_the_robot_and_back(tmp_path):
    """``gm replace --robot LEVEL`` and ``--person``: the robot plays the
    seat at once, until the operator gives it back; what cannot be done is
    refused before it is spooled."""
    async def scenario():
        async with World(tmp_path) as world:
            rng = random.Random(4)
            game_id = await spaceships(world, take_over_after=0)
            master, store, identity = world.daemon.master, world.daemon.store, world.config.identity
            games = master.games
            assert "is played by its person already" in check_action({game_id: games[game_id]}, game_id,
                                                                    SeatHanded(world.clock(), 2, None))
            assert "not 'wild'" in check_action({game_id: games[game_id]}, game_id,
                                                SeatHanded(world.clock(), 2, "wild"))
            request_action(store, identity, game_id, SeatHanded(world.clock(), 2, "hard"))
            await world.settle()
            game = games[game_id]
            assert game.stand_ins == {2: "hard"} and game.waiting_for == [1]
            assert "The GM has given your seat to the GM's robot" in text(world.bob.latest())
            assert "The GM has given" in text(world.alice.latest())
            await alice_orders(world, game_id, rng)
            request_action(store, identity, game_id, SeatHanded(world.clock(), 2, None))
            await world.settle()
            game = games[game_id]
            assert game.stand_ins == {} and game.turn == 2
            assert "The GM has given you your seat back" in text(world.bob.latest())
            await alice_orders(world, game_id, rng)  # the robot's orders for turn 2 stand: the turn runs
            assert games[game_id].turn == 3 and games[game_id].waiting_for == [1, 2], "the game waits for Bob again"
            assert not shunt_reasons(world)
            return game_id

    replays(tmp_path, run(scenario()))


def test_the_robots_own_seat_cannot_be_given_back_to_a_person_by_handing(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            _, game_id = request_game(world.daemon.store, world.config.identity, [ALICE], "2.6.1", Options(),
                                      world.clock(), robot="easy", robot_seed=1)
            await world.settle()
            game = world.daemon.master.games[game_id]
            why = check_action({game_id: game}, game_id, SeatHanded(world.clock(), 2, None))
            assert why and "is the robot's own" in why

    run(scenario())
