"""Seeks as values (gm.league.seeks): parsed from the seeker's lines, kept
as header fields and read back the same, and the rules of taking one,
decided by the moment given, never a clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import gm.games  # noqa: F401  (the games a seek names, in the kernel's registry)
from gm.league.seeks import LAPSE, Seek, Status, parse_seek, shown, why_untakable

AT = datetime(2026, 11, 21, 12, 0, 0, 417_123, tzinfo=UTC)


def test_a_seek_is_parsed_from_its_lines_and_kept_whole():
    seek = parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, "Spaceships",
                      "seek spaceships\ndeadline 3D\nunrated\npublic\nmatch scored 3\nlapse 2d\n")
    assert (seek.game, seek.deadline, seek.rated, seek.public) == ("spaceships", "3d", False, True)
    assert seek.deadline_time == timedelta(days=3) and seek.lapses == AT + timedelta(days=2)
    assert dict(seek.terms)["match"] == "scored"
    assert Seek.from_fields(seek.fields()) == seek
    plain = parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, "gridfighters", "seek gridfighters")
    assert plain.rated and not plain.public and plain.lapses == AT + LAPSE and plain.deadline == "72h"
    assert Seek.from_fields(plain.fields()) == plain and plain.rating is None
    ranged = parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, "spaceships", "rating 1400 - 1800")
    assert ranged.rating == (1400, 1800) and Seek.from_fields(ranged.fields()) == ranged


@pytest.mark.parametrize(("game", "lines", "why"), [
    ("chess", "", "no such game"), ("spaceships", "variant 9.9", "9.9"),
    ("spaceships", "deadline 10m", "between 1h and 30d"), ("spaceships", "lapse 31d", "between 1h and 30d"),
    ("spaceships", "deadline soon", "give a number and a unit"),
    ("spaceships", "rating 1800-1400", "give the lower rating first"),
])
def test_a_bad_seek_is_refused_with_the_reason(game, lines, why):
    with pytest.raises(ValueError, match=why):
        parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, game, f"seek {game}\n{lines}\n")


def test_the_rules_of_taking_a_seek_by_the_moment_given():
    seek = parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, "spaceships", "lapse 1d")
    bob = "bob@example.net"
    assert why_untakable(seek.id, seek, Status.OPEN, bob, AT + timedelta(hours=23), named=True) is None
    assert "lapsed at 2026-11-22 12:00 UTC" in why_untakable(seek.id, seek, Status.OPEN, bob,
                                                             AT + timedelta(days=1), named=True)
    assert "no open seek" in why_untakable(seek.id, None, Status.UNCONFIRMED, bob, AT, named=True)
    assert "no open seek" in why_untakable(seek.id, seek, Status.UNCONFIRMED, bob, AT, named=True)
    assert "taken by someone else" in why_untakable(seek.id, seek, Status.TAKEN, bob, AT, named=True)
    assert "withdrawn" in why_untakable(seek.id, seek, Status.CANCELLED, bob, AT, named=True)
    assert "your own" in why_untakable(seek.id, seek, Status.OPEN, seek.seeker, AT, named=True)
    assert "public name" in why_untakable(seek.id, seek, Status.OPEN, bob, AT, named=False)
    ranged = parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, "spaceships", "rating 1400-1600")
    assert why_untakable(ranged.id, ranged, Status.OPEN, bob, AT, named=True) is None  # a new player: 1500
    assert why_untakable(ranged.id, ranged, Status.OPEN, bob, AT, True, taker_rating=1600.4) is None
    assert "rated 1400 to 1600 at Spaceships, and your rating there is 1601" in why_untakable(
        ranged.id, ranged, Status.OPEN, bob, AT, True, taker_rating=1600.6)


def test_a_seek_is_shown_by_name_never_by_address():
    seek = parse_seek("s0123456789", "alice@example.org", "gm@example.org", AT, "spaceships", "")
    view = shown(seek, {"alice@example.org": "Ahab"})
    assert view["name"] == "Ahab" and "alice@example.org" not in repr(view) and view["rating"] is None
    assert shown(seek, {}, {"alice@example.org": 1712.6})["rating"] == 1713
    assert shown(seek, {}, {})["rating"] == 1500
