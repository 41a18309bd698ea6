"""How fast `gm serve` takes order mails in, and how it starts with 10,000 games.

End to end: order mails a second, from the first SMTP send until every
order mail's acknowledgement is durably queued (in ``outbox/``, or already
moved on to ``delivered/``), with 8 client threads, each holding one SMTP
connection that it reuses. Printed beside the ceiling measured in the same
run over the same mails: the same aiosmtpd server whose handler only writes
the message durably into a Maildir (`gm.storage.maildirs.DurableMaildir.add`, in an
executor, as gm's `SpoolHandler` does) and answers 250. The target is at
least half the ceiling. The ceiling is measured before and after gm, and gm
is compared with the mean of the two (both are printed: they are noisy).

Each server runs in a process of its own, as it would in production; the
client threads and the polling run in this one. gm is the real command,
``python -m gm serve``, with its background tasks, the real clock and local
delivery (no relay).

Before anything is timed, a data directory is built with the real code
paths: `gm.pbem.operator.admin.request_game` spools a creation request for each game,
a `GameMaster` handles the spool, both players answer their invitation
(written into the spool by gm's own `SpoolHandler`, as if over SMTP) with a
legal setup, the `GameMaster` handles those, and every reply is delivered
locally. So every game is in play, and each order mail is checked against
the real position. Games have 30-day deadlines so that no deadline or
reminder falls due during a run (or during the life of a cached directory).

The order mails are prepared before the timing: each is a reply to the GM's
latest mail to that player (its Reply-To token, In-Reply-To its
Message-ID), with a Message-ID of its own, carrying one or two strikes at
random cells (seeded). Each game belongs to one client thread, which sends
player 1 then player 2 for each of its games in turn, so a turn runs every
second mail (turn sheets to both players: realistic work too). Players are
all distinct addresses and send at most gm's daily cap of mails each.

Start-up: a data directory with 10,000 games in play (built as above, which
takes many minutes, so it is cached under the system's temporary directory,
never in the work tree, keyed by the installed gm's code and templates; the
build time is printed when it is built, and again from the cache's record;
building for a new version removes the builds for other versions).
A hard-linked copy of it (gm never rewrites a file in place) is served by
``python -m gm serve --data DIR --smtp 127.0.0.1:0`` (port 0, found from
/proc, so that nothing else can take it meanwhile). Two times are printed:
until it answers EHLO (gm listens before its games are loaded, and accepts
mail durably into the spool meanwhile), and until an order mail sent at that
moment to the last game has its acknowledgement queued: that is serving, and
the 10-second target applies to it. Resident memory (VmRSS, and the peak
VmHWM, from /proc) is read once that mail is handled, so with every game
loaded, and a little later; the target is under 1 GiB. The same is measured
for an empty data directory (with a mail that belongs to no game), as a
reference.

The end-to-end run likewise waits until gm has handled a first mail (one
that belongs to no game) before the clock starts, so that loading the games
is not counted as handling the order mails.

With ``--strace``, gm serve runs under strace (``-f --seccomp-bpf``, only
the calls counted are traced) for the end-to-end run, and the calls it made
from the first order mail sent until the spool and the outbox were empty
again (local delivery included) are counted per order mail: the calls that
wait for the disk (fsync, fdatasync, syncfs, sync_file_range), the files
created (an open with O_CREAT that made a new file: O_EXCL, or a name
not seen before in the run), renames and unlinks. strace slows gm down: the
rates of such a run are not the figures to compare.

With ``--profile-front FILE``, py-spy (``py-spy`` on PATH or beside this
Python; not a dependency of gm: ``pip install py-spy`` into the venv) samples
the daemon's own process, not its master processes, from the first order
mail sent until the spool and the outbox were empty again: the thread
holding the GIL (the event loop with the SMTP sessions, or a worker thread
writing the spool or delivering), so what the front spends its Python CPU
time on (a thread waiting for the disk, and the kernel's own work in a
system call, hold no GIL: the kernel's share is the system time printed
beside the CPU seconds). The samples are written as collapsed stacks (``FILE``, with the count
of masters in its name when several are measured) and summed up: the
functions most often on the stack, and most often at its top. Sampling
costs the daemon a little CPU of its own (py-spy reads its memory, it does
not stop it).

Nothing is asserted about speed; the exit status is 1 only if the run could
not complete (a server did not start, an order mail was not acknowledged
in time, a client failed).

    python bench/ingest.py [--messages N] [--clients C] [--games G]
                           [--big-games N] [--skip-big] [--seed S] [--quick]
                           [--strace] [--profile-front FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email.parser
import email.policy
import hashlib
import json
import math
import os
import random
import secrets
import shutil
import signal
import smtplib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime, make_msgid
from pathlib import Path

import gm  # as installed: scripts/setup-venv installs this work tree into .venv
from gm.daemon import MAX_MESSAGE_BYTES, SpoolHandler
from gm.games.spaceships.geometry import COLOURS, LETTERS, NUMBERS
from gm.kernel.values import PLAY, Options
from gm.pbem.data.store import Store
from gm.pbem.intake.limits import Limits
from gm.pbem.master.game_master import GameMaster, utc_now
from gm.pbem.operator.admin import request_game
from gm.pbem.serving.delivery import Deliverer
from gm.pbem.writing.mailer import Identity
from gm.storage.maildirs import DurableMaildir

ROOT = Path(__file__).resolve().parents[1]

HOST = "127.0.0.1"
GM_ADDRESS = "gm@example.org"
TARGET_RATIO = 0.5
"""End to end, at least half the durable-Maildir ceiling."""
SERVE_TARGET_SECONDS = 10.0
MEMORY_TARGET_BYTES = 1 << 30
DAILY_CAP = Limits().replies_per_day
OPTIONS = Options(deadline=timedelta(days=30))
SETUPS = (
    "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
    "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n",
)
"""Legal setups (the daemon tests' Alice and Bob)."""
CELLS = [f"{c}{letter}{n}" for c in COLOURS for letter in LETTERS for n in NUMBERS]
CACHE_ROOT = Path(tempfile.gettempdir()) / "gm-bench-cache"
CACHE_FROM = 1_000
"""Start-up data directories of at least this many games are cached."""
CACHE_DAYS = 20
"""A cached directory is rebuilt after this many days (its games' deadlines are 30 days out)."""
POLL_SECONDS = 0.02
STOP_SECONDS = 10.0

_headers = email.parser.BytesHeaderParser(policy=email.policy.default)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# Building a data directory with games in play, through gm's own code


@dataclass
class Built:
    games: int
    create_seconds: float
    setup_seconds: float
    deliver_seconds: float

    @property
    def seconds(self) -> float:
        return self.create_seconds + self.setup_seconds + self.deliver_seconds

    def describe(self) -> str:
        return (f"{self.seconds:.1f} s for {self.games:,} games ({self.games / self.seconds:,.1f} games/s): "
                f"create {self.create_seconds:.1f} s, setups {self.setup_seconds:.1f} s, "
                f"local delivery {self.deliver_seconds:.1f} s")


def player_address(index: int, player: int) -> str:
    return f"player{player}.n{index}@players.example"


def build_games(data: Path, games: int, progress: bool = False) -> Built:
    """``games`` games in play in a new data directory, made as the daemon makes them."""
    store = Store(data)
    identity = Identity(GM_ADDRESS)
    master = GameMaster(store, identity, utc_now)

    def handle_spool(what: str) -> None:
        keys = store.spool.keys()
        for done, key in enumerate(keys, 1):
            master.handle(key)  # what process_spool does, with progress
            if progress and done % 1000 == 0:
                log(f"  building: {what} {done:,}/{len(keys):,}")

    start = time.perf_counter()
    for index in range(games):
        request_game(store, identity, [player_address(index, 1), player_address(index, 2)], "2.6.1", OPTIONS, utc_now())
    handle_spool("creations handled")
    created = time.perf_counter()

    invitations = [key for key in store.outbox.keys() if ".000001.out." in key]
    handler = SpoolHandler(store, identity, utc_now, "smtp")

    async def answer_invitations() -> None:
        from aiosmtpd.smtp import Envelope

        for key in invitations:
            head = _headers.parsebytes(store.outbox.get_bytes(key))
            player = int(str(head["X-GM-Player"]))
            raw = reply(head, SETUPS[player - 1])
            envelope = Envelope()
            envelope.mail_from = str(head["To"])
            envelope.rcpt_tos = [str(head["Reply-To"])]
            envelope.original_content = raw
            answer = await handler.handle_DATA(None, None, envelope)  # type: ignore[arg-type]
            if not answer.startswith("250"):
                raise RuntimeError(f"setup for {key} refused: {answer}")

    asyncio.run(answer_invitations())
    handle_spool("setups handled")
    set_up = time.perf_counter()

    deliverer = Deliverer(store, None, identity)
    for done, key in enumerate(store.outbox.keys(), 1):
        deliverer.deliver(key)
        if progress and done % 5000 == 0:
            log(f"  building: {done:,} replies delivered")
    delivered = time.perf_counter()

    in_play = sum(game.phase == PLAY for game in master.games.values())
    if in_play != games or store.shunt.keys():
        raise RuntimeError(f"building: {in_play} of {games} games in play, {len(store.shunt.keys())} mails shunted")
    return Built(games, created - start, set_up - created, delivered - set_up)


def unfold(value) -> str:
    """A Message-ID header's value without the folding whitespace of a long line."""
    return "".join(str(value).split())


def reply(original, body: str, threaded: bool = True) -> bytes:
    """A player's reply to one of the GM's mails, as a mail client writes it;
    not ``threaded``: a new mail to its reply address, answering no mail (as
    order mails written before the turns they are for must be: a reply to an
    earlier turn's sheet is answered as late, docs/rulings.md, ruling w)."""
    sender = str(original["To"])
    message = EmailMessage(policy=SMTP_POLICY)
    message["From"] = sender
    message["To"] = str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"]) if threaded else f"[gm {original['X-GM-Game']}] orders"
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = make_msgid(idstring=secrets.token_hex(6), domain=sender.split("@")[1])
    if threaded:
        message["In-Reply-To"] = str(original["Message-ID"])
        message["References"] = str(original["Message-ID"])
    message.set_content(body)
    return message.as_bytes()


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30, check=True).stdout


def git_head() -> str:
    try:
        return git("rev-parse", "--short=12", "HEAD").strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def gm_version() -> str:
    """What the cache of built data directories is keyed by: a digest of the
    installed gm package's files (its code, grammar and templates)."""
    package = Path(gm.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def cached_games(games: int) -> tuple[Path, Built, bool]:
    """The data directory of a cached build of ``games`` games (built now if
    missing or stale); returns (directory, build figures, whether it was cached)."""
    place = CACHE_ROOT / f"ingest-{gm_version()}-{games}games"
    stamp = place / "built.json"
    if stamp.exists() and time.time() - stamp.stat().st_mtime < CACHE_DAYS * 86400:
        record = json.loads(stamp.read_text())
        return place / "data", Built(**record), True
    shutil.rmtree(place, ignore_errors=True)
    for other in CACHE_ROOT.glob(f"ingest-*-{games}games"):
        # other versions of gm: finished builds, or builds abandoned a day ago (a few GB each)
        if (other / "built.json").exists() or time.time() - other.stat().st_mtime > 86400:
            log(f"removing {other}, built for another version of gm")
            shutil.rmtree(other, ignore_errors=True)
    place.mkdir(parents=True)
    log(f"building {games:,} games in play into {place} (cached for later runs)")
    built = build_games(place / "data", games, progress=True)
    stamp.write_text(json.dumps(built.__dict__))
    return place / "data", built, False


# --------------------------------------------------------------------------
# Order mails


@dataclass
class Mail:
    sender: str
    recipient: str
    raw: bytes
    message_id: str
    ack_key: str
    """The outbox key of the GM's acknowledgement: the first reply to its event."""
    sent_at: float = 0.0


def latest_mail(store: Store, games: set[str] | None = None) -> tuple[dict[tuple[str, int], object], dict[str, int]]:
    """The GM's latest delivered mail (headers) to each player of each game
    (or of ``games`` only), and the number of each game's last event."""
    latest: dict[tuple[str, int], tuple[str, object]] = {}
    last_event: dict[str, int] = {}
    for key in store.delivered.keys():
        game, number, _, _ = key.split(".")
        if games is not None and game not in games:
            continue
        last_event[game] = max(last_event.get(game, 0), int(number))
        head = _headers.parsebytes(store.delivered.get_bytes(key))
        player = int(str(head["X-GM-Player"]))
        if (game, player) not in latest or key > latest[game, player][0]:
            latest[game, player] = (key, head)
    return {where: head for where, (_, head) in latest.items()}, last_event


def order_mail(original, last_event: int, strikes: list[str]) -> Mail:
    """A player's order mail answering the GM's mail ``original``; its
    acknowledgement will be the first reply to the game's next event."""
    raw = reply(original, " ".join(strikes) + "\n", threaded=False)
    game = str(original["X-GM-Game"]).strip()
    return Mail(sender=str(original["To"]), recipient=str(original["Reply-To"]), raw=raw,
                message_id=unfold(_headers.parsebytes(raw)["Message-ID"]), ack_key=f"{game}.{last_event + 1:06d}.out.1")


def stranger_mail() -> Mail:
    """A mail to the GM that belongs to no game: handled (shunted) once the games are loaded."""
    message_id = make_msgid(domain="bench.example")
    raw = (f"From: someone@bench.example\r\nTo: {GM_ADDRESS}\r\nSubject: hello\r\nMessage-ID: {message_id}\r\n"
           f"Date: {format_datetime(datetime.now(UTC))}\r\n\r\nhello\r\n").encode()
    return Mail("someone@bench.example", GM_ADDRESS, raw, message_id, ack_key="")


def order_mails(store: Store, messages: int, clients: int, rng: random.Random) -> list[list[Mail]]:
    """The order mails of each client thread, in sending order."""
    latest, last_event = latest_mail(store)
    games = sorted(last_event, key=lambda g: (len(g), g))
    per_game = messages // len(games)
    batches: list[list[Mail]] = [[] for _ in range(clients)]
    for round_ in range(per_game):
        player = 1 + round_ % 2
        for index, game in enumerate(games):
            strikes = rng.sample(CELLS, rng.choice((1, 2)))
            batches[index % clients].append(order_mail(latest[game, player], last_event[game] + round_, strikes))
    return [batch for batch in batches if batch]


# --------------------------------------------------------------------------
# Servers (each in a process of its own) and the clients


def ehlo(port: int, timeout: float = 5.0) -> bool:
    try:
        with smtplib.SMTP(HOST, port, timeout=timeout) as client:
            code, _ = client.ehlo()
            return code == 250
    except (OSError, smtplib.SMTPException):
        return False


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (gm serve runs under strace with ``--strace``)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        try:
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo.extend(int(child) for child in children.read().split())
        except OSError:
            continue
    return found


def cpu_seconds(pid: int, kernel: bool = False) -> dict[int, float]:
    """The CPU time (user and system; with ``kernel``, system only) of
    ``pid`` and each of its descendants, in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for member in process_tree(pid):
        try:
            with open(f"/proc/{member}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[member] = (int(fields[12]) + (0 if kernel else int(fields[11]))) / ticks
    return found


def listening_port(pid: int) -> int | None:
    """The TCP port a process (or a child of it) listens on, from /proc
    (servers bind port 0, so that no other process can take the port
    between choosing and binding it)."""
    try:
        sockets = set()
        for member in process_tree(pid):
            try:
                fds = os.listdir(f"/proc/{member}/fd")
            except OSError:
                continue
            for fd in fds:
                try:
                    link = os.readlink(f"/proc/{member}/fd/{fd}")
                except OSError:
                    continue
                if link.startswith("socket:["):
                    sockets.add(link[8:-1])
        with open("/proc/net/tcp") as table:
            for line in list(table)[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in sockets:  # 0A: LISTEN
                    return int(fields[1].rsplit(":", 1)[1], 16)
    except OSError:
        pass
    return None


def send_one(port: int, mail: Mail, timeout: float = 30.0) -> None:
    with smtplib.SMTP(HOST, port, timeout=timeout) as client:
        mail.sent_at = time.perf_counter()
        client.sendmail(mail.sender, [mail.recipient], mail.raw)


def handled(data: Path, mail: Mail) -> bool:
    """Whether gm has handled ``mail``: its acknowledgement is queued (or
    delivered), or, for mail that has none, the spool is empty."""
    if not mail.ack_key:
        return not os.listdir(data / "spool" / "new")
    # the outbox first: a message leaves it only once it is delivered
    return (data / "outbox" / "new" / mail.ack_key).exists() or (data / "delivered" / "new" / mail.ack_key).exists()


def wait_handled(data: Path, mail: Mail, server: Server, timeout: float) -> float | None:
    """Seconds from sending ``mail`` until gm handled it, or None."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline and server.process.poll() is None:
        if handled(data, mail):
            return time.perf_counter() - mail.sent_at
        time.sleep(POLL_SECONDS)
    return None


class Server:
    """A server process listening on 127.0.0.1:0: started, waited for until it
    answers EHLO, always stopped."""

    def __init__(self, command: list[str], logfile: Path, lifeline: bool = False):
        """``lifeline``: the process's stdin is a pipe from this one, which
        it watches to stop when this process is gone (even killed)."""
        self.port = 0
        self.logfile = logfile
        self._log = open(logfile, "wb")  # noqa: SIM115 (open while the daemon runs; closed when it stops)
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE if lifeline else subprocess.DEVNULL,
                                        stdout=self._log, stderr=subprocess.STDOUT)

    def wait_serving(self, timeout: float) -> float | None:
        """Seconds from the start of the process until it answered EHLO, or None."""
        deadline = self.started + timeout
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                return None
            self.port = self.port or listening_port(self.process.pid) or 0
            if self.port and ehlo(self.port, timeout=max(0.1, min(5.0, deadline - time.perf_counter()))):
                return time.perf_counter() - self.started
            time.sleep(POLL_SECONDS)
        return None

    def memory(self) -> dict[str, int]:
        """VmRSS and VmHWM in bytes (empty once the process is gone)."""
        figures = {}
        try:
            for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
                name, _, value = line.partition(":")
                if name in ("VmRSS", "VmHWM"):
                    figures[name] = int(value.split()[0]) * 1024
        except OSError:
            pass
        return figures

    def tail(self, lines: int = 15) -> str:
        self._log.flush()
        try:
            return "\n".join(self.logfile.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            # gm serve stops cleanly on Ctrl-C; under strace (--strace) it is
            # strace's child, and strace would only detach from it
            tree = process_tree(self.process.pid)
            for pid in tree[1:] or tree:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGINT)
            try:
                self.process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                for pid in reversed(tree):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                self.process.wait(STOP_SECONDS)
        if self.process.stdin is not None:
            self.process.stdin.close()
        self._log.close()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


STRACED = ("fsync", "fdatasync", "syncfs", "sync_file_range", "open", "openat", "creat", "rename", "renameat",
           "renameat2", "unlink", "unlinkat")
SYNC_CALLS = ("fsync", "fdatasync", "syncfs", "sync_file_range")


def gm_serve(data: Path, logfile: Path, strace: Path | None = None, masters: int = 1) -> Server:
    command = [sys.executable, "-P", "-m", "gm", "serve", "--data", str(data), "--smtp", f"{HOST}:0",
               "--address", GM_ADDRESS, *(["--masters", str(masters)] if masters != 1 else [])]
    if strace is not None:
        command = ["strace", "-f", "--seccomp-bpf", "-qq", "-ttt", "-o", str(strace), "-e",
                   "trace=" + ",".join(STRACED), *command]
    return Server(command, logfile)


@dataclass
class Calls:
    """System calls gm serve made while it handled the order mails (``--strace``)."""

    sync: int = 0
    created: int = 0
    renames: int = 0
    unlinks: int = 0
    by_name: dict[str, int] = field(default_factory=dict)


def count_calls(log: Path, since: float, until: float) -> Calls:
    """Count the calls of an ``strace -f -ttt`` log made between ``since``
    and ``until`` (seconds since the epoch) that succeeded."""
    import re

    calls = Calls()
    line_re = re.compile(r"^\d+\s+(\d+\.\d+) (\w+)\((.*)\) += (-?\d+)")
    seen: set[str] = set()
    resumed: dict[str, str] = {}
    for text in log.read_text(errors="replace").splitlines():
        if "<unfinished ...>" in text:  # another thread's call came in between
            pid = text.split()[0]
            resumed[pid] = text.split(" <unfinished ...>")[0]
            continue
        if "resumed>" in text:
            pid = text.split()[0]
            text = resumed.pop(pid, "") + text.split("resumed>", 1)[1]
        found = line_re.match(text)
        if not found:
            continue
        at, name, args, result = float(found[1]), found[2], found[3], int(found[4])
        path = args.split('"')[1] if '"' in args else ""
        if (name.startswith("open") or name == "creat") and result >= 0:
            new = path not in seen
            seen.add(path)
        if not since <= at <= until or result < 0:
            continue
        calls.by_name[name] = calls.by_name.get(name, 0) + 1
        if name in SYNC_CALLS:
            calls.sync += 1
        elif name.startswith("rename"):
            calls.renames += 1
        elif name.startswith("unlink"):
            calls.unlinks += 1
        elif (name.startswith("open") or name == "creat") and ("O_CREAT" in args or name == "creat"):
            calls.created += "O_EXCL" in args or new
    return calls


def ceiling_serve(maildir: Path, logfile: Path) -> Server:
    return Server([sys.executable, str(Path(__file__).resolve()), "--ceiling-server", str(maildir)], logfile,
                  lifeline=True)


class DurableHandler:
    """The ceiling: write the message durably into a Maildir, then say 250."""

    def __init__(self, maildir: DurableMaildir):
        self.maildir = maildir

    async def handle_DATA(self, server, session, envelope) -> str:
        key = f"{time.time_ns():020d}.smtp.{secrets.token_hex(8)}"
        await asyncio.get_running_loop().run_in_executor(None, self.maildir.add, envelope.original_content or b"", key)
        return "250 2.0.0 Message accepted"


def run_ceiling_server(path: str) -> int:
    """The ceiling server's process: aiosmtpd as gm sets it up, until SIGINT
    or SIGTERM, or until its stdin ends: the benchmark holds the other end
    of that pipe (`ceiling_serve`), so when the benchmark is gone, killed
    too (a test's timeout), the server does not outlive it."""
    from aiosmtpd.smtp import SMTP

    async def main() -> None:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)

        def parent_said() -> None:
            if not os.read(sys.stdin.fileno(), 64):  # the end of the pipe: the benchmark is gone
                loop.remove_reader(sys.stdin.fileno())
                stop.set()

        loop.add_reader(sys.stdin.fileno(), parent_said)
        handler = DurableHandler(DurableMaildir(path))
        server = await loop.create_server(
            lambda: SMTP(handler, data_size_limit=MAX_MESSAGE_BYTES, enable_SMTPUTF8=True, hostname="example.org"),
            host=HOST, port=0)
        await stop.wait()
        server.close()
        await server.wait_closed()

    asyncio.run(main())
    return 0


@dataclass
class Sent:
    seconds: float
    """From the first send until every client had its last 250."""
    failures: list[str]


def timed_send(port: int, batches: list[list[Mail]], timeout: float, while_sending=None) -> Sent:
    """Send every batch over a connection of its own, all at once.

    Each client thread connects and says EHLO first; the clock starts when
    all are connected. ``while_sending`` (if given) runs in this thread from
    the first send and returns when its own measurement is done."""
    failures: list[str] = []
    finished: list[float] = []
    ready = threading.Barrier(len(batches) + 1, timeout=timeout)
    start = threading.Event()

    def client(batch: list[Mail]) -> None:
        try:
            with smtplib.SMTP(HOST, port, timeout=timeout) as connection:
                connection.ehlo()
                ready.wait()
                if not start.wait(timeout):
                    raise TimeoutError("never started")
                for mail in batch:
                    mail.sent_at = time.perf_counter()
                    refused = connection.sendmail(mail.sender, [mail.recipient], mail.raw)
                    if refused:
                        raise smtplib.SMTPRecipientsRefused(refused)
                finished.append(time.perf_counter())
        except Exception as error:  # reported; the run fails
            failures.append(f"client: {type(error).__name__}: {error}")
            ready.abort()

    threads = [threading.Thread(target=client, args=(batch,), daemon=True) for batch in batches]
    for thread in threads:
        thread.start()
    with contextlib.suppress(threading.BrokenBarrierError):
        ready.wait()
    began = time.perf_counter()
    start.set()
    if while_sending is not None and not failures:
        while_sending(began)
    for thread in threads:
        thread.join(max(0.0, began + timeout - time.perf_counter()))
    if any(thread.is_alive() for thread in threads):
        failures.append(f"clients still sending after {timeout:.0f} s")
    return Sent(max(finished) - began if finished and not failures else 0.0, failures)


# --------------------------------------------------------------------------
# The two end-to-end measurements


@dataclass
class Ceiling:
    rate: float
    seconds: float
    failures: list[str]
    cpu: float = 0.0
    """The ceiling server's CPU seconds (user and system) over the sends."""


def measure_ceiling(batches: list[list[Mail]], work: Path, name: str, timeout: float) -> Ceiling:
    """Messages a second through the durable-Maildir-only server."""
    count = sum(map(len, batches))
    maildir = work / name
    with ceiling_serve(maildir, work / f"{name}.log") as server:
        if server.wait_serving(timeout) is None:
            return Ceiling(0.0, 0.0, [f"the ceiling server did not start:\n{server.tail()}"])
        cpu_before = sum(cpu_seconds(server.process.pid).values())
        sent = timed_send(server.port, batches, timeout)  # the last 250: every message is durable
        cpu = sum(cpu_seconds(server.process.pid).values()) - cpu_before
        stored = len(os.listdir(maildir / "new"))
    failures = list(sent.failures)
    if stored != count and not failures:
        failures.append(f"the ceiling server stored {stored} of {count} messages")
    return Ceiling(count / sent.seconds if sent.seconds else 0.0, sent.seconds, failures, cpu)


@dataclass
class EndToEnd:
    rate: float = 0.0
    seconds: float = 0.0
    smtp_seconds: float = 0.0
    ready_seconds: float = 0.0
    """From starting gm serve until it had handled a first mail (its games loaded)."""
    acknowledged: int = 0
    latencies: list[float] = field(default_factory=list)
    turns: int = 0
    rejected: int = 0
    wrong_acks: int = 0
    over: int = 0
    examples: list[str] = field(default_factory=list)
    """Order mails answered "the game is over" (a game ended earlier in the run)."""
    shunted: int = 0
    failures: list[str] = field(default_factory=list)
    calls: Calls | None = None
    """With ``--strace``: what gm serve called while it handled the order mails."""
    cpu: list[float] = field(default_factory=list)
    """CPU seconds of gm serve's processes while it handled the order mails:
    the daemon's first, then its master processes' (``--masters``)."""
    kernel: list[float] = field(default_factory=list)
    """Of `cpu`, the time spent in the kernel (system time), in the same order."""
    profile: Path | None = None
    """With ``--profile-front``: the daemon's own samples (collapsed stacks)."""


def measure_gm(data: Path, batches: list[list[Mail]], work: Path, timeout: float, strace: bool = False,
               masters: int = 1, profile: Path | None = None) -> EndToEnd:
    """Order mails a second through `gm serve`, until every acknowledgement is queued."""
    result = EndToEnd()
    mails = [m for b in batches for m in b]
    by_ack = {m.ack_key: m for m in mails}
    outbox_new, delivered_new = data / "outbox" / "new", data / "delivered" / "new"
    trace = work / "gm-serve.strace" if strace else None
    wall: list[float] = []
    with gm_serve(data, work / f"gm-serve-{masters}.log", trace, masters) as server:
        if server.wait_serving(timeout) is None:
            result.failures.append(f"gm serve did not start:\n{server.tail()}")
            return result
        probe = stranger_mail()  # gm answers EHLO at once; it handles mail once its games are loaded
        send_one(server.port, probe)
        if wait_handled(data, probe, server, timeout) is None:
            result.failures.append(f"gm serve did not handle a first mail within {timeout:.0f} s:\n{server.tail()}")
            return result
        result.ready_seconds = time.perf_counter() - server.started
        shunted_before = len(os.listdir(data / "shunt" / "new"))
        seen_at: dict[str, float] = {}
        spy = start_profile(server.process.pid, profile) if profile is not None else None
        cpu_before = cpu_seconds(server.process.pid)
        kernel_before = cpu_seconds(server.process.pid, kernel=True)

        def poll(began: float) -> None:
            wall.append(time.time())
            pending = set(by_ack)
            deadline = began + timeout
            while pending and time.perf_counter() < deadline and server.process.poll() is None:
                names = set(os.listdir(outbox_new))  # the outbox first: a message leaves it only once delivered
                names.update(os.listdir(delivered_new))
                now = time.perf_counter()
                for key in pending & names:
                    seen_at[key] = now
                pending -= names
                if pending:
                    time.sleep(POLL_SECONDS)
            result.seconds = (max(seen_at.values()) - began) if seen_at and not pending else time.perf_counter() - began

        sent = timed_send(server.port, batches, timeout, while_sending=poll)
        result.smtp_seconds = sent.seconds
        result.failures += sent.failures
        result.acknowledged = len(seen_at)
        result.latencies = sorted(seen_at[k] - by_ack[k].sent_at for k in seen_at)
        if result.acknowledged < len(mails):
            result.failures.append(f"{len(mails) - result.acknowledged} of {len(mails)} order mails were not "
                                   f"acknowledged within {timeout:.0f} s")
        settle(data, server)
        wall.append(time.time())
        result.cpu = [now - cpu_before.get(pid, 0.0) for pid, now in cpu_seconds(server.process.pid).items()]
        result.kernel = [now - kernel_before.get(pid, 0.0)
                         for pid, now in cpu_seconds(server.process.pid, kernel=True).items()]
        if spy is not None:
            result.failures += stop_profile(spy)
            result.profile = profile
        if server.process.poll() is not None:
            result.failures.append(f"gm serve exited with status {server.process.returncode}:\n{server.tail()}")
    if trace is not None and len(wall) == 2:
        result.calls = count_calls(trace, *wall)
    result.rate = result.acknowledged / result.seconds if result.seconds and not result.failures else 0.0
    check_acks(data, by_ack, result)
    result.shunted -= shunted_before
    return result


def start_profile(pid: int, output: Path) -> subprocess.Popen:
    """py-spy sampling the process ``pid`` alone (not its children), the
    thread holding the GIL, into ``output`` as collapsed stacks."""
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    process = subprocess.Popen([spy, "record", "--pid", str(pid), "--rate", "250", "--format", "raw", "--function",
                                "--gil", "--nonblocking", "--output", str(output)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(0.5)  # attached before the first send
    return process


def stop_profile(spy: subprocess.Popen) -> list[str]:
    """Stop py-spy (it writes its file on SIGINT); the failures, if any."""
    if spy.poll() is None:
        spy.send_signal(signal.SIGINT)
    try:
        _, errors = spy.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        spy.kill()
        return ["py-spy did not stop"]
    if spy.returncode not in (0, -signal.SIGINT):
        return [f"py-spy failed ({spy.returncode}): {errors.decode(errors='replace').strip()[-500:]}"]
    return []


def summarize_profile(path: Path, top: int = 25) -> str:
    """The functions of a collapsed-stacks file most often on the stack
    (inclusive) and at its top (self), as shares of all samples."""
    inclusive: dict[str, int] = {}
    own: dict[str, int] = {}
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [frame.split(" (")[0] + " (" + frame.split(" (", 1)[1].split(":")[0] + ")" if " (" in frame
                  else frame for frame in stack.split(";")]
        for frame in set(frames):
            inclusive[frame] = inclusive.get(frame, 0) + count
        own[frames[-1]] = own.get(frames[-1], 0) + count
    if not total:
        return "no samples"
    lines = [f"{total} samples"]
    for title, table in (("on the stack", inclusive), ("at the top", own)):
        lines.append(f"{title}:")
        for frame, count in sorted(table.items(), key=lambda item: -item[1])[:top]:
            lines.append(f"  {100 * count / total:5.1f}%  {frame}")
    return "\n".join(lines)


def settle(data: Path, server: Server, timeout: float = 30.0) -> None:
    """Wait (bounded) until the spool and the outbox are empty."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline and server.process.poll() is None:
        if not os.listdir(data / "spool" / "new") and not os.listdir(data / "outbox" / "new"):
            return
        time.sleep(0.1)


def check_acks(data: Path, by_ack: dict[str, Mail], result: EndToEnd) -> None:
    """After the timing: each acknowledgement answers its order mail; count the turns run."""
    store_dirs = [data / "delivered" / "new", data / "outbox" / "new"]

    def read(key: str) -> bytes | None:
        for folder in store_dirs:
            try:
                return (folder / key).read_bytes()
            except FileNotFoundError:
                continue
        return None

    for key, mail in by_ack.items():
        raw = read(key)
        if raw is None:
            continue
        head = _headers.parsebytes(raw)
        subject = str(head["Subject"])
        answers = unfold(head["In-Reply-To"]) == mail.message_id
        if not answers or not ("orders received" in subject or "game is over" in subject):
            result.wrong_acks += 1
            if len(result.examples) < 3:
                result.examples.append(f"{key}: In-Reply-To {head['In-Reply-To']}, Subject {subject!r}; "
                                       f"the order mail was {mail.message_id}")
        result.over += "game is over" in subject
        result.rejected += raw.count(b"REJECTED")
        if read(key[:-1] + "2") is not None:  # turn sheets follow the acknowledgement of the second orders
            result.turns += 1
    result.shunted = len(os.listdir(data / "shunt" / "new"))
    if result.wrong_acks:
        result.failures.append(f"{result.wrong_acks} acknowledgements do not answer their order mail, such as\n  "
                               + "\n  ".join(result.examples))


# --------------------------------------------------------------------------
# Start-up


@dataclass
class Startup:
    ehlo_seconds: float | None = None
    """From starting the process until it answered EHLO (mail is then accepted durably)."""
    seconds: float | None = None
    """From starting the process until the first mail was handled: for a data
    directory with games, an order mail's acknowledgement queued."""
    rss_at_ehlo: int = 0
    rss: int = 0
    """VmRSS once the first mail was handled (every game loaded)."""
    rss_later: int = 0
    peak: int = 0
    failure: str = ""


def measure_startup(data: Path, probe: Mail, work: Path, name: str, timeout: float, settle_seconds: float) -> Startup:
    """How long `gm serve` takes to answer EHLO and then to handle ``probe``
    (sent as soon as it answers EHLO); its memory then, and a little later."""
    result = Startup()
    with gm_serve(data, work / f"{name}.log") as server:
        result.ehlo_seconds = server.wait_serving(timeout)
        if result.ehlo_seconds is None:
            result.failure = f"gm serve did not answer EHLO within {timeout:.0f} s:\n{server.tail()}"
            return result
        result.rss_at_ehlo = server.memory().get("VmRSS", 0)
        send_one(server.port, probe)
        if wait_handled(data, probe, server, timeout) is None:
            result.failure = f"gm serve did not handle a first mail within {timeout:.0f} s:\n{server.tail()}"
            return result
        result.seconds = time.perf_counter() - server.started
        result.rss = server.memory().get("VmRSS", 0)
        time.sleep(settle_seconds)  # the master and delivery tasks have a look at everything
        later = server.memory()
        result.rss_later, result.peak = later.get("VmRSS", 0), later.get("VmHWM", 0)
        if server.process.poll() is not None:
            result.failure = f"gm serve exited:\n{server.tail()}"
    return result


def probe_order(data: Path, rng: random.Random) -> Mail:
    """An order mail from player 1 of the last game of a data directory."""
    store = Store(data)
    game = store.game_ids()[-1]
    latest, last_event = latest_mail(store, {game})
    return order_mail(latest[game, 1], last_event[game], rng.sample(CELLS, 2))


# --------------------------------------------------------------------------


def mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB"


def percentile(values: list[float], fraction: float) -> float:
    return values[min(len(values) - 1, int(fraction * len(values)))] if values else 0.0


def report(gm: EndToEnd, before: Ceiling, after: Ceiling, count: int, tag: str) -> None:
    """Print one run of gm beside the ceilings measured just before and just after it."""
    ceiling = (before.rate + after.rate) / 2

    print(f"ceiling (durable Maildir only) before gm{tag}: {before.rate:,.1f} messages/s ({before.seconds:.2f} s)")
    print(f"ceiling (durable Maildir only) after gm{tag}: {after.rate:,.1f} messages/s ({after.seconds:.2f} s)")
    print(f"ceiling messages/s{tag}: {ceiling:,.1f}")
    print(f"gm{tag} ready (games loaded, a first mail handled) {gm.ready_seconds:.2f} s after its start")
    print(f"gm{tag} SMTP accepted (250, spooled): {count / gm.smtp_seconds if gm.smtp_seconds else 0:,.1f} messages/s "
          f"({gm.smtp_seconds:.2f} s)")
    print(f"gm{tag} order mails/s end to end: {gm.rate:,.1f} "
          f"({gm.acknowledged} of {count} acknowledged in {gm.seconds:.2f} s)")
    print(f"acknowledgement latency{tag}: median {percentile(gm.latencies, 0.5):.2f} s, "
          f"95th percentile {percentile(gm.latencies, 0.95):.2f} s, max {percentile(gm.latencies, 1.0):.2f} s")
    print(f"turns run{tag}: {gm.turns}, strikes rejected: {gm.rejected}, mails answered 'game over': {gm.over}, "
          f"mails shunted: {gm.shunted}")
    if gm.cpu:
        print(f"cpu seconds{tag} while handling them: daemon {gm.cpu[0]:.1f}"
              + "".join(f", master {n} {seconds:.1f}" for n, seconds in enumerate(gm.cpu[1:])))
        print(f"of it in the kernel{tag}: daemon {gm.kernel[0]:.1f}"
              + "".join(f", master {n} {seconds:.1f}" for n, seconds in enumerate(gm.kernel[1:])))
        print(f"daemon's own cpu ms per order mail{tag}: {1000 * gm.cpu[0] / count:.2f} "
              f"({1000 * gm.kernel[0] / count:.2f} in the kernel); all of gm {1000 * sum(gm.cpu) / count:.2f}; "
              f"the ceiling server's per mail: {1000 * before.cpu / count:.2f} before, {1000 * after.cpu / count:.2f} "
              f"after")
    if gm.calls is not None:
        per = lambda n: n / count  # noqa: E731
        c = gm.calls
        print(f"strace per order mail (from the first send until spool and outbox were empty; rates above "
              f"are slowed by strace): calls waiting for the disk {per(c.sync):.2f}, files created "
              f"{per(c.created):.2f}, renames {per(c.renames):.2f}, unlinks {per(c.unlinks):.2f}")
        print("strace calls: " + ", ".join(f"{name} {n}" for name, n in sorted(c.by_name.items())))
    if gm.profile is not None and gm.profile.exists():
        print(f"the daemon's own process{tag}, sampled by py-spy ({gm.profile}):")
        print(summarize_profile(gm.profile))
    ratio = gm.rate / ceiling if ceiling else 0.0
    print(f"ratio gm/ceiling{tag}: {ratio:.3f}")
    verdict = "MET" if ratio >= TARGET_RATIO else "NOT MET"
    print(f"target: end to end at least half the ceiling{tag}: {verdict}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=2000, help="order mails to send (default 2000)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent SMTP clients (default 8)")
    parser.add_argument("--games", type=int, default=100, help="games in play for the end-to-end run (default 100)")
    parser.add_argument("--big-games", type=int, default=10_000, help="games at start-up (default 10000)")
    parser.add_argument("--skip-big", action="store_true", help="skip the start-up measurement")
    parser.add_argument("--seed", type=int, default=1, help="seed of the orders' random strikes (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0, help="bound on each phase, seconds (default 600)")
    parser.add_argument("--quick", action="store_true",
                        help="a tiny run for smoke tests (48 mails, 8 games; 20 at start-up)")
    parser.add_argument("--strace", action="store_true",
                        help="count gm serve's fsyncs, files created, renames and unlinks per order mail (slows it)")
    parser.add_argument("--masters", default="1", metavar="N[,N...]",
                        help="gm serve --masters N; several (1,2) measure each in turn on a fresh copy of the games, "
                             "each between two ceilings of the same run (default 1)")
    parser.add_argument("--profile-front", type=Path, metavar="FILE",
                        help="sample the daemon's own process (not its masters) with py-spy into FILE "
                             "(collapsed stacks) and print where its CPU went")
    parser.add_argument("--ceiling-server", metavar="MAILDIR", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ceiling_server:
        return run_ceiling_server(args.ceiling_server)
    if args.quick:
        args.messages, args.games, args.big_games = 48, 8, 20
        args.timeout = min(args.timeout, 60.0)

    clients = max(1, args.clients)
    games = max(args.games, clients, math.ceil(args.messages / (2 * DAILY_CAP)))
    if games != args.games:
        log(f"note: {games} games instead of {args.games}, so that every client has a game of its own "
            f"and no player sends more than gm's daily cap of {DAILY_CAP} mails")
    if args.messages < games:
        parser.error(f"--messages must be at least the number of games ({games})")
    try:
        counts = [int(n) for n in args.masters.split(",")]
    except ValueError:
        parser.error("--masters: whole numbers, such as 2 or 1,2")

    failures: list[str] = []
    print(f"ingest benchmark: seed {args.seed}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, "
          f"gm at {git_head()}, temporary data under {tempfile.gettempdir()}")
    with tempfile.TemporaryDirectory(prefix="gm-bench-ingest-") as temporary:
        work = Path(temporary)

        built = build_games(work / "data", games)
        batches = order_mails(Store(work / "data"), args.messages, clients, random.Random(args.seed))
        count = sum(map(len, batches))
        print(f"setup: {games} games in play, built through GameMaster in {built.describe()}")
        print(f"order mails: {count} ({count // games} a game, one or two strikes each), {len(batches)} clients, "
              f"one SMTP connection each, {statistics.mean(len(m.raw) for b in batches for m in b):.0f} bytes a mail")

        before = measure_ceiling(batches, work, "ceiling-before", args.timeout)
        failures += before.failures
        for number, masters in enumerate(counts):
            data = work / "data"  # one count: the games as built; several: a fresh copy for each
            if len(counts) > 1:
                data = work / f"data-{number}"
                subprocess.run(["cp", "-a", str(work / "data"), str(data)], check=True, timeout=args.timeout)
            profile = args.profile_front
            if profile is not None and len(counts) > 1:
                profile = profile.with_name(f"{profile.stem}-masters-{masters}{profile.suffix}")
            gm = measure_gm(data, batches, work, args.timeout, args.strace, masters, profile)
            after = measure_ceiling(batches, work, f"ceiling-after-{number}", args.timeout)
            failures += gm.failures + after.failures
            report(gm, before, after, count, f" [masters {masters}]" if len(counts) > 1 else "")
            before = after

        if not args.skip_big:
            settle_seconds = 0.5 if args.quick else 2.0
            empty = measure_startup(work / "empty", stranger_mail(), work, "serve-empty", args.timeout, settle_seconds)
            if args.big_games >= CACHE_FROM:
                big_source, big_built, cached = cached_games(args.big_games)
                copy_start = time.perf_counter()
                subprocess.run(["cp", "-al", str(big_source), str(work / "big")], check=True, timeout=args.timeout)
                copy_seconds = time.perf_counter() - copy_start
                where = (f"{'cached' if cached else 'built now'} in {big_source.parent}, "
                         f"hard-linked in {copy_seconds:.1f} s")
            else:
                big_built = build_games(work / "big", args.big_games)
                where = "built now"
            probe = probe_order(work / "big", random.Random(args.seed))
            big = measure_startup(work / "big", probe, work, "serve-big", args.timeout, settle_seconds)
            failures += [s.failure for s in (empty, big) if s.failure]
            print(f"start-up data: {args.big_games:,} games in play ({where}); "
                  f"building took {big_built.describe()}")
            print(f"start-up empty data dir: EHLO after {empty.ehlo_seconds or 0:.2f} s, a first mail handled "
                  f"after {empty.seconds or 0:.2f} s, VmRSS {mib(empty.rss)}")
            print(f"start-up seconds to EHLO: {big.ehlo_seconds or 0:.2f} (VmRSS then {mib(big.rss_at_ehlo)})")
            print(f"start-up seconds to serving: {big.seconds or 0:.2f} "
                  f"(an order mail sent at EHLO, its acknowledgement queued)")
            print(f"start-up resident memory MiB: {big.rss / (1 << 20):,.0f} "
                  f"(then; {settle_seconds:g} s later {mib(big.rss_later)}, peak VmHWM {mib(big.peak)})")
            worst = max(big.rss, big.rss_later, big.peak)
            answered = "MET" if big.ehlo_seconds is not None and big.ehlo_seconds < SERVE_TARGET_SECONDS else "NOT MET"
            fast = "MET" if big.seconds is not None and big.seconds < SERVE_TARGET_SECONDS else "NOT MET"
            small = "MET" if big.seconds is not None and worst < MEMORY_TARGET_BYTES else "NOT MET"
            print(f"target: EHLO within {SERVE_TARGET_SECONDS:.0f} s with {args.big_games:,} games: {answered}")
            print(f"target: serving within {SERVE_TARGET_SECONDS:.0f} s with {args.big_games:,} games: {fast}")
            print(f"target: resident memory under 1 GiB with {args.big_games:,} games: {small}")

    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
