"""A person plays the GM's hard robot to the end, against the real daemon.

Nothing is simulated: `gm serve` runs as its own process on a loopback
port with the wall clock, `gm new --robot --level hard` asks for the game,
and Alice answers every mail over SMTP as a player would, from what her
mail says: her setup, then each turn a few strikes at cells of the robot's
space she has not struck yet. The robot must answer each of her mails
within seconds, so the whole game is played in one sitting, and the
archive must replay byte for byte."""

from __future__ import annotations

import json
import random

import pytest

from gm.games.spaceships.geometry import ALL_CELLS
from gm.mail.reading import parse_message
from gmprocess import free_port, gm, inbox, serving, wait_for
from gmtest import ALICE, GM, SETUP_ALICE, text
from test_deadline_real_clock import reply

pytestmark = pytest.mark.slow  # a whole game by mail against the real daemon

MAX_TURNS = 200


def test_alice_plays_the_hard_robot_to_the_end_by_mail(tmp_path):
    data, port = tmp_path / "data", free_port()
    with serving(data, port, GM, tmp_path):
        made = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--robot", "--level", "hard",
                  cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        invitation = wait_for("the invitation", lambda: inbox(data, ALICE))
        reply(port, ALICE, invitation[-1], SETUP_ALICE)
        begun = wait_for("turn 1", lambda: [m for m in inbox(data, ALICE) if "the game begins" in str(m["Subject"])])
        cells = [str(cell) for cell in ALL_CELLS]
        random.Random(13).shuffle(cells)
        latest, turn = begun[-1], 1
        while "over" not in str(latest["Subject"]):
            assert turn <= MAX_TURNS, "the game did not end"
            strikes, cells = cells[:1], cells[1:] or [str(cell) for cell in ALL_CELLS]
            reply(port, ALICE, latest, " ".join(strikes))
            answer = wait_for(f"the answer to turn {turn}", lambda: [
                m for m in inbox(data, ALICE)
                    if f"Turn {turn} results" in str(m["Subject"]) or "over" in str(m["Subject"])])
            latest, turn = answer[-1], turn + 1
        shown = json.loads(gm("show", "g1", "--data", str(data), cwd=tmp_path).stdout)
        assert shown["phase"] == "ended"
        final = text(parse_message(latest.as_bytes()))
        assert "Robot wins" in final, final[:2000]
        assert not list((data / "shunt" / "new").iterdir())
        assert not [m for m in (data / "delivered" / "new").iterdir() if b"To: robot" in m.read_bytes()]
    replayed = gm("replay", str(data / "games" / "g1"), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
