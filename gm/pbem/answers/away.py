"""One vacation for all of a player's games, by mail to the GM's own address (issue 24).

    vacation 10d, absent 72h,      -> a confirmation (request vID) -> `confirm` -> away in every game
    absent until 2026-12-24
    back (or absent cancel)        -> a confirmation (request vID) -> `confirm` -> back in every game

The same lines in a game's own mail stay that game's alone
(`gm.kernel.absence`). Sent to the GM's own address they concern the
player: once confirmed from the player's own mailbox (``gm+vID.1.TOKEN``,
as settings are, `gm.pbem.answers.settings`), the vacation is kept as a
settings record (`gm.pbem.data.vacations`) and an ``absence`` event
(`Away`) is spooled into every game the player has a seat in that has not
ended, under a key made of the request and the game (a redo after a crash
spools each once). Each game applies it by its own rules and caps; a game
made during it gets it when it is made (`started`). The player's vacations
may add up to the operator's bank (``--vacation-bank``, 30 days) in any
rolling year, drawn once for all games.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from email.message import Message
from typing import Any, Protocol

from ...kernel.absence import USAGE, bank_used, days, end_of, vacation_end, when
from ...kernel.absence import keywords as absence_keywords
from ...kernel.values import ENDED, Away
from ..data.settings import record, records_of, settings_of
from ..data.store import time_of
from ..data.vacations import away_until, vacation_fields, vacation_spans
from ..intake.decisions import Shunted
from ..operator.actions import request_action
from .confirming import CONFIRMING, Desk, confirmed_request, keep_request, key_digest, reply_address
from .outside import Master

BANK = timedelta(days=30)
"""How long a player's vacations may add up to in any rolling year, unless the operator says otherwise."""
_ID = re.compile(r"v[0-9a-f]{10}")
_BACK = re.compile(r"^\s*(?:back|(?:absent|vacation)\s+cancel)\s*$", re.I | re.M)
_AWAY = re.compile(r"^\s*(?:vacation|absent)\b\s*(.*?)\s*$", re.I | re.M)


class AwayMaster(Master, Protocol):
    """What the vacations use of the `gm.pbem.master.game_master.GameMaster`."""

    vacation_bank: timedelta


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address is about a vacation for all games."""
    return bool(_BACK.search(text) or _AWAY.search(text))


def vacation_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The request a reply confirms, from ``gm+vID.1.TOKEN``: id and token."""
    for parts in tags:
        if len(parts) == 3 and _ID.fullmatch(parts[0]) and parts[1] == str(CONFIRMING):
            return parts[0], parts[2]
    return None


def vacations(store: Any, address: str) -> list[tuple[datetime, datetime]]:
    """``address``'s vacations as they ran, oldest first."""
    return vacation_spans(records_of(store, address))


def _ended(spans: list[tuple[datetime, datetime]], at: datetime) -> list[tuple[datetime, datetime]]:
    """The vacations with a running one ended at ``at`` (a new one replaces it)."""
    if spans and spans[-1][0] <= at < spans[-1][1]:
        return [*spans[:-1], (spans[-1][0], at)]
    return spans


class VacationDesk(Desk):
    """The GM's answers about vacations for all games, for one `GameMaster`."""

    master: AwayMaster

    def __init__(self, master: AwayMaster):
        self.master = master

    def words(self, address: str, at: datetime) -> dict[str, Any]:
        """What a player's settings show of their vacation: away until when, and the bank left."""
        spans = vacations(self.master.store, address)
        until = away_until(spans, at)
        bank = self.master.vacation_bank
        return {"until": when(until) if until else None, "bank": days(bank),
                "left": days(max(bank - bank_used(spans, at), timedelta(0)))}

    def handle(self, key: str, raw: bytes, sender: str, text: str) -> str | None:
        """A ``vacation`` or ``back`` line (`wants`): a confirmation is sent,
        and None; or the reason it was refused (its sender is told it too)."""
        at, store = time_of(key), self.master.store
        limit = self.master.limits.league_answers_per_day
        if self.master.counts.add(at, f"settings {sender.lower()}") > limit:
            raise Shunted(f"vacation: {sender} was sent {limit} mails about settings today already")
        back = _BACK.search(text)
        line = back.group(0).strip() if back else _AWAY.search(text).group(0).strip()  # type: ignore[union-attr]
        until, why = self._until(sender, None if back else _AWAY.search(text).group(1), at)  # type: ignore[union-attr]
        if why:
            return self._refuse(key, sender, line, why)
        request_id = "v" + key_digest(key)[:10]
        keep_request(store, raw, request_id,
                     {"kind": "vacation", "address": sender.lower(), "until": until.isoformat() if until else "back"})
        subject = "[gm] Confirm your vacation" if until else "[gm] Confirm you are back"
        self._send(f"{request_id}.confirm", sender, subject, at, "vacation_confirm",
                   {"until": when(until) if until else None, "line": line},
                   reply_to=reply_address(self.master, request_id))
        return None

    def _until(self, address: str, argument: str | None, at: datetime) -> tuple[datetime | None, str | None]:
        """When the vacation asked for at ``at`` ends (None: back), or why it cannot be."""
        spans = vacations(self.master.store, address)
        if argument is None:
            return None, None if away_until(spans, at) else "you are not away"
        if not argument:
            return None, f"say until when ({USAGE})"
        until = end_of(argument, at)
        if until is None:
            return None, f"{argument[:40]!r} is no date or length ({USAGE})"
        if until <= at:
            return None, f"{when(until)} has passed already ({USAGE})"
        bank = self.master.vacation_bank
        left = bank - bank_used(_ended(spans, at), at)
        if until - at > left:
            return None, (f"your vacations may add up to {days(bank)} in any year, and {days(max(left, timedelta(0)))} "
                          "of that is left" + (f" (vacation {left // timedelta(hours=1)}h at most)"
                                               if left > timedelta(0) else ""))
        return until, None

    def confirm(self, key: str, message: Message, request_id: str, secret: str) -> None:
        """A reply ``confirm``: the vacation (or the return) is kept, and
        reaches every game of the player's that has not ended."""
        store = self.master.store
        kept, fields = confirmed_request(store, message, request_id, CONFIRMING, secret, f"confirmed-{request_id}")
        address, at = fields["address"], time_of(key)
        until = None if fields["until"] == "back" else datetime.fromisoformat(fields["until"])
        if not any(k.endswith(f".{request_id}") for k in store.settings.keys()):  # not kept yet (else: a redo)
            spans = vacations(store, address)
            why = (("it has passed already" if until <= at else None) if until else
                   (None if away_until(spans, at) else "you are not away"))
            if until and not why and until - at > self.master.vacation_bank - bank_used(_ended(spans, at), at):
                why = "your vacations since you asked leave too little of your bank for it"
            if why:
                self._refuse(key, address, "vacation" if until else "back", why)
                store.handled.add(f"confirmed-{request_id}")
                return
            record(store, kept.split(b"\n", 1)[1], address, settings_of(store, address), request_id,
                   vacation_fields(at, until))
        games = self._reach(address, at, until, request_id)
        self._send(f"{request_id}.done", address, "[gm] Your vacation" if until else "[gm] Welcome back", at,
                   "vacation_set", {"until": when(until) if until else None, "games": games}
                   | self.words(address, at))
        store.handled.add(f"confirmed-{request_id}")

    def _reach(self, address: str, at: datetime, until: datetime | None, request_id: str) -> list[dict[str, Any]]:
        """Spool the vacation (or the return) into each game of ``address``'s
        that has not ended; what it does in each, for the answer."""
        master, reached = self.master, []
        for game_id, summary in sorted(master.all_games.summaries.items(), key=lambda item: int(item[0][1:])):
            if summary.phase == ENDED:
                continue
            for seat in summary.seats:
                if seat.robot or seat.address.lower() != address.lower():
                    continue
                game = master.all_games[game_id]
                if not absence_keywords(game):  # made before absences: nothing waits in it
                    if until is not None:
                        reached.append({"game": game_id, "until": None, "whole": False, "old": True})
                    continue
                end = vacation_end(game, seat.player, at, until) if until else None
                if until is None and seat.player not in game.absent:
                    continue
                request_action(master.store, master.identity, game_id, Away(at, seat.player, until),
                               name=f"{request_id}-{game_id}-{seat.player}")
                reached.append({"game": game_id, "until": when(end) if end else None, "whole": end == until,
                                "old": False})
        return reached

    def started(self, game_id: str, at: datetime) -> None:
        """A game was made at ``at``: each of its players on vacation is away in it too."""
        master = self.master
        for seat in master.games.summaries[game_id].seats:
            until = None if seat.robot else away_until(vacations(master.store, seat.address), at)
            if until is not None:
                request_action(master.store, master.identity, game_id, Away(at, seat.player, until),
                               name=f"away-{game_id}-{seat.player}")
