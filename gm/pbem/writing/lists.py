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
"""

from __future__ import annotations

import base64

from ..data.tokens import token
from .writer import Mail

LISTS = {"reminders": ("reminders", "off"), "notices": ("notices", "off")}
"""Each list: the setting unsubscribing from it sets, and to what."""
NOTICE_TEMPLATES = ("reminder",)
"""The templates of a game's own mail that go to a list (``reminders``)."""


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
