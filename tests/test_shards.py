"""Several gm daemons behind one Postfix, games sharded by id, and a game
moved from one to the other: docs/operations.md, "Several daemons".

The simulation is real processes on loopback: two `gm serve --smtp off
--lmtp` (shards 1/2 and 0/2, each with its own data directory and the same
secret.key) behind one private Postfix (tests/postfix.py) whose
transport_maps are the documented regexp maps, written by `gm shard
transport` and `gm shard route`. The players send everything to Postfix's
port; each mail reaches the shard of its game. Then g1 moves from shard A to
shard B as the documentation says: its mail held in Postfix's queue, A
stopped and the game exported, B stopped, the bundle imported, the route
switched, B started. Mail held meanwhile and mail sent afterwards reaches B,
the replies carry the same addresses, nothing A sent is sent again, `gm
replay` on B rebuilds the game byte for byte, and A has no game g1 and never
makes that id again.
"""

from __future__ import annotations

import os
import re
import shutil
import smtplib
from pathlib import Path

import pytest

from gm.pbem.data.store import ROUTABLE_COUNTS, Store
from gm.pbem.operator.shards import Shard, export_game, import_game
from gm.pbem.operator.transport import moved_line, number_pattern, transport_lines
from gmprocess import gm, inbox, wait_for
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB
from postfix import Postfix, check_prerequisites
from test_postfix import GM, Daemon, documented_postfix_files, mail, shunted

pytestmark = pytest.mark.slow  # real gm daemons behind a real Postfix

ROOT = Path(__file__).resolve().parent.parent
DOMAIN = "games.example.org"
CAROL = "carol@example.com"
DAVE = "dave@example.net"


# The ids and the maps, without processes


def test_every_shard_count_the_map_can_route_gives_each_id_to_exactly_one_shard():
    for count in ROUTABLE_COUNTS:
        patterns = [re.compile(number_pattern(Shard(k, count))) for k in range(count)]
        for number in range(1, 1001):
            routed = [k for k, p in enumerate(patterns) if p.fullmatch(str(number))]
            assert routed == [number % count], (count, number, routed)
        for k in range(count):
            made = [Shard(k, count).after(0)]
            while len(made) < 5:
                made.append(Shard(k, count).after(made[-1]))
            assert all(n % count == k for n in made) and made == sorted(set(made)) and made[0] >= 1, made


def test_shard_numbers_that_cannot_be_routed_are_refused():
    assert Shard.parse(" 1 / 2 ") == Shard(1, 2)
    for text, why in (("2/2", "K runs from 0 to 1"), ("0/3", "must divide 100"), ("one", "give K/S")):
        with pytest.raises(ValueError, match=why):
            Shard.parse(text)
    with pytest.raises(ValueError, match="must divide 100"):
        transport_lines("gm", DOMAIN, ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"])
    with pytest.raises(ValueError, match="no game id"):
        moved_line("gm", DOMAIN, "g1.2", None)


def test_a_shard_makes_only_its_own_ids_and_skips_those_taken(tmp_path):
    key = os.urandom(32)
    stores = []
    for k in (0, 1):
        (tmp_path / str(k)).mkdir()
        (tmp_path / str(k) / "secret.key").write_bytes(key)
        assert gm("shard", "init", f"{k}/2", "--data", str(tmp_path / str(k)), cwd=tmp_path).returncode == 0
        stores.append(Store(tmp_path / str(k), create=False))
    assert [stores[1].reserve_game_id() for _ in range(3)] == ["g1", "g3", "g5"]
    assert [stores[0].reserve_game_id() for _ in range(2)] == ["g2", "g4"]
    assert stores[0].next_game_id() == "g6"
    (stores[0].games_dir / "g7").mkdir()  # a game of the other shard's, moved here
    assert stores[0].reserve_game_id() == "g8" and stores[0].next_game_id() == "g10"
    again = gm("shard", "init", "1/2", "--data", str(tmp_path / "0"), cwd=tmp_path)
    assert again.returncode == 2 and "is shard 0/2 already" in again.stderr, again.stderr
    nowhere = gm("shard", "init", "0/2", "--data", str(tmp_path / "none"), cwd=tmp_path)
    assert nowhere.returncode == 2 and "no gm data directory" in nowhere.stderr and not (tmp_path / "none").exists()


def test_a_bundle_carries_the_games_mail_and_markers_and_goes_only_to_a_shard_with_the_same_key(tmp_path):
    source = Store(tmp_path / "a")
    other = Store(tmp_path / "b")  # a key of its own
    archive = source.archive("g1")
    archive.add(b"Subject: created\n\nx\n", "000001.in.x")
    source.archive("g3").add(b"Subject: created\n\ny\n", "000001.in.y")
    for key, to in (("01.lmtp.mine", f"gm+G1.2.token@{DOMAIN}"), ("02.lmtp.other", f"gm+g3.1.token@{DOMAIN}"),
                    ("03.lmtp.gm", f"gm@{DOMAIN}"), ("04.lmtp.g10", f"gm+g10.1.token@{DOMAIN}")):
        source.spool.add(f"X-GM-Envelope-To: <{to}>\r\nFrom: p@example.org\r\n\r\norders\r\n".encode(), key)
    source.spool.add(b"X-GM-Event: deadline\r\nX-GM-Game: g1\r\n\r\ndue\r\n", "05.clock.deadline-g1")
    for key in ("g1.000002.out.1", "warning.g1.2.2026-11-21", "g3.000002.out.1", "g1.000001.out.1"):
        source.outbox.add(b"Subject: a reply\r\n\r\n", key)
    for key in ("g1.000001.out.1", "g1.000001.out.2", "g10.000001.out.1", "g3.000001.out.1"):
        source.sent.add(key)
    with pytest.raises(ValueError, match="no game g5"):
        export_game(source, "g5", tmp_path / "bundle", "gm", DOMAIN)
    done = export_game(source, "g1", tmp_path / "bundle", "gm", DOMAIN)
    assert (done.spool, done.outbox, done.sent) == (2, 2, 2), done
    assert source.game_ids() == ["g3"] and (source.games_dir / "g1").is_dir()  # the id stays taken
    assert source.spool.keys() == ["02.lmtp.other", "03.lmtp.gm", "04.lmtp.g10"]
    assert source.outbox.keys() == ["g1.000001.out.1", "g3.000002.out.1"]  # sent already: the deliverer drops it
    assert [p.name for p in (source.root / "moved").glob("*/g1")] == ["g1"]
    assert source.reserve_game_id() == "g4"
    with pytest.raises(ValueError, match=r"another secret\.key"):
        import_game(other, tmp_path / "bundle")
    assert other.game_ids() == []
    (tmp_path / "c").mkdir()
    shutil.copy(source.root / "secret.key", tmp_path / "c" / "secret.key")
    same = Store(tmp_path / "c", create=False)
    import_game(same, tmp_path / "bundle")
    assert same.game_ids() == ["g1"] and same.archive("g1").keys() == ["000001.in.x"]
    assert same.spool.keys() == ["01.lmtp.mine", "05.clock.deadline-g1"]
    assert same.outbox.keys() == ["g1.000002.out.1", "warning.g1.2.2026-11-21"]
    assert "g1.000001.out.2" in same.sent and "g10.000001.out.1" not in same.sent
    assert not (same.root / "moving-in").exists()
    with pytest.raises(ValueError, match="has a game g1 already"):
        import_game(same, tmp_path / "bundle")


# The documented set-up


def documented_maps() -> dict[str, list[str]]:
    """docs/operations.md's "Several daemons" Postfix files: name -> lines."""
    return documented_postfix_files("## Several daemons")


def test_the_documented_maps_are_what_gm_shard_prints(tmp_path):
    maps = documented_maps()
    assert set(maps) == {"main.cf", "gm-hold", "gm-moved", "gm-shards", "transport"}, maps
    printed = gm("shard", "transport", "--domain", DOMAIN, "192.0.2.11:2424", "192.0.2.12:2424", cwd=tmp_path)
    assert printed.returncode == 0, printed.stderr
    assert maps["gm-shards"] == printed.stdout.splitlines()
    assert maps["transport"] == [f"{DOMAIN}       lmtp:inet:192.0.2.11:2424"]
    assert maps["main.cf"] == [TRANSPORT_MAPS.format(config="/etc/postfix"), HOLD_MAP.format(config="/etc/postfix")]
    held = gm("shard", "route", "g12", "--hold", "--domain", DOMAIN, cwd=tmp_path).stdout.strip()
    routed = gm("shard", "route", "g12", "192.0.2.12:2424", "--domain", DOMAIN, cwd=tmp_path).stdout.strip()
    text = (ROOT / "docs" / "operations.md").read_text()
    assert held in text and routed in text, (held, routed)


TRANSPORT_MAPS = "transport_maps = regexp:{config}/gm-moved, regexp:{config}/gm-shards, hash:{config}/transport"
HOLD_MAP = "smtpd_recipient_restrictions = check_recipient_access regexp:{config}/gm-hold"
MAPS = ("gm-hold", "gm-moved", "gm-shards")


class ShardedPostfix(Postfix):
    """The private Postfix of tests/postfix.py with the main.cf lines and maps
    of "Several daemons": the hold map at RCPT; then, to route, the override
    map, the shards' map, and the domain's route (to the front shard,
    ``lmtp_port``)."""

    def __init__(self, *, lmtp_port: int, shards: list[str]):
        super().__init__(lmtp_port=lmtp_port, domain=DOMAIN)
        self.maps = {"gm-hold": [], "gm-moved": [], "gm-shards": shards}

    def _write_config(self) -> None:
        super()._write_config()
        assert self.config_dir is not None
        main = self.config_dir / "main.cf"
        text = main.read_text()
        single = f"transport_maps = hash:{self.config_dir}/transport\n"
        assert single in text
        added = [TRANSPORT_MAPS.format(config=self.config_dir), HOLD_MAP.format(config=self.config_dir)]
        main.write_text(text.replace(single, "".join(f"{line}\n" for line in added)))
        self._write_maps()

    def _write_maps(self) -> None:
        assert self.config_dir is not None
        for name, lines in self.maps.items():
            (self.config_dir / name).write_text("".join(f"{line}\n" for line in lines))

    def route(self, moved: list[str], held: list[str]) -> None:
        """Write the override and hold maps and ``postfix reload``, as the procedure does."""
        self.maps.update({"gm-moved": moved, "gm-hold": held})
        self._write_maps()
        self.postfix("reload")

    def postfix(self, command: str, *args: str) -> None:
        """Run a Postfix command (``postfix reload``, ``postsuper -H ALL``) on this instance."""
        assert self.config_dir is not None and self.binary is not None
        binary = self.binary if command == "reload" else self._postfix_bin(command)
        done = self._run(binary, "-c", str(self.config_dir), *((command,) if command == "reload" else args))
        assert done.returncode == 0, done.stderr

    def held(self) -> list[str]:
        """The queue ids on the hold queue."""
        assert self.queue_dir is not None
        folder = self.queue_dir / "hold"
        return [p.name for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []


def reply(sender: str, original, body: str):
    return mail(sender, str(original["Reply-To"]), "Re: " + str(original["Subject"]), body)


def send(mta: Postfix, message) -> str:
    """Hand a mail to Postfix's smtpd (never a shard's); its queue id."""
    with smtplib.SMTP(mta.host, mta.port, timeout=10) as client:
        client.ehlo()
        address = str(message["To"])
        assert client.mail(str(message["From"]))[0] == 250
        accepted = client.rcpt(address)
        assert accepted[0] == 250, accepted
        code, answer = client.data(message.as_bytes())
    queued = re.fullmatch(rb"2\.0\.0 Ok: queued as (\w+)", answer)
    assert code == 250 and queued, (code, answer)
    return queued[1].decode()


def delivered_to(mta: Postfix, queue_id: str, port: int) -> bool:
    return bool(re.search(rf"{queue_id}: to=<[^>]*>, relay=127\.0\.0\.1\[127\.0\.0\.1\]:{port}, .*status=sent \(250",
                          mta.log()))


def shown(data: Path, game: str, cwd: Path) -> str:
    return gm("show", game, "--data", str(data), cwd=cwd).stdout


@pytest.fixture
def two_shards(tmp_path):
    """(shard A, shard B, Postfix): A is shard 1/2 and the front, B is 0/2."""
    check_prerequisites()
    key = os.urandom(32)
    shards = []
    for name, number in (("a", "1/2"), ("b", "0/2")):
        home = tmp_path / name
        (home / "data").mkdir(parents=True, mode=0o700)
        (home / "data" / "secret.key").write_bytes(key)
        (home / "data" / "secret.key").chmod(0o600)
        made = gm("shard", "init", number, "--data", str(home / "data"), cwd=home)
        assert made.returncode == 0, made.stderr
        shards.append(Daemon(home / "data", home))
    a, b = shards
    try:
        for daemon in shards:
            daemon.start()
        lines = gm("shard", "transport", "--domain", DOMAIN, f"127.0.0.1:{b.port}", f"127.0.0.1:{a.port}", cwd=tmp_path)
        assert lines.returncode == 0, lines.stderr
        with ShardedPostfix(lmtp_port=a.port, shards=lines.stdout.splitlines()) as mta:
            yield a, b, mta
    finally:
        for daemon in shards:
            daemon.stop()


def test_two_shards_behind_one_postfix_and_a_game_moved_from_one_to_the_other(two_shards, tmp_path):
    a, b, mta = two_shards
    explain = lambda: (f"--- Postfix log ---\n{mta.log_tail()}\n--- A ---\n{a.log()}\n--- B ---\n{b.log()}\n"  # noqa: E731
                       f"--- shunted: A {shunted(a.data)} B {shunted(b.data)}")
    for daemon, players, game in ((a, (ALICE, BOB), "g1"), (b, (CAROL, DAVE), "g2")):
        made = gm("new", "--data", str(daemon.data), "--address", GM, "--player", players[0], "--player", players[1],
                  cwd=daemon.cwd)
        assert made.returncode == 0 and f"game requested: {game} " in made.stdout, made.stdout + made.stderr
    invitations = {}
    for daemon, player in ((a, ALICE), (a, BOB), (b, CAROL), (b, DAVE)):
        invitations[player] = wait_for(f"{player}'s invitation", lambda: inbox(daemon.data, player), explain)[-1]
    for player, game in ((ALICE, "g1"), (BOB, "g1"), (CAROL, "g2"), (DAVE, "g2")):
        assert re.fullmatch(rf"gm\+{game}\.[12]\.\w+@{re.escape(DOMAIN)}", str(invitations[player]["Reply-To"]))

    # Every set-up goes to Postfix; each reaches its game's shard.
    for sender, setup in ((ALICE, SETUP_ALICE), (BOB, SETUP_BOB), (CAROL, SETUP_ALICE), (DAVE, SETUP_BOB)):
        daemon = a if sender in (ALICE, BOB) else b
        queue_id = send(mta, reply(sender, invitations[sender], setup))
        wait_for(f"{sender}'s set-up to reach shard {daemon.data.parent.name}",
                 lambda: delivered_to(mta, queue_id, daemon.port), explain)
    for daemon, player in ((a, ALICE), (a, BOB), (b, CAROL), (b, DAVE)):
        wait_for(f"{player}'s turn-1 sheet", lambda: [m for m in inbox(daemon.data, player)
                                                      if "the game begins" in str(m["Subject"])], explain)
    assert '"turn": 1' in shown(a.data, "g1", tmp_path) and '"turn": 1' in shown(b.data, "g2", tmp_path)
    assert not shown(a.data, "g2", tmp_path) and not shown(b.data, "g1", tmp_path)
    # The GM's own address belongs to no game: it goes to the front, shard A.
    asked = send(mta, mail(CAROL, GM, "my games?", "games\n"))
    wait_for("the games list from the front", lambda: inbox(a.data, CAROL), explain)
    assert delivered_to(mta, asked, a.port)
    assert shunted(a.data) == [] and shunted(b.data) == [], explain()

    # Move g1 from A to B. 1: hold its mail on Postfix's hold queue.
    hold = gm("shard", "route", "g1", "--hold", "--domain", DOMAIN, cwd=tmp_path).stdout.strip()
    mta.route(moved=[], held=[hold])
    sheet = [m for m in inbox(a.data, ALICE) if "the game begins" in str(m["Subject"])][-1]
    waiting = send(mta, reply(ALICE, sheet, "Rv1\n"))  # accepted (250), then held
    wait_for("Postfix to hold Alice's orders", lambda: waiting in mta.held(), explain)
    # 2: stop A, export the game, start A again.
    sent_by_a = {str(m["Message-ID"]) for p in (ALICE, BOB) for m in inbox(a.data, p)}
    a.stop()
    bundle = tmp_path / "g1.bundle"
    exported = gm("shard", "export", "g1", "--data", str(a.data), "--to", str(bundle), "--address", GM, cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    a.start()
    # 3: stop B, import the bundle, route g1 to B, start B, release the held mail.
    b.stop()
    imported = gm("shard", "import", str(bundle), "--data", str(b.data), cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr
    route = gm("shard", "route", "g1", f"127.0.0.1:{b.port}", "--domain", DOMAIN, cwd=tmp_path).stdout.strip()
    mta.route(moved=[route], held=[])
    b.start()
    assert waiting in mta.held(), explain()
    mta.postfix("postsuper", "-H", "ALL")
    mta.flush()

    wait_for("the held orders to reach B", lambda: delivered_to(mta, waiting, b.port), explain)
    wait_for("B to take Alice's orders",
             lambda: re.search(r'"waiting_for": \[\s*"Player 2"\s*\]', shown(b.data, "g1", tmp_path)), explain)
    orders = send(mta,
                  reply(BOB, [m for m in inbox(a.data, BOB) if "the game begins" in str(m["Subject"])][-1], "Bz5\n"))
    wait_for("Bob's orders to reach B", lambda: delivered_to(mta, orders, b.port), explain)
    wait_for("turn 1 to run on B", lambda: '"turn": 2' in shown(b.data, "g1", tmp_path), explain)
    for player in (ALICE, BOB):
        result = wait_for(f"{player}'s turn-1 results from B", lambda: [
            m for m in inbox(b.data, player) if "Turn 1 results" in str(m["Subject"])], explain)[-1]
        # The same reply address (token) as A gave: the shards share the key.
        assert str(result["Reply-To"]) == str(invitations[player]["Reply-To"])
    # B sent nothing A had sent: the sent markers came with the game.
    sent_by_b = {str(m["Message-ID"]) for p in (ALICE, BOB) for m in inbox(b.data, p)}
    assert sent_by_b and not sent_by_b & sent_by_a, explain()
    replayed = gm("replay", str(b.data / "games" / "g1"), cwd=tmp_path)
    assert replayed.returncode == 0 and "all identical" in replayed.stdout, replayed.stdout + replayed.stderr

    # A has no game g1 any more, and never makes that id again; B goes on
    # with its own numbers, and its own game g2 still runs.
    gone = gm("show", "g1", "--data", str(a.data), cwd=tmp_path)
    assert gone.returncode == 2 and "no game g1" in gone.stderr
    assert "g1" not in gm("games", "--data", str(a.data), cwd=tmp_path).stdout
    assert "game requested: g3 " in gm("new", "--data", str(a.data), "--address", GM, "--player", CAROL,
                                       "--player", DAVE, cwd=tmp_path).stdout
    assert "game requested: g4 " in gm("new", "--data", str(b.data), "--address", GM, "--player", ALICE,
                                       "--player", BOB, cwd=tmp_path).stdout
    later = send(mta,
                 reply(CAROL, [m for m in inbox(b.data, CAROL) if "the game begins" in str(m["Subject"])][-1], "Rv1\n"))
    wait_for("Carol's orders for g2 to reach B", lambda: delivered_to(mta, later, b.port), explain)
    # Every mail for g1 after the hold went to B, none to A.
    held_at = re.search(r"hold: RCPT from .*: <gm\+g1\.1\.\w+@[^>]*>: Recipient address "
                        r"game g1 is moving", mta.log())
    assert held_at, explain()
    after_hold = mta.log()[held_at.start():]
    assert not re.search(rf"to=<gm\+g1\.[^>]*>, relay=127\.0\.0\.1\[127\.0\.0\.1\]:{a.port},", after_hold), explain()
    assert shunted(a.data) == [] and shunted(b.data) == [], explain()
    assert "status=bounced" not in mta.log(), explain()
