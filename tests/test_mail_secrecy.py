"""Hidden information in mail: every message the GM sends player 1 is byte
for byte the same whatever player 2's fleet holds in cells that the rules
never revealed to player 1 [1.4], [5], [7]."""

from datetime import UTC, datetime, timedelta
from random import Random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gm.games.spaceships.bot import random_orders, random_setup
from gm.games.spaceships.fleet import build_fleet
from gm.games.spaceships.orders import Missile, MissileSelector, Placement
from gm.games.spaceships.ruleset import ruleset_named
from gm.kernel import engine
from gm.kernel.values import Created, DeadlinePassed, Options, PlayerMail, Seat
from gm.pbem.archive.replay import Threads, notice_messages
from gm.pbem.writing.mailer import Identity

pytestmark = pytest.mark.slow  # hypothesis over the rendered mail of random games

START = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
SEATS = (Seat(1, "alice@example.org", "Alice"), Seat(2, "bob@example.net", "Bob"))


def setup_text(placements: list[Placement]) -> str:
    return "\n".join(str(p) for p in placements)


def play_by_mail(setups: tuple[str, str], turns: list[tuple[str, str]], variant: str = "2.6.1") -> list[bytes]:
    """Every message the GM sends player 1, from creation to the last turn.
    A turn whose orders are not both in runs at its deadline."""
    identity = Identity("gm@example.org")
    game, notices = engine.create(Created(START, "g1", SEATS, variant, Options()))
    threads = Threads()
    sent = []
    number = 1

    def record(notices, at):
        messages = notice_messages(game, notices, identity, number, at, threads)
        sent.extend(data for _, player, data in messages if player == 1)

    def apply(event):
        nonlocal number
        number += 1
        record(engine.apply(game, event), event.at)

    record(notices, START)
    apply(PlayerMail(START, 1, setups[0], "<s1@x>"))
    apply(PlayerMail(START, 2, setups[1], "<s2@x>"))
    for n, (a, b) in enumerate(turns):
        if game.phase != "play":
            break
        turn, at = game.turn, game.deadline - timedelta(hours=1)
        apply(PlayerMail(at, 1, a, f"<a{n}@x>"))
        apply(PlayerMail(at, 2, b, f"<b{n}@x>"))
        if game.phase == "play" and game.turn == turn:
            apply(DeadlinePassed(game.deadline))
    return sent


def record_game(seed: int, turns: int, variant: str = "2.6.1"):
    """A random legal game: setups, orders as text, and what player 1 learnt."""
    from gm.games.spaceships.game import Game

    rng = Random(seed)
    ruleset = ruleset_named(variant)
    placements = (random_setup(rng, ruleset), random_setup(rng, ruleset))
    game = Game(build_fleet(placements[0], ruleset), build_fleet(placements[1], ruleset), ruleset)
    orders = []
    while game.result is None and len(orders) < turns:
        o1, o2 = random_orders(game.state, 1, rng, 0.5), random_orders(game.state, 2, rng, 0.5)
        report = game.push(o1, o2)
        # Player 2's missiles written in full, so a moved ship launches the same ones.
        o2 = [Missile(MissileSelector(c.colour, c.letter, c.number)) if isinstance(o.order, Missile) else o.order
              for o in report.checks[1].outcomes for c in [o.cells[0] if o.cells else None]]
        orders.append((" ".join(map(str, o1)), " ".join(map(str, o2))))
    known = set()
    for report in game.reports:
        for a in report.announcements:
            if (a.by == 1) != (a.kind == "kamikaze"):
                known.add(a.cell)
                known.update(a.explosions)
            for d in a.destroyed:
                known.update(d.ship.cells)
            if ruleset.early and a.by == 2 and a.kind == "beam":
                known.add(a.cell)  # an early beam's line passes through its death star [early 6.1.3.3]
    return placements, orders, known


@pytest.mark.parametrize("variant", ["2.6.1", "early", "2.6.1+colours=RYGOB+scoring-by-hits+hypothetical-hits"])
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), turns=st.integers(1, 6), data=st.data())
def test_player_1s_mail_does_not_depend_on_unrevealed_cells(variant, seed, turns, data):
    placements, orders, known = record_game(seed, turns, variant)
    geometry = ruleset_named(variant).geometry
    setup2 = list(placements[1])
    others = [c for i, p in enumerate(setup2) for c in p.cells(geometry)]
    movable = [i for i, p in enumerate(setup2)
               if not set(p.cells(geometry)) & known and p.type.code not in ("MD", "AG", "LG")]
    assume(movable)
    index = data.draw(st.sampled_from(movable))
    ship = setup2[index]
    rest = set(others) - set(ship.cells(geometry))
    shifts = []
    for vector in [(dx, dy, dz) for dx in range(-4, 5) for dy in range(-4, 5) for dz in range(-4, 5)
                   if (dx, dy, dz) != (0, 0, 0)]:
        moved = geometry.translate(ship.cells(geometry), vector)
        if moved and not set(moved) & (rest | known):
            shifts.append(moved)
    assume(shifts)
    moved = data.draw(st.sampled_from(shifts))
    setup2_moved = [*setup2[:index], Placement(ship.type, ship.identity, tuple(moved)), *setup2[index + 1:]]
    original = play_by_mail((setup_text(placements[0]), setup_text(setup2)), orders, variant)
    changed = play_by_mail((setup_text(placements[0]), setup_text(setup2_moved)), orders, variant)
    headers = [m.split(b"\r\n\r\n")[0] for m in original]
    assert sum(b"results" in h or b"game is over" in h for h in headers) == len(orders)  # every turn ran
    assert original == changed


def test_the_comparison_would_see_a_leak():
    """Moving a ship onto a cell player 1 struck turns a miss into a hit in
    player 1's mail: the property above can fail."""
    alice = "DS Rv1-Ow2\nKC Gv1-Gx2\nFS Bv1-Bw2\nMD Yz1 Yz2 Yz3\nLS Bz5"
    bob = "DS Yx3-Gy4\nKC Rv1-Rx2\nPC Bv5-By5\nMD Ov3 Ow3 Ox3\nHS Gz1 Gz2"
    moved = bob.replace("HS Gz1 Gz2", "HS Bz3 Bz4")
    assert play_by_mail((alice, bob), [("Bz4", "")]) != play_by_mail((alice, moved), [("Bz4", "")])
