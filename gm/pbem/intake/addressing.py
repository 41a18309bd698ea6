"""Where a mail says it is going and where it came from, as gm routes it:
the plus-address tags it was sent to (``gm+GAME.PLAYER.TOKEN@domain``) and
the envelope the listener or the MTA recorded."""

from __future__ import annotations

from email.message import Message

from ...mail.reading import addresses
from ..writing.mailer import Identity

ENVELOPE_HEADER = "X-GM-Envelope-To"
"""Where the listener records each envelope recipient, on top of the mail."""


def plus_tags(message: Message, identity: Identity) -> list[list[str]]:
    """The dot-separated parts of every ``gm+TAG@domain`` the mail was
    sent to (envelope recipients first, then To and Cc), in lower case:
    relays may fold a local part's case, and gm's tags are lower case."""
    local, domain = identity.local.lower(), identity.domain.lower()
    tags = []
    for address in envelope_to(message) + addresses(message, "To") + addresses(message, "Cc"):
        name, _, host = address.rpartition("@")
        base, plus, tag = name.partition("+")
        if plus and base.lower() == local and host.lower() == domain:
            tags.append(tag.lower().split("."))
    return tags


def envelope_from(message: Message) -> str | None:
    """The envelope sender (``Return-Path``), if the mail has one."""
    value = message.get("Return-Path")
    if value is None:
        return None
    return str(value).strip().strip("<>")


def envelope_to(message: Message) -> list[str]:
    """The envelope recipients the listener recorded (``X-GM-Envelope-To``)."""
    return [a for a in (str(v).strip().strip("<>") for v in message.get_all(ENVELOPE_HEADER, [])) if "@" in a]
