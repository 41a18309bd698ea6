"""Several master processes (`gm serve --masters 2`, `gm.masters`): every
spooled mail handled by exactly one master, chosen by its game, and the
guarantees of one process kept across the new process boundaries: a master
killed alone (the daemon starts it again), the daemon killed (its masters
notice and stop; the next daemon waits for them), both killed at once.

The daemon runs as a real process on a loopback port, the players' mail
client resends whatever got no 250, as in tests/test_crash.py; GM_CRASH_AT
and GM_CRASH_MASTER (gm/pbem/data/crashpoints.py) pick where it dies."""

import os
import signal
import smtplib
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from crash_orders import delivered, each_once, orders, reply
from gm.kernel.values import Options
from gm.locks import PublishingLock, try_hold
from gm.mail.reading import parse_message
from gm.pbem.archive.replay import prepend_header
from gm.pbem.data.store import Part, Store, spool_key
from gm.pbem.intake.limits import Limits
from gm.pbem.master.routing import game_of
from gm.pbem.operator.admin import request_game
from gm.pbem.state import index
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB

pytestmark = pytest.mark.slow  # real daemons with their master processes, SIGKILLed and started again

WAIT = 30.0
GAMES = ["g1", "g2", "g3", "g4"]  # with two masters: g2 and g4 the first's, g1 and g3 the second's
COMMITS = ("commit", "masters/1/commit")  # the daemon's group commit and the first master's, each empty at the end


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`gm serve --masters 2` as a child process (in a session of its own,
    with its masters), started again whenever it died."""

    def __init__(self, data: Path):
        self.data = data
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.crashes = 0
        self.logs = b""

    def start(self, crash: str | None = None, master: int | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("GM_CRASH_AT", "GM_CRASH_MASTER")}
        if crash:
            env["GM_CRASH_AT"] = crash
        if master is not None:
            env["GM_CRASH_MASTER"] = str(master)
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "gm", "serve", "--data", str(self.data), "--smtp", f"127.0.0.1:{self.port}",
             "--address", GM, "--masters", "2"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return  # it crashed already; the caller starts it again
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise AssertionError("gm serve did not start listening")

    def alive(self) -> bool:
        if self.process.poll() is None:
            return True
        assert self.process.returncode == -signal.SIGKILL, self.process.stderr.read().decode()[-3000:]
        self.logs += self.process.stderr.read()
        self.crashes += 1
        self.start()
        return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(WAIT)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        if self.process:
            self.logs += self.process.stderr.read()


def idle(server: Server, root: Path) -> None:
    """Until the spool and the outbox are empty (starting the daemon again after a crash)."""
    deadline = time.monotonic() + WAIT
    calm = 0
    while time.monotonic() < deadline:
        server.alive()
        if not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir()):
            calm += 1
            if calm >= 3:
                return
        else:
            calm = 0
        time.sleep(0.05)
    raise AssertionError("the daemon did not finish its work")


def send(server: Server, raw: bytes, sender: str, recipient: str) -> None:
    """Send like an MTA: again until the message gets its 250."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            with smtplib.SMTP("127.0.0.1", server.port, timeout=5) as client:
                client.sendmail(sender, [recipient], raw)
            return
        except (OSError, smtplib.SMTPException):
            server.alive()
            time.sleep(0.05)
    raise AssertionError("the message was never accepted")


def set_up(root: Path) -> tuple[Server, dict[str, list[str]]]:
    """Four games between Alice and Bob, two for each master, both setups in
    (by a daemon that does not crash); the daemon stopped."""
    store = Store(root)
    for _ in GAMES:
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root)
    server.start()
    sent: dict[str, list[str]] = {game: [] for game in GAMES}
    try:
        idle(server, root)
        for game in GAMES:
            for address, body in [(ALICE, SETUP_ALICE), (BOB, SETUP_BOB)]:
                raw, to = reply(root, address, body, game)
                sent[game].append(str(parse_message(raw)["Message-ID"]))
                send(server, raw, address, to)
        idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 0, server.logs.decode()[-3000:]
    return server, sent


def masters_gone(root: Path) -> None:
    """Until no master process holds the data directory (bounded)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        fd = try_hold(root / "masters" / "generation.lock", exclusive=True)
        if fd is not None:
            os.close(fd)
            return
        time.sleep(0.05)
    raise AssertionError("the master processes outlived their daemon")


def test_routing_by_game():
    """Each mail to a game's address goes to that game's master; mail to the
    GM's own address, and answers to its questions, to the first."""
    part = Part(1, 2)
    assert [part.owner(g) for g in ["g1", "g2", "g3", "g10", "g11"]] == [1, 0, 1, 0, 1]
    assert Part(0, 2, shards=2).owner("g3") == 1 and Part(0, 2, shards=2).owner("g5") == 0
    identity = Identity(GM)
    local, domain = GM.split("@")

    def mail(to: str, envelope: str | None = None) -> bytes:
        raw = f"From: {ALICE}\r\nTo: {to}\r\nSubject: hi\r\n\r\nRv1 Rv2\r\n".encode()
        return prepend_header(raw, "X-GM-Envelope-To", f"<{envelope or to}>")

    key = spool_key(datetime.now(UTC), "smtp")
    assert game_of(key, mail(f"{local}+g7.2.abcdef@{domain}"), identity) == "g7"
    assert game_of(key, mail(GM), identity) is None
    assert game_of(key, mail(f"{local}+g7@{domain}"), identity) is None  # no seat: no game's mail
    assert game_of(key, mail(GM, f"{local}+g12.1.x@{domain}"), identity) == "g12"  # the envelope first


@pytest.mark.parametrize("tag", ["c0123456789.1.token", "a0123456789.1.token"])
def test_answers_to_the_gms_questions_go_to_the_front(tag):
    """A reply to a challenge or an address move names no game, even when
    it also names one: the screening answers it first, so the front does."""
    identity = Identity(GM)
    local, domain = GM.split("@")
    raw = (f"From: {ALICE}\r\nTo: {local}+{tag}@{domain}\r\nCc: {local}+g3.1.x@{domain}\r\n"
           f"Subject: confirm\r\n\r\nconfirm\r\n").encode()
    key = spool_key(datetime.now(UTC), "smtp")
    assert game_of(key, raw, identity) is None
    assert game_of(key, raw.replace(tag.encode(), b"not-an-answer"), identity) == "g3"


def test_the_delivery_waits_for_a_batch_being_published(tmp_path):
    """A master publishing holds the lock shared; the delivery, exclusive,
    waits for it; a publication that failed half way keeps it held until
    one succeeds."""
    master = PublishingLock(tmp_path / "publishing.lock", exclusive=False)
    other = PublishingLock(tmp_path / "publishing.lock", exclusive=False)
    with master, other:  # two masters publish side by side
        assert try_hold(tmp_path / "publishing.lock", exclusive=True) is None
    fd = try_hold(tmp_path / "publishing.lock", exclusive=True)
    assert fd is not None
    os.close(fd)
    with pytest.raises(OSError), master:
        raise OSError(28, "No space left on device")
    assert try_hold(tmp_path / "publishing.lock", exclusive=True) is None  # still held: not durable
    with master:
        pass
    fd = try_hold(tmp_path / "publishing.lock", exclusive=True)
    assert fd is not None
    os.close(fd)


def test_every_game_served_and_each_mail_once(tmp_path):
    """Orders for four games, two on each master, sent together: each is
    applied once, in its game, and every reply delivered once; each master
    kept what is its own apart."""
    root = tmp_path / "data"
    server, sent = set_up(root)
    server.start()
    try:
        for raw, sender, recipient in orders(root, GAMES, sent):
            send(server, raw, sender, recipient)
        idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 0
    each_once(root, GAMES, sent, COMMITS)
    assert (root / "masters" / "1" / "attempts").is_dir()
    assert b"master restarted" not in server.logs


MASTER_POINTS = ["master-loaded:1", "mid-handle:2", "after-archive:1", "after-queue:2", "between-messages:1",
                 "batch-synced:1", "mid-batch-commit:3", "after-batch-commit:1", "master-told:1",
                 "after-count:3"]


@pytest.mark.parametrize(("spec", "master"), [(spec, number % 2) for number, spec in enumerate(MASTER_POINTS)])
def test_a_master_killed_alone_is_started_again(tmp_path, spec, master):
    """Eight orders for four games wait in the spool when gm starts; one
    master is killed (SIGKILL) inside its first batch, its commit, or as it
    tells the daemon. The daemon goes on, starts that master again, and
    every order is applied once and every reply delivered once."""
    root = tmp_path / "data"
    server, sent = set_up(root)
    for raw, sender, recipient in orders(root, GAMES, sent):  # as the SpoolHandler writes them
        spooled = prepend_header(prepend_header(raw, "X-GM-Envelope-To", f"<{recipient.lower()}>"),
                                 "Return-Path", f"<{sender}>")
        Store(root).spool.add(spooled, spool_key(datetime.now(UTC), "smtp"))
    server.start(spec, master)
    try:
        idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 0, "the daemon itself died"
    assert server.logs.count(b"master restarted") == 1, server.logs.decode()[-3000:]
    each_once(root, GAMES, sent, COMMITS)


DAEMON_POINTS = ["after-spool:3", "mid-spool-commit:2", "mid-delivery:3", "mid-sent:2", "delivery-synced:1",
                 "master-restarting:1"]


@pytest.mark.parametrize("spec", DAEMON_POINTS)
def test_the_daemon_killed_its_masters_stop_and_the_next_waits(tmp_path, spec):
    """The daemon is killed (SIGKILL) while it takes orders or delivers the
    replies (or, at master-restarting, just after a master was killed too,
    so that both died); its masters notice and stop; the next daemon waits
    for them, and every order is applied once, every reply delivered once."""
    root = tmp_path / "data"
    server, sent = set_up(root)
    # master-restarting needs a master to die first: the first master, once its games are loaded.
    server.start(spec if spec != "master-restarting:1" else "master-loaded:1,master-restarting:1")
    try:
        for raw, sender, recipient in orders(root, GAMES, sent):
            send(server, raw, sender, recipient)
        idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {spec} never fired"
    masters_gone(root)
    each_once(root, GAMES, sent, COMMITS)


def test_daemon_and_masters_killed_at_once(tmp_path):
    """Every process of the daemon killed at the same moment (SIGKILL to
    its process group) while orders are handled: the next start loses
    nothing and repeats nothing."""
    root = tmp_path / "data"
    server, sent = set_up(root)
    mails = orders(root, GAMES, sent)
    server.start()
    try:
        for number, (raw, sender, recipient) in enumerate(mails):
            send(server, raw, sender, recipient)
            if number == 4:
                os.killpg(server.process.pid, signal.SIGKILL)
                server.process.wait(5)
        idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1
    each_once(root, GAMES, sent, COMMITS)


def games_to_the_gm(server: Server, root: Path) -> None:
    """Alice asks the GM's own address for her games list (mail about no
    game, which the front answers); the daemon then idle."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = ALICE, GM, "games"
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content("games")
    send(server, message.as_bytes(), ALICE, GM)
    idle(server, root)


def test_a_master_killed_after_counting_a_mail_counts_it_once(tmp_path):
    """Master 1 is killed (SIGKILL) just after it counted Alice's ``games``
    line in g1's mail against her day's one answer about no game, which
    every master shares: handled again, the mail is counted once, so she
    gets her list; her next ``games``, in g3's mail (master 1) or to the
    GM's own address (the front), is refused."""
    root = tmp_path / "data"
    server, _ = set_up(root)
    today = root / "limits" / datetime.now(UTC).strftime("%Y-%m-%d")
    today.parent.mkdir(exist_ok=True)  # Alice, a player, has one answer about no game left today
    today.write_text(f"\noutside {ALICE}\t\t0\t.\n" * (Limits().answers_outside_games_to_players_per_day - 1))
    server.start("after-count:2", 1)  # the second count: its daily cap in g1 first
    try:
        raw, to = reply(root, ALICE, "games", "g1")
        send(server, raw, ALICE, to)
        idle(server, root)
        raw, to = reply(root, ALICE, "games", "g3")
        send(server, raw, ALICE, to)
        games_to_the_gm(server, root)
    finally:
        server.stop()
    assert server.crashes == 0, "the daemon itself died"
    assert server.logs.count(b"master restarted") == 1, server.logs.decode()[-3000:]
    lists = [m for m in delivered(root) if ALICE in str(m["To"]) and str(m["Subject"]) == "[gm] Your games"]
    assert len(lists) == 1
    store = Store(root)
    reasons = [store.shunt.get_bytes(key).split(b"\r\n", 1)[0] for key in store.shunt.keys()]
    assert len([r for r in reasons if b"about no game today already" in r]) == 1, reasons  # the GM's: g3's mail
    assert b"games list not sent" in server.logs  # is applied, only its list is not sent


def test_on_upgrade_day_the_front_counts_on_from_another_masters_old_file(tmp_path):
    """The release before kept each master's counts in a file of its own
    (``masters/K/limits/DAY`` for master K): master 1 had answered Alice's
    one mail about no game today. Upgraded, the front reads that file, so
    her ``games`` to the GM's own address is refused; the next day the old
    folder is gone."""
    root = tmp_path / "data"
    server, _ = set_up(root)
    old = root / "masters" / "1" / "limits"
    old.mkdir()
    (old / "2000-01-01").write_text(f"outside {ALICE}\t9\n")  # a day long gone: removed, never read
    (old / datetime.now(UTC).strftime("%Y-%m-%d")).write_text(  # Alice plays: her allowance as a player
        f"outside {ALICE}\t{Limits().answers_outside_games_to_players_per_day}\n")
    server.start()
    try:
        games_to_the_gm(server, root)
    finally:
        server.stop()
    assert server.crashes == 0, server.logs.decode()[-3000:]
    assert not [m for m in delivered(root) if ALICE in str(m["To"]) and str(m["Subject"]) == "[gm] Your games"]
    store = Store(root)
    reasons = [store.shunt.get_bytes(key).split(b"\r\n", 1)[0] for key in store.shunt.keys()]
    limit = Limits().answers_outside_games_to_players_per_day
    assert [r for r in reasons if b"about no game today already" in r] == [
        f"X-GM-Shunt-Reason: games: {ALICE} was sent {limit} mails about no game today already".encode()], reasons
    assert sorted(p.name for p in old.iterdir()) == [datetime.now(UTC).strftime("%Y-%m-%d")]


def test_each_master_writes_its_start_up_index_once_serving_began(tmp_path):
    """Orders wait in the spool when gm starts, and neither master has a
    start-up index: each writes its own in its first idle moment, after it
    handled the orders, not at the end of its start, where restamping every
    game kept the first mail waiting (1.6 s at 10,000 games)."""
    root = tmp_path / "data"
    server, sent = set_up(root)
    folders = [root, root / "masters" / "1"]
    for folder in folders:
        index.path_of(folder).unlink()
    for raw, sender, recipient in orders(root, GAMES, sent):
        spooled = prepend_header(prepend_header(raw, "X-GM-Envelope-To", f"<{recipient.lower()}>"),
                                 "Return-Path", f"<{sender}>")
        Store(root).spool.add(spooled, spool_key(datetime.now(UTC), "smtp"))
    server.start()
    try:
        idle(server, root)
        deadline = time.monotonic() + WAIT
        while not all(index.path_of(folder).exists() for folder in folders):
            assert time.monotonic() < deadline, "a master wrote no start-up index"
            time.sleep(0.05)
        for number, folder in enumerate(folders):
            archived = [entry.stat().st_mtime_ns for game in GAMES if Part(number, 2).owner(game) == number
                        for box in ("new", "cur") for entry in (root / "games" / game / box).iterdir()]
            assert index.path_of(folder).stat().st_mtime_ns >= max(archived), f"master {number}"
    finally:
        server.stop()
    assert server.crashes == 0
    each_once(root, GAMES, sent, COMMITS)
