"""Bounces and refusals of the GM's mail (issue 8, section 4).

A bounce never changes a game, but the player's address is marked failing
and the opponent is told, once, without a word of the bounce's text (which
names the address). Bounces come back as real MTAs write them: an RFC 3464
delivery status notification, and Exim's plain-text form; a relay's 5xx
comes from a second real aiosmtpd on loopback."""

from __future__ import annotations

import asyncio
import json
from email import message_from_bytes, policy

import pytest
from aiosmtpd.smtp import SMTP

from gm.cli import main
from gm.pbem.operator.admin import verify_replay
from gm.pbem.serving.delivery import Relay
from gmtest import ALICE, BOB, GM, World, shunt_reasons, started_game


def headers_of(raw: bytes) -> str:
    return raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)[0].decode()


def dsn(original: bytes, recipient: str = BOB) -> bytes:
    """An RFC 3464 report, as Postfix writes one, returning the headers."""
    return f"""Return-Path: <>
From: MAILER-DAEMON@mx.example.net (Mail Delivery System)
To: {GM}
Subject: Undelivered Mail Returned to Sender
Auto-Submitted: auto-replied
Message-ID: <20261121120501.4F2B1@mx.example.net>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="BOUNDARY"

--BOUNDARY
Content-Type: text/plain; charset=us-ascii

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<{recipient}>: host mx.example.net said: 550 5.1.1 <{recipient}>:
    Recipient address rejected: User unknown in local recipient table

--BOUNDARY
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net

Final-Recipient: rfc822; {recipient}
Original-Recipient: rfc822;{recipient}
Action: failed
Status: 5.1.1
Diagnostic-Code: smtp; 550 5.1.1 <{recipient}>: Recipient address rejected

--BOUNDARY
Content-Type: text/rfc822-headers

{headers_of(original)}

--BOUNDARY--
""".replace("\n", "\r\n").encode()


def exim_bounce(original: bytes, recipient: str = BOB) -> bytes:
    return f"""Return-Path: <>
From: Mail Delivery System <Mailer-Daemon@mx.example.net>
To: {GM}
Subject: Mail delivery failed: returning message to sender
Message-ID: <E1abc-0001@mx.example.net>
X-Failed-Recipients: {recipient}
Auto-Submitted: auto-replied

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  {recipient}
    SMTP error from remote mail server after RCPT TO:<{recipient}>:
    550 5.1.1 User unknown

------ This is a copy of the message, including all the headers. ------

{headers_of(original)}

(body omitted)
""".replace("\n", "\r\n").encode()


def latest_raw(world: World, address: str) -> bytes:
    store = world.daemon.store
    mine = [store.delivered.get_bytes(k) for k in sorted(store.delivered.keys())
            if f"To: {address}".encode() in store.delivered.get_bytes(k)]
    return mine[-1]


@pytest.mark.parametrize("make", [dsn, exim_bounce])
def test_a_bounce_marks_the_address_and_tells_the_opponent_once(tmp_path, make):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "Rv1")
            game = world.daemon.master.games["g1"]
            before = (game.turn, dict(game.play.pending), game.phase, len(world.bob.inbox()))
            bounce = make(latest_raw(world, BOB))
            for _ in range(2):
                await world.asend(bounce, "", [GM])
                await world.settle()
            notices = [m for m in world.alice.inbox() if "bouncing" in str(m["Subject"])]
            assert len(notices) == 1
            notice = notices[0].as_bytes()
            assert b"Mail to Player 2 is not getting through" in notice.replace(b"\r\n", b"\n")
            assert BOB.encode() not in notice  # nothing of the bounce's text, which names the address
            assert b"550 5.1.1" not in notice and b"User unknown" not in notice and b"rejected" not in notice
            game = world.daemon.master.games["g1"]
            assert (game.turn, dict(game.play.pending), game.phase, len(world.bob.inbox())) == before
            assert game.bouncing == {2}
        assert main(["show", "g1", "--data", str(tmp_path / "data")]) == 0
        _count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert differences == []
        async with World(tmp_path) as world:  # mail from Bob: his address works again
            await world.act(world.bob.reply, "Bz5")
            assert world.daemon.master.games["g1"].bouncing == set()
    asyncio.run(scenario())


def test_gm_show_names_the_failing_player(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.asend(dsn(latest_raw(world, BOB)), "", [GM])
            await world.settle()
    asyncio.run(scenario())
    capsys.readouterr()
    assert main(["show", "g1", "--data", str(tmp_path / "data")]) == 0
    assert json.loads(capsys.readouterr().out)["bouncing"] == ["Player 2"]


def test_a_forged_bounce_without_the_players_token_changes_nothing(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            forged = dsn(f"From: {GM}\r\nTo: {BOB}\r\nSubject: [gm g1] whatever\r\n\r\n".encode())
            await world.asend(forged, "", [GM])
            await world.settle()
            assert world.daemon.master.games["g1"].bouncing == set()
            assert not [m for m in world.alice.inbox() if "bouncing" in str(m["Subject"])]
            assert any(b"automatic mail" in r for r in shunt_reasons(world))
    asyncio.run(scenario())


async def behind_relay(tmp_path, handler):
    """A relay (a real aiosmtpd with ``handler``) on loopback, and a world
    whose outgoing mail goes through it."""
    server = await asyncio.get_running_loop().create_server(lambda: SMTP(handler), "127.0.0.1", 0)
    return server, World(tmp_path, relay=Relay("127.0.0.1", server.sockets[0].getsockname()[1]))


class RefusingRelay:
    """Keeps mail for everyone but ``refused``, whom it refuses for good at RCPT."""

    def __init__(self, refused: str):
        self.refused = refused
        self.attempts = 0
        self.received: list[bytes] = []

    async def handle_RCPT(self, server, session, envelope, address, options):
        if address == self.refused:
            self.attempts += 1
            return f"550 5.1.1 <{address}>: Recipient address rejected"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.received.append(envelope.original_content)
        return "250 OK"


def test_a_relay_refusing_for_good_is_not_retried_and_the_opponent_is_told(tmp_path):
    async def scenario():
        handler = RefusingRelay(BOB)
        server, world = await behind_relay(tmp_path, handler)
        async with world:
            await world.new_game()
            store = world.daemon.store
            assert handler.attempts == 1 and store.outbox.keys() == []
            (kept,) = store.undeliverable.keys()
            assert store.undeliverable.get_bytes(kept).startswith(
                b"X-GM-Undeliverable-Reason: {'bob@example.net': (550")
            for _ in range(3):
                world.clock.advance(hours=2)
                await world.settle()
            assert handler.attempts == 1  # never retried
            assert world.daemon.master.games["g1"].bouncing == {2}
            to_alice = [message_from_bytes(r, policy=policy.default) for r in handler.received]
            notices = [m for m in to_alice if "bouncing" in str(m["Subject"])]
            assert len(notices) == 1 and str(notices[0]["To"]) == ALICE
            assert BOB.encode() not in notices[0].as_bytes()
        server.close()
        _count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))  # the event's key holds ".out."
        assert differences == []
    asyncio.run(scenario())


class MisconfiguredRelay:
    """Refuses every sender with 530 (gm's relay account is wrong) until fixed."""

    def __init__(self):
        self.fixed = False
        self.received: list[bytes] = []

    async def handle_MAIL(self, server, session, envelope, address, options):
        if not self.fixed:
            return "530 5.7.0 Authentication required"
        envelope.mail_from = address
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.received.append(envelope.original_content)
        return "250 OK"


def test_a_relay_refusing_everything_is_retried_not_given_up(tmp_path):
    """A 5xx to MAIL FROM (or the login, or DATA) is the relay's problem, not
    the address's: the mail waits and goes once the relay is fixed, and
    nobody is marked bouncing."""
    async def scenario():
        handler = MisconfiguredRelay()
        server, world = await behind_relay(tmp_path, handler)
        async with world:
            await world.new_game()
            store = world.daemon.store
            assert store.undeliverable.keys() == [] and len(store.outbox.keys()) == 2
            handler.fixed = True
            world.clock.advance(minutes=5)
            await world.settle()
            assert len(handler.received) == 2 and store.outbox.keys() == []
            assert world.daemon.master.games["g1"].bouncing == set()
        server.close()
    asyncio.run(scenario())
