"""What one g > 1 solve shares (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002,
sec. 1-2): its budget and caches (:class:`Context`), the answer for one position (:class:`Finding`),
the gcd-1 positions it solves (:meth:`Context.p_positions`, through the gcd-1 solver's self-checked
path), what it already knows (:func:`known`, :func:`record`, :func:`purge`) and the part of
``--memory`` it has for its data (:func:`data_memory`).  The shape graphs and scans that share that
memory: :mod:`.memory`."""

from __future__ import annotations

import os
import time
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.position import Outcome, Position
from sylver.solution import OddTail
from sylver.theory import is_quiet_ender

if TYPE_CHECKING:
    from sylver.solution import ScanProgress
    from sylver.solver.gcd.periodic import BaseRegion, Scan
    from sylver.solver.gcd.shapes import ShapeGraph
    from sylver.store.results import Store

SEARCH_LIMIT = 64
"""Default bound of the bounded searches (moves tried in long positions with g ≥ 3 and composite g)."""
MEMO_BYTES = 120
"""Bytes a memoised gcd-1 result holds (:class:`Gcd1Memo`): the bytes of its minimal generators and
its dict entry (measured with the resident memory of the process: 114 for the 760,895 base-region
positions of {16,30,42,56}, 29 November 2026; a Position with its Apéry set, as kept before, took
530 more).  A base region keeps its own values (:meth:`sylver.solver.gcd.periodic.BaseRegion.nbytes`):
only its P results come here (:meth:`Context.base_values`)."""
TABLES_ALONE = 8
"""A child tried alone for want of memory (:func:`.g2.retry_alone`) is tried last with the gcd-1
tables capped at this fraction (1/8) of the budget and the shape graphs given the rest."""
MAX_T_H = 5_461
"""Largest t(S ÷ g) the engine takes on (a third of the gcd-1 solver's limit on t, 16,383: the
gcd-1 positions it solves, S ∪ {x} with x ≤ t(S ÷ 2) and the base region, have t ≤ 3·t(S ÷ 2)).
Beyond it only the theorems answer (a prime factor q ≥ 5 of g wins)."""


@dataclass(kw_only=True)
class Finding:
    """The answer for one position (internal; :class:`~sylver.solver.Solution` is the public form)."""

    outcome: Outcome | None
    """P or N when proven, else None."""
    winning: list[int]
    """The winning moves found (all of them when ``complete``)."""
    complete: bool
    """True when every move is decided."""
    method: str
    """``short``, ``periodicity``, ``theorem``, ``search``, ``store`` or ``book`` (the results book)."""
    reason: str
    """Why, in words."""
    probably_p: bool = False
    """g = 2, not proven: the paper's "Probably P" (sec. 2)."""
    odd_tail: OddTail | None = None
    """g = 2: what is established about the odd moves."""
    short: bool | None = None
    """Is S ÷ g a quiet ender (None: not asked, as for a theorem's answer)?"""
    full: bool = True
    """False when the search stopped at the first winning move."""
    wanting: bool = False
    """Undecided because a shape graph, scan or gcd-1 solve in its search passed the memory left for it
    (:attr:`Context.too_large`): another attempt with more room may decide it (:func:`.g2.retry_alone`)."""


def quiet(h: Position) -> bool:
    """Is h = S ÷ g a quiet ender, S *short* (sec. 1)?  Never for h = {1}."""
    return h.generators != (1,) and is_quiet_ender(h)


def gaps(h: Position) -> list[int]:
    """The gaps of h (none for {1})."""
    return [] if h.generators == (1,) else h.semigroup.gaps()


def half(position: Position) -> Position:
    """S ÷ 2."""
    return Position(x // 2 for x in position.generators)


class Gcd1Memo(MutableMapping[Position, bool]):
    """The gcd-1 results of a solve (True for P), keyed compactly: a position is kept as the bytes of
    its minimal generators (16 bits each, 32 bits past 65,535), not as its Position (about 530 bytes
    with its Apéry set), ``MEMO_BYTES`` an entry.  A mapping from Positions: iterating makes them
    again from the generators."""

    def __init__(self) -> None:
        self._values: dict[bytes, bool] = {}

    @staticmethod
    def key(position: Position) -> bytes:
        """The bytes of ``position``'s minimal generators (an odd length, a leading 0xFF, when one of
        them needs 32 bits: never the key of another position)."""
        gens = position.generators
        if gens[-1] < 1 << 16:
            return array("H", gens).tobytes()
        return b"\xff" + array("I", gens).tobytes()

    @staticmethod
    def position(key: bytes) -> Position:
        """The position of a key."""
        return Position(array("I", key[1:]) if len(key) % 2 else array("H", key))

    def __getitem__(self, position: Position) -> bool:
        return self._values[self.key(position)]

    def __setitem__(self, position: Position, is_p: bool) -> None:
        self._values[self.key(position)] = bool(is_p)

    def __delitem__(self, position: Position) -> None:
        del self._values[self.key(position)]

    def __contains__(self, position: object) -> bool:
        return isinstance(position, Position) and self.key(position) in self._values

    def __iter__(self) -> Iterator[Position]:
        return (self.position(k) for k in list(self._values))

    def __len__(self) -> int:
        return len(self._values)

    def forget(self, *, p_too: bool = False) -> None:
        """Forget the N results (a move to a P result wins at once, :func:`.g2._known_win`; an N result
        is solved again when asked), and with ``p_too`` the P results too."""
        if p_too:
            self._values.clear()
        else:
            self._values = {k: v for k, v in self._values.items() if v}


class Context:
    """Budget and caches shared by one call of :func:`sylver.solver.gcd.solve_any` (and its recursion)."""

    def __init__(
        self,
        *,
        odd_limit: int | None,
        deadline: float | None,
        memory: int,
        store: Store | None,
        jobs: int,
        cluster: str | None,
        progress: Callable[[ScanProgress], None] | None,
        checkpoint_dir: Path | None,
        search_limit: int = SEARCH_LIMIT,
        max_states: int | None = None,
    ) -> None:
        self.odd_limit = odd_limit
        self.deadline = deadline
        self.max_states = max_states
        """The gcd-1 positions the solve may decide (None: no limit): past it, TimeoutError, as at
        the deadline, but at the same point on any machine."""
        self.states = 0
        """The gcd-1 positions decided so far (:meth:`p_positions`)."""
        self.memory = memory
        self.graphs: int | None = None
        """The part of ``memory`` for the shape graphs, scans, base regions and the memo (:meth:`half`),
        the gcd-1 solver's tables having the rest (:meth:`tables`): None for half, until :meth:`release`."""
        self.store = store
        self.jobs = jobs
        self.cluster = cluster
        self.progress = progress
        self.checkpoint_dir = checkpoint_dir
        self.search_limit = search_limit
        self.gcd1 = Gcd1Memo()
        self.verdicts: dict[Position, Finding] = {}
        self.scans: list[Scan] = []
        self.unions: list[ShapeGraph] = []
        """Shape graphs built for several positions at once (:func:`.memory.offer_union`)."""
        self.union_groups: list[list[Position]] = []
        """Long positions whose graphs are to be built together when the first one needs its own."""
        self.regions: dict[int, BaseRegion] = {}
        """The base regions of the union graphs (by id), shared by their subgraphs' scans."""
        self.kept: dict[frozenset[Position], Any] = {}
        """Union graphs, or their builders stopped by a deadline, kept for a later attempt at the same
        positions (:func:`.memory._keep`)."""
        self.killers: dict[int, Counter[int]] = {}
        """For a number m: the winning moves found in positions with g = 2 that have m among their
        generators, with how often (:func:`.g2._killer_moves`)."""
        self.cheap_tried: set[Position] = set()
        """Long positions (g = 2) whose winning move was looked for without a scan, to the end or for
        the whole of ``CHEAP_SECONDS`` (:func:`.g2._cheap_verdict`): not looked for again."""
        self.too_large: dict[Position, tuple[str, int]] = {}
        """Long positions below the root whose shape graph would pass the memory left for it (with the
        error's message and that memory): undecided in this call, tried again only when at least
        twice as much memory is left (:func:`.g2.scan_or_verdict`), or alone once everything else is
        freed (:func:`.g2.retry_alone`)."""
        self.root: Position | None = None
        """The position the user asked for (None in a worker): its own graph too large is an error."""
        self.peak_scan_bytes = 0
        """The most memory :meth:`held` showed when scans were dropped (:func:`.memory.forget`)."""
        from sylver.solver.engine import ENGINE

        self.own = max(process_bytes() - ENGINE.table_bytes, PROCESS_BYTES)
        """What the process holds besides the solve's data, as :func:`data_memory` counts it, less the
        gcd-1 tables that an earlier solve in this process left (:meth:`used` counts them apart)."""
        self.deepening = False
        """True inside the iterative deepening of :func:`.g2._first_winning` (the searches below it try
        their moves in turn)."""

    # -- gcd-1 positions -------------------------------------------------------------------------
    def p_positions(self, positions: list[Position], *, keep_n: bool = True) -> list[bool]:
        """Which of these gcd-1 positions are P (exact solves, memoised; in parallel with jobs).  With
        ``keep_n`` false only the P results go into the memo (:meth:`base_values`)."""
        gcd1 = self.gcd1
        todo = [p for p in dict.fromkeys(positions) if p not in gcd1]
        room = len(todo) if self.max_states is None else max(0, self.max_states - self.states)
        n_here: set[Position] = set()

        def found(p: Position, is_p: bool) -> None:
            if is_p or keep_n:
                gcd1[p] = is_p
            else:
                n_here.add(p)
            self.states += 1

        if todo[:room]:  # each result kept as it comes (in one process), so a deadline loses none
            _solve_many(todo[:room], self, found)
        if room < len(todo):
            raise TimeoutError("state limit reached")
        return [p not in n_here and gcd1[p] for p in positions]

    def region_batch(self) -> int:
        """The positions of a base region given to :meth:`base_values` at a time: ``REGION_BATCH``
        in one process; with worker processes (``--jobs``, ``--cluster``) 64 times as many, each
        batch being split over a pool started for it (:func:`_solve_many`)."""
        from sylver.solver.gcd.periodic import REGION_BATCH

        return REGION_BATCH * (64 if self.jobs > 1 or self.cluster else 1)

    def base_values(self, positions: list[Position]) -> list[bool]:
        """:meth:`p_positions` for the batches of a base region (:meth:`sylver.solver.gcd.periodic.BaseRegion.of`):
        the region keeps every value in its own array (a byte each), so the memo keeps only the P
        results (what :func:`.g2._known_win` looks for; an N result asked again is solved again, the
        gcd-1 solver's tables remembering most of it): millions of N results would take
        ``MEMO_BYTES`` each."""
        return self.p_positions(positions, keep_n=False)

    def out_of_states(self) -> bool:
        """Has the solve decided as many gcd-1 positions as ``max_states`` allows?"""
        return self.max_states is not None and self.states >= self.max_states

    def time_left(self) -> bool:
        """Neither the deadline passed nor the limit of states reached."""
        return (self.deadline is None or time.monotonic() < self.deadline) and not self.out_of_states()

    # -- memory ----------------------------------------------------------------------------------
    def half(self) -> int:
        """The part of ``--memory`` (``graphs``: half, until :meth:`release`) that the shape graphs,
        scans, base regions and the memo of gcd-1 results share (the gcd-1 solver's tables have the
        rest, :meth:`tables`)."""
        return max(self.memory // 2 if self.graphs is None else self.graphs, 1 << 17)

    def tables(self) -> int:
        """The part of ``--memory`` for the gcd-1 solver's transposition tables (:func:`_solve_many`)."""
        return max(self.memory - self.half(), 1 << 17)

    def held(self) -> int:
        """The bytes held now in :meth:`half`: the live scans, the union graphs (kept ones, or their
        stopped builders, too), the base regions and the memo of gcd-1 results."""
        from sylver.solver.gcd.shapes import ShapeGraph

        graphs = {id(u): u for u in (*self.unions, *self.kept.values())}
        arrays = {id(a): a for s in self.scans for a in s.arrays()}  # a scan's graph may share a union's moves
        rest = sum(s.object_bytes() for s in self.scans)
        for u in graphs.values():
            if isinstance(u, ShapeGraph):
                arrays.update((id(a), a) for a in u.arrays())
                rest += u.object_bytes()
            else:
                rest += u.holds()
        return (int(sum(a.nbytes for a in arrays.values())) + rest
                + sum(r.nbytes() for r in self.regions.values()) + MEMO_BYTES * len(self.gcd1))

    def used(self) -> int:
        """The bytes of :meth:`half` in use: :meth:`held`, or, when more, what the process holds
        beyond ``own`` and the gcd-1 tables (its resident memory: the pool's estimates fall short
        by what they do not count, the memory a freed memo, graph or listing leaves to the allocator,
        the verdicts and other Python objects: 241 MB after :meth:`release` in {16,30,56} at
        ``--memory 1G``, issue 31)."""
        from sylver.solver.engine import ENGINE

        return max(self.held(), process_bytes() - self.own - ENGINE.table_bytes)

    def room(self, scans: bool = True) -> int:
        """The memory a new shape graph or scan may take: :meth:`half` less what is :meth:`used`.  When
        less than half of it is left, the caches go first: the kept union graphs with their base
        regions, and the memo's N results (a P result stays: a move to it wins at once,
        :func:`.g2._known_win`; an N result is solved again when asked, the gcd-1 solver's own tables
        remembering most of it); then, if that was not enough, the scans but the root's
        (:meth:`drop_scans`: none is running when a new one is made; a scan kept for a position cut
        by the iterative deepening, or whose graph holds the families of later positions, is made
        again when needed).  A graph or scan refused for want of memory drops them too, and is
        tried once more (:func:`.g2.scan_or_verdict`).  With ``scans`` false the scans stay: what a
        running scan may still add (``Scan.room``)."""
        half = self.half()
        left = half - self.used()
        if left < half // 2 and (self.kept or len(self.gcd1)):
            cached = len(self.kept) + len(self.regions) + len(self.gcd1)
            self.kept.clear()
            live = {id(u) for u in self.unions}
            for k in [k for k in self.regions if k not in live]:
                del self.regions[k]
            self.gcd1.forget()
            if len(self.kept) + len(self.regions) + len(self.gcd1) < cached:
                give_back()
            left = half - self.used()
        if scans and left < half // 2 and self.drop_scans():
            give_back()
            left = half - self.used()
        return max(left, 0)

    def drop_scans(self) -> bool:
        """Drop the scans but the root's (see :meth:`room`); whether there were any."""
        if all(s.position == self.root for s in self.scans):
            return False
        # only ever fewer scans: the counts that forget keeps stay past every outer scan
        self.scans[:] = [s for s in self.scans if s.position == self.root]
        return True

    def release(self, tables: int | None = None) -> None:
        """Free what this solve holds for a child tried alone (:func:`.g2.retry_alone`): the kept and
        live union graphs with their base regions and offered groups, every scan (the root's too: its
        odd moves are decided by then), the memo's N results (with ``tables``, its P results too)
        and the undecided verdicts (those cut for want of memory are to be made again); and give the
        shape graphs what the gcd-1 tables then leave of ``memory``: the tables are capped at
        ``tables`` bytes (None: twice what they
        hold now, at least ``memory`` / ``TABLES_ALONE``, at most half;
        :meth:`sylver.solver.engine.Engine.set_memory` empties them when they hold more), the graphs
        get the rest, so that the two stay within ``memory`` together.  With worker processes
        (``--jobs``, ``--cluster``) the split stays half and half: the workers share the tables' half.
        What was freed is given back to the system (:func:`give_back`)."""
        from sylver.solver.engine import ENGINE

        self.kept.clear()
        self.unions.clear()
        self.union_groups.clear()
        self.regions.clear()
        self.scans.clear()
        self.gcd1.forget(p_too=tables is not None)
        for p in [p for p, v in self.verdicts.items() if v.outcome is None]:
            del self.verdicts[p]
        give_back()
        if self.jobs > 1 or self.cluster:
            return
        with ENGINE.lock:
            if tables is None:
                tables = min(self.memory // 2, max(2 * ENGINE.table_bytes, self.memory // TABLES_ALONE))
            ENGINE.set_memory(tables)
        self.graphs = self.memory - tables  # what was held is freed: no less than half


def refusals(ctx: Context) -> str:
    """The positions left undecided for want of memory (``ctx.too_large``), each with why: which
    graph, scan, base region or gcd-1 solve, the bytes it needed and the room it had (the error's
    message, without its advice)."""
    return ", ".join(f"{p.braces()} ({why.split(': use a larger --memory')[0]})"
                     for p, (why, _) in ctx.too_large.items())


def known(position: Position, ctx: Context, full: bool) -> Finding | None:
    """The verdict already established for ``position`` in this call, or recorded in the results
    store by an earlier solve (with ``full``, only a complete record: every winning move)."""
    cached = ctx.verdicts.get(position)
    if cached is not None and (cached.complete or not full or cached.full):
        return cached
    if ctx.store is None:
        return None
    rec = ctx.store.get(position)
    if rec is None or (full and not rec.complete) or (rec.outcome is Outcome.N and not rec.winning_moves):
        return None  # (an N without its winning move, e.g. an obligation the results book holds: no proof)
    where = "the results book" if rec.source == "book" else "the results store by an earlier solve"
    v = Finding(outcome=rec.outcome, winning=list(rec.winning_moves), complete=rec.complete, method=rec.source,
                reason=f"{rec.outcome.value}, recorded in {where}", full=full)
    ctx.verdicts[position] = v
    return v


def record(position: Position, v: Finding, ctx: Context, seconds: float = 0.0) -> None:
    """Record a proven outcome in the results store (the column for t holds 0 for g > 1; ``seconds``:
    those of the solve, for the position asked)."""
    if ctx.store is not None and v.outcome is not None:
        ctx.store.put_result(position, v.outcome, tuple(v.winning), v.complete, 0, seconds=seconds)


def purge(ctx: Context, before: set[Position]) -> None:
    """Forget the verdicts without an outcome made since ``before`` (the keys of ``ctx.verdicts``
    then): a deadline cut them short, so a later attempt with more time must not read them back.
    Proven outcomes stay (a cut never makes one: a move left undecided is never counted as losing)."""
    for key in [k for k in ctx.verdicts if k not in before and ctx.verdicts[k].outcome is None]:
        del ctx.verdicts[key]


def to_wall(deadline: float | None) -> float | None:
    """A ``time.monotonic()`` deadline as a ``time.time()`` one, for a task in another process (a
    Dask worker may run on another machine, where only the wall clock is shared)."""
    return None if deadline is None else time.time() + (deadline - time.monotonic())


def from_wall(wall: float | None) -> float | None:
    """The inverse of :func:`to_wall`, in the worker."""
    return None if wall is None else time.monotonic() + (wall - time.time())


def _solve_chunk(ps: list[Position], memory: int, deadline: float | None) -> list[bool]:
    """:func:`sylver.solver.gcd.periodic.solve_base` in a worker process (``deadline``: wall clock)."""
    from sylver.solver.gcd.periodic import solve_base

    return solve_base(ps, memory=memory, deadline=from_wall(deadline))


def _solve_many(positions: list[Position], ctx: Context,
                found: Callable[[Position, bool], None]) -> None:
    """Decide gcd-1 positions with :func:`sylver.solver.gcd.periodic.solve_base` (the self-checked
    path of :func:`sylver.solver.solve`), split over processes with ``--jobs`` / ``--cluster``; they
    get :meth:`Context.tables` (the scans :meth:`Context.half`), shared by the ``--jobs`` processes of
    this machine (a cluster's workers each have their own).  ``found(p, is_p)`` receives each
    result.  TimeoutError at the deadline (the workers are stopped then, see
    :func:`sylver.executors.run_until`)."""
    from sylver.solver.gcd.periodic import solve_base

    memory = ctx.tables()
    if (ctx.jobs > 1 or ctx.cluster) and len(positions) >= 64:
        from functools import partial

        from sylver.executors import make_executor, run_until

        size = max(16, len(positions) // (8 * max(ctx.jobs, 1)))
        chunks = [positions[i : i + size] for i in range(0, len(positions), size)]
        share = memory if ctx.cluster else max(memory // ctx.jobs, 1 << 17)
        work = partial(_solve_chunk, memory=share, deadline=to_wall(ctx.deadline))
        with make_executor(ctx.jobs, ctx.cluster) as ex:
            done = run_until(ex, work, chunks, ctx.deadline)
        for i, values in done.items():  # the chunks finished by the deadline count
            for p, v in zip(chunks[i], values, strict=True):
                found(p, v)
        if len(done) < len(chunks):
            raise TimeoutError("time limit reached")
        return
    solve_base(positions, memory=memory, deadline=ctx.deadline, found=found)


PROCESS_BYTES = 320 << 20
"""What the process holds besides the solve's data, at least: the interpreter, numpy, numba and the
compiled kernels, the endgame table (about 200-250 MB once the kernels are loaded), and what the
pool does not count (transient copies while arrays grow, the verdicts and other small Python
objects: up to about 100 MB more in {12,46} at 1G, 24 November)."""


def process_bytes() -> int:
    """The process's resident memory now (Linux; ``PROCESS_BYTES`` where it cannot be read)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return PROCESS_BYTES


@cache
def _libc() -> Any:
    """The C library, for ``malloc_trim`` (None where there is none: not glibc)."""
    import ctypes
    import ctypes.util

    try:
        lib = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return lib if hasattr(lib, "malloc_trim") else None
    except OSError:
        return None


def give_back() -> None:
    """Return the free pages of the C heap to the system (glibc's ``malloc_trim``; nothing
    elsewhere): the arrays below glibc's mmap threshold (up to 32 MB) and the Python objects of a
    dropped graph, scan, base region or memo leave them to the allocator, resident, and
    :meth:`Context.used` would go on counting them."""
    lib = _libc()
    if lib is not None:
        lib.malloc_trim(0)


def data_memory(memory: int, workers: int = 0) -> int:
    """The part of ``--memory`` for this process's data in a g > 1 solve (gcd-1 tables, shape
    graphs, scans, base regions, memo): the budget less what the processes hold besides the data
    (this one's RSS when the solve starts, and each of its ``workers`` processes on this machine,
    ``--jobs``, ``PROCESS_BYTES`` at least), so that they stay within ``--memory`` together (at
    least 1 / (2 (1 + workers)) of it); with workers, half of that (its workers share the other
    half: :func:`_solve_many`, :func:`.g2._long_apart`)."""
    own = max(process_bytes(), PROCESS_BYTES) + workers * PROCESS_BYTES
    data = max(memory - own, memory // (2 * (1 + workers)))
    return data // 2 if workers else data
