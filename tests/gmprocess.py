"""Helpers for tests that run real processes on loopback: `gm` itself as
installed (``python -P -m gm``), and servers (Dovecot, Postfix) that greet
on a port. Every wait is bounded."""

from __future__ import annotations

import contextlib
import mailbox
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

WAIT = 30.0
"""Seconds any one wait may take before a test gives up."""


def reply_to(original: Any, sender: str, body: str) -> EmailMessage:
    """A player's reply from ``sender`` to the GM's mail ``original``, as a
    mail client writes it (to the Reply-To address, "Re: " and the subject)."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"])
    message["Message-ID"] = make_msgid(domain=sender.split("@")[1])
    message.set_content(body)
    return message


def free_port(host: str = "127.0.0.1") -> int:
    """A port on ``host`` that nothing listens on just now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def gm(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run an installed gm command (never the checkout's: ``-P``)."""
    return subprocess.run([sys.executable, "-P", "-m", "gm", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=60)


def inbox(data: Path, address: str) -> list:
    """Messages gm delivered locally to ``address``, in order of delivery."""
    delivered = data / "delivered"
    if not (delivered / "new").is_dir():
        return []
    box = mailbox.Maildir(delivered, create=False)
    return sorted((m for m in box if address in str(m["To"])), key=lambda m: (m["Date"], m["Message-ID"]))


def wait_for(what: str, predicate: Callable[[], Any], explain: Callable[[], str] = lambda: "") -> Any:
    """What ``predicate`` returns once it is true; fails after `WAIT` seconds."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"gave up after {WAIT:.0f} s waiting for {what}\n{explain()}")


def listening(port: int, host: str = "127.0.0.1") -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def read_greeting(host: str, port: int, farewell: bytes, timeout: float = 1.0) -> bytes | None:
    """The first line a server on host:port sends (an SMTP banner, an IMAP
    greeting), then ``farewell`` to close politely; None if none yet."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            data = b""
            while b"\n" not in data and len(data) < 4096:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                data += chunk
            with contextlib.suppress(OSError):
                sock.sendall(farewell)
            return data
    except OSError:
        return None


def stop(process: subprocess.Popen, signum: int = signal.SIGINT, grace: float = 10) -> None:
    """Stop a process the way an operator does (``signum``), and kill it if
    it has not stopped within ``grace`` seconds; one that has ended already
    is left as it is."""
    if process.poll() is not None:
        return
    process.send_signal(signum)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


@contextlib.contextmanager
def serving(data: Path, port: int, address: str | None, cwd: Path, extra: tuple[str, ...] = ()):
    """``gm serve`` of the installed gm on a loopback SMTP port, with the
    wall clock, until the block ends: then stopped by SIGINT (killed if it
    does not stop within 10 s). ``address`` is the GM's own (None: gm's
    default); ``extra`` are more options (``--owner``, ``--http``)."""
    own = ["--address", address] if address is not None else []
    daemon = subprocess.Popen([sys.executable, "-P", "-m", "gm", "serve", "--data", str(data), "--smtp",
                               f"127.0.0.1:{port}",
                               *own, *extra], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_for("the SMTP listener", lambda: listening(port))
        yield daemon
    finally:
        stop(daemon, signal.SIGINT, 10)
