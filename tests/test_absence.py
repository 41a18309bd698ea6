"""Absence (issue 10, point 7): a player declares it by mail, deadlines that
fall inside it wait, the others are told, and a cap keeps a game from
stalling forever. Through the real daemon, with a clock the test moves."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from random import Random

from gm.kernel.commands import read_mail
from gm.kernel.engine import answered_turn, apply, create
from gm.kernel.values import Created, Options, PlayerMail, Seat
from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, BOB, START, World, run, started_game, text
from test_gridfighters_by_mail import setup_text

DAY = timedelta(days=1)


def game_of(world: World):
    return world.daemon.master.games["g1"]


def subjects(player) -> list[str]:
    return [str(m["Subject"]) for m in player.inbox()]


def flat(message) -> str:
    """A message's text with its lines joined, as wrapping does not matter."""
    return " ".join(text(message).split())


def replays(tmp_path) -> None:
    count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
    assert count and not differences, differences


def test_an_absence_extends_the_deadline_inside_it_and_the_reminder_waits(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = game_of(world)
            assert game.deadline == START + timedelta(hours=72)
            await world.act(world.alice.reply, "Rv1")
            await world.act(world.bob.reply, "vacation 10d")
            answer = text(world.bob.latest())
            assert "vacation: you are away until 2026-12-01 12:00 UTC" in answer
            assert game.deadline == START + 10 * DAY  # the turn waits for Bob
            told = world.alice.latest()
            assert str(told["Subject"]).endswith("Player 2 is away until 2026-12-01 12:00 UTC")
            assert "Player 2 is away until 2026-12-01 12:00 UTC" in text(told)
            assert "Deadline 2026-12-01 12:00 UTC" in text(told)
            assert BOB not in text(told) and BOB not in str(told)
            world.clock.advance(hours=61)  # past the reminder and deadline the turn had
            await world.settle()
            world.clock.advance(hours=12)
            await world.settle()
            assert not any("Reminder" in s for s in subjects(world.bob))
            assert game.turn == 1
            world.clock.now = START + 10 * DAY - timedelta(hours=11)
            await world.settle()
            assert "Reminder" in subjects(world.bob)[-1]  # before the extended deadline
            world.clock.now = START + 10 * DAY
            await world.settle()
            assert game.turn == 2 and game.missed == {1: 0, 2: 1}
            assert game.deadline == START + 10 * DAY + timedelta(hours=72)  # the absence is over
            assert game.absent == {}
        replays(tmp_path)
    run(scenario())


def test_absent_until_a_date_runs_to_the_end_of_that_day(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "absent until 2026-11-30")
            assert "you are away until the end of 2026-11-30 (UTC)" in text(world.alice.latest())
            assert game_of(world).deadline == datetime(2026, 12, 1, tzinfo=UTC)
            assert "Player 1 is away until the end of 2026-11-30 (UTC)" in text(world.bob.latest())
        replays(tmp_path)
    run(scenario())


def test_a_request_past_the_cap_is_refused_with_the_longest_allowed(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            before = len(world.alice.inbox())
            await world.act(world.bob.reply, "vacation 20d")
            answer = flat(world.bob.latest())
            assert "an absence lasts at most 14 days" in answer and "add up to at most 28 days" in answer
            assert "the longest you may ask for now is 14 days, until 2026-12-05 12:00 UTC" in answer
            assert "(vacation 14d, or absent until 2026-12-04)" in answer
            assert game_of(world).deadline == START + timedelta(hours=72)
            assert len(world.alice.inbox()) == before  # nothing to tell
            await world.act(world.bob.reply, "absent until 2026-12-04")
            assert game_of(world).deadline == datetime(2026, 12, 5, tzinfo=UTC)
        replays(tmp_path)
    run(scenario())


def test_the_total_cap_counts_every_absence_in_the_game(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(absence_max=3 * DAY, absence_total=5 * DAY)
            await world.act(world.alice.reply, "vacation 3d")
            world.clock.advance(days=4)
            await world.settle()
            await world.act(world.alice.reply, "vacation 3d")
            answer = flat(world.alice.latest())
            assert "an absence lasts at most 3 days, and your absences in this game add up to at most 5 days" in answer
            assert "the longest you may ask for now is 2 days" in answer
            await world.act(world.alice.reply, "vacation 48h")
            assert "you are away until" in text(world.alice.latest())
            world.clock.advance(days=2)
            await world.settle()
            await world.act(world.alice.reply, "vacation 1h")
            assert "you have used them all" in flat(world.alice.latest())
        replays(tmp_path)  # the options are in the creation event
    run(scenario())


def test_back_ends_the_absence_and_the_deadline_returns_to_normal(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = game_of(world)
            await world.act(world.bob.reply, "vacation 10d")
            assert game.deadline == START + 10 * DAY
            world.clock.advance(hours=5)
            await world.act(world.bob.reply, "back")
            assert "back: welcome back" in text(world.bob.latest())
            assert game.deadline == START + timedelta(hours=72)
            assert "Deadline 2026-11-24 12:00 UTC" in text(world.bob.latest())
            assert str(world.alice.latest()["Subject"]).endswith("Player 2 is back")
            await world.act(world.bob.reply, "absent cancel")
            assert "you were not away" in text(world.bob.latest())
            world.clock.now = START + timedelta(hours=72)
            await world.settle()
            assert game.turn == 2
        replays(tmp_path)
    run(scenario())


def test_help_lists_the_absence_commands(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            await world.act(world.alice.reply, "help")
            sheet = text(world.alice.latest())
            assert "absent until YYYY-MM-DD" in sheet and "vacation 10d" in sheet and "absent cancel" in sheet
            assert sheet.index("absent cancel") < sheet.index("  help\n")
    run(scenario())


def test_an_absence_in_grid_fighters_waits_for_the_absent_players_move(tmp_path):
    async def scenario():
        rng = Random(7)
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters", variant="standard", deadline=timedelta(hours=48))
            await world.act(world.alice.reply, setup_text(1, rng))
            await world.act(world.bob.reply, setup_text(2, rng))
            game = game_of(world)
            mover = game.play.grid.to_move
            players = {1: world.alice, 2: world.bob}
            other = 3 - mover
            normal = game.deadline
            await world.act(players[other].reply, "vacation 5d")  # not their move: nothing waits yet
            assert game.deadline == normal
            assert "is away until" in text(players[mover].latest())
            from gm.games.gridfighters.bot import random_move
            move = random_move(game.play.grid, mover, rng)
            world.clock.advance(hours=1)
            await world.act(players[mover].reply, f"{move.piece} {move.frm}-{move.to}\n")
            assert game.play.grid.to_move == other
            assert game.deadline == START + 5 * DAY  # the absent player's move waits
            world.clock.advance(days=3)
            await world.settle()
            assert game.play.grid.to_move == other and game.play.grid.moves == 1
            world.clock.now = START + 5 * DAY
            await world.settle()
            assert game.play.grid.to_move == mover  # the move passed at the extended deadline
            assert game.deadline == START + 5 * DAY + timedelta(hours=48)
        replays(tmp_path)
    run(scenario())


def test_edition_1_games_answer_absent_as_before():
    at = datetime(2026, 11, 21, tzinfo=UTC)
    seats = (Seat(1, ALICE, "Player 1"), Seat(2, BOB, "Player 2"))
    for edition, understood in ((1, False), (2, True)):
        game, _ = create(Created(at, "g1", seats, "2.6.1", Options(), edition=edition))
        notices = apply(game, PlayerMail(at, 2, "absent until 2026-11-30\n"))
        reply = notices[0].data
        assert (not reply["not_understood"]) == understood, reply
        assert (game.deadline == datetime(2026, 12, 1, tzinfo=UTC)) == understood
    assert read_mail("back\n", lambda word: False).not_understood  # not a command of the kernel's own


def test_replacing_a_long_absence_by_a_short_one_does_not_keep_the_long_extension(tmp_path):
    from datetime import timedelta

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            normal = game.deadline
            await world.act(world.alice.reply, "vacation 14d")
            assert game.deadline > normal + timedelta(days=10)
            world.clock.advance(minutes=5)
            await world.act(world.alice.reply, "vacation 1h")  # "a new absence replaces the one running"
            used = game.absence_used.get(1, timedelta(0))
            assert used < timedelta(hours=1)
            # the allowance spent is minutes, yet the deadline stays two weeks away:
            assert game.deadline <= max(normal, world.clock() + timedelta(hours=13)), (game.deadline, normal, used)
    run(scenario())


def test_an_absence_far_too_long_is_refused_in_words_not_a_failed_mail(tmp_path):
    """`vacation 99999999999d` overflowed a timedelta and a length of 5,000
    digits passed Python's limit on int(): the whole mail failed (issue 21,
    row 6). It is refused as too long, and the mail's other lines stand."""
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            for length in ("99999999999d", "9" * 5000 + "h"):
                await world.act(world.bob.reply, f"vacation {length}\nRv1")
                answer = flat(world.bob.latest())
                assert "refused: until 9999-12-31 23:59 UTC is too long" in answer, answer
                assert "your orders for turn 1" in answer
            assert game_of(world).absent == {}
        replays(tmp_path)
    run(scenario())


def test_a_subject_or_reference_with_a_huge_turn_number_is_read_as_no_turn():
    """The turn a mail answers is read from its subject and In-Reply-To. The
    edge cuts a subject to 200 characters and takes only a well-formed
    Message-ID, but the engine is pure and takes any PlayerMail: a number
    past Python's limit on int() must read as no turn, not raise."""
    game, _ = create(Created(START, "g1", (Seat(1, ALICE, "Player 1"), Seat(2, BOB, "Player 2")), "2.6.1", Options()))
    huge = "9" * 5000
    assert answered_turn(game, PlayerMail(START, 2, "Rv1", subject=f"Re: turn {huge}")) is None
    assert answered_turn(game, PlayerMail(START, 2, "Rv1", in_reply_to=f"<g1.{huge}.1@example.org>")) is None
    assert answered_turn(game,
                         PlayerMail(START, 2, "Rv1", subject="Re: [gm g1] Turn 2 results; orders for turn 3")) == 3
