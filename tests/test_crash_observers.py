"""SIGKILL while an observer unsubscribes from a game's mail (issue 24): the
daemon spools an ``observer-left`` event for the game under a name made from
the mail's spool key, then sends the answer. After the restart the game's
archive holds that event once (and replays from it), the observer is
answered once, and is sent nothing more of the game.

The daemon runs as a real process (`gm serve`), with tests/test_crash.py's
helpers and the league crash tests' scaffold (tests/crash_league.py): the
game is made by a daemon that does not crash, then one restarted with
GM_CRASH_AT handles the observer's mail to the ``List-Unsubscribe`` mailto
and dies at the chosen step."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from crash_confirming import nothing_left
from crash_league import serving, subjects
from crash_orders import latest_to
from gm.cli import main
from gm.kernel.values import Options
from gm.mail.reading import parse_message
from gm.pbem.archive.events import OBSERVER_LEFT
from gm.pbem.data.store import Store
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM
from test_crash import Server, send_until_accepted, wait_for_crash, wait_until_idle
from test_digest import plain, unsubscribe_ways

pytestmark = pytest.mark.slow  # a real daemon SIGKILLed at every crash point

CAROL = "carol@example.com"

POINTS = ["spool-synced:1", "mid-spool-commit:1", "after-spool:1", "mid-handle:1", "between-messages:1",
          "batch-synced:1", "mid-batch-commit:1", "mid-batch-commit:2", "after-batch-commit:1", "mid-handle:2",
          "after-archive:1", "after-apply:1", "after-queue:1", "between-messages:2", "batch-synced:2",
          "mid-batch-commit:3", "after-batch-commit:2", "delivery-synced:1", "mid-delivery-commit:1",
          "mid-delivery:1", "mid-sent:1"]
"""Every step the unsubscribing passes, in the order a run without a crash
passed them: the mail spooled, then handled in one batch of the master's
(the event spooled and the answer queued: two files), the event applied to
the game in the next, and the answer delivered."""


def unsubscribed_through_a_crash(root: Path, point: str | None) -> None:
    """A game of Alice's and Bob's that Carol watches, made without a crash;
    then Carol's mail to her ``List-Unsubscribe`` mailto, handled by a daemon
    that dies once at ``point`` (with None, one that does not die)."""
    request_game(Store(root), Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC),
                 observers=[CAROL])
    server = Server(root, None)
    with serving(server):
        wait_until_idle(server, root)
    _, mailto = unsubscribe_ways(latest_to(root, CAROL, "g1"))
    with serving(server, point):
        send_until_accepted(server, plain(CAROL, mailto), CAROL, mailto)
        if point is not None:
            wait_for_crash(server)  # a point after the last mail was sent may fire once all looks idle
        wait_until_idle(server, root)


@pytest.mark.parametrize("point", POINTS)
def test_sigkill_while_an_observer_unsubscribes_leaves_once_and_answers_once(tmp_path, point):
    root = tmp_path / "data"
    unsubscribed_through_a_crash(root, point)
    archive = Store(root).archive("g1")
    kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
    assert kinds.count(OBSERVER_LEFT) == 1, kinds
    assert subjects(root, CAROL).count("[gm g1] Unsubscribed") == 1
    nothing_left(root)
    # She is sent nothing more of the game: not its end, which the players are sent.
    before = {address: subjects(root, address) for address in (ALICE, CAROL)}
    assert main(["cancel", "g1", "--data", str(root), "--reason", "test"]) == 0
    with serving(Server(root, None)) as server:
        wait_until_idle(server, root)
    assert len(subjects(root, ALICE)) > len(before[ALICE]), subjects(root, ALICE)
    assert subjects(root, CAROL) == before[CAROL]
    count, differences = verify_replay(str(root / "games" / "g1"))
    assert count and not differences, differences
