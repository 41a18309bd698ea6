"""How many turns per second gm resolves, on one core.

A random but legal bot (`gm.games.spaceships.bot`) plays both sides of many complete games,
each from its own random fleets, with a seeded `random.Random` so that every
run with the same seed plays the same games. Nothing is generated in advance:
each turn's orders are made from the state that the previous turn produced.

Two rates are printed:

* resolve-only: turns per second counting only the referee's work, that is
  `resolve_turn` (checking both players' orders and resolving them) plus the
  entitlements it checks against. `GameState` caches each side's entitlement
  and the bot reads it too, so the benchmark has the referee work it out,
  inside the timed section, *before* the bot looks at the state; otherwise
  the bot would pay for part of the checking and flatter the figure.
* with bot: the whole loop, wall-clock: fleets, the bot's orders, the
  resolution and this script's bookkeeping.

The target (at least 5,000 turns a second on one core) applies to the
resolve-only rate: it is what a game master pays per turn.

The bot's orders must all be accepted: a rejected order means a bug in the
bot or in the rules core, so rejections are counted, the first few printed,
and the exit status is 1 if there were any.

    python bench/resolve.py [--games N] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from gm.games.spaceships.bot import random_fleet, random_orders
from gm.games.spaceships.orders import format_orders
from gm.games.spaceships.resolution import resolve_turn
from gm.games.spaceships.state import GameState

TARGET = 5_000
"""Turns per second on one core, resolve-only."""
MAX_TURNS = 300
"""A game still going after this many turns is stopped (and counted)."""
SHOW_REJECTIONS = 5


class Tally:
    def __init__(self) -> None:
        self.games = 0
        self.turns = 0
        self.finished = 0
        self.capped = 0
        self.resolve_seconds = 0.0
        self.rejections = 0
        self.examples: list[str] = []


def play_game(rng: random.Random, tally: Tally, seed: int, game: int) -> None:
    """One game from random fleets to its end (or MAX_TURNS)."""
    state = GameState.new(random_fleet(rng), random_fleet(rng))
    clock = time.perf_counter
    for _ in range(MAX_TURNS):
        start = clock()
        state.entitlement(1)  # what checking needs; cached on the state
        state.entitlement(2)
        tally.resolve_seconds += clock() - start

        orders1 = random_orders(state, 1, rng)
        orders2 = random_orders(state, 2, rng)

        start = clock()
        next_state, report = resolve_turn(state, orders1, orders2)
        tally.resolve_seconds += clock() - start

        tally.turns += 1
        for player, (check, orders) in enumerate(zip(report.checks, (orders1, orders2)), 1):
            for rejected in check.rejected:
                tally.rejections += 1
                if len(tally.examples) < SHOW_REJECTIONS:
                    tally.examples.append(
                        f"  seed {seed}, game {game}, turn {state.turn}, player {player}: "
                        f"{rejected.order} rejected ({rejected.reason}) in {format_orders(orders)!r}"
                    )
        state = next_state
        if state.result is not None:
            tally.finished += 1
            break
    else:
        tally.capped += 1
    tally.games += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games to play (default 400: about 5-10 s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bot's random.Random (default 1)")
    parser.add_argument("--quick", action="store_true", help="a tiny run (5 games) for smoke tests")
    args = parser.parse_args(argv)
    games = 5 if args.quick else args.games

    rng = random.Random(args.seed)
    tally = Tally()
    start = time.perf_counter()
    for game in range(1, games + 1):
        play_game(rng, tally, args.seed, game)
    total_seconds = time.perf_counter() - start

    resolve_rate = tally.turns / tally.resolve_seconds
    loop_rate = tally.turns / total_seconds
    print(f"resolve benchmark: seed {args.seed}, one process, Python {sys.version.split()[0]}")
    print(f"games: {tally.games} ({tally.finished} finished, {tally.capped} stopped at {MAX_TURNS} turns)")
    print(f"turns: {tally.turns} (mean {tally.turns / tally.games:.1f} a game)")
    print(f"time resolve-only: {tally.resolve_seconds:.3f} s, whole loop: {total_seconds:.3f} s")
    print(f"turns/s resolve-only: {resolve_rate:,.0f}")
    print(f"turns/s with bot: {loop_rate:,.0f}")
    print(f"rejected orders: {tally.rejections}")
    for example in tally.examples:
        print(example)
    verdict = "MET" if resolve_rate >= TARGET else "NOT MET"
    print(f"target: at least {TARGET:,} turns/s on one core (resolve-only): {verdict}")
    if tally.rejections:
        print("error: the bot's orders were rejected; the bot or the rules core has a bug", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
