"""A player's time zone and quiet hours, through the real daemon and the
wall clock (`gm serve` as its own process on a loopback port): a zone set
by mail and the next mail in local time, a change of daylight saving time
between two deadlines the operator set, and quiet hours moving a deadline
(the running one, and one the operator set after)."""

from __future__ import annotations

import json
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from gm.pbem.operator.admin import verify_replay
from gmprocess import free_port, gm, inbox, reply_to, serving, wait_for
from gmtest import ALICE, BOB, GM

pytestmark = pytest.mark.slow  # the real daemon, waiting on the wall clock


def send(port: int, message: EmailMessage) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.send_message(message)


def to_gm(sender: str, body: str) -> EmailMessage:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, GM, "my settings"
    message["Message-ID"] = make_msgid(domain=sender.split("@")[1])
    message.set_content(body)
    return message


def body(message) -> str:
    part = message.get_payload()[0] if message.is_multipart() else message
    while part.is_multipart():
        part = part.get_payload()[0]
    return part.get_payload(decode=True).decode()


def ids(data, address: str) -> set[str]:
    """The Message-IDs of the mail ``address`` was delivered so far (the
    inbox is in order of the Date, to the second: not a count to slice)."""
    return {str(m["Message-ID"]) for m in inbox(data, address)}


def fresh(data, address: str, seen: set[str], what: str, words: str) -> str:
    """The text of a mail to ``address``, not among ``seen``, holding ``words``."""
    def new() -> list:
        return [m for m in inbox(data, address) if str(m["Message-ID"]) not in seen]

    found = wait_for(what, lambda: [body(m) for m in new() if words in body(m)],
                     lambda: "\n---\n".join(body(m) for m in new()))
    return found[0]


def settle_settings(port: int, data, sender: str, lines: str) -> str:
    """``sender`` mails the GM's own address ``lines`` and confirms them;
    the GM's answer saying what changed."""
    seen = ids(data, sender)
    send(port, to_gm(sender, lines))
    confirmation = wait_for("the confirmation", lambda: [m for m in inbox(data, sender) if str(m["Message-ID"])
                                                         not in seen and "Confirm" in str(m["Subject"])])[0]
    seen = ids(data, sender)
    send(port, reply_to(confirmation, sender, "confirm"))
    return fresh(data, sender, seen, "the settings set", "Your settings are now")


def operator_deadline(tmp_path, data, at: str) -> None:
    moved = gm("deadline", "g1", "--data", str(data), "--address", GM, "--at", at, cwd=tmp_path)
    assert moved.returncode == 0, moved.stderr


def game_deadline(tmp_path, data) -> str:
    return json.loads(gm("show", "g1", "--data", str(data), cwd=tmp_path).stdout)["deadline"]


def replays(data) -> None:
    """The game's archive, settings events and all, replays byte for byte."""
    count, differences = verify_replay(str(data / "games" / "g1"))
    assert count and not differences, differences


def new_game(tmp_path, data) -> None:
    made = gm("new", "--data", str(data), "--address", GM, "--player", ALICE, "--player", BOB, "--deadline", "30d",
              cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    wait_for("the invitations", lambda: inbox(data, ALICE) and inbox(data, BOB))


def test_a_zone_set_by_mail_shows_the_next_deadlines_in_local_time_across_a_change_of_clocks(tmp_path):
    data, port = tmp_path / "data", free_port()
    with serving(data, port, GM, tmp_path):
        new_game(tmp_path, data)
        seen = ids(data, ALICE)
        send(port, to_gm(ALICE, "timezone europe/berln"))
        refused = fresh(data, ALICE, seen, "the refusal", "europe/berln")
        assert "Europe/Berlin" in refused
        assert "Europe/Berlin" in settle_settings(port, data, ALICE, "timezone Europe/Berlin")
        assert "America/New_York" in settle_settings(port, data, BOB, "timezone America/New_York")
        # New York moves its clocks on Sun 14 Mar 2027, Berlin on Sun 28 Mar: three deadlines straddle both.
        for at, alice, bob in [
            ("2027-03-13T16:00Z", "Sat 13 Mar 17:00 CET (16:00 UTC)", "Sat 13 Mar 11:00 EST (16:00 UTC)"),
            ("2027-03-20T16:00Z", "Sat 20 Mar 17:00 CET (16:00 UTC)", "Sat 20 Mar 12:00 EDT (16:00 UTC)"),
            ("2027-03-29T16:00Z", "Mon 29 Mar 18:00 CEST (16:00 UTC)", "Mon 29 Mar 12:00 EDT (16:00 UTC)"),
            # the first minute after Berlin's skipped hour, and a deadline in New York's evening, a UTC day on
            ("2027-03-28T01:00Z", "Sun 28 Mar 03:00 CEST (01:00 UTC)", "Sat 27 Mar 21:00 EDT (Sun 28 Mar 01:00 UTC)"),
        ]:
            seen_alice, seen_bob = ids(data, ALICE), ids(data, BOB)
            operator_deadline(tmp_path, data, at)
            assert f"Deadline {alice}, in " in fresh(data, ALICE, seen_alice, "Alice's deadline", "moved the deadline")
            assert f"Deadline {bob}, in " in fresh(data, BOB, seen_bob, "Bob's deadline", "moved the deadline")
        # The games list, too.
        seen = ids(data, ALICE)
        send(port, to_gm(ALICE, "games"))
        assert "deadline Sun 28 Mar 03:00 CEST (01:00 UTC)" in fresh(data, ALICE, seen, "the games list", "Your games")
    replays(data)


def test_quiet_hours_move_the_running_deadline_and_the_next(tmp_path):
    data, port = tmp_path / "data", free_port()
    with serving(data, port, GM, tmp_path):
        new_game(tmp_path, data)
        seen_bob = ids(data, BOB)
        operator_deadline(tmp_path, data, "2027-01-05T23:30:00.250000Z")  # 00:30 in Berlin
        fresh(data, BOB, seen_bob, "the deadline set", "2027-01-05 23:30 UTC")
        seen_alice, seen_bob = ids(data, ALICE), ids(data, BOB)
        set_ = settle_settings(port, data, ALICE, "timezone Europe/Berlin\nquiet 23:00-07:00")
        assert "23:00-07:00" in set_
        # The running deadline moves out of Alice's quiet hours at once, and both players are told.
        alice = fresh(data, ALICE, seen_alice, "Alice told", "moved the deadline")
        assert "Deadline Wed 6 Jan 07:00 CET (06:00 UTC), in " in alice
        assert "The deadline was moved to 07:00 CET, after your quiet hours." in alice
        assert "it was Wed 6 Jan 00:30 CET (Tue 5 Jan 23:30 UTC), it is now" in " ".join(alice.split())
        bob = fresh(data, BOB, seen_bob, "Bob told", "moved the deadline")
        assert "Deadline 2027-01-06 06:00 UTC, in " in bob
        assert "The deadline was moved to 06:00 UTC, after Player 1's quiet hours." in bob
        assert "Europe/Berlin" not in bob and ALICE not in bob and "CET" not in bob
        assert game_deadline(tmp_path, data).startswith("2027-01-06 06:00")
        # A deadline the operator sets inside them later is moved too.
        seen_bob = ids(data, BOB)
        operator_deadline(tmp_path, data, "2027-01-08T02:00Z")
        bob = fresh(data, BOB, seen_bob, "Bob told again", "moved the deadline")
        assert "Deadline 2027-01-08 06:00 UTC, in " in bob
        assert "after Player 1's quiet hours" in bob
        # And when they end, a deadline set inside the hours they were stays.
        settle_settings(port, data, ALICE, "quiet off")
        seen_bob = ids(data, BOB)
        operator_deadline(tmp_path, data, "2027-01-09T02:00Z")
        bob = fresh(data, BOB, seen_bob, "Bob told once more", "moved the deadline")
        assert "Deadline 2027-01-09 02:00 UTC, in " in bob and "quiet hours" not in bob
    replays(data)
