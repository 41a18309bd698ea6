"""Hostile mail at the edges (issue 8, section 6), through the real daemon on
loopback: an HTML bomb, a full disk, too many connections, bare LF and long
lines, a malformed Message-ID, an upper-cased plus address."""

from __future__ import annotations

import asyncio
import os
import smtplib
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gmtest import ALICE, GM, World, run, shunt_reasons, started_game

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


# --------------------------------------------------------------------------
# 1. An HTML bomb from a stranger


_BOMB_DAEMON = r"""
import asyncio, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (1024 * 2**20, 1024 * 2**20))
from pathlib import Path
from gmtest import GM, World

nesting = int(sys.argv[2])
html = "<html><body>" + "<blockquote>Rv1\r\n" * nesting + "</body></html>\r\n"
raw = ("From: stranger@evil.example\r\nTo: gm@example.org\r\nSubject: hi\r\nMIME-Version: 1.0\r\n"
       "Content-Type: text/html; charset=utf-8\r\n\r\n" + html).encode()

async def main():
    async with World(Path(sys.argv[1])) as world:
        await world.asend(raw, "stranger@evil.example", [GM])
        start = time.monotonic()
        await world.settle()
        took = time.monotonic() - start
        store = world.daemon.store
        reasons = [store.shunt.get_bytes(k).split(b"\r\n")[0].decode() for k in store.shunt.keys()]
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
        print(len(raw), round(took, 2), rss, "|".join(reasons))

asyncio.run(main())
"""


def test_a_strangers_html_bomb_is_shunted_in_bounded_memory_and_time(tmp_path):
    env = {"PYTHONPATH": str(TESTS), "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
           "MALLOC_ARENA_MAX": "2"}
    done = subprocess.run([sys.executable, "-P", "-c", _BOMB_DAEMON, str(tmp_path), "55000"], capture_output=True,
                          timeout=120, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    size, took, rss_mb, reasons = done.stdout.decode().strip().split(" ", 3)
    assert 900_000 < int(size) < 1_000_000
    assert "not addressed to any game" in reasons, reasons
    assert float(took) < 10 and int(rss_mb) < 500


# --------------------------------------------------------------------------
# 2. A full disk is a temporary failure, and says nothing about paths


@pytest.fixture
def tiny_disk(tmp_path):
    """tmp_path/data on a 64 KiB tmpfs (root only)."""
    data = tmp_path / "data"
    data.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs to fill the disk needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(data)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs is not permitted here: {mounted.stderr.decode().strip()}")
    try:
        yield data
    finally:
        subprocess.run(["umount", "-l", str(data)], check=False)


def test_a_full_disk_while_spooling_answers_452_without_paths(tiny_disk, tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            big = (b"From: a@b.example\r\nTo: gm@example.org\r\nSubject: x\r\n\r\n"
                   + (b"Rv1 " * 20 + b"\r\n") * 2000)
            with pytest.raises(smtplib.SMTPDataError) as caught:
                await world.asend(big, "a@b.example", [GM])
            assert caught.value.smtp_code == 452
            assert b"4.3.1" in caught.value.smtp_error and b"/" not in caught.value.smtp_error
            assert world.daemon.store.spool.keys() == []
            small = b"From: a@b.example\r\nTo: gm@example.org\r\nSubject: x\r\n\r\nhello\r\n"
            await world.asend(small, "a@b.example", [GM])  # room for this one: the daemon goes on
            assert len(world.daemon.store.spool.keys()) == 1
    run(scenario())


def test_a_spool_that_cannot_be_written_answers_451_without_paths(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            spool_tmp = world.daemon.store.spool.path / "tmp"
            spool_tmp.rmdir()
            spool_tmp.write_bytes(b"not a directory")  # as root, permissions would not stop the write
            raw = b"From: a@b.example\r\nTo: gm@example.org\r\nSubject: x\r\n\r\nhello\r\n"
            with pytest.raises(smtplib.SMTPDataError) as caught:
                await world.asend(raw, "a@b.example", [GM])
            assert caught.value.smtp_code == 451
            assert caught.value.smtp_error.startswith(b"4.3.0") and b"/" not in caught.value.smtp_error
    run(scenario())


# --------------------------------------------------------------------------
# 3. A cap on concurrent connections


def _banner(sock: socket.socket) -> bytes:
    sock.settimeout(5)
    data = b""
    while not data.endswith(b"\r\n"):
        chunk = sock.recv(1000)
        if not chunk:
            break
        data += chunk
    return data


def _closed_by_server(sock: socket.socket) -> bool:
    sock.settimeout(5)
    try:
        return sock.recv(1000) == b""
    except ConnectionResetError:
        return True


def test_connections_past_the_cap_get_421_and_are_closed(tmp_path):
    def connect(port: int) -> tuple[socket.socket, bytes]:
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        return sock, _banner(sock)

    async def scenario():
        async with World(tmp_path, max_connections=2) as world:
            first, banner1 = await asyncio.to_thread(connect, world.port)
            second, banner2 = await asyncio.to_thread(connect, world.port)
            third, banner3 = await asyncio.to_thread(connect, world.port)
            try:
                assert banner1.startswith(b"220 ") and banner2.startswith(b"220 ")
                assert banner3 == b"421 4.7.0 Too many connections, try again later\r\n"
                assert await asyncio.to_thread(_closed_by_server, third)
                first.sendall(b"QUIT\r\n")
                assert (await asyncio.to_thread(_banner, first)).startswith(b"221")
                first.close()
                for _ in range(50):  # the server notices the closed connection
                    fourth, banner4 = await asyncio.to_thread(connect, world.port)
                    fourth.close()
                    if banner4.startswith(b"220 "):
                        break
                    await asyncio.sleep(0.05)
                assert banner4.startswith(b"220 ")
            finally:
                for sock in (first, second, third):
                    sock.close()
    run(scenario())


def test_the_connection_cap_defaults_to_100():
    from gm.daemon import Config

    assert Config().max_connections == 100


# --------------------------------------------------------------------------
# 4. Bare LF line ends and lines over 1000 bytes


def _smtp_session(port: int, sender: str, recipient: str, data: bytes) -> list[bytes]:
    """A raw SMTP session; the replies, one per command, after the banner."""
    replies = []
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        reader = sock.makefile("rb")

        def reply() -> bytes:
            lines = []
            while True:
                line = reader.readline(10_000)
                lines.append(line)
                if len(line) < 4 or line[3:4] != b"-":
                    return b"".join(lines)

        reply()
        for command in (b"EHLO client.example\r\n", f"MAIL FROM:<{sender}>\r\n".encode(),
                        f"RCPT TO:<{recipient}>\r\n".encode(), b"DATA\r\n"):
            sock.sendall(command)
            replies.append(reply())
        sock.sendall(data + b"\r\n.\r\n")
        replies.append(reply())
        sock.sendall(b"QUIT\r\n")
        replies.append(reply())
    return replies


def test_bare_lf_and_a_5000_byte_line_are_accepted_and_read(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            reply_to = str(world.alice.latest()["Reply-To"])
            data = (f"From: {ALICE}\nTo: {reply_to}\nSubject: Re: orders\nMessage-ID: <lf@example.org>\n"
                    f"X-Long: {'y' * 5000}\n\nRv1 Rv2\n\n> {'x' * 5000}\n").encode()
            replies = await asyncio.to_thread(_smtp_session, world.port, ALICE, reply_to, data)
            assert replies[4].startswith(b"250 "), replies
            (key,) = world.daemon.store.spool.keys()
            assert world.daemon.store.spool.get_bytes(key).endswith(data + b"\r\n")
            await world.settle()
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1", "Rv2"]
            assert "orders received" in str(world.alice.latest()["Subject"])
    run(scenario())


def test_a_single_line_past_the_size_limit_is_still_refused(tmp_path):
    async def scenario():
        async with World(tmp_path, max_message_bytes=10_000) as world:
            data = b"From: a@b.example\nSubject: x\n\n" + b"x" * 50_000
            replies = await asyncio.to_thread(_smtp_session, world.port, "a@b.example", GM, data)
            assert replies[4][:1] == b"5", replies
            assert world.daemon.store.spool.keys() == []
    run(scenario())


# --------------------------------------------------------------------------
# 5. A malformed Message-ID


_EVIL_ID = "=?utf-8?q?<a=0D=0ABcc:_victim@evil.example>?="


def test_a_crlf_in_an_encoded_message_id_is_not_copied_into_the_gms_headers(tmp_path):
    """The SMTP side: whatever arrives is spooled as it came, with gm's own headers on top intact."""
    async def scenario():
        async with World(tmp_path) as world:
            raw = f"From: {ALICE}\r\nTo: {GM}\r\nSubject: x\r\nMessage-ID: {_EVIL_ID}\r\n\r\nRv1\r\n".encode()
            await world.asend(raw, ALICE, [GM])
            (key,) = world.daemon.store.spool.keys()
            assert world.daemon.store.spool.get_bytes(key) == (
                f"Return-Path: <{ALICE}>\r\nX-GM-Envelope-To: <{GM}>\r\n".encode() + raw)
    run(scenario())


def test_valid_orders_under_a_malformed_message_id_are_applied_and_answered(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            reply_to = str(world.alice.latest()["Reply-To"])
            raw = (f"From: {ALICE}\r\nTo: {reply_to}\r\nSubject: Re: orders\r\nMessage-ID: {_EVIL_ID}\r\n\r\n"
                   "Rv1 Rv2\r\n").encode()
            await world.asend(raw, ALICE, [reply_to])
            await world.settle()
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1", "Rv2"]
            ack = world.alice.latest()
            assert "orders received" in str(ack["Subject"]) and "Bcc" not in ack
    run(scenario())


# --------------------------------------------------------------------------
# 6. An upper-cased plus address


@pytest.mark.parametrize("envelope", ["shouted", "plain"])
def test_an_upper_cased_plus_address_authenticates(tmp_path, envelope):
    """Relays may fold a local part's case: GM+G1.1.TOKEN@EXAMPLE.ORG is still
    Alice's, in the envelope or only in To (as when a relay delivers to the
    plain address, or mail is fetched over IMAP, with no envelope)."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            shouted = str(world.alice.latest()["Reply-To"]).upper()
            raw = (f"From: {ALICE}\r\nTo: {shouted}\r\nSubject: Re: orders\r\nMessage-ID: <up@example.org>\r\n\r\n"
                   "Rv1 Rv2\r\n").encode()
            await world.asend(raw, ALICE, [shouted if envelope == "shouted" else GM])
            await world.settle()
            assert shunt_reasons(world) == []
            assert [str(o) for o in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1", "Rv2"]
    run(scenario())


@pytest.mark.parametrize("sender, recipient", [
    ("a\rX-GM-Envelope-To: <gm+g1.1.x@example.org>@b.example", GM),
    ("a@b.example", "gm+x\rX-Injected: 1@example.org"),
])
def test_an_envelope_address_with_a_cr_cannot_add_a_header_to_the_spooled_mail(tmp_path, sender, recipient):
    async def scenario():
        async with World(tmp_path) as world:
            data = b"From: a@b.example\r\nSubject: x\r\n\r\nhello"
            replies = await asyncio.to_thread(_smtp_session, world.port, sender, recipient, data)
            assert replies[1][:1] == b"5" or replies[2][:1] == b"5", replies
            for key in world.daemon.store.spool.keys():
                kept = world.daemon.store.spool.get_bytes(key)
                assert b"\rX-" not in kept, kept
    run(scenario())


def test_lmtp_answers_a_failed_spool_write_once_for_each_recipient(tmp_path):
    def session(port: int) -> list[bytes]:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            reader = sock.makefile("rb")

            def reply() -> bytes:
                lines = []
                while True:
                    line = reader.readline(10_000)
                    lines.append(line)
                    if len(line) < 4 or line[3:4] != b"-":
                        return b"".join(lines)

            replies = [reply()]
            for command in (b"LHLO client.example\r\n", b"MAIL FROM:<a@b.example>\r\n", f"RCPT TO:<{GM}>\r\n".encode(),
                            b"RCPT TO:<gm+x@example.org>\r\n", b"DATA\r\n"):
                sock.sendall(command)
                replies.append(reply())
            sock.sendall(b"Subject: x\r\n\r\nhello\r\n.\r\n")
            replies += [reply(), reply()]
            sock.sendall(b"QUIT\r\n")
            replies.append(reply())
            return replies

    async def scenario():
        async with World(tmp_path, lmtp=("127.0.0.1", 0)) as world:
            spool_tmp = world.daemon.store.spool.path / "tmp"
            spool_tmp.rmdir()
            spool_tmp.write_bytes(b"not a directory")
            replies = await asyncio.to_thread(session, world.daemon.bound["lmtp"][1])
            assert replies[-3:-1] == [b"451 4.3.0 Temporary local problem, please try again later\r\n"] * 2, replies
            assert replies[-1].startswith(b"221")
    run(scenario())
