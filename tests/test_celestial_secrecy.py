"""Hidden information stays hidden in Celestial Empire, as a property over
everything the GM sends: two games that differ only in what one empire holds
out of another's sight (ore, holds, shields, PDUs, stored spacemines) send
that other empire exactly the same mail, text and HTML, turn after turn,
while the empires play their orders; and a change it can see shows.

The games run through the kernel (`gm.kernel.engine`) and every notice is
rendered as the mailer renders it, so the property covers replies, sheets,
help and history alike, not only the sheet's data."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from gm.games.celestial_empire.mail import Terms
from gm.kernel import engine
from gm.kernel.model import MailGame
from gm.kernel.values import Created, DeadlinePassed, Options, PlayerMail, Seat
from gm.pbem.writing.mailer import body_html, body_text

AT = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
SEATS = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter", "Master"), 1))
WATCHER, HIDER = 1, 3
PACKAGE = "gm.games.celestial_empire"


def made() -> MailGame:
    game, _ = engine.create(Created(AT, "g1", SEATS, "standard", Options(), Terms(20261124), game="celestial-empire"))
    return game


def hidden_planet(game: MailGame) -> int:
    """A planet of the hider's that the watcher has no ship near: its home."""
    return game.play.state.empires[HIDER].home


def change(game: MailGame, what: str, amount: int) -> None:
    """Change something of the hider's that the watcher cannot see."""
    state = game.play.state
    planet = state.planets[hidden_planet(game)]
    ship = state.ships_of(HIDER)[0]
    if what == "ore":
        planet.ore[amount % 10] += amount
    elif what == "pdus":
        planet.pdus += amount
    elif what == "stored spacemines":
        planet.spacemines += amount
    elif what == "shields":
        ship.shields += amount
    elif what == "tractors":
        ship.tractors += amount
    elif what == "hold":
        ship.hold.ore[1 + amount % 9] += min(amount, ship.free_space())


def play(game: MailGame) -> list[tuple[str, str, str | None]]:
    """Three turns of orders (the watcher's orders, status and history
    included); every notice to the watcher, rendered: (subject, text, html)."""
    state = game.play.state
    home = state.empires[WATCHER].home
    mine = [s.number for s in state.ships_of(WATCHER)]
    theirs = [s.number for s in state.ships_of(HIDER)]
    link = state.planets[home].links[0]
    mails = [
        (WATCHER, f"S{mine[0]}J{link}\n{home}B2D\nSCAN{state.earth}\n+Master\nstatus\n"),
        (2, "{hello}\n+Grok\n"),
        (HIDER, f"S{theirs[0]}L5R2\n{state.empires[HIDER].home}B1I\n&Grok hi&\n"),
        (WATCHER, "history\nhelp\n"),
    ]
    sent: list[tuple[str, str, str | None]] = []
    for turn in range(3):
        for minutes, (player, body) in enumerate(mails):
            notices = engine.apply(game, PlayerMail(AT + timedelta(days=turn, minutes=minutes + 1), player, body))
            sent += [(n.subject, body_text(n, PACKAGE), body_html(n, PACKAGE)) for n in notices if n.player == WATCHER]
        if game.deadline is not None and game.phase == "play":
            notices = engine.apply(game, DeadlinePassed(game.deadline, game.deadline))
            sent += [(n.subject, body_text(n, PACKAGE), body_html(n, PACKAGE)) for n in notices if n.player == WATCHER]
    return sent


BASE = made()
SENT = play(copy.deepcopy(BASE))


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["ore", "pdus", "stored spacemines", "shields", "tractors", "hold"]), st.integers(1, 40))
def test_what_an_empire_cannot_see_changes_nothing_it_is_sent(what, amount):
    game = copy.deepcopy(BASE)
    change(game, what, amount)
    assert play(game) == SENT


def test_the_watcher_was_sent_sheets_replies_and_documents_so_the_property_means_something():
    subjects = [subject for subject, _, _ in SENT]
    assert any("results; orders for turn" in s for s in subjects) and any("orders received" in s for s in subjects)
    assert any("Black" not in text and "COMMAND HISTORY OF TURN" in text for _, text, _ in SENT)
    assert all(html for s, _, html in SENT if "results" in s)


def test_a_change_the_empire_can_see_does_show():
    game = copy.deepcopy(BASE)
    state = game.play.state
    state.ships_of(WATCHER)[1].hold.ore[3] += 2  # its own ship's hold
    assert play(game) != SENT
    game = copy.deepcopy(BASE)
    game.play.state.planets[hidden_planet(game)].industry += 5  # the hider's income, hence its public score
    assert play(game) != SENT
