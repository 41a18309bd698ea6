"""How well the Spaceships robot plays, and how long it thinks (issue 13).

The robot (`gm.games.spaceships.robot`) plays whole games in memory against
two opponents, holding seat 1 in even-numbered games and seat 2 in odd ones:

* the random-legal bot (`gm.games.spaceships.bot`), which orders each
  action it is entitled to with chance 0.8 at random targets;
* a hunt-then-target baseline (`robot_baselines.py`), which strikes at
  random until it hits and then around its unexplained hits;
* (for the levels only) the robot itself at the normal level.

The targets, at the hard level over 500 games each: a win rate of at least
95% against the random bot and at least 70% against the baseline, each
printed with its Wilson 95% confidence interval; and under 100 ms of the
robot's time a turn on one core (mean and 95th percentile). The easy and
normal levels play fewer games, to show that the levels differ. A draw
[2.3.4] counts as not won.

The robot's time is `seat_view` plus `robot_orders` for one turn, measured
as CPU time of the process (`time.process_time`, so that other load on the
machine does not count) after a warm-up that builds the placement tables
(once per process; the cold start is printed apart, in wall-clock time).
The reference in the same run is the random bot's time a turn, measured the
same way. The process is pinned to one CPU where the system allows.

Every order the robot and the baseline give must be accepted by the rules'
checking: rejections are counted and the exit status is 1 if there are any.

    python bench/robot.py [--games N] [--level-games M] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from gm.games.spaceships.bot import random_orders, random_setup
from gm.games.spaceships.fleet import build_fleet
from gm.games.spaceships.game import Game
from gm.games.spaceships.orders import Order, format_orders
from gm.games.spaceships.robot import robot_orders, robot_setup, seat_view
from gm.games.spaceships.ruleset import DEFAULT
from gm.games.spaceships.state import GameState
from robot_baselines import hunt_target_orders

MAX_TURNS = 300
"""A game still going after this many turns is stopped and counted a draw."""
TIME_TARGET_MS = 100.0
TARGETS = {("hard", "random"): 0.95, ("hard", "hunt"): 0.70}


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval for a proportion (95% for z = 1.96)."""
    if not games:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    won: int = 0
    drawn: int = 0
    lost: int = 0
    capped: int = 0
    turns: int = 0
    robot_seconds: list[float] = field(default_factory=list)
    opponent_seconds: list[float] = field(default_factory=list)
    rejections: list[str] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.won + self.drawn + self.lost


Opponent = Callable[[Game, int, random.Random], list[Order]]


def random_opponent(game: Game, player: int, rng: random.Random) -> list[Order]:
    return random_orders(game.state, player, rng)


def hunt_opponent(game: Game, player: int, rng: random.Random) -> list[Order]:
    return hunt_target_orders(seat_view(game.state, player, game.reports), rng)


def normal_opponent(game: Game, player: int, rng: random.Random) -> list[Order]:
    return robot_orders(seat_view(game.state, player, game.reports), "normal", rng)


OPPONENTS: dict[str, Opponent] = {"random": random_opponent, "hunt": hunt_opponent, "normal": normal_opponent}


def play(level: str, opponent: str, seed: int, index: int, tally: Tally) -> None:
    """One game: the robot in seat 1 or 2 by the game's parity."""
    rng = random.Random(seed * 1_000_003 + index)
    robot = 1 if index % 2 == 0 else 2
    other = robot_setup(DEFAULT, "normal", rng) if opponent == "normal" else random_setup(rng, DEFAULT)
    setups = {robot: robot_setup(DEFAULT, level, rng), 3 - robot: other}
    game = Game(build_fleet(setups[1]), build_fleet(setups[2]))
    clock = time.process_time
    while game.result is None and game.turn <= MAX_TURNS:
        orders: dict[int, list[Order]] = {}
        start = clock()
        orders[robot] = robot_orders(seat_view(game.state, robot, game.reports), level, rng)
        tally.robot_seconds.append(clock() - start)
        start = clock()
        orders[3 - robot] = OPPONENTS[opponent](game, 3 - robot, rng)
        tally.opponent_seconds.append(clock() - start)
        report = game.push(orders[1], orders[2])
        tally.turns += 1
        for player in (robot,) if opponent == "random" else (1, 2):
            for rejected in report.checks[player - 1].rejected:
                who = "robot" if player == robot else opponent
                tally.rejections.append(f"  seed {seed}, game {index}, turn {report.turn}, {who}: {rejected.order} "
                                        f"rejected ({rejected.reason}) in {format_orders(orders[player])!r}")
    result = game.result
    if result is None:
        tally.capped += 1
        tally.drawn += 1
    elif result.winner == robot:
        tally.won += 1
    elif result.winner is None:
        tally.drawn += 1
    else:
        tally.lost += 1


def milliseconds(seconds: list[float]) -> tuple[float, float, float]:
    """Mean, 95th percentile and maximum, in ms."""
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return 1000 * sum(ordered) / len(ordered), 1000 * p95, 1000 * ordered[-1]


def pin_one_core() -> str:
    try:
        cpu = min(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
        return f"pinned to CPU {cpu}"
    except (AttributeError, OSError):
        return "not pinned (no sched_setaffinity)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games for each hard-level target (default 500)")
    parser.add_argument("--level-games", type=int, default=100,
                        help="games for easy and normal, and hard against normal (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the games (default 1)")
    parser.add_argument("--quick", action="store_true", help="a tiny run (a handful of games) for smoke tests")
    args = parser.parse_args(argv)
    games, level_games = (6, 4) if args.quick else (args.games, args.level_games)
    pinned = pin_one_core()

    start = time.perf_counter()
    robot_orders(seat_view(GameState.new(build_fleet(random_setup(random.Random(0))),
                                         build_fleet(random_setup(random.Random(1)))), 1, []), "hard", random.Random(0))
    cold = time.perf_counter() - start

    runs = [("hard", "random", games), ("hard", "hunt", games)]
    runs += [(level, opponent, level_games) for level in ("normal", "easy") for opponent in ("random", "hunt")]
    runs.append(("hard", "normal", level_games))
    print(f"robot benchmark: seed {args.seed}, one process {pinned}, Python {sys.version.split()[0]}")
    print(f"cold start ms (placement tables, once per process): {1000 * cold:.0f}")
    rejections = 0
    by_level: dict[str, list[float]] = {}
    reference: list[float] = []
    verdicts = []
    for level, opponent, count in runs:
        tally = Tally()
        for index in range(count):
            play(level, opponent, args.seed, index, tally)
        low, high = wilson(tally.won, tally.games)
        rate = tally.won / tally.games
        print(f"{level} vs {opponent}: {tally.won} won, {tally.drawn} drawn, {tally.lost} lost of {tally.games} "
              f"({tally.capped} stopped at {MAX_TURNS} turns)")
        print(f"{level} vs {opponent} win rate %: {100 * rate:.1f} (95% CI {100 * low:.1f}-{100 * high:.1f})")
        print(f"{level} vs {opponent} mean turns: {tally.turns / tally.games:.1f}")
        if opponent != "normal":
            by_level.setdefault(level, []).extend(tally.robot_seconds)
        if opponent == "random":
            reference.extend(tally.opponent_seconds)
        if (level, opponent) in TARGETS:
            target = TARGETS[level, opponent]
            verdict = "MET" if rate >= target else "NOT MET"
            verdicts.append(f"target: {level} vs {opponent} win rate at least {100 * target:.0f}%: {verdict} "
                            f"(lower 95% bound {100 * low:.1f}%)")
        rejections += len(tally.rejections)
        for line in tally.rejections[:5]:
            print(line)
    for level, seconds in by_level.items():
        mean, p95, top = milliseconds(seconds)
        print(f"{level} robot ms per turn: {mean:.1f} (p95 {p95:.1f}, max {top:.1f}, {len(seconds)} turns)")
    mean, p95, top = milliseconds(reference)
    print(f"reference random bot ms per turn: {mean:.2f} (p95 {p95:.2f}, max {top:.2f})")
    print(f"rejected orders: {rejections}")
    hard_mean, hard_p95, _ = milliseconds(by_level["hard"])
    for line in verdicts:
        print(line)
    verdict = "MET" if hard_mean < TIME_TARGET_MS and hard_p95 < TIME_TARGET_MS else "NOT MET"
    print(f"target: hard robot under {TIME_TARGET_MS:.0f} ms a turn on one core (mean and p95): {verdict}")
    if rejections:
        print("error: orders were rejected; the robot, the baseline or the rules core has a bug", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
