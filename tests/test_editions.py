"""Archives written under an earlier edition of gm's mail rules
(tests/archives/edition2/, made by gm at fb31187) still replay byte for byte:
a game keeps the edition it was made under, whatever today's gm answers."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gm.pbem.operator.admin import verify_replay

EDITION2 = Path(__file__).resolve().parent / "archives" / "edition2"


def data_dir(tmp_path: Path, game: str, frozen: Path = EDITION2) -> Path:
    """A data directory holding one game of a frozen archive (``frozen``,
    edition 2 unless told; Maildirs need their empty folders)."""
    data = tmp_path / "data"
    shutil.copytree(frozen / game / "games", data / "games")
    shutil.copyfile(frozen / game / "secret.key", data / "secret.key")
    for sub in ("new", "tmp"):
        (data / "games" / "g1" / sub).mkdir(exist_ok=True)
    return data


@pytest.mark.parametrize("game", ["spaceships", "gridfighters"])
def test_edition2_archives_replay_byte_for_byte(tmp_path, game):
    archive = data_dir(tmp_path, game) / "games" / "g1"
    assert "edition: 2" in next((archive / "cur").glob("000001.in.*")).read_text()
    count, differences = verify_replay(str(archive))
    assert count > 20 and differences == []
