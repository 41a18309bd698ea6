"""Mail that belongs to no game: challenges, the games list, and the answer
to a player's mail that names no game.

None of it may be aimed at a third party. A mail's From can be forged, so
anything gm sends in answer goes only to the address the mail claims, at
most `Limits.answers_outside_games_per_day` times a day (counted on disk;
more often to a player in one of the GM's games, who is told once a day when
the answers stop), and a challenge reaches the challenged address only once the challenger has
confirmed it from their own mailbox:

    challenge ADDR    -> a confirmation to the challenger (Reply-To gm+cID.1.TOKEN)
    confirm           -> the invitation to ADDR             (Reply-To gm+cID.0.TOKEN)
    accept            -> the game is requested, as `gm new` would

A challenge's state is its message in ``challenges/`` and markers in
``handled/`` (``confirmed-cID``, ``accepted-cID``), so each step is done
once, even when redone after a crash.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from email.message import Message
from email.utils import format_datetime
from typing import Any, Protocol

from ...kernel.protocol import GameRules, game_named
from ...kernel.values import DEFAULT_GAME, ENDED, Options
from ...kernel.zones import local_minute
from ...mail.reading import parse_message
from ..archive.replay import orders_text, prepend_header
from ..data.names import public_names
from ..data.settings import settings_of
from ..data.store import Store, time_of
from ..data.tokens import token, verify
from ..intake.decisions import Shunted
from ..intake.limits import DailyCounts, Limits, normalized
from ..operator.admin import request_game
from ..state.everywhere import AllGames
from ..state.resident import Games
from ..writing.lists import LISTS, add_list_headers, unsubscribe_path, unsubscribe_secret, unsubscribe_tag
from ..writing.mailer import GAME_HEADER, Identity, fitted, render_text
from ..writing.writer import Mail, as_bytes, text_body

CHALLENGE_HEADER = "X-GM-Challenge"
CHALLENGER, CHALLENGED = 1, 0
"""The "player" numbers of a challenge's two reply addresses."""

GAMES = re.compile(r"^\s*games\s*(;.*)?$", re.I | re.M)
CHALLENGE = re.compile(r"^\s*challenge\s+(.+?)\s*$", re.I | re.M)
_GAME = re.compile(r"^\s*game\s+(\S+)\s*$", re.I | re.M)
_VARIANT = re.compile(r"^\s*variant\s+(\S+)\s*$", re.I | re.M)
_LEVEL = re.compile(r"^\s*level\s+(\S+)\s*$", re.I | re.M)
_ROBOTS = re.compile(r"^\s*robots\s+(\d{1,2})\s*$", re.I | re.M)
"""``robots N``: in a challenge to the robot of a game of more than two
seats, how many of them its robots take (the challenge must say)."""
_TAKE_OVER = re.compile(r"^\s*take-over\s+(\S+)\s*$", re.I | re.M)
"""``take-over LEVEL``: the level of the robot that takes over a seat whose
person went silent (`Options.take_over_level`), in a game that has one."""
_PUBLIC = re.compile(r"^\s*public\s*$", re.I | re.M)
"""``public``: the challenger agrees, and asks the challenged to agree by
accepting, that the web archive shows the game after each turn
(`Options.public_each_turn`)."""
_RATED = re.compile(r"^\s*rated\s*$", re.I | re.M)
"""``rated``: the game counts for the players' ratings (`Options.rated`),
asked by the challenger and agreed by accepting; against the robot, the
person asks that it count for them too, not only for the robot's own."""
ROBOT_WORD = "robot"
"""``challenge robot``: a game against the GM's robot, made once the challenger confirms."""
_CHALLENGE_ID = re.compile(r"c[0-9a-f]{10}")
GAMES_LIST, HOW_TO_PLAY, CAPPED = "games-", "howto-", "nomore-"
"""How the outbox names of the games list, of the answer to mail that names no game, and of the day's word that
no more such mail is answered begin."""


def fields_of(message: Message, header: str) -> dict[str, str]:
    """``a=1; b=2`` in one of gm's own headers, as a dict."""
    value = str(message.get(header, ""))
    return dict(part.strip().split("=", 1) for part in value.split(";") if "=" in part)


def challenge_tag(tags: list[list[str]]) -> tuple[str, int, str] | None:
    """The challenge a reply answers, from ``gm+cID.N.TOKEN``: id, side, token."""
    for parts in tags:
        if len(parts) == 3 and _CHALLENGE_ID.fullmatch(parts[0]) and parts[1] in ("0", "1"):
            return parts[0], int(parts[1]), parts[2]
    return None


class Master(Protocol):
    """What the answers to mail about no game, to the owner's mail
    (`gm.pbem.answers.owner`), to a seat's move (`gm.pbem.answers.moving`)
    and about names and seeks (`gm.pbem.answers.league`) use of the
    `gm.pbem.master.game_master.GameMaster`."""

    store: Store
    identity: Identity
    limits: Limits
    counts: DailyCounts
    games: Games
    all_games: AllGames
    stuck: dict[str, datetime]
    outside: OutsideMail
    web_url: str | None


class OutsideMail:
    """The GM's answers to mail about no game, for one `GameMaster`."""

    def __init__(self, master: Master):
        self.master = master

    def allowed(self, address: str, what: str, at: datetime) -> None:
        """Refuse (to the shunt) past the day's allowance of mail to ``address``."""
        self._allowed(address, what, at)

    def _allowed(self, address: str, what: str, at: datetime, asked: bool = True) -> None:
        """Refuse (to the shunt) past the day's allowance of mail to
        ``address``: `Limits.answers_outside_games_per_day`, or, for what a
        player in one of the GM's games ``asked`` for (a challenge, the games
        list, the ratings), `Limits.answers_outside_games_to_players_per_day`,
        and the player is told once a day that the answers stop (`CAPPED`).
        An address the GM does not know is told nothing: its From may be
        forged. Mail that asked for nothing (the answer is how to play) keeps
        the one answer even from a player, so that a player's auto-responder
        that writes the GM's own address is answered once a day, not in a loop."""
        limits = self.master.limits
        count = self.master.counts.add(at, f"outside {address}")
        limit = limits.answers_outside_games_per_day
        if count <= limit:
            return
        plays = asked and any(game.seat_of(address) is not None for game in self.master.all_games.all())
        if plays:
            limit = max(limit, limits.answers_outside_games_to_players_per_day)
            if count <= limit:
                return
            self._tell_capped(address, limit, at)
        raise Shunted(f"{what}: {address} was sent {limit} mail{'s' * (limit != 1)} about no game today already")

    def _tell_capped(self, address: str, limit: int, at: datetime) -> None:
        """Tell a player, once a UTC day, that the GM answers no more of
        their mail about no game until the day ends (a silent cap looked
        like a GM that stopped answering); their games' own mail goes on."""
        day = at.strftime("%Y-%m-%d")
        lifts = datetime.combine(at.date() + timedelta(days=1), datetime.min.time(), at.tzinfo)
        self.send(CAPPED + _digest(f"{address.lower()} {day}"), address, "[gm] No more answers today", at,
                  "outside_capped", {"address": address, "limit": limit,
                                     "lifts": local_minute(lifts, settings_of(self.master.store, address).zone),
                                     "games": [g for g in self.games_of(address) if g["phase"] != ENDED]},
                  "auto-replied")

    # The games list, and how to send orders

    def list_games(self, key: str, address: str) -> None:
        """``games``: the address's games, each with its reply address, to
        that address only (so a forged request tells the forger nothing)."""
        at = time_of(key)
        self._allowed(address, "games", at)
        games = self.games_of(address)
        active = [g for g in games if g["phase"] != ENDED]
        challenges = self._challenges_to(address)
        one = len(active) == 1 and not challenges  # a reply to the list may go to that game
        several = bool(active) and not one  # a reply reaches no game, and is answered so (`how_to_play`)
        self.send(GAMES_LIST + _digest(key), address, "[gm] Your games", at, "games",
                  {"address": address, "games": games, "challenges": challenges, "several": several},
                  "auto-replied", reply_to=active[0]["reply_to"] if one else self._own_if(several))

    def _challenges_to(self, address: str) -> list[dict[str, Any]]:
        """The challenges sent to ``address`` that it has not accepted yet
        (issue 10, point 9), each with the address to accept it at. Only the
        challenged address is ever sent them, so a forged ``games`` request
        tells the forger nothing."""
        store = self.master.store
        found, names = [], public_names(store)
        for challenge_id in store.challenges.keys():
            if f"confirmed-{challenge_id}" not in store.handled or f"accepted-{challenge_id}" in store.handled:
                continue
            fields = fields_of(parse_message(store.challenges.get_bytes(challenge_id)), CHALLENGE_HEADER)
            if fields.get("challenged", "").lower() != address.lower():
                continue
            rules = game_named(fields.get("game", DEFAULT_GAME))
            found.append({"id": challenge_id, "challenger": names.get(fields["challenger"], fields["challenger"]),
                          "title": rules.title,
                          "ruleset": rules.describe_variant(fields["variant"]),
                          "match": rules.describe_terms(_terms_of(rules, fields)),
                          "reply_to": self._reply_to(challenge_id, CHALLENGED)})
        return found

    def how_to_play(self, key: str, address: str, why: str, message: Message | None = None) -> None:
        """A player's mail that names no game (sent to the GM's plain address,
        or in reply to a mail that was not a game's): nothing is applied, and
        the player is told why and where to write instead. A ``message``
        that answers the GM's games list (or this answer) has an allowance of
        its own: the list invites replies, and orders in one must not be
        swallowed because the list used up the day's answer."""
        at = time_of(key)
        if message is not None and self._answers_own_mail(message):
            why = ("it answers the GM's list of your games, which is no game's mail: "
                   "each game's orders go to that game's own address")
            limit = self.master.limits.answers_to_gm_mail_per_day
            if self.master.counts.add(at, f"answer {address}") > limit:
                raise Shunted(f"how to play: {address} was answered {limit} times today "
                              "about replies to the GM's own mail")
        else:
            self._allowed(address, "how to play", at, asked=False)
        games = self.games_of(address)
        active = [g for g in games if g["phase"] != ENDED]
        self.send(HOW_TO_PLAY + _digest(key), address, "[gm] Your mail reached no game", at, "how_to_play",
                  {"address": address, "games": active, "why": why}, "auto-replied",
                  reply_to=active[0]["reply_to"] if len(active) == 1 else self._own_if(len(active) > 1))

    def _own_if(self, several: bool) -> str | None:
        """The Reply-To of a mail that lists several games: the GM's own
        address, said outright (a reply to it reaches no game, and is
        answered with where each game's orders go)."""
        return self.master.identity.address if several else None

    def _answers_own_mail(self, message: Message) -> bool:
        """Whether ``message`` replies to a games list or how-to-play answer
        the GM sent (by its In-Reply-To or References). Their Message-IDs
        derive from spool keys, which only their recipient learns."""
        store, domain = self.master.store, self.master.identity.domain
        named = f"{message.get('In-Reply-To', '')} {message.get('References', '')}"
        found = re.findall(rf"<((?:{GAMES_LIST}|{HOW_TO_PLAY})[0-9a-f]{{12}})@{re.escape(domain)}>", named, re.I)
        return any(name in store.sent or name in store.outbox for name in found)

    def games_of(self, address: str) -> list[dict[str, Any]]:
        """Every game ``address`` has a seat in, as the games list and the
        digest show it, each with the seat's own reply address and its
        deadline in the player's own time (their ``timezone`` setting; UTC
        without one)."""
        master = self.master
        zone = settings_of(master.store, address).zone
        found = []
        for game in master.all_games.all():
            seat = game.seat_of(address)
            if seat is None:
                continue
            secret = token(master.store.key, game.secret_subject_of(seat.player), seat.player)
            reply_to = master.identity.reply_address(game.id, seat.player, secret)
            found.append({"game": game.id, "alias": seat.alias,
                          "opponent": " and ".join(other.alias for other in game.others(seat.player)),
                          "phase": game.phase, "turn": game.turn, "reply_to": reply_to,
                          "deadline": local_minute(game.deadline, zone) if game.deadline else None,
                          "waiting": seat.player in game.waiting_for,
                          "correcting": seat.player in game.correcting,
                          "awaited": seat.player in game.correction_awaited})
        return found

    # Challenges

    def challenge(self, key: str, raw: bytes, sender: str, text: str) -> None:
        """``challenge ADDR`` (and optionally ``variant NAME`` and a ``match``
        line): recorded, and the challenger asked to confirm it."""
        master = self.master
        found = CHALLENGE.search(text)
        assert found
        robot = found.group(1).lower() == ROBOT_WORD
        challenged = ROBOT_WORD if robot else normalized(found.group(1))
        challenger = normalized(sender)
        if challenged is None or challenger is None:
            raise Shunted(f"a challenge must name one address: {found.group(1)[:80]!r}")
        if challenged in (challenger, master.identity.address.lower()):
            raise Shunted(f"a challenge to {challenged} cannot be sent")
        game_found = _GAME.search(text)
        try:
            rules = game_named(game_found.group(1) if game_found else DEFAULT_GAME)
        except ValueError as error:
            raise Shunted(f"challenge to an unknown game: {error}") from None
        variant_found = _VARIANT.search(text)
        variant = variant_found.group(1) if variant_found else rules.default_variant
        try:
            described = rules.describe_variant(variant)
        except ValueError as error:
            raise Shunted(f"challenge with a bad variant: {error}") from None
        try:
            terms = rules.challenge_terms(text)
        except ValueError as error:
            raise Shunted(f"challenge with {error}") from None
        level_found = _LEVEL.search(text)
        level = level_found.group(1).lower() if level_found else "normal"
        robots = _robots(rules, text) if robot else _robots_beside(rules, text)
        if (robot or robots) and level not in rules.robot_levels:
            raise Shunted(f"a challenge to the robot of {rules.title} at level {level!r}: it has no such robot")
        take_over = take_over_level(rules, text)
        at = time_of(key)
        self._allowed(challenger, "challenge", at)
        challenge_id = "c" + _digest(key)[:10]  # the same if redone after a crash
        header = (f"id={challenge_id}; challenger={challenger}; challenged={challenged}; variant={variant}; "
                  f"at={at.isoformat()}; game={rules.name}")
        for line in rules.creation_fields(terms):  # the game's own terms, as its creation event holds them
            name, _, value = line.partition(":")
            header += f"; t.{name.strip()}={value.strip()}"
        if robot:
            header += f"; robot={level}" + (f"; robots={robots}" if robots > 1 else "")
        elif robots:
            header += f"; level={level}; robots={robots}"
        if take_over:
            header += f"; take-over={take_over}"
        public = bool(_PUBLIC.search(text))
        if public:
            header += "; public=yes"
        rated = bool(_RATED.search(text))
        if rated:
            header += "; rated=yes"
        if challenge_id not in master.store.challenges:
            master.store.challenges.add(prepend_header(raw, CHALLENGE_HEADER, header), challenge_id)
        if robot:
            self.send(f"{challenge_id}.confirm", challenger, "[gm] Confirm your challenge to the robot", at,
                      "challenge_robot_confirm", {"level": level, "ruleset": described, "title": rules.title,
                                                  "public": public, "rated": rated, "robots": robots,
                                                  "take_over": take_over, "has_setup": rules.has_setup},
                      "auto-replied", reply_to=self._reply_to(challenge_id, CHALLENGER), title=rules.title)
            return
        self.send(f"{challenge_id}.confirm", challenger, f"[gm] Confirm your challenge to {challenged}", at,
                  "challenge_confirm",
                  {"challenged": challenged, "ruleset": described, "match": rules.describe_terms(terms),
                   "title": rules.title, "public": public, "rated": rated, "robots": robots, "level": level,
                   "take_over": take_over},
                  "auto-replied", reply_to=self._reply_to(challenge_id, CHALLENGER), title=rules.title)

    def answer(self, key: str, message: Message, challenge_id: str, side: int, secret: str) -> None:
        """A reply to a challenge's confirmation (``confirm``) or invitation (``accept``)."""
        store = self.master.store
        if not verify(store.key, challenge_id, side, secret) or challenge_id not in store.challenges:
            raise Shunted(f"not a valid answer to challenge {challenge_id}")
        text, _ = orders_text(message)
        fields = fields_of(parse_message(store.challenges.get_bytes(challenge_id)), CHALLENGE_HEADER)
        if side == CHALLENGER:
            self._confirm(key, challenge_id, fields, text)
        else:
            self._accept(key, challenge_id, fields, text)

    def _step(self, challenge_id: str, text: str, word: str, done: str) -> None:
        """Refuse (to the shunt) an answer without its word, or a step done already."""
        if not re.search(rf"^\s*{word}\s*$", text, re.I | re.M):
            raise Shunted(f"answer to challenge {challenge_id} without '{word}'")
        if f"{done}-{challenge_id}" in self.master.store.handled:
            raise Shunted(f"challenge {challenge_id} was {done} already")

    def _confirm(self, key: str, challenge_id: str, fields: dict[str, str], text: str) -> None:
        store = self.master.store
        self._step(challenge_id, text, "confirm", "confirmed")
        if fields.get("robot"):  # nobody else to ask: the game is made now
            self._start(key, challenge_id, fields, robot=fields["robot"])
            store.handled.add(f"confirmed-{challenge_id}")
            return
        challenged, at = fields["challenged"], time_of(key)
        limit = self.master.limits.challenges_per_day
        if self.master.counts.add(at, f"challenged {challenged}") > limit:
            raise Shunted(f"more than {limit} challenges to {challenged} today")
        rules = game_named(fields.get("game", DEFAULT_GAME))
        terms = _terms_of(rules, fields)
        # The challenger as the challenged will know them: by their public name, if they chose one.
        challenger = public_names(store).get(fields["challenger"], fields["challenger"])
        self.send(f"{challenge_id}.invite", challenged, f"[gm] {challenger} challenges you to {rules.title}",
                  at, "challenge",
                  {"challenger": challenger, "ruleset": rules.describe_variant(fields["variant"]),
                   "match": rules.describe_terms(terms), "title": rules.title,
                   "public": fields.get("public") == "yes", "rated": fields.get("rated") == "yes",
                   "robots": int(fields.get("robots", 0)), "level": fields.get("level", ""),
                   "take_over": fields.get("take-over")},
                  "auto-generated", reply_to=self._reply_to(challenge_id, CHALLENGED), title=rules.title)
        store.handled.add(f"confirmed-{challenge_id}")

    def _accept(self, key: str, challenge_id: str, fields: dict[str, str], text: str) -> None:
        self._step(challenge_id, text, "accept", "accepted")
        self._start(key, challenge_id, fields)

    def _start(self, key: str, challenge_id: str, fields: dict[str, str], robot: str | None = None) -> None:
        """Request the game a challenge agreed on; with ``robot``, against the GM's robot at that level."""
        # A game by challenge starts like one made by gm new.
        rules = game_named(fields.get("game", DEFAULT_GAME))
        players = [fields["challenger"]] if robot else [fields["challenger"], fields["challenged"]]
        options = Options(public_each_turn=fields.get("public") == "yes",  # both agreed: one asked, one accepted
                          rated=fields.get("rated") == "yes",
                          take_over_after=rules.take_over_after if rules.robot_levels else 0,
                          take_over_level=fields.get("take-over") or Options.take_over_level)
        beside = None if robot or "robots" not in fields else fields["level"]  # robot empires beside the two people
        request_game(self.master.store, self.master.identity, players, fields["variant"],
                     options, time_of(key), name=f"challenge-{challenge_id}", match=_terms_of(rules, fields),
                     game=rules.name, robot=robot or beside, robots=int(fields.get("robots", 1)))
        self.master.store.handled.add(f"accepted-{challenge_id}")

    def _reply_to(self, challenge_id: str, side: int) -> str:
        master = self.master
        return master.identity.reply_address(challenge_id, side, token(master.store.key, challenge_id, side))

    def send(self, name: str, to: str, subject: str, at: datetime, template: str, data: dict[str, Any],
             auto: str, reply_to: str | None = None, listed: str | None = None, title: str | None = None) -> None:
        """Queue a message that belongs to no game under a deterministic
        outbox key, so a redo after a crash queues it once. A message of
        the list ``listed`` (a digest, a notice: `gm.pbem.writing.lists`) carries
        its list headers, and is not sent to a player who left that list.
        One about one game (a challenge to a game yet to be made, a seat's
        address move, an observer's leaving) names that game's ``title`` in
        its From, as the game's own mail does; any other is sent under a
        name that names no one game (`Identity.outside_name`)."""
        master = self.master
        if listed is not None:
            setting, off = LISTS[listed]
            if settings_of(master.store, to).fields().get(setting) == off:
                return
        message = Mail()
        sender = master.identity.name_for(title) if title else master.identity.outside_name
        message["From"] = f"{sender} <{master.identity.address}>"
        message["To"] = to
        if reply_to:
            message["Reply-To"] = reply_to
        message["Subject"] = subject
        message["Date"] = format_datetime(at)
        message["Message-ID"] = f"<{name}@{master.identity.domain}>"
        message["Auto-Submitted"] = auto
        message[GAME_HEADER] = name.split(".")[0]
        if listed is not None:
            secret = unsubscribe_secret(master.store.key, listed, to)
            url = master.web_url.rstrip("/") + unsubscribe_path(listed, to, secret) if master.web_url else None
            add_list_headers(message, master.identity.domain, listed,
                             master.identity.reply_address(unsubscribe_tag(listed), 1, secret), url)
        text_body(message, fitted(render_text(template, data)))
        if name not in master.store.sent and name not in master.store.outbox:
            master.store.outbox.add(as_bytes(message), name)


def _terms_of(rules: GameRules, fields: dict[str, str]) -> Any:
    """The game's own terms a stored challenge holds (``t.NAME=VALUE``, as
    its creation event will); challenges stored before that held a match as
    ``match``, ``games`` and ``target``."""
    creation = {name[2:]: value for name, value in fields.items() if name.startswith("t.") and value}
    if fields.get("match"):
        creation |= {"match": fields["match"], "match-games": fields.get("games", ""),
                     "match-target": fields.get("target", "")}
    return rules.creation_terms({name: value for name, value in creation.items() if value})


def take_over_level(rules: GameRules, text: str) -> str | None:
    """The level a ``take-over LEVEL`` line asks for (None without one);
    Shunted for a game no robot takes over in, or a level it has not."""
    found = _TAKE_OVER.search(text)
    if not found:
        return None
    level = found.group(1).lower()
    if not (rules.take_over_after and rules.robot_levels):
        raise Shunted(f"a challenge with a take-over line: no robot takes over a seat in {rules.title}")
    if level not in rules.robot_levels:
        raise Shunted(f"a challenge with take-over {level[:20]!r}: the robot's levels are "
                      f"{', '.join(rules.robot_levels)}")
    return level


def _robots(rules: GameRules, text: str) -> int:
    """How many robot seats ``challenge robot`` asks for: one in a game of
    two seats; in a game of more (Celestial Empire) its ``robots N`` line
    says, which it must have."""
    most = rules.seats.stop - 1
    if most <= 2:
        if _ROBOTS.search(text):
            raise Shunted(f"a challenge to the robot of {rules.title} with a robots line: it has one seat to fill")
        return 1
    found = _ROBOTS.search(text)
    if not found:
        raise Shunted(f"a challenge to the robot of {rules.title} without a line 'robots N': it has no such "
                      f"robot as one opponent; say how many of the {most} empires its robots play (1 to {most - 1})")
    count = int(found.group(1))
    if 1 + count not in rules.seats:
        raise Shunted(f"a challenge to {count} robots of {rules.title}: a game has {rules.seats.start} to "
                      f"{most} empires, yours and the robots'")
    return count


def _robots_beside(rules: GameRules, text: str) -> int:
    """How many robot seats a challenge to a person asks for beside the two
    of them (``robots N``, in a game of more than two seats): 0 without the line."""
    found = _ROBOTS.search(text)
    if not found:
        return 0
    most = rules.seats.stop - 1
    if most <= 2 or not rules.robot_levels:
        raise Shunted(f"a challenge with a robots line: {rules.title} has no robot empires to add")
    count = int(found.group(1))
    if not 1 <= count <= most - 2:
        raise Shunted(f"a challenge with {count} robots: a game of {rules.title} has {most} empires at most, "
                      "the two of you and the robots'")
    return count


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:12]
