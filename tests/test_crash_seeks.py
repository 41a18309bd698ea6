"""SIGKILL while a seek is being taken (issue 23): after the restart there
is exactly one game, made once, and each player told once.

The daemon runs as a real process (`gm serve`), as in tests/test_crash.py,
whose helpers these are: names and a seek are set up by a daemon that does
not crash, then one restarted with GM_CRASH_AT handles the taker's
confirmation and dies at the chosen step."""

from __future__ import annotations

import re
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest

from gm.pbem.data.store import Store
from gmtest import ALICE, BOB, GM
from test_crash import Server, delivered, send_until_accepted, wait_until_idle

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

POINTS = ["after-spool:1", "mid-handle:1", "after-queue:1", "between-messages:1", "batch-synced:1",
          "mid-batch-commit:1", "mid-batch-commit:3", "after-batch-commit:1", "batch-synced:2",
          "mid-batch-commit:5", "mid-delivery:2", "mid-sent:1"]


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


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_a_seek_is_taken_makes_one_game(tmp_path, point):
    root = tmp_path / "data"
    server = Server(root, None)
    server.start(None)
    try:
        wait_until_idle(server, root)
        for address, chosen in ((ALICE, "Ahab"), (BOB, "Ishmael")):
            mail(server, root, address, f"name {chosen}")
            mail(server, root, address, "confirm", answering="[gm] Confirm your name")
        mail(server, root, ALICE, "seek spaceships")
        mail(server, root, ALICE, "confirm", answering="[gm] Confirm your seek")
        (seek_id,) = re.findall(r"Your seek (s[0-9a-f]{10}) is open", " ".join(subjects(root, ALICE)))
        mail(server, root, BOB, f"accept {seek_id}")
    finally:
        server.stop()
    assert server.crashes == 0
    server.start(point)
    try:
        mail(server, root, BOB, "confirm", answering="[gm] Confirm you take")
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {point} never fired"
    store = Store(root)
    made = [game_id for game_id in store.game_ids() if store.archive(game_id).keys()]
    # One game (a crash may leave the id reserved before it unused, as a challenge's does).
    (game_id,) = made
    assert subjects(root, ALICE).count("[gm] Ishmael took your seek") == 1
    assert subjects(root, BOB).count("[gm] You took Ahab's seek") == 1
    for address in (ALICE, BOB):
        invitations = [s for s in subjects(root, address) if s.startswith(f"[gm {game_id}] Invitation")]
        assert len(invitations) == 1, subjects(root, address)
    # Nobody is told anything twice, nor told the redone confirmation was refused.
    assert not [s for s in subjects(root, ALICE) + subjects(root, BOB) if "Refused" in s]
    ids = [str(m["Message-ID"]) for m in delivered(root)]
    assert len(ids) == len(set(ids))
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
