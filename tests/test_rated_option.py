"""A game counts for ratings only when it was made rated (`Options.rated`):
`gm new --rated` says so in the creation event, and a game read back from
that event has it; a game made without it has no ``rated`` line at all, so
archives made before ratings existed read back as unrated, unchanged."""

from __future__ import annotations

from email import message_from_bytes

from gm.cli import main
from gm.pbem.archive.creation import parse_fields, seats_and_options
from gm.pbem.data.store import Store
from gmtest import ALICE, BOB


def test_gm_new_rated_is_recorded_and_read_back(tmp_path):
    Store(tmp_path / "d")
    assert main(["new", "--data", str(tmp_path / "d"), "--player", ALICE, "--player", BOB, "--rated"]) == 0
    assert main(["new", "--data", str(tmp_path / "d"), "--player", ALICE, "--player", BOB]) == 0
    store = Store(tmp_path / "d", create=False)
    requests = sorted(store.spool.get_bytes(k).replace(b"\r", b"") for k in store.spool.keys())
    assert [b"\nrated: yes" in r for r in requests].count(True) == 1
    assert [b"\nrated:" in r for r in requests].count(True) == 1
    rated = [seats_and_options(parse_fields(message_from_bytes(r).get_payload(decode=True).decode()))[2].rated
             for r in requests]
    assert sorted(rated) == [False, True]
