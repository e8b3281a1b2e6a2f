"""One attempt at a node of a campaign: a :func:`sylver.solver.solve` of its position within a
budget of seconds and memory, and, when it decides, the certificate of the answer.  It runs in a
worker process (local or a Dask worker) and returns plain data (:class:`Attempt`), so that the
campaign's process alone writes the ledger and the store.

The certificate is streamed to a file as it is built (gigabytes for the large nodes of the opening
16: never a dict in memory): to the file the ledger assigns (``FILE.part``, renamed when complete)
when the worker can write the campaign's directory (:func:`shared`), else (a Dask worker on another
machine) to a local temporary file whose bytes come back compressed, which the campaign's process
writes under the same name."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.position import Position

if TYPE_CHECKING:
    from sylver.store.results import Store


@dataclass(frozen=True, kw_only=True)
class Task:
    """What a worker is asked to do."""

    position: str
    """The position's text (``"16,38"``)."""
    seconds: float
    """The attempt's budget: solve and certificate together."""
    states: int | None = None
    """The states its solve may examine besides (``solve(max_states=)``; None: as many as the
    seconds allow): a budget that stops it at the same point on any machine."""
    memory: int
    """Bytes the attempt may use (``--memory`` of the solve)."""
    store: str | None = None
    """The results store the solve reads and adds to (what other attempts proved helps it)."""
    certificate: str = ""
    """The file the node's certificate goes to (``Ledger.certificate_path``; '': none wanted)."""
    token: str = ""
    """The campaign's mark in the directory of ``certificate`` (:data:`TOKEN`): a worker that reads
    it there shares the directory with the campaign."""
    certify: bool = False
    """The node is decided already (its outcome is in the store): the attempt builds its certificate
    only, the solve (which gives the builder its answer and its tables) and the proof both within
    ``seconds``."""
    strategy: str = "solve"
    """How the attempt looks for the answer (:data:`STRATEGIES`)."""


STRATEGIES = ("solve", "solve-frobenius", "sweep-frobenius", "sweep-ascending")
"""How an attempt looks for its node's answer: ``solve`` (:func:`sylver.solver.solve`, the root
moves least first; for g > 1 the g > 1 engine); ``solve-frobenius`` (gcd 1: the root moves by
increasing Frobenius number of the position after them, as the public record's sweeps, stopping
at the first winning one); ``sweep-…`` (g > 1: :func:`sylver.solver.local.sweep` of the node's
candidate replies that leave gcd 1, in that order, one table: it can prove the node N only).  The
results store keeps every reply decided, so attempts in different orders share their work."""


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
    """The whole attempt's."""
    peak_bytes: int
    worker: str
    """``host:pid`` of the process that ran it."""
    note: str
    """Why it did not decide (time, memory, what the engine left open), or how it decided."""
    certificate: str | None = None
    """The file holding the certificate of the answer, written by the worker (None when undecided,
    when it was not built in time: the campaign tries again later with more, or when it comes as
    ``compressed``)."""
    compressed: bytes | None = field(default=None, repr=False)
    """The certificate's bytes, zlib-compressed, from a worker that cannot write the campaign's
    directory (another machine): the campaign's process writes them."""
    certificate_nodes: int = 0
    """Its P-positions with gcd 1."""
    certificate_size: int = 0
    """Its bytes (uncompressed)."""
    solve_seconds: float = 0.0
    """The solve's own seconds (without the certificate): what sizes an attempt at the certificate
    alone."""


TOKEN = ".campaign"
"""The file, in a campaign's certificate directory, holding the mark of the running campaign
(:attr:`Task.token`)."""


def hard_limit(seconds: float) -> float:
    """When an attempt with a budget of ``seconds`` is stopped whatever it is doing: the solve has
    the budget, the certificate as much again, each stopping within seconds of its deadline; this is
    the margin for what does not (a kernel call, a large table growing, a loaded machine).  A node
    whose outcome the solve recorded in the store before the stop keeps it (the campaign's
    ``failed``).  (Its seconds are scaled as the solve's are, :func:`sylver.machine.time_scale`.)"""
    from sylver.machine import time_scale

    return 3 * seconds * time_scale() + 60


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
    from sylver.errors import MemoryBudgetError, SelfCheckError, TooLargeError
    from sylver.solver import SolveTimeout, solve

    position = Position.parse(task.position)
    worker = f"{socket.gethostname()}:{os.getpid()}"

    def undecided(note: str, states: int = 0, peak: int = 0) -> Attempt:
        return Attempt(position=task.position, outcome=None, winning=None, states=states,
                       seconds=time.monotonic() - start, peak_bytes=peak, worker=worker, note=note)

    try:  # (a certificate attempt's answer is in the store: its builder searches it again, prove.warmed)
        swept = 0  # the states of a sweep that found the answer (then read from the store)
        if task.strategy.startswith("sweep") and not task.certify:
            won, why, swept = _sweep(position, task)
            if not won:
                return undecided(why, swept)
        root_order = "frobenius" if task.strategy == "solve-frobenius" and position.gcd == 1 else "ascending"
        sol = solve(position, first=True, time_limit=task.seconds, memory=task.memory, store=task.store, jobs=1,
                    max_states=task.states, root_order=root_order)
    except SolveTimeout as exc:
        partial = exc.partial  # gcd 1: how far it got, for the ledger ("(45 of 155 root moves decided)")
        within = exc.within or f"{task.seconds:g} s"
        if partial is None or not partial.genus or partial.position.gcd != 1:
            return undecided(f"not decided within {within}", partial.states if partial else 0)
        return undecided(f"not decided within {within} ({len(partial.decided)} of {partial.genus - 1} "
                         "root moves decided)", partial.states)
    except (MemoryBudgetError, TooLargeError) as exc:
        return undecided(f"memory: {exc}")
    except ValueError as exc:  # beyond the engine's range
        return undecided(str(exc))
    if sol.outcome is None:  # only the g > 1 engine leaves an outcome unproven
        reason = sol.gcd_details.reason if sol.gcd_details is not None else ""
        return undecided(f"{sol.verdict}: {reason}", sol.states, sol.peak_bytes)
    solved = time.monotonic() - start
    # a found answer is worth its certificate: as much time as the solve had; a certificate
    # attempt has what its solve left of the budget
    left = max(task.seconds - solved if task.certify else task.seconds, 1.0)
    note, written = f"solve ({sol.method}, {solved:.1f} s)", {}
    if swept:
        note = f"{why}; {note}"
    elif task.strategy != "solve":
        note = f"{task.strategy}; {note}"
    if task.certificate:
        try:
            written = _certify(sol, task, left)
        except TimeoutError:
            note += f"; its certificate was not built within {round(left, 1):g} s"
        except (ValueError, SelfCheckError) as exc:  # NotCertifiable: the answer rests on what no
            note += f"; no certificate yet: {exc}"  # certificate covers; or the store disagrees
    return Attempt(position=task.position, outcome=sol.verdict,
                   winning=min(sol.winning_moves) if sol.winning_moves else None, states=sol.states + swept,
                   seconds=time.monotonic() - start, peak_bytes=sol.peak_bytes, worker=worker,
                   note=note, solve_seconds=solved, **written)


def _sweep(position: Position, task: Task) -> tuple[bool, str, int]:
    """A sweep of ``position``'s candidate replies that leave gcd 1 (:data:`STRATEGIES`) within the
    task's budget: whether one wins (it is in the store then, with the position N, and the solve
    that follows reads the answer there and builds its certificate), else why not; and its states."""
    from sylver.campaign.tree import candidates
    from sylver.solver import Request, open_store, sweep

    replies = [x for x in candidates(position) if math.gcd(position.gcd, x) == 1]
    order = task.strategy.removeprefix("sweep-")
    request = Request(position=position, first=True, time_limit=task.seconds, memory=task.memory,
                      store=open_store(task.store), root_order=order, max_states=task.states)
    result = sweep(request, replies)
    if result.winning:
        return True, f"{order} sweep: {result.winning[0]} wins, after {len(result.decided)} of {len(replies)} replies", \
            result.states
    if result.complete:
        return False, f"none of its {len(replies)} candidate replies leaving gcd 1 wins ({order} sweep)", result.states
    return False, (f"not decided within {task.seconds:g} s ({order} sweep: {len(result.decided)} of {len(replies)} "
                   "candidate replies leaving gcd 1 lose)"), result.states


def shared(directory: Path, token: str) -> bool:
    """Whether this process can write ``directory``, the campaign's certificate directory, as the
    campaign sees it: its mark (:data:`TOKEN`) is there and the directory is writable."""
    try:
        return bool(token) and (directory / TOKEN).read_text() == token and os.access(directory, os.W_OK)
    except OSError:
        return False


def _certify(sol: Any, task: Task, seconds: float) -> dict[str, Any]:
    """The certificate of ``sol``, streamed to ``task.certificate`` (when :func:`shared`) or to a
    local temporary file returned compressed: the fields of :class:`Attempt` it sets."""
    final = Path(task.certificate)
    if shared(final.parent, task.token):
        nodes, size = certificate(sol, final, seconds, task.memory, store=task.store)
        return {"certificate": str(final), "certificate_nodes": nodes, "certificate_size": size}
    with tempfile.TemporaryDirectory(prefix="sylver-attempt-") as tmp:
        local = Path(tmp) / final.name
        nodes, size = certificate(sol, local, seconds, task.memory, store=task.store)
        pack = zlib.compressobj(6)
        chunks = []
        with open(local, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                chunks.append(pack.compress(chunk))
        chunks.append(pack.flush())
    return {"compressed": b"".join(chunks), "certificate_nodes": nodes, "certificate_size": size}


def certificate(sol: Any, path: Path, seconds: float, memory: int, *,
                store: Store | str | None = None) -> tuple[int, int]:
    """Write the certificate of a solve's answer (gcd 1, or the g > 1 formats) to ``path`` as it is
    built (through ``path.part``: nothing under the name until it is complete); its gcd-1 nodes and
    bytes.  With g > 1, the P-positions whose proofs the results ``store`` (a location or a
    :class:`~sylver.store.results.Store`) keeps by reference are imported, not written again."""
    from sylver.proof.build import stream_certificate, stream_gcd_certificate
    from sylver.solver import open_store

    if sol.gcd_details is None:
        return stream_certificate(sol, path, time_limit=seconds, memory=memory)
    db = open_store(store)
    try:
        written = stream_gcd_certificate(sol, path, time_limit=seconds, memory=memory, store=db)
    finally:
        if db is not None and db is not store:  # opened here
            db.close()
    if written.head["outcome"] != sol.verdict:  # it proves less than the solve: not an answer
        with contextlib.suppress(OSError):
            path.unlink()
        raise ValueError(f"the certificate proves {written.head['outcome']} only")
    return written.nodes, written.size


def unpack(compressed: bytes, path: Path) -> int:
    """Write the certificate that a worker sent ``compressed`` to ``path`` (through ``path.part``);
    its bytes."""
    from sylver.proof.build import through_part

    unpacker = zlib.decompressobj()
    with through_part(path, binary=True) as fh:
        for i in range(0, len(compressed), 1 << 20):
            fh.write(unpacker.decompress(compressed[i : i + (1 << 20)]))
        fh.write(unpacker.flush())
        size = fh.tell()
    return size


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


__all__ = ["STRATEGIES", "TOKEN", "Attempt", "Task", "certificate", "hard_limit", "init_worker", "run", "shared", "unpack"]
