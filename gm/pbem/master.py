"""The game master: handles spooled mail, one message at a time, in order.

Each spooled message passes through a chain of small steps, as in Mailman's
pipeline; each step either lets it through or ends its handling with a
reason (and the message goes to the shunt, never lost):

    parse -> duplicate? -> GM event? -> automatic? -> own mail? -> route
          -> authenticate -> daily cap -> apply

Mail about no game (challenges, the games list) is answered by
`gm.pbem.outside`.

Applying a message is made of steps that are each safe to redo after a
crash, so that every message is applied exactly once and every reply queued
exactly once:

1. the message is archived in its game under the next sequence number (a
   redo finds it there by its spool key and does not archive it again);
2. the engine applies the event; the GM's replies are rendered, archived
   masked, and queued in the outbox under deterministic keys (a redo writes
   nothing that is already there or already sent);
3. it leaves the spool.

On start, `load` opens every game (`gm.pbem.loading`: from its snapshot
when that is current, else rebuilt from its archive) and redoes step 2 for
the last event of each game, which is the only one a crash can have left
half done. Only a bounded number of whole games stay in memory
(`gm.pbem.resident`); the others are known by a summary and loaded when
their mail comes. A write that fails (a full disk, no file handles left) is a
temporary fault: the game is rebuilt from its archive the same way, and the
message stays in the spool for the next pass. A message during which the
daemon itself died `MAX_ATTEMPTS` times (as the out-of-memory killer would
kill it) goes to the shunt instead of being tried again.
"""

from __future__ import annotations

import re

import logging
import time

from flufl.bounce import all_failures
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage, Message
from typing import Callable

from ..mail.reading import addresses, parse_message, sender_trouble
from .addressing import envelope_from, plus_tags
from ..mail.screening import automatic_reason, is_own_mail
from ..kernel import engine
from .archive import (
    ACCEPTED_HEADER, BOUNCE_HEADER, EVENT_HEADER, FORMAT, Threads, event_message, exact_time,
    answering, notice_messages, orders_text, player_message_id, prepend_header, to_event,
)
from .loading import digest as _digest
from .resident import CAPACITY, Games, Live, summary_of
from .creation import created_event, parse_fields
from .clockwork import Clockwork
from .keeping import Keeping
from .robots import RobotSeats
from .crashpoints import crashpoint
from ..kernel.engine import Bouncing, Created, Notice, PlayerMail, operator_refusal
from .limits import DailyCounts, Limits, normalized
from .mailer import GAME_HEADER, Identity, as_bytes, build
from ..kernel.model import ENDED, MailGame
from .outside import CHALLENGE, GAMES, OutsideMail, Shunted, challenge_tag
from . import moving
from .moving import move_tag
from .owner import OwnerMail, owner_tag
from .store import OUTSIDE_ORIGINS, TRUSTED_ORIGINS, Store, origin_of, time_of
from ..logs import event as log_event
from ..storage import unix_lines
from .tokens import instance_tag, mask, reveal, token, verify

__all__ = ["GameMaster", "Limits", "Shunted", "utc_now"]

log = logging.getLogger("gm")

Clock = Callable[[], datetime]


MORE_ROUNDS = 8
"""How often one pass over the spool looks again for what it spooled itself
(the robot's answers, a game a challenge made), so that a game against the
robot is played in one sitting while the pass still ends."""


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


BOUNCED = "their mail server refused the GM's mail for good (a bounce came back)"
"""What the opponent is told of a bounce: never its text, which names the address."""
MAX_ATTEMPTS = 3
"""Times the daemon may die while handling one message before it goes to the shunt."""
SNAPSHOT_AFTER = 60.0
"""Seconds a changed game waits before its snapshot is written (at the end of
a pass over the spool): a busy game is not pickled after every mail."""
BATCH_MESSAGES = 64
"""Spooled messages handled in one batch (one group commit) at most."""
BATCH_SECONDS = 0.5
"""A batch ends once its messages took this long, however many they are."""


class GameMaster(Clockwork, Keeping, RobotSeats):
    """Every game of one data directory, and the handling of their mail."""

    def __init__(self, store: Store, identity: Identity = Identity(), clock: Clock = utc_now, limits: Limits = Limits(),
                 catch_up: timedelta = timedelta(0), owner: str | None = None, capacity: int = CAPACITY):
        self.store = store
        self.catch_up = catch_up
        """How long deadlines that passed while gm was down wait after start."""
        self.started: datetime | None = None
        self.identity = identity
        self.clock = clock
        self.limits = limits
        self.games = Games(self._load_live, self._save_leaving, capacity)
        """Every game: summaries of all, the whole of those handled lately."""
        self.counts = DailyCounts(store.root / "limits")
        self.outside = OutsideMail(self)
        self.owner = OwnerMail(self, owner)
        """The operator's mail (`gm.pbem.owner`): actions by mail, the daily summary."""
        self.handled_keys: set[str] = set()
        """Spool keys archived in some game: those still spooled at start-up,
        the clock's events of each game's turn (so none is spooled twice),
        and those handled since start-up (mail from outside only until its
        spool file is gone; the GM's own events for the life of the process)."""
        self._left: list[Live] = []
        """Changed games that left memory during the open batch, to be saved after its commit."""
        self.unfinished: set[str] = set()
        """Games whose last event's replies a fault left unqueued."""
        self._robot_games: set[str] = set()
        """Games that may wait for their robot (`gm.pbem.robots`)."""
        self.stuck: dict[str, datetime] = {}
        """Games whose deadline event went to the shunt, and that deadline:
        they wait for the operator instead of spooling it again and again."""
        self.fault: str | None = None
        """Why the last pass over the spool stopped early (a temporary fault)."""

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
        `gm.storage.CommitError`: the games in memory are then ahead of the
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
                # Catching up, what came after a missed deadline waits for it.
                keys = [k for k in self.store.spool.keys() if hold is None or time_of(k) < hold]
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
        return count

    def _batch(self, keys: list[str]) -> int:
        """Handle the first of ``keys`` in one batch (`BATCH_MESSAGES`, or
        `BATCH_SECONDS`), committed when it ends; how many it handled."""
        ends = time.monotonic() + BATCH_SECONDS
        with self.store.batch():
            for handled, key in enumerate(keys[:BATCH_MESSAGES], 1):
                self.handle(key)
                crashpoint("between-messages")
                if time.monotonic() > ends:
                    break
        self._save_left()
        return handled

    def handle(self, key: str) -> None:
        """Handle one spooled message completely, then drop it from the spool.
        A message gm fails on (a bug) goes to the shunt with the error, so that
        it is kept and the spool still moves on; so does one during which the
        daemon died too often. An OSError (a temporary fault) is raised, with
        the game rebuilt and the message still spooled."""
        raw = self.store.spool.get_bytes(key)
        attempts = self.store.attempts.begin(key)
        if attempts > MAX_ATTEMPTS:
            self._shunt(raw, key, f"gm stopped {attempts - 1} times while handling this mail; it is not tried again")
        else:
            try:
                crashpoint("mid-handle")
                self._pipeline(key, raw)
            except Shunted as reason:
                self._shunt(raw, key, str(reason))
            except OSError:
                self.store.attempts.end(key)  # not the message's fault: no attempt counted
                raise
            except Exception as error:
                log.exception("gm failed on %s; it goes to the shunt", key)
                self._shunt(raw, key, f"gm failed on this mail: {type(error).__name__}: {error}".replace("\n", " "))
        self.store.spool.remove(key)
        self.store.attempts.end(key)
        if origin_of(key) in OUTSIDE_ORIGINS:  # the clock's own keys stay: see `_spool_event`
            self.handled_keys.discard(key)

    def _shunt(self, raw: bytes, key: str, reason: str) -> None:
        log_event("mail shunted", key=key, reason=reason)
        self.store.shunt_message(raw, key, reason)

    def _pipeline(self, key: str, raw: bytes) -> None:
        # A spool file handled before a crash, whose removal was lost: it is
        # archived in a game, or in the shunt; anything else is safe to redo.
        if key in self.handled_keys or key in self.store.shunt:
            return
        message = parse_message(raw)
        if origin_of(key) in TRUSTED_ORIGINS and message.get(EVENT_HEADER):
            self._gm_event(key, raw, message)
            return
        self._player_mail(key, raw, message)

    # GM events: creation, deadlines, reminders

    def _gm_event(self, key: str, raw: bytes, message: EmailMessage) -> None:
        kind = str(message[EVENT_HEADER]).strip()
        if kind == "create":
            fields = parse_fields(message.get_content())
            game_id = fields.get("id") or self.store.next_game_id()  # reserved by gm new, or ours to choose
            if not re.fullmatch(r"g\d+", game_id) or game_id in self.games or self.store.archive(game_id).keys():
                raise Shunted(f"creation request for game {game_id!r}, which is taken or no game id")
            at = time_of(key)
            instance = instance_tag(self.store.key, game_id, exact_time(at))
            created = event_message(self.identity, "created", at, f"<created.{game_id}.{instance}@{self.identity.domain}>",
                                    game_id, [*message.get_content().splitlines(), f"instance: {instance}"])
            event = created_event(at, game_id, fields | {"instance": instance})
            self._archive_and_apply(game_id, created, key, event)
            log_event("game created", game=game_id, kind=event.game, variant=event.variant)
            return
        game_id = str(message.get(GAME_HEADER, "")).strip()
        if game_id not in self.games:
            raise Shunted(f"GM event {kind} for unknown game {game_id!r}")
        if any(k.endswith(f".in.{key}") for k in self.store.archive(game_id).keys()):
            return  # applied before a crash, then spooled again by a redo of what spooled it (`handled_keys` is recent only)
        action = to_event(raw, game_id)
        if isinstance(action, PlayerMail) and self.robot_stale(key, game_id, action.player):
            return
        refused = operator_refusal(self.games[game_id], action)  # an action of the operator's that cannot be done
        if refused:
            raise Shunted(f"the operator's {kind} of {game_id} was not done: {refused}")
        self._archive_and_apply(game_id, raw, key, action)

    # Players' mail

    def _player_mail(self, key: str, raw: bytes, message: Message) -> None:
        if is_own_mail(message, {self.identity.address.lower()}):
            raise Shunted("the GM's own mail came back")
        why = automatic_reason(message, envelope_from(message))
        if why:
            if self._bounce(key, raw, message):
                return
            raise Shunted(f"automatic mail, never answered: {why}")
        sender = normalized((addresses(message, "From") or [""])[0])
        if not sender:
            raise Shunted(sender_trouble(message))
        tags = plus_tags(message, self.identity)
        challenge = challenge_tag(tags)
        if challenge:
            self.outside.answer(key, message, *challenge)
            return
        confirming = owner_tag(tags)
        if confirming:
            self.owner.answer(key, message, sender, *confirming)
            return
        moving_to = move_tag(tags)
        if moving_to:
            moving.answer(self, key, message, sender, *moving_to)
            return
        text, password = orders_text(message)
        if not tags and self.owner.wants(sender, text):  # the operator's actions, by mail
            self.owner.request(key, sender, text)
            return
        if not tags:  # to the GM's own address: not a game's
            if GAMES.search(text):
                self.outside.list_games(key, sender)
                return
            if CHALLENGE.search(text):
                self.outside.challenge(key, raw, sender, text)
                return
        game_id, player, token_given = self._route(sender, tags, password is not None)
        if game_id is None:
            why = ("it names a game that is not run here" if tags else
                   "it was sent to the GM's own address, not to a game's, and held no password line")
            self.outside.how_to_play(key, sender, why)
            raise Shunted(f"not addressed to any game: {why}")
        live = self.games.live(game_id)
        game = live.game
        secret = token_given or password
        if secret is not None and any(verify(self.store.key, subject, player, secret)
                                      for subject in game.earlier_secret_subjects):
            self.outside.how_to_play(key, sender, "it was sent to the address of a game of your match that is over")
            raise Shunted(f"player {player}'s mail to a finished game of match {game_id}")
        if secret is not None and any(verify(self.store.key, subject, player, secret)
                                      for subject in game.retired_secret_subjects(player)):
            raise Shunted(f"mail from an address of player {player} of {game_id} that the operator replaced")
        if secret is None or not verify(self.store.key, game.secret_subject_of(player), player, secret):
            self._warn_player(game, player, sender)
            raise Shunted(f"not proven to come from player {player} of {game_id}: no valid token or password")
        if self.counts.add(self.clock(), f"mail {sender}") > self.limits.replies_per_day:
            raise Shunted(f"more than {self.limits.replies_per_day} mails today from {sender}")
        message_id = player_message_id(message)
        if message_id is not None and _digest(text) in live.applied.get(message_id, ()):
            log_event("mail duplicate", key=key, message_id=message_id)
            return
        at = time_of(key)
        accepted = prepend_header(raw, ACCEPTED_HEADER,
                                  f"game={game_id}; player={player}; at={at.isoformat()}; format={FORMAT}")
        self._archive_and_apply(game_id, accepted, key, PlayerMail(at, player, text, message_id, *answering(message)))
        log_event("mail accepted", game=game_id, player=player, key=key)
        try:
            moving.asked(self, key, game, player, text)  # 'address NEW': the new address is asked to confirm
        except Shunted as reason:  # the mail itself is applied: only the confirmation is not sent
            log_event("move confirmation not sent", game=game_id, player=player, reason=str(reason))
        if GAMES.search(text):
            try:
                self.outside.list_games(key, game.seat(player).address.lower())
            except Shunted as reason:  # the mail itself is applied: only the list is not sent
                log_event("games list not sent", game=game_id, player=player, reason=str(reason))

    def _route(self, sender: str, tags: list[list[str]], password: bool) -> tuple[str | None, int, str | None]:
        """Which game and player a mail is for, from its plus-address
        (``gm+GAME.PLAYER.TOKEN@``); (None, 0, None) when it names no game.
        A mail with a ``password`` line may also name its game by coming from
        the address of a player of exactly one game that is not over. Mail
        to the GM's own address without one claims no game, so it is never
        taken for a forgery (a player's own auto-reply looks just like it)."""
        for parts in tags:
            if (len(parts) >= 2 and parts[0] in self.games and parts[1].isdigit()
                    and 1 <= int(parts[1]) <= len(self.games.summaries[parts[0]].seats)):
                if self.games.summaries[parts[0]].seat(int(parts[1])).robot:
                    raise Shunted(f"mail to the seat of {parts[0]} that the GM's robot holds")
                return parts[0], int(parts[1]), parts[2] if len(parts) > 2 else None
        if not password:
            return None, 0, None
        mine = [(g, s.player) for g in self.games.all() if g.phase != ENDED
                for s in g.seats if s.address.lower() == sender and not s.robot]
        if len(mine) == 1:
            return mine[0][0].id, mine[0][1], None
        if len(mine) > 1:
            raise Shunted(f"{sender} plays several games; the mail names none of them")
        return None, 0, None

    def _bounce(self, key: str, raw: bytes, message: Message) -> bool:
        """A bounce of the GM's mail to a player: the player's address is
        marked failing in each game it bounced from (an event, so the
        opponent is told and a replay repeats it). The game is not otherwise
        changed. Only a bounce that carries the player's token (as a returned
        copy of the GM's mail does, in its Reply-To) counts: anyone could
        forge a report that an address fails."""
        try:
            _, permanent = all_failures(message)
        except Exception:  # a report flufl.bounce cannot read is no bounce we act on
            return False
        failed = {address.decode("utf-8", "replace").strip("<>").lower() for address in permanent}
        lowered, applied = raw.lower(), False
        for game in self.games.all():
            if game.phase == ENDED:
                continue
            for seat in game.seats:
                if (seat.address.lower() in failed and seat.player not in game.bouncing
                        and any(token(self.store.key, subject, seat.player).encode() in lowered
                                for subject in [game.secret_subject_of(seat.player), *game.earlier_secret_subjects])):
                    at = time_of(key)
                    header = f"game={game.id}; player={seat.player}; at={at.isoformat()}; reason={BOUNCED}"
                    self._archive_and_apply(game.id, prepend_header(raw, BOUNCE_HEADER, header), key,
                                            Bouncing(at, seat.player, BOUNCED))
                    log_event("mail bouncing", logging.WARNING, game=game.id, player=seat.player, key=key)
                    applied = True
        return applied

    def _warn_player(self, game: MailGame, player: int, sender: str) -> None:
        """Tell the real player that someone tried to act as them: once a day
        per game at most, and only to the player's own address (no backscatter)."""
        day = self.clock().strftime("%Y-%m-%d")
        key = f"warning.{game.id}.{player}.{day}"
        if key in self.store.outbox or key in self.store.sent:
            return
        own = sender.lower() == game.seat(player).address.lower()
        notice = Notice(player, "forged_warning", "Someone tried to send orders as you",
                        game.rules.common(game, player, None) | {
                            # Only the player's own address is named: any other may be another player's.
                            "address": sender if own else None, "when": self.clock().strftime("%Y-%m-%d %H:%M UTC")})
        message = build(notice, game, self.identity, 0, 0, self.clock(), [])
        del message["Message-ID"]
        message["Message-ID"] = f"<{key}{'.' + game.instance if game.instance else ''}@{self.identity.domain}>"
        self.store.outbox.add(reveal(as_bytes(message), token(self.store.key, game.secret_subject_of(player), player)), key)

    # Applying

    def _archive_and_apply(self, game_id: str, raw: bytes, key: str, event) -> None:
        """Apply an event and write down what follows. Everything that can
        fail (the engine, the templates) runs first; only then is anything
        written, so a failure leaves the game as it was. A write that fails
        leaves the game rebuilt from what its archive holds (see `_recover`)."""
        live = None if isinstance(event, Created) else self.games.live(game_id)
        number = (live.number if live else 0) + 1
        archive = self.store.archive(game_id)
        try:
            if live is None:
                game, notices = engine.create(event)
                threads = Threads()
            else:
                game, threads = live.game, live.threads
                notices = engine.apply(game, event)
            messages = notice_messages(game, notices, self.identity, number, event.at, threads, archive=archive,
                                       pending=raw)  # (for archives from before the player's mailbox only)
            summary = summary_of(game)
        except Exception:
            self._recover(game_id)
            raise
        try:
            archive_key = archive.add(unix_lines(raw), f"{number:06d}.in.{key}", seen=True)
            self.handled_keys.add(key)  # archived: never applied again, whatever fails next
            crashpoint("after-archive")
            if live is None:
                live = Live(game, threads, number, archive_key, [], {}, time.monotonic())
            live.number, live.last_in = number, archive_key
            live.last_messages = [(k, player) for k, player, _ in messages]
            if isinstance(event, PlayerMail) and event.message_id:
                live.applied.setdefault(event.message_id, set()).add(_digest(event.text))
            if live.changed_at is None:
                live.changed_at = time.monotonic()
            self.games.keep(live, summary)
            if game.robots:
                self._robot_games.add(game_id)
            self._send(game_id, messages)
        except OSError:
            self._recover(game_id)
            raise
        if isinstance(event, PlayerMail) or notices:
            log_event("event applied", game=game_id, number=number, kind=type(event).__name__, phase=game.phase,
                      turn=game.turn, mails=len(messages))

    def _recover(self, game_id: str) -> None:
        """Rebuild a game from its archive after a failure left it half
        changed in memory. Until that succeeds the game is out of memory
        (so no mail reaches it) and in `unfinished`, which each pass over
        the spool retries first; finishing its last event's replies is part
        of rebuilding it, as after a crash."""
        self.games.forget(game_id)
        self.unfinished.add(game_id)
        try:
            self._open_game(game_id)
        except OSError:
            self.games.forget(game_id)

    def _send(self, game_id: str, messages: list[tuple[str, int, bytes]]) -> None:
        """Archive the GM's messages (masked) and queue them (with the real
        token); each step is skipped where a previous run already did it."""
        archive = self.store.archive(game_id)
        game = self.games.summaries[game_id]
        for archive_key, _, data in messages:
            archive.add(unix_lines(mask(data)), archive_key, seen=True)
        crashpoint("after-apply")
        for archive_key, player, data in messages:
            key = f"{game_id}.{archive_key}"
            # The outbox first: delivery takes a message out of it by renaming
            # it into sent/, so one of the two holds it whenever we look.
            if key in self.store.outbox or key in self.store.sent:
                continue
            self.store.outbox.add(reveal(data, token(self.store.key, game.secret_subject_of(player), player)), key)
            log_event("mail queued", game=game_id, player=player, key=key)
        crashpoint("after-queue")
