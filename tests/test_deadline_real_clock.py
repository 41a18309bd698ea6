"""A deadline of a few seconds against the real daemon and the real clock.

Nothing is simulated: `gm serve` runs as its own process on a loopback port,
`gm new --deadline 3s` asks for the game, the players answer over SMTP, and
the silent player's turn runs when the wall clock passes the deadline."""

from __future__ import annotations

import smtplib
import time

import pytest

from gmprocess import free_port, gm, inbox, reply_to, serving, wait_for
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB

pytestmark = pytest.mark.slow  # a whole game by mail against the real daemon, waiting on the wall clock


def reply(port: int, sender: str, original, body: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.send_message(reply_to(original, sender, body))


def test_a_silent_player_is_overtaken_by_the_real_clock(tmp_path):
    data, port = tmp_path / "data", free_port()
    with serving(data, port, GM, tmp_path):
        made = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB,
                  "--deadline", "3s", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        invitations = wait_for("the invitations",
                               lambda: len(inbox(data, BOB)) == 1 and (inbox(data, ALICE), inbox(data, BOB)))
        reply(port, ALICE, invitations[0][-1], SETUP_ALICE)
        reply(port, BOB, invitations[1][-1], SETUP_BOB)
        begun = wait_for("turn 1", lambda: [m for m in inbox(data, ALICE) if "the game begins" in str(m["Subject"])])
        reply(port, ALICE, begun[-1], "Rv1")
        sent = time.monotonic()
        # Bob stays silent: the turn runs at the deadline, three seconds after it began.
        results = wait_for("the turn to run at its deadline",
                           lambda: [m for m in inbox(data, BOB) if "Turn 1 results" in str(m["Subject"])])
        assert time.monotonic() - sent < 3 + 5
        sheet = results[-1].get_payload()[0].get_payload(decode=True).decode()
        assert "you sent no orders" in sheet
        shown = gm("show", "g1", "--data", str(data), cwd=tmp_path)
        assert '"turn": 2' in shown.stdout and '"waiting_for": [\n    "Player 1",\n    "Player 2"' in shown.stdout
        # And then, with both silent, turn after turn, the forfeit [the three-missed-turns rule].
        wait_for("the forfeit", lambda: [m for m in inbox(data, ALICE) if "over" in str(m["Subject"])])
        assert not list((data / "shunt" / "new").iterdir())

