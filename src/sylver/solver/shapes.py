"""The finite description of positions reached from a position with g = 2 after an odd move.

Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 2 (the Periodicity
Theorem).  Let S have g = 2 and h = S ÷ 2.  A position T ⊇ S reached by moves that include at least
one odd number has g = 1; write it as its **even part** E = T ∩ 2N (a semigroup containing S, which
we call the *family* of T) and its **odd anchors** a_0 < a_1 < … (the odd minimal generators).  Then
T = <E, a_0, a_1, …>, and with a = a_0 the anchors are a + 2δ for offsets 0 = δ_0 < δ_1 < … in
halves.  Two anchors never differ by an element of E (else the larger is not a generator), so every
δ is a gap of E ÷ 2 and there are at most multiplicity(E ÷ 2) of them.

The pair (family, offsets) is the **shape** of T and a the **height**.  When 2a > F(E) (F(E) = 2·t(E ÷ 2),
the largest even number outside E) any sum of two odd members of T is in E, so the even part of
T is E itself and the legal moves of T are

* the even 2y with y a gap of E ÷ 2: the family becomes <E, 2y>, the offsets that the new family
  makes redundant drop out, and the height stays a;
* the odd a + 2k, k ≥ 1, with k − δ a gap of E ÷ 2 for every offset δ < k and k not an offset: the
  new anchor joins (offsets that it makes redundant drop out), the height stays a;
* the odd a − 2j, j ≥ 1: the new anchor is the least; the old ones with δ + j in E ÷ 2 drop out, so
  the offsets become {0} ∪ {δ + j : δ + j a gap of E ÷ 2}, and the height becomes a − 2j.  Once
  j > t(E ÷ 2) every old anchor drops out: the position is E + (a − 2j), the family's own odd move.

So the moves of a position of a given shape do not depend on its height (**translation
invariance**), and from S + x (x odd) only finitely many shapes are reachable: this module builds
that finite graph.  :mod:`sylver.solver.periodic` scans the heights upward over it.
"""

from __future__ import annotations

import functools
import time
from array import array
from dataclasses import dataclass, field

import numpy as np

from sylver.position import Position


def gap_mask(h: Position) -> int:
    """Bit n set iff n ≥ 1 is a gap of the numerical semigroup ``h`` (gcd 1); 0 for {1}."""
    if h.generators == (1,):
        return 0
    mask = 0
    for n in h.semigroup.gaps():
        mask |= 1 << n
    return mask


def close(gaps: int, y: int) -> int:
    """The gap mask of <E ÷ 2, y> from the gap mask of E ÷ 2 (y a gap): members closed under +y."""
    top = gaps.bit_length()
    full = (1 << top) - 1
    members = full & ~gaps
    members |= 1 << y
    s = y
    while s < top:
        members |= (members << s) & full
        s <<= 1
    return gaps & ~members


def set_bits(mask: int) -> list[int]:
    """The positions of the 1 bits of ``mask``, least first."""
    out = []
    n = 0
    while mask:
        if mask & 1:
            out.append(n)
        mask >>= 1
        n += 1
    return out


def reduce_offsets(offsets: int, gaps: int) -> int:
    """Drop the offsets made redundant in the family with gap mask ``gaps`` (bit 0 stays)."""
    kept: list[int] = []
    for d in set_bits(offsets):
        if all((gaps >> (d - e)) & 1 for e in kept):
            kept.append(d)
    out = 0
    for d in kept:
        out |= 1 << d
    return out


def up_moves(offsets: int, gaps: int) -> int:
    """Bit k set iff a + 2k is a legal odd move above the least anchor a (k ≥ 1)."""
    legal = -1
    for d in set_bits(offsets):
        legal &= (gaps << d) | ((1 << d) - 1)
    return legal & ~1 & ((1 << (offsets.bit_length() + gaps.bit_length() + 1)) - 1)


@functools.lru_cache(maxsize=1 << 14)
def family_generators(gaps: int) -> tuple[int, ...]:
    """The generators of E (even numbers) for the gap mask of E ÷ 2 (memoised: the base region asks
    for them once per (shape, height))."""
    if gaps == 0:
        return (2,)
    top = gaps.bit_length()  # t + 1
    return Position(2 * n for n in range(1, 2 * top + 2) if not (gaps >> n) & 1).generators


@dataclass
class ShapeGraph:
    """The shapes reachable from S + x (x odd, x large) for a position S with g = 2, in an order in
    which every move that keeps the height leads to an earlier shape.

    Shape i has family ``fam[i]`` and offsets ``offsets[i]`` (bit δ set for each offset, in halves);
    ``T[i]`` is t(E ÷ 2) of its family (0 for E = 2N).  Moves keeping the height: ``same_idx[same_ptr[i]:
    same_ptr[i+1]]`` (child shapes); moves down by 2j (1 ≤ j ≤ T[i]): ``down_j``/``down_idx`` over
    ``down_ptr``.  Family f has the gap mask ``fam_gaps[f]`` (of E ÷ 2), the shape ``fam_root[f]``
    (offsets {0}: the position E + x), and its even moves ``fam_even[f]`` (y, child family).
    """

    position: Position
    fam_gaps: list[int]
    fam_T: np.ndarray
    fam_root: np.ndarray
    fam_even: list[list[tuple[int, int]]]
    fam: np.ndarray
    offsets: list[int]
    T: np.ndarray
    same_ptr: np.ndarray
    same_idx: np.ndarray
    down_ptr: np.ndarray
    down_j: np.ndarray
    down_idx: np.ndarray
    root: int = 0
    fam_index: dict[int, int] = field(default_factory=dict, repr=False)

    @property
    def shapes(self) -> int:
        return len(self.offsets)

    @property
    def families(self) -> int:
        return len(self.fam_gaps)

    @property
    def edges(self) -> int:
        return int(self.same_idx.shape[0] + self.down_idx.shape[0])

    def concrete(self, shape: int, height: int) -> Position:
        """The position of shape ``shape`` at odd height ``height``: <E, height + 2δ for each offset>."""
        gens = list(family_generators(self.fam_gaps[int(self.fam[shape])]))
        gens += [height + 2 * d for d in set_bits(self.offsets[shape])]
        return Position(gens)

    def family_position(self, f: int) -> Position:
        """The position E (g = 2) of family f."""
        return Position(family_generators(self.fam_gaps[f]))

    def nbytes(self) -> int:
        arrays = (self.fam, self.T, self.same_ptr, self.same_idx, self.down_ptr, self.down_j, self.down_idx)
        return int(sum(a.nbytes for a in arrays))


BUILD_BYTES_PER_SHAPE = 640
"""What building the graph holds per shape (its key, index entry and moves that keep the height),
about: the measured peak of :func:`build` is below this plus ``BUILD_BYTES_PER_MOVE`` per move."""
BUILD_BYTES_PER_MOVE = 12
"""Bytes per move down while building (4) and in the finished graph (8)."""
BUILD_BYTES_PER_EVEN_MOVE = 96
"""Bytes per even move of a family (a Python tuple (y, family) in a list)."""


def _short(position: Position) -> str:
    g = position.generators
    if len(g) <= 8:
        return position.braces()
    return "{" + ",".join(map(str, g[:3])) + ",…," + str(g[-1]) + f"}} ({len(g)} generators)"


def build(position: Position, deadline: float | None = None, memory: int | None = None) -> ShapeGraph:
    """The shape graph of a position with g = 2 (see the module docstring); TimeoutError past
    ``deadline`` (a time.monotonic() value); :class:`~sylver.errors.TooLargeError` when the graph
    would need more than ``memory`` bytes (estimated with ``BUILD_BYTES_PER_SHAPE`` and
    ``BUILD_BYTES_PER_MOVE`` as it grows)."""
    if position.gcd != 2:
        raise ValueError(f"{position.braces()} has gcd {position.gcd}, not 2")
    b = _Builder(position, memory)
    b.explore_families()
    b.explore_shapes(deadline)
    return b.graph()


class _Builder:
    """The state of :func:`build`: the families (by the gap mask of E ÷ 2) and the shapes (family,
    offsets) found so far, with their moves."""

    def __init__(self, position: Position, memory: int | None) -> None:
        self.position = position
        self.memory = memory
        self.h = Position(x // 2 for x in position.generators)
        self.fam_index: dict[int, int] = {}
        self.fam_gaps: list[int] = []
        self.fam_even: list[list[tuple[int, int]]] = []
        self.fam_todo: list[int] = []
        self.index: dict[tuple[int, int], int] = {}
        self.keys: list[tuple[int, int]] = []
        self.children: list[tuple[list[int], array]] = []
        self.todo: list[int] = []
        self.moves = 0  # moves down counted so far
        self.even_moves = 0  # even moves of the families counted so far
        self.root_moves = 0  # moves down of the families' own shapes
        self.family(gap_mask(self.h))

    def too_large(self) -> None:
        # each family's own shape (offsets {0}) will have t(E ÷ 2) moves down: counted in advance
        need = ((len(self.keys) + len(self.fam_gaps)) * BUILD_BYTES_PER_SHAPE
                + max(self.moves, self.root_moves) * BUILD_BYTES_PER_MOVE
                + self.even_moves * BUILD_BYTES_PER_EVEN_MOVE)
        if self.memory is not None and need > self.memory:
            from sylver.errors import TooLargeError
            from sylver.solver.engine import format_memory

            h = self.h
            raise TooLargeError(
                f"the shape graph of {_short(self.position)} needs more than {format_memory(self.memory)} "
                f"({len(self.fam_gaps):,} families and {len(self.keys):,} shapes so far; "
                f"S ÷ 2 has multiplicity {h.generators[0]} and {len(h.semigroup.gaps()) if h.generators != (1,) else 0} gaps): "
                f"use a larger --memory (the scan gets half of it)"
            )

    def family(self, gaps: int) -> int:
        f = self.fam_index.get(gaps)
        if f is None:
            f = self.fam_index[gaps] = len(self.fam_gaps)
            self.fam_gaps.append(gaps)
            self.fam_even.append([])
            self.fam_todo.append(f)
            self.root_moves += max(gaps.bit_length() - 1, 0)
        return f

    def shape(self, f: int, offsets: int) -> int:
        key = (f, offsets)
        i = self.index.get(key)
        if i is None:
            i = self.index[key] = len(self.keys)
            self.keys.append(key)
            self.children.append(([], array("i")))
            self.todo.append(i)
        return i

    def explore_families(self) -> None:
        """Every family reached by even moves (iteratively: chains can be long)."""
        while self.fam_todo:
            f = self.fam_todo.pop()
            gaps = self.fam_gaps[f]
            self.fam_even[f] = [(y, self.family(close(gaps, y))) for y in set_bits(gaps)]
            self.even_moves += len(self.fam_even[f])
            self.too_large()

    def explore_shapes(self, deadline: float | None) -> None:
        """Every shape reached from S + x, with its moves."""
        self.shape(0, 1)
        while self.todo:
            if len(self.keys) % 512 == 0:
                if deadline is not None and time.monotonic() > deadline:
                    raise TimeoutError(f"the shape graph of {self.position.braces()} was not built in time")
                self.too_large()
            i = self.todo.pop()
            f, offsets = self.keys[i]
            gaps = self.fam_gaps[f]
            same: set[int] = set()
            for _y, g in self.fam_even[f]:
                same.add(self.shape(g, reduce_offsets(offsets, self.fam_gaps[g])))
            for k in set_bits(up_moves(offsets, gaps)):
                # offsets d > k with d - k in E ÷ 2 become redundant
                kept = 1 << k
                for d in set_bits(offsets):
                    if d < k or (gaps >> (d - k)) & 1:
                        kept |= 1 << d
                same.add(self.shape(f, kept))
            # the move down by 2j, j = 1 .. t(E ÷ 2), leads to down[j - 1]
            down = array("i", (self.shape(f, ((offsets << j) & gaps) | 1) for j in range(1, gaps.bit_length())))
            self.moves += len(down)
            self.children[i] = (sorted(same), down)
        self.too_large()

    def graph(self) -> ShapeGraph:
        """The graph, its shapes ordered by fewer gaps of E ÷ 2 first, then fewer legal odd moves
        above the least anchor (so every move that keeps the height leads to an earlier shape)."""
        keys, fam_gaps = self.keys, self.fam_gaps

        def key(i: int) -> tuple[int, int, int]:
            f, offsets = keys[i]
            return (bin(fam_gaps[f]).count("1"), bin(up_moves(offsets, fam_gaps[f])).count("1"), i)

        order = sorted(range(len(keys)), key=key)
        rank = np.empty(len(keys), dtype=np.int64)
        rank[order] = np.arange(len(keys))
        K = len(keys)
        fam = np.empty(K, dtype=np.int32)
        T = np.empty(K, dtype=np.int32)
        offs: list[int] = []
        same_ptr = np.zeros(K + 1, dtype=np.int64)
        down_ptr = np.zeros(K + 1, dtype=np.int64)
        same_all: list[int] = []
        down_j = np.empty(self.moves, dtype=np.int32)
        down_all = np.empty(self.moves, dtype=np.int32)
        at = 0
        fam_T = np.array([max(g.bit_length() - 1, 0) for g in fam_gaps], dtype=np.int32)
        for new, old in enumerate(order):
            f, offsets = keys[old]
            fam[new] = f
            T[new] = fam_T[f]
            offs.append(offsets)
            same_old, down = self.children[old]
            self.children[old] = ([], array("i"))  # free as we go
            kids = [int(rank[c]) for c in same_old]
            assert all(c < new for c in kids), "shape order is not topological"
            same_all.extend(kids)
            same_ptr[new + 1] = len(same_all)
            m = len(down)
            if m:
                down_j[at : at + m] = np.arange(1, m + 1, dtype=np.int32)
                down_all[at : at + m] = rank[np.frombuffer(down, dtype=np.int32)]
            at += m
            down_ptr[new + 1] = at
        fam_root = np.full(len(fam_gaps), -1, dtype=np.int64)
        for new in range(K):
            if offs[new] == 1:
                fam_root[fam[new]] = new
        assert (fam_root >= 0).all()
        return ShapeGraph(
            position=self.position, fam_gaps=fam_gaps, fam_T=fam_T, fam_root=fam_root, fam_even=self.fam_even,
            fam=fam, offsets=offs, T=T, same_ptr=same_ptr, same_idx=np.array(same_all, dtype=np.int32),
            down_ptr=down_ptr, down_j=down_j, down_idx=down_all, root=int(rank[0]), fam_index=self.fam_index,
        )
