"""One attempt at a node of a campaign: a :func:`sylver.solver.solve` of its position within a
budget of seconds and memory, and, when it decides, the certificate of the answer.  It runs in a
worker process (local or a Dask worker) and returns plain data (:class:`Attempt`), so that the
campaign's process alone writes the ledger, the store and the certificate files."""

from __future__ import annotations

import os
import socket
import time
from dataclasses import dataclass, field
from typing import Any

from sylver.position import Position


@dataclass(frozen=True, kw_only=True)
class Task:
    """What a worker is asked to do."""

    position: str
    """The position's text (``"16,38"``)."""
    seconds: float
    """The attempt's budget: solve and certificate together."""
    memory: int
    """Bytes the attempt may use (``--memory`` of the solve)."""
    store: str | None = None
    """The results store the solve reads and adds to (what other attempts proved helps it)."""


@dataclass(frozen=True, kw_only=True)
class Attempt:
    """What an attempt established."""

    position: str
    outcome: str | None
    """``"P"``, ``"N"``, or None (not decided within the budget)."""
    winning: int | None
    """For N: the least winning move."""
    states: int
    seconds: float
    peak_bytes: int
    worker: str
    """``host:pid`` of the process that ran it."""
    note: str
    """Why it did not decide (time, memory, what the engine left open), or how it decided."""
    certificate: dict[str, Any] | None = field(default=None, repr=False)
    """The certificate of the answer (None when undecided, or when it was not built in time: the
    campaign tries again later with more)."""


def hard_limit(seconds: float) -> float:
    """When an attempt with a budget of ``seconds`` is stopped whatever it is doing: the solve has
    the budget, the certificate as much again; the engine checks its deadline between steps, and a
    step of a g > 1 solve can be long ({16,38,40}: 663 s on a budget of 32 s)."""
    return 3 * seconds + 60


def run(task: Task) -> Attempt:
    """Attempt ``task`` (never raises for a valid position: a failure is an undecided attempt).  In
    a local worker process, the process ends at :func:`hard_limit` (SIGALRM, default action); the
    campaign sees its pool broken and gives the node a larger budget."""
    start = time.monotonic()
    _alarm(hard_limit(task.seconds))
    try:
        return _attempt(task, start)
    finally:
        _alarm(0)


def _alarm(seconds: float) -> None:
    """End this process after ``seconds`` (0: no more), where a task runs in the main thread (a
    local worker process; a Dask worker runs tasks in threads: nothing is set there)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        return
    if seconds:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _attempt(task: Task, start: float) -> Attempt:
    from sylver.errors import MemoryBudgetError, TooLargeError
    from sylver.solver import SolveTimeout, solve

    position = Position.parse(task.position)
    worker = f"{socket.gethostname()}:{os.getpid()}"

    def undecided(note: str, states: int = 0, peak: int = 0) -> Attempt:
        return Attempt(position=task.position, outcome=None, winning=None, states=states,
                       seconds=time.monotonic() - start, peak_bytes=peak, worker=worker, note=note)

    try:
        sol = solve(position, first=True, time_limit=task.seconds, memory=task.memory, store=task.store, jobs=1)
    except SolveTimeout as exc:
        states = exc.partial.states if exc.partial is not None else 0
        return undecided(f"not decided within {task.seconds:g} s", states)
    except (MemoryBudgetError, TooLargeError) as exc:
        return undecided(f"memory: {exc}")
    except ValueError as exc:  # beyond the engine's range
        return undecided(str(exc))
    if sol.outcome is None:  # only the g > 1 engine leaves an outcome unproven
        reason = sol.gcd_details.reason if sol.gcd_details is not None else ""
        return undecided(f"{sol.verdict}: {reason}", sol.states, sol.peak_bytes)
    left = max(task.seconds, 1.0)  # a found answer is worth its certificate: as much time as the solve had
    cert, note = None, f"solve ({sol.method})"
    try:
        cert = certificate(sol, left, task.memory)
    except TimeoutError:
        note += f"; its certificate was not built within {left:.0f} s"
    except ValueError as exc:  # NotCertifiable: the answer rests on what no certificate covers
        note += f"; no certificate yet: {exc}"
    return Attempt(position=task.position, outcome=sol.verdict,
                   winning=min(sol.winning_moves) if sol.winning_moves else None, states=sol.states,
                   seconds=time.monotonic() - start, peak_bytes=sol.peak_bytes, worker=worker,
                   note=note, certificate=cert)


def certificate(sol: Any, seconds: float, memory: int) -> dict[str, Any]:
    """The certificate of a solve's answer (gcd 1, or the g > 1 formats)."""
    from sylver.solver.prove import build_certificate, build_gcd_certificate

    if sol.gcd_details is None:
        return build_certificate(sol, time_limit=seconds)
    cert = build_gcd_certificate(sol, time_limit=seconds, memory=memory)
    if cert["outcome"] != sol.verdict:  # it proves less than the solve: not an answer
        raise ValueError(f"the certificate proves {cert['outcome']} only")
    return cert


def init_worker() -> None:
    """A local worker process dies with the campaign's process (Linux: PR_SET_PDEATHSIG), so a
    campaign killed with kill -9 leaves no search running; SIGTERM ends it (the campaign's own
    handler, inherited when the worker is forked, would not: stopping workers sends it)."""
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


__all__ = ["Attempt", "Task", "certificate", "hard_limit", "init_worker", "run"]
