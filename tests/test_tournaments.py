"""Tournaments by mail (issue 23), through the in-process daemon with real
SMTP: a round-robin and a Swiss of five players each, made with ``gm
tournament new`` and played to the end with quick resignations and, in the
round-robin, one player who lets two games lapse (forfeits) and so is
withdrawn; their pairings, byes and standings, the standings ``gm
tournament show`` derives from the archives equal to the live ones, and no
address in any tournament mail or listing."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
from datetime import UTC, datetime, timedelta

from gm.cli import main
from gm.pbem.answers import tournaments as desk
from gm.pbem.data import tournaments as data
from gm.pbem.state import tournaments as view
from gmtest import ALICE, BOB, SETUP_ALICE, SETUP_BOB, Player, World, text
from test_names import name
from test_web import Site

CY, DI, ED = "cy@example.com", "di@example.com", "ed@example.com"
ENTRANTS = [(ALICE, "Ahab"), (BOB, "Ishmael"), (CY, "Queequeg"), (DI, "Starbuck"), (ED, "Stubb")]
"""Strongest first: of two entrants, the later one resigns."""
NAMES = dict(ENTRANTS)
ORDER = [address for address, _ in ENTRANTS]


def cli(*words: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(words))
    return status, out.getvalue()


async def entered(world: World) -> dict[str, Player]:
    players = {address: Player(address, world) for address in ORDER}
    for address, chosen in ENTRANTS:
        await name(world, players[address], chosen)
    return players


def invitation(player: Player, game_id: str):
    return next(m for m in player.inbox() if str(m.get("X-GM-Game", "")).strip() == game_id)


async def play_round(world: World, players: dict[str, Player], tournament_id: str, number: int,
                     forfeits: str | None = None) -> list[data.Played]:
    """Play round ``number``: the weaker of each game resigns, except that
    ``forfeits`` sends nothing (their opponent sends a setup) until they forfeit."""
    store, master = world.daemon.store, world.daemon.master
    _, games = data.rounds(store, tournament_id)[number - 1]
    lapsing = []
    for game in games:
        if game.game_id is None:
            continue
        assert game.second is not None
        world.clock.advance(seconds=1.25)
        if forfeits in (game.first, game.second):
            other = game.second if game.first == forfeits else game.first
            setup = SETUP_ALICE if other == game.first else SETUP_BOB
            await world.act(players[other].reply, setup, to=invitation(players[other], game.game_id))
            lapsing.append(game.game_id)
        else:
            loser = max(game.first, game.second, key=ORDER.index)
            await world.act(players[loser].reply, "resign", to=invitation(players[loser], game.game_id))
            assert master.games[game.game_id].phase == "ended"
    for _ in range(6):
        if all(master.games[g].phase == "ended" for g in lapsing):
            break
        world.clock.advance(days=1, seconds=1.5)
        await world.settle()
    assert all(master.games[g].phase == "ended" and master.games[g].outcome.kind.value == "forfeit" for g in lapsing)
    return games


def pairs(games: list[data.Played]) -> list[tuple[str, str | None]]:
    return [(NAMES[g.first], NAMES[g.second] if g.second else None) for g in games]


def tournament_mail(players: dict[str, Player]) -> list:
    return [m for p in players.values() for m in p.inbox() if "Tournament" in str(m["Subject"])
            or "tournament" in str(m["Subject"])]


def assert_secret(world: World, players: dict[str, Player], tournament_id: str) -> None:
    """No address in any tournament mail, nor in ``gm tournament show``."""
    for message in tournament_mail(players):
        body = text(message)
        assert "@" not in body and "example" not in body, body
    status, shown = cli("tournament", "show", tournament_id, "--data", world.config.data)
    assert status == 0 and "@" not in shown and "example" not in shown, shown


def live_and_rebuilt(world: World, tournament_id: str) -> tuple[dict, dict]:
    """The tournament as the daemon sees it, and as ``gm tournament show --json`` derives it from the archives."""
    master = world.daemon.master
    live = view.shown(master.tournaments.state(tournament_id), {a: n for a, n in ENTRANTS})
    status, out = cli("tournament", "show", tournament_id, "--json", "--data", world.config.data)
    assert status == 0
    rebuilt = json.loads(out)
    assert rebuilt.pop("over") is True
    return live, rebuilt


def test_a_round_robin_of_five_with_a_player_withdrawn_after_two_forfeits(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            players = await entered(world)
            status, out = cli("tournament", "new", "--data", world.config.data, "--game", "spaceships",
                              "--format", "round-robin", "--deadline", "1d",
                              "--players", "Ahab", BOB, "queequeg", DI, "Stubb",
                              "--signup-until", world.clock().isoformat())
            assert status == 0 and out == "t1\n"
            await world.settle()
            rounds = []
            for number in range(1, 6):
                rounds.append(await play_round(world, players, "t1", number, forfeits=ED))
            await world.settle()
            return world, players, rounds, live_and_rebuilt(world, "t1")

    world, players, rounds, (live, rebuilt) = asyncio.run(scenario())
    assert [pairs(games) for games in rounds] == [
        [("Ahab", None), ("Ishmael", "Stubb"), ("Queequeg", "Starbuck")],
        [("Ishmael", None), ("Queequeg", "Ahab"), ("Starbuck", "Stubb")],
        [("Queequeg", None), ("Starbuck", "Ishmael"), ("Stubb", "Ahab")],
        [("Starbuck", None), ("Stubb", "Queequeg"), ("Ahab", "Ishmael")],
        [("Ahab", "Starbuck"), ("Ishmael", "Queequeg")],  # Stubb, withdrawn, has no bye
    ]
    assert [g.game_id is None for g in rounds[2] + rounds[3]] == [True, False, True, True, True, False]
    standings = [(row["place"], row["name"], row["points"]) for row in live["standings"]]
    assert standings == [("1", "Ahab", 5), ("2", "Ishmael", 4), ("3", "Queequeg", 3), ("4", "Starbuck", 2),
                         ("5", "Stubb", 0)]
    assert live == rebuilt
    withdrawn = [m for m in players[ALICE].inbox() if "withdrawn" in str(m["Subject"])]
    assert len(withdrawn) == 1 and "Stubb lost two games of tournament t1" in text(withdrawn[0])
    assert any("a bye in round 1" in str(m["Subject"]) for m in players[ALICE].inbox())
    over = [m for m in players[DI].inbox() if str(m["Subject"]) == "[gm] Tournament t1 is over"]
    assert len(over) == 1 and "Sonneborn-Berger" in text(over[0])
    assert_secret(world, players, "t1")
    site = Site(tmp_path / "data", "--web-only")
    try:
        _, _, index = site.get("/")
        status, _, body = site.get("/tournaments/t1")
        missing, _, _ = site.get("/tournaments/t2")
        _, _, ishmael = site.get("/players/Ishmael")
    finally:
        site.stop()
    ishmael_page = ishmael.decode()  # the player's page says where they stand
    assert ('<a href="/tournaments/t1">t1</a></td><td data-label="Of">Spaceships, round-robin</td>'
            '<td data-label="Place">2 of 5</td><td data-label="Points">4</td>') in ishmael_page
    assert "@" not in ishmael_page and "example" not in ishmael_page
    page = body.decode()
    assert b'href="/tournaments/t1"' in index and status == 200 and missing == 404
    names = re.findall(r'data-label="Name">(\w+)</td><td data-label="Points">(\d+)<', page)
    assert names == [("Ahab", "5"), ("Ishmael", "4"), ("Queequeg", "3"), ("Starbuck", "2"), ("Stubb", "0")]
    played = {g.game_id for games in rounds for g in games if g.game_id}
    assert set(re.findall(r'href="/games/(g\d+)"', page)) == played and len(played) == 8
    assert "@" not in page and "example" not in page


def test_a_swiss_of_five_pairs_by_score_without_rematches_and_one_bye_each(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            players = await entered(world)
            signup = world.clock().replace(microsecond=0).isoformat()
            status, out = cli("tournament", "new", "--data", world.config.data, "--game", "spaceships",
                              "--format", "swiss", "--players", "Ahab", "Ishmael", "Queequeg",
                              "--signup-until", signup)
            assert status == 0 and out == "t1\n"
            world.clock.advance(seconds=-30)  # the sign-up is still open
            forged = await world.write_gm(players[ED], "join t1", from_=DI)  # Stubb claims to be Starbuck
            assert str(forged["To"]) == DI and "Confirm you join" in str(forged["Subject"])  # only DI may confirm
            assert data.entrants(world.daemon.store, data.record(world.daemon.store, "t1")) == [ALICE, BOB, CY]
            for player in (players[DI], players[ED]):
                confirmation = await world.write_gm(player, "join t1")
                assert str(confirmation["Subject"]) == "[gm] Confirm you join tournament t1", text(confirmation)
                world.clock.advance(seconds=1)
                await world.act(player.reply, "confirm", to=confirmation)
                joined = [m for m in player.inbox() if str(m["Subject"]) == "[gm] You joined tournament t1"]
                assert len(joined) == 1 and "Sign-up closes at" in text(joined[0])
            again = await world.write_gm(players[ED], "join t1")
            assert "you are signed up for tournament t1 already" in text(again)
            world.clock.advance(seconds=60)
            await world.settle()
            late = await world.write_gm(Player("fred@example.com", world), "join t1")
            assert "has started: sign-up is closed" in text(late)
            rounds = [await play_round(world, players, "t1", number) for number in range(1, 5)]
            await world.settle()
            answer = await world.write_gm(players[CY], "tournament t1")
            return world, players, rounds, live_and_rebuilt(world, "t1"), answer

    world, players, rounds, (live, rebuilt), answer = asyncio.run(scenario())
    assert len(rounds) == 4  # ceil(log2(5)) + 1
    assert [pairs(games) for games in rounds] == [  # by points, then rating (new players 1500), then address
        [("Ahab", "Ishmael"), ("Queequeg", "Starbuck"), ("Stubb", None)],
        [("Ahab", "Queequeg"), ("Ishmael", "Stubb"), ("Starbuck", None)],
        [("Starbuck", "Ahab"), ("Stubb", "Queequeg"), ("Ishmael", None)],
        [("Stubb", "Ahab"), ("Ishmael", "Starbuck"), ("Queequeg", None)],
    ]
    met = [frozenset(p) for games in rounds for p in pairs(games) if p[1] is not None]
    assert len(met) == len(set(met)) == 8
    byes = [p[0] for games in rounds for p in pairs(games) if p[1] is None]
    assert len(byes) == len(set(byes)) == 4
    standings = [(row["place"], row["name"], row["points"], row["tiebreak"]) for row in live["standings"]]
    assert standings == [("1", "Ahab", 4, 8), ("=2", "Ishmael", 3, 6), ("=2", "Queequeg", 3, 6),
                         ("=4", "Starbuck", 1, 10), ("=4", "Stubb", 1, 10)]
    assert live == rebuilt
    body = text(answer)
    assert "Standings (points, then Buchholz)" in body and "Tournament t1 is over" in body
    assert_secret(world, players, "t1")


def test_a_round_that_fails_to_start_starts_none_of_its_games_and_is_tried_again(tmp_path, monkeypatch):
    """A fault while a round's games are requested (here the second request
    fails once) leaves none of them requested: the next pass starts the
    whole round, and no pairing gets two games."""
    calls = []
    real = desk.request_game

    def failing_once(*args, **kwargs):
        calls.append(kwargs["name"])
        if len(calls) == 2:
            raise RuntimeError("a fault while the round starts")
        return real(*args, **kwargs)

    monkeypatch.setattr(desk, "request_game", failing_once)

    async def scenario():
        async with World(tmp_path) as world:
            store = world.daemon.store
            status, _ = cli("tournament", "new", "--data", world.config.data, "--game", "gridfighters",
                            "--format", "round-robin", "--players", *ORDER[:4],
                            "--signup-until", world.clock().isoformat())
            assert status == 0
            await world.settle()
            assert data.rounds(store, "t1") == [] and not [g for g in store.game_ids() if store.archive(g).keys()]
            world.clock.advance(seconds=1.5)
            await world.settle()
            (_, games), = data.rounds(store, "t1")
            made = sorted(g for g in store.game_ids() if store.archive(g).keys())
            return games, made

    games, made = asyncio.run(scenario())
    assert len(calls) == 4 and calls[0] == calls[2] == "tournament-t1-r1-b1"
    assert made == sorted(g.game_id for g in games) and len(made) == 2


def test_each_seat_is_its_own_players_name_or_the_games_alias(tmp_path):
    """A player without a public name takes the game's own alias for their
    seat; a named opponent keeps their name on theirs (not on the first seat)."""
    async def scenario():
        async with World(tmp_path) as world:
            await name(world, world.alice, "Ahab")
            status, _ = cli("tournament", "new", "--data", world.config.data, "--game", "spaceships",
                            "--format", "round-robin", "--players", BOB, "Ahab",
                            "--signup-until", world.clock().isoformat())
            assert status == 0
            await world.settle()
            (_, (game,)), = data.rounds(world.daemon.store, "t1")
            return [(seat.address, seat.alias) for seat in world.daemon.master.games[game.game_id].seats]

    (first, second) = asyncio.run(scenario())
    assert first[0] == BOB and first[1] != "Ahab" and second == (ALICE, "Ahab")


def test_a_withdrawal_in_the_last_round_is_told_with_the_final_standings(tmp_path):
    async def scenario():
        async with World(tmp_path) as world:
            players = await entered(world)
            status, _ = cli("tournament", "new", "--data", world.config.data, "--game", "spaceships",
                            "--format", "round-robin", "--deadline", "1d", "--players", "Ahab", "Ishmael",
                            "Queequeg", "Stubb", "--signup-until", world.clock().isoformat())
            assert status == 0
            await world.settle()
            await play_round(world, players, "t1", 1)
            for number in (2, 3):
                await play_round(world, players, "t1", number, forfeits=ED)
            await world.settle()
            return players

    players = asyncio.run(scenario())
    for address in (ALICE, ED):
        subjects = [str(m["Subject"]) for m in players[address].inbox() if "Tournament t1" in str(m["Subject"])]
        assert sorted(subjects) == ["[gm] Tournament t1 is over", "[gm] Tournament t1: Stubb withdrawn"], subjects
    (told,) = [m for m in players[ED].inbox() if str(m["Subject"]) == "[gm] Tournament t1: Stubb withdrawn"]
    assert "You lost two games of tournament t1" in text(told)


def test_gm_tournament_start_closes_the_sign_up_early_and_new_refuses_an_unknown_entrant(tmp_path, capsys):
    async def scenario():
        async with World(tmp_path) as world:
            store, folder = world.daemon.store, world.config.data
            assert main(["tournament", "new", "--data", folder, "--game", "spaceships", "--format", "swiss",
                         "--players", "nobody-by-that-name"]) == 2
            assert "neither a mail address nor anyone's public name" in capsys.readouterr().err
            assert main(["tournament", "new", "--data", folder, "--game", "celestial-empire",
                         "--format", "swiss"]) == 2
            assert main(["tournament", "show", "t1", "--data", folder]) == 2
            status, _ = cli("tournament", "new", "--data", folder, "--game", "gridfighters", "--format", "swiss",
                            "--players", ALICE, BOB, "--signup-until", "2099-01-01T12:00")
            assert status == 0
            await world.settle()
            assert data.rounds(store, "t1") == []
            assert "sign-up closed" in cli("tournament", "start", "t1", "--data", folder)[1]
            world.clock.now = datetime.now(UTC) + timedelta(seconds=1.5)  # `start` closed it by the wall clock
            await world.settle()
            (_, games), = data.rounds(store, "t1")
            late = await world.write_gm(Player(CY, world), "join t1")
            assert main(["tournament", "start", "t1", "--data", folder]) == 2
            return games, text(late)

    games, late = asyncio.run(scenario())
    assert [(g.first, g.second) for g in games] == [(ALICE, BOB)] and games[0].game_id
    assert "tournament t1 has started: sign-up is closed" in late
