"""What a player reads says what is true (issue 22, small ones), in games
of `WORDS_EDITION` on; games of earlier editions keep their words, so that
their archives replay byte for byte (tests/test_editions.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gmtest import SETUP_ALICE, SETUP_BOB, World, run, text

TRUE_FOOTER = ("Orders sent again before the turn runs replace all your earlier orders for the turn, so send them "
               "all each time; chat, press and commands replace nothing.")


def said(message) -> str:
    """A message's plain text on one line, its words single-spaced."""
    return " ".join(text(message).split())


def test_every_footer_says_only_orders_replace_orders_never_chat_press_or_commands(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            invitation = said(world.alice.latest())
            assert "A setup sent again replaces your earlier one; chat, press and commands replace nothing." \
                in invitation
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "Rv1")
            await world.act(world.alice.reply, "message good luck")
            reply = said(world.alice.latest())
            assert [str(order) for order in world.daemon.master.games["g1"].play.pending[1]] == ["Rv1"]
            assert TRUE_FOOTER in reply and "replaces everything" not in reply
            for message in world.alice.inbox() + world.bob.inbox():
                assert "replaces everything" not in said(message)
    run(scenario())


def test_grid_fighters_footer_says_a_move_is_made_at_once(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters")
            assert "A setup sent again replaces your earlier one; chat, press and commands replace nothing." \
                in said(world.alice.latest())
    run(scenario())


def test_celestial_empire_footer_says_or_earlier_only_where_it_is_true(tmp_path):
    async def scenario(wait: bool) -> str:
        async with World(tmp_path / str(wait)) as world:
            await world.new_game(game="celestial-empire", wait_for_deadline=wait, deadline=timedelta(hours=24))
            first = said(world.alice.latest())
            html = " ".join(world.alice.latest().get_body(preferencelist=("html",)).get_content().split())
            assert TRUE_FOOTER in html and ("or earlier" in html) is not wait
            await world.act(world.alice.reply, "help")
            helped = said(world.alice.latest())
            assert "Mailing again" not in helped and helped.count(TRUE_FOOTER) == 2  # the help's and the footer's
            return first

    waiting = run(scenario(True))
    assert "The turn runs at the deadline. If your mail program" in waiting and "or earlier" not in waiting
    assert TRUE_FOOTER in waiting
    early = run(scenario(False))
    assert "The turn runs at the deadline, or earlier once every empire's orders are in." in early


STANDARD_WIN_ORDERS = [("bRv1Rx1 Rv2 Rw2 Rx2 Ow3 Bv5 Bw5 Bx5 mYz1 By5 sGz1", "Rv1 Rw2 Yz2 Bz5"),
                       ("bYx3Yx5 Yy3 Yy4 Gx3 Gx4 Gy3 Gy4", "Gv1 Gw1 sBv1 sBw1"),
                       ("Gz1 Gz2", "Ov1")]
"""standard-win.rec's turns, by mail: the game ends after turn 3."""


async def played_to_the_end(world: World) -> None:
    await world.new_game()
    await world.act(world.alice.reply, SETUP_ALICE)
    await world.act(world.bob.reply, SETUP_BOB)
    for alice, bob in STANDARD_WIN_ORDERS:
        await world.act(world.alice.reply, alice)
        await world.act(world.bob.reply, bob)


def test_status_after_the_end_does_not_promise_the_record_only_the_final_mail_had(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await played_to_the_end(world)
            final = world.alice.latest()
            assert "Your record of the game ('history') is attached: game-g1-player-1.txt." in said(final)
            assert [part.get_filename() for part in final.iter_attachments()] == ["game-g1-player-1.txt"]
            await world.act(world.alice.reply, "status")
            again = world.alice.latest()
            assert "The game is over: your final sheet" in str(again["Subject"])
            assert list(again.iter_attachments()) == []
            assert "is attached" not in said(again)
            assert ("Your record of the game came attached to the mail that ended it; 'history' sends it "
                    "again.") in said(again)
            await world.act(world.alice.reply, "history")  # as the sheet says
            record = [part for part in world.alice.latest().iter_attachments()]
            history = said(world.alice.latest()) + " ".join(" ".join(p.get_content().split()) for p in record)
            assert "== Turn 3" in history and "bRv1Rx1" in history
    run(scenario())


def test_a_syntax_error_says_what_it_found_grammatically_in_every_game(tmp_path):
    from gm.games.celestial_empire.notation import parse_orders
    from gm.games.spaceships.notation import parse_setup
    from gm.kernel.errors import NotationError, found_phrase

    assert found_phrase("the end of the order") == "found the end of the order"
    assert found_phrase("a second setup of player 2") == "found a second setup of player 2"
    assert found_phrase("'Q'") == "unexpected 'Q'"
    assert str(parse_orders("S123J\n")[0].error).startswith("line 1, column 6: found the end of the order; ")
    with pytest.raises(NotationError, match=r"^line 1, column 8: found the end of the text; "):
        parse_setup("DS Rv1-\n")

    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="celestial-empire")
            await world.act(world.alice.reply, "S123J")
            reply = said(world.alice.latest())
            assert "line 1, column 6: found the end of the order (see below)" in reply
            assert "Line 1, column 6: found the end of the order." in reply
            assert "unexpected the" not in reply
    run(scenario())


def test_greetings_and_sign_offs_are_chat_and_a_command_is_guessed_only_when_close(tmp_path):
    from gm.kernel.commands import KEYWORDS, nearest

    assert [nearest(word, KEYWORDS) for word in ("hlep", "histroy", "resing", "stauts", "drwa")] == [
        "help", "history", "resign", "status", "draw"]
    assert [nearest(word, KEYWORDS) for word in ("hi", "hello", "hey", "cheers", "dear", "bob", "xyzzy")] == [None] * 7

    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "Hello Bob,\nRv1\nThanks, and good luck!\nBest regards, Alice\n"
                                               "-- \nAlice Example\nhelo world\n")
            reply = world.alice.latest()
            words = said(reply)
            assert str(reply["Subject"]) == "[gm g1] Turn 1: orders received"
            assert "did you mean" not in words and "Not understood" not in words
            assert "line 1: 'Hello Bob,': a greeting or sign-off, passed to no one" in words
            assert "line 4: 'Best regards, Alice': a greeting or sign-off" in words
            assert "Alice Example" not in words and "helo" not in words  # the signature is not read at all
            await world.act(world.alice.reply, "hlep\nfrobnicate\n")
            words = said(world.alice.latest())
            assert "line 1: 'hlep': did you mean 'help'?" in words
            assert "line 2: 'frobnicate': not a command, an order or a setup line" in words
    run(scenario())


def test_the_sheet_after_a_missed_deadline_says_how_many_more_forfeit(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(deadline=timedelta(hours=24), reminder_before=timedelta(hours=2))
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            told = []
            for _ in range(2):
                await world.act(world.alice.reply, "Rz5")
                world.clock.advance(hours=25)
                await world.settle()
                told.append(world.bob.latest())
            first, second = (said(sheet) for sheet in told)
            assert ("The deadline passed without your orders for turn 1 (1 missed in a row); 3 missed deadlines "
                    "in a row forfeit the game, so 2 more would.") in first
            assert ("The deadline passed without your orders for turn 2 (2 missed in a row); 3 missed deadlines "
                    "in a row forfeit the game, so the next one would.") in second
            html = told[1].get_body(preferencelist=("html",)).get_content()
            assert "3 missed deadlines in a row forfeit the game" in " ".join(html.split())
            assert "missed in a row" not in said(world.alice.latest())  # Alice sent her orders
    run(scenario())


def test_a_plain_reply_to_press_is_passed_back_to_its_sender(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.act(world.alice.reply, SETUP_ALICE)
            await world.act(world.bob.reply, SETUP_BOB)
            await world.act(world.alice.reply, "message Good luck, Bob!")
            press = world.bob.latest()
            assert str(press["Subject"]) == "[gm g1] A message from Player 1"
            assert ("To answer, reply with a line: message YOUR TEXT or simply reply to this mail in your own words: "
                    "they go to Player 1") in said(press)
            await world.act(world.bob.reply, "Thanks, and good luck to you too!\nMay the best fleet win.\nRv1\n",
                            to=press)
            answer = said(world.bob.latest())
            assert "lines 1 to 2: your answer to Player 1's message, passed to Player 1" in answer
            assert "Not understood" not in answer and "did you mean" not in answer
            assert [str(order) for order in world.daemon.master.games["g1"].play.pending[2]] == ["Rv1"]
            back = world.alice.latest()
            assert str(back["Subject"]) == "[gm g1] A message from Player 2"
            assert "Thanks, and good luck to you too! May the best fleet win." in said(back)
            sheet = next(m for m in reversed(world.alice.inbox()) if "A message" not in str(m["Subject"]))
            count = len(world.bob.inbox())
            await world.act(world.alice.reply, "Hi!\nfrobnicate\n", to=sheet)  # not an answer to press
            assert len(world.bob.inbox()) == count
            assert "line 2: 'frobnicate': not a command" in said(world.alice.latest())
    run(scenario())


def test_a_name_signed_under_a_sign_off_is_chat_and_nothing_else_is():
    from gm.kernel.commands import read_mail

    def read(text: str):
        mail = read_mail(text, lambda word: word in ("Rv1", "DS"), chat_aside=True)
        return [line for line, _ in mail.chat], [line for line, _, _ in mail.not_understood]

    assert read("Hi there!\n\nRv1\n\nThanks,\nYou\n") == ([1, 5, 6], [])
    assert read("Rv1\nCheers,\nBob B.\n\n") == ([2, 3], [])
    assert read("Rv1\nThanks,\nBob\nfrobnicate\n") == ([2], [3, 4])  # not the last line: not a signature
    assert read("Rv1\nBob\n") == ([], [2])  # no sign-off above it
    assert read("Rv1\nThanks,\n\nDS Rv1\nBob\n") == ([2], [5])  # the sign-off is not just above it
    assert read("Thanks,\nfrobnicate the ships\n") == ([1], [2])  # three words: not a name
    assert read("Hi!\nfrobnicate\n") == ([1], [2])  # a greeting is no sign-off
    before = read_mail("Thanks,\nYou\n", lambda word: False)  # earlier editions answer as they did
    assert [line for line, _, _ in before.not_understood] == [1, 2] and before.chat == []
