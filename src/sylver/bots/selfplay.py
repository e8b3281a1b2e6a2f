"""A small in-process referee for built-in bots (benchmarks, tests, quick experiments).

Not a sandbox: the arena (:mod:`sylver.arena`) runs untrusted bots in separate processes.  Here both
bots are trusted objects; the referee still enforces the rules — a crash, a move past the time limit,
then whatever :func:`sylver.judge.judge` finds (a non-integer, 1, an illegal number, a prime first
move under the no-prime-first rule, a number over the cap) loses — and records why.
"""

from __future__ import annotations

import time

from sylver.bots.base import Bot, Turn
from sylver.errors import TooLargeError
from sylver.judge import Ending, MoveRules, RefereedGame, judge, lost
from sylver.position import Position, Termination


def play_game(
    bots: tuple[Bot, Bot],
    start: Position | None = None,
    *,
    per_move: float | None = None,
    clock: float | None = None,
    max_move: int | None = None,
    no_prime_first: bool = False,
    max_plies: int = 10_000,
) -> RefereedGame:
    """Play one game, seat 0 first, from ``start``; ``per_move`` (s per call) and/or ``clock``
    (s per game, chess clock) limit the time, ``max_move`` caps the numbers, ``no_prime_first``
    forbids a prime as the game's first move."""
    first = p = start if start is not None else Position()
    rules = MoveRules(cap=max_move, no_prime_first=no_prime_first)
    history: list[int] = list(p.generators)
    moves: list[object] = []
    spent: tuple[list[float], list[float]] = ([], [])

    def end(ply: int, ending: Ending) -> RefereedGame:
        return RefereedGame(start=first.generators, moves=tuple(moves), result=lost(ply, ending),
                            spent=(tuple(spent[0]), tuple(spent[1])))

    for ply in range(max_plies):
        seat = ply % 2
        limits = [x for x in (per_move, None if clock is None else clock - sum(spent[seat])) if x is not None]
        time_left = min(limits) if limits else None
        turn = Turn(p, tuple(history), time_left=time_left, per_call=clock is None, max_move=max_move,
                    no_prime_first=no_prime_first and ply == 0, extra={"seat": seat})
        t0 = time.monotonic()
        try:
            n = bots[seat].choose(turn)
        except Exception as exc:  # a crash is a loss, as in the arena
            spent[seat].append(time.monotonic() - t0)
            return end(ply, Ending(Termination.CRASH, repr(exc)))
        took = time.monotonic() - t0
        spent[seat].append(took)
        if time_left is not None and took > time_left:
            return end(ply, Ending(Termination.TIMEOUT, f"{took:.2f} s"))
        moves.append(n)
        ending = judge(n, p, rules, first_move=ply == 0)
        if ending is not None:
            return end(ply, ending)
        try:
            p = p.play(n)
        except TooLargeError as exc:  # a legal number after which positions cannot be represented
            return end(ply, Ending(Termination.TOO_LARGE, str(exc)))
        history.append(int(n))
    raise RuntimeError(f"no result after {max_plies} plies")


def finish(bots: tuple[Bot, Bot], game: RefereedGame) -> None:
    """Tell both bots the game is over (their ``learn`` hook)."""
    record = game.record
    for seat, bot in enumerate(bots):
        bot.learn(record, seat)
