"""The operator's controls, through the real daemon on loopback SMTP: pause,
resume, a new deadline, a seat's new address, cancelling, the shunt, the
same by mail from the owner (confirmed by a reply), and the daily summary.
Every action is an event in the game's archive: `gm replay` rebuilds each
game byte for byte after each kind."""

from __future__ import annotations

from datetime import UTC, timedelta

from gm.cli import main
from gm.kernel.values import ENDED, AddressReplaced, Cancelled, DeadlineSet, Paused, Resumed
from gm.pbem.answers.owner import QUESTION_WORDS
from gm.pbem.intake.limits import Limits
from gm.pbem.operator.actions import check_action, request_action
from gm.pbem.operator.admin import verify_replay
from gmtest import ALICE, BOB, GM, Player, World, run, shunt_reasons, started_game, text

OWNER = "owner@example.org"
CAROL = "carol@example.com"


async def operator(world: World, game: str, event) -> None:
    """What `gm pause` and the rest do (check, then spool the event for the
    daemon), on the test's clock; then let the daemon apply it."""
    assert check_action(world.daemon.master.games, game, event) is None
    request_action(world.daemon.store, world.config.identity, game, event)
    await world.settle()


def replayed(world: World, game: str = "g1") -> int:
    count, differences = verify_replay(str(world.daemon.store.games_dir / game))
    assert differences == []
    return count


def subjects(player: Player) -> list[str]:
    return [str(m["Subject"]) for m in player.inbox()]


def test_pause_stops_the_clock_and_resume_starts_the_deadline_again(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            await operator(world, "g1", Paused(world.clock()))
            assert game.paused is not None and game.deadline is None
            for player in (world.alice, world.bob):
                assert player.latest()["Subject"] == "[gm g1] The game is paused"
                assert "no deadline runs" in player.latest_text()
            count = len(world.alice.inbox())
            world.clock.advance(hours=200)  # far past the old deadline: nothing fires
            await world.settle()
            assert len(world.alice.inbox()) == count and game.turn == 1 and game.missed == {1: 0, 2: 0}
            await world.act(world.alice.reply, "Rv1")  # players may still write
            assert "Deadline" not in world.alice.latest_text()
            resumed_at = world.clock()
            await operator(world, "g1", Resumed(resumed_at))
            assert game.paused is None and game.deadline == resumed_at + timedelta(hours=72)
            assert world.bob.latest()["Subject"] == "[gm g1] The game goes on"
            assert f"the new\ndeadline is {game.deadline:%Y-%m-%d %H:%M} UTC" in world.bob.latest_text()
            world.clock.advance(hours=73)
            await world.settle()
            assert game.turn == 2 and game.missed[2] == 1  # the deadline ran, without Bob's orders
            assert ALICE not in world.bob.latest_text() and BOB not in world.alice.latest_text()
            replayed(world)
    run(scenario())


def test_the_deadline_is_set_or_extended_and_the_players_told(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            old = game.deadline
            await operator(world, "g1", DeadlineSet(world.clock(), extend=timedelta(hours=24)))
            assert game.deadline == old + timedelta(hours=24)
            assert world.alice.latest()["Subject"] == "[gm g1] The deadline has moved"
            assert (f"it was {old:%Y-%m-%d %H:%M} UTC, it is now {game.deadline:%Y-%m-%d %H:%M} UTC"
                    in world.alice.latest_text())
            world.clock.advance(hours=73)  # the old deadline passes: nothing happens
            await world.settle()
            assert game.turn == 1
            at = world.clock() + timedelta(hours=2)
            await operator(world, "g1", DeadlineSet(world.clock(), deadline=at))
            assert game.deadline == at
            world.clock.advance(hours=2)
            await world.settle()
            assert game.turn == 2
            replayed(world)
    run(scenario())


def test_a_seat_gets_a_new_address_and_the_old_one_is_refused(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            old_sheet = world.bob.latest()
            await operator(world, "g1", AddressReplaced(world.clock(), 2, CAROL))
            carol = Player(CAROL, world)
            welcome, sheet = carol.inbox()
            assert welcome["Subject"] == "[gm g1] You now play Player 2"
            assert "Turn 1: your sheet" in str(sheet["Subject"])
            assert str(welcome["Reply-To"]) != str(old_sheet["Reply-To"])  # a token of her own
            assert not any(CAROL in text(m) or CAROL in str(m["To"]) for m in world.alice.inbox())
            await world.act(world.bob.reply, "Bz5", to=old_sheet)  # the old address, with its old token
            assert game.waiting_for == [1, 2] and b"the operator replaced" in b"".join(shunt_reasons(world))
            await world.act(carol.reply, "Bz5")
            assert game.waiting_for == [1]
            await world.act(world.alice.reply, "Rv1")
            assert game.turn == 2 and "strike Bz5" in carol.latest_text()
            replayed(world)
    run(scenario())


def test_a_cancelled_game_ends_with_no_winner_and_everyone_is_told_why(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            await operator(world, "g1", Cancelled(world.clock(), "Player 2 has left the club"))
            assert game.phase == ENDED and game.outcome.winner is None and game.deadline is None
            for player in (world.alice, world.bob):
                assert player.latest()["Subject"] == "[gm g1] The game is cancelled"
                assert "Player 2 has left the club" in player.latest_text()
            world.clock.advance(hours=100)
            await world.act(world.alice.reply, "Rv1")
            assert "the game is over" in world.alice.latest_text()
            assert game.phase == ENDED
            replayed(world)
    run(scenario())


def test_refused_actions_are_answered_and_change_nothing(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            data = world.config.data
            game = world.daemon.master.games["g1"]
            spooled = len(world.daemon.store.spool.keys())
            for argv, said in [
                (["resume", "g1"], "game g1 is not paused"),
                (["pause", "g9"], "no game g9"),
                (["deadline", "g1", "--at", "2001-01-01T00:00Z"], "is not in the future"),
                (["deadline", "g1", "--extend", "soon"], "give a number and a unit"),
                (["deadline", "g1"], "give either --at"),
                (["replace", "g1", "--player", "2", "--address", ALICE], "already plays in game g1"),
                (["replace", "g1", "--player", "3", "--address", CAROL], "has no player 3"),
                (["cancel", "g1", "--reason", "  "], "say why the game is cancelled"),
            ]:
                assert main([*argv, "--data", data]) == 2, argv
                assert said in capsys.readouterr().err, argv
            assert len(world.daemon.store.spool.keys()) == spooled
            # The daemon checks again: an action the game cannot take goes to the shunt.
            request_action(world.daemon.store, world.config.identity, "g1", Resumed(world.clock()))
            await world.settle()
            assert b"the operator's resume of g1 was not done: game g1 is not paused" in b"".join(shunt_reasons(world))
            assert game.events == 3 and game.paused is None
            assert main(["pause", "g1", "--data", data]) == 0  # and the command line spools what it may
            assert "pause of g1 requested" in capsys.readouterr().out
            await world.settle()
            assert game.paused is not None
            replayed(world)
    run(scenario())


def test_shunted_mail_is_listed_shown_released_and_discarded(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path, limits=Limits(replies_per_day=2)) as world:
            await world.new_game()
            data = world.config.data
            await world.act(world.alice.reply, "status")
            await world.act(world.alice.reply, "help")
            await world.act(world.alice.reply, "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n")
            raw = (f"From: stranger@example.com\r\nTo: {GM}\r\nSubject: hello\r\nMessage-ID: "
                   "<s@example.com>\r\n\r\nhi\r\n")
            await world.asend(raw.encode(), "stranger@example.com", [GM])
            await world.settle()
            store = world.daemon.store
            (capped,) = [k for k in store.shunt.keys() if b"more than 2 mails" in store.shunt.get_bytes(k)]
            (stranger,) = [k for k in store.shunt.keys() if k != capped]
            assert main(["shunt", "list", "--data", data]) == 0
            listing = capsys.readouterr().out
            assert capped in listing and "more than 2 mails today" in listing and "stranger@example.com" in listing
            assert main(["shunt", "show", stranger[-8:], "--data", data]) == 0
            assert "Subject: hello" in capsys.readouterr().out
            assert main(["shunt", "release", "nonesuch", "--data", data]) == 2
            assert "nothing in the shunt is called 'nonesuch'" in capsys.readouterr().err
            assert main(["shunt", "discard", stranger, "--data", data]) == 0
            world.clock.advance(days=1)  # a new day's allowance: the setup goes through now
            assert main(["shunt", "release", capped, "--data", data]) == 0
            assert "spooled again" in capsys.readouterr().out
            await world.settle()
            assert store.shunt.keys() == []
            assert "Setup accepted" in str(world.alice.latest()["Subject"])
            assert world.daemon.master.games["g1"].waiting_for == [2]
            replayed(world)
    run(scenario())


def owner_mail(lines: str, sender: str = OWNER, message_id: str = "<req@example.org>") -> bytes:
    return (f"From: {sender}\r\nTo: {GM}\r\nSubject: orders\r\nMessage-ID: {message_id}\r\n\r\n"
            + lines.replace("\n", "\r\n") + "\r\n").encode()


def test_the_owner_acts_by_mail_once_a_reply_confirms_it(tmp_path):
    async def scenario():
        async with World(tmp_path, owner=OWNER) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            owner = Player(OWNER, world)
            await world.asend(owner_mail("pause g1", sender="mallory@evil.example"), "mallory@evil.example", [GM])
            await world.settle()
            assert game.paused is None and owner.inbox() == []  # not the owner: no action, nothing sent
            await world.asend(owner_mail("pause g1\ndeadline g1 tomorrow\nresume g2\nshunt list"), OWNER, [GM])
            await world.settle()
            asked = owner.latest()
            assert game.paused is None and str(asked["Subject"]) == "[gm] Confirm: pause g1"
            body = text(asked)
            assert "    pause g1\n" in body and "reply to this mail with the line\n\n    confirm" in body
            assert "line 2: deadline g1 tomorrow: 'tomorrow': give the moment as" in body
            assert "line 3: resume g2: no game g2" in body
            assert "The shunt:\n  " in body and "from mallory@evil.example" in body  # her mail named no game
            forged = (f"From: mallory@evil.example\r\nTo: {asked['Reply-To']}\r\nSubject: Re: confirm\r\n"
                      f"Message-ID: <forged@evil.example>\r\n\r\nconfirm\r\n").encode()
            await world.asend(forged, "mallory@evil.example", [str(asked["Reply-To"])])  # her own From
            await world.settle()
            assert game.paused is None
            await world.act(owner.reply, "confirm", to=asked)
            await world.settle()  # the action was spooled for the daemon: it runs next
            assert game.paused is not None
            assert "Done:\n    pause g1 (the players are told)" in owner.latest_text()
            assert world.alice.latest()["Subject"] == "[gm g1] The game is paused"
            await world.act(owner.reply, "confirm", to=asked)  # done once only
            await world.settle()
            assert sum("The game is paused" in s for s in subjects(world.alice)) == 1
            assert OWNER not in "".join(text(m) + str(m["To"]) for m in world.alice.inbox() + world.bob.inbox())
            replayed(world)
    run(scenario())


def test_an_auto_reply_that_quotes_the_question_without_a_mark_confirms_nothing(tmp_path):
    """An out-of-office answer from the owner's own address, with no
    Auto-Submitted header, that copies the question's body unquoted (its
    'confirm' line too) is not taken for the owner's confirmation; a real
    reply that quotes the question with '>' is."""
    async def scenario():
        async with World(tmp_path, owner=OWNER) as world:
            await started_game(world)
            game = world.daemon.master.games["g1"]
            owner = Player(OWNER, world)
            await world.asend(owner_mail("pause g1"), OWNER, [GM])
            await world.settle()
            asked = owner.latest()
            question = text(asked)
            assert QUESTION_WORDS in " ".join(question.split())
            await world.act(owner.reply, "I am away until Monday.\n\n" + question, to=asked)
            assert game.paused is None
            assert any(b"taken for an auto-reply" in reason for reason in shunt_reasons(world))
            quoted = "\n".join("> " + line for line in question.splitlines())
            await world.act(owner.reply, "confirm\n\nOn Monday the GM wrote:\n" + quoted, to=asked)
            await world.settle()
            assert game.paused is not None
    run(scenario())


def test_the_owner_gets_one_summary_a_day_even_across_a_restart(tmp_path):
    async def scenario():
        async with World(tmp_path, owner=OWNER) as world:
            await started_game(world)
            owner = Player(OWNER, world)
            world.clock.advance(minutes=5)
            await world.settle()
            assert owner.inbox() == []  # nothing needs attention: no mail
            await world.asend(owner_mail("hello", sender="stranger@example.com"), "stranger@example.com", [GM])
            await operator(world, "g1", Paused(world.clock()))
            world.clock.advance(minutes=5)
            await world.settle()
            (summary,) = owner.inbox()
            assert str(summary["Subject"]).startswith("[gm] What needs attention, 2026-11-2")
            body = text(summary)
            assert "Shunted mail (1)" in body and "g1: paused since" in body
            await world.asend(owner_mail("again", sender="stranger@example.com", message_id="<2@x>"),
                              "stranger@example.com", [GM])
            world.clock.advance(minutes=5)
            await world.settle()
            assert len(owner.inbox()) == 1
            now = world.clock()
        again = World(tmp_path, owner=OWNER)
        again.clock.now = now + timedelta(minutes=5)
        async with again:
            await again.settle()
            owner = Player(OWNER, again)
            assert len(owner.inbox()) == 1  # a restart sends no second one that day
            again.clock.advance(days=1)
            await again.settle()
            assert len(owner.inbox()) == 2 and "Shunted mail (2)" in owner.latest_text()
    run(scenario())


def test_the_commands_as_processes_against_a_running_daemon(tmp_path):
    """`gm serve` and `gm pause`, `resume`, `deadline`, `cancel` as the
    installed program, on the real clock; then `gm replay`."""
    import signal
    import subprocess
    import sys

    from gmprocess import free_port, gm, inbox, listening, wait_for

    data, port = tmp_path / "data", free_port()
    daemon = subprocess.Popen([sys.executable, "-P", "-m", "gm", "serve", "--data", str(data), "--smtp",
                               f"127.0.0.1:{port}", "--address", GM], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    try:
        wait_for("gm serve to listen", lambda: listening(port) or daemon.poll() is not None)
        assert daemon.poll() is None
        where = ["--data", str(data), "--address", GM]
        assert gm("new", *where, "--player", ALICE, "--player", BOB, cwd=tmp_path).returncode == 0
        wait_for("the invitations", lambda: inbox(data, BOB))

        def told(subject: str) -> None:
            wait_for(subject, lambda: all(any(str(m["Subject"]) == f"[gm g1] {subject}" for m in inbox(data, who))
                                          for who in (ALICE, BOB)))

        assert gm("pause", "g1", *where, cwd=tmp_path).returncode == 0
        told("The game is paused")
        refused = gm("deadline", "g1", "--extend", "24h", *where, cwd=tmp_path)
        assert refused.returncode == 2 and "is paused: resume it first" in refused.stderr
        assert gm("resume", "g1", *where, cwd=tmp_path).returncode == 0
        told("The game goes on")
        assert gm("deadline", "g1", "--extend", "24h", *where, cwd=tmp_path).returncode == 0
        told("The deadline has moved")
        assert gm("cancel", "g1", "--reason", "a test", *where, cwd=tmp_path).returncode == 0
        told("The game is cancelled")
        shown = gm("games", "--data", str(data), cwd=tmp_path)
        assert "g1" in shown.stdout and "ended" in shown.stdout
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.communicate(timeout=30)
    replay = gm("replay", str(data / "games" / "g1"), cwd=tmp_path)
    assert replay.returncode == 0 and "all identical" in replay.stdout


def test_a_substitute_player_is_not_sent_the_replaced_players_address(tmp_path):
    from gm.kernel.values import AddressReplaced
    from gm.pbem.operator.actions import request_action
    from gmtest import ALICE, Player

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            request_action(world.daemon.store, world.config.identity, "g1",
                           AddressReplaced(world.clock(), 1, "carol@example.com"))
            await world.settle()
            carol = Player("carol@example.com", world)
            await world.act(carol.reply, "resign")
            final = [m for m in carol.inbox() if m.is_multipart() and list(m.iter_attachments())][-1]
            (attachment,) = final.iter_attachments()
            mailbox = attachment.get_content()  # the player's record, as text, from edition 5 (issue 22)
            if isinstance(mailbox, str):
                mailbox = mailbox.encode()
            assert ALICE.encode() not in mailbox, "the final mailbox names the replaced player's address"
    run(scenario())


def test_the_operator_answers_a_player_and_the_answer_is_an_event_of_the_archive(tmp_path):
    from gm.kernel.values import Answered

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            assert check_action(world.daemon.master.games, "g1", Answered(world.clock(), 3, "hi")) == \
                "game g1 has no player 3: its players are 1 to 2"
            assert check_action(world.daemon.master.games, "g1", Answered(world.clock(), 1, "  ")) is not None
            await operator(world, "g1", Answered(world.clock(), 1, "Your question about the rules: yes, "
                                                                    "a kamikaze may strike its own ship."))
            answer = world.alice.latest()
            assert str(answer["Subject"]) == "[gm g1] The GM answers you"
            assert "a kamikaze may strike its own ship" in text(answer)
            assert "The GM answers" not in " ".join(subjects(world.bob))  # to that player only
            assert replayed(world) > 5
    run(scenario())


def test_gm_answer_from_the_command_line_refuses_what_cannot_be_done(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            return world.config.data
    data = run(scenario())
    assert main(["answer", "g1", "--data", data, "--player", "2", "--text", "no"]) == 0
    assert "answer of g1 requested" in capsys.readouterr().out
    assert main(["answer", "g9", "--data", data, "--player", "2", "--text", "no"]) == 2
    assert "no game g9" in capsys.readouterr().err


def test_the_owner_writes_an_answer_as_a_line():
    from datetime import datetime

    from gm.kernel.values import Answered
    from gm.pbem.operator.actions import read_action

    at = datetime(2026, 11, 24, 1, 0, 0, 500_000, tzinfo=UTC)
    action = read_action("answer g1 2  The planet finds nothing new.", at)
    assert (action.game, action.event) == ("g1", Answered(at, 2, "The planet finds nothing new."))
    for wrong in ("answer g1", "answer g1 two hello", "answer g1 2"):
        try:
            read_action(wrong, at)
        except ValueError as error:
            assert "answer GAME PLAYER TEXT" in str(error)
        else:
            raise AssertionError(wrong)
