"""The order in which a Celestial Empire step takes its orders: empire by
empire in a rotation that changes every turn (ruling R-11), and within a
step by the manual's sub-steps. Helpers every step may use; this module
imports no step."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from .galaxy import SEATS
from .orders import Order


def rotation(turn: int, empires: Iterable[int]) -> list[int]:
    """``empires`` in the order of ruling R-11 on ``turn``: starting on turn t
    with empire ((t - 1) mod 9) + 1 and wrapping, fair over nine turns and
    the same on every replay."""
    first = (turn - 1) % SEATS + 1
    return sorted(empires, key=lambda e: (e - first) % SEATS)


def in_rotation(turn: int, orders: dict[int, list[Order]]) -> list[tuple[int, Order]]:
    """Every empire's orders, empire by empire in the `rotation` of R-11,
    each empire's in the order written."""
    return [(empire, order) for empire in rotation(turn, orders) for order in orders[empire]]


def in_sub_steps(orders: Sequence[tuple[int, Order]], sub_steps: Sequence[object],
                 key: Callable[[Order], object] = type) -> list[tuple[int, Order]]:
    """A step's orders in its sub-steps, in the manual's order ``sub_steps``:
    the order classes of each sub-step by default, or what ``key`` gives of
    an order (its unit, say). The sort is stable, so within a sub-step the
    orders stay in the rotation of R-11; an order of no listed sub-step goes last."""
    def rank(item: tuple[int, Order]) -> int:
        sub_step = key(item[1])
        return sub_steps.index(sub_step) if sub_step in sub_steps else len(sub_steps)
    return sorted(orders, key=rank)
