"""The level of the robot that takes over a silent seat (issue 25): a game
option (`Options.take_over_level`), set by ``gm new --take-over-level`` and a
challenge's ``take-over LEVEL`` line, recorded in the creation event only
when not ``normal`` (so that earlier games' events are as they were), shown
by ``gm show``, and the level the stand-in plays at, alike in ``gm replay``."""

from __future__ import annotations

import json
import random

from gm.cli import main
from gm.kernel.values import Options
from gm.mail.reading import parse_message
from gm.pbem.archive.creation import parse_fields
from gm.pbem.data.store import Store
from gm.pbem.operator.admin import describe_game, request_game, verify_replay
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, World, run, shunt_reasons, text
from test_robot_seats import alice_orders, deadline_passes, spaceships

SHORT = "standard+turns=3"


def creation_fields(world: World, game_id: str) -> dict[str, str]:
    archive = world.daemon.store.archive(game_id)
    return parse_fields(parse_message(archive.get_bytes(sorted(archive.keys())[0])).get_content())


def test_the_robot_takes_over_a_silent_seat_at_the_level_the_game_says(tmp_path):
    """Bob misses two deadlines in a game whose take-over level is hard: the
    hard robot plays his seat, the creation event says so, ``gm show`` shows
    it, and the archive replays byte for byte."""
    async def scenario():
        async with World(tmp_path) as world:
            rng = random.Random(7)
            _, game_id = request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1",
                                      Options(take_over_after=2, take_over_level="hard"), world.clock())
            await world.settle()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            for _ in range(2):
                await alice_orders(world, game_id, rng)
                await deadline_passes(world)
            game = world.daemon.master.games[game_id]
            assert game.stand_ins == {2: "hard"} and game.options.take_over_level == "hard"
            assert creation_fields(world, game_id)["take-over-level"] == "hard"
            assert describe_game(game)["take_over"] == {"after": 2, "level": "hard"}
            return game_id

    game_id = run(scenario())
    count, differences = verify_replay(str(tmp_path / "data" / "games" / game_id))
    assert count and not differences, differences


def test_without_a_level_the_stand_in_is_normal_and_the_event_does_not_say(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            game_id = await spaceships(world)
            assert "take-over-level" not in creation_fields(world, game_id)
            assert creation_fields(world, game_id)["take-over-after"] == "2"
            rng = random.Random(3)
            for _ in range(2):
                await alice_orders(world, game_id, rng)
                await deadline_passes(world)
            game = world.daemon.master.games[game_id]
            assert game.stand_ins == {2: "normal"}
            assert describe_game(game)["take_over"] == {"after": 2, "level": "normal"}
            await world.new_game()  # no take-over: gm show says nothing of it
            assert "take_over" not in describe_game(world.daemon.master.games["g2"])

    run(scenario())


def test_gm_new_sets_the_take_over_level(tmp_path, capsys):
    data = str(tmp_path / "data")
    store = Store(data)
    people = ["--player", "a@x.example", "--player", "b@y.example"]
    assert main(["new", "--data", data, "--game", "celestial-empire", *people, "--take-over-level", "hard"]) == 0
    (key,) = store.spool.keys()
    fields = parse_fields(parse_message(store.spool.get_bytes(key)).get_content())
    assert fields["take-over-after"] == "2" and fields["take-over-level"] == "hard"
    capsys.readouterr()
    assert main(["new", "--data", data, "--game", "celestial-empire", *people, "--take-over-level", "hard",
                 "--take-over-after", "0"]) == 2
    assert "no robot takes over" in capsys.readouterr().err
    assert main(["new", "--data", data, *people, "--take-over-level", "easy"]) == 2  # Spaceships: 0 by default
    assert "no robot takes over" in capsys.readouterr().err
    assert len(store.spool.keys()) == 1


def test_a_challenge_sets_the_take_over_level_and_both_are_told(tmp_path):
    """``take-over hard`` in a challenge: the challenger's confirmation and
    the invitation say so, and the accepted game's option is hard; a level
    the robot has not, or a game no robot takes over in, is refused."""
    async def scenario():
        async with World(tmp_path) as world:
            confirm = await world.challenge(world.alice, f"challenge {BOB}\ngame celestial-empire\nvariant {SHORT}\n"
                                                         "take-over hard\n")
            said = "An empire whose player stops sending orders is played by the GM's robot, at the hard level"
            assert said in " ".join(text(confirm).split())
            (invite,) = world.bob.inbox()
            assert said in " ".join(text(invite).split())
            await world.act(world.bob.reply, "accept", to=invite)
            (game,) = world.daemon.master.games.all()
            live = world.daemon.master.games[game.id]
            assert live.options.take_over_level == "hard" and live.options.take_over_after == 2
            assert creation_fields(world, game.id)["take-over-level"] == "hard"
            for lines in (f"challenge {BOB}\ngame celestial-empire\ntake-over mighty\n",
                          f"challenge {BOB}\ntake-over hard\n"):
                await world.write_gm(world.alice, lines)
            reasons = b"\n".join(shunt_reasons(world))
            assert b"take-over 'mighty'" in reasons and b"no robot takes over a seat in Spaceships" in reasons
            shown = json.dumps(describe_game(live))
            assert '"level": "hard"' in shown

    run(scenario())
