"""The in-process Bot protocol: a bot sees a :class:`Turn` and names a number.

Bots get their random generator injected (reproducible with a seed) and are told the rules that
constrain their move (the cap, the no-prime-first rule) and the time they may spend.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

from sylver.judge import MoveRules, judge
from sylver.position import GameRecord, Position, Termination


@dataclass(frozen=True)
class Turn:
    """Everything a bot may use to choose its move."""

    position: Position
    """The current position (the start and every move so far)."""
    history: tuple[int, ...] = ()
    """The numbers named so far in order, the start's numbers first."""
    time_left: float | None = None
    """Seconds this move may take at most (per-call limit or remaining chess clock); None: unlimited."""
    per_call: bool = False
    """True when ``time_left`` is a limit on this call alone and no chess clock runs (King of the
    Hill: 20 s a call): time the move leaves unused is lost, not saved for later moves.  False:
    ``time_left`` is what is left on a chess clock (or at most that), to be shared with the moves to come."""
    cpu_clock: bool = False
    """True when the referee charges ``time_left`` in CPU seconds of the bot's process (the arena:
    a bot waiting for a CPU on a loaded machine is not charged), so the bot plans in
    ``time.process_time``; False: in wall-clock seconds (the competitions' own referees time each
    call with ``perf_counter``)."""
    max_move: int | None = None
    """The largest number the rules allow (the move cap); None: no cap."""
    no_prime_first: bool = False
    """True when this is the first move of a game whose rules forbid a prime first move (the
    first rules of the King-of-the-Hill Sylver Coinage bot competition)."""
    extra: dict[str, object] = field(default_factory=dict)
    """Anything else a referee wants to tell (e.g. the seat); bots must not rely on it."""

    def allows(self, n: int) -> bool:
        """Is n legal here and allowed by the rules (cap, no prime first)?  1 is (it loses)."""
        if type(n) is int and n > 1 and not self.position.is_legal(n):
            return False  # at once: the referee's judgement would also build the reason's text
        ending = judge(n, self.position, MoveRules(cap=self.max_move, no_prime_first=self.no_prime_first),
                       first_move=True)
        return ending is None or ending.reason is Termination.NAMED_ONE


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
