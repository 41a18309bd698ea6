"""The seam between the kernel and a game: the small interface each game implements.

In the spirit of aiosmtpd's handler protocol: the kernel owns mail intake,
tokens, the archive, the lifecycle (phases, deadlines, reminders, forfeits,
when a turn runs, by the game's `TurnPolicy`: `gm.kernel.lifecycle`), press,
draws and resignation; a game owns its notation, what its players' notation
lines do to its own state, what a turn does, and what each seat may see.

To write a game: subclass `GameRules[S]`, ``S`` the type of the game's own
state, set the class attributes (``name``, ``title``, ``seats``,
``policy``, ``templates``...), and write the ten abstract hooks:
`describe_variant`, `new_play`, `invitations`, `is_notation`, `submit`,
`run`, `waiting_for`, `turn`, `status`, `end`; the others have defaults (a
game with a setup phase writes `start` too). Each hook is handed the game
as a read-only `Table[S]` and changes only ``play``, its own state; it
returns typed results (`gm.kernel.values`: `Submitted`, `Turn`, `Notice`),
with time passed in, never read from a clock. Register it in `REGISTRY`
(`gm.games` does so for gm's own games, lazily), where the kernel finds a
game by name: the kernel never imports one.
"""
from __future__ import annotations

import enum
from abc import ABC, abstractmethod
from datetime import datetime
from random import Random
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from . import shown
from .commands import KERNEL_HELP, Command, Mail
from .errors import RecordError
from .outcomes import NextGame, Replayed, Submitted, Turn
from .registry import Registry
from .schema import Step
from .shown import ShownDeadline
from .values import (
    WORDS_EDITION,
    GameEnd,
    Notice,
    Options,
    PlayerMail,
    Reply,
    Seat,
)


class TurnPolicy(enum.Enum):
    """How play proceeds once set up."""

    SIMULTANEOUS = "simultaneous"
    """Every seat sends orders; the turn runs when all are in, or at the
    deadline (Spaceships, Celestial Empire). Deadlines are per turn."""
    ALTERNATING = "alternating"
    """One seat moves at a time (Grid Fighters). Deadlines are per move."""


class Refereed(Protocol):
    """What a game's referee returns: an exit status, and the outcome as
    text or as one JSON document."""

    @property
    def exit_status(self) -> int: ...

    def text(self) -> str: ...

    def json(self) -> str: ...


S = TypeVar("S")
"""A game's own state (``MailGame.play``), which only the game reads."""
S_co = TypeVar("S_co", covariant=True)


class Table(Protocol[S_co]):
    """A game by mail as its rules see it, read only (`gm.kernel.model.MailGame`
    is one): the seats, the variant and options, the edition, what the
    kernel keeps (phase, deadline, outcome, game of a series), and ``play``,
    the game's own state. A game changes ``play`` only; the kernel alone
    changes the rest (`gm.kernel.lifecycle`)."""

    @property
    def id(self) -> str: ...

    @property
    def seats(self) -> tuple[Seat, ...]: ...

    @property
    def variant(self) -> str: ...

    @property
    def options(self) -> Options: ...

    @property
    def edition(self) -> int:
        """The edition of gm's mail rules the game was made under (`gm.kernel.values.EDITION`)."""

    @property
    def play(self) -> S_co:
        """The game's own state, as `GameRules.new_play` made it."""

    @property
    def phase(self) -> str:
        """`SETUP`, `PLAY` or `ENDED` (`gm.kernel.values`)."""

    @property
    def deadline(self) -> datetime | None: ...

    @property
    def shown(self) -> ShownDeadline | None:
        """The deadline the notices built now show (`gm.kernel.shown`)."""

    @property
    def outcome(self) -> GameEnd | None: ...

    @property
    def series(self) -> int:
        """Which game of a series this is (a Spaceships match), from 1."""

    @property
    def turn_of_event(self) -> dict[int, int]:
        """The turn being collected after each event, by the event's number."""

    @property
    def correcting(self) -> set[int]:
        """The seats whose last orders had a line that could not be read:
        the turn waits for their correction (`gm.kernel.correction`)."""

    @property
    def players(self) -> list[int]: ...

    @property
    def turn(self) -> int:
        """The turn (or move) being collected (0 during setup)."""

    def seat(self, player: int) -> Seat: ...

    def others(self, player: int) -> list[Seat]:
        """Every seat but ``player``'s."""


def mailed(game: Table[Any]) -> list[int]:
    """The seats the GM sends mail to: every seat but those the GM's robot
    holds (`Seat.robot`), whose notices the kernel drops unread
    (`gm.kernel.engine`), so a game need not build them. A person's seat
    the robot only stands in for is still mailed (`gm.kernel.takeover`)."""
    return [seat.player for seat in game.seats if not seat.robot]


class GameRules(ABC, Generic[S]):
    """A game as the kernel sees it: subclass it, give the class attributes,
    write the abstract hooks, and override the others where the kernel's
    default does not fit. ``S`` is the type of the game's own state."""

    name: str = ""
    """The game's name in commands, records and archives: ``spaceships``."""
    title: str = ""
    """How mail names it: ``Spaceships``."""
    seats: range = range(2, 3)
    """How many players it takes."""
    policy: TurnPolicy = TurnPolicy.SIMULTANEOUS
    """How play proceeds, which decides when the kernel runs a turn (`gm.kernel.lifecycle`)."""
    default_variant: str = ""
    """The variant of a game made without naming one (`describe_variant`)."""
    orders_word: str = "orders"
    """What a player's notation lines in play are called: "orders", "move"."""
    turn_word: str = "turn"
    """What one step of play is called: "turn", or "move" where players alternate."""
    templates: str = ""
    """The package whose ``templates`` folder holds the game's own templates;
    the kernel's templates (``gm.templates``) are found after them."""
    has_setup: bool = True
    """Whether a game begins with a setup phase; one without (Celestial
    Empire: every empire starts from its home) is in play from the start."""
    completes_at_once_from: int | None = None
    """The first edition in which what a mail completes (the start, a turn)
    takes effect at once, before the mail's later commands (so a ``draw``
    on a later line is offered for the next turn); None: always after them."""
    ended_reply_subject: str | None = None
    """What the reply to a mail that finds the game over, and sets nothing
    going, is called ("This game is over"); None: as any other reply."""
    schema: int = 1
    """The number of the shape of ``S``, the game's state (its fields, and
    theirs): bump it when they change, and say in ``migrations`` how a
    state of the number before is read (`gm.kernel.schema`)."""
    migrations: ClassVar[dict[int, Step]] = {}
    """How a state of each earlier ``schema`` becomes one of the next."""
    forfeit_for_silence: bool = True
    """Whether a seat that misses ``Options.forfeit_after`` deadlines in a
    row forfeits. A game whose seats play on when silent (Celestial Empire's
    standing orders) says no."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """A game's rules pickle as their name (`gm.pbem.state.snapshots`), so that a
        game read back shares the one registered `GameRules` object."""
        return (game_named, (self.name,))

    def template_folders(self, edition: int) -> tuple[str, ...]:
        """The folders of the game's package its templates are read from, for
        a game of ``edition`` (`gm.kernel.values.EDITION`), first found
        first: a game keeps the sheets it was made with, so that its archive
        replays byte for byte. Games made before `WORDS_EDITION` keep the
        words of templates/edition4, which every game made before it has."""
        return ("templates/edition4", "templates") if edition < WORDS_EDITION else ("templates",)

    # Variants and creation

    @abstractmethod
    def describe_variant(self, variant: str) -> str:
        """The variant in words, for invitations and challenges; raises
        ValueError naming what is wrong with an unknown one."""

    @abstractmethod
    def new_play(self, game: Table[S], terms: Any) -> S:
        """The game's own state at creation (kept in ``game.play``).
        ``terms`` are the game's extra creation terms (`creation_terms`)."""

    def creation_terms(self, fields: dict[str, str]) -> Any:
        """Game-specific terms read from a creation event's fields (a
        Spaceships match, for one); None when there are none."""
        return None

    def fresh_terms(self, terms: Any, seed: int) -> Any:
        """The terms of a game being made now, given a ``seed`` drawn at the
        edge (`gm.pbem.archive.creation.fresh_terms`): a game that needs chance (a
        generated map) records the seed in its terms, so that its creation
        event holds it and a replay rebuilds the same game. Called only when
        a game or challenge is requested, never on replay."""
        return terms

    def creation_fields(self, terms: Any) -> list[str]:
        """The creation event's lines for those terms."""
        return []

    def challenge_terms(self, text: str) -> Any:
        """The game's own terms a challenge by mail asks for (a Spaceships
        ``match`` line); None when it asks for none. ValueError, saying what
        is wrong, for terms it cannot read."""
        return None

    def describe_terms(self, terms: Any) -> str:
        """Those terms in words, for the challenge mails ("scored match, 3 games")."""
        return ""

    @abstractmethod
    def invitations(self, game: Table[S], at: datetime) -> list[Notice]:
        """The first mail of each seat, when the game is made: what to send
        (a setup), or, with no setup phase, the first turn's sheet."""

    def default_aliases(self, count: int) -> list[str]:
        """What the seats are called when the operator names none."""
        return [f"Player {n}" for n in range(1, count + 1)]

    def alias_problem(self, alias: str) -> str | None:
        """Why ``alias`` cannot name a seat of this game, or None if it can."""
        return None if alias.strip() else "an alias needs at least one letter"

    # Reading players' mail

    @abstractmethod
    def is_notation(self, first_word: str) -> bool:
        """Whether a line starting with this word is the game's notation
        (setup, orders or a move) rather than a command."""

    def is_notation_comment(self, line: str) -> bool:
        """Whether a comment line (one that starts with ``;``) is the game's
        notation all the same; none is, by default."""
        return False

    keywords: tuple[str, ...] = ()
    """The game's own commands (lower case), beside the kernel's (help,
    status, history, message, draw, resign, games, ...): each line starting
    with one goes to `command`."""

    def command(self, game: Table[S], event: PlayerMail, command: Command, reply: Reply) -> list[Notice]:
        """One of the game's own command lines (`keywords`)."""
        reply.not_understood.append(f"line {command.line}: {command.keyword}: not understood")
        return []

    @abstractmethod
    def submit(self, game: Table[S], event: PlayerMail, mail: Mail, reply: Reply) -> Submitted:
        """A player's notation lines, in the setup or play phase: check them
        and record in the game's own state what is accepted (a setup, the
        orders for the turn, a move made), saying what happened in
        ``reply``. The kernel then does what the submission completes
        (`gm.kernel.lifecycle`): the start once no setup is missing, the
        turn once no orders are (`TurnPolicy.SIMULTANEOUS`), the move's
        announcement at once (`TurnPolicy.ALTERNATING`, by `run`)."""

    def start(self, game: Table[S], at: datetime) -> Turn:
        """Every setup is in: begin play in the game's own state. The
        sheets are built after the kernel set the phase and the deadline."""
        return Turn(lambda: [self.status(game, p, at) for p in game.players])

    @abstractmethod
    def run(self, game: Table[S], at: datetime, missing: list[int]) -> Turn:
        """Run the turn (`TurnPolicy.SIMULTANEOUS`) with the orders in, the
        ``missing`` seats' left out at a deadline; or (`ALTERNATING`) say
        what the move just made did, or, at a deadline, pass the move of
        the ``missing`` seat. ``Turn.end`` when the game ended."""

    def next_game(self, game: Table[S], at: datetime, end: GameEnd) -> NextGame | None:
        """A game of a series ended (``end``): record it in the game's own
        state and, if another game follows, set it up; None, the default,
        for a game that is no series."""
        return None

    def nothing_with_mode(self, game: Table[S], mode: str) -> str:
        """What the reply says of ``orders``/``setup``/``check`` alone."""
        return f"{mode}: there were no moves with it"

    def playing(self, game: Table[S]) -> list[int]:
        """The seats still playing: all of them, unless the game lets a seat
        leave and play on without it (a resigned Celestial Empire empire).
        An agreed draw needs an offer from each of these."""
        return game.players

    @abstractmethod
    def waiting_for(self, game: Table[S]) -> list[int]:
        """Seats whose setup, orders or move the game waits for (from its own
        state): when none, the kernel starts play or runs the turn; at a
        deadline, these missed it."""

    @abstractmethod
    def turn(self, game: Table[S]) -> int:
        """The turn (or move) being collected; 0 while setting up."""

    # What players are told

    def common(self, game: Table[S], player: int, at: datetime | None) -> dict[str, Any]:
        """What every message's header shows that seat. The kernel's own
        templates (``_header.txt``) need no more than this; a game adds its own."""
        return {
            "title": self.title,
            "game": game.id,
            "player": player,
            "alias": game.seat(player).alias,
            "opponent": " and ".join(seat.alias for seat in game.others(player)),
            "variant": game.variant,
            "turn": game.turn,
            "phase": game.phase,
        } | shown.fields(game, at)

    def help_data(self, game: Table[S], player: int, at: datetime) -> dict[str, Any]:
        """The help sheet's data: commands and the game's own notation."""
        return self.common(game, player, at) | {"commands": KERNEL_HELP, "notation": []}

    @abstractmethod
    def status(self, game: Table[S], player: int, at: datetime) -> Notice:
        """The seat's current sheet (``status``, and after a new address),
        holding only what that seat may know."""

    def history(self, game: Table[S], player: int, at: datetime) -> dict[str, Any]:
        """The ``history`` sheet's data: the game so far as the seat may see
        it, also each seat's record for observers at the end; by default the
        header only."""
        return self.common(game, player, at)

    # The end, and the clock

    @abstractmethod
    def end(self, game: Table[S], at: datetime, end: GameEnd) -> Turn:
        """End the game for a reason of the kernel's (resignation, forfeit,
        agreed draw): ``end.losers`` resigned or forfeited. The game scores
        it: ``Turn.end``, with its scores and last turn, is the game's
        outcome, and ``Turn.sheets`` the final words. A game that lets a
        resigned seat play on returns no end, and what it says of it."""

    def draw_lapses(self, game: Table[S]) -> str:
        """When an offer of a draw lapses, in words: "the turn runs"."""
        return "the next move"

    def answer(self, game: Table[S], at: datetime, player: int, text: str) -> list[Notice]:
        """The operator answers ``player`` (`gm answer`): by default the
        player is sent the text; a game that routes questions to the
        operator (`awaiting_operator`) also clears what was answered."""
        return [Notice(player, "answer", "The GM answers you", self.common(game, player, at) | {"text": text})]

    def awaiting_operator(self, game: Table[S]) -> list[str]:
        """What the game waits for the operator to answer, in words (shown by
        `gm show` and the owner's daily summary); none by default."""
        return []

    # The GM's robot

    robot_levels: tuple[str, ...] = ()
    """The levels of the GM's robot for this game, weakest first; none when
    the game has no robot. A seat the robot holds (`Seat.robot`) is sent no
    mail: it plays through `robot_text`."""

    take_over_after: int = 0
    """The `Options.take_over_after` of a game made without saying (``gm
    new``, a challenge): how many deadlines in a row a person may miss
    before the robot plays their seat (`gm.kernel.takeover`); 0: never."""

    def robot_text(self, game: Table[S], player: int, level: str, rng: Random) -> str | None:
        """What the robot holding ``player``'s seat sends now, as the text of
        a player's mail (its setup, orders or move), chosen from what that
        seat may see only, with ``rng`` its only chance; None when it has
        nothing to send. Called at the edge (`gm.pbem.master.robots`) when the game
        waits for the seat, never on replay: the text is archived as an
        event, and is applied as that seat's mail."""
        return None

    def referee(self, record: str) -> Refereed:
        """Referee a whole record of this game (``gm referee``)."""
        raise RecordError(f"{self.title or self.name} has no record format gm can referee")

    # The public web archive (`gm.web`)

    def web_page(self, game: Table[S]) -> dict[str, Any] | None:
        """What the public page of a finished game shows beyond the kernel's
        result and standings, for the game's own ``web_game.html`` template
        (`gm.web.pages`): every seat's position after each turn, revealed,
        and each turn's announcements, naming seats by alias only (never an
        address, a token, or a player's own words). None, the default: the
        kernel's page, with the result and the final standings only."""
        return None

    def web_public(self, game: Table[S]) -> dict[str, Any] | None:
        """What the web archive shows of a game in progress whose players
        agreed to show it after each turn (`Options.public_each_turn`): only
        what an observer may know during play (`gm.kernel.observers`), what
        both players were told of completed turns, never a seat's hidden
        state: ``{"turns": [{"title": ..., "lines": [...]}, ...]}``, one entry
        a completed turn (or move), which the kernel's ``web_public.html``
        shows. None, the default: the players and the turn being played,
        and nothing more."""
        return None

    def record_text(self, game: Table[S]) -> str | None:
        """A finished game as a record that ``gm referee`` reads and referees
        to the game's result (docs/record-format.md), naming seats by alias
        only: the web archive's download. None, the default, where the game
        has no record format or this game cannot be written as one."""
        return None

    # Commitments (`gm.kernel.commitments`)

    def committed(self, game: Table[S]) -> list[tuple[str, bytes]]:
        """The game's hidden information fixed so far, which the GM commits
        to on every player's mail from now on: each value's label (ASCII, no
        spaces: ``setup-1``) and its canonical serialisation
        (docs/verification.md), in a fixed order. A value, once listed, must
        stay the same to the end of the game. None by default."""
        return []

    def revealed_record(self, game: Table[S]) -> str | None:
        """The whole game that the mail ending it reveals (``X-GM-Record``),
        for ``gm verify`` to play again (`replayed`): `record_text`, by
        default; a game may reveal a record where it has no download."""
        return self.record_text(game)

    def replayed(self, record: str, player: int) -> Replayed | None:
        """A whole record of the game (`record_text`) played again under the
        rules, as ``player`` was told it: the committed values the record
        implies (each side's setup, labelled as `committed` labels them) and
        what each turn's (or move's) sheet said it did, for ``gm verify`` to
        compare with the player's mail. None, the default, where the game
        cannot recompute them from a record. Raises `RecordError` (or
        `NotationError`) for a record it cannot read."""
        return None

    def reminder_what(self, game: Table[S]) -> str:
        """What a reminder asks for: "orders for turn 3"."""
        return "setup" if game.phase == "setup" else f"move {self.turn(game)}"


REGISTRY: Registry[GameRules[Any]] = Registry()
"""The games this process hosts: `gm.games` adds those gm ships."""


def game_named(name: str) -> GameRules[Any]:
    """The game called ``name`` in `REGISTRY` (case does not matter);
    ValueError naming the games there are for any other."""
    return REGISTRY.named(name)
