"""``gm verify`` of a Celestial Empire game (issue 26; docs/verification.md).

A whole game of three empires (Alice, Bob and the GM's robot) is played
through the real daemon over SMTP; from edition 7 on every turn's state is
committed on every mail of that turn and after, and the final mail reveals
each salt and value and the whole record. Each person's mailbox, exported as
``gm export --player`` writes it, verifies with the installed ``gm verify``:
the game is played again from the revealed galaxy and orders, each turn's
state is checked against its commitment, and the player's own sheets against
the replay. Then each tamper test changes one thing in a copy of Alice's
mailbox (one turn's commitment on one mail, one revealed turn state, one
order of the record, a salt, a line of her sheet, the order of two mails)
and ``gm verify`` fails naming it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random

import pytest

from celestial_fuzz import mail_for
from gm.games.celestial_empire.galaxy import generate
from gm.games.celestial_empire.mail import Terms
from gm.games.celestial_empire.robot import robot_mail
from gm.games.celestial_empire.state import Cargo, Empire, GameState, Market, Planet, Ship, new_game
from gm.games.celestial_empire.verification import canonical_state, plain_value, state_digest
from gm.kernel import engine
from gm.kernel.commitments import COMMITMENT_HEADER, RECORD_HEADER, RECORD_PIECES, REVEAL_HEADER, record_fields
from gm.kernel.values import FINISH_EDITION, Created, Options, PlayerMail, Seat
from gm.mail.reading import parse_message
from gm.pbem.archive.verifying import FAILED, PASSED
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import ALICE, BOB, COMMIT_KEY, World, run, text
from test_verify import checked, exported, gm_verify, messages_of, tampered, with_field

pytestmark = pytest.mark.slow  # a whole game by mail, and gm verify in processes of its own

TURNS = 4
NAME = "Black Arrow"
"""Alice names her first ship so in turn 1: an order the record holds whose change changes the state."""


def sheet(player):
    """The player's latest turn sheet (their orders answer it, not the GM's reply to their last mail)."""
    return next(m for m in reversed(player.inbox())
                if any(words in str(m["Subject"]) for words in ("orders for turn", "begins", "is over")))


@pytest.fixture(scope="module")
def celestial(tmp_path_factory):
    """Alice's and Bob's mailboxes of a game of TURNS turns against one robot,
    each person's orders chosen as the easy robot would choose them."""
    tmp_path = tmp_path_factory.mktemp("celestial")

    async def scenario():
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE, BOB], f"standard+turns={TURNS}",
                         Options(), world.clock(), game="celestial-empire", robot="easy", robot_seed=2026,
                         commit_key=COMMIT_KEY)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert [v.split()[0] for v in world.alice.latest().get_all(COMMITMENT_HEADER)] == ["robot-seed", "galaxy"]
            for turn in range(1, TURNS + 1):
                play = game.play
                last = play.reports[-1] if play.reports else None
                for empire, player in ((1, world.alice), (2, world.bob)):
                    orders = robot_mail(play.state, last, empire, play.variant.conditions, "easy", Random(turn))
                    if turn == 1 and empire == 1:
                        orders += f"S{play.state.ships_of(1)[0].number}={NAME}\n"
                    world.clock.advance(minutes=7, seconds=0.25)
                    await world.act(player.reply, orders, to=sheet(player))
                assert game.play.state.turn == turn + 1 or game.phase == "ended"
                labels = [v.split()[0] for v in sheet(world.bob).get_all(COMMITMENT_HEADER)]
                assert labels == ["robot-seed", "galaxy", f"turn-{turn}"]  # a turn's own, not every earlier one
            assert game.phase == "ended"
            return exported(world, tmp_path)

    paths = run(scenario())
    count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
    assert count and differences == []
    return paths


def test_each_players_mailbox_of_a_celestial_empire_game_verifies(celestial):
    for path in celestial:
        result = gm_verify(path)
        assert result.returncode == PASSED, result.stdout + result.stderr
        assert "check 1 passed" in result.stdout and "check 2 passed" in result.stdout
        assert "check 3 passed" in result.stdout and f"({TURNS} turns)" in result.stdout
        assert "(robot-seed, galaxy, turn-1, turn-2, turn-3, turn-4)" in result.stdout


def test_the_final_mail_reveals_each_turn_and_the_record_with_the_robots_orders(celestial):
    final = parse_message(messages_of(celestial[0])[-1])
    reveals = {v.split()[0]: v.split(None, 2)[1:] for v in final.get_all(REVEAL_HEADER)}
    value = base64.b64decode("".join(reveals["turn-2"][1].split())).decode()
    assert value.startswith("turn 2\nstate ") and len(value.split()[-1]) == 64
    record = base64.b64decode("".join(str(final[RECORD_HEADER]).split())).decode()
    assert record.startswith("game celestial-empire\nvariant standard+turns=4\nseed ")
    assert "\nempire 3 " in record and "\norder 3 " in record  # the robot's orders, as it sent them
    assert "\norder 1 S" in record and f"={NAME}\n" in record
    sheet = text(final)
    assert "  turn-4\n    " in sheet and "    salt " in sheet
    assert "  turn-3\n" not in sheet  # the sheet shows the latest turn's commitment; the reveal names each
    assert sorted(reveals) == ["galaxy", "robot-seed", "turn-1", "turn-2", "turn-3", "turn-4"]


# Tampering: one change each, and gm verify names it

def _at(messages: list[bytes], subject: bytes) -> int:
    return next(k for k, raw in enumerate(messages) if subject in raw)


def test_a_changed_turn_commitment_on_one_mail_fails_check_2_naming_the_mail(celestial, tmp_path):
    def change(messages):
        k = _at(messages, b"Turn 2 results") + 1  # the next mail of turn 2's commitment: an answer to orders
        assert b"turn-2 " in messages[k]

        def commitment(value: bytes) -> bytes:
            label, digest = value.split(b" ")
            return label + b" " + ((b"1" if digest[:1] == b"0" else b"0") + digest[1:] if label == b"turn-2"
                                   else digest)
        return [*messages[:k], with_field(messages[k], b"X-GM-Commitment", commitment), *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, celestial[0], change))
    assert status == FAILED and "FAILED check 2 (unchanged): the commitment to turn-2 changed on mail" in said
    assert "Turn 2 results" in said  # where it was first made


def _revealed(messages: list[bytes], label: bytes, change) -> list[bytes]:
    def reveal(value: bytes) -> bytes:
        name, salt, data = value.split(b" ", 2)
        return change(name, salt, data) if name == label else value
    return [*messages[:-1], with_field(messages[-1], b"X-GM-Reveal", reveal)]


def test_a_changed_revealed_turn_state_fails_check_1(celestial, tmp_path):
    def state(name: bytes, salt: bytes, data: bytes) -> bytes:
        value = base64.b64decode(b"".join(data.split()))
        digest = value.split()[-1]
        other = value.replace(digest, (b"1" if digest[:1] == b"0" else b"0") + digest[1:])
        return b" ".join([name, salt, base64.b64encode(other)])

    status, said = checked(tampered(tmp_path, celestial[0], lambda m: _revealed(m, b"turn-3", state)))
    assert status == FAILED and "FAILED check 1 (reveal): the value and salt of turn-3" in said


def test_a_changed_salt_fails_check_1(celestial, tmp_path):
    def salt(name: bytes, value: bytes, data: bytes) -> bytes:
        return b" ".join([name, (b"1" if value[:1] == b"0" else b"0") + value[1:], data])

    status, said = checked(tampered(tmp_path, celestial[0], lambda m: _revealed(m, b"turn-1", salt)))
    assert status == FAILED and "FAILED check 1 (reveal): the value and salt of turn-1" in said


def test_a_changed_order_in_the_record_fails_check_3_naming_the_turn(celestial, tmp_path):
    def change(messages):
        def record(value: bytes) -> bytes:
            text = base64.b64decode(b"".join(value.split()))
            assert text.count(NAME.encode()) == 1
            return base64.b64encode(text.replace(NAME.encode(), b"Red Arrow"))
        return [*messages[:-1], with_field(messages[-1], b"X-GM-Record", record)]

    status, said = checked(tampered(tmp_path, celestial[0], change))
    assert status == FAILED and "FAILED check 3 (replay)" in said
    assert "does not give the committed turn-1" in said and "Turn 1 results" in said  # where it was committed


def test_a_changed_line_of_the_players_sheet_fails_check_3_naming_the_turn(celestial, tmp_path):
    def change(messages):
        k = _at(messages, b"Turn 2 results")
        assert b"COMMAND HISTORY OF TURN 2" in messages[k]
        head, sep, body = messages[k].partition(b"COMMAND HISTORY OF TURN 2")
        line = body.split(b"\n")[1]  # the first order of the turn, and what it did: its last character changed
        changed = line[:-1] + (b"0" if line[-1:] != b"0" else b"1")
        return [*messages[:k], head + sep + body.replace(line, changed, 1), *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, celestial[0], change))
    assert status == FAILED and "FAILED check 3 (replay): turn 2, played again under the rules" in said
    assert "Turn 2 results" in said


def test_two_mails_in_the_wrong_order_fail_check_2_naming_them(celestial, tmp_path):
    def change(messages):
        k = _at(messages, b"Turn 2 results")
        return [*messages[:k - 1], messages[k], messages[k - 1], *messages[k + 1:]]

    status, said = checked(tampered(tmp_path, celestial[0], change))
    assert status == FAILED and "FAILED check 2 (order)" in said and "Turn 2 results" in said


# The documented format (docs/verification.md)

DOCS = Path(__file__).resolve().parent.parent / "docs" / "verification.md"


def test_the_docs_name_every_member_of_the_canonical_state_and_show_a_hold_as_it_is_written():
    docs = " ".join(DOCS.read_text().split())
    section = docs.split("### The canonical serialisation of a Celestial Empire state", 1)[1].split("###", 1)[0]
    kinds = {"the state: an object with the members": GameState, "an empire:": Empire, "Earth's market:": Market,
             "a planet:": Planet, "a ship:": Ship, "a hold:": Cargo}
    for lead, kind in kinds.items():
        item = section.split(f"- {lead}", 1)[1].split(" - ", 1)[0]
        named = re.findall(r"(?:^|[\s(,])`([a-z_]+)`", item)
        assert sorted(set(named) & {f.name for f in fields(kind)}) == sorted(f.name for f in fields(kind)), lead
    hold = Cargo()
    hold.ore[0] = 4
    example = canonical_state_of(hold)
    assert f"`{example}`" in section


def canonical_state_of(value) -> str:
    """``value`` (a hold, here) written as the state's canonical serialisation writes it."""
    return json.dumps(plain_value(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_a_state_is_serialised_with_its_members_sorted_and_a_line_feed_at_the_end():
    state = new_game(generate(7, 2), ["Grok", "Winter"])
    data = canonical_state(state)
    assert data.endswith(b"}\n") and b" " not in data.replace(b"Grok", b"").replace(b"Winter", b"")[:200]
    assert data.startswith(b'{"earth":') and json.loads(data)["empires"]["2"]["name"] == "Winter"
    assert state_digest(state) == hashlib.sha256(data).hexdigest()


# The record plays every turn again: random but plausible orders, by the engine

@pytest.mark.parametrize("variant, seed", [("standard", 3), ("standard+voted=40", 11), ("standard+turns=60", 29)])
def test_the_revealed_record_plays_again_to_every_committed_state(variant, seed):
    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter", "Master"), 1))
    game, _ = engine.create(Created(at, "g1", seats, variant, Options(), Terms(seed), game="celestial-empire",
                                    commit_key=COMMIT_KEY))
    rng = Random(seed)
    for turn in range(1, 13):
        for empire in (1, 2, 3):
            at += timedelta(minutes=1, microseconds=250_000)
            engine.apply(game, PlayerMail(at, empire, mail_for(game.play.state, empire, rng)))
        if game.phase == "ended":  # the empires voted an early end
            break
        assert game.play.state.turn == turn + 1
    played = len(game.play.ran)
    assert played >= 6 and any(ran.research for ran in game.play.ran) and any(ran.orders for ran in game.play.ran)
    record = game.rules.revealed_record(game)
    for player in (1, 2, 3):
        again = game.rules.replayed(record, player)
        assert list(again.values) == game.rules.committed(game)
        assert [name for name, _ in again.turns] == [f"turn {n}" for n in range(1, played + 1) for _ in range(2)]


def test_a_game_made_before_edition_7_commits_to_its_galaxy_alone_and_reveals_no_record():
    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter"), 1))
    game, _ = engine.create(Created(at, "g1", seats, "standard", Options(), Terms(5), game="celestial-empire",
                                    commit_key=COMMIT_KEY, edition=6))
    rng = Random(5)
    for empire in (1, 2):
        engine.apply(game, PlayerMail(at + timedelta(minutes=empire), empire, mail_for(game.play.state, empire, rng)))
    assert game.play.state.turn == 2 and game.play.ran == []
    assert [label for label, _ in game.rules.committed(game)] == ["galaxy"]
    assert game.rules.revealed_record(game) is None


# A long record: several X-GM-Record fields, each under what mail servers keep of one

def test_a_long_record_goes_on_field_after_field_from_edition_7_on_and_stays_one_field_before():
    record = "".join(f"order 1 S{n}J{n + 1}\n" for n in range(100, 9100))
    assert len(record) > 48 * RECORD_PIECES  # more than one field's base64
    fields_7 = record_fields(record, FINISH_EDITION)
    assert len(fields_7) > 1 and all(len(value.split()) <= RECORD_PIECES for value in fields_7)
    assert base64.b64decode("".join(" ".join(fields_7).split())).decode() == record
    (field_6,) = record_fields(record, FINISH_EDITION - 1)
    assert field_6 == " ".join(fields_7)
    short = "game celestial-empire\n"
    assert record_fields(short, FINISH_EDITION) == record_fields(short, FINISH_EDITION - 1)


def test_gm_verify_reads_a_record_in_several_fields(celestial, tmp_path):
    def change(messages):
        head, sep, body = messages[-1].partition(b"\n\n")
        lines = re.sub(rb"\n[ \t]+", b" ", head).split(b"\n")
        at = next(k for k, line in enumerate(lines) if line.startswith(b"X-GM-Record: "))
        cut = lines[at].split(b": ", 1)[1].split()
        parts = [b"X-GM-Record: " + b" ".join(cut[i:i + 3]) for i in range(0, len(cut), 3)]
        assert len(parts) > 3
        return [*messages[:-1], b"\n".join([*lines[:at], *parts, *lines[at + 1:]]) + sep + body]

    status, said = checked(tampered(tmp_path, celestial[1], change))
    assert status == PASSED, said
    assert "check 3 passed" in said and f"({TURNS} turns)" in said
