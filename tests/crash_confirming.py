"""The scaffold of the crash tests of a player's confirmed request that
reaches each of their games (settings, a vacation, a deputy; issue 24):
two games of Alice's and Bob's and the request are made by a daemon that
does not crash, then one restarted with GM_CRASH_AT handles the reply that
confirms it and dies at the chosen step. The daemon runs as a real process
(`gm serve`), as in tests/test_crash.py."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from crash_league import mail
from gm.kernel.values import Options
from gm.mail.reading import parse_message
from gm.pbem.data.store import Store
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM
from test_crash import Server, wait_for_crash, wait_until_idle

GAMES = ("g1", "g2")


def confirmed_through_a_crash(root: Path, point: str, asked: list[tuple[str, str, str | None]],
                              confirming: str, answering: str) -> Store:
    """Two games between Alice and Bob, each mail of ``asked`` (sender, body,
    the Subject it answers or None) handled without a crash, then
    ``confirming``'s ``confirm`` to the mail whose Subject begins with
    ``answering`` handled by a daemon that dies once at ``point``; the store
    after it was restarted and everything was done."""
    store = Store(root)
    for _ in GAMES:
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.start(None)
    try:
        wait_until_idle(server, root)
        for sender, body, answered in asked:
            mail(server, root, sender, body, answering=answered)
    finally:
        server.stop()
    assert server.crashes == 0
    server.start(point)
    try:
        mail(server, root, confirming, "confirm", answering=answering)
        wait_for_crash(server)  # a point after the last mail was sent may fire once all looks idle
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 1, f"the crash point {point} never fired"
    return Store(root)


def recorded_once_in_each_game(store: Store, root: Path, kind: str) -> None:
    """Each game's archive holds one event of ``kind``, and each game replays from it."""
    for game_id in GAMES:
        archive = store.archive(game_id)
        kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
        assert kinds.count(kind) == 1, (game_id, kinds)
        count, differences = verify_replay(str(root / "games" / game_id))
        assert count and not differences, differences


def nothing_left(root: Path) -> None:
    """Neither the spool nor the outbox holds anything."""
    assert not list((root / "spool" / "new").iterdir()) and not list((root / "outbox" / "new").iterdir())
