"""What the GM commits to in a game of Celestial Empire each turn, the
record it reveals at the end, and that record played again as one empire
was told it, for ``gm verify`` (docs/verification.md).

From `TURN_STATE_EDITION` on, every turn's whole state (the galaxy and every
empire in it, after the turn ran) is committed on every player's mail of
that turn and kept on every later mail, as ``turn-N``: its value is the
SHA-256 of the state's canonical serialisation (`canonical_state`), so that
the reveal stays a line a turn however large the galaxy. The record the
final mail reveals (`record_text`) holds the seed, the empires and every
order and research line each turn ran with (the robot's included: they came
by the robot's mail as any player's orders do), from which the rules alone
rebuild every turn.
"""

from __future__ import annotations

import enum
import hashlib
import json
import pickle
import re
from dataclasses import dataclass, field, fields, is_dataclass
from functools import lru_cache
from typing import Any

from ...kernel.commitments import PER_TURN, text_value
from ...kernel.errors import NotationError, RecordError
from ...kernel.outcomes import Replayed
from ...kernel.values import FINISH_EDITION
from .galaxy import generate
from .notation import parse_order
from .report import Report
from .sheets import history, own_ship
from .state import GameState, new_game
from .turn import run_turn
from .variants import variant_named
from .winning import Length

TURN_STATE_EDITION = FINISH_EDITION
"""The first edition whose games commit to each turn's state and reveal
their whole record at the end; earlier games commit to the galaxy alone."""

RECORD_GAME = "celestial-empire"


@dataclass
class Ran:
    """One turn as it ran: the orders and research lines of each empire, as
    text, and the SHA-256 (hex) of the state it left (`canonical_state`)."""

    turn: int
    orders: dict[int, list[str]] = field(default_factory=dict)
    research: dict[int, list[str]] = field(default_factory=dict)
    state: str = ""


_FIELDS: dict[type, tuple[str, ...]] = {}
"""The field names of each dataclass met, once each: the state holds thousands."""


def plain_value(value: Any) -> Any:
    """``value`` as JSON holds it: a dataclass as an object of its fields,
    an enumeration by its name, a mapping with its keys as text, tuples and
    lists as arrays."""
    kind = type(value)
    if kind is int or kind is str or kind is bool or value is None:
        return value
    if kind is list or kind is tuple:
        return [item if type(item) is int else plain_value(item) for item in value]
    if kind is dict:
        return {(k.name if isinstance(k, enum.Enum) else str(k)): plain_value(v) for k, v in value.items()}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, set | frozenset):
        return [plain_value(item) for item in sorted(value)]
    names = _FIELDS.get(kind)
    if names is None:
        if not is_dataclass(value):
            return value
        names = _FIELDS[kind] = tuple(f.name for f in fields(value))
    return {name: plain_value(getattr(value, name)) for name in names}


def _key_text(key: Any) -> str:
    """A mapping's key as `plain_value` writes it."""
    return str(key) if type(key) is int else key.name if isinstance(key, enum.Enum) else str(key)


def _text_keys(mapping: dict[Any, Any]) -> dict[str, Any]:
    """``mapping`` with its keys as `plain_value` writes them (and so do the
    mappings among its values); the values are left to `json`."""
    return {_key_text(key): _text_keys(value) if type(value) is dict else value for key, value in mapping.items()}


def _members(value: Any) -> Any:
    """What `canonical_state` hands `json` for a value it cannot write
    itself (a dataclass, an enumeration, a set): what `plain_value` makes
    of it, one level deep, the members left to `json` (which calls this
    again for each of theirs). A mapping among the members gets its keys
    as text here: `json` would sort whole numbers as numbers, 99 before
    100, where the canonical form sorts every key as text. The state holds
    its mappings as members (or in mappings), never in a list."""
    kind = type(value)
    names = _FIELDS.get(kind)
    if names is None:
        if isinstance(value, enum.Enum):
            return value.name
        if not is_dataclass(value) or isinstance(value, type):
            return plain_value(value)
        names = _FIELDS[kind] = tuple(f.name for f in fields(value))
    members = {}
    for name in names:
        member = getattr(value, name)
        members[name] = _text_keys(member) if type(member) is dict else member
    return members


_ENCODE = json.JSONEncoder(default=_members, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode
"""`json.dumps` as `canonical_state` calls it, made once."""

_quoted = json.encoder.encode_basestring
"""A text as `json` writes it with ``ensure_ascii=False``: a mapping's key, a member's name."""

_RECENT_GAMES = 16
"""The games whose objects' texts `canonical_state` keeps (`_TEXTS`), the last met."""

_TEXTS: dict[int, dict[tuple[type, bytes], str]] = {}
"""By game (its seed), the canonical text of each object of its mappings
(each planet, ship, empire) in the last state serialised, by its class and
the pickle of its members: a turn changes few of a galaxy's planets, and
`json` writing each of them again was most of a turn's digest."""

_FIELD_SETS: dict[type, frozenset[str]] = {}
"""Each class's field names as a set, once each (`_object_text`)."""

_KEYS: dict[int, tuple[str, str]] = {}
"""A mapping's whole-number key as text, and as `canonical_state` writes it
(quoted, a colon after it), once each: the same 300 keys come back every turn."""


def _object_text(value: Any, known: dict[tuple[type, bytes], str], kept: dict[tuple[type, bytes], str]) -> str:
    """``value``'s canonical text: taken from ``known`` when an object of its
    class with members that pickle to the same bytes was written before (so
    equal in value and in type, bool, int and enumeration alike, and
    written alike), else written by `json`; kept in ``kept`` either way.
    An object whose members are its fields, none of them a mapping (a
    planet, a ship), is handed to `json` as it is: `_members` would copy
    it to the same effect."""
    kind = type(value)
    members = value.__dict__
    key = (kind, pickle.dumps(members, 5))
    text = known.get(key)
    if text is None:
        names = _FIELD_SETS.get(kind)
        if names is None:
            names = _FIELD_SETS[kind] = frozenset(f.name for f in fields(value))
        plain = members.keys() == names and dict not in set(map(type, members.values()))
        text = _ENCODE(members if plain else _members(value))
    kept[key] = text
    return text


def _key_label(key: Any) -> tuple[str, str]:
    """A mapping's key as text (what the keys are sorted by), and as
    `canonical_state` writes it before its value: quoted, and a colon."""
    if type(key) is not int:
        text = _key_text(key)
        return text, f"{_quoted(text)}:"
    label = _KEYS.get(key)
    if label is None:
        text = str(key)
        label = _KEYS[key] = (text, f"{_quoted(text)}:")
    return label


def canonical_state(state: GameState) -> bytes:
    """The whole state's canonical serialisation: JSON, keys sorted, no
    white space, UTF-8, one line feed at the end (docs/verification.md):
    ``json.dumps(plain_value(state), ...)``, written by `json` as it walks
    the state (`_members`) rather than from a copy of it made of dicts and
    lists first, which took twice as long; each object of the state's
    mappings (the planets, ships and empires) is written once and its text
    kept for the game's next state (`_object_text`)."""
    known = _TEXTS.pop(state.seed, {})
    kept: dict[tuple[type, bytes], str] = {}
    names = _FIELDS.get(type(state))
    if names is None:
        names = _FIELDS[type(state)] = tuple(f.name for f in fields(state))
    parts = []
    for name in sorted(names):
        member = getattr(state, name)
        if type(member) is dict and all(is_dataclass(kind) for kind in set(map(type, member.values()))):
            keyed = {label[0]: (label[1], value) for label, value in zip(map(_key_label, member), member.values())}
            text = "{" + ",".join([label + _object_text(value, known, kept)
                                   for label, value in map(keyed.__getitem__, sorted(keyed))]) + "}"
        else:
            text = _ENCODE(_text_keys(member) if type(member) is dict else member)
        parts.append(f"{_quoted(name)}:{text}")
    _TEXTS[state.seed] = kept
    while len(_TEXTS) > _RECENT_GAMES:
        del _TEXTS[next(iter(_TEXTS))]
    return ("{" + ",".join(parts) + "}\n").encode("utf-8")


def state_digest(state: GameState) -> str:
    """SHA-256 of `canonical_state`, as 64 lower-case hex digits."""
    return hashlib.sha256(canonical_state(state)).hexdigest()


def turn_label(turn: int) -> str:
    """The label of turn ``turn``'s commitment."""
    return f"{PER_TURN}{turn}"


@lru_cache(maxsize=4096)
def turn_value(turn: int, digest: str) -> bytes:
    """Turn ``turn``'s committed value: ``turn N`` and ``state DIGEST``; kept
    once made, since every mail of a game carries every turn's so far (each
    mail of turn 80 made 80 of them again)."""
    return text_value([f"turn {turn}", f"state {digest}"])


def galaxy_value(seed: int, empires: int) -> bytes:
    """The galaxy's committed value: ``seed N`` and ``empires N``."""
    return text_value([f"seed {seed}", f"empires {empires}"])


def ran(turn: int, orders: dict[int, list[Any]], research: dict[int, list[str]], after: GameState) -> Ran:
    """What the record keeps of turn ``turn``, which ran with ``orders`` and
    ``research`` and left ``after``."""
    return Ran(turn, {e: [str(o) for o in found] for e, found in sorted(orders.items()) if found},
               {e: list(lines) for e, lines in sorted(research.items()) if lines}, state_digest(after))


def record_text(variant: str, seed: int, names: list[str], turns: list[Ran]) -> str:
    """The whole game as ``gm verify`` replays it (docs/verification.md)."""
    lines = [f"game {RECORD_GAME}", f"variant {variant}", f"seed {seed}"]
    lines += [f"empire {number} {name}" for number, name in enumerate(names, 1)]
    for turn in turns:
        lines.append(f"turn {turn.turn}")
        for empire, research in turn.research.items():
            lines += [f"research {empire} {line}" for line in research]
        for empire, orders in turn.orders.items():
            lines += [f"order {empire} {order}" for order in orders]
    return "".join(f"{line}\n" for line in lines)


_LINE = re.compile(r"^(game|variant|seed|empire|turn|research|order) (.*)$")


@dataclass
class _Record:
    variant: str = ""
    seed: int | None = None
    names: list[str] = field(default_factory=list)
    turns: list[tuple[int, dict[int, list[str]], dict[int, list[str]]]] = field(default_factory=list)


def _read(record: str) -> _Record:
    """The record's lines; RecordError naming the first that does not read."""
    read = _Record()
    for number, line in enumerate(record.split("\n"), 1):
        if not line.strip():
            continue
        found = _LINE.match(line)
        if found is None:
            raise RecordError(f"line {number}: not a line of a Celestial Empire record: {line[:40]!r}")
        word, rest = found.groups()
        try:
            if word == "game":  # blanked where gm.kernel.records.game_of_record read it first
                if rest != RECORD_GAME:
                    raise ValueError(f"the record is of {rest}, not of {RECORD_GAME}")
            elif word == "variant":
                read.variant = rest
            elif word == "seed":
                read.seed = int(rest)
            elif word == "empire":
                empire, name = rest.split(" ", 1)
                if int(empire) != len(read.names) + 1:
                    raise ValueError("the empires are numbered 1, 2, ... in order")
                read.names.append(name)
            elif word == "turn":
                read.turns.append((int(rest), {}, {}))
            else:
                empire, text = rest.split(" ", 1)
                if not read.turns or not 1 <= int(empire) <= len(read.names):
                    raise ValueError("an order of no turn, or of no empire")
                _, orders, research = read.turns[-1]
                (orders if word == "order" else research).setdefault(int(empire), []).append(text)
        except ValueError as error:
            raise RecordError(f"line {number}: {error}") from None
    if read.seed is None or len(read.names) < 2 or not read.variant:
        raise RecordError("a Celestial Empire record names its variant, its seed and two empires or more")
    return read


def told(state: GameState, report: Report, empire: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The blocks of ``empire``'s sheet for ``report``'s turn (``state`` the
    state it left) that a replay can say, word for word (turn_sheet.txt):
    its summary of ships, and its command history with what it saw."""
    lines = ["SUMMARY OF SHIPS"]
    for ship in (own_ship(state, s) for s in state.ships_of(empire)):
        units = (f"S{ship['number']} f={ship['fighters']:<2d} c={ship['cargo_units']}({ship['empty']:2d}) "
                 f"t={ship['tractors']:<2d} s={ship['shields']}({ship['absorbed']}) "
                 f"eff={ship['efficiency']}({ship['effective']}) shots={ship['shots']}")
        lines += [f"{units} {ship['name']}".rstrip(),
                  f"Planet {ship['planet']} {ship['type']}"
                  + (f"  Standing Order:{ship['standing']}" if ship["standing"] else ""),
                  ".".join(ship["cargo"]) + "." if ship["cargo"] else "hold empty"]
    if len(lines) == 1:
        lines.append("You have no ships.")
    done = [f"COMMAND HISTORY OF TURN {report.turn}"]
    entries = history(report, empire)
    for h in entries:
        done.append(f"{h['written']} " + ("(standing order) " if h["standing"] else "")
                    + (h["done"] if h["done"] else f"NOT DONE: {h['why']}"))
    if not entries:
        done.append("No orders.")
    return tuple(lines), (*done, *report.seen.get(empire, []))


def replayed(record: str, player: int) -> Replayed:
    """``record`` played again under the rules from its galaxy, turn by
    turn, as empire ``player`` was told it: the committed values it implies
    (the galaxy, each turn's state) and what each turn's sheet said."""
    read = _read(record)
    if not 1 <= player <= len(read.names):
        raise RecordError(f"the record has no empire {player}")
    try:
        variant = variant_named(read.variant)
    except ValueError as error:
        raise RecordError(str(error)) from None
    seed = read.seed if read.seed is not None else 0  # _read refused a record without one
    state = new_game(generate(seed, len(read.names)), read.names)
    state.voting = variant.conditions.length is Length.VOTED
    state.routes_before_fuel = True  # every game of TURN_STATE_EDITION is of SHEETS_EDITION on
    values = [("galaxy", galaxy_value(seed, len(read.names)))]
    turns = []
    for turn, texts, research in read.turns:
        if turn != state.turn:
            raise RecordError(f"turn {turn} comes where turn {state.turn} should")
        try:
            orders = {e: [parse_order(t) for t in found] for e, found in texts.items()}
        except NotationError as error:
            raise RecordError(f"turn {turn}: an order does not read: {error}") from None
        state, report = run_turn(state, orders, research)
        values.append((turn_label(turn), turn_value(turn, state_digest(state))))
        turns += [(f"turn {turn}", block) for block in told(state, report, player)]
    return Replayed(tuple(values), tuple(turns))
