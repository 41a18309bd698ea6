"""The master's screening of spooled mail: a list of small named rules, as in
Mailman 3, run in order on each message (`SCREENING`).

Each rule looks at the message (and at what the rules before it found out)
and either lets it through to the next rule (None) or decides
(`gm.pbem.intake.decisions.Decision`): the message is handled (applied to its game,
or answered), dropped (nothing to do), or shunted with the reason. The master
records each decision with the rule's name (`GameMaster._decided`). The
last rule, ``accept``, applies a player's mail that every rule before let
through.

A rule whose answer cannot be given (an allowance used up, a confirmation
that does not match) raises `gm.pbem.intake.decisions.Shunted` deep inside it; the
master takes that as the rule's decision to shunt.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from typing import NamedTuple

from flufl.bounce import all_failures

from ...kernel.clock import utc_minute
from ...kernel.deputies import deputy_of
from ...kernel.effects import ConfirmAddress, Effect, SendGamesList
from ...kernel.model import MailGame
from ...kernel.shown import resolve
from ...kernel.values import ENDED, Bouncing, Event, Notice, PlayerMail
from ...logs import event as log_event
from ...mail.reading import sender_trouble
from ...mail.screening import is_own_mail
from ..answers import away, deputies, league, moving, ratings, settings, tournaments
from ..answers.away import VacationDesk, vacation_tag
from ..answers.deputies import DeputyDesk, deputy_tag
from ..answers.league import LeagueMail, league_tag
from ..answers.moving import move_tag
from ..answers.outside import CHALLENGE, GAMES, OutsideMail, challenge_tag
from ..answers.owner import OwnerMail, owner_tag
from ..answers.settings import SettingsDesk, settings_tag
from ..answers.tournaments import TournamentDesk, join_tag
from ..answers.unsubscribe import Unsubscribing, unsubscribe_tag
from ..archive.events import EVENT_HEADER, event_message
from ..archive.replay import (
    ACCEPTED_HEADER,
    BOUNCE_HEADER,
    FORMAT,
    accepted_event,
    player_message_id,
    prepend_header,
    to_event,
)
from ..data.store import TRUSTED_ORIGINS, Store, origin_of, spool_key, time_of
from ..data.tokens import deputy_subject, reveal, token, verify
from ..intake.addressing import ENVELOPE_HEADER
from ..intake.decisions import Decision, Shunted, dropped, handled, shunted
from ..intake.limits import DailyCounts, Limits, tell_capped
from ..operator.actions import released
from ..state.everywhere import AllGames
from ..state.loading import digest
from ..state.resident import Games
from ..writing.mailer import Identity, build
from ..writing.writer import as_bytes
from .faults import GameNotLoaded
from .incoming import Incoming

_EFFECT_NOT_SENT = {ConfirmAddress: "move confirmation", SendGamesList: "games list"}
"""How the log names each effect of a player's mail that could not be sent."""

ALONE_DEATHS = 2
"""Times the daemon may die while handling one message alone before it goes
to the shunt. A message is handled alone (in a batch of its own) only once
gm died while handling it: a death in a batch with others may be no doing
of this message's (a kill, a fault of the machine), so it only makes the
message a suspect; a death while it was handled alone is its own."""
BOUNCED = "their mail server refused the GM's mail for good (a bounce came back)"
"""What the opponent is told of a bounce: never its text, which names the address."""


class Rule(NamedTuple):
    """A named rule: None lets the message through to the next one."""

    name: str
    decide: Callable[[Screening, Incoming], Decision | None]


class Screening:
    """The screening's part of `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    clock: Callable[[], datetime]
    limits: Limits
    counts: DailyCounts
    games: Games
    all_games: AllGames
    stuck: dict[str, datetime]
    outside: OutsideMail
    owner: OwnerMail
    league: LeagueMail
    tournaments: TournamentDesk
    desk: SettingsDesk
    unsubscribing: Unsubscribing
    web_url: str | None
    vacations: VacationDesk
    deputies: DeputyDesk
    handled_keys: set[str]
    unopened: dict[str, Exception]

    def _gm_event(self, key: str, stored: bytes, message: EmailMessage) -> None:
        raise NotImplementedError  # the GameMaster's

    def _archive_and_apply(self, game_id: str, stored: bytes, key: str, event: Event) -> tuple[Effect, ...]:
        raise NotImplementedError  # `gm.pbem.master.applying.Applying`'s

    # The rules, in the order `SCREENING` runs them

    def _poison(self, mail: Incoming) -> Decision | None:
        if mail.alone > ALONE_DEATHS:
            return shunted(f"gm stopped {mail.attempts - 1} times while handling this mail, {mail.alone - 1} of them "
                           "with it alone; it is not tried again")
        return None

    def _handled_before(self, mail: Incoming) -> Decision | None:
        # A spool file handled before a crash, whose removal was lost: it is
        # archived in a game, or in the shunt; anything else is safe to redo.
        if mail.key in self.handled_keys or mail.key in self.store.shunt:
            return dropped("handled before: archived in a game, or in the shunt")
        return None

    def _gm_event_rule(self, mail: Incoming) -> Decision | None:
        if origin_of(mail.key) in TRUSTED_ORIGINS and mail.message.get(EVENT_HEADER):
            self._gm_event(mail.key, mail.stored, mail.message)
            return handled("a GM event")
        return None

    def _own_mail(self, mail: Incoming) -> Decision | None:
        if is_own_mail(mail.message, {self.identity.address.lower()}):
            return shunted("the GM's own mail came back")
        return None

    def _bounce_rule(self, mail: Incoming) -> Decision | None:
        if mail.automatic and self._bounce(mail.key, mail.stored, mail.message):
            return handled("a bounce: the player's address is failing")
        return None

    def _automatic(self, mail: Incoming) -> Decision | None:
        if mail.automatic:
            return shunted(f"automatic mail, never answered: {mail.automatic}")
        return None

    def _no_sender(self, mail: Incoming) -> Decision | None:
        return None if mail.sender else shunted(sender_trouble(mail.message))

    def _challenge_reply(self, mail: Incoming) -> Decision | None:
        challenge = challenge_tag(mail.tags)
        if challenge is None:
            return None
        self.outside.answer(mail.key, mail.message, *challenge)
        return handled("an answer to a challenge")

    def _league_reply(self, mail: Incoming) -> Decision | None:
        return self._confirmed(mail, league_tag(mail.tags), self.league.confirm, "a confirmation of a name or a seek")

    def _settings_reply(self, mail: Incoming) -> Decision | None:
        return self._confirmed(mail, settings_tag(mail.tags), self.desk.confirm, "a confirmation of settings")

    def _vacation_reply(self, mail: Incoming) -> Decision | None:
        return self._confirmed(mail, vacation_tag(mail.tags), self.vacations.confirm, "a confirmation of a vacation")

    def _deputy_reply(self, mail: Incoming) -> Decision | None:
        answering = deputy_tag(mail.tags)
        if answering is None:
            return None
        self.deputies.confirm(mail.key, mail.message, mail.sender, *answering)
        return handled("a confirmation of a deputy")

    def _join_reply(self, mail: Incoming) -> Decision | None:
        return self._confirmed(mail, join_tag(mail.tags), self.tournaments.confirm,
                               "a confirmation of a tournament's sign-up")

    def _owner_reply(self, mail: Incoming) -> Decision | None:
        confirming = owner_tag(mail.tags)
        if confirming is None:
            return None
        self.owner.answer(mail.key, mail.message, mail.sender, *confirming)
        return handled("an answer to the owner's confirmation")

    def _move_reply(self, mail: Incoming) -> Decision | None:
        moving_to = move_tag(mail.tags)
        if moving_to is None:
            return None
        moving.answer(self, mail.key, mail.message, mail.sender, *moving_to)
        return handled("an answer to a seat's move")

    def _unsubscribe(self, mail: Incoming) -> Decision | None:
        leaving = unsubscribe_tag(mail.tags)
        if leaving is None:
            return None
        self.unsubscribing.answer(mail.key, mail.raw, mail.sender, *leaving)
        return handled("unsubscribing from a list")

    def _owner_request(self, mail: Incoming) -> Decision | None:
        if mail.tags or not self.owner.wants(mail.sender, mail.orders[0]):  # the operator's actions, by mail
            return None
        self.owner.request(mail.key, mail.sender, mail.orders[0])
        return handled("the owner's request")

    def _games_list(self, mail: Incoming) -> Decision | None:
        if mail.tags or not GAMES.search(mail.orders[0]):  # to the GM's own address: not a game's
            return None
        self.outside.list_games(mail.key, mail.sender)
        return handled("the games list")

    def _ratings(self, mail: Incoming) -> Decision | None:
        if mail.tags or mail.orders[1] is not None or not ratings.wants(mail.orders[0]):
            return None
        ratings.answer(self, mail.key, mail.sender, mail.orders[0])
        return handled("the ratings")

    def _challenge(self, mail: Incoming) -> Decision | None:
        if mail.tags or not CHALLENGE.search(mail.orders[0]):
            return None
        self.outside.challenge(mail.key, mail.raw, mail.sender, mail.orders[0])
        return handled("a challenge")

    def _league(self, mail: Incoming) -> Decision | None:
        # Names and seeks (`gm.pbem.answers.league`).
        return self._at_own_address(mail, league.wants, self.league.handle, "names and seeks")

    def _tournament(self, mail: Incoming) -> Decision | None:
        # ``join`` and ``tournament`` (`gm.pbem.answers.tournaments`).
        return self._at_own_address(mail, tournaments.wants, self.tournaments.handle, "a tournament")

    def _vacation(self, mail: Incoming) -> Decision | None:
        # A vacation for all of a player's games (`gm.pbem.answers.away`).
        return (self._beside_settings(mail, away.wants)
                or self._at_own_address(mail, away.wants, self.vacations.handle, "a vacation"))

    def _deputy(self, mail: Incoming) -> Decision | None:
        # A player's deputy (`gm.pbem.answers.deputies`).
        return (self._beside_settings(mail, deputies.wants)
                or self._at_own_address(mail, deputies.wants, self.deputies.handle, "a deputy"))

    def _beside_settings(self, mail: Incoming, wants: Callable[[str], bool]) -> Decision | None:
        """A mail to the GM's own address that asks for what ``wants`` (a
        vacation, a deputy) and changes settings too: refused whole, and the
        sender told why, since `settings` lists all three and a player writes
        them together, where the first rule alone would answer."""
        text, password = mail.orders
        if mail.tags or password is not None or not wants(text) or not settings.wants(text):
            return None
        request = next(line.split(";", 1)[0].strip() for line in text.split("\n") if wants(line))
        return shunted(self.desk.refuse_beside(mail.key, mail.sender, request, text))

    def _settings(self, mail: Incoming) -> Decision | None:
        # A player's own settings (`gm.pbem.answers.settings`).
        return self._at_own_address(mail, settings.wants, self.desk.handle, "settings")

    def _no_game(self, mail: Incoming) -> Decision | None:
        _text, password = mail.orders
        game_id, player, token_given = self._route(mail.sender, mail.tags, password is not None)
        if game_id is None:
            why = ("it names a game that is not run here" if mail.tags else
                   "it was sent to the GM's own address, not to a game's, and held no password line")
            self.outside.how_to_play(mail.key, mail.sender, why, mail.message)
            return shunted(f"not addressed to any game: {why}")
        if game_id not in self.games:  # another master's (`gm.masters`): named by a password line
            return self._forward(mail, game_id, player)
        mail.game_id, mail.player, mail.secret = game_id, player, token_given or password
        return None

    def _forward(self, mail: Incoming, game_id: str, player: int) -> Decision:
        """A mail to the GM's own address with a password line, from the
        player of one game, which another master runs: spooled again (in
        this batch) with its envelope naming the game and seat, so that the
        spool routes it to that game's master, which checks the password
        as it would have been checked here."""
        envelope = f"<{self.identity.local}+{game_id}.{player}@{self.identity.domain}>"
        key = spool_key(time_of(mail.key), origin_of(mail.key), digest(mail.key))
        self.store.spool.add(prepend_header(mail.raw, ENVELOPE_HEADER, envelope), key)
        return handled(f"for {game_id}, which another master runs")

    def _finished_match(self, mail: Incoming) -> Decision | None:
        assert mail.game_id is not None
        game = self.games[mail.game_id]
        if mail.secret is not None and any(verify(self.store.key, subject, mail.player, mail.secret)
                                           for subject in game.earlier_secret_subjects):
            self.outside.how_to_play(mail.key, mail.sender,
                                     "it was sent to the address of a game of your match that is over")
            return shunted(f"player {mail.player}'s mail to a finished game of match {mail.game_id}")
        return None

    def _retired_address(self, mail: Incoming) -> Decision | None:
        assert mail.game_id is not None
        game = self.games[mail.game_id]
        if mail.secret is not None and any(verify(self.store.key, subject, mail.player, mail.secret)
                                           for subject in game.retired_secret_subjects(mail.player)):
            return shunted(f"mail from an address of player {mail.player} of {mail.game_id} that the operator replaced")
        return None

    def _forged(self, mail: Incoming) -> Decision | None:
        assert mail.game_id is not None
        game = self.games[mail.game_id]
        deputy = deputy_of(game, mail.player)
        if (mail.secret is not None and deputy is not None
                and verify(self.store.key, deputy_subject(game.secret_subject_of(mail.player), deputy), mail.player,
                           mail.secret)):
            mail.deputy = True  # the deputy's own secret: their mail counts as the player's
            return None
        if mail.secret is None or not verify(self.store.key, game.secret_subject_of(mail.player), mail.player,
                                             mail.secret):
            self._warn_player(game, mail.player, mail.sender)
            return shunted(f"not proven to come from player {mail.player} of {mail.game_id}: no valid token or "
                           "password")
        return None

    def _daily_cap(self, mail: Incoming) -> Decision | None:
        # Counted per player and game, with a larger allowance against the
        # robot (`Limits.replies_to`); the player is told once a day, and a
        # mail the operator released goes through.
        assert mail.game_id is not None
        if released(mail.key):
            return None
        game, now = self.games[mail.game_id], self.clock()
        limit = self.limits.replies_to(game)
        count = self.counts.add(now, f"mail {mail.sender} {mail.game_id}")
        if count <= limit:
            return None
        tell_capped(self.store, self.identity, game, mail.player, limit, now)  # once a day: it checks
        return shunted(f"more than {limit} mails today from {mail.sender} to {mail.game_id}")

    def _duplicate(self, mail: Incoming) -> Decision | None:
        assert mail.game_id is not None
        message_id = player_message_id(mail.message)
        if (message_id is not None
                and digest(mail.orders[0]) in self.games.live(mail.game_id).applied.get(message_id, ())):
            log_event("mail duplicate", key=mail.key, message_id=message_id)
            return dropped(f"its Message-ID and text were applied already: {message_id}")
        return None

    def _accept(self, mail: Incoming) -> Decision | None:
        assert mail.game_id is not None
        game_id, player, key = mail.game_id, mail.player, mail.key
        game = self.games[game_id]
        at = time_of(key)
        by = "; deputy=yes" if mail.deputy else ""
        accepted = prepend_header(mail.stored, ACCEPTED_HEADER,
                                  f"game={game_id}; player={player}; at={at.isoformat()}; format={FORMAT}{by}")
        # Read from the bytes archived, as `gm replay` reads them (from the mail as read, where that is the same).
        event = (accepted_event(mail.stored, mail.message, mail.orders[0], at, player, mail.deputy)
                 or to_event(accepted, game_id))
        if not isinstance(event, PlayerMail) or (event.at, event.player, event.deputy) != (at, player, mail.deputy):
            raise Shunted("gm's own line on top of it does not read back as written (the mail begins with a "
                          "folded line)")
        effects = self._archive_and_apply(game_id, accepted, key, event)
        log_event("mail accepted", game=game_id, player=player, key=key)
        for effect in effects:  # what the mail asked of the GM beside the game's own mail
            try:
                if isinstance(effect, ConfirmAddress):  # 'address NEW': the new address is asked to confirm
                    moving.asked(self, key, game, player, effect.address)
                elif isinstance(effect, SendGamesList):
                    self.outside.list_games(key, game.seat(player).address.lower())
            except Shunted as reason:  # the mail itself is applied: only this is not sent
                log_event(f"{_EFFECT_NOT_SENT[type(effect)]} not sent", game=game_id, player=player, reason=str(reason))
        return handled(f"applied to {game_id}")

    # What the rules share

    def _confirmed(self, mail: Incoming, confirming: tuple[str, str] | None,
                   confirm: Callable[[str, EmailMessage, str, str], None], what: str) -> Decision | None:
        """A reply to the confirmation a desk asked for (``confirming``, its
        request's id and token, read off the plus-address), confirmed there."""
        if confirming is None:
            return None
        confirm(mail.key, mail.message, *confirming)
        return handled(what)

    def _at_own_address(self, mail: Incoming, wants: Callable[[str], bool],
                        handle: Callable[[str, bytes, str, str], str | None], what: str) -> Decision | None:
        """A request to the GM's own address that a desk ``wants``, answered
        by its ``handle``: never mail to a game's address, nor mail with a
        password line, which is a game's."""
        text, password = mail.orders
        if mail.tags or password is not None or not wants(text):
            return None
        why = handle(mail.key, mail.raw, mail.sender, text)
        return shunted(why) if why else handled(what)

    def _route(self, sender: str, tags: list[list[str]], password: bool) -> tuple[str | None, int, str | None]:
        """Which game and player a mail is for, from its plus-address
        (``gm+GAME.PLAYER.TOKEN@``); (None, 0, None) when it names no game.
        A mail with a ``password`` line may also name its game by coming from
        the address of a player of exactly one game that is not over. Mail
        to the GM's own address without one claims no game, so it is never
        taken for a forgery (a player's own auto-reply looks just like it)."""
        for parts in tags:
            if parts[0] in self.unopened:  # its archive did not replay at start-up: kept for a start where it does
                raise GameNotLoaded(parts[0], self.unopened[parts[0]])
            if (len(parts) >= 2 and parts[0] in self.games and parts[1].isdigit()
                    and 1 <= int(parts[1]) <= len(self.games.summaries[parts[0]].seats)):
                if self.games.summaries[parts[0]].seat(int(parts[1])).robot:
                    raise Shunted(f"mail to the seat of {parts[0]} that the GM's robot holds")
                return parts[0], int(parts[1]), parts[2] if len(parts) > 2 else None
        if not password:
            return None, 0, None
        mine = [(g, s.player) for g in self.all_games.all() if g.phase != ENDED
                for s in g.seats if s.address.lower() == sender and not s.robot]
        if len(mine) == 1:
            return mine[0][0].id, mine[0][1], None
        if len(mine) > 1:
            raise Shunted(f"{sender} plays several games; the mail names none of them")
        return None, 0, None

    def _bounce(self, key: str, stored: bytes, message: EmailMessage) -> bool:
        """A bounce of the GM's mail to a player: the player's address is
        marked failing in each game it bounced from (an event, so the
        opponent is told and a replay repeats it). The game is not otherwise
        changed. Only a bounce that carries the player's token (as a returned
        copy of the GM's mail does, in its Reply-To) counts: anyone could
        forge a report that an address fails. In another master's game
        (`gm.pbem.state.everywhere`) the mark is a ``bouncing`` GM event
        spooled for that game's master, as the relay's refusals are."""
        try:
            _, permanent = all_failures(message)
        except Exception:  # a report flufl.bounce cannot read is no bounce we act on
            return False
        failed = {address.decode("utf-8", "replace").strip("<>").lower() for address in permanent}
        lowered, applied = stored.lower(), False
        for game in self.all_games.all():
            if game.phase == ENDED:
                continue
            for seat in game.seats:
                if (seat.address.lower() in failed and seat.player not in game.bouncing
                        and any(token(self.store.key, subject, seat.player).encode() in lowered
                                for subject in [game.secret_subject_of(seat.player), *game.earlier_secret_subjects])):
                    at = time_of(key)
                    if game.id in self.games:
                        header = f"game={game.id}; player={seat.player}; at={at.isoformat()}; reason={BOUNCED}"
                        self._archive_and_apply(game.id, prepend_header(stored, BOUNCE_HEADER, header), key,
                                                Bouncing(at, seat.player, BOUNCED))
                    else:
                        name = f"bounced-{digest(key)}-{game.id}-{seat.player}"
                        fields = [f"player: {seat.player}", f"reason: {BOUNCED}"]
                        self.store.spool.add(event_message(self.identity, "bouncing", at,
                                                           f"<{name}@{self.identity.domain}>", game.id, fields),
                                             spool_key(at, "clock", name))
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
        (notice,) = resolve([Notice(player, "forged_warning", "Someone tried to send orders as you",
                                    game.rules.common(game, player, None) | {
                                        # Only the player's own address is named: any other may be another player's.
                                        "address": sender if own else None, "when": utc_minute(self.clock())})])
        message = build(notice, game, self.identity, 0, 0, self.clock(), [],
                        given_id=f"<{key}{'.' + game.instance if game.instance else ''}@{self.identity.domain}>")
        self.store.outbox.add(reveal(as_bytes(message), token(self.store.key, game.secret_subject_of(player), player)),
                              key)


SCREENING = (
    Rule("poison", Screening._poison),
    Rule("handled-before", Screening._handled_before),
    Rule("gm-event", Screening._gm_event_rule),
    Rule("own-mail", Screening._own_mail),
    Rule("bounce", Screening._bounce_rule),
    Rule("automatic", Screening._automatic),
    Rule("no-sender", Screening._no_sender),
    Rule("challenge-reply", Screening._challenge_reply),
    Rule("league-reply", Screening._league_reply),
    Rule("settings-reply", Screening._settings_reply),
    Rule("vacation-reply", Screening._vacation_reply),
    Rule("deputy-reply", Screening._deputy_reply),
    Rule("join-reply", Screening._join_reply),
    Rule("owner-reply", Screening._owner_reply),
    Rule("move-reply", Screening._move_reply),
    Rule("unsubscribe", Screening._unsubscribe),
    Rule("owner-request", Screening._owner_request),
    Rule("games-list", Screening._games_list),
    Rule("ratings", Screening._ratings),
    Rule("challenge", Screening._challenge),
    Rule("league", Screening._league),
    Rule("tournament", Screening._tournament),
    Rule("vacation", Screening._vacation),
    Rule("deputy", Screening._deputy),
    Rule("settings", Screening._settings),
    Rule("no-game", Screening._no_game),
    Rule("finished-match", Screening._finished_match),
    Rule("retired-address", Screening._retired_address),
    Rule("forged", Screening._forged),
    Rule("daily-cap", Screening._daily_cap),
    Rule("duplicate", Screening._duplicate),
    Rule("accept", Screening._accept),
)
"""The rules in the order they run (the master's docstring draws it). The
crash tests' ``mid-handle`` point lies between ``poison`` and the rest."""
