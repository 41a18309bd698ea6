"""The daemon: mail in over SMTP/LMTP (and IMAP), games run, mail out.

Three kinds of task share one asyncio loop:

- listeners (aiosmtpd): a `SpoolHandler` writes each message durably into
  the spool and only then answers 250; messages that arrive together are
  made durable together (`SpoolCommitter`, a group commit);
- the master task: wakes when mail is spooled or a deadline falls due, and
  lets the `GameMaster` handle the spool, in batches made durable together,
  in a worker thread (the file system work blocks); with ``--masters N``,
  N master processes instead, each running a share of the games (`gm.masters`);
- the delivery task: sends the outbox through the relay, or into the local
  ``delivered/`` Maildir when no relay is configured (`gm.pbem.serving.delivery`).

The clock is injected, so tests drive deadlines without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import signal
import sys
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

from .config import CATCH_UP, DEFAULT_SMTP, MAX_CONNECTIONS, MAX_MESSAGE_BYTES, Config
from .kernel.addresses import mail_address
from .logs import event
from .masters import SPOOL_POLL_SECONDS, Masters, Spec, wait_for_earlier
from .pbem.archive.replay import prepend_header, without_gm_headers
from .pbem.data.crashpoints import crashpoint
from .pbem.data.store import Store, spool_key
from .pbem.intake.arrival import arrival_time
from .pbem.master.game_master import GameMaster, utc_now
from .pbem.serving.delivery import Deliverer
from .pbem.serving.imap import ImapPoller
from .pbem.serving.listener import ConnectionGate, GuardedLMTP, GuardedSMTP
from .pbem.writing.mailer import Identity
from .process import EXIT_COMMIT, EXIT_MASTER, STOP_SIGNALS, StartError
from .storage.batches import CommitError, Staged, publish
from .storage.removals import removed_later

__all__ = ["CATCH_UP", "DEFAULT_SMTP", "EXIT_COMMIT", "EXIT_MASTER", "MAX_CONNECTIONS", "MAX_MESSAGE_BYTES",
           "SPOOL_POLL_SECONDS", "Config", "Daemon", "SpoolCommitter", "SpoolHandler", "StartError", "serve"]

log = logging.getLogger("gm")

SHUTDOWN_GRACE = 10.0
"""Seconds a stopping daemon waits for worker threads other than the master's
step (an IMAP IDLE, a relay conversation) before it leaves them unfinished."""
WORKER_PREFIX = "gm-worker"
STOP_REMOVALS = 10.0
"""Seconds a stopping daemon waits for the unlinks its master's batches left
to their thread (`gm.storage.removals`); any left are deleted at the next start."""


class SpoolCommitter:
    """Group commit of the spool, shared by the listeners.

    Each DATA handler writes its message into ``spool/tmp/`` and fsyncs it
    itself (in a worker thread, at once: those writes and fsyncs run side
    by side, and the file system joins the fsyncs into one journal
    commit; see `Store.syncer` for why not syncfs here), then waits here.
    One commit at a time renames every message waiting into
    ``spool/new/`` and makes that durable with one fsync of the folder
    (`gm.storage.batches.publish`), then wakes their handlers, which answer 250.
    Messages that arrive during a commit form the next: the more clients
    wait, the more each commit carries, so a busy server fsyncs the spool
    folder once per group instead of once per message. No message is
    answered before the commit that published it is durable; a commit
    that fails answers each of its messages with the error (4xx), as a
    failed write of one message did."""

    MAX_MESSAGES = 256
    """Messages published by one commit at most."""

    def __init__(self, store: Store):
        self.store = store
        self.syncer = store.syncer("spool")
        self._waiting: list[tuple[Staged, asyncio.Future[None]]] = []
        self._running: asyncio.Task[None] | None = None

    async def add(self, raw: bytes, key: str) -> None:
        """Spool ``raw`` under ``key``; returns once it is durable."""
        loop = asyncio.get_running_loop()
        staged = await loop.run_in_executor(None, self.store.spool.stage, raw, key, self.syncer)
        done: asyncio.Future[None] = loop.create_future()
        self._waiting.append((staged, done))
        if self._running is None or self._running.done():
            self._running = loop.create_task(self._commit_waiting())
        await done

    async def _commit_waiting(self) -> None:
        loop = asyncio.get_running_loop()
        while self._waiting:
            group, self._waiting = self._waiting[:self.MAX_MESSAGES], self._waiting[self.MAX_MESSAGES:]
            try:
                await loop.run_in_executor(None, publish, [s for s, _ in group], self.syncer, "spool")
            except Exception as error:
                for _, done in group:
                    if not done.done():
                        done.set_exception(error)
            else:
                for _, done in group:
                    if not done.done():
                        done.set_result(None)


class SpoolHandler:
    """The aiosmtpd handler: accept mail for the GM, spool it, then say 250.

    Only recipients at the GM's own address (``gm@domain`` or
    ``gm+anything@domain``, in any case) are accepted, and they are recorded
    in lower case: the GM's tags and tokens are lower case, and relays may
    upper-case a whole address. The envelope is kept as ``Return-Path`` and
    ``X-GM-Envelope-To`` headers on top of the message, as a mail delivery
    agent would (aiosmtpd refuses an envelope address holding CR or LF, so
    none can start a header of its own there; a test keeps it so).

    A spool write that fails (a full disk, no file handles) is a temporary
    failure: the sender is told 452 or 451 and tries again later, and the
    reply names no path; the error itself goes to the log."""

    def __init__(self, store: Store, identity: Identity, clock: Callable[[], datetime], origin: str,
                 spooled: Callable[[], None] = lambda: None, committer: SpoolCommitter | None = None):
        self.store = store
        self.committer = committer or SpoolCommitter(store)
        """Shared by every listener of a daemon, so that their mail is committed together."""
        self.identity = identity
        self.clock = clock
        self.origin = origin
        self.trusted_received = 1
        """See `Config.trusted_received`."""
        self.spooled = spooled

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          options: list[str]) -> str:
        local, _, domain = address.rpartition("@")
        if domain.lower() != self.identity.domain.lower() or local.split("+")[0].lower() != self.identity.local.lower():
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address.lower())
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        try:
            raw = without_gm_headers(envelope.original_content or b"")  # only gm writes X-GM-* fields
            for rcpt in reversed(envelope.rcpt_tos):
                raw = prepend_header(raw, "X-GM-Envelope-To", f"<{rcpt}>")
            raw = prepend_header(raw, "Return-Path", f"<{envelope.mail_from or ''}>")
            arrived = arrival_time(envelope.original_content or b"", self.origin, self.clock(), self.trusted_received)
            key = spool_key(arrived, self.origin)
            await self.committer.add(raw, key)
        except (OSError, MemoryError, CommitError) as error:
            log.error("%s: could not spool a message from <%s>: %s: %s", self.origin, envelope.mail_from,
                      type(error).__name__, error)
            return self._each_recipient(envelope, _temporary_failure(error))
        crashpoint("after-spool")
        self.spooled()
        return self._each_recipient(envelope, "250 2.0.0 Message accepted")

    async def handle_exception(self, error: Exception) -> str:
        """A bug while handling a command: logged; the sender is asked to try
        again later and told nothing of gm's insides (aiosmtpd would send
        the error's text)."""
        log.error("%s: error in the SMTP session", self.origin, exc_info=error)
        return _TEMPORARY

    def _each_recipient(self, envelope: Envelope, status: str) -> str:
        """LMTP answers DATA once for each recipient (RFC 2033 4.2)."""
        if self.origin == "lmtp":
            return "\r\n".join(status for _ in envelope.rcpt_tos)
        return status


_TEMPORARY = "451 4.3.0 Temporary local problem, please try again later"


def _temporary_failure(error: BaseException) -> str:
    if isinstance(error, CommitError) and error.__cause__ is not None:
        error = error.__cause__
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return "452 4.3.1 Insufficient system storage"
    return _TEMPORARY


class Daemon:
    """A running gm: listeners, the master task and the delivery task."""

    def __init__(self, config: Config, clock: Callable[[], datetime] = utc_now):
        self.config = config
        self.clock = clock
        self.store = Store(config.data)
        wait_for_earlier(self.store.root)  # masters left running by a daemon that was killed
        finished = self.store.finish_interrupted()  # before anything reads the data directory
        if finished:
            event("batch completed", files=finished, note="its commit was cut short by a crash")
        self.store.drop_gone()  # what a process killed before its remover caught up left
        self.masters: Masters | None = None
        """The master processes, with ``--masters`` above 1; else `master` runs the games here."""
        if config.masters > 1:
            self.store.share_publishing(exclusive=True)
            spec = Spec(config.data, 0, config.masters, config.identity, config.limits, config.catch_up_time(),
                        config.owner, config.web_url, config.vacation_bank, config.digest_time,
                        logging.getLogger().level)
            self.masters = Masters(spec, self.store, self._outbox_changed, self._fail)
        else:
            self.master = GameMaster(self.store, config.identity, clock, config.limits, config.catch_up_time(),
                                     config.owner, web_url=config.web_url, vacation_bank=config.vacation_bank,
                                     digest_time=config.digest_time)
        self.deliverer = Deliverer(self.store, config.relay, config.identity)
        self._wake = asyncio.Event()
        self._waking = False
        """A wake-up of the master processes is due at the loop's next turn (`wake`)."""
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop the daemon was started in."""
        self._outbox = asyncio.Event()
        self._lock = asyncio.Lock()
        self.servers: list[asyncio.base_events.Server] = []
        self.tasks: list[asyncio.Task] = []
        self.bound: dict[str, tuple[str, int]] = {}
        self.web: Any = None
        """The web archive's runner (`gm.web.site.start`), when it is served."""
        self.pollers: list = []
        """The IMAP pollers, told to stop waiting when the daemon stops."""
        self.failed = asyncio.Event()
        """Set when the master cannot go on (a batch could not be made
        durable, or its task died): the daemon must stop, and `serve` exits
        with `exit_status`."""
        self.exit_status = 0

    def wake(self) -> None:
        """Something was spooled or queued: let the tasks (or the master processes) look.

        Called by every DATA handler whose mail was spooled, and those of one
        spool commit all resume in the same turn of the loop: the master
        processes are woken once for them, at the next turn (one write
        to each, where each mail would cost one, and one wake-up). The
        IMAP poller calls this from its worker thread, hence the loop's
        thread-safe call."""
        self._wake.set()
        if self.masters is not None and self._loop is not None and not self._waking:
            self._waking = True
            self._loop.call_soon_threadsafe(self._wake_masters)

    def _wake_masters(self) -> None:
        self._waking = False
        assert self.masters is not None
        self.masters.wake()

    def _outbox_changed(self) -> None:
        self._outbox.set()

    async def start(self, background: bool = True) -> None:
        """Load the games and open the listeners; with ``background`` (the
        default) also start the tasks that handle the spool and the outbox
        by themselves. Tests pass False and call `step` instead.

        Raises StartError when a listener cannot be opened (the address is
        in use, or not this machine's) or the IMAP URL is wrong."""
        loop = self._loop = asyncio.get_running_loop()
        self._sessions: weakref.WeakSet[SMTP] = weakref.WeakSet()
        # Listening needs only the spool: mail is accepted (durably) at once,
        # and handled once the games are loaded.
        if self.masters is not None:  # each master process loads its own games
            if not background:
                raise ValueError("a daemon with several master processes runs in the background")
            self._loaded: asyncio.Future[None] = loop.create_future()
            self._loaded.set_result(None)
        else:
            # Serving in the background, the start-up index waits for the first idle moment.
            self._loaded = asyncio.ensure_future(loop.run_in_executor(None, self.master.load, not background))
        if not background:
            await self._loaded
        gate = ConnectionGate(self.config.max_connections)
        committer = SpoolCommitter(self.store)
        listeners = (("smtp", self.config.smtp, GuardedSMTP), ("lmtp", self.config.lmtp, GuardedLMTP))
        for name, address, protocol in listeners:
            if address is None:
                continue
            handler = SpoolHandler(self.store, self.config.identity, self.clock, name, self.wake, committer)
            handler.trusted_received = self.config.trusted_received

            def session(h: SpoolHandler = handler, p: Callable[..., SMTP] = protocol) -> SMTP:
                made = p(h, gate=gate, data_size_limit=self.config.max_message_bytes, enable_SMTPUTF8=True,
                         hostname=self.config.identity.domain)
                self._sessions.add(made)
                return made

            try:
                server = await loop.create_server(session, host=address[0], port=address[1])
            except OSError as error:
                reason = os.strerror(error.errno).lower() if error.errno else str(error)
                raise StartError(f"cannot listen for {name.upper()} on {address[0]}:{address[1]}: {reason}") from None
            self.servers.append(server)
            self.bound[name] = server.sockets[0].getsockname()[:2]
            event("listening", proto=name, addr="{}:{}".format(*self.bound[name]))
        if self.config.http:
            from .web.site import start_or_fail  # here: aiohttp (~15 MiB, ~0.4 s) only if the web archive is on

            self.web = await start_or_fail(self.config.data, self.config.http, self.config.identity)
            self.bound["http"] = self.web[1]
        if self.config.imap:
            try:
                poller = ImapPoller(self.store, self.config, self.clock, self.wake)
            except ValueError as error:
                raise StartError(f"imap: {error}") from None
            self.pollers.append(poller)
            self.tasks.append(asyncio.create_task(poller.run(), name="imap"))
        if not background:
            return
        if self.masters is not None:
            await self.masters.start()
        else:
            master = asyncio.create_task(self._master_loop(), name="master")
            master.add_done_callback(self._master_ended)
            self.tasks.append(master)
        self.tasks.append(asyncio.create_task(self.deliverer.run(self.clock, self._pause_delivery), name="delivery"))
        self.wake()

    async def _pause_delivery(self) -> None:
        self._outbox.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._outbox.wait(), 1.0)

    async def step(self) -> None:
        """Handle everything due now: deadlines and the spool; then let the
        delivery task look at the outbox."""
        await self._loaded
        async with self._lock:
            await asyncio.get_running_loop().run_in_executor(None, self._master_step)
        self._outbox.set()

    def _master_step(self) -> None:
        self.master.due(self.clock())
        self.master.process_spool()
        self.master.owner.daily_summary(self.clock())

    async def _master_loop(self) -> None:
        await self._loaded
        while True:
            self._wake.clear()
            try:
                await self.step()
            except CommitError as error:
                # The games in memory are ahead of the disk: going on could
                # archive, send or drop mail against a record that is not
                # there. Stop; the next start rebuilds them from the disk.
                event("stopping: a batch could not be made durable", level=logging.CRITICAL,
                      reason=str(error.__cause__ or error))
                self._fail(EXIT_COMMIT)
                return
            except Exception:  # a bug must not stop the daemon; the message stays spooled
                log.exception("handling the spool failed")
            if self.master.idle_work and not self._wake.is_set():
                await self._idle()  # the start-up index, or one game left pending by an upgrade; then look again
                continue
            wakeup = self.master.next_wakeup()
            timeout = SPOOL_POLL_SECONDS  # `gm new` spools from another process
            if wakeup is not None:
                timeout = max(0.05, min(timeout, (wakeup - self.clock()).total_seconds()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout)

    async def _idle(self) -> None:
        """Do one piece of the master's idle work (the start-up index, or the
        most urgent game left pending by an upgrade:
        `gm.pbem.master.keeping.Keeping.idle`), as the master's step does
        its work: in a worker thread, holding the master's lock."""
        async with self._lock:
            try:
                await asyncio.get_running_loop().run_in_executor(None, self.master.idle)
            except Exception:  # a bug must not stop the daemon; a game loads when its mail comes
                log.exception("idle work failed")

    def _master_ended(self, task: asyncio.Task[None]) -> None:
        """The master task ended: cancelled by `stop`, or after a failed
        commit (both said already); anything else is its death, logged with
        its cause, and the daemon stops rather than take mail it would
        never handle."""
        if task.cancelled() or task.exception() is None:
            return
        error = task.exception()
        log.critical("stopping: the master task died (%s: %s); mail stays spooled", type(error).__name__, error,
                     exc_info=error)
        self._fail(EXIT_MASTER)

    def _fail(self, status: int) -> None:
        if not self.failed.is_set():
            self.exit_status = status
        self.failed.set()

    async def stop(self) -> None:
        """Stop safely: take no more mail, let the master's step in progress
        finish, then cancel the tasks.

        Listeners close first, and open sessions are cut: a message that got
        no 250 yet is retried by its sender, and one whose spool write had
        begun is applied once (by its Message-ID) if it comes again. The
        master's step runs in a worker thread that cannot be interrupted, so
        it is waited for; what is left in the spool and outbox is handled on
        the next start, as after a crash."""
        for server in self.servers:
            server.close()
        if self.web is not None:
            await self.web[0].cleanup()
            self.web = None
        for poller in self.pollers:
            poller.stopping.set()
        for session in list(getattr(self, "_sessions", ())):
            if session.transport is not None:
                session.transport.close()
        for server in self.servers:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(server.wait_closed(), 5.0)
        if self.masters is not None:  # each finishes its step and writes its snapshots
            await self.masters.stop()
        async with self._lock:  # held by `step` while its worker thread runs
            # Cancelled again until they end: before Python 3.12 `wait_for`
            # drops a cancellation that comes as its wait ends (gh-86296),
            # and the task would go round its loop once more.
            pending = {task for task in self.tasks if not task.done()}
            while pending:
                for task in pending:
                    task.cancel()
                _, pending = await asyncio.wait(pending, timeout=0.1)
            await asyncio.gather(*self.tasks, return_exceptions=True)
            loaded = getattr(self, "_loaded", None)
            if (self.masters is None and loaded is not None and loaded.done() and not loaded.cancelled()
                    and loaded.exception() is None):
                # The next start reads these instead of replaying the games' history and listing their archives.
                await asyncio.get_running_loop().run_in_executor(None, self.master.save_for_next_start)
            await asyncio.get_running_loop().run_in_executor(None, removed_later, STOP_REMOVALS)


def _workers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(WORKER_PREFIX) and t.is_alive()]


async def serve(config: Config, grace: float = SHUTDOWN_GRACE) -> str:
    """Run the daemon until SIGTERM or SIGINT, stop it cleanly, log one line
    (``stopped signal=SIGTERM``) and return the signal's name.

    This is a process's main loop: it owns the signal handlers and the
    loop's worker threads. After `Daemon.stop`, workers still busy after
    ``grace`` seconds (an IMAP IDLE, a slow relay) are abandoned by ending
    the process at once with status 0: everything they do is safe to cut
    short, as a crash is. Raises StartError when the daemon cannot start."""
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(thread_name_prefix=WORKER_PREFIX)
    loop.set_default_executor(executor)
    stopping = asyncio.Event()
    received: list[str] = []

    def on_signal(number: signal.Signals) -> None:
        if received:
            event("still stopping", level=logging.WARNING, signal=number.name)
        received.append(number.name)
        stopping.set()

    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, on_signal, number)
    try:
        if config.owner and mail_address(config.owner) is None:  # else the owner's mail would be ignored unsaid
            raise StartError(f"owner: {config.owner!r} is not a mail address")
        if config.web_url and not config.web_url.startswith("https://"):  # RFC 8058: one-click wants https
            raise StartError(f"web-url: {config.web_url!r} is no https:// address")
        fresh = not (Path(config.data) / "secret.key").exists()
        try:
            daemon = Daemon(config)
        except OSError as error:
            where = f" ({error.filename})" if error.filename else ""
            raise StartError(f"cannot use the data directory {config.data}{where}: {error.strerror or error}") from None
        try:
            await daemon.start()
            if fresh:
                event("new data directory", path=config.data, note="made with a new server key")
            waits = [asyncio.ensure_future(stopping.wait()), asyncio.ensure_future(daemon.failed.wait())]
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for wait in waits:
                wait.cancel()
            if not received:  # stopped by a failed master, not by a signal
                received.append("none")
        finally:
            await daemon.stop()
        executor.shutdown(wait=False, cancel_futures=True)
        waited = loop.time() + grace
        while _workers() and loop.time() < waited:
            await asyncio.sleep(0.05)
        busy = len(_workers())
        event("stopped", signal=received[0], abandoned=busy or None)
        status = daemon.exit_status
        if busy:
            logging.shutdown()
            sys.stdout.flush()
            os._exit(status)
        if status:
            raise SystemExit(status)
        return received[0]
    finally:
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)
