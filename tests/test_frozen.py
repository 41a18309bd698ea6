"""Every frozen archive in tests/archives/ replays byte for byte with today's
gm, and says the edition its folder claims: a game keeps the edition it was
made under, so a change that alters what an older edition's mail holds
fails here, whichever shipped edition it touches.

A folder is found by its secret.key, its games beside it in games/; its
name at the top of tests/archives/ claims its edition (``editionN``, or
``format1``: games made before editions were recorded, which are edition
1). A folder added later (tests/archives/make_frozen.py freezes one per
shipped edition) is tested here without editing this file.
"""

from __future__ import annotations

import re
import shutil
from email import message_from_bytes, policy
from pathlib import Path

import pytest

from gm.kernel.commitments import COMMITMENT_EDITION
from gm.kernel.values import CALENDAR_EDITION, EDITION
from gm.pbem.operator.admin import verify_replay

ARCHIVES = Path(__file__).resolve().parent / "archives"


def frozen_games() -> list[str]:
    """Each frozen game, as its path under tests/archives (``edition6/celestial/games/g1``)."""
    return sorted(str(game.relative_to(ARCHIVES)) for key in ARCHIVES.rglob("secret.key")
                  for game in (key.parent / "games").iterdir() if game.is_dir())


def claimed_edition(game: str) -> int:
    """The edition the game's top folder names."""
    top = game.split("/")[0]
    found = re.fullmatch(r"edition(\d+)", top)
    if found:
        return int(found[1])
    assert top == "format1", f"{top}: name a frozen folder editionN (or format1) for the edition it holds"
    return 1


def copied(tmp_path: Path, game: str) -> Path:
    """The game in a data directory of its own (with its key; Maildirs need their empty folders)."""
    source = ARCHIVES / game
    data = tmp_path / "data"
    shutil.copytree(source, data / "games" / source.name)
    shutil.copyfile(source.parent.parent / "secret.key", data / "secret.key")
    for sub in ("new", "tmp"):
        (data / "games" / source.name / sub).mkdir(exist_ok=True)
    return data / "games" / source.name


def test_every_shipped_edition_is_frozen():
    """Every edition before today's has shipped: each has its folder (and
    format 1 its own), frozen by tests/archives/make_frozen.py when it shipped."""
    assert {claimed_edition(game) for game in frozen_games()} >= {1, *range(2, EDITION)}


@pytest.mark.parametrize("game", frozen_games())
def test_a_frozen_archive_says_its_edition_and_replays_byte_for_byte(tmp_path, game):
    archive = copied(tmp_path, game)
    edition = claimed_edition(game)
    created = next((archive / "cur").glob("000001.in.*")).read_text()
    said = re.findall(r"^edition: (\d+)$", created, re.MULTILINE)
    assert said == ([] if edition == 1 else [str(edition)]), said
    assert ("\ncommit-key: " in created) == (edition >= COMMITMENT_EDITION)
    if edition < min(COMMITMENT_EDITION, CALENDAR_EDITION):  # nothing of a later edition in its mail
        for path in (archive / "cur").glob("*.out.*"):
            message = message_from_bytes(path.read_bytes(), policy=policy.default)
            assert message["X-GM-Commitment"] is None, path.name
            assert all(part.get_content_type() != "text/calendar" for part in message.walk()), path.name
    count, differences = verify_replay(str(archive))
    assert count > 5 and differences == []
