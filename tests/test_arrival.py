"""Mail that waited during an outage counts from when it reached the
operator's first server (issue 8, section 4; `gm.pbem.intake.arrival`)."""

from __future__ import annotations

import asyncio
from datetime import timedelta, timezone
from email.utils import format_datetime

import pytest

from gm.pbem.intake.arrival import LONGEST_WAIT, arrival_time
from gmtest import ALICE, SETUP_ALICE, SETUP_BOB, START, World, send

NOW = START + timedelta(days=2)
"""(Received dates hold whole seconds; NOW has a sub-second part, as a real clock has.)"""


def received(*moments) -> bytes:
    lines = [f"Received: from relay{n}.example (relay{n}.example [192.0.2.{n}])\r\n\tby mx.example.org (Postfix)"
             f" with ESMTPS id ABC{n};\r\n\t{format_datetime(moment)}\r\n" for n, moment in enumerate(moments)]
    return ("".join(lines) + "From: a@example.org\r\nSubject: x\r\n\r\nReceived: 1 Jan 2000\r\n").encode()


def test_lmtp_mail_is_dated_by_the_received_header_the_operators_mta_wrote():
    mta, sender = (NOW - timedelta(hours=3)).replace(microsecond=0), (NOW - timedelta(hours=4)).replace(microsecond=0)
    raw = received(mta, sender)
    assert arrival_time(raw, "lmtp", NOW) == mta
    assert arrival_time(raw, "lmtp", NOW, trusted=2) == sender  # two of the operator's own hops
    assert arrival_time(raw, "smtp", NOW) == NOW  # over SMTP gm is the first server itself


@pytest.mark.parametrize("raw", [
    received(NOW + timedelta(minutes=5)),  # the future
    received(NOW - LONGEST_WAIT - timedelta(hours=1)),  # further back than an MTA keeps mail
    b"Received: from x by y; not a date\r\nSubject: x\r\n\r\n",
    b"Subject: no Received header\r\n\r\n",
])
def test_a_date_that_cannot_be_trusted_counts_as_now(raw):
    assert arrival_time(raw, "lmtp", NOW) == NOW


def test_imap_mail_is_dated_by_its_internaldate():
    internal = (NOW - timedelta(hours=1)).astimezone(timezone(timedelta(hours=-5)))
    assert arrival_time(b"Subject: x\r\n\r\n", "imap", NOW, internal_date=internal) == NOW - timedelta(hours=1)
    assert arrival_time(b"Subject: x\r\n\r\n", "imap", NOW, internal_date=NOW + timedelta(hours=1)) == NOW
    assert arrival_time(b"Subject: x\r\n\r\n", "imap", NOW, internal_date=None) == NOW


async def outage_over_turn_1(tmp_path):
    """A game at turn 1 (24 h deadline), then gm down until six hours past
    that deadline: the deadline, Alice's latest sheet, and the clock, now then."""
    async with World(tmp_path) as world:
        await world.new_game(deadline=timedelta(hours=24))
        await world.act(world.alice.reply, SETUP_ALICE)
        await world.act(world.bob.reply, SETUP_BOB)
        deadline = world.daemon.master.games["g1"].deadline
        sheet, clock = world.alice.latest(), world.clock
    clock.now = deadline + timedelta(hours=6)
    return deadline, sheet, clock


def test_orders_queued_in_the_mta_during_an_outage_count_for_their_turn(tmp_path):
    """The deadline passes while gm is down; Alice's orders reached the
    operator's Postfix an hour before it and are handed over by LMTP after
    gm is back. They count for turn 1, which then runs at once."""
    async def scenario():
        deadline, sheet, clock = await outage_over_turn_1(tmp_path)
        world = World(tmp_path, lmtp=("127.0.0.1", 0))
        world.clock = world.daemon.clock = world.daemon.master.clock = clock
        async with world:
            await world.settle()  # back up: the deadline waits a little for queued mail
            assert world.daemon.master.games["g1"].turn == 1
            queued = (f"Received: from alice.example by mx.example.org (Postfix) with ESMTPS id Q1;\r\n"
                      f"\t{format_datetime(deadline - timedelta(hours=1))}\r\n"
                      f"From: {ALICE}\r\nTo: {sheet['Reply-To']}\r\nSubject: Re: turn 1\r\n"
                      f"Message-ID: <queued@example.org>\r\n\r\nRv1 Rv2\r\n").encode()
            await asyncio.to_thread(send, world.daemon.bound["lmtp"][1], queued, ALICE, [str(sheet["Reply-To"])], True)
            await world.settle()
            clock.advance(minutes=3)  # past the catch-up time
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.turn == 2 and game.missed == {1: 0, 2: 1}
            results = world.alice.latest_text()
            assert "Turn 1 results" in str(world.alice.latest()["Subject"])
            assert "strike Rv1" in results and "strike Rv2" in results
            archive = world.daemon.store.archive("g1")
            (accepted,) = [archive.get_bytes(k) for k in archive.keys()
                           if ".in." in k and b"<queued@example.org>" in archive.get_bytes(k)]
            stamp = (deadline - timedelta(hours=1)).replace(microsecond=0).isoformat()
            assert f"at={stamp}".encode() in accepted.split(b"\n", 1)[0]  # timed by the MTA's Received header
    asyncio.run(scenario())


def test_mail_that_reached_the_mta_after_a_missed_deadline_counts_for_the_next_turn(tmp_path):
    """The same outage, but Alice's orders reached Postfix two hours after
    the deadline: had gm been up they would have been for turn 2, so they are.
    (Her mail names no turn; one that said it answered turn 1 would be
    answered as late, docs/rulings.md, ruling w.)"""
    async def scenario():
        deadline, sheet, clock = await outage_over_turn_1(tmp_path)
        world = World(tmp_path, lmtp=("127.0.0.1", 0))
        world.clock = world.daemon.clock = world.daemon.master.clock = clock
        async with world:
            late = (f"Received: from alice.example by mx.example.org (Postfix) with ESMTPS id Q2;\r\n"
                    f"\t{format_datetime(deadline + timedelta(hours=2))}\r\n"
                    f"From: {ALICE}\r\nTo: {sheet['Reply-To']}\r\nSubject: Re: my orders\r\n"
                    f"Message-ID: <late@example.org>\r\n\r\nRv1 Rv2\r\n").encode()
            await asyncio.to_thread(send, world.daemon.bound["lmtp"][1], late, ALICE, [str(sheet["Reply-To"])], True)
            await world.settle()
            assert world.daemon.master.games["g1"].play.pending == {}  # held until the missed deadline has run
            clock.advance(minutes=3)
            await world.settle()
            game = world.daemon.master.games["g1"]
            results = [m for m in world.alice.inbox() if "Turn 1 results" in str(m["Subject"])]
            assert game.turn == 2 and len(results) == 1
            assert "(you sent no orders)" in results[0].get_body(preferencelist=("plain",)).get_content()
            assert [str(o) for o in game.play.pending[1]] == ["Rv1", "Rv2"]  # they are turn 2's
    asyncio.run(scenario())
