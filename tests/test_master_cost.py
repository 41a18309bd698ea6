"""What makes the master's work on an order mail cheaper (issue 27, mail at
half the ceiling; bench/master.py measures it), without changing what it
decides or a byte of what it writes: each test fails if the work it pins
comes back. That the mail is the same is what the golden sheets and
records, sample-mail and the byte-exact replays of tests/archives check."""

from __future__ import annotations

import email.policy
import textwrap
from email.headerregistry import HeaderRegistry

import jinja2
import pytest

from gm.games.spaceships import grids
from gm.games.spaceships.game import Game
from gm.games.spaceships.geometry import ALL_CELLS
from gm.games.spaceships.grids import Mark, html_grid, known_mark, own_mark, text_grids
from gm.games.spaceships.knowledge import KnownCell, OwnCell, known_cells, opponent_space, own_space
from gm.kernel.text import wrap
from gm.mail import reading
from gm.mail.headers import addresses
from gm.mail.reading import parse_message
from gm.mail.screening import automatic_reason, is_own_mail
from gm.pbem.intake.addressing import envelope_from, plus_tags
from gm.pbem.writing.mailer import Identity

ORDER = (b"Return-Path: <bob@example.org>\r\nX-GM-Envelope-To: <gm+g1.2.abcdef@example.org>\r\n"
         b"From: Bob <bob@example.org>\r\nTo: gm+g1.2.abcdef@example.org\r\nSubject: orders\r\n"
         b"Message-ID: <o1@example.org>\r\n\r\nRv1\r\n")


def screen(raw: bytes) -> tuple:
    """What the master's screening reads off a mail's address fields, rule by rule."""
    message = parse_message(raw)
    return (is_own_mail(message, {"gm@example.org"}), automatic_reason(message, envelope_from(message)),
            addresses(message, "From"), plus_tags(message, Identity("gm@example.org")))


def test_the_screening_parses_each_address_field_once(monkeypatch):
    parsed: list[str] = []
    registry_call = HeaderRegistry.__call__

    def counting(registry, name, value):
        parsed.append(name.lower())
        return registry_call(registry, name, value)

    monkeypatch.setattr(HeaderRegistry, "__call__", counting)
    reading._parsed_field.cache_clear()
    assert screen(ORDER) == (False, None, ["bob@example.org"], [["g1", "2", "abcdef"]] * 2)  # envelope, To
    assert sorted(parsed) == ["from", "return-path", "to", "x-gm-envelope-to"], parsed  # each once
    parsed.clear()
    assert screen(ORDER.replace(b"<o1@", b"<o2@"))[3] == [["g1", "2", "abcdef"]] * 2  # the player's next mail
    assert parsed == [], parsed


@pytest.mark.parametrize("field", [
    b"From: Bob <bob@example.org>",
    b"From: a@example.org <b@example.com>",
    b"From: =?utf-8?q?B=C3=B6b?= <bob@example.org>, carol@example.org",
    b"From: undisclosed-recipients:;",
    b"From: \"unterminated <bob@example.org>",
    b"To: gm+g1.1.tok@example.org, (comment) <x@[127.0.0.1]>",
    b"Return-Path: <>",
])
def test_an_address_field_reads_as_policy_default_reads_it(field):
    raw = field + b"\r\nSubject: x\r\n\r\nbody\r\n"
    name = field.split(b":")[0].decode()
    for _ in range(2):  # parsed, then from the cache
        ours, reference = parse_message(raw)[name], email.message_from_bytes(raw, policy=email.policy.default)[name]
        assert read(ours) == read(reference)


def read(header) -> tuple:
    """What a reader of the field can see of it."""
    return (str(header), type(header).__name__, getattr(header, "addresses", None), [repr(d) for d in header.defects])


SETUPS = ("DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5\n",
          "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2\n")
"""Legal setups (the daemon tests' Alice and Bob)."""


def test_a_sheet_makes_no_cell_anew_that_it_drew_before(monkeypatch):
    """A turn sheet draws 250 cells: those drawn alike (an empty cell of
    one's own, an unexplored one of the opponent's, most of them) are made
    once, not for every sheet; what the player was told is found as before."""
    game = Game.from_setups(*SETUPS)
    for orders in (("Rv1 Rw1", "Rv1"), ("Ox3", "Yz1"), ("sGz1", "Bv5")):
        game.push(*orders)
    views = [report.view(1) for report in game.reports]
    side = game.state.side(1)
    first = own_space(side)
    told = known_cells(1, views)
    assert 0 < len(told) < 10
    assert opponent_space(1, views) == {cell: told.get(cell, KnownCell()) for cell in ALL_CELLS}
    made: list[str] = []
    for kind in (OwnCell, KnownCell):
        monkeypatch.setattr(kind, "__init__", counted(kind.__init__, made))
    assert own_space(side) == first and made == []
    assert known_cells(1, views) == told and len(made) == len(told)
    assert known_mark(KnownCell()) is known_mark(KnownCell())


def counted(init, made: list[str]):
    def counting(self, *args, **kwargs):
        made.append(type(self).__name__)
        init(self, *args, **kwargs)
    return counting


GRID_MACRO = """\
{%- macro grid(colour, rows, which, blank) -%}
<table class="grid {{ which }}"><caption>{{ colour }} &middot; {{ "yours" if which == "own" else "theirs" }}</caption>\
<tr><th></th><th>1</th><th>2</th><th>3</th><th>4</th><th>5</th></tr>
{% for row in rows %}<tr><th>{{ "vwxyz"[loop.index0] }}</th>{% for mark in row %}{% if mark.css == blank %}<td></td>\
{% else %}<td class="{{ mark.css }}">{{ mark.code }}</td>{% endif %}{% endfor %}</tr>{% if loop.last %}</table>\
{% else %}
{% endif %}{% endfor %}
{%- endmacro -%}
{{ grid(colour, rows, which, blank) }}"""
"""The grid as the sheet's template drew it cell by cell before `html_grid` drew it."""


def test_a_grid_is_drawn_as_the_template_drew_it_cell_by_cell():
    own = [own_mark(OwnCell(None)), own_mark(OwnCell("KC")), own_mark(OwnCell("kc", destroyed=True)),
           own_mark(OwnCell("MD", missile="unfired")), own_mark(OwnCell("MD2", missile="fired"))]
    known = [known_mark(KnownCell()), known_mark(KnownCell(strikes=["miss"], empty=True)),
             known_mark(KnownCell(strikes=["hit"], destroyed=True)), known_mark(KnownCell(scan="undamaged")),
             known_mark(KnownCell(scan="empty", empty=True)), known_mark(KnownCell(scan="destroyed", destroyed=True)),
             known_mark(KnownCell(destroyed=True, exploded=True)), known_mark(KnownCell(kamikaze=True, destroyed=True)),
             known_mark(KnownCell(ship="FS2")), known_mark(KnownCell(ship="LS", destroyed=True)),
             Mark("<&'\">", "a&b", "")]
    template = jinja2.Environment(autoescape=True).from_string(GRID_MACRO)
    for which, blank, marks in (("own", "empty", own), ("known", "unknown", known)):
        for shift in range(len(marks)):
            cells = (marks[shift:] + marks[:shift]) * 3
            rows = tuple(tuple(cells[5 * n:5 * n + 5]) for n in range(5))
            expected = template.render(colour="Orange", rows=rows, which=which, blank=blank)
            assert str(html_grid("Orange", rows, which, blank)) == expected
            assert jinja2.Environment(autoescape=True).from_string("{{ g }}").render(
                g=html_grid("Orange", rows, which, blank)) == expected  # shown as it is, not escaped again


def test_a_grid_line_pads_each_code_once_and_as_before():
    marks = [own_mark(OwnCell(None)), own_mark(OwnCell("KC")), own_mark(OwnCell("HF12", missile="fired")),
             known_mark(KnownCell(ship="LS", destroyed=True)), known_mark(KnownCell(strikes=["miss"], empty=True))]
    own = {cell: marks[n % 5] for n, cell in enumerate(ALL_CELLS)}
    known = {cell: marks[n % 3 + 2] for n, cell in enumerate(ALL_CELLS)}
    lines = text_grids(own, known, "Your space", "Bob's space, as you know it")
    rows = zip(grids.grid_rows(own, "R"), grids.grid_rows(known, "R"))
    assert lines[2:7] == [  # as each code was formatted before
        f"    {letter}      {''.join(f'{m.code:<4}' for m in left):<23}{letter}  "
        f"{''.join(f'{m.code:<4}' for m in right)}".rstrip() for letter, (left, right) in zip("vwxyz", rows)]
    assert "HF12'" in lines[2] + lines[3] and "ls" in lines[2] + lines[3]
    assert set(grids._PADDED) >= {mark.code for mark in marks}
    assert all(len(padded) >= 4 and padded.rstrip() == code for code, padded in grids._PADDED.items())


def test_a_short_text_is_wrapped_once_and_each_caller_gets_its_own_lines(monkeypatch):
    wrapped: list[str] = []
    monkeypatch.setattr(textwrap, "wrap", lambda text, *a, real=textwrap.wrap, **k: wrapped.append(text) or real(
        text, *a, **k))
    words = f"Beam from DS [8.2]: along letter (bYw3Yy3), colour (bRx3Bx3) {id(wrapped)}"  # no earlier test's
    first = wrap(words, "", "  ", 40)
    first.append("changed by its caller")
    assert wrap(words, "", "  ", 40) == first[:-1] and len(first) == 4
    assert wrapped == [words]
    long = "word " * 200
    assert wrap(long) == wrap(long) and wrapped == [words, long, long]  # not kept: the memory stays small
