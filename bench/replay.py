"""How fast `gm replay` checks a game: turns a second, byte for byte.

`gm.pbem.operator.admin.verify_replay` (what ``gm replay`` runs) rebuilds each game
from its archive alone and renders every message the GM sent, comparing it
with the archived copy. It is run on games of a data directory from
bench/build_data.py (all of them, or the first --replay-games), and the
figure is turns played a second (a game "at turn T" has played T-1 turns).
Printed beside a reference measured in the same run on the same games:
reading every message of their archives and parsing it with
``email.message_from_bytes`` (the modern policy, as gm reads mail), the
least any replay that looks at every message must do. Issue 12's target
was 1,000 turns a second; issue 27's is a replay at least 0.8 as fast as
that reference, still byte-exact.

The reference and the replay are run in turn, --repeat times each, and
each is reported by its best pass, in wall-clock time and in CPU time
(time.process_time): on a machine that other work shares, the best pass is
the one least disturbed, and taking turns exposes both to the same load.

With --profile, a cProfile of the replays (top 15 by cumulative time)
follows, so that the next person knows where replay's time goes.

Games built here are made under today's edition of gm's mail rules
(`gm.kernel.values.EDITION`) unless --edition says another: --edition 3
builds them as gm made them when issue 12 was filed (inline-styled,
quoted-printable sheets), which gm still replays as they were.

    python bench/replay.py [--data DIR] [--edition N] [--replay-games K] [--repeat R] [--profile] [--quick]
"""

from __future__ import annotations

import argparse
import cProfile
import email
import email.policy
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

from gm.pbem.archive.replay import is_inbound
from gm.pbem.operator.admin import verify_replay

HERE = Path(__file__).resolve().parent


def parse_all(paths: list[Path]) -> tuple[float, float, int]:
    """Reference: read and parse every archived message of these games;
    (seconds, CPU seconds, messages)."""
    start, cpu = time.perf_counter(), time.process_time()
    count = 0
    for path in paths:
        for sub in ("cur", "new"):
            for entry in os.scandir(path / sub):
                with open(entry.path, "rb") as handle:
                    email.message_from_bytes(handle.read(), policy=email.policy.default)
                count += 1
    return time.perf_counter() - start, time.process_time() - cpu, count


def replay_all(paths: list[Path]) -> tuple[float, float, int]:
    """`gm replay` on each game; (seconds, CPU seconds, messages compared).
    Raises if one differs."""
    start, cpu = time.perf_counter(), time.process_time()
    compared = 0
    for path in paths:
        count, differences = verify_replay(str(path))
        if differences:
            raise RuntimeError(f"{path.name} does not replay exactly: {differences[:3]}")
        compared += count
    return time.perf_counter() - start, time.process_time() - cpu, compared


def turns_played(path: Path) -> int:
    """Turns a game has played: its turn sheets' events (two sheets an event: out.2 and out.3 after orders)."""
    names = {e.name.split(":2,")[0] for sub in ("cur", "new") for e in os.scandir(path / sub)}
    sheets = {n.split(".")[0] for n in names if n.endswith(".out.3")}
    inbound_with_sheets = {n.split(".")[0] for n in names if is_inbound(n)} & sheets
    return len(inbound_with_sheets) - 1  # the first pair of sheets is the game's start, not a turn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="a data directory from bench/build_data.py (default: build one)")
    parser.add_argument("--games", type=int, default=8, help="games to build when no --data (default 8)")
    parser.add_argument("--turns", type=int, default=40, help="turn they reach when no --data (default 40)")
    parser.add_argument("--replay-games", type=int, default=8, help="games to replay (default 8; 0: all)")
    parser.add_argument("--repeat", type=int, default=1, help="times to replay them (default 1)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile summary of one replay pass")
    parser.add_argument("--seed", type=int, default=1, help="seed of the built games' orders (default 1)")
    parser.add_argument("--edition", type=int, help="edition the built games are made under (default today's)")
    parser.add_argument("--quick", action="store_true", help="4 games at turn 3, for the smoke test")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.turns, args.replay_games = 4, 3, 4

    with tempfile.TemporaryDirectory(prefix="gm-bench-replay-") as temporary:
        if args.data:
            data = Path(args.data)
            print(f"data directory: {data}")
        else:
            sys.path.insert(0, str(HERE))
            import gm.pbem.archive.creation
            from build_data import build, describe

            data = Path(temporary) / "data"
            today = gm.pbem.archive.creation.EDITION
            gm.pbem.archive.creation.EDITION = args.edition or today  # what `gm new` writes into the creation event
            try:
                built = build(data, args.games, args.turns, prototypes=args.games, verify=0, seed=args.seed)
            finally:
                gm.pbem.archive.creation.EDITION = today
            print(f"data directory built now, edition {args.edition or today}: {describe(built)}")
        games = sorted((p for p in (data / "games").iterdir() if (p / "cur").is_dir()),
                       key=lambda p: (len(p.name), p.name))
        if args.replay_games:
            games = games[:args.replay_games]
        turns = sum(turns_played(p) for p in games)
        parse_all(games)  # warms the page cache, and gm's templates for the replays
        replay_all(games)
        references, replays = [], []
        for _ in range(max(1, args.repeat)):
            references.append(parse_all(games))
            replays.append(replay_all(games))
        messages, compared = references[0][2], replays[0][2]
        wall, cpu = min(r[0] for r in replays), min(r[1] for r in replays)
        reference_wall, reference_cpu = min(r[0] for r in references), min(r[1] for r in references)
        runs = f" (runs: {', '.join(f'{turns / r[0]:,.1f}' for r in replays)})" if len(replays) > 1 else ""
        reference_runs = (f" (runs: {', '.join(f'{turns / r[0]:,.1f}' for r in references)})"
                          if len(references) > 1 else "")
        print(f"games replayed: {len(games)} ({turns:,} turns played, {messages:,} archived messages, "
              f"{compared:,} of the GM's compared byte for byte)")
        print(f"turns/s gm replay: {turns / wall:,.1f}{runs}; in CPU time {turns / cpu:,.1f}")
        print(f"ms per turn gm replay: {wall / turns * 1000:.1f}")
        print(f"reference turns/s reading and parsing every archived message: {turns / reference_wall:,.1f}"
              f"{reference_runs}; in CPU time {turns / reference_cpu:,.1f}")
        print(f"replay's rate as a share of the reference's: {reference_wall / wall:.2f} "
              f"(in CPU time {reference_cpu / cpu:.2f})")
        print(f"target: at least 1,000 turns a second, byte-exact: {'MET' if turns / wall >= 1000 else 'NOT MET'}")
        verdict = "MET" if reference_wall / wall >= 0.8 and reference_cpu / cpu >= 0.8 else "NOT MET"
        print(f"target: at least 0.8 of the reference's rate, byte-exact: {verdict}")
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            replay_all(games)
            profiler.disable()
            out = io.StringIO()
            pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(15)
            print("profile of one replay pass (top 15, cumulative):")
            print(out.getvalue().strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
