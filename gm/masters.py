"""Several master processes by game (``gm serve --masters N``).

The master's one thread is what limits how much mail one daemon answers
(bench/README: rendering, reading the mail, storage and rules, all under one
GIL with the SMTP sessions). Games are independent, so with ``--masters N``
the daemon (the *parent*: the listeners, the spool's group commit, the
delivery) starts N master processes on the same data directory, each
running a share of the games (`gm.pbem.data.store.Part`) and handling only
the spooled mail of its own games (`gm.pbem.master.routing`); the first, the
*front*, also takes everything that names no game, as the front shard does,
and reaches the other masters' games through what they wrote to the disk
(`gm.pbem.state.everywhere`), so that the masters answer as one master
would (docs/operations.md, "Several master processes").

What the processes share, and why they cannot collide:

- ``spool/``: the parent adds (its group commit), each master reads and
  removes only the mail routed to it; a master's own events (deadlines,
  the robot's moves, creation requests) are routed to their game's master.
- ``outbox/`` and ``sent/``: a master queues under keys of its own games
  (``GAME.ARCHIVE-KEY``) or, the front, of no game; the delivery (parent)
  sends. A master publishes its batch holding the *publishing* lock shared,
  the delivery lists the outbox holding it exclusive (`gm.locks`), so it
  never sends from a batch that is not durable.
- ``games/GAME/`` and ``snapshots/GAME``: written by the game's master
  only; read by the others (a vacation, the games list, a bounce: what
  they do there they spool as a GM event for the game's master).
- ``limits/``: every master's, one count per address and day: each
  appends its counts to the day's one file, each count's place in it
  being its order (`gm.pbem.intake.limits`), so no master waits for
  another.
- ``commit``, ``attempts/``, the start-up index (``snapshots/.index``):
  the first master's; master K has its own under ``masters/K/``.
- ``shunt/``: each adds under the spool key of a mail of its own; each
  retries the faults of its own games (the front those of no game). The
  front's daily summary for the owner finds another master's deadline
  event there under the event's one key.
- ``settings/`` (vacations too), ``names/``, ``requests/``, ``seeks/``,
  ``tournaments/``: written by the front alone (the mail that changes them
  names no game); the other masters only read settings, whose records are
  each published whole.
- ``challenges/`` and ``handled/``: the front's challenges, confirmations,
  seeks and digests' markers; a game's master adds its seats' address
  moves (under a new token each): no name is written by two.
- new game ids: `gm new` reserves any (exclusively, by ``mkdir``), the front
  only its own (challenges, seeks, tournaments), so their games stay with it.

Every master holds the *generation* lock shared for its life, and a daemon
takes it exclusive before it touches the data directory: a daemon killed
with SIGKILL leaves its masters running until they notice (their stdin
closes) and finish their step, and the next one waits for them. A master that
dies alone (SIGKILL, the OOM killer) is started again by the parent, after
the parent completed its batch if its commit was cut short; a master that
stops itself (a batch that cannot be made durable, `EXIT_COMMIT`) stops the
daemon with its status, as the master task's failure does in one process.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import time, timedelta
from pathlib import Path

from .locks import hold
from .logs import event
from .logs import setup as setup_logs
from .pbem.answers.away import BANK
from .pbem.data.crashpoints import CRASH_MASTER, crashpoint
from .pbem.data.store import MASTERS, Part, Store, shard_of
from .pbem.intake.limits import Limits
from .pbem.master.digests import DIGEST_TIME
from .pbem.master.game_master import GameMaster, utc_now
from .pbem.writing.mailer import Identity
from .process import EXIT_COMMIT, EXIT_MASTER
from .storage.batches import CommitError
from .storage.removals import removed_later

log = logging.getLogger("gm")

SPOOL_POLL_SECONDS = 1.0
"""How often a master looks at the spool when nothing woke it."""
GENERATION = "generation.lock"
"""The lock every master of a daemon holds shared (in ``DATA/masters/``)."""
STOP_WAIT = 30.0
"""Seconds a stopping daemon waits for its masters to finish their step and
write their snapshots before it kills them (safe: as a crash)."""
WAKE, OUTBOX = b"w", b"o"
"""What the parent writes to a master (mail was spooled), and a master to
the parent (its pass ended: its replies are in the outbox)."""

@dataclass(frozen=True)
class Spec:
    """What a master process is told at its start (pickled on its stdin)."""

    data: str
    index: int
    count: int
    identity: Identity
    limits: Limits
    catch_up: timedelta
    owner: str | None
    web_url: str | None
    vacation_bank: timedelta = BANK
    digest_time: time = DIGEST_TIME
    log_level: int = logging.INFO


def wait_for_earlier(root: Path) -> None:
    """Wait until no master process of an earlier daemon runs on ``root``
    (the generation lock, taken exclusive and let go): call before anything
    reads or writes the data directory. Only a directory that had several
    masters can have any."""
    folder = root / MASTERS
    if not folder.is_dir():
        return
    os.close(hold(folder / GENERATION, exclusive=True))


# The master process


def master_main() -> int:
    """``python -m gm.masters``: one master process; its `Spec` comes on stdin."""
    spec: Spec = pickle.load(sys.stdin.buffer)
    setup_logs(spec.log_level)
    root = Path(spec.data)
    (root / MASTERS).mkdir(exist_ok=True)
    hold(root / MASTERS / GENERATION, exclusive=False)  # for the life of the process
    shard = shard_of(root)
    store = Store(root, part=Part(spec.index, spec.count, shard.count if shard else 1))
    store.finish_interrupted(everyone=False)
    master = GameMaster(store, spec.identity, utc_now, spec.limits, spec.catch_up, spec.owner,
                        web_url=spec.web_url, vacation_bank=spec.vacation_bank, digest_time=spec.digest_time)
    wake, stopping = threading.Event(), threading.Event()

    def stop(*_: object) -> None:
        stopping.set()
        wake.set()

    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, stop)
    threading.Thread(target=_listen, args=(wake, stop), name="parent", daemon=True).start()
    master.load(write_index=False)  # the start-up index waits for the first idle moment
    crashpoint("master-loaded")
    while not stopping.is_set():
        wake.clear()
        try:
            now = master.clock()
            master.due(now)
            master.process_spool()
            if master.front:
                master.owner.daily_summary(now)
        except CommitError as error:
            event("stopping: a batch could not be made durable", level=logging.CRITICAL,
                  reason=str(error.__cause__ or error), master=spec.index)
            return EXIT_COMMIT
        except Exception:  # a bug must not stop the master; the message stays spooled
            log.exception("handling the spool failed")
        _tell_parent()
        if master.idle_work and not wake.is_set():
            try:
                master.idle()  # the start-up index, or one game left pending by an upgrade; then look again
            except Exception:  # a bug must not stop the master; a game loads when its mail comes
                log.exception("idle work failed")
            continue
        timeout = SPOOL_POLL_SECONDS  # `gm new` spools from another process
        wakeup = master.next_wakeup()
        if wakeup is not None:
            timeout = max(0.05, min(timeout, (wakeup - master.clock()).total_seconds()))
        wake.wait(timeout)
    master.save_for_next_start()  # the next start reads these instead of replaying the games' history
    removed_later(STOP_WAIT / 3)  # the unlinks its batches left to their thread (`gm.storage.removals`)
    return 0


def _listen(wake: threading.Event, stop: Callable[[], None]) -> None:
    """Wake the master whenever the parent says so; stop it when the parent
    is gone (its end of the pipe closed: it died, or it is stopping)."""
    while True:
        try:
            said = os.read(sys.stdin.fileno(), 64)
        except OSError:
            said = b""
        if not said:
            stop()
            return
        wake.set()


def _tell_parent() -> None:
    with contextlib.suppress(OSError):  # the parent is gone: `_listen` stops this master
        os.write(sys.stdout.fileno(), OUTBOX)
    crashpoint("master-told")


# The parent's side


class Masters:
    """The daemon's master processes: started, woken, started again when
    one dies alone, stopped with the daemon."""

    def __init__(self, spec: Spec, store: Store, outbox: Callable[[], None], fail: Callable[[int], None]):
        self.spec = spec
        self.store = store
        self.outbox = outbox
        self.fail = fail
        self.processes: dict[int, asyncio.subprocess.Process] = {}
        self.tasks: list[asyncio.Task[None]] = []
        self.stopping = False
        self.restarts = 0

    async def start(self) -> None:
        for index in range(self.spec.count):
            await self._start(index, first=True)

    async def _start(self, index: int, first: bool) -> None:
        env = dict(os.environ)
        crash_in = env.pop(CRASH_MASTER, None)
        if not first or (crash_in is not None and crash_in != str(index)):
            env.pop("GM_CRASH_AT", None)  # a crash point fires once a test; in the master it names
        flags = ["-P"] if sys.flags.safe_path else []
        process = await asyncio.create_subprocess_exec(
            sys.executable, *flags, "-m", "gm.masters", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, env=env)
        assert process.stdin is not None
        process.stdin.write(pickle.dumps(replace(self.spec, index=index)))
        self.processes[index] = process
        self.tasks.append(asyncio.create_task(self._watch(index, process), name=f"master-{index}"))

    def wake(self) -> None:
        """Mail was spooled: every master looks (each takes only its own)."""
        for process in self.processes.values():
            if process.stdin is not None and not process.stdin.is_closing():
                process.stdin.write(WAKE)

    async def _watch(self, index: int, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        while said := await process.stdout.read(64):
            if OUTBOX in said:
                self.outbox()
        status = await process.wait()
        if self.stopping:
            return
        if status >= 0:  # it stopped itself: a failed commit, or its games could not be loaded
            log.critical("stopping: master %d of %d stopped with status %d; mail stays spooled", index,
                         self.spec.count, status)
            self.fail(status or EXIT_MASTER)
            return
        self.restarts += 1
        event("master restarted", level=logging.WARNING, master=index, signal=signal.Signals(-status).name)
        done = await asyncio.get_running_loop().run_in_executor(None, self._finish, index)
        if done:
            event("batch completed", files=done, note="its commit was cut short by a crash", master=index)
        crashpoint("master-restarting")
        if not self.stopping:
            await self._start(index, first=False)

    def _finish(self, index: int) -> int:
        """Complete the batch master ``index`` was publishing when it died,
        if it was, before the delivery looks at the outbox again (holding
        the publishing lock, in a worker thread: another master may hold it
        long, while a full disk keeps its batch from being published)."""
        with self.store.publishing:
            return Store(self.store.root, part=Part(index, self.spec.count)).finish_interrupted(everyone=False)

    async def stop(self) -> None:
        """Tell every master to stop after its step (SIGTERM), wait for them
        (killed after `STOP_WAIT` seconds), and for the tasks watching them."""
        self.stopping = True
        for process in self.processes.values():
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signal.SIGTERM)
        for process in self.processes.values():
            try:
                await asyncio.wait_for(process.wait(), STOP_WAIT)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()
        await asyncio.gather(*self.tasks, return_exceptions=True)


if __name__ == "__main__":
    sys.exit(master_main())
