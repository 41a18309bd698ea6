"""Players' public names: what another player sees instead of an address.

A name is chosen by its player (``name Ahab`` to the GM's own address) and
shown wherever the player's address would otherwise reach another player:
a challenge's invitation, the open seeks, the seats of a game made from a
seek. These are the rules a name must keep; pure (no I/O), so the mail
edge, the web archive and the tests all judge a name alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

SHORTEST, LONGEST = 2, 24
_ALLOWED = re.compile(r"[A-Za-z0-9._-]+")
_DOMAIN_LIKE = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,3}")
RESERVED = ("gm", "robot")
"""Names nobody may take (with any capitals): the GM's, and the robot's
(any name that begins with ``robot`` is the robot's, at some level)."""


def name_key(name: str) -> str:
    """What two names are compared by: unique per server, whatever the capitals."""
    return name.casefold()


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a public name, in words for its player, or
    None if it can: 2 to 24 ASCII letters, digits, ``-``, ``_`` and ``.``,
    beginning with a letter; nothing that looks like a mail address or a
    domain (a name must never pass for an address), and not the GM's or
    the robot's. Only ASCII letters: a name from another script could
    look like someone else's while comparing unequal."""
    if not SHORTEST <= len(name) <= LONGEST:
        return f"a name is {SHORTEST} to {LONGEST} characters long, and {name[:40]!r} is {len(name)}"
    if "@" in name:
        return "a name must not be or contain a mail address"
    if not _ALLOWED.fullmatch(name):
        return "a name holds only the letters A to Z, digits, '-', '_' and '.' (no spaces, no markup)"
    if not name[0].isalpha():
        return "a name begins with a letter"
    if _DOMAIN_LIKE.fullmatch(name):
        return f"{name} looks like a domain name, which could pass for an address"
    lowered = name_key(name)
    if lowered in RESERVED or lowered.startswith("robot"):
        return f"{name} is the game master's or its robot's"
    return None


def holder_of(names: Mapping[str, str], name: str) -> str | None:
    """The address whose public name ``name`` is (compared as `name_key`
    does), or None: the reverse of ``names`` (address -> name)."""
    wanted = name_key(name)
    for address, held in names.items():
        if name_key(held) == wanted:
            return address
    return None


def refusal(names: Mapping[str, str], address: str, name: str) -> str | None:
    """Why ``address`` may not take ``name`` given who holds which name now,
    or None if it may (keeping one's own name, in other capitals, may)."""
    problem = name_problem(name)
    if problem:
        return problem
    holder = holder_of(names, name)
    if holder is not None and holder != address:
        return f"{name} is taken: someone else plays under it"
    if names.get(address) == name:
        return f"{name} is your name already"
    return None
