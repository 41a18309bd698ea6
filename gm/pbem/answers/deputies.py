"""A player's deputy, named by mail to the GM's own address (issue 24).

    deputy friend@example.org  -> a confirmation to the player (request dID, side 1) -> `confirm`
                               -> a request for consent to the deputy (side 2) -> `confirm` from there
                               -> the deputy plays the player's seats in every game
    deputy off                 -> a confirmation (side 1) -> `confirm` -> ended (by the player, or by
                                  the deputy for everyone they stand in for)

So a deputy is named only from the player's own mailbox, and only with the
agreement of the deputy's own mailbox (as a seat's move is,
`gm.pbem.answers.moving`). The deputy is kept as a settings record
(`PlayerSettings.deputy`, `gm.pbem.data.settings`) and recorded in each of
the player's games by a ``settings`` event (`SettingsDesk.record_in_games`),
and in games made later at their creation; what a deputy may do in a game is
the kernel's (`gm.kernel.deputies`). A deputy cannot name a deputy of their
own while they stand in for someone.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from email.message import Message
from typing import Any, Protocol

from ...kernel.addresses import mail_address
from ...kernel.deputies import refusal
from ...mail.reading import parse_message
from ..archive.replay import prepend_header
from ..data.settings import all_settings, record, settings_of
from ..data.store import time_of
from ..intake.decisions import Shunted
from .confirming import Desk, confirmed_request, keep_request, key_digest, reply_address
from .outside import Master, fields_of
from .settings import SettingsDesk

ENDED_HEADER = "X-GM-Deputies-Ended"
"""What a confirmed ``deputy off`` ends, kept before it is done: ``player=deputy; ...``."""
PLAYER, DEPUTY = 1, 2
"""The sides of a deputy's request: the player confirms, the deputy agrees."""
_ID = re.compile(r"d[0-9a-f]{10}")
_LINE = re.compile(r"^\s*deputy\b[ \t]*(.*?)\s*$", re.I | re.M)
_OFF = ("off", "none", "cancel")


class DeputyMaster(Master, Protocol):
    """What the deputies use of the `gm.pbem.master.game_master.GameMaster`."""

    desk: SettingsDesk


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address is about a deputy."""
    return bool(_LINE.search(text))


def deputy_tag(tags: list[list[str]]) -> tuple[str, int, str] | None:
    """The request a reply answers, from ``gm+dID.SIDE.TOKEN``: id, side and token."""
    for parts in tags:
        if len(parts) == 3 and _ID.fullmatch(parts[0]) and parts[1] in (str(PLAYER), str(DEPUTY)):
            return parts[0], int(parts[1]), parts[2]
    return None


def stood_in_for(store: Any, deputy: str) -> list[str]:
    """The players whose deputy ``deputy`` is."""
    return sorted(address for address, settings in all_settings(store).items()
                  if settings.deputy and settings.deputy.lower() == deputy.lower())


class DeputyDesk(Desk):
    """The GM's answers about deputies, for one `GameMaster`."""

    master: DeputyMaster

    def __init__(self, master: DeputyMaster):
        self.master = master

    def handle(self, key: str, raw: bytes, sender: str, text: str) -> str | None:
        """A ``deputy`` line (`wants`): a confirmation is sent, and None; or
        the reason it was refused (its sender is told it too)."""
        at, store = time_of(key), self.master.store
        limit = self.master.limits.league_answers_per_day
        if self.master.counts.add(at, f"settings {sender.lower()}") > limit:
            raise Shunted(f"deputy: {sender} was sent {limit} mails about settings today already")
        found = _LINE.search(text)
        assert found is not None
        line, argument = found.group(0).strip(), found.group(1)
        if argument.lower() in _OFF:
            if not settings_of(store, sender).deputy and not stood_in_for(store, sender):
                return self._refuse(key, sender, line, "you have no deputy, and you are nobody's deputy")
            fields = {"kind": "off"}
        else:
            deputy = mail_address(argument)
            why = self._why_not(sender, deputy, argument)
            if why:
                return self._refuse(key, sender, line, why)
            fields = {"kind": "deputy", "deputy": str(deputy).lower()}
        request_id = "d" + key_digest(key)[:10]
        keep_request(store, raw, request_id, {"address": sender.lower(), **fields})
        self._send(f"{request_id}.confirm", sender, "[gm] Confirm your deputy", at, "deputy_confirm",
                   {"deputy": fields.get("deputy"), "now": settings_of(store, sender).deputy,
                    "for": stood_in_for(store, sender) if fields["kind"] == "off" else []},
                   reply_to=reply_address(self.master, request_id, PLAYER))
        return None

    def _why_not(self, player: str, deputy: str | None, argument: str) -> str | None:
        """Why ``player`` cannot name ``deputy`` (None when they can)."""
        store = self.master.store
        if deputy is None or not argument:
            return "name one mail address (write: deputy friend@example.org, or deputy off)"
        if deputy.lower() == player.lower():
            return "that is your own address"
        if stood_in_for(store, player):
            return "you are a deputy yourself, and a deputy cannot name another deputy"
        if (settings_of(store, player).deputy or "").lower() == deputy.lower():
            return f"{deputy} is your deputy already"
        return None

    def confirm(self, key: str, message: Message, sender: str, request_id: str, side: int, secret: str) -> None:
        """A reply ``confirm``: from the player, the deputy is asked to
        agree (or the deputy ends); from the deputy, the deputy is named."""
        store = self.master.store
        done = f"{'confirmed' if side == PLAYER else 'agreed'}-{request_id}"
        kept, fields = confirmed_request(store, message, request_id, side, secret, done)
        player, at = fields["address"], time_of(key)
        if fields["kind"] == "off":
            self._off(key, kept.split(b"\n", 1)[1], player, at, request_id)
        elif side == PLAYER:
            why = self._why_not(player, fields["deputy"], fields["deputy"])
            if why:
                self._refuse(key, player, f"deputy {fields['deputy']}", why)
            else:
                self._send(f"{request_id}.consent", fields["deputy"], "[gm] Will you be a deputy?", at,
                           "deputy_consent", {"player": player},
                           reply_to=reply_address(self.master, request_id, DEPUTY))
        else:
            if sender.lower() != fields["deputy"]:
                raise Shunted(f"deputy {request_id} agreed from {sender}, not from the deputy's address")
            self._named(key, kept.split(b"\n", 1)[1], player, fields["deputy"], at, request_id)
        store.handled.add(done)

    def _named(self, key: str, kept: bytes, player: str, deputy: str, at: datetime, request_id: str) -> None:
        """The deputy agreed: kept, and recorded in each of the player's games."""
        store = self.master.store
        why = self._why_not(player, deputy, deputy)
        if why and not any(k.endswith(f".{request_id}") for k in store.settings.keys()):  # (else: a redo)
            self._refuse(key, deputy, f"deputy for {player}", why)
            return
        after = replace(settings_of(store, player), deputy=deputy)
        record(store, kept, player, after, request_id)
        games = self._games(self.master.desk.record_in_games(player, after, at, request_id), deputy)
        about = {"player": player, "deputy": deputy, "games": games}
        self._send(f"{request_id}.named", player, "[gm] Your deputy", at, "deputy_set", about | {"own": True})
        self._send(f"{request_id}.agreed", deputy, f"[gm] You are {player}'s deputy", at, "deputy_set",
                   about | {"own": False})

    def _games(self, game_ids: list[str], deputy: str) -> list[dict[str, str | None]]:
        """Each game, and why the deputy cannot stand in for the player there (None when they can)."""
        return [{"game": game_id, "why": refusal(self.master.all_games[game_id], deputy)} for game_id in game_ids]

    def _off(self, key: str, kept: bytes, address: str, at: datetime, request_id: str) -> None:
        """``deputy off``: the sender's own deputy ends, and so does their standing in for others."""
        store, plan = self.master.store, f"{request_id}-off"
        if plan not in store.requests:  # what ends, kept first: a redo after a crash ends the same, each once
            ended = [(address, settings_of(store, address).deputy)] if settings_of(store, address).deputy else []
            ended += [(player, address) for player in stood_in_for(store, address)]
            store.requests.add(prepend_header(kept, ENDED_HEADER, "; ".join(f"{p}={d}" for p, d in ended)), plan)
        pairs = fields_of(parse_message(store.requests.get_bytes(plan)), ENDED_HEADER)
        for number, (player, deputy) in enumerate(pairs.items(), 1):
            name = f"{request_id}-{number}"
            after = replace(settings_of(store, player), deputy=None)
            record(store, kept, player, after, name)
            self.master.desk.record_in_games(player, after, at, name)
            about = {"player": player, "deputy": deputy, "by": "the player" if player == address else "the deputy"}
            for to in (player, deputy):
                self._send(f"{name}.off.{'player' if to == player else 'deputy'}", to, "[gm] Deputy ended", at,
                           "deputy_off", about | {"own": to == player})
