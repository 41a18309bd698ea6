"""The Grid Fighters robot (`gm.games.gridfighters.robot`) and its tracker
(`gm.games.gridfighters.track`): legal moves that the notation reads back,
nothing known that its seat was not told, a tracker that never loses the
truth, and the same game from the same seed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from random import Random
from typing import Any

import pytest

from gm.games.gridfighters import Grid, MoveReport, Square, parse_move, parse_setup, random_move, random_setup
from gm.games.gridfighters.board import kind
from gm.games.gridfighters.game import Piece
from gm.games.gridfighters.robot import LEVELS, SeatView, legal_moves, robot_move, robot_setup, seat_view
from gm.games.gridfighters.track import index, track
from gm.games.gridfighters.variants import variant_named

VARIANTS = ("standard", "standard+homes=3", "standard+quiet=12")


def new_game(rng: Random, spec: str, levels: dict[int, str | None]) -> Grid:
    """A game whose seats set up as ``levels`` says (None: the random bot)."""
    variant = variant_named(spec)
    setups = [robot_setup(p, variant, level, rng) if level else random_setup(p, rng, variant)
              for p, level in sorted(levels.items())]
    return Grid.start(setups[0], setups[1], first=rng.choice((1, 2)), variant=variant)


def assert_sound(grid: Grid, seat: SeatView) -> None:
    """Every opponent piece still standing is on one of its tracked squares."""
    other = 3 - seat.player
    knowledge = track(seat)
    alive = {name for name, piece in grid.pieces[other - 1].items() if piece.destroyed is None}
    assert set(knowledge.possible) == alive
    for name in alive:
        assert index(grid.where(other, name)) in knowledge.possible[name], (name, grid.moves)


def play(seed: int, spec: str, levels: dict[int, str | None], checks: bool = True,
         limit: int = 400) -> tuple[Grid, list[MoveReport], list[str]]:
    """A game between the seats' robots (or random bots), checking every move
    the robot makes, and the tracking of both seats after every move."""
    rng = Random(seed)
    grid = new_game(rng, spec, levels)
    log: list[MoveReport] = []
    written: list[str] = []
    while grid.result is None and grid.moves < limit:
        player = grid.to_move
        level = levels[player]
        if level is None:
            move = random_move(grid, player, rng)
        else:
            seat = seat_view(grid, player, log)
            move = robot_move(seat, level, rng)
            if checks:
                assert set(legal_moves(seat)) == set(grid.legal_moves(player))
                assert move in grid.legal_moves(player)
                assert parse_move(str(move)) == move  # as the mail would carry it
        assert move is not None
        written.append(str(move))
        grid, report = grid.push(player, move)  # raises IllegalMove for an illegal move
        log.append(report)
        if checks:
            for seat_player in (1, 2):
                assert_sound(grid, seat_view(grid, seat_player, log))
    return grid, log, written


@pytest.mark.parametrize("spec", VARIANTS)
@pytest.mark.parametrize("level", LEVELS)
def test_robot_moves_are_legal_read_back_and_tracked_soundly(level, spec):
    for seed in range(3):
        levels = {1: level, 2: None} if seed % 2 else {1: None, 2: level}
        play(seed, spec, levels, limit=200)


@pytest.mark.parametrize("spec", VARIANTS)
def test_robots_against_each_other_every_level(spec):
    for seed, (a, b) in enumerate([("hard", "normal"), ("normal", "easy"), ("easy", "hard"), ("hard", "hard")]):
        grid, _, _ = play(100 + seed, spec, {1: a, 2: b})
        assert grid.result is not None


@pytest.mark.slow  # fifteen random whole games
def test_tracking_is_sound_over_many_random_games():
    """The tracker's possible squares always hold the truth, for both seats,
    in games of the random bot (whose moves go everywhere)."""
    for seed in range(15):
        play(1000 + seed, VARIANTS[seed % 3], {1: None, 2: None}, limit=150)


def test_tracking_narrows_down():
    """Soundness alone would allow tracking nothing: after a game, the
    opponent's pieces that have moved are known far better than at the start."""
    grid, log, _ = play(7, "standard", {1: "easy", 2: None}, checks=False, limit=16)
    assert grid.result is None
    seat = seat_view(grid, 1, log)
    knowledge = track(seat)
    moved = [name for name in knowledge.possible if name in knowledge.departed]
    assert moved
    assert all(len(knowledge.possible[name]) <= 36 for name in moved)  # a queen's reach at most, not 50 squares
    assert len(knowledge.possible["H"]) < 50


@pytest.mark.parametrize("spec", ["standard", "standard+homes=3"])
@pytest.mark.parametrize("level", LEVELS)
def test_robot_setup_is_legal_and_reads_back(level, spec):
    variant = variant_named(spec)
    for seed in range(10):
        rng = Random(seed)
        one, two = robot_setup(1, variant, level, rng), robot_setup(2, variant, level, rng)
        Grid.start(one, two, variant=variant)  # raises SetupError otherwise
        text = ", ".join(f"{p.piece} {p.square}" for p in one)
        assert parse_setup(text) == one


def squares_in(value: Any, seen: set[int] | None = None) -> Iterator[Any]:
    """Every object reachable from ``value`` through dataclass fields and containers."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    yield value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from squares_in(getattr(value, f.name), seen)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from squares_in(k, seen)
            yield from squares_in(v, seen)
    elif isinstance(value, (tuple, list, set, frozenset)):
        for item in value:
            yield from squares_in(item, seen)


def told(grid: Grid, player: int, log: list[MoveReport]) -> set[Square]:
    """The squares ``player`` was shown (worked out from the truth, not from
    the SeatView): their own, every announced departure, every collision and
    revealed square, their own destinations and rams'."""
    squares = {p.square for p in grid.setups[player - 1]}
    for report in log:
        squares.add(report.frm)
        if report.to is not None and (report.by == player or report.rammed):
            squares.add(report.to)
        squares.update(c.square for c in report.collisions)
        squares.update(r.square for r in report.revealed)
    return squares


def test_seat_view_holds_nothing_its_seat_was_not_told():
    for seed in range(6):
        rng = Random(seed)
        grid = new_game(rng, VARIANTS[seed % 3], {1: None, 2: None})
        log: list[MoveReport] = []
        while grid.result is None and grid.moves < 120:
            for player in (1, 2):
                seat = seat_view(grid, player, log)
                graph = list(squares_in(seat))
                assert not any(isinstance(o, (Grid, Piece)) for o in graph)
                assert {o for o in graph if isinstance(o, Square)} <= told(grid, player, log)
                other = [r for r in seat.history if r.by != player and not r.rammed]
                assert all(r.to is None for r in other), "the opponent's destinations are never in the view"
            grid, report = grid.push(grid.to_move, random_move(grid, grid.to_move, rng))
            log.append(report)


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_a_secret_destination_changes_neither_the_view_nor_the_move(level):
    """Two games that differ only in where the opponent's piece went (the
    same piece, from the same square, told the same): the watcher's seat
    views are equal, and its robot makes the same move with the same seed."""
    compared = 0
    for seed in range(20):
        rng = Random(seed)
        grid = new_game(rng, "standard", {1: level, 2: None})
        log: list[MoveReport] = []
        for _ in range(rng.randrange(0, 30)):
            if grid.result is not None:
                break
            grid, report = grid.push(grid.to_move, random_move(grid, grid.to_move, rng))
            log.append(report)
        if grid.result is not None or grid.to_move != 2:
            continue
        asteroids = {p.at for n, p in grid.pieces[1].items() if kind(n) == "A"}
        by_piece: dict[tuple, list] = {}
        for m in grid.legal_moves(2):
            if m.to not in asteroids:
                by_piece.setdefault((m.piece, m.frm), []).append(m)
        options = [ms for ms in by_piece.values() if len(ms) >= 2]
        if not options:
            continue
        first, second = rng.choice(options)[:2]
        grid1, report1 = grid.push(2, first)
        grid2, report2 = grid.push(2, second)
        if grid1.to_move != 1 or grid2.to_move != 1:
            continue
        seat1, seat2 = seat_view(grid1, 1, [*log, report1]), seat_view(grid2, 1, [*log, report2])
        assert seat1 == seat2
        assert track(seat1) == track(seat2)
        assert robot_move(seat1, level, Random(seed)) == robot_move(seat2, level, Random(seed))
        compared += 1
    assert compared >= 6


def test_a_different_hidden_setup_changes_nothing_at_the_start():
    """The opponent's whole setup is hidden: any two give the robot moving
    first the same view and the same first move."""
    for level in LEVELS:
        rng = Random(5)
        mine = robot_setup(1, variant_named("standard"), level, rng)
        grids = [Grid.start(mine, random_setup(2, Random(s))) for s in (1, 2)]
        seats = [seat_view(g, 1, []) for g in grids]
        assert seats[0] == seats[1]
        assert robot_move(seats[0], level, Random(9)) == robot_move(seats[1], level, Random(9))


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_game(level):
    runs = [play(42, "standard", {1: level, 2: "hard"}, checks=False)[2] for _ in range(2)]
    assert runs[0] == runs[1]
    assert len(runs[0]) > 1


def test_no_move_when_it_is_not_the_robots_move_or_the_game_is_over():
    rng = Random(3)
    grid = new_game(rng, "standard", {1: "hard", 2: "hard"})
    waiting = 3 - grid.to_move
    assert robot_move(seat_view(grid, waiting, []), "hard", rng) is None
    grid, log, _ = play(3, "standard", {1: "hard", 2: "hard"}, checks=False)
    assert grid.result is not None
    for player in (1, 2):
        assert robot_move(seat_view(grid, player, log), "hard", rng) is None


def test_seat_view_wants_the_whole_history_and_levels_are_checked():
    rng = Random(4)
    grid, log, _ = play(4, "standard", {1: "normal", 2: None}, checks=False, limit=6)
    with pytest.raises(ValueError, match="moves 1 to"):
        seat_view(grid, 1, log[1:])
    with pytest.raises(ValueError, match="levels are easy, normal, hard"):
        robot_move(seat_view(grid, 1, log), "expert", rng)
