"""Golden Grid Fighters mail: every message of a short game, as both players read it.

The game is the procedure note's worked example, played by mail (Red moves
a Z2 first, out of everyone's way, since by mail Red moves first): Blue's Y1
goes G6-D3-B1, Red's Z1 goes E1-A1 and departs A1 again, which finds Z1
destroyed by Y1 on B1 and Y1 by Red's X1 on C2. Then Blue resigns.

Each player's mails are compared whole with tests/sheets/gridfighters/.
Regenerate with ``GM_UPDATE_GOLDEN=1``: the test rewrites its file and
FAILS, saying so, so that a regeneration never passes silently. The
``test_facts_*`` tests assert the key facts directly, so that a careless
regeneration cannot hide a regression.
"""

from __future__ import annotations

import os
from datetime import timedelta
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail, Seat
from gm.pbem.writing.mailer import body_html, body_text
from gmtest import START

GOLDEN = Path(__file__).resolve().parent / "sheets" / "gridfighters"
UPDATE = os.environ.get("GM_UPDATE_GOLDEN") == "1"
WIDTH = 78
SEATS = (Seat(1, "alice@example.org", "Alice"), Seat(2, "bob@example.org", "Bob"))
SETUPS = {
    1: "H A5, A1 A8, A2 A9, A3 A10, A4 B8, A5 B9, A6 B10, A7 C10\n"
       "W D8, B D9, X1 C2, X2 D10, Y1 E8, Y2 E9\nZ1 E1, Z2 E5, Z3 E6, Z4 E7\n",
    2: "h j5, a1 j8, a2 j9, a3 j10, a4 i8, a5 i9, a6 i10, a7 h10\n"
       "w g8, b g9, x1 h2, x2 g10, y1 g6, y2 f8\nz1 f1, z2 f2, z3 f3, z4 f4\n",
}
MAILS = [(1, SETUPS[1]), (2, SETUPS[2]), (1, "Z2 E5-E6"), (2, "; my bishop\nY1 G6-D3"), (1, "Z1 E1-A1"),
         (2, "Y1 D3-B1"), (1, "z1 a1-a2"), (2, "status"), (2, "resign")]


def played() -> dict[int, list[tuple[str, str, str | None]]]:
    """Every notice of the game, rendered, by player: (subject, text, html)."""
    game, notices = engine.create(Created(START, "g1", SEATS, "standard", Options(), game="gridfighters"))
    sent: dict[int, list[tuple[str, str, str | None]]] = {1: [], 2: []}

    def keep(notices):
        for n in notices:
            package = game.rules.templates
            sent[n.player].append((n.subject, body_text(n, package), body_html(n, package)))
    keep(notices)
    for minutes, (player, text) in enumerate(MAILS, 1):
        keep(engine.apply(game, PlayerMail(START + timedelta(minutes=minutes), player, text)))
    return sent


SENT = played()


def whole(player: int) -> str:
    return "".join(f"=== {subject}\n{text}" for subject, text, _ in SENT[player])


@pytest.mark.parametrize("player", [1, 2])
def test_golden_mail(player):
    path = GOLDEN / f"worked-example.p{player}.txt"
    if UPDATE:
        path.write_text(whole(player))
        pytest.fail(f"rewrote {path}: review the diff, then run again without GM_UPDATE_GOLDEN")
    assert whole(player) == path.read_text()


@pytest.mark.parametrize("player", [1, 2])
def test_facts_every_line_keeps_to_the_width_and_every_sheet_has_html(player):
    for subject, text, _html in SENT[player]:
        assert max(len(line) for line in text.splitlines()) <= WIDTH, subject
    assert sum(html is not None for _, _, html in SENT[player]) >= 4


def test_facts_blue_hears_departures_never_destinations():
    blue = whole(2)
    assert "Red Z1 departs E1." in blue and "Red Z1 departs E1 for A1" not in blue
    red = whole(1)
    assert "Red Z1 departs E1 for A1." in red and "Blue Y1 departs D3." in red and "for B1" not in red


def test_facts_the_worked_example_as_both_read_it():
    red, blue = whole(1), whole(2)
    for text in (red, blue):
        assert "On B1: Red Z1 met Blue Y1; destroyed: Red Z1." in text
        assert "On C2: Blue Y1 met Red X1; destroyed: Blue Y1." in text
        assert "Z1 had been destroyed on its previous path: the move is spent" in text
    assert "Blue Y1 is revealed on B1." in red and "Red X1 is revealed on C2." in blue
    assert "Blue Y1 is revealed" not in blue and "Red X1 is revealed" not in red
    assert "The game is over: Bob resigned.\nYou win." in SENT[1][-1][1]
    assert "The game is over: Bob resigned.\nAlice wins." in SENT[2][-1][1]


class _Table(HTMLParser):
    """The rows of the board table: [row letter, cell, cell, ...]."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None


@pytest.mark.parametrize("player", [1, 2])
def test_facts_the_html_board_is_the_text_board(player):
    compared = 0
    for subject, text, html in SENT[player]:
        if html is None:
            continue
        table = _Table()
        table.feed(html)
        board = text.split("squares where one was seen marked '!'):\n", 1)[1].split("\n\n", 1)[0].splitlines()
        expected = [line.split() for line in board[1:]]
        got = [[cell or "." for cell in row] for row in table.rows[1:]]
        assert got == expected, subject
        assert table.rows[0][1:] == [str(c) for c in range(1, 11)]
        compared += 1
    assert compared >= 4
