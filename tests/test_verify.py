"""Commitments on every sheet, and ``gm verify`` (issue 26; docs/verification.md).

Whole short games of each game are played through the real daemon over
SMTP; each player's mailbox is exported as ``gm export --player`` writes it,
and ``gm verify`` (the installed command, in a process of its own, with no
data directory) passes on it. Then each tamper test changes one thing in a
copy of Alice's Spaceships mailbox (a revealed cell, a salt, one turn's
result, a commitment on one mail, the order of two mails) and ``gm verify``
fails, naming it; bad input (an incomplete, forwarded or pre-feature
mailbox, a file that is no mailbox) gets a clear answer, never a traceback.
"""

from __future__ import annotations

import base64
import mailbox
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gm.games.spaceships.mail import Spaceships
from gm.kernel.commitments import COMMITMENT_HEADER, RECORD_HEADER, REVEAL_HEADER, commitment_digest
from gm.kernel.values import Options
from gm.mail.reading import parse_message
from gm.pbem.archive import creation
from gm.pbem.archive.verifying import FAILED, PASSED, UNCHECKABLE, verify
from gm.pbem.operator.admin import export_mbox, request_game, verify_replay
from gmtest import ALICE, BOB, COMMIT_KEY, SETUP_ALICE, SETUP_BOB, World, run, text

pytestmark = pytest.mark.slow  # whole games by mail, and gm verify in processes of its own

STANDARD_WIN = [  # tests/records/standard-win.rec: Alice wins 13-0 after turn 3
    ("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
    ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"),
    ("Gz1 Gz2", "Ov1"),
]
GRID_SETUP_1 = """H A5, A1 A8, A2 A9, A3 A10, A4 B8, A5 B9, A6 B10, A7 C10
W D8, B D9, X1 C2, X2 D10, Y1 E8, Y2 E9
Z1 E1, Z2 E5, Z3 E6, Z4 E7
"""
GRID_SETUP_2 = """H J5, A1 J8, A2 J9, A3 J10, A4 I8, A5 I9, A6 I10, A7 H10
W G8, B G9, X1 H2, X2 G10, Y1 G6, Y2 F8
Z1 F1, Z2 F2, Z3 F3, Z4 F4
"""
GRID_MOVES = [(1, "Z2 E5-J5"), (2, "W G8-H6"), (1, "Z2 J5-J6")]  # home-planet-win.rec: Red wins at move 3


def gm_verify(path: Path) -> subprocess.CompletedProcess:
    """The installed ``gm verify``, in a process of its own, from a folder with no data directory."""
    return subprocess.run([sys.executable, "-P", "-m", "gm", "verify", str(path)], capture_output=True, text=True,
                          timeout=120, cwd=path.parent)


def exported(world: World, tmp_path: Path, players: int = 2) -> list[Path]:
    paths = []
    for player in range(1, players + 1):
        path = tmp_path / f"player-{player}.mbox"
        assert export_mbox(world.daemon.store, "g1", str(path), player) > 0
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def spaceships(tmp_path_factory) -> list[Path]:
    """Alice and Bob's mailboxes of tests/records/standard-win.rec, played by mail."""
    tmp_path = tmp_path_factory.mktemp("spaceships")

    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            for alice, bob in STANDARD_WIN:
                await world.act(world.alice.reply, alice)
                await world.act(world.bob.reply, bob)
            assert world.daemon.master.games["g1"].phase == "ended"
            sheet = text(world.alice.latest())
            assert "== The GM's commitments (check them with 'gm verify') ==" in sheet
            assert "    salt " in sheet
            return exported(world, tmp_path)

    paths = run(scenario())
    count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
    assert count and differences == []
    return paths


# Whole games: gm verify passes on every player's mailbox

def test_spaceships_each_players_mailbox_verifies(spaceships):
    for path in spaceships:
        result = gm_verify(path)
        assert result.returncode == PASSED, result.stdout + result.stderr
        assert "check 1 passed" in result.stdout and "check 2 passed" in result.stdout
        assert "check 3 passed" in result.stdout and "(3 turns)" in result.stdout
        assert "(setup-1, setup-2)" in result.stdout


def test_every_mail_from_the_first_sheet_carries_both_commitments_and_only_the_last_reveals(spaceships):
    messages = list(mailbox.mbox(str(spaceships[0])))
    first_sheet = next(k for k, m in enumerate(messages) if "the game begins" in str(m["Subject"]).lower())
    assert all(not m.get_all(COMMITMENT_HEADER) for m in messages[:first_sheet])  # setups may still change
    for message in messages[first_sheet:]:
        assert [v.split()[0] for v in message.get_all(COMMITMENT_HEADER)] == ["setup-1", "setup-2"]
    assert [bool(m.get_all(REVEAL_HEADER)) for m in messages] == [False] * (len(messages) - 1) + [True]
    final = messages[-1]
    reveals = {v.split()[0]: v.split(None, 2)[1:] for v in final.get_all(REVEAL_HEADER)}
    value = base64.b64decode("".join(reveals["setup-2"][1].split()))
    assert value == SETUP_BOB.encode()  # Bob's setup, canonical: his lines, each ended by a line feed
    assert commitment_digest(bytes.fromhex(reveals["setup-2"][0]), value) in " ".join(final.get_all(COMMITMENT_HEADER))
    assert "turn 3" in base64.b64decode("".join(final[RECORD_HEADER].split())).decode()


def test_grid_fighters_each_players_mailbox_verifies(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters")
            await world.act(world.alice.reply, GRID_SETUP_1)
            await world.act(world.bob.reply, GRID_SETUP_2)
            for player, move in GRID_MOVES:
                await world.act((world.alice if player == 1 else world.bob).reply, move)
            assert world.daemon.master.games["g1"].phase == "ended"
            return exported(world, tmp_path)

    for path in run(scenario()):
        result = gm_verify(path)
        assert result.returncode == PASSED, result.stdout + result.stderr
        assert "check 3 passed" in result.stdout and "(3 turns)" in result.stdout


def test_a_spaceships_match_keeps_each_games_commitments_to_its_end(tmp_path):
    terms = Spaceships().creation_terms({"match": "scored", "match-games": "2"})

    async def scenario():
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "2.6.1", Options(), world.clock(),
                         match=terms, commit_key=COMMIT_KEY)
            await world.settle()
            for _ in range(2):
                await world.act(world.alice.reply, SETUP_ALICE)
                await world.act(world.bob.reply, SETUP_BOB)
                await world.act(world.alice.reply, STANDARD_WIN[0][0])
                await world.act(world.bob.reply, STANDARD_WIN[0][1])
                await world.act(world.bob.reply, "resign\n")
            game = world.daemon.master.games["g1"]
            assert game.phase == "ended" and game.play.match_result == 1
            last = world.alice.latest()
            assert [v.split()[0] for v in last.get_all(COMMITMENT_HEADER)] == [
                "setup-1", "setup-2", "game-2-setup-1", "game-2-setup-2"]
            return exported(world, tmp_path)

    for path in run(scenario()):
        result = gm_verify(path)
        assert result.returncode == PASSED, result.stdout + result.stderr
        assert "check 3 passed" in result.stdout and "(1 turn)" in result.stdout


def test_a_game_against_the_robot_commits_to_its_seed_from_the_first_mail(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE], "2.6.1", Options(), world.clock(),
                         robot="easy", robot_seed=2026, commit_key=COMMIT_KEY)
            await world.settle()
            invitation = world.alice.latest()
            assert [v.split()[0] for v in invitation.get_all(COMMITMENT_HEADER)] == ["robot-seed"]
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.alice.reply, STANDARD_WIN[0][0])
            await world.act(world.alice.reply, "resign\n")
            final = world.alice.latest()
            assert [v.split()[0] for v in final.get_all(COMMITMENT_HEADER)] == ["robot-seed", "setup-1", "setup-2"]
            reveal = next(v for v in final.get_all(REVEAL_HEADER) if v.startswith("robot-seed "))
            assert base64.b64decode("".join(reveal.split()[2:])) == b"2026\n"
            return exported(world, tmp_path, players=1)

    (path,) = run(scenario())
    result = gm_verify(path)
    assert result.returncode == PASSED, result.stdout + result.stderr
    assert "(robot-seed, setup-1, setup-2)" in result.stdout and "(1 turn)" in result.stdout


def test_celestial_empire_verifies_the_galaxy_and_says_it_cannot_replay_the_game(tmp_path, monkeypatch):
    monkeypatch.setattr(creation, "EDITION", 6)  # a game of edition 6: from edition 7 on it replays

    async def scenario():
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE, BOB], "standard", Options(),
                         world.clock(), game="celestial-empire", commit_key=COMMIT_KEY)
            await world.settle()
            first = world.alice.latest()
            assert [v.split()[0] for v in first.get_all(COMMITMENT_HEADER)] == ["galaxy"]
            await world.act(world.alice.reply, "draw\n")
            await world.act(world.bob.reply, "draw\n")
            assert world.daemon.master.games["g1"].phase == "ended"
            return exported(world, tmp_path)

    for path in run(scenario()):
        result = gm_verify(path)
        assert result.returncode == PASSED, result.stdout + result.stderr
        assert "check 1 passed" in result.stdout and "check 2 passed" in result.stdout
        assert "check 3 is not made" in result.stdout and "Celestial Empire" in result.stdout
        assert "every check that this game's mail allows passed" in result.stdout


# Tampering: one change each, and gm verify names it

def messages_of(path: Path) -> list[bytes]:
    return [m.as_bytes() for m in mailbox.mbox(str(path))]


def write(path: Path, messages: list[bytes]) -> Path:
    box = mailbox.mbox(str(path))
    for raw in messages:
        box.add(raw)
    box.flush()
    return path


def tampered(tmp_path: Path, source: Path, change) -> Path:
    return write(tmp_path / "tampered.mbox", change(messages_of(source)))


def with_field(raw: bytes, name: bytes, change) -> bytes:
    """``raw`` with the (unfolded) value of each ``name`` field changed by ``change``."""
    head, sep, body = raw.partition(b"\n\n")
    lines = re.sub(rb"\n[ \t]+", b" ", head).split(b"\n")
    out = [line.split(b": ", 1)[0] + b": " + change(line.split(b": ", 1)[1].strip())
           if line.lower().startswith(name.lower() + b":") else line for line in lines]
    return b"\n".join(out) + sep + body


def checked(path: Path) -> tuple[int, str]:
    verdict = verify(str(path))
    return verdict.status, "\n".join(verdict.lines)


def test_a_changed_revealed_cell_fails_check_1(spaceships, tmp_path):
    def change(messages):
        def reveal(value: bytes) -> bytes:
            label, salt, data = value.split(b" ", 2)
            if label != b"setup-2":
                return value
            cells = base64.b64decode(b"".join(data.split())).replace(b"HS Gz1 Gz2", b"HS Gz3 Gz4")
            return b" ".join([label, salt, base64.b64encode(cells)])
        return [*messages[:-1], with_field(messages[-1], b"X-GM-Reveal", reveal)]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == FAILED and "FAILED check 1 (reveal): the value and salt of setup-2" in said


def test_a_changed_salt_fails_check_1(spaceships, tmp_path):
    def change(messages):
        def reveal(value: bytes) -> bytes:
            label, salt, data = value.split(b" ", 2)
            flipped = (b"0" if salt[:1] != b"0" else b"1") + salt[1:]
            return b" ".join([label, flipped if label == b"setup-1" else salt, data])
        return [*messages[:-1], with_field(messages[-1], b"X-GM-Reveal", reveal)]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == FAILED and "FAILED check 1 (reveal): the value and salt of setup-1" in said


def test_a_changed_result_of_one_turn_fails_check_3_naming_the_turn(spaceships, tmp_path):
    def change(messages):
        k = next(k for k, raw in enumerate(messages) if b"Turn 2 results" in raw)
        assert b"you   strike Gx3: hit" in messages[k]
        return [*messages[:k], messages[k].replace(b"you   strike Gx3: hit", b"you   strike Gx3: miss"),
                *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == FAILED and "FAILED check 3 (replay): turn 2, played again under the rules" in said
    assert "Turn 2 results" in said  # the mail that says otherwise


def test_a_changed_commitment_on_one_mail_fails_check_2_naming_the_mail(spaceships, tmp_path):
    def change(messages):
        k = next(k for k, raw in enumerate(messages) if b"Turn 2 results" in raw)
        swap = {b"0": b"1"}

        def commitment(value: bytes) -> bytes:
            label, digest = value.split(b" ")
            return label + b" " + (swap.get(digest[:1], b"0") + digest[1:] if label == b"setup-2" else digest)
        return [*messages[:k], with_field(messages[k], b"X-GM-Commitment", commitment), *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == FAILED and "FAILED check 2 (unchanged): the commitment to setup-2 changed on mail" in said
    assert "Turn 2 results" in said


def test_two_mails_in_the_wrong_order_fail_check_2_naming_them(spaceships, tmp_path):
    def change(messages):
        k = next(k for k, raw in enumerate(messages) if b"Turn 2 results" in raw)
        return [*messages[:k - 1], messages[k], messages[k - 1], *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == FAILED and "FAILED check 2 (order)" in said and "Turn 2 results" in said


# Bad input: a clear answer, never a traceback

def test_a_warning_that_answers_no_event_is_left_out(spaceships, tmp_path):
    def change(messages):
        warning = with_field(messages[3], b"Message-ID", lambda _: b"<warning.g1.1.2026-11-21@example.org>")
        return [*messages[:5], warning, *messages[5:]]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == PASSED, said
    assert "<warning.g1.1.2026-11-21@example.org>" in said and "answers no event of the game" in said


def test_an_incomplete_mailbox_says_what_cannot_be_checked(spaceships, tmp_path):
    result = gm_verify(write(tmp_path / "short.mbox", messages_of(spaceships[0])[:-1]))
    assert result.returncode == UNCHECKABLE and "Traceback" not in result.stderr
    assert "no mail reveals the commitments" in result.stdout and "check 2 passed" in result.stdout


def test_a_forwarded_mail_without_the_gms_fields_is_named(spaceships, tmp_path):
    def change(messages):
        k = next(k for k, raw in enumerate(messages) if b"Turn 2 results" in raw)
        forwarded = re.sub(rb"\nX-GM-Commitment:[^\n]*(\n[ \t][^\n]*)*", b"", messages[k])
        return [*messages[:k], forwarded, *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, spaceships[0], change))
    assert status == FAILED and "lacks the commitment to setup-1" in said and "header fields changed" in said


def test_a_mailbox_from_before_commitments_cannot_be_checked(spaceships, tmp_path):
    def change(messages):
        return [re.sub(rb"\nX-GM-(Commitment|Reveal|Record):[^\n]*(\n[ \t][^\n]*)*", b"", raw) for raw in messages]

    result = gm_verify(tampered(tmp_path, spaceships[0], change))
    assert result.returncode == UNCHECKABLE and "Traceback" not in result.stderr
    assert "no mail carries a commitment" in result.stdout and "made before gm committed" in result.stdout


def test_a_mailbox_of_a_frozen_game_from_before_commitments_cannot_be_checked(tmp_path):
    archive = Path(__file__).resolve().parent / "archives" / "edition3" / "spaceships" / "games" / "g1"
    result = gm_verify(archive)  # the whole archive is a Maildir: the GM's mail to both players in it
    assert result.returncode == UNCHECKABLE and "Traceback" not in result.stderr, result.stderr
    assert "no mail carries a commitment" in result.stdout and "made before gm committed" in result.stdout


@pytest.mark.parametrize("content", [None, b"hello, no mail here\n", b"From someone\n\nno gm mail\n"])
def test_what_is_no_mailbox_of_gms_gets_a_clear_answer(tmp_path, content):
    path = tmp_path / "box"
    if content is not None:
        path.write_bytes(content)
    result = gm_verify(path)
    assert result.returncode == UNCHECKABLE and "Traceback" not in result.stderr, result.stderr
    assert "cannot read the mailbox" in result.stdout or "no mail of gm's" in result.stdout


def test_a_maildir_verifies_as_the_mbox_does(spaceships, tmp_path):
    maildir = tmp_path / "Maildir"
    for folder in ("cur", "new", "tmp"):
        (maildir / folder).mkdir(parents=True)
    for number, raw in enumerate(messages_of(spaceships[1])):  # named by the time each came, as Maildir does
        (maildir / "new" / f"{1_700_000_000 + number}.M{number}P1.example").write_bytes(raw)
    result = gm_verify(maildir)
    assert result.returncode == PASSED, result.stdout + result.stderr


def test_a_player_reads_the_commitments_on_the_sheet_as_the_header_gives_them(spaceships):
    final = parse_message(messages_of(spaceships[0])[-1])
    sheet = text(final)
    for value in final.get_all(COMMITMENT_HEADER):
        label, digest = value.split()
        assert f"  {label}\n    {digest}\n" in sheet
