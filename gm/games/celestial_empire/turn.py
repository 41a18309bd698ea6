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
from .orders import Order, PlanetOrder, ShipOrder
from .report import Report
from .research import research_all
from .rotation import in_rotation
from .state import GameState
from .steps import STEPS, end_of_turn_in_order


def standing(state: GameState, empire: int, report: Report) -> list[Order]:
    """The standing orders of ``empire``'s ships and planets, read now (they
    were not checked when set, l.1592-1594); one that cannot be read, or is
    not an order of its own ship or planet, is answered every turn (R-62)."""
    found: list[Order] = []
    texts: list[tuple[str | None, type, int]] = [(s.standing, ShipOrder, s.number) for s in state.ships_of(empire)]
    texts += [(p.standing, PlanetOrder, p.number) for p in state.planets_of(empire)]
    for text, kind, number in texts:
        if text is None:
            continue
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
    ordered = in_rotation(state.turn, {e: list(orders.get(e, [])) + standing(after, e, report)
                                       for e in sorted(set(orders) | set(after.empires))})
    for phase, step in STEPS.items():
        step(after, [(empire, order) for empire, order in ordered if order.phase == phase], report)
    for end in end_of_turn_in_order():
        end(after, report)
    after.turn += 1
    return after, report
