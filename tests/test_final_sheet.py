"""The end of a game is usable (issue 10, point 6): the final sheet's
records are a record `gm referee` reads [1.4.1], with rejected orders as
comments and every line within 78 columns; the winner's score comes first;
and `status` after the end says the game is over.

The game is tests/records/standard-win.rec, except that in turn 2 player 2
fires a beam that misses and 14 scans where 13 are allowed (8 + 5 cells lost
in turn 1 [8.3.1.1]), so that its orders line is longer than a mail line and
one scan is rejected; and in turn 3 a second strike its one heavy scout does
not entitle it to. Player 1 wins 13 to 0 after turn 3 [2.3.1], as in the
record (worked out with `gm.games.spaceships.game.Game`).
"""

from __future__ import annotations

import asyncio
import json
import mailbox
import random
import re
import subprocess
import sys

import pytest

from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, World, enclosures, own_text, text

BOB_TURN2 = "bRz1Rz3 Gv1 Gw1 sBv1 sBw1 sBx1 sBy1 sBz1 sOv1 sOw1 sOx1 sOy1 sOz1 sGv1 sGw1 sRz5 sRz4"
TURNS = [("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
         ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", BOB_TURN2),
         ("Gz1 Gz2", "Ov1 Ow1")]


def play(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            for alice, bob in TURNS:
                world.clock.advance(hours=1)
                await world.act(world.alice.reply, alice)
                await world.act(world.bob.reply, bob)
            finals = [world.alice.latest(), world.bob.latest()]
            world.clock.advance(hours=1)
            await world.act(world.bob.reply, "status")
            return finals, world.bob.inbox()[-1]
    return asyncio.run(scenario())


def record_of(sheet: str) -> str:
    """The record block of a final sheet, as a player would cut it out."""
    found = re.search(r"^game spaceships\n.*?^; end of the record\n", sheet, re.M | re.S)
    assert found, sheet
    return found[0]


def referee(tmp_path, record: str, name: str) -> subprocess.CompletedProcess:
    path = tmp_path / name
    path.write_text(record, encoding="utf-8")
    return subprocess.run([sys.executable, "-P", "-m", "gm", "referee", str(path), "--json"],
                          capture_output=True, text=True, timeout=60)


def test_the_final_records_are_a_record_gm_referee_reads(tmp_path):
    (alice, bob), _ = play(tmp_path)
    assert str(alice["Subject"]).endswith("Turn 3: the game is over")
    for number, message in ((1, alice), (2, bob)):
        sheet = text(message)
        assert [line for line in sheet.splitlines() if len(line) > 78] == []
        record = record_of(sheet)
        done = referee(tmp_path, record, f"p{number}.rec")
        assert done.returncode == 0, (done.stdout, done.stderr, record)
        result = json.loads(done.stdout)["result"]
        assert result == {"ended_after_turn": 3, "reason": "player 2 has no ships left [2.3.1]",
                          "scores": {"1": 13, "2": 0}, "tiebreak": None, "winner": 1}
        # Labelled turns, whose orders are whose, rejected orders as comments.
        assert "\nturn 1 " in record and "\nturn 3 " in record
        assert re.search(r"^; Game g1: 1 is (you \(Player 1\)|Player 1), 2 is (you \(Player 2\)|Player 2)\.$", record,
                         re.M)
        turn2 = record.split("\nturn 2 ", 1)[1].split("\nturn 3 ", 1)[0]
        assert "\n2: bRz1Rz3 Gv1 Gw1 sBv1" in turn2 and "sRz5" in turn2
        assert re.search(r"^; rejected: sRz4: only 13 scans allowed", turn2, re.M)
        assert re.search(r"^; rejected: Ow1: too many strikes", record.split("\nturn 3 ", 1)[1], re.M)
        assert "sRz4" not in turn2.replace("; rejected: sRz4", "")
    # The winner's score first, for the winner and the loser alike.
    assert "Scores: you 13, Player 2 0.\nYou win.\n" in text(alice)
    assert "Scores: Player 1 13, you 0.\nPlayer 1 wins.\n" in text(bob)


def test_status_after_the_end_says_the_game_is_over(tmp_path):
    (_, final), reply = play(tmp_path)
    assert "status: the current sheet is below" in own_text(reply)
    subject = str(reply["Subject"])
    assert "Turn 4" not in subject and "over" in subject, subject
    (plain,) = enclosures(reply).values()
    assert "Turn 4" not in text(reply) and "turn 4" not in text(reply)
    html = reply.get_body(preferencelist=("html",)).get_content()
    assert "turn 4" not in html.lower()
    assert "The game is over" in plain and record_of(plain) == record_of(text(final))


FINAL_MAIL_LIMIT = 60_000
"""Issue 22: the final sheet used to attach the player's whole mailbox
(about 500 KB for a game of twenty turns); a player's final mail stays
under this many bytes for a typical game."""


def test_the_final_sheet_attaches_the_players_own_record_not_their_mailbox(tmp_path):
    (alice, bob), _ = play(tmp_path)
    for number, message in ((1, alice), (2, bob)):
        assert len(message.as_bytes()) < FINAL_MAIL_LIMIT
        (attachment,) = message.iter_attachments()
        assert attachment.get_filename() == f"game-g1-player-{number}.txt"
        assert attachment.get_content_type() == "text/plain"
        record = attachment.get_content()
        assert record.startswith(f"Spaceships game g1: you are Player {number}")
        assert [line for line in record.splitlines() if len(line) > 78] == []
        assert "Your setup:" in record and all(f"== Turn {n} (" in record for n in (1, 2, 3))
        assert "password" not in record and "Reply to" not in record  # no footer on how to answer
        assert f"game-g1-player-{number}.txt" in text(message)  # the sheet says what is attached
    assert "REJECTED: " in next(bob.iter_attachments()).get_content()  # Bob's own rejected orders


def test_the_final_mail_of_a_game_against_the_robot_stays_small(tmp_path):
    """Eight mails of Alice's against the robot (setup and seven turns): her
    final mail was 198 KB with her mailbox attached; with her record, 24 KB."""
    from test_robot_by_mail import play_out, robot_game

    async def scenario():
        async with World(tmp_path) as world:
            game_id = robot_game(world)
            await world.settle()
            await play_out(world, game_id, random.Random(7))
            return world.alice.latest()
    final = asyncio.run(scenario())
    assert "game is over" in str(final["Subject"]).lower()
    assert len(final.as_bytes()) < FINAL_MAIL_LIMIT, len(final.as_bytes())


def test_a_game_of_edition_4_still_attaches_the_players_own_mailbox(tmp_path):
    """A game made before issue 22 keeps answering as it did (its archive
    replays byte for byte): its final sheet attaches the player's mailbox."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("gm.pbem.archive.creation.EDITION", 4)
        (alice, _), _ = play(tmp_path)
    (attachment,) = list(alice.iter_attachments())
    assert attachment.get_filename() == "game-g1.mbox"
    assert "The whole game is attached as a mailbox (game-g1.mbox)." in text(alice)
    mbox_path = tmp_path / "attached.mbox"
    mbox_path.write_bytes(attachment.get_content())
    attached = mailbox.mbox(str(mbox_path))
    subjects = [str(m["Subject"]) for m in attached]
    assert "Invitation" in subjects[0] and "Turn 2 results" in " ".join(subjects)
    assert not any("the game is over" in s for s in subjects)  # up to the last orders
    assert {str(m["To"]) for m in attached} == {ALICE}  # her own mailbox: what the GM sent her
    assert b"@@GM-SECRET" not in mbox_path.read_bytes() and BOB.encode() not in mbox_path.read_bytes()
    count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
    assert count and differences == []
