"""Sending the outbox: through a relay, or into a local Maildir.

A message leaves the outbox only once it is delivered: the relay said 250,
or the local Maildir holds it durably. Then its outbox file is renamed into
``sent/`` and emptied (`Store.mark_sent`): one step takes it out of the
outbox and records that it went, so that nothing re-queues it, and no file
is made for the record. While the relay refuses or is down, each message
waits and is retried with exponential backoff.

Each pass over the outbox (in steps of `LOCAL_BATCH`) is one group commit
for local delivery: the deliveries are written as one `gm.storage.batches.Batch`
(one data barrier, the renames into ``delivered/new/``, one barrier for the
names), then marked sent, and ``sent/`` is made durable once for all of
them. Through a relay each message is marked durably as soon as the relay
took it. The outbox is listed under
`Store.publishing`, so a message is never sent before the master's batch
that queued it is durable.

Local delivery is exactly once: the Maildir file is named by the outbox key,
so a message delivered but not yet marked (a crash between) is found there
and only marked. Relay delivery is exactly once per Message-ID at the
receiver, and at least once on the wire: if gm is killed after the relay's
250 and before the mark is on disk, the message goes again, with the same
Message-ID.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from ...logs import event as log_event
from ...mail.reading import addresses, parse_message
from ...storage.batches import Batch, CommitError
from ...storage.maildirs import unix_lines
from ..archive.events import event_message
from ..data.crashpoints import crashpoint
from ..data.store import Store, spool_key
from ..writing.mailer import Identity

log = logging.getLogger("gm")


@dataclass(frozen=True)
class Relay:
    """An SMTP relay (smarthost) for outgoing mail."""

    host: str
    port: int = 25
    starttls: bool = False
    user: str | None = None
    password: str | None = None
    timeout: float = 30.0
    verify_tls: bool = True


LOCAL_BATCH = 256
"""Local deliveries made durable together at most."""
RELAY_REFUSED = "the GM's mail server could not deliver to their address (it was refused for good)"
"""What the opponent is told: never the relay's text, which names the address."""


def _permanent(error: smtplib.SMTPException) -> bool:
    """Whether the relay refused this message's recipient for good: a 5xx
    reply to RCPT for every recipient. A 5xx to the login, to MAIL FROM or
    to DATA says the relay (or gm's account on it) is wrong, not the
    address: that is retried with backoff like any other failure, and the
    log says why, so that fixing the relay loses no mail."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return bool(error.recipients) and all(code >= 500 for code, _ in error.recipients.values())
    return False


class Deliverer:
    """Empties the outbox, with retries and backoff while the relay refuses."""

    def __init__(self, store: Store, relay: Relay | None, identity: Identity,
                 first_retry: timedelta = timedelta(seconds=30), longest_wait: timedelta = timedelta(hours=1)):
        self.store = store
        self.relay = relay
        self.identity = identity
        self.first_retry = first_retry
        self.longest_wait = longest_wait
        self.failures: dict[str, tuple[int, datetime]] = {}
        """Outbox key -> (failed attempts, time of the next try)."""

    async def deliver_due(self, now: datetime) -> int:
        """Try every outbox message that is not waiting out a backoff."""
        loop = asyncio.get_running_loop()
        due = []
        for key in await loop.run_in_executor(None, self._outbox_keys):
            if key in self.store.sent:  # marked by an older gm, which removed it from the outbox after
                await loop.run_in_executor(None, self.store.outbox.remove, key)
                continue
            failed = self.failures.get(key)
            if failed and failed[1] > now:
                continue
            due.append(key)
        if not due:
            return 0
        if self.relay is None:
            delivered = 0
            for start in range(0, len(due), LOCAL_BATCH):  # a long outbox (after a pause) in steps
                chunk = due[start:start + LOCAL_BATCH]
                errors = await loop.run_in_executor(None, self.deliver_locally, chunk)
                for key, error in errors.items():
                    self._retry_later(key, self.failures.get(key), now, error)
                for key in chunk:
                    if key not in errors:
                        self.failures.pop(key, None)
                delivered += len(chunk) - len(errors)
            return delivered
        delivered = 0
        for key in due:
            failed = self.failures.get(key)
            try:
                await loop.run_in_executor(None, self._relay_one, key)
            except smtplib.SMTPException as error:
                if not _permanent(error):
                    self._retry_later(key, failed, now, error)
                    continue
                await loop.run_in_executor(None, self.give_up, key, now, error)
            except OSError as error:
                self._retry_later(key, failed, now, error)
            else:
                self.failures.pop(key, None)
                delivered += 1
        return delivered

    def _outbox_keys(self) -> list[str]:
        with self.store.publishing:  # not while the master publishes a batch (until it is durable)
            if self.store.batch_pending():  # a full disk stopped its publication half way
                return []
            return self.store.outbox.keys()

    def _retry_later(self, key: str, failed: tuple[int, datetime] | None, now: datetime, error: Exception) -> None:
        count = failed[0] + 1 if failed else 1
        wait = min(self.first_retry * 2 ** (count - 1), self.longest_wait)
        self.failures[key] = (count, now + wait)
        log.warning("delivery of %s failed (%s); try %d again at %s", key, error, count + 1, now + wait)

    def give_up(self, key: str, now: datetime, error: smtplib.SMTPException) -> None:
        """The relay refused a message for good (5xx): keep it in
        ``undeliverable/`` with the reason, never retry it (it is marked sent,
        so nothing queues it again), tell the operator in the log, and, for a
        player's mail, tell the game (a ``bouncing`` event in the spool)."""
        data = self.store.outbox.get_bytes(key)
        reason = " ".join(str(error).split())[:300]
        self.store.undeliverable.add(f"X-GM-Undeliverable-Reason: {reason}\r\n".encode() + data, key)
        message = parse_message(data)
        game, player = str(message.get("X-GM-Game", "")).strip(), str(message.get("X-GM-Player", "")).strip()
        if game and player.isdigit():
            name = "bouncing-" + key.replace(".", "-")  # a dot-free name: archive keys are split on dots
            event = event_message(self.identity, "bouncing", now, f"<{name}@{self.identity.domain}>", game,
                                  [f"player: {player}", f"reason: {RELAY_REFUSED}"])
            self.store.spool.add(event, spool_key(now, "clock", name))
        self.store.mark_sent(key)
        self.store.sync_sent()
        self.failures.pop(key, None)
        log_event("mail undeliverable", logging.WARNING, key=key, game=game or "-", reason=reason)

    def deliver(self, key: str) -> None:
        """Deliver one outbox message and mark it sent, durably (blocking)."""
        if self.relay is None:
            error = self.deliver_locally([key]).get(key)
            if error is not None:
                raise error
        else:
            self._relay_one(key)

    def deliver_locally(self, keys: list[str]) -> dict[str, Exception]:
        """Deliver outbox messages into ``delivered/`` as one group commit,
        then mark them sent (`sync_sent` once). Returns the error of each
        message that was not delivered (it stays in the outbox)."""
        errors: dict[str, Exception] = {}
        ready: list[tuple[str, Path]] = []
        batch = Batch(self.store.syncer("delivery"), label="delivery")
        try:
            with batch:
                for key in keys:
                    try:
                        source = self.store.outbox.file_of(key)  # looked up once: read, then marked sent
                        data = source.read_bytes()
                    except KeyError:  # gone meanwhile: nothing to send
                        continue
                    try:
                        self.store.delivered.add(unix_lines(data), key)
                    except OSError as error:
                        errors[key] = error
                        continue
                    ready.append((key, source))
        except CommitError as error:
            batch.discard()
            self.store.delivered.forget()  # some may be there: look again next time
            return errors | {key: error for key, _ in ready}
        for _ in ready:
            crashpoint("mid-delivery")
        marked = 0
        try:
            for key, source in ready:
                try:
                    self.store.mark_sent(key, source)
                except OSError as error:  # delivered; marked at the next pass, which finds it delivered
                    errors[key] = error
                    continue
                marked += 1
                crashpoint("mid-sent")
                log_event("mail sent", key=key, via="maildir")
        finally:
            if marked:
                self.store.sync_sent()
        return errors

    def _relay_one(self, key: str) -> None:
        """Send one outbox message through the relay and mark it sent,
        durably: a relay conversation takes far longer than the fsync of
        ``sent/``, and a mark lost in a power cut means the mail goes
        again, so each is made durable at once (a pass of local delivery,
        which loses nothing that way, marks its messages together)."""
        data = self.store.outbox.get_bytes(key)
        self._relay(data)
        crashpoint("mid-delivery")
        self.store.mark_sent(key)
        crashpoint("mid-sent")
        self.store.sync_sent()
        log_event("mail sent", key=key, via="relay")

    def _relay(self, data: bytes) -> None:
        relay = self.relay
        assert relay is not None
        recipients = addresses(parse_message(data), "To")
        with smtplib.SMTP(relay.host, relay.port, timeout=relay.timeout) as client:
            client.ehlo()
            if relay.starttls:
                context = ssl.create_default_context()
                if not relay.verify_tls:
                    context.check_hostname = False
                    context.verify_mode = ssl.CERT_NONE
                client.starttls(context=context)
                client.ehlo()
            if relay.user:
                client.login(relay.user, relay.password or "")
            refused = client.sendmail(self.identity.address, recipients, data)
            if refused:
                raise smtplib.SMTPRecipientsRefused(refused)

    async def run(self, clock: Callable[[], datetime], pause: Callable[[], Awaitable[None]]) -> None:
        while True:
            try:
                await self.deliver_due(clock())
            except Exception:
                log.exception("delivery failed")
            await pause()
