"""Properties of the Grid Fighters rules core on random games played by the
random-legal bot (`gm.games.gridfighters.bot`)."""

from __future__ import annotations

from random import Random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gm.games.gridfighters import Grid, Move, random_move, random_setup, variant_named
from gm.games.gridfighters.board import kind

pytestmark = pytest.mark.slow  # hypothesis over random whole games

seeds = st.integers(min_value=0, max_value=2**32 - 1)
variants = st.sampled_from(["standard", "standard+homes=3", "standard+quiet=5", "standard+homes=3+quiet=12"])


def new_game(rng: Random, spec: str) -> Grid:
    variant = variant_named(spec)
    return Grid.start(random_setup(1, rng, variant), random_setup(2, rng, variant), first=rng.choice((1, 2)),
                      variant=variant)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, spec=variants)
def test_random_legal_games_end_within_the_bound_and_the_dead_stay_dead(seed, spec):
    rng = Random(seed)
    grid = new_game(rng, spec)
    pieces = 2 * len(grid.variant.pieces)
    bound = pieces + (pieces + 1) * grid.variant.quiet
    """Each move either destroys a piece (at most ``pieces`` such moves) or
    adds one to the count of quiet moves, which ends the game at the limit."""
    while grid.result is None:
        assert grid.moves <= bound
        player = grid.to_move
        move = random_move(grid, player, rng)
        assert move is not None, "whoever is to move has a legal move (else they would have passed)"
        before = grid
        grid, report = grid.push(player, move)
        for p in (1, 2):
            dead_before = set(before.destroyed(p))
            assert dead_before <= set(grid.destroyed(p)), "destroyed pieces never reappear"
            for name in dead_before:
                assert grid.pieces[p - 1][name] == before.pieces[p - 1][name], "destroyed pieces never move"
        assert move.piece not in before.destroyed(player)
        assert kind(move.piece) not in "AH"
        assert set(report.destroyed) == {f"{p}:{n}" for p in (1, 2)
                                         for n in set(grid.destroyed(p)) - set(before.destroyed(p))}
    assert grid.moves <= bound
    assert grid.result.code in ("home-destroyed", "unreachable", "no-destruction-limit", "no-legal-move")
    assert grid.to_move is None and grid.legal_moves(1) == grid.legal_moves(2) == []


@settings(max_examples=40, deadline=None)
@given(seed=seeds, spec=variants, prefix=st.integers(min_value=0, max_value=60), pick=st.integers(0, 10**6))
def test_an_opponents_secret_destination_changes_nothing_a_player_knows(seed, spec, prefix, pick):
    """Play a random game for a while; then let the player to move move the
    same piece from the same square to two different destinations. The
    other player's view, the report as they hear it, and what they may do
    next are the same either way."""
    rng = Random(seed)
    grid = new_game(rng, spec)
    for _ in range(prefix):
        if grid.result is not None:
            break
        grid, _ = grid.push(grid.to_move, random_move(grid, grid.to_move, rng))
    assume(grid.result is None)
    mover = grid.to_move
    watcher = 3 - mover
    moves = grid.legal_moves(mover)
    by_piece: dict[tuple, list[Move]] = {}
    own_asteroids = {p.at for n, p in grid.pieces[mover - 1].items() if kind(n) == "A" and p.destroyed is None}
    for m in moves:
        if m.to not in own_asteroids:  # a ram is told to both (ruling 4)
            by_piece.setdefault((m.piece, m.frm), []).append(m)
    choices = [ms for ms in by_piece.values() if len(ms) >= 2]
    assume(choices)
    options = choices[pick % len(choices)]
    first, second = options[pick % len(options)], options[(pick // len(options) + 1 + pick) % len(options)]
    assume(first.to != second.to)
    grid1, report1 = grid.push(mover, first)
    grid2, report2 = grid.push(mover, second)
    assume(not report1.passes and not report2.passes)  # a forced pass is announced and depends on the mover's squares
    assert report1.public() == report2.public()
    assert grid1.view(watcher) == grid2.view(watcher)
    assert grid1.legal_moves(watcher) == grid2.legal_moves(watcher)
    for m in grid1.legal_moves(watcher)[:20]:
        assert grid1.check(watcher, m) == grid2.check(watcher, m)
