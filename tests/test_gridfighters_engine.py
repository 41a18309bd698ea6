"""Grid Fighters through the kernel's pure engine: the clock of alternating moves."""

from __future__ import annotations

from datetime import timedelta
from random import Random

from gm.games.gridfighters.bot import random_setup
from gm.kernel import engine
from gm.kernel.values import ENDED, Created, DeadlinePassed, Options, PlayerMail, ReminderDue, Seat
from gm.pbem.writing.mailer import render_text
from gmtest import START

SEATS = (Seat(1, "alice@example.org", "Alice"), Seat(2, "bob@example.org", "Bob"))
SETUP_1 = """H A5, A1 A8, A2 A9, A3 A10, A4 B8, A5 B9, A6 B10, A7 C10
W D8, B D9, X1 C2, X2 D10, Y1 E8, Y2 E9
Z1 E1, Z2 E5, Z3 E6, Z4 E7
"""
SETUP_2 = """H J5, A1 J8, A2 J9, A3 J10, A4 I8, A5 I9, A6 I10, A7 H10
W G8, B G9, X1 H2, X2 G10, Y1 G6, Y2 F8
Z1 F1, Z2 F2, Z3 F3, Z4 F4
"""


def test_when_both_players_vanish_the_first_to_miss_three_moves_forfeits_ruling_19():
    """Each deadline counts against the player to move only; the other's count
    stands until they send a move. (Counting the other as present would reset
    both in turn, and a game of two absent players would never end.)"""
    game, _ = engine.create(Created(START, "g1", SEATS, "standard", Options(deadline=timedelta(hours=1)),
                                    game="gridfighters"))
    rng = Random(5)
    for player in (1, 2):
        text = "\n".join(f"{p.piece} {p.square}" for p in random_setup(player, rng))
        engine.apply(game, PlayerMail(START + timedelta(minutes=player), player, text))
    late = []
    while game.phase != ENDED and len(late) < 10:
        late.append(game.play.grid.to_move)
        engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert late == [1, 2, 1, 2, 1]
    assert game.outcome.winner == 2 and game.outcome.reason == "Alice sent nothing for 3 moves in a row and forfeits"


class Clock:
    def __init__(self):
        self.now = START

    def __call__(self, minutes: int = 1):
        self.now += timedelta(minutes=minutes)
        return self.now


def started(variant: str = "standard"):
    clock = Clock()
    game, _ = engine.create(Created(START, "g1", SEATS, variant, Options(deadline=timedelta(hours=24)),
                                    game="gridfighters"))
    engine.apply(game, PlayerMail(clock(), 1, SETUP_1))
    engine.apply(game, PlayerMail(clock(), 2, SETUP_2))
    assert game.phase == "play" and game.play.grid.to_move == 1
    return game, clock


def mail(game, clock, player, text):
    return engine.apply(game, PlayerMail(clock(), player, text))


def test_a_draw_offer_sent_with_a_move_reaches_the_opponent_and_can_be_accepted():
    """Alice moves and offers a draw in the same mail. Bob is told 'Alice offers
    a draw ... stands until the next move is made'; Bob answers 'draw'. The
    offer must still stand (no move has been made since), so the game is drawn."""
    game, clock = started()
    notices = mail(game, clock, 1, "Z2 E5-E4\ndraw\n")
    offers = [n for n in notices if n.template == "draw_offer"]
    assert offers and offers[0].player == 2  # Bob is told of the offer...
    mail(game, clock, 2, "draw\n")
    # ...but _moved() cleared it after the offer was sent, so Bob's 'draw' is a new offer
    assert game.phase == ENDED, f"Bob accepted the offer he was sent, yet draw_offers={game.draw_offers}"


def test_a_move_with_a_draw_acceptance_in_one_mail_is_announced_and_lapses_the_offer():
    """Bob offers a draw while Alice is to move. Alice moves and writes 'draw'.
    Ruling 19: the offer lapses when the next move is made. The code processes
    the draw command before after_mail() clears offers, ends the game as an
    agreed draw, and never sends Bob the announcement of Alice's move."""
    game, clock = started()
    mail(game, clock, 2, "draw\n")
    notices = mail(game, clock, 1, "Z2 E5-E4\ndraw\n")
    to_bob = [n for n in notices if n.player == 2]
    assert any((n.data.get("last") or {}).get("n") == 1 for n in to_bob), \
        [(n.template, n.subject) for n in to_bob]
    assert game.phase == "play" and game.draw_offers == {1}  # Bob's offer lapsed; Alice's is new


def test_a_winning_move_is_not_overridden_by_a_resign_in_the_same_mail():
    """Alice destroys Bob's home planet (move 3) and her mail also holds
    'resign' (say, a stale line). The rules already ended the game: Alice
    won after move 3. The code lets the resign run (phase is still 'play'
    until after_mail), so the recorded outcome says Bob wins while the Grid
    says Alice does."""
    game, clock = started()
    mail(game, clock, 1, "Z2 E5-J5")
    mail(game, clock, 2, "W G8-H6")
    reply = mail(game, clock, 1, "Z2 J5-J6\nresign\n")[0]
    assert game.play.grid.result is not None and game.play.grid.result.winner == 1
    assert game.outcome.winner == game.play.grid.result.winner, game.outcome
    assert "line 2: resign: the game is over" in reply.data["ignored"]


def test_a_losing_move_cannot_be_turned_into_a_draw_by_accepting_a_standing_offer():
    """Bob offered a draw. Alice's move destroys Bob's home planet: she wins;
    but make it the other way round: Alice's 'draw' in the same mail as her
    move turns the rules' result into an agreed draw (grid says winner 1)."""
    game, clock = started()
    mail(game, clock, 1, "Z2 E5-J5")
    mail(game, clock, 2, "W G8-H6")
    mail(game, clock, 2, "draw")  # Bob, not to move, offers a draw
    mail(game, clock, 1, "Z2 J5-J6\ndraw\n")
    assert game.play.grid.result.winner == 1
    assert game.outcome.winner == 1, game.outcome


def test_a_setup_line_with_a_stray_dash_names_line_and_column():
    """A typo in a setup ('Z2 E-5' or a move pasted in) must be answered with
    its line and column, per the project standard; instead every setup that
    contains '-' anywhere is answered 'your move: the game has not begun'."""
    clock = Clock()
    game, _ = engine.create(Created(START, "g1", SEATS, "standard", Options(), game="gridfighters"))
    typo = SETUP_1.replace("Z4 E7", "Z4 E-7")
    (reply,) = engine.apply(game, PlayerMail(clock(), 1, typo))
    said = " ".join(reply.data["not_understood"])
    assert "line 3" in said and "column" in said, said


def test_the_history_tells_of_missed_moves():
    """A missed deadline passes the move (ruling 19) and both players are
    told at the time; the history ('the whole game so far') never mentions
    it: Play.events, meant for this, is never written."""
    game, clock = started()
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert game.play.grid.to_move == 2
    notices = mail(game, clock, 1, "history")
    (history,) = [e for n in notices for e in (n, *n.enclosed) if e.template == "history"]
    written = render_text("history", history.data, "gm.games.gridfighters")
    assert "A deadline:\n  Red sent no move by the deadline: the move passes (ruling 19)." in written, written


def test_the_invitations_example_setup_is_legal_in_every_variant_for_both_players():
    for variant in ("standard", "standard+homes=3"):
        game, notices = engine.create(Created(START, "g1", SEATS, variant, Options(), game="gridfighters"))
        for notice in notices:
            example = "\n".join(notice.data["example"])
            written = render_text("invitation", notice.data, "gm.games.gridfighters")
            assert all(f"\n    {line}\n" in written for line in notice.data["example"])
            reply = engine.apply(game, PlayerMail(START, notice.player, example))[0]
            assert reply.data["setup"]["accepted"], (variant, notice.player, reply.data)
        assert game.phase == "play"


def test_a_reminder_of_a_move_reads_right():
    game, clock = started()
    (reminder,) = engine.apply(game, ReminderDue(clock()))
    written = render_text(reminder.template, reminder.data, "gm.games.gridfighters")
    assert "A reminder: your move 1 has not arrived yet." in written
    assert reminder.subject == "Reminder: your move 1"


