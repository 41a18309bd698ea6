"""Schema numbers: the shape of a kept state, so that a snapshot written by
another gm can still be read when that shape did not change.

A snapshot (`gm.pbem.state.snapshots`) is a pickle of a game's state. It
means the same to two versions of gm when the state's classes have the same
fields, whatever else changed in the code. So each owner of a kept state
numbers its shape: the kernel for `gm.kernel.model.MailGame` (`SCHEMA` there),
each game for its own state (``GameRules.schema``, next to the game's state
class), the mail edge for the snapshot's own frame. A snapshot records the
numbers it was written under; a newer gm reads it as it is when they are
its own, through its owners' migrations when they are older, and replays
the game from its archive otherwise.

Bumping (the test ``tests/test_schemas.py`` fails, showing what changed,
when a state's fields change and its number does not):

1. add one to the owner's number;
2. say how a state of the number before becomes one of the new:
   ``migrations[OLD] = function`` (it takes the unpickled state, changes it
   in place, and returns it; `fill_defaults` gives every field a class has
   gained its default), or ``migrations[OLD] = REPLAY`` (such snapshots are
   not read; their games are replayed, lazily, at the first start);
3. record the new shape: ``GM_RECORD_SHAPES=1 scripts/test tests/test_schemas.py``.

`shape` lists a state's fields, names and types, through every dataclass it
holds; a class that is not a dataclass counts by its name only (one that
pickles as a reference, like `GameRules`, holds no state of its own).
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import enum
import inspect
import sys
import textwrap
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final

Migration = Callable[[Any], Any]
"""Turns a state of one schema number into one of the next."""


class _Replay:
    """The mark of a schema number whose snapshots are not read, but replayed."""

    def __repr__(self) -> str:
        return "REPLAY"


REPLAY: Final = _Replay()
Step = Migration | _Replay
"""How a state of one number becomes one of the next: a migration, or REPLAY."""


def migrate(state: Any, have: int, want: int, steps: Mapping[int, Step]) -> Any:
    """``state``, of schema ``have``, brought to ``want`` by ``steps`` (each
    from its number to the next); raises `NotMigrated` when a step is
    REPLAY, missing, or ``have`` is newer than ``want`` (a downgrade)."""
    if have > want:
        raise NotMigrated(f"written under schema {have}, newer than this gm's {want}")
    for number in range(have, want):
        step = steps.get(number)
        if step is None or isinstance(step, _Replay):
            raise NotMigrated(f"schema {number} has no migration to {number + 1}")
        state = step(state)
    return state


class NotMigrated(Exception):
    """A state that no migration brings to this gm's schema: replay its game."""


def fill_defaults(state: Any) -> Any:
    """A migration for fields added with a default: every dataclass held by
    ``state`` (through dataclasses, lists, tuples, sets and dicts) that
    lacks a field gets the field's default. Returns ``state``."""
    seen: set[int] = set()

    def visit(value: Any) -> None:
        if id(value) in seen:
            return
        seen.add(id(value))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            held = getattr(value, "__dict__", None)
            for found in dataclasses.fields(value):
                # A field with a plain default is also a class attribute: ask the instance's own dict.
                if (found.name not in held) if held is not None else not hasattr(value, found.name):
                    if found.default is not dataclasses.MISSING:
                        object.__setattr__(value, found.name, found.default)
                    elif found.default_factory is not dataclasses.MISSING:
                        object.__setattr__(value, found.name, found.default_factory())
                    else:
                        raise NotMigrated(f"{type(value).__name__}.{found.name} has no default")
                visit(getattr(value, found.name))
        elif isinstance(value, list | tuple | set | frozenset):
            for item in value:
                visit(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                visit(key)
                visit(item)

    visit(state)
    return state


def complete(state: Any) -> bool:
    """Whether every dataclass ``state`` holds (through dataclasses, lists,
    tuples, sets and dicts) has each of its class's fields, and no other
    attribute: what a state read from a pickle of other code must pass
    before it is trusted (pickle restores attributes, not fields)."""
    seen: set[int] = set()
    todo = [state]
    while todo:
        value = todo.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            names = [found.name for found in dataclasses.fields(value)]
            held = getattr(value, "__dict__", None)
            if held is not None and set(held) != set(names):
                return False
            if not all(hasattr(value, name) for name in names):
                return False
            todo.extend(getattr(value, name) for name in names)
        elif isinstance(value, list | tuple | set | frozenset):
            todo.extend(value)
        elif isinstance(value, dict):
            todo.extend(value.keys())
            todo.extend(value.values())
    return True


def shape(root: type, stop: tuple[type, ...] = ()) -> list[str]:
    """The fields of ``root`` and of every class its fields' types name, one
    line each (``Class.field: type``), sorted: what a schema number stands
    for. A dataclass's fields are its own; a plain class of ``root``'s
    package has those its methods assign to ``self`` (as written there), and
    its ``__slots__``. Enums, classes in ``stop``, those that pickle as a
    reference (their own ``__reduce__``) and those of other packages count
    by name only."""
    package = root.__module__.split(".")[0]
    lines: list[str] = []
    done: set[type] = set()
    todo = [root]
    while todo:
        cls = todo.pop()
        if cls in done:
            continue
        done.add(cls)
        if issubclass(cls, stop) or issubclass(cls, enum.Enum) or cls.__module__.split(".")[0] != package:
            continue
        namespace = vars(sys.modules[cls.__module__])
        if dataclasses.is_dataclass(cls):
            hints = typing.get_type_hints(cls, namespace)
            for found in dataclasses.fields(cls):
                hint = hints.get(found.name, Any)
                lines.append(f"{_name(cls)}.{found.name}: {_spelled(hint)}")
                todo.extend(_classes(hint))
        elif "__reduce__" not in vars(cls):
            for name, written in _assigned(cls).items():
                lines.append(f"{_name(cls)}.{name}: {written}")
                # An annotation that names nothing at run time counts by its words only.
                with contextlib.suppress(Exception):
                    todo.extend(_classes(eval(written, dict(namespace))))
    return sorted(lines)


def _assigned(cls: type) -> dict[str, str]:
    """The attributes a plain class's methods assign to ``self``, each with
    its annotation where one is written (else ``?``), and its slots."""
    found: dict[str, str] = {name: "?" for name in getattr(cls, "__slots__", ())}
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):
        return found
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                if isinstance(node, ast.AnnAssign):
                    found[target.attr] = ast.unparse(node.annotation)
                else:
                    found.setdefault(target.attr, "?")
    return found


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _spelled(hint: Any) -> str:
    if isinstance(hint, type) and not isinstance(hint, types.GenericAlias):
        return _name(hint)
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if origin is None:
        return repr(hint)
    head = _name(origin) if isinstance(origin, type) else repr(origin)
    return f"{head}[{', '.join('...' if a is Ellipsis else _spelled(a) for a in args)}]"


def _classes(hint: Any) -> list[type]:
    if isinstance(hint, type) and not isinstance(hint, types.GenericAlias):
        return [hint]
    found = [typing.get_origin(hint)] if isinstance(typing.get_origin(hint), type) else []
    for arg in typing.get_args(hint):
        found.extend(_classes(arg))
    return [c for c in found if isinstance(c, type)]
