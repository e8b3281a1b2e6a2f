"""A plain-Python reference solver, independent of the numba engine, for small positions.

It shares nothing with :mod:`sylver.solver.kernels`: a position is the frozenset of its gaps (legal
moves), a move is played by sieving the gaps in increasing order (n stays a gap iff n - x is neither
0 nor a member of the new semigroup), and outcomes are memoised with ``functools.lru_cache``.  No
theorem is used for pruning.  Used by the differential tests; same call shape as
:func:`sylver.solver.solve`.

>>> from sylver import Position
>>> solve(Position("5, 6")).winning_moves
(19,)
"""

from __future__ import annotations

import functools
import sys
import time

from sylver.position import Outcome, Position
from sylver.solution import Solution
from sylver.solver.engine import check_solvable

MAX_GENUS = 80
"""Largest number of legal moves accepted (the memo grows quickly beyond)."""


def gaps_of(position: Position) -> frozenset[int]:
    """The legal moves of a gcd-1 position, by trial: n is a member iff n - g is, for a generator g."""
    t = position.frobenius_number
    member = [True] + [False] * t
    for n in range(1, t + 1):
        member[n] = any(n >= g and member[n - g] for g in position.generators)
    return frozenset(n for n in range(1, t + 1) if not member[n])


def play(gaps: frozenset[int], x: int) -> frozenset[int]:
    """The gaps left after naming x (x must be one of ``gaps``)."""
    left: set[int] = set()
    for n in sorted(gaps):
        if n < x:
            left.add(n)
        elif n > x and (n - x) in left:
            # n - x is a gap of the new position, hence n is not reachable through x
            left.add(n)
    return frozenset(left)


@functools.cache
def wins(gaps: frozenset[int]) -> bool:
    """Does the player to move win?  Naming 1 loses, so only moves >= 2 are tried."""
    return any(not wins(play(gaps, x)) for x in gaps if x != 1)


def solve(position: Position, *, first: bool = False, **_ignored: object) -> Solution:
    """Same call shape as :func:`sylver.solver.solve` (store, memory, jobs are ignored)."""
    start = time.monotonic()
    check_solvable(position)
    gaps = gaps_of(position)
    if len(gaps) > MAX_GENUS:
        raise ValueError(
            f"{position.braces()} has {len(gaps)} legal moves; the reference solver takes at most "
            f"{MAX_GENUS}"
        )
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(gaps) + 1000))
    try:
        before = wins.cache_info().currsize
        winning = []
        for x in sorted(gaps):
            if x != 1 and not wins(play(gaps, x)):
                winning.append(x)
                if first:
                    break
        states = wins.cache_info().currsize - before
    finally:
        sys.setrecursionlimit(limit)
    return Solution(
        position=position,
        outcome=Outcome.N if winning else Outcome.P,
        winning_moves=tuple(winning),
        complete=not (first and winning),
        frobenius_number=position.frobenius_number,
        states=states,
        seconds=time.monotonic() - start,
        genus=len(gaps),
    )
