"""Sylver Coinage positions: immutable, canonical, hashable (Sicherman, "Theory and Practice of
Sylver Coinage", Integers 2002, sec. 1).

A position is the set of numbers named so far, identified with the semigroup they generate; its
canonical form is the sorted minimal generators, so ``Position([4, 5, 10, 13]) == Position([4, 5])``.
A number n is a legal move iff n >= 1 and n is not a sum with multiples of the named numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Protocol

from sylver.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, TooLargeError
from sylver.semigroup import GAP_LIST_LIMIT, Semigroup, check_number


class Outcome(Enum):
    """Who wins with perfect play: ``P`` the previous player (the one to move loses), ``N`` the next."""

    P = "P"
    N = "N"

    def __str__(self) -> str:
        return self.value


class Verdict(StrEnum):
    """What a solve answers about a position: its :class:`Outcome` when proven (always for g = 1);
    for g > 1, when not, ``probably-P`` (Sicherman 2002, sec. 2: no odd winning move, and every even
    move is known to lose or gives a long position) or ``unknown``.  The values are the words of
    ``sylver solve --json`` and of the certificates."""

    P = "P"
    N = "N"
    PROBABLY_P = "probably-P"
    UNKNOWN = "unknown"

    @classmethod
    def of(cls, outcome: Outcome | None, probably_p: bool = False) -> Verdict:
        """The verdict of a proven ``outcome``; of None, ``probably-P`` or ``unknown``."""
        if outcome is not None:
            return cls(outcome.value)
        return cls.PROBABLY_P if probably_p else cls.UNKNOWN


class Termination(StrEnum):
    """Why a game ended: the one vocabulary of the library, the arena (``reason`` in its
    ``games.jsonl``, whose codes are the values), its standings, reports and the web page.

    The first three end a game under the rules of the game itself; the others are the arena's
    (its rules' options, time, and a bot that fails).
    """

    NAMED_ONE = "named-one"
    """Named 1 (the normal end of a game)."""
    ILLEGAL_MOVE = "illegal"
    """Named a sum with multiples of the named numbers."""
    INVALID_MOVE = "invalid"
    """Answered something that is not a positive integer (or one too long to carry)."""
    PRIME_FIRST = "prime-first"
    """Named a prime as the first move where the rules forbid it (the first King-of-the-Hill rules)."""
    ABOVE_CAP = "above-cap"
    """Named a number above the rules' cap (the ``nextMove`` competition)."""
    TOO_LARGE = "too-large"
    """Named a legal number after which no referee could judge the game."""
    TIMEOUT = "timeout"
    """Exceeded its time (CPU time, a chess clock, or the wall-clock guard)."""
    CRASH = "crash"
    """Raised, exited, was killed or ran out of memory."""
    PROTOCOL = "protocol"
    """Wrote something that is not a protocol message."""

    @property
    def phrase(self) -> str:
        """Two or three words for people (the web page's ``reason``): ``named 1``, ``illegal move``…"""
        return _PHRASES.get(self, self.value.replace("-", " "))

    @property
    def is_bad_answer(self) -> bool:
        """An answer that breaks the rules (a strike where the rules give several; ``illegal`` in
        the standings)."""
        return self in _BAD_ANSWERS

    @property
    def is_failure(self) -> bool:
        """The bot failed as a program (``crashes`` in the standings)."""
        return self in (Termination.CRASH, Termination.PROTOCOL)


_PHRASES = {Termination.NAMED_ONE: "named 1", Termination.ILLEGAL_MOVE: "illegal move",
            Termination.INVALID_MOVE: "invalid move"}
_BAD_ANSWERS = frozenset({Termination.ILLEGAL_MOVE, Termination.PRIME_FIRST, Termination.ABOVE_CAP,
                          Termination.INVALID_MOVE, Termination.TOO_LARGE})


_SEPARATOR = re.compile(r"\s*[,;]\s*|\s+")
_BRACKETS = {"{": "}", "[": "]", "(": ")"}
MAX_DIGITS = 4000
"""Longest number text that :func:`parse_numbers` converts (Python's int() refuses ~4300 digits)."""


def _short(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:40] + "…" + text[-10:])


def parse_numbers(text: str) -> list[int]:
    """Parse "4, 5", "{4,5}", "[4 5]", "(4;5)" or "" into a list of positive integers.

    Numbers are separated by commas, semicolons or blanks; one pair of brackets may enclose them.
    An empty item (``4,,5``), an unclosed or stray bracket (``{4,5``) is an error.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"expected text, got {type(text).__name__}")
    body = text.strip()
    if body[:1] in _BRACKETS:
        close = _BRACKETS[body[0]]
        if not body.endswith(close):
            raise InvalidPositionError(f"{_short(text)}: {body[0]!r} is not closed by {close!r}")
        body = body[1:-1].strip()
    stray = re.search(r"[{}\[\]()]", body)
    if stray:
        raise InvalidPositionError(f"{_short(text)}: unexpected {stray.group()!r}")
    if not body:
        return []
    numbers = []
    for token in _SEPARATOR.split(body):
        if not token:
            raise InvalidPositionError(f"{_short(text)}: a missing number between two separators")
        digits = token[1:] if token[0] == "+" else token
        if not (digits.isascii() and digits.isdigit()) or int(digits[:MAX_DIGITS]) < 1:
            where = "" if token == body else f" in {_short(text)}"
            raise InvalidPositionError(f"{token[:40]!r}{where} is not a positive integer")
        if len(digits) > MAX_DIGITS:
            raise InvalidPositionError(f"a number with {len(digits):,} digits in the position is too large")
        numbers.append(int(digits))
    return numbers


def format_product_sum(witness: dict[int, int]) -> str:
    """``{4: 2, 5: 1}`` -> ``"4·2 + 5·1"``."""
    return " + ".join(f"{x}·{c}" for x, c in sorted(witness.items())) or "0"


class Position:
    """A Sylver Coinage position (the named numbers, as the semigroup they generate)."""

    __slots__ = ("_sg",)

    def __init__(self, numbers: Iterable[int] | str = ()) -> None:
        if isinstance(numbers, str):
            numbers = parse_numbers(numbers)
        try:
            self._sg = Semigroup(numbers)
        except InvalidMoveError as exc:
            raise InvalidPositionError(str(exc).replace("generator", "number", 1)) from None

    @classmethod
    def parse(cls, text: str) -> Position:
        """``Position.parse("4, 5")``, ``"{4,5}"``, ``"4 5"``; ``""`` or ``"{}"`` is the empty position."""
        return cls(parse_numbers(text))

    @classmethod
    def _from_semigroup(cls, sg: Semigroup) -> Position:
        p = cls.__new__(cls)
        p._sg = sg
        return p

    # -- identity ------------------------------------------------------------------------------
    @property
    def generators(self) -> tuple[int, ...]:
        """The canonical form: the minimal generators, sorted."""
        return self._sg.generators

    @property
    def semigroup(self) -> Semigroup:
        """The semigroup of sums with multiples of the named numbers (its complement: legal moves)."""
        return self._sg

    def __str__(self) -> str:
        return ",".join(map(str, self.generators))

    def braces(self) -> str:
        """The paper's notation: ``{4,5}``."""
        return "{" + str(self) + "}"

    def __repr__(self) -> str:
        return f"Position('{self}')"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.generators == other.generators

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (len(self.generators), self.generators) < (len(other.generators), other.generators)

    def __hash__(self) -> int:
        return hash(self.generators)

    def __reduce__(self) -> tuple[type, tuple[tuple[int, ...]]]:
        return (Position, (self.generators,))

    def __iter__(self) -> Iterator[int]:
        return iter(self.generators)

    def __len__(self) -> int:
        return len(self.generators)

    # -- invariants ----------------------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        """True for the empty position {} (nothing named yet)."""
        return not self.generators

    @property
    def gcd(self) -> int:
        """g(S): the gcd of the named numbers (0 for the empty position)."""
        return self._sg.gcd

    @property
    def is_finite(self) -> bool:
        """True iff finitely many moves are legal, i.e. g = 1."""
        return self.gcd == 1

    @property
    def frobenius_number(self) -> int:
        """t(S): the largest legal move (sec. 1); requires g = 1 (``-1`` once 1 is named)."""
        return self._sg.frobenius_number

    @property
    def tbar(self) -> int | None:
        """t̄(S) = g·t(S ÷ g) (sec. 1); None for the empty position and for {g}."""
        g = self.gcd
        if g == 0 or len(self.generators) == 1:
            return None
        if g == 1:
            return self.frobenius_number
        return g * Position(x // g for x in self.generators).frobenius_number

    @property
    def genus(self) -> int:
        """The number of legal moves (gaps of the semigroup); requires g = 1."""
        return self._sg.genus

    @property
    def is_over(self) -> bool:
        """True once 1 has been named: no moves remain."""
        return self.generators == (1,)

    @property
    def is_terminal(self) -> bool:
        """True iff the only legal move is 1 ({2,3}): the player to move must name 1 and lose."""
        return self.generators == (2, 3)

    # -- moves ---------------------------------------------------------------------------------
    def is_legal(self, n: object) -> bool:
        """Is n a legal move: an integer n >= 1 that is not a sum with multiples?  Non-integers raise."""
        if type(n) is int:
            return n >= 1 and n not in self._sg
        if isinstance(n, bool) or not isinstance(n, int) and not hasattr(n, "__index__"):
            raise InvalidMoveError(f"move {n!r} is not an integer")
        value = int(n)  # type: ignore[call-overload]
        return value >= 1 and value not in self._sg

    def witness(self, n: int) -> dict[int, int] | None:
        """Coefficients showing that n is a sum with multiples (n illegal), or None if n is legal.

        Raises :class:`InvalidMoveError` unless n is a positive integer."""
        return self._sg.representation(check_number(n))

    def witness_text(self, n: int) -> str | None:
        """``"13 = 4·2 + 5·1"`` when n is illegal here, else None."""
        w = self.witness(n)
        return None if w is None else f"{n} = {format_product_sum(w)}"

    def check_move(self, n: object) -> int:
        """Return n as an int if legal, else raise InvalidMoveError / IllegalMoveError (with witness)."""
        value = check_number(n)
        w = self._sg.representation(value)
        if w is not None:
            raise IllegalMoveError(
                f"{value} is illegal in {self.braces()}: {value} = {format_product_sum(w)}", value, w
            )
        return value

    def play(self, n: object) -> Position:
        """The position after naming n (a new Position); raises if n is not a legal move."""
        return Position._from_semigroup(self._sg.add(self.check_move(n)))

    def legal_moves(self, limit: int = GAP_LIST_LIMIT) -> list[int]:
        """All legal moves, sorted (g = 1 only; refuses past ``limit`` moves)."""
        if not self.is_finite:
            raise TooLargeError(f"{self.braces()} has infinitely many legal moves: {self.describe_moves()}")
        return self._sg.gaps(limit)

    @property
    def legal_move_count(self) -> int | None:
        """The number of legal moves, None when infinite."""
        return self.genus if self.is_finite else None

    def describe_moves(self) -> str:
        """A description of the legal moves, finite or infinite."""
        g = self.gcd
        if g == 0:
            return "every positive integer"
        if g == 1:
            count = self.genus
            return f"{count:,} legal move{'s' if count != 1 else ''}, the largest t = {self.frobenius_number:,}"
        reduced = Position(x // g for x in self.generators)
        text = f"infinitely many: every positive integer not divisible by {g}"
        if len(reduced) < 2:
            return text
        count = reduced.genus
        if count <= 8:
            multiples = ", ".join(f"{g * x:,}" for x in reduced.legal_moves())
            return f"{text}, and the multiple{'s' if count != 1 else ''} {multiples} of {g}"
        return f"{text}, and {count:,} multiples of {g} (the largest {g * reduced.frobenius_number:,})"


class Named(Protocol):
    """The named numbers as a judge of answers sees them: a :class:`Position`, or the arena's
    mutable board."""

    def is_legal(self, n: int) -> bool: ...

    def witness_text(self, n: int) -> str | None: ...


def game_rule(named: Named, answer: object) -> tuple[Termination, str] | None:
    """How ``answer`` ends the game by the rule of the game itself (sec. 1), or None for a move.

    In this order: ``invalid`` (not a positive integer; numpy integers count as integers),
    ``named-one``, ``illegal`` (a sum with multiples of the named numbers; the detail is the witness,
    ``13 = 4·2 + 5·1``).  :func:`sylver.judge.judge` adds the competitions' options to it."""
    try:
        n = check_number(answer)
    except InvalidMoveError:
        integer = hasattr(answer, "__index__") and not isinstance(answer, bool)
        return Termination.INVALID_MOVE, f"answered {answer!r}, not {'a positive integer' if integer else 'an integer'}"
    if n == 1:
        return Termination.NAMED_ONE, ""
    if not named.is_legal(n):
        return Termination.ILLEGAL_MOVE, named.witness_text(n) or ""
    return None


@dataclass(frozen=True)
class GameResult:
    """How a game ended: the one result type of every referee (a recorded game, the in-process
    referees, the arena's ``games.jsonl`` record through its ``result``)."""

    winner: int
    """Seat of the winner: 0 moved first, 1 second."""
    loser: int
    """Seat of the loser."""
    reason: Termination
    """Why the loser lost."""
    ply: int
    """The losing turn: the index in ``moves`` of the losing answer (where it would be, when the
    loser gave none: a crash, a timeout)."""
    detail: str = ""
    """E.g. the witness of an illegal move, ``13 = 4·2 + 5·1``."""


@dataclass(frozen=True)
class GameRecord:
    """A game: a start position and the moves named from it, seat 0 first."""

    start: Position = field(default_factory=Position)
    """The position before the first move."""
    moves: tuple[object, ...] = ()
    """The moves in order (kept as given, so an invalid move can be recorded)."""

    def positions(self) -> Iterator[Position]:
        """The position before each legal move, then the one after the last legal move."""
        p = self.start
        yield p
        for n in self.moves:
            if game_rule(p, n) is not None:
                return
            p = p.play(n)
            yield p

    def result(self) -> GameResult | None:
        """The end of the game by the game's own rule (:func:`game_rule`), or None while it is
        unfinished.  Moves after the end raise."""
        p = self.start
        for ply, n in enumerate(self.moves):
            end = game_rule(p, n)
            if end is not None:
                if ply != len(self.moves) - 1:
                    raise ValueError(f"moves continue after the game ended at move {ply + 1}")
                seat = ply % 2
                return GameResult(winner=1 - seat, loser=seat, reason=end[0], ply=ply, detail=end[1])
            p = p.play(n)
        return None
