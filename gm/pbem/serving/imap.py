"""Reading mail from an IMAP mailbox instead of (or as well as) SMTP.

The poller copies each message it has not handled yet into the spool,
durably, and only then flags it ``$GmSpooled`` (and ``\\Seen``) on the
server. It never deletes or moves anything: what gm has not yet spooled stays
in the mailbox untouched, and a crash between the two steps at worst spools
a message twice, which the master applies once (by its Message-ID).

Between polls it waits in IDLE when the server offers it, bounded so that a
silent connection is noticed, and otherwise polls every minute.

It logs where it reads (host, port, user, mailbox, TLS or not; never the
password) when it connects, when it connects again after a failure, and when
connecting fails or a connection is lost, so that the operator sees in gm's
log which mailbox it polls and why it does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import unquote, urlparse

from imapclient import IMAPClient

from ...logs import event
from ..archive.replay import without_gm_headers
from ..data.store import Store, spool_key
from ..intake.arrival import arrival_time

HANDLED_FLAG = "$GmSpooled"


@dataclass(frozen=True)
class ImapAccount:
    host: str
    port: int
    folder: str
    user: str
    password: str
    tls: bool = False

    @classmethod
    def from_url(cls, url: str, user: str | None, password: str | None) -> ImapAccount:
        """``imap://HOST[:PORT][/FOLDER]`` or ``imaps://...``; a user and
        password in the URL are used only when not given otherwise."""
        parts = urlparse(url)
        if parts.scheme not in ("imap", "imaps"):
            raise ValueError(f"{url!r}: an IMAP URL starts imap:// or imaps://")
        tls = parts.scheme == "imaps"
        folder = unquote(parts.path.lstrip("/")) or "INBOX"
        user = user or (unquote(parts.username) if parts.username else None)
        password = password or (unquote(parts.password) if parts.password else None)
        if not user or password is None:
            raise ValueError("the IMAP user and password are missing (GM_IMAP_USER, GM_IMAP_PASSWORD)")
        return cls(parts.hostname or "127.0.0.1", parts.port or (993 if tls else 143), folder, user, password, tls)

    def where(self) -> dict[str, Any]:
        """The log fields that say which mailbox this is: never the password."""
        return {"host": self.host, "port": self.port, "user": self.user, "mailbox": self.folder,
                "tls": "yes" if self.tls else "no"}


class ImapPoller:
    """Copies unhandled messages from an IMAP folder into the spool."""

    def __init__(self, store: Store, config, clock: Callable[[], datetime], spooled: Callable[[], None] = lambda: None,
                 idle_seconds: float = 60.0):
        self.store = store
        self.account = ImapAccount.from_url(config.imap, config.imap_user, config.imap_password)
        self.clock = clock
        self.spooled = spooled
        self.idle_seconds = idle_seconds
        self.stopping = threading.Event()
        """Set by the daemon when it stops: an IDLE wait ends within a second."""

    def connect(self) -> IMAPClient:
        context = ssl.create_default_context() if self.account.tls else None
        client = IMAPClient(self.account.host, port=self.account.port, ssl=self.account.tls, ssl_context=context,
                            timeout=30)
        client.normalise_times = False  # INTERNALDATE with its zone, not as local time
        client.login(self.account.user, self.account.password)
        client.select_folder(self.account.folder)
        return client

    def poll_once(self, client: IMAPClient) -> int:
        """Spool every message not yet flagged as handled; returns how many."""
        uids = client.search(["NOT", "KEYWORD", HANDLED_FLAG])
        for uid in uids:
            fetched = client.fetch([uid], ["BODY.PEEK[]", "INTERNALDATE"]).get(uid)
            if not fetched or b"BODY[]" not in fetched:
                continue  # expunged meanwhile by someone else
            raw = without_gm_headers(fetched[b"BODY[]"])  # only gm writes X-GM-* fields
            arrived = arrival_time(raw, "imap", self.clock(), internal_date=fetched.get(b"INTERNALDATE"))
            self.store.spool.add(raw, spool_key(arrived, "imap"))
            client.add_flags([uid], [HANDLED_FLAG, b"\\Seen"])
        if uids:
            self.spooled()
        return len(uids)

    def wait(self, client: IMAPClient) -> None:
        """Wait for news from the server, at most ``idle_seconds``."""
        if b"IDLE" in client.capabilities():
            client.idle()
            try:
                waited = 0.0
                while waited < self.idle_seconds and not self.stopping.is_set():
                    if client.idle_check(timeout=1.0):
                        break
                    waited += 1.0
            finally:
                client.idle_done()
        else:
            client.noop()

    async def run(self) -> None:
        delay = 1.0
        failed = False
        while True:
            client = None
            connected = False
            try:
                client = await asyncio.to_thread(self.connect)
                connected = True
                event("imap reconnected" if failed else "imap connected", **self.account.where())
                failed = False
                delay = 1.0
                while True:
                    await asyncio.to_thread(self.poll_once, client)
                    await asyncio.to_thread(self.wait, client)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the server went away: try again later
                failed = True
                event("imap connection lost" if connected else "imap connection failed", logging.WARNING,
                      **self.account.where(), error=str(error) or type(error).__name__, retry_in=f"{delay:.0f}s")
            finally:
                if client is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.to_thread(client.logout)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 300.0)
