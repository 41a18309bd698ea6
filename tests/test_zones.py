"""gm.kernel.zones: a deadline in the reader's own time, on both sides of a
change of daylight saving time, and quiet hours that a deadline is moved
out of (never earlier than asked, never into anyone's quiet hours)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.kernel.settings import PlayerSettings
from gm.kernel.zones import Quiet, canonical, clock_time, local_minute, near, out_of_quiet
from gm.pbem.answers.settings import quiet, timezone


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def test_the_issue_s_own_example():
    assert local_minute(utc(2026, 12, 1, 17), "Europe/Berlin") == "Tue 1 Dec 18:00 CET (17:00 UTC)"


def test_no_zone_is_what_gm_always_showed():
    assert local_minute(utc(2026, 12, 1, 17), None) == "2026-12-01 17:00 UTC"
    assert clock_time(utc(2026, 12, 1, 17), None) == "17:00 UTC"


def test_the_utc_day_is_named_when_it_is_another():
    assert local_minute(utc(2026, 12, 1, 23, 30), "Europe/Berlin") == "Wed 2 Dec 00:30 CET (Tue 1 Dec 23:30 UTC)"
    assert local_minute(utc(2026, 12, 2, 3), "America/New_York") == "Tue 1 Dec 22:00 EST (Wed 2 Dec 03:00 UTC)"


@pytest.mark.parametrize("moment, zone, shown", [
    # Europe/Berlin leaves summer time on Sun 25 Oct 2026 at 01:00 UTC.
    (utc(2026, 10, 24, 16), "Europe/Berlin", "Sat 24 Oct 18:00 CEST (16:00 UTC)"),
    (utc(2026, 10, 26, 16), "Europe/Berlin", "Mon 26 Oct 17:00 CET (16:00 UTC)"),
    # ... and enters it on Sun 29 Mar 2026 at 01:00 UTC.
    (utc(2026, 3, 28, 16), "Europe/Berlin", "Sat 28 Mar 17:00 CET (16:00 UTC)"),
    (utc(2026, 3, 30, 16), "Europe/Berlin", "Mon 30 Mar 18:00 CEST (16:00 UTC)"),
    # America/New_York leaves it on Sun 1 Nov 2026 at 06:00 UTC, enters it on Sun 8 Mar at 07:00 UTC.
    (utc(2026, 10, 31, 16), "America/New_York", "Sat 31 Oct 12:00 EDT (16:00 UTC)"),
    (utc(2026, 11, 2, 16), "America/New_York", "Mon 2 Nov 11:00 EST (16:00 UTC)"),
    (utc(2026, 3, 7, 16), "America/New_York", "Sat 7 Mar 11:00 EST (16:00 UTC)"),
    (utc(2026, 3, 9, 16), "America/New_York", "Mon 9 Mar 12:00 EDT (16:00 UTC)"),
    # The repeated hour: 02:30 on the wall clock twice, told apart by the abbreviation.
    (utc(2026, 10, 25, 0, 30), "Europe/Berlin", "Sun 25 Oct 02:30 CEST (00:30 UTC)"),
    (utc(2026, 10, 25, 1, 30), "Europe/Berlin", "Sun 25 Oct 02:30 CET (01:30 UTC)"),
    (utc(2026, 11, 1, 5, 30), "America/New_York", "Sun 1 Nov 01:30 EDT (05:30 UTC)"),
    (utc(2026, 11, 1, 6, 30), "America/New_York", "Sun 1 Nov 01:30 EST (06:30 UTC)"),
    # The skipped hour: the minute before it, and the first after it.
    (utc(2026, 3, 29, 0, 59), "Europe/Berlin", "Sun 29 Mar 01:59 CET (00:59 UTC)"),
    (utc(2026, 3, 29, 1, 0), "Europe/Berlin", "Sun 29 Mar 03:00 CEST (01:00 UTC)"),
    (utc(2026, 3, 8, 7), "America/New_York", "Sun 8 Mar 03:00 EDT (07:00 UTC)"),
    # A zone whose abbreviation is its offset.
    (utc(2026, 12, 1, 6, 30), "Asia/Dubai", "Tue 1 Dec 10:30 +04 (06:30 UTC)"),
])
def test_both_sides_of_a_change_of_clocks(moment, zone, shown):
    assert local_minute(moment, zone) == shown


def test_zone_names_whatever_their_case_and_near_matches_for_wrong_ones():
    assert canonical("europe/berlin") == "Europe/Berlin"
    assert canonical(" UTC ") == "UTC"
    assert canonical("Europe/Berln") is None
    assert near("europe/berln")[0] == "Europe/Berlin"
    assert near("new york") == ["America/New_York"]
    assert near("qqqqqqqq") == []


def test_a_deadline_in_quiet_hours_moves_to_their_end():
    night = Quiet(1, time(23), time(7), "Europe/Berlin")
    assert out_of_quiet(utc(2026, 12, 1, 23, 30), [night]) == (utc(2026, 12, 2, 6), (1,))
    assert out_of_quiet(utc(2026, 12, 1, 5, 59, 59, 500000), [night]) == (utc(2026, 12, 1, 6), (1,))
    assert out_of_quiet(utc(2026, 12, 1, 6), [night]) == (utc(2026, 12, 1, 6), ())  # 07:00 CET: out already
    assert out_of_quiet(utc(2026, 12, 1, 21, 59), [night]) == (utc(2026, 12, 1, 21, 59), ())


def test_the_latest_end_among_the_players_again_until_nobody_s():
    alice = Quiet(1, time(23), time(7), "Europe/Berlin")  # to 06:00 UTC
    bob = Quiet(2, time(0, 30), time(3), "America/New_York")  # 05:30 to 08:00 UTC in December
    carol = Quiet(3, time(8), time(9))  # UTC
    assert out_of_quiet(utc(2026, 12, 1, 23), [alice, bob, carol]) == (utc(2026, 12, 2, 9), (1, 2, 3))
    assert out_of_quiet(utc(2026, 12, 1, 23), [carol, bob]) == (utc(2026, 12, 1, 23), ())


def test_quiet_hours_across_a_change_of_clocks_keep_to_the_wall_clock():
    # The night the clocks go back, 01:00-03:00 on the wall lasts three hours.
    repeated = Quiet(1, time(1), time(3), "Europe/Berlin")
    assert out_of_quiet(utc(2026, 10, 25, 0, 30), [repeated]) == (utc(2026, 10, 25, 2), (1,))
    # The night they go forward, 02:30 never comes: the quiet hours end at 03:00 CEST.
    skipped = Quiet(1, time(23), time(2, 30), "Europe/Berlin")
    assert out_of_quiet(utc(2026, 3, 29, 0, 30), [skipped]) == (utc(2026, 3, 29, 1), (1,))
    # 01:30 EDT is out of them, for the hour until 01:00 EST.
    new_york = Quiet(1, time(22), time(1, 30), "America/New_York")
    assert out_of_quiet(utc(2026, 11, 1, 5, 10), [new_york]) == (utc(2026, 11, 1, 5, 30), (1,))


def test_quiet_hours_covering_the_whole_day_leave_the_deadline_as_asked():
    day, night = Quiet(1, time(7), time(19)), Quiet(2, time(19), time(7))
    assert out_of_quiet(utc(2026, 12, 1, 12), [day, night]) == (utc(2026, 12, 1, 12), ())


ZONES = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Chatham", None]
minutes = st.integers(0, 24 * 60 - 1).map(lambda m: time(m // 60, m % 60))


@st.composite
def quiet_hours(draw: st.DrawFn, player: int) -> Quiet:
    start = draw(minutes)
    length = draw(st.integers(1, 12 * 60))
    end = (datetime.combine(datetime.min, start) + timedelta(minutes=length)).time()
    return Quiet(player, start, end, draw(st.sampled_from(ZONES)))


@settings(max_examples=300, deadline=None)
@given(st.datetimes(datetime(2026, 1, 1), datetime(2027, 12, 31)).map(lambda d: d.replace(tzinfo=UTC)),
       st.integers(1, 3).flatmap(lambda n: st.tuples(*(quiet_hours(p) for p in range(1, n + 1)))))
def test_a_moved_deadline_is_never_earlier_and_never_in_anyone_s_quiet_hours(deadline, quiets):
    moved, movers = out_of_quiet(deadline, quiets)
    assert moved >= deadline
    if moved != deadline:
        assert not any(quiet.holds(moved) for quiet in quiets)
        assert movers and moved - deadline <= timedelta(days=2)
        assert moved.second == moved.microsecond == 0
    elif any(quiet.holds(deadline) for quiet in quiets):
        assert movers == ()  # nowhere within two days is out of everyone's quiet hours
        assert len(quiets) > 1
    if len(quiets) == 1:
        assert not quiets[0].holds(moved)


def test_the_timezone_and_quiet_steps():
    from_mail = PlayerSettings()
    assert timezone(from_mail, " europe/BERLIN ") == PlayerSettings(zone="Europe/Berlin")
    assert timezone(PlayerSettings(zone="Europe/Berlin"), "off") == timezone(from_mail, "UTC") == from_mail
    with pytest.raises(ValueError, match=r"'europe/berln' is no time zone name I know; did you mean Europe/Berlin"):
        timezone(from_mail, "europe/berln")
    with pytest.raises(ValueError, match=r"such as Europe/Berlin\)$"):
        timezone(from_mail, "qqqqqqqq")
    assert quiet(from_mail, "23:00-07:00").quiet == (time(23), time(7))
    assert quiet(from_mail, "19:00-07:00").quiet == (time(19), time(7))  # twelve hours, the most
    with pytest.raises(ValueError, match="at most 12 hours"):
        quiet(from_mail, "18:59-07:00")
    assert quiet(PlayerSettings(quiet=(time(1), time(2))), "off") == from_mail
