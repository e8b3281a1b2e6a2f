"""Adapters that let any built-in bot play in the competitions' own referees, unchanged.

* :class:`Seed000Bot` — the King-of-the-Hill Sylver Coinage bot competition: ``Seed000Bot(id)``,
  ``announce(list) -> int`` (the list holds every number named so far, the two random coprime start
  numbers first), ``learn(first, second, list)`` after each game; each call must finish within 20 s.
* :class:`Seed002Bot` — the ``nextMove`` Sylver Coinage bot competition: ``Seed002Bot()``,
  ``nextMove(moves, remaining, time) -> int`` (the moves so far, the remaining legal moves when
  finitely many, a time argument); the moves are capped (10^7 in the competition; the adapter keeps
  to 10^6 by default, which is legal under either cap).

The ``nextMove`` competition's README calls the third argument "the remaining time" on a 36 s chess
clock, but its reference referee passes the time the bot has *already used* in the game (0.0 at its
first move, then the sum of its previous calls' durations) and ends the game when that passes 30 s.
So :class:`Seed002Bot` keeps its own :class:`GameClock` (its own measured time per game, a new game
recognised from the move list, at most 30 s a game) and reads the argument only as a hint whose
meaning it infers (see :meth:`GameClock.start`); it plays the same under either convention and
under a referee that passes nothing.

Both wrap ``perfect`` unless told otherwise: ``Seed002Bot(bot="greedy")``.

>>> from sylver.compat import Seed002Bot
>>> Seed002Bot().nextMove([], None, 0.0)
5
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from typing import Any

from sylver.bots import make_bot
from sylver.bots.base import Bot, Turn
from sylver.bots.oracle import solver_ready
from sylver.bots.perfect import SOLVE_SHARE, PerfectBot
from sylver.judge import Ending, MoveRules, RefereedGame, judge, lost
from sylver.position import GameRecord, Position, Termination

SEED000_CALL_LIMIT = 20.0
"""Seconds each ``announce`` (and ``learn``) may take in the King-of-the-Hill competition."""

SEED002_CLOCK = 30.0
"""Seconds per game the ``nextMove`` competition's reference referee allows (its README says 36 s):
the adapter keeps to the smaller under either convention."""

SEED002_CAP = 10**6
"""Largest number the Seed002Bot adapter names (the competition allows 10^7)."""

RESERVE = 0.05
"""Share of a clock (or per-call limit) the adapters never plan to use: the referee's own overhead
charged to the bot, and a move that overruns its deadline a little."""

LATE = 0.5
"""Seconds a clock's reserve never goes below: a loaded machine delays a move's return past its plan.
A time-limited solve used to return up to 0.65 s late in {41,43} on a quiet Intel Xeon (the solver's
deadline was checked only after a kernel slice that did not finish the search, so a solve of many
small root moves ran to its end); since issue 53 it is checked before every slice, and a solve
returns at most one slice (20,000 states, some hundredths of a second) late.  5 % of a short clock
(0.1 s of 2 s) does not cover such delays; on the competition's clock, 5 % is more."""

MOST_RESERVE = 0.5
"""The reserve grows with the overruns seen (see :class:`GameClock`), up to this share of the clock."""

USED_AT_START = 0.1
"""A hint at most this large at a game's first call reads as time used (it is 0.0 there)."""

LEFT_AT_START = 1.0
"""A hint at least this large at a game's first call reads as time left (time used is 0.0 there)."""

GAP_LIST = 1_000_000
""":func:`play_next_move` lists the remaining moves up to this many (the arena's default limit)."""

WARM_UP = 600.0
"""Seconds the constructor may wait for the solver's compilation (once per process, before any clock
runs; a few seconds when numba's cache is warm)."""


def _to_ints(moves: Iterable[int] | None) -> list[int]:
    return [int(x) for x in (moves or [])]


def _hint(value: object) -> float | None:
    """The time argument as seconds, or None when it is missing or not a finite number >= 0."""
    try:
        t = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return t if math.isfinite(t) and t >= 0 else None


def _make(bot: str, seed: int | None, options: dict[str, object]) -> Bot:
    made = make_bot(bot, random.Random(seed), **options)
    if isinstance(made, PerfectBot):  # compile the solver now, not on the clock of the first game
        solver_ready(wait=WARM_UP)
    return made


class GameClock:
    """A bot's own chess clock for a referee whose time argument may mean anything.

    The bot measures its own calls (``perf_counter``, as the reference referee does) and adds them
    up per game; a call whose move list does not extend the list it last answered (plus its answer)
    starts a new game.  The referee's argument is a *hint*: 0.0 at a game's first call and growing
    by about what the bot spent means time used (left = ``limit`` − hint); near a clock at the first
    call, or shrinking, means time left; until the hints tell, both readings are taken and the
    smaller wins.  The time left is the smaller of the own reckoning and the hint's, less a reserve;
    it never exceeds ``limit`` − own time used, so a game never plans past ``limit`` by the bot's own
    measure.

    The reserve: a bot plans at most :data:`~sylver.bots.perfect.SOLVE_SHARE` of the time it is given
    for one move, and a move can still run over (a time-limited solve returns late).  With a largest
    overrun o, the time left tends to (reserve − o / SOLVE_SHARE) over a long game, so the reserve is
    the largest of :data:`RESERVE` of the clock, :data:`LATE` seconds and o / SOLVE_SHARE (o the largest
    overrun seen so far, in any game), at most :data:`MOST_RESERVE` of the clock.
    """

    def __init__(self, limit: float = SEED002_CLOCK) -> None:
        self.limit = float(limit)
        self.used = 0.0
        """Seconds this bot has spent in the current game (its own measure)."""
        self.convention: str | None = None
        """``"used"``, ``"left"`` or None (not known yet); kept across games (one referee)."""
        self._asked: tuple[int, ...] | None = None
        self._answered: tuple[int, ...] | None = None
        self._last_hint: float | None = None
        self._entered = 0.0
        self._hint: float | None = None
        self._given = 0.0
        self.overrun = 0.0
        """The most a move has taken beyond SOLVE_SHARE of the time it was given (in any game)."""

    def _same_game(self, moves: tuple[int, ...], hint: float | None) -> bool:
        if self._answered is None:
            return False
        if moves == self._asked:  # asked again in the same position (a strike)
            return True
        n = len(self._answered)
        if len(moves) <= n or moves[:n] != self._answered:
            return False
        # the list goes on, but time used restarting at 0.0 is a new game all the same
        return not (self.convention == "used" and hint == 0.0)

    def start(self, moves: Iterable[int], hint: float | None = None) -> float:
        """Call at the start of a move: the seconds this bot may still spend in this game."""
        self._entered = time.perf_counter()
        moves = tuple(moves)
        if not self._same_game(moves, hint):
            self.used, self._last_hint = 0.0, None
        if hint is not None:
            if self._last_hint is None and self.used == 0.0:  # the game's first call
                if hint <= USED_AT_START:
                    self.convention = "used"
                elif hint >= LEFT_AT_START:
                    self.convention = "left"
            elif self._last_hint is not None and hint != self._last_hint:
                self.convention = "used" if hint > self._last_hint else "left"
        self._hint = hint
        own = self.limit - self.used
        if hint is None:
            theirs = own
        elif self.convention == "used":
            theirs = self.limit - hint
        elif self.convention == "left":
            theirs = hint
        else:
            theirs = min(self.limit - hint, hint)
        reserve = min(MOST_RESERVE * self.limit, max(RESERVE * self.limit, LATE, self.overrun / SOLVE_SHARE))
        self._given = max(0.0, min(own, theirs) - reserve)
        return self._given

    def stop(self, moves: Iterable[int], answer: int) -> float:
        """Call when the move is made: books its time (returned) to this game."""
        spent = time.perf_counter() - self._entered
        self.used += spent
        self.overrun = max(self.overrun, spent - SOLVE_SHARE * self._given)
        self._asked = tuple(moves)
        self._answered = self._asked + (answer,)
        self._last_hint = self._hint
        return spent


class Seed000Bot:
    """A built-in bot with the King-of-the-Hill interface: ``announce(list)``, ``learn(first, second, list)``.

    No time is passed; each call keeps to ``call_limit`` (the competition's 20 s) by its own measure."""

    def __init__(
        self, id: int, bot: str = "perfect", seed: int | None = None, max_move: int | None = None,  # noqa: A002
        call_limit: float = SEED000_CALL_LIMIT, **options: object,
    ) -> None:
        self.id = id
        self.bot: Bot = _make(bot, seed, options)
        self.max_move = max_move
        self.call_limit = float(call_limit)

    def announce(self, list: Iterable[int]) -> int:  # noqa: A002 - the competition's parameter name
        """The number to announce after the numbers in ``list`` (the start pair first)."""
        entered = time.perf_counter()
        history = _to_ints(list)
        # the limit is per call; what this call spent before asking the bot is deducted
        left = (1 - RESERVE) * self.call_limit - (time.perf_counter() - entered)
        turn = Turn(Position(history), tuple(history), time_left=max(0.0, left), per_call=True, cpu_clock=False,
                    max_move=self.max_move)  # its own measure: wall-clock time
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
    """A built-in bot with the ``nextMove(moves, remaining, time)`` interface; see :class:`GameClock`."""

    def __init__(
        self, bot: str = "perfect", seed: int | None = None, max_move: int = SEED002_CAP,
        clock: float = SEED002_CLOCK, **options: object,
    ) -> None:
        self.bot: Bot = _make(bot, seed, options)
        self.max_move = max_move
        self.clock = GameClock(clock)

    def nextMove(self, moves: Iterable[int] | None, remaining: object = None, time: object = None) -> int:  # noqa: N802
        """The move after ``moves``; ``remaining`` (the legal moves, when finite) is not needed;
        ``time`` (seconds used, or left, on this bot's clock) is read as a hint."""
        history = _to_ints(moves)
        left = self.clock.start(history, _hint(time))
        # the reference referee times each call with perf_counter: wall-clock time, waiting included
        turn = Turn(Position(history), tuple(history), time_left=left, cpu_clock=False, max_move=self.max_move)
        move = int(self.bot.choose(turn))
        self.clock.stop(history, move)
        return move


def play_next_move(
    bots: Sequence[Any], start: Iterable[int] = (), *, time_arg: str | None = "used",
    clock: float = SEED002_CLOCK, cap: int | None = SEED002_CAP,
) -> RefereedGame:
    """One game between two ``nextMove`` bots, seat 0 first from ``start``, called as the competition
    calls them: ``nextMove(moves, remaining, t)`` with the moves so far (the start first) and the legal
    moves when finitely many (else ``[]``; also past GAP_LIST of them, as the arena), each call timed
    with ``perf_counter``; a seat loses when its time adds up past ``clock``, or by an answer
    :func:`sylver.judge.judge` ends the game with (1, a non-integer, an illegal number, one above
    ``cap``).

    ``time_arg``: ``"used"`` — as the reference referee: t = the seconds this seat has used so far in
    this game (0.0 at its first move); ``"left"`` — as the README: t = ``clock`` − that; None — no
    third argument."""
    first = tuple(int(x) for x in start)
    moves: list[object] = []
    rules = MoveRules(cap=cap)
    spent: tuple[list[float], list[float]] = ([], [])

    def end(ply: int, ending: Ending) -> RefereedGame:
        return RefereedGame(start=first, moves=tuple(moves), result=lost(ply, ending),
                            spent=(tuple(spent[0]), tuple(spent[1])))

    ply = 0
    while True:
        seat = ply % 2
        named = list(first) + [int(x) for x in moves]  # type: ignore[call-overload]
        p = Position(named)
        remaining = p.legal_moves() if p.is_finite and p.genus <= GAP_LIST else []
        t0 = time.perf_counter()
        try:
            if time_arg is None:
                v = bots[seat].nextMove(named, list(remaining))
            else:
                t = sum(spent[seat]) if time_arg == "used" else clock - sum(spent[seat])
                v = bots[seat].nextMove(named, list(remaining), t)
        except Exception as exc:  # noqa: BLE001 - a crash loses, as in the competition
            spent[seat].append(time.perf_counter() - t0)
            return end(ply, Ending(Termination.CRASH, repr(exc)))
        spent[seat].append(time.perf_counter() - t0)
        if sum(spent[seat]) > clock:
            return end(ply, Ending(Termination.TIMEOUT, f"{sum(spent[seat]):.2f} s used of {clock:g} s"))
        moves.append(v)
        ending = judge(v, p, rules)
        if ending is not None:
            return end(ply, ending)
        ply += 1


__all__ = ["GameClock", "Seed000Bot", "Seed002Bot", "play_next_move"]
