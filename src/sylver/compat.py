"""Adapters that let any built-in bot play in the seeds' own drivers, unchanged.

* :class:`Seed000Bot` — the King-of-the-Hill Sylver Coinage bot competition: ``Seed000Bot(id)``,
  ``announce(list) -> int`` (the list holds every number named so far, the two random coprime start
  numbers first), ``learn(first, second, list)`` after each game; each call must finish within 20 s.
* :class:`Seed002Bot` — the `nextMove` Sylver Coinage bot competition: ``Seed002Bot()``,
  ``nextMove(moves, remaining, time) -> int`` (the moves so far, the remaining legal moves when
  finitely many, the seconds left on the bot's chess clock); the moves are capped (10^7 in the
  competition; the adapter keeps to 10^6 by default, which is legal under either cap).

Both wrap ``perfect`` unless told otherwise: ``Seed002Bot(bot="greedy")``.

>>> from sylver.compat import Seed002Bot
>>> Seed002Bot().nextMove([], None, 36.0)
5
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from sylver.bots import make_bot
from sylver.bots.base import Bot, Turn
from sylver.position import GameRecord, Position

SEED000_CALL_LIMIT = 20.0
"""Seconds each ``announce`` may take in the King-of-the-Hill competition."""

SEED002_CAP = 10**6
"""Largest number the Seed002Bot adapter names (the competition allows 10^7)."""


def _to_ints(moves: Iterable[int] | None) -> list[int]:
    return [int(x) for x in (moves or [])]


class Seed000Bot:
    """A built-in bot with the interface of the King-of-the-Hill Sylver Coinage bot competition."""

    def __init__(
        self, id: int, bot: str = "perfect", seed: int | None = None, max_move: int | None = None,  # noqa: A002
        **options: object,
    ) -> None:
        self.id = id
        self.bot: Bot = make_bot(bot, random.Random(seed), **options)
        self.max_move = max_move

    def announce(self, list: Iterable[int]) -> int:  # noqa: A002 - the seed's parameter name
        """The number to announce after the numbers in ``list`` (the start pair first)."""
        history = _to_ints(list)
        turn = Turn(Position(history), tuple(history), time_left=SEED000_CALL_LIMIT, max_move=self.max_move)
        return int(self.bot.choose(turn))

    def learn(self, first: int, second: int, list: Iterable[int]) -> None:  # noqa: A002
        """The finished game: ids of the first and second player and every number named."""
        numbers = _to_ints(list)
        start, moves = numbers[:2], numbers[2:]
        seat = 0 if first == self.id else 1
        try:
            self.bot.learn(GameRecord(Position(start), tuple(moves)), seat)
        except ValueError:  # a malformed record from the driver must not crash the bot
            pass


class Seed002Bot:
    """A built-in bot with the interface of the `nextMove` Sylver Coinage bot competition."""

    def __init__(
        self, bot: str = "perfect", seed: int | None = None, max_move: int = SEED002_CAP, **options: object
    ) -> None:
        self.bot: Bot = make_bot(bot, random.Random(seed), **options)
        self.max_move = max_move

    def nextMove(self, moves: Iterable[int] | None, remaining: object = None, time: float | None = None) -> int:  # noqa: N802
        """The move after ``moves``; ``remaining`` (the legal moves, when finite) is not needed,
        ``time`` is the time left on this bot's chess clock in seconds."""
        history = _to_ints(moves)
        turn = Turn(
            Position(history), tuple(history),
            time_left=None if time is None else float(time), max_move=self.max_move,
        )
        return int(self.bot.choose(turn))


__all__ = ["Seed000Bot", "Seed002Bot"]
