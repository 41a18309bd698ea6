"""Kill the daemon with SIGKILL at each step of handling a message, restart
it, and check that every accepted message was applied exactly once and every
reply delivered exactly once.

The daemon runs as a real process (`gm serve`) on a loopback port. The
environment variable GM_CRASH_AT (see gm/pbem/data/crashpoints.py) makes it kill
itself at the chosen step; the players' mail client resends whatever got no
250, as a real MTA would.

The daemon commits in groups (gm.storage): the spool a group of messages
received together, the master a batch of spooled messages, the delivery a
pass over the outbox. Beside one message at a time, two scenarios kill it
at the boundaries of those groups: orders for several games spooled while
it is down (so that one batch of the master's holds them all), and orders
for several games sent at once by several clients (so that one commit of
the spool holds several)."""

import os
import signal
import smtplib
import socket
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from crash_orders import delivered, each_once, orders, reply
from gm.kernel.values import Options
from gm.mail.reading import parse_message
from gm.pbem.archive.replay import prepend_header
from gm.pbem.data.store import Store, spool_key
from gm.pbem.operator.admin import request_game
from gm.pbem.state import index, snapshots
from gm.pbem.writing.mailer import Identity
from gm.storage.maildirs import DurableMaildir
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point and started again

POINTS = ["after-spool", "after-archive", "after-apply", "after-queue", "mid-delivery",
          # the boundaries of the group commits (gm/pbem/data/crashpoints.py)
          "spool-synced", "mid-spool-commit", "between-messages", "batch-synced", "mid-batch-commit",
          "after-batch-commit", "delivery-synced", "mid-delivery-commit", "mid-sent"]
WAIT = 20.0  # seconds: the longest any single step may take


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`gm serve` as a child process, restarted after each crash."""

    def __init__(self, data: Path, crash: str | None):
        self.data = data
        self.crash = crash
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.crashes = 0
        self.args: list[str] = []
        """More options of `gm serve`'s."""
        self.lock = threading.RLock()  # clients in several threads may find it dead at once

    def start(self, crash: str | None) -> None:
        env = {k: v for k, v in os.environ.items() if k != "GM_CRASH_AT"}
        if crash:
            env["GM_CRASH_AT"] = crash
        self.process = subprocess.Popen(
            [sys.executable, "-P", "-m", "gm", "serve", "--data", str(self.data), "--smtp", f"127.0.0.1:{self.port}",
             "--address", GM, *self.args],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
        )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return  # it crashed already while loading; the caller restarts it
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.02)
        raise AssertionError("gm serve did not start listening")

    def alive(self) -> bool:
        with self.lock:
            if self.process.poll() is None:
                return True
            assert self.process.returncode == -signal.SIGKILL, self.process.stderr.read().decode()[-3000:]
            self.crashes += 1
            self.start(None)  # the crash point fires once: restart without it
            return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def wait_until_idle(server: Server, store_root: Path) -> None:
    """Until the spool and the outbox are empty (restarting after a crash)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        server.alive()
        spool = list((store_root / "spool" / "new").iterdir())
        outbox = list((store_root / "outbox" / "new").iterdir())
        if not spool and not outbox:
            time.sleep(0.05)
            if (not list((store_root / "spool" / "new").iterdir())
                    and not list((store_root / "outbox" / "new").iterdir())):
                return
        time.sleep(0.02)
    raise AssertionError("the daemon did not finish its work")


def wait_for_crash(server: Server) -> None:
    """Until the crash point has fired (and the daemon is started again):
    for a point that can fire once all the work is done (the last mail
    marked sent), where the spool and the outbox are empty before the
    daemon dies, and `wait_until_idle` alone may return first."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        server.alive()
        if server.crashes:
            return
        time.sleep(0.02)
    raise AssertionError("the crash point never fired")


def send_until_accepted(server: Server, raw: bytes, sender: str, recipient: str) -> None:
    """Send like an MTA: retry until the message gets its 250."""
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


@pytest.mark.parametrize("nth", [1, 3])
@pytest.mark.parametrize("point", POINTS)
def test_sigkill_at_every_step_loses_nothing_and_repeats_nothing(tmp_path, point, nth):
    root = tmp_path / "data"
    store = Store(root)
    request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(f"{point}:{nth}")
    sent_ids = []
    try:
        wait_until_idle(server, root)
        for address, body in [(ALICE, SETUP_ALICE), (BOB, SETUP_BOB), (ALICE, "Rv1 Rv2"), (BOB, "Bz5 sRv1")]:
            raw, to = reply(root, address, body)
            sent_ids.append(str(parse_message(raw)["Message-ID"]))
            send_until_accepted(server, raw, address, to)
            wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {point}:{nth} never fired"

    # Every accepted message applied exactly once.
    archive = DurableMaildir(root / "games" / "g1", create=False)
    inbound = [parse_message(archive.get_bytes(k)) for k in archive.keys() if ".in." in k]
    applied = [str(m["Message-ID"]) for m in inbound if m.get("X-GM-Accepted")]
    assert sorted(applied) == sorted(sent_ids)
    assert len(inbound) == 1 + len(sent_ids)  # the creation, then each player mail once

    # Every reply delivered exactly once: 2 invitations, 2 setup acknowledgements,
    # 2 opening sheets, 2 order acknowledgements, 2 sheets after turn 1.
    ids = [str(m["Message-ID"]) for m in delivered(root)]
    assert len(ids) == len(set(ids)) == 10
    out = [k for k in archive.keys() if ".out." in k]
    assert len(out) == 10
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
    final = [m for m in delivered(root) if "Turn 1 results" in str(m["Subject"])]
    assert len(final) == 2


# Groups: several messages for several games

GAMES = ["g1", "g2", "g3"]


def games_set_up(root: Path) -> tuple[Server, dict[str, list[str]]]:
    """Three games between Alice and Bob, both setups in (by a daemon that
    does not crash), and the daemon stopped; the Message-IDs sent to each."""
    store = Store(root)
    for _ in GAMES:
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(None)
    sent: dict[str, list[str]] = {game: [] for game in GAMES}
    try:
        wait_until_idle(server, root)
        for game in GAMES:
            for address, body in [(ALICE, SETUP_ALICE), (BOB, SETUP_BOB)]:
                raw, to = reply(root, address, body, game)
                sent[game].append(str(parse_message(raw)["Message-ID"]))
                send_until_accepted(server, raw, address, to)
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 0
    return server, sent


BATCH_POINTS = ["mid-handle:4", "after-queue:3", "between-messages:2", "between-messages:5", "batch-synced:1",
                "mid-batch-commit:1", "mid-batch-commit:4", "mid-batch-commit:9", "after-batch-commit:1",
                "delivery-synced:1", "mid-delivery-commit:3", "mid-delivery:2", "mid-sent:4"]


@pytest.mark.parametrize("spec", BATCH_POINTS)
def test_sigkill_in_a_batch_of_messages_for_several_games(tmp_path, spec):
    """Six orders for three games wait in the spool when gm starts: its first
    batch handles them together (two turns' worth of replies for each game),
    and the daemon is killed inside that batch, its commit or the delivery
    of its replies."""
    root = tmp_path / "data"
    server, sent = games_set_up(root)
    orders_spooled_then_killed(root, server, sent, spec)


def orders_spooled_then_killed(root, server, sent, spec: str) -> None:
    """Spool every order at once, as the SpoolHandler writes them, start the
    daemon to die at ``spec``, and check that each order was applied once."""
    for raw, sender, recipient in orders(root, GAMES, sent):
        spooled = prepend_header(prepend_header(raw, "X-GM-Envelope-To", f"<{recipient.lower()}>"),
                                 "Return-Path", f"<{sender}>")
        Store(root).spool.add(spooled, spool_key(datetime.now(UTC), "smtp"))
    server.start(spec)
    try:
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {spec} never fired"
    each_once(root, GAMES, sent)


SPOOL_POINTS = ["spool-synced:1", "mid-spool-commit:2", "mid-spool-commit:4", "after-spool:3"]


@pytest.mark.parametrize("spec", SPOOL_POINTS)
def test_sigkill_in_a_group_commit_of_the_spool(tmp_path, spec):
    """Six clients send orders for three games at once, each resending until
    it gets its 250; the daemon is killed inside a commit of the spool.
    Messages it made durable before dying, unacknowledged, come again: they
    are applied once."""
    root = tmp_path / "data"
    server, sent = games_set_up(root)
    mails = orders(root, GAMES, sent)
    server.start(spec)
    failures: list[BaseException] = []

    def client(raw: bytes, sender: str, recipient: str) -> None:
        try:
            send_until_accepted(server, raw, sender, recipient)
        except BaseException as error:  # reported below
            failures.append(error)

    clients = [threading.Thread(target=client, args=mail) for mail in mails]
    try:
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join(2 * WAIT)
        assert not failures, failures
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {spec} never fired"
    each_once(root, GAMES, sent)


# The first start after an upgrade: games loaded in the background

UPGRADE_POINTS = ["background-loaded:1", "background-loaded:3", "background-saved:1", "background-saved:2"]


def written_before_schema_numbers(root: Path) -> None:
    """Every game's snapshot as the gm before schema numbers wrote it (a
    code fingerprint in its head): none is read, each game starts pending."""
    for game in GAMES:
        head, body = snapshots.read(root, game)
        del head.schemas
        head.fingerprint = "an earlier gm"
        snapshots.write(root, head, body)
        assert snapshots.read(root, game) is None


@pytest.mark.parametrize("spec", UPGRADE_POINTS)
def test_sigkill_while_games_left_by_an_upgrade_load_in_the_background(tmp_path, spec):
    """After an upgrade every game is pending; the daemon loads them one by
    one while idle and is killed after loading one (its snapshot not yet
    written) or after writing its snapshot. Started again, it serves the
    orders that come next exactly once, and every game's snapshot ends
    current."""
    root = tmp_path / "data"
    server, sent = games_set_up(root)
    written_before_schema_numbers(root)
    server.start(spec)
    try:
        deadline = time.monotonic() + WAIT
        while server.alive():
            assert time.monotonic() < deadline, f"the crash point {spec} never fired"
            time.sleep(0.02)
        for raw, sender, recipient in orders(root, GAMES, sent):
            send_until_accepted(server, raw, sender, recipient)
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1
    each_once(root, GAMES, sent)
    for game in GAMES:
        head = snapshots.read_head(root, game)
        assert head is not None and snapshots.is_current(head), game


# The start-up index (gm/pbem/state/index.py)

INDEX_POINTS = ["index-saved:1", "after-batch-commit:1"]


@pytest.mark.parametrize("spec", INDEX_POINTS)
def test_sigkill_around_the_start_up_index(tmp_path, spec):
    """The three games settle after their setups, so the start that finds
    the six orders spooled writes an index entry for each; it is killed
    once that index is written (the next start opens every game from it),
    or once its first batch is durable, its messages still spooled (the
    next start finds the games changed behind the index and opens them
    from their archives). Every order is applied once."""
    root = tmp_path / "data"
    server, sent = games_set_up(root)
    time.sleep(index.SETTLED_NS / 1e9 + 0.1)
    orders_spooled_then_killed(root, server, sent, spec)
