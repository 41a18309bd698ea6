"""Every mail command, with good and bad input, through the real daemon.

Each test runs a daemon on a loopback SMTP port with a test clock
(`gmtest.World`); the players reply to the GM's latest mail in the game, as a
mail client would, and read what comes back. See gm/kernel/commands.py for how
a mail is split into commands and notation lines, and gm/kernel/engine.py for
what each command does.

Tests marked ``xfail(strict=True)`` show a bug or a confusing message found
while writing these tests: each says what a player would expect, and fails
until gm is changed (then the marker must go).
"""

from __future__ import annotations

import asyncio
import re

import pytest

from gm.games.spaceships.notation import parse_orders, parse_setup
from gm.kernel.commands import KEYWORDS
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB, World, enclosures, grids, own_text, rows, text

# Player 1's fleet (SETUP_ALICE) has 7 conventional strikes in turn 1 (DS 1,
# KC 3, FS 2, MD 1), a missile, a beam and 1 scan; 22 cells.
# Player 2's (SETUP_BOB) has 8 (DS 1, KC 3, PC 2, MD 1, HS 1); 23 cells.

SETUP_ALICE_HS = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nHS Bz4 Bz5\n"


def run(coroutine):
    return asyncio.run(coroutine)


def playing(test):
    """Run ``test(world)`` in a started game (both setups in, turn 1)."""
    def wrapper(tmp_path):
        async def scenario():
            async with World(tmp_path) as world:
                await world.new_game()
                await world.act(world.alice.reply, SETUP_ALICE)
                await world.act(world.bob.reply, SETUP_BOB)
                await test(world)
        run(scenario())
    wrapper.__name__ = test.__name__
    wrapper.__doc__ = test.__doc__
    return wrapper


def setting_up(test):
    """Run ``test(world)`` in a new game, before either setup."""
    def wrapper(tmp_path):
        async def scenario():
            async with World(tmp_path) as world:
                await world.new_game()
                await test(world)
        run(scenario())
    wrapper.__name__ = test.__name__
    wrapper.__doc__ = test.__doc__
    return wrapper


def opponent_of(world: World, player):
    return world.bob if player is world.alice else world.alice


async def mail(world: World, player, body: str, to=None, advance_minutes: float = 1):
    """``player`` replies with ``body`` to the GM's latest mail in the game
    (or ``to``); returns the new mail of the player and of the opponent.
    The first of the player's new mails is the GM's reply to this one."""
    world.clock.advance(minutes=advance_minutes)
    world.alice.new_mail()
    world.bob.new_mail()
    target = to or [m for m in player.inbox() if m["Reply-To"]][-1]
    await world.act(player.reply, body, to=target)
    return player.new_mail(), opponent_of(world, player).new_mail()


def subjects(messages) -> list[str]:
    return [str(m["Subject"]) for m in messages]


def sections(body: str) -> dict[str, list[str]]:
    """The items of a reply's Done, Not understood and Ignored sections, each
    item whole: a long item goes on over lines indented 4, which are joined
    onto it here."""
    found: dict[str, list[str]] = {"Done": [], "Not understood": [], "Ignored": []}
    current = None
    for line in body.splitlines():
        if line.endswith(":") and line[:-1] in found:
            current = line[:-1]
        elif current and line.startswith("  - "):
            found[current].append(line[4:])
        elif current and found[current] and line.startswith("    ") and line.strip():
            found[current][-1] += " " + line.strip()
        else:
            current = None
    return found




def help_commands(sheet: str) -> dict[str, str]:
    """The help sheet's commands: each (on a line indented 2) with its
    description (on the lines below, indented 6), joined into one line."""
    block = sheet.split("Commands, one per line (keywords in any case; coordinates keep theirs):\n", 1)[1]
    found: dict[str, str] = {}
    command = None
    for line in block.split("\n\n", 1)[0].splitlines():
        if line.startswith("      "):
            assert command is not None, line
            found[command] = (found[command] + " " + line.strip()).strip()
        else:
            assert line.startswith("  ") and not line.startswith("   "), line
            command = line.strip()
            found[command] = ""
    return found


def header_lines(body: str) -> list[str]:
    """The header every GM mail starts with: the lines before the first blank one."""
    return body.split("\n\n", 1)[0].splitlines()


def without_header(body: str) -> str:
    """A mail's text after its header, as a reply encloses it."""
    return body.split("\n\n", 1)[1]




def game(world: World):
    return world.daemon.master.games["g1"]


# help

@setting_up
async def test_help_lists_every_keyword_and_the_notation_with_examples(world):
    mine, theirs = await mail(world, world.alice, "help")
    assert subjects(mine) == ["[gm g1] Help"] and theirs == []
    assert sections(own_text(mine[0]))["Done"] == ["line 1: help: the help sheet is below"]
    sheet = enclosures(mine[0])["Help"]
    commands = help_commands(sheet)
    assert all(commands.values()), "a command without its description"
    first_words = {command.split()[0]: command for command in commands}
    for keyword in KEYWORDS:
        if keyword == "press":  # another name for message, in its description
            assert "press TEXT" in commands["message TEXT"]
        else:
            assert keyword in first_words, f"help does not list {keyword!r}"
    # Each command on a line of its own, its description below it.
    assert ("\n  message TEXT\n      pass TEXT to my opponent (your address is never shown); also: press TEXT\n"
            "  draw\n      offer a draw, or accept the opponent's offer\n") in sheet
    assert commands["check"] == ("check the orders in this mail and say what would happen, without submitting "
                                 "them")
    # The notation, with examples that are themselves good notation.
    assert next(iter(commands)) == "Rv1 bRv1Rx1 mRv2 kGy3 sBz5"
    assert commands["Rv1 bRv1Rx1 mRv2 kGy3 sBz5"] == ("orders for this turn, several to a line; replace all you "
                                                      "sent before")
    parse_orders(next(iter(commands)))
    for kind, example in [("cell", "Rv1"), ("beam", "bRv1Rx1"), ("missile launch", "mRv2 or m2"),
                          ("kamikaze launch", "kGy3"), ("scan", "sBz5"), ("ship type", "KC or FS2")]:
        assert re.search(rf"^  {kind} +such as {re.escape(example)}$", sheet, re.M), kind
    for example in ("strike      Rv1", "beam        bRv1Rx1", "missile     mRv2", "kamikaze    kGy3",
                    "scan        sBz5 [11.5.4]"):
        assert f"\n  {example}" in sheet
    assert "Case matters: Yv1 is Yellow v 1; there is no colour y." in sheet
    setup_line = re.search(r"setup line  (KC [^,]+), or with a box: (KC \S+);", sheet)
    assert setup_line
    for line in setup_line.groups():
        parse_setup(line)
    assert "password " in sheet  # and how to answer


@playing
async def test_help_works_in_play_and_keeps_the_turn_going(world):
    mine, _ = await mail(world, world.alice, "Help\nRv1 Rv2")
    assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
    assert "Turn 1. Deadline" in own_text(mine[0]) and "Commands, one per line" in enclosures(mine[0])["Help"]
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2"]


@setting_up
async def test_help_sheet_lines_fit_78_columns(world):
    mine, _ = await mail(world, world.alice, "help")
    long = [line for line in text(mine[0]).splitlines() if len(line) > 78]
    assert long == []


# status

@setting_up
async def test_status_before_the_game_starts_resends_the_invitation(world):
    (invitation,) = world.alice.inbox()
    mine, theirs = await mail(world, world.alice, "status", advance_minutes=0)
    assert subjects(mine) == ["[gm g1] Invitation to a game: send your setup"]
    assert sections(own_text(mine[0]))["Done"] == ["line 1: status: the current sheet is below"]
    assert text(mine[0]).endswith("\n" + without_header(text(invitation)))
    assert theirs == []


@playing
async def test_status_resends_the_current_turn_sheet(world):
    await mail(world, world.alice, "Rv1 Rv2 Rw1")
    await mail(world, world.bob, "Bz5 Yz2")
    (sheet,) = [m for m in world.alice.inbox() if "Turn 1 results" in str(m["Subject"])]
    mine, theirs = await mail(world, world.alice, "status", advance_minutes=0)
    assert subjects(mine) == ["[gm g1] Turn 2: your sheet"]
    assert text(mine[0]).endswith("\n" + without_header(text(sheet)))  # the same sheet, word for word
    assert header_lines(text(mine[0])) == header_lines(text(sheet))  # said once, at the top
    assert theirs == []
    # Later, only the time left changes.
    mine, _ = await mail(world, world.alice, "STATUS", advance_minutes=60 * 25)
    again = text(mine[0])
    assert "Deadline 2026-11-24 12:02 UTC, in 1 day 23 hours." in again
    assert enclosures(mine[0])["Turn 2: your sheet"] == without_header(text(sheet))


@playing
async def test_status_after_the_game_ended_sends_the_final_sheet(world):
    await mail(world, world.bob, "resign")
    mine, _ = await mail(world, world.alice, "status")
    assert subjects(mine) == ["[gm g1] The game is over: your final sheet"]
    assert "== The game is over ==\nPlayer 2 resigned.\n" in enclosures(mine[0])["The game is over: your final sheet"]


@setting_up
async def test_status_after_a_game_ended_in_setup_does_not_invite(world):
    _, (notice,) = await mail(world, world.bob, "resign")
    mine, theirs = await mail(world, world.alice, "status")
    assert subjects(mine) == ["[gm g1] The game is over"] and theirs == []
    assert sections(own_text(mine[0]))["Done"] == ["line 1: status: the current sheet is below"]
    assert text(mine[0]).endswith("\n\nThe game is over: Player 2 resigned.\nYou win.\n")
    assert enclosures(mine[0])["The game is over"] == without_header(text(notice))  # the notice of the end, again
    assert "Send your setup" not in text(mine[0])


# check

@playing
async def test_check_reports_without_replacing_the_orders_in_force(world):
    await mail(world, world.alice, "Rv1 Rv2")
    mine, theirs = await mail(world, world.alice, "check\nRz5 Ry5\nbRv1Rx1")
    assert subjects(mine) == ["[gm g1] Turn 1: orders checked"] and theirs == []
    reply = text(mine[0])
    assert sections(reply) == {"Done": ["checked 3 orders for turn 1: not submitted, as you asked"],
                               "Not understood": [], "Ignored": []}
    assert ("What your orders would do in turn 1 (checked, not submitted):\n"
            "  Rz5             strike Rz5\n"
            "  Ry5             strike Ry5\n"
            "  bRv1Rx1         beam from DS on Rv1 Rw1 Rx1\n") in reply
    assert "The turn runs when" not in reply
    # The turn runs on the orders in force, Rv1 Rv2, not on the checked ones.
    mine, _ = await mail(world, world.bob, "Bz5")
    assert "Turn 1 results; orders for turn 2" in subjects(mine)[1]
    sheet = text(world.alice.latest())
    assert "you   strike Rv1: hit\n  you   strike Rv2: hit\n  they  strike Bz5: hit\n" in sheet
    assert "Rz5" not in sheet and "Ry5" not in sheet and "beam" not in sheet.split("== The spaces ==")[0]


@playing
async def test_check_alone_submits_nothing_so_the_turn_waits(world):
    await mail(world, world.alice, "check Rv1 Rv2")  # on the keyword's own line
    assert game(world).play.pending == {}
    mine, _ = await mail(world, world.bob, "Bz5")
    assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
    assert "The turn runs when Player 1's orders are in, or at the deadline." in text(mine[0])
    assert game(world).turn == 1
    mine, _ = await mail(world, world.alice, "Rv1 Rv2")
    assert subjects(mine)[1] == "[gm g1] Turn 1 results; orders for turn 2"


@playing
async def test_check_gives_the_reason_for_each_rejected_order(world):
    mine, _ = await mail(world, world.alice, "check\nkGv1 Rv1 Rv2 Rv3 Rv4 Rv5 Rw1 Rw2 Rw3 sBz5 sBz4")
    reply = text(mine[0])
    checked = rows(reply.split("(checked, not submitted):\n", 1)[1].split("\n\n", 1)[0])
    assert checked[0] == ("  kGv1            REJECTED: KC still entitles you to a conventional strike [4.4.1], "
                          "so it cannot launch a kamikaze strike [4.5]")
    assert [r.split()[0] for r in checked if "REJECTED" not in r] == ["Rv1", "Rv2", "Rv3", "Rv4", "Rv5", "Rw1",
                                                                     "Rw2", "sBz5"]
    assert checked[8] == ("  Rw3             REJECTED: too many strikes: 7 allowed this turn (7 conventional "
                          "[4.4.1], 0 missile [8.1.3], 0 kamikaze [4.5])")
    assert checked[10] == "  sBz4            REJECTED: only 1 scan allowed this turn [8.3.1]"
    assert len(checked) == 11
    assert "Strikes allowed this turn: 7 conventional,\nplus one for each missile or kamikaze launched " \
           "(at most 8 in all).\nScans: 1.\n" in reply
    assert game(world).play.pending == {}


@playing
async def test_check_that_cannot_be_read_keeps_the_orders_in_force(world):
    await mail(world, world.alice, "Rv1 Rv2")
    mine, _ = await mail(world, world.alice, "check\nRv1 rv2")
    reply = text(mine[0])
    assert subjects(mine) == ["[gm g1] Turn 1: your orders could not be read"]
    assert sections(reply)["Not understood"] == ["your orders: line 2, column 5"]
    assert "Hint: colours are capital letters, so write Rv2 [11.4.5]" in reply
    assert "Your previous orders stay in force:\n    Rv1 Rv2\n" in reply
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2"]


@playing
async def test_check_syntax_error_quotes_the_line_as_written(world):
    mine, _ = await mail(world, world.alice, "check Rv1 Rv2 zz9")
    assert "\nLine 1, column 15: unexpected 'zz9'.\n    check Rv1 Rv2 zz9\n                  ^\n" in text(mine[0])
    mine, _ = await mail(world, world.alice, "Orders:  Rv1 Rv6\nRv2")
    assert "\nLine 1, column 14: unexpected 'Rv6'.\n    Orders:  Rv1 Rv6\n                 ^\n" in text(mine[0])


@playing
async def test_check_without_orders_says_there_was_nothing_to_check(world):
    await mail(world, world.alice, "Rv1")
    mine, theirs = await mail(world, world.alice, "check")
    assert subjects(mine) == ["[gm g1] Re: your mail"] and theirs == []
    assert sections(text(mine[0])) == {"Done": [], "Not understood": [],
                                       "Ignored": ["check: there were no orders with it"]}
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1"]


@setting_up
async def test_check_validates_a_setup_without_submitting_it(world):
    mine, theirs = await mail(world, world.alice, "check\n" + SETUP_ALICE)
    assert theirs == []
    reply = text(mine[0])
    assert sections(reply) == {"Done": ["checked your setup: it is legal (not submitted, as you asked)"],
                               "Not understood": [], "Ignored": []}
    assert ("Your fleet:\n    DS Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2\n    KC Gv1 Gv2 Gw1 Gw2 Gx1 Gx2\n"
            "    FS Bv1 Bv2 Bw1 Bw2\n    MD Yz1 Yz2 Yz3\n    LS Bz5\n\n") in reply
    assert "The game begins when" not in reply
    assert game(world).play.setups == {}
    # Nothing to check.
    mine, _ = await mail(world, world.alice, "check")
    assert sections(text(mine[0])) == {"Done": [], "Not understood": [],
                                       "Ignored": ["check: there were no setup lines with it"]}
    # The spool moved on: the next mail is handled as usual.
    mine, _ = await mail(world, world.alice, SETUP_ALICE)
    assert subjects(mine) == ["[gm g1] Setup accepted"] and 1 in game(world).play.setups


# orders

@playing
async def test_orders_without_a_keyword_are_orders(world):
    mine, theirs = await mail(world, world.alice, "Rv1 Rv2")
    assert subjects(mine) == ["[gm g1] Turn 1: orders received"] and theirs == []
    reply = text(mine[0])
    assert sections(reply) == {"Done": ["your orders for turn 1"], "Not understood": [], "Ignored": []}
    assert "Your orders for turn 1:\n  Rv1             strike Rv1\n  Rv2             strike Rv2\n" in reply
    assert "The turn runs when Player 2's orders are in, or at the deadline." in reply


@pytest.mark.parametrize("body", [
    "orders\nRv1 Rv2 mYz1 Rw1",
    "orders Rv1 Rv2 mYz1 Rw1",
    "Orders: Rv1 Rv2\nmYz1 Rw1",
    "ORDERS\nRv1, Rv2,mYz1\n   Rw1",
    "Rv1\nRv2\n\nmYz1\nRw1\n",
])
def test_orders_keyword_and_orders_on_one_line_or_many(tmp_path, body):
    @playing
    async def scenario(world):
        mine, _ = await mail(world, world.alice, body)
        assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
        assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2", "mYz1", "Rw1"]
        assert "  mYz1            missile launched from Yz1 (MD)\n" in text(mine[0])
        mine, _ = await mail(world, world.bob, "Gz5")
        sheet = text(world.alice.latest())
        assert "you   strike Rv1: hit\n  you   strike Rv2: hit\n  you   strike Rw1: hit\n" in sheet
    scenario(tmp_path)


@playing
async def test_orders_sent_again_replace_all_before(world):
    await mail(world, world.alice, "Rz5 Ry5 Rx5")
    mine, _ = await mail(world, world.alice, "Rv1")
    assert sections(text(mine[0]))["Done"] == ["your orders for turn 1, replacing all you sent before"]
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1"]


SETUP_IN_PLAY = "your setup lines: the game has begun, so your fleet can no longer change"


@playing
async def test_a_setup_sent_in_play_is_not_read_and_orders_stay(world):
    await mail(world, world.alice, "Rv1 Rv2")
    mine, theirs = await mail(world, world.alice, SETUP_ALICE_HS)
    reply = text(mine[0])
    assert subjects(mine) == ["[gm g1] Re: your mail"] and theirs == []
    assert sections(reply) == {"Done": [], "Not understood": [], "Ignored": [SETUP_IN_PLAY]}
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2"]
    assert "HS" not in game(world).play.game.state.side(1).fleet.setup_lines()[-1]


@pytest.mark.parametrize("keyword", ["", "setup\n", "check\n"])
def test_a_setup_sent_in_play_is_told_the_game_has_begun(tmp_path, keyword):
    @playing
    async def scenario(world):
        mine, _ = await mail(world, world.alice, keyword + SETUP_ALICE_HS)
        reply = text(mine[0])
        assert sections(reply) == {"Done": [], "Not understood": [], "Ignored": [SETUP_IN_PLAY]}
        assert "Hint: a setup line holds one ship" not in reply
        assert game(world).play.pending == {}
    scenario(tmp_path)


@pytest.mark.parametrize("body", ["Rv1 Rv2", "orders Rv1 Rv2", "Orders:\nRv1\nRv2"])
def test_orders_sent_during_setup_are_told_a_setup_is_wanted(tmp_path, body):
    @setting_up
    async def scenario(world):
        mine, theirs = await mail(world, world.alice, body)
        assert subjects(mine) == ["[gm g1] Re: your mail"] and theirs == []
        assert sections(text(mine[0])) == {
            "Done": [],
            "Not understood": ["orders: the game has not begun; send your setup first, one ship per line"],
            "Ignored": []}
        assert game(world).play.setups == {} and game(world).phase == "setup"
    scenario(tmp_path)


@playing
async def test_the_answer_to_orders_names_the_turn_they_were_for(world):
    await mail(world, world.alice, "Rv1")
    mine, _ = await mail(world, world.bob, "Bz5")
    assert subjects(mine) == ["[gm g1] Turn 1: orders received", "[gm g1] Turn 1 results; orders for turn 2"]
    reply = text(mine[0])
    assert header_lines(reply)[2] == "Turn 1. Deadline 2026-11-24 12:00 UTC, in 2 days 23 hours."
    assert sections(reply) == {
        "Done": ["your orders for turn 1", "both players' orders are in: the turn has run, and your sheet follows"],
        "Not understood": [], "Ignored": []}
    assert "Your orders for turn 1:\n  Bz5             strike Bz5\n" in reply
    assert header_lines(text(mine[1]))[2].startswith("Turn 2. Deadline ")
    # The player whose orders came first is told nothing more than before.
    mine, _ = await mail(world, world.alice, "Rv2")
    assert sections(text(mine[0]))["Done"] == ["your orders for turn 2"]


# setup

@setting_up
async def test_setup_replaced_before_the_game_starts(world):
    mine, theirs = await mail(world, world.alice, SETUP_ALICE)
    reply = text(mine[0])
    assert subjects(mine) == ["[gm g1] Setup accepted"] and theirs == []
    assert sections(reply)["Done"] == ["your setup is accepted"]
    assert "The game begins when Player 2 has sent a setup too; until then you may\nreplace yours" in reply
    mine, _ = await mail(world, world.alice, "setup\n" + SETUP_ALICE_HS)
    reply = text(mine[0])
    assert sections(reply)["Done"] == ["your setup is accepted, replacing the one you sent before"]
    assert "Your fleet:\n" in reply and "    HS Bz4 Bz5\n" in reply
    await mail(world, world.bob, SETUP_BOB)
    sheet = text(world.alice.latest())
    assert "Turn 1: the game begins" in str(world.alice.latest()["Subject"])
    own, _ = grids(sheet)
    assert own["Bz4"] == own["Bz5"] == "HS"
    assert "LS" not in own.values()
    assert "7 conventional (DS 1, KC 3, FS 2, MD 1) [4.4.1]" not in sheet
    assert "8 conventional (DS 1, KC 3, FS 2, MD 1, HS 1) [4.4.1]" in sheet


@setting_up
async def test_a_setup_that_breaks_the_rules_keeps_the_earlier_one(world):
    await mail(world, world.alice, SETUP_ALICE)
    mine, _ = await mail(world, world.alice, "DS Rv1-Ow2\nKC Gv1-Gx2\n")
    reply = text(mine[0])
    assert subjects(mine) == ["[gm g1] Your setup breaks the rules"]
    assert sections(reply) == {"Done": [], "Not understood": ["your setup breaks the rules (see below)"],
                               "Ignored": []}
    assert ("Your setup was not accepted, because:\n"
            "  - the fleet needs a flying saucer or a patrol cruiser [3.7]\n"
            "  - the fleet needs a missile destroyer [3.7]\n"
            "  - the fleet needs a light scout or a heavy scout [3.7]\n"
            "Your earlier setup stays in force until you send a correct one.\n") in reply
    await mail(world, world.bob, SETUP_BOB)
    own, _ = grids(text(world.alice.latest()))
    assert own["Bz5"] == "LS" and own["Yz1"] == "MD*"


@setting_up
async def test_a_first_setup_that_breaks_the_rules_asks_for_another(world):
    mine, _ = await mail(world, world.alice, "DS Rv1-Ow2\nKC Rv1-Rx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n")
    reply = text(mine[0])
    assert ("  - line 2: KC Rv1-Rx2: Rv1 is also in the death star DS Rv1-Ow2: ships may\n"
            "    not intersect [3.4]\n") in reply
    assert "Please send a corrected setup: every ship, one per line.\n" in reply
    assert game(world).play.setups == {}


@setting_up
async def test_an_overlap_names_the_other_ship_plainly(world):
    mine, _ = await mail(world, world.alice, "DS Rv1-Ow2\nKC Rv1-Rx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n")
    assert "ship 1:" not in text(mine[0])


@setting_up
async def test_a_setup_that_cannot_be_read_says_where(world):
    await mail(world, world.alice, SETUP_ALICE)
    mine, _ = await mail(world, world.alice, "DS Rv1-Ow2\nKC gv1-Gx2")
    reply = text(mine[0])
    assert subjects(mine) == ["[gm g1] Your setup could not be read"]
    assert sections(reply)["Not understood"] == ["your setup: line 2, column 4"]
    assert "Line 2, column 4: unexpected 'gv1-Gx2'.\n    KC gv1-Gx2\n       ^\n" in reply
    assert 1 in game(world).play.setups  # the earlier setup is kept


@setting_up
async def test_a_setup_that_cannot_be_read_says_the_earlier_one_stays(world):
    mine, _ = await mail(world, world.alice, "DS Rv1-Ow2\nKC gv1-Gx2")
    assert "earlier setup" not in text(mine[0])  # there was none
    await mail(world, world.alice, SETUP_ALICE)
    mine, _ = await mail(world, world.alice, "DS Rv1-Ow2\nKC gv1-Gx2")
    assert ("(Lines are counted in your own text, without quoted lines.)\n\n"
            "Your earlier setup stays in force.\n") in text(mine[0])
    assert 1 in game(world).play.setups


# resign

@playing
async def test_resign_ends_the_game_for_the_opponent_and_both_are_told(world):
    await mail(world, world.bob, "Rv1 Rv2")  # pending orders never run
    mine, theirs = await mail(world, world.alice, "Resign")
    assert subjects(mine) == ["[gm g1] Re: your mail", "[gm g1] The game is over"]
    assert subjects(theirs) == ["[gm g1] The game is over"]
    assert sections(text(mine[0]))["Done"] == ["line 1: resign: you resign this game"]
    alice, bob = text(mine[1]), text(theirs[0])
    assert "== The game is over ==\nPlayer 1 resigned.\nScores: Player 2 23, you 0.\nPlayer 2 wins.\n" in alice
    assert "== The game is over ==\nPlayer 1 resigned.\nScores: you 23, Player 1 0.\nYou win.\n" in bob
    assert "What happened" not in bob  # no turn ran
    assert theirs[0].get_payload()[-1].get_filename() == "game-g1-player-2.txt"  # Bob's record (issue 22)
    assert game(world).phase == "ended" and game(world).outcome.winner == 2

    # Afterwards nothing changes the game.
    mine, theirs = await mail(world, world.bob, "Rv1 Rv2")
    assert subjects(mine) == ["[gm g1] This game is over"] and theirs == []
    assert sections(text(mine[0])) == {"Done": [], "Not understood": [],
                                       "Ignored": ["your orders: the game is over"]}
    mine, theirs = await mail(world, world.alice, "draw\nresign")
    assert sections(text(mine[0]))["Ignored"] == ["line 1: draw: the game is over", "line 2: resign: the game is over"]
    assert theirs == []


@setting_up
async def test_resign_during_setup(world):
    mine, theirs = await mail(world, world.alice, "resign")
    assert subjects(theirs) == ["[gm g1] The game is over"]
    assert "The game is over: Player 1 resigned.\nYou win.\n" in text(theirs[0])
    assert "The game is over: Player 1 resigned.\nPlayer 2 wins.\n" in text(mine[-1])
    mine, _ = await mail(world, world.bob, SETUP_BOB)
    assert sections(text(mine[0]))["Ignored"] == ["your orders: the game is over"]


# draw

@playing
async def test_draw_offered_and_accepted(world):
    mine, theirs = await mail(world, world.alice, "draw")
    assert subjects(mine) == ["[gm g1] Re: your mail"]
    assert sections(text(mine[0]))["Done"] == ["line 1: draw: your offer of a draw stands until turn 1 runs"]
    assert subjects(theirs) == ["[gm g1] Player 1 offers a draw"]
    offer = text(theirs[0])
    assert ("Player 1 offers a draw. To accept, reply with the line\n\n    draw\n\n"
            "The offer stands until turn 1 runs.") in offer
    assert game(world).phase == "play"
    mine, theirs = await mail(world, world.bob, "DRAW", to=world.bob.latest())
    assert sections(text(mine[0]))["Done"] == ["line 1: draw: you accept the offer of a draw"]
    assert subjects(mine)[1:] == ["[gm g1] The game is over"] and subjects(theirs) == ["[gm g1] The game is over"]
    assert "A draw was agreed.\nScores: you 23, Player 1 22.\nThe game is a draw.\n" in text(mine[1])
    assert "A draw was agreed.\nScores: you 22, Player 2 23.\nThe game is a draw.\n" in text(theirs[0])
    assert game(world).outcome.winner is None


@playing
async def test_a_draw_offer_lapses_when_the_turn_runs(world):
    await mail(world, world.alice, "draw\nRv1")
    await mail(world, world.bob, "Bz5")  # the turn runs
    assert game(world).turn == 2
    mine, theirs = await mail(world, world.bob, "draw")
    assert sections(text(mine[0]))["Done"] == ["line 1: draw: your offer of a draw stands until turn 2 runs"]
    assert subjects(theirs) == ["[gm g1] Player 2 offers a draw"]
    assert game(world).phase == "play"


@playing
async def test_offering_a_draw_twice_does_not_accept_it(world):
    await mail(world, world.alice, "draw")
    mine, theirs = await mail(world, world.alice, "draw")
    assert sections(text(mine[0]))["Done"] == ["line 1: draw: your offer of a draw stands until turn 1 runs"]
    assert subjects(theirs) == ["[gm g1] Player 1 offers a draw"]
    assert game(world).phase == "play"


@playing
async def test_a_draw_offered_in_the_mail_that_runs_the_turn_reaches_the_opponent_and_stands(world):
    """Issue 10, point 5: the turn runs first; the offer is the next turn's."""
    await mail(world, world.alice, "Rv1")
    mine, theirs = await mail(world, world.bob, "Bz5\ndraw")
    done = sections(text(mine[0]))["Done"]
    assert done[-2:] == ["both players' orders are in: the turn has run, and your sheet follows",
                         "line 2: draw: your offer of a draw stands until turn 2 runs"]
    assert subjects(theirs) == ["[gm g1] Turn 1 results; orders for turn 2", "[gm g1] Player 2 offers a draw"]
    assert "The offer stands until turn 2 runs." in text(theirs[1])
    mine, _ = await mail(world, world.alice, "draw", to=theirs[1])
    assert sections(text(mine[0]))["Done"] == ["line 1: draw: you accept the offer of a draw"]
    assert game(world).phase == "ended" and game(world).outcome.reason == "a draw was agreed"


@playing
async def test_a_line_that_cannot_be_read_leaves_out_only_itself(world):
    """Issue 10, point 2 [ruling v]: the lines that can be read stand; each
    that cannot is answered with its line and column; the reply ends with
    the orders in force. A mail of chat alone replaces nothing."""
    mine, _ = await mail(world, world.alice, "Rv1 Rv2\nRv9\nRw1")
    assert subjects(mine)[0] == "[gm g1] Turn 1: orders received, 1 line not understood"
    reply = text(mine[0])
    assert "Line 2, column 1: unexpected 'Rv9'" in reply and "your orders: line 2, column 1" in reply
    assert "The lines that could be read are your orders now" in reply
    assert reply.split("\n\nTo play,")[0].endswith("Orders in force for turn 1:\n    Rv1 Rv2 Rw1")
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2", "Rw1"]
    mine, _ = await mail(world, world.alice, "thanks, see you next turn")
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2", "Rw1"]
    mine, _ = await mail(world, world.alice, "Rv9")
    assert "Your previous orders stay in force:\n    Rv1 Rv2 Rw1" in text(mine[0])


@playing
async def test_corrected_orders_that_come_after_the_turn_ran_are_not_taken_for_the_next(world):
    """Issue 10, point 3 [ruling w]: Alice corrects her turn 1 orders by
    answering the receipt, but Bob's orders ran the turn first."""
    mine, _ = await mail(world, world.alice, "Rv1")
    receipt = mine[0]
    await mail(world, world.bob, "Bz5")  # the turn runs
    assert game(world).turn == 2
    mine, _ = await mail(world, world.alice, "Rv2", to=receipt)
    assert subjects(mine) == ["[gm g1] Turn 1 had run: your orders were not used", "[gm g1] Turn 2: your sheet"]
    reply = text(mine[0])
    assert "your orders: they answer turn 1, which ran before your mail came" in reply.replace("\n    ", " ")
    assert "Orders in force for turn 2: none yet." in reply
    assert game(world).play.pending == {}
    mine, _ = await mail(world, world.alice, "Rv2", to=mine[1])  # in reply to the sheet of turn 2: taken
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv2"]


@playing
async def test_the_subject_says_when_orders_were_rejected(world):
    """Issue 10, point 4: "orders received" only when every order was accepted."""
    mine, _ = await mail(world, world.alice, "Rv1 sBz5 sBz4 sBz3")
    assert subjects(mine)[0] == "[gm g1] Turn 1: orders received, 2 rejected"
    mine, _ = await mail(world, world.alice, "Rv1")
    assert subjects(mine)[0] == "[gm g1] Turn 1: orders received"


@setting_up
async def test_a_draw_offered_in_setup_says_when_it_lapses(world):
    mine, theirs = await mail(world, world.alice, "draw")
    assert sections(text(mine[0]))["Done"] == ["line 1: draw: your offer of a draw stands until the game begins"]
    assert subjects(theirs) == ["[gm g1] Player 1 offers a draw"]
    assert text(theirs[0]).endswith("\n\n    draw\n\nThe offer stands until the game begins.\n")


# message / press

def assert_private(raw: bytes, recipient: str, sender: str, sender_message_id: str) -> None:
    """Neither address is anywhere in a relayed mail but the recipient's own To:."""
    from gm.mail.reading import parse_message

    message = parse_message(raw)
    lowered = raw.lower()
    assert sender.encode() not in lowered
    assert sender_message_id.strip("<>").encode() not in raw
    assert lowered.count(recipient.encode()) == 1
    for name, value in message.items():
        value = str(value).lower()
        assert sender not in value
        assert (recipient in value) == (name == "To"), name
    for part in message.walk():
        if not part.is_multipart():
            body = part.get_content()
            body = body.decode(errors="replace") if isinstance(body, bytes) else body
            assert sender not in body.lower() and recipient not in body.lower()


@playing
async def test_message_is_relayed_without_either_address(world):
    mine, theirs = await mail(world, world.alice, "message Good luck, Player 2! See you at Rv1?")
    assert subjects(mine) == ["[gm g1] Re: your mail"]
    assert sections(text(mine[0]))["Done"] == ["line 1: message: passed to Player 2"]
    assert subjects(theirs) == ["[gm g1] A message from Player 1"]
    relayed = text(theirs[0])
    assert ("Player 1 sends you this message through the GM (neither of you sees the\nother's address):\n\n"
            "    Good luck, Player 2! See you at Rv1?\n\nTo answer, reply with a line: message YOUR TEXT\n") in relayed
    store = world.daemon.store
    sent_by_alice = [m for m in store.games_dir.joinpath("g1").glob("cur/*") if b"Good luck" in m.read_bytes()
                     and b"X-GM-Accepted" in m.read_bytes()]
    (alice_mail,) = sent_by_alice
    alice_id = re.search(rb"^Message-ID: (\S+)", alice_mail.read_bytes(), re.M | re.I)[1].decode()
    (raw,) = [store.delivered.get_bytes(k) for k in store.delivered.keys()
              if b"A message from Player 1" in store.delivered.get_bytes(k)]
    assert_private(raw, BOB, ALICE, alice_id)
    # Bob answers with press; Alice's copy is just as clean.
    mine, theirs = await mail(world, world.bob, "PRESS   Thanks,   you too  ", to=theirs[0])
    assert sections(text(mine[0]))["Done"] == ["line 1: message: passed to Player 1"]
    assert subjects(theirs) == ["[gm g1] A message from Player 2"]
    assert "\n    Thanks,   you too\n" in text(theirs[0])
    (raw,) = [store.delivered.get_bytes(k) for k in store.delivered.keys()
              if b"A message from Player 2" in store.delivered.get_bytes(k)]
    assert_private(raw, ALICE, BOB, "@example.net>")
    # The sender's own answer does not show the recipient's address either.
    (reply,) = [store.delivered.get_bytes(k) for k in store.delivered.keys()
                if b"passed to Player 1" in store.delivered.get_bytes(k)]
    assert ALICE.encode() not in reply.lower()


@setting_up
async def test_message_works_before_the_game_starts(world):
    _mine, theirs = await mail(world, world.bob, "message ready when you are")
    assert subjects(theirs) == ["[gm g1] A message from Player 2"]
    assert "    ready when you are\n" in text(theirs[0])


@playing
async def test_an_empty_message_is_not_understood(world):
    mine, theirs = await mail(world, world.alice, "message\npress   \nRv1")
    reply = text(mine[0])
    assert sections(reply) == {
        "Done": ["your orders for turn 1"],
        "Not understood": ["line 1: message: the message is missing (write: message TEXT)",
                           "line 2: message: the message is missing (write: message TEXT)"],
        "Ignored": []}
    assert theirs == []


@playing
async def test_a_message_is_relayed_whole(world):
    mine, theirs = await mail(world, world.alice, "message Good game; well played")
    assert sections(text(mine[0]))["Done"] == ["line 1: message: passed to Player 2"]
    assert "\n\n    Good game; well played\n\nTo answer, reply with a line: message YOUR TEXT\n" in text(theirs[0])
    _, theirs = await mail(world, world.bob, "  press ;-) see you  ", to=theirs[0])
    assert "\n\n    ;-) see you\n\n" in text(theirs[0])


# history

@playing
async def test_history_shows_every_past_turn_as_the_player_may_see_it(world):
    await mail(world, world.alice, "bRv1Rx1 Rv2 Rw2 Rx2 Ow3 sGz1 kGv1")
    await mail(world, world.bob, "Rv1 Rw2 Yz2 Bz5")
    await mail(world, world.alice, "Yx3 Yx4")
    await mail(world, world.bob, "Gv1 sBv1")
    turn_sheets = {n: text(m) for m in world.alice.inbox() for n in (1, 2)
                   if f"Turn {n} results" in str(m["Subject"])}
    mine, theirs = await mail(world, world.alice, "history")
    assert subjects(mine) == ["[gm g1] The game so far"] and theirs == []
    assert sections(own_text(mine[0]))["Done"] == ["line 1: history: the game so far is below"]
    history, footer = enclosures(mine[0])["The game so far"].split("\nTo play, reply to this mail")
    assert "password " in footer  # how to answer, once, at the end of the mail
    assert "Your setup:\n    DS Rv1-Ow2\n    KC Gv1-Gx2\n    FS Bv1-Bw2\n    MD Yz1 Yz2 Yz3\n    LS Bz5\n" in history
    assert "Yx3-Gy4" not in history  # not the opponent's setup
    assert "== Turn 1 (you reported first) ==" in history and "== Turn 2 (they reported first) ==" in history
    for n, sheet in turn_sheets.items():
        happened = sheet.split(f"== What happened in turn {n} ", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
        orders = sheet.split(f"== Your orders in turn {n}: as written, as carried out ==\n", 1)[1].split("\n\n")[0]
        part = history.split(f"== Turn {n} ", 1)[1].split("\n== Turn", 1)[0]
        shown, own = part.split("\n  Your orders:\n", 1)
        assert shown.splitlines()[1:] == happened
        assert own.rstrip("\n").splitlines() == ["  " + line for line in orders.splitlines()]
    assert "    kGv1            REJECTED: " in history
    # Bob's history is Bob's own: his setup and orders.
    mine, _ = await mail(world, world.bob, "history")
    bob = enclosures(mine[0])["The game so far"]
    assert "    DS Yx3-Gy4\n" in bob and "DS Rv1-Ow2" not in bob
    assert "    Rv1             strike Rv1\n" in bob and "kGv1" not in bob


@setting_up
async def test_history_before_any_setup(world):
    mine, _ = await mail(world, world.alice, "history")
    assert "Your setup:\n    (not sent yet)\n" in enclosures(mine[0])["The game so far"]


# lines that are not understood

@pytest.mark.parametrize("typo, nearest", [
    ("sttaus", "status"), ("hepl", "help"), ("resing", "resign"), ("drwa", "draw"), ("mesage hi", "message"),
    ("histroy", "history"), ("chekc", "check"), ("oders", "orders"), ("gmaes", "games"),
])
def test_a_mistyped_command_gets_the_nearest_and_the_rest_is_handled(tmp_path, typo, nearest):
    @playing
    async def scenario(world):
        mine, theirs = await mail(world, world.alice, f"{typo}\nRv1 Rv2\nxyzzy\nSTATUS")
        reply = own_text(mine[0])
        assert sections(reply) == {
            "Done": ["your orders for turn 1", "line 4: status: the current sheet is below"],
            "Not understood": [f"line 1: {typo!r}: did you mean '{nearest}'?",
                               "line 3: 'xyzzy': not a command, an order or a setup line (send 'help' for the list)"],
            "Ignored": []}
        assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
        assert list(enclosures(mine[0])) == ["Turn 1: your sheet"]
        assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2"]
        assert theirs == [] and game(world).phase == "play"
    scenario(tmp_path)


@playing
async def test_a_line_of_orders_with_a_command_in_it_cannot_be_read(world):
    await mail(world, world.alice, "Rv1")
    mine, _ = await mail(world, world.alice, "Rv1 Rv2 status")
    reply = text(mine[0])
    assert "Line 1, column 9: unexpected 'status'." in reply
    assert "Your previous orders stay in force:\n    Rv1\n" in reply
    assert subjects(mine) == ["[gm g1] Turn 1: your orders could not be read"]  # and no sheet


@pytest.mark.parametrize("keyword", ["help", "status", "history", "games", "resign", "draw", "accept"])
def test_orders_after_a_command_on_its_line_are_not_dropped_silently(tmp_path, keyword):
    @playing
    async def scenario(world):
        mine, theirs = await mail(world, world.alice, f"{keyword} Rv1 Rv2")
        assert subjects(mine) == ["[gm g1] Re: your mail"] and theirs == []  # the line is not run
        assert sections(text(mine[0])) == {
            "Done": [],
            "Not understood": [f"line 1: '{keyword} Rv1 Rv2': '{keyword}' takes nothing after it: "
                               "write it alone on its line (and orders on lines of their own)"],
            "Ignored": []}
        assert game(world).play.pending == {} and game(world).phase == "play" and not game(world).draw_offers
    scenario(tmp_path)


# commands and orders in one mail; case; comments

@playing
async def test_commands_and_orders_mixed_in_one_mail(world):
    body = "; turn 1\nhistory\nRv1 Rv2\n\nmessage hello there\n  Rw1 ; and one more\nstatus\n"
    mine, theirs = await mail(world, world.alice, body)
    assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
    assert list(enclosures(mine[0])) == ["The game so far", "Turn 1: your sheet"]
    assert subjects(theirs) == ["[gm g1] A message from Player 1"]
    assert sections(own_text(mine[0])) == {
        "Done": ["your orders for turn 1", "line 2: history: the game so far is below",
                 "line 5: message: passed to Player 2", "line 7: status: the current sheet is below"],
        "Not understood": [], "Ignored": []}
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2", "Rw1"]


@playing
async def test_keywords_in_any_case_coordinates_keep_theirs(world):
    mine, _ = await mail(world, world.alice, "ORDERS Rv1 Rv2\nStatus\nHISTORY")
    assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
    assert list(enclosures(mine[0])) == ["Turn 1: your sheet", "The game so far"]
    mine, _ = await mail(world, world.alice, "Orders rv1")
    reply = text(mine[0])
    assert subjects(mine) == ["[gm g1] Turn 1: your orders could not be read"]
    assert "Line 1, column 8: unexpected 'rv1'." in reply
    assert "Hint: colours are capital letters, so write Rv1 [11.4.5]" in reply
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rv2"]
    mine, theirs = await mail(world, world.alice, "rEsIgN")
    assert sections(text(mine[0]))["Done"] == ["line 1: resign: you resign this game"]
    assert "Player 1 resigned." in text(theirs[0])


@playing
async def test_comments_and_blank_lines_are_ignored(world):
    mine, _ = await mail(world, world.alice, "; my orders\n\n  Rv1 ; the corner\n\n;Rv2\n\tRw1\n;status\n")
    assert sections(text(mine[0])) == {"Done": ["your orders for turn 1"], "Not understood": [], "Ignored": []}
    assert subjects(mine) == ["[gm g1] Turn 1: orders received"]
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rw1"]
    mine, _ = await mail(world, world.alice, "; only a comment\n\n;Rz5\n")
    assert sections(text(mine[0])) == {
        "Done": [], "Not understood": [],
        "Ignored": ["your mail held no commands and no orders, so nothing was changed"]}
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1", "Rw1"]


@playing
async def test_the_reply_sections_hold_what_they_should(world):
    body = "Rv1 Rv2\nstatus\nsttaus\nchallenge carol@example.com\naccept\nmessage\nfoo bar\n"
    mine, theirs = await mail(world, world.alice, body)
    reply = own_text(mine[0])
    assert sections(reply) == {
        "Done": ["your orders for turn 1", "line 2: status: the current sheet is below"],
        "Not understood": [
            "line 3: 'sttaus': did you mean 'status'?",
            "line 7: 'foo bar': not a command, an order or a setup line (send 'help' for the list)",
            "line 6: message: the message is missing (write: message TEXT)"],
        "Ignored": ["line 4: challenge: send it to the GM's own address, not within a game",
                    "line 5: accept: send it to the GM's own address, not within a game"]}
    # Sections come in this order, each once.
    positions = [reply.index(f"\n{name}:\n") for name in ("Done", "Not understood", "Ignored")]
    assert positions == sorted(positions)
    assert theirs == []
    assert world.daemon.store.challenges.keys() == []  # no challenge went out from within a game
    for box in (world.daemon.store.outbox, world.daemon.store.delivered):
        assert not [k for k in box.keys() if b"carol@example.com" in box.get_bytes(k)]


@playing
async def test_an_empty_mail_changes_nothing(world):
    await mail(world, world.alice, "Rv1")
    mine, _ = await mail(world, world.alice, "")
    assert sections(text(mine[0])) == {
        "Done": [], "Not understood": [],
        "Ignored": ["your mail held no commands and no orders, so nothing was changed"]}
    assert [str(o) for o in game(world).play.pending[1]] == ["Rv1"]


@playing
async def test_reply_lines_fit_78_columns(world):
    mine, _ = await mail(world, world.alice, "Rv1 Rv2 Rv3 Rv4 Rv5 Rw1 Rw2 Rw3 kGv1\nxyzzy")
    reply = text(mine[0])
    long = [(len(line), line) for line in reply.splitlines() if len(line) > 78]
    assert long == []
    # Long items go on with a hanging indent: 4 in a section, 18 in the orders.
    assert ("\nNot understood:\n"
            "  - line 2: 'xyzzy': not a command, an order or a setup line (send 'help' for\n"
            "    the list)\n") in reply
    assert ("  Rw3             REJECTED: too many strikes: 7 allowed this turn (7\n"
            "                  conventional [4.4.1], 0 missile [8.1.3], 0 kamikaze [4.5])\n"
            "  kGv1            REJECTED: KC still entitles you to a conventional strike\n"
            "                  [4.4.1], so it cannot launch a kamikaze strike [4.5]\n") in reply


# games, challenge, accept

@playing
async def test_games_lists_the_senders_games_to_the_sender_only(world):
    mine, theirs = await mail(world, world.alice, "games")
    assert subjects(mine) == ["[gm g1] Re: your mail", "[gm] Your games"] and theirs == []
    assert sections(text(mine[0]))["Done"] == ["line 1: games: the list of your games follows in a separate mail"]
    listing = mine[1]
    assert str(listing["To"]) == ALICE
    assert ("Your games (alice@example.org):\n\n  game g1: you are Player 1, playing Player 2;\n"
            "    turn 1, deadline 2026-11-24 12:00 UTC; your orders are awaited\n") in text(listing)
    assert BOB not in text(listing)


@playing
async def test_games_in_a_game_that_is_over_is_not_called_ignored(world):
    await mail(world, world.bob, "resign")
    mine, _ = await mail(world, world.alice, "games")
    assert "[gm] Your games" in subjects(mine)
    assert sections(text(mine[0])) == {
        "Done": ["line 1: games: the list of your games follows in a separate mail"],
        "Not understood": [], "Ignored": []}
    assert "  game g1: you are Player 1, playing Player 2;\n    ended\n" in text(mine[-1])
    mine, _ = await mail(world, world.alice, "games\ndraw")
    assert sections(text(mine[0])) == {
        "Done": ["line 1: games: the list of your games follows in a separate mail"],
        "Not understood": [], "Ignored": ["line 2: draw: the game is over"]}


@pytest.mark.parametrize("line", ["Games:", "games ;", "GAMES", "games: ; the list, please"])
def test_games_written_any_way_the_reply_reads_it_gets_the_list(tmp_path, line):
    """One reading of the mail: whatever the reply calls the games command,
    the list it promises comes (the master once read it with a regex of its own)."""
    @playing
    async def asked(world):
        mine, theirs = await mail(world, world.alice, line)
        assert subjects(mine) == ["[gm g1] Re: your mail", "[gm] Your games"] and theirs == []
        assert sections(text(mine[0]))["Done"] == ["line 1: games: the list of your games follows in a separate mail"]
        assert "Your games (alice@example.org):" in text(mine[1])

    asked(tmp_path)


@playing
async def test_games_twice_in_a_mail_sends_one_list(world):
    mine, _ = await mail(world, world.alice, "games\nGames:")
    assert subjects(mine) == ["[gm g1] Re: your mail", "[gm] Your games"]


def test_challenge_and_accept_in_any_case_and_games_sent_to_the_gms_own_address(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"Challenge {BOB}")
            (invite,) = world.bob.inbox()
            await world.act(world.bob.reply, "ACCEPT", to=invite)
            await world.settle()
            assert [s.address for s in world.daemon.master.games["g1"].seats] == [ALICE, BOB]
            carol = "carol@example.com"
            raw = (f"From: {carol}\r\nTo: {GM}\r\nSubject: my games\r\nMessage-ID: <g1@example.com>\r\n\r\n"
                   "Games\r\n").encode()
            await world.asend(raw, carol, [GM])
            await world.settle()
            (listing,) = [world.daemon.store.delivered.get_bytes(k) for k in world.daemon.store.delivered.keys()
                          if f"To: {carol}".encode() in world.daemon.store.delivered.get_bytes(k)]
            assert b"Subject: [gm] Your games" in listing and b"None." in listing
    run(scenario())


@playing
async def test_games_sent_to_the_gms_own_address_by_a_player(world):
    raw = (f"From: {BOB}\r\nTo: {GM}\r\nSubject: my games\r\nMessage-ID: <games@example.net>\r\n\r\n"
           "games\r\n").encode()
    await world.asend(raw, BOB, [GM])
    await world.settle()
    assert subjects(world.bob.inbox()[-1:]) == ["[gm] Your games"]
