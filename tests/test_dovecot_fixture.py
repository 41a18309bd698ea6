"""The Dovecot fixture is a real IMAP server: these tests prove it.

They log in, APPEND a multipart RFC 5322 message, SELECT, SEARCH, FETCH it
back byte for byte, set \\Seen and a keyword, COPY and MOVE it, IDLE for new
mail, and run two servers at once.  Everything talks to 127.0.0.1 and every
wait is bounded.
"""

from __future__ import annotations

import email.policy
import os
import socket
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest

import dovecot as dovecot_module
from dovecot import Dovecot, DovecotError, dovecot_factory, dovecot_server, in_ci

pytestmark = pytest.mark.slow  # a real Dovecot

try:
    import imapclient
    from imapclient.exceptions import LoginError
except ImportError:  # pragma: no cover - depends on the machine
    if in_ci():
        raise
    pytest.skip("Python package imapclient is not installed",
                allow_module_level=True)

__all__ = ["dovecot_factory", "dovecot_server"]  # fixtures used below

KEYWORD = b"$GmHandled"
IDLE_LIMIT = 5.0  # seconds for IDLE to report a new message


def orders_message(subject: str = "Turn 3 orders", body: str = "DS Rv1-Ow2 FIRE\n",
                   sender: str = "player1@example.test") -> bytes:
    """A multipart/mixed RFC 5322 message with CRLF line ends."""
    message = EmailMessage()
    message["From"] = f"Player One <{sender}>"
    message["To"] = "Game Master <gm@example.test>"
    message["Subject"] = subject
    message["Date"] = format_datetime(datetime(2024, 5, 1, 12, 0, tzinfo=UTC))
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("Orders below, and attached.\n\n" + body)
    message.add_alternative(f"<p>Orders: <code>{body.strip()}</code></p>\n",
                            subtype="html")
    message.add_attachment(body.encode(), maintype="text", subtype="plain",
                           filename="orders.txt")
    message.add_attachment(bytes(range(256)), maintype="application",
                           subtype="octet-stream", filename="blob.bin")
    raw = message.as_bytes(policy=email.policy.SMTP)
    assert b"multipart/mixed" in raw and raw.count(b"\r\n") > 20
    return raw


def wait_for(predicate, timeout: float, interval: float = 0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def listening_sockets(process_group: int) -> set[tuple[str, int]]:
    """(address, port) of every TCP socket listening in the process group,
    read from /proc: proves which ports a Dovecot instance opened."""
    inodes: set[str] = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            if stat[stat.rfind(")") + 2:].split()[2] != str(process_group):
                continue
            for fd in (entry / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
        except OSError:
            continue
    found = set()
    for table, family in (("tcp", socket.AF_INET), ("tcp6", socket.AF_INET6)):
        path = Path("/proc/net") / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state != "0A" or inode not in inodes:  # 0A: LISTEN
                continue
            address_hex, port_hex = local.split(":")
            packed = bytes.fromhex(address_hex)
            if family == socket.AF_INET:
                packed = packed[::-1]
            else:  # four little-endian 32-bit words
                packed = b"".join(packed[i:i + 4][::-1] for i in range(0, 16, 4))
            found.add((socket.inet_ntop(family, packed), int(port_hex, 16)))
    return found


def test_server_facts(dovecot_server: Dovecot) -> None:
    server = dovecot_server
    assert server.host == "127.0.0.1"
    assert server.user == "gm@example.test"
    assert len(server.password) >= 16
    assert 1024 <= server.port <= 65535 and server.port not in (143, 993)
    assert server.running
    assert server.start_seconds is not None and server.start_seconds < 2.0
    for sub in ("cur", "new", "tmp"):
        assert (server.maildir / sub).is_dir()
    # Only our IMAP port listens: no pop3, imaps, lmtp, submission, 143.
    assert listening_sockets(server.pid) == {("127.0.0.1", server.port)}


def test_wrong_password_is_refused(dovecot_server: Dovecot) -> None:
    with pytest.raises(LoginError):
        dovecot_server.client(password="not-" + dovecot_server.password)
    with pytest.raises(LoginError):
        dovecot_server.client(user="nobody@example.test",
                              password=dovecot_server.password)


def test_append_search_fetch_flags_copy_move(dovecot_server: Dovecot) -> None:
    raw = orders_message()
    with dovecot_server.client() as imap:
        capabilities = imap.capabilities()
        assert b"IDLE" in capabilities and b"MOVE" in capabilities
        assert b"UIDPLUS" in capabilities

        response = imap.append("INBOX", raw)
        assert b"APPENDUID" in response

        selected = imap.select_folder("INBOX")
        assert selected[b"EXISTS"] == 1
        assert b"\\*" in selected[b"PERMANENTFLAGS"], \
            "the server must accept new keywords such as $GmHandled"

        unseen = imap.search(["UNSEEN"])
        assert len(unseen) == 1
        uid = unseen[0]

        # Byte for byte, without and then with the implicit \Seen of RFC822.
        peeked = imap.fetch([uid], [b"BODY.PEEK[]", b"RFC822.SIZE"])[uid]
        assert peeked[b"BODY[]"] == raw
        assert peeked[b"RFC822.SIZE"] == len(raw)
        assert imap.search(["UNSEEN"]) == [uid]
        fetched = imap.fetch([uid], [b"RFC822"])[uid]
        assert fetched[b"RFC822"] == raw
        assert imapclient.SEEN in imap.get_flags([uid])[uid]  # RFC822 sets it

        # Set \Seen and a custom keyword explicitly.
        imap.remove_flags([uid], [imapclient.SEEN])
        assert imap.search(["UNSEEN"]) == [uid]
        imap.add_flags([uid], [imapclient.SEEN, KEYWORD])
        flags = imap.get_flags([uid])[uid]
        assert imapclient.SEEN in flags and KEYWORD in flags
        assert imap.search(["UNSEEN"]) == []
        assert imap.search(["KEYWORD", KEYWORD.decode()]) == [uid]
        assert imap.search(["UNKEYWORD", KEYWORD.decode()]) == []
        # The keyword is now a known flag of the mailbox.
        assert KEYWORD in imap.select_folder("INBOX")[b"FLAGS"]

        # COPY to one new folder, MOVE to another.
        imap.create_folder("Archive")
        imap.create_folder("Handled")
        imap.copy([uid], "Archive")
        imap.move([uid], "Handled")
        assert imap.select_folder("INBOX")[b"EXISTS"] == 0
        for folder in ("Archive", "Handled"):
            assert imap.select_folder(folder, readonly=True)[b"EXISTS"] == 1
            [data] = imap.fetch(imap.search(["ALL"]), [b"BODY.PEEK[]", b"FLAGS"]).values()
            assert data[b"BODY[]"] == raw
            assert KEYWORD in data[b"FLAGS"] and imapclient.SEEN in data[b"FLAGS"]
        folders = {name for _flags, _delim, name in imap.list_folders()}
        assert {"INBOX", "Archive", "Handled"} <= folders

    # Maildir++ on disk: folders are dot-directories beside the INBOX.
    assert (dovecot_server.maildir / ".Handled" / "cur").is_dir()
    assert (dovecot_server.maildir / ".Archive" / "cur").is_dir()


def test_deliver_and_maildir_on_disk(dovecot_server: Dovecot) -> None:
    raw = orders_message(subject="Deliver helper")
    uid = dovecot_server.deliver(raw)
    assert isinstance(uid, int)
    files = [p for sub in ("new", "cur") for p in (dovecot_server.maildir / sub).iterdir()]
    assert len(files) == 1
    # Dovecot stores LF line ends on disk (mail_save_crlf = no) and gives
    # CRLF back over IMAP.
    assert files[0].read_bytes() == raw.replace(b"\r\n", b"\n")

    second = dovecot_server.deliver(orders_message(subject="Elsewhere"),
                                    folder="Match 7", flags=(KEYWORD,))
    with dovecot_server.client() as imap:
        assert imap.select_folder("INBOX")[b"EXISTS"] == 1
        assert imap.fetch([uid], [b"BODY.PEEK[]"])[uid][b"BODY[]"] == raw
        assert imap.select_folder("Match 7")[b"EXISTS"] == 1
        assert KEYWORD in imap.get_flags([second])[second]

    with pytest.raises(TypeError):
        dovecot_server.deliver("not bytes")  # type: ignore[arg-type]


def test_idle_reports_new_mail(dovecot_server: Dovecot) -> None:
    with dovecot_server.client() as watcher:
        watcher.select_folder("INBOX")
        watcher.idle()
        try:
            # Nothing yet: a short, bounded IDLE wait comes back empty.
            assert watcher.idle_check(timeout=0.2) == []
            began = time.monotonic()
            dovecot_server.deliver(orders_message(subject="While idling"))
            responses: list = []
            while time.monotonic() - began < IDLE_LIMIT:
                responses += watcher.idle_check(timeout=0.5)
                if any(r[1:2] == (b"EXISTS",) for r in responses):
                    break
            elapsed = time.monotonic() - began
        finally:
            watcher.idle_done()
        assert (1, b"EXISTS") in responses, responses
        assert elapsed < IDLE_LIMIT
        assert watcher.search(["UNSEEN"]) != []


def test_two_instances_at_once(dovecot_factory) -> None:
    first = dovecot_factory()
    second = dovecot_factory(users={"gm@example.test": "second-secret",
                                    "referee@example.test": "ref-secret"})
    assert first.port != second.port
    assert first.root != second.root
    assert first.password != second.password
    first.deliver(orders_message(subject="For the first"))
    second.deliver(orders_message(subject="For the second"))
    second.deliver(orders_message(subject="For the referee"),
                   user="referee@example.test")
    for server, subject in ((first, b"For the first"), (second, b"For the second")):
        with server.client() as imap:
            assert imap.select_folder("INBOX")[b"EXISTS"] == 1
            [data] = imap.fetch(imap.search(["ALL"]),
                                [b"BODY.PEEK[HEADER.FIELDS (SUBJECT)]"]).values()
            assert subject in data[b"BODY[HEADER.FIELDS (SUBJECT)]"]
    with second.client("referee@example.test") as imap:
        assert imap.select_folder("INBOX")[b"EXISTS"] == 1
    assert second.maildir_for("referee@example.test") != second.maildir
    with pytest.raises(LoginError):
        first.client(password=second.password)


def test_stop_removes_everything() -> None:
    began = time.monotonic()
    with Dovecot() as server:
        started = time.monotonic() - began
        root, port, group = server.root, server.port, server.pid
        server.deliver(orders_message())
        held = server.client()  # an open session must not delay the stop
        held.select_folder("INBOX")
        stopping = time.monotonic()
    stopped = time.monotonic() - stopping
    held.shutdown()
    assert started < 2.0, f"Dovecot took {started:.2f} s to start"
    assert stopped < 2.0, f"Dovecot took {stopped:.2f} s to stop"
    assert server.stop_seconds is not None and server.stop_seconds < 2.0
    assert not server.running
    assert not root.exists()
    assert not dovecot_module._group_alive(group)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    server.stop()  # stopping twice is harmless


def test_port_collision_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen(8)  # accepts connections, never greets
    taken = squatter.getsockname()[1]
    ports = iter([taken])
    real_free_port = dovecot_module.free_port
    monkeypatch.setattr(dovecot_module, "free_port",
                        lambda host="127.0.0.1": next(ports, None) or real_free_port(host))
    try:
        with Dovecot() as server:
            assert server.port != taken
            assert "Address already in use" in (server.root / "dovecot.stdout").read_text()
            with server.client() as imap:
                assert imap.select_folder("INBOX")[b"EXISTS"] == 0
    finally:
        squatter.close()


def test_start_failure_reports_and_cleans_up(tmp_path: Path) -> None:
    fake = tmp_path / "dovecot"
    fake.write_text("#!/bin/sh\necho 'Fatal: pretend config error' >&2\nexit 89\n")
    fake.chmod(0o755)
    server = Dovecot(binary=str(fake), start_timeout=5)
    began = time.monotonic()
    with pytest.raises(DovecotError) as failure:
        server.start()
    assert time.monotonic() - began < 5
    assert "status 89" in str(failure.value)
    assert "pretend config error" in str(failure.value)
    assert server.root is None and not server.running


def test_missing_binary_skips_locally_but_fails_under_ci(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dovecot_module, "find_dovecot", lambda: None)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="dovecot binary not found"):
        dovecot_module._check_prerequisites(None)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="dovecot binary not found"):
        dovecot_module._check_prerequisites(None)
