"""Observers (issue 10, point 8): an address that watches a game.

Through the real daemon: the observer gets a note when the game is made,
nothing while it is played, and one mail with the result and the whole game
when it ends; never a player's address, token or private words (the leak
search of test_secrecy_whole_game, over every byte delivered to them); mail
from the observer changes nothing; and the game's archive replays byte for
byte."""

from __future__ import annotations

import asyncio
import json

from gm.cli import main
from gm.kernel.values import Options
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB, Player, World, text
from test_secrecy_whole_game import Seat, leaks, mail, texts

CAROL = "carol@example.com"
DAVE = "dave@example.net"


def delivered_to(world: World, address: str) -> list[bytes]:
    store = world.daemon.store
    return [store.delivered.get_bytes(k) for k in store.delivered.keys()
            if f"To: {address}".encode() in store.delivered.get_bytes(k).split(b"\n\n", 1)[0]]


def observed_game(world: World, observers: list[str]) -> None:
    request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1", Options(),
                 world.clock(), observers=observers)


def test_an_observer_gets_a_note_nothing_during_play_and_the_whole_game_at_the_end(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            observed_game(world, [CAROL, DAVE])
            await world.settle()
            carol, dave = Player(CAROL, world), Player(DAVE, world)
            for watcher, number in ((carol, 1), (dave, 2)):
                note = watcher.inbox()
                assert len(note) == 1
                assert "You may watch a game" in str(note[0]["Subject"])
                assert f"as observer {number}" in text(note[0])
                assert note[0]["Reply-To"] is None and note[0]["X-GM-Player"] is None
            alice, bob = Seat(1, world.alice), Seat(2, world.bob)
            await asyncio.to_thread(mail, alice, world, SETUP_ALICE, True)
            await world.settle()
            await asyncio.to_thread(mail, bob, world, SETUP_BOB, True)
            await world.settle()
            await asyncio.to_thread(mail, alice, world, "message hello bob")
            await world.settle()
            # The observer mails the game: refused like a stranger's, nothing changes.
            events = world.daemon.master.games["g1"].events
            raw = (f"From: {CAROL}\r\nTo: {GM}\r\nSubject: Re: [gm g1] hi\r\nMessage-ID: <c1@example.com>\r\n\r\n"
                   "status\r\nresign\r\n").encode()
            await world.asend(raw, CAROL, [GM])
            await world.settle()
            assert world.daemon.master.games["g1"].events == events
            assert [str(m["Subject"]) for m in carol.inbox() if "[gm g1]" in str(m["Subject"])] == \
                [str(carol.inbox()[0]["Subject"])]  # during play: only the note
            assert len(dave.inbox()) == 1
            turns = [("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"), ("Rz5", "resign")]
            for orders_a, orders_b in turns:
                await asyncio.to_thread(mail, alice, world, orders_a)
                await world.settle()
                await asyncio.to_thread(mail, bob, world, orders_b, True)
                await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.phase == "ended"
            key = world.daemon.store.key
            ends = [m for m in carol.inbox() if "whole game" in str(m["Subject"])]
            assert len(ends) == 1
            end = ends[0]
            body = text(end)
            assert "resigned" in body and "The winner: Player 1" in body
            names = [part.get_filename() for part in end.iter_attachments()]
            assert names == ["game-g1-player-1.txt", "game-g1-player-2.txt"]
            records = [part.get_content() for part in end.iter_attachments()]
            assert "Rv1-Ow2" in records[0] and "Yx3-Gy4" in records[1]  # both setups, revealed at the end
            assert "== Turn 1" in records[0] and "== Turn 1" in records[1]
            for number, record in enumerate(records, 1):  # whose record it is, not "you are Player 1"
                assert record.startswith(f"Spaceships game g1: the record of Player {number}, as the GM sent it")
                assert "you are Player" not in record and "password" not in record
            for watcher in (CAROL, DAVE):
                blobs = [b for raw in delivered_to(world, watcher) for b in texts(raw)]
                assert len(delivered_to(world, watcher)) in (2, 3)  # note, end (and perhaps a stranger's note)
                for player in (1, 2):
                    assert leaks(blobs, player, key) == []
                    assert not any(b"gm+g1." in b for b in blobs)  # no reply address, masked or not
                assert not any(b"hello bob" in b for b in blobs)  # the players' words to each other
                assert not any(b"@@GM-SECRET" in b for b in blobs)
            # The players' own mail is as without observers: nothing of the observers in it.
            for player in (world.alice, world.bob):
                for raw in delivered_to(world, player.address):
                    assert CAROL.encode() not in raw and DAVE.encode() not in raw
            return tmp_path / "data" / "games" / "g1"
    archive = asyncio.run(scenario())
    count, differences = verify_replay(str(archive))
    assert differences == [] and count > 10


def test_before_the_end_an_observer_holds_only_the_note(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            observed_game(world, [CAROL])
            await world.settle()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "Rv1")
            await world.act(world.bob.reply, "Rv1\nstatus\nhistory")
            world.clock.advance(hours=80)
            await world.settle()
            assert world.daemon.master.games["g1"].phase == "play"
            blobs = delivered_to(world, CAROL)
            assert len(blobs) == 1
            body = text(Player(CAROL, world).latest())
            for hidden in ("Rv1", "Yx3", "Turn 1", ALICE, BOB):
                assert hidden not in body
            return tmp_path / "data" / "games" / "g1"
    archive = asyncio.run(scenario())
    assert verify_replay(str(archive))[1] == []


def test_a_cancelled_game_tells_its_observer_once(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            observed_game(world, [CAROL])
            await world.settle()
            assert main(["cancel", "g1", "--data", str(tmp_path / "data"), "--reason", "test"]) == 0
            await world.settle()
            await world.settle()
            subjects = [str(m["Subject"]) for m in Player(CAROL, world).inbox()]
            assert len(subjects) == 2 and "whole game" in subjects[1]
            return tmp_path / "data" / "games" / "g1"
    archive = asyncio.run(scenario())
    assert verify_replay(str(archive))[1] == []


def test_gm_new_observer_from_the_command_line(tmp_path):
    data = str(tmp_path / "data")

    async def scenario():
        async with World(tmp_path) as world:
            assert main(["new", "--data", data, "--player", ALICE, "--player", BOB, "--observer", CAROL,
                         "--observer", DAVE]) == 0
            assert main(["new", "--data", data, "--player", ALICE, "--player", BOB, "--observer", ALICE]) == 2
            assert main(["new", "--data", data, "--player", ALICE, "--player", BOB, "--observer", "nobody"]) == 2
            await world.settle()
            assert world.daemon.master.games["g1"].observers == (CAROL, DAVE)
            assert len(Player(CAROL, world).inbox()) == 1 and len(Player(DAVE, world).inbox()) == 1
            created = world.daemon.store.archive("g1").get_bytes(world.daemon.store.archive("g1").keys()[0])
            assert f"observer-1: {CAROL}".encode() in created and f"observer-2: {DAVE}".encode() in created
    asyncio.run(scenario())
    assert verify_replay(str(tmp_path / "data" / "games" / "g1"))[1] == []


def test_gm_show_and_gm_games_name_the_observers_and_who_is_away(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path) as world:
            observed_game(world, [CAROL])
            await world.settle()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "vacation 5d")
            return world.config.data
    data = asyncio.run(scenario())
    capsys.readouterr()
    assert main(["show", "g1", "--data", data]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["observers"] == [CAROL]
    assert list(shown["absent"]) == ["Player 1"] and shown["absent"]["Player 1"].startswith("2026-11-26 ")
    assert main(["games", "--data", data]) == 0
    line = capsys.readouterr().out.strip()
    assert "Player 1 away until 2026-11-26 " in line and "1 watching" in line, line


def test_a_game_without_observers_records_none(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            created = world.daemon.store.archive("g1").get_bytes(world.daemon.store.archive("g1").keys()[0])
            assert b"observer" not in created
    asyncio.run(scenario())
