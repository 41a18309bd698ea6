"""Tournaments by mail: the master starts their rounds, and players sign up
and ask for the standings by writing to the GM's own address.

    join t1        -> a confirmation (request jID) -> signed up (until the tournament starts)
    tournament t1  -> the standings and the rounds so far, by public name

As with names and seeks (`gm.pbem.answers.league`), a sign-up is made only
once the player confirmed it from their own mailbox, by replying
``confirm`` to an address with a token only that mailbox was sent: a
forged From enters nobody. The request is kept in ``requests/`` and its
confirmation marked ``confirmed-jID`` in ``handled/``.

`TournamentDesk.advance` runs at every pass over the spool: a tournament
whose sign-up closed starts round 1; one whose round has every game ended
starts the next round (or, with none left, ends and mails everyone the
final standings). A round's games are requested (`request_game`, under
names `gm.pbem.data.tournaments.round_game_name` makes, at a moment derived
from the archives: when sign-up closed, or when the last game of the round
before ended) and the round's record is written in one batch, so a redo
after a crash finds the same requests and starts no game twice. Byes and
withdrawals are told in mail under deterministic outbox keys.
"""

from __future__ import annotations

import hashlib
import logging
import re
from datetime import datetime, timedelta
from email.message import Message
from typing import Any

from ...kernel.protocol import game_named
from ...kernel.values import ENDED, Options
from ...league.glicko2 import START_RATING
from ...league.tournaments import Played, finished_round, next_round, round_ended_at, withdrawn
from ..data import tournaments as data
from ..data.names import public_names
from ..data.store import time_of
from ..intake.decisions import Shunted
from ..operator.admin import request_game, seat_aliases
from ..state import tournaments as view
from ..state.ratings import player_key
from .confirming import CONFIRMING, confirmed_request, keep_request, key_digest, reply_address
from .outside import Master
from .ratings import tables

JOIN = re.compile(r"^\s*join\s+(\S+)\s*$", re.I | re.M)
_JOIN_ID = re.compile(r"j[0-9a-f]{10}")
SHOW = re.compile(r"^\s*tournament\s+(\S+)\s*$", re.I | re.M)
log = logging.getLogger("gm")


def join_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The sign-up a reply confirms, from ``gm+jID.1.TOKEN``: id and token."""
    for parts in tags:
        if len(parts) == 3 and _JOIN_ID.fullmatch(parts[0]) and parts[1] == str(CONFIRMING):
            return parts[0], parts[2]
    return None


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address is about a tournament."""
    return bool(JOIN.search(text) or SHOW.search(text))


class TournamentDesk:
    """The tournaments of one `GameMaster`."""

    def __init__(self, master: Master):
        self.master = master
        self._failed: set[str] = set()
        """Tournaments whose last try to advance failed (logged once)."""

    def state(self, tournament_id: str) -> view.State | None:
        return view.state(self.master.store, tournament_id, self.master.all_games.get)

    # Rounds

    def advance(self, now: datetime) -> int:
        """Start every round that is due; how many were started or ended."""
        count = 0
        for tournament_id in data.ids(self.master.store):
            if data.ended(self.master.store, tournament_id):
                continue
            try:
                count += self._advance(tournament_id, now)
            except OSError:
                raise  # a temporary fault: the spool pauses (`GameMaster.process_spool`)
            except Exception:  # a bug must not hold up the mail; logged once, tried again at each pass
                if tournament_id not in self._failed:
                    log.exception("tournament %s could not start its next round", tournament_id)
                self._failed.add(tournament_id)
            else:
                self._failed.discard(tournament_id)
        return count

    def next_start(self) -> datetime | None:
        """When the next tournament's sign-up closes, if one is waiting for it."""
        store = self.master.store
        waiting = [data.opens_at(store, rec) for rec in (data.record(store, t) for t in data.ids(store))
                   if rec is not None and not data.rounds(store, rec.id)]
        return min(waiting) if waiting else None

    def _advance(self, tournament_id: str, now: datetime) -> int:
        store = self.master.store
        if not self._round_over(tournament_id):
            return 0
        st = self.state(tournament_id)
        assert st is not None
        if not st.rounds:
            at = data.opens_at(store, st.record)
            if now < at:
                return 0
        else:
            started, games = st.rounds[-1]
            if not finished_round(games):
                return 0
            at = round_ended_at(games, st.ended, started)
        number = len(st.rounds) + 1
        rec = st.record
        ratings = {player_key(row.player): row.rating for row in tables(self.master).table(rec.game)}
        pairings = next_round(rec.system, st.entrants, number, st.planned,
                              {e: ratings.get(player_key(e), START_RATING) for e in st.entrants}, st.played)
        names = public_names(store)
        if pairings is None or len(st.entrants) < 2:
            with store.batch():
                self._tell_end(st, names, at)
                data.add_end(store, tournament_id, at)
            return 1
        with store.batch() as batch:
            try:
                started_games = [self._start(rec, number, board, game, names, at)
                                 for board, game in enumerate(pairings, 1)]
                data.add_round(store, tournament_id, number, at, started_games)
                self._tell_round(st, number, started_games, names, at)
            except Exception:
                batch.discard()  # all of the round or none of it: a redo must find no request of it handled
                raise
        return 1

    def _round_over(self, tournament_id: str) -> bool:
        """Whether the last round's games have all ended (or none started yet), by the games'
        summaries: a round still being played loads no game."""
        recorded = data.rounds(self.master.store, tournament_id)
        summary = self.master.all_games.summary  # a round's games may be another master's, when N changed
        return not recorded or all((s := summary(g.game_id)) is not None and s.phase == ENDED
                                   for g in recorded[-1][1] if g.game_id is not None)

    def _start(self, rec: data.Record, number: int, board: int, game: Played, names: dict[str, str],
               at: datetime) -> Played:
        if game.second is None or game.points_first is not None:
            return game
        store, rules = self.master.store, game_named(rec.game)
        players = [game.first, game.second]
        defaults = rules.default_aliases(2)
        try:  # each seat by its player's public name, a player without one by the game's own alias
            aliases: list[str] | None = seat_aliases(rules, 2, [names.get(p) or defaults[n]
                                                                for n, p in enumerate(players)])
        except ValueError:
            aliases = None
        options = Options(rated=rec.rated)
        if rec.deadline_hours is not None:
            deadline = timedelta(hours=rec.deadline_hours)
            options = Options(deadline=deadline, reminder_before=min(options.reminder_before, deadline / 2),
                              rated=rec.rated)
        _, game_id = request_game(store, self.master.identity, players, rec.variant or rules.default_variant,
                                  options, at, aliases=aliases, name=data.round_game_name(rec.id, number, board),
                                  game=rules.name, tournament=(rec.id, number))
        return Played(number, game.first, game.second, game_id)

    # What players are told

    def _send(self, name: str, to: str, subject: str, at: datetime, template: str, about: dict[str, Any],
              listed: str | None = None) -> None:
        self.master.outside.send(name, to, subject, at, template, about, "auto-generated", listed=listed)

    def _tell_round(self, st: view.State, number: int, games: list[Played], names: dict[str, str],
                    at: datetime) -> None:
        tid = st.record.id
        for game in games:
            if game.second is None:
                self._send(f"{tid}-r{number}-bye", game.first, f"[gm] Tournament {tid}: a bye in round {number}", at,
                           "tournament_bye", {"id": tid, "round": number}, listed="notices")
        self._tell_withdrawn(st, names, at)

    def _tell_withdrawn(self, st: view.State, names: dict[str, str], at: datetime) -> None:
        """Tell everyone of each entrant withdrawn (each once: the outbox keys say who was told)."""
        tid = st.record.id
        shown = view.shown(st, names)
        gone = withdrawn(st.played)
        for entrant in sorted(gone):
            who = names.get(entrant) or f"Entrant {st.entrants.index(entrant) + 1}"
            for other in st.entrants:
                key = hashlib.sha256(f"{entrant}|{other}".encode()).hexdigest()[:12]
                self._send(f"{tid}-withdrawn-{key}", other, f"[gm] Tournament {tid}: {who} withdrawn", at,
                           "tournament_withdrawn", {"id": tid, "name": who, "you": other == entrant, "t": shown},
                           listed="notices")

    def _tell_end(self, st: view.State, names: dict[str, str], at: datetime) -> None:
        tid = st.record.id
        self._tell_withdrawn(st, names, at)
        shown = view.shown(st, names)
        for n, entrant in enumerate(st.entrants, 1):
            self._send(f"{tid}-end-{n}", entrant, f"[gm] Tournament {tid} is over", at, "tournament",
                       {"t": shown, "over": True}, listed="notices")

    # Mail

    def handle(self, key: str, raw: bytes, sender: str, text: str) -> str | None:
        """``join`` or ``tournament``: answered, and None; or why it was refused (its sender is told)."""
        at = time_of(key)
        limit = self.master.limits.league_answers_per_day  # the league's allowance: names, seeks, tournaments
        if self.master.counts.add(at, f"league {sender}") > limit:
            raise Shunted(f"tournament: {sender} was sent {limit} mails about the league today already")
        digest = key_digest(key)
        found = JOIN.search(text)
        if found:
            return self._join(digest, raw, sender, found.group(1).lower(), at)
        found = SHOW.search(text)
        assert found, "handle() is only given what wants() takes"
        st = self.state(found.group(1).lower())
        if st is None:
            return self._refuse(digest, sender, f"tournament {found.group(1)[:20]}", at,
                                f"there is no tournament {found.group(1)[:20]}")
        self._send(f"tournament-{digest}", sender, f"[gm] Tournament {st.record.id}", at, "tournament",
                   {"t": view.shown(st, public_names(self.master.store)),
                    "over": data.ended(self.master.store, st.record.id)})
        return None

    def _join(self, digest: str, raw: bytes, sender: str, tournament_id: str, at: datetime) -> str | None:
        what = f"join {tournament_id[:20]}"
        why = self._unjoinable(tournament_id, sender, at)
        if why:
            return self._refuse(digest, sender, what, at, why)
        request_id = "j" + digest[:10]
        keep_request(self.master.store, raw, request_id,
                     {"kind": "join", "address": sender, "tournament": tournament_id})
        reply_to = reply_address(self.master, request_id)
        self.master.outside.send(f"{request_id}.confirm", sender, f"[gm] Confirm you join tournament {tournament_id}",
                                 at, "tournament_join_confirm", {"id": tournament_id}, "auto-replied",
                                 reply_to=reply_to)
        return None

    def _unjoinable(self, tournament_id: str, address: str, at: datetime) -> str | None:
        store = self.master.store
        rec = data.record(store, tournament_id)
        if rec is None:
            return f"there is no tournament {tournament_id[:20]}"
        if data.rounds(store, rec.id) or at >= data.opens_at(store, rec):
            return f"tournament {rec.id} has started: sign-up is closed"
        if address.lower() in {e.lower() for e in data.entrants(store, rec)}:
            return f"you are signed up for tournament {rec.id} already"
        return None

    def confirm(self, key: str, message: Message, item_id: str, secret: str) -> None:
        """A reply ``confirm`` to the confirmation of a sign-up: the sender is
        signed up, unless the tournament started (or they joined) meanwhile."""
        store, at = self.master.store, time_of(key)
        _, fields = confirmed_request(store, message, item_id, CONFIRMING, secret, f"confirmed-{item_id}")
        address, tournament_id = fields["address"], fields["tournament"]
        why = self._unjoinable(tournament_id, address, at)
        if why:
            self._refuse(key_digest(key), address, f"join {tournament_id}", at, why)
        else:
            rec = data.record(store, tournament_id)
            assert rec is not None
            data.add_join(store, rec.id, address, at)
            self._send(f"{item_id}.done", address, f"[gm] You joined tournament {rec.id}", at, "tournament_joined",
                       {"id": rec.id, "game": game_named(rec.game).title, "format": rec.system.value,
                        "starts": rec.signup_until.isoformat() if rec.signup_until else None})
        store.handled.add(f"confirmed-{item_id}")

    def _refuse(self, digest: str, sender: str, what: str, at: datetime, why: str) -> str:
        self._send(f"refused-{digest}", sender, "[gm] Refused: " + what, at, "league_refused",
                   {"what": what, "why": why})
        return f"{what}: {why}"

