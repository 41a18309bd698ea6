"""Players' vacations for all games, as the settings store keeps them.

A confirmed ``vacation`` or ``back`` at the GM's own address is kept like
any settings change (`gm.pbem.data.settings`): the player's mail whole,
under gm's first header, which then also holds ``away-from=ISO;
away-until=ISO`` (a vacation) or ``back=ISO`` (its end). The vacations are
derived from those records alone, in order, so a crash can neither lose
nor double one: a new vacation ends the running one where it begins, and
``back`` ends it then.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

AWAY_FROM, AWAY_UNTIL, BACK = "away-from", "away-until", "back"
"""The fields of a settings record that keep a vacation or its end."""


def vacation_fields(at: datetime, until: datetime | None) -> dict[str, str]:
    """The fields that record a vacation from ``at`` to ``until`` (None: back at ``at``)."""
    if until is None:
        return {BACK: at.isoformat()}
    return {AWAY_FROM: at.isoformat(), AWAY_UNTIL: until.isoformat()}


def vacation_spans(records: Iterable[dict[str, str]]) -> list[tuple[datetime, datetime]]:
    """Each vacation as it ran (from, until), oldest first, from the fields
    of one player's settings records in order."""
    spans: list[tuple[datetime, datetime]] = []
    for fields in records:
        if BACK in fields:
            ended = datetime.fromisoformat(fields[BACK])
        elif AWAY_FROM in fields:
            ended = datetime.fromisoformat(fields[AWAY_FROM])
        else:
            continue
        if spans and spans[-1][1] > ended:  # the running one ends here
            spans[-1] = (spans[-1][0], max(ended, spans[-1][0]))
        if AWAY_FROM in fields:
            spans.append((ended, datetime.fromisoformat(fields[AWAY_UNTIL])))
    return spans


def away_until(spans: list[tuple[datetime, datetime]], at: datetime) -> datetime | None:
    """When the vacation running at ``at`` ends; None when there is none."""
    return spans[-1][1] if spans and spans[-1][0] <= at < spans[-1][1] else None
