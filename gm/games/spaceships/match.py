"""Matches: several games between the same two players [9], [10].

In a scored match each game stands alone and the scores add up [9]. In a
continued match each player's remaining materiel at the end of a game buys
additional ships for the next [10.3]. The players agree when the match ends
[9.3], [10.6]: after a number of games, or once an overall score is reached;
either way only when a game has just ended [9.3.1], [10.6.1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .game import Game
from .orders import Placement
from .ruleset import DEFAULT, Ruleset

SCORED = "scored"
CONTINUED = "continued"


@dataclass(frozen=True)
class MatchTerms:
    """What the players agreed: the kind of match, and when it ends.

    ``games``: the match ends after this many games. ``target``: it ends
    once a player's overall score reaches this (scored matches). At least
    one must be given."""

    kind: str = SCORED
    games: int | None = None
    target: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in (SCORED, CONTINUED):
            raise ValueError(f"a match is {SCORED!r} [9] or {CONTINUED!r} [10], not {self.kind!r}")
        if self.games is None and self.target is None:
            raise ValueError("agree when the match ends: a number of games or a target score [9.3], [10.6]")
        if self.target is not None and self.kind == CONTINUED:
            raise ValueError("a continued match ends after an agreed number of games [10.6]")


def match_over(terms: MatchTerms, scores: list[tuple[int, int]]) -> bool:
    """Whether the agreed end has come, given the scores of the games that
    have ended; asked only just after a game ended [9.3.1], [10.6.1]."""
    if terms.games is not None and len(scores) >= terms.games:
        return True
    overall = (sum(s[0] for s in scores), sum(s[1] for s in scores))
    return terms.target is not None and max(overall) >= terms.target


def match_winner(terms: MatchTerms, scores: list[tuple[int, int]]) -> int | None:
    """Player 1 or 2, or None for a draw. Scored: the larger overall score
    [9.5]. Continued: unless agreed otherwise [10.6], more remaining materiel
    at the end of the last game, which has carried the whole match forward
    (docs/rulings.md, ruling t)."""
    if terms.kind == SCORED:
        a, b = sum(s[0] for s in scores), sum(s[1] for s in scores)
    else:
        a, b = scores[-1]
    return None if a == b else (1 if a > b else 2)


class MatchError(RuntimeError):
    """A game asked of a match that cannot start one now."""


class Match:
    """A match in progress: its terms and its games so far."""

    def __init__(self, terms: MatchTerms, ruleset: Ruleset = DEFAULT):
        self.terms = terms
        self.ruleset = ruleset
        self.games: list[Game] = []

    def additional_costs(self) -> tuple[int, int]:
        """The cost of additional ships each player may add to the next
        game's fleet: none in a scored match [9.2]; in a continued match the
        player's remaining materiel at the end of the last game [10.3]."""
        if self.terms.kind == SCORED or not self.games:
            return (0, 0)
        result = self.games[-1].result
        assert result is not None
        return result.scores

    def start_game(self, setup1: str | Sequence[Placement], setup2: str | Sequence[Placement]) -> Game:
        """Begin the next game with both players' setups, checked against the
        fleet rules and any additional cost [3.7], [10.2]-[10.3]."""
        if self.over:
            raise MatchError("the match is over [9.3], [10.6]")
        if self.games and self.games[-1].result is None:
            raise MatchError("the current game has not ended; a new one starts only after it [9.3.1]")
        game = Game.from_setups(setup1, setup2, self.ruleset, self.additional_costs())
        self.games.append(game)
        return game

    @property
    def overall_scores(self) -> tuple[int, int]:
        """[9.4] the sum of each player's scores in the games that have ended."""
        ended = [g.result for g in self.games if g.result is not None]
        return (sum(r.scores[0] for r in ended), sum(r.scores[1] for r in ended))

    @property
    def over(self) -> bool:
        """The agreed end has come, just as a game ended [9.3.1], [10.6.1]."""
        if not self.games or self.games[-1].result is None:
            return False
        return match_over(self.terms, [g.result.scores for g in self.games])  # type: ignore[union-attr]

    @property
    def winner(self) -> int | None:
        """Player 1 or 2, or None for a draw or a match still going.

        Scored: the larger overall score [9.5]. Continued: the players may
        agree otherwise [10.6], and by default the winner is the one with more
        remaining materiel at the end of the last game, which has carried the
        whole match forward (docs/rulings.md)."""
        if not self.over:
            return None
        return match_winner(self.terms, [g.result.scores for g in self.games])  # type: ignore[union-attr]
