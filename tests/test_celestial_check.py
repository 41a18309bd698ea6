"""Celestial Empire's ``check`` tries the orders against the empire as it
stands (issue 22): a jump to a planet that does not exist, a ship or planet
that is not the empire's, a scan of no planet, an empire that is not in the
game are answered each on its line, in the turn's own words, and nothing is
submitted or resolved. A game made before edition 5 only read them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gm.games.celestial_empire.mail import Terms
from gm.kernel import engine
from gm.kernel.values import Created, Options, PlayerMail, Seat
from gm.pbem.writing.mailer import body_text

AT = datetime(2026, 11, 21, 12, 0, 0, 250_000, tzinfo=UTC)
SEATS = tuple(Seat(n, f"p{n}@example.org", name) for n, name in enumerate(("Grok", "Winter", "Master"), 1))


def checked(edition: int | None = None):
    """A new game; Grok mails ``check`` with a good jump and six faults.
    The game, the reply's text, and the mail's lines."""
    extra = {} if edition is None else {"edition": edition}
    game, _ = engine.create(Created(AT, "g1", SEATS, "standard", Options(), Terms(7), game="celestial-empire",
                                    **extra))
    state = game.play.state
    (ship, second, third), winters = state.ships_of(1)[:3], state.ships_of(2)[0]
    home, linked = state.empires[1].home, state.planets[ship.planet].links[0]
    unlinked = next(n for n in sorted(state.planets) if n not in state.planets[ship.planet].links
                    and n != ship.planet)
    before = state.copy()
    lines = ["check", f"S{ship.number}J{linked}", f"S{second.number}J999", f"S{winters.number}J{linked}",
             f"S{third.number}J{unlinked}", f"{state.empires[2].home}=Mine", "SCAN999", "+Nobody", f"{home}=Capital"]
    (reply,) = engine.apply(game, PlayerMail(AT + timedelta(minutes=1), 1, "\n".join(lines) + "\n"))
    assert game.play.pending == {} and game.play.state == before  # nothing submitted, nothing resolved
    return game, body_text(reply, game.rules.templates, game.rules.template_folders(game.edition)), lines


def items(text: str) -> list[str]:
    """The items of the reply's list of what the turn would refuse, each
    on one line again (the reply wraps them at 78 columns)."""
    block = text.split("What the turn would refuse, with your empire as it stands now:\n", 1)[1]
    return [" ".join(item.split()) for item in block.split("\n\n", 1)[0].split("  - ")[1:]]


def test_check_answers_each_order_the_turn_would_refuse_on_its_line():
    game, text, lines = checked()
    assert ("checked 8 orders against your empire as it stands: 6 the turn would refuse (below)"
            in " ".join(text.split()))
    state = game.play.state
    third, winters = state.ships_of(1)[2], state.ships_of(2)[0]
    assert items(text) == [
        f"line 3: {lines[2]}: there is no planet 999: no fuel used (ruling R-60)",
        f"line 4: {lines[3]}: ship {winters.number} is not yours",
        f"line 5: {lines[4]}: planet {lines[4].split('J')[1]} is not linked to planet {third.planet}: no fuel "
        "used (ruling R-60)",
        f"line 6: {lines[5]}: planet {state.empires[2].home} is not yours",
        "line 7: SCAN999: there is no planet 999",
        "line 8: +Nobody: there is no empire called Nobody",
    ]
    assert f"line 2: {lines[1]}" not in text and f"line 9: {lines[8]}:" not in text


def test_what_check_refuses_the_turn_refuses_in_the_same_words():
    """The same orders sent for the turn: the history of turn 1 refuses the
    same six, with the same reasons (in the order of the turn's steps)."""
    game, text, lines = checked()
    refused = [item.split(": ", 2)[2] for item in items(text)]
    engine.apply(game, PlayerMail(AT + timedelta(minutes=2), 1, "\n".join(lines[1:]) + "\n"))
    for player in (2, 3):
        engine.apply(game, PlayerMail(AT + timedelta(minutes=3), player, "{hello}\n"))
    assert game.turn == 2
    history = game.play.reports[-1].history[1]
    assert sorted(e.why for e in history if e.why and not e.standing) == sorted(refused)  # in the steps' order


@pytest.mark.parametrize("edition", [4])
def test_a_game_before_edition_5_only_reads_the_orders(edition):
    _, text, _ = checked(edition)
    assert "checked 8 orders: not submitted, as you asked" in " ".join(text.split())
    assert "would refuse" not in text
