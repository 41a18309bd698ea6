"""The command line across games: `gm referee` reads a record's `game NAME`
line, `gm new --game NAME` makes a game of it, and `gm show` names it."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from datetime import UTC
from pathlib import Path

import pytest

from gm.cli import main
from gm.games import GAMES
from gm.kernel.protocol import game_named
from gmprocess import gm

ROOT = Path(__file__).resolve().parent.parent


def referee(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-P", "-m", "gm", "referee", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, encoding="utf-8", timeout=120)


def test_a_grid_fighters_record_is_refereed_as_the_issue_spells_its_json():
    done = referee("--json", "tests/records/gridfighters/worked-example.rec")
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    last = outcome["moves"][-1]
    for key in ("n", "by", "piece", "from", "spent", "rejected", "collisions", "destroyed"):
        assert key in last
    assert ((last["n"], last["by"], last["piece"], last["from"], last["spent"], last["rejected"])
            == (4, 1, "Z1", "A1", True, None))
    assert {"square": "B1", "pieces": ["2:Y1", "1:Z1"], "destroyed": ["1:Z1"]} in [
        {k: c[k] for k in ("square", "pieces", "destroyed")} for c in last["collisions"]]
    assert last["destroyed"] == ["1:Z1", "2:Y1"]
    assert outcome["result"] is None


def test_a_finished_grid_fighters_record_gives_its_result_and_a_rejected_move_exit_1():
    won = json.loads(referee("--json", "tests/records/gridfighters/home-planet-win.rec").stdout)
    assert set(won["result"]) >= {"ended_after_move", "winner", "reason"} and won["result"]["winner"] in (1, 2)
    assert referee("tests/records/gridfighters/rejected-moves.rec").returncode == 1


def test_a_record_naming_spaceships_reads_as_one_that_names_no_game():
    record = (ROOT / "tests" / "records" / "standard-win.rec").read_text()
    plain = referee("--json", "-", stdin=record)
    named = referee("--json", "-", stdin="; a comment first\ngame spaceships\n" + record)
    assert plain.returncode == named.returncode == 0
    assert plain.stdout == named.stdout


def test_a_record_naming_an_unknown_game_is_unreadable():
    done = referee("-", stdin="game chess\nsetup 1\n")
    assert done.returncode == 2
    assert "no game 'chess'" in done.stderr and "gridfighters" in done.stderr and "spaceships" in done.stderr


def daemon_step(data: str) -> None:
    """Start the daemon on ``data`` (making it if new), handle what is spooled, stop."""
    from gm.daemon import Config, Daemon

    async def once():
        daemon = Daemon(Config(data=data, smtp=("127.0.0.1", 0)))
        await daemon.start(background=False)
        try:
            await daemon.step()
        finally:
            await daemon.stop()
    asyncio.run(once())


@pytest.mark.parametrize("game, variant, error", [
    ("chess", None, "no game 'chess'"),
    ("gridfighters", "standard+homes=2", "unknown option"),
])
def test_gm_new_refuses_an_unknown_game_or_variant(tmp_path, game, variant, error):
    daemon_step(str(tmp_path / "data"))
    args = ["new", "--data", str(tmp_path / "data"), "--player", "a@example.org", "--player", "b@example.org",
            "--game", game] + (["--variant", variant] if variant else [])
    done = gm(*args, cwd=tmp_path)
    assert done.returncode == 2 and error in done.stderr, done.stderr


def test_gm_new_game_gridfighters_makes_a_grid_fighters_game(tmp_path):
    data = str(tmp_path / "data")
    daemon_step(data)
    done = gm("new", "--data", data, "--player", "a@example.org", "--player", "b@example.org",
              "--game", "GridFighters", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    daemon_step(data)
    shown = gm("show", "--data", data, "g1", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "gridfighters" in shown.stdout and "standard" in shown.stdout
    listed = gm("games", "--data", data, cwd=tmp_path)
    assert listed.stdout.split()[:3] == ["g1", "gridfighters", "setup"], listed.stdout


def test_gm_new_names_the_game_and_gm_games_shows_it_at_once(tmp_path):
    """Issue 10, point 11: the id is reserved when the game is requested, so
    `gm new` can print it and `gm games` list it before the daemon runs;
    the daemon then makes the game under that very id."""
    data = str(tmp_path / "data")
    daemon_step(data)
    first = gm("new", "--data", data, "--player", "a@example.org", "--player", "b@example.org", cwd=tmp_path)
    second = gm("new", "--data", data, "--player", "c@example.org", "--player", "d@example.org",
                "--game", "gridfighters", cwd=tmp_path)
    assert "game requested: g1 (" in first.stdout and "game requested: g2 (" in second.stdout
    listed = gm("games", "--data", data, cwd=tmp_path).stdout.splitlines()
    assert [line.split()[:3] for line in listed] == [["g1", "spaceships", "requested"],
                                                     ["g2", "gridfighters", "requested"]]
    assert "a@example.org" in listed[0] and "c@example.org" in listed[1]
    daemon_step(data)
    listed = gm("games", "--data", data, cwd=tmp_path).stdout.splitlines()
    assert [line.split()[:3] for line in listed] == [["g1", "spaceships", "setup"], ["g2", "gridfighters", "setup"]]


def test_gm_games_columns_stay_in_line_with_a_long_game_name(tmp_path):
    """Issue 22: `celestial-empire` is wider than the game column was, so its
    row's state and players stood out of line; the columns fit their content."""
    data = str(tmp_path / "data")
    daemon_step(data)
    for game in ("spaceships", "celestial-empire", "gridfighters"):
        gm("new", "--data", data, "--player", "a@example.org", "--player", "b@example.org", "--game", game,
           cwd=tmp_path)
    requested = gm("games", "--data", data, cwd=tmp_path).stdout.splitlines()
    daemon_step(data)
    set_up = gm("games", "--data", data, cwd=tmp_path).stdout.splitlines()
    assert [line.split()[1:3] for line in requested] == [[game, "requested"] for game in
                                                         ("spaceships", "celestial-empire", "gridfighters")]
    assert len({line.index("requested") for line in requested}) == 1, requested
    assert [line.split()[1] for line in set_up] == ["spaceships", "celestial-empire", "gridfighters"]
    assert len({re.match(r"\S+ +\S+ +", line).end() for line in set_up}) == 1, set_up


def test_a_creation_request_for_a_taken_id_goes_to_the_shunt(tmp_path):
    from datetime import datetime

    from gm.kernel.values import Options, Seat
    from gm.pbem.archive.creation import request_fields
    from gm.pbem.archive.events import event_message
    from gm.pbem.data.store import Store, spool_key
    from gm.pbem.writing.mailer import Identity

    data = str(tmp_path / "data")
    daemon_step(data)
    gm("new", "--data", data, "--player", "a@example.org", "--player", "b@example.org", cwd=tmp_path)
    daemon_step(data)
    store = Store(data)
    (key,) = [k for k in store.spool.keys()] or [None]  # nothing left in the spool
    assert key is None
    seats = (Seat(1, "x@example.org", "X"), Seat(2, "y@example.org", "Y"))
    key = spool_key(datetime.now(UTC), "admin", "again")
    raw = event_message(Identity(), "create", datetime.now(UTC), f"<{key}@localhost>", None,
                        ["id: g1", *request_fields(seats, "2.6.1", Options())])
    store.spool.add(raw, key)
    daemon_step(data)
    reasons = [store.shunt.get_bytes(k).split(b"\r\n")[0] for k in store.shunt.keys()]
    assert any(b"which is taken" in r for r in reasons), reasons
    assert gm("games", "--data", data, cwd=tmp_path).stdout.count("g1") == 1


def test_games_to_the_plain_address_lists_the_challenges_one_may_accept(tmp_path):
    """Issue 10, point 9: Bob lost the invitation; 'games' to the GM's own
    address lists the challenge with the address to accept it at."""
    from gmtest import ALICE, BOB, GM, World, run, text

    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\ngame gridfighters")
            ask = (f"From: {BOB}\r\nTo: {GM}\r\nSubject: my games?\r\nMessage-ID: <games@example.net>\r\n\r\n"
                   "games\r\n").encode()
            await world.asend(ask, BOB, [GM])
            await world.settle()
            listing = world.bob.latest()
            assert str(listing["Subject"]) == "[gm] Your games"
            body = text(listing)
            assert f"{ALICE} challenges you to a game of Grid Fighters" in body
            reply_to = body.split("to: ", 1)[1].split()[0]
            assert reply_to.startswith("gm+c") and ALICE not in reply_to
            accept = (f"From: {BOB}\r\nTo: {reply_to}\r\nSubject: yes\r\nMessage-ID: <yes@example.net>\r\n\r\n"
                      "accept\r\n").encode()
            await world.asend(accept, BOB, [reply_to])
            await world.settle()
            await world.settle()  # the acceptance spools the game's creation, made on the next pass
            assert world.daemon.master.games["g1"].rules.name == "gridfighters"
            await world.asend(ask.replace(b"<games@", b"<games2@").replace(BOB.encode(), ALICE.encode()), ALICE, [GM])
            await world.settle()
            assert "challenges you" not in text(world.alice.latest())
    run(scenario())


def test_a_player_moves_their_seat_confirmed_from_both_addresses(tmp_path):
    """Issue 10, point 9: 'address NEW' from the seat's address (its mail
    carries the secret), then 'confirm' from NEW; the opponent never sees
    either address, and the game replays byte for byte."""
    from email.message import EmailMessage

    from gm.pbem.operator.admin import verify_replay
    from gmtest import ALICE, BOB, Player, World, run, started_game, text

    NEW = "alice.new@example.org"

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "address alice.new@example.org  ; my new address")
            said = text(world.alice.latest()).replace("\n    ", " ")
            assert f"a mail has gone to {NEW} to confirm it" in said
            new = Player(NEW, world)
            (confirmation,) = new.inbox()
            assert "Confirm: play Player 1 in game g1 from here" in str(confirmation["Subject"])
            assert str(confirmation["From"]).startswith("Spaceships GM <")  # about one game: from its GM
            assert world.daemon.master.games["g1"].seat(1).address == ALICE  # not yet
            forged = EmailMessage()  # a confirm from anyone else changes nothing
            forged["From"], forged["To"], forged["Subject"] = BOB, str(confirmation["Reply-To"]), "Re: confirm"
            forged["Message-ID"] = "<forged-move@example.net>"
            forged.set_content("confirm\n")
            await world.asend(forged.as_bytes(), BOB, [str(confirmation["Reply-To"])])
            await world.settle()
            assert world.daemon.master.games["g1"].seat(1).address == ALICE
            await world.act(new.reply, "confirm", to=confirmation)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.seat(1).address == NEW
            assert "Turn 1: your sheet" in str(new.latest()["Subject"])
            await world.act(new.reply, "Rv1")  # the new address plays the seat now
            assert [str(o) for o in game.play.pending[1]] == ["Rv1"]
            for message in world.bob.inbox():
                assert NEW not in message.as_string() and ALICE not in message.as_string()
            archive = world.daemon.store.games_dir / "g1"
        count, differences = verify_replay(str(archive))
        assert differences == [] and count > 8
    run(scenario())


def test_the_help_names_every_game_gm_hosts(capsys):
    for command in ([], ["new"]):
        with pytest.raises(SystemExit):
            main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines anywhere
        for name in GAMES:
            assert (game_named(name).title if not command else name) in text, (command, name)
    unit = (ROOT / "contrib" / "gm.service").read_text()
    assert "for Spaceships" not in unit and "Celestial Empire" in unit
