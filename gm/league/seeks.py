"""Open seeks as values: a challenge anyone may take, its terms, and the
rules of taking one (`gm.pbem.answers.league` answers the mail about them).

Pure: every rule is decided by the moment it is given (a mail's time),
never by a clock, and the store's state (confirmed, taken, withdrawn) is
given as a `Status`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ..kernel.clock import parse_duration, utc_minute
from ..kernel.protocol import GameRules, game_named
from .filling import FillTerms, parse_fill, wants_fill
from .glicko2 import START_RATING

LAPSE = timedelta(days=7)
"""How long a seek stays open unless its ``lapse`` line says otherwise."""
SHORTEST, LONGEST = timedelta(hours=1), timedelta(days=30)
"""The shortest and longest deadline, and lapse, a seek may ask for."""
OPEN_SEEKS = 3
"""Seeks one address may have open at once."""
_VARIANT = re.compile(r"^\s*variant\s+(\S+)\s*$", re.I | re.M)
_PUBLIC = re.compile(r"^\s*public\s*$", re.I | re.M)
_DEADLINE = re.compile(r"^\s*deadline\s+(\S+)\s*$", re.I | re.M)
_LAPSE = re.compile(r"^\s*lapse\s+(\S+)\s*$", re.I | re.M)
_UNRATED = re.compile(r"^\s*unrated\s*$", re.I | re.M)
_FILL = re.compile(r"^\s*fill\s", re.I | re.M)
_RATING = re.compile(r"^\s*rating\s+(\d{1,4})\s*-\s*(\d{1,4})\s*$", re.I | re.M)


class Status(enum.Enum):
    """Where a seek stands in the store."""

    UNCONFIRMED = "unconfirmed"
    OPEN = "open"
    """Confirmed by its seeker, and neither taken nor withdrawn (it may have lapsed)."""
    TAKEN = "taken"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class Seek:
    """One seek: who posted it, for which game and on what terms."""

    id: str
    seeker: str
    """The seeker's normalized address: never shown to another player."""
    game: str
    variant: str
    deadline: str
    """Each turn's time, as the seeker wrote it (``3d``)."""
    rated: bool
    public: bool
    at: datetime
    lapses: datetime
    terms: tuple[tuple[str, str], ...] = ()
    """The game's own terms (a match), as its creation event holds them."""
    gm: str = ""
    """The GM's address the seek was posted to, where it is taken."""
    rating: tuple[int, int] | None = None
    """Who may take it, by their rating in its game (``rating 1400-1800``,
    bounds included); None: anyone."""
    filling: FillTerms | None = None
    """A seek for a game of more than two seats: its empires, fill time and
    robots (`gm.league.filling`); those who take it join, and the game begins
    when every seat is taken or at the fill time. None: a two-player seek,
    whose first taker begins the game."""

    def fields(self) -> dict[str, str]:
        """As ``name=value`` fields, for the header that keeps it."""
        kept = {"id": self.id, "seeker": self.seeker, "game": self.game, "variant": self.variant,
                "deadline": self.deadline, "rated": "yes" if self.rated else "no",
                "public": "yes" if self.public else "no", "at": self.at.isoformat(),
                "lapses": self.lapses.isoformat(), "gm": self.gm}
        if self.rating:
            kept["rating"] = f"{self.rating[0]}-{self.rating[1]}"
        if self.filling:
            kept |= {"seats": str(self.filling.seats), "fill": self.filling.fill.isoformat(),
                     "level": self.filling.level, "take-over": self.filling.take_over}
        return kept | {f"t.{name}": value for name, value in self.terms}

    @classmethod
    def from_fields(cls, fields: Mapping[str, str]) -> Seek:
        """The seek `fields` wrote."""
        return cls(fields["id"], fields["seeker"], fields["game"], fields["variant"], fields["deadline"],
                   fields["rated"] == "yes", fields.get("public") == "yes", datetime.fromisoformat(fields["at"]),
                   datetime.fromisoformat(fields["lapses"]),
                   tuple((name[2:], value) for name, value in fields.items() if name.startswith("t.") and value),
                   fields.get("gm", ""), _bounds(fields.get("rating", "")),
                   FillTerms(int(fields["seats"]), datetime.fromisoformat(fields["fill"]), fields["level"],
                             fields.get("take-over", "")) if "fill" in fields else None)

    @property
    def rules(self) -> GameRules[Any]:
        return game_named(self.game)

    @property
    def deadline_time(self) -> timedelta:
        return parse_duration(self.deadline)

    def match(self) -> object:
        """The game's own terms, as `request_game` takes them."""
        return self.rules.creation_terms(dict(self.terms))

    def lapsed(self, at: datetime) -> bool:
        return at >= self.lapses


def parse_seek(seek_id: str, seeker: str, gm: str, at: datetime, game: str, text: str,
               zone: str | None = None) -> Seek:
    """The seek ``seek GAME`` and the lines of ``text`` ask for, posted at
    ``at`` by a seeker in time zone ``zone`` (None: UTC, which a filling
    seek's date is read in); ValueError with the reason, in words for the
    seeker."""
    try:
        rules = game_named(game)
    except ValueError as error:
        raise ValueError(f"no such game: {error}") from None
    filling = parse_fill(rules, text, at, zone) if wants_fill(rules) else None
    if filling is None and _FILL.search(text):
        raise ValueError(f"a fill line is for games of more than two seats, and {rules.title} has two")
    if filling is None and 2 not in rules.seats:
        raise ValueError(f"a seek is for two players, and a game of {rules.title} is not")
    found = _VARIANT.search(text)
    variant = found.group(1) if found else rules.default_variant
    rules.describe_variant(variant)  # ValueError: a bad variant, worded by the game
    terms = rules.challenge_terms(text)
    found = _DEADLINE.search(text)
    deadline = found.group(1).lower() if found else "72h"
    if not SHORTEST <= parse_duration(deadline, "3d") <= LONGEST:
        raise ValueError(f"deadline {deadline}: give between 1h and 30d")
    found = _LAPSE.search(text)
    if found and filling:
        raise ValueError("a seek that fills its seats with robots is open until its fill time: give no lapse")
    lapse = parse_duration(found.group(1), "3d") if found else LAPSE
    if not SHORTEST <= lapse <= LONGEST:
        raise ValueError(f"lapse {found.group(1) if found else ''}: give between 1h and 30d")
    found = _RATING.search(text)
    rating = (int(found.group(1)), int(found.group(2))) if found else None
    if rating and rating[0] > rating[1]:
        raise ValueError(f"rating {rating[0]}-{rating[1]}: give the lower rating first")
    fields = [line.partition(":") for line in rules.creation_fields(terms)]
    return Seek(seek_id, seeker, rules.name, variant, deadline, not _UNRATED.search(text),
                bool(_PUBLIC.search(text)), at, filling.fill if filling else at + lapse,
                tuple((name.strip(), value.strip()) for name, _, value in fields), gm, rating, filling)


def _bounds(text: str) -> tuple[int, int] | None:
    """``1400-1800`` as a pair; None for ``""``."""
    low, _, high = text.partition("-")
    return (int(low), int(high)) if high else None


def rating_of(ratings: Mapping[str, float], address: str) -> float:
    """A player's rating in a rating table (``ratings``: player key, the
    address in lower case, to rating), or a new player's, who has none yet."""
    return ratings.get(address.lower(), START_RATING)


def why_untakable(seek_id: str, seek: Seek | None, status: Status, taker: str, at: datetime,
                  named: bool, taker_rating: float = START_RATING, joined: Sequence[str] = ()) -> str | None:
    """Why ``taker`` (who has a public name if ``named``, and the rating
    ``taker_rating`` in the seek's game) cannot take seek ``seek_id``
    (``seek``; None: there is no such seek, ``joined``: who joined it if it
    fills its seats with robots) at ``at``, or None if they can."""
    if seek is None or status is Status.UNCONFIRMED:
        return f"there is no open seek {seek_id}"
    if seek.filling and status is Status.TAKEN:
        return f"seek {seek.id} is closed: its game has begun"
    if seek.filling and seek.lapsed(at):
        return f"seek {seek.id} closed at {utc_minute(seek.lapses)}: the robots take the seats nobody took"
    if seek.filling and taker in joined:
        return f"you joined seek {seek.id} already"
    if seek.filling and 1 + len(joined) >= seek.filling.seats:
        return f"every seat of seek {seek.id} is taken"
    if status is Status.TAKEN:
        return f"seek {seek.id} was taken by someone else first"
    if status is Status.CANCELLED:
        return f"seek {seek.id} was withdrawn by its seeker"
    if seek.lapsed(at):
        return f"seek {seek.id} lapsed at {utc_minute(seek.lapses)}"
    if seek.seeker == taker:
        return f"seek {seek.id} is your own"
    if not named:
        return ("the game shows each player by their public name, and you have none yet: "
                "choose one first (write 'name' and the name)")
    if seek.rating and not seek.rating[0] <= round(taker_rating) <= seek.rating[1]:  # the rating as shown
        return (f"seek {seek.id} is for players rated {seek.rating[0]} to {seek.rating[1]} at "
                f"{seek.rules.title}, and your rating there is {round(taker_rating)}")
    return None


def shown(seek: Seek, names: Mapping[str, str], ratings: Mapping[str, float] | None = None) -> dict[str, object]:
    """A seek as players and the web archive are shown it: by its seeker's
    public name (``names``: address -> name), never the address, and their
    rating in the seek's game (``ratings``, as `rating_of` reads it; None:
    not shown)."""
    rules = seek.rules
    return {"id": seek.id, "title": rules.title, "game": rules.name, "name": names.get(seek.seeker, "?"),
            "variant": seek.variant, "ruleset": rules.describe_variant(seek.variant),
            "match": rules.describe_terms(seek.match()), "deadline": seek.deadline, "rated": seek.rated,
            "public": seek.public, "lapses": utc_minute(seek.lapses), "gm": seek.gm,
            "rating": None if ratings is None else round(rating_of(ratings, seek.seeker)),
            "fill": utc_minute(seek.filling.fill) if seek.filling else None,
            "empires": seek.filling.seats if seek.filling else None,
            "level": seek.filling.level if seek.filling else None,
            "range": f"{seek.rating[0]}-{seek.rating[1]}" if seek.rating else None}
