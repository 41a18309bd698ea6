"""How fast gm reads a Celestial Empire order mail.

`gm.games.celestial_empire.notation.parse_orders` (the LALR grammar in
``celestial_empire.lark``, one Lark parse a line, building the order values
as it goes) is timed over a long, realistic mail: a few hundred lines of
mixed commands as a player writes them (research requests and remarks as
``;`` comments, blank lines between groups, some lines in lower case or with
a trailing comment, messages). Beside it, in the same run and over the same
lines, the reference: splitting the body into lines, dropping comments and
lower-casing each line, the least any reader of this notation must do. The
ratio says what the grammar, its values and its error reporting cost a line.

Before anything is timed, every order line must read to an order and print
back to its canonical text.

    python bench/celestial_parse.py [--lines N] [--repeat R] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from gm.games.celestial_empire import orders as o
from gm.games.celestial_empire import orders_empire as e
from gm.games.celestial_empire.notation import parse_orders


def _random_order(rng: random.Random) -> o.Order:
    ship, planet = rng.randint(100, 355), rng.randint(100, 355)
    n, kind = rng.randint(1, 120), rng.randint(0, 9)
    unit = rng.choice(list(o.Unit))
    fighters = rng.choice([None, rng.randint(1, 200)])
    makers: list[Callable[[], o.Order]] = [
        lambda: e.Jump(ship, tuple(rng.randint(100, 355) for _ in range(rng.randint(1, 5)))),
        lambda: e.Jump(ship, tuple(rng.randint(100, 355) for _ in range(rng.randint(1, 5)))),
        lambda: o.LoadOre(ship, n, kind), lambda: o.UnloadOre(ship, n, kind), lambda: o.UnloadAllOre(ship),
        lambda: o.LoadAll(ship, tuple(rng.sample("123456789DS", rng.randint(0, 3)))),
        lambda: o.LoadMines(ship, n, kind), lambda: o.UnloadPDUs(ship, n), lambda: o.LoadIndustry(ship, n),
        lambda: e.BuildPDUs(planet, n), lambda: e.BuildMines(planet, n, kind), lambda: e.BuildIndustry(planet, n),
        lambda: e.BuildSpacemines(planet, n, kind),
        lambda: e.BuildHyperdrives(planet, 1, rng.randint(0, 20), rng.randint(0, 40), 0, rng.randint(0, 9)),
        lambda: e.BuildUnits(ship, n, unit), lambda: o.Contract(ship, n, unit, rng.randint(1, 20)),
        lambda: o.BuyOre(ship, n, kind), lambda: o.SellOre(ship, n, kind), lambda: o.SellAllOre(ship),
        lambda: e.AttackShip(ship, rng.randint(100, 355), fighters), lambda: e.AttackPDUs(ship, fighters),
        lambda: e.AttackMines(ship, kind, fighters), lambda: e.AttackSpacemines(ship, fighters),
        lambda: e.PlanetAttackShip(planet, rng.randint(100, 355), fighters),
        lambda: o.TendOre(ship, n, rng.randint(100, 355), kind), lambda: o.TendAllOre(ship, rng.randint(100, 355)),
        lambda: e.Unbuild(ship, n, unit), lambda: e.Transmute(planet, n, kind, rng.randint(0, 9)),
        lambda: o.DeployFromShip(ship, n), lambda: e.DeployFromPlanet(planet, n), lambda: e.Scan(planet),
        lambda: e.Engage(ship, rng.randint(100, 355)), lambda: o.NameShip(ship, "Black Guard"),
        lambda: e.NamePlanet(planet, "Arakos I"), lambda: e.SetStandingOrder(e.BuildPDUs(planet, n)),
        lambda: e.SetStandingOrder(e.AttackIndustry(ship)), lambda: e.MoreFriendly("Assassin"),
        lambda: e.Broadcast("Death to Grok the infidel."),
        lambda: e.PersonalMessage("Winter", "Leave #306 now or face war."),
        lambda: e.AllianceMessage(o.AllianceLevel.ALLY, "We must strike at P304 now"),
    ]
    return rng.choice(makers)()


_KEEP_CASE = (o.NameShip, e.NamePlanet, e.MoreFriendly, e.Broadcast, e.PersonalMessage, e.AllianceMessage)
"""Orders whose names or text keep their case, so are not written in lower case."""


def make_mail(lines: int, rng: random.Random) -> tuple[str, list[o.Order]]:
    """A mail body of about ``lines`` lines and the orders it holds."""
    body = ["; RP219 increase f-units on S123 by 20%", "; RP227 create industry on planet", ""]
    orders = []
    while len(body) < lines:
        roll = rng.random()
        if roll < 0.04:
            body.append("")
        elif roll < 0.08:
            body.append("; " + rng.choice(["the fleet heads for Earth", "scans for sale", "home defence"]))
        else:
            order = _random_order(rng)
            text = str(order)
            if rng.random() < 0.2 and not isinstance(order, _KEEP_CASE):
                text = text.lower()
            if rng.random() < 0.1:
                text += "   ; as planned"
            body.append(text)
            orders.append(order)
    return "\n".join(body) + "\n", orders


def reference(text: str) -> list[str]:
    """The floor: the lines, their comments dropped, lower-cased."""
    return [line.split(";", 1)[0].strip().lower() for line in text.split("\n")]


def best_time(reader: Callable[[str], object], text: str, repeat: int, rounds: int) -> float:
    """The least seconds one call took, over ``repeat`` passes of ``rounds`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(rounds):
            reader(text)
        best = min(best, (time.perf_counter() - start) / rounds)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a small run, for the smoke test")
    args = parser.parse_args(argv)
    if args.quick:
        args.lines, args.repeat, args.rounds = 60, 2, 2
    text, orders = make_mail(args.lines, random.Random(args.seed))
    read = parse_orders(text)
    errors = [line for line in read if line.error]
    if errors or [line.order for line in read if line.order] != orders:
        print(f"the mail did not read back: {errors[:3]}", file=sys.stderr)
        return 1
    line_count = len(read)
    lark = best_time(parse_orders, text, args.repeat, args.rounds)
    floor = best_time(reference, text, args.repeat, args.rounds)
    print(f"lines: {line_count}")
    print(f"orders: {len(orders)}")
    print(f"microseconds/line Lark (parse_orders): {lark / line_count * 1e6:,.2f}")
    print(f"microseconds/line reference (split, strip comment, lower): {floor / line_count * 1e6:,.2f}")
    print(f"milliseconds/mail Lark: {lark * 1e3:,.2f}")
    print(f"ratio Lark/reference: {lark / floor:,.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
