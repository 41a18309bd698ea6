"""The turn's sheet data, cheaper (issue 27, mail at half the ceiling;
bench/master.py measures it), without changing a byte of what players get:
each test fails if the work it pins comes back. That the mail is the same
is what the golden sheets and records, sample-mail, tests/test_mail_bytes.py
and the byte-exact replays of tests/archives check."""

from __future__ import annotations

import pickle
import random
from datetime import timedelta

from gm.games.spaceships import seat_grids, sheets
from gm.games.spaceships.geometry import ALL_CELLS
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
                    assert next(n.template for n in notices if n.player == 1) == "reply" and 1 in headers
        assert game.phase != ENDED and (2, "reply") not in sent
        assert {p for p, template in sent if template == "turn_sheet"} == ({1, 2} if stand_in else {1})


SEATS = (Seat(1, "ann@example.org", "Ann"), Seat(2, "bob@example.net", "Bob"))
SETUPS = ("DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
          "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n")
"""Legal setups (the daemon tests' Alice and Bob)."""


def played(turns: int, strikes: int = 3, scans: bool = True, seed: int = 11):
    """A Spaceships game of today's edition between two people, its setups
    in and ``turns`` turns run on random strikes (and scans), each turn's
    sheets made as the engine makes them; and the sheets of each turn."""
    game, _ = engine.create(Created(START, "g1", SEATS, "2.6.1", Options(), instance="x", edition=STEADY_EDITION))
    rng, at, made = random.Random(seed), START, []
    cells = [str(cell) for cell in ALL_CELLS]
    for player in (1, 2):
        at += timedelta(seconds=1.25)
        engine.apply(game, PlayerMail(at, player, SETUPS[player - 1]))
    while game.turn <= turns and game.phase != ENDED:
        for player in (1, 2):
            at += timedelta(seconds=1.25)
            text = " ".join(rng.sample(cells, strikes)) + (" s" + rng.choice(cells) if scans else "")
            notices = engine.apply(game, PlayerMail(at, player, text))
        made.append([n for n in notices if n.template == "turn_sheet"])
    return game, made


def test_a_seats_grids_read_each_turns_view_once_and_draw_only_the_colours_that_changed(monkeypatch):
    """A seat's grids are kept from sheet to sheet (`seat_grids`): what the
    opponent's space shows is folded in one turn's view at a time, where
    each sheet read every view of the game again; and a colour whose rows
    did not change is not drawn again (its text lines, its HTML grids)."""
    folded: list[int] = []
    real_told = seat_grids.told_since
    monkeypatch.setattr(seat_grids, "told_since", lambda known, player, views: folded.append(len(views)) or real_told(
        known, player, views))
    drawn: list[str] = []
    real_colour = seat_grids.text_colour
    monkeypatch.setattr(seat_grids, "text_colour", lambda colour, *rest: drawn.append(colour) or real_colour(
        colour, *rest))
    game, made = played(12, strikes=1, scans=False)
    assert game.turn == 13 and all(len(sheets_made) == 2 for sheets_made in made)
    assert folded == [1] * 2 * 12  # each seat, each turn's view once
    # each seat's five colours at its first sheet, then at most the two a turn's one strike each way changed
    assert len(drawn) <= 2 * (5 + 2 * 12), drawn


def test_a_game_from_its_snapshot_draws_the_same_sheets_as_the_game_kept_in_memory():
    """What a seat's grids keep is derived from the game alone: a copy of
    the game (as its snapshot loads it, every turn's grids drawn afresh)
    makes the same sheets, byte for byte of their data, as the game whose
    grids were kept from turn to turn; and so does the kept game again."""
    game, made = played(9)
    at = START + timedelta(days=1, seconds=0.5)
    for player in (1, 2):
        kept = sheets.sheet(game, player, at, game.play.game.reports[-1])
        loaded = pickle.loads(pickle.dumps(game))
        afresh = sheets.sheet(loaded, player, at, loaded.play.game.reports[-1])
        assert repr(sorted(kept.items())) == repr(sorted(afresh.items()))
        assert kept["grid_lines"] == made[-1][player - 1].data["grid_lines"]
        assert kept["tables"] == made[-1][player - 1].data["tables"]


def test_what_a_seat_may_do_next_is_worked_out_once_a_turn(monkeypatch):
    """What a seat may do in the coming turn is shown by its sheet and by
    the reply to each of its order mails that turn: worked out once for
    each state of the game, where each of them worked it out again."""
    worked: list[int] = []
    real = sheets._next_turn
    monkeypatch.setattr(sheets, "_next_turn", lambda game, player: worked.append(player) or real(game, player))
    game, made = played(6)
    assert game.turn == 7 and all(len(sheets_made) == 2 for sheets_made in made)
    assert sorted(worked) == [1] * 7 + [2] * 7  # the first turn's sheet, then one a turn run
