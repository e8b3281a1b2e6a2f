"""The periodicity engine for positions with g = 2 (Sicherman, "Theory and Practice of Sylver
Coinage", Integers 2002, sec. 2).

For S with g = 2 it decides the outcome of S + x for every odd x, by scanning the odd heights
x = 3, 5, 7, … upward over the finite shape graph of :mod:`sylver.solver.gcd.shapes`:

* a shape at height n with 2n > F(E) is decided from its moves (translation invariance): a move
  that keeps the height leads to a shape decided earlier in the same step, a move down by 2j to a
  value recorded j steps ago (a window of t(E ÷ 2) bits per shape), and any move below the window
  leaves the family's own position E + m: that wins iff some E + m with m below the window is P,
  one bit per family;
* below that (the **base region**, n ≤ t(E ÷ 2)) the position is solved by the gcd-1 solver.

From a height past every base region on, the step is the same function of the **state** (every
shape's window and every family's bit), so the first state that repeats an earlier one exactly
certifies the period: the values repeat forever.  Candidate repeats are found by a 64-bit hash of
the state and then confirmed by comparing the two states word for word (the earlier one recomputed
from an in-memory snapshot), so a hash collision can cost time but never give a wrong period.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from sylver import jit
from sylver.position import Position
from sylver.semigroup import Semigroup
from sylver.solution import ScanProgress
from sylver.solver.gcd.shapes import (
    ShapeGraph,
    build,
    close,
    family_generators,
    members,
    reduce_offsets,
    set_bits,
)

jit.watch_compilation()  # these kernels are numba's own: a cold cache compiles them here


def _offsets(mask: int) -> list[int]:
    return set_bits(mask)

CHECKPOINT_VERSION = 4
"""4: the shapes in their canonical order, the graph's fingerprint, the heights at which the periods
were certified, and the state tables packed (their stored entries only)."""
SNAPSHOT_EVERY = 4096
"""Steps between in-memory snapshots of the state (to recompute an earlier state exactly)."""
SLICE_SECONDS = 0.25
"""The kernel returns to Python about this often (progress, clock, Ctrl-C, checkpoints)."""
CHECKPOINT_SECONDS = 5.0
"""A long scan writes its checkpoint this often (kill -9 loses at most about this much work); the
environment variable ``SYLVER_CHECKPOINT_SECONDS`` overrides it."""


def checkpoint_seconds() -> float:
    """The interval between checkpoints: ``SYLVER_CHECKPOINT_SECONDS`` if set, else 5 s."""
    text = os.environ.get("SYLVER_CHECKPOINT_SECONDS")
    if text is None:
        return CHECKPOINT_SECONDS
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"SYLVER_CHECKPOINT_SECONDS must be a positive number of seconds, not {text!r}")
    return value


def _checksum(data: dict[str, Any]) -> bytes:
    """SHA-256 of a checkpoint's arrays (names, dtypes, shapes and bytes, in name order)."""
    digest = hashlib.sha256()
    for key in sorted(data):
        a = np.ascontiguousarray(data[key])
        digest.update(f"{key}:{a.dtype.str}:{a.shape};".encode())
        digest.update(a.tobytes())
    return digest.digest()


@njit(cache=True, inline="always")
def _mix(z):  # pragma: no cover - compiled
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def state_hash(H, flags, s_lo, s_hi, f_lo, f_hi):  # pragma: no cover - compiled
    """A 64-bit hash of part of the scan state: the windows of shapes s_lo..s_hi - 1 and the bits of
    families f_lo..f_hi - 1."""
    h = np.uint64(0x9E3779B97F4A7C15)
    Wd = H.shape[1]
    for s in range(s_lo, s_hi):
        for w in range(Wd):
            v = H[s, w]
            if v != 0:
                h += _mix(v ^ _mix(np.uint64(s * Wd + w + 1)))
    for f in range(f_lo, f_hi):
        if flags[f]:
            h += _mix(np.uint64(0xD1B54A32D192ED03) + np.uint64(f))
    if h == 0:
        h = np.uint64(1)
    return h


@njit(cache=True)
def whole_hash(H, flags, K0):  # pragma: no cover - compiled
    """The hash of the whole state, from those of the rest and of S's own family."""
    return state_hash(H, flags, 0, K0, 1, flags.shape[0]) ^ _mix(state_hash(H, flags, K0, H.shape[0], 0, 1))


@njit(cache=True, inline="always")
def _find(keys, h):  # pragma: no cover - compiled
    """The slot of ``h`` in the open-addressing table ``keys``, or the empty slot where it goes."""
    cap = keys.shape[0]
    i = np.int64(h & np.uint64(cap - 1))
    while keys[i] != 0 and keys[i] != h:
        i = (i + 1) & (cap - 1)
    return i


@njit(cache=True)
def _values(n, s_lo, T, fam, same_ptr, same_idx, same_col, tab, phase, down_ptr, down_idx,
            base, mode, H, flags, cur, killer):  # pragma: no cover - compiled
    """The values (1 = P) of shapes s_lo, s_lo + 1, … at height n, each from the values decided
    before it: a move to a P shape makes it N.  A move e ≥ c0 = len(same_idx) - len(same_col) that
    keeps the height into a shape with ``same_col[e - c0] >= 0`` reads that shape's value from row
    ``phase`` of the table of the periodic rest instead of ``cur`` (``same_col`` covers the moves of
    S's family only: empty for the first stage).  ``killer[s]``: the move that made s N last time,
    tried first."""
    c0 = same_idx.shape[0] - same_col.shape[0]
    for s in range(s_lo, T.shape[0]):
        m = -2
        if n <= T[s]:
            m = mode[s, (n - 3) >> 1]
        if m >= 0:
            cur[s] = cur[m]
            continue
        if m == -1:
            cur[s] = base[s, (n - 3) >> 1]
            continue
        if flags[fam[s]]:
            cur[s] = 0
            continue
        v = 1
        kk = killer[s]
        if kk >= 0:
            if kk < 1 << 30:
                c = same_col[kk - c0] if kk >= c0 else -1
                if c >= 0:
                    if (tab[phase, c >> 6] >> np.uint64(c & 63)) & np.uint64(1):
                        v = 0
                elif cur[same_idx[kk]]:
                    v = 0
            else:
                e = kk - (1 << 30)
                j = e - down_ptr[s]
                if (H[down_idx[e], j >> 6] >> np.uint64(j & 63)) & np.uint64(1):
                    v = 0
        if v:
            for e in range(same_ptr[s], same_ptr[s + 1]):
                c = same_col[e - c0] if e >= c0 else -1
                if c >= 0:
                    if (tab[phase, c >> 6] >> np.uint64(c & 63)) & np.uint64(1):
                        v = 0
                elif cur[same_idx[e]]:
                    v = 0
                if v == 0:
                    killer[s] = e
                    break
        if v:
            for e in range(down_ptr[s], down_ptr[s + 1]):
                j = e - down_ptr[s]
                if (H[down_idx[e], j >> 6] >> np.uint64(j & 63)) & np.uint64(1):
                    v = 0
                    killer[s] = e + (1 << 30)
                    break
        cur[s] = v


@njit(cache=True)
def _shift(s_lo, s_hi, T, fam, fam_root, H, flags, cur):  # pragma: no cover - compiled
    """Shift the windows of shapes s_lo..s_hi - 1 by one height; the bit leaving a family's own
    window sets the family's bit."""
    for s in range(s_lo, s_hi):
        Ts = T[s]
        carry = np.uint64(cur[s])
        if Ts == 0:
            if carry and fam_root[fam[s]] == s:
                flags[fam[s]] = 1
            continue
        nw = (Ts + 63) >> 6
        top = (Ts - 1) & 63
        leaving = (H[s, nw - 1] >> np.uint64(top)) & np.uint64(1)
        for w in range(nw):
            x = H[s, w]
            H[s, w] = (x << np.uint64(1)) | carry
            carry = x >> np.uint64(63)
        if top < 63:
            H[s, nw - 1] &= (np.uint64(1) << np.uint64(top + 1)) - np.uint64(1)
        if leaving and fam_root[fam[s]] == s:
            flags[fam[s]] = 1


@njit(cache=True)
def _record_hits(n, fam_root, f_hi, cur, first_hit, hits, nhits):  # pragma: no cover - compiled
    """Record the P-positions E + n of families 0..f_hi - 1."""
    for f in range(f_hi):
        if cur[fam_root[f]]:
            if first_hit[f] == 0:
                first_hit[f] = n
            if nhits[0] < hits.shape[0]:
                hits[nhits[0], 0] = f
                hits[nhits[0], 1] = n
                nhits[0] += 1


@njit(cache=True)
def _remember(keys, vals, count, h, n, sample_bit):  # pragma: no cover - compiled
    """Look ``h`` up; return the height stored with it, or 0 after storing ``n`` (unless
    ``sample_bit``: under a tight memory budget only some states are kept) or -1 when the table
    needs to grow."""
    i = _find(keys, h)
    if keys[i] == h:
        return vals[i]
    if sample_bit:
        return 0
    keys[i] = h
    vals[i] = n
    count[0] += 1
    if 2 * count[0] > keys.shape[0]:
        return -1
    return 0


@njit(cache=True)
def _phase_zero(H, flags, K0, K, n, hkeys, hvals, hcount, sample):  # pragma: no cover - compiled
    """At a phase 0 of the rest's period, in the family kernels: look up the state of S's family
    (shapes K0..K - 1, its bit) in ``hkeys`` and store it with height ``n`` (block i kept when
    i & sample = 0, counted in ``hcount[1]``); :func:`_remember`'s answer."""
    block = hcount[1]
    hcount[1] += 1
    return _remember(hkeys, hvals, hcount, state_hash(H, flags, K0, K, 0, 1), n, block & sample)


@njit(cache=True)
def scan_kernel(
    n, n_end, deadline_steps, K0, T, fam, same_ptr, same_idx, down_ptr, down_idx,
    fam_root, base, mode, H, flags, cur, killer, first_hit, hits, nhits, hkeys, hvals, hcount, rkeys,
    rvals, rcount, record_from, sample, out,
):  # pragma: no cover - compiled
    """Decide every shape at heights n, n + 2, … ≤ n_end (at most ``deadline_steps`` of them).

    From height ``record_from`` on, the state after each height is looked up, and stored when
    ((n - 1) / 2) & sample = 0, in two tables: the whole state in ``hkeys`` and the **rest** (the
    shapes 0..K0 - 1 and families 1.. of every family but S's own, which never depend on S's
    family) in ``rkeys`` (a table of capacity 0 is skipped).  ``out`` receives [reason, next
    height, matched height]: reason 0 = stopped (limit or steps), 1 / 3 = the whole state / the rest
    after height out[1] - 2 has the hash of that after height out[2], 2 / 4 = that table needs to
    grow.  ``hits`` receives (family, height) for every P-position E + height (a family's P-hits lie
    within t̄ of its first one, so there are few).
    """
    K = T.shape[0]
    no_col = np.zeros(0, dtype=np.int32)  # no move reads a table of the rest
    no_tab = np.zeros((1, 1), dtype=np.uint64)
    F = fam_root.shape[0]
    steps = 0
    reason = 0
    matched = 0
    while n <= n_end and steps < deadline_steps:
        _values(n, 0, T, fam, same_ptr, same_idx, no_col, no_tab, 0, down_ptr, down_idx, base, mode,
                H, flags, cur, killer)
        _record_hits(n, fam_root, F, cur, first_hit, hits, nhits)
        _shift(0, K, T, fam, fam_root, H, flags, cur)
        steps += 1
        if n >= record_from:
            reason, matched = _look_up_state(H, flags, K0, n, hkeys, hvals, hcount, rkeys, rvals, rcount, sample)
            if reason:
                n += 2
                break
        n += 2
    out[0] = reason
    out[1] = n
    out[2] = matched


@njit(cache=True, inline="always")
def _look_up_state(H, flags, K0, n, hkeys, hvals, hcount, rkeys, rvals, rcount, sample):  # pragma: no cover - compiled
    """The state after height n in the tables of :func:`scan_kernel`: (reason, matched height)."""
    h_rest = state_hash(H, flags, 0, K0, 1, flags.shape[0])
    h_all = h_rest ^ _mix(state_hash(H, flags, K0, H.shape[0], 0, 1))  # = whole_hash
    return _look_up_hashes(h_rest, h_all, n, hkeys, hvals, hcount, rkeys, rvals, rcount, sample)


@njit(cache=True, inline="always")
def _look_up_hashes(h_rest, h_all, n, hkeys, hvals, hcount, rkeys, rvals, rcount, sample):  # pragma: no cover - compiled
    """:func:`_look_up_state` for the hashes of the rest and of the whole state."""
    skip = ((n - 1) >> 1) & sample
    got = _remember(hkeys, hvals, hcount, h_all, n, skip)
    if got != 0:
        return (1 if got > 0 else 2), got
    if rkeys.shape[0]:
        got = _remember(rkeys, rvals, rcount, h_rest, n, skip)
        if got != 0:
            return (3 if got > 0 else 4), got
    return 0, 0


def incoming(down_ptr: np.ndarray, down_idx: np.ndarray, s_lo: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves down of shapes s_lo, s_lo + 1, … by target (all of them lead into those shapes): for
    shape c (numbered from s_lo), ``in_src[in_ptr[c]:in_ptr[c + 1]]`` are the shapes (numbered from
    s_lo) with a move down by ``in_j[…]`` into c, in increasing order.  For the kernels of heights
    above the base regions (t(E ÷ 2) < 64, so j fits a byte): 5 bytes a move."""
    R = down_ptr.shape[0] - 1 - s_lo
    m = int(down_ptr[-1] - down_ptr[s_lo])
    in_ptr = np.zeros(R + 1, dtype=np.int64)
    in_src = np.empty(m, dtype=np.int32)
    in_j = np.empty(m, dtype=np.uint8)
    assert m == 0 or int(np.diff(down_ptr[s_lo:]).max()) < 256, "a move down by 2j with j > 255"
    _fill_incoming(down_ptr, down_idx, s_lo, in_ptr, in_src, in_j)
    return in_ptr, in_src, in_j


@njit(cache=True)
def _fill_incoming(down_ptr, down_idx, s_lo, in_ptr, in_src, in_j):  # pragma: no cover - compiled
    """:func:`incoming`, a counting sort: one pass to count, one to place; no temporary as large
    as the moves."""
    R = in_ptr.shape[0] - 1
    for e in range(down_ptr[s_lo], down_ptr[R + s_lo]):
        in_ptr[down_idx[e] - s_lo + 1] += 1
    for c in range(R):
        in_ptr[c + 1] += in_ptr[c]
    fill = in_ptr[:R].copy()
    for s in range(R):
        for e in range(down_ptr[s + s_lo], down_ptr[s + s_lo + 1]):
            c = down_idx[e] - s_lo
            at = fill[c]
            in_src[at] = s
            in_j[at] = e - down_ptr[s + s_lo] + 1
            fill[c] = at + 1


@njit(cache=True)
def scan_kernel_short(
    n, n_end, deadline_steps, K0, T, fam, same_ptr, same_idx, in_ptr, in_src, in_j, fam_root, H, flags, cur,
    first_hit, hits, nhits, hkeys, hvals, hcount, rkeys, rvals, rcount, record_from, sample, tab, cols, phase,
    out,
):  # pragma: no cover - compiled
    """:func:`scan_kernel` above every base region (n > t(E ÷ 2) for every family) when every
    t(E ÷ 2) < 64 (one word of window per shape), driven by what a value changes rather than by
    what a shape reads, as :func:`family_kernel_short`: ``pending[s]`` bit i is set when shape s has
    a move down into a shape that was P, at the height i steps ahead (rebuilt from the windows on
    entry, then kept up to date along the incoming moves down ``in_*`` of each shape found P); a
    shape neither pending nor of a family whose bit is set is P iff no move that keeps the height
    reaches a P shape.  Same arguments and ``out`` as :func:`scan_kernel` (no killer moves).  The
    hashes of :func:`state_hash` (sums of one term per nonzero window word and per family bit set)
    are kept up to date as the windows change, instead of being recomputed over every shape.  With a
    table ``tab`` (rows: the phases of the rest's period), the values of the shapes ``cols`` at each
    height go into bits 0, 1, … of row ``phase`` (then the next row, cyclically)."""
    K = T.shape[0]
    F = fam_root.shape[0]
    one = np.uint64(1)
    # the terms of state_hash: term[s] for the window of shape s (0 when it is empty)
    salt = np.empty(K, dtype=np.uint64)
    term = np.zeros(K, dtype=np.uint64)
    h_rest = np.uint64(0x9E3779B97F4A7C15)
    h_own = np.uint64(0x9E3779B97F4A7C15)
    for s in range(K):
        salt[s] = _mix(np.uint64(s + 1))
        if H[s, 0] != 0:
            term[s] = _mix(H[s, 0] ^ salt[s])
            if s < K0:
                h_rest += term[s]
            else:
                h_own += term[s]
    for f in range(F):
        if flags[f]:
            if f == 0:
                h_own += _mix(np.uint64(0xD1B54A32D192ED03) + np.uint64(f))
            else:
                h_rest += _mix(np.uint64(0xD1B54A32D192ED03) + np.uint64(f))
    pending = np.zeros(K, dtype=np.uint64)
    for c in range(K):
        h = H[c, 0]
        if h == 0:
            continue
        for e in range(in_ptr[c], in_ptr[c + 1]):
            j = in_j[e]
            for i in range(j):
                if (h >> np.uint64(j - 1 - i)) & np.uint64(1):
                    pending[in_src[e]] |= np.uint64(1) << np.uint64(i)
    steps = 0
    reason = 0
    matched = 0
    while n <= n_end and steps < deadline_steps:
        for s in range(K):
            v = 1
            if flags[fam[s]] or pending[s] & np.uint64(1):
                v = 0
            else:
                for e in range(same_ptr[s], same_ptr[s + 1]):
                    if cur[same_idx[e]]:
                        v = 0
                        break
            cur[s] = v
        _record_hits(n, fam_root, F, cur, first_hit, hits, nhits)
        if tab.shape[0]:
            for k in range(cols.shape[0]):
                if cur[cols[k]]:
                    tab[phase, k >> 6] |= one << np.uint64(k & 63)
            phase += 1
            if phase == tab.shape[0]:
                phase = 0
        for s in range(K):
            pending[s] >>= np.uint64(1)
        for c in range(K):
            if cur[c]:
                for e in range(in_ptr[c], in_ptr[c + 1]):
                    pending[in_src[e]] |= np.uint64(1) << np.uint64(in_j[e] - 1)
        # shift the windows (as _shift), keeping the hashes up to date
        for s in range(K):
            Ts = T[s]
            x = H[s, 0]
            if Ts == 0:
                leaving = np.uint64(cur[s])
            else:
                leaving = (x >> np.uint64(Ts - 1)) & one
                y = ((x << one) | np.uint64(cur[s])) & ((one << np.uint64(Ts)) - one)
                if y != x:
                    H[s, 0] = y
                    t = _mix(y ^ salt[s]) if y != 0 else np.uint64(0)
                    if s < K0:
                        h_rest += t - term[s]
                    else:
                        h_own += t - term[s]
                    term[s] = t
            f = fam[s]
            if leaving and fam_root[f] == s and not flags[f]:
                flags[f] = 1
                if f == 0:
                    h_own += _mix(np.uint64(0xD1B54A32D192ED03) + np.uint64(f))
                else:
                    h_rest += _mix(np.uint64(0xD1B54A32D192ED03) + np.uint64(f))
        steps += 1
        if n >= record_from:
            hr = h_rest if h_rest != 0 else one
            ho = h_own if h_own != 0 else one
            reason, matched = _look_up_hashes(hr, hr ^ _mix(ho), n, hkeys, hvals, hcount, rkeys, rvals, rcount,
                                              sample)
            if reason:
                n += 2
                break
        n += 2
    out[0] = reason
    out[1] = n
    out[2] = matched


@njit(cache=True)
def family_kernel(
    n, n_end, deadline_steps, K0, T, fam, same_ptr, same_idx, same_col, tab, phase, down_ptr, down_idx,
    fam_root, H, flags, cur, killer, first_hit, hits, nhits, hkeys, hvals, hcount, hashing, sample, out,
):  # pragma: no cover - compiled
    """Decide the shapes K0..K - 1 of S's own family at heights n, n + 2, … ≤ n_end (at most
    ``deadline_steps``), once the rest is periodic: its values at the same height come from row
    ``phase`` of ``tab`` (phase 0 at the start of each period of the rest).  With ``hashing``, the
    state of S's family (its windows and bit) at each phase 0 is looked up and stored (block i kept
    when i & sample = 0) in ``hkeys``; ``out`` as for :func:`scan_kernel` (reasons 0, 1, 2)."""
    K = T.shape[0]
    plen = tab.shape[0]
    no_base = np.zeros((1, 1), dtype=np.uint8)  # S's family is above its base region here
    no_mode = np.zeros((1, 1), dtype=np.int32)
    steps = 0
    reason = 0
    matched = 0
    while n <= n_end and steps < deadline_steps:
        _values(n, K0, T, fam, same_ptr, same_idx, same_col, tab, phase, down_ptr, down_idx, no_base,
                no_mode, H, flags, cur, killer)
        _record_hits(n, fam_root, 1, cur, first_hit, hits, nhits)
        _shift(K0, K, T, fam, fam_root, H, flags, cur)
        steps += 1
        n += 2
        phase += 1
        if phase == plen:
            phase = 0
            if hashing:
                got = _phase_zero(H, flags, K0, K, n, hkeys, hvals, hcount, sample)
                if got != 0:
                    reason = 1 if got > 0 else 2
                    matched = got
                    break
    out[0] = reason
    out[1] = n
    out[2] = matched


@njit(cache=True)
def family_kernel_short(
    n, n_end, deadline_steps, K0, T, rest_p, phase, fsame_ptr, fsame_idx, in_ptr, in_src, in_j, root, H,
    flags, cur, first_hit, hits, nhits, hkeys, hvals, hcount, hashing, sample, out,
):  # pragma: no cover - compiled
    """:func:`family_kernel` for t(S ÷ 2) < 64 (one word of window per shape), driven by what a
    value changes rather than by what a shape reads: ``rest_p[phase]`` has bit r set when shape
    K0 + r has a move that keeps the height into a P shape of the rest; ``pending[r]`` bit i is set
    when shape K0 + r has a move down into a shape that was P, at the height i steps ahead (rebuilt
    from the windows on entry, then kept up to date along the incoming moves down ``in_*`` of each
    shape found P).  The moves that keep the height within S's family: ``fsame_*``."""
    K = T.shape[0]
    R = K - K0
    plen = rest_p.shape[0]
    pending = np.zeros(R, dtype=np.uint64)
    for r in range(R):
        h = H[K0 + r, 0]
        if h == 0:
            continue
        for e in range(in_ptr[r], in_ptr[r + 1]):
            j = in_j[e]
            for i in range(j):
                if (h >> np.uint64(j - 1 - i)) & np.uint64(1):
                    pending[in_src[e]] |= np.uint64(1) << np.uint64(i)
    Tr = T[root]
    mask = (np.uint64(1) << np.uint64(Tr)) - np.uint64(1)
    steps = 0
    reason = 0
    matched = 0
    while n <= n_end and steps < deadline_steps:
        f0 = flags[0]
        for r in range(R):
            v = 1
            if f0 or pending[r] & np.uint64(1) or (rest_p[phase, r >> 6] >> np.uint64(r & 63)) & np.uint64(1):
                v = 0
            else:
                for e in range(fsame_ptr[r], fsame_ptr[r + 1]):
                    if cur[fsame_idx[e]]:
                        v = 0
                        break
            cur[K0 + r] = v
        if cur[root]:
            if first_hit[0] == 0:
                first_hit[0] = n
            if nhits[0] < hits.shape[0]:
                hits[nhits[0], 0] = 0
                hits[nhits[0], 1] = n
                nhits[0] += 1
        for r in range(R):
            pending[r] >>= np.uint64(1)
        for r in range(R):
            x = H[K0 + r, 0]
            v = cur[K0 + r]
            if v:
                for e in range(in_ptr[r], in_ptr[r + 1]):
                    pending[in_src[e]] |= np.uint64(1) << np.uint64(in_j[e] - 1)
            if K0 + r == root and (x >> np.uint64(Tr - 1)) & np.uint64(1):
                flags[0] = 1
            H[K0 + r, 0] = ((x << np.uint64(1)) | np.uint64(v)) & mask
        steps += 1
        n += 2
        phase += 1
        if phase == plen:
            phase = 0
            if hashing:
                got = _phase_zero(H, flags, K0, K, n, hkeys, hvals, hcount, sample)
                if got != 0:
                    reason = 1 if got > 0 else 2
                    matched = got
                    break
    out[0] = reason
    out[1] = n
    out[2] = matched


@njit(cache=True)
def insert(keys, vals, h, n):  # pragma: no cover - compiled
    cap = keys.shape[0]
    i = np.int64(h & np.uint64(cap - 1))
    while keys[i] != 0:
        i = (i + 1) & (cap - 1)
    keys[i] = h
    vals[i] = n


@njit(cache=True)
def rehash(keys, vals, nkeys, nvals):  # pragma: no cover - compiled
    cap = nkeys.shape[0]
    for i in range(keys.shape[0]):
        h = keys[i]
        if h != 0:
            j = np.int64(h & np.uint64(cap - 1))
            while nkeys[j] != 0:
                j = (j + 1) & (cap - 1)
            nkeys[j] = h
            nvals[j] = vals[i]


@contextmanager
def _whole_step() -> Iterator[None]:
    """Ctrl-C (SIGINT, in the main thread) waits until the block ends, then raises
    KeyboardInterrupt: a slice of the scan changes the windows in place in its kernel and then the
    height, the counters and the tables in Python, and the checkpoint written on the way out must
    see all of them or none (an interrupt in between saved windows of one height under another,
    or a table past its load)."""
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt


@dataclass
class Period:
    """A certified period of the scan: the state before height ``start`` recurs before height
    ``start + length`` (``length`` in units of x, i.e. twice the number of steps)."""

    start: int
    length: int


def _table(capacity: int = 1 << 12) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(capacity, dtype=np.uint64), np.zeros(capacity, dtype=np.int64)


def _unpack(keys: np.ndarray, vals: np.ndarray, capacity: int) -> tuple[np.ndarray, np.ndarray]:
    """A table of ``capacity`` slots holding the packed entries (``keys``, ``vals``) of a checkpoint,
    or twice as many while it would be more than half full (a table is grown at the step after it
    passed half: a hash collision's extra entry can be saved before that)."""
    n = keys.shape[0]
    if n and n >= capacity:
        raise ValueError(f"{n} entries in a table of {capacity} slots")
    while capacity < 2 * n:
        capacity *= 2
    nkeys, nvals = _table(capacity)
    if n:
        rehash(keys, vals, nkeys, nvals)
    return nkeys, nvals


@dataclass(kw_only=True)
class ScanState:
    """Everything a scan needs to continue: the next height, the windows ``H`` and family bits
    ``flags``, the first P-hit of every family, the P-hits, the hash tables of states.

    The scan has two stages.  First every shape is decided at every height, and two tables of state
    hashes are kept: of the whole state (``hkeys``) and of the **rest** (``rkeys``: every family but
    S's own; they never depend on S's family, so the rest evolves on its own).  Once the rest is
    certified periodic (``rest``), its values at each phase of its period are tabulated (``tab``)
    and from ``family_from`` on only S's own family is decided; its state is hashed at each phase 0
    of the rest (in ``hkeys``, reset at the switch): a repeat there is a repeat of the whole state."""

    n: int
    H: np.ndarray
    flags: np.ndarray
    cur: np.ndarray
    killer: np.ndarray
    first_hit: np.ndarray
    hits: list[tuple[int, int]]
    """(family, x) for each P-position E + x found."""
    hkeys: np.ndarray
    hvals: np.ndarray
    hcount: int
    rkeys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.uint64))
    rvals: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    rcount: int = 0
    period: Period | None = None
    period_at: int = 0
    """The height after which ``period`` was certified."""
    rest: Period | None = None
    """The certified period of the rest (the families other than S's own)."""
    rest_at: int = 0
    """The height after which ``rest`` was certified."""
    tab: np.ndarray | None = None
    """Row i: the values (bits) of the rest's shapes that S's family reads, at phase i of ``rest``."""
    family_from: int = 0
    """The height from which only S's own family is decided (0: not yet)."""
    blocks: int = 0
    """Phase-0 states of S's family looked up so far (block i is stored when i & sample = 0)."""
    snapshots: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    seconds: float = 0.0
    sample: int = 0
    """States stored in the hash tables: after the heights n with ((n - 1) / 2) & sample = 0
    (blocks i & sample = 0 once only S's family is decided)."""
    snap_every: int = SNAPSHOT_EVERY
    """Steps between snapshots."""


REGION_POSITION_BYTES = 80
"""Bytes a gcd-1 position to solve takes while a base region is listed and solved
(:meth:`BaseRegion.of`), besides the rows of ``mode``, ``which`` and ``base`` (counted apart): its key
(the members up to :func:`_region_bound`, 8 bytes a 64-bit word) and value (1 byte) kept, and while
it is listed the room the key arrays grow into and their hash table, and the memo's entry for a P
result (``sylver.solver.gcd.context.MEMO_BYTES``, 5-7 % of them); the Positions of one batch at a
time.  Measured with the resident memory of the process (bench/bench_shapes.py --bytes, 29 November
2026): {16,30,42,56}, 760,895 positions, 76 bytes each at the peak, 26 once the region is made
(with the old code, one Position kept per position: 966 at the peak, 565 after)."""
REGION_BATCH = 4096
"""Base-region positions made into Positions and solved at a time (:meth:`BaseRegion.of`): each batch
is let go before the next is made, so that the region itself keeps only its keys and values."""


def _region_fits(g: ShapeGraph, which: np.ndarray, positions: int, memory: int | None, *,
                 so_far: bool = False) -> None:
    """Raise TooLargeError when the ``positions`` listed in the base region of ``g`` would pass
    ``memory`` with the region's ``which`` rows (``REGION_POSITION_BYTES`` each): checked as the
    listing grows (``so_far``: more are still to come) and once it is done, before any is solved."""
    if memory is None:
        return
    need = int(which.nbytes) + positions * REGION_POSITION_BYTES
    if need > memory:
        from sylver.errors import TooLargeError
        from sylver.solver.engine import format_memory

        many = f"more than {positions:,}" if so_far else f"{positions:,}"
        raise TooLargeError(
            f"the base region of {g.position.braces()} lists {many} gcd-1 positions to solve, "
            f"about {format_memory(need)}{' at least' if so_far else ''} ({REGION_POSITION_BYTES} bytes each and "
            f"{format_memory(int(which.nbytes))} of rows), more than the {format_memory(memory)} left for it: "
            f"use a larger --memory (the shape graphs and scans share half of what the process itself leaves of it)"
        )


def region_positions(keys: np.ndarray, bound: int) -> list[Position]:
    """The Positions of base-region keys (rows of :attr:`BaseRegion.keys`: the members up to ``bound``
    of each, every number above it a member), with the minimal generators and Apéry sets that
    :func:`~sylver.solver.gcd.shapekernels.semigroups` finds (no Python work per generator)."""
    from sylver.solver.gcd import shapekernels as sk

    K = int(keys.shape[0])
    if not K:
        return []
    gen_ptr, gens, ap_ptr, aps = sk.semigroups(np.ascontiguousarray(keys), K, bound)
    aps.setflags(write=False)
    gens_list = gens.tolist()
    gp = gen_ptr.tolist()
    return [Position._from_semigroup(Semigroup._from_apery(tuple(gens_list[gp[k] : gp[k + 1]]), ap))
            for k, ap in enumerate(np.split(aps, ap_ptr[1:-1]))]


def region_key(position: Position, bound: int) -> np.ndarray:
    """The key of a gcd-1 position in a base region keyed up to ``bound`` (past its Frobenius number):
    its members 0 .. ``bound`` as 64-bit words, the least significant first."""
    from sylver.solver.gcd.shapes import int_words

    return int_words([members(position.generators, bound)], bound // 64 + 1)[0]


def _solve_keys(keys: np.ndarray, bound: int, base_fn: Callable[[list[Position]], list[bool]],
                batch: int | None) -> np.ndarray:
    """The values (1 for P) of the positions of ``keys``, decided by ``base_fn`` ``batch`` positions
    (``REGION_BATCH`` by default) at a time, each batch's Positions made just before and let go after."""
    size = max(1, batch or REGION_BATCH)
    K = int(keys.shape[0])
    values = np.zeros(K, dtype=np.uint8)
    for lo in range(0, K, size):
        got = base_fn(region_positions(keys[lo : lo + size], bound))
        values[lo : lo + len(got)] = np.fromiter((1 if v else 0 for v in got), dtype=np.uint8, count=len(got))
    return values


@dataclass
class BaseRegion:
    """The base region of a shape graph: for each shape s and odd height n ≤ t(E ÷ 2), how its value
    is found.

    ``mode[s, i]`` (i = (n - 3) / 2): -2 when the even part of the position <E, n + 2δ> is E
    itself (every sum of two anchors is in E): then its moves are those of the shape and it is
    decided like any other height; s' ≥ 0 when the even part is a larger E' and the position is
    the shape s' of family E' at the same height (decided earlier in the step: E' has fewer
    gaps); -1 when it is solved with the gcd-1 solver (``base[s, i]``, 1 for P), the position of
    key ``which[s, i]``.

    The positions solved are kept as keys, not Positions: row k of ``keys`` holds the members of
    position k up to ``bound`` (past its Frobenius number: the semigroup's fingerprint), ``values[k]``
    its value (1 for P); :meth:`positions` and :meth:`items` make the Positions again."""

    base: np.ndarray
    mode: np.ndarray
    which: np.ndarray
    keys: np.ndarray
    """Row k: the members up to ``bound`` of position k (``bound // 64 + 1`` 64-bit words)."""
    bound: int
    values: np.ndarray
    """Entry k: 1 when position k is P, else 0."""

    def __len__(self) -> int:
        """The number of distinct gcd-1 positions it solved."""
        return int(self.keys.shape[0])

    def nbytes(self) -> int:
        """The bytes it holds: its arrays."""
        return int(self.base.nbytes + self.mode.nbytes + self.which.nbytes + self.keys.nbytes + self.values.nbytes)

    def arrays(self) -> list[np.ndarray]:
        """Its arrays."""
        return [self.base, self.mode, self.which, self.keys, self.values]

    def positions(self, start: int = 0, stop: int | None = None) -> list[Position]:
        """Its positions ``start`` .. ``stop`` - 1 (all by default), made from their keys."""
        return region_positions(self.keys[start:stop], self.bound)

    def items(self, batch: int = REGION_BATCH) -> Iterator[tuple[Position, bool]]:
        """Each position and its value (True for P), made ``batch`` at a time."""
        for lo in range(0, len(self), batch):
            yield from zip(self.positions(lo, lo + batch), (bool(v) for v in self.values[lo : lo + batch]),
                           strict=True)

    @classmethod
    def of(cls, g: ShapeGraph, base_fn: Callable[[list[Position]], list[bool]],
           deadline: float | None = None, *, compiled: bool = True, memory: int | None = None,
           batch: int | None = None) -> BaseRegion:
        """The base region of ``g``, its gcd-1 positions decided with ``base_fn``, called with
        ``batch`` positions at a time (``REGION_BATCH``; one Position per distinct semigroup, made
        for its batch only); listed by the numba kernel
        :func:`~sylver.solver.gcd.shapekernels.base_region`, or with ``compiled=False`` by
        :func:`list_region_python` (the reference: both list the same).  ``memory``: TooLargeError
        when its positions would pass it (:func:`_region_fits`, as they are listed)."""
        mode, which, reps, keys = (list_region if compiled else list_region_python)(g, deadline, memory)
        del reps  # the (shape, height) of each position: not kept while they are solved
        bound = _region_bound(g)
        values = _solve_keys(keys, bound, base_fn, batch)
        base = np.zeros(mode.shape, dtype=np.uint8)
        for lo in range(0, mode.shape[0], REGION_SHAPES):  # a slice at a time: no temporary as large as the rows
            rows = which[lo : lo + REGION_SHAPES]
            solved = rows >= 0
            base[lo : lo + REGION_SHAPES][solved] = values[rows[solved]]
        return cls(base=base, mode=mode, which=which, keys=keys, bound=bound, values=values)

    def restrict(self, sub: ShapeGraph, base_fn: Callable[[list[Position]], list[bool]]) -> BaseRegion:
        """The base region of ``sub``, a :meth:`~sylver.solver.gcd.shapes.ShapeGraph.subgraph` of this
        region's graph: its rows, with the shapes renumbered; a position that is a shape outside
        ``sub`` is solved with ``base_fn`` instead (``sub``'s own graph would do the same).  Its keys
        are this region's (the same ``bound``: past the Frobenius number of every one)."""
        keep = sub.parent_index
        assert keep is not None, "not a subgraph"
        Tmax = int(sub.fam_T.max()) if sub.families else 0
        width = max(1, (Tmax - 1) // 2)
        base = self.base[keep, :width].copy()
        mode = self.mode[keep, :width].copy()
        which = self.which[keep, :width].copy()
        new = np.full(self.base.shape[0], -1, dtype=np.int64)
        new[keep] = np.arange(keep.size)
        shape = mode >= 0
        mode[shape] = new[mode[shape]]
        outside = np.argwhere(shape & (mode < 0))
        used = np.unique(which[which >= 0])
        renumber = np.full(len(self) + 1, -1, dtype=np.int32)
        renumber[used] = np.arange(used.size, dtype=np.int32)
        which = np.where(which >= 0, renumber[which], -1).astype(np.int32)
        keys, values = self.keys[used], self.values[used]
        if outside.size:
            extra = [sub.concrete(int(s), 3 + 2 * int(i)) for s, i in outside]
            got = base_fn(extra)
            start = len(keys)
            keys = np.concatenate((keys, np.array([region_key(p, self.bound) for p in extra], dtype=np.uint64)))
            values = np.concatenate((values, np.array([1 if v else 0 for v in got], dtype=np.uint8)))
            for j, (s, i) in enumerate(outside):
                base[s, i] = values[start + j]
                which[s, i] = start + j
        return BaseRegion(base=base, mode=mode, which=which, keys=keys, bound=self.bound, values=values)


def _region_arrays(g: ShapeGraph) -> tuple[np.ndarray, np.ndarray]:
    """``mode`` and ``which`` of :class:`BaseRegion` for ``g``, every entry -1: one row per shape, one
    column per odd height 3 .. t(E ÷ 2) of the largest t."""
    Tmax = int(g.fam_T.max()) if g.families else 0
    width = max(1, (Tmax - 1) // 2)
    return np.full((g.shapes, width), -1, dtype=np.int32), np.full((g.shapes, width), -1, dtype=np.int32)


def _region_bound(g: ShapeGraph) -> int:
    """A bound past the Frobenius number of every base-region position of ``g``: that of
    <E, n + 2δ, …> is below n + F(E) + 2 (every odd number from there on is n plus an even member),
    F(E) = 2·t(E ÷ 2) and n ≤ t(E ÷ 2) ≤ t, so 3·t + 2 with t the largest t(E ÷ 2) of the graph.  The
    members up to it tell a position's semigroup (the same bound for all: the same semigroup met
    in several families is one position)."""
    Tmax = int(g.fam_T.max()) if g.families else 0
    return 3 * Tmax + 2


Listing = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""``mode`` and ``which`` of :class:`BaseRegion`, and for each position to solve (``which`` k) the
(shape, height) where it is first met (row k, shapes and heights in order) and its key (row k of
:attr:`BaseRegion.keys`, the members up to :func:`_region_bound`)."""


def list_region_python(g: ShapeGraph, deadline: float | None = None, memory: int | None = None) -> Listing:
    """The listing of :meth:`BaseRegion.of` in Python (the reference of
    :func:`~sylver.solver.gcd.shapekernels.base_region`).  The positions are told apart by their members
    up to :func:`_region_bound` (their keys: one gcd-1 solve per distinct semigroup); TooLargeError
    when they would pass ``memory`` (:func:`_region_fits`)."""
    from sylver.solver.gcd.shapes import int_words

    mode, which = _region_arrays(g)
    bound = _region_bound(g)
    index = {(int(g.fam[s]), g.offsets[s]): s for s in range(g.shapes)}
    wanted: dict[int, int] = {}
    reps: list[tuple[int, int]] = []
    for s in range(g.shapes):
        if s % 256 == 0:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"the base region of {g.position.braces()} was not listed in time")
            _region_fits(g, which, len(reps), memory, so_far=True)
        gaps = g.fam_gaps[int(g.fam[s])]
        fam_gens = family_generators(gaps)
        ds = _offsets(g.offsets[s])
        for n in range(3, int(g.T[s]) + 1, 2):
            i = (n - 3) // 2
            even = gaps
            for a in range(len(ds)):
                for b in range(a, len(ds)):
                    y = n + ds[a] + ds[b]  # (a_a + a_b) / 2
                    if (even >> y) & 1:
                        even = close(even, y)
            if even == gaps:
                mode[s, i] = -2
                continue
            f2 = g.fam_index.get(even)
            if f2 is not None and n > max(even.bit_length() - 1, 0):
                s2 = index.get((f2, reduce_offsets(g.offsets[s], even)))
                if s2 is not None:
                    mode[s, i] = s2
                    continue
            key = members([*fam_gens, *(n + 2 * d for d in ds)], bound)
            k = wanted.setdefault(key, len(reps))
            if k == len(reps):
                reps.append((s, n))
            which[s, i] = k
    _region_fits(g, which, len(reps), memory)
    keys = int_words(sorted(wanted, key=wanted.__getitem__), bound // 64 + 1)
    return mode, which, np.array(reps, dtype=np.int32).reshape(-1, 2), keys


REGION_SHAPES = 4096
"""Shapes listed per call of the base-region kernel (between two looks at the deadline and the memory)."""


def list_region(g: ShapeGraph, deadline: float | None = None, memory: int | None = None) -> Listing:
    """:func:`list_region_python` with the numba kernel :func:`~sylver.solver.gcd.shapekernels.base_region`
    (the same listing).  Its key arrays grow in place (``ndarray.resize``: no second copy) and are cut
    to the keys found at the end; TooLargeError as soon as the keys listed would pass ``memory``
    (:func:`_region_fits`)."""
    from sylver.solver.gcd import shapekernels as sk
    from sylver.solver.gcd.shapes import int_words

    mode, which = _region_arrays(g)
    Tmax = int(g.fam_T.max()) if g.families else 0
    W = Tmax // 64 + 1  # bits 0 .. Tmax: every gap and offset
    bound = _region_bound(g)
    WM = bound // 64 + 1
    fam_gaps = int_words(g.fam_gaps, W)
    fam_table = np.zeros(_pow2(2 * g.families), dtype=np.int32)
    sk.rehash(np.zeros(g.families, dtype=np.int32), fam_gaps, g.families, fam_table)
    offs = np.ascontiguousarray(g.offs[:, :W]) if g.offs.shape[1] >= W else int_words(list(g.offsets), W)
    shape_table = np.zeros(_pow2(2 * g.shapes), dtype=np.int32)
    sk.rehash(g.fam, offs, g.shapes, shape_table)
    fam_even = sk.even_members(fam_gaps, WM)
    fam_T = g.fam_T.astype(np.int64)
    T = g.T.astype(np.int64)
    cap = _pow2(max(1024, 2 * mode.shape[1]))
    key_mem = np.zeros((cap, WM), dtype=np.uint64)
    key_rep = np.zeros((cap, 2), dtype=np.int32)
    key_table = np.zeros(2 * cap, dtype=np.int32)
    counts = np.zeros(1, dtype=np.int64)
    s = 0
    while s < g.shapes:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"the base region of {g.position.braces()} was not listed in time")
        _region_fits(g, which, int(counts[0]), memory, so_far=True)
        s = sk.base_region(fam_gaps, fam_T, fam_table, fam_even, g.fam, offs, T, shape_table, s,
                           min(s + REGION_SHAPES, g.shapes), mode, which, bound, key_mem, key_rep,
                           key_table, counts)
        if counts[0] + mode.shape[1] > cap:  # room for the keys of the next shape's heights
            _region_fits(g, which, int(counts[0]), memory, so_far=True)
            cap *= 2
            del key_table  # rebuilt below: the old one is not needed meanwhile
            key_mem.resize((cap, WM), refcheck=False)  # in place where the allocator can (new rows 0)
            key_rep.resize((cap, 2), refcheck=False)
            key_table = np.zeros(2 * cap, dtype=np.int32)
            sk.rehash(np.zeros(cap, dtype=np.int32), key_mem, int(counts[0]), key_table)
    del key_table
    K = int(counts[0])
    _region_fits(g, which, K, memory)
    key_mem.resize((K, WM), refcheck=False)
    key_rep.resize((K, 2), refcheck=False)
    return mode, which, key_rep, key_mem


def _pow2(n: int) -> int:
    """The least power of 2 ≥ n (and ≥ 2)."""
    return 1 << max(1, (n - 1).bit_length())


def fits(position: Position, *, graph_bytes: int, shapes: int, down_moves: int, Tmax: int, memory: int) -> int:
    """Raise TooLargeError unless a scan of ``position`` fits in ``memory``: its graph's new bytes,
    and about what the scan holds besides (its base region's rows, the moves down by target, the
    windows and the state's arrays), checked before it is made; else return that estimate (what is
    left of ``memory`` is for the listing of its base region, :func:`list_region`, and then for
    what the scan grows)."""
    width = max(1, (Tmax - 1) // 2)
    Wd = max(1, (Tmax + 63) // 64)
    need = graph_bytes + shapes * (5 * width + 8 * Wd + 26) + 5 * down_moves + (1 << 17)
    if need > memory:
        from sylver.errors import TooLargeError
        from sylver.solver.engine import format_memory

        raise TooLargeError(
            f"the scan of {position.braces()} needs about {format_memory(need)} ({shapes:,} shapes, "
            f"{down_moves:,} moves down), more than the {format_memory(memory)} left for it: use a larger "
            f"--memory (the shape graphs and scans share half of what the process itself leaves of it)"
        )
    return need


class Scan:
    """The scan of the odd moves of a position S with g = 2 over its shape graph.

    ``base(positions)`` decides a list of gcd-1 positions (True = P); by default each is solved
    with :func:`sylver.solver.solve`.
    """

    def __init__(
        self,
        position: Position,
        *,
        graph: ShapeGraph | None = None,
        base: Callable[[list[Position]], list[bool]] | None = None,
        checkpoint: str | Path | None = None,
        memory: int = 1 << 30,
        deadline: float | None = None,
        region: BaseRegion | None = None,
        keep_base: bool = True,
        room: Callable[[], int] | None = None,
        base_batch: int | None = None,
    ) -> None:
        """``region``: the base region of the union graph that ``graph`` is a subgraph of;
        ``base_batch``: the base region's positions given to ``base`` at a time (``REGION_BATCH``);
        ``keep_base`` false: no :attr:`base_list` (the region's keys and values are let go once its
        values are in the scan's rows).

        ``memory`` bounds the scan: a graph built here (TooLargeError past it, as the scan's arrays
        estimated by :func:`fits` and then its base region's positions, :func:`_region_fits`), and
        the parts that grow while it runs (the hash tables of states, the snapshots, the table of
        the rest), each within its share of ``memory`` and all within ``room()``, the bytes the scan
        may still add (by default ``memory`` less what it holds; a solve passes what is left of its
        pool, :meth:`sylver.solver.gcd.context.Context.room`)."""
        self.position = position
        self.keep_base = keep_base
        region_memory = None
        if graph is None:
            graph = build(position, deadline, memory)
            need = fits(position, graph_bytes=graph.nbytes(), shapes=graph.shapes,
                        down_moves=graph.down_idx.shape[0], Tmax=int(graph.fam_T.max()) if graph.families else 0,
                        memory=memory)
            region_memory = memory - need
        self.graph = graph
        self.checkpoint = Path(checkpoint) if checkpoint is not None else None
        self.checkpoint_every = checkpoint_seconds() if checkpoint is not None else CHECKPOINT_SECONDS
        self.memory = memory
        self._room: Callable[[], int] = room if room is not None else lambda: self.memory - self.memory_bytes()
        self.deadline = deadline
        g = self.graph
        self.Tmax = int(g.fam_T.max()) if g.families else 0
        self.Wd = max(1, (self.Tmax + 63) // 64)
        # the step deciding height n reads the base region iff n <= Tmax: from the state after
        # height Tmax - 1 (or Tmax) on, the next state is a function of the current one
        self.record_from = max(3, self.Tmax if self.Tmax % 2 else self.Tmax - 1)
        # S's own family has the most gaps, so its shapes come last in the graph's order
        self.K0 = int(np.count_nonzero(g.fam != 0))
        assert (g.fam[self.K0:] == 0).all(), "S's family is not last"
        self._no_tab = np.zeros((1, 1), dtype=np.uint64)
        self.cols, self.same_col = self._rest_columns()
        self._base_fn = base or solve_base
        self._base_batch = base_batch
        loaded = self._load()  # first: a damaged checkpoint fails at once
        self.resumed_from = loaded.n - 2 if loaded is not None else None
        """The height the checkpoint had reached when this scan was loaded from it (else None)."""
        self.state = loaded or self._fresh()
        self.base, self.mode = self._base_values(region, region_memory)

    def _rest_columns(self) -> tuple[np.ndarray, np.ndarray]:
        """The rest's shapes that S's family reads (by moves that keep the height), and for each
        move of S's family (the last moves of ``same_idx``) the column of its target in the table
        of the rest (-1: a shape of S's family)."""
        g = self.graph
        targets = g.same_idx[int(g.same_ptr[self.K0]):]
        inner = targets < self.K0
        cols = np.unique(targets[inner]).astype(np.int64)
        same_col = np.full(targets.shape[0], -1, dtype=np.int32)
        same_col[inner] = np.searchsorted(cols, targets[inner])
        return cols, same_col

    # -- the base region ------------------------------------------------------------------------
    def _base_values(self, region: BaseRegion | None, memory: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The base region (see :class:`BaseRegion`): computed here (within ``memory``), or ``region``
        (that of the union graph this scan's graph was taken from) restricted to it."""
        if region is None:
            region = BaseRegion.of(self.graph, self._base_fn, self.deadline, memory=memory, batch=self._base_batch)
        else:
            region = region.restrict(self.graph, self._base_fn)
        self.base_positions = len(region)
        self.region = region if self.keep_base else None
        """The base region (its keys and values, for :attr:`base_list`), kept with ``keep_base``."""
        return region.base, region.mode

    @property
    def base_list(self) -> list[tuple[Position, bool]]:
        """The base-region positions solved with the gcd-1 solver and their outcomes (True: P), made
        from the region's keys when asked (none without ``keep_base``)."""
        return list(self.region.items()) if self.region is not None else []

    # -- state ----------------------------------------------------------------------------------
    def _fresh(self) -> ScanState:
        g = self.graph
        hkeys, hvals = _table()
        rkeys, rvals = _table()
        return ScanState(
            n=3,
            H=np.zeros((g.shapes, self.Wd), dtype=np.uint64),
            flags=np.zeros(g.families, dtype=np.uint8),
            cur=np.zeros(g.shapes, dtype=np.uint8),
            killer=np.full(g.shapes, -1, dtype=np.int64),
            first_hit=np.zeros(g.families, dtype=np.int64),
            hits=[],
            hkeys=hkeys, hvals=hvals, hcount=0, rkeys=rkeys, rvals=rvals, rcount=0,
        )

    @property
    def scanned_to(self) -> int:
        """The largest odd height decided (1 before the scan starts)."""
        return self.state.n - 2

    def arrays(self) -> list[np.ndarray]:
        """Its numpy arrays and its graph's (which a union graph may share)."""
        st = self.state
        own = [self.base, self.mode, self.cols, self.same_col, st.H, st.flags, st.cur, st.killer, st.first_hit,
               st.hkeys, st.hvals, st.rkeys, st.rvals, *(a for pair in st.snapshots.values() for a in pair)]
        if st.tab is not None:
            own.append(st.tab)
        own += getattr(self, "_incoming_arrays", ())
        region: BaseRegion | None = getattr(self, "region", None)
        if region is not None:
            own += region.arrays()
        short = getattr(self, "_short_arrays", None)
        if short is not None:
            own += short[1].values()
        return [*self.graph.arrays(), *own]

    def object_bytes(self) -> int:
        """The bytes its Python objects hold: its graph's (its base region, when kept, is arrays)."""
        return self.graph.object_bytes()

    def memory_bytes(self) -> int:
        """The bytes it holds: its arrays (and its graph's) and its Python objects."""
        return int(sum(a.nbytes for a in {id(a): a for a in self.arrays()}.values())) + self.object_bytes()

    def _run_kernel(self, st: ScanState, n_end: int, steps: int, record_from: int,
                    hits: np.ndarray, nhits: np.ndarray, out: np.ndarray, hcount: np.ndarray,
                    rcount: np.ndarray | None = None, short: bool = False, tab: np.ndarray | None = None,
                    phase: int = 0) -> None:
        """Decide every shape (the first stage); ``rcount`` None: no table of the rest.  ``short``:
        with :func:`scan_kernel_short` when it applies (:meth:`short_applies`; worth it for slices of
        many heights: it rebuilds its pending bits on entry), which can also fill ``tab`` from row
        ``phase`` on (the rest's values that S's family reads)."""
        g = self.graph
        rkeys, rvals = (st.rkeys, st.rvals) if rcount is not None else (st.rkeys[:0], st.rvals[:0])
        if short and self.short_applies(st.n):
            in_ptr, in_src, in_j = self._incoming()
            scan_kernel_short(
                st.n, n_end, steps, self.K0, g.T, g.fam, g.same_ptr, g.same_idx, in_ptr, in_src, in_j,
                g.fam_root, st.H, st.flags, st.cur, st.first_hit, hits, nhits, st.hkeys, st.hvals, hcount, rkeys,
                rvals, rcount if rcount is not None else np.zeros(1, dtype=np.int64), record_from, st.sample,
                tab if tab is not None else self._no_tab[:0], self.cols, phase, out,
            )
            return
        assert tab is None
        scan_kernel(
            st.n, n_end, steps, self.K0, g.T, g.fam, g.same_ptr, g.same_idx, g.down_ptr, g.down_idx,
            g.fam_root, self.base, self.mode, st.H, st.flags, st.cur, st.killer, st.first_hit, hits, nhits,
            st.hkeys, st.hvals, hcount, rkeys, rvals,
            rcount if rcount is not None else np.zeros(1, dtype=np.int64), record_from, st.sample, out,
        )

    def room(self) -> int:
        """The bytes this scan may still add while it runs: what its ``room`` says (see the class),
        less the moves down by target that :func:`fits` counted and the scan has not made yet (the
        heights above the base regions need them)."""
        pending = 0
        if getattr(self, "_incoming_arrays", None) is None and 1 <= self.Tmax < 64:
            pending = 5 * int(self.graph.down_idx.shape[0]) + 8 * (self.graph.shapes + 1)
        return self._room() - pending

    def short_applies(self, n: int) -> bool:
        """Whether :func:`scan_kernel_short` can decide the heights from n on: above every base
        region, every t(E ÷ 2) < 64."""
        return 1 <= self.Tmax < 64 and n > self.Tmax

    def _incoming(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The moves down of the graph by target: for shape c, ``in_src[in_ptr[c]:in_ptr[c + 1]]``
        are the shapes with a move down by ``in_j[…]`` into c (built once)."""
        cached = getattr(self, "_incoming_arrays", None)
        if cached is None:
            g = self.graph
            cached = self._incoming_arrays = incoming(g.down_ptr, g.down_idx, 0)
        return cached

    def _phase(self, n: int) -> int:
        rest = self.state.rest
        assert rest is not None
        return ((n - rest.start) // 2) % (rest.length // 2)

    def _run_family(self, st: ScanState, n_end: int, steps: int, hashing: bool, hits: np.ndarray,
                    nhits: np.ndarray, out: np.ndarray, hcount: np.ndarray) -> None:
        """Decide S's own family only (the second stage)."""
        g = self.graph
        assert st.tab is not None
        if 1 <= self.Tmax < 64:
            short = self._short_family(st.tab)
            family_kernel_short(
                st.n, n_end, steps, self.K0, g.T, short["rest_p"], self._phase(st.n), short["fsame_ptr"],
                short["fsame_idx"], short["in_ptr"], short["in_src"], short["in_j"], g.root, st.H, st.flags,
                st.cur, st.first_hit, hits, nhits, st.hkeys, st.hvals, hcount, hashing, st.sample, out,
            )
            return
        family_kernel(
            st.n, n_end, steps, self.K0, g.T, g.fam, g.same_ptr, g.same_idx, self.same_col, st.tab,
            self._phase(st.n), g.down_ptr, g.down_idx, g.fam_root, st.H, st.flags, st.cur,
            st.killer, st.first_hit, hits, nhits, st.hkeys, st.hvals, hcount, hashing, st.sample, out,
        )

    def _short_family(self, tab: np.ndarray) -> dict[str, np.ndarray]:
        """The arrays of :func:`family_kernel_short` for the table ``tab`` of the rest (built once)."""
        cached = getattr(self, "_short_arrays", None)
        if cached is not None and cached[0] is tab:
            return cached[1]
        g, K0 = self.graph, self.K0
        R = g.shapes - K0
        fsame_ptr = np.zeros(R + 1, dtype=np.int64)
        fsame: list[int] = []
        reads: list[tuple[int, np.ndarray]] = []  # (r, the table's columns that shape K0 + r reads)
        c0 = int(g.same_ptr[K0])
        for r in range(R):
            lo, hi = int(g.same_ptr[K0 + r]), int(g.same_ptr[K0 + r + 1])
            col = self.same_col[lo - c0 : hi - c0]
            if (col >= 0).any():
                reads.append((r, col[col >= 0]))
            fsame.extend(int(c) for c in g.same_idx[lo:hi][col < 0])
            fsame_ptr[r + 1] = len(fsame)
        words = (R + 63) // 64
        rest_p = np.zeros((tab.shape[0], words), dtype=np.uint64)
        chunk = max(1, (1 << 26) // max(1, 8 * tab.shape[1] * 8))  # rows of at most 64 MB unpacked
        for a in range(0, tab.shape[0], chunk):  # by chunks of rows: a long period's table is large
            bits = np.unpackbits(tab[a:a + chunk].view(np.uint8), axis=1, bitorder="little")[:, : len(self.cols)]
            rows = np.zeros((bits.shape[0], words * 64), dtype=bool)
            for r, cols in reads:
                rows[:, r] = bits[:, cols].any(axis=1)
            rest_p[a:a + chunk] = np.packbits(rows, axis=1, bitorder="little").view(np.uint64)
        in_ptr, in_src, in_j = incoming(g.down_ptr, g.down_idx, K0)
        arrays = {
            "rest_p": rest_p, "fsame_ptr": fsame_ptr, "fsame_idx": np.array(fsame, dtype=np.int64),
            "in_ptr": in_ptr, "in_src": in_src, "in_j": in_j,
        }
        self._short_arrays = (tab, arrays)
        return arrays

    def run(
        self,
        *,
        until: int | None = None,
        stop: Callable[[Scan], bool] | None = None,
        deadline: float | None = None,
        progress: Callable[[ScanProgress], None] | None = None,
        checkpoint_every: float | None = None,
        past_period: bool = False,
    ) -> None:
        """Scan upward until height ``until`` (odd, inclusive), a certified period, ``stop(self)``
        true (checked between slices), or the ``deadline`` (time.monotonic()).  With ``past_period`` the
        scan goes on after certifying a period and decides every shape at every height (the tests
        compare them all).  The checkpoint is written every ``checkpoint_every`` seconds (default:
        :func:`checkpoint_seconds`), or less often when writing it takes longer than a tenth of that."""
        if checkpoint_every is None:
            checkpoint_every = self.checkpoint_every
        st = self.state
        limit = until if until is not None else 1 << 62
        hits = np.zeros((1 << 16, 2), dtype=np.int64)
        nhits = np.zeros(1, dtype=np.int64)
        out = np.zeros(3, dtype=np.int64)
        steps = 256
        started = time.monotonic()
        last_ck = started
        ck_cost = 0.0
        last_n = st.n
        try:
            while (st.period is None or past_period) and st.n <= limit:
                if stop is not None and stop(self):
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
                t0 = time.monotonic()
                with _whole_step():
                    self._snapshot(st)
                    # never run past the next snapshot point, so snapshots land on fixed heights
                    n_end = min(limit, self._next_snapshot_height(st.n) - 2)
                    nhits[0] = 0
                    if st.family_from:
                        self._family_slice(st, n_end, steps, hits, nhits, out)
                    else:
                        self._full_slice(st, n_end, steps, hits, nhits, out)
                        if st.rest is not None and st.period is None and not past_period:
                            self._enter_family_stage(st, limit)
                    if nhits[0] == hits.shape[0]:  # pragma: no cover - bounded by families × t̄
                        raise RuntimeError("too many P-hits in one slice")
                    st.hits.extend((int(f), int(x)) for f, x in hits[: nhits[0]])
                dt = time.monotonic() - t0
                if dt < SLICE_SECONDS / 2:
                    steps = min(steps * 2, 1 << 24)
                elif dt > SLICE_SECONDS * 2:
                    steps = max(steps // 2, 1)
                now = time.monotonic()
                if progress is not None:
                    rate = (st.n - last_n) / 2 / max(now - started, 1e-9)
                    progress(self.progress(rate, limit if until is not None else None))
                if self.checkpoint is not None and now - last_ck >= max(checkpoint_every, 10 * ck_cost):
                    self.save()
                    last_ck = time.monotonic()
                    ck_cost = last_ck - now
        finally:
            st.seconds += time.monotonic() - started
            if self.checkpoint is not None:
                self.save()

    def _full_slice(self, st: ScanState, n_end: int, steps: int, hits: np.ndarray, nhits: np.ndarray,
                    out: np.ndarray) -> None:
        """A slice of the first stage, and what its stop means (a repeat, a table to grow)."""
        hcount = np.array([st.hcount], dtype=np.int64)
        rcount = np.array([st.rcount], dtype=np.int64) if st.rest is None else None
        self._run_kernel(st, n_end, steps, self.record_from, hits, nhits, out, hcount, rcount, short=True)
        st.n = int(out[1])
        st.hcount = int(hcount[0])
        if rcount is not None:
            st.rcount = int(rcount[0])
        reason, here, there = int(out[0]), st.n - 2, int(out[2])
        if reason == 1 and st.period is None:
            if self._same_state(st, there):
                start = there + 2
                if st.sample:
                    start = self._least_start(start, here - there, self._same_whole)
                st.period = Period(start, here - there)
                st.period_at = here
            else:  # a hash collision: record this state too and go on
                insert(st.hkeys, st.hvals, whole_hash(st.H, st.flags, self.K0), here)
                st.hcount += 1
        elif reason == 2:
            st.hkeys, st.hvals, st.hcount = self._grow(st.hkeys, st.hvals, lambda v: (v - 1) >> 1)
        elif reason == 3 and st.rest is None:
            if self._same_rest(st, there):
                start = there + 2
                if st.sample:
                    start = self._least_start(start, here - there, self._same_rest_at)
                st.rest = Period(start, here - there)
                st.rest_at = here
                st.rkeys, st.rvals, st.rcount = st.rkeys[:0].copy(), st.rvals[:0].copy(), 0
            else:
                insert(st.rkeys, st.rvals, state_hash(st.H, st.flags, 0, self.K0, 1, st.flags.shape[0]), here)
                st.rcount += 1
        elif reason == 4:
            st.rkeys, st.rvals, st.rcount = self._grow(st.rkeys, st.rvals, lambda v: (v - 1) >> 1)

    def _family_slice(self, st: ScanState, n_end: int, steps: int, hits: np.ndarray, nhits: np.ndarray,
                      out: np.ndarray) -> None:
        """A slice of the second stage (S's own family only)."""
        hcount = np.array([st.hcount, st.blocks], dtype=np.int64)
        self._run_family(st, n_end, steps, st.period is None, hits, nhits, out, hcount)
        st.n = int(out[1])
        st.hcount, st.blocks = int(hcount[0]), int(hcount[1])
        reason, here, there = int(out[0]), st.n, int(out[2])
        rest = st.rest
        assert rest is not None
        if reason == 1 and st.period is None:
            H, f0 = self.family_state_before(there)
            if np.array_equal(H, st.H[self.K0:]) and f0 == st.flags[0]:
                length = here - there
                start = self._least_start(there, length, self._same_family, lo=rest.start)
                st.period = Period(start, length)
                st.period_at = here - 2
            else:  # a hash collision
                insert(st.hkeys, st.hvals, state_hash(st.H, st.flags, self.K0, len(st.H), 0, 1), here)
                st.hcount += 1
        elif reason == 2:
            first = st.family_from + 2 * ((-self._phase(st.family_from)) % (rest.length // 2))
            st.hkeys, st.hvals, st.hcount = self._grow(st.hkeys, st.hvals, lambda v: (v - first) // rest.length)

    def _enter_family_stage(self, st: ScanState, limit: int) -> None:
        """The rest is periodic: tabulate the values it gives S's family over one period (deciding
        every shape for one more period), then decide S's family alone.  Not yet when that period
        would pass the height ``limit``; never when the table would pass a quarter of the memory
        budget or the room left (:meth:`room`; the first stage goes on)."""
        rest = st.rest
        assert rest is not None
        plen = rest.length // 2
        words = max(1, (len(self.cols) + 63) // 64)
        need = plen * words * 8
        if self.short_applies(st.n):  # and the rest's values as S's family reads them (_short_family)
            need += plen * ((self.graph.shapes - self.K0 + 63) // 64) * 8
        if need > min(self.memory // 4, self.room()) or st.n + rest.length - 2 > limit:
            return
        tab = np.zeros((plen, words), dtype=np.uint64)
        hits = np.zeros((1 << 16, 2), dtype=np.int64)
        nhits = np.zeros(1, dtype=np.int64)
        out = np.zeros(3, dtype=np.int64)
        one = np.zeros(1, dtype=np.int64)
        if self.short_applies(st.n):  # in one call
            self._run_kernel(st, st.n + 2 * (plen - 1), plen, 1 << 62, hits, nhits, out, one, short=True, tab=tab,
                             phase=self._phase(st.n))
            if nhits[0] == hits.shape[0]:  # pragma: no cover - bounded by families × t̄
                raise RuntimeError("too many P-hits in one period of the rest")
            st.n = int(out[1])
            st.hits.extend((int(f), int(x)) for f, x in hits[: nhits[0]])
        else:
            for _ in range(plen):
                row = self._phase(st.n)
                nhits[0] = 0
                self._run_kernel(st, st.n, 1, 1 << 62, hits, nhits, out, one)
                st.n = int(out[1])
                st.hits.extend((int(f), int(x)) for f, x in hits[: nhits[0]])
                bits = np.packbits(st.cur[self.cols], bitorder="little")
                tab[row, :] = np.pad(bits, (0, words * 8 - bits.shape[0])).view(np.uint64)
        st.tab = tab
        st.family_from = st.n
        st.hkeys, st.hvals = _table()
        st.hcount, st.blocks, st.sample = 0, 0, 0
        st.snapshots[st.n] = (st.H[self.K0:].copy(), st.flags[:1].copy())

    def progress(self, rate: float, limit: int | None) -> ScanProgress:
        st = self.state
        return ScanProgress(
            height=self.scanned_to, limit=limit, rate=rate, shapes=self.graph.shapes,
            families=self.graph.families, memory=self.memory_bytes(), seconds=st.seconds,
            hits=tuple(self.hits(0)), position=self.position, resumed_from=self.resumed_from,
        )

    # -- exact period certification ------------------------------------------------------------------
    def _next_snapshot_height(self, n: int) -> int:
        step = 2 * self.state.snap_every
        return (n // step + 1) * step + 1

    def _snapshot(self, st: ScanState) -> None:
        """Keep the state before height st.n when st.n is a snapshot height (in the second stage,
        that of S's family); past a quarter of the memory budget, or past the room left
        (:meth:`room`), keep every other snapshot (recomputing an earlier state then takes longer)."""
        if (st.n - 1) % (2 * st.snap_every) == 0 and st.n not in st.snapshots:
            if st.family_from:
                st.snapshots[st.n] = (st.H[self.K0:].copy(), st.flags[:1].copy())
            else:
                st.snapshots[st.n] = (st.H.copy(), st.flags.copy())
            size = max(a.nbytes + b.nbytes for a, b in st.snapshots.values())
            while (len(st.snapshots) * size > self.memory // 4 or self.room() < 0) and len(st.snapshots) > 2:
                st.snap_every *= 2
                keep = (3, st.family_from)  # the first snapshot of each stage stays
                for k in [k for k in st.snapshots if (k - 1) % (2 * st.snap_every) and k not in keep]:
                    del st.snapshots[k]

    def _first_stage_before(self, height: int) -> tuple[np.ndarray, np.ndarray]:
        """The whole state before ``height`` (< family_from when set), recomputed with every shape
        from the nearest earlier snapshot of the first stage."""
        st = self.state
        limit = st.family_from or (1 << 62)
        starts = [k for k in st.snapshots if k <= height and k < limit and st.snapshots[k][0].shape[0] == st.H.shape[0]]
        k = max(starts, default=3)
        if k == 3 and 3 not in st.snapshots:
            fresh = self._fresh()
            H, flags = fresh.H, fresh.flags
        else:
            H, flags = (a.copy() for a in st.snapshots[k])
        tmp = ScanState(
            n=k, H=H, flags=flags, cur=np.zeros_like(st.cur), killer=np.full_like(st.killer, -1),
            first_hit=np.zeros_like(st.first_hit), hits=[], hkeys=np.zeros(2, dtype=np.uint64),
            hvals=np.zeros(2, dtype=np.int64), hcount=0,
        )
        if height > k:
            out = np.zeros(3, dtype=np.int64)
            self._run_kernel(
                tmp, height - 2, 1 << 62, 1 << 62, np.zeros((1, 2), dtype=np.int64),
                np.zeros(1, dtype=np.int64), out, np.zeros(1, dtype=np.int64),
            )
            assert int(out[1]) == height
        return tmp.H, tmp.flags

    def family_state_before(self, height: int) -> tuple[np.ndarray, int]:
        """The state of S's own family (its windows and its bit) before ``height``."""
        st = self.state
        if not st.family_from or height < st.family_from:
            H, flags = self._first_stage_before(height)
            return H[self.K0:], int(flags[0])
        k = max(k for k in st.snapshots if st.family_from <= k <= height)
        tmp = ScanState(
            n=k, H=np.zeros_like(st.H), flags=np.zeros_like(st.flags), cur=np.zeros_like(st.cur),
            killer=np.full_like(st.killer, -1), first_hit=np.zeros_like(st.first_hit), hits=[],
            hkeys=np.zeros(2, dtype=np.uint64), hvals=np.zeros(2, dtype=np.int64), hcount=0,
            rest=st.rest, tab=st.tab,
        )
        tmp.H[self.K0:], tmp.flags[:1] = st.snapshots[k]
        if height > k:
            out = np.zeros(3, dtype=np.int64)
            one = np.zeros((1, 2), dtype=np.int64)
            self._run_family(tmp, height - 2, 1 << 62, False, one, np.zeros(1, dtype=np.int64), out,
                             np.zeros(2, dtype=np.int64))
            assert int(out[1]) == height
        return tmp.H[self.K0:], int(tmp.flags[0])

    def state_before(self, height: int) -> tuple[np.ndarray, np.ndarray]:
        """The whole state (windows, family bits) before deciding ``height``, recomputed from the
        nearest earlier snapshot (in the second stage: the rest's part from its period)."""
        st = self.state
        if not st.family_from or height < st.family_from:
            return self._first_stage_before(height)
        rest = st.rest
        assert rest is not None
        H, flags = self._first_stage_before(rest.start + (height - rest.start) % rest.length)
        H[self.K0:], flags[0] = self.family_state_before(height)
        return H, flags

    def _same_whole(self, a: int, b: int) -> bool:
        x, y = self.state_before(a), self.state_before(b)
        return bool(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]))

    def _same_rest_at(self, a: int, b: int) -> bool:
        x, y = self.state_before(a), self.state_before(b)
        return bool(np.array_equal(x[0][: self.K0], y[0][: self.K0]) and np.array_equal(x[1][1:], y[1][1:]))

    def _same_family(self, a: int, b: int) -> bool:
        x, y = self.family_state_before(a), self.family_state_before(b)
        return bool(np.array_equal(x[0], y[0]) and x[1] == y[1])

    def _same_state(self, st: ScanState, there: int) -> bool:
        H, flags = self.state_before(there + 2)
        return bool(np.array_equal(H, st.H) and np.array_equal(flags, st.flags))

    def _same_rest(self, st: ScanState, there: int) -> bool:
        H, flags = self.state_before(there + 2)
        return bool(np.array_equal(H[: self.K0], st.H[: self.K0]) and np.array_equal(flags[1:], st.flags[1:]))

    def _grow(self, keys: np.ndarray, vals: np.ndarray, index: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray, int]:
        """A table of twice the capacity, or, when that would pass half the memory budget or the
        room left (:meth:`room`: the old table and the new one side by side), keep only every other
        stored state (``sample``; ``index(height)`` numbers the stored states): a
        repeat is then found up to twice as late, and the least start is recovered afterwards
        (:meth:`_least_start`)."""
        st = self.state
        cap = keys.shape[0]
        tables = st.hkeys.nbytes + st.hvals.nbytes + st.rkeys.nbytes + st.rvals.nbytes
        if tables + cap * 16 <= self.memory // 2 and 2 * cap * 16 <= self.room():  # the old and the new side by side
            cap *= 2
        else:
            st.sample = 2 * st.sample + 1
        nkeys, nvals = _table(cap)
        keep = (keys != 0) & ((index(vals) & st.sample) == 0)
        rehash(np.where(keep, keys, np.uint64(0)), vals, nkeys, nvals)
        return nkeys, nvals, int(np.count_nonzero(nkeys))

    def _least_start(self, there: int, length: int, same: Callable[[int, int], bool], lo: int | None = None) -> int:
        """The least height x ≥ ``lo`` (default: after record_from) with the states before x and
        x + length equal (``same``), given that those before ``there`` and ``there + length`` are
        (equal at x implies equal at x + 2: binary search)."""
        lo = self.record_from + 2 if lo is None else lo
        if lo % 2 == 0:
            lo += 1
        hi = there
        while lo < hi:
            mid = lo + ((hi - lo) // 4) * 2
            if same(mid, mid + length):
                hi = mid
            else:
                lo = mid + 2
        return hi

    # -- checkpoints ------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the scan state to the checkpoint file atomically (temporary file, then rename),
        with a SHA-256 checksum of its contents."""
        if self.checkpoint is None:
            return
        st = self.state
        snaps = sorted(st.snapshots)
        data: dict[str, Any] = {
            "version": np.array(CHECKPOINT_VERSION),
            "position": np.array(self.position.generators, dtype=np.int64),
            "shapes": np.array(self.graph.shapes),
            "graph": np.frombuffer(self.graph.fingerprint(), dtype=np.uint8),
            "n": np.array(st.n),
            "H": st.H, "flags": st.flags, "killer": st.killer, "first_hit": st.first_hit,
            "hits": np.array(st.hits, dtype=np.int64).reshape(-1, 2),
            # the tables packed: their stored entries (at most half of their slots), rehashed on loading
            "hkeys": st.hkeys[st.hkeys != 0], "hvals": st.hvals[st.hkeys != 0], "hcap": np.array(st.hkeys.shape[0]),
            "hcount": np.array(st.hcount),
            "rkeys": st.rkeys[st.rkeys != 0], "rvals": st.rvals[st.rkeys != 0], "rcap": np.array(st.rkeys.shape[0]),
            "rcount": np.array(st.rcount),
            "period": np.array([st.period.start, st.period.length] if st.period else [0, 0]),
            "rest": np.array([st.rest.start, st.rest.length] if st.rest else [0, 0]),
            "period_at": np.array(st.period_at), "rest_at": np.array(st.rest_at),
            "tab": st.tab if st.tab is not None else np.zeros((0, 1), dtype=np.uint64),
            "family_from": np.array(st.family_from), "blocks": np.array(st.blocks),
            "snap_n": np.array(snaps, dtype=np.int64),
            "seconds": np.array(st.seconds),
            "sample": np.array(st.sample),
            "snap_every": np.array(st.snap_every),
        }
        for i, k in enumerate(snaps):
            data[f"snapH{i}"], data[f"snapF{i}"] = st.snapshots[k]
        data["checksum"] = np.frombuffer(_checksum(data), dtype=np.uint8)
        tmp = self.checkpoint.with_name(self.checkpoint.name + f".tmp{os.getpid()}")
        try:
            self.checkpoint.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                np.savez(fh, **data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.checkpoint)
        except OSError as exc:
            raise ValueError(f"cannot write the scan checkpoint {self.checkpoint}: "
                             f"{exc.strerror or exc}") from None

    def _load(self) -> ScanState | None:
        """The state saved in the checkpoint file; None when there is none, or it belongs to another
        version, position or graph; ValueError when it cannot be read or its checksum does not match
        (a damaged file is reported, never trusted nor silently replaced: deleting it starts the
        scan afresh)."""
        path = self.checkpoint
        if path is None:
            return None
        if path.is_dir():
            raise ValueError(f"the scan checkpoint {path} is a directory")
        self._remove_stale_temporaries()
        if not path.exists():
            try:  # fail now, not after a long scan, if the checkpoint cannot be written
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValueError(f"cannot create the checkpoint directory {path.parent}: "
                                 f"{exc.strerror or exc}") from None
            return None
        damaged = (f"the scan checkpoint {path} is damaged ({{}}); delete it to start the scan afresh")
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except Exception as exc:  # zipfile.BadZipFile, EOFError, OSError, ValueError, ...
            raise ValueError(damaged.format(f"{type(exc).__name__}: {exc}")) from None
        if "version" not in data or int(data["version"]) != CHECKPOINT_VERSION:
            return None
        stored = data.pop("checksum", None)
        if stored is None or stored.tobytes() != _checksum(data):
            raise ValueError(damaged.format("its checksum does not match its contents"))
        if tuple(int(x) for x in data["position"]) != self.position.generators:
            return None
        if int(data["shapes"]) != self.graph.shapes or data["H"].shape != (self.graph.shapes, self.Wd):
            return None
        if data["graph"].tobytes() != self.graph.fingerprint():
            return None
        try:
            return self._state_from(data)
        except (KeyError, ValueError, IndexError) as exc:
            raise ValueError(damaged.format(f"{type(exc).__name__}: {exc}")) from None

    def _remove_stale_temporaries(self) -> None:
        """Delete the temporary files ``<checkpoint>.tmp<pid>`` left by a scan killed while writing
        its checkpoint (kill -9); a file whose process is still alive is left alone."""
        assert self.checkpoint is not None
        prefix = self.checkpoint.name + ".tmp"
        try:
            leftovers = [p for p in self.checkpoint.parent.iterdir() if p.name.startswith(prefix)]
        except OSError:
            return
        for p in leftovers:
            pid = p.name[len(prefix):]
            if not pid.isdigit():
                continue
            try:
                os.kill(int(pid), 0)
                continue  # that process still runs
            except ProcessLookupError:
                pass
            except (PermissionError, OverflowError):
                continue
            try:
                p.unlink()
            except OSError:
                pass

    def _state_from(self, z: dict[str, np.ndarray]) -> ScanState:
        per = [int(x) for x in z["period"]]
        rest = [int(x) for x in z["rest"]]
        snaps = {int(k): (z[f"snapH{i}"], z[f"snapF{i}"]) for i, k in enumerate(z["snap_n"])}
        hkeys, hvals = _unpack(z["hkeys"], z["hvals"], int(z["hcap"]))
        rkeys, rvals = _unpack(z["rkeys"], z["rvals"], int(z["rcap"]))
        return ScanState(
            n=int(z["n"]), H=z["H"].copy(), flags=z["flags"].copy(),
            cur=np.zeros(self.graph.shapes, dtype=np.uint8), killer=z["killer"].copy(),
            first_hit=z["first_hit"].copy(), hits=[(int(f), int(x)) for f, x in z["hits"]],
            hkeys=hkeys, hvals=hvals, hcount=int(z["hcount"]),
            rkeys=rkeys, rvals=rvals, rcount=int(z["rcount"]),
            period=Period(per[0], per[1]) if per[1] else None,
            period_at=int(z["period_at"]),
            rest=Period(rest[0], rest[1]) if rest[1] else None,
            rest_at=int(z["rest_at"]),
            tab=z["tab"].copy() if z["tab"].shape[0] else None,
            family_from=int(z["family_from"]), blocks=int(z["blocks"]), snapshots=snaps,
            seconds=float(z["seconds"]), sample=int(z["sample"]), snap_every=int(z["snap_every"]),
        )

    # -- answers --------------------------------------------------------------------------------
    def upto(self, limit: int | None) -> int:
        """The largest odd height decided that is at most ``limit`` (None: no bound): what the scan
        knows of a question bounded by ``limit`` (a scan resumed from a checkpoint may be past it)."""
        if limit is None or limit >= self.scanned_to:
            return self.scanned_to
        return max(limit if limit % 2 else limit - 1, 1)

    def period_upto(self, height: int) -> Period | None:
        """The period, if it was certified by the scan to ``height``."""
        st = self.state
        return st.period if st.period is not None and st.period_at <= height else None

    def rest_upto(self, height: int) -> Period | None:
        """The rest's period, if it was certified by the scan to ``height``."""
        st = self.state
        return st.rest if st.rest is not None and st.rest_at <= height else None

    def family_tail_complete(self, f: int, height: int | None = None) -> bool:
        """Are all the odd P-hits of family f known from the scan to ``height`` (default: as far
        as it went): the period certified, for a family other than S's own the rest's period, the
        scan past the first hit's window, or a short family scanned past t(E ÷ 2)?"""
        st = self.state
        to = self.upto(height)
        if self.period_upto(to) is not None or (f != 0 and self.rest_upto(to) is not None):
            return True
        T = int(self.graph.fam_T[f])
        first = int(st.first_hit[f])
        if first and to >= first + 2 * T:
            return True
        from sylver.theory import is_quiet_ender

        h = Position(x // 2 for x in self.graph.family_position(f).generators)
        return h.generators != (1,) and is_quiet_ender(h) and to >= T

    def hits(self, f: int = 0, height: int | None = None) -> list[int]:
        """The odd x ≤ ``height`` (default: scanned_to) with E + x P, E the family f (0: S itself)."""
        to = self.upto(height)
        return [x for g, x in self.state.hits if g == f and x <= to]

    def root_hits(self) -> list[int]:
        """The odd x ≤ scanned_to with S + x P."""
        return self.hits(0)

    def is_p(self, x: int) -> bool:
        """Is S + x P (x odd, decided by the scan or by the certified period)?"""
        st = self.state
        if x > self.scanned_to:
            if st.period is None:
                raise ValueError(f"odd move {x} is beyond the scan ({self.scanned_to}) and no period is known")
            x = st.period.start + (x - st.period.start) % st.period.length
        return x in set(self.hits(0))


def solve_base(
    positions: list[Position], *, memory: int = 1 << 30, deadline: float | None = None,
    found: Callable[[Position, bool], None] | None = None,
) -> list[bool]:
    """Decide gcd-1 positions (True for P): the one way the g > 1 engine obtains a gcd-1 result.

    A base region holds hundreds of thousands of small positions whose moves all lead into the
    endgame table, so each is decided by one search of the engine from the position itself
    (``Engine.outcome``: the outcome only, in one kernel call) rather than move by move.  When the
    tables have reached ``memory`` (``Engine.saturated``), an N outcome is taken from the gcd-1
    solve (:func:`~sylver.solver.local.solve_local`, ``first``) instead, self-checked
    (:func:`~sylver.solver.local.checked`): the position after the winning move, searched afresh,
    must be P (a contradiction raises :class:`~sylver.errors.SelfCheckError`); ``memory`` (bytes) too small
    for the search raises :class:`~sylver.errors.MemoryBudgetError` from there.  ``deadline``
    (``time.monotonic()``) raises :class:`TimeoutError` when it passes; ``found(p, is_p)`` receives
    each result as it is decided (those before a deadline are kept)."""
    from sylver.position import Outcome
    from sylver.solution import SolveTimeout
    from sylver.solver.engine import (
        ENGINE,
        SearchTimeout,
        TableThrash,
        check_solvable,
        root_gaps,
    )
    from sylver.solver.local import Request, checked, solve_local

    def is_p(p: Position) -> bool:
        if p.is_terminal:  # {1}: the previous player named 1 and lost
            return True
        if deadline is not None and time.monotonic() >= deadline:
            raise TimeoutError("time limit reached")  # a search checks it only between slices
        check_solvable(p)
        try:
            outcome = ENGINE.outcome(root_gaps(p), deadline=deadline)
            if outcome is Outcome.P or not ENGINE.saturated():
                return outcome is Outcome.P
        except SearchTimeout:
            raise TimeoutError("time limit reached") from None
        except TableThrash:
            pass  # the tables were cleared: solve() says so, or gets there
        left = None if deadline is None else deadline - time.monotonic()
        try:
            request = Request(position=p, first=True, time_limit=left, memory=memory)
            return checked(solve_local(request), request).outcome is Outcome.P
        except SolveTimeout:
            raise TimeoutError("time limit reached") from None

    out = []
    with ENGINE.lock:
        ENGINE.set_memory(memory)
        for p in positions:
            out.append(is_p(p))
            if found is not None:
                found(p, out[-1])
    return out


__all__ = ["Period", "Scan", "solve_base"]
