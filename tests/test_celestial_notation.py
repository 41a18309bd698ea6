"""Celestial Empire notation: every command the manual shows reads to the
order it means, orders print back to what reads them, and bad lines are
answered with their line, column and a hint while the good ones stand.

The manual's examples are copied here with their line numbers in
celestial-empire-manual.tex (tests do not read ../shared)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gm.games.celestial_empire import orders as o
from gm.games.celestial_empire import orders_empire as e
from gm.games.celestial_empire.command_help import COMMANDS_HELP, shape
from gm.games.celestial_empire.notation import Line, parse_order, parse_orders
from gm.kernel.errors import NotationError

U = o.Unit
MANUAL_EXAMPLES: list[tuple[int, str, o.Order]] = [
    (369, "S123=BLACKGUARD", o.NameShip(123, "BLACKGUARD")),
    (380, "234=ARAKOS I", e.NamePlanet(234, "ARAKOS I")),
    (406, "S244GMASTER", o.GiftShip(244, "MASTER")),
    (422, "345GWARLORD", e.GiftPlanet(345, "WARLORD")),
    (475, "+Assassin", e.MoreFriendly("Assassin")),
    (476, "-PsiNinja", e.MoreHostile("PsiNinja")),
    (505, "S276U4M3", o.UnloadMines(276, 4, 3)),
    (521, "S234U3D", o.UnloadPDUs(234, 3)),
    (535, "S286U2I", o.UnloadIndustry(286, 2)),
    (549, "S132U42R2", o.UnloadOre(132, 42, 2)),
    (566, "S322U23S", o.UnloadSpacemines(322, 23)),
    (586, "S309U", o.UnloadAllOre(309)),
    (628, "S306L10M4", o.LoadMines(306, 10, 4)),
    (649, "S243L34D", o.LoadPDUs(243, 34)),
    (668, "S345L3I", o.LoadIndustry(345, 3)),
    (685, "S123L120R2", o.LoadOre(123, 120, 2)),
    (702, "S234L34S", o.LoadSpacemines(234, 34)),
    (730, "S276L", o.LoadAll(276)),
    (731, "S276L(78D)", o.LoadAll(276, ("7", "8", "D"))),
    (806, "S178B43F45", o.Contract(178, 43, U.FIGHTER, 45)),
    (807, "S179B23C10", o.Contract(179, 23, U.CARGO, 10)),
    (839, "S123P12R1", o.BuyOre(123, 12, 1)),
    (871, "S123X23R2", o.SellOre(123, 23, 2)),
    (872, "S123X", o.SellAllOre(123)),
    (929, "S123D34", o.DeployFromShip(123, 34)),
    (930, "234D2", e.DeployFromPlanet(234, 2)),
    (931, "S123R23", o.Retrieve(123, 23)),
    (1074, "S231AS321", e.AttackShip(231, 321)),
    (1075, "S231A34S321", e.AttackShip(231, 321, 34)),  # the gloss says 32 fighter units: the line says 34
    (1110, "S309AD", e.AttackPDUs(309)),
    (1111, "S309A2D", e.AttackPDUs(309, 2)),
    (1135, "S165AM0", e.AttackMines(165, 0)),
    (1136, "S165A10M0", e.AttackMines(165, 0, 10)),
    # The ore section's examples write M where its syntax says R: they are
    # read as written, as mine attacks (docs/celestial_empire/notation.md).
    (1156, "S165AM0", e.AttackMines(165, 0)),
    (1157, "S165A10M0", e.AttackMines(165, 0, 10)),
    (1172, "S164AI", e.AttackIndustry(164)),
    (1173, "S164A20I", e.AttackIndustry(164, 20)),
    (1190, "S123ASM", e.AttackSpacemines(123)),
    (1191, "S123A6SM", e.AttackSpacemines(123, 6)),
    (1233, "123AS234", e.PlanetAttackShip(123, 234)),
    (1234, "123A120S234", e.PlanetAttackShip(123, 234, 120)),
    (1253, "123ASM", e.PlanetAttackSpacemines(123)),
    (1254, "123A20SM", e.PlanetAttackSpacemines(123, 20)),
    (1291, "S276T4S123R5", o.TendOre(276, 4, 123, 5)),
    (1292, "S123T1S276I", o.TendIndustry(123, 1, 276)),
    (1293, "S134T9S200M", o.TendMines(134, 9, 200)),
    (1294, "S145T120S206D", o.TendPDUs(145, 120, 206)),
    (1295, "S100T59S270S", o.TendSpacemines(100, 59, 270)),
    (1296, "S103TS104", o.TendAllOre(103, 104)),
    (1337, "S123Z30C", e.Unbuild(123, 30, U.CARGO)),
    (1338, "S234Z5F", e.Unbuild(234, 5, U.FIGHTER)),
    (1339, "S309Z9T", e.Unbuild(309, 9, U.TRACTOR)),
    (1340, "S276Z25S", e.Unbuild(276, 25, U.SHIELD)),
    (1407, "345B50D", e.BuildPDUs(345, 50)),
    (1408, "235B5M8", e.BuildMines(235, 5, 8)),
    (1409, "103B10I", e.BuildIndustry(103, 10)),
    (1410, "100B50S0", e.BuildSpacemines(100, 50, 0)),
    (1411, "327B1H0/5/0/7", e.BuildHyperdrives(327, 1, 0, 5, 0, 7)),
    (1434, "S123B30C", e.BuildUnits(123, 30, U.CARGO)),
    (1435, "S234B5F", e.BuildUnits(234, 5, U.FIGHTER)),
    (1436, "S309B9T", e.BuildUnits(309, 9, U.TRACTOR)),
    (1437, "S276B25S", e.BuildUnits(276, 25, U.SHIELD)),
    (1521, "S123J120J240J320J101J322", e.Jump(123, (120, 240, 320, 101, 322))),
    (1524, "S123J120", e.Jump(123, (120,))),
    (1543, "145X4R5R6", e.Transmute(145, 4, 5, 6)),
    (1569, "SCAN123", e.Scan(123)),
    (1612, "OS123AI", e.SetStandingOrder(e.AttackIndustry(123))),
    (1613, "O234B3D", e.SetStandingOrder(e.BuildPDUs(234, 3))),
    (1615, "XS123", e.ClearShipStandingOrder(123)),
    (1616, "X234", e.ClearPlanetStandingOrder(234)),
    (1835, "{Death to Grok the infidel.}", e.Broadcast("Death to Grok the infidel.")),
    (1837, "&Winter Leave #306 now or face war.&", e.PersonalMessage("Winter", "Leave #306 now or face war.")),
    (1839, "(ALLY We must strike at P304 now)",
     e.AllianceMessage(o.AllianceLevel.ALLY, "We must strike at P304 now")),
    (1919, "S123ES234", e.Engage(123, 234)),
    (2017, "TURN30", e.GameLength(30)),
    # The example move (l.2066-2104), all but its S306L10M (below).
    (2074, "S123=BLACKGUARD", o.NameShip(123, "BLACKGUARD")),
    (2075, "234=ARAKOS", e.NamePlanet(234, "ARAKOS")),
    (2078, "S244GMASTER", o.GiftShip(244, "MASTER")),
    (2079, "345GMASTER", e.GiftPlanet(345, "MASTER")),
    (2081, "S123P12R1", o.BuyOre(123, 12, 1)),
    (2082, "S276U4M3", o.UnloadMines(276, 4, 3)),
    (2083, "S234U3D", o.UnloadPDUs(234, 3)),
    (2084, "S286U2I", o.UnloadIndustry(286, 2)),
    (2085, "S309AD", e.AttackPDUs(309)),
    (2086, "123A120S234", e.PlanetAttackShip(123, 234, 120)),
    (2087, "S132U42R2", o.UnloadOre(132, 42, 2)),
    (2088, "S322U23S", o.UnloadSpacemines(322, 23)),
    (2090, "S243L34D", o.LoadPDUs(243, 34)),
    (2093, "S123J120J240J320J101J322", e.Jump(123, (120, 240, 320, 101, 322))),
    (2094, "S123L120R2", o.LoadOre(123, 120, 2)),
    (2095, "S234L34S", o.LoadSpacemines(234, 34)),
    (2096, "100B50S0", e.BuildSpacemines(100, 50, 0)),
    (2097, "SCAN123", e.Scan(123)),
    (2098, "SCAN223", e.Scan(223)),
    (2099, "OS123AI", e.SetStandingOrder(e.AttackIndustry(123))),
    (2100, "{Death to Grok the infidel.}", e.Broadcast("Death to Grok the infidel.")),
    (2101, "&Winter Leave #306 now or face war.&", e.PersonalMessage("Winter", "Leave #306 now or face war.")),
    (2102, "S123ES234", e.Engage(123, 234)),
    (2103, "+Assassin", e.MoreFriendly("Assassin")),
    # The command history (l.2399-2416): both columns are orders.
    (2400, "113=Aeternus", e.NamePlanet(113, "Aeternus")),
    (2401, "265=Affabilis", e.NamePlanet(265, "Affabilis")),
    (2402, "290=Affero", e.NamePlanet(290, "Affero")),
    (2403, "123=Affirmare", e.NamePlanet(123, "Affirmare")),
    (2404, "107=Aetas", e.NamePlanet(107, "Aetas")),
    (2405, "S104U1M3", o.UnloadMines(104, 1, 3)),
    (2406, "S104L10R0", o.LoadOre(104, 10, 0)),
    (2407, "123B1M3", e.BuildMines(123, 1, 3)),
    (2408, "123B1M8", e.BuildMines(123, 1, 8)),
    (2409, "123B1M9", e.BuildMines(123, 1, 9)),
    (2410, "S104B60C", e.BuildUnits(104, 60, U.CARGO)),
    (2410, "S104B10C", e.BuildUnits(104, 10, U.CARGO)),
    (2411, "S100J250J239", e.Jump(100, (250, 239))),
    (2412, "S101J175J126", e.Jump(101, (175, 126))),
    (2413, "S102J104J127", e.Jump(102, (104, 127))),
    (2414, "S103J152J193", e.Jump(103, (152, 193))),
    (2415, "S104J175J140J294J119", e.Jump(104, (175, 140, 294, 119))),
    (2416, "SCAN101", e.Scan(101)),
]

EXAMPLE_MOVE = """\
; RP 123 increase f-units on s123 by 20%
; RP 190 create industry on planet

; Naming
S123=BLACKGUARD
234=ARAKOS

; Give some stuff to MASTER or he will attack me
S244GMASTER
345GMASTER

S123P12R1
S276U4M3
S234U3D
S286U2I
S309AD
123A120S234
S132U42R2
S322U23S
S306L10M
S243L34D

; Get S123 to research planet in time for combat.
S123J120J240J320J101J322
S123L120R2
S234L34S
100B50S0
SCAN123
SCAN223
OS123AI
{Death to Grok the infidel.}
&Winter Leave #306 now or face war.&
S123ES234
+Assassin
"""
"""The manual's example move, l.2070-2103 (the body after its mail headers)."""


@pytest.mark.parametrize("manual_line, text, order", MANUAL_EXAMPLES, ids=[f"l{n}-{t}" for n, t, _ in MANUAL_EXAMPLES])
def test_every_manual_example_reads_to_what_it_means(manual_line, text, order):
    assert parse_order(text) == order
    assert str(parse_order(text)) == text or isinstance(order, (o.NameShip, e.NamePlanet))


def test_the_manual_examples_cover_every_order_class():
    kinds = {type(order) for _, _, order in MANUAL_EXAMPLES}
    missing = {form.kind for form in COMMANDS_HELP} - kinds
    assert missing == {e.AttackOre}  # the manual's only ore-attack examples write M (l.1156)


def test_the_manuals_mine_load_without_a_type_is_answered_with_the_fix():
    """l.2089 writes S306L10M where the syntax (l.625) has S306L10M<type>."""
    with pytest.raises(NotationError) as caught:
        parse_order("S306L10M")
    error = caught.value
    assert (error.line, error.column, error.found) == (1, 9, "the end of the order")
    assert error.expected == ["mine type 0 to 9 after M"]
    assert "S306L10M4" in error.hint


def test_the_ore_attack_is_written_with_r():
    assert parse_order("S165AR0") == e.AttackOre(165, 0)
    assert parse_order("S165A10R0") == e.AttackOre(165, 0, 10)


def test_quick_reference_global_tend_without_a_ship_is_answered_with_the_fix():
    """The quick reference (l.2870) writes S<xxx>T; the section (l.1288) S<xxx>TS<zzz>."""
    with pytest.raises(NotationError) as caught:
        parse_order("S103T")
    assert caught.value.column == 6 and "S103TS104" in caught.value.hint


def test_every_help_example_reads_to_its_kind_and_every_kind_has_help():
    for form in COMMANDS_HELP:
        order = parse_order(form.example)
        assert type(order) is form.kind, form
        assert str(order) == form.example
    kinds = {cls for module in (o, e) for cls in vars(module).values()
             if isinstance(cls, type) and issubclass(cls, o.Order) and cls not in (o.Order, o.ShipOrder, o.PlanetOrder)}
    assert kinds == {form.kind for form in COMMANDS_HELP}


def test_the_notation_doc_shows_every_form_of_the_help():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "celestial_empire" / "notation.md").read_text()
    for form in COMMANDS_HELP:
        assert f"| `{form.syntax}` | {form.meaning} | `{form.example}` | `{form.kind.__name__}` |" in doc, form
    assert f"these {len(COMMANDS_HELP)} forms" in doc
    assert f"{len({form.kind for form in COMMANDS_HELP})} order classes" in doc


def test_letters_are_case_insensitive_and_print_upper_case():
    assert parse_order("s132u42r2") == parse_order("S132U42R2")
    assert str(parse_order("s276l(78p)")) == "S276L(78D)"  # P is PDUs too (l.719); gm prints D
    assert str(parse_order("scan 123")) == "SCAN123"
    assert str(parse_order("os123ai")) == "OS123AI"
    assert parse_order("s123=BlackGuard") == o.NameShip(123, "BlackGuard")  # names keep their case (l.340)
    assert parse_order("(friend hi)") == e.AllianceMessage(o.AllianceLevel.FRIENDLY, "hi")
    assert parse_order("(Enemy hi)").level is o.AllianceLevel.HOSTILE


def test_spaces_between_the_parts_are_allowed_and_dropped():
    assert parse_order("  S 123 J 120 J 240  ") == e.Jump(123, (120, 240))
    assert parse_order("TURN 30") == e.GameLength(30)  # the syntax table writes "TURN xx" (l.2013)
    assert parse_order("S123=  ARAKOS I  ") == o.NameShip(123, "ARAKOS I")


def test_a_semicolon_ends_the_order_even_in_a_message():
    assert parse_order("S123J120 ; to the front") == e.Jump(123, (120,))
    assert parse_order("{Hello; all}") == e.Broadcast("Hello")
    assert parse_order("&Winter Hi&;x") == e.PersonalMessage("Winter", "Hi")


def test_contract_and_build_differ_by_the_bid_and_so_do_their_phases():
    contract, build = parse_order("S123B30C5"), parse_order("S123B30C")
    assert contract == o.Contract(123, 30, U.CARGO, 5) and build == e.BuildUnits(123, 30, U.CARGO)
    assert contract.phase is o.Phase.CONTRACTING and build.phase is o.Phase.SHIP_BUILDING


def test_phases_follow_the_turn_sequence():
    lines = [line for line in parse_orders(EXAMPLE_MOVE) if line.order]
    phases = [line.order.phase for line in lines if line.order.phase is not None]
    assert sorted(phases)[:3] == [o.Phase.NAMING, o.Phase.NAMING, o.Phase.GIFTING]
    assert parse_order("{hi}").phase is None
    assert parse_order("OS123AI").phase is o.Phase.STANDING_ORDERS
    assert parse_order("S123J120").phase > parse_order("S123A5D").phase > parse_order("S123L5D").phase


def test_the_example_move_reads_as_one_mail():
    lines = parse_orders(EXAMPLE_MOVE)
    assert len(lines) == EXAMPLE_MOVE.count("\n")
    orders = [line for line in lines if line.order]
    errors = [line for line in lines if line.error]
    assert len(orders) == 24
    assert [(line.number, line.text) for line in errors] == [(20, "S306L10M")]
    assert errors[0].error.line == 20 and errors[0].error.column == 9
    assert lines[0].order is None and lines[0].comment == " RP 123 increase f-units on s123 by 20%"
    assert lines[2] == Line(3, "")
    assert [str(line.order) for line in orders][-2:] == ["S123ES234", "+Assassin"]


def test_several_bad_lines_are_each_answered_and_the_good_ones_stand():
    mail = "S123J120\nS123Q5\n\n; comment\nP234B5D\nS132U42R2 ; ore\nS1O3J120\r\n345B50D\n"
    lines = parse_orders(mail)
    assert [line.number for line in lines if line.order] == [1, 6, 8]
    bad = {line.number: line.error for line in lines if line.error}
    assert sorted(bad) == [2, 5, 7]
    assert (bad[2].line, bad[2].column, bad[2].text) == (2, 5, "Q")
    assert "J to jump" in bad[2].hint
    assert (bad[5].line, bad[5].column, bad[5].text) == (5, 1, "P")
    assert "without P" in bad[5].hint and "234B5D" in bad[5].hint
    assert (bad[7].line, bad[7].column, bad[7].text) == (7, 3, "O")
    assert "digit 0" in bad[7].hint
    assert str(bad[7]).startswith("line 7, column 3: unexpected 'O'; expected one of")
    assert lines[5].comment == " ore"


@pytest.mark.parametrize("text, column, word, expected, hint", [
    ("123J120", 4, "J", "one of = A B D G X", "ship orders begin with S"),
    ("S123J120,240", 9, ",", "'J'", "its own J"),
    ("S309AP", 6, "P", "a number such as 123", "PDUs are D"),
    ("S123U4R12", 8, "12", "ore type 0 to 9", "0 to 9"),
    ("S123J1J2J3J4J5J6", 16, "6", "the end of the order", "at most 5"),
    ("S134T9S200M3", 12, "3", "the end of the order", "no type"),
    ("S123L10Q", 8, "Q", "one of D I M R S", "S<ship>L<n>M<type> to load"),
    ("(FOO hi)", 2, "FOO", "an alliance level", "(ALLY"),
    ("SBLACKGUARDJ120", 2, "BLACKGUARDJ", "a number such as 123", "by number, not by name"),
    ("S123=" + "N" * 30, 29, "N" * 7, "the end of the name", "23 characters"),
    ("QQQ", 1, "QQQ", "a number such as 123", "an order begins with"),
])
def test_typical_slips_name_the_column_what_was_expected_and_a_hint(text, column, word, expected, hint):
    with pytest.raises(NotationError) as caught:
        parse_order(text)
    error = caught.value
    assert (error.line, error.column, error.text) == (1, column, word)
    assert expected in error.expected[0] or expected in error.expected, error.expected
    assert hint in error.hint
    assert re.match(rf"line 1, column {column}: unexpected ", str(error))


def test_parse_order_wants_exactly_one_order():
    for text in ("", "; only a comment", "   "):
        with pytest.raises(NotationError, match="no order"):
            parse_order(text)
    with pytest.raises(NotationError, match="line 2"):
        parse_order("S123J120\nS124J121")


def test_shapes_group_the_forms_for_hints():
    assert shape("S306L10M4") == "S#L#M#"
    assert shape("s 12 = Big Ship 5") == "S#="


# Round trip: any order prints to a line that reads back to it.

numbers = st.integers(min_value=0, max_value=10**6)
types = st.integers(min_value=0, max_value=9)
counts = st.none() | numbers
units = st.sampled_from(list(o.Unit))
_PRINTABLE = "".join(chr(c) for c in range(32, 127) if chr(c) != ";")
names = st.text(_PRINTABLE, min_size=1, max_size=23).filter(lambda s: s == s.strip())
texts = st.text(_PRINTABLE, min_size=1, max_size=60).filter(lambda s: s == s.strip())
players = st.text("".join(c for c in _PRINTABLE if c not in " &"), min_size=1, max_size=9)

ship_orders = st.one_of(
    st.builds(o.NameShip, numbers, names), st.builds(o.GiftShip, numbers, players),
    st.builds(o.UnloadMines, numbers, numbers, types), st.builds(o.UnloadPDUs, numbers, numbers),
    st.builds(o.UnloadIndustry, numbers, numbers), st.builds(o.UnloadOre, numbers, numbers, types),
    st.builds(o.UnloadSpacemines, numbers, numbers), st.builds(o.UnloadAllOre, numbers),
    st.builds(o.LoadMines, numbers, numbers, types), st.builds(o.LoadPDUs, numbers, numbers),
    st.builds(o.LoadIndustry, numbers, numbers), st.builds(o.LoadOre, numbers, numbers, types),
    st.builds(o.LoadSpacemines, numbers, numbers),
    st.builds(o.LoadAll, numbers, st.lists(st.sampled_from("0123456789DS"), max_size=6).map(tuple)),
    st.builds(o.Contract, numbers, numbers, units, numbers), st.builds(o.BuyOre, numbers, numbers, types),
    st.builds(o.SellOre, numbers, numbers, types), st.builds(o.SellAllOre, numbers),
    st.builds(o.DeployFromShip, numbers, numbers), st.builds(o.Retrieve, numbers, numbers),
    st.builds(e.AttackShip, numbers, numbers, counts), st.builds(e.AttackPDUs, numbers, counts),
    st.builds(e.AttackMines, numbers, types, counts), st.builds(e.AttackOre, numbers, types, counts),
    st.builds(e.AttackIndustry, numbers, counts), st.builds(e.AttackSpacemines, numbers, counts),
    st.builds(e.Engage, numbers, numbers),
    st.builds(o.TendOre, numbers, numbers, numbers, types), st.builds(o.TendMines, numbers, numbers, numbers),
    st.builds(o.TendIndustry, numbers, numbers, numbers), st.builds(o.TendPDUs, numbers, numbers, numbers),
    st.builds(o.TendSpacemines, numbers, numbers, numbers), st.builds(o.TendAllOre, numbers, numbers),
    st.builds(e.Unbuild, numbers, numbers, units), st.builds(e.BuildUnits, numbers, numbers, units),
    st.builds(e.Jump, numbers, st.lists(numbers, min_size=1, max_size=5).map(tuple)),
)
planet_orders = st.one_of(
    st.builds(e.NamePlanet, numbers, names), st.builds(e.GiftPlanet, numbers, players),
    st.builds(e.DeployFromPlanet, numbers, numbers), st.builds(e.PlanetAttackShip, numbers, numbers, counts),
    st.builds(e.PlanetAttackSpacemines, numbers, counts), st.builds(e.Transmute, numbers, numbers, types, types),
    st.builds(e.BuildPDUs, numbers, numbers), st.builds(e.BuildMines, numbers, numbers, types),
    st.builds(e.BuildIndustry, numbers, numbers), st.builds(e.BuildSpacemines, numbers, numbers, types),
    st.builds(e.BuildHyperdrives, numbers, numbers, numbers, numbers, numbers, numbers),
)
other_orders = st.one_of(
    st.builds(e.MoreFriendly, players), st.builds(e.MoreHostile, players), st.builds(e.Scan, numbers),
    st.builds(e.GameLength, numbers), st.builds(e.SetStandingOrder, ship_orders | planet_orders),
    st.builds(e.ClearShipStandingOrder, numbers), st.builds(e.ClearPlanetStandingOrder, numbers),
    st.builds(e.Broadcast, texts), st.builds(e.PersonalMessage, players, texts),
    st.builds(e.AllianceMessage, st.sampled_from(list(o.AllianceLevel)), texts),
)
any_order = ship_orders | planet_orders | other_orders


@given(any_order)
def test_an_order_prints_to_a_line_that_reads_back_to_it(order):
    assert parse_order(str(order)) == order


@given(ship_orders | planet_orders)
def test_lower_case_reads_the_same_but_for_names(order):
    if isinstance(order, (o.NameShip, e.NamePlanet, o.GiftShip, e.GiftPlanet)):
        return
    assert parse_order(str(order).lower()) == order


@given(st.lists(any_order, max_size=12), st.data())
def test_a_mail_of_printed_orders_with_bad_lines_keeps_every_good_one(orders, data):
    lines = [str(order) for order in orders]
    bad_at = data.draw(st.lists(st.integers(0, len(lines)), max_size=3))
    for index in sorted(bad_at, reverse=True):
        lines.insert(index, "S12Q")
    read = parse_orders("\n".join(lines) + "\n")
    assert [line.order for line in read if line.order] == orders
    assert [line.number for line in read if line.error] == [n for n, text in enumerate(lines, 1) if text == "S12Q"]
    assert all(line.error.column == 4 for line in read if line.error)
