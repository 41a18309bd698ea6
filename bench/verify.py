"""How fast `gm verify` checks a whole game from one player's mailbox.

Spaceships (the default): a Spaceships game is played through the daemon's own code for T turns (100
by default: bench/build_data.py's `play`, every strike a miss) and ended by a
resignation, so that its last mail reveals the commitments; player 1's
mailbox is exported as ``gm export --player 1`` writes it, and
`gm.pbem.archive.verifying.verify` (what ``gm verify`` runs) checks it:
commitments, reveal, and the record refereed again with every turn's
results found in the mail. Printed beside a reference measured in the same
run on the same game: ``gm replay`` of its archive
(`gm.pbem.operator.admin.verify_replay`), which renders and compares every
message the GM sent. The issue's target: a 100-turn game in seconds.

``--game celestial-empire``: a Celestial Empire game of E empires (4 by
default) and T turns (``standard+turns=T``, no other condition ends it), each empire's mail of orders
chosen by the easy robot from its own sheet (seeded), played through the
daemon's own code to its end; player 1's mailbox is verified (the game
played again from the revealed galaxy and orders, every turn's state
checked against its commitment, the empire's sheets against the replay),
beside ``gm replay`` of the same game.

    python bench/verify.py [--game G] [--turns T] [--empires E] [--repeat R] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import email.parser
import email.policy
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from gm.games.celestial_empire.robot import robot_mail
from gm.kernel.values import Options
from gm.pbem.archive.verifying import PASSED, verify
from gm.pbem.data.store import Store, spool_key
from gm.pbem.intake.limits import Limits
from gm.pbem.master.game_master import GameMaster, utc_now
from gm.pbem.operator.admin import export_mbox, request_game, verify_replay
from gm.pbem.writing.mailer import Identity

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_data import GM_ADDRESS, STEP, mail, play, player_address  # noqa: E402


def played(data: Path, turns: int, seed: int) -> tuple[Store, int]:
    """A game that played ``turns`` turns, then resigned by player 2; its store and the turns it played."""
    store = Store(data)
    clock = [utc_now() - STEP * (2 * turns + 8)]
    master = GameMaster(store, Identity(GM_ADDRESS), lambda: clock[0], Limits(replies_per_day=10 ** 9))
    latest: dict[int, object] = {}
    parser = email.parser.BytesHeaderParser(policy=email.policy.default)

    def sent(_key: str, raw: bytes) -> None:
        head = parser.parsebytes(raw)
        latest[int(str(head["X-GM-Player"]))] = head

    play(store, master, clock, "g1", turns + 1, random.Random(seed), sent)  # collecting turn T+1: T played
    clock[0] += STEP
    key = spool_key(clock[0], "smtp", "g1resign")
    store.spool.add(mail(latest[2], "resign\n", clock[0], "<g1-resign@players.example>"), key)
    master.handle(key)
    game = master.games["g1"]
    if game.phase != "ended":
        raise RuntimeError(f"the resignation did not end the game (phase {game.phase})")
    return store, game.outcome.after_turn if game.outcome and game.outcome.after_turn else turns


def played_celestial(data: Path, turns: int, seed: int, empires: int) -> tuple[Store, int]:
    """A Celestial Empire game of ``empires`` empires played to its end after
    ``turns`` turns, every empire's orders the easy robot's; its store and the
    turns it played."""
    store = Store(data)
    clock = [utc_now() - STEP * (empires * turns + 8)]
    master = GameMaster(store, Identity(GM_ADDRESS), lambda: clock[0], Limits(replies_per_day=10 ** 9))
    parser = email.parser.BytesHeaderParser(policy=email.policy.default)
    sheets: dict[int, object] = {}

    def handle(key: str) -> None:
        master.handle(key)
        for out in store.outbox.keys():
            head = parser.parsebytes(store.outbox.get_bytes(out))
            if any(words in str(head["Subject"]) for words in ("orders for turn", "begins")):
                sheets[int(str(head["X-GM-Player"]))] = head  # orders answer the sheet, not the GM's reply
            store.outbox.remove(out)

    clock[0] += STEP
    key, game_id = request_game(store, master.identity, [player_address("g1", p) for p in range(1, empires + 1)],
                                f"standard+turns={turns}+earth=no+score=no+planets=no",  # played to the last turn
                                Options(deadline=timedelta(days=30)), clock[0], game="celestial-empire",
                                name="g1create")
    handle(key)
    game = master.games[game_id]
    rng = random.Random(seed)
    count = 0
    while game.phase != "ended":
        play_ = game.play
        last = play_.reports[-1] if play_.reports else None
        for empire in range(1, empires + 1):
            orders = robot_mail(play_.state, last, empire, play_.variant.conditions, "easy", rng)
            count += 1
            clock[0] += STEP
            key = spool_key(clock[0], "smtp", f"g1m{count}")
            store.spool.add(mail(sheets[empire], orders, clock[0], f"<g1-{count}@players.example>"), key)
            handle(key)
    return store, len(game.play.reports)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("spaceships", "celestial-empire"), default="spaceships",
                        help="the game played (default spaceships)")
    parser.add_argument("--turns", type=int, default=100, help="turns the game plays (default 100)")
    parser.add_argument("--empires", type=int, default=4, help="empires of a Celestial Empire game (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="times to run each (default 3; the median counts)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the game's orders (default 1)")
    parser.add_argument("--quick", action="store_true", help="a game of 4 turns, once, for the smoke test")
    args = parser.parse_args(argv)
    if args.quick:
        args.turns, args.repeat = 4, 1

    with tempfile.TemporaryDirectory(prefix="gm-bench-verify-") as temporary:
        data = Path(temporary) / "data"
        if args.game == "celestial-empire":
            store, turns = played_celestial(data, args.turns, args.seed, args.empires)
        else:
            store, turns = played(data, args.turns, args.seed)
        mbox = Path(temporary) / "player-1.mbox"
        messages = export_mbox(store, "g1", str(mbox), 1)
        verify_times, verify_cpu, replay_times = [], [], []
        for _ in range(max(1, args.repeat)):
            start, cpu = time.perf_counter(), time.process_time()
            verdict = verify(str(mbox))
            verify_times.append(time.perf_counter() - start)
            verify_cpu.append(time.process_time() - cpu)
            if verdict.status != PASSED:
                raise RuntimeError("gm verify did not pass:\n" + "\n".join(verdict.lines))
            start = time.perf_counter()
            compared, differences = verify_replay(str(store.games_dir / "g1"))
            replay_times.append(time.perf_counter() - start)
            if differences:
                raise RuntimeError(f"gm replay differs: {differences[:3]}")
        seconds, reference = statistics.median(verify_times), statistics.median(replay_times)
        what = (f"Celestial Empire of {args.empires} empires, {turns} turns played to the end"
                if args.game == "celestial-empire" else f"Spaceships, {turns} turns played, resigned")
        print(f"game: {what}; player 1's mailbox: {messages} mails, {mbox.stat().st_size:,} bytes")
        print(f"seconds gm verify: {seconds:.3f}")
        print(f"ms per turn gm verify: {seconds / turns * 1000:.2f}")
        print(f"cpu seconds gm verify (this process's own time, whatever else loads the machine): "
              f"{statistics.median(verify_cpu):.3f}")
        print(f"reference seconds gm replay of the same game ({compared} messages): {reference:.3f}")
        print(f"ratio verify/replay time: {seconds / reference:.2f}")
        verdict_word = "MET" if seconds < 10 else "NOT MET"
        print(f"target: a {turns}-turn game verified in seconds (under 10): {verdict_word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
