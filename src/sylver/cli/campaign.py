"""``sylver campaign``: a long attack on a root position, resumable and distributed (docs/campaign.md)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from sylver.cli.common import (
    app,
    fail,
    integer,
    memory_size,
    position_from_args,
    print_json,
    seconds,
)


@app.command()
def campaign(
    position: Annotated[list[str] | None, typer.Argument(help="The root, e.g. `16` or `16 38` (omit to resume the campaign in --dir).", show_default=False)] = None,
    directory: Annotated[Path, typer.Option("--dir", "-d", help="The campaign's directory: its ledger and certificate files (made if missing).")] = Path("campaign"),
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Attempts at once.  Default: a process per core this process may use; with --cluster, one per worker thread.", show_default=False, callback=integer(1))] = None,
    cluster: Annotated[str | None, typer.Option("--cluster", help="Dask scheduler address, e.g. tcp://host:8786: one attempt per task on its workers.")] = None,
    memory: int = typer.Option(None, "--memory", metavar="SIZE", parser=str, callback=memory_size(), show_default=False,
                               help="Memory for the attempts together (local; with --cluster, for each attempt), e.g. 16G.  Default: the share of this machine that `sylver solve` takes (see its --help)."),
    store: Annotated[str | None, typer.Option("--store", help="Results store for every result and certificate: an SQLite file or a postgresql:// URL (for several machines).  Default: the campaign's, else the user cache directory's.", show_default=False)] = None,
    time_limit: Annotated[float | None, typer.Option("--time-limit", help="Stop after this many seconds (default: when the root is decided or nothing is left to try; Ctrl-C stops too).", callback=seconds())] = None,
    first_budget: Annotated[float, typer.Option("--first-budget", help="Seconds of a node's first attempt; each attempt that does not decide it gives the next 4 times more.", callback=seconds())] = 2.0,
    first_states: Annotated[int | None, typer.Option("--first-states", help="States a node's first attempt may search besides its seconds (each later attempt, 4 times more): a budget that stops an attempt at the same point on any machine (tests, reproducible ledgers).", callback=integer(1))] = None,
    max_attempts: Annotated[int | None, typer.Option("--max-attempts", help="Stop after this many attempts.", callback=integer(1))] = None,
    tries: Annotated[list[str] | None, typer.Option("--try", help="A line to try first: moves from the root, e.g. `37` (a published answer) or `82,701`; repeatable; kept in the ledger.", show_default=False)] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Work only on this line this run (what its end rests on: the open nodes below it that still matter to it, or the certificates a decided end still lacks; the rest waits): moves from the root as for --try; repeatable; kept in the ledger as a line to try first.", show_default=False)] = None,
    show: Annotated[bool, typer.Option("--show", help="Print the ledger and exit (no search; with a root, a new campaign starts with what the results book decides).")] = False,
    depth: Annotated[int | None, typer.Option("--depth", help="With --show: the nodes at most this many moves from the root.", callback=integer(0))] = None,
    as_json: Annotated[bool, typer.Option("--json", help="With --show: one JSON object.")] = False,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="With --show: a Markdown table.")] = False,
    verify: Annotated[bool, typer.Option("--verify", help="Check every certificate file of the ledger with the independent checker (as `sylver verify`, with --jobs processes) and exit (no work): each must be valid and prove what the ledger says; valid checks are recorded in DIR/verified.jsonl and not repeated.  Exit 1 if one is not.")] = False,
) -> None:
    """Attack a root position for as long as it takes: a ledger of its proof tree, resumable, on local cores or a Dask cluster.

    Each node of the tree (a position the root's value rests on) is attempted with a budget that
    grows when the attempt fails, cheapest first; every result goes to the results store with its
    certificate, and to --dir.  Run the same command again (or `sylver campaign --dir DIR`) to
    resume: a campaign killed at any moment loses only its running attempts."""
    from sylver.campaign import Ledger

    if as_json and as_markdown:
        fail("--json and --markdown contradict each other")
    if (as_json or as_markdown or depth is not None) and not show:
        fail("--json, --markdown and --depth go with --show")
    if show and (tries or only):
        fail("--show reads the ledger: --try and --only go with work")
    if verify:
        if show or position or tries or only:
            fail("--verify checks the certificates of the campaign in --dir: give no position, --show, --try or --only")
        ledger = Ledger.open(directory, resume=False, read_only=True)
        try:
            _verify(ledger, jobs)
        finally:
            ledger.close()
        return
    if show:
        ledger = _from_book(directory, position, store, first_budget) if position else Ledger.open(directory, resume=False)
        try:
            _show(ledger, depth, as_json, as_markdown)
        finally:
            ledger.close()
        return
    root = None if not position else _root(position)
    if root is not None:
        _lines(root, tries, only)  # bad lines are refused before a ledger is made
    ledger = _ledger(directory, root, store, first_budget)
    try:
        tried, focus = _lines(ledger.root, tries, only)
        if tried or focus:
            ledger.add_lines([*tried, *focus])
        _work(ledger, jobs=jobs, cluster=cluster, memory=memory, time_limit=time_limit,
              first_budget=first_budget, first_states=first_states, max_attempts=max_attempts, only=tuple(focus))
    finally:
        ledger.close()


def _root(args: list[str]) -> Any:
    pos = position_from_args(args)
    if pos.gcd == 1:
        fail(f"{pos.braces()} has gcd 1: its moves are finitely many and one `sylver solve "
             f"{' '.join(map(str, pos.generators))}` decides it; a campaign is for positions with g > 1")
    from sylver.solver.gcd import check_range

    check_range(pos, pos.gcd)  # beyond the g > 1 engine's range: TooLargeError, one line and exit 2
    return pos


def _lines(root: Any, tries: list[str] | None, only: list[str] | None) -> tuple[list[tuple[int, ...]], ...]:
    """The lines of ``--try`` and of ``--only``."""
    return _parse_lines(root, tries or [], "--try"), _parse_lines(root, only or [], "--only")


def _parse_lines(root: Any, texts: list[str], option: str) -> list[tuple[int, ...]]:
    """The lines of ``option``: each text a comma-separated sequence of moves from ``root``, each legal
    where it is played, and each but the last leaving a position with g > 1 (a node that has children)."""
    from sylver.errors import IllegalMoveError, InvalidMoveError, TooLargeError

    lines = []
    for text in texts:
        try:
            line = tuple(int(x) for x in text.replace(" ", "").split(","))
        except ValueError:
            fail(f"{option} {text!r}: give moves from the root separated by commas, e.g. 37 or 82,701")
        p = root
        for i, x in enumerate(line):
            if p.gcd == 1:
                fail(f"{option} {text}: {p.braces()} has gcd 1 (one search decides it): the line ends there")
            if x == 1:
                fail(f"{option} {text}: move {i + 1}: naming 1 loses at once")
            try:
                p = p.play(x)
            except (InvalidMoveError, IllegalMoveError, TooLargeError) as exc:
                fail(f"{option} {text}: move {i + 1}: {exc}")
        lines.append(line)
    return lines


def _ledger(directory: Path, root: Any, store: str | None, first_budget: float) -> Any:
    """The campaign in ``directory``: opened (resumed), or created on ``root``."""
    from sylver.campaign import Ledger
    from sylver.solver.store import Store, default_location

    if root is None:
        return Ledger.open(directory)
    location = store if store is not None else str(default_location())
    if (directory / "ledger.sqlite").exists():
        ledger = Ledger.create(directory, root, budget=first_budget, store=location)  # refuses another root
        if store is not None and store != ledger.meta("store"):
            ledger.close()
            fail(f"{directory} records its results in {Store(ledger.meta('store'))}, not {Store(store)}")
        return ledger
    Store(location).get(root)  # an unusable store fails here, before the directory is made
    return Ledger.create(directory, root, budget=first_budget, store=location)


def _from_book(directory: Path, position: list[str], store: str | None, first_budget: float) -> Any:
    """``--show`` with a root: the campaign in ``directory`` (made if new), with every node the
    results book decides decided (no search), to be shown."""
    from sylver.campaign import Campaign, Options
    from sylver.solver.store import Store

    ledger = _ledger(directory, _root(position), store, first_budget)
    work = Campaign(ledger, Store(ledger.meta("store")), Options(jobs=1, memory=0))
    work.from_book_tree()
    work.settle()
    return ledger


def _work(ledger: Any, *, jobs: int | None, cluster: str | None, memory: int, time_limit: float | None,
          first_budget: float, max_attempts: int | None, only: tuple[tuple[int, ...], ...] = (),
          first_states: int | None = None) -> None:
    from sylver.campaign import Campaign, Options
    from sylver.campaign.report import headline
    from sylver.cli.common import console
    from sylver.executors import default_jobs
    from sylver.solver.store import Store

    options = Options(jobs=jobs or (1 if cluster else default_jobs()), memory=memory, cluster=cluster,
                      first_budget=first_budget, first_states=first_states, time_limit=time_limit,
                      max_attempts=max_attempts, only=only)
    store = Store(ledger.meta("store"))
    console.print(f"campaign on [bold]{ledger.root.braces()}[/] in {ledger.directory} "
                  f"(results store {store}); {headline(ledger.summary())}", highlight=False)
    status = console.status("working", spinner="dots")

    def report(line: str) -> None:
        console.print(line, highlight=False, markup=False)
        s = ledger.summary()
        status.update(f"{s['P']:,} P, {s['N']:,} N, {s['open'] + s['working']:,} open")

    work = Campaign(ledger, store, options, report)
    status.start()
    try:
        with _stop_signals():
            summary = work.work()
    except KeyboardInterrupt:
        status.stop()
        console.print(f"stopped; resume with `sylver campaign --dir {ledger.directory}`; "
                      f"{headline(ledger.summary())}", highlight=False)
        raise typer.Exit(130) from None
    finally:
        status.stop()
    console.print(headline(summary), highlight=False)
    if summary["status"] not in ("P", "N"):
        console.print(f"resume with `sylver campaign --dir {ledger.directory}`; the ledger: "
                      f"`sylver campaign --dir {ledger.directory} --show`", highlight=False)


@contextmanager
def _stop_signals() -> Iterator[None]:
    """While the campaign works, SIGTERM (a job scheduler's stop) stops it as Ctrl-C does (its running
    attempts stopped, their nodes open again), and so does SIGINT where the shell that started the
    campaign in the background set it to be ignored; the handlers before are restored after.  SIGINT
    gets Python's own handler, which the g = 2 scan recognises to hold an interrupt until a step ends."""
    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    saved = {signal.SIGTERM: signal.signal(signal.SIGTERM, stop)}
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        saved[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)


def _verify(ledger: Any, jobs: int | None) -> None:
    """``--verify``: a line for each certificate file (smallest first), then the count; exit 1 if one
    is not valid or does not prove what the ledger says."""
    import sys

    from sylver.campaign.proof import CHECKS, check_certificates
    from sylver.executors import default_jobs
    from sylver.solver.certificate import ProgressLine, RecordError

    progress = ProgressLine(sys.stderr)
    counts = {"now": 0, "before": 0, "bad": 0}
    try:
        for c in check_certificates(ledger, jobs or default_jobs(), progress if sys.stderr.isatty() else None):
            progress.clear()
            name = c.node.certificate
            if c.flaw:
                counts["bad"] += 1
                print(f"{name}: invalid: {c.flaw}", flush=True)
                continue
            counts["before" if c.before else "now"] += 1
            how = f"recorded valid {c.before}" if c.before else f"checked in {c.seconds:.1f} s"
            print(f"{name}: valid, {c.node.position.braces()} is {c.node.status}"
                  + (f", {c.node.winning} wins" if c.node.winning else "") + f" ({c.bytes:,} bytes; {how})", flush=True)
    except RecordError as exc:
        progress.clear()
        fail(str(exc))
    pending = ledger.summary()["certificates_pending"]
    total = counts["now"] + counts["before"] + counts["bad"]
    print(f"{total:,} certificate files: {counts['now'] + counts['before']:,} valid ({counts['now']:,} checked now, "
          f"{counts['before']:,} recorded in {ledger.directory / CHECKS}), {counts['bad']:,} not; "
          f"{pending:,} nodes decided by a search have none yet (a campaign builds those its proof needs)")
    if counts["bad"]:
        raise typer.Exit(1)


def _show(ledger: Any, depth: int | None, as_json: bool, as_markdown: bool) -> None:
    from sylver.campaign.report import (
        COLUMNS,
        cells,
        certificates_line,
        headline,
        ledger_data,
        markdown,
        rows,
        theorem_line,
    )

    if as_json:
        print_json(ledger_data(ledger, depth))
        return
    if as_markdown:
        print(markdown(ledger, depth), end="")
        return
    from rich.table import Table

    from sylver.cli.common import console

    table = Table(title=f"Campaign on {ledger.root.braces()}: {headline(ledger.summary())}")
    for col in COLUMNS:
        table.add_column(col, overflow="fold")
    for row in rows(ledger, depth, theorems=False):
        table.add_row(*cells(row))
    if console.is_terminal:
        console.print(table)
    else:  # a file or a pipe: the whole table at its natural width, no cell folded
        from rich.console import Console
        from rich.measure import Measurement

        natural = Measurement.get(console, console.options.update_width(1 << 16), table).maximum
        Console(width=max(natural, console.width)).print(table)
    console.print(theorem_line(ledger, depth), highlight=False)
    console.print(certificates_line(ledger), highlight=False, markup=False)
