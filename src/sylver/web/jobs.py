"""Bounded work for the web server: a small worker pool with a time limit per job.

Every library call runs in :class:`JobRunner`, never on the event loop, so one slow request cannot
stall the others: positions, bots and the solver in worker processes (the event loop's process only
reads requests and checks their sizes), reading tournament files in threads.  At most
``workers + queue`` jobs may be in progress; past that the server answers ``503 busy`` at once
instead of piling up work.  A job that outlives its time limit gets a ``504`` answer; the library
calls are given the same budget (``time_left`` for bots, ``time_limit`` for the solver, a deadline
between the moves of a replay), and a worker process that still runs past the deadline is
terminated and replaced.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

from sylver.web.limits import Limits

T = TypeVar("T")


class BusyError(Exception):
    """Too many jobs are running or waiting."""


class JobTimeoutError(Exception):
    """A job outlived its time limit."""


PROCESS_LANES = ("position", "bot", "solve")
"""Lanes whose jobs run in worker processes.  Python threads share this process's GIL, and a numba
kernel holds it for its whole run: a replay or a theory report in a thread stalled the event loop
for as long.  So every library call on positions runs in a process; only reading the tournament
files stays in threads."""


class JobRunner:
    """Runs blocking calls off the event loop, with admission control and a deadline.

    Lanes: ``main`` (threads: reading tournament files), ``position`` (``workers`` processes:
    positions, replays, the theory; a job with a ``key`` goes to the same process as the key's
    earlier jobs unless that one is busy, so a game's next request usually finds its position in that
    process's cache), ``bot`` (``workers`` processes) and
    ``solve`` (one process, so a long solve never holds up a bot's move, and its table stays warm).
    A process job that outlives its deadline is stopped for real: its processes are terminated and
    restarted.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        workers = max(1, limits.workers)
        self._threads = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sylver-web")
        # pools per lane, and processes per pool
        self._layout = {"position": (workers, 1), "bot": (1, workers), "solve": (1, 1)}
        self._procs: dict[str, list[ProcessPoolExecutor | None]] = {
            lane: [None] * pools for lane, (pools, _) in self._layout.items()
        }
        self._warm_fn: Callable[[str], object] | None = None
        self._warming: list[Future[Any]] = []
        self._ready: set[int] = set()  # ids of the pools that have finished a job: started for sure
        self._busy = {lane: [0] * pools for lane, (pools, _) in self._layout.items()}  # jobs per pool
        self._pending = 0
        self._lock = threading.Lock()
        self._closed = False

    def _pool(self, lane: str, shard: int = 0) -> Executor:
        if lane == "main":
            return self._threads
        with self._lock:
            pool = self._procs[lane][shard]
            if pool is None:
                size = self._layout[lane][1]
                pool = ProcessPoolExecutor(
                    max_workers=size, mp_context=multiprocessing.get_context("spawn"), initializer=_background
                )
                self._procs[lane][shard] = pool
                self._warm(pool, size, lane)
            return pool

    def _shard(self, lane: str, key: object) -> int:
        """The pool for a job: the key's own pool (its cache) unless that one is busy and another
        is not, so a long job never holds up the others."""
        busy = self._busy.get(lane)
        if not busy or len(busy) == 1:
            return 0
        with self._lock:
            own = hash(key) % len(busy) if key is not None else 0
            return own if busy[own] == 0 else min(range(len(busy)), key=lambda k: (busy[k], k != own))

    def warm_up(self, fn: Callable[[str], object]) -> None:
        """Start every worker process now and run ``fn(lane)`` in it (imports, numba compilation), so
        the first real request does not pay for them; a pool restarted later is warmed up again."""
        self._warm_fn = fn
        for lane, (pools, _) in self._layout.items():
            for shard in range(pools):
                self._pool(lane, shard)

    def _warm(self, pool: ProcessPoolExecutor, size: int, lane: str) -> None:
        if self._warm_fn is None:
            return
        started = functools.partial(self._started, id(pool))
        for _ in range(size):
            future = pool.submit(self._warm_fn, lane)
            future.add_done_callback(started)
            self._warming.append(future)

    def _started(self, pool: int, _future: object) -> None:
        self._ready.add(pool)

    @property
    def ready(self) -> bool:
        """True once every warm-up job is done."""
        return all(f.done() for f in self._warming)

    def wait_warm(self, timeout: float) -> bool:
        """Block until the warm-up jobs are done (True) or ``timeout`` seconds pass (False)."""
        done, _ = wait(self._warming, timeout=timeout)
        return len(done) == len(self._warming)

    async def run(
        self, fn: Callable[..., T], *args: Any, timeout: float | None = None, lane: str = "main",
        key: object = None,
    ) -> T:
        """``fn(*args)`` in ``lane`` (``key``: the same key, the same process); raises BusyError or
        JobTimeoutError."""
        with self._lock:
            if self._closed:
                raise BusyError("the server is shutting down")
            if self._pending >= self.limits.workers + self.limits.queue:
                raise BusyError(f"the server is busy ({self._pending} jobs in progress); try again shortly")
            self._pending += 1
        shard = self._shard(lane, key)
        done = functools.partial(self._done, lane, shard)
        if lane in self._busy:
            with self._lock:
                self._busy[lane][shard] += 1
        try:
            pool = self._pool(lane, shard)
            future = pool.submit(fn, *args)
        except BrokenProcessPool:
            done(None)
            self._restart(lane, shard)
            raise BusyError("a worker process stopped; try again") from None
        except BaseException:
            done(None)
            raise
        future.add_done_callback(done)
        future.add_done_callback(functools.partial(self._started, id(pool)))
        limit = self.limits.job_time if timeout is None else timeout
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), limit)
        except TimeoutError:
            # A process that has not finished any job yet is still starting (imports, numba): it is
            # not stuck, and killing it would only make the next request start one again.
            warming = lane != "main" and id(pool) not in self._ready
            if not future.cancel() and lane != "main" and not warming:
                self._restart(lane, shard, pool)  # the job is running: stop it for real
            hint = " (the server is still starting its worker processes)" if warming else ""
            raise JobTimeoutError(f"the request took longer than {limit:g} s and was abandoned{hint}") from None
        except BrokenProcessPool:
            self._restart(lane, shard, pool)
            raise BusyError("a worker process stopped; try again") from None

    def _restart(self, lane: str, shard: int, pool: Executor | None = None) -> None:
        with self._lock:
            current = self._procs[lane][shard]
            if current is None or (pool is not None and current is not pool):
                return
            self._procs[lane][shard] = None
            self._ready.discard(id(current))
        _terminate(current)

    def _done(self, lane: str, shard: int, _future: object) -> None:
        with self._lock:
            self._pending -= 1
            if lane in self._busy:
                self._busy[lane][shard] -= 1

    @property
    def pending(self) -> int:
        """Jobs running or waiting."""
        return self._pending

    def shutdown(self) -> None:
        with self._lock:
            self._closed = True
            pools = [p for lane in self._procs.values() for p in lane if p is not None]
            self._procs = {lane: [None] * len(shards) for lane, shards in self._procs.items()}
        self._threads.shutdown(wait=False, cancel_futures=True)
        for pool in pools:
            _terminate(pool)


def _background() -> None:
    """Worker processes yield the CPU to the server's own process: with every core busy solving, the
    event loop still answers at once (nice 10: about a tenth of a core's share against it)."""
    if hasattr(os, "nice"):
        try:
            os.nice(10)
        except OSError:  # pragma: no cover - not allowed here: run at the same priority
            pass


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
