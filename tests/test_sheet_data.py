"""The turn's sheet data, cheaper (issue 27, mail at half the ceiling;
bench/master.py measures it), without changing a byte of what players get:
each test fails if the work it pins comes back. That the mail is the same
is what the golden sheets and records, sample-mail, tests/test_mail_bytes.py
and the byte-exact replays of tests/archives check."""

from __future__ import annotations

import random
from datetime import timedelta

from gm.games.spaceships import sheets
from gm.kernel import engine
from gm.kernel.values import ENDED, STEADY_EDITION, Created, Options, PlayerMail, Seat
from gmtest import START


def robot_game(stand_in: bool) -> tuple[object, list]:
    """A Spaceships game with the GM's robot in seat 2 (its own seat, or
    standing in for Bob), the setups in; and what each seat's mail says."""
    seats = (Seat(1, "ann@example.org", "Ann"),
             Seat(2, "bob@example.net", "Bob") if stand_in else Seat(2, "robot", "Robot", "easy"))
    game, _ = engine.create(Created(START, "g1", seats, "2.6.1", Options(), instance="x", edition=STEADY_EDITION))
    if stand_in:
        game.stand_ins[2] = "easy"
    return game, seats


def test_the_reply_to_the_robots_own_mail_is_not_made(monkeypatch):
    """No one is sent the reply to a mail of the GM's robot (its own seat
    is mailed nothing; a person it stands in for is not sent its reply), so
    neither the reply's header nor what it would show of the orders (what
    may be done next) is made for it; the turn the robot's mail completes
    still runs, and the person's sheets and replies are as they were."""
    headers: list[int] = []
    nexts: list[int] = []
    rules = robot_game(False)[0].rules
    common, next_turn = rules.common, sheets.next_turn
    monkeypatch.setattr(rules, "common", lambda g, p, at: headers.append(p) or common(g, p, at))
    monkeypatch.setattr(sheets, "next_turn", lambda g, p: nexts.append(p) or next_turn(g, p))
    for stand_in in (False, True):
        game, _ = robot_game(stand_in)
        rng, at = random.Random(3), START
        sent: list[tuple[int, str]] = []
        while game.turn < 4:
            for player in (2, 1):  # the robot first: Ann's mail completes each turn, and sends the sheets
                text = game.rules.robot_text(game, player, "easy", rng)
                assert text is not None
                at += timedelta(seconds=1.25)
                headers.clear()
                nexts.clear()
                notices = engine.apply(game, PlayerMail(at, player, text, robot=player == 2))
                sent += [(n.player, n.template) for n in notices]
                if player == 2:
                    assert notices == [] and headers == [] and nexts == [], (stand_in, notices, headers, nexts)
                else:
                    assert [n.template for n in notices if n.player == 1][0] == "reply" and 1 in headers
        assert game.phase != ENDED and (2, "reply") not in sent
        assert {p for p, template in sent if template == "turn_sheet"} == ({1, 2} if stand_in else {1})
