"""What the paper proves, as fast move-level facts the bots use (shared/seeds/004).

Everything here is a theorem (or a published P-position), never a guess:

* {2,3} is P: the player to move must name 1 (sec. 1).
* Hutchings' p-theorem: {p} is P for every prime p >= 5; so when every named number is a multiple of
  a prime p >= 5 and p is still legal, naming p wins (sec. 1 and 2, "g itself wins").
* Strategy stealing: an ender with t > 1 is N (sec. 1); every coprime pair {m,n} other than {2,3}
  is an ender (Hutchings).  Moving into one hands the opponent a win.
* The published P-positions with g > 1 (sec. 2): {4,6}, {6,9}, {8,12}, {8,14}, {10,16,24},
  {8,10,22}, {12,15,18}, {12,18,21}, {16,22,24,26,28,30,34}, {20,22,24,26,28,36} and the series
  {8,12,8n+2,8n+6}.
* The {4,6} family: {4,6} is P, so every odd move x from it gives an N-position {4,6,x}; then
  {4,6,x,x+2} (both x and x+2 named) is P exactly when x ≡ 1 (mod 4) (induction from {4,5,6,7} = P,
  since its only non-losing moves lead to {4,6,y} or {4,6,x-2,x}).  This gives the winning move in
  {4,6,x} and {4,6,x,x+2} for any odd x, far beyond the reach of exhaustive search.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from sylver.bots.base import is_prime
from sylver.position import Outcome, Position

try:  # the paper's stated results, when the theory module is installed
    from sylver import theory as _theory

    if not hasattr(_theory, "winning_move_to_known_p") or not hasattr(_theory, "known_result"):
        _theory = None  # type: ignore[assignment]
except ImportError:  # pragma: no cover - theory is part of the package
    _theory = None  # type: ignore[assignment]

KNOWN_P: tuple[Position, ...] = tuple(
    Position(g)
    for g in (
        (2, 3),
        (4, 6),
        (6, 9),
        (8, 12),
        (8, 14),
        (10, 16, 24),
        (8, 10, 22),
        (12, 15, 18),
        (12, 18, 21),
        (16, 22, 24, 26, 28, 30, 34),
        (20, 22, 24, 26, 28, 36),
    )
)
"""The P-positions of shared/seeds/004 sec. 1-2 that are not covered by a rule below."""

ENDER_CHECK_LIMIT = 20_000
"""Largest t for which :func:`is_ender` is computed (a bitset of t+1 entries)."""


def prime_factor_at_least_5(n: int) -> int | None:
    """The smallest prime factor p >= 5 of n, or None (n = 2^a·3^b)."""
    while n % 2 == 0:
        n //= 2
    while n % 3 == 0:
        n //= 3
    if n == 1:
        return None
    if is_prime(n):
        return n
    f = 5
    while f * f <= n:
        if n % f == 0:
            return f
        f += 2
    return n


def _series_member(gens: tuple[int, ...]) -> bool:
    """Is this the P-position {8,12,8n+2,8n+6} for some n >= 1?"""
    if len(gens) != 4 or 8 not in gens or 12 not in gens:
        return False
    a, b = sorted(set(gens) - {8, 12})
    return a % 8 == 2 and b == a + 4 and a >= 10


def _four_six(gens: tuple[int, ...]) -> bool | None:
    """P/N of {4,6,x} and {4,6,x,x+2} (x odd >= 5): True for P, None if not of that form."""
    if len(gens) == 3 and gens[:2] == (4, 6) and gens[2] % 2 == 1 and gens[2] >= 5:
        return False
    if len(gens) == 4 and gens[:2] == (4, 6) and gens[2] % 2 == 1 and gens[3] == gens[2] + 2:
        return gens[2] % 4 == 1
    return None


def known_outcome(p: Position) -> bool | None:
    """True if the theory above proves ``p`` is P, False if it proves N, None if it is silent.

    Only cheap tests (no search); for enders see :func:`is_ender`.
    """
    gens = p.generators
    if not gens:
        return False  # any prime >= 5 wins
    if p.is_over:
        return None
    if p in KNOWN_P or _series_member(gens):
        return True
    if _theory is not None and len(gens) <= 8 and gens[-1] <= 10_000:
        stated = _theory.known_result(p)
        if stated is not None:
            return stated.outcome is Outcome.P
    ff = _four_six(gens)
    if ff is not None:
        return ff
    if len(gens) == 1:
        x = gens[0]
        if x >= 5 and is_prime(x):
            return True
        return False if x in (2, 3, 4, 6, 8, 9, 12) or prime_factor_at_least_5(x) else None
    g = p.gcd
    if g > 1:
        q = prime_factor_at_least_5(g)
        if q is not None and q not in gens:
            return False  # naming q leaves {q}
    elif len(gens) == 2:
        return False  # Hutchings: a coprime pair other than {2,3} is an ender
    if 2 in gens and p.is_legal(3) or 3 in gens and p.is_legal(2):
        return False  # the other of 2, 3 leaves {2,3}
    return None


def winning_move_by_theory(p: Position) -> int | None:
    """A move the theory proves winning in ``p`` (one that leaves a proven P-position), or None."""
    gens = p.generators
    if not gens:
        return 5
    if p.is_over or p.is_terminal:
        return None
    g = p.gcd
    if g > 1:
        q = prime_factor_at_least_5(g)
        if q is not None and q not in gens:
            return q
    if 2 in gens and p.is_legal(3):
        return 3
    if 3 in gens and p.is_legal(2):
        return 2
    ff = _four_six(gens)
    if ff is not None:
        x = gens[2]
        step: int | None
        if len(gens) == 3:  # {4,6,x}: name x+2 if x ≡ 1 (mod 4), else x-2
            step = x + 2 if x % 4 == 1 else x - 2
        else:  # {4,6,x,x+2} with x ≡ 3 (mod 4): name x-2
            step = x - 2 if not ff else None
        if step is not None and step >= 5 and p.is_legal(step):
            return step
    if len(gens) <= 8 and gens[-1] <= 10_000:
        if _theory is not None:  # sylver.theory: every P-position the paper states or implies
            found = _theory.winning_move_to_known_p(p)
            if found is not None:
                return int(found[0])
        for known in KNOWN_P:
            for x in known.generators:
                if p.is_legal(x) and p.play(x) == known:
                    return x
        series = _series_move(p)
        if series is not None:
            return series
    return None


def _series_move(p: Position) -> int | None:
    gens = p.generators
    if not set(gens) <= {8, 12} | {x for x in gens if x % 8 in (2, 6)}:
        return None
    for x in gens:
        if x % 8 in (2, 6):
            n = (x - 2) // 8
            for q in (Position((8, 12, 8 * n + 2, 8 * n + 6)),) if n >= 1 else ():
                for y in q.generators:
                    if p.is_legal(y) and p.play(y) == q:
                        return y
    return None


@lru_cache(maxsize=4096)
def is_ender(p: Position) -> bool | None:
    """Is ``p`` (gcd 1) an ender — every legal move other than t eliminates t (sec. 1)?

    Coprime pairs are enders by Hutchings' theorem; otherwise :func:`sylver.theory.is_ender` decides
    (fast at any size).  Without it, a bitset test up to :data:`ENDER_CHECK_LIMIT`, None beyond.
    """
    if not p.is_finite or p.is_over:
        return None
    gens = p.generators
    if len(gens) == 2:
        return True
    if _theory is not None and hasattr(_theory, "is_ender"):
        try:  # sylver.theory decides it from the Apéry set, for positions of any size
            return bool(_theory.is_ender(p))
        except (ValueError, MemoryError):
            pass
    t = p.frobenius_number
    if t > ENDER_CHECK_LIMIT:
        return None
    member = np.ones(t + 1, dtype=bool)
    gaps = np.asarray(p.legal_moves(), dtype=np.int64)
    member[gaps] = False
    for n in gaps[1:-1].tolist():  # skip 1 (eliminates everything) and t itself
        # n eliminates t iff t - k·n is in S for some k >= 1
        if not member[t % n : t - n + 1 : n].any():
            return False
    return True


def proven_n(p: Position) -> bool:
    """True when the theory proves the player to move in ``p`` wins (so never move into ``p``)."""
    if p.is_terminal:
        return False
    verdict = known_outcome(p)
    if verdict is not None:
        return not verdict
    if p.is_finite and not p.is_over and p.frobenius_number > 1:
        return bool(is_ender(p))
    return False


__all__ = [
    "ENDER_CHECK_LIMIT",
    "KNOWN_P",
    "is_ender",
    "known_outcome",
    "prime_factor_at_least_5",
    "proven_n",
    "winning_move_by_theory",
]
