"""Where parallel work runs: a local process pool, or a Dask distributed cluster (docs/design.md).

Callers code against ``concurrent.futures.Executor`` only; this module is the one place that knows
how to build one.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager


def default_jobs() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def make_executor(jobs: int | None = None, cluster: str | None = None) -> Iterator[Executor]:
    """An Executor for ``jobs`` local processes, or for the Dask scheduler at ``cluster``.

    ``cluster`` is an address such as ``tcp://127.0.0.1:8786``; it needs the ``cluster`` extra
    (``pip install 'sylver[cluster]'``).  The executor is shut down on exit.
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
    with ProcessPoolExecutor(max_workers=n) as executor:
        try:
            yield executor
        except BaseException:
            # An error or Ctrl-C: drop the queued work instead of running it before exiting.
            executor.shutdown(wait=False, cancel_futures=True)
            raise
