"""Positions with composite g (sec. 2): :func:`solve_composite`.  A prime factor q ≥ 5 of g wins
({q} is P, Hutchings's p-theorem); otherwise a bounded search among the moves that leave a short
position with prime g."""

from __future__ import annotations

import math
import time

from sylver.position import Outcome, Position
from sylver.solver.gcd.context import Context, Finding, quiet
from sylver.solver.gcd.g2 import solve_g2
from sylver.solver.gcd.prime import solve_prime
from sylver.theory import is_prime, prime_factor_at_least_5

COMPOSITE_SECONDS = 10.0
"""Time given to the bounded search for a winning move in a position with composite g, unless the
solve has a limit of states (``max_states``): then that limit alone bounds it, so that its answer is
the same on any machine (a wall-clock budget spent partly compiling kernels on a cold, loaded machine
once left {8} undecided)."""
SUB_SCAN_LIMIT = 2_001
"""Odd moves scanned for a long g = 2 position met inside a bounded search."""


def solve_composite(position: Position, ctx: Context) -> Finding:
    """Composite g: a prime factor q ≥ 5 wins; otherwise a bounded search (sec. 2)."""
    g = position.gcd
    q = prime_factor_at_least_5(g)
    if q is not None:
        return Finding(outcome=Outcome.N, winning=[q], complete=False, method="theorem",
                       reason=f"{q} wins: it leaves {{{q}}}, which is P by Hutchings's p-theorem (sec. 1, "
                       "sec. 2); the other winning moves are not decided")
    # moves p·z that leave a position with prime g = p; by the Quiet End Theorem (sec. 1) those with
    # z > t(h) and gcd(z, g/p) = 1 leave short positions when h = S ÷ g is a quiet ender (sec. 2:
    # {24,42} = {8,14}×3 and its moves 38, 40, 44, 46, ...)
    h = Position(x // g for x in position.generators)
    family = ""
    if quiet(h):
        t_h = h.frobenius_number
        for p in sorted({p for p in range(2, g + 1) if g % p == 0 and is_prime(p)}):
            zs = [z for z in range(t_h + 1, t_h + 40) if math.gcd(z, g // p) == 1][:4]
            family += (f"; every move {p}·z with z > {t_h} and gcd(z, {g // p}) = 1 "
                       f"({', '.join(str(p * z) for z in zs)}, ...) leaves a short position with g = {p}")
    winning: list[int] = []
    decided_n: list[int] = []
    undecided: list[int] = []
    saved = ctx.deadline
    if ctx.max_states is None:
        budget = time.monotonic() + COMPOSITE_SECONDS
        ctx.deadline = budget if saved is None else min(saved, budget)
    try:
        for x in range(2, ctx.search_limit + 1):
            if x in position.semigroup:
                continue
            child = position.play(x)
            cg = child.gcd
            if cg < 2 or not is_prime(cg):
                continue
            hc = Position(y // cg for y in child.generators)
            if not (quiet(hc) or hc.generators == (1,)):
                continue
            if not ctx.time_left():
                undecided.append(x)
                continue
            try:
                cv = (solve_g2(child, ctx, full=False, limit=SUB_SCAN_LIMIT) if cg == 2
                      else solve_prime(child, ctx, full=False))
            except TimeoutError:
                undecided.append(x)
                continue
            if cv.outcome is Outcome.P:
                winning.append(x)
                break
            if cv.outcome is Outcome.N:
                decided_n.append(x)
            else:
                undecided.append(x)
    finally:
        ctx.deadline = saved
    searched = (
        f"the moves up to {ctx.search_limit} that leave a short position with prime g were tried"
        + (f" for {COMPOSITE_SECONDS:g} s at most" if ctx.max_states is None else
           f" within {ctx.max_states:,} states")
        + f": {_list(decided_n)} lose"
        + (f", {_list(undecided)} undecided" if undecided else "")
    )
    if winning:
        reason = (f"{winning[0]} wins: it leaves {position.play(winning[0]).braces()}, which is P; "
                  "the other winning moves are not decided (sec. 2: cases with composite g are "
                  f"generally intractable){family}")
        return Finding(outcome=Outcome.N, winning=winning, complete=False, method="search", reason=reason)
    return Finding(outcome=None, winning=[], complete=False, method="search",
                   reason=f"g = {g}: no theorem decides it, and no winning move was found: {searched}{family}")


def _list(xs: list[int]) -> str:
    return ", ".join(map(str, xs)) if xs else "none"
