"""Issue 27: what an HTML sheet escapes, and the commitments every mail
shows again.

Under autoescape each ``{{ }}`` of an HTML template is a call to
markupsafe's escape; runs of cells that hold only what the game makes come
drawn in one string instead (gm.games.celestial_empire.drawn), and what a
player wrote is still escaped, by the template or by the drawing. A game's
commitments (an HMAC salt and a SHA-256 digest each) are made once and kept,
not again for every mail of every turn."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from random import Random
from types import FrameType
from typing import Any

import markupsafe

from celestial_fuzz import mail_for
from gm.games.celestial_empire.drawn import Drawn, cells, heads, planet_figures, ship_cells, summary_row
from gm.games.celestial_empire.mail import Terms
from gm.games.celestial_empire.sheets import sheet_data
from gm.kernel import commitments, engine
from gm.kernel.values import Created, Options, PlayerMail, Seat
from gm.pbem.writing.mailer import body_html, render_html
from gmtest import COMMIT_KEY, SETUP_ALICE, SETUP_BOB
from test_celestial_sheets import COMMON, GROK, REPORT, STATE


def escapes(render: Any) -> tuple[Any, int]:
    """``render()``'s result and how many times it called markupsafe's escape."""
    code = markupsafe.escape.__code__
    count = 0

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        nonlocal count
        if event == "call" and frame.f_code is code:
            count += 1

    render()  # compiled and cached before counting
    sys.setprofile(profile)
    try:
        result = render()
    finally:
        sys.setprofile(None)
    return result, count


def test_a_celestial_empire_sheet_escapes_what_players_wrote_not_every_number():
    """The test sheet (three empires after one turn) made 506 escapes, one
    for each number of its planet summary, ship rows, Earth's prices and
    mine tables; drawn by the game, 215."""
    data = COMMON | sheet_data(STATE, REPORT, GROK)
    html, count = escapes(lambda: render_html("turn_sheet", data, "gm.games.celestial_empire"))
    assert html is not None and "<td>" in html
    assert count <= 250, count


def test_a_spaceships_sheet_shows_its_grids_strikes_and_fill_in_each_as_one_value():
    """A Spaceships sheet after turn 1 made 68 escapes: ten for its grids,
    three for each ship's strikes, one for each fill-in line and each
    plural's "s"; drawn by the game, or written by the template, 42."""
    start = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = (Seat(1, "a@example.org", "Alice"), Seat(2, "b@example.net", "Bob"))
    game, _ = engine.create(Created(start, "g1", seats, "2.6.1", Options(), commit_key=COMMIT_KEY))
    engine.apply(game, PlayerMail(start, 1, SETUP_ALICE))
    engine.apply(game, PlayerMail(start, 2, SETUP_BOB))
    at = start + timedelta(hours=1, microseconds=250_000)
    engine.apply(game, PlayerMail(at, 1, "Rx3\n"))
    (sheet, *_) = [n for n in engine.apply(game, PlayerMail(at, 2, "Gy1\n")) if n.template == "turn_sheet"]
    sheet = replace(sheet, data=sheet.data | commitments.sheet_fields(game))
    folders = game.rules.template_folders(game.edition)
    html, count = escapes(lambda: body_html(sheet, game.rules.templates, folders))
    assert html is not None and html.count('<div class="colour">') == 5 and "&lt;cell&gt;" in html
    assert count <= 45, count


def test_what_the_game_draws_is_escaped_as_autoescape_would():
    """Nothing a player wrote goes into a `Drawn`; were it ever to, it is
    escaped all the same, character for character as markupsafe does."""
    text = "<script>alert('x') & \"y\"</script>"
    escaped = str(markupsafe.escape(text))
    assert cells([text, 3]) == f"<td>{escaped}</td><td>3</td>" and heads(2) == "<th>0</th><th>1</th>"
    assert escaped in ship_cells(text, 1, 2, 3, 4, 5, 6, 7, 8, 9, [text])
    assert "<script" not in ship_cells(text, 1, 2, 3, 4, 5, 6, 7, 8, 9, [text])
    assert summary_row(text, [(text, text)], text, text).count(escaped) == 5
    assert planet_figures([1, 2], 3, 4, 5, 6, 7, 8).startswith("Nearby planets 1 2; Industry 3;")
    drawn = Drawn(cells, [text])
    assert str(markupsafe.escape(drawn)) == f"<td>{escaped}</td>" and drawn == Drawn(cells, [text])


def test_each_commitment_is_made_once_and_not_again_for_every_mail(monkeypatch):
    """A Celestial Empire game commits to each turn's state: every mail
    made them all again (an HMAC and a Commitment each, and its digest for
    every one shown), twice (the headers and the sheet). Kept once made,
    a second mail of the same turn makes none."""
    at = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
    seats = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter"), 1))
    game, _ = engine.create(Created(at, "g1", seats, "standard", Options(), Terms(3), game="celestial-empire",
                                    commit_key=COMMIT_KEY))
    rng = Random(3)
    for _turn in range(3):
        for empire in (1, 2):
            at += timedelta(minutes=1, microseconds=250_000)
            engine.apply(game, PlayerMail(at, empire, mail_for(game.play.state, empire, rng)))
    made: list[str] = []
    digests: list[bytes] = []
    real, digest = commitments.Commitment, commitments.commitment_digest
    monkeypatch.setattr(commitments, "Commitment", lambda label, value, salt: made.append(label) or real(
        label, value, salt))
    monkeypatch.setattr(commitments, "commitment_digest", lambda salt, value: digests.append(value) or digest(
        salt, value))
    commitments.commitment.cache_clear()
    first = commitments.headers(game), commitments.sheet_fields(game)
    assert made == ["galaxy", "turn-1", "turn-2", "turn-3"] and len(digests) == 2  # the galaxy's, the latest turn's
    again = commitments.headers(game), commitments.sheet_fields(game)
    assert again == first and len(made) == 4 and len(digests) == 2
