"""Moving a seat to another address, confirmed from the new address (issue 10, point 9).

A player's ``address NEW`` line (checked by `gm.kernel.moving`, in a mail
that carries the seat's secret) makes the GM mail NEW a confirmation whose
reply address holds a token for that one request (``gm+aID.1.TOKEN``). Only
a ``confirm`` from NEW itself spools the move: the operator's
`AddressReplaced` event, which the daemon applies and archives, so ``gm
replay`` reproduces it. The request is kept beside the challenges, and a
marker in ``handled/`` makes a confirmation count once.
"""

from __future__ import annotations

import hashlib
import re
from email.message import Message

from ...kernel.model import MailGame
from ...kernel.values import ENDED, AddressReplaced
from ...mail.reading import parse_message
from ..archive.replay import orders_text, prepend_header
from ..data.store import time_of
from ..data.tokens import token, verify
from ..intake.decisions import Shunted
from ..operator.actions import request_action
from .outside import Master, fields_of

MOVE_HEADER = "X-GM-Move"
_MOVE_ID = re.compile(r"a[0-9a-f]{10}")


def move_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The move a reply confirms, from ``gm+aID.1.TOKEN``: id and token."""
    for parts in tags:
        if len(parts) == 3 and _MOVE_ID.fullmatch(parts[0]) and parts[1] == "1":
            return parts[0], parts[2]
    return None


def asked(master: Master, key: str, game: MailGame, player: int, new: str) -> None:
    """After a player's mail that asked to move the seat to ``new`` was
    applied (`gm.kernel.effects.ConfirmAddress`): mail the new address a
    confirmation, unless the mail ended the game."""
    if game.phase == ENDED:
        return
    move_id = "a" + hashlib.sha256(key.encode()).hexdigest()[:10]  # the same if redone after a crash
    at = time_of(key)
    master.outside.allowed(new, "move", at)  # the daily allowance to an address that plays no game here
    store = master.store
    if move_id not in store.challenges:
        header = f"id={move_id}; game={game.id}; player={player}; new={new}; at={at.isoformat()}"
        raw = f"Subject: address\r\n\r\n{new}\r\n".encode()
        store.challenges.add(prepend_header(raw, MOVE_HEADER, header), move_id)
    seat = game.seat(player)
    secret = token(store.key, move_id, 1)
    master.outside.send(f"{move_id}.confirm", new, f"[gm] Confirm: play {seat.alias} in game {game.id} from here", at,
                        "move_confirm", {"game": game.id, "alias": seat.alias, "title": game.rules.title, "new": new},
                        "auto-generated", reply_to=master.identity.reply_address(move_id, 1, secret),
                        title=game.rules.title)


def answer(master: Master, key: str, message: Message, sender: str, move_id: str, secret: str) -> None:
    """A reply to a move's confirmation: ``confirm`` from the new address moves the seat."""
    store = master.store
    if not verify(store.key, move_id, 1, secret) or move_id not in store.challenges:
        raise Shunted(f"not a valid answer to move {move_id}")
    fields = fields_of(parse_message(store.challenges.get_bytes(move_id)), MOVE_HEADER)
    if sender.lower() != fields["new"].lower():
        raise Shunted(f"move {move_id} confirmed from {sender}, not from the new address")
    text, _ = orders_text(message)
    if not re.search(r"^\s*confirm\s*$", text, re.I | re.M):
        raise Shunted(f"answer to move {move_id} without 'confirm'")
    if f"moved-{move_id}" in store.handled:
        raise Shunted(f"move {move_id} was confirmed already")
    game = master.all_games.get(fields["game"])
    if game is None or game.phase == ENDED:
        raise Shunted(f"move {move_id}: game {fields['game']} is over or unknown")
    request_action(store, master.identity, game.id, AddressReplaced(time_of(key), int(fields["player"]), fields["new"]),
                   name=f"move-{move_id}")
    store.handled.add(f"moved-{move_id}")
