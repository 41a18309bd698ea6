"""The steps that concern an empire as a whole, or only names: the game-length
vote (step 2), naming (3), alliances (5), scans (18), standing orders (19)
and messages (in no step; delivered at the end of the turn).

Each answers every order in the command history (`Report.did`,
`Report.refused`), citing the ruling in docs/celestial_empire/rulings.md it
follows where the manual left the question open.
"""

from __future__ import annotations

from collections.abc import Sequence

from .answers import no_such_empire, no_such_planet, own_planet, own_ship
from .orders import AllianceLevel, NameShip, Order, ShipOrder
from .orders_empire import (
    AllianceMessage,
    Broadcast,
    ClearPlanetStandingOrder,
    ClearShipStandingOrder,
    GameLength,
    MoreFriendly,
    MoreHostile,
    NamePlanet,
    PersonalMessage,
    Scan,
    SetStandingOrder,
)
from .report import Report
from .state import NEUTRAL, GameState, Planet, Ship

NAME_LENGTH = 23
"""Ship and planet names: "up to 23 characters long" (l.349-354, R-13)."""
VOTE_RANGE = (10, 100)
"""The game-length vote's limits (l.2004-2008, R-72)."""

LADDER = (AllianceLevel.HOSTILE, AllianceLevel.NEUTRAL, AllianceLevel.FRIENDLY, AllianceLevel.ALLY)
"""The alliance levels from most hostile to most friendly (l.431-437)."""


def game_length(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``TURNxx``: the empire's vote for the turn the game ends on, kept
    within 10 to 100 (R-72); the compromise is the median (`ending_turn`)."""
    for empire, order in orders:
        assert isinstance(order, GameLength)
        if not state.voting:
            report.refused(empire, order, "the empires do not vote on this game's length: its variant sets it (R-72)")
            continue
        low, high = VOTE_RANGE
        vote = min(high, max(low, order.turn))
        state.empires[empire].vote = vote
        limit = "" if vote == order.turn else f" (votes are {low} to {high})"
        report.did(empire, order, f"your vote: the game ends after turn {vote}{limit}")


def ending_turn(state: GameState) -> int | None:
    """The compromise of the empires' votes: the lower middle one (R-72); None if nobody voted."""
    votes = sorted(e.vote for e in state.empires.values() if e.vote is not None)
    return votes[(len(votes) - 1) // 2] if votes else None


def naming(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``S123=NAME`` and ``234=NAME``: own ships and planets only; names cut to 23 characters (R-13)."""
    for empire, order in orders:
        thing: Ship | Planet | None
        if isinstance(order, NameShip):
            thing, what = own_ship(state, empire, order.ship, order, report), f"ship {order.ship}"
        else:
            assert isinstance(order, NamePlanet)
            thing, what = own_planet(state, empire, order.planet, order, report), f"planet {order.planet}"
        name = order.name.strip()[:NAME_LENGTH]
        if thing is None:
            continue
        if not name:
            report.refused(empire, order, "a name needs at least one letter")
        else:
            thing.name = name
            cut = " (cut to 23 characters)" if name != order.name.strip() else ""
            report.did(empire, order, f"{what} is named {name}{cut}")


def alliances(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``+NAME`` then ``-NAME``: one level a turn towards each empire (l.468-478, R-16)."""
    moved: set[tuple[int, int]] = set()
    friendlier = [(e, o) for e, o in orders if isinstance(o, MoreFriendly)]
    hostiler = [(e, o) for e, o in orders if isinstance(o, MoreHostile)]
    for empire, order in friendlier + hostiler:
        assert isinstance(order, (MoreFriendly, MoreHostile))
        other = state.empire_named(order.player)
        if other is None:
            report.refused(empire, order, no_such_empire(order.player))
            continue
        if other == empire:
            report.refused(empire, order, "you cannot rate yourself")
            continue
        if (empire, other) in moved:
            report.refused(empire, order, "one level a turn with each empire (ruling R-16)")
            continue
        now = LADDER.index(state.empires[empire].rating(other))
        to = now + (1 if isinstance(order, MoreFriendly) else -1)
        name = state.empires[other].name
        if not 0 <= to < len(LADDER):
            report.refused(empire, order, f"you already rate {name} {LADDER[now].value}")
            continue
        state.empires[empire].ratings[other] = LADDER[to]
        moved.add((empire, other))
        report.did(empire, order, f"you now rate {name} {LADDER[to].value}")


def scans_available(state: GameState, empire: int) -> int:
    """One while the empire holds its home planet, and one for each research planet it holds (R-61)."""
    home = state.planets[state.empires[empire].home]
    return int(home.owner == empire) + sum(1 for p in state.planets_of(empire) if p.research)


def scanning(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``SCANxxx``: any planet, up to the scans the empire has; the same planet twice uses one (R-61).
    Scanning changes no planet, so each empire's scans are counted once."""
    available: dict[int, int] = {}
    for empire, order in orders:
        assert isinstance(order, Scan)
        done = report.scanned.setdefault(empire, [])
        if empire not in available:
            available[empire] = scans_available(state, empire)
        if order.planet not in state.planets:
            report.refused(empire, order, no_such_planet(order.planet))
        elif order.planet in done:
            continue  # "Scans will only appear once in the desire list" (l.2379)
        elif len(done) >= available[empire]:
            report.refused(empire, order, f"no scans left: you have {available[empire]} this turn")
        else:
            done.append(order.planet)
            report.did(empire, order, f"planet {order.planet} scanned")


def standing_orders(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """``O<order>`` sets, ``XSxxx`` / ``Xxxx`` clears, a ship's or planet's
    standing order, from the next turn (l.1574-1619, R-62)."""
    for empire, order in orders:
        if isinstance(order, SetStandingOrder):
            target = order.order
            thing: Ship | Planet | None
            if isinstance(target, ShipOrder):
                thing, what = own_ship(state, empire, target.ship, order, report), f"ship {target.ship}"
            else:
                thing, what = own_planet(state, empire, target.planet, order, report), f"planet {target.planet}"
            if thing is not None:
                thing.standing = str(target)
                report.did(empire, order, f"standing order of {what}: {target}, from next turn")
        elif isinstance(order, (ClearShipStandingOrder, ClearPlanetStandingOrder)):
            cleared: Ship | Planet | None
            if isinstance(order, ClearShipStandingOrder):
                cleared, what = own_ship(state, empire, order.ship, order, report), f"ship {order.ship}"
            else:
                cleared, what = own_planet(state, empire, order.planet, order, report), f"planet {order.planet}"
            if cleared is None:
                continue
            if cleared.standing is None:
                report.refused(empire, order, f"{what} has no standing order")
            else:
                cleared.standing = None
                report.did(empire, order, f"standing order of {what} cleared, after this turn's")


def messages(state: GameState, orders: Sequence[tuple[int, Order]], report: Report) -> None:
    """Messages to all, to one empire, or to every empire the sender rates
    at a level, delivered on the next sheet with the sender's name (R-80).
    They are not in the command history (l.2370) unless they cannot be sent."""
    for empire, order in orders:
        sender = state.empires[empire].name
        if isinstance(order, Broadcast):
            for other in state.empires:
                if other != empire:
                    report.messages.setdefault(other, []).append(f"{sender}: {order.text}")
        elif isinstance(order, PersonalMessage):
            to = state.empire_named(order.to)
            if to is None or to == NEUTRAL:
                report.refused(empire, order, no_such_empire(order.to))
            elif to == empire:
                report.refused(empire, order, "a message to yourself goes nowhere")
            else:
                report.messages.setdefault(to, []).append(f"From {sender}: {order.text}")
        elif isinstance(order, AllianceMessage):
            to_all = [e for e in sorted(state.empires) if e != empire
                      and state.empires[empire].rating(e) == order.level]
            if not to_all:
                report.refused(empire, order, f"you rate no empire {order.level.value}")
            for other in to_all:
                report.messages.setdefault(other, []).append(f"{sender} (to {order.level.value}): {order.text}")
        else:
            report.refused(empire, order, "not an order gm knows")
