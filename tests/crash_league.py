"""The scaffold of the league's crash tests (a seek taken, a seek's fill, a
tournament's round; issues 23 and 25): `gm serve` as a real process
(tests/test_crash.py's `Server`), run once without a crash to set things up
by mail, then started again with GM_CRASH_AT for the step that is killed,
and what every one of them checks afterwards."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from gm.pbem.data.store import Store
from gmtest import ALICE, BOB, GM
from test_crash import Server, delivered, send_until_accepted, wait_until_idle


@contextmanager
def serving(server: Server, point: str | None = None) -> Iterator[Server]:
    """``server`` started (to die once at ``point``, if given) and stopped
    when the block ends; a block that ends normally must have seen it die
    exactly that once (never without a point)."""
    before = server.crashes
    server.start(point)
    try:
        yield server
    finally:
        server.stop()
    assert server.crashes == before + (point is not None), f"the crash point {point} never fired"


def mail(server: Server, root: Path, sender: str, body: str, answering: str | None = None) -> None:
    """``sender`` writes ``body`` to the GM's own address, or replies
    ``body`` to its latest mail whose Subject begins with ``answering``."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = GM
    message["Subject"] = "to the GM"
    if answering:
        original = [m for m in delivered(root)
                    if sender in str(m["To"]) and str(m["Subject"]).startswith(answering)][-1]
        message.replace_header("To", str(original["Reply-To"]))
        message["In-Reply-To"] = str(original["Message-ID"])
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content(body)
    send_until_accepted(server, message.as_bytes(), sender, str(message["To"]))
    wait_until_idle(server, root)


def subjects(root: Path, address: str) -> list[str]:
    return [str(m["Subject"]) for m in delivered(root) if address in str(m["To"])]


def named_seek(server: Server, root: Path, seek: str) -> str:
    """Alice (Ahab) and Bob (Ishmael) confirm their public names, then Alice
    posts the seek ``seek`` (its mail's text) and confirms it; its id."""
    wait_until_idle(server, root)
    for address, chosen in ((ALICE, "Ahab"), (BOB, "Ishmael")):
        mail(server, root, address, f"name {chosen}")
        mail(server, root, address, "confirm", answering="[gm] Confirm your name")
    mail(server, root, ALICE, seek)
    mail(server, root, ALICE, "confirm", answering="[gm] Confirm your seek")
    (seek_id,) = re.findall(r"Your seek (s[0-9a-f]{10}) is open", " ".join(subjects(root, ALICE)))
    return seek_id


def games_made(store: Store) -> list[str]:
    """The games whose archive holds anything (a crash may leave an id reserved and unused)."""
    return [game_id for game_id in store.game_ids() if store.archive(game_id).keys()]


def each_sent_once(root: Path) -> None:
    """No mail was delivered twice, and neither the spool nor the outbox holds anything."""
    ids = [str(m["Message-ID"]) for m in delivered(root)]
    assert len(ids) == len(set(ids))
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
