"""The search engine: owns the transposition table and the search stack, and drives the kernel.

One module-level :class:`Engine` is reused by every :func:`sylver.solver.solve` call in a process, so
the table stays warm between calls (a bot that calls ``solve`` inside its own search pays for each
position once).  Table entries are outcomes of positions, which do not depend on the root, so keeping
them across calls is sound.

This module is the kernel's boundary: a :class:`~sylver.position.Position` becomes a gap bitset here
(:func:`root_gaps`, :func:`child_gaps`), and the kernel's 0/1 becomes an
:class:`~sylver.position.Outcome` here (:meth:`Engine.search`); everything above speaks ``Outcome``.
"""

from __future__ import annotations

import math
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from sylver.errors import MemoryBudgetError, TooLargeError
from sylver.machine import available_memory, format_memory
from sylver.position import Outcome, Position
from sylver.solver import kernels as k
from sylver.solver.tables import table_zeros

MIN_TABLE = 1 << 12
"""Smallest table (8-byte keys): ``2**kernels.P_BASE`` buckets; ``--memory`` is at least 32 times
this many bytes (``sylver.machine.LEAST_MEMORY``, 128K: the least P table, its filter and an N
table twice its size)."""
START_TABLE = 1 << 15
"""Keys of a fresh P table (256 KiB; its P filter, 32 KiB, fits the L1 cache), when --memory allows."""
START_NTABLE = 1 << (k.N_BASE + 3)
"""Keys (8 bytes) of a fresh N table: 2 MiB.  It is also the least size from which the N table can
grow (``2**kernels.N_BASE`` blocks of one bucket: a bucket's place in its block is read from the
stored keys, the block from the hash, which is not stored)."""
LOAD = 0.25
"""The P table (buckets of 8 slots that never spill) grows when this fraction of its slots is
used while it is smaller than ``FINE_P``, until its share of the memory budget: a full bucket
(which loses a P result, expensive to recompute) is then rare, about 1 in 5000 (Poisson with mean
2)."""
LOAD_FINE = 0.5
"""The P table's load from ``FINE_P`` keys on, where it grows by ``GROWTH``: 0.44 to 0.5 keys per
slot, 16 to 18 bytes per P-position (plus 2 to 4.5 of filter), half of what ``LOAD`` costs."""
LOAD_N = 0.5
"""The same for the N table while it is smaller than ``FINE_N``: it doubles at half full, so it
holds 16 to 32 bytes per stored N state; at the moment it doubles about 2 % of its buckets are
full (an N result lost is cheap to recompute: usually one P-table hit)."""
LOAD_N_FINE = 0.75
"""The N table's load from ``FINE_N`` keys on, where it grows by ``GROWTH``: 0.67 to 0.75 keys per
slot, 10.7 to 12 bytes per stored N state.  About a sixth of the stores then find their bucket
full and overwrite a key (a tenth at 0.65); a lost N result is recomputed when met again (usually
one P-table hit): {16,26,82,88,701} searched 0.9 % more states than at 0.65 (docs/engine.md, "Memory
and hash collisions")."""
FINE_N = 1 << 26
"""Keys (512 MiB) from which the N table grows by ``GROWTH`` instead of doubling; ``FINE_P`` for P
(64 MiB).  Growing in place re-lays every key (``kernels.bt_grow``, 12-14 ns a key here), so growing
by 1/8 costs 9 re-layings per key instead of 2: a tenth of a small search's time, 3 % of
{16,26,62,95,98,102}'s (27 M states) from 256 MiB on, and the memory matters only beyond.  From
512 MiB the N table holds 17 to 50 M keys before its first step by 1/8 (``LOAD_N_FINE``)."""
FINE_P = 1 << 23
"""Keys (64 MiB) from which the P table grows by ``GROWTH`` instead of doubling (``FINE_N``)."""
GROWTH = 1.125
"""A table of at least ``FINE_N`` (``FINE_P``) keys grows by this factor (at least one bucket per
block), in place, so its load stays within 1/8 of its limit instead of halving at each doubling."""
SLICE = 20_000
"""Expansions per kernel call: the clock, progress and Ctrl-C are checked between calls."""
THREAD_SLICE = 4_000
"""Expansions per kernel call while several threads search the tables (``SliceGate``): a table
grows only between the calls of every thread, so a thread asking for it waits for the others'
calls to end (about 10 ms at this size)."""
MAX_FROBENIUS = 16383
"""Largest Frobenius number the engine accepts (the search itself is the practical limit)."""

THRASH_SLOTS = 64
"""A search is stopped as thrashing once it has expanded more than this many positions per table slot
(P and N slots together) while both tables are at their budget cap (they cannot grow) and at least
``THRASH_OVERWRITES`` of its expansions overwrote a stored result: it is recomputing results it lost,
again and again, and its cost grows exponentially as the budget shrinks.  A search whose tables are
merely small expands well under a few positions per slot ({12,17} in 512K: at most 0.2 per root move;
{16,20,28,35,54} in 512K: 0.4; {16,26,33,62,89,102} in 4M: 0.35), while {16,20,28,35,54} in 256K
reached 1,800 per slot after 18 s of one root move (and kept going).  64 stops that case after
2.6 M expansions (under a second); with the default --memory (1G, 168 M slots) it would take about
10^10 expansions of one root move (most of an hour) to trigger."""
THRASH_OVERWRITES = 0.5
"""Least fraction of a thrashing search's expansions that overwrote a table entry (0.98-0.99 when
thrashing: every new result evicts an older one)."""

SPARE_MEMORY = 256 << 20
"""A table does not grow into the last this many bytes of the machine's available memory
(``available_memory``): it stops there (``Engine.short_of_memory``), and the solve says so in its
progress reports, instead of the process being killed for want of memory."""


class SearchTimeout(Exception):
    """Internal: the deadline passed inside the kernel loop."""


class TableThrash(Exception):
    """Internal: the tables are far too small for the search (see ``THRASH_SLOTS``); the engine's
    tables have been cleared."""

    def __init__(self, expanded: int, overwrites: int) -> None:
        super().__init__(f"{overwrites} overwrites in {expanded} expansions")
        self.expanded = expanded
        self.overwrites = overwrites

    def __reduce__(self) -> tuple:  # picklable: a --jobs worker's MemoryBudgetError carries it as
        return (type(self), (self.expanded, self.overwrites))  # __context__ once tblib is installed


@dataclass
class Counters:
    """What one search did (summed over kernel calls)."""

    expanded: int = 0
    children: int = 0
    ender: int = 0
    terminal: int = 0
    tt_hit: int = 0
    overwrite: int = 0
    max_depth: int = 0
    killer: int = 0
    paired: int = 0
    late: int = 0
    endgame: int = 0

    def add(self, st: np.ndarray) -> None:
        self.expanded += int(st[k.EXPANDED])
        self.children += int(st[k.CHILDREN])
        self.ender += int(st[k.ENDER])
        self.terminal += int(st[k.TERMINAL])
        self.tt_hit += int(st[k.TT_HIT])
        self.overwrite += int(st[k.OVERWRITE])
        self.max_depth = max(self.max_depth, int(st[k.MAXDEPTH]))
        self.killer += int(st[k.KILLER])
        self.paired += int(st[k.PAIRED])
        self.late += int(st[k.LATE])
        self.endgame += int(st[k.EG_HIT])

    def merge(self, other: Counters) -> None:
        """Add what another search did (another thread's counters)."""
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            setattr(self, f.name, max(mine, theirs) if f.name == "max_depth" else mine + theirs)


class Stack:
    """The search stack and the move-ordering hints of one searching thread (``Engine.search``):
    frames by depth (gap bitset, hash and key, move list, the move that led there) and the move
    lists end to end."""

    def __init__(self) -> None:
        self.moves = np.empty(1 << 14, dtype=np.int64)
        self.keys = np.empty(1 << 14, dtype=np.int64)
        self.chash = np.empty(2 << 14, dtype=np.uint64)  # hash and key of each child
        self.counter = np.zeros(MAX_FROBENIUS + 1, dtype=np.int16)  # moves <= 16383: 2 bytes each
        self.counter2 = np.zeros(k.C2MASK + 1, dtype=np.int16)  # 128 KB: leaves the L2 to the P filter
        self.killer = np.zeros(MAX_FROBENIUS + 3, dtype=np.int16)  # by depth (at most genus + 2)
        self.egcache = np.zeros(1 << k.EGC_BITS, dtype=np.uint64)  # kernels.eg_cached
        self.egcache_for: np.ndarray | None = None  # the endgame table whose outcomes it holds
        self.depth = 0
        self.W = 0
        self.bits = np.zeros(0, dtype=np.uint64)
        self.hashes = np.zeros(0, dtype=np.uint64)
        self.mvbase = np.zeros(0, dtype=np.int64)
        self.nmv = np.zeros(0, dtype=np.int64)
        self.idx = np.zeros(0, dtype=np.int64)
        self.last = np.zeros(0, dtype=np.int64)
        self.swap = np.zeros(0, dtype=np.int64)
        self.st = np.zeros(k.ST_SIZE, dtype=np.int64)  # the search's state (``kernels.search``)
        self._bound: tuple[list[weakref.ref], Any] = ([], None)

    def clear_ordering(self) -> None:
        """Forget what orders the search (the hints and the endgame cache), so that a search
        expands exactly what the same search from a fresh process would (tests compare counts)."""
        for a in (self.counter, self.counter2, self.killer, self.egcache):
            a[:] = 0

    def endgame_cache_for(self, egtab: np.ndarray) -> None:
        """Empty the endgame cache unless it holds outcomes of the endgame table ``egtab``."""
        if self.egcache_for is not egtab:
            self.egcache[:] = 0
            self.egcache_for = egtab

    def search_kernel(self, args: tuple) -> Callable[..., Any]:
        """``kernels.search`` bound to ``args`` (``jit.Kernel.bind``: their types checked once), for
        every call with the same arrays: bound again only when one of them is another object (a
        table grew or was cleared, the stack was reallocated)."""
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        arrays += [a for t in args if isinstance(t, tuple) for a in t]
        refs, kernel = self._bound
        if len(refs) != len(arrays) or any(r() is not a for r, a in zip(refs, arrays, strict=True)):
            kernel = k.search.bind(args)
            self._bound = ([weakref.ref(a) for a in arrays], kernel)
        return kernel

    def prepare(self, W: int, depth: int) -> None:
        """Frames for positions of ``W`` words, at least ``depth`` + 1 of them."""
        if W != self.W or depth > self.depth:
            self.W = W
            self.depth = max(depth, self.depth)
            d = self.depth + 1
            self.bits = np.zeros(d * W, dtype=np.uint64)
            self.hashes = np.zeros(2 * d, dtype=np.uint64)  # hash and key of each frame
            self.mvbase = np.zeros(d, dtype=np.int64)
            self.nmv = np.zeros(d, dtype=np.int64)
            self.idx = np.zeros(d, dtype=np.int64)
            self.last = np.zeros(d, dtype=np.int64)
            self.swap = np.zeros(d * k.SWAP, dtype=np.int64)  # paired replies (kernels._pair_reply)

    def grow_moves(self) -> None:
        n = self.moves.shape[0] * 2
        self.moves = np.resize(self.moves, n)
        self.keys = np.resize(self.keys, n)
        self.chash = np.resize(self.chash, 2 * n)

    @property
    def nbytes(self) -> int:
        return int(self.bits.nbytes + self.moves.nbytes * 2)


class SliceGate:
    """Several threads searching one :class:`Engine`'s tables at once (``--jobs``, each with its
    own :class:`Stack`): every kernel call runs between :meth:`enter` and :meth:`leave`, and the
    tables grow (``kernels.bt_grow`` re-lays them in place) only while no call runs: the thread
    that finds them past their load waits for the others' calls to end, grows them, then lets
    every thread go on.  The stored-key counts are kept here (each call adds what it stored).

    Concurrent calls store into the same tables without locks: a key is one aligned 64-bit word,
    written whole, so a probe reads either a key that was stored or not; two threads storing into
    one bucket at once may lose one of the keys, and two setting bits of one P filter word may lose
    one bit (the filter then says "not stored" for a stored P-position): a lost result is searched
    again, never wrong.  The counts may be off by such lost keys: they only time the growth."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.running = 0
        self.growing = False

    def enter(self) -> None:
        with self.cond:
            while self.growing:
                self.cond.wait()
            self.running += 1

    def leave(self, engine: Engine, stored_n: int, stored_p: int) -> None:
        with self.cond:
            engine.ncount += stored_n
            engine.pcount += stored_p
            self.running -= 1
            if self.growing or not engine.needs_growth():
                if self.growing:
                    self.cond.notify_all()  # the thread waiting to grow them
                return
            self.growing = True
            try:
                while self.running:
                    self.cond.wait()
                engine._grow_tables()
            finally:
                self.growing = False
                self.cond.notify_all()


class Engine:
    """Transposition tables + stack; not thread-safe by itself (``lock`` serialises users; while
    ``gate`` is set, threads with their own :class:`Stack` may search at once).

    Two tables: ``ptable`` for P-positions (about one state in ten, so it stays small and hot) and
    ``ntable`` for N-positions, both of 8-byte keys in buckets of 8 that never spill (see
    ``kernels``).  Each is reserved at its share of the memory budget (a quarter for P, the rest for
    N; ``table_zeros``: pages cost memory once written) and used from its start: ``ptable`` and
    ``ntable`` are views of the used part, which grows in place at ``LOAD`` (P) and ``LOAD_N``
    (N), doubling while small, and by ``GROWTH`` at ``LOAD_FINE`` and ``LOAD_N_FINE`` from
    ``FINE_P`` and ``FINE_N`` keys on, until the cap, then overwrites (graceful degradation)."""

    # set by ``clear``; declared here for mypy, which meets them first in ``set_memory``
    _pres: np.ndarray
    _nres: np.ndarray
    ptable: np.ndarray
    ntable: np.ndarray

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.prefetch = True
        self.gate: SliceGate | None = None
        """Set while several threads search the tables (``--jobs``), each with its own stack."""
        self.max_p, self.max_n = START_TABLE, START_NTABLE
        self.short_of_memory: int | None = None
        """The machine's available bytes when a table could not grow for want of them (it stopped
        below its cap); None when it did not happen since the last ``set_memory``."""
        self.use_filter = True
        self.use_endgame = True
        """Decide the positions of at most ``endgame.GENUS`` gaps by the endgame table when it is
        built (:mod:`sylver.solver.endgame`); False: search them."""
        self._endgame: tuple[np.ndarray, np.ndarray, int, int] | None = None
        self._endgame_aot = False
        self.clear()
        self.stack = Stack()
        """The stack of searches that name none (a single thread)."""
        self.thread_stacks: list[Stack] = []
        """The stacks of ``--jobs`` threads (``stacks``), kept, as ``stack`` is, with their
        move-ordering hints and endgame cache warm for the next solve of this process."""

    def stacks(self, n: int) -> list[Stack]:
        """``n`` stacks for the threads of one parallel solve (the first ``n`` kept ones)."""
        while len(self.thread_stacks) < n:
            self.thread_stacks.append(Stack())
        return self.thread_stacks[:n]

    # -- memory --------------------------------------------------------------------------------
    def set_memory(self, memory: int) -> None:
        """Cap the tables (8-byte keys) within ``memory`` bytes: a power of two for P, within a
        quarter of it, with its filter (an eighth of it at the cap); the rest for N, in whole
        ``START_NTABLE`` units (a power of two when the rest is less than one).  16G: 4 GiB for P,
        11.5 GiB for N.
        Raises MemoryError when the tables' address space cannot be reserved (``RLIMIT_AS``): the
        tables then keep what they hold, capped at the space they have."""
        self.short_of_memory = None
        keys = max(MIN_TABLE * 4, memory // 8)
        self.max_p = 1 << ((keys // 4).bit_length() - 1)
        rest = keys - self.max_p - self.max_p // 8
        if rest >= START_NTABLE:
            self.max_n = rest - rest % START_NTABLE
        else:
            self.max_n = max(MIN_TABLE, 1 << (rest.bit_length() - 1))
        n = self.ntable.shape[0]
        try:
            # Too large for the new cap; or an N table capped by an earlier, smaller memory below the
            # least size from which it can grow (START_NTABLE): it would stay that small for good.
            if self.ptable.shape[0] > self.max_p or n > self.max_n or n < min(START_NTABLE, self.max_n):
                self.clear()
            else:
                self._pres, self.ptable = self._reserved(self._pres, self.ptable, self.max_p)
                self._nres, self.ntable = self._reserved(self._nres, self.ntable, self.max_n)
        except MemoryError:  # refused: the tables keep what they hold, capped at what is reserved
            self.max_p, self.max_n = self._pres.shape[0], self._nres.shape[0]
            raise

    @staticmethod
    def _reserved(res: np.ndarray, table: np.ndarray, cap: int) -> tuple[np.ndarray, np.ndarray]:
        """A reservation of ``cap`` keys holding ``table`` at its start (``res`` when it is as large)."""
        if res.shape[0] == cap:
            return res, table
        new = table_zeros(cap, np.uint64)
        new[: table.shape[0]] = table
        return new, new[: table.shape[0]]

    def clear(self) -> None:
        """Forget every stored outcome (MemoryError, with nothing changed, when the tables' address
        space cannot be reserved)."""
        pres = table_zeros(self.max_p, np.uint64)
        self._nres = table_zeros(self.max_n, np.uint64)
        self._pres = pres
        self.ptable = self._pres[: min(START_TABLE, self.max_p)]
        self.ntable = self._nres[: min(START_NTABLE, self.max_n)]
        self.pcount = self.ncount = 0
        self._new_filter()

    @staticmethod
    def _filter_words(slots: int) -> int:
        """Words of the P filter of a P table of ``slots`` keys: a power of two, 1/8 to 1/4 of its bytes."""
        return max(1 << (max(slots // 8, 1) - 1).bit_length(), 64)

    def _new_filter(self) -> None:
        """The P filter for the current P table (``_filter_words``: 8 to 16 bits per P slot), built
        from its entries; none (``fshift`` 0) when turned off."""
        if not self.use_filter:
            self.pfilt = np.zeros(1, dtype=np.uint64)
            self.fshift = 0
            return
        words = self._filter_words(self.ptable.shape[0])
        self.pfilt = table_zeros(words, np.uint64)
        self.fshift = 64 - (words.bit_length() - 1)
        k.pf_build(self.ptable, self.pfilt, self.fshift)

    @property
    def count(self) -> int:
        """Stored outcomes (both tables)."""
        return self.pcount + self.ncount

    @property
    def table_bytes(self) -> int:
        return int(self.ptable.nbytes + self.ntable.nbytes + self.pfilt.nbytes)

    @staticmethod
    def _load_p(size: int) -> float:
        """Keys per slot at which a P table of ``size`` keys grows."""
        return LOAD if size < FINE_P else LOAD_FINE

    @staticmethod
    def _load_n(size: int) -> float:
        """Keys per slot at which an N table of ``size`` keys grows."""
        return LOAD_N if size < FINE_N else LOAD_N_FINE

    @staticmethod
    def _limit(table: np.ndarray, cap: int, load: float, least: int = 0) -> int:
        """Entries allowed before the table must grow (0: it never grows)."""
        size = table.shape[0]
        return int(size * load) if least <= size < cap else 0

    def needs_growth(self) -> bool:
        """Is a table past its load, and below its cap (``_grow_tables`` would grow it)?"""
        return self.pcount >= self._p_limit() > 0 or self.ncount >= self._n_limit() > 0

    def _p_limit(self) -> int:
        return self._limit(self.ptable, self.max_p, self._load_p(self.ptable.shape[0]))

    def _n_limit(self) -> int:
        return self._limit(self.ntable, self.max_n, self._load_n(self.ntable.shape[0]), START_NTABLE)

    @staticmethod
    def _next_size(table: np.ndarray, cap: int, base: int, fine: int) -> int:
        """Keys of the table grown: doubled below ``fine`` keys, else by ``GROWTH`` (whole buckets
        per block); within ``cap`` keys."""
        unit = k.SLOTS << base
        m = table.shape[0] // unit
        grown = 2 * m if table.shape[0] < fine else max(m + 1, math.ceil(m * GROWTH))
        return min(grown, cap // unit) * unit

    @staticmethod
    def _relay(table: np.ndarray, old: int, base: int) -> int:
        """``kernels.bt_grow`` of ``table`` from its first ``old`` keys: the keys it holds."""
        fill = np.zeros(table.shape[0] // k.SLOTS, dtype=np.uint8)
        return int(k.bt_grow(table, old // k.SLOTS, base, fill))

    def _affordable(self, extra: int) -> bool:
        """Can the machine give ``extra`` more bytes (``SPARE_MEMORY`` kept)?  Records it when not."""
        avail = available_memory()
        if avail is None or extra + SPARE_MEMORY <= avail:
            return True
        self.short_of_memory = avail
        return False

    def _grow_tables(self) -> None:
        """Grow the tables past their load in place (``kernels.bt_grow``), within their caps and the
        machine's available memory (a table that cannot have more stays as it is: capped)."""
        if self.pcount >= self._p_limit() > 0:
            size = self._next_size(self.ptable, self.max_p, k.P_BASE, FINE_P)
            words = self._filter_words(size)
            extra = (size - self.ptable.shape[0]) * 8 + (words * 8 if words != self.pfilt.shape[0] else 0)
            if self._affordable(extra):
                old = self.ptable.shape[0]
                self.ptable = self._pres[:size]
                self.pcount = self._relay(self.ptable, old, k.P_BASE)
                if self.fshift and words != self.pfilt.shape[0]:
                    self._new_filter()
            else:
                self.max_p = self.ptable.shape[0]
        if self.ncount >= self._n_limit() > 0:
            size = self._next_size(self.ntable, self.max_n, k.N_BASE, FINE_N)
            if self._affordable((size - self.ntable.shape[0]) * 8):
                old = self.ntable.shape[0]
                self.ntable = self._nres[:size]
                self.ncount = self._relay(self.ntable, old, k.N_BASE)
            else:
                self.max_n = self.ntable.shape[0]

    def saturated(self) -> bool:
        """True when a table is at its budget cap and past its load: new results now overwrite
        stored ones (see ``solve``'s self-check)."""
        return (self.ptable.shape[0] >= self.max_p and self.pcount >= self._load_p(self.ptable.shape[0]) * self.ptable.shape[0]) or (
            self.ntable.shape[0] >= self.max_n and self.ncount >= self._load_n(self.ntable.shape[0]) * self.ntable.shape[0]
        )

    def _thrashing(self, st: np.ndarray) -> bool:
        """True when the search of ``st`` recomputes lost results again and again (``THRASH_SLOTS``)."""
        expanded = int(st[k.EXPANDED])
        if expanded <= THRASH_SLOTS * (self.ptable.shape[0] + self.ntable.shape[0]):
            return False
        if self._p_limit() or self._n_limit():
            return False  # a table can still grow
        return int(st[k.OVERWRITE]) >= THRASH_OVERWRITES * expanded

    def endgame(self) -> tuple[np.ndarray, np.ndarray, int, int]:
        """(table, filter, filter shift, genus) of the endgame table for the kernel; genus -1 (no
        position is looked up) when it is off or not built.  Read at the first search."""
        if not self.use_endgame:
            return _NO_ENDGAME
        if self._endgame is None:
            from sylver.solver import endgame

            eg = endgame.load()
            self._set_endgame(_NO_ENDGAME if eg is None else (eg.table, eg.filter, eg.fshift, eg.genus))
        return self._endgame  # type: ignore[return-value]

    def _set_endgame(self, endgame: tuple[np.ndarray, np.ndarray, int, int] | None) -> None:
        self._endgame = endgame
        self._endgame_aot = endgame is not None and aot_bits(endgame[0]) and aot_bits(endgame[1])
        """Do the table's arrays have the types of the ahead-of-time ``eg_lookup`` (checked once)?"""

    def set_endgame(self, table: object | None) -> None:
        """Use this :class:`~sylver.solver.endgame.EndgameTable` (None: the saved one, read at the
        next search); for tests and benchmarks."""
        self._set_endgame(None if table is None else (table.table, table.filter, table.fshift, table.genus))  # type: ignore[attr-defined]

    # -- reports -------------------------------------------------------------------------------
    def stats(self, counters: Counters) -> dict[str, int]:
        """What a search did (``Solution.stats``): ``counters`` and the outcomes now stored."""
        return {
            "children": counters.children,
            "ender_pruned": counters.ender,
            "terminal": counters.terminal,
            "table_hits": counters.tt_hit,
            "overwrites": counters.overwrite,
            "max_depth": counters.max_depth,
            "killer_cutoffs": counters.killer,
            "paired_cutoffs": counters.paired,
            "late_cutoffs": counters.late,
            "endgame_hits": counters.endgame,
            "table_entries": self.count,
        }

    @property
    def peak_bytes(self) -> int:
        """Bytes held by the tables and the search stack (``Solution.peak_bytes``)."""
        return self.table_bytes + self.stack.nbytes

    # -- search --------------------------------------------------------------------------------
    def outcome(
        self,
        gaps: np.ndarray,
        *,
        deadline: float | None = None,
        counters: Counters | None = None,
        tick: Callable[[int], None] | None = None,
        order: int = k.ORDER_GENUS,
        prune: bool = True,
        max_expanded: int | None = None,
    ) -> Outcome:
        """The outcome of the position with gap bitset ``gaps``: :func:`settled` when it is, else
        :meth:`search`."""
        known = settled(gaps, prune, counters)
        if known is not None:
            return known
        return self.search(
            gaps, deadline=deadline, counters=counters, tick=tick, order=order, prune=prune,
            max_expanded=max_expanded,
        )

    def search(
        self,
        gaps: np.ndarray,
        *,
        deadline: float | None = None,
        counters: Counters | None = None,
        tick: Callable[[int], None] | None = None,
        order: int = k.ORDER_GENUS, prune: bool = True,
        stack: Stack | None = None, max_expanded: int | None = None,
    ) -> Outcome:
        """The outcome of the position with gap bitset ``gaps``, by the kernel's search; raises
        SearchTimeout (past the ``deadline``, or at ``max_expanded`` in ``counters.expanded``: the
        same point on any machine), or TableThrash (after clearing the tables, unless other threads
        search them: ``gate``) when they are far too small.  ``stack``: this thread's (while ``gate``
        is set), else the engine's own.  The deadline is read before every kernel call: a search
        ending within one slice once never read it, and a solve of many ran on past it (0.4-0.65 s)."""
        W = gaps.shape[0]
        direct = aot_bits(gaps)
        genus = int((k.genus_of.unchecked if direct else k.genus_of)(gaps, 0, W))
        egtab, egfilt, efshift, egg = self.endgame()
        if genus <= egg and not gaps[1:].any():
            return self._from_endgame(gaps, (egtab, egfilt, efshift), direct=direct, counters=counters)
        s = self.stack if stack is None else stack
        s.endgame_cache_for(egtab)
        s.prepare(W, genus + 2)
        W = s.W
        s.bits[:W] = gaps
        s.hashes[0], s.hashes[1] = k.state_keys.unchecked(s.bits, 0, W)  # its own array
        s.mvbase[0] = 0
        st = s.st
        st[:] = 0
        st[k.RES] = -1
        st[k.ORDER] = order
        st[k.PRUNE] = 1 if prune else 0
        st[k.PREFETCH] = 1 if self.prefetch else 0
        st[k.EG_GENUS] = egg
        st[k.EG_FSHIFT] = efshift
        gate = self.gate
        expansions = SLICE if gate is None else THREAD_SLICE
        try:
            while True:
                if deadline is not None and time.monotonic() > deadline:
                    raise SearchTimeout
                expansions = slice_within(expansions, max_expanded, counters, int(st[k.EXPANDED]))
                if gate is not None:
                    gate.enter()  # the tables do not change until ``leave``
                ncount, pcount = self.ncount, self.pcount
                try:
                    st[k.COUNT] = ncount
                    st[k.PCOUNT] = pcount
                    st[k.LIMIT] = self._n_limit()
                    st[k.PLIMIT] = self._p_limit()
                    st[k.FSHIFT] = self.fshift
                    args = (s.bits, W, (s.hashes, s.mvbase, s.nmv, s.idx, s.last, s.swap),
                            (s.moves, s.keys, s.chash, s.egcache), (s.counter, s.counter2, s.killer),
                            (self.ptable, self.ntable, self.pfilt, egtab, egfilt), st, expansions)
                    status = s.search_kernel(args)(*args)
                finally:
                    if gate is not None:
                        gate.leave(self, int(st[k.COUNT]) - ncount, int(st[k.PCOUNT]) - pcount)
                if gate is None:
                    self.ncount = int(st[k.COUNT])
                    self.pcount = int(st[k.PCOUNT])
                    if status == k.GROW_TABLE:
                        self._grow_tables()
                if status == k.DONE:
                    return Outcome.P if st[k.FINAL] == 0 else Outcome.N  # the kernel's 0/1
                if status == k.GROW_STACK:
                    if int(st[k.SP]) + 1 > s.depth:  # pragma: no cover - depth is bounded by genus
                        raise RuntimeError("search stack overflow")
                    s.grow_moves()
                if self._thrashing(st):
                    if gate is None:
                        self.clear()
                    raise TableThrash(int(st[k.EXPANDED]), int(st[k.OVERWRITE]))
                if tick is not None:
                    tick(int(st[k.EXPANDED]))
        finally:
            if counters is not None:
                counters.add(st)

    def _from_endgame(self, gaps: np.ndarray, table: tuple[np.ndarray, np.ndarray, int], *, direct: bool,
                      counters: Counters | None) -> Outcome:
        """The outcome of a position in the range of the endgame ``table`` (its table, filter and
        filter shift), looked up (``direct``: ``gaps`` passed ``aot_bits``)."""
        if counters is not None:
            counters.endgame += 1
        egtab, egfilt, efshift = table
        lookup = k.eg_lookup.unchecked if direct and self._endgame_aot else k.eg_lookup
        return Outcome.P if lookup(egtab, egfilt, efshift, gaps) else Outcome.N


def slice_within(most: int, max_expanded: int | None, counters: Counters | None, expanded: int) -> int:
    """The expansions of the next kernel call (at most ``most``) of a search that has made
    ``expanded`` so far, its ``counters`` those of the searches before it: the last call ends at
    ``max_expanded`` (None: no limit), and SearchTimeout once that is reached."""
    if max_expanded is None:
        return most
    left = max_expanded - (0 if counters is None else counters.expanded) - expanded
    if left <= 0:
        raise SearchTimeout
    return min(most, left)


_NO_ENDGAME = (np.zeros(8, dtype=np.uint64), np.zeros(1, dtype=np.uint64), 63, -1)
"""The kernel's endgame arguments when there is no table (no position has genus <= -1)."""

ENGINE = Engine()
"""The process-wide engine (its table stays warm across solve calls)."""


def settled(gaps: np.ndarray, prune: bool = True, counters: Counters | None = None) -> Outcome | None:
    """The outcome of the position with gap bitset ``gaps`` when no search is needed: P when only
    1 is legal (the mover must name it), N for an ender with t > 1 (with ``prune``: strategy
    stealing, Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1); else None."""
    W = gaps.shape[0]
    if aot_bits(gaps):  # one type check for the three kernels
        is_terminal, top_bit, is_ender = k.is_terminal.unchecked, k.top_bit.unchecked, k.is_ender.unchecked
    else:
        is_terminal, top_bit, is_ender = k.is_terminal, k.top_bit, k.is_ender
    if is_terminal(gaps, 0, W):
        if counters is not None:
            counters.terminal += 1
        return Outcome.P
    t = int(top_bit(gaps, 0, W))
    if prune and t > 1 and is_ender(gaps, 0, W, t):
        if counters is not None:
            counters.ender += 1
        return Outcome.N
    return None


def aot_bits(gaps: np.ndarray) -> bool:
    """Does ``gaps`` have the type the kernels' ahead-of-time forms take for a bitset (and are
    they built)?  Then a caller checks it once and calls them ``unchecked``: the check of every
    call costs more than a small kernel's work (the base regions of :mod:`sylver.solver.gcd.periodic`
    solve hundreds of thousands of small positions)."""
    if type(gaps) is not np.ndarray or gaps.dtype != _U64 or gaps.ndim != 1:
        return False  # e.g. a byte-swapped dtype: the checked call decides (and converts or refuses)
    flags = gaps.flags
    return bool(flags.c_contiguous and flags.aligned and flags.writeable) and k.top_bit.unchecked is not k.top_bit


_U64 = np.dtype(np.uint64)


def check_solvable(position: Position) -> None:
    """Raise ValueError unless ``position`` can be solved exactly (gcd 1, game not over, t in range)."""
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__}")
    if position.is_empty:
        raise ValueError(
            "the empty position has infinitely many legal moves; exact solving needs gcd 1"
        )
    if position.is_over:
        raise ValueError("the game is over: 1 has been named")
    g = position.gcd
    if g != 1:
        raise ValueError(f"{position.braces()} has gcd {g}: {_gcd_message(position)}")
    t = position.frobenius_number
    if t > MAX_FROBENIUS:
        raise TooLargeError(
            f"{position.braces()} has Frobenius number {t}; the solver handles t <= {MAX_FROBENIUS}"
        )


def _gcd_message(position: Position) -> str:
    text = (
        "exact solving needs gcd 1 (with gcd > 1 infinitely many moves are legal, so the game "
        "tree is infinite)"
    )
    try:
        from sylver.theory import outcome_by_theory

        verdict, reason = outcome_by_theory(position)
    except Exception:  # theory must not hide this message
        verdict, reason = None, ""
    if verdict is not None:
        text += f"; theory says it is {verdict}: {reason}"
    elif reason:
        text += f"; theory does not decide it ({reason})"
    else:
        text += "; theory does not decide it"
    return text


def root_gaps(position: Position, words: int | None = None) -> np.ndarray:
    """The gap bitset of a gcd-1 position (uint64 words, bit n set iff n is a legal move), in
    ``words`` words (default: as few as hold t)."""
    W = position.frobenius_number // 64 + 1 if words is None else words
    if len(position.generators) == 1:  # {1}
        return np.zeros(W, dtype=np.uint64)
    return k.gaps_from_apery(position.semigroup.apery_array(), W)


def root_moves(gaps: np.ndarray) -> list[int]:
    """The legal moves of the position with gap bitset ``gaps`` other than 1 (naming 1 loses)."""
    return [int(x) for x in k.gap_list(gaps, 0, gaps.shape[0]) if x != 1]


def child_gaps(gaps: np.ndarray, x: int) -> np.ndarray:
    """The gap bitset after naming the legal move x in ``gaps`` (as many words)."""
    W = gaps.shape[0]
    buf = np.empty(2 * W, dtype=np.uint64)
    buf[:W] = gaps
    k.play_into.unchecked(buf, 0, W, W, int(x))  # its own array
    return buf[W:].copy()


def stored_winning_move(position: Position) -> int | None:
    """The least move of the gcd-1 ``position`` into a P-position known without a search: {2,3},
    a P-position of the endgame table, or one stored in the P table by a search of this process (a
    search stores only what it proved, so the answer is as sound as its; keys of 63 + 9 bits, see
    :mod:`~sylver.solver.kernels`); None when there is none.  One lookup a legal move
    (``kernels.first_p_reply``, behind the P filter): what the solves of earlier moves of a game
    proved answers a later one (``perfect``, :meth:`sylver.bots.oracle.Oracle.solve`)."""
    check_solvable(position)
    gaps = root_gaps(position)
    W = gaps.shape[0]
    buf = np.zeros(2 * W, dtype=np.uint64)
    buf[:W] = gaps
    with ENGINE.lock:
        egtab, egfilt, efshift, egg = ENGINE.endgame()
        y = int(k.first_p_reply(buf, W, (ENGINE.ptable, ENGINE.pfilt), ENGINE.fshift, (egtab, egfilt), efshift, egg))
    return y or None


def count_reachable(position: Position) -> int:
    """How many distinct positions can be reached from ``position`` by legal moves, counting
    ``position`` itself and the final position {1} (after someone names 1).  A full enumeration:
    Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 2, gives 158793 for {12,17}."""
    check_solvable(position)
    gaps = root_gaps(position)
    size = 1 << 16
    while True:
        n = int(k.count_reachable(gaps, np.zeros(size, dtype=np.uint64)))
        if n >= 0:
            return n + 1
        size *= 4


def memory_budget_error(
    position: Position, memory: int, expanded: int, overwrites: int, move: int | None = None
) -> MemoryBudgetError:
    """The error for a search that thrashed in tables capped by ``memory`` bytes (or, below it, by
    the machine's available memory: ``Engine.short_of_memory``)."""
    suggested = max(64 << 20, 1 << (4 * memory - 1).bit_length())  # 4x, a power of two, >= 64M
    where = "" if move is None else f" after root move {move}"
    lost = f"the search is recomputing lost results ({overwrites:,} overwrites in {expanded:,} expansions{where})"
    if ENGINE.short_of_memory is not None:
        text = (f"this machine's available memory ({format_memory(ENGINE.short_of_memory)} left, under the "
                f"--memory budget {format_memory(memory)}) is far too small for {position.braces()}: {lost}; "
                "free memory, or solve it on a machine with more")
    else:
        text = (f"memory budget {format_memory(memory)} is far too small for {position.braces()}: {lost}; "
                f"use --memory {format_memory(suggested)} or more")
    return MemoryBudgetError(
        text,
        memory=memory, suggested=suggested, expanded=expanded, overwrites=overwrites, move=move,
    )
