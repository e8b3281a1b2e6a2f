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
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, wait
from pathlib import Path
from typing import NamedTuple

import numpy as np

from sylver.errors import MemoryBudgetError, WorkerDiedError
from sylver.position import Outcome, Position
from sylver.solver import (
    Progress,
    Solution,
    SolveInterrupted,
    SolveTimeout,
    _solve_local,
    memory_budget_error,
)
from sylver.solver import kernels as _k
from sylver.solver.engine import ENGINE, LOAD_N


class _Shared(NamedTuple):
    """What the forked workers of one solve share."""

    ptable: np.ndarray
    ntable: np.ndarray
    limited: bool
    """The memory budget (not the root) limited the tables' size: thrashing in them is an error."""
    who: np.ndarray
    """int32 by root move: the pid of the worker deciding it (0: none), to name a worker that died."""


_SHARED: dict[str, _Shared] = {}
"""Shared tables by token; forked workers inherit this dict and the mapping behind it."""
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
    who_words = (t + 2) // 2  # t + 1 int32 slots, rounded up to whole words
    mm = mmap.mmap(
        -1, (n_entries + p_entries + who_words) * 8, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS
    )
    words = np.frombuffer(mm, dtype=np.uint64)  # keeps the mapping alive
    tables_end = p_entries + n_entries
    return _Shared(
        words[:p_entries], words[p_entries:tables_end], memory // 2 < want,
        words[tables_end:].view(np.int32),
    )


def _stop(executor: object, futures: dict[Future, int]) -> None:
    """Cancel pending tasks and end the local worker processes this solve started, so that leaving
    the executor does not wait for searches nobody needs any more."""
    processes = getattr(executor, "_processes", None) or {}
    if not processes:
        for fut in futures:
            fut.cancel()
        return
    # A local pool: end its workers; the pool then fails the pending tasks itself.  (Cancelling
    # them first would trip CPython 3.11's pool, which sets an exception on cancelled futures.)
    for proc in list(processes.values()):
        if proc.is_alive():
            proc.terminate()


def decide_moves(
    generators: tuple[int, ...],
    moves: list[int],
    memory: int,
    time_limit: float | None,
    store_path: str | None,
    token: str | None = None,
) -> tuple[dict[int, int], int]:
    """Worker task: the outcome (0 = P, 1 = N) of the position after each move, and states searched."""
    shared = _SHARED.get(token) if token else None
    if shared is not None and ENGINE.ptable is not shared.ptable:
        ENGINE.attach(shared.ptable, shared.ntable, shared.limited)
    position = Position(generators)
    start = time.monotonic()
    if shared is not None:
        shared.who[moves] = os.getpid()
    try:
        sol = _solve_local(
            position, False, time_limit, memory, None, _k.ORDER_GENUS, True, start, moves, store_path
        )
    except SolveTimeout as exc:
        partial = exc.partial
        return ({x: 0 if o is Outcome.P else 1 for x, o in partial.decided.items()} if partial else {}), -1
    finally:
        if shared is not None:
            shared.who[moves] = 0
    return {x: 0 if o is Outcome.P else 1 for x, o in sol.decided.items()}, sol.states


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
    moves: list[int],
    decided: dict[int, Outcome],
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
        what = f"the root moves of {pos} ({len(decided)} of {len(moves)} decided)"
    return WorkerDiedError(
        f"a --jobs worker process died{f' ({details})' if details else ''} while deciding {what}; "
        f"rerun, or use fewer --jobs or a smaller --memory"
    )


def solve_parallel(
    position: Position,
    *,
    first: bool,
    time_limit: float | None,
    memory: int,
    jobs: int,
    cluster: str | None,
    progress: Callable[[Progress], None] | None,
    start: float,
    store_path: str | Path | None = None,
) -> Solution:
    """Decide the root moves of ``position`` over ``jobs`` processes (or a Dask cluster)."""
    from sylver.solver import root_gaps

    gaps = root_gaps(position)
    moves = [int(x) for x in _k.gap_list(gaps, 0, gaps.shape[0]) if x != 1]
    per_job = max(memory // max(jobs, 1), 1 << 22)
    deadline = None if time_limit is None else start + time_limit
    store_arg = str(store_path) if store_path is not None else None

    token = None
    if cluster is None and multiprocessing.get_start_method() == "fork":
        token = uuid.uuid4().hex
        _SHARED[token] = _shared_tables(memory, len(moves) + 1, position.frobenius_number)
        per_job = memory
    try:
        return _run(
            position, moves, first, time_limit, jobs, cluster, progress, start, per_job,
            store_arg, token, deadline, memory,
        )
    finally:
        if token is not None:
            del _SHARED[token]


def _run(
    position: Position,
    moves: list[int],
    first: bool,
    time_limit: float | None,
    jobs: int,
    cluster: str | None,
    progress: Callable[[Progress], None] | None,
    start: float,
    per_job: int,
    store_arg: str | None,
    token: str | None,
    deadline: float | None,
    memory: int,
) -> Solution:
    from sylver.executors import make_executor

    t = position.frobenius_number
    gens = position.generators
    decided: dict[int, Outcome] = {}
    states = 1

    def winning() -> list[int]:
        return sorted(x for x, o in decided.items() if o is Outcome.P)

    def partial() -> Solution:
        w = winning()
        return Solution(
            position, Outcome.N if w else Outcome.P, tuple(w), False, t, states,
            time.monotonic() - start, 0, len(moves) + 1, False, dict(decided),
        )

    def settled_first() -> bool:
        for x in moves:
            o = decided.get(x)
            if o is None:
                return False
            if o is Outcome.P:
                return True
        return True

    shared = _SHARED.get(token) if token else None
    who = None if shared is None else shared.who
    with make_executor(jobs, cluster) as executor:
        futures: dict[Future, int] = {}
        try:
            for x in moves:
                remaining = None if deadline is None else max(0.01, deadline - time.monotonic())
                futures[executor.submit(decide_moves, gens, [x], per_job, remaining, store_arg, token)] = x
            pending = set(futures)
            while pending:
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                done, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
                if not done:
                    raise SolveTimeout(
                        f"{position.braces()} not solved within {time_limit:g} s "
                        f"({len(decided)} of {len(moves)} root moves decided)",
                        partial(),
                    )
                for fut in done:
                    try:
                        result, n = fut.result()
                    except Exception as exc:
                        if _worker_lost(exc):
                            raise _worker_died(
                                executor, exc, position, futures[fut], moves, decided, who, cluster
                            ) from None
                        raise
                    if n < 0 and futures[fut] not in result:
                        raise SolveTimeout(
                            f"{position.braces()} not solved within {time_limit:g} s "
                            f"({len(decided)} of {len(moves)} root moves decided)",
                            partial(),
                        )
                    states += max(n, 0)
                    for x, v in result.items():
                        decided[x] = Outcome.P if v == 0 else Outcome.N
                if progress is not None:
                    progress(Progress(states, time.monotonic() - start, len(decided), len(moves), tuple(winning())))
                if first and settled_first():
                    undone = {f: x for f, x in futures.items() if not f.done()}
                    if undone:
                        _stop(executor, undone)
                    break
        except KeyboardInterrupt:
            _stop(executor, futures)
            raise SolveInterrupted(partial()) from None
        except MemoryBudgetError as exc:  # from a worker: name the budget of the whole solve
            _stop(executor, futures)
            raise memory_budget_error(
                position, memory, exc.expanded, exc.overwrites, exc.move
            ) from None
        except Exception as exc:  # a timeout, a worker that died, a store conflict, ...
            _stop(executor, futures)
            if _worker_lost(exc):  # while submitting
                raise _worker_died(
                    executor, exc, position, None, moves, decided, who, cluster
                ) from None
            raise
    w = winning()
    if first and w:
        w = w[:1]
    # shared tables never grow: saturated once past the load at which a private one would double
    saturated = shared is not None and np.count_nonzero(shared.ntable) >= LOAD_N * shared.ntable.shape[0]
    return Solution(
        position, Outcome.N if w else Outcome.P, tuple(w), not (first and w), t, states,
        time.monotonic() - start, 0, len(moves) + 1, False, dict(decided), saturated=bool(saturated),
    )
