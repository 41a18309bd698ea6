"""A player's setup or orders, as their mail gives them: read line by line,
checked against the rules, recorded, and what the reply says of them
[2.1], [11.5], [ruling v], [ruling w]. `gm.games.spaceships.mail` hands the
mail's notation lines here (`Spaceships.submit`)."""

from __future__ import annotations

from ...kernel.commands import Mail
from ...kernel.engine import late_for, syntax_data
from ...kernel.errors import NotationError
from ...kernel.outcomes import Did
from ...kernel.protocol import Table
from ...kernel.values import PLAY, SETUP, PlayerMail, Reply
from . import sheets
from .checking import check_orders
from .fleet import SetupError, build_fleet
from .notation import parse_orders, parse_setup
from .orders import Order, format_orders

_SHIP_CODES = ("DS", "KC", "FS", "PC", "MD", "HS", "LS", "AG", "LG", "HF")


def _first_words(notation: str) -> list[str]:
    return [line.split()[0] for line in notation.split("\n") if line.strip()]


def _looks_like_setup(notation: str) -> bool:
    """Every notation line starts with a ship type."""
    words = _first_words(notation)
    return bool(words) and all(w.rstrip("0123456789") in _SHIP_CODES for w in words)


def _looks_like_orders(notation: str) -> bool:
    """No notation line starts with a ship type."""
    words = _first_words(notation)
    return bool(words) and not any(w.rstrip("0123456789") in _SHIP_CODES for w in words)


def setup(game: Table, event: PlayerMail, mail: Mail, reply: Reply) -> Did:
    """A setup sent in the setup phase [2.1]: read, checked against the
    rules' limits, and recorded unless it breaks them or only asks to be
    checked; the reply says which."""
    play = game.play
    player = event.player
    try:
        placements = parse_setup(mail.notation)
    except NotationError as error:
        if _looks_like_orders(mail.notation):
            if player in play.setups:
                reply.not_understood.append("orders: the game has not begun; it begins when "
                                            f"{sheets.opponent(game, player).alias} has sent a setup too")
            else:
                reply.not_understood.append("orders: the game has not begun; send your setup first, one ship per line")
            return Did.REJECTED
        reply.data["syntax"] = syntax_data(error, mail.lines, game.edition)
        reply.subject = lambda: _unread(game)
        reply.data["previous"] = None
        reply.data["had_setup"] = player in play.setups
        reply.not_understood.append(f"your setup: line {error.line}, column {error.column}")
        return Did.REJECTED
    try:
        fleet = build_fleet(placements, play.ruleset, play.additional_costs[player - 1])
    except SetupError as error:
        problems = []
        for problem in error.problems:
            if problem.line is None:
                problems.append(problem.reason)
            else:
                placement = placements[problem.line]
                problems.append(f"line {placement.line}: {placement}: {problem.reason}")
        reply.data["setup"] = {"accepted": False, "problems": problems, "had_setup": player in play.setups}
        reply.subject = lambda: "Your setup breaks the rules"
        reply.not_understood.append("your setup breaks the rules (see below)")
        return Did.REJECTED
    if mail.mode == "check":
        reply.data["setup"] = {"accepted": True, "checked": True, "fleet": fleet.setup_lines()}
        reply.subject = lambda: "Setup checked"
        reply.done.append("checked your setup: it is legal (not submitted, as you asked)")
        return Did.CHECKED
    replaced = player in play.setups
    play.setups[player] = placements
    reply.data["setup"] = {"accepted": True, "fleet": fleet.setup_lines(), "replaced": replaced,
                           "waiting_for_opponent": (3 - player) not in play.setups}
    reply.subject = lambda: "Setup accepted"
    reply.done.append("your setup is accepted" + (", replacing the one you sent before" if replaced else ""))
    return Did.ACCEPTED


def _unread(game: Table) -> str:
    """The reply's subject when the setup or orders could not be read."""
    return "Your setup could not be read" if game.phase == SETUP else f"Turn {game.turn}: your orders could not be read"


def _read_orders_by_line(notation: str) -> tuple[list[Order], list[NotationError]]:
    """Each notation line read on its own: the orders of the lines that can
    be read, and the error of each line that cannot [ruling v]."""
    orders: list[Order] = []
    errors: list[NotationError] = []
    for number, line in enumerate(notation.split("\n"), 1):
        if not line.strip():
            continue
        try:
            orders += parse_orders("\n" * (number - 1) + line)
        except NotationError as error:
            errors.append(error)
    return orders, errors


def late(game: Table, event: PlayerMail, reply: Reply) -> bool:
    """Orders that answer a turn that has run are not taken for the next
    one without a word [ruling w]: the reply says so, and what is in force."""
    answered = late_for(game, event)
    if answered is None:
        return False
    pending = game.play.pending.get(event.player)
    reply.data["late"] = {"answered": answered, "turn": game.turn}
    reply.subject = lambda: f"Turn {answered} had run: your orders were not used"
    reply.data.update(in_force=format_orders(pending) if pending else None, in_force_turn=game.turn)
    reply.ignored.append(f"your orders: they answer turn {answered}, which ran before your mail came, "
                         f"so they were not used for turn {game.turn}")
    return True


def _read_orders_whole(notation: str) -> tuple[list[Order], list[NotationError]]:
    """Edition 1: one unreadable line and the whole mail's orders were none."""
    try:
        return parse_orders(notation), []
    except NotationError as error:
        return [], [error]


def orders(game: Table, event: PlayerMail, mail: Mail, reply: Reply) -> Did:
    """Orders sent in play [11.5]: each line read on its own (edition 2 on),
    checked against what the player may do this turn, and put in force in
    place of all sent before unless none could be read or they are only
    to be checked [ruling v]; the reply says what was taken."""
    play = game.play
    player = event.player
    previous = play.pending.get(player)
    if _looks_like_setup(mail.notation):
        reply.ignored.append("your setup lines: the game has begun, so your fleet can no longer change")
        return Did.REJECTED
    orders, errors = _read_orders_by_line(mail.notation) if game.edition >= 2 else _read_orders_whole(mail.notation)
    if errors:
        reply.data["syntax"] = syntax_data(errors[0], mail.lines, game.edition)
        reply.data["syntax_more"] = [syntax_data(error, mail.lines, game.edition) for error in errors[1:]]
        reply.subject = lambda: _unread(game)
        for error in errors:
            reply.not_understood.append(f"your orders: line {error.line}, column {error.column}")
    if not orders:  # nothing could be read: what was in force stays [ruling v]
        reply.data["previous"] = None if previous is None else format_orders(previous)
        return Did.REJECTED
    assert play.game is not None
    state = play.game.state
    check = check_orders(state.side(player), state.entitlement(player), orders, play.ruleset)
    checked = mail.mode == "check"
    if reply.read:  # what only the reply shows (no one is sent the robot's)
        reply.data.update(orders=sheets.command_history(check), orders_turn=game.turn, checked=checked,
                          next=sheets.next_turn(game, player), accepted_count=len(check.accepted),
                          rejected_count=len(check.rejected))
    turn, unread = game.turn, len(errors)
    said = "checked" if checked else "received"
    some = (f", {len(check.rejected)} rejected" if check.rejected else "") + (
        f", {unread} line{'s' * (unread != 1)} not understood" if unread else "")
    reply.subject = lambda: f"Turn {turn}: orders {said}{some if game.edition >= 2 else ''}"
    if checked:
        reply.done.append(f"checked {len(orders)} order{'s' * (len(orders) != 1)} for turn {game.turn}: not submitted, "
                          "as you asked")
        reply.data["previous"] = None if previous is None else format_orders(previous)
        return Did.CHECKED
    play.pending[player] = orders
    reply.data["replaced"] = previous is not None
    reply.data["waiting_for_opponent"] = (3 - player) not in play.pending
    if (3 - player) in game.correcting:  # only in games that wait for corrected orders (gm.kernel.correction)
        reply.data["opponent_correcting"] = True
    reply.done.append(f"your orders for turn {game.turn}"
                      + (", replacing all you sent before" if previous is not None else ""))
    return Did.ACCEPTED


def in_force(game: Table, player: int, reply: Reply) -> None:
    """Every reply that touches orders ends with those in force now (edition 2 on)."""
    if game.phase == PLAY:
        pending = game.play.pending.get(player)
        reply.data.update(in_force=format_orders(pending) if pending else None, in_force_turn=game.turn)
