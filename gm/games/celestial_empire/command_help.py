"""Every Celestial Empire command form in words: the syntax, what it means, the
manual's example and the order it reads to.

`COMMANDS_HELP` is the one list both the notation's error hints and the help
sheet read, so that what a player is told after a slip and what the help
sheet shows cannot drift apart; tests check that every example reads to the
order class beside it. The syntax uses ``<...>`` for what the player fills
in and ``[...]`` for what may be left out; the letters are the manual's.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from . import orders as o
from . import orders_empire as e


class CommandHelp(NamedTuple):
    """One command form: its manual section, syntax, meaning, an example
    from the manual, the order class it reads to, and a one-word verb for
    hints that list what may come next."""

    section: str
    syntax: str
    meaning: str
    example: str
    kind: type[o.Order]
    verb: str


def _forms() -> tuple[CommandHelp, ...]:
    h = CommandHelp
    units = "<unit> is C (cargo), F (fighter), T (tractor) or S (shield)"
    return (
        h("Naming", "S<ship>=<name>", "call the ship <name> (up to 23 characters)", "S123=BLACKGUARD",
          o.NameShip, "name"),
        h("Naming", "<planet>=<name>", "call the planet <name>", "234=ARAKOS I", e.NamePlanet, "name"),
        h("Gifts", "S<ship>G<empire>", "give the ship to <empire>", "S244GMASTER", o.GiftShip, "give"),
        h("Gifts", "<planet>G<empire>", "give the planet to <empire>", "345GWARLORD", e.GiftPlanet, "give"),
        h("Alliances", "+<empire>", "become one level more friendly with <empire>", "+Assassin",
          e.MoreFriendly, "befriend"),
        h("Alliances", "-<empire>", "become one level more hostile with <empire>", "-PsiNinja",
          e.MoreHostile, "antagonise"),
        h("Unloading", "S<ship>U<n>M<type>", "unload <n> mines as mines of <type>", "S276U4M3",
          o.UnloadMines, "unload"),
        h("Unloading", "S<ship>U<n>D", "unload <n> PDUs", "S234U3D", o.UnloadPDUs, "unload"),
        h("Unloading", "S<ship>U<n>I", "unload <n> industry", "S286U2I", o.UnloadIndustry, "unload"),
        h("Unloading", "S<ship>U<n>R<type>", "unload <n> of ore <type>", "S132U42R2", o.UnloadOre, "unload"),
        h("Unloading", "S<ship>U<n>S", "unload <n> spacemines", "S322U23S", o.UnloadSpacemines, "unload"),
        h("Unloading", "S<ship>U", "unload all ore except fuel (ore 0)", "S309U", o.UnloadAllOre, "unload"),
        h("Loading", "S<ship>L<n>M<type>", "load <n> mines of <type>", "S306L10M4", o.LoadMines, "load"),
        h("Loading", "S<ship>L<n>D", "load <n> PDUs", "S243L34D", o.LoadPDUs, "load"),
        h("Loading", "S<ship>L<n>I", "load <n> industry", "S345L3I", o.LoadIndustry, "load"),
        h("Loading", "S<ship>L<n>R<type>", "load <n> of ore <type>", "S123L120R2", o.LoadOre, "load"),
        h("Loading", "S<ship>L<n>S", "load <n> spacemines", "S234L34S", o.LoadSpacemines, "load"),
        h("Loading", "S<ship>L", "load all the ore it can, types 1 to 9", "S276L", o.LoadAll, "load"),
        h("Loading", "S<ship>L(<list>)", "load the listed ore types (D: PDUs, S: spacemines) first, "
          "then ore 1 to 9", "S276L(78D)", o.LoadAll, "load"),
        h("Earth", "S<ship>B<n><unit><bid>", f"bid <bid> credits an industry for Earth to build <n> units "
          f"onto the ship; {units}", "S178B43F45", o.Contract, "contract"),
        h("Earth", "S<ship>P<n>R<type>", "buy <n> of ore <type> from Earth", "S123P12R1", o.BuyOre, "buy"),
        h("Earth", "S<ship>X<n>R<type>", "sell <n> of ore <type> to Earth", "S123X23R2", o.SellOre, "sell"),
        h("Earth", "S<ship>X", "sell all ore except ore 0 to Earth", "S123X", o.SellAllOre, "sell"),
        h("Spacemines", "S<ship>D<n>", "the ship deploys <n> spacemines", "S123D34", o.DeployFromShip, "deploy"),
        h("Spacemines", "<planet>D<n>", "the planet deploys <n> spacemines", "234D2", e.DeployFromPlanet,
          "deploy"),
        h("Spacemines", "S<ship>R<n>", "the ship retrieves <n> deployed spacemines", "S123R23", o.Retrieve,
          "retrieve"),
        h("Battle", "S<ship>A[<n>]S<target>", "attack ship <target> (with <n> fighter units, else all)",
          "S231A34S321", e.AttackShip, "attack"),
        h("Battle", "S<ship>A[<n>]D", "attack the planet's PDUs", "S309AD", e.AttackPDUs, "attack"),
        h("Battle", "S<ship>A[<n>]M<type>", "attack the planet's mines of <type>", "S165A10M0", e.AttackMines,
          "attack"),
        h("Battle", "S<ship>A[<n>]R<type>", "attack the planet's ore of <type>", "S165AR0", e.AttackOre,
          "attack"),
        h("Battle", "S<ship>A[<n>]I", "attack the planet's industry", "S164A20I", e.AttackIndustry, "attack"),
        h("Battle", "S<ship>A[<n>]SM", "attack the spacemines around the planet", "S123ASM",
          e.AttackSpacemines, "attack"),
        h("Battle", "<planet>A[<n>]S<ship>", "the planet's PDUs (<n> of them, else all) fire at <ship>",
          "123A120S234", e.PlanetAttackShip, "attack"),
        h("Battle", "<planet>A[<n>]SM", "the planet's PDUs fire at the spacemines around it", "123ASM",
          e.PlanetAttackSpacemines, "attack"),
        h("Tractor beams", "S<ship>ES<target>", "engage ship <target> with tractor beams", "S123ES234",
          e.Engage, "engage"),
        h("Tending", "S<ship>T<n>S<to>R<type>", "move <n> of ore <type> to ship <to>", "S276T4S123R5",
          o.TendOre, "tend"),
        h("Tending", "S<ship>T<n>S<to>I", "move <n> industry to ship <to>", "S123T1S276I", o.TendIndustry,
          "tend"),
        h("Tending", "S<ship>T<n>S<to>M", "move <n> mines to ship <to> (no type)", "S134T9S200M", o.TendMines,
          "tend"),
        h("Tending", "S<ship>T<n>S<to>D", "move <n> PDUs to ship <to>", "S145T120S206D", o.TendPDUs, "tend"),
        h("Tending", "S<ship>T<n>S<to>S", "move <n> spacemines to ship <to>", "S100T59S270S",
          o.TendSpacemines, "tend"),
        h("Tending", "S<ship>TS<to>", "move all ore of types 1 to 9 to ship <to>", "S103TS104", o.TendAllOre,
          "tend"),
        h("Unbuilding", "S<ship>Z<n><unit>", f"remove <n> units from the ship; {units}", "S123Z30C",
          e.Unbuild, "unbuild"),
        h("Building", "<planet>B<n>D", "build <n> PDUs", "345B50D", e.BuildPDUs, "build"),
        h("Building", "<planet>B<n>M<type>", "build <n> mines of <type>", "235B5M8", e.BuildMines, "build"),
        h("Building", "<planet>B<n>I", "build <n> industry", "103B10I", e.BuildIndustry, "build"),
        h("Building", "<planet>B<n>S<type>", "build <n> spacemines from ore <type>", "100B50S0",
          e.BuildSpacemines, "build"),
        h("Building", "<planet>B<n>H<f>/<c>/<t>/<s>", "build <n> ships, each with <f> fighter, <c> cargo, "
          "<t> tractor and <s> shield units", "327B1H0/5/0/7", e.BuildHyperdrives, "build"),
        h("Building", "S<ship>B<n><unit>", f"build <n> units onto the ship; {units}", "S123B30C",
          e.BuildUnits, "build"),
        h("Movement", "S<ship>J<planet>[J<planet>...]", "jump along up to 5 planets, the last the destination",
          "S123J120J240", e.Jump, "jump"),
        h("Transmutation", "<planet>X<n>R<from>R<to>", "transmute <n> of ore <from> into ore <to>",
          "145X4R5R6", e.Transmute, "transmute"),
        h("Scans", "SCAN<planet>", "scan the planet", "SCAN123", e.Scan, "scan"),
        h("Standing orders", "OS<ship><order>", "repeat a ship's order every turn from the next",
          "OS123AI", e.SetStandingOrder, "set a standing order"),
        h("Standing orders", "O<planet><order>", "repeat a planet's order every turn from the next",
          "O234B3D", e.SetStandingOrder, "set a standing order"),
        h("Standing orders", "XS<ship>", "clear the ship's standing order", "XS123", e.ClearShipStandingOrder,
          "clear a standing order"),
        h("Standing orders", "X<planet>", "clear the planet's standing order", "X234",
          e.ClearPlanetStandingOrder, "clear a standing order"),
        h("Messages", "{<text>[}]", "send <text> to every player", "{Death to Grok the infidel.}",
          e.Broadcast, "message everyone"),
        h("Messages", "&<empire> <text>[&]", "send <text> to <empire>", "&Winter Leave #306 now or face war.&",
          e.PersonalMessage, "message an empire"),
        h("Messages", "(<level> <text>[)]", "send <text> to every empire you hold at <level>: ALLY, "
          "FRIENDLY, NEUTRAL or HOSTILE", "(ALLY We must strike at P304 now)", e.AllianceMessage,
          "message an alliance level"),
        h("Game length", "TURN<turn>", "wish the game to end on <turn>", "TURN30", e.GameLength,
          "set the game length"),
    )


COMMANDS_HELP: tuple[CommandHelp, ...] = _forms()
"""Every command form, in the manual's order of sections."""


_DIGITS = re.compile(r"[0-9]+")
_FREE_TEXT = re.compile(r"[=&{(+-]")
"""Where a name, an empire's name, a list or a message begins."""


def shape(text: str) -> str:
    """The letters of an order with each number as ``#``, upper case, no
    spaces, up to a name or a message: ``S306L10M4`` -> ``S#L#M#``. Hints
    compare what a player wrote with the forms by their shapes."""
    free_text = _FREE_TEXT.search(text)
    if free_text:
        text = text[:free_text.end()]
    return _DIGITS.sub("#", "".join(text.split()).upper())


def continuations(prefix: str) -> list[CommandHelp]:
    """The forms whose example begins as ``prefix`` (a line up to a slip) does."""
    wanted = shape(prefix)
    return [form for form in COMMANDS_HELP if shape(form.example).startswith(wanted)]


def next_letters(prefix: str) -> dict[str, list[str]]:
    """What may come after ``prefix`` among the forms: each next character
    (``#`` for a number) with the verbs it begins, in the manual's order."""
    wanted = shape(prefix)
    found: dict[str, list[str]] = {}
    for form in continuations(prefix):
        rest = shape(form.example)[len(wanted):]
        if rest:
            verbs = found.setdefault(rest[0], [])
            if form.verb not in verbs:
                verbs.append(form.verb)
    return found
