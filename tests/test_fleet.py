"""Setting up a fleet [2.1], [3], [11.6]."""

import pytest

from gm.games.spaceships.fleet import SetupError, build_fleet
from gm.games.spaceships.notation import parse_setup
from gm.games.spaceships.ruleset import Ruleset, ruleset_named
from gm.games.spaceships.ships import ShipType
from support import FLEET_1, FLEET_2


def fleet(text, ruleset=Ruleset(), extra=0):
    return build_fleet(parse_setup(text), ruleset, extra)


def problems(text, ruleset=Ruleset(), extra=0) -> str:
    with pytest.raises(SetupError) as caught:
        fleet(text, ruleset, extra)
    return str(caught.value)


def test_standard_fleets_3_7():
    for text in (FLEET_1, FLEET_2):
        f = fleet(text)
        assert f.cost == 24
        assert [s.type.code for s in f.ships] == [line.split()[0] for line in text.splitlines()]


def test_fleet_prints_back_as_setup_lines():
    f = fleet(FLEET_1)
    assert f.setup_lines()[0] == "DS Rv1 Rv2 Rw1 Rw2 Ov1 Ov2 Ow1 Ow2"
    assert fleet(str(f)) == f


def test_ships_may_not_intersect_3_4():
    text = FLEET_1.replace("LS Bz5", "LS Bv1")
    assert "Bv1 is also in the flying saucer FS Bv1-Bw2" in problems(text) and "[3.4]" in problems(text)


def test_every_problem_is_listed_at_once():
    text = FLEET_1.replace("LS Bz5", "LS Bv1").replace("MD Yz1 Yz2 Yz3", "MD Yz1 Yz2 Yy3")
    message = problems(text)
    assert "[3.4]" in message and "[6.6.2]" in message


def test_missing_ship_3_6():
    text = FLEET_1.replace("KC Gv1-Gx2\n", "")
    assert "the fleet needs a kill cruiser [3.7]" in problems(text)


def test_either_or_choices_3_7():
    assert "a flying saucer or a patrol cruiser" in problems(FLEET_1.replace("FS Bv1-Bw2\n", ""))
    assert "a light scout or a heavy scout" in problems(FLEET_1.replace("LS Bz5\n", ""))


def test_too_many_ships_3_6():
    assert "[3.6]" in problems(FLEET_1 + "LG Gz5\n")


def test_optional_fleet_of_any_ships_costing_24_3_7_1():
    ruleset = ruleset_named("2.6.1+fleet=24")
    two_death_stars = "DS Rv1-Ow2\nDS Gv1-Bw2\nLG Bz5\nHS Yz4 Yz5\nAG Rz4 Rz5\n"  # 8+8+1+3+2 = 22
    assert "costs 24 [3.7.1]" in problems(two_death_stars, ruleset)
    f = fleet(two_death_stars + "AG Oz4 Oz5\n", ruleset)
    assert [s.label for s in f.ships] == ["DS1", "DS2", "LG", "HS", "AG1", "AG2"]


def test_other_agreed_total_3_7_1():
    ruleset = ruleset_named("2.6.1+fleet=10")
    assert fleet("KC Rv1-Rw3\nLG Bz5\nMD Gz1 Gz2 Gz3\n", ruleset).cost == 10


def test_continued_match_additional_ships_10_3():
    assert fleet(FLEET_1 + "LG Gz5\n", extra=1).cost == 25
    assert "not the 2 carried over [10.3]" in problems(FLEET_1 + "LG Gz5\n", extra=2)


def test_identities_11_6_1():
    ruleset = ruleset_named("2.6.1+fleet=6")
    f = fleet("FS1 Rv1-Rw2\nAG Bz4 Bz5\n", ruleset)
    assert [s.label for s in f.ships] == ["FS", "AG"]  # a lone ship has no number
    assert "not FS2 [11.6.1]" in problems("FS2 Rv1-Rw2\nAG Bz4 Bz5\n", ruleset)
    f = fleet("LG2 Rv1\nLG Rv3\nLG Rv5\nLG1 Bz5\nAG Gz1 Gz2\n", ruleset)
    assert [s.label for s in f.ships] == ["LG2", "LG3", "LG4", "LG1", "AG"]
    assert "[11.6.1]" in problems("LG5 Rv1\nLG Rv3\nLG Rv5\nLG Bz5\nAG Gz1 Gz2\n", ruleset)
    assert "[3.3]" in problems("LG1 Rv1\nLG1 Rv3\nLG Rv5\nLG Bz5\nAG Gz1 Gz2\n", ruleset)


def test_restricted_types_3_7_1():
    ruleset = Ruleset(fleet_cost=2, allowed_types=frozenset({ShipType.LG}))
    assert "not allowed" in problems("AG Rv1 Rv2\n", ruleset)
    assert fleet("LG Rv1\nLG Rv3\n", ruleset).cost == 2


def test_cell_named_twice():
    assert "named twice" in problems(FLEET_1.replace("LS Bz5", "LS Bz5 Bz5"))


def test_unknown_variant():
    with pytest.raises(ValueError, match="unknown ruleset"):
        ruleset_named("3.0")
    with pytest.raises(ValueError, match="unknown option"):
        ruleset_named("2.6.1+gunboats")
