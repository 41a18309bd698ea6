"""The GameMaster's part that applies an event to its game and writes down
what follows: the event archived, the GM's replies archived (masked) and
queued in the outbox (with the real tokens).

Applying a message is made of steps that are each safe to redo after a
crash, so that every message is applied exactly once and every reply queued
exactly once:

1. the message is archived in its game under the next sequence number (a
   redo finds it there by its spool key and does not archive it again);
2. the engine applies the event; the GM's replies are rendered, archived
   masked, and queued in the outbox under deterministic keys (a redo writes
   nothing that is already there or already sent);
3. it leaves the spool.

A write that fails leaves the game rebuilt from what its archive holds
(`Applying._recover`).
"""

from __future__ import annotations

import time

from ...kernel import engine
from ...kernel.effects import Effect
from ...kernel.values import Created, Event, PlayerMail
from ...logs import event as log_event
from ...storage.maildirs import unix_lines
from ..archive.replay import Threads, notice_messages, recipient
from ..data.crashpoints import crashpoint
from ..data.tokens import deputy_subject, mask, reveal, token
from ..state.loading import digest as _digest
from ..state.resident import Live, summary_of
from ..writing.lists import OBSERVER, listed, observer_secret, unsubscribe_path, unsubscribe_secret, with_one_click
from ..writing.mailer import DEPUTY_COPY
from .keeping import Keeping


class Applying(Keeping):
    """Applying events, the part of `gm.pbem.master.game_master.GameMaster`
    beside the games it keeps (`Keeping`)."""

    web_url: str | None

    def _archive_and_apply(self, game_id: str, stored: bytes, key: str, event: Event) -> tuple[Effect, ...]:
        """Apply an event and write down what follows: ``stored`` is the
        event's message as the archive keeps it, byte for byte the bytes
        the event was read from (`gm.pbem.master.incoming.Incoming.stored`),
        so that `gm replay` reads the same event from it. Everything that can
        fail (the engine, the templates) runs first; only then is anything
        written, so a failure leaves the game as it was. A write that fails
        leaves the game rebuilt from what its archive holds (see `_recover`).
        Returns what the event asks of the GM beside the game's mail."""
        live = None if isinstance(event, Created) else self.games.live(game_id)
        number = (live.number if live else 0) + 1
        archive = self.store.archive(game_id)
        try:
            effects: tuple[Effect, ...] = ()
            if live is None:
                assert isinstance(event, Created)
                game, notices = engine.create(event)
                threads = Threads()
            else:
                game, threads = live.game, live.threads
                notices = engine.apply(game, event)
                effects = tuple(effect for notice in notices for effect in notice.effects)
            messages = notice_messages(game, notices, self.identity, number, event.at, threads, archive=archive,
                                       pending=stored)  # (for archives from before the player's mailbox only)
            summary = summary_of(game)
        except Exception:
            self._recover(game_id)
            raise
        try:
            archive_key = archive.add(stored, f"{number:06d}.in.{key}", seen=True)
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
            if game.robots or game.stand_ins:
                self._robot_games.add(game_id)
            self._send(game_id, messages)
        except OSError:
            self._recover(game_id)
            raise
        if isinstance(event, PlayerMail) or notices:
            log_event("event applied", game=game_id, number=number, kind=type(event).__name__, phase=game.phase,
                      turn=game.turn, mails=len(messages))
        return effects

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
            if player == OBSERVER:  # an observer's way out of the game (`gm.pbem.writing.lists`)
                self.store.outbox.add(self._observer_mail(game_id, data), key)
                log_event("mail queued", game=game_id, player=player, key=key)
                continue
            subject = game.secret_subject_of(player)
            if archive_key.endswith(DEPUTY_COPY):  # the deputy's copy: their own secret
                subject = deputy_subject(subject, recipient(data).decode())
            elif self.web_url and listed(data):  # a reminder: no secret is made for a game's own turn mail
                data = self._reminders_one_click(data, self.web_url)
            self.store.outbox.add(reveal(data, token(self.store.key, subject, player)), key)
            log_event("mail queued", game=game_id, player=player, key=key)
        crashpoint("after-queue")

    def _reminders_one_click(self, data: bytes, web_url: str) -> bytes:
        """A player's reminder as sent where the web archive's address is
        configured: the one-click URL of the ``reminders`` list beside the
        archived mailto (RFC 8058). Mail without list headers, every game's
        own turn mail, is returned as it is. The archive keeps the mailto
        alone, which is what the game alone gives."""
        address = recipient(data).decode()
        secret = unsubscribe_secret(self.store.key, "reminders", address)
        return with_one_click(data, web_url.rstrip("/") + unsubscribe_path("reminders", address, secret))

    def _observer_mail(self, game_id: str, data: bytes) -> bytes:
        """An observer's message as sent: their own token for the game, and
        the one-click URL where the web archive's address is configured."""
        address = recipient(data).decode()
        secret = observer_secret(self.store.key, game_id, address)
        if self.web_url:
            data = with_one_click(data, self.web_url.rstrip("/") + unsubscribe_path(game_id, address, secret))
        return reveal(data, secret)
