"""What makes the master's replies to an order mail cheaper (issue 27, mail
at half the ceiling; bench/master.py measures it), without changing a byte
of what it writes: each test fails if the work it pins comes back. That the
mail is the same is what the golden sheets and records, sample-mail,
tests/test_mail_bytes.py and the byte-exact replays of tests/archives check;
the tests here check the pieces against what they replaced."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from datetime import timedelta

import jinja2
import pytest

from gm.games.spaceships.geometry import ALL_CELLS
from gm.games.spaceships.grids import Mark, grid_rows, own_mark
from gm.games.spaceships.knowledge import OwnCell
from gm.kernel import commitments, engine, shown
from gm.kernel.shown import Shown, ShownDeadline, resolve
from gm.kernel.values import STEADY_EDITION, Created, Notice, Options, PlayerMail, Seat
from gm.mail.reading import parse_message
from gm.pbem.archive import replay
from gm.pbem.archive.replay import ACCEPTED_HEADER, FORMAT, accepted_event, orders_text, prepend_header, to_event
from gm.pbem.data import tokens
from gm.pbem.writing import mailer
from gm.storage.maildirs import unix_lines
from gmtest import START, World, run, started_game

SEATS = (Seat(1, "ann@example.org", "Ann"), Seat(2, "bob@example.net", "Bob"))
SETUPS = ("DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
          "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n")
"""Legal setups (the daemon tests' Alice and Bob)."""
ORDERS = (("Rv1 Rw1 sGz1", "Rv1"), ("Ox3", "Yz1 sBv5"))


def turn_sheets() -> list[Notice]:
    """Both players' turn sheets after two turns of a Spaceships game of
    today's edition, with its commitments, as the engine makes them."""
    game, _ = engine.create(Created(START, "g1", SEATS, "2.6.1", Options(), instance="x", edition=STEADY_EDITION,
                                    commit_key=bytes(32)))
    at, notices = START, []
    for n, (player, text) in enumerate([(1, SETUPS[0]), (2, SETUPS[1]),
                                        *((p, orders[p - 1]) for orders in ORDERS for p in (1, 2))]):
        at += timedelta(minutes=1)
        notices = resolve(engine.apply(game, PlayerMail(at, player, text, f"<m{n}@example.org>")))
    sheets = [replace(notice, data=notice.data | commitments.sheet_fields(game))  # as `mailer.build` adds them
              for notice in notices if notice.template == "turn_sheet"]
    assert len(sheets) == 2 and all(sheet.data["commitments"] for sheet in sheets)
    return sheets


FOLDERS = ("templates",)
"""Where today's Spaceships templates are (`Spaceships.template_folders` of today's edition)."""


def html_environment() -> jinja2.Environment:
    return mailer._html_environment("gm.games.spaceships", FOLDERS)


@pytest.mark.parametrize("text", ["", "0123456789abcdef", "0123456789abcdef0", "ab" * 32, "a<b&c>d'e\"f" * 5])
def test_a_string_is_grouped_as_batch_map_join_grouped_it(text):
    environment = html_environment()
    before = environment.from_string('{{ s|batch(16)|map("join")|join(" ") }}').render(s=text)
    assert environment.from_string("{{ s|grouped(16) }}").render(s=text) == before


def test_a_sheets_commitments_are_grouped_without_jinjas_batch(monkeypatch):
    environment = html_environment()
    batched: list[object] = []
    real = environment.filters["batch"]
    monkeypatch.setitem(environment.filters, "batch", lambda *a, **k: batched.append(a) or real(*a, **k))
    for sheet in turn_sheets():
        page = mailer.render_html(sheet.template, sheet.data, "gm.games.spaceships", FOLDERS)
        assert page is not None and 'id="commitments"' in page
    assert batched == []


LEGEND = """\
{%- set keys_own = [("KC", "ship", "ship"), ("kc", "destroyed", "destroyed"), ("MD*", "missile", "unfired missile"),
  ("MD'", "fired", "fired missile")] -%}
{%- set keys_theirs = [("", "unknown", "unexplored"), ("o", "miss", "miss"), ("X", "hit", "hit"),
  ("*", "explosion", "explosion"), ("S", "scan-ship", "scanned: ship"), ("-", "scan-empty", "scanned: empty"),
  ("x", "scan-destroyed", "scanned: destroyed"), ("k", "kamikaze", "kamikaze"), ("KC", "revealed", "ship revealed"),
  ("kc", "revealed-destroyed", "revealed, destroyed")] -%}
{%- macro key(items) -%}{% for code, css, what in items %}<span><span class="key {{ css }}">{% if code %}{{ code }}\
{% else %}&nbsp;{% endif %}</span> {{ what }}</span> {% endfor %}{%- endmacro -%}
<p class="legend">Yours: {{ key(keys_own) }}<br>
Theirs: {{ key(keys_theirs) }}</p>
"""
"""The HTML sheet's legend as its template made it for every sheet, by a macro."""


def test_the_html_sheets_legend_is_written_out_as_the_macro_made_it(monkeypatch):
    invoked: list[str] = []
    real = jinja2.runtime.Macro._invoke
    monkeypatch.setattr(jinja2.runtime.Macro, "_invoke",
                        lambda macro, *a, **k: invoked.append(macro.name) or real(macro, *a, **k))
    legend = jinja2.Environment(autoescape=True).from_string(LEGEND).render()
    invoked.clear()
    for sheet in turn_sheets():
        page = mailer.render_html(sheet.template, sheet.data, "gm.games.spaceships", FOLDERS)
        assert page is not None and legend in page
    assert "key" not in invoked and invoked  # the orders' tables are still drawn by their macro


ORDER = (b"Return-Path: <bob@example.org>\r\nFrom: Bob <bob@example.org>\r\nTo: gm+g1.2.abcdef@example.org\r\n"
         b"Subject: Re: [gm g1] Turn 1\r\nMessage-ID: <o1@example.org>\r\nIn-Reply-To: <g1.3.2.x@example.org>\r\n"
         b"\r\nRv1 Rw1\r\n\r\n> Turn 1\r\n")


@pytest.mark.parametrize("raw, read_again", [
    (ORDER, False),
    (ORDER.replace(b"Subject: Re:", b"Subject: =?utf-8?q?R=C3=A9:?="), False),
    (b"X-Odd: \xff\xfe\r\n" + ORDER, False),
    (b"From bob@example.org Mon Nov 23 12:00:00 2026\n" + ORDER, True),  # an mbox line: the package's first line
    (b" folded\r\n" + ORDER, True),  # a continuation first: it would continue gm's line
    (b": no name\r\n" + ORDER, True),
    (b"no field at all\r\n\r\nRv1\r\n", True),
    (b"\r\nRv1\r\n", True),
    (b"", True),
])
def test_an_order_mail_is_read_once_and_as_replay_reads_it_archived(raw, read_again):
    stored = unix_lines(raw)
    message = parse_message(stored)
    text, _ = orders_text(message)
    at = START + timedelta(microseconds=123457)
    for player, deputy in ((1, False), (2, True)):
        by = "; deputy=yes" if deputy else ""
        archived = prepend_header(stored, ACCEPTED_HEADER,
                                  f"game=g1; player={player}; at={at.isoformat()}; format={FORMAT}{by}")
        event = accepted_event(stored, message, text, at, player, deputy)
        assert (event is None) == read_again
        if event is not None:
            assert event == to_event(archived, "g1") and event.text == ("Rv1 Rw1" if b"Rv1 Rw1" in raw else event.text)


def test_the_master_parses_an_order_mail_once(tmp_path, monkeypatch):
    parsed: list[bytes] = []
    real = replay.parse_message
    monkeypatch.setattr(replay, "parse_message", lambda raw: parsed.append(raw) or real(raw))

    async def scenario():
        async with World(tmp_path) as world:
            await started_game(world)
            parsed.clear()
            await world.act(world.alice.reply, "Rv1 Rw1")
            await world.act(world.bob.reply, "Rv1")
            assert "orders for turn 2" in str(world.bob.latest()["Subject"])
    run(scenario())
    assert parsed == []


def test_a_seats_token_is_derived_once(monkeypatch):
    derived: list[bytes] = []
    real = tokens.hmac.new
    monkeypatch.setattr(tokens.hmac, "new", lambda key, text, *a: derived.append(text) or real(key, text, *a))
    key = os.urandom(32)
    first = tokens.token(key, "g1.x", 2)
    assert tokens.token(key, "g1.x", 2) == first and tokens.verify(key, "g1.x", 2, first.upper() + " ")
    assert not tokens.verify(key, "g1.x", 1, first) and tokens.token(os.urandom(32), "g1.x", 2) != first
    assert derived == [b"g1.x/2", b"g1.x/1", b"g1.x/2"]


def test_a_sheet_hashes_each_own_cell_it_draws_once(monkeypatch):
    """Most of a space's 125 cells are one value (an empty cell), drawn by
    `own_mark` from its cache: the key was hashed by the dataclass's own
    Python ``__hash__`` for every cell of every sheet."""
    hashed: list[OwnCell] = []
    real = OwnCell.__hash__
    monkeypatch.setattr(OwnCell, "__hash__", lambda cell: hashed.append(cell) or real(cell))
    turn_sheets()  # six sheets' worth of own spaces: the setups' replies, then two turns' sheets
    assert 0 < len(hashed) <= 6 * 20  # (distinct values: the empty cell and each ship's cells, per space drawn)


def test_a_notices_deadline_is_put_in_without_looking_at_each_string(monkeypatch):
    seen: list[object] = []
    real = isinstance
    monkeypatch.setattr(shown, "isinstance", lambda value, kinds: seen.append(value) or real(value, kinds),
                        raising=False)
    deadline = ShownDeadline(START + timedelta(days=2))
    data = {"deadline": Shown(deadline, deadline.decided), "lines": ["a"] * 100, "deep": [{"moved": "", "n": 1}]}
    words = data["deadline"].text(True)
    (notice,) = resolve([Notice(1, "reply", "Re", data)])
    assert notice.data["deadline"] == words and notice.data["deep"] == [{"moved": "", "n": 1}]
    assert not [value for value in seen if type(value) is str]


def test_a_grids_marks_are_hashed_without_calling_python(monkeypatch):
    """`html_grid`'s cache hashes each grid it is asked for (250 marks a
    sheet): a mark is a tuple, whose hash the interpreter makes itself."""
    marks = {cell: own_mark(OwnCell("KC" if cell.number == 1 else None)) for cell in ALL_CELLS}
    rows = grid_rows(marks, "R")
    called: list[str] = []
    sys.setprofile(lambda frame, event, arg: called.append(frame.f_code.co_name) if event == "call" else None)
    try:
        hash(rows)
    finally:
        sys.setprofile(None)
    assert called == []
    assert rows[0][0] == Mark("KC", "ship", "KC, undamaged") and rows[0][1].css == "empty"
