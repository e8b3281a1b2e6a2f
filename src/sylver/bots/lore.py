"""What the paper proves, as fast move-level facts the bots use (Sicherman, "Theory and Practice of
Sylver Coinage", Integers 2002; "sec. N" below are its sections).

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

from sylver import theory
from sylver.position import Outcome, Position
from sylver.theory import is_prime, prime_factor_at_least_5


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
    stated = theory.known_result(p)
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
    if len(gens) <= 8 and gens[-1] <= 10_000:  # every P-position the paper states or implies
        found = theory.winning_move_to_known_p(p)
        if found is not None:
            return int(found[0])
    return None


@lru_cache(maxsize=4096)
def is_ender(p: Position) -> bool | None:
    """Is ``p`` (gcd 1) an ender — every legal move other than t eliminates t (sec. 1)?

    Coprime pairs are enders by Hutchings' theorem; otherwise :func:`sylver.theory.is_ender`
    decides from the Apéry set (any size); None when even that is too large.
    """
    if not p.is_finite or p.is_over:
        return None
    if len(p.generators) == 2:
        return True
    try:
        return theory.is_ender(p)
    except ValueError:  # TooLargeError: the Apéry set would not fit
        return None


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
    "is_ender",
    "known_outcome",
    "proven_n",
    "winning_move_by_theory",
]
