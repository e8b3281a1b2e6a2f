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
    """A bot failed: it crashed, returned garbage, or broke the protocol."""


class BotTimeoutError(BotError):
    """A bot exceeded its time limit."""
