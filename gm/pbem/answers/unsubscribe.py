"""Unsubscribing from gm's lists (`gm.pbem.writing.lists`): by the mailto of a
``List-Unsubscribe`` header, or by the web archive's one-click POST, which
spools the same mail for the daemon (`gm.web.unsubscribe`).

    gm+uLIST.1.TOKEN      a digest's or a notice's: TOKEN is the recipient's
                          for that list, checked against the mail's From
    gm+uGAME.N.TOKEN      a game's reminder: TOKEN is seat N's own secret,
                          so the seat's address is the one unsubscribed; or
                          the secret of seat N's deputy, from the copy of
                          the reminder the deputy is sent: the deputy's mail
                          counts as the player's (`gm.kernel.deputies`), and
                          the seat's reminders, and so the copies, stop
    gm+uGAME.0.TOKEN      an observer's mail of game GAME: TOKEN is that
                          observer's own for the game (checked against the
                          mail's From), who is sent nothing more of it

Only the mailbox that was sent the list's mail holds its token, so a valid
one needs no confirmation round trip (RFC 8058 asks for none); a wrong one
changes nothing and goes to the shunt with the reason. The change is a
player's setting like any other (`gm.pbem.answers.settings`): recorded in
``settings/`` and in each of the player's games, once, and the player told
what changed and how to undo it (and the deputy, when it was theirs).
An observer's is an event of the game's (`ObserverLeft`), spooled under a
name made from the mail's spool key, so a redo after a crash spools it
once; the observer is told. A second copy of the mail (an MTA's resend after
a 250 it lost, a second click) has a spool key of its own, and may be handled
in the batch that spooled the first's event, before the game applied it: the
marker ``observer-left-GAME.N`` in ``handled/``, written in that batch, makes
it change nothing more.
"""

from __future__ import annotations

import hashlib
import re

from ...kernel.deputies import deputy_of
from ...kernel.observers import watching
from ...kernel.settings import PlayerSettings
from ...kernel.values import ENDED, ObserverLeft
from ..data.settings import record, settings_of
from ..data.store import time_of
from ..data.tokens import deputy_subject, verify
from ..intake.decisions import Shunted
from ..operator.actions import request_action
from ..writing.lists import LISTS, OBSERVER, is_observer_secret
from .outside import Master
from .settings import SettingsDesk, words

_TAG = re.compile(r"u(g\d+|" + "|".join(LISTS) + ")")


def unsubscribe_tag(tags: list[list[str]]) -> tuple[str, int, str] | None:
    """What a mail to a list's mailto unsubscribes from: the game or list, the seat, the token."""
    for parts in tags:
        if len(parts) == 3 and _TAG.fullmatch(parts[0]) and parts[1].isdigit():
            return parts[0][1:], int(parts[1]), parts[2]
    return None


class Unsubscribing:
    """The GM's part that takes players off its lists, for one `GameMaster`."""

    def __init__(self, master: Master, desk: SettingsDesk):
        self.master = master
        self.desk = desk

    def answer(self, key: str, raw: bytes, sender: str, target: str, player: int, secret: str) -> None:
        """Take the address the token stands for off the list; raises
        `Shunted` (changing nothing) when the token is not the right one."""
        master = self.master
        deputy = None
        if target in LISTS:
            name, address = target, sender
            if player != 1 or not verify(master.store.key, f"unsubscribe/{name}/{address.lower()}", 1, secret):
                raise Shunted(f"unsubscribing {sender} from {name}: not that address's token")
        elif player == OBSERVER:
            self._observer_leaves(key, target, sender, secret)
            return
        else:
            name = "reminders"
            summary = master.all_games.summaries.get(target)
            if summary is None or not 1 <= player <= len(summary.seats):
                raise Shunted(f"unsubscribing from {target}'s reminders: not a seat's token")
            subject = summary.secret_subjects[player - 1]
            if not verify(master.store.key, subject, player, secret):
                deputy = deputy_of(master.all_games[target], player)
                if deputy is None or not verify(master.store.key, deputy_subject(subject, deputy), player, secret):
                    raise Shunted(f"unsubscribing from {target}'s reminders: not a seat's token")
            address = summary.seat(player).address
        setting, off = LISTS[name]
        before = settings_of(master.store, address)
        after = PlayerSettings.from_fields(before.fields() | {setting: off})
        if after == before:
            return  # a second click, or a list left already: nothing to do, nothing to say
        request_id = "u" + hashlib.sha256(key.encode()).hexdigest()[:10]
        at = time_of(key)
        record(master.store, raw, address, after, request_id)
        games = self.desk.record_in_games(address, after, at, request_id)
        data: dict[str, object] = {"list": name, "settings": words(after), "games": games}
        if deputy is not None:  # both are told: the player, whose settings changed, and the deputy who asked
            data |= {"deputy": deputy, "player": address, "to_deputy": False}
            master.outside.send(f"{request_id}.deputy", deputy, "[gm] Unsubscribed", at, "unsubscribed",
                                data | {"to_deputy": True}, "auto-replied")
        master.outside.send(f"{request_id}.done", address, "[gm] Unsubscribed", at, "unsubscribed", data,
                            "auto-replied")

    def _observer_leaves(self, key: str, game_id: str, sender: str, secret: str) -> None:
        """Observer ``sender`` is sent nothing more of game ``game_id``: an
        `ObserverLeft` event for the game, and an answer saying so."""
        master = self.master
        if game_id not in master.all_games or not is_observer_secret(master.store.key, game_id, sender, secret):
            raise Shunted(f"unsubscribing {sender} from watching {game_id}: not that observer's token")
        game = master.all_games[game_id]
        number = next((n for n, address in watching(game) if address.lower() == sender.lower()), None)
        left = f"observer-left-{game_id}.{number}"
        if number is None or game.phase == ENDED or left in master.store.handled:
            return  # a second click, or a game whose last mail went out already: nothing to do, nothing to say
        request_id = "u" + hashlib.sha256(key.encode()).hexdigest()[:10]
        at = time_of(key)
        master.store.handled.add(left)
        request_action(master.store, master.identity, game_id, ObserverLeft(at, number), name=f"{request_id}-{game_id}")
        master.outside.send(f"{request_id}.done", sender, f"[gm {game_id}] Unsubscribed", at, "unsubscribed_observer",
                            {"game": game_id, "title": game.rules.title}, "auto-replied", title=game.rules.title)

