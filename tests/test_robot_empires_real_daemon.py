"""A person plays Celestial Empire against eight robot empires, against the
real daemon (issue 25's first Done-when).

Nothing is simulated: `gm serve` runs as its own process on a loopback port
with the wall clock; Alice asks for the game by mail (``challenge robot``,
``game celestial-empire``, ``robots 8``), confirms it, and answers each turn
sheet over SMTP with an order read from it. The robots' orders are in
within seconds of each turn, so the short game (it ends after turn 3) is
played in one sitting; the archive must replay byte for byte. Then the
operator's ``gm new --robots`` makes the same table from the command line."""

from __future__ import annotations

import json
import smtplib

import pytest

from gm.mail.reading import parse_message
from gm.pbem.data.store import Store
from gmprocess import free_port, gm, inbox, serving, wait_for
from gmtest import ALICE, GM, text
from test_deadline_real_clock import reply
from test_robot_empires import SHORT, earth_scan

pytestmark = pytest.mark.slow  # a whole game of nine empires by mail against the real daemon


def mail_gm(port: int, body: str) -> None:
    raw = (f"From: {ALICE}\r\nTo: {GM}\r\nSubject: a game\r\nMessage-ID: <ce-robots@example.org>\r\n\r\n"
           + body.replace("\n", "\r\n")).encode()
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.sendmail(ALICE, [GM], raw)


def test_alice_plays_eight_robot_empires_to_the_end_by_mail(tmp_path):
    data, port = tmp_path / "data", free_port()
    with serving(data, port, GM, tmp_path):
        mail_gm(port, f"challenge robot\ngame celestial-empire\nvariant {SHORT}\nrobots 8\nlevel easy\n")
        confirm = wait_for("the confirmation", lambda: inbox(data, ALICE))[-1]
        assert "8 of its robots" in " ".join(text(parse_message(confirm.as_bytes())).split())
        reply(port, ALICE, confirm, "confirm")
        latest = wait_for("turn 1", lambda: [m for m in inbox(data, ALICE) if "game begins" in str(m["Subject"])])[-1]
        first = text(parse_message(latest.as_bytes()))
        assert "Played by the GM's robot:" in first
        turn = 1
        while "over" not in str(latest["Subject"]):
            assert turn <= 3, "the game did not end after turn 3"
            reply(port, ALICE, latest, earth_scan(text(parse_message(latest.as_bytes()))))
            latest = wait_for(f"the sheet after turn {turn}", lambda done=(f"Turn {turn} results", "over"): [
                m for m in inbox(data, ALICE) if any(word in str(m["Subject"]) for word in done)])[-1]
            turn += 1
        shown = json.loads(gm("show", "g1", "--data", str(data), cwd=tmp_path).stdout)
        assert shown["phase"] == "ended" and len(shown["players"]) == 9
        assert not list((data / "shunt" / "new").iterdir())
        assert not [m for m in (data / "delivered" / "new").iterdir() if b"\nTo: robot" in m.read_bytes()]
    replayed = gm("replay", str(data / "games" / "g1"), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_gm_new_seats_robots_after_the_people_and_refuses_them_for_two_player_games(tmp_path):
    data = tmp_path / "data"
    Store(data)  # the data directory, as gm serve makes it
    made = gm("new", "--data", str(data), "--address", GM, "--game", "celestial-empire", "--player", ALICE,
              "--robots", "8", "--level", "hard", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    refused = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--robots", "1", cwd=tmp_path)
    assert refused.returncode == 2 and "takes --robot" in refused.stderr
    listed = gm("games", "--data", str(data), cwd=tmp_path).stdout
    assert listed.count("<robot>") == 8 and ALICE in listed
    spooled = b"".join(path.read_bytes() for path in (data / "spool" / "new").iterdir())
    assert spooled.count(b": hard") == 8 and b"take-over-after: 2" in spooled
