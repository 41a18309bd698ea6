"""Mail to the GM's own address about players' public names and open seeks.

Like a challenge (`gm.pbem.answers.outside`), every step that acts for a
player is taken only once the player confirmed it from their own mailbox,
by replying ``confirm`` to an address with a token only that mailbox was
sent (``gm+ID.1.TOKEN``): a forged From is answered only to the address it
claims, and changes nothing.

    name NAME        -> a confirmation (request nID)  -> the name is the sender's
    seek GAME        -> a confirmation (seek sID)     -> the seek is open
    seeks            -> the open seeks, each with the line that takes it
    accept sID       -> a confirmation (request aID)  -> the game is requested, as `gm new` would
    seek cancel sID  -> the seek is withdrawn (its seeker only; it is told so)

What each step did is kept as messages (a request in ``requests/``, a seek
in ``seeks/``, a name in ``names/``) and markers in ``handled/``
(``confirmed-ID``, ``accepted-sID``, ``cancelled-sID``), each written in the
batch of the mail that did it, so each step is done once, even when redone
after a crash. Every rule is decided by the time of the mail (its spool
key's), never by the wall clock.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from email.message import Message
from typing import Any

from ...kernel.clock import parse_duration, utc_minute
from ...kernel.protocol import GameRules, game_named
from ...kernel.values import Options
from ...league.names import refusal
from ...mail.reading import parse_message
from ..archive.replay import orders_text, prepend_header
from ..data.names import name_record, public_names
from ..data.store import time_of
from ..data.tokens import token, verify
from ..intake.decisions import Shunted
from ..operator.admin import request_game, seat_aliases
from .outside import Master, fields_of

NAME = re.compile(r"^\s*name\s+(.+?)\s*$", re.I | re.M)
SEEK = re.compile(r"^\s*seek\s+(\S+)\s*$", re.I | re.M)
SEEK_CANCEL = re.compile(r"^\s*seek\s+cancel\s+(\S+)\s*$", re.I | re.M)
SEEKS = re.compile(r"^\s*seeks\s*$", re.I | re.M)
TAKE = re.compile(r"^\s*accept\s+(\S+)\s*$", re.I | re.M)
_CONFIRM = re.compile(r"^\s*confirm\s*$", re.I | re.M)
_VARIANT = re.compile(r"^\s*variant\s+(\S+)\s*$", re.I | re.M)
_PUBLIC = re.compile(r"^\s*public\s*$", re.I | re.M)
_DEADLINE = re.compile(r"^\s*deadline\s+(\S+)\s*$", re.I | re.M)
_LAPSE = re.compile(r"^\s*lapse\s+(\S+)\s*$", re.I | re.M)
_UNRATED = re.compile(r"^\s*unrated\s*$", re.I | re.M)
_ID = re.compile(r"[nsa][0-9a-f]{10}")
REQUEST_HEADER, SEEK_HEADER = "X-GM-Request", "X-GM-Seek"
LAPSE = timedelta(days=7)
"""How long a seek stays open unless its ``lapse`` line says otherwise."""
LONGEST_LAPSE = timedelta(days=30)
OPEN_SEEKS = 3
"""Seeks one address may have open at once."""
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
    return any(pattern.search(text) for pattern in (NAME, SEEK, SEEK_CANCEL, SEEKS, TAKE))


class LeagueMail:
    """The GM's answers about names and seeks, for one `GameMaster`."""

    def __init__(self, master: Master):
        self.master = master

    def handle(self, key: str, raw: bytes, sender: str, text: str) -> str | None:
        """A command about names or seeks (`wants`): answered, and None, or
        the reason it was refused (its sender is told it too)."""
        for pattern, step in ((SEEK_CANCEL, self._cancel), (SEEKS, self._list), (TAKE, self._take),
                              (NAME, self._name), (SEEK, self._seek)):
            found = pattern.search(text)
            if found:
                return step(key, raw, sender, text, found)
        raise AssertionError("handle() is only given what wants() takes")

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

    # Seeks

    def _seek(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        at = time_of(key)
        self._allowed(sender, "seek", at)
        what = f"seek {found.group(1)[:40]}"
        store = self.master.store
        name = public_names(store).get(sender)
        if name is None:
            return self._refuse(key, sender, what, "a seek shows its seeker's public name, and you have none "
                                                   "yet: choose one first (write 'name' and the name)")
        try:
            fields = _seek_terms(found.group(1), text)
        except ValueError as error:
            return self._refuse(key, sender, what, str(error))
        if sum(seek["seeker"] == sender for seek in self.open_seeks(at)) >= OPEN_SEEKS:
            return self._refuse(key, sender, what, f"you have {OPEN_SEEKS} seeks open already: "
                                                   "cancel one, or wait for it to be taken or to lapse")
        seek_id = "s" + _digest(key)[:10]
        lapses = at + fields.pop("lapse")
        self._keep(seek_id, raw, {"seeker": sender, "at": at.isoformat(), "lapses": lapses.isoformat(), **fields},
                   SEEK_HEADER, store.seeks)
        self._send(f"{seek_id}.confirm", sender, "[gm] Confirm your seek", at, "seek_confirm",
                   self._shown(seek_id, {"seeker": sender, "lapses": lapses.isoformat(), **fields}),
                   reply_to=self._reply_to(seek_id))
        return None

    def open_seeks(self, at: datetime) -> list[dict[str, Any]]:
        """The seeks open at ``at``: confirmed, not taken, not withdrawn,
        not lapsed; each as `_shown` gives it, oldest first."""
        store, found = self.master.store, []
        for seek_id in store.seeks.keys():
            if (f"confirmed-{seek_id}" not in store.handled or f"accepted-{seek_id}" in store.handled
                    or f"cancelled-{seek_id}" in store.handled):
                continue
            fields = fields_of(parse_message(store.seeks.get_bytes(seek_id)), SEEK_HEADER)
            if at < datetime.fromisoformat(fields["lapses"]):
                found.append(self._shown(seek_id, fields))
        return found

    def _shown(self, seek_id: str, fields: dict[str, str]) -> dict[str, Any]:
        """A seek as players are shown it: by its seeker's name, never the address."""
        rules = game_named(fields["game"])
        return {"id": seek_id, "seeker": fields["seeker"], "title": rules.title, "game": rules.name,
                "name": public_names(self.master.store).get(fields["seeker"], "?"),
                "ruleset": rules.describe_variant(fields["variant"]),
                "match": rules.describe_terms(_terms_of(rules, fields)),
                "deadline": fields["deadline"], "rated": fields["rated"] == "yes",
                "public": fields.get("public") == "yes",
                "lapses": utc_minute(datetime.fromisoformat(fields["lapses"]))}

    def _list(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        at = time_of(key)
        self._allowed(sender, "seeks", at)
        self._send(f"seeks-{_digest(key)}", sender, "[gm] Open seeks", at, "seeks",
                   {"seeks": self.open_seeks(at), "gm": self.master.identity.address})
        return None

    def _cancel(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        store, seek_id, at = self.master.store, found.group(1).lower(), time_of(key)
        self._allowed(sender, "seek cancel", at)
        what = f"seek cancel {found.group(1)[:20]}"
        if seek_id not in store.seeks or not seek_id.startswith("s"):
            return self._refuse(key, sender, what, f"there is no seek {found.group(1)[:20]}")
        fields = fields_of(parse_message(store.seeks.get_bytes(seek_id)), SEEK_HEADER)
        if fields["seeker"] != sender:
            return self._refuse(key, sender, what, f"seek {seek_id} is not yours: only its seeker may withdraw it")
        if f"accepted-{seek_id}" in store.handled:
            return self._refuse(key, sender, what, f"seek {seek_id} was taken already: its game has begun")
        store.handled.add(f"cancelled-{seek_id}")
        self._send(f"{seek_id}.cancelled", sender, f"[gm] Seek {seek_id} withdrawn", at, "seek_cancelled",
                   {"id": seek_id})
        return None

    # Taking a seek

    def _take(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        at, seek_id = time_of(key), found.group(1).lower()
        self._allowed(sender, "accept", at)
        why = self._untakable(seek_id, sender, at)
        if why:
            return self._refuse(key, sender, f"accept {seek_id}", why)
        request_id = "a" + _digest(key)[:10]
        self._keep(request_id, raw, {"kind": "take", "address": sender, "seek": seek_id})
        shown = [seek for seek in self.open_seeks(at) if seek["id"] == seek_id]
        self._send(f"{request_id}.confirm", sender, f"[gm] Confirm you take seek {seek_id}", at, "take_confirm",
                   shown[0], reply_to=self._reply_to(request_id))
        return None

    def _untakable(self, seek_id: str, taker: str, at: datetime) -> str | None:
        """Why ``taker`` cannot take seek ``seek_id`` at ``at``, or None."""
        store = self.master.store
        if seek_id not in store.seeks or f"confirmed-{seek_id}" not in store.handled:
            return f"there is no open seek {seek_id}"
        if f"accepted-{seek_id}" in store.handled:
            return f"seek {seek_id} was taken by someone else first"
        if f"cancelled-{seek_id}" in store.handled:
            return f"seek {seek_id} was withdrawn by its seeker"
        fields = fields_of(parse_message(store.seeks.get_bytes(seek_id)), SEEK_HEADER)
        if at >= datetime.fromisoformat(fields["lapses"]):
            return f"seek {seek_id} lapsed at {utc_minute(datetime.fromisoformat(fields['lapses']))}"
        if fields["seeker"] == taker:
            return f"seek {seek_id} is your own"
        if taker not in public_names(store):
            return ("the game shows each player by their public name, and you have none yet: "
                    "choose one first (write 'name' and the name)")
        return None

    def _taken(self, key: str, request_id: str, fields: dict[str, str]) -> None:
        """The taker confirmed: the game starts as an accepted challenge's does."""
        store, taker, seek_id, at = self.master.store, fields["address"], fields["seek"], time_of(key)
        why = self._untakable(seek_id, taker, at)
        if why:
            self._refuse(key, taker, f"accept {seek_id}", why)
            return
        seek = fields_of(parse_message(store.seeks.get_bytes(seek_id)), SEEK_HEADER)
        rules = game_named(seek["game"])
        names = public_names(store)
        players = [seek["seeker"], taker]
        shown = [names[address] for address in players]
        try:
            aliases = seat_aliases(rules, 2, shown)
        except ValueError:  # a name the game cannot use for a seat (an empire's is shorter): its own
            aliases = None
        options = Options(deadline=parse_duration(seek["deadline"]), public_each_turn=seek.get("public") == "yes",
                          rated=seek["rated"] == "yes")
        _, game_id = request_game(store, self.master.identity, players, seek["variant"], options, at,
                                  aliases=aliases, name=f"seek-{seek_id}", match=_terms_of(rules, seek),
                                  game=rules.name)
        store.handled.add(f"accepted-{seek_id}")
        about = self._shown(seek_id, seek) | {"game_id": game_id}
        self._send(f"{request_id}.done", taker, f"[gm] You took {shown[0]}'s seek", at, "seek_taken",
                   about | {"opponent": shown[0], "own": False})
        self._send(f"{seek_id}.taken", seek["seeker"], f"[gm] {shown[1]} took your seek", at, "seek_taken",
                   about | {"opponent": shown[1], "own": True})

    # Confirmations

    def confirm(self, key: str, message: Message, item_id: str, secret: str) -> None:
        """A reply ``confirm`` to the confirmation of a name, a seek or a taking."""
        store = self.master.store
        kept = store.seeks if item_id.startswith("s") else store.requests
        if not verify(store.key, item_id, CONFIRMING, secret) or item_id not in kept:
            raise Shunted(f"not a valid confirmation of {item_id}")
        if not _CONFIRM.search(orders_text(message)[0]):
            raise Shunted(f"answer to {item_id} without 'confirm'")
        if f"confirmed-{item_id}" in store.handled:
            raise Shunted(f"{item_id} was confirmed already")
        if item_id.startswith("s"):
            fields = fields_of(parse_message(kept.get_bytes(item_id)), SEEK_HEADER)
            self._send(f"{item_id}.open", fields["seeker"], f"[gm] Your seek {item_id} is open", time_of(key),
                       "seek_open", self._shown(item_id, fields) | {"gm": self.master.identity.address})
        else:
            fields = fields_of(parse_message(kept.get_bytes(item_id)), REQUEST_HEADER)
            (self._named if fields["kind"] == "name" else self._taken)(key, item_id, fields)
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

    def _keep(self, item_id: str, raw: bytes, fields: dict[str, Any], header: str = REQUEST_HEADER,
              kept: Any = None) -> None:
        folder = kept if kept is not None else self.master.store.requests
        if item_id not in folder:
            values = "; ".join(f"{k}={v}" for k, v in {"id": item_id, **fields}.items())
            folder.add(prepend_header(raw, header, values), item_id)

    def _reply_to(self, item_id: str) -> str:
        master = self.master
        return master.identity.reply_address(item_id, CONFIRMING, token(master.store.key, item_id, CONFIRMING))

    def _send(self, name: str, to: str, subject: str, at: datetime, template: str, data: dict[str, Any],
              reply_to: str | None = None) -> None:
        self.master.outside.send(name, to, subject, at, template, data, "auto-replied", reply_to=reply_to)


def _seek_terms(game: str, text: str) -> dict[str, Any]:
    """A seek's terms from its lines, as its header keeps them; ValueError
    with the reason for the seeker."""
    try:
        rules = game_named(game)
    except ValueError as error:
        raise ValueError(f"no such game: {error}") from None
    variant_found = _VARIANT.search(text)
    variant = variant_found.group(1) if variant_found else rules.default_variant
    rules.describe_variant(variant)  # ValueError: a bad variant, worded by the game
    if 2 not in rules.seats:
        raise ValueError(f"a seek is for two players, and a game of {rules.title} is not")
    terms = rules.challenge_terms(text)
    deadline_found = _DEADLINE.search(text)
    deadline = deadline_found.group(1) if deadline_found else "72h"
    if not timedelta(hours=1) <= parse_duration(deadline, "3d") <= timedelta(days=30):
        raise ValueError(f"deadline {deadline}: give between 1h and 30d")
    lapse_found = _LAPSE.search(text)
    lapse = parse_duration(lapse_found.group(1), "3d") if lapse_found else LAPSE
    if not timedelta(hours=1) <= lapse <= LONGEST_LAPSE:
        raise ValueError(f"lapse {lapse_found.group(1) if lapse_found else ''}: give between 1h and 30d")
    fields: dict[str, Any] = {"game": rules.name, "variant": variant, "deadline": deadline.lower(),
                              "rated": "no" if _UNRATED.search(text) else "yes", "lapse": lapse}
    if _PUBLIC.search(text):
        fields["public"] = "yes"
    for line in rules.creation_fields(terms):  # the game's own terms, as its creation event holds them
        name, _, value = line.partition(":")
        fields[f"t.{name.strip()}"] = value.strip()
    return fields


def _terms_of(rules: GameRules, fields: dict[str, str]) -> Any:
    """The game's own terms a stored seek holds (``t.NAME=VALUE``)."""
    creation = {name[2:]: value for name, value in fields.items() if name.startswith("t.") and value}
    return rules.creation_terms(creation)


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:12]

