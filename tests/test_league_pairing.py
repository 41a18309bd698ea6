"""Tournament pairing and standings (`gm.league.pairing`, `gm.league.standings`):
the circle method's rounds, Monrad's Swiss rounds, and the tie-breaks, as
properties over any entrants and results and against cases worked by hand."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gm.league.pairing import NoPairing, Pairing, Result, points, round_robin, swiss_round
from gm.league.standings import System, standings


def _entrants(n: int) -> list[str]:
    return [f"p{i:02}" for i in range(n)]


@pytest.mark.parametrize("n", range(2, 13))
def test_round_robin_every_pair_meets_once_with_the_first_seat_balanced(n):
    entrants = _entrants(n)
    rounds = round_robin(entrants)
    assert len(rounds) == (n if n % 2 else n - 1)
    games = [p for r in rounds for p in r if p.second is not None]
    assert sorted(tuple(sorted((p.first, p.second))) for p in games) == sorted(itertools.combinations(entrants, 2))
    for r in rounds:
        seated = [e for p in r for e in (p.first, p.second) if e is not None]
        assert sorted(seated) == entrants  # everyone once a round, a bye included
    byes = [p.first for r in rounds for p in r if p.second is None]
    assert sorted(byes) == (entrants if n % 2 else [])
    for e in entrants:
        firsts = sum(p.first == e for p in games)
        seconds = sum(p.second == e for p in games)
        assert abs(firsts - seconds) <= 1, (e, firsts, seconds)


def test_round_robin_refuses_an_entrant_twice():
    with pytest.raises(ValueError):
        round_robin(["a", "b", "a"])


def test_swiss_first_round_pairs_by_rating_and_gives_the_lowest_the_bye():
    ratings = {"ann": 1800, "bo": 1700, "cy": 1600, "di": 1500, "ed": 1400}
    assert swiss_round(list(ratings), ratings, []) == (Pairing("ann", "bo"), Pairing("cy", "di"), Pairing("ed", None))


def test_swiss_pairs_by_points_before_rating_and_never_twice():
    ratings = {"ann": 1800, "bo": 1700, "cy": 1600, "di": 1500}
    first = [Result("ann", "bo", 0), Result("cy", "di", 1)]  # bo and cy won
    second = swiss_round(list(ratings), ratings, first)
    assert {frozenset((p.first, p.second)) for p in second} == {frozenset(("bo", "cy")), frozenset(("ann", "di"))}
    # ann had the first seat, bo the second: now bo's turn to be first against cy? bo had second, cy first.
    assert Pairing("bo", "cy") in second and Pairing("di", "ann") in second


def test_swiss_backtracks_rather_than_strand_an_entrant():
    # a and b met, c and d met; a-c and b-d remain (and a-d, b-c): the top pair a-b is impossible.
    ratings = {"a": 4, "b": 3, "c": 2, "d": 1}
    results = [Result("a", "b", 1), Result("c", "d", 1), Result("a", "c", 1), Result("b", "d", 1)]
    assert swiss_round(list(ratings), ratings, results) in (
        (Pairing("a", "d"), Pairing("b", "c")), (Pairing("d", "a"), Pairing("b", "c")),
        (Pairing("a", "d"), Pairing("c", "b")), (Pairing("d", "a"), Pairing("c", "b")))
    everyone_met = [*results, Result("a", "d", 1), Result("b", "c", 1)]
    with pytest.raises(NoPairing):
        swiss_round(list(ratings), ratings, everyone_met)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 9), outcomes=st.lists(st.sampled_from([1.0, 0.5, 0.0]), min_size=40, max_size=40),
       rounds=st.integers(1, 4))
def test_swiss_rounds_never_repeat_a_game_and_spread_the_byes(n, outcomes, rounds):
    entrants = _entrants(n)
    ratings = {e: 1500 + 10 * i for i, e in enumerate(entrants)}
    results: list[Result] = []
    draws = iter(outcomes)
    for _ in range(min(rounds, n - 1)):
        try:
            pairings = swiss_round(entrants, ratings, results)
        except NoPairing:  # right only when no pairing avoids a rematch (six may be left as two triangles)
            assert not _any_pairing(entrants, results)
            break
        seated = [e for p in pairings for e in (p.first, p.second) if e is not None]
        assert sorted(seated) == entrants
        for p in pairings:
            results.append(Result(p.first, None, 1) if p.second is None else Result(p.first, p.second, next(draws)))
    games = [frozenset((r.first, r.second)) for r in results if r.second is not None]
    assert len(games) == len(set(games))
    byes = [r.first for r in results if r.second is None]
    assert len(byes) == len(set(byes))
    assert sum(points(results).values()) == len(results)


def _any_pairing(entrants: list[str], results: list[Result]) -> bool:
    """Whether some round pairs everyone (one bye, to a player without one, when
    odd) with nobody met before: an exhaustive search of its own, not the pairing's."""
    met = {frozenset((r.first, r.second)) for r in results if r.second is not None}
    had_bye = {r.first for r in results if r.second is None}

    def pairs(left: list[str]) -> bool:
        if not left:
            return True
        return any(frozenset((left[0], other)) not in met and pairs([e for e in left[1:] if e != other])
                   for other in left[1:])

    if len(entrants) % 2 == 0:
        return pairs(entrants)
    byes = [e for e in entrants if e not in had_bye] or entrants
    return any(pairs([e for e in entrants if e != bye]) for bye in byes)


def test_six_entrants_left_as_two_triangles_have_no_round_left():
    # Every game but those inside {a,b,c} and {d,e,f} was played: a fourth round would repeat one.
    results = [Result(x, y, 1) for x in "abc" for y in "def"]
    assert not _any_pairing(list("abcdef"), results)
    with pytest.raises(NoPairing):
        swiss_round(list("abcdef"), {}, results)


def test_round_robin_standings_with_sonneborn_berger_worked_by_hand():
    # ann beats bo, draws cy; bo beats cy; cy beats di; di beats ann; bo draws di.
    results = [Result("ann", "bo", 1), Result("cy", "ann", 0.5), Result("bo", "cy", 1), Result("cy", "di", 1),
               Result("di", "ann", 1), Result("bo", "di", 0.5)]
    table = standings(["ann", "bo", "cy", "di"], results, System.ROUND_ROBIN)
    # points: ann 1.5, bo 1.5, cy 1.5, di 1.5 -- all equal; SB decides:
    # ann: beat bo (1.5) + half cy (0.75) = 2.25; bo: beat cy 1.5 + half di 0.75 = 2.25
    # cy: half ann 0.75 + beat di 1.5 = 2.25; di: beat ann 1.5 + half bo 0.75 = 2.25
    assert [s.points for s in table] == [1.5] * 4 and [s.tiebreak for s in table] == [2.25] * 4
    assert [s.place_text for s in table] == ["=1"] * 4
    results[-1] = Result("bo", "di", 1)  # now bo 2, ann 1.5, cy 1.5, di 1
    table = standings(["ann", "bo", "cy", "di"], results, System.ROUND_ROBIN)
    assert (table[0].entrant, table[0].points, table[0].place_text) == ("bo", 2, "1")
    sb = {s.entrant: s.tiebreak for s in table}
    assert sb["ann"] == 2 + 0.75 and sb["cy"] == 0.75 + 1  # ann beat bo (2), drew cy (1.5/2); cy drew ann, beat di
    assert [s.entrant for s in table] == ["bo", "ann", "cy", "di"]
    assert (table[1].won, table[1].drawn, table[1].lost, table[1].played) == (1, 1, 1, 3)


def test_swiss_standings_use_buchholz_and_a_bye_adds_nothing():
    results = [Result("a", "b", 1), Result("c", None, 1), Result("c", "a", 0), Result("b", None, 1)]
    table = standings(["a", "b", "c"], results, System.SWISS)
    by = {s.entrant: s for s in table}
    assert (by["a"].points, by["b"].points, by["c"].points) == (2, 1, 1)
    assert by["a"].tiebreak == 1 + 1 and by["b"].tiebreak == 2 and by["c"].tiebreak == 2
    assert by["c"].played == 1 and by["b"].played == 1
    assert [s.place_text for s in table] == ["1", "=2", "=2"]
