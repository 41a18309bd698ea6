"""The kernel against a tiny game of its own, with three seats: it knows no game.

"Tally" is simultaneous: every seat sends a number each turn; the turn runs
when all are in (or at the deadline, counting nothing for the missing), and
the game ends when the total reaches 10. It has no templates of its own, so
its mail is rendered by the kernel's. Everything the kernel does for any
game (press, draws, resignation, deadlines, forfeits, routing by seat,
replay) is tried here with three seats, so nothing of two-seat Spaceships can
hide in it. "Relay" is its alternating variant, with a setup phase, for the
lifecycle (`gm.kernel.lifecycle`): the start, moves, passes and forfeits,
absences, a pause, observers.

Both are written from `gm.kernel.protocol` alone: the ten abstract hooks
of `GameRules`, the kernel's defaults for the rest, and the values of
`gm.kernel.values`; nothing here touches the kernel's bookkeeping.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import pytest

from gm.kernel import engine
from gm.kernel.effects import SendGamesList
from gm.kernel.model import MailGame
from gm.kernel.outcomes import Did, Submitted, Turn
from gm.kernel.protocol import REGISTRY, GameRules, Table, TurnPolicy, game_named
from gm.kernel.registry import Registry
from gm.kernel.values import (
    ENDED,
    PLAY,
    SETUP,
    Cancelled,
    Created,
    DeadlinePassed,
    EndKind,
    GameEnd,
    Notice,
    Options,
    Paused,
    PlayerMail,
    Reply,
    Resumed,
    Seat,
)
from gm.pbem.operator.admin import request_game, verify_replay
from gmtest import START, World, run, text


@dataclass
class Tally:
    total: int = 0
    turn: int = 1
    pending: dict[int, int] = field(default_factory=dict)


class TallyGame(GameRules):
    name = "tally"
    title = "Tally"
    seats = range(2, 10)
    default_variant = "ten"
    templates = "gm"
    has_setup = False

    def describe_variant(self, variant: str) -> str:
        if variant != "ten":
            raise ValueError(f"unknown Tally variant {variant!r}")
        return "Tally to ten"

    def new_play(self, game: Table, terms: Any) -> Tally:
        return Tally()

    def invitations(self, game: Table, at: datetime) -> list[Notice]:
        return [Notice(p, "reply", "Invitation", self._data(game, p, at, ["send a number"])) for p in game.players]

    def _data(self, game: Table, player: int, at: datetime | None, done: list[str]) -> dict[str, Any]:
        return self.common(game, player, at) | {"done": done, "not_understood": [], "ignored": []}

    keywords = ("total",)

    def command(self, game: Table, event: PlayerMail, command, reply: Reply) -> list[Notice]:
        reply.done.append(f"line {command.line}: the total is {game.play.total}")
        return []

    def is_notation(self, first_word: str) -> bool:
        return first_word.isdigit()

    def submit(self, game: Table, event: PlayerMail, mail, reply: Reply) -> Submitted:
        game.play.pending[event.player] = int(mail.notation.split()[0])
        reply.done.append(f"your number for turn {game.play.turn}")
        return Submitted(Did.ACCEPTED)

    def run(self, game: Table, at: datetime, missing: list[int]) -> Turn:
        play: Tally = game.play
        play.total += sum(play.pending.values())
        play.pending.clear()
        play.turn += 1
        if play.total >= 10:
            return self._final(game, at,
                               GameEnd(EndKind.RULES, play.turn - 1, clause=f"the total reached {play.total}"))
        return Turn(lambda: [Notice(p, "reply", f"Turn {play.turn - 1}",
                                    self._data(game, p, at, [f"the total is {play.total}"]))
                             for p in game.players])

    def waiting_for(self, game: Table) -> list[int]:
        return [p for p in game.players if p not in game.play.pending]

    def turn(self, game: Table) -> int:
        return game.play.turn

    def help_data(self, game: Table, player: int, at: datetime) -> dict[str, Any]:
        return self.common(game, player, at) | {"commands": [("7", "add seven")], "notation": []}

    def status(self, game: Table, player: int, at: datetime) -> Notice:
        return Notice(player, "reply", "Status", self._data(game, player, at, [f"the total is {game.play.total}"]))

    def history(self, game: Table, player: int, at: datetime) -> dict[str, Any]:
        return self._data(game, player, at, [])

    def end(self, game: Table, at: datetime, end: GameEnd) -> Turn:
        return self._final(game, at, replace(end, after_turn=game.play.turn - 1))

    def _final(self, game: Table, at: datetime, end: GameEnd) -> Turn:
        return Turn(lambda: [Notice(p, "reply", "The game is over", self._data(game, p, at, [f"over: {end.reason}"]))
                             for p in game.players], end)


@dataclass
class Relay:
    stakes: dict[int, int] = field(default_factory=dict)
    total: int = 0
    moves: int = 0
    to_move: int = 1


class RelayGame(TallyGame):
    """Tally's alternating variant, with a setup: each seat stakes a number,
    then the seats add theirs in turn, one a mail, to ten. It writes no
    `start`: the kernel's default sends each seat its sheet."""

    name = "relay"
    title = "Relay"
    policy = TurnPolicy.ALTERNATING
    has_setup = True
    turn_word = "move"

    def new_play(self, game: Table, terms: Any) -> Relay:
        return Relay()

    def submit(self, game: Table, event: PlayerMail, mail, reply: Reply) -> Submitted:
        play: Relay = game.play
        number = int(mail.notation.split()[0])
        if game.phase == SETUP:
            play.stakes[event.player] = number
            reply.done.append("your stake")
            return Submitted(Did.ACCEPTED)
        if play.to_move != event.player:
            reply.ignored.append("not your move")
            return Submitted(Did.REJECTED)
        play.total += number
        play.moves += 1
        play.to_move = play.to_move % len(game.seats) + 1
        reply.done.append(f"your move {play.moves}")
        return Submitted(Did.ACCEPTED)

    def run(self, game: Table, at: datetime, missing: list[int]) -> Turn:
        play: Relay = game.play
        if missing:
            play.to_move = play.to_move % len(game.seats) + 1
            return Turn(lambda: [Notice(p, "reply", f"Move passed to {play.to_move}", self._data(game, p, at, []))
                                 for p in game.players])
        if play.total >= 10:
            mover = (play.to_move - 2) % len(game.seats) + 1
            return self._final(game, at, GameEnd(EndKind.RULES, play.moves, (mover,), clause=f"{play.total} reached"))
        return Turn(lambda: [Notice(p, "reply", f"Move {play.moves}", self._data(game, p, at, [f"total {play.total}"]))
                             for p in game.players])

    def waiting_for(self, game: Table) -> list[int]:
        play: Relay = game.play
        return [p for p in game.players if p not in play.stakes] if game.phase == SETUP else [play.to_move]

    def turn(self, game: Table) -> int:
        return 0 if game.phase == SETUP else game.play.moves + 1

    def end(self, game: Table, at: datetime, end: GameEnd) -> Turn:
        return self._final(game, at, replace(end, after_turn=game.play.moves))


REGISTRY.register(TallyGame())
REGISTRY.register(RelayGame())
SEATS = (Seat(1, "ann@example.org", "Ann"), Seat(2, "bea@example.org", "Bea"), Seat(3, "cy@example.org", "Cy"))


def three(game_name: str = "tally", observers: tuple[str, ...] = (), **options) -> MailGame:
    game, notices = engine.create(Created(START, "g1", SEATS, "ten", Options(**options), game=game_name,
                                          observers=observers))
    assert [(n.player, n.observer) for n in notices] == ([(1, 0), (2, 0), (3, 0)]
                                                         + [(0, 1 + n) for n in range(len(observers))])
    return game


def mail(game: MailGame, player: int, text: str, minutes: int = 1) -> list[Notice]:
    return engine.apply(game, PlayerMail(START + timedelta(minutes=minutes), player, text))


def test_the_registry_names_the_games_and_refuses_others():
    assert game_named("Tally").title == "Tally" and game_named("gridfighters").title == "Grid Fighters"
    with pytest.raises(ValueError, match="no game 'chess'"):
        game_named("chess")


def test_a_message_goes_to_every_other_seat_naming_its_sender():
    game = three()
    notices = mail(game, 2, "message hello all")
    press = [n for n in notices if n.template == "press"]
    assert [n.player for n in press] == [1, 3] and all(n.data["sender"] == "Bea" for n in press)
    assert "passed to Ann and Cy" in notices[0].data["done"][0]


def test_a_games_own_command_reaches_it_and_a_typo_of_it_is_named():
    game = three()
    mail(game, 1, "4")
    reply = mail(game, 2, "TOTAL\ntotl")[0]
    assert reply.data["done"] == ["line 1: the total is 0"]
    assert reply.data["not_understood"] == ["line 2: 'totl': did you mean 'total'?"]


def test_a_turn_runs_only_when_every_seat_is_in():
    game = three()
    mail(game, 1, "3")
    mail(game, 2, "3")
    assert game.waiting_for == [3] and game.play.total == 0
    notices = mail(game, 3, "1")
    assert game.play.total == 7 and [n.player for n in notices if n.subject == "Turn 1"] == [1, 2, 3]


def test_a_draw_needs_every_seat():
    game = three()
    mail(game, 1, "draw")
    notices = mail(game, 2, "draw")
    assert game.phase == PLAY and "stands until" in notices[0].data["done"][0]
    assert [n.player for n in notices if n.template == "draw_offer"] == [1, 3]
    mail(game, 3, "draw")
    assert game.phase == ENDED and game.outcome.reason == "a draw was agreed" and game.outcome.winner is None


def test_missed_deadlines_forfeit_only_the_seat_that_missed_them():
    game = three(deadline=timedelta(hours=1), forfeit_after=2)
    for turn in range(2):
        mail(game, 1, "1", minutes=turn * 60 + 1)
        mail(game, 2, "1", minutes=turn * 60 + 2)
        engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert game.phase == ENDED and game.outcome.reason == "Cy sent nothing for 2 turns in a row and forfeits"
    assert game.outcome.winner is None  # two seats remain: the game decides what that means


def test_a_game_whose_silent_seats_play_on_forfeits_nobody():
    rules = game_named("tally")
    try:
        rules.forfeit_for_silence = False  # as Celestial Empire, whose standing orders run for the silent
        game = three(deadline=timedelta(hours=1), forfeit_after=2)
        for turn in range(4):
            mail(game, 1, "1", minutes=turn * 60 + 1)
            engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
        assert game.phase != ENDED and game.missed[3] == 4
    finally:
        del rules.forfeit_for_silence


def test_three_players_by_mail_through_the_daemon_then_replay(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            addresses = [seat.address for seat in SEATS]
            request_game(world.daemon.store, world.config.identity, addresses, "ten", Options(), world.clock(),
                         aliases=["Ann", "Bea", "Cy"], game="tally")
            await world.settle()
            players = [world.alice.__class__(address, world) for address in addresses]
            assert all("Tally game g1: you are" in text(p.latest()) for p in players)
            await world.act(players[2].reply, "message hi from seat three\n4")
            for other in players[:2]:
                press = other.latest()
                assert "hi from seat three" in text(press) and "cy@example.org" not in press.as_string()
            await world.act(players[0].reply, "3")
            await world.act(players[1].reply, "3")
            assert world.daemon.master.games["g1"].phase == ENDED
            assert "over: the total reached 10" in text(players[2].latest())
            archive = world.daemon.store.games_dir / "g1"
        count, differences = verify_replay(str(archive))
        assert differences == [] and count > 10
    run(scenario())


def test_the_turn_a_mail_answers_comes_from_its_in_reply_to_or_else_its_subject():
    game = three()
    mail(game, 1, "1")
    mail(game, 2, "1")
    mail(game, 3, "1")  # event 4 ran turn 1: its mail asks for turn 2
    assert engine.answered_turn(game, PlayerMail(START, 1, "", None, "<g1.4.1.x@gm.example>")) == 2
    assert engine.answered_turn(game, PlayerMail(START, 1, "", None, "<g1.2.1@gm.example>")) == 1
    assert engine.answered_turn(game, PlayerMail(START, 1, "", None, "<elsewhere@x>",
                                                "Re: [gm g1] Turn 3 results; orders for turn 4")) == 4
    assert engine.answered_turn(game, PlayerMail(START, 1, "", None, None, "hello")) is None


# The lifecycle, for any game (gm.kernel.lifecycle)

def test_an_alternating_game_starts_once_every_setup_is_in_and_a_move_takes_effect_at_once():
    game = three("relay")
    mail(game, 1, "1")
    mail(game, 2, "1")
    assert game.phase == SETUP and game.waiting_for == [3]
    notices = mail(game, 3, "1")  # the default start: each seat's sheet
    assert game.phase == PLAY and game.waiting_for == [1] and game.deadline is not None
    assert [(n.player, n.subject) for n in notices[1:]] == [(1, "Status"), (2, "Status"), (3, "Status")]
    notices = mail(game, 1, "3\ndraw", minutes=2)  # the move first, then the offer: it stands for the next move
    assert [n.subject for n in notices[1:4]] == ["Move 1"] * 3 and game.draw_offers == {1}
    assert notices[0].data["done"] == ["your move 1", "line 2: draw: your offer of a draw stands until the next move"]
    assert game.waiting_for == [2] and game.deadline == START + timedelta(minutes=2, hours=72)


def test_a_move_out_of_turn_is_rejected_and_does_not_count_as_sent():
    game = three("relay", deadline=timedelta(hours=1))
    for p in (1, 2, 3):
        mail(game, p, "1")
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))  # seat 1 missed its move: it passes
    assert game.missed == {1: 1, 2: 0, 3: 0} and game.waiting_for == [2]
    notices = mail(game, 1, "4", minutes=70)
    assert notices[0].data["ignored"] == ["not your move"] and game.missed[1] == 1 and game.play.total == 0


def test_forfeits_in_an_alternating_game_end_it_when_one_seat_is_left():
    game = three("relay", deadline=timedelta(hours=1), forfeit_after=1)
    for p in (1, 2, 3):
        mail(game, p, "1")
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert game.phase == ENDED and game.outcome.kind is EndKind.FORFEIT
    assert game.outcome.losers == (1,) and game.outcome.winner is None  # two seats remain
    assert game.outcome.reason == "Ann sent nothing for 1 moves in a row and forfeits"


def test_two_seats_forfeiting_at_once_leave_the_third_the_winner():
    game = three(deadline=timedelta(hours=1), forfeit_after=1)
    mail(game, 3, "1")
    engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
    assert game.outcome.kind is EndKind.FORFEIT and game.outcome.winners == (3,) and game.outcome.losers == (1, 2)
    assert game.outcome.reason == "Ann and Bea sent nothing for 1 turns in a row and forfeit"


def test_a_turn_sheet_shows_the_deadline_an_absence_declared_in_the_same_mail_extended():
    game = three()
    mail(game, 1, "1")
    mail(game, 2, "1")
    notices = mail(game, 3, "1\nvacation 5d", minutes=3)  # the turn runs after the mail's commands
    away = START + timedelta(minutes=3, days=5)
    assert game.play.turn == 2 and game.deadline == away
    sheets = [n for n in notices if n.subject == "Turn 1"]
    assert [n.data["deadline"] for n in sheets] == [away.strftime("%Y-%m-%d %H:%M UTC")] * 3
    assert all(n.data["remaining"] == "5 days" for n in sheets)


def test_a_turn_run_while_the_game_is_paused_sets_no_deadline_until_it_is_resumed():
    game = three()
    engine.apply(game, Paused(START))
    mail(game, 1, "1")
    mail(game, 2, "1")
    notices = mail(game, 3, "1", minutes=5)
    assert game.play.turn == 2 and game.deadline is None and game.paused is not None
    assert all(n.data["deadline"] is None and n.data["remaining"] is None for n in notices)
    engine.apply(game, Resumed(START + timedelta(hours=1)))
    assert game.deadline == START + timedelta(hours=73)


def test_observers_are_told_when_the_game_is_made_and_sent_the_whole_game_when_it_ends():
    game = three(observers=("watcher@example.org",))
    during = mail(game, 1, "5") + mail(game, 2, "5") + mail(game, 3, "5")
    assert game.phase == ENDED and [n.template for n in during if n.observer] == ["observer_result"]
    (result,) = [n for n in during if n.observer]
    assert result.data["result"]["reason"] == "the total reached 15" and len(result.data["records"]) == 3


def test_a_cancelled_game_ends_with_its_reason_worded_by_the_end_it_is():
    game = three()
    engine.apply(game, Cancelled(START, "a test"))
    assert game.outcome == GameEnd(EndKind.CANCELLED, 1, clause="a test")
    assert game.outcome.reason == "the GM cancelled the game: a test" and game.deadline is None


def test_the_games_command_is_an_effect_of_the_mail_read_once():
    game = three()
    for words in ("Games:", "games ;", "GAMES"):
        (reply, *_) = engine.apply(game, PlayerMail(START, 2, words))
        assert reply.effects == (SendGamesList(2),)
    assert [n.effects for n in engine.apply(game, PlayerMail(START, 2, "message games"))] == [()] * 3


def test_a_registry_makes_a_game_only_when_it_is_first_asked_for():
    made = []
    registry: Registry[GameRules] = Registry()
    registry.add("tally", lambda: made.append(1) or TallyGame())
    assert registry.names() == ["tally"] and made == []
    assert registry.named("Tally") is registry.named("tally") and made == [1]
    with pytest.raises(ValueError, match="lower case"):
        registry.add("Tally", TallyGame)
