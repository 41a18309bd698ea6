"""One vacation for all games, and deputies (issue 24): a player's
``vacation`` at the GM's own address reaches every game they play, each by
its own absence rules, and draws the player's yearly bank once; a deputy
plays the player's seats with a secret of their own."""

from __future__ import annotations

import re
from datetime import timedelta

from gm.kernel.absence import YEAR, bank_used
from gm.kernel.engine import apply, create
from gm.kernel.values import EDITION, Away, Created, Options, Seat
from gm.pbem.archive.events import event_fields, event_message
from gm.pbem.archive.replay import to_event
from gm.pbem.operator.admin import export_mbox, request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM, SETUP_ALICE, SETUP_BOB, START, Player, World, run, shunt_reasons, text

DAY = timedelta(days=1)


def kernel_game(**options):
    game, _ = create(Created(START, "g1", (Seat(1, ALICE, "Player 1"), Seat(2, BOB, "Player 2")), "2.6.1",
                             Options(**options)))
    return game


def test_a_vacation_reaches_a_game_by_its_own_caps_and_back_ends_it():
    game = kernel_game(absence_max=5 * DAY)
    first = game.deadline
    at = START + timedelta(hours=1, microseconds=250)
    notices = apply(game, Away(at, 2, at + 10 * DAY))
    assert game.absent == {2: (at, at + 5 * DAY)}  # the game's own cap: five days at most
    assert game.deadline == at + 5 * DAY
    assert [(n.player, n.subject) for n in notices if n.template == "absence"] == [
        (1, "Player 2 is away until 2026-11-26 13:00 UTC")]
    assert not [n for n in notices if n.player == 2]  # the GM's own address answered the player
    back = at + DAY
    notices = apply(game, Away(back, 2, None))
    assert game.absent == {} and game.absence_used[2] == DAY
    assert game.deadline == first
    assert [(n.player, n.template) for n in notices if n.template == "absence_over"] == [(1, "absence_over")]


def test_an_absence_event_reads_back_from_its_message_as_written():
    for until in (START + 3 * DAY + timedelta(microseconds=7), None):
        event = Away(START + timedelta(microseconds=123), 2, until)
        kind, body = event_fields(event)
        raw = event_message(Identity(GM), kind, event.at, "<x@example.org>", "g1", body)
        assert to_event(raw, "g1") == event


def test_the_bank_counts_the_rolling_year_and_the_part_still_to_come():
    at = START
    assert bank_used([], at) == timedelta(0)
    old = (at - YEAR - 5 * DAY, at - YEAR + 2 * DAY)  # only its last two days fall in the year
    running = (at - DAY, at + 3 * DAY)
    assert bank_used([old, running], at) == 6 * DAY


# One vacation for all games, through the real daemon

def game(world: World, game_id: str):
    return world.daemon.master.games[game_id]


def replays(tmp_path, *games: str) -> None:
    for game_id in games:
        count, differences = verify_replay(str(tmp_path / "data" / "games" / game_id))
        assert count and not differences, (game_id, differences)


async def confirmed(world: World, player: Player, line: str):
    """``player`` writes ``line`` to the GM's own address and confirms it; the GM's answer."""
    confirmation = await world.write_gm(player, line)
    assert str(confirmation["Subject"]).startswith("[gm] Confirm"), str(confirmation["Subject"])
    world.clock.advance(seconds=1.25)
    await world.act(player.reply, "confirm", to=confirmation)
    await world.settle()  # the spooled absence events reach the games
    return player.latest()


def test_a_vacation_reaches_every_game_and_games_started_during_it_and_draws_the_bank_once(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            await world.new_game()
            await world.new_game(absence_max=5 * DAY)
            normal = {g: game(world, g).deadline for g in ("g1", "g2", "g3")}
            confirmation = await world.write_gm(world.bob, "vacation 10d")
            asked = world.clock()
            until = asked + 10 * DAY
            assert str(confirmation["To"]) == BOB and "away until" in text(confirmation)
            assert all(not game(world, g).absent for g in ("g1", "g2", "g3"))  # nothing before the confirmation
            world.clock.advance(seconds=1.25)
            await world.act(world.bob.reply, "confirm", to=confirmation)
            answer = world.bob.latest()
            await world.settle()
            at = world.clock()
            assert str(answer["Subject"]) == "[gm] Your vacation"
            words = " ".join(text(answer).split())
            assert "game g1: away until" in words and "game g2: away until" in words
            assert "game g3: away until" in words and "the most this game allows" in words
            assert "20 days of that is left" in words
            for game_id in ("g1", "g2"):
                start, end = game(world, game_id).absent[2]
                assert end == until and game(world, game_id).deadline == until
                assert start > asked and start <= at
            start, end = game(world, "g3").absent[2]
            assert end == start + 5 * DAY and game(world, "g3").deadline == end  # g3's own cap
            told = [str(m["Subject"]) for m in world.alice.new_mail() if "is away until" in str(m["Subject"])]
            assert len(told) == 3 and all(BOB not in subject for subject in told)
            # A game that starts during the vacation gets it too.
            world.clock.advance(hours=2)
            await world.new_game()
            await world.settle()
            assert game(world, "g4").absent[2][1] == until and game(world, "g4").deadline == until
            listing = await world.write_gm(world.bob, "settings")
            listed = " ".join(text(listing).split())
            assert "vacation away until" in listed and "20 days of 30 days left in this year" in listed
            # under the table's column of values, not broken by the width of the date
            assert "\n" + " " * 20 + "20 days of 30 days left in this year\n" in text(listing), text(listing)
            # back ends it everywhere, and gives back to the bank what was not used.
            world.clock.advance(days=1)
            answer = await confirmed(world, world.bob, "back")
            assert str(answer["Subject"]) == "[gm] Welcome back"
            assert "28 days 21 hours of that is left" in " ".join(text(answer).split())  # a day and two hours used
            for game_id in ("g1", "g2", "g3", "g4"):
                assert game(world, game_id).absent == {}
            assert game(world, "g1").deadline == normal["g1"] and game(world, "g2").deadline == normal["g2"]
            back = [str(m["Subject"]) for m in world.alice.new_mail() if "is back" in str(m["Subject"])]
            assert len(back) == 4
            # The per-game command keeps working as it did.
            await world.act(world.bob.reply, "vacation 2d", to=[m for m in world.bob.inbox()
                                                                if "[gm g2]" in str(m["Subject"])][-1])
            assert 2 in game(world, "g2").absent and 2 not in game(world, "g1").absent
        replays(tmp_path, "g1", "g2", "g3", "g4")

    run(scenario())


def test_a_vacation_past_the_bank_is_refused_and_a_forged_one_changes_nothing(tmp_path):
    async def scenario():
        async with World(tmp_path, vacation_bank=20 * DAY) as world:
            await world.new_game()
            refused = await world.write_gm(world.bob, "vacation 21d")
            assert str(refused["Subject"]) == "[gm] Refused: vacation 21d"
            assert "add up to 20 days in any year" in " ".join(text(refused).split())
            wrong = await world.write_gm(world.bob, "absent until tomorrow")
            assert "is no date or length" in text(wrong)
            forged = await world.write_gm(world.alice, "vacation 10d", from_=BOB)
            assert str(forged["To"]) == BOB  # the confirmation goes to the address claimed, not to the forger
            # The forger cannot confirm it: the reply address's token is Bob's mailbox's alone.
            tagged = str(forged["Reply-To"])
            guessed = re.sub(r"\.1\.[a-z0-9]+@", ".1.aaaaaaaaaaaaaaaa@", tagged)
            raw = (f"From: {BOB}\r\nTo: {guessed}\r\nSubject: Re: confirm\r\nMessage-ID: <f@example.org>\r\n\r\n"
                   "confirm\r\n").encode()
            await world.asend(raw, ALICE, [guessed])
            await world.settle()
            assert game(world, "g1").absent == {} and world.daemon.store.settings.keys() == []
            assert any(b"not a valid confirmation" in reason for reason in shunt_reasons(world))
            nothing = await world.write_gm(world.bob, "back")
            assert "you are not away" in text(nothing)
        replays(tmp_path, "g1")

    run(scenario())


def test_a_vacation_or_a_deputy_beside_settings_in_one_mail_is_refused_whole_and_said_so(tmp_path):
    """`settings` lists the vacation and the deputy among the settings, so a
    player writes them with a setting in one mail; each is confirmed on its
    own, so such a mail is refused with the reason, and nothing of it done,
    rather than the vacation done and the setting dropped unsaid."""
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game()
            for request in ("vacation 5d", "deputy carol@example.com"):
                refused = await world.write_gm(world.bob, f"timezone Europe/Berlin\n{request}")
                assert refused is not None and str(refused["Subject"]) == f"[gm] Refused: {request}"
                words = " ".join(text(refused).split())
                assert "timezone Europe/Berlin" in words and "a mail of its own" in words, words
            assert world.daemon.store.requests.keys() == [] and game(world, "g1").absent == {}
            confirmation = await world.write_gm(world.bob, "vacation 5d")  # alone, it is asked as before
            assert str(confirmation["Subject"]) == "[gm] Confirm your vacation"
        replays(tmp_path, "g1")

    run(scenario())


def test_a_game_made_before_absences_or_with_none_left_is_named_and_left_as_it_was(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            store = world.daemon.store
            key, _ = request_game(store, world.config.identity, [ALICE, BOB], "2.6.1", Options(), world.clock())
            raw = store.spool.get_bytes(key)
            store.spool.remove(key)
            store.spool.add(raw.replace(f"edition: {EDITION}".encode(), b"edition: 1"), key)
            await world.settle()
            await world.new_game()
            await world.new_game(absence_total=timedelta(0))  # a game that allows no absence at all
            assert (game(world, "g1").edition, game(world, "g2").edition) == (1, EDITION)
            answer = " ".join(text(await confirmed(world, world.bob, "vacation 3d")).split())
            assert "game g1: not away: this game was made before absences" in answer
            assert "game g2: away until" in answer
            assert "game g3: not away: your absences in this game are used up" in answer
            assert game(world, "g1").absent == {} and 2 in game(world, "g2").absent
            archive = store.archive("g1")
            assert not [k for k in archive.keys() if b"X-GM-Event: absence" in archive.get_bytes(k)]
        replays(tmp_path, "g1", "g2", "g3")

    run(scenario())


# Deputies, through the real daemon

CAROL = "carol@example.com"


def unsigned(message) -> str:
    """A message's text without the reader's own secret (its password line)."""
    return re.sub(r"password [a-z0-9]{16}", "password *", text(message))


def in_game(player: Player, game_id: str) -> list:
    return [m for m in player.inbox() if f"[gm {game_id}]" in str(m["Subject"])]


async def named_deputy(world: World, player: Player, deputy: Player) -> None:
    """``player`` names ``deputy``, confirms it, and ``deputy`` agrees."""
    confirmation = await world.write_gm(player, f"deputy {deputy.address}")
    assert str(confirmation["Subject"]) == "[gm] Confirm your deputy"
    world.clock.advance(seconds=1.25)
    await world.act(player.reply, "confirm", to=confirmation)
    consent = deputy.latest()
    assert str(consent["Subject"]) == "[gm] Will you be a deputy?" and player.address in text(consent)
    world.clock.advance(seconds=0.5)
    await world.act(deputy.reply, "confirm", to=consent)
    await world.settle()  # the settings events reach the games


def test_a_deputy_plays_the_players_seats_in_every_game_and_gets_their_mail(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            carol = Player(CAROL, world)
            await world.new_game()
            await world.new_game()
            request_game(world.daemon.store, world.config.identity, [BOB, CAROL], "2.6.1", Options(), world.clock())
            await world.settle()
            forged = await world.write_gm(world.alice, f"deputy {ALICE}", from_=BOB)
            assert str(forged["To"]) == BOB  # a forged From is answered to the address it claims only
            await named_deputy(world, world.bob, carol)
            named = " ".join(text(world.bob.latest()).split())
            assert f"{CAROL} agreed to be your deputy" in named and "game g1 game g2" in named
            assert f"game g3: not here, as {CAROL} plays in game g3 already" in named
            assert game(world, "g1").settings_of(2).deputy == CAROL and game(world, "g3").settings_of(1).deputy == CAROL
            # Bob asks for his sheets; his deputy is sent a copy of each, with her own reply address.
            for game_id in ("g1", "g2"):
                await world.act(world.bob.reply, "status", to=in_game(world.bob, game_id)[-1])
                own, copy = in_game(world.bob, game_id)[-1], in_game(carol, game_id)[-1]
                assert str(copy["To"]) == CAROL and unsigned(copy) == unsigned(own) and text(copy) != text(own)
                assert str(copy["Reply-To"]) != str(own["Reply-To"])
                assert str(copy["Message-ID"]) != str(own["Message-ID"])
            assert all(str(m["X-GM-Player"]) == "2" for m in in_game(carol, "g3"))  # her own seat's mail only
            # Her orders count as Bob's, in both games; both are answered.
            await world.act(world.alice.reply, SETUP_ALICE, to=in_game(world.alice, "g1")[-1])
            await world.act(world.alice.reply, SETUP_ALICE, to=in_game(world.alice, "g2")[-1])
            for game_id in ("g1", "g2"):
                await world.act(carol.reply, SETUP_BOB, to=in_game(carol, game_id)[-1])
                assert game(world, game_id).turn == 1 and game(world, game_id).missed == {1: 0, 2: 0}
                assert "Turn 1" in str(in_game(world.bob, game_id)[-1]["Subject"])
                assert unsigned(in_game(carol, game_id)[-1]) == unsigned(in_game(world.bob, game_id)[-1])
            # What may be handed to Bob of his game is his own mail, not his deputy's copies.
            mbox = tmp_path / "bob-g1.mbox"
            export_mbox(world.daemon.store, "g1", str(mbox), player=2)
            assert CAROL.encode() not in mbox.read_bytes() and BOB.encode() in mbox.read_bytes()
            # What only the player may do is refused to the deputy, each with its reason.
            await world.act(carol.reply, "resign\ndraw\naddress dave@example.com", to=in_game(carol, "g1")[-1])
            refused = " ".join(text(in_game(carol, "g1")[-1]).split())
            for why in ("a deputy cannot resign the game for the player", "a deputy cannot offer or accept a draw",
                        "a deputy cannot move the player's seat"):
                assert why in refused
            assert game(world, "g1").phase != "ended" and not game(world, "g1").draw_offers
            # A deputy cannot name a deputy of her own.
            again = await world.write_gm(carol, "deputy dave@example.com")
            assert "a deputy cannot name another deputy" in " ".join(text(again).split())
            # The opponent is never told of the deputy.
            for message in world.alice.inbox():
                assert CAROL not in message.as_string() and "deputy" not in text(message).lower()
            # Either may end it; then the deputy's secret counts no more.
            last = in_game(carol, "g2")[-1]
            ended = await world.write_gm(carol, "deputy off")
            world.clock.advance(seconds=1)
            await world.act(carol.reply, "confirm", to=ended)
            await world.settle()
            assert str(world.bob.latest()["Subject"]) == "[gm] Deputy ended"
            assert "the deputy ended it" in " ".join(text(world.bob.latest()).split())
            assert game(world, "g2").settings_of(2).deputy is None
            turn = game(world, "g2").turn
            await world.act(carol.reply, "Rv1", to=last)
            assert any(b"not proven to come from player 2 of g2" in reason for reason in shunt_reasons(world))
            assert game(world, "g2").turn == turn
        replays(tmp_path, "g1", "g2", "g3")

    run(scenario())
