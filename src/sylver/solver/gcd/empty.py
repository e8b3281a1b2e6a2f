"""The empty position (sec. 2, last paragraphs): :func:`solve_empty`."""

from __future__ import annotations

from sylver.position import Outcome
from sylver.solver.gcd.context import Context, Finding
from sylver.theory import is_prime


def solve_empty(ctx: Context) -> Finding:
    """The empty position (sec. 2, last paragraphs)."""
    primes = [p for p in range(5, 100) if is_prime(p)]
    reason = (
        "N: every prime p >= 5 wins, since {p} is P by Hutchings's p-theorem (sec. 2); listed up to 100. "
        "Every multiple of such a prime loses to the prime.  Of the openings 2^a·3^b: 1 loses at once, "
        "2 loses to 3 and 3 to 2, 4 loses to 6, 6 loses to 4 and 9, 8 loses to 12 and 14, 9 loses to 6, "
        "and 12 loses to 8 (the paper derives {8,12} P from the series {8,12,8n+2,8n+6}); every opening "
        "2^a·3^b greater than 12 is undecided (Conway's prize question)"
    )
    return Finding(outcome=Outcome.N, winning=primes, complete=False, method="theorem", reason=reason)
