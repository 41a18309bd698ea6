"""``ratings`` (optionally ``ratings GAME``) to the GM's own address: the
rating tables, answered to the sender only.

The tables come from the derived store (`gm.pbem.state.ratings`), rebuilt
from the finished games when it is missing, damaged or out of date. What
the answer shows is public: each person by their public name
(`gm.pbem.data.names`), never by address; a player without one is left out
and counted. The answer goes only to the address the mail claims, within
the day's allowance of mail about no game (`OutsideMail.allowed`, as
``games``), so a forged request tells the forger nothing and floods no one.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ...kernel.protocol import REGISTRY, game_named
from ...kernel.values import ENDED
from ..data.names import public_names
from ..data.store import time_of
from ..intake.decisions import Shunted
from ..state.ratings import Ratings, current, public_table
from .outside import Master

RATINGS = re.compile(r"^\s*ratings(?:[ \t]+(\S+))?[ \t]*(;.*)?$", re.I | re.M)
NAME_PREFIX = "ratings-"
"""How the outbox names of the answers begin."""


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address asks for the ratings."""
    return bool(RATINGS.search(text))


def tables(master: Master) -> Ratings:
    """The rating tables of every finished game the master knows."""
    ended = [game.id for game in master.all_games.all() if game.phase == ENDED]
    return current(master.store.root, ended, master.all_games.__getitem__)


def public_tables(ratings: Ratings, names: dict[str, str], only: str | None = None) -> list[dict[str, Any]]:
    """Each hosted game's table (or only the game ``only``) as anyone may see it."""
    shown = []
    for name in [only] if only else REGISTRY.names():
        rows, hidden = public_table(ratings.table(name), names)
        shown.append({"game": name, "title": game_named(name).title, "rows": rows, "hidden": hidden})
    return shown


def answer(master: Master, key: str, address: str, text: str) -> None:
    """Mail ``address`` the tables its ``ratings`` line asks for."""
    found = RATINGS.search(text)
    assert found, "answer() is only given what wants() takes"
    at = time_of(key)
    master.outside.allowed(address, "ratings", at)
    only = None
    if found.group(1):
        try:
            only = game_named(found.group(1)).name
        except ValueError as error:
            raise Shunted(f"ratings of an unknown game: {error}") from None
    data = {"tables": public_tables(tables(master), public_names(master.store), only)}
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    master.outside.send(NAME_PREFIX + digest, address, "[gm] Ratings", at, "ratings", data, "auto-replied")
