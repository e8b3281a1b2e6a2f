"""`sylver solve POSITION...` (exact outcome and winning moves, and a proof) and `sylver sweep
POSITION...` (a search for one winning reply)."""

from __future__ import annotations

import contextlib
import json
import math
import os
import resource
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sylver.cli.common import (
    app,
    console,
    err_console,
    fail,
    integer,
    memory_size,
    position_from_args,
    print_json,
    renamed_flag,
    seconds,
    states,
)
from sylver.position import Verdict

if TYPE_CHECKING:
    from sylver.position import Position
    from sylver.solver import GcdDetails, Progress, ProgressReport, ScanProgress, Solution
    from sylver.store.results import Store


def _peak_rss() -> int:
    """Peak resident memory of this process in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def _moves_text(moves: tuple[int, ...] | list[int]) -> str:
    return ", ".join(map(str, moves)) if moves else "none"


def _open_store(path: str | None, no_store: bool) -> Store | None:
    if no_store:
        return None
    from sylver.store.results import Store

    return Store(path)


FULL_NOTICE_SECONDS = 2.0
"""A solve whose tables are full says so once it has run this long (a shorter one says it in its
result: "the transposition tables reached the --memory budget")."""


class _ProgressView:
    """A Rich progress line on stderr, shown only for solves that last more than half a second."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and err_console.is_terminal
        self.live: Any = None
        self.task: Any = None
        self.started = time.monotonic()
        self.resumed: set[Any] = set()
        self.full = False

    def __call__(self, p: ProgressReport) -> None:
        from sylver.solver import Progress, ScanProgress

        match p:
            case ScanProgress():  # the scan of the odd moves of a g = 2 position
                if p.resumed_from is not None and p.position not in self.resumed:
                    self.resumed.add(p.position)  # said even without the live line (--json, no terminal)
                    err_console.print(f"resuming the scan of {p.position.braces()} from its checkpoint at "
                                      f"x = {p.resumed_from:,}", markup=False, highlight=False)
                if self.enabled:
                    self._scan(p)
            case Progress():  # the search of a gcd-1 position, or its self-check
                if p.tables_full and not self.full and p.seconds >= FULL_NOTICE_SECONDS:
                    self.full = True  # said at once, even without the live line: the solve may take much longer
                    err_console.print(f"the transposition tables are full ({p.tables_full}) after {p.states:,} "
                                      f"states, {_mb(p.table_bytes)}: results are now overwritten and "
                                      "recomputed, which slows the search; a larger --memory may help",
                                      markup=False, highlight=False, soft_wrap=True)
                if self.enabled and p.seconds >= 0.5:
                    self._search(p)

    def _search(self, p: Progress) -> None:
        if self.live is None:
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self.live = Bar(
                TextColumn("[bold]{task.description}[/]"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total} {task.fields[unit]}"),
                TextColumn("{task.fields[states]:,} states ({task.fields[rate]:,.0f}/s)"),
                TextColumn("{task.fields[mem]}"),
                TextColumn("winning so far: {task.fields[wins]}"),
                TimeElapsedColumn(),
                console=err_console,
                transient=True,
            )
            self.live.start()
            self.task = self.live.add_task(
                "solving", total=p.root_moves, states=0, rate=0, wins="none", unit="root moves", mem=""
            )
        checking = p.checking is not None
        self.live.update(
            self.task, completed=p.root_moves_decided, total=p.root_moves, states=p.states,
            rate=p.states / max(p.seconds, 1e-9), wins=_moves_text(p.winning_moves),
            mem=f"tables {_mb(p.table_bytes)}{' (full)' if p.tables_full else ''}" if p.table_bytes else "",
            description=f"self-check: the position after {p.checking}, afresh" if checking else "solving",
            unit="winning moves checked" if checking else "root moves",
        )

    def _scan(self, p: ScanProgress) -> None:
        if self.live is None:
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
            from rich.progress import Progress as Bar

            self.live = Bar(
                TextColumn("[bold]scanning odd moves[/]"),
                BarColumn(),
                TextColumn("x = {task.fields[x]:,}"),
                TextColumn("({task.fields[rate]:,.0f} x/s)"),
                TextColumn("{task.fields[shapes]:,} shapes, {task.fields[mem]}"),
                TextColumn("winning so far: {task.fields[wins]}"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=err_console,
                transient=True,
            )
            self.live.start()
            self.task = self.live.add_task("scan", total=p.limit, x=0, rate=0, shapes=0, mem="", wins="none")
        self.live.update(
            self.task, completed=p.height, total=p.limit, x=p.height, rate=2 * p.rate, shapes=p.shapes,
            mem=_mb(p.memory), wins=_moves_text(p.hits),
        )

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


def _report(sol: Any, as_json: bool, extra: dict[str, Any] | None = None) -> None:
    entry = _book_entry(sol)
    if as_json:
        d = sol.to_dict()
        d["peak_rss_bytes"] = _peak_rss()
        if entry is not None:
            d["book"] = json.loads(entry.to_line())
        d.update(extra or {})
        print_json(d)
        return
    if entry is not None:
        extra = {"source": entry.source_text(), **(extra or {})}
    if sol.gcd_details is not None:
        _report_gcd(sol, sol.gcd_details, extra)
        return
    pos = sol.position.braces()
    who = "the player to move loses" if sol.outcome.value == "P" else "the player to move wins"
    console.print(f"[bold]{pos}[/]: [bold]{sol.outcome.value}[/] ({who})")
    label = "winning moves" if sol.complete else "winning move" if len(sol.winning_moves) == 1 else "winning moves (some)"
    console.print(f"{label}: {_moves_text(sol.winning_moves)}")
    console.print(f"Frobenius number t = {sol.frobenius_number}, {sol.genus} legal moves")
    source = ("from the results book" if sol.source == "book" else "from the results store" if sol.from_store
              else f"{sol.states:,} positions searched")
    console.print(f"{source}, {sol.seconds:.3f} s, peak memory {_mb(_peak_rss())}")
    if sol.self_check is not None:
        c = sol.self_check
        console.print(f"self-check passed: the position after {_moves_text(c.moves)} is P on a fresh "
                      f"search ({c.states:,} positions, {c.seconds:.3f} s)")
    if sol.saturated:
        console.print("the transposition tables reached the --memory budget (results were overwritten "
                      "and recomputed); a larger --memory may be faster")
    for key, value in (extra or {}).items():
        console.print(f"{key}: {value}")


def _book_entry(sol: Any) -> Any:
    """The results book's entry of an answer read from it (:mod:`sylver.store.book`), or None."""
    if sol.source != "book":
        return None
    from sylver.store.book import load

    book = load()
    return None if book is None else book.get(sol.position)


_VERDICT_TEXT = {
    Verdict.P: "the player to move loses",
    Verdict.N: "the player to move wins",
    Verdict.PROBABLY_P: "no odd winning move, and every even move is known to lose or gives a long position",
    Verdict.UNKNOWN: "not decided",
}


def _report_gcd(sol: Any, details: GcdDetails, extra: dict[str, Any] | None) -> None:
    """The answer for a position with gcd > 1 (or the empty position), in words."""
    pos = sol.position.braces()
    v = sol.verdict
    console.print(f"[bold]{pos}[/]: [bold]{v}[/] ({_VERDICT_TEXT[v]}); g = {sol.gcd}, method: {sol.method}")
    if sol.winning_moves or sol.outcome is not None:
        label = "winning moves" if sol.complete else "winning moves proven (others may exist)"
        console.print(f"{label}: {_moves_text(sol.winning_moves)}")
    tail = details.odd_tail
    if tail is not None:
        period = (
            f", period {tail.period_length:,} certified from x = {tail.period_start:,}"
            if tail.period_length else ""
        )
        console.print(
            f"odd moves: scanned to {tail.scanned_to:,}{period}; odd winning moves "
            f"{_moves_text(tail.odd_winning_moves)}" + ("" if tail.complete else f"; undecided: {tail.open_moves}")
        )
    console.print(details.reason, markup=False, highlight=False, soft_wrap=True)
    console.print(f"{sol.seconds:.3f} s, peak memory {_mb(_peak_rss())}")
    for key, value in (extra or {}).items():
        console.print(f"{key}: {value}")


def _interrupted(partial: Solution, as_json: bool) -> None:
    details = partial.gcd_details
    if details is not None:
        if as_json:
            d = partial.to_dict()
            d["interrupted"] = True
            print_json(d)
        else:
            tail = details.odd_tail
            done = f"odd moves scanned to {tail.scanned_to:,}; " if tail is not None else ""
            console.print(f"[bold]{partial.position.braces()}[/]: interrupted after {partial.seconds:.1f} s; "
                          f"{done}winning moves found so far: {_moves_text(partial.winning_moves)}")
            console.print(details.reason + " (rerun the same command to resume)", markup=False, highlight=False)
        return
    decided = partial.decided
    wins = sorted(x for x, o in decided.items() if o.value == "P")
    loses = sorted(x for x, o in decided.items() if o.value == "N")
    if as_json:
        print_json({
            "position": list(partial.position.generators), "interrupted": True,
            "winning_moves_found": wins, "losing_moves": loses, "states": partial.states,
            "seconds": round(partial.seconds, 3),
        })
        return
    console.print(f"[bold]{partial.position.braces()}[/]: interrupted after {partial.seconds:.1f} s "
                  f"and {partial.states:,} positions")
    if wins:
        console.print(f"N: winning moves found so far: {_moves_text(wins)}")
    else:
        console.print("outcome not decided yet: no winning move found so far")
    console.print(f"losing moves so far: {_moves_text(loses)}")


def _memory_help() -> str:
    """The help of ``--memory``, with the default on this machine (:func:`sylver.machine.default_memory`)."""
    from sylver.machine import MEMORY_SHARE, default_memory, format_memory

    num, den = MEMORY_SHARE
    return ("Memory budget, e.g. 512M or 4G: the transposition tables (gcd 1); the whole process (gcd > 1).  "
            f"Default: {num}/{den} of this machine's memory, at most what it has available less 256M "
            f"({format_memory(default_memory())} here).")


@app.command()
def solve(
    position: Annotated[list[str] | None, typer.Argument(help="The position, e.g. `16 20 28 35 54` or \"{4,5}\".")] = None,
    first: Annotated[bool, typer.Option("--first", help="Stop at the least winning move.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    batch: Annotated[Path | None, typer.Option("--batch", help="Solve each position in FILE (one per line); one JSON line each with --json.")] = None,
    certificate: Annotated[Path | None, typer.Option("--certificate", help="Write a proof certificate to FILE (verify it with `sylver verify`).")] = None,
    memory: int = typer.Option(None, "--memory", metavar="SIZE", parser=str, callback=memory_size(),
                               help=_memory_help(), show_default=False),
    store: Annotated[str | None, typer.Option("--store", help="Results store: an SQLite file or a postgresql:// URL (shared by several machines); default: in the user cache directory.")] = None,
    no_store: Annotated[bool, typer.Option("--no-store", help="Neither read nor write the results store.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Root moves decided in parallel: by threads sharing one table (gcd 1), or processes (gcd > 1).  Default: a thread per core this process may use (gcd 1), one process (gcd > 1).", show_default=False)] = None,
    cluster: Annotated[str | None, typer.Option("--cluster", help="Dask scheduler address, e.g. tcp://host:8786.")] = None,
    time_limit: Annotated[float | None, typer.Option("--time-limit", help="Give up after this many seconds.", callback=seconds())] = None,
    stats: Annotated[bool, typer.Option("--stats", help="Also print the search counters (pruning, table).")] = False,
    odd_limit_text: Annotated[str | None, typer.Option("--odd-limit", metavar="X", help="g = 2: scan the odd moves up to X at most.")] = None,
    checkpoint: Annotated[Path | None, typer.Option("--checkpoint", help="g = 2: directory for resumable scan state (default: beside the results store).")] = None,
    self_check: Annotated[bool | None, typer.Option("--self-check/--no-self-check", help="Self-check an N answer: the position after each winning move, searched afresh, must be P. Default: on when a table reached the --memory budget.", show_default=False)] = None,
    check: Annotated[bool | None, typer.Option("--check/--no-check", hidden=True, callback=renamed_flag("solve", "--self-check/--no-self-check"))] = None,
    root_order: Annotated[str, typer.Option("--root-order", metavar="ORDER", help="gcd 1: decide the root moves `ascending` (least first), by `frobenius` (least Frobenius number of the position after the move first) or by `genus` (most legal moves left first); with --first, the first winning move found ends the solve; needs -j 1.")] = "ascending",
) -> None:
    """Solve a position exactly: P or N, every winning move (or the least with --first), and a proof.

    With gcd > 1 (infinitely many legal moves) the answer is what is proven: P, N, probably-P or
    unknown, with the reason (short positions, the Periodicity Theorem for g = 2, the theorems)."""
    if jobs is not None and jobs < 1:
        fail(f"--jobs must be at least 1, not {jobs}")
    if no_store and store is not None:
        fail("--store and --no-store contradict each other")
    from sylver.solver import ROOT_ORDERS

    if root_order not in ROOT_ORDERS:
        fail(f"--root-order must be one of {', '.join(ROOT_ORDERS)}, not {root_order!r}")
    if root_order != "ascending" and (cluster is not None or (jobs or 1) > 1):
        fail(f"--root-order {root_order} decides the root moves one at a time: give -j 1 (and no --cluster)")
    if root_order != "ascending":
        jobs = 1
    if check is not None:  # --self-check's name before
        if self_check is not None:
            fail("--check is --self-check's name before: give --self-check alone")
        self_check = check
    options = SolveOptions(first=first, time_limit=time_limit, memory=memory, jobs=jobs, cluster=cluster,
                           self_check=self_check, root_order=root_order, odd_limit=_odd_limit(odd_limit_text), store=_open_store(store, no_store))
    if batch is not None:
        if position:
            fail("give either positions or --batch FILE, not both")
        if certificate is not None:
            fail("--certificate needs a single position, not --batch")
        _solve_batch(batch, as_json, options)
        return
    if not position:
        fail("give a position, e.g. `sylver solve 4 5`, or --batch FILE")
    pos = position_from_args(position, allow_empty=True)
    sol = _solve_one(pos, as_json, options, _checkpoint_dir(checkpoint, options.store))
    extra: dict[str, Any] = {}
    if stats and sol.stats:
        extra["stats"] = sol.stats if as_json else ", ".join(f"{k} {v:,}" for k, v in sol.stats.items())
    if certificate is not None:
        extra["certificate"] = _certificate(sol, certificate, as_json, options.store, options.time_limit,
                                            options.memory, options.odd_limit)
    _report(sol, as_json, extra)


def _certificate(sol: Solution, path: Path, as_json: bool, store: Store | None, time_limit: float | None,
                 memory: int | None, odd_limit: int | None = None) -> str:
    """``--certificate``: the one the results store keeps for an answer read from it, when it proves
    it; else one built and recorded in the store (:mod:`sylver.proof.stored`).  What to report."""
    from sylver.proof.stored import copy_stored, record_built

    size = copy_stored(store, sol, path)
    if size is not None:
        return str(path) if as_json else f"{path} (from the results store, {size:,} bytes)"
    said, outcome = _certify(sol, path, time_limit, as_json, memory, odd_limit, store)
    try:
        record_built(store, sol, path, outcome)
    except (ValueError, OSError) as exc:  # the store loses the certificate, not the run
        err_console.print(f"sylver: warning: the certificate was not recorded in the results store: {exc}",
                          markup=False, highlight=False)
    return said


@dataclass(frozen=True, kw_only=True)
class SolveOptions:
    """The options of one `sylver solve` run, parsed once, shared by the positions of a --batch."""

    first: bool
    time_limit: float | None
    memory: int
    """Bytes (--memory)."""
    jobs: int | None
    """--jobs; None: not given (see :meth:`solve`)."""
    cluster: str | None
    self_check: bool | None
    """--self-check / --no-self-check; None: on when a table reached --memory."""
    odd_limit: int | None
    store: Store | None
    """The results store opened (None: --no-store)."""
    root_order: str = "ascending"

    def solve(self, pos: Position, progress: Callable[[ProgressReport], None] | None = None,
              checkpoint: Path | None = None) -> Solution:
        """:func:`sylver.solver.solve` with these options.  Without --jobs: a search thread per core
        this process may use for gcd 1 (they share one table, so a solve takes no more memory), one
        process for gcd > 1 (a worker process costs its own interpreter, counted in --memory)."""
        from sylver.executors import default_jobs
        from sylver.solver import solve

        jobs = self.jobs
        if jobs is None:
            jobs = default_jobs() if pos.gcd == 1 and not pos.is_empty else 1
        return solve(pos, first=self.first, time_limit=self.time_limit, memory=self.memory,
                     store=self.store, jobs=jobs, cluster=self.cluster, progress=progress,
                     odd_limit=self.odd_limit, checkpoint=checkpoint, self_check=self.self_check,
                     root_order=self.root_order)


def _solve_one(pos: Position, as_json: bool, options: SolveOptions, checkpoint: Path | None) -> Solution:
    """Solve ``pos`` with a progress line (not with --json); a solve that ends without an answer
    is one line and its exit status (130 for Ctrl-C, with what was decided)."""
    from sylver.solver import (
        MemoryBudgetError,
        SelfCheckError,
        SolveInterrupted,
        SolveTimeout,
        WorkerDiedError,
    )

    view = _ProgressView(not as_json)
    try:
        sol = options.solve(pos, progress=view, checkpoint=checkpoint)
    except SolveInterrupted as exc:
        view.stop()
        _interrupted(exc.partial, as_json)
        raise typer.Exit(130) from None
    except SolveTimeout as exc:
        view.stop()
        fail(str(exc), 3)
    except (MemoryBudgetError, WorkerDiedError, SelfCheckError) as exc:
        view.stop()
        fail(str(exc))
    view.stop()
    return sol


@contextlib.contextmanager
def _building(path: Path) -> Iterator[None]:
    """On a terminal, a status line on stderr while the certificate ``path`` is built (minutes to
    hours for a large proof): the bytes written so far (its ``.part`` files) and the time taken,
    updated each second."""
    if not err_console.is_terminal:
        yield
        return
    from sylver.proof.build import part_path

    parts = (part_path(path), part_path(path, "nodes"))
    started = time.monotonic()
    done = threading.Event()
    status = err_console.status("building the certificate", spinner="dots")

    def update() -> None:
        while not done.wait(1.0):
            written = 0
            for part in parts:
                with contextlib.suppress(OSError):
                    written += part.stat().st_size
            status.update(f"building the certificate: {_mb(written)} written, "
                          f"{time.monotonic() - started:,.0f} s")

    watcher = threading.Thread(target=update, daemon=True)
    with status:
        watcher.start()
        try:
            yield
        finally:
            done.set()
            watcher.join()


def _certify(sol: Any, path: Path, time_limit: float | None, as_json: bool, memory: int | None = None,
             odd_limit: int | None = None, store: Store | None = None) -> tuple[str, str]:
    """Write the certificate of ``sol`` to ``path``; what to report about it, and the outcome it
    proves (with g > 1, the positions met on the way are solved within the ``--memory`` and
    ``--odd-limit`` of the solve, and it may prove less than the solve: probably-P; the proofs that
    the results ``store`` keeps by reference are imported, not written again)."""
    if sol.gcd_details is not None:
        from sylver.proof.build import NotCertifiable, stream_gcd_certificate

        try:
            with _building(path):
                written = stream_gcd_certificate(sol, path, time_limit=time_limit, memory=memory,
                                                 odd_limit=odd_limit, store=store)
        except NotCertifiable as exc:
            fail(f"--certificate is not available: {exc}")
        except TimeoutError as exc:
            fail(str(exc), 3)
        except OSError as exc:
            fail(f"cannot write {path}: {exc.strerror}")
        less, head = "", written.head
        if head.get("open_moves"):
            less = (f"; it proves less than the solve ({head['outcome']}"
                    + ("" if head["complete"] else ", not complete") + "): the moves "
                    + "; ".join(f"{x} ({why})" for x, why in head["open_moves"].items()) + " are left open")
        rests = "".join(f"; imports {{{','.join(map(str, i['position']))}}} P from {i['path']}"
                        for i in head.get("imports", []))
        return str(path) if as_json else (
            f"{path} ({written.claims} short and {written.periodic} periodic claims, "
            f"{written.nodes:,} P-positions with gcd 1, {written.size:,} bytes{rests}{less})"
        ), str(head["outcome"])
    from sylver.errors import MemoryBudgetError, SelfCheckError
    from sylver.proof.build import stream_certificate

    kept: list[int] = []  # the nodes kept from the partial file of a build that was cut
    try:
        with _building(path):
            nodes, size = stream_certificate(sol, path, time_limit=time_limit, memory=memory, resumed=kept.append)
    except (MemoryBudgetError, SelfCheckError) as exc:
        fail(f"the certificate was not built: {exc}")
    except KeyboardInterrupt:
        fail(f"interrupted while building the certificate ({path}.part kept: building it again resumes from it)", 130)
    except TimeoutError as exc:
        fail(str(exc), 3)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror}")
    proves = sol.outcome.value if sol.outcome is not None else ""
    resumed = f"; resumed from {path}.part: {kept[0]:,} nodes kept" if kept else ""
    return (str(path) if as_json else f"{path} ({nodes:,} P-positions, {size:,} bytes{resumed})"), proves


def _odd_limit(text: str | None) -> int | None:
    """The value of --odd-limit: a positive integer (digits, ``_`` or ``,`` separators)."""
    if text is None:
        return None
    digits = text.strip().replace("_", "").replace(",", "")
    if not digits.isdigit() or int(digits) < 1:
        fail(f"--odd-limit must be a positive integer (the largest odd move to scan), not {text!r}")
    return int(digits)


def _checkpoint_dir(path: Path | None, db: Any) -> Path | None:
    """Where long g = 2 scans keep their resumable state: ``--checkpoint``, else ``scans/`` beside
    the results store (none with ``--no-store``)."""
    if path is not None:
        return path
    if db is None or getattr(db, "postgres", False):
        from platformdirs import user_cache_dir

        return None if db is None else Path(user_cache_dir("sylver")) / "scans"
    return Path(db.path).parent / "scans"


def _solve_batch(path: Path, as_json: bool, options: SolveOptions) -> None:
    """Solve each position of the file ``path`` (``-``: standard input), one line each."""
    from sylver.position import Position
    from sylver.solver import SelfCheckError, SolveInterrupted, SolveTimeout, WorkerDiedError

    try:
        lines = path.read_text(encoding="utf-8").splitlines() if str(path) != "-" else sys.stdin.read().splitlines()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror}")
    except UnicodeDecodeError:
        fail(f"{path} is not a text file")
    errors = 0
    for lineno, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            pos = Position.parse(text)
            sol = options.solve(pos)
        except SolveInterrupted as exc:
            _interrupted(exc.partial, as_json)
            raise typer.Exit(130) from None
        except (ValueError, SolveTimeout, WorkerDiedError, SelfCheckError) as exc:  # MemoryBudgetError is a ValueError
            errors += 1
            if as_json:
                print_json({"line": lineno, "input": text, "error": str(exc)})
            else:
                err_console.print(f"line {lineno}: {text}: {exc}", markup=False, highlight=False, soft_wrap=True)
            continue
        if as_json:
            d = sol.to_dict()
            print_json(d)
        else:
            if sol.gcd_details is not None:
                console.print(
                    f"{sol.position.braces()} {sol.verdict} [{_moves_text(sol.winning_moves)}]"
                    f"{'' if sol.complete else ' (incomplete)'} g={sol.gcd} {sol.method} {sol.seconds:.3f}s",
                    markup=False, highlight=False,
                )
            else:
                console.print(
                    f"{sol.position.braces()} {sol.verdict} "
                    f"[{_moves_text(sol.winning_moves)}]{'' if sol.complete else ' (first)'} "
                    f"t={sol.frobenius_number} states={sol.states:,} {sol.seconds:.3f}s",
                    markup=False, highlight=False,
                )
        sys.stdout.flush()
    if errors:
        raise typer.Exit(2)


@app.command()
def sweep(
    position: Annotated[list[str], typer.Argument(help="The position, e.g. `16 38 72 78` (any gcd).")],
    up_to: Annotated[int | None, typer.Option("--up-to", metavar="X", help="The replies up to X (default: a gcd-1 position's every legal move; otherwise the campaign's candidate bound).", callback=integer(2))] = None,
    order: Annotated[str, typer.Option("--order", metavar="ORDER", help="`frobenius` (least Frobenius number of the position after the reply first), `ascending` or `genus` (most legal moves left first).")] = "frobenius",
    every: Annotated[bool, typer.Option("--all", help="Decide every reply, not only until one wins.")] = False,
    last: Annotated[str | None, typer.Option("--last", metavar="R,R,...", help="Replies to decide after all the others (e.g. those another search refuted at a high cost: the public record's 81,87,91,93,95 against {16,38,72,78}).")] = None,
    rounds: int = typer.Option(None, "--rounds", metavar="STATES", parser=str, callback=states(), show_default=False,
                               help="In rounds: each reply gets STATES states (e.g. 1M), then waits while the others get theirs; the replies left get 4 times more each round (not better than one at a time on the nodes measured: docs/solve.md). Default: each reply searched to its end, in order."),
    memory: int = typer.Option(None, "--memory", metavar="SIZE", parser=str, callback=memory_size(),
                               help=_memory_help(), show_default=False),
    store: Annotated[str | None, typer.Option("--store", help="Results store (each reply looked up first, recorded once decided).")] = None,
    no_store: Annotated[bool, typer.Option("--no-store", help="Neither read nor write the results store.")] = False,
    time_limit: Annotated[float | None, typer.Option("--time-limit", help="Stop after this many seconds (the replies decided so far are the answer; with --certificate, its build shares the time).", callback=seconds())] = None,
    certificate: Annotated[Path | None, typer.Option("--certificate", help="When a reply wins, write its proof to FILE, built with the sweep's warm tables: that the position is N by that reply (gcd 1), that the position after it is P (gcd > 1). Check it with `sylver verify`.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Search for a winning reply: decide the replies that leave gcd 1 one at a time, in order, with one table, until one leaves P.

    The public campaign's method of 2026-10 for the odd obligations of {16,38} and the long even ones
    (replies by increasing Frobenius number of the position after them, one shared memo): for a
    position whose value rests on finding one reply (a long obligation, an odd one), cheaper than a
    solve that decides every move.  --certificate F proves the reply found at once, from the tables
    the sweep filled (a later `sylver solve POSITION+REPLY --certificate F` starts cold)."""
    from sylver.campaign.tree import candidates
    from sylver.solver import ROOT_ORDERS, Request
    from sylver.solver import sweep as run_sweep

    if order not in ROOT_ORDERS:
        fail(f"--order must be one of {', '.join(ROOT_ORDERS)}, not {order!r}")
    if no_store and store is not None:
        fail("--store and --no-store contradict each other")
    pos = position_from_args(position)
    if pos.generators == (1,):
        fail("{1}: the game is over")
    if certificate is not None and not os.access(certificate.parent, os.W_OK):  # known now, not after hours
        fail(f"cannot write {certificate}: {certificate.parent} is not a writable directory")
    g = pos.gcd
    bound = up_to if up_to is not None else pos.frobenius_number if g == 1 else max(candidates(pos), default=0)
    replies = [x for x in range(2, bound + 1) if math.gcd(g, x) == 1 and x not in pos.semigroup]
    deferred = _reply_list(last, replies, "--last")
    request = Request(position=pos, first=not every, time_limit=time_limit, memory=memory,
                      store=_open_store(store, no_store), root_order=order, rounds=rounds)

    before = [0]  # the sweep's states at the last reply told

    def report(x: int, outcome: Any, states: int, secs: float) -> None:
        # every reply, on stderr even with --json or a pipe: a sweep of hours is followed by its log;
        # the states since the last reply told (this reply's own, one reply at a time), then the sweep's
        err_console.print(f"{x}: {pos.play(x).braces()} is {outcome.value}  (+{states - before[0]:,} states, "
                          f"{states:,} in all, {secs:,.1f} s)", markup=False, highlight=False)
        before[0] = states

    def round_report(k: int, budget: int, left: int, states: int, secs: float) -> None:
        err_console.print(f"round {k}: {left} repl{'y' if left == 1 else 'ies'} left, {budget:,} states each  "
                          f"({states:,} states, {secs:,.1f} s)",
                          markup=False, highlight=False)

    result = run_sweep(request, replies, report, round_report, last=deferred)
    said = None
    if certificate is not None and result.winning:
        from sylver.position import Outcome
        from sylver.solver import Solution

        # gcd 1: the N answer with the reply found (not every winning move); gcd > 1: the P answer of
        # the position after it (a gcd-1 certificate; its root has no finite list of moves)
        w = result.winning[0]
        if g == 1:
            sol = Solution(position=pos, outcome=Outcome.N, winning_moves=(w,), complete=False,
                           frobenius_number=pos.frobenius_number, states=result.states, seconds=result.seconds)
        else:
            after = pos.play(w)
            sol = Solution(position=after, outcome=Outcome.P, winning_moves=(), complete=True,
                           frobenius_number=after.frobenius_number, states=result.states, seconds=result.seconds)
        left = None if time_limit is None else max(time_limit - result.seconds, 0.001)
        said = _certificate(sol, certificate, as_json, request.store, left, memory)
    _print_sweep(result, as_json, said)
    if not result.complete:
        raise SystemExit(1)


def _reply_list(text: str | None, replies: list[int], option: str) -> list[int]:
    """The replies named by ``option``'s comma-separated ``text`` (none when it is not given); a
    clear error for a malformed one or one that is not among the sweep's ``replies``."""
    if text is None:
        return []
    items = [part.strip() for part in text.split(",")]
    if not all(item.isascii() and item.isdigit() and len(item) <= 12 for item in items):
        fail(f"{option} takes replies separated by commas, e.g. 81,87,91, not {text!r}")
    named = [int(item) for item in items]
    among = set(replies)
    outside = [x for x in named if x not in among]
    if outside:
        fail(f"{option}: {', '.join(map(str, outside[:5]))} not among the sweep's replies "
             "(legal, leaving gcd 1, up to its bound)")
    return named


def _print_sweep(result: Any, as_json: bool, certificate: str | None = None) -> None:
    """The answer of `sylver sweep` (and what was said of its certificate, when one was built)."""
    pos = result.position
    data = {"position": str(pos), "order": result.order, "replies": len(result.order),
            "decided": {str(x): o.value for x, o in result.decided.items()}, "winning": list(result.winning),
            "states": result.states, "seconds": round(result.seconds, 3), "complete": result.complete,
            "rounds": result.rounds}
    if certificate is not None:
        data["certificate"] = certificate
    if as_json:
        print_json(data)
        return
    if result.winning:
        w = result.winning[0]
        console.print(f"{pos.braces()} is N: {w} wins ({pos.play(w).braces()} is P), found after {len(result.decided)} "
                      f"of {len(result.order)} replies, {result.states:,} states, {result.seconds:,.1f} s", markup=False)
        if certificate is not None:
            console.print(f"certificate: {certificate}", markup=False)
        else:
            words = " ".join(map(str, pos.play(w).generators))
            console.print(f"its proof: sylver solve {words} --certificate FILE (or sweep with --certificate)", markup=False)
    elif result.complete:
        console.print(f"none of the {len(result.order)} replies wins ({result.states:,} states, {result.seconds:,.1f} s)",
                      markup=False)
    else:
        console.print(f"not decided: {len(result.decided)} of {len(result.order)} replies lose, the time ran out "
                      f"({result.states:,} states, {result.seconds:,.1f} s)", markup=False)
