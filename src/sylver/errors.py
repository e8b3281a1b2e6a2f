"""The error types of sylver: precise ``ValueError`` subclasses whose messages name the input and why."""

from __future__ import annotations


class InvalidMoveError(ValueError):
    """A move that is not a positive integer (0, -3, 4.5, "abc", True, None, ...)."""


class IllegalMoveError(ValueError):
    """A positive integer that is not legal here: it is a sum with multiples of the named numbers.

    ``witness`` maps each generator to its non-negative coefficient (``{4: 2, 5: 1}`` for 13 in {4,5}).
    """

    def __init__(self, message: str, move: int | None = None, witness: dict[int, int] | None = None):
        super().__init__(message)
        self.move = move
        self.witness = witness or {}


class InvalidPositionError(ValueError):
    """A list of numbers that does not describe a position (empty text, a non-integer, 0, a negative)."""


class TooLargeError(ValueError):
    """A request that would exceed a configured limit (gap list, Apéry-set size, solver memory)."""


class BotError(Exception):
    """A bot failed: it crashed, returned garbage, or broke the protocol.  (A bot that runs out of
    time in a game is no error: the referee records the loss with the reason ``timeout``.)"""


class MemoryBudgetError(TooLargeError):
    """The solver's memory (``--memory``) is far too small for the position: its transposition
    tables, at their cap, keep losing results the search needs, so it recomputes them again and again.

    ``memory`` is the memory given in bytes, ``suggested`` a memory worth trying (bytes), ``expanded`` and
    ``overwrites`` what the search of root move ``move`` had done when it was stopped."""

    def __init__(
        self, message: str, memory: int = 0, suggested: int = 0, expanded: int = 0,
        overwrites: int = 0, move: int | None = None,
    ) -> None:
        super().__init__(message)
        self.memory = memory
        self.suggested = suggested
        self.expanded = expanded
        self.overwrites = overwrites
        self.move = move

    def __reduce__(self) -> tuple:  # keep the fields across processes (--jobs)
        return (
            type(self),
            (str(self), self.memory, self.suggested, self.expanded, self.overwrites, self.move),
        )


class WorkerDiedError(RuntimeError):
    """A worker process of a parallel solve (``jobs > 1`` or a Dask cluster) died: killed by a
    signal (the out-of-memory killer, ``kill -9``) or exited without finishing its task."""


class SelfCheckError(RuntimeError):
    """The solver contradicted itself: it named a winning move, and a fresh search (new tables)
    of the position after that move did not find it P.  No answer is given."""
