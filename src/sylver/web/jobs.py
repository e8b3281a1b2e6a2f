"""Bounded work for the web server: size limits, and a small worker pool with a time limit per job.

Every library call that may take more than a moment (replaying a game, a bot's move, the solver)
runs in :class:`JobRunner`'s threads, never on the event loop, so one slow request cannot stall the
others.  At most ``workers`` jobs run at once and at most ``queue`` wait; past that the server answers
``503 busy`` at once instead of piling up work.  A job that outlives its time limit gets a ``504``
answer; the library calls themselves are given the same budget (``time_left`` for bots,
``time_limit`` for the solver), so the thread finishes soon after.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
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
    max_moves: int = 2_000
    """Longest move list a request may carry."""
    max_cells: int = 5_000
    """Most numbers whose legality one request lists (the grid pages through larger ranges)."""
    max_pile: int = 10**15
    """Largest Wythoff pile."""
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
    """Jobs that run at once (plus one solver job, which has a lane of its own)."""
    queue: int = 64
    """Jobs that may wait for a worker; more get ``503 busy``."""

    def public(self) -> dict[str, Any]:
        """The limits as a JSON object (shown by ``/api/info``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


class BusyError(Exception):
    """Too many jobs are running or waiting."""


class JobTimeoutError(Exception):
    """A job outlived its time limit."""


class JobRunner:
    """Runs blocking calls in a fixed pool of threads with admission control and a deadline."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        # The solver has its own lane (it serialises on its engine anyway), so long solves never
        # hold up the quick requests that keep the page responsive.
        self._pools = {
            "main": ThreadPoolExecutor(max_workers=max(1, limits.workers), thread_name_prefix="sylver-web"),
            "solve": ThreadPoolExecutor(max_workers=1, thread_name_prefix="sylver-solve"),
        }
        self._pending = 0
        self._lock = threading.Lock()

    async def run(
        self, fn: Callable[..., T], *args: Any, timeout: float | None = None, lane: str = "main"
    ) -> T:
        """``fn(*args)`` in a worker thread of ``lane``; raises BusyError or JobTimeoutError."""
        with self._lock:
            if self._pending >= self.limits.workers + self.limits.queue:
                raise BusyError(f"the server is busy ({self._pending} jobs in progress); try again shortly")
            self._pending += 1
        try:
            future = self._pools[lane].submit(fn, *args)
        except BaseException:
            self._done(None)
            raise
        future.add_done_callback(self._done)
        limit = self.limits.job_time if timeout is None else timeout
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), limit)
        except TimeoutError:
            future.cancel()  # drops it if it never started; a running job ends by its own budget
            raise JobTimeoutError(f"the request took longer than {limit:g} s and was abandoned") from None

    def _done(self, _future: object) -> None:
        with self._lock:
            self._pending -= 1

    @property
    def pending(self) -> int:
        """Jobs running or waiting."""
        return self._pending

    def shutdown(self) -> None:
        for pool in self._pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
