"""Celestial Empire orders as a mail writes them, and a turn's command
history as tuples: the two helpers every rules test reads and asserts with."""

from __future__ import annotations

from gm.games.celestial_empire.notation import parse_orders
from gm.games.celestial_empire.orders import Order
from gm.games.celestial_empire.report import Report


def orders(text: str) -> list[Order]:
    """The orders of ``text``, which must all read."""
    lines = parse_orders(text)
    assert [str(line.error) for line in lines if line.error] == []
    return [line.order for line in lines if line.order]


def history(report: Report, empire: int = 1) -> list[tuple[str, str, str]]:
    """Empire ``empire``'s command history: (written, done, why) a line."""
    return [(e.written, e.done, e.why) for e in report.history.get(empire, [])]
