"""The GM's clock: which deadlines and reminders fall due, and when.

Deadlines and reminders are events of the GM's own, spooled like mail under
the moment they fell due (so that they sort before mail that came after
them) and archived like mail, so a replay repeats them exactly. After an
outage, deadlines that passed while gm was down wait `catch_up` for mail
that waited meanwhile in the MTA's queue or the IMAP folder, and the spool
is handled only up to the first of them until then (`_held_from`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from ...kernel.values import ENDED
from ...logs import event as log_event
from ..archive.events import clock_event_name, event_message
from ..data.store import Store, spool_key
from ..state.resident import Games, GameSummary
from ..writing.mailer import Identity


class Clockwork:
    """The clock's part of `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    clock: Callable[[], datetime]
    games: Games
    handled_keys: set[str]
    started: datetime | None
    catch_up: timedelta
    stuck: dict[str, datetime]

    def due(self, now: datetime | None = None) -> int:
        """Spool the deadline and reminder events whose time has come.

        An event is spooled under the moment it fell due (so it sorts before
        mail that came after it) and carries the moment gm acted on it, which
        is later when the daemon was down: the next turn's time runs from
        then, so an outage never makes deadlines fall one after another."""
        now = now or self.clock()
        count = 0
        for game in self.games.all():
            if game.phase == ENDED or game.deadline is None:
                continue
            if game.id in self.games.pending:
                # Another gm's summary: acted on once the game is loaded, which
                # `Keeping.prepare` does first for the deadlines due soonest.
                continue
            reminder = game.reminder_due()
            if reminder is not None and reminder <= now < game.deadline and game.to_remind():
                count += self._spool_event(game, "reminder", reminder, now)
            if game.deadline <= now and now >= self._catching_up_until(game.deadline):
                count += self._spool_event(game, "deadline", game.deadline, now)
        return count

    def _catching_up_until(self, deadline: datetime) -> datetime:
        """When a deadline may fire: at once, unless it passed while gm was
        down; then not before `catch_up` after the start, so that mail which
        waited in the MTA's queue or the IMAP folder (dated by when it got
        there, `gm.pbem.intake.arrival`) comes in first and counts."""
        if self.started is not None and deadline < self.started:
            return self.started + self.catch_up
        return deadline

    def _held_from(self, now: datetime) -> datetime | None:
        """While catching up, the earliest deadline that passed while gm was
        down: spooled mail dated from then on waits until that deadline has
        run, so that it counts for the next turn, as it would have had gm
        been up. None when nothing is held."""
        if self.started is None or now >= self.started + self.catch_up:
            return None
        missed = [g.deadline for g in self.games.all()
                  if g.phase != ENDED and g.deadline is not None and g.deadline < self.started]
        return min(missed) if missed else None

    def _spool_event(self, game: GameSummary, kind: str, due: datetime, now: datetime) -> int:
        stamp = due.strftime("%Y%m%dT%H%M%S.%fZ")
        name = clock_event_name(kind, game.id, game.turn, due)
        key = spool_key(due, "clock", name)
        if key in self.store.spool or key in self.handled_keys:
            return 0
        if key in self.store.shunt:  # gm failed on it: never spool it again, and say so once
            if self.stuck.get(game.id) != due:
                self.stuck[game.id] = due
                log_event(f"{kind} stuck", logging.ERROR, game=game.id, key=key,
                          reason="its event is in the shunt; the game waits for the operator")
            return 0
        body = [f"The {kind} for {'setup' if game.turn == 0 else f'turn {game.turn}'} of game {game.id}, due at "
                f"{stamp}."]
        raw = event_message(self.identity, kind, max(now, due), f"<{name}@{self.identity.domain}>", game.id, body,
                            deadline=due if kind == "deadline" else None)
        self.store.spool.add(raw, key)
        self.stuck.pop(game.id, None)  # the operator took its shunted event away: it runs again
        log_event(f"{kind} due", game=game.id, turn=game.turn)
        return 1

    def next_wakeup(self) -> datetime | None:
        """When the next deadline or reminder falls due, if any."""
        moments = []
        for game in self.games.all():
            if self.stuck.get(game.id) == game.deadline:
                continue
            if game.phase != ENDED and game.deadline is not None:
                moments.append(max(game.deadline, self._catching_up_until(game.deadline)))
                reminder = game.reminder_due()
                if reminder is not None and game.to_remind():
                    moments.append(reminder)
        return min(moments) if moments else None
