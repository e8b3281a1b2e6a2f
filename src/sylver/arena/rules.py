"""Rules presets of the bot competitions and their overrides.

``koth``: the King-of-the-Hill Sylver Coinage bot competition (revised rules): the referee draws two
coprime numbers in [100000, 999999] that count as named; 20 s per call; ``learn`` after every game.
``koth-2020``: its first version: empty start and the first move may not be a prime.
``classic``: the ``nextMove`` Sylver Coinage bot competition as its reference referee plays it: a
given start (default empty), a move cap (1,000,000), a chess clock of 30 s per bot per game, and
``nextMove``'s third argument is the time the bot has used so far in the game (0.0 at its first
move).  ``classic-readme``: the same competition as its README states it: a 36 s clock, the third
argument the time left, moves up to 10,000,000.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from sylver.judge import MoveRules

if TYPE_CHECKING:
    from sylver.arena.openings import Suite

PRESETS = ("koth", "koth-2020", "classic", "classic-readme")

CLASSIC = ("classic", "classic-readme")
"""The presets of the ``nextMove`` competition (its scoring and results columns)."""

TIME_ARGS = ("left", "used")


@dataclass(frozen=True)
class Rules:
    """Everything the referee enforces in one game and the tournament's scoring."""

    preset: str = "koth"
    random_start: tuple[int, int] | None = (100_000, 999_999)
    """Draw two coprime numbers in this range as the start (King of the Hill); None: use ``start``."""
    start: tuple[int, ...] = ()
    """The numbers named before the first move (when ``random_start`` is None)."""
    cap: int | None = None
    """The largest number a bot may name (the ``nextMove`` competition); None: no cap."""
    clock: float | None = None
    """Seconds on each bot's chess clock for a whole game (the ``nextMove`` competition); None: no clock."""
    move_time: float | None = 20.0
    """Seconds a bot may spend on one call (King of the Hill: 20 s); None: no per-call limit."""
    no_prime_first: bool = False
    """The first move of a game may not be a prime (the first King-of-the-Hill rules)."""
    gap_list_limit: int = 1_000_000
    """``nextMove`` bots get the remaining moves when finite and at most this many, else ``[]``."""
    time_arg: str = "left"
    """What a ``nextMove`` bot gets as its third argument: ``"left"``, the seconds it may still use
    (the rest of its clock or the per-call limit, the smaller); ``"used"``, the seconds it has used
    in this game so far (0.0 at its first move), as the ``nextMove`` competition's reference referee
    passes it."""
    penalties: int = 1
    """Illegal answers that lose the game (1: the first; 3: a three-strikes variant)."""
    win_points: float = 3.0
    draw_points: float = 1.0
    loss_points: float = 0.0

    @property
    def move_rules(self) -> MoveRules:
        """The options the judge applies to each answer (:func:`sylver.judge.judge`): the cap and
        the no-prime-first rule; answers of at most :data:`sylver.judge.MAX_ANSWER_DIGITS` digits
        under every preset."""
        return MoveRules(cap=self.cap, no_prime_first=self.no_prime_first)

    def draw_start(self, rng: random.Random) -> tuple[int, ...]:
        """The start of one game: two random coprime numbers (King of the Hill), or the fixed start."""
        if self.random_start is None:
            return tuple(self.start)
        lo, hi = self.random_start
        while True:
            a, b = rng.randint(lo, hi), rng.randint(lo, hi)
            if math.gcd(a, b) == 1:
                return (a, b)

    def to_json(self) -> dict:
        d = asdict(self)
        d["random_start"] = list(self.random_start) if self.random_start else None
        d["start"] = list(self.start)
        return d

    @classmethod
    def from_json(cls, d: dict) -> Rules:
        d = dict(d)
        d["random_start"] = tuple(d["random_start"]) if d.get("random_start") else None
        d["start"] = tuple(d.get("start") or ())
        return cls(**d)

    def describe(self, openings: Suite | None = None) -> str:
        """The rules in one line; with ``openings`` (a tournament's ``--openings``), the starts are
        the suite's, named in place of the rules' own start."""
        parts = [self.preset]
        if openings is not None:
            parts.append(openings.describe())
        elif self.random_start:
            parts.append(f"random coprime start in [{self.random_start[0]}, {self.random_start[1]}]")
        elif self.start:
            parts.append("start {" + ",".join(map(str, self.start)) + "}")
        else:
            parts.append("empty start")
        if self.cap:
            parts.append(f"cap {self.cap:,}")
        if self.clock:
            parts.append(f"clock {self.clock:g} s")
        if self.move_time:
            parts.append(f"{self.move_time:g} s per move")
        if self.no_prime_first:
            parts.append("no prime first move")
        if self.time_arg == "used" or self.preset in CLASSIC:
            parts.append(f"nextMove gets the time {self.time_arg}")
        if self.penalties > 1:
            parts.append(f"{self.penalties} illegal answers lose")
        return ", ".join(parts)


def preset(name: str) -> Rules:
    """The rules of a competition by name (``koth``, ``koth-2020``, ``classic``, ``classic-readme``)."""
    if name == "koth":
        return Rules(preset="koth")
    if name == "koth-2020":
        return Rules(preset="koth-2020", random_start=None, no_prime_first=True)
    if name == "classic":
        return Rules(preset="classic", random_start=None, cap=1_000_000, clock=30.0, move_time=None, time_arg="used")
    if name == "classic-readme":
        return Rules(preset="classic-readme", random_start=None, cap=10_000_000, clock=36.0, move_time=None)
    raise ValueError(f"unknown rules {name!r}; choose one of {', '.join(PRESETS)}")


def make_rules(
    name: str = "koth",
    *,
    start: tuple[int, ...] | None = None,
    cap: int | None = None,
    clock: float | None = None,
    move_time: float | None = None,
    no_prime_first: bool | None = None,
    gap_list_limit: int | None = None,
    penalties: int | None = None,
    time_arg: str | None = None,
) -> Rules:
    """A preset with overrides; ``0`` for ``cap``, ``clock`` or ``move_time`` removes that limit."""
    r = preset(name)
    changes: dict = {}
    if start is not None:
        changes.update(start=tuple(start), random_start=None)
    if cap is not None:
        if cap < 0:
            raise ValueError(f"--cap {cap} must be positive (0: no cap)")
        changes["cap"] = cap or None
    for key, value in (("clock", clock), ("move_time", move_time)):
        if value is not None:
            if not 0 <= value < math.inf:
                raise ValueError(f"--{key.replace('_', '-')} {value} must be a positive number of seconds "
                                 "(0: no limit)")
            changes[key] = value or None
    if no_prime_first is not None:
        changes["no_prime_first"] = no_prime_first
    if gap_list_limit is not None:
        if gap_list_limit < 0:
            raise ValueError("--gap-list-limit must be >= 0")
        changes["gap_list_limit"] = gap_list_limit
    if penalties is not None:
        if penalties < 1:
            raise ValueError("--penalties must be >= 1")
        changes["penalties"] = penalties
    if time_arg is not None:
        if time_arg not in TIME_ARGS:
            raise ValueError(f"--time-arg {time_arg!r}: choose one of {', '.join(TIME_ARGS)}")
        changes["time_arg"] = time_arg
    return replace(r, **changes)
