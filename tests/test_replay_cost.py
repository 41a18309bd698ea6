"""What lets `gm replay` go at the speed of parsing its archive (issue 27),
without changing a byte of what it reads or renders: a mail's MIME fields
are parsed once, however often they are read, and a template is looked up
once per process, not at every mail; no sheet is made for an empire the
GM's robot holds, nor for the robot's seat in Spaceships and Grid
Fighters, which are mailed nothing, and a Celestial Empire order
line read before is not parsed again, nor is a GM's own event written as
gm writes them by the email package. Each test fails if the work comes
back; that the results are the same is what the byte-exact replays of
tests/archives and sample-mail check."""

from __future__ import annotations

import email.policy
import importlib
import os
import random
from datetime import timedelta
from email.headerregistry import HeaderRegistry
from pathlib import Path

import jinja2
import pytest

from gm.games.celestial_empire import notation, sheets
from gm.games.celestial_empire.mail import Terms
from gm.kernel import commitments, engine
from gm.kernel.protocol import game_named, mailed
from gm.kernel.settings import PlayerSettings
from gm.kernel.values import (
    ENDED,
    FINISH_EDITION,
    AddressReplaced,
    Answered,
    Away,
    Cancelled,
    Created,
    DeadlineSet,
    Notice,
    ObserverLeft,
    Options,
    Paused,
    PlayerMail,
    Resumed,
    Seat,
    SeatHanded,
    SettingsChanged,
)
from gm.mail import reading
from gm.mail.reading import body_text, parse_message, player_text
from gm.pbem.archive import replay
from gm.pbem.archive.events import ROBOT, event_fields, event_message, own_event, read_event
from gm.pbem.archive.replay import Threads, field_text, gm_line, notice_messages, to_event
from gm.pbem.writing import mailer, writer
from gm.pbem.writing.mailer import Identity, build
from gm.storage.maildirs import unix_lines
from gmtest import START

ORDERS = (b"From: bob@example.org\r\nTo: gm@example.org\r\nSubject: Re: [gm g1] Turn 3\r\n"
          b"Message-ID: <b3@example.org>\r\nMIME-Version: 1.0\r\n"
          b"Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n"
          b"--b\r\nContent-Type: text/plain; charset=\"iso-8859-1\"; format=flowed\r\n"
          b"Content-Transfer-Encoding: quoted-printable\r\n\r\nRv1 Rw1 =\r\nGx3\r\n> quoted\r\n"
          b"--b\r\nContent-Type: text/html; charset=\"utf-8\"\r\n\r\n<p>Rv1 Rw1 Gx3</p>\r\n--b--\r\n")


def test_reading_a_mail_parses_each_mime_field_once(monkeypatch):
    parsed: list[tuple[str, str]] = []
    registry_call = HeaderRegistry.__call__

    def counting(registry, name, value):
        parsed.append((name.lower(), value))
        return registry_call(registry, name, value)

    monkeypatch.setattr(HeaderRegistry, "__call__", counting)
    reading._parsed_field.cache_clear()  # the cache is the process's: earlier tests may have read these values
    first = ORDERS.replace(b"b3@", b"b4@")
    assert player_text(parse_message(first)) == "Rv1 Rw1 Gx3"
    types = [value for name, value in parsed if name == "content-type"]
    assert sorted(types) == sorted(set(types)) and len(types) == 3, types  # the three parts', once each
    parsed.clear()
    assert player_text(parse_message(first.replace(b"b4@", b"b5@"))) == "Rv1 Rw1 Gx3"
    assert not [name for name, _ in parsed if name.startswith("content-")], parsed  # the same values: kept


@pytest.mark.parametrize("raw", [
    ORDERS,
    b"Content-Type: text/plain; charset=\"=?utf-8?q?utf-8?=\" (a comment)\r\n\r\nhello\r\n",
    b"Content-Type: text/html;\r\n charset=utf-8;\r\n\tformat=flowed\r\nContent-Disposition: inline\r\n\r\n"
    b"<b>x</b>\r\n",
    b"Content-Type: text/plain; charset*=us-ascii'en'utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\naGk=\r\n",
    b"Content-Type: ; ;\r\nContent-Transfer-Encoding: x-unknown\r\n\r\nbody\r\n",
])
def test_what_is_read_is_what_policy_default_reads(raw):
    message, plain = parse_message(raw), email.message_from_bytes(raw, policy=email.policy.default)
    for part, reference in zip(message.walk(), plain.walk()):
        for name in ("Content-Type", "Content-Transfer-Encoding", "Content-Disposition"):
            assert str(part.get(name)) == str(reference.get(name))
            assert [repr(d) for d in getattr(part.get(name), "defects", ())] == [
                repr(d) for d in getattr(reference.get(name), "defects", ())]
        assert (part.get_content_type(), part.get_content_charset(), part.get_param("format")) == (
            reference.get_content_type(), reference.get_content_charset(), reference.get_param("format"))
    assert body_text(message) == body_text(plain)


def test_a_notice_is_rendered_again_without_looking_at_a_template_file(monkeypatch):
    data = {"title": "Spaceships", "game": "g1", "alias": "Ann", "opponent": "Bob", "phase": "ended",
            "deadline": None, "text": "The game was cancelled by the operator, who has written at some length."}
    notice = Notice(1, "answer", "An answer", data)  # a text template, and no HTML one to find

    def render() -> tuple[str, str | None]:
        return mailer.body_text(notice), mailer.body_html(notice)

    first = render()
    looked: list[str] = []
    for name in ("isfile", "getmtime", "exists"):
        real = getattr(os.path, name)
        monkeypatch.setattr(os.path, name, lambda path, real=real, name=name: looked.append(name) or real(path))
    monkeypatch.setattr(os, "stat", lambda path, *a, real=os.stat, **k: looked.append("stat") or real(path, *a, **k))
    assert render() == first and first[1] is None
    assert looked == []



def test_a_field_of_a_notices_data_is_looked_up_without_asking_for_an_attribute(monkeypatch):
    asked: list[str] = []
    monkeypatch.setattr(jinja2.Environment, "getattr",
                        lambda environment, obj, name, real=jinja2.Environment.getattr:
                        asked.append(name) or real(environment, obj, name))
    for environment in (mailer._text_environment(mailer.KERNEL), mailer._html_environment(mailer.KERNEL)):
        page = environment.from_string("{{ game.title }} {{ game.seat.alias }}: {{ game.turns }}")
        assert page.render(game={"title": "Spaceships", "seat": {"alias": "Ann"}, "turns": 3}) == "Spaceships Ann: 3"
    assert asked == []


class _Dict(dict):
    colour = "red"


@pytest.mark.parametrize(("obj", "name"), [
    ({"alias": "Ann"}, "alias"), ({"items": 3}, "items"), ({"get": 1}, "get"), ({}, "__class__"),
    ({"a": 1}, "missing"), ({}, "keys"), (_Dict(colour="blue"), "colour"), (_Dict(size=2), "size"),
    ("text", "upper"), ("text", "alias"), (None, "alias"), ([1], "append"), (3, "real"),
])
def test_a_name_resolves_as_jinja_resolves_it(obj, name):
    for make in (mailer._text_environment, mailer._html_environment):
        environment = make(mailer.KERNEL)
        ours, jinjas = environment.getattr(obj, name), jinja2.Environment.getattr(environment, obj, name)
        if isinstance(jinjas, jinja2.Undefined):
            assert type(ours) is type(jinjas) and (ours._undefined_obj, ours._undefined_name) == (obj, name)
        else:
            assert ours == jinjas


def test_a_field_the_last_message_had_is_not_folded_again(monkeypatch):
    folded: list[str] = []
    real = writer._fold_words
    monkeypatch.setattr(writer, "_fold_words", lambda name, value: folded.append(name) or real(name, value))
    value = f"gm-{os.getpid()}-{id(folded)} <gm@example.org>"  # a value no earlier test wrote
    for _ in range(3):
        message = writer.Mail()
        message["X-GM-Game"] = value
        assert message.as_bytes() == f"X-GM-Game: {value}\r\n\r\n".encode()
    assert folded == ["X-GM-Game"]
    record = " ".join([value.replace(" ", "-")] * (writer.MAX_KEPT_FIELD // len(value) + 1))  # a game's record
    for _ in range(2):
        message = writer.Mail()
        message["X-GM-Record"] = record
    assert folded == ["X-GM-Game", "X-GM-Record", "X-GM-Record"]  # not kept: the memory stays small


ACCEPTED = (b"X-GM-Accepted: game=g1; player=1; at=2026-11-26T23:19:36.917702+00:00; format=2\r\n" + ORDERS)


def test_an_archived_players_mail_is_read_without_parsing_its_plain_fields_again(monkeypatch):
    parsed: list[str] = []
    registry_call = HeaderRegistry.__call__
    monkeypatch.setattr(HeaderRegistry, "__call__", lambda registry, name, value:
                        parsed.append(name.lower()) or registry_call(registry, name, value))
    event = to_event(ACCEPTED, "g1")
    assert (event.player, event.text, event.subject) == (1, "Rv1 Rw1 Gx3", "Re: [gm g1] Turn 3")
    assert not {"subject", "x-gm-accepted"} & set(parsed), parsed


@pytest.mark.parametrize("value", [
    b"Re: [gm g1] Turn 3", b"a  two  spaces", b"tab\there", b" leading", b"trailing ", b"folded\r\n over lines",
    b"=?utf-8?q?Z=C3=B6e?= wrote", b"Zo\xc3\xab", b"Zo\xeb", b"(a comment) \"quoted\" back\\slash", b"", b"=?",
    b"a=?b", b"x" * 200, b"semi; colon: <angle@brackets>",
])
def test_a_field_reads_as_the_email_package_reads_it(value):
    raw = b"Subject: " + value + b"\r\nX-GM-Accepted: player=2; " + value + b"\r\nSubject: second\r\n\r\nbody\r\n"
    message, plain = parse_message(raw), email.message_from_bytes(raw, policy=email.policy.default)
    for name in ("Subject", "subject", "X-GM-Accepted", "X-Absent"):
        assert field_text(message, name) == str(plain.get(name, ""))


def test_an_events_messages_make_the_games_commitment_fields_once(monkeypatch):
    seats = (Seat(1, "ann@example.org", "Ann"), Seat(2, "bob@example.net", "Bob"))
    game, notices = engine.create(Created(START, "g1", seats, "2.6.1", Options(), edition=FINISH_EDITION,
                                          instance="x"))
    identity = Identity("gm@example.org")
    alone = [build(n, game, identity, 1, k, START, []).as_bytes() for k, n in enumerate(notices, 1)]
    made: list[str] = []
    real = commitments.headers
    monkeypatch.setattr(commitments, "headers", lambda game: made.append(game.id) or real(game))
    messages = notice_messages(game, notices, identity, 1, START, Threads())
    assert len(notices) == 2 and made == ["g1"]
    assert [data for _, _, data in messages] == alone


def test_no_sheet_is_made_for_a_robot_empire(monkeypatch):
    """A Celestial Empire empire the GM's robot holds is mailed nothing
    (`engine._for_people`), so its sheet is not made, at the start, after a
    turn, nor at the end; a person's sheets are, and a person's seat the
    robot only stands in for is still mailed (`protocol.mailed`)."""
    made: list[int] = []
    real = sheets.sheet_data
    monkeypatch.setattr(sheets, "sheet_data", lambda state, report, empire, *rest: made.append(empire) or real(
        state, report, empire, *rest))
    seats = (Seat(1, "ann@example.org", "Ann"), Seat(2, "robot", "Boreas", "easy"), Seat(3, "robot", "Cygnus", "easy"))
    game, notices = engine.create(Created(START, "g1", seats, "standard+turns=2", Options(), Terms(7),
                                          game="celestial-empire"))
    assert [n.player for n in notices] == [1] and made == [1]
    for turn in (1, 2):
        made.clear()
        for empire in (2, 3):
            assert engine.apply(game, PlayerMail(START + timedelta(minutes=turn, seconds=empire), empire, "TURN2\n",
                                                 robot=True)) == []
        assert made == []
        notices = engine.apply(game, PlayerMail(START + timedelta(minutes=turn, seconds=4), 1, "TURN2\n"))
        sheet = [n for n in notices if n.template == "turn_sheet"]
        assert [n.player for n in sheet] == [1] and made == [1], (turn, made)
    assert game.phase == ENDED and sheet[0].subject == "The game is over: your final sheet"
    game.stand_ins[1] = "easy"
    assert mailed(game) == [1]


@pytest.mark.parametrize("name", ["spaceships", "gridfighters"])
def test_no_sheet_is_made_for_a_two_player_games_robot_seat(monkeypatch, name):
    """In Spaceships and Grid Fighters, as in Celestial Empire, the seat the
    GM's robot holds is mailed nothing, so its sheet is not made: not when
    the game begins, nor after a turn (a move), nor at the end; the
    person's are."""
    module = importlib.import_module(f"gm.games.{name}.sheets")
    made: list[int] = []
    real = module.sheet
    monkeypatch.setattr(module, "sheet", lambda game, player, *rest: made.append(player) or real(game, player, *rest))
    seats = (Seat(1, "ann@example.org", "Ann"), Seat(2, "robot", "Robot", "easy"))
    game, notices = engine.create(Created(START, "g1", seats, game_named(name).default_variant, Options(), game=name))
    assert [n.player for n in notices] == [1]
    rng = random.Random(5)
    at = START
    sheets_to = []
    while game.turn < 4:
        for player in (1, 2):
            text = game.rules.robot_text(game, player, "easy", rng)
            if text is not None:
                at += timedelta(seconds=1.5)
                notices = engine.apply(game, PlayerMail(at, player, text, robot=player == 2))
                sheets_to += [n.player for n in notices if n.template == "turn_sheet"]
    notices = engine.apply(game, PlayerMail(at + timedelta(seconds=1.5), 1, "resign"))
    final = [n for n in notices if n.template == "turn_sheet"]
    assert game.phase == ENDED and [n.player for n in final] == [1] and final[0].attach_archive
    assert len(sheets_to) >= 3 and set(sheets_to) == {1} and set(made) == {1}, made

def test_an_order_line_read_before_is_not_parsed_again(monkeypatch):
    """Celestial Empire's orders: a line is parsed by the grammar once, and
    read again from what was kept; a line that does not read is answered
    afresh each time, on its own line of each mail."""
    parsed: list[str] = []
    real = notation.parse_notation
    monkeypatch.setattr(notation, "parse_notation", lambda parser, code, *rest: parsed.append(code) or real(
        parser, code, *rest))
    notation._parse_line.cache_clear()
    first = notation.parse_orders("S123J120\n123B3I\nS123Q\n")
    second = notation.parse_orders("; again\nS123Q\n123B3I\nS123J120 ; the same order\n")
    assert parsed == ["S123J120", "123B3I", "S123Q", "S123Q"]
    assert [line.order for line in second if line.order] == [first[1].order, first[0].order]
    assert [(line.number, line.error.line) for line in first + second if line.error] == [(3, 3), (2, 2)]
    assert notation.parse_order("123B3I") is first[1].order


ARCHIVES = Path(__file__).resolve().parent / "archives"


def gm_events() -> list[bytes]:
    """A message of every kind of the GM's own events, as gm writes them
    now and keeps them (`unix_lines`), and every GM event of the frozen
    archives (format 1 among them)."""
    at = START + timedelta(microseconds=5)
    identity = Identity("gm@example.org", "Celestial Empire GM")
    events = [Away(at, 2, at + timedelta(days=3)), Away(at, 2, None), Paused(at), Resumed(at),
              DeadlineSet(at, deadline=at + timedelta(days=2)), DeadlineSet(at, extend=timedelta(hours=36)),
              AddressReplaced(at, 2, "new@example.org"), SeatHanded(at, 2, "easy"), SeatHanded(at, 2, None),
              Cancelled(at, "no one plays"), Answered(at, 1, "Yes, that planet is linked."),
              SettingsChanged(at, 1, PlayerSettings(zone="Europe/Paris", reminders="none")), ObserverLeft(at, 2)]
    made = [event_message(identity, *event_fields(event)[:1], at, "<e@example.org>", "g1", event_fields(event)[1])
            for event in events]
    made += [event_message(identity, "deadline", at, "<d@example.org>", "g1", ["The deadline."], START),
             event_message(identity, "reminder", at, "<r@example.org>", "g1", ["A reminder."]),
             event_message(identity, "bouncing", at, "<b@example.org>", "g1", ["player: 2", "reason: 550 gone"]),
             event_message(identity, ROBOT, at, "<o@example.org>", "g1", ["player: 3", "level: easy", "",
                                                                          "S123J120", "SCAN114"])]
    archived = [path.read_bytes() for path in sorted(ARCHIVES.rglob("*.in.*")) if b".smtp." not in path.name.encode()]
    return [unix_lines(raw) for raw in made] + archived


def test_the_gms_own_events_are_read_without_the_email_package_as_it_reads_them():
    messages = gm_events()
    read = 0
    for raw in messages:
        if gm_line(raw)[0] in ("x-gm-accepted", "x-gm-bounce"):
            continue
        event = own_event(raw, "g1")
        assert (event is not None) == (b"\nX-GM-At: " in raw and b"\r" not in raw), raw[:400]  # format 1: not
        if event is not None:
            read += 1
            assert event == read_event(parse_message(raw), "g1"), raw[:400]
    # every kind as written now, and the archives' events of format 2: 8 of editions 2 and 3, 78 of 4 to 8
    assert read == 17 + 8 + 78, read
    robot = messages[16]
    for changed in (robot.replace(b"\n", b"\r\n"), robot.replace(b"Subject: ", b"Subject:\n "),
                    robot.replace(b"Content-Transfer-Encoding: 7bit", b"Content-Transfer-Encoding: 8bit"),
                    robot.replace(b"X-GM-At", b"X-GM-Then"), robot.replace(b"[gm g1]", b"=?utf-8?q?=5Bgm?=")):
        assert own_event(changed, "g1") is None


def test_a_robots_orders_are_read_from_the_archive_without_the_email_package(monkeypatch):
    robot = gm_events()[16]
    expected = to_event(robot, "g1")

    def refused(_raw):
        raise AssertionError("parsed by the email package")

    monkeypatch.setattr(replay, "parse_message", refused)
    assert to_event(robot, "g1") == expected and expected.robot and expected.text == "S123J120\nSCAN114\n"


def test_a_commitments_salt_is_made_once(monkeypatch):
    """Every mail carries a game's commitments so far (a Celestial Empire
    game makes one a turn): each salt, an HMAC of the game key, is made
    once and kept."""
    made: list[bytes] = []
    real = commitments.hmac.new
    monkeypatch.setattr(commitments.hmac, "new", lambda key, label, digest: made.append(label) or real(
        key, label, digest))
    commitments.salt_for.cache_clear()
    key = bytes(range(32))
    first = [commitments.salt_for(key, f"turn-{n}") for n in range(1, 4)]
    again = [commitments.salt_for(key, f"turn-{n}") for n in range(1, 4)]
    assert first == again and made == [b"turn-1", b"turn-2", b"turn-3"]
    assert commitments.salt_for(bytes(32), "turn-1") != first[0] and len(made) == 4
