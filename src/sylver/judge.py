"""The judge: how one answer ends a game, or that it is a move, under a game's rules.

Every referee asks it: the arena's (:mod:`sylver.arena.referee`, and ``sylver conformance``), the
in-process one (:mod:`sylver.bots.selfplay`), the ``nextMove`` competition's loop
(:func:`sylver.compat.play_next_move`), a recorded game (:meth:`sylver.position.GameRecord.result`,
the game's own rule alone) and a bot's :meth:`sylver.bots.base.Turn.allows`.  The competitions'
deviations from the game are the options of :class:`MoveRules`: a cap (the ``nextMove``
competition), no prime first move (the first King-of-the-Hill rules), the longest answer.

Precedence, when an answer breaks several rules at once — the first that applies is the reason:

1. ``invalid``: not a positive integer, or longer than ``max_digits`` (malformed: there is no
   number to judge, and a longer one would make every later test costly);
2. ``named-one``: 1 ends the game whatever the options;
3. ``illegal``: a sum with multiples of the named numbers, the rule of the game itself
   (:func:`sylver.position.game_rule`);
4. ``prime-first``, then ``above-cap``: the competitions' options, which restrict the legal moves
   further.

Both competitions' own referees test the game's rule before their additions: the King-of-the-Hill
driver tests representability first, and the ``nextMove`` referee loses a bot on a move that is not
in the legal moves before its cap.  So a number both illegal and above the cap is ``illegal``
everywhere.  After the judge, a referee may still refuse a move it could not represent
(``too-large``, the arena's :meth:`sylver.arena.board.Board.unjudgeable`); time and failures of a
bot process (``timeout``, ``crash``, ``protocol``) are decided before an answer is judged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from sylver.position import GameRecord, GameResult, Named, Position, Termination, game_rule
from sylver.theory import is_prime

MAX_ANSWER_DIGITS = 100
"""An answer is an integer of at most this many decimal digits (a longer one is ``invalid``): a
referee must judge each answer at once (e.g. whether a first move is a prime)."""


@dataclass(frozen=True, kw_only=True)
class MoveRules:
    """The rules' options that restrict what a player may name (beyond the game's own rule)."""

    cap: int | None = None
    """The largest number a player may name (the ``nextMove`` competition); None: no cap."""
    no_prime_first: bool = False
    """The first move of a game may not be a prime (the first King-of-the-Hill rules)."""
    max_digits: int | None = MAX_ANSWER_DIGITS
    """The longest answer, in decimal digits; None: any length."""


@dataclass(frozen=True)
class Ending:
    """How an answer ends the game: the loser's reason and its detail."""

    reason: Termination
    detail: str = ""


def too_long(digits: int, *, about: bool = False, limit: int = MAX_ANSWER_DIGITS) -> Ending:
    """The ending of an answer of ``digits`` digits beyond ``limit`` (``about``: its length is
    estimated, as for an answer too long to carry)."""
    return Ending(Termination.INVALID_MOVE, f"answered an integer with {'about ' if about else ''}{digits:,} digits; "
                                            f"answers have at most {limit} digits")


@cache
def _power(digits: int) -> int:
    return 10**digits


def judge(answer: object, named: Named, rules: MoveRules = MoveRules(), *, first_move: bool = False) -> Ending | None:
    """The ending ``answer`` brings in the position ``named`` under ``rules`` (None: it is a move),
    in the order of precedence of this module.  ``first_move``: the game's first answer (the
    no-prime-first rule applies to it)."""
    limit = rules.max_digits
    if limit is not None and isinstance(answer, int) and not isinstance(answer, bool) and abs(answer) >= _power(limit):
        if answer.bit_length() > 13_000:  # past the digits Python converts to text: estimated
            return too_long(int(answer.bit_length() * 0.30103) + 1, about=True, limit=limit)
        return too_long(len(str(abs(answer))), limit=limit)
    end = game_rule(named, answer)
    if end is not None:
        return Ending(*end)
    n = int(answer)  # type: ignore[call-overload]
    if first_move and rules.no_prime_first and is_prime(n):
        return Ending(Termination.PRIME_FIRST, f"{n} is a prime and the first move may not be one")
    if rules.cap is not None and n > rules.cap:
        return Ending(Termination.ABOVE_CAP, f"{n} is above the cap {rules.cap}")
    return None


@dataclass(frozen=True, kw_only=True)
class RefereedGame:
    """A game an in-process referee played to its end (:mod:`sylver.bots.selfplay`,
    :func:`sylver.compat.play_next_move`)."""

    start: tuple[int, ...]
    """The numbers named before the first move, as given."""
    moves: tuple[object, ...]
    """Every answer that counted, the losing one included when there was one."""
    result: GameResult
    spent: tuple[tuple[float, ...], tuple[float, ...]] = field(default=((), ()))
    """Seconds of each call, per seat."""

    @property
    def winner(self) -> int:
        return self.result.winner

    @property
    def reason(self) -> Termination:
        return self.result.reason

    @property
    def detail(self) -> str:
        return self.result.detail

    @property
    def used(self) -> tuple[float, float]:
        """Seconds each seat used in the game."""
        return sum(self.spent[0]), sum(self.spent[1])

    @property
    def history(self) -> tuple[object, ...]:
        """Every number named, the start first, the losing answer last."""
        return self.start + self.moves

    @property
    def record(self) -> GameRecord:
        return GameRecord(Position(self.start), self.moves)


def lost(ply: int, ending: Ending) -> GameResult:
    """The result of a game lost by the player on move at ``ply`` (seat ``ply % 2``) by ``ending``."""
    return GameResult(winner=1 - ply % 2, loser=ply % 2, reason=ending.reason, ply=ply, detail=ending.detail)
