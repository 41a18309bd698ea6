"""Mail to the GM's own address about players' public names.

Like a challenge (`gm.pbem.answers.outside`), every step that acts for a
player is taken only once the player confirmed it from their own mailbox,
by replying ``confirm`` to an address with a token only that mailbox was
sent (``gm+ID.1.TOKEN``): a forged From is answered only to the address it
claims, and changes nothing.

    name NAME        -> a confirmation (request nID)  -> the name is the sender's

What each step did is kept as messages (a request in ``requests/``, a name
in ``names/``) and markers in ``handled/`` (``confirmed-ID``), each written in the
batch of the mail that did it, so each step is done once, even when redone
after a crash. Every rule is decided by the time of the mail (its spool
key's), never by the wall clock.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from email.message import Message
from typing import Any

from ...league.names import refusal
from ...mail.reading import parse_message
from ..archive.replay import orders_text, prepend_header
from ..data.names import name_record, public_names
from ..data.store import time_of
from ..data.tokens import token, verify
from ..intake.decisions import Shunted
from .outside import Master, fields_of

NAME = re.compile(r"^\s*name\s+(.+?)\s*$", re.I | re.M)
_CONFIRM = re.compile(r"^\s*confirm\s*$", re.I | re.M)
_ID = re.compile(r"n[0-9a-f]{10}")
REQUEST_HEADER = "X-GM-Request"
CONFIRMING = 1
"""The "player" number of a confirmation's reply address."""


def league_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The request or seek a reply confirms, from ``gm+ID.1.TOKEN``: id and token."""
    for parts in tags:
        if len(parts) == 3 and _ID.fullmatch(parts[0]) and parts[1] == str(CONFIRMING):
            return parts[0], parts[2]
    return None


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address is about names or seeks."""
    return bool(NAME.search(text))


class LeagueMail:
    """The GM's answers about names and seeks, for one `GameMaster`."""

    def __init__(self, master: Master):
        self.master = master

    def handle(self, key: str, raw: bytes, sender: str, text: str) -> str | None:
        """A command about names or seeks (`wants`): answered, and None, or
        the reason it was refused (its sender is told it too)."""
        found = NAME.search(text)
        assert found, "handle() is only given what wants() takes"
        return self._name(key, raw, sender, text, found)

    # Names

    def _name(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        name, at = found.group(1), time_of(key)
        self._allowed(sender, "name", at)
        names = public_names(self.master.store)
        why = refusal(names, sender, name)
        if why:
            return self._refuse(key, sender, f"name {name[:40]}", why)
        request_id = "n" + _digest(key)[:10]
        self._keep(request_id, raw, {"kind": "name", "address": sender, "name": name})
        self._send(f"{request_id}.confirm", sender, f"[gm] Confirm your name {name}", at, "name_confirm",
                   {"name": name, "old": names.get(sender)}, reply_to=self._reply_to(request_id))
        return None

    def _named(self, key: str, request_id: str, fields: dict[str, str]) -> None:
        store, address, name = self.master.store, fields["address"], fields["name"]
        names = public_names(store)
        why = refusal(names, address, name)
        if why:
            self._refuse(key, address, f"name {name}", why)
            return
        kept = store.requests.get_bytes(request_id).split(b"\n", 1)[1]  # the player's mail, without our header
        store.names.add(name_record(kept, address, name), f"{len(store.names.keys()) + 1:08d}.{request_id}")
        self._send(f"{request_id}.done", address, f"[gm] Your name is {name}", time_of(key), "name_set",
                   {"name": name, "old": names.get(address)})

    # Confirmations

    def confirm(self, key: str, message: Message, item_id: str, secret: str) -> None:
        """A reply ``confirm`` to the confirmation of a name."""
        store = self.master.store
        kept = store.requests
        if not verify(store.key, item_id, CONFIRMING, secret) or item_id not in kept:
            raise Shunted(f"not a valid confirmation of {item_id}")
        if not _CONFIRM.search(orders_text(message)[0]):
            raise Shunted(f"answer to {item_id} without 'confirm'")
        if f"confirmed-{item_id}" in store.handled:
            raise Shunted(f"{item_id} was confirmed already")
        self._named(key, item_id, fields_of(parse_message(kept.get_bytes(item_id)), REQUEST_HEADER))
        store.handled.add(f"confirmed-{item_id}")

    # What the steps share

    def _allowed(self, address: str, what: str, at: datetime) -> None:
        """Refuse (to the shunt, unanswered) past the day's allowance of mail to ``address``."""
        limit = self.master.limits.league_answers_per_day
        if self.master.counts.add(at, f"league {address}") > limit:
            raise Shunted(f"{what}: {address} was sent {limit} mails about names and seeks today already")

    def _refuse(self, key: str, address: str, what: str, why: str) -> str:
        """Tell ``address`` why ``what`` was refused; the reason, for the shunt."""
        self._send(f"refused-{_digest(key)}", address, "[gm] Refused: " + what, time_of(key), "league_refused",
                   {"what": what, "why": why})
        return f"{what}: {why}"

    def _keep(self, item_id: str, raw: bytes, fields: dict[str, Any]) -> None:
        folder = self.master.store.requests
        if item_id not in folder:
            values = "; ".join(f"{k}={v}" for k, v in {"id": item_id, **fields}.items())
            folder.add(prepend_header(raw, REQUEST_HEADER, values), item_id)

    def _reply_to(self, item_id: str) -> str:
        master = self.master
        return master.identity.reply_address(item_id, CONFIRMING, token(master.store.key, item_id, CONFIRMING))

    def _send(self, name: str, to: str, subject: str, at: datetime, template: str, data: dict[str, Any],
              reply_to: str | None = None) -> None:
        self.master.outside.send(name, to, subject, at, template, data, "auto-replied", reply_to=reply_to)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:12]

