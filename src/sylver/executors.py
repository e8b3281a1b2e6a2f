"""Where parallel work runs: a local process pool, or a Dask distributed cluster (docs/design.md).

Callers code against ``concurrent.futures.Executor`` only; this module is the one place that knows
how to build one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def make_executor(jobs: int | None = None, cluster: str | None = None,
                  initializer: Callable[[], None] | None = None) -> Iterator[Executor]:
    """An Executor for ``jobs`` local processes, or for the Dask scheduler at ``cluster``.

    ``cluster`` is an address such as ``tcp://127.0.0.1:8786``; it needs the ``cluster`` extra
    (``pip install 'sylver[cluster]'``).  ``initializer`` runs in each local worker process first.
    The executor is shut down on exit.
    """
    if cluster:
        try:
            from distributed import Client
        except ImportError:
            raise ValueError(
                "--cluster needs Dask distributed: pip install 'sylver[cluster]'"
            ) from None
        try:
            client = Client(cluster, timeout="10s")
        except OSError as exc:
            raise ValueError(f"cannot reach the Dask scheduler at {cluster}: {exc}") from None
        try:
            with client.get_executor() as executor:
                yield executor
        finally:
            client.close()
        return
    n = jobs if jobs and jobs > 0 else default_jobs()
    with ProcessPoolExecutor(max_workers=n, initializer=initializer) as executor:
        try:
            yield executor
        except BaseException:
            # An error or Ctrl-C: drop the queued work instead of running it before exiting.
            executor.shutdown(wait=False, cancel_futures=True)
            raise


def stop_workers(executor: Executor, futures: Iterable[Future]) -> None:
    """Stop the tasks ``futures`` that have not finished: a local pool's worker processes are ended
    (SIGTERM), so leaving the executor does not wait for work nobody needs any more (the pool then
    fails its pending tasks itself, and cannot be used again); elsewhere (Dask) the tasks are
    cancelled (a task already running on a Dask worker runs to its end: give it a deadline)."""
    processes = getattr(executor, "_processes", None) or {}
    if not processes:
        for fut in futures:
            fut.cancel()
        return
    # (Cancelling the pending tasks first would trip CPython 3.11's pool, which sets an exception on
    # cancelled futures.)
    for proc in list(processes.values()):
        if proc.is_alive():
            proc.terminate()


class Tasks:
    """``fn(item)`` for each item, submitted to ``executor`` at once and collected later (the caller
    may do other work meanwhile)."""

    def __init__(self, executor: Executor, fn: Callable[[Any], Any], items: list[Any]) -> None:
        self.executor = executor
        self.futures = {executor.submit(fn, item): i for i, item in enumerate(items)}

    def collect(self, deadline: float | None = None) -> dict[int, Any]:
        """``{index: result}`` of the tasks finished by ``deadline`` (a ``time.monotonic()`` value;
        None: all of them).  At the deadline, or on any exception (Ctrl-C included), the unfinished
        tasks are stopped (:meth:`stop`).  A task that raises :class:`TimeoutError` (it gave up at
        its own deadline) counts as unfinished; any other exception of a task is raised."""
        results: dict[int, Any] = {}
        pending = set(self.futures)
        try:
            while pending:
                timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                done, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
                if not done:
                    break
                for fut in done:
                    try:
                        results[self.futures[fut]] = fut.result()
                    except TimeoutError:
                        pass
        except BaseException:
            self.stop()
            raise
        if pending:
            self.stop()
        return results

    def stop(self) -> None:
        """Stop the unfinished tasks (:func:`stop_workers`: the executor cannot be used again)."""
        unfinished = [f for f in self.futures if not f.done()]
        if unfinished:
            stop_workers(self.executor, unfinished)


def run_until(executor: Executor, fn: Callable[[Any], Any], items: list[Any],
              deadline: float | None = None) -> dict[int, Any]:
    """Run ``fn(item)`` for each item on ``executor``; ``{index: result}`` of the tasks that
    finished by ``deadline`` (see :meth:`Tasks.collect`: neither the deadline nor Ctrl-C waits for
    a running task)."""
    return Tasks(executor, fn, items).collect(deadline)
