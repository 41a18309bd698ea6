"""How well, and how fast, the Grid Fighters robot plays against the random-legal bot.

Each level of `gm.games.gridfighters.robot` plays whole games against
`random_move` (the random-legal bot, from `random_setup`), the robot's seat
and the player who moves first alternating game by game, so each of the four
combinations is played equally often. Every game is seeded from ``--seed``
and its number, so a run replays exactly.

The robot is timed as the mail kernel would call it: `seat_view` (from the
grid and the game's log) then `robot_move`. The reference, measured in the
same run on the same games, is the random bot's time per move.

Every move the robot makes is written as text and read back with the
notation (as a player's mail would be), then made; a move the notation does
not read back to itself, or the game rejects, is counted, the first few
printed, and the exit status is 1 if there were any.

    python bench/robot_gridfighters.py [--games N] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from gm.games.gridfighters import Grid, IllegalMove, MoveReport, parse_move, random_move, random_setup
from gm.games.gridfighters.robot import LEVELS, robot_move, robot_setup, seat_view
from gm.games.gridfighters.variants import STANDARD
from robot import wilson  # the Spaceships robot's bench, beside this one

SHOW_REJECTIONS = 5


class Tally:
    """One level's games."""

    def __init__(self) -> None:
        self.wins = self.draws = self.losses = 0
        self.moves: list[int] = []
        self.robot_ms: list[float] = []
        self.random_ms: list[float] = []
        self.rejections: list[str] = []

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def play_game(level: str, number: int, seed: int, tally: Tally) -> None:
    """One game of the robot at ``level`` against the random bot."""
    rng = random.Random(f"{seed}:{level}:{number}")
    robot = 1 + number % 2
    first = 1 + (number // 2) % 2
    setups = {robot: robot_setup(robot, STANDARD, level, rng), 3 - robot: random_setup(3 - robot, rng)}
    grid = Grid.start(setups[1], setups[2], first=first)
    log: list[MoveReport] = []
    while grid.result is None:
        player = grid.to_move
        if player == robot:
            start = time.perf_counter()
            move = robot_move(seat_view(grid, player, log), level, rng)
            tally.robot_ms.append((time.perf_counter() - start) * 1000)
            assert move is not None, "the robot has a move whenever it is its move"
            try:
                read = parse_move(str(move))
                if read != move:
                    raise IllegalMove(f"the notation reads {str(move)!r} as {read}")
                grid, report = grid.push(player, read)
            except (IllegalMove, ValueError) as error:
                tally.rejections.append(f"game {number} move {grid.moves + 1}: {move}: {error}")
                fallback = random_move(grid, player, rng)
                assert fallback is not None
                grid, report = grid.push(player, fallback)
        else:
            start = time.perf_counter()
            move = random_move(grid, player, rng)
            tally.random_ms.append((time.perf_counter() - start) * 1000)
            assert move is not None
            grid, report = grid.push(player, move)
        log.append(report)
    assert grid.result is not None
    tally.moves.append(grid.moves)
    if grid.result.winner == robot:
        tally.wins += 1
    elif grid.result.winner is None:
        tally.draws += 1
    else:
        tally.losses += 1


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1] if len(values) > 1 else values[0]


def report(level: str, tally: Tally) -> None:
    low, high = wilson(tally.wins, tally.games)
    print(f"{level} games: {tally.games}")
    print(f"{level} wins/draws/losses: {tally.wins}/{tally.draws}/{tally.losses}")
    print(f"{level} win rate: {tally.wins / tally.games:.3f} (Wilson 95% CI {low:.3f} to {high:.3f})")
    print(f"{level} mean moves: {statistics.fmean(tally.moves):.1f} (both players, per game)")
    ms = tally.robot_ms
    print(f"{level} robot ms per move mean: {statistics.fmean(ms):.3f}")
    print(f"{level} robot ms per move p95: {p95(ms):.3f}")
    print(f"{level} robot ms per move max: {max(ms):.3f}")
    print(f"{level} rejected moves: {len(tally.rejections)}")
    for line in tally.rejections[:SHOW_REJECTIONS]:
        print(f"  rejected: {line}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500,
                        help="games for hard (default 500); easy and normal play a fifth")
    parser.add_argument("--seed", type=int, default=1, help="the run's seed (default 1)")
    parser.add_argument("--quick", action="store_true",
                        help="20 games for hard, 6 for easy and normal (the smoke test)")
    args = parser.parse_args(argv)
    hard_games = 20 if args.quick else args.games
    counts = {"easy": 6 if args.quick else max(1, hard_games // 5),
              "normal": 6 if args.quick else max(1, hard_games // 5), "hard": hard_games}
    reference: list[float] = []
    rejected = 0
    for level in LEVELS:
        tally = Tally()
        for number in range(counts[level]):
            play_game(level, number, args.seed, tally)
        report(level, tally)
        reference += tally.random_ms
        rejected += len(tally.rejections)
    print(f"reference random bot ms per move mean: {statistics.fmean(reference):.3f}")
    print(f"reference random bot ms per move p95: {p95(reference):.3f}")
    print(f"rejected moves: {rejected}")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
