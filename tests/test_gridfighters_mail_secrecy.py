"""Hidden information in Grid Fighters mail, as a property over whole rendered mails.

The same game is played twice up to one move of the opponent's, which goes
to two different legal destinations. Every mail the other player is sent
for that move (text and HTML, rendered as the daemon renders them) must be
the same byte for byte: a destination is the mover's secret until a later
check reveals it [procedure 2] (or it rams the mover's own asteroid, which
is told at once, ruling 4). The games are driven through the kernel's
pure engine, so hypothesis can try many.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.games.gridfighters.bot import random_move, random_setup
from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail, Seat
from gm.pbem.writing.mailer import render_html, render_text

pytestmark = pytest.mark.slow  # hypothesis over the rendered mail of random games

START = datetime(2026, 11, 23, 12, 0, 0, 417123, tzinfo=UTC)
SEATS = (Seat(1, "alice@example.org", "Alice"), Seat(2, "bob@example.org", "Bob"))
PACKAGE = "gm.games.gridfighters"


def rendered(notices, player: int) -> list[tuple[str, str, str, str | None]]:
    return [(n.template, n.subject, render_text(n.template, n.data, PACKAGE), render_html(n.template, n.data, PACKAGE))
            for n in notices if n.player == player]


def started(seed: int):
    rng = Random(seed)
    game, _ = engine.create(Created(START, "g1", SEATS, "standard", Options(), game="gridfighters"))
    at = START
    for player in (1, 2):
        at += timedelta(minutes=1)
        text = "\n".join(f"{p.piece} {p.square}" for p in random_setup(player, rng))
        engine.apply(game, PlayerMail(at, player, text))
    return game, rng, at


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), prefix=st.integers(0, 30))
def test_what_a_player_is_sent_does_not_depend_on_the_opponents_secret_destination(seed, prefix):
    game, rng, at = started(seed)
    for _ in range(prefix):
        grid = game.play.grid
        if grid.result is not None:
            return
        move = random_move(grid, grid.to_move, rng)
        at += timedelta(minutes=1)
        engine.apply(game, PlayerMail(at, grid.to_move, f"{move.piece} {move.frm}-{move.to}"))
    grid = game.play.grid
    if grid.result is not None:
        return
    mover, watcher = grid.to_move, 3 - grid.to_move
    rams = {p.at for name, p in grid.pieces[mover - 1].items() if name[0] == "A" and p.destroyed is None}
    by_piece: dict[tuple[str, str], list] = {}
    for move in grid.legal_moves(mover):
        if move.to in rams:
            continue  # ramming one's own asteroid is told at once (ruling 4): not a secret destination
        by_piece.setdefault((move.piece, str(move.frm)), []).append(move)
    choices = [moves for moves in by_piece.values() if len(moves) >= 2]
    if not choices:
        return
    one, other = rng.sample(rng.choice(choices), 2)
    at += timedelta(minutes=1)
    seen = []
    for move in (one, other):
        copied = copy.deepcopy(game)
        notices = engine.apply(copied, PlayerMail(at, mover, f"{move.piece} {move.frm}-{move.to}"))
        assert any(n.player == watcher for n in notices)
        seen.append(rendered(notices, watcher))
    assert seen[0] == seen[1]


def test_the_property_can_fail_the_mover_sees_their_own_destination():
    """The same comparison made for the mover differs: the test can tell."""
    game, _rng, at = started(1)
    grid = game.play.grid
    moves = [m for m in grid.legal_moves(1)
             if (m.piece, m.frm) == (grid.legal_moves(1)[0].piece, grid.legal_moves(1)[0].frm)]
    seen = []
    for move in moves[:2]:
        copied = copy.deepcopy(game)
        seen.append(rendered(engine.apply(copied, PlayerMail(at, 1, f"{move.piece} {move.frm}-{move.to}")), 1))
    assert len(moves) >= 2 and seen[0] != seen[1]
