"""What makes building the master's replies cheaper once more (issue 27, mail
at half the ceiling; bench/master.py measures it), without changing a byte
of what it writes: each test fails if the work it pins comes back. That the
mail is the same is what the golden sheets and records, sample-mail,
tests/test_mail_bytes.py and the byte-exact replays of tests/archives check;
the tests here check the pieces against what they replaced."""

from __future__ import annotations

import collections
import io
import logging
import pathlib
import random
import sys
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
import pytest

from gm import logs
from gm.pbem.data.store import Markers, Store
from gm.pbem.writing import mailer, writer
from test_reply_cost import FOLDERS, turn_sheets

PACKAGE = "gm.games.spaceships"


def render_both(sheets: list[Any]) -> list[str | None]:
    """Each sheet's text and HTML, as `mailer.build` renders them."""
    return [page for sheet in sheets
            for page in (mailer.render_text(sheet.template, sheet.data, PACKAGE, FOLDERS),
                         mailer.render_html(sheet.template, sheet.data, PACKAGE, FOLDERS))]


def test_a_render_iterates_no_chainmap_of_globals(monkeypatch):
    """Jinja made each template's globals a ChainMap over the environment's,
    which every render, and every template it includes, iterated twice (to
    copy them into its context and to make a set of their names)."""
    sheets = turn_sheets()
    before = render_both(sheets)
    iterated: list[object] = []
    real = collections.ChainMap.__iter__
    monkeypatch.setattr(collections.ChainMap, "__iter__", lambda chain: iterated.append(chain) or real(chain))
    assert render_both(sheets) == before
    assert iterated == []


def test_a_templates_globals_are_the_environments():
    for environment in (mailer._text_environment(PACKAGE, FOLDERS), mailer._html_environment(PACKAGE, FOLDERS)):
        template = environment.get_template("turn_sheet.txt")
        assert template.globals == environment.globals and template.globals is not environment.globals
        assert environment.make_globals({"extra": 1}) == {**environment.globals, "extra": 1}
        assert environment.from_string("{{ range(3)|list }} {{ namespace(a=1).a }}").render() == "[0, 1, 2] 1"


def test_a_template_is_looked_for_once(monkeypatch):
    """Every ``include`` and ``from ... import`` of a template asked Jinja's
    cache for it (under a lock, a new weak reference to the loader a time)
    on every render."""
    sheets = turn_sheets()
    before = render_both(sheets)
    loaded: list[str] = []
    real = jinja2.Environment._load_template
    monkeypatch.setattr(jinja2.Environment, "_load_template",
                        lambda environment, name, *a: loaded.append(name) or real(environment, name, *a))
    assert render_both(sheets) == before
    assert loaded == []


def test_a_template_not_found_is_looked_for_again(monkeypatch):
    environment = mailer._text_environment(PACKAGE, FOLDERS)
    loaded: list[str] = []
    real = jinja2.Environment._load_template
    monkeypatch.setattr(jinja2.Environment, "_load_template",
                        lambda environment, name, *a: loaded.append(name) or real(environment, name, *a))
    for _ in range(2):
        with pytest.raises(jinja2.TemplateNotFound):
            environment.get_template("no_such_template.txt")
    assert loaded == ["no_such_template.txt"] * 2
    assert environment.get_template("reply.txt", globals={"extra": 1}).globals["extra"] == 1


def old_text_part(text: str, subtype: str, light: bool) -> writer._Part:
    """`writer._text_part` as it was: every text encoded, split and joined."""
    lines = text.encode("utf-8").splitlines()
    body = b"\n".join(lines) + b"\n"
    if light and body.isascii() and max(map(len, lines), default=0) <= writer.MAX_7BIT_LINE:
        cte, payload = "7bit", body.decode("ascii")
    else:
        cte, payload = "quoted-printable", writer._quoted_printable(body.decode("latin-1"))
    return writer._text_fields(subtype, cte, payload)


def texts() -> Iterator[str]:
    yield from ["", "\n", "a", "a\n", "a\n\n", "\n\na", "a\r\nb", "a\rb\n", "é\n", "a\x0bb\x0cc\x1cd\n", "a \n",
                "x" * 998, "x" * 999 + "\n", "y\n" + "x" * 999, "a=b\n" + "z" * 200 + " \n"]
    rng = random.Random(27)
    alphabet = ["a", " ", "\n", "\r", "=", "\t", "é", "\x0b", "x" * 300, "\u2028", "\x85"]
    for _ in range(2000):
        yield "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))


@pytest.mark.parametrize("light", [False, True])
def test_a_text_part_is_as_it_was(light):
    for text in texts():
        assert writer._text_part(text, "plain", light) == old_text_part(text, "plain", light), repr(text)


def builtins_called(work: Callable[[], object]) -> list[str]:
    called: list[str] = []
    sys.setprofile(lambda frame, event, arg: called.append(arg.__name__) if event == "c_call" else None)
    try:
        work()
    finally:
        sys.setprofile(None)
    return called


def test_an_ascii_part_is_neither_encoded_nor_split():
    """gm's own text is ASCII with line feeds: its part's lines are its own."""
    text = "Turn 3.\n" * 200
    called = builtins_called(lambda: writer._text_part(text, "plain", True))
    assert "encode" not in called and "splitlines" not in called and "join" not in called


def test_a_text_that_fits_is_not_broken_up():
    text = "Spaceships game g1: you are Ann\n\n" + "  - a line that fits\n" * 40
    assert mailer.fitted(text) is text
    longer = text + "x " * 50 + "\n"
    assert mailer.fitted(longer) == text + "x " * 38 + "x\n" + "x " * 10 + "x\n"


def test_an_event_the_logger_drops_is_not_written_out(monkeypatch):
    written: list[object] = []
    monkeypatch.setattr(logs, "quote", lambda value: written.append(value) or str(value))
    monkeypatch.setattr(logs.log, "level", logging.WARNING)
    logs.event("mail accepted", game="g1", player=2)
    assert written == []
    logs.event("mail bouncing", logging.WARNING, game="g1")
    assert written == ["g1"]


def test_a_logged_line_is_as_it_was():
    stream = io.StringIO()
    level = logging.getLogger().level
    handler = logs.setup(logging.INFO, stream)
    try:
        logs.event("mail accepted", game="g1", player=2, key="a b", to="gm+g1.2.abcdef@example.org")
        logging.getLogger("gm").warning("two\nlines\n\n password hunter2")
        logging.getLogger("gm").info("")
    finally:
        logging.getLogger().removeHandler(handler)
        logging.getLogger().setLevel(level)
    assert stream.getvalue() == (
        'INFO gm: mail accepted game=g1 player=2 key="a b" to=gm+g1.2.****************@example.org\n'
        "WARNING gm: two | lines |  password ****************\nINFO gm: \n")


def test_a_marker_is_looked_for_without_a_path(tmp_path, monkeypatch):
    markers = Markers(tmp_path / "handled")
    markers.add("1700000000.M1P2Q3.host")
    made: list[object] = []
    real = pathlib.PurePath.__truediv__
    monkeypatch.setattr(pathlib.PurePath, "__truediv__", lambda path, name: made.append(name) or real(path, name))
    assert "1700000000.M1P2Q3.host" in markers and "1700000000.M9P9Q9.host" not in markers
    assert made == []


def outcome(work: Callable[[], object]) -> object:
    """What ``work`` returns, or the type of what it raises."""
    try:
        return work()
    except Exception as error:
        return type(error)


def test_a_marker_is_found_as_a_path_finds_it(tmp_path):
    store = Store(tmp_path / "data")
    markers = store.handled
    markers.add("here")
    (markers.path / "folder").mkdir()
    names = ["here", "there", "", ".", "..", "here/", "here/x", "folder/", "folder/x", "./here", "a\0b", "x" * 300]
    for name in names:
        assert outcome(lambda name=name: name in markers) == outcome((markers.path / name).exists), name
    with store.batch():
        markers.add("staged")
        assert "staged" in markers and not (markers.path / "staged").exists()
    assert "staged" in markers
