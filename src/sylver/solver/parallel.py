"""``--jobs N``: the root moves of a solve, decided in parallel through an Executor (DESIGN.md).

Each root move is one task (the position after it is solved by the worker's own engine, whose table
stays warm across the tasks it runs); results are merged as they complete.  With ``first=True`` the
least winning move is known as soon as every smaller move is decided, and the remaining tasks are
cancelled.  Workers record the positions they decide in the shared store, if one is given.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path

from sylver.position import Outcome, Position
from sylver.solver import Progress, Solution, SolveInterrupted, SolveTimeout, _solve_local
from sylver.solver import kernels as _k


def decide_moves(
    generators: tuple[int, ...],
    moves: list[int],
    memory: int,
    time_limit: float | None,
    store_path: str | None,
) -> tuple[dict[int, int], int]:
    """Worker task: the outcome (0 = P, 1 = N) of the position after each move, and states searched."""
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
    from sylver.executors import make_executor
    from sylver.solver import root_gaps

    gaps = root_gaps(position)
    moves = [int(x) for x in _k.gap_list(gaps, 0, gaps.shape[0]) if x != 1]
    t = position.frobenius_number
    decided: dict[int, Outcome] = {}
    states = 1
    per_job = max(memory // max(jobs, 1), 1 << 22)
    gens = position.generators
    deadline = None if time_limit is None else start + time_limit
    store_arg = str(store_path) if store_path is not None else None

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
                futures[executor.submit(decide_moves, gens, [x], per_job, remaining, store_arg)] = x
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
                    break
        except KeyboardInterrupt:
            for fut in futures:
                fut.cancel()
            raise SolveInterrupted(partial()) from None
        except SolveTimeout:
            for fut in futures:
                fut.cancel()
            raise
        for fut in futures:
            fut.cancel()
    w = winning()
    if first and w:
        w = w[:1]
    return Solution(
        position, Outcome.N if w else Outcome.P, tuple(w), not (first and w), t, states,
        time.monotonic() - start, 0, len(moves) + 1, False, dict(decided),
    )
