"""numba kernels that build the shape graph of :mod:`sylver.solver.gcd.shapes` (Sicherman, "Theory and
Practice of Sylver Coinage", Integers 2002, sec. 2, the Periodicity Theorem).

A shape is a family f (the gap mask of E ÷ 2) and its offsets (bit δ set for each anchor a + 2δ).
Here a gap mask or an offset set is a row of ``W`` 64-bit words (bit n of the set is bit n % 64 of
word n // 64), enough for every bit up to t(S ÷ 2): every family of S contains S, so its gaps are
gaps of S ÷ 2, and every offset is 0 or a gap.  The moves of a shape are those of the module
docstring of :mod:`sylver.solver.gcd.shapes`, computed from the offsets' list (at most multiplicity(E ÷ 2)
of them); the shapes found are numbered in the order found and kept in an open-addressing table,
and explored in that order, so the moves of shape i are row i of two CSR arrays (moves keeping the
height, sorted and without repeats; moves down by 2j, j = 1 .. t(E ÷ 2)).  The Python builder of
:mod:`sylver.solver.gcd.shapes` is the reference: both give the same graph (tests/test_shapes.py).

:func:`base_region` lists the base region of a finished graph (:class:`sylver.solver.gcd.periodic.BaseRegion`),
with :func:`sylver.solver.gcd.periodic.list_region_python` as its reference (tests/test_base_region.py).
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


@njit(cache=True, inline="always")
def _unpack(row, W, out):  # pragma: no cover - compiled
    """The positions of the set bits of the W words ``row`` into ``out``, increasing; their number."""
    m = 0
    for w in range(W):
        v = row[w]
        b = 0
        while v != 0:
            if v & np.uint64(1):
                out[m] = w * 64 + b
                m += 1
            v >>= np.uint64(1)
            b += 1
    return m


@njit(cache=True, inline="always")
def _reduce_offsets(ds, m, gaps, kept, buf):  # pragma: no cover - compiled
    """The offsets ``ds[:m]`` (increasing) that the family with gap mask ``gaps`` (W words) keeps,
    as a mask into ``buf``: an offset is kept when its difference with each one kept before it is a
    gap (``shapes.reduce_offsets``); ``kept`` is scratch."""
    for w in range(buf.shape[0]):
        buf[w] = 0
    nk = 0
    for a in range(m):
        d = ds[a]
        ok = True
        for b in range(nk):
            e = d - kept[b]
            if (gaps[e >> 6] >> np.uint64(e & 63)) & np.uint64(1) == 0:
                ok = False
                break
        if ok:
            kept[nk] = d
            nk += 1
            buf[d >> 6] |= np.uint64(1) << np.uint64(d & 63)


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
        m = _unpack(key_off[i], W, od)
        nk = 0
        # even moves 2y: the family <E, 2y>, the offsets it makes redundant dropped
        for e in range(fe_ptr[f], fe_ptr[f + 1]):
            g = fe_child[e]
            _reduce_offsets(od, m, fam_gaps[g], kept, buf)
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
def sort_keys(key_fam, key_up, fam_key, K):  # pragma: no cover - compiled
    """The first key of the graph's order of shapes 0 .. K - 1, one word each: the family's part
    ``fam_key[f]`` (its number of gaps and its rank by gap mask) or'ed with the number of odd moves
    above the least anchor ``key_up`` in bits 32 .. 49."""
    out = np.empty(K, dtype=np.uint64)
    for i in range(K):
        out[i] = fam_key[key_fam[i]] | (np.uint64(key_up[i]) << np.uint64(32))
    return out


@njit(cache=True)
def inverse(order):  # pragma: no cover - compiled
    """The inverse of the permutation ``order`` (int32: a shape's new number)."""
    rank = np.empty(order.shape[0], dtype=np.int32)
    for r in range(order.shape[0]):
        rank[order[r]] = r
    return rank


@njit(cache=True)
def permuted_ptr(order, ptr):  # pragma: no cover - compiled
    """The row pointers of the CSR array (ptr, ·) with its rows in the order ``order``."""
    out = np.zeros(order.shape[0] + 1, dtype=np.int64)
    for r in range(order.shape[0]):
        out[r + 1] = out[r] + ptr[order[r] + 1] - ptr[order[r]]
    return out


@njit(cache=True)
def rows_to_buckets(rank, ptr, idx, i0, i1, bucket, wpos, rpos, staging, row_new, topological):  # pragma: no cover - compiled
    """The first pass of :func:`sylver.solver.gcd.shapes._permute_rows`: rows ``i0`` .. ``i1`` - 1 of
    the CSR array (ptr, idx), their entries renumbered by ``rank``, each appended to the part of
    ``staging`` of its bucket (``bucket[rank[i]]``: a range of new rows) at ``wpos[b]``, its new
    number to ``row_new`` at ``rpos[b]``.  With ``topological`` each row is sorted, and False is
    returned if an entry is not a shape before the row's own (the order is not topological)."""
    for i in range(i0, i1):
        r = rank[i]
        b = bucket[r]
        a = ptr[i]
        n = ptr[i + 1] - a
        w = wpos[b]
        for e in range(n):
            staging[w + e] = rank[idx[a + e]]
        if topological and n > 0:
            staging[w : w + n] = np.sort(staging[w : w + n])
            if staging[w + n - 1] >= r:
                return False
        wpos[b] = w + n
        row_new[rpos[b]] = r
        rpos[b] += 1
    return True


@njit(cache=True)
def buckets_to_rows(staging, row_new, r0, r1, new_ptr, out):  # pragma: no cover - compiled
    """The second pass of :func:`sylver.solver.gcd.shapes._permute_rows`: the rows of one bucket (new
    rows ``r0`` .. ``r1`` - 1, in ``staging`` from ``new_ptr[r0]`` on in the order they were put
    there, ``row_new[r0:r1]`` their numbers) to their places in ``out``."""
    at = new_ptr[r0]
    for k in range(r0, r1):
        r = row_new[k]
        n = new_ptr[r + 1] - new_ptr[r]
        out[new_ptr[r] : new_ptr[r] + n] = staging[at : at + n]
        at += n


@njit(cache=True)
def reachable(same_ptr, same_idx, down_ptr, down_idx, start):  # pragma: no cover - compiled
    """The shapes reachable from shape ``start`` by the moves of a finished graph (True for each):
    :meth:`sylver.solver.gcd.shapes.ShapeGraph._reachable` is the reference."""
    K = same_ptr.shape[0] - 1
    seen = np.zeros(K, dtype=np.bool_)
    stack = np.empty(K, dtype=np.int64)
    seen[start] = True
    stack[0] = start
    top = 1
    while top > 0:
        top -= 1
        i = stack[top]
        for ptr, idx in ((same_ptr, same_idx), (down_ptr, down_idx)):  # both kinds of move
            for e in range(ptr[i], ptr[i + 1]):
                c = idx[e]
                if not seen[c]:
                    seen[c] = True
                    stack[top] = c
                    top += 1
    return seen


# -- the base region (sylver.solver.gcd.periodic.BaseRegion) ---------------------------------------------


@njit(cache=True)
def rows_of(ptr, idx, keep, new):  # pragma: no cover - compiled
    """The CSR array (ptr, idx) restricted to the rows ``keep`` (a :meth:`ShapeGraph.subgraph`):
    (its ptr, its entries renumbered by ``new``, or as they are when ``new`` is empty, and whether
    no entry was renumbered to -1, a shape not kept: the subgraph is closed), with no temporary as
    large as the entries."""
    out_ptr = np.zeros(keep.shape[0] + 1, dtype=np.int64)
    for r in range(keep.shape[0]):
        out_ptr[r + 1] = out_ptr[r] + ptr[keep[r] + 1] - ptr[keep[r]]
    out = np.empty(out_ptr[keep.shape[0]], dtype=idx.dtype)
    closed = True
    at = 0
    for r in range(keep.shape[0]):
        for e in range(ptr[keep[r]], ptr[keep[r] + 1]):
            v = idx[e]
            if new.shape[0]:
                v = new[v]
                closed = closed and v >= 0
            out[at] = v
            at += 1
    return out_ptr, out, closed


@njit(cache=True, inline="always")
def _shift_or(words, s, top):  # pragma: no cover - compiled
    """words |= words << s, the bits above ``top`` cleared (in place: the words are read from the
    top down, each before it is written)."""
    nw = words.shape[0]
    q = s >> 6
    r = np.uint64(s & 63)
    for w in range(nw - 1, q - 1, -1):
        v = words[w - q] << r
        if r != 0 and w - q >= 1:
            v |= words[w - q - 1] >> (np.uint64(64) - r)
        words[w] |= v
    tw = top >> 6
    if tw < nw:
        if (top & 63) != 63:
            words[tw] &= (np.uint64(1) << np.uint64((top & 63) + 1)) - np.uint64(1)
        for w in range(tw + 1, nw):
            words[w] = 0


@njit(cache=True)
def even_members(fam_gaps, WM):  # pragma: no cover - compiled
    """Row f: bit 2m set for each m < 32·``WM`` not a gap of E ÷ 2 (the members of E), ``WM`` words."""
    F, W = fam_gaps.shape
    out = np.zeros((F, WM), dtype=np.uint64)
    for f in range(F):
        for m in range(32 * WM):
            if m < 64 * W and (fam_gaps[f, m >> 6] >> np.uint64(m & 63)) & np.uint64(1) != 0:
                continue
            out[f, (2 * m) >> 6] |= np.uint64(1) << np.uint64((2 * m) & 63)
    return out


@njit(cache=True)
def base_region(fam_gaps, fam_T, fam_table, fam_even, fam, offs, T, shape_table, s_from, s_to,
                mode, which, bound, key_mem, key_rep, key_table, counts):  # pragma: no cover - compiled
    """List the base region of shapes ``s_from`` .. ``s_to`` - 1 (see :class:`~sylver.solver.gcd.periodic.
    BaseRegion`; :func:`~sylver.solver.gcd.periodic.list_region_python` is the reference): ``mode[s, i]``
    and ``which[s, i]`` for the odd heights n = 3 + 2i ≤ ``T[s]`` (both preset to -1).  A position
    to solve with the gcd-1 solver is keyed by its members up to ``bound`` (past the Frobenius
    number of every one): key k is ``key_mem[k]`` (the members' words) and ``key_rep[k]`` = (s, n),
    its first (shape, height) in the order listed; ``counts[0]`` keys so far, found by
    ``key_table`` (entries k + 1).  Returns the first shape not listed: ``s_to``, or a shape whose
    heights might not fit in the key arrays (the caller grows them and calls again from there).

    Family f: gap mask ``fam_gaps[f]`` (of E ÷ 2, W words), t(E ÷ 2) = ``fam_T[f]``, found by its gap
    mask in ``fam_table`` (entries f + 1), the members of E ``fam_even[f]`` (see :func:`even_members`,
    as wide as ``key_mem``); shape s: family ``fam[s]``, offsets ``offs[s]`` (W words), t ``T[s]``,
    found by (family, offsets) in ``shape_table`` (entries s + 1)."""
    W = fam_gaps.shape[1]
    WM = key_mem.shape[1]
    cap = key_rep.shape[0]
    no_fam = np.zeros(fam_gaps.shape[0], dtype=np.int32)
    no_key = np.zeros(cap, dtype=np.int32)
    ds = np.empty(64 * W, dtype=np.int64)  # the offsets of the shape
    kept = np.empty(64 * W, dtype=np.int64)
    ev = np.empty(W, dtype=np.uint64)
    buf = np.empty(W, dtype=np.uint64)
    mem = np.empty(WM, dtype=np.uint64)
    width = mode.shape[1]
    for s in range(s_from, s_to):
        if counts[0] + width > cap:
            return s
        f = fam[s]
        Tf = T[s]
        m = _unpack(offs[s], W, ds)
        for n in range(3, Tf + 1, 2):
            i = (n - 3) // 2
            # the even part: E ÷ 2 closed under (a + a') / 2 for every two anchors a ≤ a'
            for w in range(W):
                ev[w] = fam_gaps[f, w]
            for a in range(m):
                for b in range(a, m):
                    y = n + ds[a] + ds[b]
                    if y > Tf or (ev[y >> 6] >> np.uint64(y & 63)) & np.uint64(1) == 0:
                        continue
                    for w in range(W):  # the members (bits 0 .. Tf), y added, closed under + y
                        buf[w] = ~ev[w]
                    buf[y >> 6] |= np.uint64(1) << np.uint64(y & 63)
                    step = y
                    while step <= Tf:
                        _shift_or(buf, step, Tf)
                        step <<= 1
                    for w in range(W):
                        ev[w] &= ~buf[w]
            same = True
            for w in range(W):
                if ev[w] != fam_gaps[f, w]:
                    same = False
                    break
            if same:
                mode[s, i] = -2
                continue
            # the shape of family E' (the even part) at the same height, if E' is a family of the
            # graph, n > t(E' ÷ 2), and the offsets that E' keeps make a shape of the graph
            f2 = fam_table[_slot(0, ev, no_fam, fam_gaps, fam_table)] - 1
            if f2 >= 0 and n > fam_T[f2]:
                _reduce_offsets(ds, m, ev, kept, buf)
                s2 = shape_table[_slot(f2, buf, fam, offs, shape_table)] - 1
                if s2 >= 0:
                    mode[s, i] = s2
                    continue
            # solved with the gcd-1 solver: the members of <E, n + 2δ for each offset δ> up to bound
            for w in range(WM):
                mem[w] = fam_even[f, w]
            _shift_or(mem, 0, bound)  # clears the bits above bound (| itself changes nothing)
            for a in range(m):
                x = n + 2 * ds[a]
                if x > bound or (mem[x >> 6] >> np.uint64(x & 63)) & np.uint64(1) != 0:
                    continue
                step = x
                while step <= bound:
                    _shift_or(mem, step, bound)
                    step <<= 1
            slot = _slot(0, mem, no_key, key_mem, key_table)
            k = key_table[slot] - 1
            if k < 0:
                k = counts[0]
                for w in range(WM):
                    key_mem[k, w] = mem[w]
                key_rep[k, 0] = s
                key_rep[k, 1] = n
                key_table[slot] = k + 1
                counts[0] = k + 1
            which[s, i] = k
    return s_to


@njit(cache=True)
def semigroups(key_mem, K, bound):  # pragma: no cover - compiled
    """The numerical semigroups of keys 0 .. K - 1 of :func:`base_region` (gcd 1; row k: the members
    up to ``bound``, every number above it a member): the Apéry set of each w.r.t. its multiplicity m
    (``aps[ap_ptr[k]:ap_ptr[k + 1]]``, entry r the least member ≡ r mod m) and its minimal generators,
    sorted (``gens[gen_ptr[k]:gen_ptr[k + 1]]``): m, and each Apéry element other than 0 that is not
    the sum of two others (Rosales and García-Sánchez, "Numerical Semigroups", Springer 2009, ch. 1:
    the minimal generators are m and the minimal elements of Ap \\ {0} w.r.t. the order of S)."""
    mult = np.empty(K, dtype=np.int64)
    for k in range(K):
        x = 1
        while x <= bound and (key_mem[k, x >> 6] >> np.uint64(x & 63)) & np.uint64(1) == 0:
            x += 1
        mult[k] = x
    ap_ptr = np.zeros(K + 1, dtype=np.int64)
    for k in range(K):
        ap_ptr[k + 1] = ap_ptr[k] + mult[k]
    aps = np.full(ap_ptr[K], -1, dtype=np.int64)
    gen_ptr = np.zeros(K + 1, dtype=np.int64)
    gens = np.empty(ap_ptr[K], dtype=np.int64)
    for k in range(K):
        m = mult[k]
        a0 = ap_ptr[k]
        aps[a0] = 0
        left = m - 1
        x = m + 1
        while left > 0:
            if x > bound or (key_mem[k, x >> 6] >> np.uint64(x & 63)) & np.uint64(1) != 0:
                r = x % m
                if aps[a0 + r] < 0:
                    aps[a0 + r] = x
                    left -= 1
            x += 1
        at = gen_ptr[k]
        gens[at] = m
        at += 1
        for r in range(1, m):
            w = aps[a0 + r]
            minimal = True
            for r1 in range(1, m):
                r2 = (r - r1) % m
                if r2 != 0 and aps[a0 + r1] + aps[a0 + r2] == w:
                    minimal = False
                    break
            if minimal:
                gens[at] = w
                at += 1
        gens[gen_ptr[k] : at] = np.sort(gens[gen_ptr[k] : at])
        gen_ptr[k + 1] = at
    return gen_ptr, gens[: gen_ptr[K]].copy(), ap_ptr, aps
