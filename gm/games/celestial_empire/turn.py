"""One Celestial Empire turn: every empire's orders carried out in the
manual's sequence of steps (§Turn Sequence, l.207-326; spec section 7).

`run_turn(state, orders)` is pure: it copies the state, runs each step on
the copy, and returns the copy with the turn's `Report` (each empire's
command history, what each empire saw happen, the messages). The steps live
in their own modules, and `steps` lists them in the manual's order. Each
step that takes orders (a `report.Step`) is given those of its phase in
processing order (`rotation.in_rotation`, ruling R-11), carries them out on
``state`` and answers them in ``report``: every order gets a line in its
empire's command history, carried out (perhaps in part, with the limit that
cut it, ruling P1) or refused with the reason. Every phase an order can
have has its step, so no order is dropped (R-5). The exceptions are the
manual's own: messages are not in the command history (l.2370), and a
planet scanned twice is listed once (l.2379, R-61).
"""

from __future__ import annotations

import dataclasses

from ...kernel.errors import NotationError
from .notation import parse_order
from .orders import Order, Phase, PlanetOrder, ShipOrder
from .report import Report
from .research import research_all
from .rotation import in_rotation
from .state import GameState
from .steps import STEPS, end_of_turn_in_order


def standing_texts(state: GameState, empires: list[int]) -> dict[int, list[tuple[str, type, int]]]:
    """The standing orders' texts of each of ``empires``' ships, then its
    planets, each by number, with the kind of order each must be and of
    what: from one look at the ships and planets for all the empires, where
    each empire looked at all of them (`GameState.ships_of`, `planets_of`)."""
    texts: dict[int, list[tuple[str, type, int]]] = {empire: [] for empire in empires}
    for things, kind in ((state.ships, ShipOrder), (state.planets, PlanetOrder)):
        for number in sorted(things):
            thing = things[number]
            if thing.standing is not None and thing.owner in texts:
                texts[thing.owner].append((thing.standing, kind, number))
    return texts


def standing(texts: list[tuple[str, type, int]], empire: int, report: Report) -> list[Order]:
    """The standing orders of ``empire``'s ships and planets (their
    `standing_texts`), read now (they were not checked when set,
    l.1592-1594); one that cannot be read, or is not an order of its own
    ship or planet, is answered every turn (R-62)."""
    found: list[Order] = []
    for text, kind, number in texts:
        try:
            order = parse_order(text)
        except NotationError as error:
            report.refused(empire, text, f"standing order cannot be read: {error}", standing=True)
            continue
        subject = order.ship if isinstance(order, ShipOrder) else order.planet if isinstance(order,
                                                                                             PlanetOrder) else None
        if not isinstance(order, kind) or subject != number:
            report.refused(empire, text, "a standing order must be an order of its own ship or planet", standing=True)
            continue
        found.append(dataclasses.replace(order, standing=True))
    return found


def run_turn(state: GameState, orders: dict[int, list[Order]],
             research: dict[int, list[str]] | None = None) -> tuple[GameState, Report]:
    """Carry out one turn: ``orders`` are each empire's, as its mail gave them
    (standing orders are added here, after them), and ``research`` its
    ``;RP`` lines, which run first, on research turns (step 1, R-67).
    ``state`` is not changed."""
    after = state.copy()
    report = Report(state.turn, industry_start={n: p.industry for n, p in after.planets.items()})
    research_all(after, research or {}, report)
    empires = sorted(set(orders) | set(after.empires))
    texts = standing_texts(after, empires)
    ordered = in_rotation(state.turn, {e: list(orders.get(e, [])) + standing(texts[e], e, report) for e in empires})
    by_phase: dict[Phase | None, list[tuple[int, Order]]] = {phase: [] for phase in STEPS}
    for empire, order in ordered:  # each step's orders, in the rotation, from one pass over them all
        taken = by_phase.get(order.phase)
        if taken is not None:
            taken.append((empire, order))
    for phase, step in STEPS.items():
        step(after, by_phase[phase], report)
    for end in end_of_turn_in_order():
        end(after, report)
    after.turn += 1
    return after, report
