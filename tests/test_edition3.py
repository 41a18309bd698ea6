"""Archives written under edition 3 of gm's mail rules
(tests/archives/edition3/, made by gm at b73d3fe, whose HTML sheets carried
per-cell inline styles) still replay byte for byte: a game keeps the edition
it was made under, whatever today's gm answers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gm.pbem.operator.admin import verify_replay
from test_editions import data_dir

EDITION3 = Path(__file__).resolve().parent / "archives" / "edition3"


@pytest.mark.parametrize("game, sheets", [("spaceships", 10), ("gridfighters", 10), ("celestial", 5)])
def test_edition3_archives_replay_byte_for_byte(tmp_path, game, sheets):
    archive = data_dir(tmp_path, game, EDITION3) / "games" / "g1"
    assert "edition: 3" in next((archive / "cur").glob("000001.in.*")).read_text()
    with_html = [p for p in (archive / "cur").glob("*.out.*") if b"Content-Type: text/html" in p.read_bytes()]
    assert len(with_html) >= sheets  # the HTML sheets are what edition 4 changes
    count, differences = verify_replay(str(archive))
    assert count >= len(with_html) and differences == []
