"""The operator's mail: actions by mail from the owner, and the daily summary.

The owner (``owner = "you@example.org"`` in the configuration) may mail the
GM's own address lines such as ``pause g1``, ``deadline g1 +24h``,
``replace g1 2 new@example.org``, ``cancel g1 REASON`` or ``shunt list``
(`gm.pbem.operator.actions.read_action`). A From line proves nothing, so:

- what only reads (``shunt list``, ``shunt show KEY``) is answered at once,
  and only to the owner's address: a forger learns nothing;
- what changes anything is not done on the mail's word. The owner is sent
  a confirmation listing it, whose reply address holds a secret made for
  that request (``gm+oID.1.TOKEN``); only a reply to it, from the owner's
  address, with a ``confirm`` line, does it, once. So a forged request
  costs the owner one mail and changes nothing, as with challenges
  (`gm.pbem.answers.outside`), and no password travels in mail or sits in a file.

A request's state is its lines in ``DATA/operator/`` and a marker
``done-oID`` in ``handled/``; the actions on games are spooled under keys
made from the request, so a redo after a crash spools each once.

The daily summary goes to the owner at most once a UTC day (its outbox
key, kept as a marker in ``sent/``, says it went), and only when something
needs attention.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from email.message import Message
from typing import Any

from ...kernel.clock import utc_minute
from ...kernel.values import ENDED, AddressReplaced
from ...mail.reading import parse_message
from ...storage.maildirs import DurableMaildir
from ..archive.replay import orders_text
from ..data.store import time_of
from ..data.tokens import token, verify
from ..intake.decisions import Shunted
from ..intake.limits import normalized
from ..operator.actions import (
    OPERATOR_LINE,
    Action,
    check_action,
    discard,
    read_action,
    release,
    request_action,
    show,
    shunt_entries,
)
from .outside import Master

OWNER_MAILS_PER_DAY = 30
"""Requests a day from the owner's address that are answered; the rest go to the shunt."""
STALLED_AFTER = timedelta(hours=1)
"""A game whose deadline passed this long ago without running is stalled."""
CHECK_EVERY = timedelta(minutes=1)
"""How often the daemon looks whether a summary is due."""
SHOWN_BYTES = 20_000
"""How much of a shunted message ``shunt show`` quotes."""
_REQUEST_ID = re.compile(r"o[0-9a-f]{10}")
QUESTION_WORDS = "Nothing is done yet. To do it, reply to this mail with the line"
"""Words of the question (templates/owner.txt). An answer that holds them
outside a '>' quote copied the question whole, as an auto-reply that quotes
without '>' does: its ``confirm`` line is the question's own, not the owner's."""
_CONFIRM = re.compile(r"^\s*confirm\s*$", re.I | re.M)


def owner_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The owner's request a reply answers, from ``gm+oID.1.TOKEN``: id, token."""
    for parts in tags:
        if len(parts) == 3 and _REQUEST_ID.fullmatch(parts[0]) and parts[1] == "1":
            return parts[0], parts[2]
    return None


class OwnerMail:
    """The owner's side of one `GameMaster`."""

    def __init__(self, master: Master, owner: str | None):
        self.master = master
        self.owner = normalized(owner) if owner else None
        self.requests = DurableMaildir(master.store.root / "operator")
        self._summary_sent: str | None = None
        self._checked: datetime | None = None

    def wants(self, sender: str, text: str) -> bool:
        """Whether a mail to the GM's own address is the owner's request."""
        return self.owner is not None and sender == self.owner and bool(OPERATOR_LINE.search(text))

    # Requests

    def request(self, key: str, sender: str, text: str) -> None:
        at = time_of(key)
        self._allowed(sender, at)
        actions, errors = self._read(text, at)
        blocks = [self._read_only(action) for action in actions if action.reads_only]
        changes = [action for action in actions if not action.reads_only]
        request_id = "o" + _digest(key)[:10]
        if changes and request_id not in self.requests:
            self.requests.add(("\n".join(a.line for a in changes) + "\n").encode(), request_id)
        subject = f"[gm] Confirm: {changes[0].line[:60]}" if changes else "[gm] Your request"
        self._send(f"{request_id}.ask", subject, at, {
            "intro": "You asked for this:" if changes else "", "lines": [a.line for a in changes],
            "errors": errors, "blocks": blocks, "confirm": bool(changes),
        }, reply_to=self._reply_to(request_id) if changes else None)

    def answer(self, key: str, message: Message, sender: str, request_id: str, secret: str) -> None:
        """A reply to a confirmation: ``confirm`` does what it lists, once."""
        store = self.master.store
        if (self.owner is None or sender != self.owner or request_id not in self.requests
                or not verify(store.key, request_id, 1, secret)):
            raise Shunted(f"not a valid answer to the owner's request {request_id}")
        text, _ = orders_text(message)
        if not _CONFIRM.search(text):
            raise Shunted(f"answer to the owner's request {request_id} without 'confirm'")
        if QUESTION_WORDS in " ".join(text.split()):
            raise Shunted(f"answer to the owner's request {request_id} holds the question's own words unquoted: "
                          "taken for an auto-reply, not a confirmation")
        if f"done-{request_id}" in store.handled:
            raise Shunted(f"the owner's request {request_id} was done already")
        at = time_of(key)
        lines = self.requests.get_bytes(request_id).decode().splitlines()
        actions, errors = self._read("\n".join(lines), at)  # checked again: the games may have moved on
        done = []
        for number, action in enumerate(actions, 1):
            try:
                done.append(self._do(action, f"{request_id}-{number}", at))
            except KeyError as error:
                errors.append(f"{action.line}: {error.args[0]}")
        self._send(f"{request_id}.done", "[gm] Done: " + (lines[0][:60] if lines else ""), at, {
            "intro": "Done:" if done else "", "lines": done, "errors": errors, "blocks": [], "confirm": False})
        store.handled.add(f"done-{request_id}")

    def _read(self, text: str, at: datetime) -> tuple[list[Action], list[str]]:
        """The mail's actions that can be done now, and what is wrong with the rest."""
        actions, errors = [], []
        for number, line in enumerate(text.split("\n"), 1):
            line = line.strip()
            if not line or line.startswith(";"):
                continue
            try:
                action = read_action(line, at)
            except ValueError as error:
                errors.append(f"line {number}: {line[:60]}: {error}")
                continue
            why = (None if action.game is None or action.event is None
                   else check_action(self.master.all_games, action.game, action.event))
            if why:
                errors.append(f"line {number}: {line[:60]}: {why}")
            else:
                actions.append(action)
        return actions, errors

    def _read_only(self, action: Action) -> dict[str, str]:
        assert action.shunt is not None
        what, key = action.shunt
        store = self.master.store
        if what == "list":
            return {"title": "The shunt:", "text": shunt_listing(store)}
        try:
            raw = show(store, key)
        except KeyError as error:
            return {"title": f"shunt show {key}:", "text": "  " + error.args[0]}
        body = raw[:SHOWN_BYTES].decode("utf-8", "replace").replace("\r\n", "\n")
        return {"title": f"shunt show {key}:", "text": "\n".join("  " + line for line in body.split("\n"))}

    def _do(self, action: Action, name: str, at: datetime) -> str:
        store = self.master.store
        if action.shunt is not None:
            what, key = action.shunt
            return release(store, key, at) if what == "release" else discard(store, key)
        assert action.game is not None and action.event is not None
        request_action(store, self.master.identity, action.game, action.event, name=name)
        told = "the seat's new address is told" if isinstance(action.event, AddressReplaced) else "the players are told"
        return f"{action.line} ({told})"

    def _allowed(self, sender: str, at: datetime) -> None:
        if self.master.counts.add(at, f"owner {sender}") > OWNER_MAILS_PER_DAY:
            raise Shunted(f"more than {OWNER_MAILS_PER_DAY} requests from the owner today")

    def _reply_to(self, request_id: str) -> str:
        master = self.master
        return master.identity.reply_address(request_id, 1, token(master.store.key, request_id, 1))

    def _send(self, name: str, subject: str, at: datetime, data: dict[str, Any], reply_to: str | None = None) -> None:
        assert self.owner is not None
        self.master.outside.send(name, self.owner, subject, at, "owner", data, "auto-replied", reply_to=reply_to)

    # The daily summary

    def daily_summary(self, now: datetime) -> bool:
        """Send the owner today's summary, if something needs attention and
        none went today; returns whether one was queued."""
        if self.owner is None:
            return False
        day = now.strftime("%Y-%m-%d")
        name = f"summary-{day}"
        store = self.master.store
        if self._summary_sent == day or (self._checked is not None and now - self._checked < CHECK_EVERY):
            return False
        self._checked = now
        if name in store.outbox or name in store.sent:
            self._summary_sent = day
            return False
        attention = self.attention(now)
        if not any(found for what, found in attention.items() if what != "correcting"):
            return False
        self.master.outside.send(name, self.owner, f"[gm] What needs attention, {day}", now, "summary",
                                 attention | {"day": day}, "auto-generated")
        self._summary_sent = day
        return True

    def attention(self, now: datetime) -> dict[str, list[str]]:
        """What the operator should look at: shunted mail, failing addresses,
        games stalled past their deadline, paused games, and what games wait
        for the operator to answer (`GameRules.awaiting_operator`); beside
        them (``correcting``, no summary on its own: the deadline runs such a
        turn), the turns that wait for a seat's corrected mail
        (`gm.kernel.correction.awaited`), by the seat's name and number."""
        master, store = self.master, self.master.store
        failing, stalled, paused, awaiting, correcting = [], [], [], [], []
        undeliverable = _undeliverable_addresses(store.undeliverable)
        for game in master.all_games.all():
            if game.phase == ENDED:
                continue
            for seat in game.seats:
                why = ["bouncing"] if seat.player in game.bouncing else []
                if seat.address.lower() in undeliverable:
                    why.append("mail refused for good")
                if why:
                    failing.append(f"{game.id} player {seat.player} <{seat.address}>: {', '.join(why)}")
            awaiting += [f"{game.id}: {what}" for what in game.awaiting]
            correcting += [f"{game.id}: turn {game.turn} waits for a corrected mail from {game.seat(p).alias} "
                           f"(player {p})" for p in game.correction_awaited]
            if game.paused is not None:
                paused.append(f"{game.id}: paused since {utc_minute(game.paused)}")
            elif game.deadline is not None and (
                    (stuck := game.id in master.stuck or master.all_games.stuck_elsewhere(game, now))
                    or game.deadline < now - STALLED_AFTER):
                stalled.append(f"{game.id}: its deadline {utc_minute(game.deadline)} has not run"
                               + (" (its deadline event is in the shunt)" if stuck else ""))
        shunted = [f"{e['key']}\n      {e['reason'][:150]}" for e in shunt_entries(store)]
        return {"shunted": shunted, "failing": failing, "stalled": stalled, "paused": paused, "awaiting": awaiting,
                "correcting": correcting}


def shunt_listing(store) -> str:
    """The shunt, one entry a few lines, for the owner and for `gm shunt list`."""
    entries = shunt_entries(store)
    if not entries:
        return "  The shunt is empty."
    return "\n".join(f"  {e['key']}\n    from {e['from'] or '-'}, {e['date'] or 'no date'}: "
                     f"{e['subject'] or '(no subject)'}\n    {e['reason']}" for e in entries)


def _undeliverable_addresses(box: DurableMaildir) -> set[str]:
    found = set()
    for key in box.keys():
        message = parse_message(box.get_bytes(key))
        address = normalized(str(message.get("To", "")))
        if address:
            found.add(address)
    return found


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:12]
