"""Every plain-text part gm sends keeps to 78 columns (issue 22), but for a
line that cannot be broken: one holding a word (a grid row, a URL, an
address, a token) too long to fit beside its indentation.

Checked over what gm renders: the golden sheets of the three games and the
sample game's mail, and a sample of notices of each game played through the
engine with long aliases (its invitations or first sheets, replies to
orders, help, status, history and check, syntax errors, press, draw offers,
absences, reminders, missed deadlines, the operator's pause, resume,
deadline, replacement, answer and cancellation, and an observer's mail),
each rendered as the game's edition renders it.
"""

from __future__ import annotations

import email
import textwrap
from datetime import timedelta
from email import policy
from pathlib import Path

import pytest

from gm.games.celestial_empire.mail import Terms
from gm.kernel import engine
from gm.kernel.values import (
    AddressReplaced,
    Answered,
    Cancelled,
    Created,
    DeadlinePassed,
    DeadlineSet,
    Options,
    Paused,
    PlayerMail,
    ReminderDue,
    Resumed,
    Seat,
)
from gm.pbem.writing.mailer import Identity, build
from gm.pbem.writing.observers import build_observer
from gm.pbem.writing.writer import as_bytes
from gmtest import SETUP_ALICE, SETUP_BOB, START
from test_gridfighters_sheets import SETUPS as GRID_SETUPS

WIDTH = 78
ROOT = Path(__file__).resolve().parent.parent
LONG = ("Bartholomew Fitzgerald", "Maximiliana Oyelaran")
"""Aliases as long as the operator may give them, so that every line naming them is tried at its widest."""
OBSERVER = "a-very-patient-observer-of-games@observers.example.org"


def overlong(text: str) -> list[str]:
    """The lines of ``text`` over `WIDTH` that could be broken to fit: each
    of their words fits beside their indentation."""
    found = []
    for line in text.splitlines():
        if len(line) <= WIDTH:
            continue
        indent = len(line) - len(line.lstrip())
        if all(indent + len(word) <= WIDTH for word in line.split()):
            found.append(line)
    return found


def golden_texts() -> list[tuple[str, str]]:
    sheets = sorted((ROOT / "tests" / "sheets").rglob("*.txt"))
    return [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")) for path in sheets]


def sample_mail_texts() -> list[tuple[str, str]]:
    found = []
    for path in sorted((ROOT / "sample-mail").glob("gm-*.eml")):
        message = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        for n, part in enumerate(message.walk()):
            if part.get_content_type() == "text/plain":
                found.append((f"{path.name} part {n}", part.get_content()))
    return found


@pytest.mark.parametrize("name, text", golden_texts() + sample_mail_texts(), ids=lambda v: v[:60])
def test_golden_sheets_and_sample_mail_keep_to_78_columns(name, text):
    assert overlong(text) == [], name


def _game(kind: str, terms=None):
    seats = (Seat(1, "bartholomew.fitzgerald@example.org", LONG[0]), Seat(2, "maxi.oyelaran@example.net", LONG[1]))
    return engine.create(Created(START, "g1", seats, engine_variant(kind), Options(), terms, game=kind,
                                 observers=(OBSERVER,)))


def engine_variant(kind: str) -> str:
    return {"spaceships": "2.6.1", "gridfighters": "standard", "celestial-empire": "standard"}[kind]


def played(kind: str) -> list[tuple[str, str]]:
    """Every text part of every mail of a short game of ``kind``, as built
    to be sent: (subject, text)."""
    game, notices = _game(kind, Terms(7) if kind == "celestial-empire" else None)
    rendered: list[tuple[str, str]] = []
    at = START

    def keep(notices):
        for position, notice in enumerate(notices, 1):
            if notice.observer:
                message = build_observer(notice, game, Identity(), len(rendered), position, at, [])
            else:
                message = build(notice, game, Identity(), len(rendered), position, at, [], b"mbox")
            parsed = email.message_from_bytes(as_bytes(message), policy=policy.default)
            for n, part in enumerate(parsed.walk()):
                if part.get_content_type() == "text/plain":
                    rendered.append((f"{kind}: {notice.template}: {notice.subject} part {n}", part.get_content()))
    keep(notices)
    mails = {
        "spaceships": [(1, SETUP_ALICE), (2, SETUP_BOB), (1, "help\nstatus\nhistory"),
                       (1, "check\nbRv1Rx1 Rv2 Rw2 Zz9"), (2, "message hello there, good luck to you and yours\ndraw"),
                       (1, "bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1\nabsent 3d"),
                       (2, "Rv1 Rw2 Yz2 Bz5 bogus")],
        "gridfighters": [(1, GRID_SETUPS[1]), (2, GRID_SETUPS[2]), (1, "help\nstatus\nhistory"),
                         (1, "Z2 E5-E6"), (2, "message hello there, good luck to you and yours\nY1 G6-D3"),
                         (1, "Z1 E1-Q1"), (1, "absent 3d")],
        "celestial-empire": [(1, "help\nstatus\nhistory"), (1, "check\nS1J999\nSCAN999\n+Nobody"),
                             (2, "message hello there, good luck to you and yours\ndraw\nS1Q7"),
                             (1, "absent 3d")],
    }[kind]
    for player, text in mails:
        at += timedelta(minutes=7, seconds=0.25)
        keep(engine.apply(game, PlayerMail(at, player, text)))
    for event in (ReminderDue(at + timedelta(hours=60)), DeadlinePassed(at + timedelta(hours=80)),
                  Paused(at + timedelta(hours=81)), Resumed(at + timedelta(hours=82)),
                  DeadlineSet(at + timedelta(hours=83), extend=timedelta(hours=24)),
                  AddressReplaced(at + timedelta(hours=84), 2, "maximiliana.oyelaran@example.com"),
                  Answered(at + timedelta(hours=85), 1, "The research planet answers: it is so. " * 4),
                  PlayerMail(at + timedelta(hours=86), 2, "status"),
                  Cancelled(at + timedelta(hours=87), "the operator ends this game, as both players asked")):
        keep(engine.apply(game, event))
    return rendered


@pytest.mark.parametrize("kind", ["spaceships", "gridfighters", "celestial-empire"])
def test_every_notice_of_a_game_keeps_to_78_columns(kind):
    rendered = played(kind)
    assert len(rendered) >= 20
    assert {subject: overlong(text) for subject, text in rendered if overlong(text)} == {}


def test_the_check_sees_a_line_that_could_be_broken():
    assert overlong("x " * 40) == ["x " * 40]
    assert overlong("    password " + "t" * 80) == []
    assert overlong(textwrap.fill("word " * 40, WIDTH)) == []
