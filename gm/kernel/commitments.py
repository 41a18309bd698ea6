"""The GM's commitments: what it promised each player about the hidden
information of the others, before it could know how the game would go.

When a game's hidden information is fixed (each side's setup, the robot's
seed, Celestial Empire's galaxy), the game names it as labelled values in a
canonical serialisation (`GameRules.committed`); the kernel adds the robot's
seed. Each value's commitment is SHA-256 over a salt of 32 bytes and the
value's bytes, written as 64 lower-case hex digits. Every mail of the game's
players carries every commitment made so far (``X-GM-Commitment`` headers and
a section of the sheet), of those made anew each turn the latest; once the game is over, every mail also carries each
salt and value (``X-GM-Reveal``), and the whole record of the game
(``X-GM-Record``), from which ``gm verify`` checks it all
(docs/verification.md).

The salts are drawn at the edge: a game key of 32 random bytes is drawn when
the game is requested and recorded in its creation event (``commit-key``),
which only the GM's archive holds; each commitment's salt is HMAC-SHA256 of
that key over the commitment's label. A salt is thus unpredictable to every
player, different for every commitment, and the same on every replay, so that
``gm replay`` is byte-exact and each game's rules stay pure.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from functools import cached_property, lru_cache

from .model import MailGame
from .values import ENDED, FINISH_EDITION, TIME_EDITION

COMMITMENT_EDITION = TIME_EDITION
"""The first edition whose players' mail carries the commitments and, at the
end, their reveal; games of earlier editions (and games made without a game
key, as tests make them from the engine) keep their mail as it was."""

COMMITMENT_HEADER = "X-GM-Commitment"
"""``LABEL DIGEST``: one field per commitment, on every player's mail."""
REVEAL_HEADER = "X-GM-Reveal"
"""``LABEL SALT VALUE``: one field per commitment, on every mail after the end;
the salt in hex, the value in base64 (in pieces separated by spaces)."""
RECORD_HEADER = "X-GM-Record"
"""The whole record of the finished game (``gm referee``'s format), in base64
pieces separated by spaces, on every mail after the end; a long record goes
on in the next such field (`record_fields`)."""

KEY_BYTES = 32

RECORD_PIECES = 1000
"""The most base64 pieces (of 64 characters) one ``X-GM-Record`` field
holds in games of `SPLIT_RECORD_EDITION` on: a longer record goes on in the
next field. 64 kilobytes a field stay under what mail servers keep of one
header field (Postfix's ``header_size_limit``, 100 kilobytes by default,
discards the rest); a Celestial Empire game of many turns reveals more."""
SPLIT_RECORD_EDITION = FINISH_EDITION
"""The first edition whose record may take several ``X-GM-Record`` fields;
games before keep it in one, as their mail always had it."""


@dataclass(frozen=True)
class Commitment:
    """One committed value: its label, its canonical bytes and its salt."""

    label: str
    value: bytes
    salt: bytes

    @cached_property
    def digest(self) -> str:
        """The commitment players see: SHA-256 over the salt, then the
        value (made once: `commitment` keeps each Commitment, which every
        mail of its game shows again)."""
        return commitment_digest(self.salt, self.value)


def commitment_digest(salt: bytes, value: bytes) -> str:
    """SHA-256 over ``salt`` then ``value``, as 64 lower-case hex digits."""
    return hashlib.sha256(salt + value).hexdigest()


SALTS_KEPT = 4096
"""Salts kept once made (`salt_for`): every mail of a game carries all its
commitments so far, one a turn in a Celestial Empire game, so each salt
would be made again for every mail."""


@lru_cache(maxsize=SALTS_KEPT)
def salt_for(key: bytes, label: str) -> bytes:
    """The salt of the commitment called ``label`` in a game of game key
    ``key`` (an HMAC: the same for the same two, so kept once made)."""
    return hmac.new(key, label.encode("ascii"), hashlib.sha256).digest()


@lru_cache(maxsize=SALTS_KEPT)
def commitment(key: bytes, label: str, value: bytes) -> Commitment:
    """The commitment of ``value`` called ``label`` in a game of game key
    ``key``, kept once made: every mail of a game makes all its commitments
    so far again (one a turn in a Celestial Empire game, so that a mail of
    turn 80 made 80 of them). Derived from the three alone, so a replayed
    or restored game gets the same; kept beside the games, never in one."""
    return Commitment(label, value, salt_for(key, label))


def text_value(lines: list[str]) -> bytes:
    """The canonical serialisation of a value made of lines: each line in
    UTF-8, ended by one line feed (docs/verification.md)."""
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def sealed(game: MailGame) -> list[Commitment]:
    """Every commitment the game has made so far, in the order mail shows
    them: the robot's seed (fixed when the game is made), then the game's
    own (`GameRules.committed`). None for a game before
    `COMMITMENT_EDITION` or without a game key."""
    if game.edition < COMMITMENT_EDITION or game.commit_key is None:
        return []
    values: list[tuple[str, bytes]] = []
    if game.robot_seed is not None and game.robots:
        values.append(("robot-seed", text_value([str(game.robot_seed)])))
    values += game.rules.committed(game)
    key = game.commit_key
    return [commitment(key, label, value) for label, value in values]


PER_TURN = "turn-"
"""The label prefix of a commitment a game makes anew each turn (``turn-N``):
a mail carries the latest only, since each turn's commitment is on the mail
of that turn already (`carried`); the reveal at the end names them all."""


def carried(made: list[Commitment]) -> list[Commitment]:
    """The commitments a mail shows: every one made, but of those made anew
    each turn (`PER_TURN`) only the latest, so that a long game's mail does
    not grow by a field and two lines of its sheet every turn."""
    turns = [c for c in made if c.label.startswith(PER_TURN)]
    latest = turns[-1] if turns else None
    return [c for c in made if not c.label.startswith(PER_TURN) or c is latest]


def pieces(data: bytes) -> str:
    """``data`` in base64, in pieces of 64 characters separated by spaces, so
    that a header field folds between them."""
    return " ".join(_cut(data)) or "="


def _cut(data: bytes) -> list[str]:
    text = base64.b64encode(data).decode("ascii")
    return [text[i:i + 64] for i in range(0, len(text), 64)]


def record_fields(record: str, edition: int) -> list[str]:
    """The values of the ``X-GM-Record`` fields that carry ``record``, in
    order: one, or in games of `SPLIT_RECORD_EDITION` on one for each
    `RECORD_PIECES` pieces."""
    if edition < SPLIT_RECORD_EDITION:
        return [pieces(record.encode("utf-8"))]
    cut = _cut(record.encode("utf-8"))
    return [" ".join(cut[i:i + RECORD_PIECES]) for i in range(0, len(cut), RECORD_PIECES)] or ["="]


def headers(game: MailGame) -> list[tuple[str, str]]:
    """The fields a player's mail of ``game`` carries: every commitment, and
    after the end every reveal and the game's record."""
    made = sealed(game)
    fields = [(COMMITMENT_HEADER, f"{c.label} {c.digest}") for c in carried(made)]
    if made and game.phase == ENDED:
        fields += [(REVEAL_HEADER, f"{c.label} {c.salt.hex()} {pieces(c.value)}") for c in made]
        record = game.rules.revealed_record(game)
        if record is not None:
            fields += [(RECORD_HEADER, value) for value in record_fields(record, game.edition)]
    return fields


def sheet_fields(game: MailGame) -> dict[str, object]:
    """What the sheets show of the commitments (``_commitments.txt``): each
    label and digest, and after the end each salt; nothing for a game
    without commitments."""
    made = sealed(game)
    if not made:
        return {}
    revealed = game.phase == ENDED
    return {"commitments": [{"label": c.label, "digest": c.digest, "salt": c.salt.hex() if revealed else None}
                            for c in carried(made)]}
