"""Mail to the GM's own address about players' public names and open seeks.

Like a challenge (`gm.pbem.answers.outside`), every step that acts for a
player is taken only once the player confirmed it from their own mailbox,
by replying ``confirm`` to an address with a token only that mailbox was
sent (``gm+ID.1.TOKEN``): a forged From is answered only to the address it
claims, and changes nothing.

    name NAME        -> a confirmation (request nID)  -> the name is the sender's
    seek GAME        -> a confirmation (seek sID)     -> the seek is open
    seeks            -> the open seeks, each with the line that takes it
    accept sID       -> a confirmation (request tID)  -> the game is requested, as `gm new` would
    seek cancel sID  -> the seek is withdrawn (its seeker only; it is told so)

What each step did is kept as messages (a request in ``requests/``, a seek
in ``seeks/``, a name in ``names/``) and markers in ``handled/``
(``confirmed-ID``, ``accepted-sID``, ``cancelled-sID``), each written in the
batch of the mail that did it, so each step is done once, even when redone
after a crash. Every rule is decided by the time of the mail (its spool
key's), never by the wall clock.
"""

from __future__ import annotations

import re
from datetime import datetime
from email.message import Message
from typing import Any

from ...kernel.clock import utc_minute
from ...kernel.values import Options
from ...league.names import refusal
from ...league.seeks import OPEN_SEEKS, Seek, Status, parse_seek, rating_of, shown, why_untakable
from ..data.names import name_record, public_names
from ..data.seeks import joiners, open_seeks, seek_record, status_of, stored_seek
from ..data.settings import settings_of
from ..data.store import time_of
from ..intake.decisions import Shunted
from ..operator.admin import request_game, seat_aliases
from ..state.ratings import Ratings
from .confirming import CONFIRMING, Desk, confirmed_request, keep_request, key_digest, reply_address
from .filling import Filling
from .outside import Master
from .ratings import tables

NAME = re.compile(r"^\s*name\s+(.+?)\s*$", re.I | re.M)
SEEK = re.compile(r"^\s*seek\s+(\S+)\s*$", re.I | re.M)
SEEK_CANCEL = re.compile(r"^\s*seek\s+cancel\s+(\S+)\s*$", re.I | re.M)
SEEKS = re.compile(r"^\s*seeks\s*$", re.I | re.M)
TAKE = re.compile(r"^\s*accept\s+(\S+)\s*$", re.I | re.M)
_ID = re.compile(r"[nst][0-9a-f]{10}")
"""The ids of what a confirmation answers: a name (n), a seek (s), a taking (t);
other letters are other answers' (a challenge's c, a seat's move's a, the owner's o)."""
_SEEK_ID = re.compile(r"s[0-9a-f]{10}")


def league_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The request or seek a reply confirms, from ``gm+ID.1.TOKEN``: id and token."""
    for parts in tags:
        if len(parts) == 3 and _ID.fullmatch(parts[0]) and parts[1] == str(CONFIRMING):
            return parts[0], parts[2]
    return None


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address is about names or seeks."""
    return any(pattern.search(text) for pattern in (NAME, SEEK, SEEK_CANCEL, SEEKS, TAKE))


class LeagueMail(Desk):
    """The GM's answers about names and seeks, for one `GameMaster`."""

    def __init__(self, master: Master):
        self.master = master
        self.filling = Filling(master)

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
        request_id = "n" + key_digest(key)[:10]
        keep_request(self.master.store, raw, request_id, {"kind": "name", "address": sender, "name": name})
        self._send(f"{request_id}.confirm", sender, f"[gm] Confirm your name {name}", at, "name_confirm",
                   {"name": name, "old": names.get(sender)}, reply_to=reply_address(self.master, request_id))
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
        at, store = time_of(key), self.master.store
        self._allowed(sender, "seek", at)
        what = f"seek {found.group(1)[:40]}"
        if sender not in public_names(store):
            return self._refuse(key, sender, what, "a seek shows its seeker's public name, and you have none "
                                                   "yet: choose one first (write 'name' and the name)")
        seek_id = "s" + key_digest(key)[:10]
        try:
            seek = parse_seek(seek_id, sender, self.master.identity.address, at, found.group(1), text,
                              settings_of(store, sender).zone)
        except ValueError as error:
            return self._refuse(key, sender, what, str(error))
        if sum(other.seeker == sender for other in open_seeks(store, at)) >= OPEN_SEEKS:
            return self._refuse(key, sender, what, f"you have {OPEN_SEEKS} seeks open already: "
                                                   "cancel one, or wait for it to be taken or to lapse")
        if seek_id not in store.seeks:
            store.seeks.add(seek_record(raw, seek), seek_id)
        self._send(f"{seek_id}.confirm", sender, "[gm] Confirm your seek", at, "seek_confirm",
                   self._shown(seek), reply_to=reply_address(self.master, seek_id))
        return None

    def _opened(self, key: str, seek_id: str) -> None:
        """The seeker confirmed: the seek is open, unless it was withdrawn,
        lapsed or would be one too many meanwhile."""
        store, at = self.master.store, time_of(key)
        seek = stored_seek(store, seek_id)
        assert seek is not None
        why = None
        if status_of(store, seek_id) is Status.CANCELLED:
            why = "you withdrew it"
        elif seek.lapsed(at):
            why = f"it lapsed at {utc_minute(seek.lapses)}"
        elif sum(other.seeker == seek.seeker for other in open_seeks(store, at)) >= OPEN_SEEKS:
            why = f"you have {OPEN_SEEKS} seeks open already"
        if why:
            self._refuse(key, seek.seeker, f"seek {seek_id}", why)
            store.handled.add(f"cancelled-{seek_id}")  # never to be opened later
            return
        self._send(f"{seek_id}.open", seek.seeker, f"[gm] Your seek {seek_id} is open", at, "seek_open",
                   self._shown(seek))

    def _shown(self, seek: Seek, ratings: Ratings | None = None) -> dict[str, Any]:
        """A seek as players see it, with its seeker's rating (from ``ratings``, read once per
        answer however many seeks it lists; None: read now), and for a filling seek how many joined."""
        about = shown(seek, public_names(self.master.store), self._ratings(seek.game, ratings))
        return about | ({"joined": len(joiners(self.master.store, seek.id))} if seek.filling else {})

    def _ratings(self, game: str, ratings: Ratings | None = None) -> dict[str, float]:
        """The rating table of ``game``, player key to rating (`gm.league.seeks.rating_of`)."""
        return {row.player: row.rating for row in (tables(self.master) if ratings is None else ratings).table(game)}

    def _list(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        at = time_of(key)
        self._allowed(sender, "seeks", at)
        ratings = tables(self.master)
        self._send(f"seeks-{key_digest(key)}", sender, "[gm] Open seeks", at, "seeks",
                   {"seeks": [self._shown(seek, ratings) for seek in open_seeks(self.master.store, at)],
                    "gm": self.master.identity.address})
        return None

    def _cancel(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        store, seek_id, at = self.master.store, found.group(1).lower(), time_of(key)
        self._allowed(sender, "seek cancel", at)
        what = f"seek cancel {found.group(1)[:20]}"
        seek = stored_seek(store, seek_id)
        if seek is None:
            return self._refuse(key, sender, what, f"there is no seek {found.group(1)[:20]}")
        if seek.seeker != sender:
            return self._refuse(key, sender, what, f"seek {seek_id} is not yours: only its seeker may withdraw it")
        if status_of(store, seek_id) is Status.TAKEN:
            return self._refuse(key, sender, what, f"seek {seek_id} was taken already: its game has begun")
        store.handled.add(f"cancelled-{seek_id}")
        self._send(f"{seek_id}.cancelled", sender, f"[gm] Seek {seek_id} withdrawn", at, "seek_cancelled",
                   {"id": seek_id})
        for number, joiner in enumerate(joiners(store, seek_id) if seek.filling else [], 1):
            self._send(f"{seek_id}.cancelled-{number}", joiner, f"[gm] Seek {seek_id} withdrawn", at,
                       "seek_withdrawn", {"id": seek_id, "name": public_names(store).get(seek.seeker, "?")},
                       listed="notices")
        return None

    # Taking a seek

    def _take(self, key: str, raw: bytes, sender: str, text: str, found: re.Match[str]) -> str | None:
        at, seek_id = time_of(key), found.group(1).lower()
        self._allowed(sender, "accept", at)
        why = self._untakable(seek_id, sender, at)
        if why:
            return self._refuse(key, sender, f"accept {found.group(1)[:20]}", why)
        request_id = "t" + key_digest(key)[:10]
        keep_request(self.master.store, raw, request_id, {"kind": "take", "address": sender, "seek": seek_id})
        seek = stored_seek(self.master.store, seek_id)
        assert seek is not None
        self._send(f"{request_id}.confirm", sender, f"[gm] Confirm you take seek {seek_id}", at, "take_confirm",
                   self._shown(seek), reply_to=reply_address(self.master, request_id))
        return None

    def _untakable(self, seek_id: str, taker: str, at: datetime) -> str | None:
        if not _SEEK_ID.fullmatch(seek_id):
            return f"there is no open seek {seek_id[:20]}"
        store = self.master.store
        seek = stored_seek(store, seek_id)
        rating = rating_of(self._ratings(seek.game), taker) if seek else 0.0
        return why_untakable(seek_id, seek, status_of(store, seek_id), taker, at, taker in public_names(store),
                             rating, joiners(store, seek_id) if seek and seek.filling else ())

    def _taken(self, key: str, request_id: str, fields: dict[str, str]) -> None:
        """The taker confirmed: the game starts as an accepted challenge's does."""
        store, taker, seek_id, at = self.master.store, fields["address"], fields["seek"], time_of(key)
        why = self._untakable(seek_id, taker, at)
        if why:
            self._refuse(key, taker, f"accept {seek_id}", why)
            return
        seek = stored_seek(store, seek_id)
        assert seek is not None
        if seek.filling:  # joined: its game begins when every seat is taken or at its fill time
            self.filling.join(request_id, seek, taker, at)
            return
        names = public_names(store)
        players = [seek.seeker, taker]
        shown_as = [names[address] for address in players]
        try:
            aliases: list[str] | None = seat_aliases(seek.rules, 2, shown_as)
        except ValueError:  # a name the game cannot give a seat (an empire's is shorter): the game's own
            aliases = None
        options = Options(deadline=seek.deadline_time, public_each_turn=seek.public, rated=seek.rated)
        _, game_id = request_game(store, self.master.identity, players, seek.variant, options, at,
                                  aliases=aliases, name=f"seek-{seek_id}", match=seek.match(), game=seek.game)
        store.handled.add(f"accepted-{seek_id}")
        about = shown(seek, names) | {"game_id": game_id}
        self._send(f"{request_id}.done", taker, f"[gm] You took {shown_as[0]}'s seek", at, "seek_taken",
                   about | {"opponent": shown_as[0], "own": False})
        self._send(f"{seek_id}.taken", seek.seeker, f"[gm] {shown_as[1]} took your seek", at, "seek_taken",
                   about | {"opponent": shown_as[1], "own": True}, listed="notices")

    # Confirmations

    def confirm(self, key: str, message: Message, item_id: str, secret: str) -> None:
        """A reply ``confirm`` to the confirmation of a name, a seek or a taking."""
        store = self.master.store
        seek = item_id.startswith("s")
        _, fields = confirmed_request(store, message, item_id, CONFIRMING, secret, f"confirmed-{item_id}",
                                      kept_in=store.seeks if seek else store.requests)
        if seek:
            self._opened(key, item_id)
        else:
            (self._named if fields["kind"] == "name" else self._taken)(key, item_id, fields)
        store.handled.add(f"confirmed-{item_id}")

    # What the steps share

    def _allowed(self, address: str, what: str, at: datetime) -> None:
        """Refuse (to the shunt, unanswered) past the day's allowance of mail to ``address``."""
        limit = self.master.limits.league_answers_per_day
        if self.master.counts.add(at, f"league {address}") > limit:
            raise Shunted(f"{what}: {address} was sent {limit} mails about names and seeks today already")
