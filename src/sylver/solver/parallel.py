"""``--jobs N``: the root moves of a solve, decided in parallel (docs/design.md).

Locally (:func:`solve_threads`) N threads of this process decide them, each with its own search
stack, over the one pair of transposition tables of the process-wide engine (private memory on
huge pages, grown as a single search grows them, within the same memory budget): the kernel
releases the GIL, and ``engine.SliceGate`` lets the tables grow only between the threads' kernel
calls.  A thread finds at once the positions another one decided.  (Processes would have to share
the tables in shared memory, which gets no transparent huge pages on most systems: a process
searching {16,20,28,74,273} alone in such tables took 6.1 CPU s where private ones took 4.3.)

On a Dask cluster (:func:`solve_parallel` with ``cluster``) each root move is a task, and each worker
uses its own tables, warm across the tasks it runs; a worker that dies makes the solve raise
``WorkerDiedError`` naming the root move it was deciding.  Workers record the positions they decide
in the shared store, if one is given.

Either way, with ``first=True`` the least winning move is known as soon as every smaller move is
decided, and the rest are stopped; a search that thrashes in tables far too small for it raises
``MemoryBudgetError`` (see ``engine.THRASH_SLOTS``), and the other searches are stopped.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, wait
from functools import partial
from typing import Any

from sylver.errors import MemoryBudgetError, WorkerDiedError
from sylver.executors import stop_workers
from sylver.position import Outcome, Position
from sylver.solution import Solution, SolveInterrupted
from sylver.solver import kernels
from sylver.solver.engine import (
    ENGINE,
    Counters,
    SearchTimeout,
    SliceGate,
    Stack,
    TableThrash,
    child_gaps,
    memory_budget_error,
    root_gaps,
    root_moves,
    settled,
)
from sylver.solver.local import PROGRESS_EVERY, Request, RootMoves, snapshot, solve_local

WAIT = 0.25
"""Longest wait of the thread that merges the results, between its looks at the clock."""


def solve_parallel(request: Request, *, jobs: int, cluster: str | None) -> Solution:
    """Decide the root moves of ``request.position`` in ``jobs`` threads (:func:`solve_threads`),
    or over the workers of the Dask scheduler at ``cluster``."""
    if cluster is None:
        return solve_threads(request, jobs)
    position = request.position
    roots = RootMoves(position=position, moves=root_moves(root_gaps(position)), start=request.start)
    per_job = max(request.memory // max(jobs, 1), 1 << 22)
    return _ClusterSolve(request, roots, jobs, cluster, per_job).run()


# -- threads ----------------------------------------------------------------------------------


class _Stop(Exception):
    """Internal: a thread's search is no longer needed (the solve stops, or with ``first`` a
    smaller winning move is known)."""


def solve_threads(request: Request, jobs: int) -> Solution:
    """Decide the root moves of ``request.position`` in ``jobs`` threads over the engine's tables.

    A thread takes the least root move nobody has taken yet and searches the position after it; when
    none is left, it helps a thread still searching (``_ThreadedSolve.help``), so that the last long
    root move does not leave a core idle.  The calling thread merges the outcomes, reports progress,
    records them in the store, and stops the searches at the deadline, on Ctrl-C, on an error, and
    (``first``) at the least winning move."""
    return _ThreadedSolve(request, jobs).run()


class _ThreadedSolve:
    """One :func:`solve_threads` call."""

    def __init__(self, request: Request, jobs: int) -> None:
        self.request = request
        self.gaps = root_gaps(request.position)
        self.roots = RootMoves(position=request.position, moves=root_moves(self.gaps), start=request.start)
        self.jobs = max(jobs, 1)
        self.cond = threading.Condition()
        self.todo: list[int] = []
        """Root moves no thread has taken yet, least first."""
        self.expanding = [0] * self.jobs
        """By thread: positions expanded so far by the search under way."""
        self.counters = [Counters() for _ in range(self.jobs + 1)]
        """By thread, and the last for this thread's own (root moves settled without a search)."""
        self.stacks: list[Stack] = []
        self.found: list[tuple[int, Outcome]] = []
        """Outcomes of root moves decided by the threads, not merged yet."""
        self.failed: tuple[int | None, BaseException] | None = None
        """The first error of a thread (with its root move), or the deadline that passed."""
        self.known: dict[int, Outcome] = {}
        """Outcomes of root moves reported by the threads (``found``, and those merged)."""
        self.searching: dict[int, float] = {}
        """Root moves being searched by a thread, and since when."""
        self.helped: set[int] = set()
        """Root moves that a thread helps with (``help``)."""
        self.stopping = False
        self.bound: int | None = None
        """With ``first``: the least winning move found so far (the larger moves are not needed)."""

    # -- the calling thread ------------------------------------------------------------------
    def run(self) -> Solution:
        request, roots = self.request, self.roots
        with ENGINE.lock:
            ENGINE.set_memory(request.memory)
            ENGINE.endgame()  # read here, once, before the threads
            self.todo = self.triage()
            n = self.jobs if self.todo else 0  # more threads than root moves: they help (``help``)
            self.stacks = ENGINE.stacks(n)
            threads = [threading.Thread(target=self.work, args=(i,), name=f"sylver-search-{i}", daemon=True)
                       for i in range(n)]
            ENGINE.gate = SliceGate()
            try:
                for t in threads:
                    t.start()
                self.collect(threads)
            except KeyboardInterrupt:
                self.halt(threads)
                raise SolveInterrupted(roots.solution(complete=False, stats=self.stats())) from None
            finally:
                self.halt(threads)
                ENGINE.gate = None
            if self.failed is not None:
                raise self.error(*self.failed) from None
            peak = ENGINE.table_bytes + sum(s.nbytes for s in self.stacks)
            saturated = ENGINE.saturated()
        first = request.first
        return roots.solution(
            complete=not (first and roots.winning()), first=first, peak_bytes=peak, stats=self.stats(),
            saturated=saturated,
        )

    def triage(self) -> list[int]:
        """Decide here the root moves that need no search (settled, or in the store); the others
        are returned, least first."""
        request, roots = self.request, self.roots
        store = request.store
        todo = []
        for x in roots.moves:
            known = settled(child_gaps(self.gaps, x), request.prune, self.counters[-1])
            if known is None and store is not None:
                rec = store.get(request.position.play(x))
                known = None if rec is None else rec.outcome
            if known is None:
                todo.append(x)
            else:
                roots.decided[x] = known
                if known is Outcome.P and request.first and self.bound is None:
                    self.bound = x
        if self.bound is not None:
            todo = [x for x in todo if x < self.bound]
        return todo

    def collect(self, threads: list[threading.Thread]) -> None:
        """Merge the threads' outcomes until every root move needed is decided, or a thread failed."""
        request, roots = self.request, self.roots
        deadline = request.deadline
        last = time.monotonic()
        while not self.finished():
            now = time.monotonic()
            timeout = WAIT
            if deadline is not None:
                timeout = min(timeout, max(0.0, deadline - now))
            if request.progress is not None:
                timeout = min(timeout, max(0.0, last + PROGRESS_EVERY - now))
            with self.cond:
                if not self.found and self.failed is None:
                    self.cond.wait(timeout)
                found, self.found = self.found, []
                if not found and self.failed is None and not any(t.is_alive() for t in threads):
                    undecided = sorted(set(roots.moves) - set(roots.decided))
                    self.failed = (None, RuntimeError(f"the search threads ended with root moves {undecided} "
                                                      f"of {roots.position.braces()} undecided"))
            for x, outcome in found:
                roots.decided[x] = outcome
                if request.store is not None:
                    after = request.position.play(x)
                    request.store.put_result(after, outcome, (), outcome is Outcome.P, after.frobenius_number)
            roots.states = 1 + sum(c.expanded for c in self.counters)
            if self.failed is not None:
                return
            if deadline is not None and time.monotonic() > deadline and not self.finished():
                with self.cond:
                    self.failed = self.failed or (None, SearchTimeout())
                return
            if request.progress is not None and (found or time.monotonic() - last >= PROGRESS_EVERY):
                last = time.monotonic()
                request.progress(snapshot(roots, request.memory, sum(self.expanding)))

    def finished(self) -> bool:
        roots = self.roots
        if self.request.first:
            return roots.least_winning_known()
        return len(roots.decided) == len(roots.moves)

    def halt(self, threads: list[threading.Thread]) -> None:
        """Stop the searches under way (each stops within a kernel call) and wait for the threads."""
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        for t in threads:
            if t.ident is not None:
                t.join()

    def stats(self) -> dict[str, int]:
        total = Counters()
        for c in self.counters:
            total.merge(c)
        return ENGINE.stats(total)

    def error(self, move: int | None, exc: BaseException) -> BaseException:
        """What the solve raises for a thread's error ``exc`` (while deciding root move ``move``)."""
        request, roots = self.request, self.roots
        roots.states = 1 + sum(c.expanded for c in self.counters)
        if isinstance(exc, SearchTimeout):
            return roots.timeout(request.time_limit, stats=self.stats())
        if isinstance(exc, TableThrash):
            ENGINE.clear()  # as a single search does: the threads have stopped
            return memory_budget_error(request.position, request.memory, exc.expanded, exc.overwrites, move)
        return exc

    # -- the searching threads ---------------------------------------------------------------
    def work(self, i: int) -> None:
        """Thread i: search the least root move not taken; when none is left, help a thread still
        searching one (``help``); until nothing is left or the solve stops."""
        request = self.request
        stack, counters = self.stacks[i], self.counters[i]
        while True:
            with self.cond:
                x = self.take()
                helping = x is None
                if x is None:
                    x = self.to_help()
                    if x is None:
                        return
                    self.helped.add(x)
                else:
                    self.searching[x] = time.monotonic()
            try:
                if helping:
                    outcome = self.help(i, x)
                else:
                    outcome = ENGINE.search(
                        child_gaps(self.gaps, x), deadline=request.deadline, counters=counters,
                        tick=partial(self.tick, i, x), order=request.order, prune=request.prune, stack=stack,
                    )
            except _Stop:
                outcome = None
            except BaseException as exc:  # a timeout, thrashing tables, anything: the solve stops
                with self.cond:
                    if self.failed is None:
                        self.failed = (x, exc)
                    self.stopping = True
                    self.cond.notify_all()
                return
            with self.cond:
                self.expanding[i] = 0
                if helping:
                    self.helped.discard(x)
                else:
                    self.searching.pop(x, None)
                if outcome is not None and x not in self.known:
                    self.known[x] = outcome
                    self.found.append((x, outcome))
                    if outcome is Outcome.P and request.first and (self.bound is None or x < self.bound):
                        self.bound = x
                self.cond.notify_all()

    def take(self) -> int | None:
        """The next root move to search (under ``cond``), or None."""
        while self.todo and not self.stopping:
            x = self.todo.pop(0)
            if self.bound is None or x < self.bound:
                return x
        return None

    def to_help(self) -> int | None:
        """The root move to help with (under ``cond``): of those searched by another thread and
        not helped yet, the one searched longest; None when there is none."""
        if self.stopping:
            return None
        waiting = [(t, x) for x, t in self.searching.items()
                   if x not in self.helped and x not in self.known and (self.bound is None or x < self.bound)]
        return min(waiting)[1] if waiting else None

    def help(self, i: int, x: int) -> Outcome | None:
        """Decide the position after root move x, which another thread is searching, from the far
        end: its children one by one, most gaps first (the searching thread goes fewest gaps first,
        ``kernels.ORDER_GENUS``).  What either stores the other finds in the tables, so they meet
        in the middle; whichever decides x first reports it, and the other stops (``tick``).  The
        position is N as soon as a child is P, and P when every child is N (the moves other than
        1: naming 1 loses)."""
        request = self.request
        after = child_gaps(self.gaps, x)
        children = []
        for y in root_moves(after):
            c = child_gaps(after, y)
            known = settled(c, request.prune, self.counters[i])
            if known is Outcome.P:
                return Outcome.N
            if known is None:
                children.append((int(kernels.genus_of(c, 0, c.shape[0])), y, c))
        children.sort(key=lambda item: (-item[0], -item[1]))
        for _genus, _y, c in children:
            outcome = ENGINE.search(
                c, deadline=request.deadline, counters=self.counters[i], tick=partial(self.tick, i, x),
                order=request.order, prune=request.prune, stack=self.stacks[i],
            )
            if outcome is Outcome.P:
                return Outcome.N
        return Outcome.P

    def tick(self, i: int, x: int, expanded: int) -> None:
        """Between the kernel calls of thread i's search for root move x."""
        self.expanding[i] = expanded
        if self.stopping or x in self.known or (self.bound is not None and x > self.bound):
            raise _Stop


# -- a Dask cluster ---------------------------------------------------------------------------


def decide_moves(
    generators: tuple[int, ...],
    moves: list[int],
    memory: int,
    time_limit: float | None,
    store: Any,
) -> tuple[dict[int, Outcome], int]:
    """Worker task: the outcome of the position after each move, and the states searched (-1: the
    time limit passed, the outcomes are those decided by then)."""
    from sylver.solution import SolveTimeout

    request = Request(position=Position(generators), time_limit=time_limit, memory=memory, store=store)
    try:
        sol = solve_local(request, only=moves)
    except SolveTimeout as exc:
        return (dict(exc.partial.decided) if exc.partial else {}), -1
    return sol.decided, sol.states


def _worker_lost(exc: BaseException) -> bool:
    """True for Dask's report of a worker that died."""
    if type(exc).__name__ != "KilledWorker":  # not imported unless it is one
        return False
    try:
        from distributed import KilledWorker
    except ImportError:  # pragma: no cover - the name matched, so distributed is installed
        return False
    return isinstance(exc, KilledWorker)


def _worker_died(exc: BaseException, position: Position, move: int | None) -> WorkerDiedError:
    """The error for a Dask worker that died; ``move`` is the root move of the task that reported it."""
    pos = position.braces()
    head = f"a Dask worker died while deciding root move {move} of {pos}" if move is not None else (
        f"a Dask worker died while deciding the root moves of {pos}"
    )
    why = " ".join(str(exc).split())  # one line
    return WorkerDiedError(f"{head} ({type(exc).__name__}: {why}); rerun, or use a smaller --memory")


class _ClusterSolve:
    """One :func:`solve_parallel` call on a Dask cluster: a task per root move, merged as they complete."""

    def __init__(self, request: Request, roots: RootMoves, jobs: int, cluster: str, per_job: int) -> None:
        self.request, self.roots = request, roots
        self.jobs, self.cluster = jobs, cluster
        self.per_job = per_job
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
                    request.position, request.memory, exc.expanded, exc.overwrites, exc.move
                ) from None
            except Exception as exc:  # a timeout, a worker that died, a store conflict, ...
                stop_workers(executor, self.futures)
                if _worker_lost(exc):  # while submitting
                    raise _worker_died(exc, request.position, None) from None
                raise
        first = request.first
        return roots.solution(complete=not (first and roots.winning()), first=first)

    def submit(self, executor: Any) -> None:
        """A task per root move, each with the time left."""
        deadline = self.request.deadline
        gens = self.request.position.generators
        for x in self.roots.moves:
            remaining = None if deadline is None else max(0.01, deadline - time.monotonic())
            task = executor.submit(decide_moves, gens, [x], self.per_job, remaining, self.request.store)
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
                self.merge(fut)
            if request.progress is not None:
                request.progress(roots.progress())
            if request.first and roots.least_winning_known():
                undone = {f: x for f, x in self.futures.items() if not f.done()}
                if undone:
                    stop_workers(executor, undone)
                return

    def merge(self, fut: Future) -> None:
        """Add one finished task's outcomes (a worker that died or timed out raises)."""
        roots = self.roots
        try:
            result, n = fut.result()
        except Exception as exc:
            if _worker_lost(exc):
                raise _worker_died(exc, self.request.position, self.futures[fut]) from None
            raise
        if n < 0 and self.futures[fut] not in result:
            raise roots.timeout(self.request.time_limit)
        roots.states += max(n, 0)
        roots.decided.update(result)


__all__ = ["solve_parallel", "solve_threads"]
