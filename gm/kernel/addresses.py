"""What gm takes for a mail address: one policy for the whole project.

A player's address given to ``gm new``, a challenged address, the ``address``
command's new address, the operator's ``replace``, the owner setting and
the sender of every mail that comes in are all read by `mail_address`, so
that an address gm accepts in one place it accepts in every other: a game
made for ``you@localhost`` can be played from ``you@localhost``.

An address is ``LOCAL@DOMAIN``: a local part of printable characters other
than the few that delimit addresses in a header (space, ``@ < > , ; : " ( )
[ ] \\``), and a domain of one or more DNS labels (letters, digits and
inner hyphens) joined by dots. A domain without a dot (``localhost``, a
host on a local network) is a real address on a local system and is taken;
quoted local parts and address literals (``[127.0.0.1]``) are not.
"""

from __future__ import annotations

import re
from email.utils import getaddresses

__all__ = ["is_mail_address", "mail_address"]

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_ADDRESS = re.compile(rf"[^\s@<>,;:\"()\[\]\\]+@{_LABEL}(?:\.{_LABEL})*")


def mail_address(text: str) -> str | None:
    """The one mail address ``text`` names, bare and with its case kept, or
    None when it names none or several. ``text`` is an address as a header
    or a line of mail writes it: ``Alice <Alice@X.example>,`` gives
    ``Alice@X.example``; ``a@x.example, b@y.example`` and ``not-an-address``
    give None."""
    found = [address for _, address in getaddresses([text.strip().rstrip(",;.")]) if address]
    if len(found) != 1 or not _ADDRESS.fullmatch(found[0]):
        return None
    return found[0]


def is_mail_address(text: str) -> bool:
    """Whether ``text`` is itself one bare mail address (`mail_address`),
    as a seat, an observer or a new address must be written."""
    return mail_address(text) == text
