"""The game master: handles spooled mail, one message at a time, in order.

Each spooled message passes through a chain of small steps, as in Mailman's
pipeline; each step either lets it through or ends its handling with a
reason (and the message goes to the shunt, never lost):

    parse -> duplicate? -> GM event? -> automatic? -> own mail? -> route
          -> authenticate -> daily cap -> apply

Applying a message is made of steps that are each safe to redo after a
crash, so that every message is applied exactly once and every reply queued
exactly once:

1. the message is archived in its game under the next sequence number (a
   redo finds it there by its spool key and does not archive it again);
2. the engine applies the event; the GM's replies are rendered, archived
   masked, and queued in the outbox under deterministic keys (a redo writes
   nothing that is already there or already sent);
3. a marker records the message as handled, and it leaves the spool.

On start, `load` rebuilds every game from its archive and redoes step 2 for
the last event of each game, which is the only one a crash can have left
half done.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage, Message
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime
from typing import Callable

from ..mail.reading import addresses, parse_message
from ..mail.screening import automatic_reason, is_own_mail
from ..ruleset import ruleset_named
from . import engine, sheets
from .archive import (
    ACCEPTED_HEADER, EVENT_HEADER, Threads, event_message, exact_time, match_terms, notice_messages, orders_text, parse_fields,
    prepend_header, replay, seats_and_options, to_event,
)
from .engine import Created, Notice, PlayerMail
from .crashpoints import crashpoint
from .mailer import GAME_HEADER, Identity, as_bytes, build, render_text
from ..match import MatchTerms
from .model import ENDED, MailGame, Options
from .store import TRUSTED_ORIGINS, Store, origin_of, spool_key, time_of
from .tokens import instance_tag, mask, reveal, token, verify

log = logging.getLogger("gm")

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Limits:
    """Caps against floods and loops."""

    replies_per_day: int = 50
    """Mails a day handled from one address; past that they go to the shunt."""


class Shunted(Exception):
    """Ends a message's handling: it goes to the shunt with this reason."""


class GameMaster:
    """Every game of one data directory, and the handling of their mail."""

    def __init__(self, store: Store, identity: Identity = Identity(), clock: Clock = utc_now, limits: Limits = Limits()):
        self.store = store
        self.identity = identity
        self.clock = clock
        self.limits = limits
        self.games: dict[str, MailGame] = {}
        self.threads: dict[str, Threads] = {}
        self.numbers: dict[str, int] = {}
        """The number of the last event archived in each game."""
        self.daily: Counter[tuple[str, str]] = Counter()
        self.handled_keys: set[str] = set()
        """Spool keys of messages archived in some game."""
        self.applied_ids: set[str] = set()
        """Message-IDs of players' mail applied to some game."""

    # Start-up

    def load(self) -> None:
        """Rebuild every game from its archive; finish any half-done reply queueing.

        Only the last event of a game can have been cut short by a crash, and
        only then are its messages rendered again (rendering every game's
        last messages would make start-up slow with many games)."""
        for game_id in self.store.game_ids():
            archive = self.store.archive(game_id)
            keys = set(archive.keys())
            if not keys:
                continue
            game, threads, replayed = replay(archive, self.identity, game_id, render="none")
            last = replayed[-1]
            unfinished = [
                k for k, _, _ in last.messages
                if k not in keys or (f"{game_id}.{k}" not in self.store.sent and f"{game_id}.{k}" not in self.store.outbox)
            ]
            if unfinished:
                game, threads, replayed = replay(archive, self.identity, game_id, render="last")
                last = replayed[-1]
            self.games[game_id] = game
            self.threads[game_id] = threads
            self.numbers[game_id] = last.number
            if unfinished:
                self._send(game_id, last.messages)
            for key in keys:
                if ".in." in key:
                    self.handled_keys.add(key.split(".in.", 1)[1])
            self.applied_ids |= {r.event.message_id for r in replayed if isinstance(r.event, PlayerMail) and r.event.message_id}

    # The spool

    def process_spool(self) -> int:
        """Handle every message waiting in the spool, oldest first."""
        count = 0
        for key in self.store.spool.keys():
            self.handle(key)
            count += 1
        return count

    def handle(self, key: str) -> None:
        """Handle one spooled message completely, then drop it from the spool.
        A message gm fails on (a bug) goes to the shunt with the error, so that
        it is kept and the spool still moves on."""
        raw = self.store.spool.get_bytes(key)
        try:
            self._pipeline(key, raw)
        except Shunted as reason:
            log.info("shunted %s: %s", key, reason)
            self.store.shunt_message(raw, key, str(reason))
        except Exception as error:
            log.exception("gm failed on %s; it goes to the shunt", key)
            self.store.shunt_message(raw, key, f"gm failed on this mail: {type(error).__name__}: {error}".replace("\n", " "))
        self.store.spool.remove(key)

    def _pipeline(self, key: str, raw: bytes) -> None:
        # A spool file handled before a crash, whose removal was lost: it is
        # archived in a game, or in the shunt; anything else is safe to redo.
        if key in self.handled_keys or key in self.store.shunt:
            return
        message = parse_message(raw)
        if origin_of(key) in TRUSTED_ORIGINS and message.get(EVENT_HEADER):
            self._gm_event(key, raw, message)
            return
        message_id = str(message.get("Message-ID", "")).strip()
        if message_id and message_id in self.applied_ids:
            log.info("duplicate %s of %s: applied once already", key, message_id)
            return
        self._player_mail(key, raw, message)

    # GM events: creation, deadlines, reminders

    def _gm_event(self, key: str, raw: bytes, message: Message) -> None:
        kind = str(message[EVENT_HEADER]).strip()
        if kind == "create":
            fields = parse_fields(message.get_content())
            seats, variant, options = seats_and_options(fields)
            game_id = self.store.next_game_id()
            at = time_of(key)
            instance = instance_tag(self.store.key, game_id, exact_time(at))
            created = event_message(self.identity, "created", at, f"<created.{game_id}.{instance}@{self.identity.domain}>",
                                    game_id, [*message.get_content().splitlines(), f"instance: {instance}"])
            self._archive_and_apply(game_id, created, key, Created(at, game_id, seats, ruleset_named(variant), variant,
                                                                   options, match_terms(fields), instance))
            log.info("game created game=%s variant=%s", game_id, variant)
            return
        game_id = str(message.get(GAME_HEADER, "")).strip()
        if game_id not in self.games:
            raise Shunted(f"GM event {kind} for unknown game {game_id!r}")
        self._archive_and_apply(game_id, raw, key, to_event(raw, game_id))

    def due(self, now: datetime | None = None) -> int:
        """Spool the deadline and reminder events whose time has come.

        An event is spooled under the moment it fell due (so it sorts before
        mail that came after it) and carries the moment gm acted on it, which
        is later when the daemon was down: the next turn's time runs from
        then, so an outage never makes deadlines fall one after another."""
        now = now or self.clock()
        count = 0
        for game in self.games.values():
            if game.phase == ENDED or game.deadline is None:
                continue
            reminder = game.reminder_due()
            if reminder is not None and reminder <= now < game.deadline and [p for p in game.waiting_for if p not in game.reminded]:
                count += self._spool_event(game, "reminder", reminder, now)
            if game.deadline <= now:
                count += self._spool_event(game, "deadline", game.deadline, now)
        return count

    def _spool_event(self, game: MailGame, kind: str, due: datetime, now: datetime) -> int:
        stamp = due.strftime("%Y%m%dT%H%M%S.%fZ")
        name = f"{kind}-{game.id}-{game.turn}-{stamp}"
        key = spool_key(due, "clock", name)
        if key in self.store.spool or key in self.handled_keys:
            return 0
        body = [f"The {kind} for {'setup' if game.turn == 0 else f'turn {game.turn}'} of game {game.id}, due at {stamp}."]
        raw = event_message(self.identity, kind, max(now, due), f"<{name}@{self.identity.domain}>", game.id, body,
                            deadline=due if kind == "deadline" else None)
        self.store.spool.add(raw, key)
        log.info("%s due game=%s turn=%s", kind, game.id, game.turn)
        return 1

    def next_wakeup(self) -> datetime | None:
        """When the next deadline or reminder falls due, if any."""
        moments = []
        for game in self.games.values():
            if game.phase != ENDED and game.deadline is not None:
                moments.append(game.deadline)
                reminder = game.reminder_due()
                if reminder is not None and [p for p in game.waiting_for if p not in game.reminded]:
                    moments.append(reminder)
        return min(moments) if moments else None

    # Players' mail

    def _player_mail(self, key: str, raw: bytes, message: Message) -> None:
        if is_own_mail(message, {self.identity.address.lower()}):
            raise Shunted("the GM's own mail came back")
        why = automatic_reason(message, _envelope_from(message))
        if why:
            raise Shunted(f"automatic mail, never answered: {why}")
        sender = (addresses(message, "From") or [""])[0]
        if not sender:
            raise Shunted("no sender address")
        tags = self._plus_tags(message)
        challenge = self._challenge_tag(tags)
        if challenge:
            self._accept(key, raw, message, *challenge)
            return
        if not tags:  # to the GM's own address: not a game's
            text, _ = orders_text(message)
            if _GAMES.search(text):
                self._list_games(key, sender)
                return
            if _CHALLENGE.search(text):
                self._challenge(key, raw, sender, text)
                return
        game_id, player, token_given = self._route(message, tags)
        game = self.games[game_id]
        text, password = orders_text(message)
        secret = token_given or password
        if secret is None or not verify(self.store.key, game_id, player, secret):
            self._warn_player(game, player, sender)
            raise Shunted(f"not proven to come from player {player} of {game_id}: no valid token or password")
        day = self.clock().strftime("%Y-%m-%d")
        self.daily[sender, day] += 1
        if self.daily[sender, day] > self.limits.replies_per_day:
            raise Shunted(f"more than {self.limits.replies_per_day} mails today from {sender}")
        at = time_of(key)
        accepted = prepend_header(raw, ACCEPTED_HEADER, f"game={game_id}; player={player}; at={at.isoformat()}")
        message_id = str(message.get("Message-ID", "")).strip() or None
        self._archive_and_apply(game_id, accepted, key, PlayerMail(at, player, text, message_id))
        if message_id:
            self.applied_ids.add(message_id)
        if _GAMES.search(text):
            self._list_games(key, game.seat(player).address)

    def _list_games(self, key: str, address: str) -> None:
        """The ``games`` command: the address's games, mailed to that address
        only (so a forged request tells the forger nothing)."""
        day = self.clock().strftime("%Y-%m-%d")
        self.daily[address, "games " + day] += 1
        if self.daily[address, "games " + day] > 5:
            raise Shunted(f"more than 5 'games' requests today from {address}")
        games = []
        for game in self.games.values():
            seat = game.seat_of(address)
            if seat is not None:
                games.append({"game": game.id, "alias": seat.alias, "opponent": game.opponent(seat.player).alias,
                              "phase": game.phase, "turn": game.turn,
                              "deadline": game.deadline.strftime("%Y-%m-%d %H:%M UTC") if game.deadline else None,
                              "waiting": seat.player in game.waiting_for})
        name = "games-" + hashlib.sha256(key.encode()).hexdigest()[:12]
        self._send_outside_games(name, address, "[gm] Your games", time_of(key), "games",
                                 {"address": address, "games": games}, "auto-replied")

    def _route(self, message: Message, tags: list[list[str]]) -> tuple[str, int, str | None]:
        """Which game and player a mail is for, from its plus-address
        (``gm+GAME.PLAYER.TOKEN@``), or from the sender's address when the
        sender plays exactly one game that is not over."""
        for parts in tags:
            if len(parts) >= 2 and parts[0] in self.games and parts[1] in ("1", "2"):
                return parts[0], int(parts[1]), parts[2] if len(parts) > 2 else None
        sender = (addresses(message, "From") or [""])[0].lower()
        mine = [(g, s.player) for g in self.games.values() if g.phase != ENDED for s in g.seats if s.address.lower() == sender]
        if len(mine) == 1:
            return mine[0][0].id, mine[0][1], None
        if len(mine) > 1:
            raise Shunted(f"{sender} plays several games; the mail names none of them")
        raise Shunted("not addressed to any game")

    # Challenges: starting a game by mail

    def _challenge(self, key: str, raw: bytes, sender: str, text: str) -> None:
        """``challenge ADDR`` (and optionally ``variant NAME`` and ``match
        scored N``, ``match continued N`` or ``match scored to N``) in a mail
        to the GM: invite ADDR, who accepts by replying. The challenged
        address gets one mail; at most 3 challenges a day reach any one."""
        match = _CHALLENGE.search(text)
        assert match
        challenged = match.group(1).strip("<>").lower()
        if challenged in (sender.lower(), self.identity.address.lower()) or "@" not in challenged:
            raise Shunted(f"a challenge to {challenged} cannot be sent")
        variant_match = _VARIANT.search(text)
        variant = variant_match.group(1) if variant_match else "2.6.1"
        try:
            ruleset = ruleset_named(variant)
        except ValueError as error:
            raise Shunted(f"challenge with a bad variant: {error}") from None
        terms = _match_terms(text)
        day = self.clock().strftime("%Y-%m-%d")
        self.daily[challenged, "challenges " + day] += 1
        if self.daily[challenged, "challenges " + day] > 3:
            raise Shunted(f"more than 3 challenges to {challenged} today")
        challenge_id = "c" + hashlib.sha256(key.encode()).hexdigest()[:10]  # the same if redone after a crash
        at = time_of(key)
        header = f"id={challenge_id}; challenger={sender}; challenged={challenged}; variant={variant}; at={at.isoformat()}"
        match_text = ""
        if terms is not None:
            header += f"; match={terms.kind}; games={terms.games or ''}; target={terms.target or ''}"
            match_text = f"{terms.kind} match, " + (f"{terms.games} games" if terms.games else f"first to {terms.target} points")
        self.store.challenges.add(prepend_header(raw, CHALLENGE_HEADER, header), challenge_id)
        self._send_outside_games(
            f"{challenge_id}.invite", challenged, f"[gm] {sender} challenges you to Spaceships", at, "challenge",
            {"challenger": sender, "ruleset": ruleset.describe(), "match": match_text}, "auto-generated",
            reply_to=self.identity.reply_address(challenge_id, 0, token(self.store.key, challenge_id, 0)))

    def _send_outside_games(self, name: str, to: str, subject: str, at: datetime, template: str,
                            data: dict, auto: str, reply_to: str | None = None) -> None:
        """Queue a message that belongs to no game (a challenge, the games
        list) under a deterministic outbox key, so a redo queues it once."""
        message = EmailMessage(policy=SMTP_POLICY)
        message["From"] = f"{self.identity.name} <{self.identity.address}>"
        message["To"] = to
        if reply_to:
            message["Reply-To"] = reply_to
        message["Subject"] = subject
        message["Date"] = format_datetime(at)
        message["Message-ID"] = f"<{name}@{self.identity.domain}>"
        message["Auto-Submitted"] = auto
        message[GAME_HEADER] = name.split(".")[0]
        message.set_content(render_text(template, data), charset="utf-8")
        if name not in self.store.sent:  # a redo after a crash sends nothing twice
            self.store.outbox.add(as_bytes(message), name)

    def _challenge_tag(self, tags: list[list[str]]) -> tuple[str, str] | None:
        """The challenge a reply answers, from its plus-address ``gm+cID.0.TOKEN``."""
        for parts in tags:
            if len(parts) == 3 and re.fullmatch(r"c[0-9a-f]{10}", parts[0]):
                return parts[0], parts[2]
        return None

    def _plus_tags(self, message: Message) -> list[list[str]]:
        """The dot-separated parts of every ``gm+TAG@domain`` the mail was
        sent to: envelope recipients first, then To and Cc."""
        local, domain = self.identity.local.lower(), self.identity.domain.lower()
        tags = []
        for address in _envelope_to(message) + addresses(message, "To") + addresses(message, "Cc"):
            name, _, host = address.rpartition("@")
            base, plus, tag = name.partition("+")
            if plus and base.lower() == local and host.lower() == domain:
                tags.append(tag.split("."))
        return tags

    def _accept(self, key: str, raw: bytes, message: Message, challenge_id: str, secret: str) -> None:
        if not verify(self.store.key, challenge_id, 0, secret) or challenge_id not in self.store.challenges:
            raise Shunted(f"not a valid answer to challenge {challenge_id}")
        text, _ = orders_text(message)
        if not _ACCEPT.search(text):
            raise Shunted(f"answer to challenge {challenge_id} without 'accept'")
        if f"accepted-{challenge_id}" in self.store.handled:
            raise Shunted(f"challenge {challenge_id} was accepted already")
        fields = accepted_fields_of(parse_message(self.store.challenges.get_bytes(challenge_id)), CHALLENGE_HEADER)
        from .admin import request_game  # a game by challenge starts like one made by gm new

        terms = None
        if fields.get("match"):
            terms = MatchTerms(fields["match"], int(fields["games"]) if fields.get("games") else None,
                               int(fields["target"]) if fields.get("target") else None)
        request_game(self.store, self.identity, [fields["challenger"], fields["challenged"]], fields["variant"], Options(),
                     time_of(key), name=f"challenge-{challenge_id}", match=terms)
        self.store.handled.add(f"accepted-{challenge_id}")

    def _warn_player(self, game: MailGame, player: int, sender: str) -> None:
        """Tell the real player that someone tried to act as them: once a day
        per game at most, and only to the player's own address (no backscatter)."""
        day = self.clock().strftime("%Y-%m-%d")
        key = f"warning.{game.id}.{player}.{day}"
        if key in self.store.outbox or key in self.store.sent:
            return
        notice = Notice(player, "forged_warning", "Someone tried to send orders as you",
                        sheets.common(game, player) | {"address": sender, "when": self.clock().strftime("%Y-%m-%d %H:%M UTC")})
        message = build(notice, game, self.identity, 0, 0, self.clock(), [])
        del message["Message-ID"]
        message["Message-ID"] = f"<{key}{'.' + game.instance if game.instance else ''}@{self.identity.domain}>"
        self.store.outbox.add(reveal(as_bytes(message), token(self.store.key, game.id, player)), key)

    # Applying

    def _archive_and_apply(self, game_id: str, raw: bytes, key: str, event) -> None:
        """Apply an event and write down what follows. Everything that can
        fail (the engine, the templates) runs first; only then is anything
        written, so a failure leaves the game as it was."""
        number = self.numbers.get(game_id, 0) + 1
        archive = self.store.archive(game_id)
        try:
            if isinstance(event, Created):
                game, notices = engine.create(event)
                threads = Threads()
            else:
                game, threads = self.games[game_id], self.threads[game_id]
                notices = engine.apply(game, event)
            messages = notice_messages(game, notices, self.identity, number, event.at, threads, archive=archive,
                                       pending=raw)  # (for archives from before the player's mailbox only)
        except Exception:
            self._restore(game_id)
            raise
        archive.add(raw, f"{number:06d}.in.{key}", seen=True)
        crashpoint("after-archive")
        self.games[game_id] = game
        self.threads[game_id] = threads
        self.numbers[game_id] = number
        self._send(game_id, messages)
        self.handled_keys.add(key)

    def _restore(self, game_id: str) -> None:
        """Rebuild a game from its archive after a failure left it half changed."""
        archive = self.store.archive(game_id)
        if not archive.keys():
            self.games.pop(game_id, None)
            self.threads.pop(game_id, None)
            return
        game, threads, _ = replay(archive, self.identity, game_id, render="none")
        self.games[game_id] = game
        self.threads[game_id] = threads

    def _send(self, game_id: str, messages: list[tuple[str, int, bytes]]) -> None:
        """Archive the GM's messages (masked) and queue them (with the real
        token); each step is skipped where a previous run already did it."""
        archive = self.store.archive(game_id)
        for archive_key, _, data in messages:
            archive.add(mask(data), archive_key, seen=True)
        crashpoint("after-apply")
        for archive_key, player, data in messages:
            key = f"{game_id}.{archive_key}"
            if key in self.store.sent or key in self.store.outbox:
                continue
            self.store.outbox.add(reveal(data, token(self.store.key, game_id, player)), key)
        crashpoint("after-queue")


_CHALLENGE = re.compile(r"^\s*challenge\s+(\S+@\S+)\s*$", re.I | re.M)
_VARIANT = re.compile(r"^\s*variant\s+(\S+)\s*$", re.I | re.M)
_MATCH = re.compile(r"^\s*match\s+(scored|continued)\s+(to\s+)?(\d+)(\s+games)?\s*$", re.I | re.M)


def _match_terms(text: str) -> MatchTerms | None:
    """``match scored 3``, ``match continued 2`` or ``match scored to 50`` [9], [10]."""
    found = _MATCH.search(text)
    if found is None:
        if re.search(r"^\s*match\b", text, re.I | re.M):
            raise Shunted("challenge with a match line gm cannot read (write: match scored 3, match continued 2, "
                          "or match scored to 50)")
        return None
    kind, to, number = found.group(1).lower(), found.group(2), int(found.group(3))
    try:
        return MatchTerms(kind, None if to else number, number if to else None)
    except ValueError as error:
        raise Shunted(f"challenge with bad match terms: {error}") from None
_ACCEPT = re.compile(r"^\s*accept\s*$", re.I | re.M)
_GAMES = re.compile(r"^\s*games\s*(;.*)?$", re.I | re.M)
CHALLENGE_HEADER = "X-GM-Challenge"


def accepted_fields_of(message: Message, header: str) -> dict[str, str]:
    value = str(message.get(header, ""))
    return dict(part.strip().split("=", 1) for part in value.split(";") if "=" in part)


def _envelope_from(message: Message) -> str | None:
    value = message.get("Return-Path")
    if value is None:
        return None
    return str(value).strip().strip("<>")


def _envelope_to(message: Message) -> list[str]:
    return [a for a in (str(v).strip().strip("<>") for v in message.get_all("X-GM-Envelope-To", [])) if "@" in a]
