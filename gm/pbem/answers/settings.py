"""Mail to the GM's own address about a player's own settings (issue 24).

    settings                  -> the sender's settings, listed (to the sender only)
    timezone Europe/Berlin    \\
    quiet 23:00-07:00         |-> checked at once; a confirmation (request pID)
    reminders digest          /   -> `confirm` -> done, in every game of theirs

A setting concerns the player, not one game, so it is sent to the GM's own
address. A mail's From can be forged, so a change is made only once the
player confirmed it from their own mailbox, by replying ``confirm`` to an
address with a token only that mailbox was sent (``gm+pID.1.TOKEN``), as a
public name is (`gm.pbem.answers.league`); a line that is no valid setting
is answered with its number and why, and nothing of that mail is kept.

Once confirmed, the player's settings as they now are become a record in
``settings/`` (`gm.pbem.data.settings`) and a ``settings`` event is spooled
into every game the player has a seat in that has not ended, under a key
made of the request and the game, so a redo after a crash spools each
once; games made later record them at their creation
(`gm.pbem.archive.creation.settings_lines`). So every game's mail depends on
its own archive alone. Each step is a function in `STEPS`: a new setting is
one entry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from email.message import Message
from typing import Any, Protocol

from ...kernel.settings import NOTICES, REMINDERS, PlayerSettings, parse_quiet
from ...kernel.values import ENDED, SettingsChanged
from ...kernel.zones import LONGEST_QUIET, canonical, near, quiet_span
from ..data.settings import record, settings_of
from ..data.store import time_of
from ..intake.decisions import Shunted
from ..operator.actions import request_action
from .away import VacationDesk
from .confirming import CONFIRMING, Desk, confirmed_request, keep_request, key_digest, reply_address
from .outside import Master

Step = Callable[[PlayerSettings, str], PlayerSettings]
"""A setting's step: the settings with the line's argument applied, or a
ValueError worded for the player."""

_ID = re.compile(r"p[0-9a-f]{10}")
_LIST = re.compile(r"^\s*settings\s*$", re.I | re.M)
_OFF = ("off", "none", "utc")


def timezone(settings: PlayerSettings, argument: str) -> PlayerSettings:
    """``timezone Europe/Berlin`` (any IANA name zoneinfo knows, any
    capitals); ``timezone off`` (or UTC) for UTC only. A wrong name is
    answered with the nearest names (`gm.kernel.zones.near`)."""
    text = argument.strip()
    if not text:
        raise ValueError("name your time zone, such as Europe/Berlin or America/New_York")
    if text.lower() in _OFF:
        return replace(settings, zone=None)
    known = canonical(text)
    if known is not None:
        return replace(settings, zone=known)
    close = near(text[:60])
    hint = (f"; did you mean {_either(close)}?" if close
            else " (write it as Region/City, such as Europe/Berlin)")
    raise ValueError(f"{text[:60]!r} is no time zone name I know{hint}")


def _either(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def quiet(settings: PlayerSettings, argument: str) -> PlayerSettings:
    """``quiet 23:00-07:00`` (local time; at most `LONGEST_QUIET`); ``quiet off``."""
    if argument.strip().lower() in ("off", "none"):
        return replace(settings, quiet=None)
    start, end = parse_quiet(argument)
    if quiet_span(start, end) > LONGEST_QUIET:
        raise ValueError(f"{argument.strip()!r}: quiet hours last at most {LONGEST_QUIET.seconds // 3600} hours,"
                         " so that a game can set a deadline on each of your days")
    return replace(settings, quiet=(start, end))


def reminders(settings: PlayerSettings, argument: str) -> PlayerSettings:
    """``reminders each``, ``reminders digest`` or ``reminders off``."""
    mode = argument.strip().lower()
    if mode not in REMINDERS:
        raise ValueError(f"write reminders {', reminders '.join(REMINDERS)}")
    return replace(settings, reminders=mode)


def notices(settings: PlayerSettings, argument: str) -> PlayerSettings:
    """``notices on`` or ``notices off`` (seeks taken, tournaments' byes, withdrawals and ends)."""
    mode = argument.strip().lower()
    if mode not in NOTICES:
        raise ValueError("write notices on, or notices off")
    return replace(settings, notices=mode)


STEPS: dict[str, Step] = {"timezone": timezone, "quiet": quiet, "reminders": reminders, "notices": notices}
"""Each setting a player may change by mail, by its keyword."""


def wants(text: str) -> bool:
    """Whether a mail to the GM's own address is about settings: ``settings``
    alone on a line, or a line beginning with a setting's keyword."""
    return bool(_LIST.search(text)) or any(_keyword(line) in STEPS for line in text.split("\n"))


def settings_tag(tags: list[list[str]]) -> tuple[str, str] | None:
    """The request a reply confirms, from ``gm+pID.1.TOKEN``: id and token."""
    for parts in tags:
        if len(parts) == 3 and _ID.fullmatch(parts[0]) and parts[1] == str(CONFIRMING):
            return parts[0], parts[2]
    return None


def _keyword(line: str) -> str:
    words = line.split(";", 1)[0].split()
    return words[0].lower().rstrip(":") if words else ""


def changes_of(text: str, settings: PlayerSettings) -> tuple[PlayerSettings, list[str], list[str]]:
    """The settings with every setting line of ``text`` applied, the lines
    as read (``timezone Europe/Berlin``), and what was wrong, by line."""
    wrong: list[str] = []
    done: list[str] = []
    for number, line in enumerate(text.split("\n"), 1):
        keyword = _keyword(line)
        if keyword not in STEPS:
            continue
        argument = line.split(";", 1)[0].strip()[len(keyword):].strip()
        try:
            settings = STEPS[keyword](settings, argument)
        except ValueError as error:
            wrong.append(f"line {number}: {keyword} {argument[:60]}: {error}")
            continue
        done.append(f"{keyword} {argument}".strip())
    return settings, done, wrong


def words(settings: PlayerSettings) -> dict[str, Any]:
    """A player's settings as the templates show them."""
    return {"zone": settings.zone, "quiet": settings.fields().get("quiet"), "reminders": settings.reminders,
            "deputy": settings.deputy, "notices": settings.notices}


class SettingsMaster(Master, Protocol):
    """What the settings use of the `gm.pbem.master.game_master.GameMaster`."""

    vacations: VacationDesk


class SettingsDesk(Desk):
    """The GM's answers about players' settings, for one `GameMaster`."""

    master: SettingsMaster

    def __init__(self, master: SettingsMaster):
        self.master = master

    def handle(self, key: str, raw: bytes, sender: str, text: str) -> str | None:
        """A mail about settings (`wants`): answered, and None, or the reason
        it was refused (its sender is told it too)."""
        at, store = time_of(key), self.master.store
        self._allowed(sender, at)
        now = settings_of(store, sender)
        new, done, wrong = changes_of(text, now)
        if wrong:
            self._send(f"refused-{key_digest(key)}", sender, "[gm] Your settings are unchanged", at, "settings_refused",
                       {"wrong": wrong})
            return "settings: " + "; ".join(wrong)
        if not done or new == now:
            away = self.master.vacations.words(sender, at)
            self._send(f"settings-{key_digest(key)}", sender, "[gm] Your settings", at, "settings",
                       {"settings": words(now), "unchanged": bool(done), "away": away})
            return None
        request_id = "p" + key_digest(key)[:10]
        changed = {name: new.fields().get(name, "") for name in _changed_names(now, new)}
        keep_request(store, raw, request_id, {"address": sender.lower(), **changed})
        self._send(f"{request_id}.confirm", sender, "[gm] Confirm your settings", at, "settings_confirm",
                   {"lines": done, "settings": words(new)},
                   reply_to=reply_address(self.master, request_id))
        return None

    def refuse_beside(self, key: str, sender: str, request: str, text: str) -> str:
        """Refuse a mail that asks for ``request`` (a vacation or a deputy,
        each confirmed on its own) beside the settings lines of ``text``:
        rather than one done and the others dropped unsaid, none is, and the
        sender is told why. The reason, for the shunt."""
        self._allowed(sender, time_of(key))
        beside = [line.split(";", 1)[0].strip() for line in text.split("\n")
                  if _keyword(line) in STEPS or _LIST.search(line)]
        return self._refuse(key, sender, request,
                            f"this mail also holds {', '.join(repr(line) for line in beside)}, and '{request}' is "
                            "confirmed on its own: send it in a mail of its own, and your settings in another "
                            "(nothing of this mail was done)")

    def confirm(self, key: str, message: Message, request_id: str, secret: str) -> None:
        """A reply ``confirm`` to a settings confirmation: the change is made,
        kept, and recorded in each of the player's games."""
        store = self.master.store
        kept, fields = confirmed_request(store, message, request_id, CONFIRMING, secret, f"confirmed-{request_id}")
        address, at = fields.pop("address"), time_of(key)
        fields.pop("id", None)
        before = settings_of(store, address)
        after = PlayerSettings.from_fields({**before.fields(), **fields})
        record(store, kept.split(b"\n", 1)[1], address, after, request_id)
        games = self.record_in_games(address, after, at, request_id)
        self._send(f"{request_id}.done", address, "[gm] Your settings", at, "settings_set",
                   {"settings": words(after), "games": games})
        store.handled.add(f"confirmed-{request_id}")

    def record_in_games(self, address: str, settings: PlayerSettings, at: datetime, request_id: str) -> list[str]:
        """Spool a ``settings`` event into every game ``address`` has a seat in
        that has not ended; the games' ids."""
        master, games = self.master, []
        for game_id, summary in sorted(master.all_games.summaries.items()):
            if summary.phase == ENDED:
                continue
            for seat in summary.seats:
                if not seat.robot and seat.address.lower() == address.lower():
                    request_action(master.store, master.identity, game_id, SettingsChanged(at, seat.player, settings),
                                   name=f"{request_id}-{game_id}-{seat.player}")
                    games.append(game_id)
        return games

    def _allowed(self, address: str, at: datetime) -> None:
        """Refuse (to the shunt, unanswered) past the day's allowance of answers
        about settings to ``address`` (as many as about names and seeks)."""
        limit = self.master.limits.league_answers_per_day
        if self.master.counts.add(at, f"settings {address.lower()}") > limit:
            raise Shunted(f"settings: {address} was sent {limit} mails about settings today already")


def _changed_names(before: PlayerSettings, after: PlayerSettings) -> list[str]:
    old, new = before.fields(), after.fields()
    return [name for name in dict.fromkeys([*old, *new]) if old.get(name) != new.get(name)]

