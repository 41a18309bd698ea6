"""How fast gm reads orders: the Lark grammar against a hand-written regex.

`gm.games.spaceships.notation.parse_orders` (a Lark LALR parser over ``gm/games/spaceships/notation.lark``,
building `gm.games.spaceships.orders` values as it goes) is timed beside the honest baseline,
a tokenizer made of one compiled regular expression with a named group per
token kind, run in the same process over the same order bodies. The regex
only splits and classifies (it returns ``(kind, text)`` tuples and builds no
values), so it is the floor for any pure-Python reader of the notation:
the ratio says what the grammar, its error reporting and its values cost.

The corpus is made from bot games (`gm.games.spaceships.bot.random_orders`, printed with
`gm.games.spaceships.orders.format_orders`) and then written the way players write: words
separated by spaces, commas or both, split over several lines, with
``; comments`` at line ends or on lines of their own; beams name their ship,
as in ``bRv1Rx1(DS2)``, where the bot does (always when the side has several
beam ships, else sometimes). Before anything is timed, both readers must
find the same orders, of the same kinds, in every body, and both must reject
a few bad bodies.

Each reader is timed over the whole corpus several times, alternating, and
the best pass counts (the least disturbed by the rest of the machine).

    python bench/parse.py [--bodies N] [--repeat R] [--seed S] [--quick]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time

from gm.games.spaceships.bot import random_fleet, random_orders
from gm.games.spaceships.notation import NotationError, parse_orders
from gm.games.spaceships.orders import Beam, Kamikaze, Missile, Scan, Strike, format_orders
from gm.games.spaceships.resolution import resolve_turn
from gm.games.spaceships.state import GameState

TARGET_RATIO = 1 / 3
"""Lark should read at least a third as many orders a second as the regex."""

# The regex baseline: the same token kinds as gm/games/spaceships/notation.lark, written by hand.
_CELL = r"[ROYGB][vwxyz][1-5]"
_END = r"(?![A-Za-z0-9])"  # as in the grammar: Rv12 or Rv1x is an error, not two tokens
_SHIP = r"(?:DS|KC|FS|PC|MD|HS|LS|AG|LG)(?:[1-9][0-9]*)?" + _END
TOKEN = re.compile(
    rf"""
      (?P<skip>[ \t,]+|;[^\n]*|\r?\n)           # separators, comments, line ends
    | (?P<strike>{_CELL}{_END})                 # Rv1
    | (?P<beam>b{_CELL}{_CELL}{_END}(?:[ \t]*\([ \t]*{_SHIP}[ \t]*\))?)   # bRv1Rx1, bRv1Rx1(DS2)
    | (?P<missile>m(?=[ROYGBvwxyz1-5])[ROYGB]?[vwxyz]?[1-5]?{_END})      # mRv2, mRv, m2
    | (?P<kamikaze>k{_CELL}{_END})              # kGy3
    | (?P<scan>s{_CELL}{_END})                  # sBz5
    | (?P<error>.)                              # anything else
    """,
    re.VERBOSE,
)


class TokenError(ValueError):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    """The orders in ``text`` as ``(kind, text)`` tuples; TokenError on a bad character."""
    tokens = []
    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "skip":
            continue
        if kind == "error":
            raise TokenError(f"bad character {match.group()!r} at offset {match.start()}")
        tokens.append((kind, match.group()))
    return tokens


NAMED_BEAM = re.compile(r"b[ROYGB][vwxyz][1-5][ROYGB][vwxyz][1-5]\(")

KIND = {Strike: "strike", Beam: "beam", Missile: "missile", Kamikaze: "kamikaze", Scan: "scan"}

BAD_BODIES = ["Rv12", "rv1", "bRv1", "mRv1x", "Rv1Rw1", "Xv1 Rv1", "bRv1Rx1(DQ2)", "Rv1 ? Rw1", "kRv"]

PER_GAME = 30
"""Turns taken from each bot game for the corpus."""

COMMENTS = ["; going for the cruiser", ";scan where the hit was", "; last missile", "; hmm", "; was Ox3 a hit?"]


def write_like_a_player(words: list[str], rng: random.Random) -> str:
    """The words of one body of orders laid out as a player might type them."""
    separator = rng.choice([" ", " ", ", ", ",", " ,", "\t"])
    if len(words) > 1 and rng.random() < 0.35:  # several lines
        lines, rest = [], list(words)
        while rest:
            take = rng.randint(1, 4)
            lines.append(separator.join(rest[:take]))
            rest = rest[take:]
    else:
        lines = [separator.join(words)]
    if rng.random() < 0.3:  # comments
        for _ in range(rng.randint(1, 2)):
            index = rng.randrange(len(lines) + 1)
            if index < len(lines) and rng.random() < 0.7:
                lines[index] += rng.choice(["  ", " ", ""]) + rng.choice(COMMENTS)
            else:
                lines.insert(index, rng.choice(COMMENTS))
    return "\n".join(lines) + rng.choice(["", "\n", "\n\n"])


def make_corpus(count: int, rng: random.Random) -> list[str]:
    """``count`` bodies of orders from complete bot games.

    Each game gives at most PER_GAME turns, spread evenly over it: the bot
    strikes at random, so a game can end in a long hunt (each side down to
    its last cell, one strike a turn, for up to hundreds of turns) that would
    otherwise fill the corpus with one-order bodies."""
    bodies: list[str] = []
    while len(bodies) < count:
        state = GameState.new(random_fleet(rng), random_fleet(rng))
        turns = []
        while state.result is None and state.turn <= 300:
            orders = (random_orders(state, 1, rng), random_orders(state, 2, rng))
            turns.append(orders)
            state, _ = resolve_turn(state, *orders)
        if len(turns) > PER_GAME:
            turns = [turns[i * len(turns) // PER_GAME] for i in range(PER_GAME)]
        for orders in turns:
            for player_orders in orders:
                words = format_orders(player_orders).split()
                bodies.append(write_like_a_player(words, rng))
    return bodies[:count]


def cross_check(bodies: list[str]) -> int:
    """Both readers agree on every body; returns the number of orders."""
    total = 0
    for body in bodies:
        values = parse_orders(body)
        tokens = tokenize(body)
        assert len(values) == len(tokens), f"Lark found {len(values)} orders, the regex {len(tokens)}, in {body!r}"
        assert [(KIND[type(v)], str(v)) for v in values] == tokens, f"the readers disagree on {body!r}"
        total += len(values)
    for body in BAD_BODIES:
        for reader, error in ((parse_orders, NotationError), (tokenize, TokenError)):
            try:
                reader(body)
            except error:
                continue
            raise AssertionError(f"{reader.__name__} accepted the bad body {body!r}")
    return total


def time_pass(reader, bodies: list[str]) -> float:
    """Seconds for one pass of ``reader`` over every body."""
    clock = time.perf_counter
    start = clock()
    for body in bodies:
        reader(body)
    return clock() - start


def describe(bodies: list[str]) -> str:
    """How varied the corpus is."""
    commas = sum("," in b for b in bodies)
    several_lines = sum("\n" in b.rstrip("\n") for b in bodies)
    comments = sum(";" in b for b in bodies)
    named_beams = sum(len(NAMED_BEAM.findall(b)) for b in bodies)
    return (
        f"{commas} with commas, {several_lines} over several lines, "
        f"{comments} with comments, {named_beams} beams naming a ship"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=int, default=4000, help="order bodies in the corpus (default 4000)")
    parser.add_argument("--repeat", type=int, default=7,
                        help="timed passes over the corpus per reader; best counts (default 7)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the corpus (default 1)")
    parser.add_argument("--quick", action="store_true", help="a tiny run (300 bodies, 2 passes) for smoke tests")
    args = parser.parse_args(argv)
    count, repeat = (300, 2) if args.quick else (args.bodies, args.repeat)

    bodies = make_corpus(count, random.Random(args.seed))
    orders = cross_check(bodies)  # also builds the Lark parser before any timing

    lark_best = regex_best = float("inf")
    for _ in range(repeat):
        lark_best = min(lark_best, time_pass(parse_orders, bodies))
        regex_best = min(regex_best, time_pass(tokenize, bodies))
    lark_rate = orders / lark_best
    regex_rate = orders / regex_best
    ratio = lark_rate / regex_rate

    print(f"parse benchmark: seed {args.seed}, best of {repeat} passes, one process, Python {sys.version.split()[0]}")
    print(f"corpus: {len(bodies)} bodies, {orders} orders ({orders / len(bodies):.1f} a body), {sum(map(len, bodies))} "
          "characters")
    print(f"  {describe(bodies)}")
    print("cross-check: both readers find the same orders in every body: OK")
    print(f"orders/s Lark (parse_orders): {lark_rate:,.0f}")
    print(f"orders/s regex tokenizer: {regex_rate:,.0f}")
    print(f"ratio Lark/regex: {ratio:.3f} (regex {1 / ratio:.1f}x faster)")
    verdict = "MET" if ratio >= TARGET_RATIO else "NOT MET"
    print(f"target: Lark at least a third of the regex rate: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
