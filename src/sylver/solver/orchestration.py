"""What one :func:`solve` call does, in order (re-exported as :func:`sylver.solver.solve`).

1. A position with gcd > 1 (or the empty position) goes to :func:`sylver.solver.gcd.solve_any`.
2. Otherwise the options are resolved once (:class:`~sylver.solver.local.Request`: the memory
   parsed, the results store opened) and a complete result in the store is the answer.
3. The root moves are decided in this process (:func:`~sylver.solver.local.solve_local`) or over
   threads (:func:`~sylver.solver.parallel.solve_parallel`, ``jobs > 1``) or a Dask cluster.
4. An N answer is self-checked when asked, or when a table reached its budget
   (:func:`~sylver.solver.local.checked`).
5. The answer is recorded in the store.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from sylver.machine import parse_memory
from sylver.position import Position
from sylver.solution import ProgressReport, Solution
from sylver.solver import kernels as _k
from sylver.solver.engine import check_solvable
from sylver.solver.local import Request, checked, solve_local

if TYPE_CHECKING:
    from sylver.store.results import Store


def solve(
    position: Position,
    *,
    first: bool = False,
    time_limit: float | None = None,
    memory: str | int = "1G",
    store: Store | str | Path | None = None,
    jobs: int = 1,
    cluster: str | None = None,
    progress: Callable[[ProgressReport], None] | None = None,
    order: int = _k.ORDER_GENUS,
    root_order: str = "ascending",
    prune: bool = True,
    odd_limit: int | None = None,
    checkpoint: str | Path | None = None,
    self_check: bool | None = None,
    max_states: int | None = None,
    check: bool | None = None,
) -> Solution:
    """Solve ``position`` exactly: its outcome and all its winning moves (the least with ``first``).

    A position with gcd > 1 (or the empty position) goes to :func:`sylver.solver.gcd.solve_any`,
    which answers what is proven (``outcome`` None when nothing is); ``odd_limit`` stops the scan of
    the odd moves of a g = 2 position at that x, and ``checkpoint`` (a directory) keeps long scans
    resumable; ``first`` stops at the first winning move found there too.

    ``time_limit`` (seconds) raises :class:`SolveTimeout` promptly, and so does ``max_states``, a
    limit that stops the search at the same point on any machine (the states ``Solution.states``
    counts; with g > 1, the gcd-1 positions decided; one process only: not with ``jobs > 1`` nor
    ``cluster``); ``memory`` caps the transposition
    table (e.g. ``"4G"``, or bytes; past it entries are overwritten, never a crash; a budget so small
    that the search keeps recomputing lost results raises :class:`MemoryBudgetError`); ``store`` (a
    path or a :class:`~sylver.store.results.Store`) reuses and records results; ``jobs > 1`` splits
    the root moves over threads sharing the tables (``cluster``: over the workers of a Dask
    scheduler at that address; a worker that dies raises :class:`WorkerDiedError`).  ``progress``
    is called with a :class:`Progress` about every few milliseconds on long solves (with g = 2, a
    :class:`ScanProgress` of the scan of the odd moves).  Ctrl-C raises
    :class:`SolveInterrupted` carrying the root moves decided so far.

    ``self_check``: self-check an N answer (see :class:`~sylver.solver.SelfCheck`; a contradiction
    raises :class:`~sylver.errors.SelfCheckError` instead of answering); ``None`` (the default)
    self-checks when a table reached its memory budget (``Solution.saturated``).  ``check``: its
    name before, kept a while (a DeprecationWarning).
    """
    start = time.monotonic()
    if check is not None:
        warnings.warn("solve(check=) is deprecated: use solve(self_check=)", DeprecationWarning, stacklevel=2)
        self_check = check if self_check is None else self_check
    if max_states is not None and ((jobs and jobs > 1) or cluster):
        raise ValueError("a limit of states is for a solve in one process (jobs=1, no cluster)")
    if isinstance(position, Position) and (position.is_empty or position.gcd > 1):
        from sylver.solver.gcd import solve_any

        return solve_any(
            position, odd_limit=odd_limit, time_limit=time_limit, memory=parse_memory(memory),
            store=open_store(store), jobs=jobs, cluster=cluster,
            progress=progress,
            checkpoint_dir=checkpoint, first=first, max_states=max_states,
        )
    check_solvable(position)
    if root_order != "ascending" and (jobs > 1 or cluster):
        raise ValueError(f"the root order {root_order!r} decides the root moves one at a time: jobs=1, no cluster")
    request = Request(
        position=position, first=first, time_limit=time_limit, memory=parse_memory(memory),
        store=open_store(store), progress=progress, order=order, root_order=root_order, prune=prune,
        start=start, max_states=max_states,
    )
    stored = from_store(request)
    if stored is not None:
        return stored
    if jobs and jobs > 1 or cluster:
        from sylver.solver.parallel import solve_parallel  # threads (or Dask): imported when used

        sol = solve_parallel(request, jobs=jobs, cluster=cluster)
    else:
        sol = solve_local(request)
    sol = checked(sol, request, self_check)
    if request.store is not None:
        request.store.put(sol)
    return sol


def open_store(store: Store | str | Path | None) -> Store | None:
    """``store`` as a :class:`~sylver.store.results.Store` (a path or URL is opened; None stays None)."""
    if store is None:
        return None
    from sylver.store.results import Store

    return store if isinstance(store, Store) else Store(store)


def from_store(request: Request) -> Solution | None:
    """The answer when the store (or the results book through it) holds a complete result for the
    position, or, with ``first``, a winning move (the least it records) (``states`` 0)."""
    if request.store is None:
        return None
    rec = request.store.get(request.position)
    first = request.first
    if rec is None or not (rec.complete or first and rec.winning_moves):
        return None
    return Solution(
        position=request.position, outcome=rec.outcome,
        winning_moves=rec.winning_moves[:1] if first else rec.winning_moves,
        complete=rec.complete and not (first and len(rec.winning_moves) > 1),
        frobenius_number=request.position.frobenius_number, states=0,
        seconds=time.monotonic() - request.start, genus=request.position.genus, from_store=True,
        source=rec.source,
    )
