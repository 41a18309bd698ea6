"""The game master: handles spooled mail, one message at a time, in order.

Each spooled message passes the screening's named rules, in order, as in
Mailman 3 (`gm.pbem.master.screening`); each rule lets it through or decides: the
message is handled (applied, or answered), dropped (nothing to do), or goes
to the shunt with the reason (never lost). Each decision is logged with the
rule's name:

    poison -> handled-before -> gm-event
           -> own-mail -> bounce -> automatic -> no-sender
           -> challenge-reply -> league-reply -> settings-reply -> vacation-reply -> deputy-reply
           -> join-reply -> owner-reply -> move-reply -> unsubscribe -> owner-request -> games-list
           -> ratings -> challenge -> league -> tournament -> vacation -> deputy -> settings -> no-game
           -> finished-match -> retired-address -> forged
           -> daily-cap -> duplicate -> accept

Mail about no game (challenges, the games list) is answered by
`gm.pbem.answers.outside`, the ratings by `gm.pbem.answers.ratings`, about
public names and seeks by `gm.pbem.answers.league`, about a player's own
settings by `gm.pbem.answers.settings` (a vacation for all games by
`gm.pbem.answers.away`, deputies by `gm.pbem.answers.deputies`), about tournaments by
`gm.pbem.answers.tournaments` (which also starts their rounds, at each pass
over the spool), the owner's by `gm.pbem.answers.owner`.

Applying a message is made of steps that are each safe to redo after a
crash (`gm.pbem.master.applying`), so that every message is applied exactly
once and every reply queued exactly once.

On start, `load` opens every game (`gm.pbem.state.loading`: from its snapshot
when that is current, else rebuilt from its archive) and redoes step 2 for
the last event of each game, which is the only one a crash can have left
half done. Only a bounded number of whole games stay in memory
(`gm.pbem.state.resident`); the others are known by a summary and loaded when
their mail comes. A write that fails (a full disk, no file handles left) is a
temporary fault: the game is rebuilt from its archive the same way, and the
message stays in the spool for the next pass. A message during which the
daemon itself died (as the out-of-memory killer would kill it) is handled
next alone, in a batch of its own; one during which it died so
`gm.pbem.master.screening.ALONE_DEATHS` times goes to the shunt instead of being
tried again (the rule ``poison``). A crash that caught a message in a batch
with others never counts against it: the batch is handled again, each of
its messages applied once.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from datetime import time as time_of_day
from email.message import EmailMessage

from ...kernel.actions import operator_refusal
from ...kernel.values import PlayerMail
from ...logs import event as log_event
from ...storage.maildirs import unix_lines
from ..answers.away import BANK, VacationDesk
from ..answers.deputies import DeputyDesk
from ..answers.league import LeagueMail
from ..answers.outside import OutsideMail
from ..answers.owner import OwnerMail
from ..answers.settings import SettingsDesk
from ..answers.tournaments import TournamentDesk
from ..answers.unsubscribe import Unsubscribing
from ..archive.creation import created_event, parse_fields, seats_and_options, settings_lines
from ..archive.events import EVENT_HEADER, event_message, exact_time
from ..archive.replay import to_event
from ..data.crashpoints import crashpoint
from ..data.settings import settings_of
from ..data.store import OUTSIDE_ORIGINS, Store, origin_of, time_of
from ..data.tokens import instance_tag
from ..intake.decisions import SHUNTED, Shunted, shunted
from ..intake.limits import DailyCounts, Limits
from ..state import index
from ..state.everywhere import AllGames
from ..state.resident import CAPACITY, Games, Live
from ..writing.mailer import GAME_HEADER, Identity
from . import faults
from .applying import Applying
from .clockwork import Clockwork
from .digests import DIGEST, DIGEST_TIME, Digests
from .fills import FILL, Fills
from .incoming import Incoming
from .robots import RobotSeats
from .routing import Router
from .screening import SCREENING, Rule, Screening

log = logging.getLogger("gm")

Clock = Callable[[], datetime]


MORE_ROUNDS = 8
"""How often one pass over the spool looks again for what it spooled itself
(the robot's answers, a game a challenge made), so that a game against the
robot is played in one sitting while the pass still ends."""


def utc_now() -> datetime:
    return datetime.now(UTC)


SNAPSHOT_AFTER = 60.0
"""Seconds a changed game waits before its snapshot is written (at the end of
a pass over the spool): a busy game is not pickled after every mail."""
INDEX_AFTER = 300.0
"""Seconds between two writes of the start-up index (`gm.pbem.state.index`)
while the daemon serves: an index that is older only makes the next start
open more games from their archives."""
BATCH_MESSAGES = 64
"""Spooled messages handled in one batch (one group commit) at most."""
BATCH_SECONDS = 0.5
"""A batch ends once its messages took this long, however many they are."""


class GameMaster(Clockwork, Digests, Fills, Applying, RobotSeats, Screening):
    """Every game of one data directory, and the handling of their mail."""

    def __init__(self, store: Store, identity: Identity = Identity(), clock: Clock = utc_now, limits: Limits = Limits(),
                 catch_up: timedelta = timedelta(0), owner: str | None = None, capacity: int = CAPACITY,
                 web_url: str | None = None, vacation_bank: timedelta = BANK, digest_time: time_of_day = DIGEST_TIME):
        self.store = store
        self.digest_time = digest_time
        """When a player's daily digest is due, in their own time (`gm.pbem.master.digests`)."""
        self.web_url = web_url
        """The web archive's public address, for one-click unsubscribe links (`gm.pbem.writing.lists`)."""
        self.catch_up = catch_up
        """How long deadlines that passed while gm was down wait after start."""
        self.started: datetime | None = None
        self.identity = identity
        self.clock = clock
        self.limits = limits
        self.games = Games(self._load_whole, self._save_leaving, capacity)
        """Every game: summaries of all, the whole of those handled lately."""
        self.all_games = AllGames(self.games, store, identity)
        """Every game, this master's and (of several) the others' read from the disk."""
        self.counts = DailyCounts(store.limits_path)
        self.router = Router(store, store.part, identity) if store.part is not None else None
        """Which spooled mail is this master's, when it is one of several (`gm.masters`)."""
        self.outside = OutsideMail(self)
        self.league = LeagueMail(self)
        self.desk = SettingsDesk(self)
        self.unsubscribing = Unsubscribing(self, self.desk)
        self.vacation_bank = vacation_bank
        self.vacations = VacationDesk(self)
        """A vacation for all of a player's games (`gm.pbem.answers.away`)."""
        self.deputies = DeputyDesk(self)
        """Players' deputies (`gm.pbem.answers.deputies`)."""
        """Public names and open seeks (`gm.pbem.answers.league`)."""
        self.tournaments = TournamentDesk(self)
        """Tournaments: their rounds, ``join`` and ``tournament`` (`gm.pbem.answers.tournaments`)."""
        self.owner = OwnerMail(self, owner)
        """The operator's mail (`gm.pbem.answers.owner`): actions by mail, the daily summary."""
        self.handled_keys: set[str] = set()
        """Spool keys archived in some game: those still spooled at start-up,
        the clock's events of each game's turn (so none is spooled twice),
        and those handled since start-up (mail from outside only until its
        spool file is gone; the GM's own events for the life of the process)."""
        self._left: list[Live] = []
        """Changed games that left memory during the open batch, to be saved after its commit."""
        self._entries: dict[str, index.Entry] = {}
        self._index_written = float("-inf")
        self._index_file: index.Index | None = None
        self.index_due = False
        self.unfinished: set[str] = set()
        """Games whose last event's replies a fault left unqueued."""
        self.unopened: dict[str, Exception] = {}
        self._robot_games: set[str] = set()
        """Games that may wait for their robot (`gm.pbem.master.robots`)."""
        self._queue: list[str] = []
        """The games left pending by an upgrade, in the order `Keeping.prepare` loads them."""
        self.stuck: dict[str, datetime] = {}
        """Games whose deadline event went to the shunt, and that deadline:
        they wait for the operator instead of spooling it again and again."""
        self.fault: str | None = None
        """Why the last pass over the spool stopped early (a temporary fault)."""

    def due(self, now: datetime | None = None) -> int:
        """Spool the deadlines, reminders, digests and seeks' fills whose time has come."""
        now = now or self.clock()
        if not self.front:  # digests and fills name no game: the front's, which sees every game
            return super().due(now)
        return super().due(now) + self.digests_due(now) + self.fills_due(now)

    def next_wakeup(self) -> datetime | None:
        """When the next deadline, reminder, digest or seek's fill falls due, or a tournament's sign-up
        closes, if any."""
        front = (self.tournaments.next_start(), self.next_digest(self.clock()), self.next_fill()) if self.front else ()
        moments = [m for m in (super().next_wakeup(), *front) if m is not None]
        return min(moments) if moments else None

    # The spool

    def process_spool(self) -> int:
        """Handle every message waiting in the spool, oldest first, in
        batches (`Store.batch`, a group commit): what a batch writes becomes
        durable at once when it ends, before any of its messages leaves the
        spool and before the delivery may send any of its replies. A
        batch ends after `BATCH_MESSAGES` messages or `BATCH_SECONDS`, so
        that the first replies do not wait for a long spool.

        A temporary fault (the data directory cannot be written) stops the
        pass: what the batch did before it is committed (or, if the fault
        keeps it from being committed, kept to be committed first by the
        next pass), the message stays spooled and the next pass tries
        again. A batch that cannot be made durable raises
        `gm.storage.batches.CommitError`: the games in memory are then ahead of the
        disk, and the daemon must stop (and start again from the disk, as
        after a crash)."""
        count = 0
        hold = self._held_from(self.clock())
        try:
            self.store.commit_pending()  # a full disk kept the last batch back: first of all
            for game_id in sorted(self.unfinished):
                self._open_game(game_id)
            for _ in range(1 + MORE_ROUNDS):  # then what the pass spooled: the robot's answers, challenges' games
                self.robots_due()
                if self.front:
                    self.tournaments.advance(self.clock())  # a round whose games all ended: the next one's games
                # Catching up, what came after a missed deadline waits for it.
                keys = [k for k in self.store.spool.keys() if hold is None or time_of(k) < hold]
                if self.router is not None:
                    keys = self.router.mine(keys)
                if not keys:
                    break
                while keys:
                    handled = self._batch(keys)
                    count += handled
                    keys = keys[handled:]
        except OSError as error:
            self._left.clear()  # their batch may not be on disk: they are rebuilt from it when needed
            if self.fault is None:
                log.warning("spool paused: the data directory cannot be written (%s); mail stays spooled",
                            error.strerror or error)
            self.fault = error.strerror or str(error)
            return count
        if self.fault is not None:
            log.info("spool resumed")
            self.fault = None
        self.save_snapshots(SNAPSHOT_AFTER)
        self.save_index(INDEX_AFTER)
        return count

    def _batch(self, keys: list[str]) -> int:
        """Handle the first of ``keys`` in one batch (`BATCH_MESSAGES`, or
        `BATCH_SECONDS`), committed when it ends; how many it handled. A
        message during which gm died before is handled in a batch of its
        own (`gm.pbem.data.attempts.Attempts.died`): the messages before it are
        committed first, and a death now is its own doing."""
        ends = time.monotonic() + BATCH_SECONDS
        handled = 0
        with self.store.batch():
            for key in keys[:BATCH_MESSAGES]:
                alone = self.store.attempts.died(key)
                if alone and handled:
                    break  # committed first; it is handled alone in the next batch
                self.handle(key, alone)
                handled += 1
                crashpoint("between-messages")
                if alone or time.monotonic() > ends:
                    break
        self._save_left()
        return handled

    def handle(self, key: str, alone: bool = False) -> None:
        """Handle one spooled message completely, then drop it from the spool:
        the screening's rules decide it, in order (`gm.pbem.master.screening`). A
        message gm fails on (a bug, or a game that does not load) goes to the
        shunt with the error, marked as gm's own fault, so that it is kept,
        the spool still moves on, and it is tried again once the fault can
        be gone (`gm.pbem.master.faults`). An OSError (a temporary
        fault) is raised, with the game rebuilt and the message still spooled.
        ``alone``: it is the only message of its batch (see `_batch`)."""
        raw = self.store.spool.get_bytes(key)
        attempts = self.store.attempts.begin(key, alone)
        self.counts.begin(key)  # what it counts is its own: handled again, it counts nothing twice
        mail = Incoming(key, raw, attempts, self.identity, self.store.attempts.alone(key))
        try:
            if not self._screen(mail, SCREENING[:1]):  # poison: not even begun again
                crashpoint("mid-handle")
                self._screen(mail, SCREENING[1:])
        except Shunted as reason:
            self._shunt(raw, key, str(reason), reason.rule)
        except OSError:
            self.store.attempts.end(key)  # not the message's fault: no attempt counted
            self.counts.end()
            raise
        except faults.GameNotLoaded as error:  # logged where it failed; retried once the game loads (`faults`)
            self._shunt(raw, key, faults.game_not_loaded(error))
        except Exception as error:
            log.exception("gm failed on %s; it goes to the shunt", key)
            self._shunt(raw, key, faults.failed_on_mail(error))
        self.store.spool.remove(key)
        self.store.attempts.end(key)
        self.counts.end()
        if origin_of(key) in OUTSIDE_ORIGINS:  # the clock's own keys stay: see `_spool_event`
            self.handled_keys.discard(key)

    def _screen(self, mail: Incoming, rules: tuple[Rule, ...]) -> bool:
        """Run ``rules`` on ``mail`` until one decides; record its decision
        with its name (a shunt is raised as `Shunted`, for `handle`).
        Whether one decided."""
        for rule in rules:
            try:
                decision = rule.decide(self, mail)
            except Shunted as reason:  # an answer that could not be given
                decision = shunted(str(reason))
            if decision is None:
                continue
            if decision.outcome == SHUNTED:
                raise Shunted(decision.reason, rule.name)
            log_event(f"mail {decision.outcome}", logging.DEBUG, key=mail.key, rule=rule.name,
                      reason=decision.reason or None)
            return True
        return False

    def _shunt(self, raw: bytes, key: str, reason: str, rule: str | None = None) -> None:
        log_event("mail shunted", key=key, rule=rule, reason=reason)
        self.store.shunt_message(raw, key, reason)

    # Loading

    def load(self, write_index: bool = True) -> None:
        """Open every game (`Keeping.load`); then spool again the mail that
        was shunted through gm's own fault, where that fault can be gone (a
        game that loads cleanly now, other code: `gm.pbem.master.faults`)."""
        super().load(write_index)
        part = self.store.part
        faults.retry(self.store, self.clock(), self._loads_cleanly,
                     (lambda game: part.owner(game or "") == part.index) if part is not None else None)

    @property
    def front(self) -> bool:
        """Whether this master takes the mail that names no game: the only
        one, or the first of several (`gm.pbem.data.store.Part`)."""
        return self.store.part is None or self.store.part.front

    def _load_whole(self, game_id: str) -> Live:
        """Load a whole game for `Games`. A failure that is no temporary
        fault of the disk (an OSError, which pauses the spool) is gm's own:
        it is logged, and raised as `faults.GameNotLoaded`, so that the mail
        that needed the game is shunted as such and retried later."""
        try:
            return self._load_live(game_id)
        except OSError:
            raise
        except Exception as error:
            log.exception("game %s could not be loaded", game_id)
            raise faults.GameNotLoaded(game_id, error) from error

    def _loads_cleanly(self, game_id: str) -> bool:
        if game_id not in self.games:
            return False
        try:
            self.games.live(game_id)
        except Exception:  # logged by `_load_whole`, or a fault of the disk: its mail waits for the next start
            return False
        return True

    # GM events: creation, deadlines, reminders

    def _gm_event(self, key: str, stored: bytes, message: EmailMessage) -> None:
        kind = str(message[EVENT_HEADER]).strip()
        if kind == "create":
            fields = parse_fields(message.get_content())
            game_id = fields.get("id") or self.store.next_game_id()  # reserved by gm new, or ours to choose
            if not re.fullmatch(r"g\d+", game_id) or game_id in self.games or self.store.archive(game_id).keys():
                raise Shunted(f"creation request for game {game_id!r}, which is taken or no game id")
            at = time_of(key)
            instance = instance_tag(self.store.key, game_id, exact_time(at))
            seats, _, _ = seats_and_options(fields)
            own = settings_lines(seats, lambda address: settings_of(self.store, address))
            created = event_message(self.identity, "created", at,
                                    f"<created.{game_id}.{instance}@{self.identity.domain}>",
                                    game_id, [*message.get_content().splitlines(), f"instance: {instance}", *own])
            event = created_event(at, game_id, fields | {"instance": instance} | parse_fields("\n".join(own)))
            self._archive_and_apply(game_id, unix_lines(created), key, event)
            self.vacations.started(game_id, at)
            log_event("game created", game=game_id, kind=event.game, variant=event.variant)
            return
        if kind == DIGEST:
            self.send_digest(key, message)
            return
        if kind == FILL:
            self.run_fill(message)
            return
        game_id = str(message.get(GAME_HEADER, "")).strip()
        if game_id not in self.games:
            raise Shunted(f"GM event {kind} for unknown game {game_id!r}")
        if any(k.endswith(f".in.{key}") for k in self.store.archive(game_id).keys()):
            # Applied before a crash, then spooled again by a redo of what spooled it (`handled_keys` is recent only).
            return
        action = to_event(stored, game_id)
        if isinstance(action, PlayerMail) and self.robot_stale(key, game_id, action.player):
            return
        refused = operator_refusal(self.games[game_id], action)  # an action of the operator's that cannot be done
        if refused:
            raise Shunted(f"the operator's {kind} of {game_id} was not done: {refused}")
        self._archive_and_apply(game_id, stored, key, action)
