"""Runs of the HTML turn sheet's table cells that hold only what the game
makes (numbers, ship types, cargo codes), drawn here as one string each.

Under autoescape every ``{{ }}`` of templates/turn_sheet.html is a call to
markupsafe's escape: a sheet late in a game has hundreds of numbers in its
planet summary, ship rows and mine tables, and escaping them one by one was
most of the time of rendering it (issue 27). Each run of such cells is
instead a `Drawn` in the sheet's data, which the template shows as it is
(one ``{{ }}``) and which is drawn only then: the text sheet and the robot,
which read the same data, never draw it. Nothing a player wrote (names,
standing orders, messages) goes into one: the template still escapes those
cell by cell. Every string drawn is escaped all the same, as autoescape
would, so a run stays safe even if a value came to hold a player's text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&#39;", '"': "&#34;"})
"""What Jinja's autoescape (markupsafe) writes for each character it escapes."""


def _shown(value: object) -> str:
    """``value`` as ``{{ value }}`` writes it under autoescape."""
    return str(value).translate(_ESCAPES)


class Drawn:
    """Markup drawn when a template shows it (Jinja's ``__html__``):
    ``draw(*args)``. Two are equal when they draw the same from the same."""

    __slots__ = ("_args", "_draw")

    def __init__(self, draw: Callable[..., str], *args: Any) -> None:
        self._draw = draw
        self._args = args

    def __html__(self) -> str:
        return self._draw(*self._args)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Drawn) and (self._draw, self._args) == (other._draw, other._args)

    def __hash__(self) -> int:
        return hash(self._draw)

    def __repr__(self) -> str:
        return f"Drawn({self._draw.__name__}, {', '.join(map(repr, self._args))})"


def cells(values: Iterable[object]) -> str:
    """One ``<td>`` for each value."""
    return "".join([f"<td>{_shown(v)}</td>" for v in values])


def heads(count: int) -> str:
    """A head cell for each number from 0 to ``count`` - 1."""
    return "".join([f"<th>{n}</th>" for n in range(count)])


def ship_cells(kind: str, fighters: int, cargo_units: int, empty: int, tractors: int, shields: int, absorbed: int,
               efficiency: int, effective: int, shots: int, cargo: Sequence[str]) -> str:
    """An own ship's row from its type to its cargo, as both ship tables
    show it."""
    hold = ", ".join(cargo) if cargo else "hold empty"
    return (f'<td class="l">{_shown(kind)}</td><td>{fighters}</td><td>{cargo_units} ({empty})</td><td>{tractors}</td>'
            f'<td>{shields} ({absorbed})</td><td>{efficiency} ({effective})</td><td>{shots}</td>'
            f'<td class="l">{_shown(hold)}</td>')


def summary_row(head: object, pairs: Iterable[tuple[object, object]], pdus: object, industry: object) -> str:
    """A row of the summary of planets: its head, ``mines/ore`` for each
    ore type, then PDUs and industry."""
    return (f'<tr><th scope="row">{_shown(head)}</th>'
            + "".join([f"<td>{_shown(m)}/{_shown(o)}</td>" for m, o in pairs])
            + f"<td>{_shown(pdus)}</td><td>{_shown(industry)}</td></tr>")


def planet_figures(links: Sequence[int], industry: int, pdus: int, pdu_shots: int, income: int, spacemines: int,
                   deployed: int) -> str:
    """The figures of a planet in the planet list, from its nearby planets
    to its deployed spacemines."""
    return (f"Nearby planets {' '.join(map(str, links))}; Industry {industry}; PDU {pdus} ({pdu_shots} shots); "
            f"Income {income}.<br>\nSpacemines: stored {spacemines}, deployed {deployed}.")
