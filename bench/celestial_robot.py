"""How well the GM's Celestial Empire robot plays, and how fast.

Three measures, on the rules core directly (tests/celestial_robots.py):

* orders: nine robot empires of mixed levels (easy, normal, hard, three
  of each) play games of up to 100 turns (variant standard+turns=100, or
  sooner by its winning conditions): robot lines the parser refused, and
  robot orders read but not carried out, with their reasons;
* strength: one robot against eight others (the fuzz test's random but
  plausible mail, `mail_for`, or easy robots), its win rate by the
  variant's winning conditions with a Wilson 95% interval, and its mean
  finishing place; the galaxy is the same from every home, so the seat
  does not matter;
* time: the time to write one robot empire's mail (its sheet data, its
  view, its orders) in turns 96 to 100 of two nine-empire games that no
  condition ends early (`LONG`).

    python bench/celestial_robot.py [--games N] [--turns T] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from celestial_robots import FUZZ, Played, play

LONG = "standard+turns=100+score=no+planets=no+earth=no"
"""A game that runs its whole length, for the time per robot turn at turn 100."""


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson 95% interval of a rate of ``wins`` in ``n``."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def strength(name: str, level: str, others: str, seeds: range, turns: int) -> None:
    """``level`` in seat 1 against eight ``others``: win rate and mean place."""
    wins, places, lengths = 0, [], []
    games = len(seeds)
    for seed in seeds:
        played = play(1000 + seed, (level, *[others] * 8), turns=turns)
        wins += 1 in played.winners
        places.append(played.rank(1))
        lengths.append(played.turns)
    low, high = wilson(wins, games)
    print(f"{name} win rate %: {100 * wins / games:.0f} (95% CI {100 * low:.0f}-{100 * high:.0f}), "
          f"{wins} of {games} games of {statistics.fmean(lengths):.0f} turns on average")
    print(f"{name} mean place: {statistics.fmean(places):.2f} of 9")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games of each measure (default 10)")
    parser.add_argument("--turns", type=int, default=100, help="turns at most (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="the first game's seed (default 1)")
    parser.add_argument("--quick", action="store_true", help="one game of 5 turns each, for the smoke test")
    args = parser.parse_args(argv)
    games, turns = (1, 5) if args.quick else (args.games, args.turns)

    start = time.perf_counter()
    seeds = range(args.seed, args.seed + games)
    mixed: list[Played] = [play(seed, ("easy", "normal", "hard") * 3, turns=turns) for seed in seeds]
    rejected = sum(p.rejected for p in mixed)
    orders = sum(p.orders for p in mixed)
    undone: Counter[str] = Counter()
    for p in mixed:
        undone.update(p.not_done)
    total = sum(undone.values())
    print(f"mixed games: {games}, {statistics.fmean(p.turns for p in mixed):.0f} turns on average "
          f"({Counter(p.reason.split(' (')[0] for p in mixed).most_common()})")
    print(f"robot lines refused by the parser: {rejected}")
    print(f"robot orders read: {orders}")
    print(f"robot orders not carried out: {total}")
    print(f"robot orders not carried out %: {100 * total / max(1, orders):.2f}")
    for why, n in undone.most_common(8):
        print(f"  {n:6}  {why}")
    places: dict[str, list[int]] = {}
    for p in mixed:
        for empire, level in enumerate(p.levels, 1):
            places.setdefault(level, []).append(p.rank(empire))
    for level in ("easy", "normal", "hard"):
        wins = sum(1 for p in mixed for e, lv in enumerate(p.levels, 1) if lv == level and e in p.winners)
        print(f"mixed games, {level} mean place: {statistics.fmean(places[level]):.2f} "
              f"({wins} wins among its {3 * games} empires)")
    timed = [play(seed, ("easy", "normal", "hard") * 3, variant=LONG, turns=turns) for seed in seeds[:2]]
    long_orders = sum(p.orders for p in timed)
    long_undone: Counter[str] = Counter()
    for p in timed:
        long_undone.update(p.not_done)
    print(f"long games: {len(timed)} of {statistics.fmean(p.turns for p in timed):.0f} turns; robot lines refused: "
          f"{sum(p.rejected for p in timed)}; orders read: {long_orders}; not carried out: "
          f"{sum(long_undone.values())} ({100 * sum(long_undone.values()) / max(1, long_orders):.2f}%)")
    for why, n in long_undone.most_common(8):
        print(f"  {n:6}  {why}")
    rejected += sum(p.rejected for p in timed)
    last = sorted(s for p in timed for s in p.seconds[-9 * 5:])
    print(f"robot mails timed: {len(last)}, turns {max(1, turns - 4)} to {turns} of {LONG}, "
          f"{sum(len(p.state.ships) for p in timed) // len(timed)} ships and "
          f"{sum(sum(1 for q in p.state.planets.values() if q.owner) for p in timed) // len(timed)} planets owned")
    print(f"seconds per robot mail p95: {last[int(0.95 * (len(last) - 1))]:.4f}")
    print(f"seconds per robot mail max: {last[-1]:.4f}")
    print(f"seconds per robot mail median: {statistics.median(last):.4f}")

    strength("hard vs eight fuzz", "hard", FUZZ, seeds, turns)
    strength("hard vs eight easy", "hard", "easy", seeds, turns)
    strength("hard vs eight normal", "hard", "normal", seeds, turns)
    strength("normal vs eight easy", "normal", "easy", seeds, turns)
    strength("easy vs eight easy", "easy", "easy", seeds, turns)
    print(f"wall time: {time.perf_counter() - start:.0f} s")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
