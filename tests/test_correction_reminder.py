"""A seat waiting for its corrected orders is reminded, and the wait shows
(`gm.kernel.correction.REMIND_EDITION`; Spaceships' ruling v2, Celestial
Empire's R-12): the reminder before the deadline goes to it as to a seat
whose orders are missing, at the same time, naming the lines that could
not be read as the answer showed them; the owner's summary and the web page
of a game in play name the seat, never the line. A game of edition 8 sends
no such reminder (tests/test_correction.py pins it in the test clock's
daemon; here through `gm serve`)."""

from __future__ import annotations

import json
import smtplib
import time
import urllib.request
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid

from gm.kernel.correction import REMIND_EDITION, to_remind
from gm.kernel.values import SETTLED_EDITION, Options
from gm.mail.reading import parse_message
from gm.pbem.data.store import Store
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gmprocess import free_port, gm, inbox, listening, serving, wait_for
from gmtest import SETUP_ALICE, START, World, run, started_game, text
from test_correction import TYPO, WAITS, celestial_game, replays, subjects
from test_deadline_real_clock import reply

REMINDED = """A reminder: the turn waits for your corrected orders for turn 1. In your last
mail this line could not be read, as the answer to it said:

Line 2, column 5: unexpected 'rx1'.
    Rw2 rx1
        ^
"""
RUNS_AT_THE_DEADLINE = """If no corrected mail comes, the turn runs at the deadline with the orders in
force. To run it with those as they are, send them again unchanged.
"""


def test_a_seat_waiting_for_its_correction_is_reminded_of_its_line_when_a_missing_seat_would_be(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            assert game.edition >= REMIND_EDITION
            await world.act(world.bob.reply, "Bz5")
            await world.act(world.alice.reply, TYPO)
            answer = world.alice.latest_text()
            assert WAITS in answer and REMINDED.split("\n\n", 1)[1] in answer  # the answer's own words
            before = len(world.alice.inbox()), len(world.bob.inbox())
            world.clock.advance(hours=59, minutes=59, seconds=59.5)  # half a second before 12 hours to go
            await world.settle()
            assert (len(world.alice.inbox()), len(world.bob.inbox())) == before
            world.clock.advance(seconds=1)
            await world.settle()
            (reminder,) = world.alice.inbox()[before[0]:]
            assert str(reminder["Subject"]) == "[gm g1] Reminder: your corrected orders for turn 1"
            body = text(reminder)
            assert REMINDED in body and RUNS_AT_THE_DEADLINE in body and "Expected " in body
            assert "(Lines are counted in your own text, without quoted lines.)" in body
            assert len(world.bob.inbox()) == before[1]  # his orders are in: no reminder
            assert game.reminded == {1} and game.turn == 1
            world.clock.advance(hours=12)
            await world.settle()
            assert "Turn 1 results" in subjects(world.alice)[-1] and game.turn == 2 and game.unread == {}
            assert game.missed == {1: 0, 2: 0}
        replays(tmp_path)
    run(scenario())


def test_the_reminder_names_every_line_that_could_not_be_read_and_a_corrected_mail_ends_the_wait(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            await world.act(world.alice.reply, "Rv1\nRw2 rx1\nBz5 bq9")
            await world.act(world.bob.reply, "Bz5")
            assert game.correcting == {1} and len(game.unread[1]) == 2
            world.clock.advance(hours=60, seconds=1)
            await world.settle()
            body = world.alice.latest_text()
            assert "In your last\nmail these lines could not be read" in body
            assert "    Rw2 rx1\n" in body and "    Bz5 bq9\n" in body and "Line 3, column 5:" in body
            await world.act(world.alice.reply, "Rv1 Rw2")
            assert game.turn == 2 and game.unread == {} and game.reminded == set()
        replays(tmp_path)
    run(scenario())


def test_a_typo_after_the_reminder_time_is_answered_once_and_not_reminded_again(tmp_path):
    """The answer to a mail that comes after the reminder time says all a
    reminder would; a seat whose orders were in was not reminded before."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "Rv1")
            world.clock.advance(hours=61)
            await world.settle()  # Bob's orders are missing: he is reminded, Alice's are in
            assert [s for s in subjects(world.bob) if "Reminder" in s] == ["[gm g1] Reminder: your orders for turn 1"]
            assert not [s for s in subjects(world.alice) if "Reminder" in s]
            await world.act(world.alice.reply, TYPO)
            assert WAITS in world.alice.latest_text()
            world.clock.advance(seconds=1.5)
            await world.settle()
            assert not [s for s in subjects(world.alice) if "Reminder" in s]
            game = world.daemon.master.games["g1"]
            assert game.reminded == {1, 2}
            assert world.daemon.master.next_wakeup() == game.deadline  # not the reminder time gone by
        replays(tmp_path)
    run(scenario())


async def waiting_with_reminders(world: World, choice: str) -> int:
    """A begun game in which Alice chose ``reminders CHOICE``, then sent a
    mail with a line that cannot be read, and Bob his orders: the turn waits
    for her correction. How many mails she has then."""
    await started_game(world)
    begun = world.alice.latest()
    confirmation = await world.write_gm(world.alice, f"reminders {choice}")
    await world.act(world.alice.reply, "confirm", to=confirmation)
    await world.act(world.alice.reply, TYPO, to=begun)
    await world.act(world.bob.reply, "Bz5")
    return len(world.alice.inbox())


def test_a_player_who_chose_no_reminders_gets_none_while_waiting_for_the_correction(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            count = await waiting_with_reminders(world, "off")
            world.clock.advance(hours=60, seconds=1)
            await world.settle()
            assert len(world.alice.inbox()) == count
            assert world.daemon.master.games["g1"].reminded == {1}
        replays(tmp_path)
    run(scenario())


def test_a_player_who_chose_the_digest_finds_the_game_waiting_for_the_correction_in_it(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            count = await waiting_with_reminders(world, "digest")
            world.clock.now = START.replace(hour=7, minute=0, second=0, microsecond=0) + timedelta(days=1, seconds=0.25)
            await world.settle()  # the next morning's digest, before the game's reminder time
            (digest,) = world.alice.inbox()[count:]
            assert str(digest["Subject"]) == "[gm] 1 game waits for you"
            assert ("turn 1, deadline 2026-11-24 12:00 UTC;\n    your corrected orders are awaited: a line could not "
                    "be read\n") in text(digest)
            world.clock.now = START + timedelta(hours=60, seconds=1)
            await world.settle()  # the reminder time: no reminder from the game
            assert [s for s in subjects(world.alice)[count:] if "Reminder" in s] == [], subjects(world.alice)[count:]
            assert world.daemon.master.games["g1"].reminded == {1}
        replays(tmp_path)
    run(scenario())


def test_the_clock_and_the_reminder_choose_the_seats_by_one_rule_each_seat_once(tmp_path):
    # The clock decides from a game's summary that a reminder is due, the
    # kernel whom it goes to: one rule (`correction.to_remind`), each seat
    # once though it be both missing and waiting for its correction.
    assert to_remind([2, 1], [1, 3], {3}) == [2, 1]

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, TYPO)
            await world.act(world.bob.reply, "Bz5")
            master = world.daemon.master
            summary = master.games.summaries["g1"]
            assert (summary.waiting_for, summary.correction_awaited, summary.to_remind()) == ((), (1,), [1])
            assert replace(summary, waiting_for=(2, 1)).to_remind() == [2, 1]
            world.clock.advance(hours=60, seconds=1)
            await world.settle()
            assert master.games["g1"].reminded == {1} and master.games.summaries["g1"].to_remind() == []
    run(scenario())


def test_celestial_empire_reminds_the_empire_whose_correction_the_turn_waits_for(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            ann, bea = await celestial_game(world)
            await world.act(bea.reply, "+Grok\n")
            await world.act(ann.reply, "+Winter\nS1x2y\n")
            counts = len(ann.inbox()), len(bea.inbox())
            world.clock.advance(hours=36, seconds=1)
            await world.settle()
            (reminder,) = ann.inbox()[counts[0]:]
            body = text(reminder)
            assert str(reminder["Subject"]) == "[gm g1] Reminder: your corrected orders for turn 1"
            assert "the turn waits for your corrected orders for turn 1" in body and "    S1x2y\n" in body
            assert RUNS_AT_THE_DEADLINE in body
            assert len(bea.inbox()) == counts[1]
        replays(tmp_path)
    run(scenario())


def _page(port: int, path: str) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
        return response.read().decode()


def _mail_the_gm(port: int, sender: str, body: str) -> None:
    """A stranger's mail to the GM's own address, which gm shunts."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, "gm@localhost", "hello"
    message["Message-ID"] = make_msgid(domain="localhost")
    message.set_content(body)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.send_message(message)


def test_you_at_localhost_are_reminded_of_your_line_by_gm_serve_and_edition_8_is_not(tmp_path, monkeypatch):
    """README's ``you@localhost`` against the robot, by the installed
    ``gm serve`` on the wall clock: a 40-second deadline, the reminder 20
    seconds before it. Beside it a game of edition 8 (``me@localhost``),
    whose typo waits as well but is reminded of nothing. After a restart
    (the owner's summary is looked at once a minute, and at the start) the
    owner's summary and the game's public page name the waiting seat."""
    data, port, web = tmp_path / "gm-data", free_port(), free_port()
    you, me, owner = "you@localhost", "me@localhost", "owner@localhost"
    extra = ("--owner", owner, "--http", f"127.0.0.1:{web}")
    deadline = timedelta(seconds=40)
    with serving(data, port, None, tmp_path, extra):
        made = gm("new", "--data", str(data), "--player", you, "--robot", "--deadline", "40s",
                  "--remind-before", "20s", "--public-each-turn", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        monkeypatch.setattr("gm.pbem.archive.creation.EDITION", SETTLED_EDITION)
        request_game(Store(data), Identity("gm@localhost"), [me], "2.6.1",
                     Options(deadline=deadline, reminder_before=deadline / 2), datetime.now(UTC), robot="easy")
        for player in (you, me):
            reply(port, player, wait_for(f"{player}'s invitation", lambda p=player: inbox(data, p))[-1], SETUP_ALICE)
        begun = {}
        for player in (you, me):
            started = wait_for("turn 1", lambda p=player: [m for m in inbox(data, p)
                                                           if "the game begins" in str(m["Subject"])])
            begun[player] = time.monotonic()
            reply(port, player, started[-1], TYPO)
        for player in (you, me):
            wait_for(f"the answer to {player}'s typo",
                     lambda p=player: [m for m in inbox(data, p) if "not understood" in str(m["Subject"])])

        def shown(game: str) -> dict:
            return json.loads(gm("show", game, "--data", str(data), cwd=tmp_path).stdout)

        assert shown("g1")["waiting_for"] == [] and shown("g1")["waiting_for_correction"] == ["Player 1"]
        assert shown("g2")["waiting_for_correction"] == ["Player 1"]
        _mail_the_gm(port, "stranger@localhost", "hello")  # the shunt: something needs the owner's attention
        wait_for("the stranger's mail in the shunt", lambda: list((data / "shunt" / "new").iterdir()))
    with serving(data, port, None, tmp_path, extra):
        summary = wait_for("the owner's summary", lambda: inbox(data, owner))[-1]
        body = text(parse_message(summary.as_bytes()))
        assert "Shunted mail (1)" in body
        assert ("Turns waiting for a corrected mail (each runs at its deadline without it):\n"
                "  g1: turn 1 waits for a corrected mail from Player 1 (player 1)\n") in body
        assert "g2" not in body and "rx1" not in body
        wait_for("the web archive", lambda: listening(web))
        page = _page(web, "/games/g1")
        assert '<p id="correcting">Waiting for a corrected mail from Player 1.</p>' in page
        assert "rx1" not in page and "@" not in page.replace("@media", "")
        reminder = wait_for("your reminder", lambda: [m for m in inbox(data, you) if "Reminder" in str(m["Subject"])])
        assert 20 - 2 < time.monotonic() - begun[you] < 40
        body = text(parse_message(reminder[-1].as_bytes()))
        assert str(reminder[-1]["Subject"]) == "[gm g1] Reminder: your corrected orders for turn 1"
        assert REMINDED in body and RUNS_AT_THE_DEADLINE in body
        while time.monotonic() < begun[me] + 23:  # past the edition 8 game's reminder time
            time.sleep(0.2)
        assert not [m for m in inbox(data, me) if "Reminder" in str(m["Subject"])]
        assert shown("g2")["turn"] == 1
        reply(port, you, reminder[-1], "Rv1 Rw2")
        wait_for("turn 1's results", lambda: [m for m in inbox(data, you) if "Turn 1 results" in str(m["Subject"])])
        after = wait_for("the page after the turn", lambda: (found := _page(web, "/games/g1")) * ("turn 2" in found))
        assert '<p id="correcting">' not in after
    for game in ("g1", "g2"):
        count, differences = verify_replay(str(data / "games" / game))
        assert count and not differences, differences
