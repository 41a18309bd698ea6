"""How long gm takes to generate a Celestial Empire galaxy.

`generate(seed, empires)` runs when a game starts and again whenever
`gm replay` rebuilds one from its archive, so it must be quick: the target is
well under 100 ms a galaxy. Galaxies are generated for consecutive seeds,
with the number of empires cycling through 2 to 9, and the mean time is
printed beside a reference measured in the same run: a plain random graph of
256 planets built with the same kind of `random.Random` (a random tree, then
extra links up to about 380, no planet over four links) followed by ten
breadth-first searches, which is roughly the least work any generator that
checks its result must do.

    python bench/celestial_galaxy.py [--galaxies N] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import deque

from gm.games.celestial_empire.galaxy import generate

TARGET_MS = 100.0
PLANETS = 256
LINKS = 380


def reference_graph(rng: random.Random) -> list[list[int]]:
    """A connected random graph of 256 nodes with at most four links each, and ten searches over it."""
    adj: list[list[int]] = [[] for _ in range(PLANETS)]
    for new in range(1, PLANETS):
        parent = rng.choice([p for p in range(new) if len(adj[p]) < 4])
        adj[new].append(parent)
        adj[parent].append(new)
    links = PLANETS - 1
    while links < LINKS:
        a, b = rng.randrange(PLANETS), rng.randrange(PLANETS)
        if a != b and b not in adj[a] and len(adj[a]) < 4 and len(adj[b]) < 4:
            adj[a].append(b)
            adj[b].append(a)
            links += 1
    for start in range(0, PLANETS, PLANETS // 10 + 1):
        seen = {start}
        queue = deque([start])
        while queue:
            for there in adj[queue.popleft()]:
                if there not in seen:
                    seen.add(there)
                    queue.append(there)
    return adj


def time_per_call(make, count: int, seed: int) -> list[float]:
    """Milliseconds taken by each of ``count`` calls of ``make(seed + i, i)``."""
    times = []
    for i in range(count):
        start = time.perf_counter()
        make(seed + i, i)
        times.append((time.perf_counter() - start) * 1000)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--galaxies", type=int, default=500, help="how many galaxies (default 500)")
    parser.add_argument("--seed", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--quick", action="store_true", help="30 galaxies, for the smoke test")
    args = parser.parse_args(argv)
    count = 30 if args.quick else args.galaxies

    galaxy_ms = time_per_call(lambda seed, i: generate(seed, 2 + i % 8), count, args.seed)
    reference_ms = time_per_call(lambda seed, i: reference_graph(random.Random(seed)), count, args.seed)

    mean, reference = statistics.fmean(galaxy_ms), statistics.fmean(reference_ms)
    print(f"galaxies: {count}")
    print(f"ms per galaxy: {mean:.2f} (median {statistics.median(galaxy_ms):.2f}, max {max(galaxy_ms):.2f})")
    print(f"reference ms per random graph: {reference:.2f} (256 planets, {LINKS} links, 10 searches)")
    print(f"ratio galaxy/reference: {mean / reference:.1f}")
    print(f"target: under {TARGET_MS:.0f} ms per galaxy: {'MET' if max(galaxy_ms) < TARGET_MS else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
