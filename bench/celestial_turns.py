"""How long gm takes to run a Celestial Empire turn.

A game of 9 empires (the most) is played for 100 turns, each empire sending
the random but plausible order mail of the fuzz test (tests/celestial_fuzz.py:
jumps, loads, battles, building, Earth trade, nonsense...), started in the
middle of things so that the orders meet (`scattered_game`). The time of
`run_turn` alone is measured for each turn (the mails are written and read
before the clock starts), and printed beside a reference measured in the
same run on the same states: one `copy.deepcopy` of the state, which
`run_turn` made once a turn until each state class copied itself
(`GameState.copy`, issue 27; it never changes the state it is given), so
the ratio says how many such copies' worth of work a turn now is.

    python bench/celestial_turns.py [--turns N] [--empires E] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from celestial_fuzz import mail_for, scattered_game
from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.research import research_lines
from gm.games.celestial_empire.turn import run_turn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100, help="turns to play (default 100)")
    parser.add_argument("--empires", type=int, default=9, help="empires, 2 to 9 (default 9)")
    parser.add_argument("--seed", type=int, default=1, help="the galaxy's and the orders' seed (default 1)")
    parser.add_argument("--quick", action="store_true", help="10 turns, for the smoke test")
    args = parser.parse_args(argv)
    turns = 10 if args.quick else args.turns

    state = scattered_game(args.seed, args.empires)
    rng = random.Random(args.seed)
    turn_ms: list[float] = []
    copy_ms: list[float] = []
    orders_count = 0
    for _ in range(turns):
        orders, research = {}, {}
        for empire in sorted(state.empires):
            lines = parse_orders(mail_for(state, empire, rng))
            orders[empire] = [line.order for line in lines if line.order is not None]
            research[empire] = research_lines(lines)
            orders_count += len(orders[empire])
        start = time.perf_counter()
        copy.deepcopy(state)
        copy_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        state, _ = run_turn(state, orders, research)
        turn_ms.append((time.perf_counter() - start) * 1000)

    mean, reference = statistics.fmean(turn_ms), statistics.fmean(copy_ms)
    print(f"empires: {args.empires}")
    print(f"turns: {turns}")
    print(f"orders: {orders_count} ({orders_count / turns:.0f} a turn)")
    print(f"ms per turn: {mean:.2f} (median {statistics.median(turn_ms):.2f}, max {max(turn_ms):.2f})")
    print(f"reference ms per deepcopy of the state: {reference:.2f}")
    print(f"ratio turn/deepcopy: {mean / reference:.1f}")
    print(f"ships at the end: {len(state.ships)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
