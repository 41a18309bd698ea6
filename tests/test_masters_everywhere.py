"""With several master processes (`gm serve --masters 2`) the mail about all
of a player's games reaches every game, whichever master runs it, as with
one master (`gm.pbem.state.everywhere`): a vacation, settings, a deputy,
the games list, a seat's move confirmed from the new address, a bounce, a
password line to the GM's own address, the owner's action by mail, one
digest over all the games, a tournament's round whose games another
master runs; an address's one daily allowance whichever master answers;
the owner's summary naming another master's deadline event in the shunt;
and each master keeps its own start-up index.

Two games between Alice and Bob: g1 is run by master 1, g2 by master 0 (the
front, which answers the mail to the GM's own address). The daemon is a real
process (`gm serve`), as in tests/test_crash.py, whose helpers these are."""

from __future__ import annotations

import contextlib
import io
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid, parseaddr
from pathlib import Path

import pytest

from crash_confirming import nothing_left, recorded_once_in_each_game
from gm.cli import main
from gm.kernel.settings import PlayerSettings
from gm.kernel.values import DeadlineSet, Options
from gm.mail.reading import parse_message
from gm.pbem.archive.events import clock_event_name, event_message
from gm.pbem.data import tournaments as data
from gm.pbem.data.settings import record, settings_of
from gm.pbem.data.store import Part, Store, spool_key
from gm.pbem.intake.limits import Limits
from gm.pbem.master import faults
from gm.pbem.operator.actions import request_action
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.state import index, loading
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB
from test_bounces import dsn
from test_crash import WAIT, Server, delivered, send_until_accepted, wait_until_idle
from test_crash_seeks import mail, subjects
from test_crash_tournaments import PLAYERS, round_made
from test_masters import Server as MastersServer
from test_masters import idle

pytestmark = pytest.mark.slow  # a real daemon with its master processes

CAROL = "carol@example.com"
OWNER = "owner@example.com"


def body_of(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    assert part is not None
    return part.get_content()


def latest(root: Path, address: str, subject: str) -> EmailMessage:
    return [m for m in delivered(root) if address in str(m["To"]) and str(m["Subject"]).startswith(subject)][-1]


def in_game(server: Server, root: Path, sender: str, game: str, body: str) -> None:
    """``sender`` replies ``body`` to the latest mail of ``game`` to them."""
    original = [m for m in delivered(root) if sender in str(m["To"]) and str(m["X-GM-Game"]).strip() == game][-1]
    message = EmailMessage()
    message["From"] = sender
    message["To"] = str(original["Reply-To"])
    message["Subject"] = "Re: " + str(original["Subject"])
    message["In-Reply-To"] = str(original["Message-ID"])
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content(body)
    send_until_accepted(server, message.as_bytes(), sender, str(message["To"]))
    wait_until_idle(server, root)


@pytest.fixture
def served(tmp_path):
    """Two games of Alice's and Bob's, set up, one for each master; the
    daemon serving them with ``--masters 2``."""
    root = tmp_path / "data"
    store = Store(root)
    for _ in range(2):
        request_game(store, Identity(GM), [ALICE, BOB], "2.6.1", Options(), datetime.now(UTC))
    assert [Part(0, 2).owner(g) for g in ("g1", "g2")] == [1, 0]
    server = Server(root, None)
    server.args = ["--masters", "2", "--owner", OWNER]
    server.start(None)
    try:
        wait_until_idle(server, root)
        for game in ("g1", "g2"):
            in_game(server, root, ALICE, game, SETUP_ALICE)
            in_game(server, root, BOB, game, SETUP_BOB)
        yield server, root
    finally:
        server.stop()
    assert server.crashes == 0


def test_a_vacation_reaches_the_games_of_every_master(served):
    server, root = served
    mail(server, root, ALICE, "vacation 10d")
    mail(server, root, ALICE, "confirm", answering="[gm] Confirm your vacation")
    recorded_once_in_each_game(Store(root), root, "absence")
    told = [s for s in subjects(root, BOB) if "Player 1 is away until" in s]
    assert sorted(s.split("]")[0] for s in told) == ["[gm g1", "[gm g2"]
    answer = body_of(latest(root, ALICE, "[gm] Your vacation"))
    assert "g1" in answer and "g2" in answer
    mail(server, root, ALICE, "back")
    mail(server, root, ALICE, "confirm", answering="[gm] Confirm you are back")
    back = [s for s in subjects(root, BOB) if "is back" in s.lower()]
    assert sorted(s.split("]")[0] for s in back) == ["[gm g1", "[gm g2"], subjects(root, BOB)
    nothing_left(root)


def test_settings_and_a_deputy_reach_the_games_of_every_master(served):
    server, root = served
    mail(server, root, ALICE, f"deputy {CAROL}")
    mail(server, root, ALICE, "confirm", answering="[gm] Confirm your deputy")
    mail(server, root, CAROL, "confirm", answering="[gm] Will you be a deputy?")
    store = Store(root)
    assert settings_of(store, ALICE).deputy == CAROL
    recorded_once_in_each_game(store, root, "settings")
    named = body_of(latest(root, ALICE, "[gm] Your deputy"))
    assert "g1" in named and "g2" in named
    nothing_left(root)


def test_the_games_list_names_the_games_of_every_master(served):
    server, root = served
    mail(server, root, ALICE, "games")
    listing = body_of(latest(root, ALICE, "[gm] Your games"))
    assert "g1" in listing and "g2" in listing
    in_game(server, root, BOB, "g2", "games")  # in a game's own mail: that game's master answers
    listing = body_of(latest(root, BOB, "[gm] Your games"))
    assert "g1" in listing and "g2" in listing


def test_a_move_of_a_seat_in_another_masters_game_is_confirmed_by_mail(served):
    server, root = served
    in_game(server, root, ALICE, "g1", f"address {CAROL}")
    mail(server, root, CAROL, "confirm", answering="[gm] Confirm: play")
    archive = Store(root).archive("g1")
    assert any(CAROL in archive.get_bytes(k).decode("utf-8", "replace") and b"X-GM-Event" in archive.get_bytes(k)
               for k in archive.keys() if ".in." in k)
    in_game(server, root, CAROL, "g1", "Rv1 Rv2")  # the seat plays from the new address now
    assert not [s for s in subjects(root, CAROL) if "Refused" in s or "not" in s.lower()]
    nothing_left(root)


def test_a_bounce_marks_the_seat_in_another_masters_game(served):
    server, root = served
    original = [m for m in delivered(root) if BOB in str(m["To"]) and str(m["X-GM-Game"]).strip() == "g1"][-1]
    send_until_accepted(server, dsn(original.as_bytes()), "", GM)
    wait_until_idle(server, root)
    notices = [s for s in subjects(root, ALICE) if "bouncing" in s]
    assert [s.split("]")[0] for s in notices] == ["[gm g1"]
    archive = Store(root).archive("g1")
    kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
    assert kinds.count("bouncing") == 1, kinds
    count, differences = verify_replay(str(root / "games" / "g1"))
    assert count and not differences, differences
    nothing_left(root)


def test_the_owners_action_by_mail_reaches_another_masters_game(served):
    server, root = served
    mail(server, root, OWNER, "pause g1")
    mail(server, root, OWNER, "confirm", answering="[gm] Confirm: pause g1")
    done = body_of(latest(root, OWNER, "[gm] Done: pause g1"))
    assert "no game" not in done
    archive = Store(root).archive("g1")
    kinds = [str(parse_message(archive.get_bytes(key)).get("X-GM-Event", "")) for key in archive.keys()]
    assert kinds.count("pause") == 1, kinds
    nothing_left(root)


def test_one_digest_names_the_waiting_games_of_every_master(served):
    server, root = served
    server.stop()
    raw = f"From: {ALICE}\r\nTo: {GM}\r\nSubject: settings\r\n\r\nreminders digest\r\n".encode()
    record(Store(root), raw, ALICE, PlayerSettings(reminders="digest"), "digest-test")
    server.start(None)  # the day's digest that fell due last goes at once
    deadline = time.monotonic() + WAIT
    while not [m for m in delivered(root) if str(m["Message-ID"]).startswith("<digest-")]:
        assert time.monotonic() < deadline, "no digest"
        time.sleep(0.05)
    wait_until_idle(server, root)
    time.sleep(1.5)  # a master's pass over the spool that would spool a digest of its own
    wait_until_idle(server, root)
    (digest,) = [m for m in delivered(root) if str(m["Message-ID"]).startswith("<digest-")]
    assert str(digest["Subject"]) == "[gm] 2 games wait for you"
    assert "game g1:" in body_of(digest) and "game g2:" in body_of(digest)
    nothing_left(root)


def test_a_tournament_round_ends_when_its_games_moved_to_another_master(tmp_path):
    """A round's games are made by the front; started again with three
    masters, they are others' games, and the front still sees them end."""
    root = tmp_path / "data"
    server = Server(root, None)
    server.args = ["--masters", "2"]
    server.start(None)
    try:
        wait_until_idle(server, root)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main(["tournament", "new", "--data", str(root), "--game", "spaceships", "--format",
                         "round-robin", "--players", *PLAYERS]) == 0
        round_made(server, root)
    finally:
        server.stop()
    (_, games), = data.rounds(Store(root), "t1")
    ids = [g.game_id for g in games if g.game_id]
    assert len(ids) == 2 and {Part(0, 2).owner(g) for g in ids} == {0} and {Part(0, 3).owner(g) for g in ids} != {0}
    server.args = ["--masters", "3"]
    server.start(None)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for game_id in ids:
                assert main(["cancel", game_id, "--data", str(root), "--address", GM, "--reason", "a test"]) == 0
        deadline = time.monotonic() + WAIT
        while len(data.rounds(Store(root), "t1")) < 2:
            assert time.monotonic() < deadline, "round 2 never started"
            time.sleep(0.05)
        wait_until_idle(server, root)
    finally:
        server.stop()
    assert server.crashes == 0


def test_the_start_says_nothing_differs_with_several_masters(tmp_path):
    """The start warned that the daily allowances and the owner's summary
    differed with several masters; they no longer do, and it says nothing."""
    root = tmp_path / "data"
    server = MastersServer(root)
    server.start()
    try:
        idle(server, root)
    finally:
        server.stop()
    assert b"several masters" not in server.logs, server.logs.decode()[-3000:]


def test_an_address_has_one_daily_allowance_whichever_master_answers(served):
    """Alice's games list from the front uses up her day's last answer about
    no game (she plays: `Limits.answers_outside_games_to_players_per_day`,
    all but one counted already); a ``games`` line in the mail of g1, which
    master 1 answers, is then applied without its list, as with one master,
    not answered again."""
    server, root = served
    with (root / "limits" / datetime.now(UTC).strftime("%Y-%m-%d")).open("a") as counts:
        counts.write(f"\noutside {ALICE}\t\t0\t.\n" * (Limits().answers_outside_games_to_players_per_day - 1))
    mail(server, root, ALICE, "games")
    in_game(server, root, ALICE, "g1", "games")
    assert len([s for s in subjects(root, ALICE) if s == "[gm] Your games"]) == 1
    nothing_left(root)


def test_the_owners_summary_names_another_masters_deadline_event_in_the_shunt(served):
    """g1's deadline event went to the shunt (gm failed on it) in master
    1, which runs g1: the front's daily summary says so, as of its own games."""
    server, root = served
    due = (datetime.now(UTC) + timedelta(seconds=6)).replace(microsecond=0)
    request_action(Store(root), Identity(GM), "g1", DeadlineSet(datetime.now(UTC), deadline=due))
    wait_until_idle(server, root)
    server.stop()  # before the deadline: the next start finds its event in the shunt
    live, _ = loading.load(Store(root), Identity(GM), "g1")
    assert live.game.deadline == due
    name = clock_event_name("deadline", "g1", live.game.turn, due)
    Store(root).shunt_message(event_message(Identity(GM), "deadline", due, f"<{name}@example.org>", "g1", ["x"]),
                              spool_key(due, "clock", name),
                              faults.failed_on_mail(RuntimeError("a bug in running the turn")))  # by this code
    time.sleep(max(0.0, (due - datetime.now(UTC)).total_seconds()) + 0.2)
    server.start(None)
    deadline = time.monotonic() + WAIT
    while not [s for s in subjects(root, OWNER) if s.startswith("[gm] What needs attention")]:
        assert time.monotonic() < deadline, "no summary for the owner"
        time.sleep(0.05)
    summary = " ".join(body_of(latest(root, OWNER, "[gm] What needs attention")).split())
    assert "g1: its deadline" in summary and "(its deadline event is in the shunt)" in summary, summary


def test_each_master_keeps_its_own_start_up_index(served):
    server, root = served
    server.stop()  # every game's snapshot written: their stamps settle within `index.SETTLED_NS`
    time.sleep(index.SETTLED_NS / 1e9 + 0.5)
    server.start(None)  # each master writes its index at the end of its start
    deadline = time.monotonic() + WAIT
    while not all((found := index.read(folder)) is not None and found.entries
                  for folder in (root, root / "masters" / "1")):
        assert time.monotonic() < deadline, "the masters wrote no index of their own"
        time.sleep(0.05)
    server.stop()
    assert set(index.read(root).entries) == {"g2"}
    assert set(index.read(root / "masters" / "1").entries) == {"g1"}


def test_a_password_line_to_the_gms_own_address_reaches_another_masters_game(tmp_path):
    """Carol plays one game, g1, which master 1 runs: her mail to the GM's
    own address with her password reaches it through the front."""
    root = tmp_path / "data"
    request_game(Store(root), Identity(GM), [CAROL, BOB], "2.6.1", Options(), datetime.now(UTC))
    server = Server(root, None)
    server.args = ["--masters", "2"]
    server.start(None)
    try:
        wait_until_idle(server, root)
        invitation = [m for m in delivered(root) if CAROL in str(m["To"])][-1]
        secret = parseaddr(str(invitation["Reply-To"]))[1].split("@")[0].rsplit(".", 1)[1]
        mail(server, root, CAROL, f"{SETUP_ALICE}\npassword {secret}\n")
        archive = Store(root).archive("g1")
        inbound = [parse_message(archive.get_bytes(k)) for k in archive.keys() if ".in." in k]
        accepted = [m for m in inbound if m.get("X-GM-Accepted")]
        assert len(accepted) == 1
        assert not list((root / "shunt" / "new").iterdir())
        nothing_left(root)
    finally:
        server.stop()
    assert server.crashes == 0
