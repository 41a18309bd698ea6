"""How every step answers an order, in one set of words.

* **Not yours** (ruling R-5): an order is carried out only for a ship or
  planet the empire owns when the order's step runs. An order naming one it
  does not own, or one that does not exist, is answered with the same words,
  "ship 123 is not yours" or "planet 123 is not yours", so that nobody can
  probe for ships or planets by ordering them. `own_ship` and `own_planet`
  make that check and answer it; a step's own conditions (over Earth, at a
  planet of its own, outside Earth's amnesty...) are separate checks after it.
* **Carried out in part** (principle P1, ruling R-25): an order is reduced
  to what can be done (`reduce`), and its history line (`outcome`) follows
  the manual's command history (l.2374-2396): the order actually carried
  out, then the limiting factor's code and the reason, then anything more
  to say that the order itself does not (shots fired, credits paid, ore
  returned)::

      S123L6R1, cut by C: the hold had room for 6
      123B3I, cut by I: 30 industry free
      S201A3S321, cut by F: ship 201 had 3 fighter units left; 3 fighter units fired ...

  An order carried out in full is answered by what it did, in the step's
  words; one carried out not at all is refused with the reason.

The limit codes are the manual's (l.2386-2396), with gm's few additions
where a limit has no code there:

=================  =====================================================
I                  industry (free industry this turn, R-53)
R0 .. R9           ore of that type (R0 is fuel)
$                  credits (and score at the Credits:Score rate, R-29)
C                  cargo units (the room in a hold; unbuilding: empty cargo units)
F                  fighter units
SM                 spacemines
PDU                PDUs
POP                population standards (what a home planet keeps, R-20)
EL                 Earth's limit on ore selling (R-28)
M                  mines
gm's additions:
T, S               unbuilding: the ship's tractor or shield units (R-52)
tractor units      retrieving spacemines: the ship's tractor units (R-39)
H                  building ships: no ship numbers left (R-54)
=================  =====================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any, TypeVar

from .orders import Order
from .report import Report
from .state import GameState, Planet, Ship


def ship_not_yours(number: int) -> str:
    """The one answer to an order for a ship the empire does not own or that does not exist (R-5)."""
    return f"ship {number} is not yours"


def planet_not_yours(number: int) -> str:
    """The one answer to an order for a planet the empire does not own or that does not exist (R-5)."""
    return f"planet {number} is not yours"


def no_such_planet(number: int) -> str:
    """The answer to an order that names, as a place (a scan's target, a
    jump's first planet), a planet the galaxy does not have (R-60, R-61).
    Not a secret: the galaxy's planets are numbered 100 to 355, all of them."""
    return f"there is no planet {number}"


def no_such_empire(name: str) -> str:
    """The answer to an order naming an empire that is not in the game (R-2)."""
    return f"there is no empire called {name}"


def owned_ship(state: GameState, empire: int, number: int) -> Ship | None:
    """Ship ``number`` if ``empire`` owns it now, else None (whether it exists or not)."""
    ship = state.ships.get(number)
    return ship if ship is not None and ship.owner == empire else None


def owned_planet(state: GameState, empire: int, number: int) -> Planet | None:
    """Planet ``number`` if ``empire`` owns it now, else None (whether it exists or not)."""
    planet = state.planets.get(number)
    return planet if planet is not None and planet.owner == empire else None


def own_ship(state: GameState, empire: int, number: int, order: Order | str, report: Report) -> Ship | None:
    """Ship ``number`` if ``empire`` owns it now; else ``order`` is refused
    "ship N is not yours" and None is returned (R-5)."""
    ship = owned_ship(state, empire, number)
    if ship is None:
        report.refused(empire, order, ship_not_yours(number))
    return ship


def own_planet(state: GameState, empire: int, number: int, order: Order | str, report: Report) -> Planet | None:
    """Planet ``number`` if ``empire`` owns it now; else ``order`` is refused
    "planet N is not yours" and None is returned (R-5)."""
    planet = owned_planet(state, empire, number)
    if planet is None:
        report.refused(empire, order, planet_not_yours(number))
    return planet


Limit = tuple[int, str, str]
"""At most this many can be done, by the limit of that code, for that reason."""


def reduce(asked: int, limits: Sequence[Limit]) -> Limit:
    """The most that can be done of ``asked`` under ``limits``, with the
    first limit that cut it (code and reason), or "" when none did (P1)."""
    n, code, why = asked, "", ""
    for most, limit_code, limit_why in limits:
        if most < n:
            n, code, why = max(0, most), limit_code, limit_why
    return n, code, why


Ordered = TypeVar("Ordered", bound=Order)


def as_carried_out(order: Ordered, n: int) -> Ordered:
    """``order`` for the ``n`` of it carried out, as `outcome` writes it:
    the order itself (a frozen value) when that is all it asked, which most
    orders are (a copy made for each was a third of transmuting's time)."""
    if getattr(order, "amount", None) == n:
        return order
    changed: dict[str, Any] = {"amount": n}  # mypy cannot know that an order with an amount has the field
    return dataclasses.replace(order, **changed)


def outcome(actual: Order | str, code: str, why: str, note: str = "") -> str:
    """The history's "carried out" text of an order cut by a limit: the order
    as carried out, ", cut by CODE: reason", and ``note`` after a semicolon;
    with no ``code``, the order and the note."""
    text = str(actual)
    if code:
        text += f", cut by {code}: {why}"
    return text + (f"; {note}" if note else "")
