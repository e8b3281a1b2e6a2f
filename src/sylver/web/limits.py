"""What one request may ask of the server (:class:`Limits`, validated when made) and the checks of a
request against them, which answer an :class:`ApiError`.

The sizes (:meth:`Limits.size_numbers`, :meth:`Limits.size_game`) are checked on the event loop, in
constant time (the length of a text, of a list); the rest (parsing, the numbers' values) in the jobs.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from sylver.errors import InvalidPositionError
from sylver.position import Position, parse_numbers


class ApiError(Exception):
    """An error answer: HTTP status, a short machine code, a one-line message and extra fields."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def __reduce__(self) -> Any:  # it crosses from worker processes
        return (_api_error, (self.status, self.code, self.message, self.extra))


def _api_error(status: int, code: str, message: str, extra: dict[str, Any]) -> ApiError:
    return ApiError(status, code, message, **extra)


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server (all configurable with ``sylver serve`` options).
    Checked when made: a count below its least value, a time that is not a positive number of
    seconds or a memory budget the solver cannot read is a one-line ValueError."""

    max_number: int = 10**12
    """Largest number accepted in a position or as a move (JSON numbers stay exact below 2^53)."""
    max_multiplicity: int = 2_000_000
    """Largest smallest-named-number of a position with two or more numbers (its Apéry set has that
    many entries, 8 bytes each)."""
    max_work: int = 400_000_000
    """Largest (count of numbers) × (smallest number) of a position given at once: building it
    costs about that many steps (a few seconds at the limit)."""
    max_body: int = 128 * 1024
    """Largest request body in bytes (a 2,000-move game is about 30 KB, a tournament's record of it
    with the times about 60 KB); a larger one is refused before it is read."""
    max_numbers: int = 2_000
    """Most numbers in a position given at once (a start, a position to analyse); as text at most
    16 characters per number.  Checked before the text is parsed."""
    max_moves: int = 2_000
    """Longest move list a request may carry."""
    max_cells: int = 5_000
    """Most numbers whose legality one request lists (the grid pages through larger ranges)."""
    max_pile_digits: int = field(default_factory=lambda: sys.get_int_max_str_digits() or 4_300)
    """Most digits of a Wythoff pile: the library is exact for any size, and reads and writes
    numbers of up to Python's integer-to-text limit (4,300 digits by default)."""
    max_cold: int = 10_000
    """Largest limit for the list of Wythoff cold positions."""
    bot_time: float = 3.0
    """Seconds a bot may think about one move."""
    solve_time: float = 5.0
    """Most seconds the solver may spend on one request."""
    job_time: float = 10.0
    """Hard limit in seconds for any one job (answer 504 past it)."""
    solve_memory: int | str = "256M"
    """Memory of the solver's tables for one request: bytes, or a size as ``--memory`` takes it
    (``sylver serve --solve-memory``, read by :func:`sylver.cli.common.memory_size`, gives bytes)."""
    workers: int = 2
    """Position processes, bot processes (plus one solver process) and file-reading threads."""
    queue: int = 64
    """Jobs that may wait for a worker; more get ``503 busy``."""
    store: str | None = None
    """The results store the solver reads and writes (``sylver serve --store``: an SQLite file or
    a PostgreSQL URL), or None.  Not public: a URL may hold a password."""
    campaigns: tuple[str, ...] = ()
    """The campaign directories the page shows (``sylver serve --campaign``): the research board
    reads their ledgers.  Not public: paths of the server's disk."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "int":
                least = 0 if f.name == "queue" else 1
                if not isinstance(value, int) or isinstance(value, bool) or value < least:
                    raise ValueError(f"{f.name}: {value!r} is not an integer >= {least}")
            elif f.type == "float":
                if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
                    raise ValueError(f"{f.name}: {value!r} is not a positive number of seconds")
        from sylver.machine import parse_memory

        parse_memory(self.solve_memory)  # a bad budget: the library's one-line ValueError

    @property
    def max_text(self) -> int:
        """Longest position text accepted (16 characters per number)."""
        return 16 * self.max_numbers

    def public(self) -> dict[str, Any]:
        """The limits as a JSON object (shown by ``/api/info``); the solver's memory in the form
        ``--solve-memory`` takes (``"256M"``), whether it was given in bytes or as a size."""
        from sylver.machine import format_memory, parse_memory

        shown = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("store", "campaigns")}
        shown["solve_memory"] = format_memory(parse_memory(self.solve_memory))
        return shown

    # -- the checks of a request --------------------------------------------------------------
    def size_numbers(self, raw: Sequence[int] | str, what: str) -> None:
        """Refuse a position longer than the limits before anything reads it."""
        if isinstance(raw, str):
            if len(raw) > self.max_text:
                raise ApiError(
                    422, "too_large",
                    f"{what}: {len(raw):,} characters; at most {self.max_text:,} ({self.max_numbers:,} numbers)",
                )
        elif len(raw) > self.max_numbers:
            raise ApiError(422, "too_large", f"{what}: {len(raw):,} numbers; at most {self.max_numbers:,}")

    def size_game(self, start: Sequence[int] | str, moves: Sequence[int]) -> None:
        """Refuse a game longer than the limits before anything reads it."""
        self.size_numbers(start, "start")
        if len(moves) > self.max_moves:
            raise ApiError(422, "too_large", f"moves: {len(moves):,} moves; at most {self.max_moves:,}")

    def numbers(self, raw: Sequence[int] | str, what: str) -> tuple[int, ...]:
        """A position given at once, as a list or as text: parsed (in linear time) and checked."""
        self.size_numbers(raw, what)
        if isinstance(raw, str):
            try:
                numbers: Sequence[int] = parse_numbers(raw)
            except InvalidPositionError as exc:
                raise ApiError(422, "invalid_position", f"{what}: {exc}") from None
            self.size_numbers(numbers, what)
        else:
            numbers = raw
        return self._check_numbers(numbers, what)

    def _check_numbers(self, numbers: Sequence[int], what: str) -> tuple[int, ...]:
        for x in numbers:
            if x < 1:
                raise ApiError(422, "invalid_position", f"{what}: {x} is not a positive integer")
            if x > self.max_number:
                raise ApiError(422, "too_large", f"{what}: {x} exceeds the server's limit {self.max_number}")
        distinct = len(set(numbers))
        if distinct >= 2 and min(numbers) > self.max_multiplicity:
            raise ApiError(
                422,
                "too_large",
                f"{what}: the smallest number {min(numbers)} exceeds the server's limit {self.max_multiplicity} "
                "(a position's work grows with its smallest number)",
            )
        if distinct >= 2 and distinct * min(numbers) > self.max_work:
            raise ApiError(
                422,
                "too_large",
                f"{what}: {distinct} numbers with smallest {min(numbers)} are more work than the server allows "
                f"(count × smallest ≤ {self.max_work})",
            )
        return tuple(numbers)

    def game(self, start: Sequence[int] | str, moves: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The start and the moves of a request, checked (not yet replayed)."""
        numbers = self.numbers(start, "start")
        if len(moves) > self.max_moves:
            raise ApiError(422, "too_large", f"moves: {len(moves):,} moves; at most {self.max_moves:,}")
        return numbers, self._check_moves(numbers, moves)

    def _check_moves(self, start: tuple[int, ...], moves: Sequence[int]) -> tuple[int, ...]:
        """Each move a positive integer within the limit, and no position on the way with a smallest
        number above ``max_multiplicity`` (the smallest named number only decreases, so the first
        position with two distinct numbers is the one to check)."""
        distinct = set(start)
        smallest = min(start, default=None)
        for i, x in enumerate(moves):
            if x < 1:
                raise ApiError(422, "invalid_move", f"moves[{i}]: {x} is not a positive integer")
            if x > self.max_number:
                raise ApiError(422, "too_large", f"moves[{i}]: {x} exceeds the server's limit {self.max_number}")
            if len(distinct) < 2:
                distinct.add(x)
                smallest = x if smallest is None else min(smallest, x)
                if len(distinct) >= 2 and smallest > self.max_multiplicity:
                    raise ApiError(
                        422,
                        "too_large",
                        f"moves[{i}]: naming {x} would build a position whose smallest number {smallest} exceeds "
                        f"the server's limit {self.max_multiplicity}",
                    )
        return tuple(moves)

    def check_size(self, p: Position, move: int) -> None:
        """Refuse a move that would make the position's smallest number larger than the limit."""
        if p.generators and min(p.generators[0], move) > self.max_multiplicity:
            raise ApiError(
                422,
                "too_large",
                f"naming {move} in {p.braces()} would build a position whose smallest number exceeds the "
                f"server's limit {self.max_multiplicity}",
            )
