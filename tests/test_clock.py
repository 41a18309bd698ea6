"""gm.kernel.clock: the one reading of durations and the one writing of a
moment, which the command line, the owner's mail and the sheets share."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gm.cli import main
from gm.kernel.clock import parse_duration, utc_minute


@pytest.mark.parametrize("text, length", [
    ("72h", timedelta(hours=72)), ("3d", timedelta(days=3)), ("90m", timedelta(minutes=90)),
    ("45s", timedelta(seconds=45)), ("1.5h", timedelta(minutes=90)), (".5d", timedelta(hours=12)),
    ("2.h", timedelta(hours=2)), ("+24h", timedelta(hours=24)), (" 24H ", timedelta(hours=24)),
])
def test_durations_as_the_command_line_and_the_owner_wrote_them(text, length):
    assert parse_duration(text) == length


@pytest.mark.parametrize("text", ["", "h", "72", "72x", "3 days", "1e3h", "-2h", "²h", "1.2.3h"])
def test_anything_else_is_refused_in_words(text):
    with pytest.raises(ValueError) as refused:
        parse_duration(text)
    assert str(refused.value) == f"{text!r}: give a number and a unit, such as 72h, 3d or 90m"


def test_the_first_example_suits_the_question():
    with pytest.raises(ValueError, match=r"'soon': give a number and a unit, such as 24h, 3d or 90m"):
        parse_duration("soon", example="24h")


def test_a_duration_too_long_for_any_clock_is_refused_not_a_traceback(capsys):
    with pytest.raises(ValueError, match="too long"):
        parse_duration("9999999999d")
    with pytest.raises(SystemExit):
        main(["new", "--player", "a@example.org", "--player", "b@example.org", "--deadline", "9999999999d"])
    assert "argument --deadline: '9999999999d': too long" in capsys.readouterr().err


def test_a_moment_is_written_to_the_minute_in_utc():
    assert utc_minute(datetime(2026, 12, 1, 9, 5, 59, 999, tzinfo=UTC)) == "2026-12-01 09:05 UTC"
