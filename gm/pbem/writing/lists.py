"""List headers on gm's mail that is not a game's own turn mail (issue 24).

Reminders, daily digests and the notices a player did not ask for are the
kind of mail that mail clients and large mailbox providers expect a way out
of: each carries ``List-Id`` [RFC 2919], naming which of gm's lists it is, and
``List-Unsubscribe`` [RFC 2369]: a ``mailto:`` to the GM's own address with
a token only the recipient's mailbox was sent, and, when the web archive's
public address is configured, an https URL that takes the one-click POST of
[RFC 8058] (then ``List-Unsubscribe-Post: List-Unsubscribe=One-Click``).
Unsubscribing sets the matching setting (`LISTS`): ``reminders off`` or
``notices off`` (`gm.pbem.answers.unsubscribe`).

A reminder is a game's mail, archived and replayed byte for byte, so its
mailto carries the seat's own reply token (masked in the archive like every
reply address) and no URL, which is the operator's configuration, not the
game's: the game's archive alone gives the same bytes.

An observer's mail (games of `OBSERVERS_EDITION` on) is a game's mail too,
of the game's own list (`observer_list`): its mailto is ``gm+uGAME.0.TOKEN``,
the token the observer's own for that game (`observer_secret`: derived from
the server key, the game and the observer's address, as a seat's is from its
subject), filled in when it is sent and masked in the archive like a seat's.
The one-click URL, the operator's, is put in only as the mail is queued
(`with_one_click`), so that the archive holds what the game alone gives.
Unsubscribing takes the observer off that game (`gm.kernel.observers.left`).
"""

from __future__ import annotations

import base64
import re

from ...kernel.values import FINISH_EDITION
from ..data.tokens import token, verify
from .writer import Mail

LISTS = {"reminders": ("reminders", "off"), "notices": ("notices", "off")}
"""Each list: the setting unsubscribing from it sets, and to what."""
NOTICE_TEMPLATES = ("reminder",)
"""The templates of a game's own mail that go to a list (``reminders``)."""
OBSERVERS_EDITION = FINISH_EDITION
"""The first edition whose observers' mail carries list headers and their own way out."""
OBSERVER = 0
"""The seat number of an observer's mailto (``gm+uGAME.0.TOKEN``), as of their notices (`Notice.player`)."""


def list_id(domain: str, name: str) -> str:
    """``List-Id`` of the list ``name``: a phrase and ``<name.DOMAIN>``."""
    return f"gm {name} <{name}.{domain}>"


def unsubscribe_secret(key: bytes, name: str, address: str) -> str:
    """The token of ``address``'s way out of the list ``name``."""
    return token(key, f"unsubscribe/{name}/{address.lower()}", 1)


def unsubscribe_tag(name: str) -> str:
    """The tag of a list's mailto (``gm+TAG.1.TOKEN``; a game's reminders use
    ``gm+uGAME.PLAYER.TOKEN``, the seat's own token)."""
    return f"u{name}"


def unsubscribe_path(name: str, address: str, secret: str) -> str:
    """The web archive's path that unsubscribes ``address`` from ``name``."""
    who = base64.urlsafe_b64encode(address.lower().encode()).decode().rstrip("=")
    return f"/unsubscribe/{name}/{who}/{secret}"


def address_in_path(who: str) -> str | None:
    """The address a path's ``who`` part names, or None when it names none."""
    try:
        return base64.urlsafe_b64decode(who + "=" * (-len(who) % 4)).decode()
    except (ValueError, UnicodeDecodeError):
        return None


def add_list_headers(message: Mail, domain: str, name: str, mailto: str, url: str | None = None) -> None:
    """Put the list headers of ``name`` on ``message`` (``mailto``: the GM's
    address with the recipient's token, `unsubscribe_tag`)."""
    message["List-Id"] = list_id(domain, name)
    ways = ([f"<{url}>"] if url else []) + [f"<mailto:{mailto}?subject=unsubscribe>"]
    message["List-Unsubscribe"] = ", ".join(ways)
    if url:
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"


def observer_list(game: str) -> str:
    """The name of game ``game``'s list of observers (its ``List-Id`` is ``<GAME.observers.DOMAIN>``)."""
    return f"{game}.observers"


def _observer_subject(game: str, address: str) -> str:
    return f"unsubscribe/observer/{game}/{address.lower()}"


def observer_secret(key: bytes, game: str, address: str) -> str:
    """The token of observer ``address``'s way out of game ``game``: theirs
    alone, neither a seat's nor another observer's or game's."""
    return token(key, _observer_subject(game, address), OBSERVER)


def is_observer_secret(key: bytes, game: str, address: str, candidate: str) -> bool:
    """Whether ``candidate`` is `observer_secret` of ``address`` in ``game``."""
    return verify(key, _observer_subject(game, address), OBSERVER, candidate)


def listed(data: bytes) -> bool:
    """Whether a message carries ``List-Unsubscribe`` (mail to a list, not a game's own turn mail)."""
    end = _HEAD_END.search(data)
    return _UNSUBSCRIBE.search(data[:end.start()] if end else data) is not None


def with_one_click(data: bytes, url: str) -> bytes:
    """A message with ``List-Unsubscribe`` (as `add_list_headers` writes it
    without a URL) as it is sent where the web archive's address is known:
    ``url`` first among its ways, and ``List-Unsubscribe-Post`` before it.
    The field's folding is kept as it is. A message without the header is
    returned as it is."""
    end = _HEAD_END.search(data)
    head = data[:end.start()] if end else data
    found = _UNSUBSCRIBE.search(head)
    if found is None:
        return data
    newline = b"\r\n" if head[found.start():].find(b"\r\n") >= 0 else b"\n"
    at = found.start(1)
    return (data[:at] + b"List-Unsubscribe-Post: List-Unsubscribe=One-Click" + newline
            + b"List-Unsubscribe: <" + url.encode() + b">," + data[found.end():])


_HEAD_END = re.compile(rb"\r?\n\r?\n")
_UNSUBSCRIBE = re.compile(rb"(?:^|\n)(List-Unsubscribe:)", re.I)
