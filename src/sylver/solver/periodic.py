"""The periodicity engine for positions with g = 2 (Sicherman, "Theory and Practice of Sylver
Coinage", Integers 2002, sec. 2).

For S with g = 2 it decides the outcome of S + x for every odd x, by scanning the odd heights
x = 3, 5, 7, … upward over the finite shape graph of :mod:`sylver.solver.shapes`:

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

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from sylver.position import Position
from sylver.solver.shapes import ShapeGraph, build, close, reduce_offsets, set_bits


def _offsets(mask: int) -> list[int]:
    return set_bits(mask)

CHECKPOINT_VERSION = 2
SNAPSHOT_EVERY = 4096
"""Steps between in-memory snapshots of the state (to recompute an earlier state exactly)."""
SLICE_SECONDS = 0.25
"""The kernel returns to Python about this often (progress, clock, Ctrl-C, checkpoints)."""


@njit(cache=True, inline="always")
def _mix(z):  # pragma: no cover - compiled
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def state_hash(H, flags):  # pragma: no cover - compiled
    """A 64-bit hash of the scan state (windows and family bits)."""
    h = np.uint64(0x9E3779B97F4A7C15)
    K, Wd = H.shape
    for s in range(K):
        for w in range(Wd):
            v = H[s, w]
            if v != 0:
                h += _mix(v ^ _mix(np.uint64(s * Wd + w + 1)))
    for f in range(flags.shape[0]):
        if flags[f]:
            h += _mix(np.uint64(0xD1B54A32D192ED03) + np.uint64(f))
    if h == 0:
        h = np.uint64(1)
    return h


@njit(cache=True)
def scan_kernel(
    n, n_end, deadline_steps, T, fam, same_ptr, same_idx, down_ptr, down_j, down_idx, fam_root,
    fam_T, base, mode, H, flags, cur, killer, first_hit, hits, nhits, hkeys, hvals, hcount, record_from,
    sample, out,
):  # pragma: no cover - compiled
    """Decide heights n, n + 2, … ≤ n_end (at most ``deadline_steps`` of them).

    Only the states after heights n with ((n - 1) / 2) & sample = 0 are stored (all with
    sample = 0); every state is looked up.  ``out`` receives [reason, next height, matched height]: reason 0 = stopped (limit or steps),
    1 = the state after height out[1] - 2 has the hash of the state after height out[2], 2 = the
    hash table needs to grow.  ``hits`` receives (family, height) for every P-position E + height
    (a family's P-hits lie within t̄ of its first one, so there are few).
    """
    K = T.shape[0]
    F = fam_root.shape[0]
    cap = hkeys.shape[0]
    steps = 0
    reason = 0
    matched = 0
    while n <= n_end and steps < deadline_steps:
        for s in range(K):
            Ts = T[s]
            m = -2
            if n <= Ts:
                m = mode[s, (n - 3) >> 1]
            if m >= 0:
                v = cur[m]
            elif m == -1:
                v = base[s, (n - 3) >> 1]
            elif flags[fam[s]]:
                v = 0
            else:
                v = 1
                kk = killer[s]
                if kk >= 0:
                    if kk < 1 << 30:
                        if cur[same_idx[kk]]:
                            v = 0
                    else:
                        e = kk - (1 << 30)
                        j = down_j[e] - 1
                        if (H[down_idx[e], j >> 6] >> np.uint64(j & 63)) & np.uint64(1):
                            v = 0
                if v:
                    for e in range(same_ptr[s], same_ptr[s + 1]):
                        if cur[same_idx[e]]:
                            v = 0
                            killer[s] = e
                            break
                if v:
                    for e in range(down_ptr[s], down_ptr[s + 1]):
                        j = down_j[e] - 1
                        if (H[down_idx[e], j >> 6] >> np.uint64(j & 63)) & np.uint64(1):
                            v = 0
                            killer[s] = e + (1 << 30)
                            break
            cur[s] = v
        # record the P-positions E + n
        for f in range(F):
            if cur[fam_root[f]]:
                if first_hit[f] == 0:
                    first_hit[f] = n
                if nhits[0] < hits.shape[0]:
                    hits[nhits[0], 0] = f
                    hits[nhits[0], 1] = n
                    nhits[0] += 1
        # shift every window by one height; the bit leaving a family's own window sets its flag
        for s in range(K):
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
        steps += 1
        if n >= record_from:
            h = state_hash(H, flags)
            i = np.int64(h & np.uint64(cap - 1))
            found = False
            while hkeys[i] != 0:
                if hkeys[i] == h:
                    matched = hvals[i]
                    found = True
                    break
                i = (i + 1) & (cap - 1)
            if found:
                reason = 1
                n += 2
                break
            if ((n - 1) >> 1) & sample:  # under a tight memory budget only some states are kept
                n += 2
                continue
            hkeys[i] = h
            hvals[i] = n
            hcount[0] += 1
            if 2 * hcount[0] > cap:
                reason = 2
                n += 2
                break
        n += 2
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


@dataclass
class Period:
    """A certified period of the scan: the state after height ``start`` recurs after height
    ``start + length`` (``length`` in units of x, i.e. twice the number of steps)."""

    start: int
    length: int


@dataclass
class ScanState:
    """Everything a scan needs to continue: the next height, the windows ``H`` and family bits
    ``flags``, the first P-hit of every family, the root's P-hits, the hash table of states."""

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
    period: Period | None = None
    snapshots: dict[int, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)
    seconds: float = 0.0
    sample: int = 0
    """States stored in the hash table: after the heights n with ((n - 1) / 2) & sample = 0."""
    snap_every: int = SNAPSHOT_EVERY
    """Steps between snapshots."""


@dataclass(frozen=True)
class ScanProgress:
    """A snapshot for progress displays of a long scan."""

    height: int
    limit: int | None
    rate: float
    shapes: int
    families: int
    memory: int
    seconds: float
    hits: tuple[int, ...]


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
    ) -> None:
        self.position = position
        self.graph = graph if graph is not None else build(position, deadline, memory)
        self.checkpoint = Path(checkpoint) if checkpoint is not None else None
        self.memory = memory
        g = self.graph
        self.Tmax = int(g.fam_T.max()) if g.families else 0
        self.Wd = max(1, (self.Tmax + 63) // 64)
        # the step deciding height n reads the base region iff n <= Tmax: from the state after
        # height Tmax - 1 (or Tmax) on, the next state is a function of the current one
        self.record_from = max(3, self.Tmax if self.Tmax % 2 else self.Tmax - 1)
        self._base_fn = base or solve_base
        self.state = self._load() or self._fresh()  # first: a damaged checkpoint fails at once
        self.base, self.mode = self._base_values()

    # -- the base region ------------------------------------------------------------------------
    def _base_values(self) -> tuple[np.ndarray, np.ndarray]:
        """The base region: for each shape s and odd height n ≤ t(E ÷ 2), how its value is found.

        ``mode[s, i]`` (i = (n - 3) / 2): -2 when the even part of the position <E, n + 2δ> is E
        itself (every sum of two anchors is in E): then its moves are those of the shape and it is
        decided like any other height; s' ≥ 0 when the even part is a larger E' and the position is
        the shape s' of family E' at the same height (decided earlier in the step: E' has fewer
        gaps); -1 when it is solved with the gcd-1 solver (``base[s, i]``, 1 for P)."""
        g = self.graph
        width = max(1, (self.Tmax - 1) // 2)
        base = np.zeros((g.shapes, width), dtype=np.uint8)
        mode = np.full((g.shapes, width), -1, dtype=np.int32)
        index = {(int(g.fam[s]), g.offsets[s]): s for s in range(g.shapes)}
        wanted: dict[Position, list[tuple[int, int]]] = {}
        for s in range(g.shapes):
            gaps = g.fam_gaps[int(g.fam[s])]
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
                wanted.setdefault(g.concrete(s, n), []).append((s, i))
        positions = list(wanted)
        values = self._base_fn(positions) if positions else []
        for p, v in zip(positions, values, strict=True):
            for s, i in wanted[p]:
                base[s, i] = 1 if v else 0
        self.base_positions = len(positions)
        self.base_list = list(zip(positions, (bool(v) for v in values), strict=True))
        """The base-region positions solved with the gcd-1 solver and their outcomes (True: P)."""
        return base, mode

    # -- state ----------------------------------------------------------------------------------
    def _fresh(self) -> ScanState:
        g = self.graph
        cap = 1 << 12
        return ScanState(
            n=3,
            H=np.zeros((g.shapes, self.Wd), dtype=np.uint64),
            flags=np.zeros(g.families, dtype=np.uint8),
            cur=np.zeros(g.shapes, dtype=np.uint8),
            killer=np.full(g.shapes, -1, dtype=np.int64),
            first_hit=np.zeros(g.families, dtype=np.int64),
            hits=[],
            hkeys=np.zeros(cap, dtype=np.uint64),
            hvals=np.zeros(cap, dtype=np.int64),
            hcount=0,
        )

    @property
    def scanned_to(self) -> int:
        """The largest odd height decided (1 before the scan starts)."""
        return self.state.n - 2

    def memory_bytes(self) -> int:
        st = self.state
        snaps = sum(a.nbytes + b.nbytes for a, b in st.snapshots.values())
        return int(self.graph.nbytes() + self.base.nbytes + self.mode.nbytes + st.H.nbytes + st.hkeys.nbytes
                   + st.hvals.nbytes + snaps)

    def _run_kernel(self, st: ScanState, n_end: int, steps: int, record_from: int,
                    hits: np.ndarray, nhits: np.ndarray, out: np.ndarray, hcount: np.ndarray) -> None:
        g = self.graph
        scan_kernel(
            st.n, n_end, steps, g.T, g.fam, g.same_ptr, g.same_idx, g.down_ptr, g.down_j,
            g.down_idx, g.fam_root, g.fam_T, self.base, self.mode, st.H, st.flags, st.cur, st.killer,
            st.first_hit, hits, nhits, st.hkeys, st.hvals, hcount, record_from, st.sample, out,
        )

    def run(
        self,
        *,
        until: int | None = None,
        stop: Callable[[Scan], bool] | None = None,
        deadline: float | None = None,
        progress: Callable[[ScanProgress], None] | None = None,
        checkpoint_every: float = 30.0,
        past_period: bool = False,
    ) -> None:
        """Scan upward until height ``until`` (odd, inclusive), a certified period, ``stop(self)``
        true (checked between slices), or the ``deadline`` (time.monotonic()).  With ``past_period`` the
        scan goes on after certifying a period (the tests compare every height)."""
        st = self.state
        limit = until if until is not None else 1 << 62
        hits = np.zeros((1 << 16, 2), dtype=np.int64)
        nhits = np.zeros(1, dtype=np.int64)
        out = np.zeros(3, dtype=np.int64)
        hcount = np.array([st.hcount], dtype=np.int64)
        steps = 256
        started = time.monotonic()
        last_ck = started - checkpoint_every + 2.0  # the first checkpoint after 2 s
        last_n = st.n
        try:
            while (st.period is None or past_period) and st.n <= limit:
                if stop is not None and stop(self):
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    break
                self._snapshot(st)
                # never run past the next snapshot point, so snapshots land on fixed heights
                n_end = min(limit, self._next_snapshot_height(st.n) - 2)
                t0 = time.monotonic()
                nhits[0] = 0
                self._run_kernel(st, n_end, steps, self.record_from, hits, nhits, out, hcount)
                if nhits[0] == hits.shape[0]:  # pragma: no cover - bounded by families × t̄
                    raise RuntimeError("too many P-hits in one slice")
                st.hits.extend((int(f), int(x)) for f, x in hits[: nhits[0]])
                st.n = int(out[1])
                st.hcount = int(hcount[0])
                dt = time.monotonic() - t0
                if dt < SLICE_SECONDS / 2:
                    steps = min(steps * 2, 1 << 24)
                elif dt > SLICE_SECONDS * 2:
                    steps = max(steps // 2, 1)
                if out[0] == 1 and st.period is None:
                    here, there = st.n - 2, int(out[2])
                    if self._same_state(st, there):
                        if st.sample:
                            there = self._least_start(st, there, here - there)
                        st.period = Period(there + 2, here - there)
                    else:  # a hash collision: record this state too and go on
                        insert(st.hkeys, st.hvals, state_hash(st.H, st.flags), here)
                        st.hcount += 1
                        hcount[0] = st.hcount
                elif out[0] == 2:
                    self._grow(st, hcount)
                now = time.monotonic()
                if progress is not None:
                    rate = (st.n - last_n) / 2 / max(now - started, 1e-9)
                    progress(self.progress(rate, limit if until is not None else None))
                if self.checkpoint is not None and now - last_ck >= checkpoint_every:
                    self.save()
                    last_ck = now
        finally:
            st.seconds += time.monotonic() - started
            if self.checkpoint is not None:
                self.save()

    def progress(self, rate: float, limit: int | None) -> ScanProgress:
        st = self.state
        return ScanProgress(
            self.scanned_to, limit, rate, self.graph.shapes, self.graph.families,
            self.memory_bytes(), st.seconds, tuple(self.hits(0)),
        )

    # -- exact period certification ------------------------------------------------------------------
    def _next_snapshot_height(self, n: int) -> int:
        step = 2 * self.state.snap_every
        return (n // step + 1) * step + 1

    def _snapshot(self, st: ScanState) -> None:
        """Keep the state before height st.n when st.n is a snapshot height; past a quarter of the
        memory budget, keep every other snapshot (recomputing an earlier state then takes longer)."""
        if (st.n - 1) % (2 * st.snap_every) == 0 and st.n not in st.snapshots:
            st.snapshots[st.n] = (st.H.copy(), st.flags.copy())
            size = st.H.nbytes + st.flags.nbytes
            while len(st.snapshots) * size > self.memory // 4 and len(st.snapshots) > 2:
                st.snap_every *= 2
                for k in [k for k in st.snapshots if (k - 1) % (2 * st.snap_every)]:
                    del st.snapshots[k]

    def state_before(self, height: int) -> tuple[np.ndarray, np.ndarray]:
        """The state (windows, family bits) before deciding ``height``, recomputed from the nearest
        earlier snapshot."""
        st = self.state
        starts = [k for k in st.snapshots if k <= height] or [3]
        k = max(starts)
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

    def _same_state(self, st: ScanState, there: int) -> bool:
        H, flags = self.state_before(there + 2)
        return bool(np.array_equal(H, st.H) and np.array_equal(flags, st.flags))

    def _grow(self, st: ScanState, hcount: np.ndarray) -> None:
        """Double the hash table, or, when that would pass half the memory budget, keep only every
        other stored state (``sample``): a repeat is then found up to twice as late, and the least
        start is recovered afterwards (:meth:`_least_start`)."""
        cap = st.hkeys.shape[0]
        if 2 * cap * 16 <= self.memory // 2:
            cap *= 2
        else:
            st.sample = 2 * st.sample + 1
        nkeys = np.zeros(cap, dtype=np.uint64)
        nvals = np.zeros(cap, dtype=np.int64)
        keep = ((st.hvals - 1) >> 1) & st.sample == 0
        keys = np.where(keep, st.hkeys, np.uint64(0))
        rehash(keys, st.hvals, nkeys, nvals)
        st.hkeys, st.hvals = nkeys, nvals
        st.hcount = int(np.count_nonzero(nkeys))
        hcount[0] = st.hcount

    def _least_start(self, st: ScanState, there: int, length: int) -> int:
        """The least height x ≥ record_from after which the state recurs ``length`` later (the
        states after x and x + length are equal for every x from it on: binary search)."""
        lo, hi = self.record_from, there  # the state after hi recurs
        if lo % 2 == 0:
            lo += 1
        while lo < hi:
            mid = lo + ((hi - lo) // 4) * 2
            a = self.state_before(mid + 2)
            b = self.state_before(mid + 2 + length)
            if np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]):
                hi = mid
            else:
                lo = mid + 2
        return hi

    # -- checkpoints ------------------------------------------------------------------------------
    def save(self) -> None:
        """Write the scan state to the checkpoint file atomically (temporary file, then rename)."""
        if self.checkpoint is None:
            return
        st = self.state
        snaps = sorted(st.snapshots)
        data: dict[str, Any] = {
            "version": np.array(CHECKPOINT_VERSION),
            "position": np.array(self.position.generators, dtype=np.int64),
            "shapes": np.array(self.graph.shapes),
            "n": np.array(st.n),
            "H": st.H, "flags": st.flags, "killer": st.killer, "first_hit": st.first_hit,
            "hits": np.array(st.hits, dtype=np.int64).reshape(-1, 2),
            "hkeys": st.hkeys, "hvals": st.hvals, "hcount": np.array(st.hcount),
            "period": np.array([st.period.start, st.period.length] if st.period else [0, 0]),
            "snap_n": np.array(snaps, dtype=np.int64),
            "seconds": np.array(st.seconds),
            "sample": np.array(st.sample),
            "snap_every": np.array(st.snap_every),
        }
        for i, k in enumerate(snaps):
            data[f"snapH{i}"], data[f"snapF{i}"] = st.snapshots[k]
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
        version, position or graph; ValueError when it cannot be read (a damaged file is reported,
        not silently replaced: deleting it starts the scan afresh)."""
        path = self.checkpoint
        if path is None:
            return None
        if path.is_dir():
            raise ValueError(f"the scan checkpoint {path} is a directory")
        if not path.exists():
            try:  # fail now, not after a long scan, if the checkpoint cannot be written
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ValueError(f"cannot create the checkpoint directory {path.parent}: "
                                 f"{exc.strerror or exc}") from None
            return None
        try:
            z = np.load(path, allow_pickle=False)
            if int(z["version"]) != CHECKPOINT_VERSION:
                return None
            if tuple(int(x) for x in z["position"]) != self.position.generators:
                return None
            if int(z["shapes"]) != self.graph.shapes or z["H"].shape != (self.graph.shapes, self.Wd):
                return None
            per = [int(x) for x in z["period"]]
            snaps = {int(k): (z[f"snapH{i}"], z[f"snapF{i}"]) for i, k in enumerate(z["snap_n"])}
            return ScanState(
                n=int(z["n"]), H=z["H"].copy(), flags=z["flags"].copy(),
                cur=np.zeros(self.graph.shapes, dtype=np.uint8), killer=z["killer"].copy(),
                first_hit=z["first_hit"].copy(), hits=[(int(f), int(x)) for f, x in z["hits"]],
                hkeys=z["hkeys"].copy(), hvals=z["hvals"].copy(), hcount=int(z["hcount"]),
                period=Period(per[0], per[1]) if per[1] else None, snapshots=snaps,
                seconds=float(z["seconds"]), sample=int(z["sample"]), snap_every=int(z["snap_every"]),
            )
        except Exception as exc:  # zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, ...
            raise ValueError(
                f"the scan checkpoint {path} is damaged ({type(exc).__name__}: {exc}); delete it to "
                "start the scan afresh"
            ) from None

    # -- answers --------------------------------------------------------------------------------
    def family_tail_complete(self, f: int) -> bool:
        """Are all the odd P-hits of family f known (period certified, the scan past the first
        hit's window, or a short family scanned past t(E ÷ 2))?"""
        st = self.state
        if st.period is not None:
            return True
        T = int(self.graph.fam_T[f])
        first = int(st.first_hit[f])
        if first and self.scanned_to >= first + 2 * T:
            return True
        from sylver.theory import is_quiet_ender

        h = Position(x // 2 for x in self.graph.family_position(f).generators)
        return h.generators != (1,) and is_quiet_ender(h) and self.scanned_to >= T

    def hits(self, f: int = 0) -> list[int]:
        """The odd x ≤ scanned_to with E + x P, E the family f (0: S itself)."""
        return [x for g, x in self.state.hits if g == f]

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
    positions: list[Position], *, memory: int | str = "1G", deadline: float | None = None
) -> list[bool]:
    """Decide gcd-1 positions (True for P): the one way the g > 1 engine obtains a gcd-1 result.

    Each goes through :func:`sylver.solver.solve` (``first=True``, the default ``check=None``): an N
    answer from a search whose tables reached ``memory`` is self-checked (the position after the
    winning move, searched afresh, must be P; a contradiction raises
    :class:`~sylver.errors.SelfCheckError`).  ``deadline`` (``time.monotonic()``) raises
    :class:`TimeoutError` when it passes."""
    from sylver.position import Outcome
    from sylver.solver import SolveTimeout, solve

    out = []
    for p in positions:
        if p.is_terminal:  # {1}: the previous player named 1 and lost
            out.append(True)
            continue
        left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
        try:
            sol = solve(p, first=True, memory=memory, time_limit=left)
        except SolveTimeout:
            raise TimeoutError("time limit reached") from None
        out.append(sol.outcome is Outcome.P)
    return out


__all__ = ["Period", "Scan", "ScanProgress", "solve_base"]
