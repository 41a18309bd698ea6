"""Which of several master processes handles a spooled mail (`gm.masters`).

Games are independent, so each master runs a share of them
(`gm.pbem.data.store.Part`), and every spooled mail is handled by exactly
one master: the one whose game it is for, read off the mail the way the
screening (`gm.pbem.master.screening`) would route it, before any game is
looked at:

- a GM event (a trusted origin and ``X-GM-Event``): its game's (``X-GM-Game``,
  or the ``id`` a creation request reserved);
- any other mail: the game of its first plus-address that names a game and a
  seat (``gm+GAME.PLAYER...``), unless one of its plus-addresses answers
  a question of the GM's that names no game (a challenge, a confirmation),
  which the screening looks at first;
- everything else (mail to the GM's own address, those answers, events of no
  game) goes to the first master, the *front*, as mail that names no game
  goes to the front shard (docs/operations.md, "Several daemons").

Only the header (and, for a creation request, the short body) is read.
"""

from __future__ import annotations

from ...mail.reading import parse_message
from ..answers.away import vacation_tag
from ..answers.deputies import deputy_tag
from ..answers.league import league_tag
from ..answers.moving import move_tag
from ..answers.outside import challenge_tag
from ..answers.owner import owner_tag
from ..answers.settings import settings_tag
from ..answers.tournaments import join_tag
from ..answers.unsubscribe import unsubscribe_tag
from ..archive.creation import parse_fields
from ..archive.events import EVENT_HEADER
from ..data.store import GAME_ID, TRUSTED_ORIGINS, Part, Store, origin_of
from ..intake.addressing import plus_tags
from ..writing.mailer import GAME_HEADER, Identity

HEAD_BYTES = 1 << 16
"""How much of a mail from outside is read to route it: its header, where
every address the routing looks at is."""

_ANSWERS = (challenge_tag, league_tag, settings_tag, vacation_tag, deputy_tag, join_tag, owner_tag, move_tag,
            unsubscribe_tag)
"""The plus-addresses of answers to the GM's questions, which name no game."""


def game_of(key: str, raw: bytes, identity: Identity) -> str | None:
    """The game a spooled mail is for, as far as routing tells (None: no game)."""
    if origin_of(key) in TRUSTED_ORIGINS:
        message = parse_message(raw)
        if message.get(EVENT_HEADER):
            if str(message[EVENT_HEADER]).strip() == "create":
                return parse_fields(message.get_content()).get("id")
            game = str(message.get(GAME_HEADER, "")).strip()
            return game or None
    end = raw.find(b"\n\n")
    end = raw.find(b"\r\n\r\n") if end < 0 else end
    head = raw if end < 0 else raw[:end + 1]
    tags = plus_tags(parse_message(head), identity)
    if any(answer(tags) is not None for answer in _ANSWERS):
        return None
    for parts in tags:
        if len(parts) >= 2 and GAME_ID.fullmatch(parts[0]) and parts[1].isdigit():
            return parts[0]
    return None


class Router:
    """Tells one master which spooled mail is its own; remembers each
    answer, since a spooled file never changes."""

    def __init__(self, store: Store, part: Part, identity: Identity):
        self.store = store
        self.part = part
        self.identity = identity
        self._owner: dict[str, int] = {}

    def owner(self, key: str) -> int | None:
        """The master that handles ``key``; None when it is no longer spooled."""
        if key in self._owner:
            return self._owner[key]
        try:
            with open(self.store.spool.file_of(key), "rb") as handle:
                raw = handle.read(HEAD_BYTES if origin_of(key) not in TRUSTED_ORIGINS else -1)
        except (KeyError, FileNotFoundError):
            return None
        game = game_of(key, raw, self.identity)
        owner = 0 if game is None else self.part.owner(game)
        if len(self._owner) > 100_000:
            self._owner.clear()
        self._owner[key] = owner
        return owner

    def mine(self, keys: list[str]) -> list[str]:
        """The keys of ``keys`` that this master handles, in their order."""
        return [key for key in keys if self.owner(key) == self.part.index]
