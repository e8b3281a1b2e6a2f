"""The in-process Bot protocol: a bot sees a :class:`Turn` and names a number.

Bots get their random generator injected (reproducible with a seed) and are told the rules that
constrain their move (the cap, the no-prime-first rule) and the time they may spend.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from sylver.position import GameRecord, Position


@dataclass(frozen=True)
class Turn:
    """Everything a bot may use to choose its move."""

    position: Position
    """The current position (the start and every move so far)."""
    history: tuple[int, ...] = ()
    """The numbers named so far in order, the start's numbers first."""
    time_left: float | None = None
    """Seconds this move may take at most (per-call limit or remaining chess clock); None: unlimited."""
    max_move: int | None = None
    """The largest number the rules allow (the move cap); None: no cap."""
    no_prime_first: bool = False
    """True when this is the first move of a game whose rules forbid a prime first move (seed 001)."""
    extra: dict[str, object] = field(default_factory=dict)
    """Anything else a referee wants to tell (e.g. the seat); bots must not rely on it."""

    def allows(self, n: int) -> bool:
        """Is n legal here and allowed by the rules (cap, no prime first)?"""
        if not self.position.is_legal(n):
            return False
        if self.max_move is not None and n > self.max_move:
            return False
        return not (self.no_prime_first and is_prime(n))


class Bot(ABC):
    """A Sylver Coinage player.  Subclasses set ``name`` and implement :meth:`choose`."""

    name: str = "bot"
    """The built-in name (``random``, ``perfect``, ...)."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random()

    @abstractmethod
    def choose(self, turn: Turn) -> int:
        """The number to name in ``turn.position``."""

    def learn(self, record: GameRecord, seat: int) -> None:  # noqa: B027 - optional hook
        """Called after each game with its record and the seat this bot had (0 moved first)."""


def is_prime(n: int) -> bool:
    """Deterministic primality for any n (Miller–Rabin with the first 12 prime bases: exact below 3.3e24,
    then a strong probable-prime test with many bases)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for p in small:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    bases = small if n < 3_317_044_064_679_887_385_961_981 else small + (41, 43, 47, 53, 59, 61, 67, 71)
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True
