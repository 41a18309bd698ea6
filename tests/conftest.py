"""How the tests share out among pytest-xdist's workers: `scripts/test` runs
them in parallel with ``--dist loadgroup``, which hands each test to the next
free worker, except the tests of one ``xdist_group``, which all go to one
worker.

A test module whose own fixtures outlive a test (``scope="module"``: a game
played once for every test that reads it, the previous release's data
directory, a real Chromium's rendered pages, the wheel built once) is made
one group here, so that its fixture is made once, as in a serial run, and
not again in every worker that takes one of its tests. Every other test
goes where there is room.

Tests that a deadline on the wall clock bounds, and that do enough work to
come near it on a loaded machine (the benchmarks' quick runs, a game whose
turn runs at a 3-second deadline), mark themselves
``xdist_group("wall-clock")``: they run one after another in one worker, never
beside each other (the other workers still run beside them)."""

from __future__ import annotations

import pytest

_PER_TEST = "function"


def _has_a_fixture_of_its_module(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture defined in the tests (not by pytest or a
    plugin: their baseid is empty) that lives longer than one test."""
    fixtureinfo = getattr(item, "_fixtureinfo", None)
    if fixtureinfo is None:
        return False
    return any(definition.baseid and definition.scope != _PER_TEST
               for definitions in fixtureinfo.name2fixturedefs.values() for definition in definitions)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Put every test of a module with a module-scoped fixture into that
    module's group (a test already in a group stays there)."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None and _has_a_fixture_of_its_module(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::", 1)[0]))
