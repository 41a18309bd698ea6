"""Outgoing mail through a real SMTP relay (a second aiosmtpd on loopback)
that refuses for a while and later accepts; and LMTP in."""

import asyncio
import ssl
import subprocess

import pytest
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

from gm.pbem.serving.delivery import Relay
from gmtest import ALICE, BOB, GM, SETUP_ALICE, World


class FlakyRelay:
    """Refuses every message with 451 while ``down``, then keeps them."""

    def __init__(self):
        self.down = True
        self.received: list[tuple[str, list[str], bytes]] = []
        self.refused = 0

    async def handle_DATA(self, server, session, envelope):
        if self.down:
            self.refused += 1
            return "451 4.3.0 try again later"
        self.received.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


async def start_relay(handler, **options):
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(handler, **options), "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def test_outbox_waits_while_the_relay_refuses_and_backs_off(tmp_path):
    async def scenario():
        relay_handler = FlakyRelay()
        relay_server, relay_port = await start_relay(relay_handler)
        world = World(tmp_path, relay=Relay("127.0.0.1", relay_port))
        async with world:
            await world.new_game()
            store = world.daemon.store
            assert len(store.outbox.keys()) == 2 and relay_handler.refused == 2
            deliverer = world.daemon.deliverer
            # Backoff: nothing is tried again before the first retry time.
            world.clock.advance(seconds=10)
            await deliverer.deliver_due(world.clock())
            assert relay_handler.refused == 2
            world.clock.advance(seconds=25)
            await deliverer.deliver_due(world.clock())
            assert relay_handler.refused == 4
            assert {count for count, _ in deliverer.failures.values()} == {2}
            world.clock.advance(seconds=35)  # the second wait is 60 s
            await deliverer.deliver_due(world.clock())
            assert relay_handler.refused == 4
            relay_handler.down = False
            world.clock.advance(seconds=30)
            await deliverer.deliver_due(world.clock())
            assert len(relay_handler.received) == 2 and store.outbox.keys() == []
            recipients = sorted(r for _, rcpts, _ in relay_handler.received for r in rcpts)
            assert recipients == [ALICE, BOB]
            assert all(mail_from == GM for mail_from, _, _ in relay_handler.received)
            await deliverer.deliver_due(world.clock())
            assert len(relay_handler.received) == 2  # sent once
        relay_server.close()
    asyncio.run(scenario())


def _self_signed(tmp_path):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1"], check=True, capture_output=True, timeout=60)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(str(cert), str(key))
    return context


def test_relay_with_starttls_and_login(tmp_path):
    async def scenario():
        handler = FlakyRelay()
        handler.down = False
        logins = []

        def authenticator(server, session, envelope, mechanism, data):
            ok = isinstance(data, LoginPassword) and (data.login, data.password) == (b"gm", b"relay-secret")
            logins.append(ok)
            return AuthResult(success=ok)

        server, port = await start_relay(handler, tls_context=_self_signed(tmp_path), require_starttls=True,
                                         authenticator=authenticator, auth_require_tls=True)
        relay = Relay("127.0.0.1", port, starttls=True, user="gm", password="relay-secret", verify_tls=False)
        async with World(tmp_path, relay=relay) as world:
            await world.new_game()
            assert len(handler.received) == 2 and logins == [True, True]
        server.close()
    if subprocess.run(["which", "openssl"], capture_output=True).returncode:
        pytest.skip("openssl is needed to make a certificate")
    asyncio.run(scenario())


def lmtp_conversation(port, raw, sender, recipients):
    """A minimal LMTP client (smtplib's reads one reply to DATA only):
    returns the replies after the final dot."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        reader = connection.makefile("rb")

        def reply():
            lines = []
            while True:
                line = reader.readline()
                lines.append(line)
                if line[3:4] != b"-":
                    return lines[-1]

        reply()  # greeting
        for command in [b"LHLO test.example", f"MAIL FROM:<{sender}>".encode(),
                        *[f"RCPT TO:<{r}>".encode() for r in recipients], b"DATA"]:
            connection.sendall(command + b"\r\n")
            answer = reply()
            assert answer[:1] in (b"2", b"3"), answer
        connection.sendall(raw.replace(b"\r\n.", b"\r\n..") + b"\r\n.\r\n")
        replies = [reply() for _ in recipients]
        connection.sendall(b"QUIT\r\n")
        return replies


def test_lmtp_in_answers_per_recipient(tmp_path):
    async def scenario():
        world = World(tmp_path, lmtp=("127.0.0.1", 0))
        async with world:
            await world.new_game()
            invitation = world.alice.latest()
            reply_to = str(invitation["Reply-To"])
            raw = (f"From: {ALICE}\r\nTo: {reply_to}\r\nSubject: Re: setup\r\nMessage-ID: <lmtp@example.org>\r\n\r\n"
                   f"{SETUP_ALICE}").encode()
            port = world.daemon.bound["lmtp"][1]
            replies = await asyncio.to_thread(lmtp_conversation, port, raw, ALICE, [reply_to, GM])
            assert [r[:3] for r in replies] == [b"250", b"250"]  # one reply per recipient [RFC 2033]
            await world.settle()
            assert "Setup accepted" in str(world.alice.latest()["Subject"])
            assert world.daemon.master.games["g1"].events == 2  # one message, applied once
    asyncio.run(scenario())
