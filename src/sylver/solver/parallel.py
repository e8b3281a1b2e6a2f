"""``--jobs N``: the root moves of a solve, decided in parallel through an Executor (docs/design.md).

Each root move is one task; results are merged as they complete.  With a local process pool the
workers share one pair of transposition tables: an anonymous shared memory mapping created before the
workers are forked (keys are single aligned 64-bit words, so concurrent writes cannot tear; a
lost race loses an entry, never correctness).  Elsewhere (Dask, or a spawning pool) each worker uses
its own table, warm across the tasks it runs.  With ``first=True`` the
least winning move is known as soon as every smaller move is decided, and the remaining tasks are
cancelled.  Workers record the positions they decide in the shared store, if one is given.

A worker that thrashes in tables far too small for its search raises ``MemoryBudgetError`` (see
``engine.THRASH_SLOTS``; for shared tables only when the budget, not the root, limited their size);
a worker process that dies (the out-of-memory killer, a signal) makes the solve raise
``WorkerDiedError`` naming the root move it was deciding.  Either way the other workers are ended.
"""

from __future__ import annotations

import mmap
import multiprocessing
import os
import signal
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, wait
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from sylver.errors import MemoryBudgetError, WorkerDiedError
from sylver.executors import stop_workers
from sylver.position import Outcome, Position
from sylver.solver.engine import ENGINE, LOAD_N, Engine, memory_budget_error, root_gaps, root_moves
from sylver.solver.local import Request, RootMoves, solve_local
from sylver.solver.solution import Solution, SolveInterrupted, SolveTimeout

if TYPE_CHECKING:
    from sylver.solver.store import Store


class _Shared(NamedTuple):
    """What the forked workers of one solve share."""

    ptable: np.ndarray
    ntable: np.ndarray
    pfilt: np.ndarray
    """The P filter of ``ptable`` (``Engine._filter_words``), shared as well."""
    limited: bool
    """The memory budget (not the root) limited the tables' size: thrashing in them is an error."""
    who: np.ndarray
    """int32 by root move: the pid of the worker deciding it (0: none), to name a worker that died."""


SHARED: dict[str, _Shared] = {}
"""Shared tables by token, one per solve under way; forked workers inherit this dict and the
mapping behind it (the tests read ``who`` from it to find a busy worker)."""
SHARED_BASE = 1 << 24
"""Bytes of the shared N table for a root with up to ``SHARED_GENUS`` legal moves; it doubles for
every 16 more, within half the memory budget.  The P table is an eighth of it.  Shared tables cannot
grow (past their size entries are overwritten: slower, never wrong), and a table much larger than the
search needs costs cache and TLB misses, so it is sized from the root."""
SHARED_GENUS = 120


def _shared_tables(memory: int, genus: int, t: int) -> _Shared:
    want = SHARED_BASE << max(0, (genus - SHARED_GENUS) // 16)
    n_bytes = 1 << (min(memory // 2, want).bit_length() - 1)
    n_entries = max(n_bytes // 8, 1 << 12)
    p_entries = max(n_entries // 8, 1 << 12)
    f_words = Engine._filter_words(p_entries)
    who_words = (t + 2) // 2  # t + 1 int32 slots, rounded up to whole words
    mm = mmap.mmap(
        -1, (n_entries + p_entries + f_words + who_words) * 8, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS
    )
    words = np.frombuffer(mm, dtype=np.uint64)  # keeps the mapping alive
    tables_end = p_entries + n_entries
    return _Shared(
        ptable=words[:p_entries], ntable=words[p_entries:tables_end],
        pfilt=words[tables_end : tables_end + f_words], limited=memory // 2 < want,
        who=words[tables_end + f_words :].view(np.int32),
    )


def decide_moves(
    generators: tuple[int, ...],
    moves: list[int],
    memory: int,
    time_limit: float | None,
    store: Store | None,
    token: str | None = None,
) -> tuple[dict[int, Outcome], int]:
    """Worker task: the outcome of the position after each move, and the states searched (-1: the
    time limit passed, the outcomes are those decided by then)."""
    shared = SHARED.get(token) if token else None
    if shared is not None and ENGINE.ptable is not shared.ptable:
        ENGINE.attach(shared.ptable, shared.ntable, shared.limited, shared.pfilt)
    request = Request(position=Position(generators), time_limit=time_limit, budget=memory, store=store)
    if shared is not None:
        shared.who[moves] = os.getpid()
    try:
        sol = solve_local(request, only=moves)
    except SolveTimeout as exc:
        return (dict(exc.partial.decided) if exc.partial else {}), -1
    finally:
        if shared is not None:
            shared.who[moves] = 0
    return sol.decided, sol.states


def _worker_lost(exc: BaseException) -> bool:
    """True for the executor's report of a worker that died (local pool, or Dask)."""
    if isinstance(exc, BrokenExecutor):
        return True
    if type(exc).__name__ != "KilledWorker":  # Dask; not imported unless it is one
        return False
    try:
        from distributed import KilledWorker
    except ImportError:  # pragma: no cover - the name matched, so distributed is installed
        return False
    return isinstance(exc, KilledWorker)


def _ended_workers(executor: object) -> dict[int, int]:
    """pid -> exit code of the local pool's worker processes that ended (negative: a signal)."""
    thread = getattr(executor, "_executor_manager_thread", None)
    if thread is not None:
        thread.join(timeout=2.0)  # a broken pool ends its workers and reaps them, then this thread
    ended: dict[int, int] = {}
    for pid, proc in list((getattr(executor, "_processes", None) or {}).items()):
        code = proc.exitcode
        if code not in (None, 0):
            ended[pid] = code
    # The pool itself ends the other workers with SIGTERM once one has died.
    return {pid: c for pid, c in ended.items() if c != -signal.SIGTERM} or ended


def _how(code: int) -> str:
    if code > 0:
        return f"exited with status {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        name = "?"
    hint = ": the out-of-memory killer?" if -code == signal.SIGKILL else ""
    return f"killed by signal {-code}, {name}{hint}"


def _worker_died(
    executor: object,
    exc: BaseException,
    position: Position,
    move: int | None,
    roots: RootMoves,
    who: np.ndarray | None,
    cluster: str | None,
) -> WorkerDiedError:
    """The error for a worker that died; ``move`` is the root move of the task that reported it
    (exact for Dask; for a local pool every pending task reports it, so ``who`` names the move)."""
    pos = position.braces()
    if cluster:
        head = f"a Dask worker died while deciding root move {move} of {pos}" if move is not None else (
            f"a Dask worker died while deciding the root moves of {pos}"
        )
        why = " ".join(str(exc).split())  # one line
        return WorkerDiedError(f"{head} ({type(exc).__name__}: {why}); rerun, or use a smaller --memory")
    ended = _ended_workers(executor)
    details = ", ".join(f"pid {pid}, {_how(code)}" for pid, code in sorted(ended.items()))
    lost = sorted(int(x) for x in np.flatnonzero(np.isin(who, list(ended)))) if who is not None and ended else []
    if lost:
        what = f"root move{'s' if len(lost) > 1 else ''} {', '.join(map(str, lost))} of {pos}"
    else:
        what = f"the root moves of {pos} ({len(roots.decided)} of {len(roots.moves)} decided)"
    return WorkerDiedError(
        f"a --jobs worker process died{f' ({details})' if details else ''} while deciding {what}; "
        f"rerun, or use fewer --jobs or a smaller --memory"
    )


def solve_parallel(request: Request, *, jobs: int, cluster: str | None) -> Solution:
    """Decide the root moves of ``request.position`` over ``jobs`` processes (or a Dask cluster)."""
    position = request.position
    roots = RootMoves(position=position, moves=root_moves(root_gaps(position)), start=request.start)
    token = None
    per_job = max(request.budget // max(jobs, 1), 1 << 22)
    if cluster is None and multiprocessing.get_start_method() == "fork":
        token = uuid.uuid4().hex
        SHARED[token] = _shared_tables(request.budget, len(roots.moves) + 1, position.frobenius_number)
        per_job = request.budget
        ENGINE.endgame()  # read before the workers fork: they share its pages (read only)
    try:
        return _ParallelSolve(request, roots, jobs, cluster, per_job, token).run()
    finally:
        if token is not None:
            del SHARED[token]


class _ParallelSolve:
    """One :func:`solve_parallel` call: a task per root move, merged as they complete."""

    def __init__(
        self, request: Request, roots: RootMoves, jobs: int, cluster: str | None, per_job: int,
        token: str | None,
    ) -> None:
        self.request, self.roots = request, roots
        self.jobs, self.cluster = jobs, cluster
        self.per_job, self.token = per_job, token
        self.shared = SHARED.get(token) if token else None
        self.futures: dict[Future, int] = {}

    def run(self) -> Solution:
        from sylver.executors import make_executor

        request, roots = self.request, self.roots
        with make_executor(self.jobs, self.cluster) as executor:
            try:
                self.submit(executor)
                self.collect(executor)
            except KeyboardInterrupt:
                stop_workers(executor, self.futures)
                raise SolveInterrupted(roots.solution(complete=False)) from None
            except MemoryBudgetError as exc:  # from a worker: name the budget of the whole solve
                stop_workers(executor, self.futures)
                raise memory_budget_error(
                    request.position, request.budget, exc.expanded, exc.overwrites, exc.move
                ) from None
            except Exception as exc:  # a timeout, a worker that died, a store conflict, ...
                stop_workers(executor, self.futures)
                if _worker_lost(exc):  # while submitting
                    raise self.died(executor, exc, None) from None
                raise
        # shared tables never grow: saturated once past the load at which a private one would double
        shared = self.shared
        saturated = shared is not None and np.count_nonzero(shared.ntable) >= LOAD_N * shared.ntable.shape[0]
        first = request.first
        return roots.solution(
            complete=not (first and roots.winning()), first=first, saturated=bool(saturated)
        )

    def submit(self, executor: Any) -> None:
        """A task per root move, each with the time left."""
        deadline = self.request.deadline
        gens = self.request.position.generators
        for x in self.roots.moves:
            remaining = None if deadline is None else max(0.01, deadline - time.monotonic())
            task = executor.submit(
                decide_moves, gens, [x], self.per_job, remaining, self.request.store, self.token
            )
            self.futures[task] = x

    def collect(self, executor: Any) -> None:
        """Merge the tasks' results as they complete, until all are in (or, with ``first``, the
        least winning move is known: the rest are stopped)."""
        request, roots = self.request, self.roots
        deadline = request.deadline
        pending = set(self.futures)
        while pending:
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            done, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            if not done:
                raise roots.timeout(request.time_limit)
            for fut in done:
                self.merge(executor, fut)
            if request.progress is not None:
                request.progress(roots.progress())
            if request.first and roots.least_winning_known():
                undone = {f: x for f, x in self.futures.items() if not f.done()}
                if undone:
                    stop_workers(executor, undone)
                return

    def merge(self, executor: Any, fut: Future) -> None:
        """Add one finished task's outcomes (a worker that died or timed out raises)."""
        roots = self.roots
        try:
            result, n = fut.result()
        except Exception as exc:
            if _worker_lost(exc):
                raise self.died(executor, exc, self.futures[fut]) from None
            raise
        if n < 0 and self.futures[fut] not in result:
            raise roots.timeout(self.request.time_limit)
        roots.states += max(n, 0)
        roots.decided.update(result)

    def died(self, executor: Any, exc: BaseException, move: int | None) -> WorkerDiedError:
        who = None if self.shared is None else self.shared.who
        return _worker_died(
            executor, exc, self.request.position, move, self.roots, who, self.cluster
        )
