"""Connection floods (issue 21, rows 4 and 5): what one unauthenticated
client can hold must never stop the mail.

Row 4: a slowloris against the web archive. The real daemon runs as its own
process under a low file handle limit (``ulimit -n 256``), serving mail and
the web archive; the test opens more half-open HTTP connections (a request
head begun and never finished) than the daemon has handles, then a player
sends an order over SMTP: it must get its 250 and its answer while the
connections are held, and the held connections must be closed by the
header-read timeout.

Row 5: idle SMTP sessions from one client address (127.0.0.1) fill that
client's share of the connection cap, and a second client (127.0.0.2: all of
127.0.0.0/8 is loopback on Linux) is still greeted.

Every loop here is bounded, every socket has a timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import selectors
import signal
import smtplib
import socket
import subprocess
import sys
import time
from pathlib import Path

from gmprocess import free_port, gm, inbox, listening, reply_to, stop, wait_for
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB, World, run

HANDLES = 256
"""The daemon's file handle limit in row 4's test (soft and hard)."""
HALF_OPEN = 300
"""Half-open HTTP connections the test opens: more than `HANDLES`."""
HEAD_SECONDS = 6.0
"""The daemon's header-read timeout in row 4's test (`gm.web.site.HEAD_SECONDS`, shortened)."""

_DAEMON = r"""
import runpy, sys
import gm.web.site
gm.web.site.HEAD_SECONDS = float(sys.argv[1])
sys.argv = ["gm", *sys.argv[2:]]
runpy.run_module("gm", run_name="__main__", alter_sys=True)
"""


def _low_handle_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (HANDLES, HANDLES))


@contextlib.contextmanager
def _daemon_under_low_limit(data: Path, smtp: int, http: int, cwd: Path, log: Path):
    """``gm serve`` with mail and the web archive, as a process of its own
    limited to `HANDLES` file handles, logging to ``log``."""
    with log.open("wb") as output:
        daemon = subprocess.Popen(
            [sys.executable, "-P", "-c", _DAEMON, str(HEAD_SECONDS), "serve", "--data", str(data),
             "--smtp", f"127.0.0.1:{smtp}", "--http", f"127.0.0.1:{http}", "--address", GM],
            cwd=cwd, stdout=output, stderr=subprocess.STDOUT, preexec_fn=_low_handle_limit)
    try:
        wait_for("the listeners", lambda: (listening(smtp) and listening(http)) or daemon.poll() is not None)
        assert daemon.poll() is None, log.read_text()
        yield daemon
    finally:
        stop(daemon, signal.SIGINT, 15)


def _half_open(port: int, count: int, within: float = 10.0) -> list[socket.socket]:
    """``count`` connections to the web archive, each with a request head
    begun and never finished, connected side by side (no connect waits
    for another); the ones connected within ``within`` seconds."""
    pending: dict[socket.socket, None] = {}
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        pending[sock] = None
    connected = []
    with selectors.DefaultSelector() as selector:
        for sock in pending:
            selector.register(sock, selectors.EVENT_WRITE)
        ends = time.monotonic() + within
        while pending and time.monotonic() < ends:
            for key, _ in selector.select(timeout=0.5):
                sock = key.fileobj
                selector.unregister(sock)
                del pending[sock]
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                    with contextlib.suppress(OSError):
                        sock.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    connected.append(sock)
                else:
                    sock.close()
    for sock in pending:
        sock.close()
    return connected


def _closed_within(socks: list[socket.socket], seconds: float) -> tuple[list[socket.socket], list[bytes]]:
    """Reads every socket until the daemon closes it, for at most ``seconds``;
    the sockets still open then, and what the closed ones were sent."""
    open_ = {sock: b"" for sock in socks}
    answers = []
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        ends = time.monotonic() + seconds
        while open_ and time.monotonic() < ends:
            for key, _ in selector.select(timeout=0.5):
                sock = key.fileobj
                try:
                    chunk = sock.recv(4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                if chunk and len(open_[sock]) < 65536:
                    open_[sock] += chunk
                    continue
                selector.unregister(sock)
                answers.append(open_.pop(sock))
    return list(open_), answers


def _still_held(socks: list[socket.socket]) -> int:
    """How many of ``socks`` the daemon has neither answered nor closed."""
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        ready = {key.fileobj for key, _ in selector.select(timeout=0)}
    return len(socks) - len(ready)


def _order(port: int, sender: str, original, body: str) -> tuple[int, int]:
    """Reply to ``original`` with ``body`` over SMTP; the RCPT and DATA codes."""
    message = reply_to(original, sender, body)
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.ehlo()
        client.mail(sender)
        rcpt, _ = client.rcpt(str(original["Reply-To"]))
        data, _ = client.data(message.as_bytes())
    return rcpt, data


def test_half_open_http_connections_past_the_handle_limit_do_not_stop_the_mail(tmp_path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < HALF_OPEN + 200:  # the test's own end of each connection
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
    data, smtp, http = tmp_path / "data", free_port(), free_port()
    held: list[socket.socket] = []
    log = tmp_path / "daemon.log"
    with _daemon_under_low_limit(data, smtp, http, tmp_path, log):
        try:
            made = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB, cwd=tmp_path)
            assert made.returncode == 0, made.stderr
            invitations = wait_for("the invitations",
                                   lambda: len(inbox(data, BOB)) == 1 and (inbox(data, ALICE), inbox(data, BOB)))

            held = _half_open(http, HALF_OPEN)
            assert len(held) > HANDLES, f"only {len(held)} connections could be made"

            assert _order(smtp, ALICE, invitations[0][-1], SETUP_ALICE) == (250, 250)
            assert _order(smtp, BOB, invitations[1][-1], SETUP_BOB) == (250, 250)
            wait_for("the game to begin",
                     lambda: [m for m in inbox(data, ALICE) if "the game begins" in str(m["Subject"])])
            assert _still_held(held), "the mail was answered only once the flood was over"

            still_open, answers = _closed_within(held, HEAD_SECONDS + 10)
            assert not still_open, f"{len(still_open)} half-open connections still held"
            refused = [a for a in answers if a.startswith(b"HTTP/1.1 503 ")]
            assert refused, "no connection past the cap was refused"
            assert all(b"\r\nX-Content-Type-Options: nosniff\r\n" in a for a in refused)
        finally:
            for sock in held:
                sock.close()
    logged = log.read_text()
    assert "Too many open files" not in logged, logged[-3000:]
    assert f"listening proto=http addr=127.0.0.1:{http} max-connections={HANDLES // 4}\n" in logged, logged
    assert logged.count(f"connection refused proto=http client=127.0.0.1 cap=all limit={HANDLES // 4}") == 1, logged


# --------------------------------------------------------------------------
# Row 5: one client's idle SMTP sessions


IDLE_FROM_ONE_CLIENT = 100
"""Idle SMTP sessions one client opens: as many as the daemon's whole cap."""


def _greeting(port: int, source: str) -> tuple[socket.socket | None, bytes]:
    """A connection from ``source`` (a loopback address) and its first
    line; (None, b"") when it cannot connect."""
    sock = socket.socket()
    sock.settimeout(5)
    try:
        sock.bind((source, 0))
        sock.connect(("127.0.0.1", port))
        line = b""
        while not line.endswith(b"\n") and len(line) < 1000:
            chunk = sock.recv(1000)
            if not chunk:
                break
            line += chunk
        return sock, line
    except OSError:
        sock.close()
        return None, b""


def test_one_clients_idle_sessions_do_not_lock_out_another_client(tmp_path, caplog):
    async def scenario():
        async with World(tmp_path) as world:
            assert world.config.max_connections == IDLE_FROM_ONE_CLIENT
            held = []
            try:
                for _ in range(IDLE_FROM_ONE_CLIENT):
                    held.append(await asyncio.to_thread(_greeting, world.port, "127.0.0.1"))
                other, line = await asyncio.to_thread(_greeting, world.port, "127.0.0.2")
                held.append((other, line))
                assert line.startswith(b"220 "), line
                greeted = [line for _, line in held[:-1] if line.startswith(b"220 ")]
                refused = [line for _, line in held[:-1] if line.startswith(b"421 ")]
                assert 0 < len(greeted) < IDLE_FROM_ONE_CLIENT // 2, (len(greeted), len(refused))
                assert len(greeted) + len(refused) == IDLE_FROM_ONE_CLIENT
                assert refused[0] == b"421 4.7.0 Too many connections from your address, try again later\r\n"
                sent = await asyncio.to_thread(
                    _mail_from, other, (f"From: {BOB}\r\nTo: {GM}\r\nSubject: hello\r\n\r\nhello\r\n").encode())
                assert sent == [b"250", b"250", b"250", b"354", b"250"], sent
                logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("connection refused")]
                assert logged == ["connection refused proto=smtp client=127.0.0.1 cap=client limit=20"], logged
            finally:
                for sock, _ in held:
                    if sock is not None:
                        sock.close()
    run(scenario())


def _mail_from(sock: socket.socket, raw: bytes) -> list[bytes]:
    """Send ``raw`` from Bob on an open SMTP session; the reply codes."""
    reader = sock.makefile("rb")
    codes = []
    for command in (b"HELO other.example\r\n", f"MAIL FROM:<{BOB}>\r\n".encode(), f"RCPT TO:<{GM}>\r\n".encode(),
                    b"DATA\r\n", raw + b".\r\n"):
        sock.sendall(command)
        codes.append(reader.readline(1000)[:3])
    return codes


def test_an_idle_smtp_session_is_closed_after_the_idle_timeout(tmp_path, monkeypatch):
    import gm.pbem.serving.listener

    monkeypatch.setattr(gm.pbem.serving.listener, "IDLE_SECONDS", 1.0)

    async def scenario():
        async with World(tmp_path) as world:
            sock, line = await asyncio.to_thread(_greeting, world.port, "127.0.0.1")
            try:
                assert line.startswith(b"220 ")
                started = time.monotonic()
                sock.settimeout(10)
                rest = await asyncio.to_thread(sock.recv, 1000)
                assert rest == b"", rest
                assert time.monotonic() - started < 5
            finally:
                sock.close()
    run(scenario())


def test_a_client_is_an_ipv4_address_or_an_ipv6_64():
    from gm.pbem.serving.listener import client_of

    assert client_of(("192.0.2.7", 4242)) == "192.0.2.7"
    assert client_of(("::ffff:192.0.2.7", 4242, 0, 0)) == "192.0.2.7"
    assert client_of(("2001:db8:1:2:aaaa::1", 25, 0, 0)) == client_of(("2001:db8:1:2:ffff::9", 25, 0, 0))
    assert client_of(("2001:db8:1:2::1", 25, 0, 0)) == "2001:db8:1:2::/64"
    assert client_of(("2001:db8:1:3::1", 25, 0, 0)) != client_of(("2001:db8:1:2::1", 25, 0, 0))
    assert client_of(("fe80::1%eth0", 25, 0, 2)) == "fe80::/64"


def test_a_flood_of_refusals_is_logged_once_a_minute_with_a_count(caplog):
    from gm.logs import Throttled

    now = [0.0]
    throttled = Throttled(every=60.0, clock=lambda: now[0])
    for second in range(0, 150):
        now[0] = float(second)
        throttled.log("connection refused", proto="http")
        throttled.log("connection refused", proto="http")
    assert [r.getMessage() for r in caplog.records] == [
        "connection refused proto=http", "connection refused proto=http unlogged=119",
        "connection refused proto=http unlogged=119"]


def test_the_systemd_unit_leaves_the_mail_most_of_a_raised_file_handle_limit(monkeypatch):
    import configparser

    from gm.daemon import Config
    from gm.web import site

    unit = configparser.ConfigParser(interpolation=None)
    unit.optionxform = str
    unit.read(Path(__file__).resolve().parent.parent / "contrib" / "gm.service")
    limit = int(unit["Service"]["LimitNOFILE"])
    monkeypatch.setattr(resource, "getrlimit", lambda which: (limit, limit))
    assert site.max_connections() == site.MAX_CONNECTIONS
    assert limit >= 16 * (site.MAX_CONNECTIONS + Config().max_connections)
    monkeypatch.setattr(resource, "getrlimit", lambda which: (HANDLES, HANDLES))
    assert site.max_connections() == HANDLES // 4
