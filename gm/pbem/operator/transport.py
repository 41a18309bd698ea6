"""The Postfix maps that route each game's mail to the daemon (shard) that
holds it (docs/operations.md, "Several daemons"; `gm.pbem.operator.shards`
is the rest of the tooling).

Shard K of S numbers its games ``gN`` with N mod S = K
(`gm.pbem.data.store.Shard`). `transport_lines` writes the regexp transport
map (``gm-shards``) that routes each plus-address by that rule: S must divide
100 (1, 2, 4, 5, 10, 20, 25, 50, 100), so that the rule looks at the id's
last one or two digits only. `moved_line` writes a line of the override map
(``gm-moved``) for a game that moved to another shard, or of the access map
(``gm-hold``) that holds its mail while it moves."""

from __future__ import annotations

import re

from ..data.store import GAME_ID, Shard


def _ere(text: str) -> str:
    """``text`` as a literal in a POSIX extended regular expression."""
    return re.sub(r"([\\.^$|?*+()\[\]{}])", r"\\\1", text)


def _digits(digits: list[int]) -> str:
    """A bracket expression for a set of digits (runs of three or more as ranges)."""
    if len(digits) == 1:
        return str(digits[0])
    parts, run = [], [digits[0]]
    for digit in [*digits[1:], None]:  # type: ignore[list-item]
        if digit is not None and digit == run[-1] + 1:
            run.append(digit)
            continue
        parts.append(f"{run[0]}-{run[-1]}" if len(run) >= 3 else "".join(map(str, run)))
        if digit is not None:
            run = [digit]
    return f"[{''.join(parts)}]"


def number_pattern(shard: Shard) -> str:
    """A POSIX ERE for the decimal numbers N >= 1 with N mod S = K, which
    looks at their last one or two digits (S divides 100)."""
    if shard.count == 1:
        return "[0-9]+"
    if 10 % shard.count == 0:
        ends = [d for d in range(10) if d % shard.count == shard.index]
        return f"[0-9]*{_digits(ends)}"
    # Two digits: group the tens digits that allow the same units digits.
    by_units: dict[tuple[int, ...], list[int]] = {}
    for tens in range(10):
        units = tuple(u for u in range(10) if (10 * tens + u) % shard.count == shard.index)
        if units:
            by_units.setdefault(units, []).append(tens)
    endings = "|".join(f"{_digits(tens)}{_digits(list(units))}" for units, tens in by_units.items())
    short = [n for n in range(1, 10) if n % shard.count == shard.index]
    alternatives = [f"[0-9]*({endings})" if len(by_units) > 1 else f"[0-9]*{endings}"]
    if short:
        alternatives.append(_digits(short))
    return "|".join(alternatives)


def _address_pattern(local: str, domain: str, game: str) -> str:
    return f"/^{_ere(local)}\\+g({game})(\\.[^@]*)?@{_ere(domain)}$/"


def nexthop(text: str) -> str:
    """A Postfix next hop: ``HOST:PORT`` is a gm LMTP listener
    (``lmtp:inet:HOST:PORT``); anything with a transport name is kept."""
    if text.count(":") == 1 and text.rsplit(":", 1)[1].isdigit():
        return f"lmtp:inet:{text}"
    return text


def transport_lines(local: str, domain: str, hops: list[str]) -> list[str]:
    """The regexp transport map (``gm-shards``) for ``len(hops)`` shards:
    shard K's plus-addresses (``gm+gN...`` with N mod S = K) to ``hops[K]``."""
    count = len(hops)
    Shard.parse(f"0/{count}")  # a count the map can route
    return [f"{_address_pattern(local, domain, number_pattern(Shard(k, count)))}    {nexthop(hop)}"
            for k, hop in enumerate(hops)]


def moved_line(local: str, domain: str, game: str, hop: str | None) -> str:
    """A line of the override transport map (``gm-moved``) that sends
    ``game``'s mail to ``hop``; with None, a line of the access map
    (``gm-hold``) that puts it on Postfix's hold queue while the game moves.

    Holding is done when the mail is accepted, not by its route: a route to
    Postfix's ``retry`` transport would make Postfix refuse the recipient
    with 450 at RCPT, leaving the mail in the sender's queue, to come back
    at the sender's pace and dated by when it finally got in."""
    if not GAME_ID.fullmatch(game):
        raise ValueError(f"{game!r} is no game id")
    target = nexthop(hop) if hop else f"HOLD game {game} is moving"
    return f"{_address_pattern(local, domain, game[1:])}    {target}"
