"""Celestial Empire played by mail through the real daemon: three empires
made with `gm new`'s request, orders by mail (one mail replacing the last),
the turn run early once every empire is in and at the deadline for the
silent, a resignation that leaves the empire to its standing orders, and a
fixed-length game played to its end; then `gm replay` rebuilds every
message byte for byte, and no empire's mail holds another's address,
token or holdings."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, timedelta

import pytest

from gm.kernel.values import Options
from gm.pbem.data.tokens import token
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import Player, World, enclosures, text
from test_secrecy_whole_game import texts

pytestmark = pytest.mark.slow  # whole games by mail

ADDRESSES = ("ann@example.org", "bea@example.net", "cy@example.com")


async def three_empires(world: World, variant: str = "standard+turns=3") -> list[Player]:
    request_game(world.daemon.store, world.config.identity, list(ADDRESSES), variant,
                 Options(deadline=timedelta(hours=48)), world.clock(), aliases=["Grok", "Winter"],
                 game="celestial-empire")
    await world.settle()
    return [Player(address, world) for address in ADDRESSES]


def own_ships(sheet: str) -> list[int]:
    """The ship numbers of the sheet's SUMMARY OF SHIPS."""
    block = sheet.split("SUMMARY OF SHIPS", 1)[1].split("SUMMARY OF PLANETS", 1)[0]
    return [int(n) for n in re.findall(r"^S(\d+) ", block, re.M)]


def test_three_empires_play_a_fixed_length_game_by_mail_to_its_end(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            players = await three_empires(world)
            game = world.daemon.master.games["g1"]
            firsts = [p.latest() for p in players]
            assert [str(m["Subject"]) for m in firsts] == ["[gm g1] The game begins: turn 1"] * 3
            assert "Celestial Empire game g1: you are Grok" in text(firsts[0])
            assert "you are Winter" in text(firsts[1]) and "you are Cygnus" in text(firsts[2])  # a default name
            ann, bea, cy = players
            ships = own_ships(text(firsts[0]))
            assert len(ships) == 5
            home = game.play.state.empires[1].home

            # Ann's first mail has a slip; her second replaces it whole.
            await world.act(ann.reply, f"S{ships[0]}=Arrow\nS{ships[1]}Q7\n; a comment\n")
            reply = ann.latest()
            assert str(reply["Subject"]) == "[gm g1] Turn 1: orders received, 1 line not understood"
            assert "line 2, column" in text(reply) and f"    S{ships[0]}=Arrow\n" in text(reply)
            await world.act(ann.reply, f"S{ships[0]}=Black Arrow\n{home}=Capital\n+Winter\nstatus\n")
            reply = ann.latest()
            assert "Turn 1: your sheet" in enclosures(reply)  # one mail answers orders and status
            assert f"    S{ships[0]}=Black Arrow\n    {home}=Capital\n    +Winter\n" in text(reply)
            assert game.turn == 1 and sorted(game.waiting_for) == [2, 3]

            await world.act(bea.reply, "+Grok\n{Hello from Winter}\n")
            await world.act(cy.reply, "resign\n")  # Cy's empire plays on by its standing orders
            assert game.phase == "play" and game.turn == 2  # everyone still playing was in: the turn ran
            sheet = text(ann.latest())
            assert "Turn 1 results; orders for turn 2" in str(ann.latest()["Subject"])
            assert "Black Arrow" in sheet and "Winter: Hello from Winter" in sheet
            assert "COMMAND HISTORY OF TURN 1" in sheet and "+Winter" in sheet
            assert any("Cygnus resigned" in str(m["Subject"]) for m in bea.inbox())

            # Turn 2: nobody writes; the deadline runs it.
            world.clock.advance(hours=49, seconds=0.3)
            await world.settle()
            assert game.turn == 3 and game.phase == "play"
            # Turn 3, the last: Ann and Bea send orders; the game ends with the most score.
            await world.act(ann.reply, f"SCAN{game.play.state.earth}\n")
            await world.act(bea.reply, "TURN 50\n")
            assert game.phase == "ended", game.phase
            assert "the game's length ran out" in game.outcome.reason or "won after turn 3" in game.outcome.reason
            for number, (player, name) in enumerate(zip(players, ("Grok", "Winter", "Cygnus")), 1):
                final = player.latest()
                assert "The game is over" in str(final["Subject"])
                (record,) = final.iter_attachments()  # the empire's own record (edition 5 on, issue 22)
                assert record.get_filename() == f"game-g1-player-{number}.txt"
                assert f"Celestial Empire game g1: you are {name}" in record.get_content()

            key = world.daemon.store.key
            for number, player in enumerate(players, 1):
                blobs = b"\n".join(b for m in player.inbox() for b in texts(m.as_bytes())).lower()
                for other in (1, 2, 3):
                    if other != number:
                        assert ADDRESSES[other - 1].encode() not in blobs, (number, other)
                        assert token(key, "g1", other).encode() not in blobs, (number, other)
            return tmp_path / "data" / "games" / "g1"
    archive = asyncio.run(scenario())
    count, differences = verify_replay(str(archive))
    assert differences == [] and count > 20


def test_an_order_with_a_number_too_large_to_read_is_answered_on_its_line_and_the_others_stand(tmp_path):
    """Issue 21, row 6: a number of more digits than Python's int() reads
    from text made the whole mail fail (shunted, no reply)."""
    async def scenario():
        async with World(tmp_path) as world:
            ann = (await three_empires(world))[0]
            ships = own_ships(text(ann.latest()))
            await world.act(ann.reply, f"S{ships[0]}=Arrow\nS{ships[1]}L{'9' * 5000}R1\nS{ships[2]}=Bolt\n")
            reply = ann.latest()
            assert str(reply["Subject"]) == "[gm g1] Turn 1: orders received, 1 line not understood"
            assert "Line 2, column " in text(reply) and "unexpected number too large (5000 digits)" in text(reply)
            assert f"    S{ships[0]}=Arrow\n    S{ships[2]}=Bolt\n" in text(reply)
            return tmp_path / "data" / "games" / "g1"
    archive = asyncio.run(scenario())
    count, differences = verify_replay(str(archive))
    assert differences == [] and count >= 4


def test_an_empire_name_must_be_one_word_orders_can_use(tmp_path):
    world = World(tmp_path)
    try:
        request_game(world.daemon.store, world.config.identity, list(ADDRESSES[:2]), "standard", Options(),
                     world.clock(), aliases=["Grok the Great"], game="celestial-empire")
    except ValueError as error:
        assert "1 to 9 letters and digits" in str(error)
    else:
        raise AssertionError("an empire name with spaces was accepted")


def test_after_a_resignation_the_players_still_playing_may_agree_a_draw():
    """A resigned empire plays on by its standing orders (R-84) but has no say
    in a draw: the offers of the players still playing are enough."""
    from datetime import datetime

    from gm.games.celestial_empire.mail import Terms
    from gm.kernel import engine
    from gm.kernel.values import Created, PlayerMail, Seat

    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, address, name) for n, (address, name) in
                  enumerate(zip(ADDRESSES, ("Grok", "Winter", "Master")), 1))
    game, _ = engine.create(Created(at, "g1", seats, "standard", Options(), Terms(7), game="celestial-empire"))
    engine.apply(game, PlayerMail(at + timedelta(minutes=1), 3, "resign"))
    assert game.phase == "play" and game.rules.playing(game) == [1, 2]
    again = engine.apply(game, PlayerMail(at + timedelta(minutes=2), 3, "resign"))
    assert [n.template for n in again] == ["reply"]  # resigned already: nobody is told twice
    engine.apply(game, PlayerMail(at + timedelta(minutes=3), 1, "draw"))
    assert game.phase == "play"
    engine.apply(game, PlayerMail(at + timedelta(minutes=4), 2, "draw"))
    assert game.phase == "ended" and game.outcome.reason == "a draw was agreed" and game.outcome.winner is None


def test_a_challenge_by_mail_starts_a_game_of_two_empires_with_its_own_seed(tmp_path):
    from gmtest import BOB, run

    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\ngame celestial-empire\nvariant standard+turns=20")
            (invite,) = world.bob.inbox()
            assert "challenges you to Celestial Empire" in str(invite["Subject"])
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.rules.name == "celestial-empire" and game.variant == "standard+turns=20"
            assert [seat.alias for seat in game.seats] == ["Altair", "Boreas"]
            created = next((tmp_path / "data" / "games" / "g1" / "cur").glob("000001.in.*")).read_text()
            assert re.search(r"^seed: \d+$", created, re.M)
            assert "Celestial Empire game g1: you are Boreas" in text(world.bob.latest())
            return tmp_path / "data" / "games" / "g1"
    archive = run(scenario())
    count, differences = verify_replay(str(archive))
    assert differences == [] and count == 2  # the two first sheets


def test_a_resigned_empire_cannot_win_r84():
    """An empire whose player resigned plays on, but meeting a winning
    condition does not end the game for it; the others still can win."""
    from gm.games.celestial_empire.galaxy import generate
    from gm.games.celestial_empire.report import Report
    from gm.games.celestial_empire.state import new_game
    from gm.games.celestial_empire.variants import variant_named

    state = new_game(generate(7, 3), ["Grok", "Winter", "Master"])
    state.turn = 2  # as run_turn leaves it after turn 1
    state.empires[3].score = 40_000
    variant = variant_named("standard")
    assert variant.result(state, Report(1)) == ("won after turn 1 (Master: score 40000)", [3])
    assert variant.result(state, Report(1), frozenset({3})) is None
    state.empires[1].score = 30_000
    assert variant.result(state, Report(1), frozenset({3})) == ("won after turn 1 (Grok: score 30000)", [1])


def test_when_the_length_runs_out_the_most_among_the_empires_still_played_wins_r84():
    from gm.games.celestial_empire.galaxy import generate
    from gm.games.celestial_empire.report import Report
    from gm.games.celestial_empire.state import new_game
    from gm.games.celestial_empire.variants import variant_named

    state = new_game(generate(7, 3), ["Grok", "Winter", "Master"])
    state.turn = 11  # after turn 10, the last of a ten-turn game
    for empire, score in ((1, 500), (2, 700), (3, 900)):
        state.empires[empire].score = score
    variant = variant_named("standard+turns=10+earth=no+score=no+planets=no")
    assert variant.result(state, Report(10)) == ("won after turn 10 (Master: the most score (900) after turn 10)", [3])
    assert variant.result(state, Report(10), frozenset({3})) == (
        "won after turn 10 (Winter: the most score (700) of the empires still played)", [2])


def test_a_research_order_gm_cannot_read_waits_for_the_operators_answer_r67():
    """A research order the rules leave to the GM goes to the operator
    (`gm show`, the owner's summary), and `gm answer` sends the empire the
    answer, an event of the archive like the operator's other actions."""
    from datetime import datetime

    from gm.games.celestial_empire.mail import Terms
    from gm.kernel import engine
    from gm.kernel.values import Answered, Created, DeadlinePassed, PlayerMail, Seat
    from gm.pbem.operator.admin import describe_game
    from gm.pbem.writing.mailer import body_text

    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, a, name) for n, (a, name) in enumerate(zip(ADDRESSES, ("Grok", "Winter", "Master")), 1))
    game, _ = engine.create(Created(at, "g1", seats, "standard", Options(), Terms(7), game="celestial-empire"))
    state = game.play.state
    state.turn = 10  # a research turn (l.1697)
    research = next(p for _, p in sorted(state.planets.items()) if p.research)
    research.owner = 1
    engine.apply(game, PlayerMail(at, 1, f";RP{research.number} Tell me the secret of the ancients\n"))
    assert game.rules.awaiting_operator(game) == []  # not yet: research runs with the turn
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    (waiting,) = game.rules.awaiting_operator(game)
    assert waiting.startswith("player 1 (Grok): research, turn 10: ;RP") and "ancients" in waiting
    assert describe_game(game)["awaiting_operator"] == [waiting]
    (notice,) = engine.apply(game, Answered(at + timedelta(hours=1), 1, "The ancients left no secret."))
    assert notice.player == 1 and notice.subject == "The GM answers your research order"
    mail = body_text(notice, "gm.games.celestial_empire")
    assert "Tell me the secret of the ancients" in mail and "The ancients left no secret." in mail
    assert game.rules.awaiting_operator(game) == []


def engine_game(variant: str = "standard", **options):
    """Three empires through the kernel alone (no daemon), on galaxy seed 7."""
    from datetime import datetime

    from gm.games.celestial_empire.mail import Terms
    from gm.kernel import engine
    from gm.kernel.values import Created, Seat

    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, a, name) for n, (a, name) in enumerate(zip(ADDRESSES, ("Grok", "Winter", "Master")), 1))
    game, _ = engine.create(Created(at, "g1", seats, variant, Options(**options), Terms(7), game="celestial-empire"))
    return game, at


def test_a_game_that_waits_for_the_deadline_does_not_run_early():
    from gm.kernel import engine
    from gm.kernel.values import DeadlinePassed, PlayerMail

    game, at = engine_game(wait_for_deadline=True)
    for player in (1, 2, 3):
        (reply, *_) = engine.apply(game, PlayerMail(at + timedelta(minutes=player), player, "SCAN200"))
    from gm.pbem.writing.mailer import body_text
    assert "Every empire is in; this game's turns run at the deadline." in body_text(reply, "gm.games.celestial_empire")
    assert game.turn == 1 and game.waiting_for == []  # everyone is in, and it still waits
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert game.turn == 2


def test_research_lines_alone_leave_the_orders_in_force_and_a_resignation_drops_them_r12_r84():
    from gm.kernel import engine
    from gm.kernel.values import PlayerMail

    game, at = engine_game()
    play = game.play
    engine.apply(game, PlayerMail(at, 1, "TURN20\nSCAN200\n"))
    (reply,) = engine.apply(game, PlayerMail(at + timedelta(minutes=1), 1, ";RP200 LINK 201\n"))
    assert [str(o) for o in play.pending[1]] == ["TURN20", "SCAN200"] and play.research[1] == [";RP200 LINK 201"]
    assert "your other orders stand" in " ".join(reply.data["done"])
    engine.apply(game, PlayerMail(at + timedelta(minutes=2), 3, "SCAN200 ; RP200 LINK 201\n"))
    assert play.research[3] == [";RP200 LINK 201"]  # after an order on its line, as the rules read it
    engine.apply(game, PlayerMail(at + timedelta(minutes=3), 3, "resign\n"))
    assert 3 not in play.research and 3 not in play.pending


def test_a_vote_on_the_length_counts_only_in_a_game_whose_length_is_voted_r72():
    from gm.kernel import engine
    from gm.kernel.values import DeadlinePassed, PlayerMail

    game, at = engine_game()  # standard: played until won
    engine.apply(game, PlayerMail(at, 1, "TURN20"))
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    (entry,) = game.play.reports[-1].history[1]
    assert "do not vote on this game's length" in entry.why and game.play.state.empires[1].vote is None
    voted, at = engine_game(variant="standard+voted=30")
    assert voted.play.state.voting
    engine.apply(voted, PlayerMail(at, 1, "TURN20"))
    engine.apply(voted, DeadlinePassed(voted.deadline, voted.deadline))
    assert voted.play.state.empires[1].vote == 20


def test_a_late_reply_to_an_old_sheet_does_not_say_the_turn_runs_now(tmp_path):
    """Issue 22, point 5: orders in reply to turn 1's sheet, come after turn
    1 ran, are not used; the answer said "Every empire is in: the turn runs
    now" although nobody's orders for turn 2 were in and nothing ran."""
    async def scenario():
        async with World(tmp_path) as world:
            ann, bea, cy = await three_empires(world)
            game = world.daemon.master.games["g1"]
            first = ann.latest()
            for player in (ann, bea, cy):
                await world.act(player.reply, f"SCAN{game.play.state.earth}\n")
            assert game.turn == 2
            await world.act(ann.reply, f"SCAN{game.play.state.earth}\n", to=first)
            reply = ann.latest()
            assert "answers turn 1: not used" in str(reply["Subject"])
            assert game.turn == 2 and sorted(game.waiting_for) == [1, 2, 3]
            assert "the turn runs now" not in text(reply)
            said = " ".join(text(reply).split())
            assert "The turn runs when Grok, Winter and Cygnus have sent orders, or at the deadline." in said
            return tmp_path / "data" / "games" / "g1"
    archive = asyncio.run(scenario())
    count, differences = verify_replay(str(archive))
    assert count and differences == []
