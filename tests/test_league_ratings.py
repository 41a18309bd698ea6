"""The ratings' mathematics and their fold (`gm.league`): Glicko-2 against
the worked example of Glickman's paper, idle time, the robot's levels as
players, reliability, Celestial Empire's ranking by standing, and the fold's
independence from the order the games are given in."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gm.kernel.values import EndKind, GameEnd
from gm.league import glicko2, multiplayer
from gm.league.ratings import Finished, Seated, fold, history

T0 = datetime(2026, 11, 1, 9, 30, 12, 250_000, tzinfo=UTC)


def test_glickmans_worked_example_to_the_decimal():
    """Section 3 of "Example of the Glicko-2 system": a 1500/200/0.06 player
    beats 1400/30 and loses to 1550/100 and 1700/300, τ = 0.5. The paper
    prints μ' = -0.2069, φ' = 0.8722, sigma' = 0.05999 and, converting those
    rounded figures, r' = 1464.06 and RD' = 151.52."""
    after = glicko2.update(glicko2.Rating(1500, 200, 0.06),
                           [(glicko2.Rating(1400, 30), 1), (glicko2.Rating(1550, 100), 0),
                            (glicko2.Rating(1700, 300), 0)], tau=0.5)
    assert round((after.rating - 1500) / glicko2.SCALE, 4) == -0.2069
    assert round(after.deviation / glicko2.SCALE, 4) == 0.8722
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)  # the paper cuts 0.059996 to 0.05999
    assert round(glicko2.SCALE * -0.2069 + 1500, 2) == 1464.06
    assert round(glicko2.SCALE * 0.8722, 2) == 151.52
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)


def test_new_players_and_idle_time():
    fresh = glicko2.Rating()
    assert (fresh.rating, fresh.deviation, fresh.volatility) == (1500, 350, 0.06)
    settled = glicko2.Rating(1600, 60, 0.06)
    assert glicko2.idle(settled, 0) == settled
    after = glicko2.idle(settled, 30)
    expected = ((60 / glicko2.SCALE) ** 2 + 30 * 0.06 ** 2) ** 0.5 * glicko2.SCALE
    assert after.deviation == pytest.approx(expected) and after.rating == 1600
    assert glicko2.idle(settled, 10_000).deviation == 350
    assert glicko2.update(settled, []).deviation == pytest.approx(glicko2.idle(settled, 1).deviation)


def two(game_id, ended, a, b, end, rated=True, game="spaceships", asked=(3, 3), late=(0, 0)):
    return Finished(game_id, game, ended, (Seated(a, asked[0], late[0]), Seated(b, asked[1], late[1])), end, rated)


def test_a_win_a_draw_and_a_resignation():
    tables = fold([
        two("g1", T0, "ann@x.org", "bob@y.org", GameEnd(EndKind.RULES, 5, winners=(1,))),
        two("g2", T0 + timedelta(days=2), "ann@x.org", "bob@y.org", GameEnd(EndKind.RESIGNED, winners=(1,),
                                                                            losers=(2,))),
        two("g3", T0 + timedelta(days=3), "cy@z.org", "bob@y.org", GameEnd(EndKind.DRAW_AGREED)),
    ])
    rows = {row.player: row for row in tables["spaceships"]}
    assert [row.player for row in tables["spaceships"]] == ["ann@x.org", "cy@z.org", "bob@y.org"]
    assert rows["ann@x.org"].games == 2 and rows["bob@y.org"].games == 3 and rows["cy@z.org"].games == 1
    assert rows["ann@x.org"].rating > 1500 > rows["bob@y.org"].rating
    assert rows["cy@z.org"].rating < 1500  # a new player's draw with a weaker one
    alone = fold([two("g1", T0, "ann@x.org", "bob@y.org", GameEnd(EndKind.RULES, 5, winners=(1,)))])
    assert alone["spaceships"][0].rating == glicko2.update(glicko2.Rating(), [(glicko2.Rating(), 1.0)]).rating


def test_forfeit_is_a_loss_and_a_double_forfeit_or_a_cancel_no_result():
    forfeit = GameEnd(EndKind.FORFEIT, winners=(2,), losers=(1,))
    rows = fold([two("g1", T0, "ann@x.org", "bob@y.org", forfeit)])["spaceships"]
    assert [row.player for row in rows] == ["bob@y.org", "ann@x.org"]
    nothing = fold([two("g1", T0, "ann@x.org", "bob@y.org", GameEnd(EndKind.FORFEIT, losers=(1, 2))),
                    two("g2", T0, "ann@x.org", "bob@y.org", GameEnd(EndKind.CANCELLED))])
    assert nothing == {"spaceships": ()}


def test_the_robot_is_rated_always_the_person_only_in_a_rated_game():
    won = GameEnd(EndKind.RULES, 7, winners=(1,))
    unrated = fold([two("g1", T0, "ann@x.org", "robot:normal", won, rated=False)])["spaceships"]
    assert [(row.player, row.games) for row in unrated] == [("robot:normal", 1)]
    assert unrated[0].rating < 1500 and unrated[0].reliability is None
    rated = fold([two("g1", T0, "ann@x.org", "robot:normal", won, rated=True)])["spaceships"]
    assert [row.player for row in rated] == ["ann@x.org", "robot:normal"]
    people = fold([two("g1", T0, "ann@x.org", "bob@y.org", won, rated=False)])
    assert people == {"spaceships": ()}


def test_reliability_counts_the_last_20_games_rated_or_not():
    won = GameEnd(EndKind.RULES, 7, winners=(1,))
    games = [two(f"g{n}", T0 + timedelta(hours=n), "ann@x.org", "bob@y.org", won, rated=False,
                 asked=(4, 4), late=(4, 0)) for n in range(10)]
    games += [two(f"h{n}", T0 + timedelta(days=1, hours=n), "ann@x.org", "bob@y.org", won, rated=n == 19,
                  asked=(4, 4), late=(0, 1)) for n in range(20)]
    rows = {row.player: row for row in fold(games)["spaceships"]}
    assert rows["ann@x.org"].reliability == 1.0  # her ten late games are older than the last 20
    assert rows["bob@y.org"].reliability == 0.75
    assert rows["ann@x.org"].games == rows["bob@y.org"].games == 1


def test_each_game_its_own_table_and_the_order_the_games_ended():
    won = GameEnd(EndKind.RULES, 7, winners=(1,))
    games = [two(f"g{n}", T0 + timedelta(days=n // 2), "ann@x.org" if n % 3 else "bob@y.org",
                 "cy@z.org" if n % 3 else "ann@x.org", won, game="gridfighters" if n % 4 == 1 else "spaceships")
             for n in range(12)]
    tables = fold(games)
    assert set(tables) == {"gridfighters", "spaceships"}
    assert fold(reversed(games)) == tables
    assert fold(games[6:] + games[:6]) == tables


def test_a_players_history_is_the_fold_read_after_each_of_their_games():
    won = GameEnd(EndKind.RULES, 7, winners=(1,))
    games = [two(f"g{n}", T0 + timedelta(days=n), "ann@x.org" if n % 3 else "bob@y.org",
                 "cy@z.org" if n % 3 else "ann@x.org", won, game="gridfighters" if n % 4 == 1 else "spaceships")
             for n in range(12)]
    ann = history(reversed(games), "ann@x.org")
    for name, points in ann.items():
        mine = [g for g in games if g.game == name and any(s.player == "ann@x.org" for s in g.seats)]
        assert [p.game_id for p in points] == [g.game_id for g in mine]  # every game of hers, in order
        for count, point in enumerate(points, 1):
            upto = [g for g in games if g.ended <= point.ended]
            row = next(r for r in fold(upto)[name] if r.player == "ann@x.org")
            assert row.rating == point.rating and row.games == count
    assert history(games, "nobody@x.org") == {}


def test_celestial_empire_ranks_by_standing_allies_tied():
    end = GameEnd(EndKind.RULES, 12, winners=(2, 4), ranking=((2, 4), (1,), (3,)))
    game = Finished("g1", "celestial-empire", T0, tuple(Seated(f"p{n}@x.org") for n in range(1, 5)), end,
                    rated=True, multiplayer=True)
    rows = {row.player: row for row in fold([game])["celestial-empire"]}
    expected = multiplayer.rate([multiplayer.Skill()] * 4, [3, 1, 4, 1])
    assert [rows[f"p{n}@x.org"].rating for n in range(1, 5)] == [skill.mu for skill in expected]
    assert [rows[f"p{n}@x.org"].deviation for n in range(1, 5)] == [skill.sigma for skill in expected]
    assert rows["p2@x.org"].rating == rows["p4@x.org"].rating > rows["p1@x.org"].rating > rows["p3@x.org"].rating
    assert rows["p1@x.org"].volatility is None


def test_a_robot_level_at_several_seats_is_not_rated_by_the_game_the_people_are():
    """Eight robot empires of one level played themselves: their level's
    rating learns nothing from it; a person in the game is rated if it is."""
    end = GameEnd(EndKind.RULES, 3, winners=(1,), ranking=tuple((n,) for n in range(1, 10)))
    seats = (Seated("ann@x.org"), *[Seated("robot:easy")] * 8)
    for rated in (False, True):
        game = Finished("g1", "celestial-empire", T0, seats, end, rated=rated, multiplayer=True)
        rows = {row.player: row for row in fold([game]).get("celestial-empire", ())}
        assert "robot:easy" not in rows
        assert ("ann@x.org" in rows) is rated


def test_standing_without_a_ranking():
    assert GameEnd(EndKind.RULES, winners=(2,)).standing([1, 2]) == ((2,), (1,))
    assert GameEnd(EndKind.DRAW_AGREED).standing([1, 2]) == ((1, 2),)
    assert GameEnd(EndKind.RESIGNED, winners=(1,), losers=(2,)).standing([1, 2]) == ((1,), (2,))
    assert GameEnd(EndKind.RULES, ranking=((3,), (1, 2))).standing([1, 2, 3]) == ((3,), (1, 2))


def test_plackett_luce_ties_are_the_mean_of_their_strict_orders():
    """openskill's own handling of equal ranks lifts a third place as high
    as two tied winners; a tie here is the mean of its strict orders."""
    new = multiplayer.Skill()
    strict = multiplayer.rate([new] * 4, [1, 2, 3, 4])
    assert strict[0].mu > strict[1].mu > strict[2].mu > strict[3].mu
    assert strict == multiplayer._strict([new] * 4, [1, 2, 3, 4])
    tied = multiplayer.rate([new] * 4, [1, 1, 3, 4])
    assert tied[0] == tied[1]
    assert tied[0].mu == pytest.approx((strict[0].mu + strict[1].mu) / 2)
    assert tied[1].mu > tied[2].mu > tied[3].mu
    assert tied[2] == strict[2] and tied[3] == strict[3]
    draw = multiplayer.rate([new] * 3, [1, 1, 1])
    assert draw[0] == draw[1] == draw[2] and draw[0].mu == pytest.approx(25)
