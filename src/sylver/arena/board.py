"""The referee's position: a mutable Apéry set updated in place (no copy per move).

:class:`sylver.position.Position` is immutable, so each ``play`` copies the O(m) Apéry array; the
referee owns its board alone and updates it in place with the same numba round-robin kernel.  When a
new number is smaller than the multiplicity, or values would overflow int64, it rebuilds through
:class:`sylver.semigroup.Semigroup` (exact for any size).

When the Apéry set cannot be built (the smallest named number, divided by the gcd, is above
``MAX_MULTIPLICITY``), a position with one or two minimal generators is judged by arithmetic:
n = x·a + y·b with x, y >= 0 has a solution iff g = gcd(a, b) divides n and the least x with
x·(a/g) ≡ n/g (mod b/g) has x·a <= n.  Three or more such generators cannot be judged:
:meth:`Board.unjudgeable` tells the referee before it accepts a move that would lead there.
"""

from __future__ import annotations

import math

import numpy as np

from sylver.errors import TooLargeError
from sylver.position import Position, format_product_sum
from sylver.semigroup import INT64_SAFE, MAX_MULTIPLICITY, Semigroup, apery_witness, round_robin_add


def small_representation(n: int, gens: tuple[int, ...]) -> dict[int, int] | None:
    """Coefficients c >= 0 with Σ c_x·x = n over one or two generators (arithmetic), or None."""
    if n == 0 or not gens:
        return {} if n == 0 else None
    if len(gens) == 1:
        a = gens[0]
        return {a: n // a} if n % a == 0 else None
    a, b = gens
    g = math.gcd(a, b)
    if n % g:
        return None
    a1, b1, n1 = a // g, b // g, n // g
    x = n1 * pow(a1, -1, b1) % b1 if b1 > 1 else 0
    if x * a1 > n1:
        return None
    return {k: c for k, c in ((a, x), (b, (n1 - x * a1) // b1)) if c}


def small_generators(numbers: list[int]) -> tuple[int, ...] | None:
    """The minimal generators of ``numbers`` when there are at most two (found by arithmetic), else None."""
    kept: tuple[int, ...] = ()
    for x in sorted(set(numbers)):
        if kept and small_representation(x, kept) is not None:
            continue
        if len(kept) == 2:
            return None
        kept += (x,)
    return kept


class Board:
    """The named numbers of one game with an O(1) legality test."""

    __slots__ = ("named", "_ap", "_m", "_max", "_sg", "_small", "_pos", "_gcd")

    def __init__(self, numbers: list[int] | tuple[int, ...] = ()) -> None:
        self.named: list[int] = [int(x) for x in numbers]
        self._pos: Position | None = None
        self._gcd = math.gcd(*self.named)
        self._rebuild()

    def _rebuild(self) -> None:
        self._ap: np.ndarray | None = None
        self._small: tuple[int, ...] | None = None
        try:
            self._sg: Semigroup | None = Semigroup(self.named)
        except TooLargeError:
            self._small = small_generators(self.named)
            if self._small is None:
                raise
            self._sg = None
            gens = self._small
        else:
            gens = self._sg.generators
        self._m = gens[0] if gens else 0
        self._max = gens[-1] if gens else 0
        if self._sg is not None and len(gens) >= 2:
            try:
                self._ap = np.array(self._sg.apery_array(), dtype=np.int64)
            except TooLargeError:
                self._ap = None

    def is_legal(self, n: int) -> bool:
        """Is the positive integer n not a sum with multiples of the named numbers?"""
        if n < 1:
            return False
        ap = self._ap
        if ap is not None:
            return n < ap[n % self._m]
        if self._small is not None:
            return small_representation(n, self._small) is None
        return n not in self._sg  # type: ignore[operator]

    def unjudgeable(self, x: int) -> str:
        """Why the position after the legal move x could not be judged any further ("" if it can).

        It can when its Apéry set can be built (smallest named number ÷ gcd at most
        MAX_MULTIPLICITY) or when it has at most two minimal generators."""
        m = min(self.named + [x])
        g = math.gcd(self._gcd, x)
        if m // g <= MAX_MULTIPLICITY or small_generators(self.named + [x]) is not None:
            return ""
        return (f"after {x} the named numbers have three or more minimal generators and the smallest, "
                f"{m}, is more than {MAX_MULTIPLICITY:,} times their gcd {g}: no referee can judge the "
                "next moves")

    def add(self, x: int) -> None:
        """Name x (assumed legal)."""
        self.named.append(x)
        self._pos = None
        self._gcd = math.gcd(self._gcd, x)
        ap = self._ap
        if ap is not None and x > self._m and self._m * max(x, self._max) < INT64_SAFE:
            round_robin_add(ap, x)
            if x > self._max:
                self._max = x
            self._sg = None  # type: ignore[assignment]
        else:
            self._rebuild()

    def position(self) -> Position:
        """The named numbers as an immutable Position (built afresh: for reports only)."""
        if self._pos is None:
            self._pos = Position(self.named)
        return self._pos

    def witness(self, n: int) -> dict[int, int] | None:
        """Coefficients c_x >= 0 with Σ c_x·x = n over the named numbers, or None if n is legal.

        Walks down the board's own Apéry set (:func:`sylver.semigroup.apery_witness`), so it costs
        no rebuild even after hundreds of moves.
        """
        if self.is_legal(n):
            return None
        if self._small is not None:
            return small_representation(n, self._small)
        ap = self._ap
        if ap is None:
            return self.position().witness(n)
        m = self._m
        w = apery_witness(ap, [m] + sorted({x for x in self.named if x != m}), n)
        return dict(sorted(w.items()))

    def witness_text(self, n: int) -> str:
        """``13 = 4·2 + 5·1`` for an illegal n."""
        w = self.witness(n)
        return "" if w is None else f"{n} = {format_product_sum(w)}"
