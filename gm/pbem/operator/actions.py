"""The operator's controls: actions on a game, spooled as GM events, and the shunt.

An action on a game (pause, resume, a new deadline, a new address for a
seat, cancelling it) is never done to the game directly: like ``gm new``'s
creation request it is a message of the GM's own, with an ``X-GM-Event``
header naming its kind, written into the spool (origin ``admin``) for the
daemon, the only writer of games. The daemon checks it against the game as
it stands (`gm.kernel.actions.operator_refusal`): a refused action goes to
the shunt with the reason and changes nothing; an accepted one is archived
in the game like any event, so ``gm replay`` repeats it.

    kind              body lines
    pause             -
    resume            -
    set-deadline      deadline: ISO    or    extend-seconds: N
    replace-address   player: N, address: ADDR
    hand-seat         player: N, robot: LEVEL    or    robot: person
    cancel            reason: TEXT
    answer            player: N, text: TEXT

The shunt is not a game: `shunt_entries`, `release` and `discard` work on
its Maildir directly, each step safe to redo.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ...kernel.actions import operator_refusal
from ...kernel.addresses import mail_address
from ...kernel.clock import parse_duration
from ...kernel.model import MailGame
from ...kernel.values import AddressReplaced, Answered, Cancelled, DeadlineSet, Event, Paused, Resumed
from ...mail.reading import parse_message
from ..archive.events import event_fields, event_message
from ..data.store import Store, origin_of, spool_key
from ..writing.mailer import Identity

SHUNT_HEADER = "X-GM-Shunt-Reason"
RELEASED = "released-"
"""How the spool key of a mail the operator released begins its name:
the daily cap lets it through (`released`)."""


def request_action(store: Store, identity: Identity, game_id: str, event: Event, name: str | None = None) -> str:
    """Spool an action on a game for the daemon; returns its spool key.
    ``name`` makes the key deterministic (a redo finds it there)."""
    kind, body = event_fields(event)
    key = spool_key(event.at, "admin", name)
    if key not in store.spool:
        store.spool.add(event_message(identity, kind, event.at, f"<{key}@{identity.domain}>", game_id, body), key)
    return key


def check_action(games: Mapping[str, MailGame], game_id: str, event: Event) -> str | None:
    """Why the action cannot be done (None when it can)."""
    if game_id not in games:
        return f"no game {game_id}"
    return operator_refusal(games[game_id], event)


# Reading an action written as a line: `pause g1`, `deadline g1 +24h`, ...



def moment(text: str) -> datetime:
    """An ISO 8601 moment (``2026-12-01T12:00Z``; without a zone it is UTC)."""
    try:
        value = datetime.fromisoformat(text.strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r}: give the moment as 2026-12-01T12:00Z (ISO 8601, UTC unless it says "
                         "otherwise)") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Action:
    """One line of the owner's mail: an action on a game, or on the shunt."""

    line: str
    game: str | None = None
    event: Event | None = None
    shunt: tuple[str, str] | None = None
    """(``list``, ``show``, ``release`` or ``discard``; the key, or "")."""

    @property
    def reads_only(self) -> bool:
        return self.shunt is not None and self.shunt[0] in ("list", "show")


WORDS = ("pause", "resume", "deadline", "replace", "cancel", "answer", "shunt")
OPERATOR_LINE = re.compile(rf"^\s*({'|'.join(WORDS)})\b", re.I | re.M)


def read_action(line: str, at: datetime) -> Action:
    """An action written as a line; ValueError saying how to write it."""
    words = line.split()
    word = words[0].lower() if words else ""
    usage = {
        "pause": "pause GAME", "resume": "resume GAME", "deadline": "deadline GAME +24h (or an ISO time)",
        "replace": "replace GAME PLAYER NEW-ADDRESS", "cancel": "cancel GAME REASON",
        "answer": "answer GAME PLAYER TEXT",
        "shunt": "shunt list | shunt show KEY | shunt release KEY | shunt discard KEY",
    }
    if word not in usage:
        raise ValueError(f"not an action (the actions are {', '.join(WORDS)})")
    wrong = ValueError(f"write: {usage[word]}")
    if word == "shunt":
        what = words[1].lower() if len(words) > 1 else ""
        if what == "list" and len(words) == 2:
            return Action(line, shunt=("list", ""))
        if what in ("show", "release", "discard") and len(words) == 3:
            return Action(line, shunt=(what, words[2]))
        raise wrong
    if len(words) < 2:
        raise wrong
    game = words[1].lower()
    if word in ("pause", "resume"):
        if len(words) != 2:
            raise wrong
        return Action(line, game, Paused(at) if word == "pause" else Resumed(at))
    if word == "deadline":
        if len(words) != 3:
            raise wrong
        given = words[2]
        if given.startswith("+"):
            return Action(line, game, DeadlineSet(at, extend=parse_duration(given, example="24h")))
        return Action(line, game, DeadlineSet(at, deadline=moment(given)))
    if word == "replace":
        if len(words) != 4 or not words[2].isdigit():
            raise wrong
        return Action(line, game, AddressReplaced(at, int(words[2]), clean_address(words[3])))
    if word == "answer":
        if len(words) < 4 or not words[2].isdigit():
            raise wrong
        return Action(line, game, Answered(at, int(words[2]), line.split(None, 3)[3].strip()))
    reason = line.split(None, 2)[2] if len(words) > 2 else ""
    if not reason.strip():
        raise ValueError("write: cancel GAME REASON (the players are told the reason)")
    return Action(line, game, Cancelled(at, reason.strip()))


def clean_address(text: str) -> str:
    """The bare address in ``text`` (``<a@b.example>`` gives ``a@b.example``);
    ``text`` as it is when it names no address (`gm.kernel.addresses`), for
    the kernel to refuse in words."""
    return mail_address(text) or text


# The shunt

def shunt_entries(store: Store) -> list[dict[str, Any]]:
    """What the shunt holds, oldest first: key, reason, sender, subject, date."""
    entries = []
    for key in store.shunt.keys():
        raw = store.shunt.get_bytes(key)
        reason, rest = split_reason(raw)
        message = parse_message(rest)
        entries.append({"key": key, "reason": reason, "from": str(message.get("From", "")).strip(),
                        "subject": " ".join(str(message.get("Subject", "")).split())[:70],
                        "date": str(message.get("Date", "")).strip(), "origin": origin_of(key)})
    return entries


def split_reason(raw: bytes) -> tuple[str, bytes]:
    """A shunted message's reason, and the message as it was before it was shunted."""
    first, _, rest = raw.partition(b"\n")
    if first.lower().startswith(SHUNT_HEADER.lower().encode() + b":"):
        return first.split(b":", 1)[1].decode("utf-8", "replace").strip(), rest
    return "", raw


def find_shunted(store: Store, given: str) -> str:
    """The shunt key ``given`` names: the whole key, or a part of it that
    only one key holds. KeyError saying what is wrong otherwise."""
    keys = store.shunt.keys()
    if given in keys:
        return given
    found = [key for key in keys if given and given in key]
    if len(found) == 1:
        return found[0]
    if not found:
        raise KeyError(f"nothing in the shunt is called {given!r} (`gm shunt list` shows what is there)")
    raise KeyError(f"{given!r} names {len(found)} shunted messages; give more of the key")


def show(store: Store, key: str) -> bytes:
    return store.shunt.get_bytes(find_shunted(store, key))


def release(store: Store, given: str, now: datetime) -> str:
    """Handle a shunted message again, as if it had just arrived; returns
    what was done. It keeps its origin, so mail from outside stays
    untrusted; only the daily cap does not hold it back again (`released`).
    A clock event (a deadline gm failed on) is only taken out of the shunt:
    the clock spools it again by itself. The copy is spooled before the
    shunted one is removed, so a crash between loses nothing (a second
    release then spools it under the same key)."""
    key = find_shunted(store, given)
    origin = origin_of(key)
    if origin == "clock":
        store.shunt.remove(key)
        return f"{key}: taken out of the shunt; the clock spools it again"
    _, raw = split_reason(store.shunt.get_bytes(key))
    name = RELEASED + hashlib.sha256(key.encode()).hexdigest()[:12]
    again = next((k for k in store.spool.keys() if k.endswith(f".{origin}.{name}")), None)
    if again is None:
        again = spool_key(now, origin, name)
        store.spool.add(raw, again)
    store.shunt.remove(key)
    return f"{key}: spooled again as {again}"


def released(key: str) -> bool:
    """Whether a spooled mail is one the operator released from the shunt,
    which the daily cap lets through: the operator chose to apply it."""
    return key.split(".", 2)[-1].startswith(RELEASED)


def discard(store: Store, given: str) -> str:
    key = find_shunted(store, given)
    store.shunt.remove(key)
    return f"{key}: discarded"
