"""A straightforward pure-Python implementation of the semigroup operations that
``bench_semigroup.py`` times, for the speed ratio: the same round-robin Apéry-set algorithm
(Böcker & Lipták; the first generator written directly) on plain lists, without numba.  Positions are lists of generators with gcd 1.
"""

from __future__ import annotations

import math

INF = None


def round_robin_add(ap: list[int | None], a: int) -> None:
    """Add generator a to the Apéry set ap (w.r.t. m = len(ap)) in place."""
    m = len(ap)
    step = a % m
    if step == 0:
        return
    d = math.gcd(m, step)
    cycle = m // d
    for p in range(d):
        best, start, r = None, p, p
        for _ in range(cycle):
            if ap[r] is not None and (best is None or ap[r] < best):
                best, start = ap[r], r
            r = (r + step) % m
        if best is None:
            continue
        n, r = best, start
        for _ in range(cycle - 1):
            r = (r + step) % m
            n += a
            if ap[r] is not None and ap[r] < n:
                n = ap[r]
            else:
                ap[r] = n


def apery(gens: list[int]) -> list[int | None]:
    """The Apéry set of <gens> w.r.t. the smallest generator."""
    m = min(gens)
    ap: list[int | None] = [None] * m
    ap[0] = 0
    rest = sorted(gens)[1:]
    if rest:  # the first generator b: Ap[k·b mod m] = k·b
        b = rest[0]
        for k in range(1, m // math.gcd(m, b)):
            ap[k * b % m] = k * b
    for g in rest[1:]:
        round_robin_add(ap, g)
    return ap


def member(ap: list[int | None], n: int) -> bool:
    v = ap[n % len(ap)]
    return v is not None and n >= v


def frobenius_number(ap: list[int | None]) -> int:
    return max(v for v in ap if v is not None) - len(ap)


def genus(ap: list[int | None]) -> int:
    m = len(ap)
    return sum(v // m for v in ap if v is not None)


class Position:
    """Minimal generators and the Apéry set, updated in place by ``play``."""

    def __init__(self, gens: list[int]) -> None:
        self.gens = sorted(gens)
        self.ap = apery(self.gens)

    def is_legal(self, n: int) -> bool:
        return n >= 1 and not member(self.ap, n)

    def play(self, x: int) -> Position:
        new = Position.__new__(Position)
        if x < len(self.ap):
            new.gens = sorted(self.gens + [x])
            new.ap = apery(new.gens)
        else:
            new.ap = list(self.ap)
            round_robin_add(new.ap, x)
            new.gens = sorted(self.gens + [x])
        new.gens = [g for g in new.gens if not any(h < g and member(new.ap, g - h) for h in new.gens)]
        return new
