"""``--jobs N``: the root moves of a solve, decided in parallel through an Executor (DESIGN.md).

Each root move is one task; results are merged as they complete.  With a local process pool the
workers share one pair of transposition tables: an anonymous shared memory mapping created before the
workers are forked (entries are single aligned 64-bit words, so concurrent writes cannot tear; a
lost race loses an entry, never correctness).  Elsewhere (Dask, or a spawning pool) each worker uses
its own table, warm across the tasks it runs.  With ``first=True`` the
least winning move is known as soon as every smaller move is decided, and the remaining tasks are
cancelled.  Workers record the positions they decide in the shared store, if one is given.
"""

from __future__ import annotations

import mmap
import multiprocessing
import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path

import numpy as np

from sylver.position import Outcome, Position
from sylver.solver import Progress, Solution, SolveInterrupted, SolveTimeout, _solve_local
from sylver.solver import kernels as _k
from sylver.solver.engine import ENGINE

_SHARED: dict[str, tuple[np.ndarray, np.ndarray]] = {}
"""Shared tables by token; forked workers inherit this dict and the mapping behind it."""
SHARED_BASE = 1 << 24
"""Bytes of the shared N table for a root with up to ``SHARED_GENUS`` legal moves; it doubles for
every 16 more, within half the memory budget.  The P table is an eighth of it.  Shared tables cannot
grow (past their size entries are overwritten: slower, never wrong), and a table much larger than the
search needs costs cache and TLB misses, so it is sized from the root."""
SHARED_GENUS = 120


def _shared_tables(memory: int, genus: int) -> tuple[mmap.mmap, np.ndarray, np.ndarray]:
    want = SHARED_BASE << max(0, (genus - SHARED_GENUS) // 16)
    n_bytes = 1 << (min(memory // 2, want).bit_length() - 1)
    n_entries = max(n_bytes // 8, 1 << 12)
    p_entries = max(n_entries // 8, 1 << 12)
    mm = mmap.mmap(-1, (n_entries + p_entries) * 8, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    words = np.frombuffer(mm, dtype=np.uint64)
    return mm, words[:p_entries], words[p_entries:]


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
    tables = _SHARED.get(token) if token else None
    if tables is not None and ENGINE.ptable is not tables[0]:
        ENGINE.attach(*tables)
    position = Position(generators)
    start = time.monotonic()
    try:
        sol = _solve_local(
            position, False, time_limit, memory, None, _k.ORDER_GENUS, True, start, moves, store_path
        )
    except SolveTimeout as exc:
        partial = exc.partial
        return ({x: 0 if o is Outcome.P else 1 for x, o in partial.decided.items()} if partial else {}), -1
    return {x: 0 if o is Outcome.P else 1 for x, o in sol.decided.items()}, sol.states


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
        _mapping, ptab, ntab = _shared_tables(memory, len(moves) + 1)
        _SHARED[token] = (ptab, ntab)
        per_job = memory
    try:
        return _run(
            position, moves, first, time_limit, jobs, cluster, progress, start, per_job,
            store_arg, token, deadline,
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
                    result, n = fut.result()
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
        except SolveTimeout:
            _stop(executor, futures)
            raise
    w = winning()
    if first and w:
        w = w[:1]
    return Solution(
        position, Outcome.N if w else Outcome.P, tuple(w), not (first and w), t, states,
        time.monotonic() - start, 0, len(moves) + 1, False, dict(decided),
    )
