"""The players' side of the crash tests that send turn 1's orders of several
games at once (tests/test_crash.py with one daemon, tests/test_masters.py
with its master processes): the mail the GM delivered, the players'
replies to it, and the check that after the crashes every accepted message
was applied once, in its game, and every reply delivered once. Each test
file passes its own games."""

from __future__ import annotations

from collections.abc import Sequence
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from gm.mail.reading import parse_message
from gm.storage.maildirs import DurableMaildir
from gmtest import ALICE, BOB

ORDERS = [(ALICE, "Rv1 Rv2"), (BOB, "Bz5 sRv1")]
"""Turn 1's orders of both players, the same in every game."""


def delivered(root: Path) -> list:
    """Every mail the daemon delivered (the test's MTA keeps them in ``delivered``)."""
    box = DurableMaildir(root / "delivered", create=False)
    return [parse_message(box.get_bytes(k)) for k in box.keys()]


def latest_to(root: Path, address: str, game: str | None = None):
    """The last mail delivered to ``address`` (in ``game``, if given)."""
    mine = [m for m in delivered(root)
            if address in str(m["To"]) and (game is None or str(m["X-GM-Game"]).strip() == game)]
    return max(mine, key=lambda m: (m["Date"].datetime, str(m["Message-ID"])))


def reply(root: Path, address: str, body: str, game: str | None = None) -> tuple[bytes, str]:
    """``address``'s reply to the last mail it got (in ``game``, if given):
    the raw message and the address it goes to."""
    original = latest_to(root, address, game)
    message = EmailMessage()
    message["From"] = address
    message["To"] = str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"])
    message["Message-ID"] = make_msgid(domain="players.example")
    message["In-Reply-To"] = str(original["Message-ID"])
    message.set_content(body)
    return message.as_bytes(), str(original["Reply-To"])


def orders(root: Path, games: Sequence[str], sent: dict[str, list[str]]) -> list[tuple[bytes, str, str]]:
    """Turn 1's orders of both players of every game: (raw, sender, recipient)."""
    mails = []
    for game in games:
        for address, body in ORDERS:
            raw, to = reply(root, address, body, game)
            sent[game].append(str(parse_message(raw)["Message-ID"]))
            mails.append((raw, address, to))
    return mails


def each_once(root: Path, games: Sequence[str], sent: dict[str, list[str]],
              commits: Sequence[str] = ("commit",)) -> None:
    """Every accepted message applied once, in its game; every reply
    delivered once; nothing left to do, and each of the ``commits`` files
    (below ``root``) empty: no group commit left half done."""
    ids = [str(m["Message-ID"]) for m in delivered(root)]
    assert len(ids) == len(set(ids)) == 10 * len(games)
    for game in games:
        archive = DurableMaildir(root / "games" / game, create=False)
        inbound = [parse_message(archive.get_bytes(k)) for k in archive.keys() if ".in." in k]
        assert sorted(str(m["Message-ID"]) for m in inbound if m.get("X-GM-Accepted")) == sorted(sent[game])
        assert len(inbound) == 1 + len(sent[game])
        assert len([k for k in archive.keys() if ".out." in k]) == 10
        results = [m for m in delivered(root)
                   if "Turn 1 results" in str(m["Subject"]) and str(m["X-GM-Game"]).strip() == game]
        assert len(results) == 2
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
    for commit in commits:
        assert (root / commit).read_bytes() == b"", commit
