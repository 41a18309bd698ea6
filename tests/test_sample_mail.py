"""sample-mail/ played through the real daemon: the players' .eml files go in
over SMTP, and the GM must answer with exactly the stored gm-*.eml files.

The daemon runs with the public demo key (sample-mail/demo-server.key) as its
secret.key, so the tokens in the players' To: addresses are the real ones,
and with the clock make_samples.py used: the game is created at CREATED, and
each player's mail arrives at the moment in its own Date header.

No normalising is needed before comparing: the GM's Date is the test clock,
its Message-IDs are built from game, event and position, and the players'
Message-IDs (which the GM's In-Reply-To and References repeat) are fixed in
the files. When a template changes, regenerate the samples:

    .venv/bin/python -P sample-mail/make_samples.py
"""

import asyncio
import difflib
import re
import shutil
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path

from gm.mail.reading import addresses, parse_message
from gm.pbem.operator.admin import verify_replay
from gmtest import World

SAMPLES = Path(__file__).resolve().parent.parent / "sample-mail"
CREATED = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
"""When make_samples.py creates the game (its CREATED)."""
SLIP = "06-alice-turn2-slip.eml"
RESEND = "07-alice-turn2-resend.eml"
REGENERATE = "if gm's mail changed on purpose, run: .venv/bin/python -P sample-mail/make_samples.py"


def player_files() -> list[Path]:
    return sorted(SAMPLES.glob("[0-9][0-9]-*.eml"))


def gm_files() -> list[Path]:
    return sorted(SAMPLES.glob("gm-*.eml"))


def text_of(raw: bytes) -> str:
    return parse_message(raw).get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")


def difference(expected: bytes, actual: bytes, name: str) -> str:
    lines = difflib.unified_diff(expected.decode("utf-8", "replace").splitlines(),
                                 actual.decode("utf-8", "replace").splitlines(),
                                 f"{name} (stored)", f"{name} (delivered now)", lineterm="")
    return "\n".join(list(lines)[:60])


def test_the_sample_game_through_the_daemon_gives_the_stored_gm_mail(tmp_path):
    assert len(player_files()) == 10 and len(gm_files()) == 20
    data = tmp_path / "data"
    data.mkdir()
    shutil.copyfile(SAMPLES / "demo-server.key", data / "secret.key")
    (data / "secret.key").chmod(0o600)

    async def scenario():
        async with World(tmp_path) as world:
            store = world.daemon.store
            world.clock.now = CREATED
            await world.new_game()
            answers: dict[str, list[bytes]] = {}
            for path in player_files():
                raw = path.read_bytes()
                message = parse_message(raw)
                world.clock.now = parsedate_to_datetime(str(message["Date"]))
                before = set(store.delivered.keys())
                await world.asend(raw, addresses(message, "From")[0], addresses(message, "To"))
                await world.settle()
                answers[path.name] = [store.delivered.get_bytes(k) for k in store.delivered.keys() if k not in before]
            assert store.shunt.keys() == [], "the GM shunted a sample mail"
            delivered = [store.delivered.get_bytes(k) for k in store.delivered.keys()]
            game = world.daemon.master.games["g1"]
            return answers, delivered, game, store.games_dir / "g1"

    answers, delivered, game, archive = asyncio.run(scenario())

    # Every message the GM delivered is byte for byte the stored one, in order.
    stored = gm_files()
    assert len(delivered) == len(stored), (f"the GM sent {len(delivered)} mails, sample-mail holds {len(stored)}; "
                                           f"{REGENERATE}")
    for path, actual in zip(stored, delivered):
        expected = path.read_bytes()
        assert actual == expected, f"{path.name} differs; {REGENERATE}\n{difference(expected, actual, path.name)}"

    # Each player's mail is answered by one acknowledgement that replies to it.
    for path in player_files():
        message_id = str(parse_message(path.read_bytes())["Message-ID"])
        first = parse_message(answers[path.name][0])
        assert str(first["In-Reply-To"]).strip() == message_id, path.name  # a long one is folded onto its own line

    # The slip's line is left out with its line and column, the rest stands
    # (docs/rulings.md, ruling v); the resend replaces the orders.
    (rejection,) = answers[SLIP]
    assert "1 line not understood" in str(parse_message(rejection)["Subject"])
    text = text_of(rejection)
    assert re.search(r"line \d+, column \d+: ", text, re.I)
    assert "Line 4, column 9: unexpected 'gy3'" in text and "so write Gy3" in text
    assert "The lines that could be read are your orders now" in text and "Orders in force for turn 2:" in text
    (acknowledgement,) = answers[RESEND]
    assert "replacing all you sent before" in text_of(acknowledgement)
    assert "  Gy3             strike Gy3\n" in text_of(acknowledgement)

    # Player 1 wins 13-0 after turn 3, and both players are told so.
    assert game.outcome.scores == (13, 0) and game.outcome.winner == 1 and game.outcome.after_turn == 3
    alice_last, bob_last = (text_of(raw) for raw in answers[player_files()[-1].name][-2:])
    assert "Scores: you 13, Player 2 0.\nYou win." in alice_last
    assert "Scores: Player 1 13, you 0.\nPlayer 1 wins." in bob_last  # the winner's score first

    # gm replay rebuilds every message from the archive alone.
    count, differences = verify_replay(str(archive))
    assert differences == [] and count == len(stored)


def test_the_sample_readme_describes_every_file():
    readme = (SAMPLES / "README").read_text()
    for path in sorted(SAMPLES.iterdir()):
        if path.is_file() and path.name not in ("README", ".gitattributes"):
            assert path.name in readme, f"sample-mail/README does not mention {path.name}"
