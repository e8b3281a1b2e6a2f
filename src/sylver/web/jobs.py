"""Bounded work for the web server: size limits, and a small worker pool with a time limit per job.

Every library call that may take more than a moment runs in :class:`JobRunner`, never on the event
loop, so one slow request cannot stall the others: quick calls (replaying a game, the theory report)
in threads, bots and the solver in worker processes.  At most ``workers + queue`` jobs may be in
progress; past that the server answers ``503 busy`` at once instead of piling up work.  A job that
outlives its time limit gets a ``504`` answer; the library calls are given the same budget
(``time_left`` for bots, ``time_limit`` for the solver), and a worker process that still runs past
the deadline is terminated and replaced.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the server (all configurable with ``sylver serve`` options)."""

    max_number: int = 10**12
    """Largest number accepted in a position or as a move (JSON numbers stay exact below 2^53)."""
    max_multiplicity: int = 2_000_000
    """Largest smallest-named-number of a position with two or more numbers (its Apéry set has that
    many entries, 8 bytes each)."""
    max_work: int = 400_000_000
    """Largest (count of numbers) × (smallest number) of a position given at once: building it
    costs about that many steps (a few seconds at the limit)."""
    max_body: int = 256 * 1024
    """Largest request body in bytes (a 2,000-move game is about 30 KB)."""
    max_numbers: int = 2_000
    """Most numbers in a position given at once (a start, a position to analyse); as text at most
    16 characters per number.  Checked before the text is parsed."""
    max_moves: int = 2_000
    """Longest move list a request may carry."""
    max_cells: int = 5_000
    """Most numbers whose legality one request lists (the grid pages through larger ranges)."""
    max_pile_digits: int = field(default_factory=lambda: sys.get_int_max_str_digits() or 4_300)
    """Most digits of a Wythoff pile: the library is exact for any size, and reads and writes
    numbers of up to Python's integer-to-text limit (4,300 digits by default)."""
    max_cold: int = 10_000
    """Largest limit for the list of Wythoff cold positions."""
    bot_time: float = 3.0
    """Seconds a bot may think about one move."""
    solve_time: float = 5.0
    """Most seconds the solver may spend on one request."""
    job_time: float = 10.0
    """Hard limit in seconds for any one job (answer 504 past it)."""
    solve_memory: str = "256M"
    """Memory budget of the solver's transposition table."""
    workers: int = 2
    """Quick jobs that run at once, and bot processes (plus one solver process)."""
    queue: int = 64
    """Jobs that may wait for a worker; more get ``503 busy``."""

    @property
    def max_text(self) -> int:
        """Longest position text accepted (16 characters per number)."""
        return 16 * self.max_numbers

    def public(self) -> dict[str, Any]:
        """The limits as a JSON object (shown by ``/api/info``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class BusyError(Exception):
    """Too many jobs are running or waiting."""


class JobTimeoutError(Exception):
    """A job outlived its time limit."""


PROCESS_LANES = ("bot", "solve")
"""Lanes whose jobs run in worker processes: bots and the solver are long numba searches (and numba
compiles on first use), which would hold this process's GIL and stall every other request."""


class JobRunner:
    """Runs blocking calls off the event loop, with admission control and a deadline.

    Lanes: ``main`` (threads: quick library calls), ``bot`` (``workers`` processes) and ``solve``
    (one process, so a long solve never holds up a bot's move).  A process job that outlives its
    deadline is stopped for real: its lane's processes are terminated and restarted.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._threads = ThreadPoolExecutor(max_workers=max(1, limits.workers), thread_name_prefix="sylver-web")
        self._sizes = {"bot": max(1, limits.workers), "solve": 1}
        self._procs: dict[str, ProcessPoolExecutor | None] = dict.fromkeys(PROCESS_LANES)
        self._warming: dict[str, list[Future[Any]]] = {lane: [] for lane in PROCESS_LANES}
        self._pending = 0
        self._lock = threading.Lock()
        self._closed = False

    def _pool(self, lane: str) -> Executor:
        if lane == "main":
            return self._threads
        with self._lock:
            pool = self._procs[lane]
            if pool is None:
                pool = ProcessPoolExecutor(
                    max_workers=self._sizes[lane], mp_context=multiprocessing.get_context("spawn")
                )
                self._procs[lane] = pool
            return pool

    def warm_up(self, fn: Callable[[], object]) -> None:
        """Start every worker process now and run ``fn`` in it (imports, numba compilation), so the
        first real request does not pay for them."""
        for lane in PROCESS_LANES:
            pool = self._pool(lane)
            self._warming[lane] = [pool.submit(fn) for _ in range(self._sizes[lane])]

    def _warming_up(self, lane: str) -> bool:
        return any(not f.done() for f in self._warming.get(lane, ()))

    def wait_warm(self, timeout: float) -> bool:
        """Block until the warm-up jobs are done (True) or ``timeout`` seconds pass (False)."""
        futures = [f for lane in PROCESS_LANES for f in self._warming.get(lane, ())]
        done, _ = wait(futures, timeout=timeout)
        return len(done) == len(futures)

    async def run(
        self, fn: Callable[..., T], *args: Any, timeout: float | None = None, lane: str = "main"
    ) -> T:
        """``fn(*args)`` in ``lane``; raises BusyError or JobTimeoutError."""
        with self._lock:
            if self._closed:
                raise BusyError("the server is shutting down")
            if self._pending >= self.limits.workers + self.limits.queue:
                raise BusyError(f"the server is busy ({self._pending} jobs in progress); try again shortly")
            self._pending += 1
        try:
            pool = self._pool(lane)
            future = pool.submit(fn, *args)
        except BrokenProcessPool:
            self._done(None)
            self._restart(lane)
            raise BusyError("a worker process stopped; try again") from None
        except BaseException:
            self._done(None)
            raise
        future.add_done_callback(self._done)
        limit = self.limits.job_time if timeout is None else timeout
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), limit)
        except TimeoutError:
            warming = lane != "main" and self._warming_up(lane)
            if not future.cancel() and lane != "main" and not warming:
                self._restart(lane, pool)  # the job is running: stop it for real
            hint = " (the server is still starting its worker processes)" if warming else ""
            raise JobTimeoutError(f"the request took longer than {limit:g} s and was abandoned{hint}") from None
        except BrokenProcessPool:
            self._restart(lane, pool)
            raise BusyError("a worker process stopped; try again") from None

    def _restart(self, lane: str, pool: Executor | None = None) -> None:
        with self._lock:
            current = self._procs.get(lane)
            if current is None or (pool is not None and current is not pool):
                return
            self._procs[lane] = None
        _terminate(current)

    def _done(self, _future: object) -> None:
        with self._lock:
            self._pending -= 1

    @property
    def pending(self) -> int:
        """Jobs running or waiting."""
        return self._pending

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            pools = [p for p in self._procs.values() if p is not None]
            self._procs = dict.fromkeys(PROCESS_LANES)
        self._threads.shutdown(wait=False, cancel_futures=True)
        for pool in pools:
            _terminate(pool)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool at once, killing the jobs it is running."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        if proc.is_alive():
            proc.terminate()
    for proc in processes:
        proc.join(2)
        if proc.is_alive():
            proc.kill()
