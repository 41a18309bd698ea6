"""What the master costs per order mail: CPU milliseconds of `GameMaster`
handling order mails already in the spool, with no SMTP and no delivery.

bench/ingest.py measures gm end to end, where the master's one thread is
what limits it; this measures that thread's work alone, so that a change to
it can be seen without the noise of eight SMTP clients and a second server.

Games in play are built through the real code paths (bench/ingest.py's
`build_games`: creation requests, both players' setups, local delivery),
and the order mails are bench/ingest.py's: each a reply to the GM's latest
mail to its player, one or two strikes at random cells (seeded), player 1
then player 2 for each game in turn, so that every second mail runs a turn
and renders a turn sheet for both players. For each pass, a fresh copy of
the built data directory gets every order mail spooled by gm's own
`SpoolHandler` (as if over SMTP), a new `GameMaster` loads the games and
brings each whole into memory (the steady state of a serving daemon), and
then one `process_spool` handles them all: that call alone is timed, in CPU
time (time.process_time) and wall-clock time. Every order mail must have
been acknowledged and none shunted, or the run fails (exit 1).

Printed beside it, measured in the same run on the same mails: the CPU
time of parsing each spooled mail with the email package's modern policy
(``email.message_from_bytes(raw, policy=email.policy.default)``) and
reading its From, which is what the master did first with every mail when
this was written. The passes take turns, --repeat times each, and each is
reported by its best pass and its median.

With --profile, one more pass runs under cProfile and its top functions
(cumulative and own time) are printed, so that the next person knows where
the master's time goes.

    python bench/master.py [--games G] [--messages N] [--repeat R] [--seed S] [--profile] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import email
import email.policy
import io
import logging
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from aiosmtpd.smtp import Envelope

from gm.daemon import SpoolHandler
from gm.pbem.data.store import Store
from gm.pbem.master.game_master import GameMaster, utc_now
from gm.pbem.writing.mailer import Identity

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ingest import DAILY_CAP, GM_ADDRESS, Mail, build_games, git_head, order_mails


@dataclass
class Pass:
    cpu: float
    wall: float
    mails: int
    system: float = 0.0
    """Of ``cpu``, the time spent in the kernel (file system calls)."""

    @property
    def cpu_ms(self) -> float:
        return 1000 * self.cpu / self.mails

    @property
    def wall_ms(self) -> float:
        return 1000 * self.wall / self.mails


def spool(data: Path, mails: list[Mail]) -> list[bytes]:
    """Spool ``mails`` into ``data`` as gm's SMTP listener does; the spooled bytes, in order."""
    store = Store(data)
    handler = SpoolHandler(store, Identity(GM_ADDRESS), utc_now, "smtp")

    async def send() -> None:
        for mail in mails:
            envelope = Envelope()
            envelope.mail_from = mail.sender
            envelope.rcpt_tos = [mail.recipient.lower()]
            envelope.original_content = mail.raw
            answer = await handler.handle_DATA(None, None, envelope)  # type: ignore[arg-type]
            if not answer.startswith("250"):
                raise RuntimeError(f"spooling refused: {answer}")

    asyncio.run(send())
    return [store.spool.get_bytes(key) for key in store.spool.keys()]


def ready_master(data: Path) -> GameMaster:
    """A master on ``data`` with every game loaded whole, as a daemon that has served a while holds them."""
    master = GameMaster(Store(data), Identity(GM_ADDRESS), utc_now)
    master.load()
    for game_id in list(master.games.summaries):
        master.games.live(game_id)
    return master


def check(master: GameMaster, mails: list[Mail]) -> None:
    """Every order mail acknowledged, none shunted; raises otherwise."""
    store = master.store
    missing = [m.ack_key for m in mails if m.ack_key not in store.outbox and m.ack_key not in store.sent]
    if missing or store.shunt.keys() or store.spool.keys():
        raise RuntimeError(f"{len(missing)} order mails not acknowledged (first: {missing[:3]}), "
                           f"{len(store.shunt.keys())} shunted, {len(store.spool.keys())} still spooled")


def master_pass(base: Path, work: Path, mails: list[Mail], profiler: cProfile.Profile | None = None) -> Pass:
    """One fresh copy of ``base`` with ``mails`` spooled, handled by one `process_spool`."""
    data = work / "data"
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(base, data, symlinks=True)
    spool(data, mails)
    master = ready_master(data)
    if profiler is not None:
        profiler.enable()
    wall, cpu, system = time.perf_counter(), time.process_time(), os.times().system
    handled = master.process_spool()
    cpu, wall, system = time.process_time() - cpu, time.perf_counter() - wall, os.times().system - system
    if profiler is not None:
        profiler.disable()
    if handled != len(mails):
        raise RuntimeError(f"process_spool handled {handled} of {len(mails)} mails")
    check(master, mails)
    return Pass(cpu, wall, len(mails), system)


def parse_pass(raws: list[bytes]) -> Pass:
    """Reference: each spooled mail parsed by the email package (modern policy), its From read."""
    wall, cpu = time.perf_counter(), time.process_time()
    for raw in raws:
        str(email.message_from_bytes(raw, policy=email.policy.default)["From"])
    return Pass(time.process_time() - cpu, time.perf_counter() - wall, len(raws))


def describe(passes: list[Pass]) -> str:
    cpu = [p.cpu_ms for p in passes]
    wall = [p.wall_ms for p in passes]
    system = [1000 * p.system / p.mails for p in passes]
    return (f"{min(cpu):.3f} (median {statistics.median(cpu):.3f}, of which in the kernel "
            f"{statistics.median(system):.3f}; wall-clock best {min(wall):.3f}, median {statistics.median(wall):.3f})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="games in play (default 50)")
    parser.add_argument("--messages", type=int, default=1000, help="order mails (default 1000)")
    parser.add_argument("--repeat", type=int, default=3, help="passes of each (default 3)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the orders' random strikes (default 1)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one more pass")
    parser.add_argument("--top", type=int, default=30, help="functions the profile prints (default 30)")
    parser.add_argument("--quick", action="store_true", help="a tiny run for the smoke test (4 games, 16 mails)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.messages, args.repeat = 4, 16, 1
    if args.messages > 2 * DAILY_CAP * args.games:
        parser.error(f"at most {2 * DAILY_CAP} order mails a game (gm's daily cap, two players)")
    logging.getLogger("gm").setLevel(logging.WARNING)

    print(f"master benchmark: seed {args.seed}, Python {sys.version.split()[0]}, gm at {git_head()}")
    with tempfile.TemporaryDirectory(prefix="gm-bench-master-") as temporary:
        work = Path(temporary)
        built = build_games(work / "base", args.games)
        mails = [m for batch in order_mails(Store(work / "base"), args.messages, 1, random.Random(args.seed))
                 for m in batch]
        raws = spool(work / "reference", mails)
        print(f"setup: {args.games} games in play, built in {built.seconds:.1f} s; {len(mails)} order mails "
              f"({len(mails) // args.games} a game, {statistics.mean(len(r) for r in raws):.0f} bytes a mail "
              f"as spooled)")
        masters: list[Pass] = []
        references: list[Pass] = []
        for _ in range(args.repeat):
            references.append(parse_pass(raws))
            masters.append(master_pass(work / "base", work, mails))
        print(f"order mails handled a pass: {len(mails)}, all acknowledged, none shunted")
        print(f"CPU ms per order mail (master): {describe(masters)}")
        print(f"reference CPU ms per mail (email parse): {describe(references)}")
        ratio = min(p.cpu_ms for p in masters) / min(p.cpu_ms for p in references)
        print(f"ratio master/reference: {ratio:.1f}")
        if args.profile:
            profiler = cProfile.Profile(time.process_time)  # CPU time: waits for the disk are not the master's work
            profiled = master_pass(work / "base", work, mails, profiler)
            for order in ("cumulative", "tottime"):
                out = io.StringIO()
                pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(args.top)
                print(f"profile of one pass ({profiled.cpu_ms:.3f} CPU ms a mail under cProfile), "
                      f"top {args.top} by {order}:")
                print(out.getvalue().strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
