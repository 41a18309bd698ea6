"""Build a data directory of N Spaceships games, each played to turn T, for the scale benchmarks.

How: a few games are played for real through the daemon's own code (a
`GameMaster` handling spooled mail: `gm.pbem.operator.admin.request_game`, both
players' setups, then each player's order mail each turn, written into the
spool as `SpoolHandler` writes what comes over SMTP), so their archives are
exactly what gm writes. Every other game is a *clone* of one of them: the
same files with the game's id, its instance tag and its players' tokens
replaced. Playing every game for real costs what `gm replay` costs (every
sheet rendered, about 25 ms a turn), so 10,000 games at turn 80 would take
hours; cloning writes files at disk speed. A clone is only honest if it
replays byte for byte, so the clones are made from a prototype whose id has
the same number of digits (header folding and quoted-printable line breaks
then fall in the same places), the players' addresses and Message-IDs hold
the game id (so each game's are its own), and a sample of the games (every
prototype, and --verify clones at random) is checked with
`gm.pbem.operator.admin.verify_replay` before the build counts as done.

The orders: each player answers the GM's latest mail (threaded, as a mail
client does) with as many strikes as the rules entitle them to (each used
with a chance of 0.8, at least one), aimed at random cells of the opponent's
space that hold no ship. A Spaceships game ends only when a fleet is
destroyed, so the strikes all miss by design: that is what lets a game
reach turn T. Deadlines are 30 days out, so none falls due at start-up.

Each game's snapshot (`gm.pbem.state.snapshots`, what start-up reads instead of
the archive) is cloned likewise, from the prototype's pickled at protocol 0,
where every string is the argument of a text opcode that ends at a newline,
so the same swap applies to each string whole; gm reads any protocol. The
verified games' snapshots are checked to be current and to hold exactly
what replaying their archive gives: the game, the threads of its mail and
the Message-IDs it applied.

What production also has and this does not: a sent/ marker for every mail
ever sent (only the last event's are written: start-up looks at those
only), and delivered/ copies (a production host relays instead).

    python bench/build_data.py DIR [--games N] [--turns T] [--prototypes K] [--verify V] [--seed S] [--quick]
    python bench/build_data.py DIR --refresh
"""

from __future__ import annotations

import argparse
import email.parser
import email.policy
import os
import pickle
import pickletools
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import format_datetime
from pathlib import Path

from gm.games.spaceships.geometry import ALL_CELLS
from gm.kernel.values import Options, PlayerMail
from gm.pbem.archive.events import exact_time
from gm.pbem.archive.replay import identity_of, is_inbound, prepend_header, replay, without_gm_headers
from gm.pbem.data.store import Store, spool_key, time_of
from gm.pbem.data.tokens import instance_tag, token
from gm.pbem.intake.limits import Limits
from gm.pbem.master.game_master import GameMaster, utc_now
from gm.pbem.operator.admin import request_game, verify_replay
from gm.pbem.state import loading, snapshots
from gm.pbem.state.resident import summary_of
from gm.pbem.writing.mailer import Identity

GM_ADDRESS = "gm@example.org"
VARIANT = "2.6.1"
OPTIONS = Options(deadline=timedelta(days=30))
SETUPS = (
    "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
    "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n",
)
"""Legal setups (the daemon tests' Alice and Bob)."""
STEP = timedelta(seconds=30)
"""Time between two mails of a game."""

_headers = email.parser.BytesHeaderParser(policy=email.policy.default)


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def player_address(game_id: str, player: int) -> str:
    """Holds the game id, so that a clone's players are its own."""
    return f"{game_id}.p{player}@players.example"


@dataclass
class Prototype:
    game_id: str
    instance: str
    created: str
    files: list[tuple[str, bytes]]
    """(cur/ or new/ file name, bytes) of its archive."""
    snapshot: tuple[list[bytes], list[bytes]]
    """Its snapshot's head and body, pickled with protocol 0 and cut at its strings (`strings_apart`)."""


def mail(head, body: str, at, message_id: str) -> bytes:
    """A player's threaded reply to the GM's mail ``head``, as spooled by
    `SpoolHandler` (envelope headers on top)."""
    sender = str(head["To"])
    message = EmailMessage(policy=SMTP_POLICY)
    message["From"] = sender
    message["To"] = str(head["Reply-To"])
    message["Subject"] = "Re: " + str(head["Subject"])
    message["Date"] = format_datetime(at)
    message["Message-ID"] = message_id
    message["In-Reply-To"] = str(head["Message-ID"])
    message["References"] = str(head["Message-ID"])
    message.set_content(body)
    raw = without_gm_headers(message.as_bytes())
    raw = prepend_header(raw, "X-GM-Envelope-To", f"<{str(head['Reply-To']).lower()}>")
    return prepend_header(raw, "Return-Path", f"<{sender}>")


def play(store: Store, master: GameMaster, clock: list, game_id: str, turns: int, rng: random.Random,
         sent: Callable[[str, bytes], None] | None = None) -> None:
    """Play ``game_id`` (the next id the store will reserve) to turn ``turns``
    through the GameMaster, as the daemon would handle its mail; ``sent`` is
    given each mail of the GM's as it leaves the outbox (key, bytes)."""
    latest: dict[int, object] = {}
    count = 0

    def handle(key: str) -> None:
        master.handle(key)
        for out in store.outbox.keys():  # read the GM's mail as the player gets it, then it is "sent"
            raw = store.outbox.get_bytes(out)
            if sent is not None:
                sent(out, raw)
            head = _headers.parsebytes(raw)
            latest[int(str(head["X-GM-Player"]))] = head
            store.outbox.remove(out)

    def send(player: int, body: str) -> None:
        nonlocal count
        count += 1
        clock[0] += STEP
        key = spool_key(clock[0], "smtp", f"{game_id}m{count}")
        store.spool.add(mail(latest[player], body, clock[0], f"<{game_id}-{count}@players.example>"), key)
        handle(key)

    clock[0] += STEP
    key, got = request_game(store, master.identity, [player_address(game_id, 1), player_address(game_id, 2)],
                            VARIANT, OPTIONS, clock[0], name=f"{game_id}create")
    if got != game_id:
        raise RuntimeError(f"expected to create {game_id}, the store gave {got}")
    handle(key)
    for player in (1, 2):
        send(player, SETUPS[player - 1])
    game = master.games[game_id]
    state = game.play.game.state
    empty = {p: [c for c in ALL_CELLS if state.side(3 - p).fleet.ship_at[c.index] < 0] for p in (1, 2)}
    while game.turn < turns:
        turn = game.turn
        for player in (1, 2):
            entitled = game.play.game.state.entitlement(player).conventional
            strikes = max(1, sum(rng.random() < 0.8 for _ in range(entitled)))
            send(player, " ".join(str(c) for c in rng.sample(empty[player], strikes)) + "\n")
        if game.turn != turn + 1:
            raise RuntimeError(f"{game_id}: turn {turn} did not run (phase {game.phase})")


def prototype_of(store: Store, master: GameMaster, game_id: str) -> Prototype:
    game = master.games[game_id]
    created = exact_time(time_of(next(k for k in store.archive(game_id).keys() if k.startswith("000001.in.")).split(".",
                                                                                                                    2)[2]))
    files = []
    for sub in ("cur", "new"):
        for entry in os.scandir(store.games_dir / game_id / sub):
            files.append((f"{sub}/{entry.name}", Path(entry.path).read_bytes()))
    master.save_snapshots()
    found = snapshots.read(store.root, game_id)
    if found is None:
        raise RuntimeError(f"{game_id}: no snapshot written")
    head, body = found
    return Prototype(game_id, game.instance or "", created, files,
                     (strings_apart(pickle.dumps(head, protocol=0)), strings_apart(pickle.dumps(body, protocol=0))))


def strings_apart(pickled: bytes) -> list[bytes]:
    """A protocol-0 pickle cut around the bytes of each string it holds (the
    argument of a ``V`` opcode, up to its newline): the pieces at odd
    places are the strings. A string need not start a line (``aV``, ``sV``:
    an item appended to a list, a key set in a dict, after the one before).

    A bytes object is no string and stays whole, though protocol 0 writes
    it as a ``V`` too (its latin-1 text, the first argument of a call of
    ``_codecs.encode``): a game's random commitment key or a datetime may
    spell a game id by chance, and swapping it there made the clone's
    snapshot differ from its replay (a rare failure of the smoke test)."""
    pieces, done = [], 0
    encode_memo: set[object] = set()
    """The memo entries holding ``_codecs.encode`` (a ``g`` opcode calls it again)."""
    state = ""
    """"encode": the function is on the stack; "arguments": its arguments begin."""
    for opcode, arg, position in pickletools.genops(pickled):
        code = opcode.code
        if code == "p":
            if state == "encode":
                encode_memo.add(arg)
            continue
        if code == "V" and state != "arguments":
            end = pickled.index(b"\n", position)
            pieces += [pickled[done:position + 1], pickled[position + 1:end]]
            done = end
        if (code == "c" and arg == "_codecs encode") or (code == "g" and arg in encode_memo):
            state = "encode"
        else:
            state = "arguments" if code == "(" and state == "encode" else ""
    pieces.append(pickled[done:])
    return pieces


def clone(store: Store, proto: Prototype, game_id: str) -> None:
    """Write game ``game_id`` as a copy of ``proto`` with its own id, instance
    tag and tokens, and its snapshot likewise."""
    if len(game_id) != len(proto.game_id):
        raise ValueError("a clone's id must be as long as its prototype's")
    pairs = [(token(store.key, proto.game_id, p), token(store.key, game_id, p)) for p in (1, 2)]
    pairs.append((proto.instance, instance_tag(store.key, game_id, proto.created)))
    pattern = re.compile(rb"(?<![A-Za-z0-9])" + re.escape(proto.game_id.encode()) + rb"(?![0-9])")
    new_id = game_id.encode()
    root = store.games_dir / game_id
    for sub in ("tmp", "new", "cur"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    def swap(data: bytes) -> bytes:
        for old, new in pairs:
            data = data.replace(old.encode(), new.encode())
        return pattern.sub(new_id, data)

    for name, data in proto.files:
        (root / pattern.sub(new_id, name.encode()).decode()).write_bytes(swap(data))
    # The snapshot, the same way, string by string (in a binary pickle a
    # length before a string would have to change with it).
    snapshots.write_pickled(store.root, game_id, *(
        b"".join(swap(piece) if n % 2 else piece for n, piece in enumerate(pieces)) for pieces in proto.snapshot))


def mark_last_event_sent(store: Store, game_id: str) -> None:
    """A sent/ marker for each mail of the game's last event, as the
    deliverer leaves them (start-up re-sends what has none)."""
    keys = [k for k in store.archive(game_id).keys() if ".out." in k]
    last = keys[-1].split(".")[0]
    for key in keys:
        if key.startswith(last + "."):
            (store.sent.path / f"{game_id}.{key}").touch()


def verify_snapshot(store: Store, game_id: str) -> None:
    """A game's snapshot is current and holds what replaying its archive
    gives: the game, the threads of its mail (the References of the GM's
    next mail) and the Message-IDs of the player mail it applied."""
    archive = store.archive(game_id)
    head = snapshots.read_head(store.root, game_id)
    if (head is None or head.last_in != [k for k in archive.keys() if is_inbound(k)][-1]
            or not snapshots.is_current(head)):
        raise RuntimeError(f"{game_id}: its snapshot is missing, of other schema numbers, or not current")
    replayed, threads, events = replay(archive, identity_of(archive), game_id, render="none")
    applied: dict[str, set[str]] = {}
    for r in events:
        if isinstance(r.event, PlayerMail) and r.event.message_id:
            applied.setdefault(r.event.message_id, set()).add(loading.digest(r.event.text))
    live, _ = loading.load(store, identity_of(archive), game_id)
    if not (head.summary == summary_of(replayed) == summary_of(live.game)) or not same_state(live.game, replayed):
        raise RuntimeError(f"{game_id}: its snapshot does not hold the game its archive replays to")
    if not same_state(live.threads, threads) or live.applied != applied:
        raise RuntimeError(f"{game_id}: its snapshot's threads or applied Message-IDs are not its archive's")


def same_state(a: object, b: object) -> bool:
    """Whether two object graphs hold the same values (the rules' own
    classes need not define ``==``)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_state(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_state(a[k], b[k]) for k in a)  # type: ignore[attr-defined,index]
    slots = [n for c in type(a).__mro__ for n in getattr(c, "__slots__", ()) if hasattr(a, n)]
    if hasattr(a, "__dict__") or slots:
        return (same_state(getattr(a, "__dict__", {}), getattr(b, "__dict__", {}))
                and all(same_state(getattr(a, n), getattr(b, n)) for n in slots))
    return a == b


@dataclass
class Built:
    games: int
    turns: int
    played: int
    play_seconds: float
    clone_seconds: float
    verified: int
    verify_seconds: float
    bytes: int
    files: int

    @property
    def seconds(self) -> float:
        return self.play_seconds + self.clone_seconds


def build(data: Path, games: int, turns: int, prototypes: int = 4, verify: int = 10, seed: int = 1,
          progress: bool = False) -> Built:
    """N games at turn T in a new data directory ``data``; raises if a verified game does not replay exactly."""
    if data.exists() and any(data.iterdir()):
        raise FileExistsError(f"{data} is not empty")
    rng = random.Random(seed)
    store = Store(data)
    clock = [utc_now() - STEP * (2 * turns + 8)]
    master = GameMaster(store, Identity(GM_ADDRESS), lambda: clock[0], Limits(replies_per_day=10 ** 9))
    protos: dict[int, list[Prototype]] = {}
    play_seconds = clone_seconds = 0.0
    for number in range(1, games + 1):
        game_id = f"g{number}"
        same_length = protos.setdefault(len(game_id), [])
        start = time.perf_counter()
        if len(same_length) < prototypes:
            clock[0] = utc_now() - STEP * (2 * turns + 8)
            play(store, master, clock, game_id, turns, rng)
            same_length.append(prototype_of(store, master, game_id))
            play_seconds += time.perf_counter() - start
            if progress:
                log(f"  played {game_id} to turn {turns} in {time.perf_counter() - start:.1f} s")
        else:
            clone(store, same_length[number % len(same_length)], game_id)
            clone_seconds += time.perf_counter() - start
        mark_last_event_sent(store, game_id)
        if progress and number % 1000 == 0:
            log(f"  {number:,}/{games:,} games")
    start = time.perf_counter()
    os.sync()
    clone_seconds += time.perf_counter() - start
    played = [p.game_id for ps in protos.values() for p in ps]
    clones = [f"g{n}" for n in range(1, games + 1) if f"g{n}" not in played]
    sample = played + random.Random(seed).sample(clones, min(verify, len(clones)))
    start = time.perf_counter()
    for game_id in sample:
        compared, differences = verify_replay(str(store.games_dir / game_id))
        if differences or not compared:
            raise RuntimeError(f"{game_id} does not replay exactly ({compared} compared): {differences[:3]}")
        verify_snapshot(store, game_id)
    verify_seconds = time.perf_counter() - start
    size = files = 0
    for folder, _, names in os.walk(data):
        files += len(names)
        size += sum(os.path.getsize(os.path.join(folder, n)) for n in names)
    return Built(games, turns, len(played), play_seconds, clone_seconds, len(sample), verify_seconds, size, files)


def describe(built: Built) -> str:
    return (f"{built.games:,} games at turn {built.turns} in {built.seconds:.1f} s "
            f"({built.games / built.seconds:,.1f} games/s): {built.played} played through the GameMaster in "
            f"{built.play_seconds:.1f} s, the rest cloned (and all synced to disk) in {built.clone_seconds:.1f} s; "
            f"{built.files:,} files, {built.bytes / 2**20:,.0f} MiB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", help="the new data directory (default: a temporary one, removed)")
    parser.add_argument("--games", type=int, default=100, help="games (default 100; the issue's target is 10000)")
    parser.add_argument("--turns", type=int, default=20, help="the turn each game reaches (default 20; target 80)")
    parser.add_argument("--prototypes", type=int, default=4,
                        help="games played for real per id length; the others are their clones (default 4)")
    parser.add_argument("--verify", type=int, default=10,
                        help="clones checked by replay, besides every prototype (default 10)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the orders (default 1)")
    parser.add_argument("--quick", action="store_true", help="12 games at turn 3, for the smoke test")
    parser.add_argument("--refresh", action="store_true",
                        help="DATA exists: write every game's snapshot for the gm that runs now (one written under "
                             "other schema numbers is migrated or replayed), as the first start after such an "
                             "upgrade does in the background; timed")
    args = parser.parse_args(argv)
    if args.refresh:
        if not args.data:
            parser.error("--refresh needs DATA")
        start = time.perf_counter()
        master = GameMaster(Store(args.data, create=False), Identity(GM_ADDRESS))
        master.load()
        while master.prepare() is not None:  # the games left pending, as the daemon loads them when idle
            pass
        master.save_snapshots()
        print(f"snapshots of {len(master.games):,} games written in {time.perf_counter() - start:.1f} s "
              f"(every game rebuilt whose snapshot was not current)")
        return 0
    if args.quick:
        args.games, args.turns, args.prototypes, args.verify = 12, 3, 2, 3
    temporary = None if args.data else tempfile.mkdtemp(prefix="gm-bench-data-")
    data = Path(args.data or temporary) / ("data" if temporary else "")
    try:
        built = build(data, args.games, args.turns, args.prototypes, args.verify, args.seed, progress=not args.quick)
        per_game = built.bytes / built.games
        print(f"data directory: {data}" + (" (temporary, removed)" if temporary else ""))
        print(f"built: {describe(built)}")
        print(f"games/s: {built.games / built.seconds:,.1f}")
        print(f"reference games/s played through the GameMaster: {built.played / built.play_seconds:,.2f} "
              f"({built.play_seconds / built.played / max(built.turns, 1) * 1000:.0f} ms a turn)")
        print(f"verified by replay: {built.verified} games ({built.played} prototypes), byte for byte, "
              f"in {built.verify_seconds:.1f} s")
        print(f"bytes per game: {per_game:,.0f} ({per_game / max(built.turns, 1):,.0f} a turn)")
        need = per_game * 10_000 * 80 / max(built.turns, 1)
        print(f"10,000 games at turn 80 would take about {need / 2**30:,.0f} GiB "
              f"(free here: {shutil.disk_usage(data).free / 2**30:,.0f} GiB)")
    finally:
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
