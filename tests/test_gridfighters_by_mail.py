"""Grid Fighters played by mail through the real daemon, to a finished game.

Two players who only read their mail: each sends a setup, then, when the GM
says it is their move, replies with one move. The moves are chosen by the
random-legal bot from the player's own pieces (legality depends on nothing
else); the game must end, every mail must keep the opponent's address and
secrets out, and `gm replay` must rebuild it byte for byte.
"""

from __future__ import annotations

from datetime import timedelta
from email.utils import make_msgid
from random import Random

import pytest

from gm.games.gridfighters.bot import random_move, random_setup
from gm.kernel.values import Options
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.writing.mailer import Identity
from gmtest import ALICE, BOB, GM, World, run, text
from test_master_faults import plain
from test_secrecy_whole_game import leaks, texts

pytestmark = pytest.mark.slow  # whole games by mail

MOVE_LIMIT = 400
"""With quiet=20 no game lasts longer than 36 + 37 * 20 moves; far fewer in practice."""


def setup_text(player: int, rng: Random) -> str:
    placements = random_setup(player, rng)
    return "\n".join(", ".join(f"{p.piece} {str(p.square).lower() if i % 2 else p.square}" for i, p in
                               enumerate(placements[k:k + 3])) for k in range(0, len(placements), 3)) + "\n"


async def play_to_the_end(world: World, rng: Random) -> int:
    """Both players move in turn, as the GM asks, until the game is over;
    returns the number of moves made."""
    players = {1: world.alice, 2: world.bob}
    game = world.daemon.master.games["g1"]
    for _ in range(MOVE_LIMIT):
        grid = game.play.grid
        if grid.result is not None:
            return grid.moves
        player = grid.to_move
        move = random_move(grid, player, rng)
        latest = players[player].latest()
        assert "your move" in str(latest["Subject"]).lower() or "your move" in text(latest).lower()
        await world.act(players[player].reply, f"; my move\n{move.piece} {move.frm}-{move.to}\n")
        assert game.play.grid.moves == grid.moves + 1, text(players[player].latest())
    raise AssertionError(f"the game did not end within {MOVE_LIMIT} moves")


def test_two_players_play_grid_fighters_by_mail_to_the_end(tmp_path):
    async def scenario():
        rng = Random(20261123)
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters", variant="standard+quiet=20")
            invitation = text(world.alice.latest()).replace("\n", " ")
            assert "Grid Fighters game g1: you are Player 1 (Red, rows A to E)" in invitation
            assert "H, A1, A2, A3, A4, A5, A6, A7, W, B, X1, X2, Y1, Y2, Z1, Z2, Z3, Z4" in invitation
            assert max(len(line) for line in text(world.alice.latest()).splitlines()) <= 78
            await world.act(world.alice.reply, setup_text(1, rng))
            assert "Setup accepted" in str(world.alice.latest()["Subject"])
            assert "The game begins when Player 2 has sent a setup too" in text(world.alice.latest())
            await world.act(world.bob.reply, setup_text(2, rng))
            begins = world.alice.latest()
            assert "The game begins; your move" in str(begins["Subject"]), str(begins["Subject"])
            assert "waiting for Player 1" in str(world.bob.latest()["Subject"])

            moves = await play_to_the_end(world, rng)
            game = world.daemon.master.games["g1"]
            assert game.phase == "ended" and game.outcome is not None
            for player in (world.alice, world.bob):
                final = player.latest()
                assert "the game is over" in str(final["Subject"]).lower()
                assert "The game is over: " in text(final)
                (record,) = final.iter_attachments()  # the player's own record (edition 5 on, issue 22)
                assert record.get_filename() == f"game-g1-player-{1 if player is world.alice else 2}.txt"
                assert "Grid Fighters game g1: you are " in record.get_content()
            assert moves >= 1

            key = world.daemon.store.key
            for number, (player, opponent) in enumerate(((world.alice, 2), (world.bob, 1)), 1):
                blobs = [b for m in player.inbox() for b in texts(m.as_bytes())]
                found = leaks(blobs, opponent, key)
                assert "address" not in found and "token" not in found, (number, found)
            archive = world.daemon.store.games_dir / "g1"
        count, differences = verify_replay(str(archive))
        assert differences == [] and count > 2 * moves
    run(scenario())


def test_a_bad_move_is_answered_with_the_line_and_column_and_is_not_spent(tmp_path):
    async def scenario():
        rng = Random(7)
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters")
            await world.act(world.alice.reply, setup_text(1, rng))
            await world.act(world.bob.reply, setup_text(2, rng))
            await world.act(world.bob.reply, "Z1 F1-F2")
            assert "it is Player 1's move, not yours" in text(world.bob.latest()).replace("\n", " ")
            await world.act(world.alice.reply, "; my first move\nZ2 E2 A2")
            reply = text(world.alice.latest())
            assert "Line 2, column" in reply and "expected" in reply.lower() and "It is still your move." in reply
            await world.act(world.alice.reply, "H A1-A2")
            assert "rejected" in str(world.alice.latest()["Subject"])
            assert "never moves" in text(world.alice.latest())
            game = world.daemon.master.games["g1"]
            assert game.play.grid.moves == 0 and game.play.grid.to_move == 1
    run(scenario())


def test_mail_about_no_game_names_no_one_game_and_each_games_mail_keeps_its_gm(tmp_path):
    """The games list, the ratings and the answer to mail that reached no
    game come from a GM of no one game ("Game master"), where they came
    from "Spaceships GM" whatever the games were; each game's own mail
    keeps the From it had (its bytes are archived and replayed). A name of
    the operator's own is used for both."""
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters")
            await world.new_game()
            for body in ("hello, who are you?", "games", "ratings"):  # mail that asks nothing: answered first
                await world.asend(plain(ALICE, body, make_msgid(domain="example.org")), ALICE, [GM])
                await world.settle()
            froms = {str(m["Subject"]): str(m["From"]) for m in world.alice.inbox()}
            assert {s: f for s, f in froms.items() if s.startswith("[gm] ")} == {
                "[gm] Your games": f"Game master <{GM}>", "[gm] Ratings": f"Game master <{GM}>",
                "[gm] Your mail reached no game": f"Game master <{GM}>"}, froms
            assert {f for s, f in froms.items() if s.startswith("[gm g1]")} == {f"Grid Fighters GM <{GM}>"}, froms
            assert {f for s, f in froms.items() if s.startswith("[gm g2]")} == {f"Spaceships GM <{GM}>"}, froms
    run(scenario())
    own = Identity(GM, "Example Games")
    assert (own.outside_name, own.name_for("Grid Fighters")) == ("Example Games", "Example Games")


def test_a_challenge_by_mail_names_the_game(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.challenge(world.alice, f"challenge {BOB}\ngame gridfighters")
            (invite,) = world.bob.inbox()
            assert "challenges you to Grid Fighters" in str(invite["Subject"])
            # Mail about a challenge to one game comes from that game's GM, as the game's own mail will.
            (confirmation,) = world.alice.inbox()
            assert str(confirmation["From"]).startswith("Grid Fighters GM <"), confirmation["From"]
            assert str(invite["From"]).startswith("Grid Fighters GM <"), invite["From"]
            assert "of Grid Fighters by email" in text(invite).replace("\n", " ")
            await world.act(world.bob.reply, "accept", to=invite)
            await world.settle()
            game = world.daemon.master.games["g1"]
            assert game.rules.name == "gridfighters" and game.variant == "standard"
            assert "Grid Fighters game g1" in text(world.bob.latest())
            assert str(world.bob.latest()["From"]).startswith("Grid Fighters GM <")
    run(scenario())


def test_help_by_mail_shows_the_games_own_notation(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            await world.new_game(game="gridfighters")
            await world.act(world.alice.reply, "help")
            sheet = text(world.alice.latest())
            assert "Z2 E2-A2" in sheet and "Z1 E1, Z2 E2, H A5" in sheet and "any case" in sheet
            assert "Rv1" not in sheet  # not Spaceships' notation
    run(scenario())


async def started(world: World, rng: Random, **options) -> None:
    await world.new_game(game="gridfighters", **options)
    await world.act(world.alice.reply, setup_text(1, rng))
    await world.act(world.bob.reply, setup_text(2, rng))


def test_a_missed_deadline_passes_the_move_and_three_forfeit_ruling_19(tmp_path):
    async def scenario():
        rng = Random(3)
        async with World(tmp_path) as world:
            await started(world, rng, deadline=timedelta(hours=24))
            game = world.daemon.master.games["g1"]
            world.clock.advance(hours=24, seconds=1)  # Alice (Red) lets move 1 pass
            await world.settle()
            assert game.play.grid.to_move == 2 and game.play.grid.moves == 0
            assert "Red sent no move by the deadline: the move passes" in text(world.bob.latest()).replace("\n", " ")
            assert "your move" in str(world.bob.latest()["Subject"])
            move = random_move(game.play.grid, 2, rng)
            await world.act(world.bob.reply, f"{move.piece} {move.frm}-{move.to}")
            assert game.play.grid.to_move == 1 and game.play.grid.moves == 1
            for _ in range(2):  # Alice misses twice more; Bob moves in between
                world.clock.advance(hours=24, seconds=1)
                await world.settle()
                if game.phase == "ended":
                    break
                move = random_move(game.play.grid, 2, rng)
                await world.act(world.bob.reply, f"{move.piece} {move.frm}-{move.to}")
            assert game.phase == "ended" and game.outcome.winner == 2
            assert "forfeits" in game.outcome.reason
            assert "You win." in text(world.bob.latest())
    run(scenario())


def test_a_draw_by_agreement_by_mail_ruling_19(tmp_path):
    async def scenario():
        rng = Random(4)
        async with World(tmp_path) as world:
            await started(world, rng)
            await world.act(world.bob.reply, "draw")
            offer = world.alice.latest()
            assert "Player 2 offers a draw" in str(offer["Subject"])
            assert "The offer stands until the next move is made." in text(offer)
            await world.act(world.alice.reply, "draw")
            game = world.daemon.master.games["g1"]
            assert game.phase == "ended" and game.outcome.winner is None
            assert game.play.grid.result.code == "agreed"
            assert "Nobody wins." in text(world.bob.latest())
    run(scenario())


def test_a_move_that_cannot_be_read_against_the_robot_waits_for_its_correction_ruling_20(tmp_path):
    """Ruling 20: against the robot, whose setup is in, a move with a line that
    cannot be read is not made and the robot does not move; the corrected
    mail makes the move, and the robot answers it."""
    async def scenario():
        rng = Random(20)
        async with World(tmp_path) as world:
            request_game(world.daemon.store, world.config.identity, [ALICE], "standard", Options(), world.clock(),
                         game="gridfighters", robot="normal", robot_seed=20)
            await world.settle()
            await world.act(world.alice.reply, setup_text(1, rng))
            game = world.daemon.master.games["g1"]
            assert game.phase == "play" and game.waiting_for == [1]
            await world.act(world.alice.reply, "; my first move\nZ2 E2 A2")
            assert "It is still your move." in text(world.alice.latest())
            assert game.play.grid.moves == 0 and game.waiting_for == [1]
            move = random_move(game.play.grid, 1, rng)
            await world.act(world.alice.reply, f"{move.piece} {move.frm}-{move.to}")
            assert game.play.grid.moves == 2 and game.waiting_for == [1]  # hers, then the robot's
        count, differences = verify_replay(str(tmp_path / "data" / "games" / "g1"))
        assert count and not differences, differences
    run(scenario())
