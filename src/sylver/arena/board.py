"""The referee's position: a mutable Apéry set updated in place (no copy per move).

:class:`sylver.position.Position` is immutable, so each ``play`` copies the O(m) Apéry array; the
referee owns its board alone and updates it in place with the same numba round-robin kernel.  When a
new number is smaller than the multiplicity, or values would overflow int64, it rebuilds through
:class:`sylver.semigroup.Semigroup` (exact for any size).
"""

from __future__ import annotations

import numpy as np

from sylver.errors import TooLargeError
from sylver.position import Position, format_product_sum
from sylver.semigroup import INT64_SAFE, Semigroup, round_robin_add


class Board:
    """The named numbers of one game with an O(1) legality test."""

    __slots__ = ("named", "_ap", "_m", "_max", "_sg", "_pos")

    def __init__(self, numbers: list[int] | tuple[int, ...] = ()) -> None:
        self.named: list[int] = [int(x) for x in numbers]
        self._pos: Position | None = None
        self._rebuild()

    def _rebuild(self) -> None:
        self._sg = Semigroup(self.named)
        gens = self._sg.generators
        self._ap: np.ndarray | None = None
        self._m = gens[0] if gens else 0
        self._max = gens[-1] if gens else 0
        if len(gens) >= 2:
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
        return n not in self._sg

    def add(self, x: int) -> None:
        """Name x (assumed legal)."""
        self.named.append(x)
        self._pos = None
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

        Walks down the Apéry set (each Apéry element minus some generator is again one), so it costs
        no rebuild even after hundreds of moves.
        """
        if self.is_legal(n):
            return None
        ap = self._ap
        if ap is None:
            return self.position().witness(n)
        m = self._m
        gens = sorted({x for x in self.named if x != m})
        base = int(ap[n % m])
        coeffs = {m: (n - base) // m}
        while base:
            for x in gens:
                prev = base - x
                if prev >= 0 and ap[prev % m] == prev:
                    coeffs[x] = coeffs.get(x, 0) + 1
                    base = prev
                    break
            else:  # pragma: no cover - impossible for a consistent Apéry set
                return self.position().witness(n)
        return {x: c for x, c in sorted(coeffs.items()) if c}

    def witness_text(self, n: int) -> str:
        """``13 = 4·2 + 5·1`` for an illegal n."""
        w = self.witness(n)
        return "" if w is None else f"{n} = {format_product_sum(w)}"
