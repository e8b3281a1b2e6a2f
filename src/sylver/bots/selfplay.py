"""A small in-process referee for built-in bots (benchmarks, tests, quick experiments).

Not a sandbox: the arena (:mod:`sylver.arena`) runs untrusted bots in separate processes.  Here both
bots are trusted objects; the referee still enforces the rules — an illegal move, a non-integer, a
move over the cap, a prime first move under the no-prime-first rule, or a move past the time limit
loses — and records why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sylver.bots.base import Bot, Turn
from sylver.position import GameRecord, Position, Termination
from sylver.theory import is_prime


@dataclass(frozen=True)
class Played:
    """The result of one game."""

    winner: int
    """Seat of the winner (0 moved first)."""
    reason: Termination
    """Why the loser lost: named 1, an illegal, invalid, above-cap or prime-first answer, time or a crash."""
    moves: tuple[int, ...]
    """The numbers named, in order."""
    seconds: tuple[float, float]
    """Thinking time used by each seat."""
    detail: str = ""
    """E.g. the witness of an illegal move."""


def play_game(
    bots: tuple[Bot, Bot],
    start: Position | None = None,
    *,
    per_move: float | None = None,
    clock: float | None = None,
    max_move: int | None = None,
    no_prime_first: bool = False,
    max_plies: int = 10_000,
) -> Played:
    """Play one game, seat 0 first, from ``start``; ``per_move`` (s per call) and/or ``clock``
    (s per game, chess clock) limit the time, ``max_move`` caps the numbers."""
    p = start if start is not None else Position()
    history: list[int] = list(p.generators)
    moves: list[int] = []
    used = [0.0, 0.0]
    seat = 0

    def lost(reason: Termination, detail: str = "") -> Played:  # the player to move (seat) lost
        return Played(winner=1 - seat, reason=reason, moves=tuple(moves), seconds=(used[0], used[1]), detail=detail)

    for ply in range(max_plies):
        seat = ply % 2
        limits = [x for x in (per_move, None if clock is None else clock - used[seat]) if x is not None]
        time_left = min(limits) if limits else None
        turn = Turn(
            p, tuple(history), time_left=time_left, max_move=max_move,
            no_prime_first=no_prime_first and ply == 0 and p.is_empty, extra={"seat": seat},
        )
        t0 = time.monotonic()
        try:
            n = bots[seat].choose(turn)
        except Exception as exc:  # a crash is a loss, as in the arena
            return lost(Termination.CRASH, repr(exc))
        spent = time.monotonic() - t0
        used[seat] += spent
        if time_left is not None and spent > time_left:
            return lost(Termination.TIMEOUT, f"{spent:.2f} s")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            return lost(Termination.INVALID_MOVE, repr(n))
        moves.append(n)
        if n == 1:
            return lost(Termination.NAMED_ONE)
        if not p.is_legal(n):
            return lost(Termination.ILLEGAL_MOVE, p.witness_text(n) or "")
        if max_move is not None and n > max_move:
            return lost(Termination.ABOVE_CAP, str(n))
        if turn.no_prime_first and is_prime(n):
            return lost(Termination.PRIME_FIRST, str(n))
        p = p.play(n)
        history.append(n)
    raise RuntimeError(f"no result after {max_plies} plies")


def finish(bots: tuple[Bot, Bot], start: Position, result: Played) -> None:
    """Tell both bots the game is over (their ``learn`` hook)."""
    record = GameRecord(start, result.moves)
    for seat, bot in enumerate(bots):
        bot.learn(record, seat)
