"""How long gm takes to start serving a data directory of N games at turn T, and its memory then.

The daemon (`gm.daemon.Daemon`, with a `Config` like the tests' World:
real SMTP on 127.0.0.1 port 0, local delivery, the real clock) is started in
a child process of its own; an order mail for the last game (player 1, one
strike, sent to the game's reply address with the player's real token) is
sent over real SMTP as soon as the listener is open. The figure is the time
from constructing the daemon until that mail's acknowledgement is queued
(in outbox/ or delivered/): gm listens at once, but handles mail only once
every game is opened (from the start-up index where a game's entry still
holds, else from its archive's listing and its snapshot's head where that
is current, else rebuilt from its archive), so this is start-up as a
player sees it. Each run's copy is opened once before it is measured
(`prime_index`), as a data directory is that gm ran on and stopped, so
that the start-up index is there; ``--no-index`` measures without it (the
first start of a gm that writes one: every archive listed).
``--drop-snapshots`` measures the start without them (every game is rebuilt
before mail is handled). ``--upgrade`` also measures, in the same run, the
first start after an upgrade of gm that leaves no snapshot current: each
snapshot's head is rewritten as the release before schema numbers wrote it
(`gm.pbem.state.snapshots`), so every game starts pending on its old
summary and is replayed when its mail comes or in the background; printed
beside the start with current snapshots, with how many games were still
pending when the mail was acknowledged. Printed
per game, beside a reference measured in the same run:
reading every archive file's bytes from disk (done first, so the page cache
is warm for both; the reference is the floor of any start-up that reads
the archives, not a target).

Memory: the child's peak RSS (``resource.getrusage(RUSAGE_SELF).ru_maxrss``)
and its RSS once the mail is handled, beside the peak RSS of a bare
interpreter that imported gm's daemon; the difference is given per game
and per turn played (a game "at turn T" has played T-1 turns).

The data directory comes from bench/build_data.py (``--data DIR``); without
one, a small one is built in a temporary directory. gm never rewrites an
archive file, but start-up may add to the data directory (the mail, its
reply), so the run works on a hard-linked copy, removed afterwards.

    python bench/startup.py [--data DIR] [--games N --turns T] [--repeat R] [--upgrade] [--no-index] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import resource
import shutil
import smtplib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from email.utils import format_datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
GM_ADDRESS = "gm@example.org"


def archive_list_seconds(data: Path) -> float:
    """Reference: list every archive's folders (what start-up must do at
    least, to check each game's snapshot against its archive)."""
    start = time.perf_counter()
    for game in os.scandir(data / "games"):
        for sub in ("cur", "new"):
            sorted(entry.name for entry in os.scandir(os.path.join(game.path, sub)))
    return time.perf_counter() - start


def archive_read_seconds(data: Path) -> tuple[float, int, int]:
    """Reference: read every archive file's bytes (seconds, files, bytes)."""
    start = time.perf_counter()
    files = size = 0
    for game in os.scandir(data / "games"):
        for sub in ("cur", "new"):
            for entry in os.scandir(os.path.join(game.path, sub)):
                with open(entry.path, "rb") as handle:
                    size += len(handle.read())
                files += 1
    return time.perf_counter() - start, files, size


def vm_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def child(data: str, timeout: float) -> int:
    """In the child process: start the daemon, send the order mail, wait for its acknowledgement."""
    from gm.daemon import Config, Daemon
    from gm.pbem.data.store import Store
    from gm.pbem.data.tokens import token
    from gm.pbem.intake.limits import Limits
    from gm.pbem.writing.mailer import Identity

    root = Path(data)
    with_store = Store(root)
    game = with_store.game_ids()[-1]
    last = max(int(k.split(".")[0]) for k in with_store.archive(game).keys())
    ack = f"{game}.{last + 1:06d}.out.1"
    reply_to = f"gm+{game}.1.{token(with_store.key, game, 1)}@example.org"
    sender = f"{game}.p1@players.example"
    raw = (f"From: {sender}\r\nTo: {reply_to}\r\nSubject: [gm {game}] orders\r\n"
           f"Date: {format_datetime(datetime.now(UTC))}\r\nMessage-ID: <startup-{time.time_ns()}@players.example>\r\n"
           f"\r\nRv1\r\n").encode()
    del with_store
    places = [root / "outbox" / "new" / ack, root / "delivered" / "new" / ack]

    opened: list[str] = []

    class Opened(logging.Handler):
        """Keeps the daemon's ``games opened`` line (how many were listed, how long it took)."""

        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("games opened"):
                opened.append(record.getMessage())

    logging.getLogger("gm").addHandler(Opened())
    logging.getLogger("gm").setLevel(logging.DEBUG)

    async def run() -> dict:
        start = time.perf_counter()
        # No daily cap: the games the build played for real sent their mail today.
        daemon = Daemon(Config(data=data, smtp=("127.0.0.1", 0), identity=Identity(GM_ADDRESS),
                               limits=Limits(replies_per_day=10 ** 9)))
        await daemon.start()
        listening = time.perf_counter() - start
        port = daemon.bound["smtp"][1]
        answered: list[float] = []

        def send() -> None:
            with smtplib.SMTP("127.0.0.1", port, timeout=timeout) as client:
                client.sendmail(sender, [reply_to], raw)
            answered.append(time.perf_counter() - start)

        sending = threading.Thread(target=send)
        sending.start()
        while not any(p.exists() for p in places):
            if time.perf_counter() - start > timeout:
                raise TimeoutError(f"no acknowledgement {ack} within {timeout:.0f} s")
            await asyncio.sleep(0.01)
        seconds = time.perf_counter() - start
        sending.join()
        games = daemon.master.games
        result = {"seconds": seconds, "listening": listening, "accepted": answered[0] if answered else None,
                  "games": len(games), "turns_played": sum(max(0, g.turn - 1) for g in games.all()),
                  "whole": sum(games.is_loaded(g) for g in games), "pending": len(games.pending),
                  "opened": opened[0] if opened else "", "rss": vm_rss(),
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
        await daemon.stop()
        return result

    print(json.dumps(asyncio.run(run())))
    return 0


def as_before_schema_numbers(data: Path) -> None:
    """Rewrite every snapshot's head as the gm before schema numbers wrote it
    (a code fingerprint, no schema numbers), its body's bytes kept: the
    first start after an upgrade then reads none of them. Each file is
    replaced by a rename, so a hard-linked copy leaves its source as it was."""
    import pickle

    from gm.pbem.state import snapshots

    for path in sorted((data / "snapshots").iterdir()):
        if path.name.startswith("."):
            continue
        with open(path, "rb") as handle:
            head_bytes, body_bytes = snapshots._read_file(handle, body=True)
        head = pickle.loads(head_bytes)
        del head.schemas
        head.fingerprint = "the gm before schema numbers"
        snapshots.write_pickled(data, path.name, pickle.dumps(head, protocol=5), body_bytes or b"")


def prime_index(data: Path) -> float:
    """Open every game once, as a start of gm does, which leaves the start-up
    index (`gm.pbem.state.index`) that the next start reads: what a data
    directory holds after gm ran on it and stopped. Waits first until what
    was just written has settled, as an index entry asks. Returns how long
    the opening took (every game listed: a start without the index)."""
    from gm.pbem.data.store import Store
    from gm.pbem.master.game_master import GameMaster
    from gm.pbem.state import index
    from gm.pbem.writing.mailer import Identity

    time.sleep(index.SETTLED_NS / 1e9 + 0.1)
    start = time.perf_counter()
    GameMaster(Store(data, create=False), Identity(GM_ADDRESS)).load()
    return time.perf_counter() - start


def bare_peak() -> int:
    """Peak RSS of an interpreter that only imported gm's daemon (same flags as this one)."""
    code = ("import resource, gm.daemon, gm.games.spaceships.mail; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)")
    done = subprocess.run([sys.executable, *interpreter_flags(), "-c", code], capture_output=True, text=True,
                          check=True)
    return int(done.stdout)


def interpreter_flags() -> list[str]:
    """-P always: with ``-c`` the current directory would come first on the
    path, and from a checkout that is gm's source, whose kernel templates
    exist only in the installed package."""
    return ["-P"]


def mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", help="a data directory from bench/build_data.py (default: build one)")
    parser.add_argument("--games", type=int, default=100, help="games to build when no --data (default 100)")
    parser.add_argument("--turns", type=int, default=20, help="turn they reach when no --data (default 20)")
    parser.add_argument("--repeat", type=int, default=1, help="start-ups to measure (default 1)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="bound on one start-up, seconds")
    parser.add_argument("--seed", type=int, default=1, help="seed of the built games' orders (default 1)")
    parser.add_argument("--quick", action="store_true", help="12 games at turn 3, for the smoke test")
    parser.add_argument("--no-read-reference", action="store_true",
                        help="skip the reference of reading every archive file (minutes for 10,000 games at turn 80, "
                             "and it flushes the page cache)")
    parser.add_argument("--drop-snapshots", action="store_true",
                        help="start without snapshots (as the first start after an upgrade): every game is replayed")
    parser.add_argument("--upgrade", action="store_true",
                        help="also start after an upgrade (no snapshot current: each game pending, replayed when "
                             "its mail comes or in the background), beside the current start, in the same run")
    parser.add_argument("--no-index", action="store_true",
                        help="start without the start-up index (as the first start of a gm that writes one): every "
                             "game's archive is listed and its snapshot's head read before mail is handled")
    parser.add_argument("--child", metavar="DATA", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.timeout)
    if args.quick:
        args.games, args.turns, args.timeout = 12, 3, 60.0

    with tempfile.TemporaryDirectory(prefix="gm-bench-startup-") as temporary:
        work = Path(temporary)
        if args.data:
            source = Path(args.data)
            print(f"data directory: {source}")
        else:
            sys.path.insert(0, str(HERE))
            from build_data import build, describe

            source = work / "built"
            built = build(source, args.games, args.turns, seed=args.seed, prototypes=2 if args.quick else 4, verify=3)
            print(f"data directory built now: {describe(built)}")
        reference, files, size = (None, 0, 0) if args.no_read_reference else archive_read_seconds(source)
        listing = archive_list_seconds(source)
        bare = bare_peak()
        runs, upgraded, primed = [], [], []
        for number in range(args.repeat):
            for kind in ("current", "upgrade") if args.upgrade else ("current",):
                copy = work / f"run{number}-{kind}"
                subprocess.run(["cp", "-al", str(source), str(copy)], check=True)
                if args.drop_snapshots:
                    shutil.rmtree(copy / "snapshots", ignore_errors=True)
                if kind == "upgrade":
                    as_before_schema_numbers(copy)
                if not args.no_index:
                    primed.append(prime_index(copy))
                load = os.getloadavg()
                done = subprocess.run([sys.executable, *interpreter_flags(), __file__, "--child", str(copy),
                                       "--timeout", str(args.timeout)], capture_output=True, text=True)
                shutil.rmtree(copy, ignore_errors=True)
                if done.returncode != 0:
                    print(f"error: the daemon's start-up failed:\n{done.stdout}\n{done.stderr[-3000:]}",
                          file=sys.stderr)
                    return 1
                result = json.loads(done.stdout.strip().splitlines()[-1])
                (upgraded if kind == "upgrade" else runs).append(result)
                print(f"run {number + 1}, {'after an upgrade' if kind == 'upgrade' else 'snapshots current'}: "
                      f"first order mail acknowledged after {result['seconds']:.2f} s"
                      + (f", its priming open (no index) {primed[-1]:.2f} s" if not args.no_index else "")
                      + f"; load average before it {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {result['opened']}",
                      flush=True)
        games = runs[0]["games"]
        played = runs[0]["turns_played"]
        seconds = [r["seconds"] for r in runs]
        peak = max(r["peak"] for r in runs)
        spread = f" (runs: {', '.join(f'{s:.2f}' for s in seconds)})" if len(runs) > 1 else ""
        print(f"games: {games:,} ({played:,} turns played, {played / games:.0f} a game)")
        if reference is not None:
            print(f"archive: {files:,} files, {mib(size)}")
        print(f"start-up seconds until the first order mail is acknowledged: {statistics.median(seconds):.2f}{spread}")
        print(f"listening after: {statistics.median(r['listening'] for r in runs):.2f} s; "
              f"the mail accepted (250) after {statistics.median(r['accepted'] for r in runs):.2f} s")
        print(f"ms per game: {statistics.median(seconds) / games * 1000:.2f}")
        if reference is not None:
            print(f"reference ms per game to read its archive files: {reference / games * 1000:.3f} "
                  f"({reference:.2f} s in all)")
            print(f"ratio start-up/reference: {statistics.median(seconds) / reference:.2f}")
        print(f"reference ms per game to list its archive folders: {listing / games * 1000:.3f} "
              f"(ratio start-up/listing: {statistics.median(seconds) / listing:.2f})")
        print(f"games whole in memory once the mail is handled (its own, and any without a current snapshot), "
              f"of {games:,}: {runs[0]['whole']:,}"
              f"{' (snapshots dropped)' if args.drop_snapshots else ''}")
        if primed:
            print(f"reference: opening every game without the index (the priming start, GameMaster.load), seconds: "
                  f"{', '.join(f'{s:.2f}' for s in primed)}")
        print(f"start-up's own line, each run: {'; '.join(r['opened'] for r in runs + upgraded)}")
        if upgraded:
            after = [r["seconds"] for r in upgraded]
            print(f"after an upgrade, start-up seconds until the first order mail is acknowledged: "
                  f"{statistics.median(after):.2f}"
                  + (f" (runs: {', '.join(f'{s:.2f}' for s in after)})" if len(after) > 1 else "")
                  + f"; reference, snapshots current, same run: {statistics.median(seconds):.2f}")
            print(f"after an upgrade, games still pending when it was acknowledged: "
                  f"{statistics.median(r['pending'] for r in upgraded):,.0f} of {games:,}; "
                  f"peak RSS MiB: {max(r['peak'] for r in upgraded) / 2**20:,.1f}")
        print(f"peak RSS MiB: {peak / 2**20:,.1f} (RSS once serving {mib(runs[-1]['rss'])})")
        print(f"reference peak RSS MiB of a bare interpreter that imported gm: {bare / 2**20:,.1f}")
        print(f"KiB per game: {(peak - bare) / games / 1024:,.1f}")
        print(f"KiB per turn played: {(peak - bare) / max(played, 1) / 1024:,.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
