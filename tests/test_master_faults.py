"""Hostile mail and faults that reach the game master (issue 8, section 6),
each through the real daemon: mail on a loopback SMTP port, a data directory
on disk, and, for the full disk, a real tmpfs of a few hundred kilobytes."""

from __future__ import annotations

import asyncio
import errno
import os
import signal
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest

from gm.pbem.intake.limits import Limits, normalized
from gm.pbem.operator.admin import verify_replay
from gmprocess import stop, wait_for
from gmtest import ALICE, GM, World, run, shunt_reasons, started_game, text


def plain(sender: str, body: str, message_id: str, to: str = GM, extra: str = "") -> bytes:
    return (f"From: {sender}\r\nTo: {to}\r\nSubject: x\r\nMessage-ID: {message_id}\r\n{extra}\r\n"
            + body.replace("\n", "\r\n") + "\r\n").encode()


def test_a_reused_message_id_with_other_orders_is_kept_and_answered(tmp_path):
    """A duplicate whose text differs is not a duplicate: its orders count."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            to = str(world.alice.latest()["Reply-To"])
            await world.asend(plain(ALICE, "Rv1", "<same@example.org>", to=to), ALICE, [to])
            await world.settle()
            await world.asend(plain(ALICE, "Rv2 Rv3", "<same@example.org>", to=to), ALICE, [to])
            await world.settle()
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv2", "Rv3"]
            assert "replacing all you sent before" in world.alice.latest_text()
            count = len(world.alice.inbox())
            await world.asend(plain(ALICE, "Rv2 Rv3", "<same@example.org>", to=to,
                                    extra="Received: by another.relay.example; Sat, 21 Nov 2026 12:00:01 +0000\r\n"),
                              ALICE, [to])
            await world.settle()
            assert len(world.alice.inbox()) == count  # the same mail twice (by another route) is applied once
        async with World(tmp_path) as world:  # and still after a restart
            await world.asend(plain(ALICE, "Rv2 Rv3", "<same@example.org>", to=to), ALICE, [to])
            await world.settle()
            assert world.daemon.master.games["g1"].events == 5
    run(scenario())


def test_a_players_own_auto_reply_to_the_plain_address_is_answered_once_not_warned(tmp_path):
    """An auto-responder that strips the automatic-mail headers and answers
    the GM's own address: no forgery warning, one answer a day saying where
    to write, and the count survives a restart."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            before = len(world.alice.inbox())
            for n in range(3):
                await world.asend(plain(ALICE, "I am away until Monday.", f"<away{n}@example.org>"), ALICE, [GM])
                await world.settle()
            inbox = world.alice.inbox()
            assert len(inbox) == before + 1
            answer = inbox[-1]
            assert "reached no game" in str(answer["Subject"]) and "Someone tried" not in str(answer["Subject"])
            assert str(answer["Auto-Submitted"]) == "auto-replied"
            assert (str(answer["Reply-To"]) == str(world.alice.latest()["Reply-To"])
                    or "gm+g1.1." in str(answer["Reply-To"]))
            await world.act(world.alice.reply, "Rv1", to=answer)  # its Reply-To reaches her game
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1"]
        async with World(tmp_path) as world:
            await world.asend(plain(ALICE, "I am away until Monday.", "<away9@example.org>"), ALICE, [GM])
            await world.settle()
            assert sum("reached no game" in str(m["Subject"]) for m in world.alice.inbox()) == 1
    run(scenario())


def test_a_reply_to_the_games_list_reaches_the_game(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.asend(plain(ALICE, "games", "<list@example.org>"), ALICE, [GM])
            await world.settle()
            listing = world.alice.latest()
            assert "Your games" in str(listing["Subject"]) and "orders to: gm+g1.1." in text(listing)
            await world.act(world.alice.reply, "Rv1 Rv2", to=listing)
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1", "Rv2"]
    run(scenario())


def test_a_stranger_asking_for_help_is_answered_once_a_day_and_automatic_mail_never(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = "carol@example.com"
            for n in range(2):
                await world.asend(plain(carol, "help", f"<help{n}@example.com>"), carol, [GM])
            await world.asend(plain("robot@example.com", "help", "<r@example.com>",
                                    extra="Auto-Submitted: auto-replied\r\n"),
                              "robot@example.com", [GM])
            await world.settle()
            store = world.daemon.store
            sent = [store.delivered.get_bytes(k) for k in store.delivered.keys()]
            assert len(sent) == 1 and f"To: {carol}".encode() in sent[0]
            assert b"You play in no game now" in sent[0] and b"challenge ADDRESS" in sent[0]
    run(scenario())


def test_the_daily_cap_on_a_players_mail_survives_a_restart(tmp_path):
    async def scenario():
        for _ in range(2):
            async with World(tmp_path, limits=Limits(replies_per_day=4)) as world:
                if not world.daemon.master.games:
                    await started_game(world)  # Alice's first mail of the day
                for _n in range(2):
                    await world.act(world.alice.reply, "Rv1")
        assert sum(b"more than 4 mails today" in r for r in shunt_reasons(world)) == 1  # her fifth
    run(scenario())


@pytest.mark.parametrize("spelling, expected", [
    ("victim@x.example", "victim@x.example"), ("victim@x.example,", "victim@x.example"),
    ("<Victim@X.Example>,", "victim@x.example"), ("Victim <victim@x.example>", "victim@x.example"),
    ("a@x.example, b@y.example", None), ("a@x.example,b@y.example", None), ("nobody", None),
    ("a@x.example\r\nBcc: b@y.example", None),
])
def test_addresses_are_counted_normalized(spelling, expected):
    assert normalized(spelling) == expected


# A message during which the daemon dies, again and again

def test_a_message_that_kills_the_daemon_goes_to_the_shunt_after_three_tries(tmp_path):
    from datetime import datetime

    from gm.pbem.data.store import Store, spool_key

    data = tmp_path / "data"
    store = Store(data)
    poison = plain("stranger@example.com", "<blockquote>" * 10, "<poison@example.com>")
    key = spool_key(datetime.now(UTC), "smtp")
    store.spool.add(poison, key)
    env = dict(os.environ, GM_CRASH_AT="mid-handle:1")
    deaths = 0
    for _ in range(6):
        daemon = subprocess.Popen([sys.executable, "-P", "-m", "gm", "serve", "--data", str(data), "--smtp",
                                   "127.0.0.1:0",
                                   "--address", GM], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # Each start dies handling the poison, until one shunts it instead and stays up.
        wait_for("the daemon to die or to shunt the poison",
                 lambda: daemon.poll() is not None or (store.shunt.keys() and not store.spool.keys()))
        if daemon.poll() is None:
            stop(daemon)
            break
        assert daemon.returncode == -signal.SIGKILL
        deaths += 1
    assert deaths == 3
    (shunted,) = store.shunt.keys()
    assert shunted == key and b"gm stopped 3 times while handling this mail" in store.shunt.get_bytes(key)
    assert store.spool.keys() == [] and Store(data).attempts.pending() == {}
    assert [p.name for p in (data / "attempts").iterdir()] == ["in-progress"]  # one table, no file per message


# A full disk

@pytest.fixture
def small_disk(tmp_path):
    """A real 768 KiB tmpfs (the tests run as root in CI)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=768k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int) -> Path:
    """Fill the file system, then give back ``leave`` bytes."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as error:
            assert error.errno == errno.ENOSPC
    os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


@pytest.mark.parametrize("leave", [0, 4096, 12288, 40960])
def test_a_full_disk_neither_corrupts_nor_doubles_a_turn(small_disk, leave):
    """Bob's orders complete the turn while the disk is full to within a
    few pages. Whatever gets written before the fault, the game stays what
    its archive says; once space is back the turn runs once, each player
    gets its results once, and the archive replays byte for byte."""
    import smtplib
    from email import message_from_bytes

    async def scenario():
        world = World(small_disk)
        async with world:
            await started_game(world)
            await world.act(world.alice.reply, "Rv1")
            filler = fill(small_disk, leave)
            try:
                raw = await asyncio.to_thread(world.bob.reply, "Bz5")
            except smtplib.SMTPResponseException as refused:  # not accepted: the sender's server keeps it
                assert 400 <= refused.smtp_code < 600
                raw = None
            for _ in range(3):
                await world.settle()
            game = world.daemon.master.games.get("g1")
            assert game is None or game.turn in (1, 2)
            filler.unlink()
            if raw is None:
                raw = await asyncio.to_thread(world.bob.reply, "Bz5")  # the retry
            bob_id = str(message_from_bytes(raw)["Message-ID"])
            world.clock.advance(minutes=5)  # past the delivery backoff
            await world.settle()
            world.clock.advance(minutes=10)
            await world.settle()
            assert world.daemon.master.games["g1"].turn == 2
            for player in (world.alice, world.bob):
                subjects = [str(m["Subject"]) for m in player.inbox()]
                assert sum("Turn 1 results" in s for s in subjects) == 1, subjects
            archive = world.daemon.store.archive("g1")
            inbound = [message_from_bytes(archive.get_bytes(k)) for k in archive.keys() if ".in." in k]
            assert [str(m["Message-ID"]) for m in inbound].count(bob_id) == 1
            assert shunt_reasons(world) == [] and world.daemon.store.spool.keys() == []
        _count, differences = verify_replay(str(small_disk / "data" / "games" / "g1"))
        assert differences == []
    run(scenario())


def test_a_full_disk_when_the_robot_is_due_only_delays_it(small_disk):
    """The robot's event cannot be spooled while the disk is full: the pass
    stops, and once space is back the robot is asked again and answers;
    the fault does not make the daemon forget that the game waits for it."""
    from gm.kernel.values import Options
    from gm.pbem.operator.admin import request_game

    async def scenario():
        world = World(small_disk)
        async with world:
            master = world.daemon.master
            request_game(master.store, world.config.identity, [ALICE], "2.6.1", Options(), world.clock(),
                         robot="hard", robot_seed=1)
            for key in master.store.spool.keys():  # the creation alone, without the pass that follows it
                with master.store.batch():
                    master.handle(key)
            filler = fill(small_disk, 0)
            await world.settle()
            assert master.fault is not None and master.games["g1"].waiting_for == [1, 2]
            filler.unlink()
            await world.settle()
            assert master.games["g1"].waiting_for == [1], "the robot was forgotten after the fault"
        count, differences = verify_replay(str(small_disk / "data" / "games" / "g1"))
        assert count and differences == []
    run(scenario())


def test_a_senders_own_gm_headers_are_stripped_and_never_trusted(tmp_path):
    """Only gm writes X-GM-* fields: a player's X-GM-Bounce (well formed or
    not) neither rewrites their mail on replay nor stops gm from starting."""
    from gm.pbem.archive.replay import without_gm_headers

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "Rv1",
                            X_GM_Bounce="game=g1; player=2; at=2026-11-21T12:00:00+00:00; reason=x")
            await world.act(world.bob.reply, "Bz5", X_GM_Bounce="player=2", X_GM_Accepted="game=g1; player=1")
            assert world.daemon.master.games["g1"].turn == 2
        async with World(tmp_path) as world:  # a restart replays every game
            game = world.daemon.master.games["g1"]
            assert game.turn == 2 and game.bouncing == set()
            archive = world.daemon.store.archive("g1")
            for key in archive.keys():
                head = archive.get_bytes(key).split(b"\n\n", 1)[0]
                assert head.count(b"X-GM-Bounce") == 0 and head.count(b"X-GM-Accepted") <= 1
    run(scenario())
    raw = b"From: a@x\r\nX-GM-Bounce: game=g1;\r\n player=2\r\nx-gm-accepted: no\r\nSubject: s\r\n\r\nX-GM-Event: body\r\n"
    assert without_gm_headers(raw) == b"From: a@x\r\nSubject: s\r\n\r\nX-GM-Event: body\r\n"


def test_a_deadline_event_gm_failed_on_is_not_spooled_again_and_again(tmp_path, monkeypatch, caplog):
    from datetime import timedelta

    from gm.kernel import engine

    def broken(game, at):
        raise RuntimeError("a bug in running the turn")

    monkeypatch.setattr(engine, "_deadline", broken)

    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(deadline=timedelta(hours=24))
            world.clock.advance(hours=25)
            for _ in range(5):
                await world.settle()
            master = world.daemon.master
            shunted = [k for k in world.daemon.store.shunt.keys() if ".clock.deadline-" in k]
            assert len(shunted) == 1 and b"a bug in running the turn" in world.daemon.store.shunt.get_bytes(shunted[0])
            assert world.daemon.store.spool.keys() == []
            assert "g1" in master.stuck and master.next_wakeup() is None  # no busy loop on a past moment
            monkeypatch.undo()  # a fixed gm; the operator deletes the shunted event, as docs/operations.md says
            world.daemon.store.shunt.remove(shunted[0])
            await world.settle()
            assert master.games["g1"].phase == "setup" and master.games["g1"].missed == {1: 1, 2: 1}
            assert "g1" not in master.stuck
    with caplog.at_level("INFO", logger="gm"):
        run(scenario())
    assert sum("deadline due" in r.getMessage() for r in caplog.records) == 2  # once, then once after the fix
    assert sum("deadline stuck" in r.getMessage() for r in caplog.records) == 1
