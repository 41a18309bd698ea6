"""A request of a player's that waits for their reply ``confirm`` (a
setting, a vacation, a deputy, a name, a taking, a tournament's sign-up, all
kept in ``requests/``; a seek, kept in ``seeks/``): one check of that reply,
and what the desks that ask for it share (`gm.pbem.answers.settings`,
`.away`, `.deputies`, `.league`, `.tournaments`)."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from email.message import Message
from typing import Any

from ...mail.reading import parse_message
from ...storage.maildirs import DurableMaildir
from ..archive.replay import orders_text, prepend_header
from ..data.store import Store, time_of
from ..data.tokens import token, verify
from ..intake.decisions import Shunted
from .outside import Master, fields_of

REQUEST_HEADER = "X-GM-Request"
"""The header that records a kept request's fields: ``id=...; kind=...; address=...``."""
CONFIRMING = 1
"""The "player" number of the reply address that confirms a player's own request."""
_CONFIRM = re.compile(r"^\s*confirm\s*$", re.I | re.M)


def confirmed_request(store: Store, message: Message, request_id: str, side: int, secret: str, done: str,
                      kept_in: DurableMaildir | None = None) -> tuple[bytes, dict[str, str]]:
    """The request ``request_id`` kept in ``kept_in`` (``requests/`` unless
    given) and the fields of its ``X-GM-Request`` header (none for a seek,
    whose header is its own), once ``message`` proves to confirm it: the
    reply address's token is the one sent for that request and side, its
    text says ``confirm``, and the step is not done already (its marker
    ``done``); raises `Shunted` otherwise."""
    folder = store.requests if kept_in is None else kept_in
    if not verify(store.key, request_id, side, secret) or request_id not in folder:
        raise Shunted(f"not a valid confirmation of {request_id}")
    if not _CONFIRM.search(orders_text(message)[0]):
        raise Shunted(f"answer to {request_id} without 'confirm'")
    if done in store.handled:
        raise Shunted(f"{request_id} was confirmed already")
    kept = folder.get_bytes(request_id)
    return kept, fields_of(parse_message(kept), REQUEST_HEADER)


def key_digest(key: str) -> str:
    """A short digest of a spool key: the ids and outbox keys of what a mail
    asked are made from it, so that a redo after a crash makes the same."""
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def keep_request(store: Store, raw: bytes, request_id: str, fields: dict[str, Any]) -> None:
    """Keep ``raw`` (the player's mail) in ``requests/`` as ``request_id``,
    under a first header that records its id and ``fields``; once (a redo
    after a crash finds it kept)."""
    if request_id not in store.requests:
        values = "; ".join(f"{k}={v}" for k, v in {"id": request_id, **fields}.items())
        store.requests.add(prepend_header(raw, REQUEST_HEADER, values), request_id)


def reply_address(master: Master, request_id: str, side: int = CONFIRMING) -> str:
    """The address whose reply confirms ``request_id`` for ``side``: its
    token is sent only to the mailbox the confirmation goes to."""
    return master.identity.reply_address(request_id, side, token(master.store.key, request_id, side))


class Desk:
    """What the desks that answer a player's requests to the GM's own
    address share: their answers, and the refusal that tells the player why."""

    master: Master

    def _refuse(self, key: str, address: str, what: str, why: str) -> str:
        """Tell ``address`` why ``what`` was refused; the reason, for the shunt."""
        self._send(f"refused-{key_digest(key)}", address, "[gm] Refused: " + what, time_of(key), "league_refused",
                   {"what": what, "why": why})
        return f"{what}: {why}"

    def _send(self, name: str, to: str, subject: str, at: datetime, template: str, data: dict[str, Any],
              reply_to: str | None = None, listed: str | None = None) -> None:
        self.master.outside.send(name, to, subject, at, template, data, "auto-replied", reply_to=reply_to,
                                 listed=listed)
