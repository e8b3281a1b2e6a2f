"""numba kernels that build the shape graph of :mod:`sylver.solver.shapes` (Sicherman, "Theory and
Practice of Sylver Coinage", Integers 2002, sec. 2, the Periodicity Theorem).

A shape is a family f (the gap mask of E ÷ 2) and its offsets (bit δ set for each anchor a + 2δ).
Here a gap mask or an offset set is a row of ``W`` 64-bit words (bit n of the set is bit n % 64 of
word n // 64), enough for every bit up to t(S ÷ 2): every family of S contains S, so its gaps are
gaps of S ÷ 2, and every offset is 0 or a gap.  The moves of a shape are those of the module
docstring of :mod:`sylver.solver.shapes`, computed from the offsets' list (at most multiplicity(E ÷ 2)
of them); the shapes found are numbered in the order found and kept in an open-addressing table,
and explored in that order, so the moves of shape i are row i of two CSR arrays (moves keeping the
height, sorted and without repeats; moves down by 2j, j = 1 .. t(E ÷ 2)).  The Python builder of
:mod:`sylver.solver.shapes` is the reference: both give the same graph (tests/test_shapes.py).
"""

from __future__ import annotations

import numpy as np
from numba import njit

DONE, BUDGET, ROOM = 0, 1, 2
"""What :func:`explore` stopped at: every shape explored, its budget of shapes, or the arrays full."""


@njit(cache=True, inline="always")
def _mix(z):  # pragma: no cover - compiled
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _bit(words, row, n):  # pragma: no cover - compiled
    """Bit n of row ``row`` of ``words``."""
    return (words[row, n >> 6] >> np.uint64(n & 63)) & np.uint64(1)


@njit(cache=True, inline="always")
def _slot(f, buf, key_fam, key_off, table):  # pragma: no cover - compiled
    """The slot of shape (f, buf) in ``table`` (entries: shape index + 1, 0 when empty)."""
    W = buf.shape[0]
    h = _mix(np.uint64(f) + np.uint64(0x9E3779B97F4A7C15))
    for w in range(W):
        h = _mix(h ^ buf[w])
    mask = table.shape[0] - 1
    s = np.int64(h & np.uint64(mask))
    while True:
        t = table[s]
        if t == 0:
            return s
        i = t - 1
        if key_fam[i] == f:
            same = True
            for w in range(W):
                if key_off[i, w] != buf[w]:
                    same = False
                    break
            if same:
                return s
        s = (s + 1) & mask


@njit(cache=True)
def add_shape(f, buf, key_fam, key_off, table, counts):  # pragma: no cover - compiled
    """The index of shape (f, buf), added (as shape counts[0]) if it is new; the arrays have room."""
    s = _slot(f, buf, key_fam, key_off, table)
    if table[s] != 0:
        return table[s] - 1
    n = counts[0]
    key_fam[n] = f
    for w in range(buf.shape[0]):
        key_off[n, w] = buf[w]
    table[s] = n + 1
    counts[0] = n + 1
    return n


@njit(cache=True)
def rehash(key_fam, key_off, n, table):  # pragma: no cover - compiled
    """Put shapes 0 .. n - 1 into the empty ``table``."""
    for i in range(n):
        s = _slot(key_fam[i], key_off[i], key_fam, key_off, table)
        table[s] = i + 1


@njit(cache=True)
def explore(fam_gaps, fam_T, fe_ptr, fe_child, key_fam, key_off, key_up, table, counts,
            same_ptr, same_idx, down_ptr, down_idx, budget):  # pragma: no cover - compiled
    """Explore the shapes counts[1] .. (found so far; counts = shapes found, explored, moves keeping
    the height, moves down): add the shapes their moves reach, write their moves (rows of the CSR
    arrays) and their numbers of odd moves above the least anchor (``key_up``).  Stops after
    ``budget`` shapes (BUDGET), when a shape might not fit in the arrays (ROOM: the caller grows
    them and calls again), or when every shape found is explored (DONE).

    Family f: gap mask ``fam_gaps[f]`` (of E ÷ 2), t(E ÷ 2) = ``fam_T[f]``, its even moves lead to
    the families ``fe_child[fe_ptr[f]:fe_ptr[f + 1]]``."""
    W = key_off.shape[1]
    cap = key_fam.shape[0]
    nbits = W * 64
    od = np.empty(nbits, dtype=np.int64)  # the offsets of the shape explored
    kept = np.empty(nbits, dtype=np.int64)
    buf = np.zeros(W, dtype=np.uint64)
    maxe = 0
    for f in range(fam_T.shape[0]):
        maxe = max(maxe, fe_ptr[f + 1] - fe_ptr[f])
    kids = np.empty(maxe + nbits, dtype=np.int32)
    done = 0
    while counts[1] < counts[0]:
        if done >= budget:
            return BUDGET
        i = counts[1]
        f = key_fam[i]
        T = fam_T[f]
        ne = fe_ptr[f + 1] - fe_ptr[f]
        grow = ne + 2 * T + 1  # at most this many new shapes
        if (counts[0] + grow > cap or 2 * (counts[0] + grow) > table.shape[0]
                or counts[2] + ne + T > same_idx.shape[0] or counts[3] + T > down_idx.shape[0]):
            return ROOM
        m = 0
        for w in range(W):
            v = key_off[i, w]
            b = 0
            while v != 0:
                if v & np.uint64(1):
                    od[m] = w * 64 + b
                    m += 1
                v >>= np.uint64(1)
                b += 1
        nk = 0
        # even moves 2y: the family <E, 2y>, the offsets it makes redundant dropped
        for e in range(fe_ptr[f], fe_ptr[f + 1]):
            g = fe_child[e]
            for w in range(W):
                buf[w] = 0
            nkept = 0
            for a in range(m):
                d = od[a]
                ok = True
                for b in range(nkept):
                    if _bit(fam_gaps, g, d - kept[b]) == 0:
                        ok = False
                        break
                if ok:
                    kept[nkept] = d
                    nkept += 1
                    buf[d >> 6] |= np.uint64(1) << np.uint64(d & 63)
            kids[nk] = add_shape(g, buf, key_fam, key_off, table, counts)
            nk += 1
        # odd moves a + 2k above the least anchor: k a gap, k - δ a gap for every offset δ < k
        up = 0
        for k in range(1, T + 1):
            if _bit(fam_gaps, f, k) == 0:
                continue
            legal = True
            for a in range(1, m):
                d = od[a]
                if d >= k:
                    if d == k:
                        legal = False
                    break
                if _bit(fam_gaps, f, k - d) == 0:
                    legal = False
                    break
            if not legal:
                continue
            up += 1
            for w in range(W):
                buf[w] = 0
            buf[k >> 6] |= np.uint64(1) << np.uint64(k & 63)
            for a in range(m):
                d = od[a]
                if d < k or _bit(fam_gaps, f, d - k) != 0:
                    buf[d >> 6] |= np.uint64(1) << np.uint64(d & 63)
            kids[nk] = add_shape(f, buf, key_fam, key_off, table, counts)
            nk += 1
        key_up[i] = up
        srt = np.sort(kids[:nk])
        at = counts[2]
        for a in range(nk):
            if a == 0 or srt[a] != srt[a - 1]:
                same_idx[at] = srt[a]
                at += 1
        counts[2] = at
        same_ptr[i + 1] = at
        # moves down by 2j: the offsets δ + j that are gaps, and the new least anchor
        at = counts[3]
        for j in range(1, T + 1):
            for w in range(W):
                buf[w] = 0
            buf[0] = np.uint64(1)
            for a in range(m):
                d = od[a] + j
                if d <= T and _bit(fam_gaps, f, d) != 0:
                    buf[d >> 6] |= np.uint64(1) << np.uint64(d & 63)
            down_idx[at] = add_shape(f, buf, key_fam, key_off, table, counts)
            at += 1
        counts[3] = at
        down_ptr[i + 1] = at
        counts[1] = i + 1
        done += 1
    return DONE


@njit(cache=True)
def renumber(order, rank, same_ptr, same_idx, down_ptr, down_idx,
             new_same_ptr, new_same_idx, new_down_ptr, new_down_j, new_down_idx):  # pragma: no cover - compiled
    """The moves in the graph's order: shape ``order[r]`` becomes shape r (``rank`` the inverse),
    each row of moves keeping the height sorted.  False if one of them does not lead to an earlier
    shape (the order is not topological)."""
    at_s = 0
    at_d = 0
    for new in range(order.shape[0]):
        old = order[new]
        a = same_ptr[old]
        b = same_ptr[old + 1]
        for e in range(a, b):
            c = rank[same_idx[e]]
            if c >= new:
                return False
            new_same_idx[at_s + e - a] = c
        new_same_idx[at_s : at_s + b - a] = np.sort(new_same_idx[at_s : at_s + b - a])
        at_s += b - a
        new_same_ptr[new + 1] = at_s
        a = down_ptr[old]
        b = down_ptr[old + 1]
        for e in range(a, b):
            new_down_idx[at_d + e - a] = rank[down_idx[e]]
            new_down_j[at_d + e - a] = e - a + 1
        at_d += b - a
        new_down_ptr[new + 1] = at_d
    return True
