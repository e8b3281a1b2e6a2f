"""``sylver campaign``: a long attack on a root position, resumable and distributed (docs/campaign.md)."""

from __future__ import annotations

import shlex
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from sylver.cli.common import (
    app,
    deprecated,
    fail,
    integer,
    memory_size,
    position_from_args,
    print_json,
    seconds,
)


class Spellings(TyperGroup):
    """``sylver campaign``'s subcommands (``run``, ``show``, ``verify``), and the spellings before
    them, still read: ``sylver campaign 16 38 --dir D`` (run), ``… --show`` (show), ``sylver
    campaign --dir D --verify`` (verify), with a one-line note on stderr that says the new one.  An
    option that the old command took and ignored in that mode is dropped, as it was ignored; one it
    did not know is refused as before."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # Click's Context, or Typer's copy
        if args and (args[0] in self.commands or args[0] in ctx.help_option_names):
            return super().parse_args(ctx, args)
        new = _new_spelling(args)
        deprecated(f"sylver campaign {shlex.join(args)}", f"sylver campaign {shlex.join(new)}")
        return super().parse_args(ctx, new)


VALUED = {"--dir", "-d", "--jobs", "-j", "--cluster", "--memory", "--store", "--time-limit", "--first-budget",
          "--first-states", "--max-attempts", "--try", "--only", "--depth"}
"""The options of the old ``sylver campaign`` that take a value (the others were flags)."""
FLAGS = {"--show", "--verify", "--json", "--markdown"}
"""Its flags."""
TAKES = {
    "run": VALUED - {"--depth"},
    "show": {"--dir", "-d", "--store", "--depth", "--json", "--markdown"},
    "verify": {"--dir", "-d", "--jobs", "-j"},
}
"""The options of the old spelling that each subcommand takes."""


def _new_spelling(args: list[str]) -> list[str]:
    """The subcommand and arguments of an old spelling of ``sylver campaign`` (the mode flags
    ``--show`` and ``--verify`` gone); its old refusals, each one line and exit 2."""
    words: list[tuple[str, str | None]] = []  # (option or positional word, its value)
    rest = iter(args)
    for word in rest:
        name = word.split("=", 1)[0]
        words.append((word, next(rest, None)) if name in VALUED and "=" not in word else (word, None))
    given = {w.split("=", 1)[0] for w, _ in words}
    positional = any(not w.startswith("-") for w, _ in words)
    mode = "verify" if "--verify" in given else "show" if "--show" in given else "run"
    if given & {"--json", "--markdown"} == {"--json", "--markdown"}:
        fail("--json and --markdown contradict each other")
    if mode == "run" and given & {"--json", "--markdown", "--depth"}:
        fail("--json, --markdown and --depth go with --show (`sylver campaign show`)")
    if mode == "show" and given & {"--try", "--only"}:
        fail("--show reads the ledger: --try and --only go with work")
    if mode == "verify" and (positional or given & {"--show", "--try", "--only"}):
        fail("--verify checks the certificates of the campaign in --dir: give no position, --show, --try or --only")
    new = [mode]
    for word, value in words:
        name = word.split("=", 1)[0]
        if not word.startswith("-"):
            new.append(word)
        elif name in TAKES[mode] or name not in VALUED | FLAGS:  # an unknown option: Click says so
            new += [word] if value is None else [word, value]
    return new


campaign_app = typer.Typer(cls=Spellings, rich_markup_mode="rich", pretty_exceptions_enable=False,
                           add_completion=False)
app.add_typer(campaign_app, name="campaign")

DIRECTORY_HELP = "The campaign's directory: its ledger and certificate files (made if missing)."
FIRST_BUDGET = 2.0
"""Seconds of a node's first attempt, unless ``run --first-budget`` says otherwise."""


@campaign_app.callback()
def campaign() -> None:
    """Attack a root position for as long as it takes: a ledger of its proof tree, resumable, on local cores or a Dask cluster.

    `sylver campaign run ROOT --dir DIR` works on it: each node of the tree (a position the root's
    value rests on) is attempted with a budget that grows when the attempt fails, cheapest first;
    every result goes to the results store with its certificate, and to --dir.  Run the same
    command again (or `sylver campaign run --dir DIR`) to resume: a campaign killed at any moment
    loses only its running attempts.  `sylver campaign show --dir DIR` prints its ledger, `sylver
    campaign verify --dir DIR` checks its certificates.  (The spellings before these subcommands,
    `sylver campaign 16 38 --show`, still work, with a note.)"""


@campaign_app.command()
def run(
    position: Annotated[list[str] | None, typer.Argument(help="The root, e.g. `16` or `16 38` (omit to resume the campaign in --dir).", show_default=False)] = None,
    directory: Annotated[Path, typer.Option("--dir", "-d", help=DIRECTORY_HELP)] = Path("campaign"),
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Attempts at once.  Default: a process per core this process may use; with --cluster, one per worker thread.", show_default=False, callback=integer(1))] = None,
    cluster: Annotated[str | None, typer.Option("--cluster", help="Dask scheduler address, e.g. tcp://host:8786: one attempt per task on its workers.")] = None,
    memory: int = typer.Option(None, "--memory", metavar="SIZE", parser=str, callback=memory_size(), show_default=False,
                               help="Memory for the attempts together (local; with --cluster, for each attempt), e.g. 16G.  Default: the share of this machine that `sylver solve` takes (see its --help)."),
    store: Annotated[str | None, typer.Option("--store", help="Results store for every result and certificate: an SQLite file or a postgresql:// URL (for several machines).  Default: the campaign's, else the user cache directory's.", show_default=False)] = None,
    time_limit: Annotated[float | None, typer.Option("--time-limit", help="Stop after this many seconds (default: when the root is decided or nothing is left to try; Ctrl-C stops too).", callback=seconds())] = None,
    first_budget: Annotated[float, typer.Option("--first-budget", help="Seconds of a node's first attempt; each attempt that does not decide it gives the next 4 times more.", callback=seconds())] = FIRST_BUDGET,
    first_states: Annotated[int | None, typer.Option("--first-states", help="States a node's first attempt may search besides its seconds (each later attempt, 4 times more): a limit that stops an attempt at the same point on any machine (tests, reproducible ledgers).", callback=integer(1))] = None,
    max_attempts: Annotated[int | None, typer.Option("--max-attempts", help="Stop after this many attempts.", callback=integer(1))] = None,
    tries: Annotated[list[str] | None, typer.Option("--try", help="A line to try first: moves from the root, e.g. `37` (a published answer) or `82,701`; repeatable; kept in the ledger.", show_default=False)] = None,
    only: Annotated[list[str] | None, typer.Option("--only", help="Work only on this line this run (what its end rests on: the open nodes below it that still matter to it, or the certificates a decided end still lacks; the rest waits): moves from the root as for --try; repeatable; kept in the ledger as a line to try first.", show_default=False)] = None,
) -> None:
    """Work on a campaign: start it on a root, or resume the one in --dir, until the root is decided and certified, the time is up or Ctrl-C.

    Each node of the tree (a position the root's value rests on) is attempted with a budget that
    grows when the attempt fails, cheapest first; every result goes to the results store with its
    certificate, and to --dir."""
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


@campaign_app.command()
def show(
    position: Annotated[list[str] | None, typer.Argument(help="A root: the campaign in --dir is made if new, with every node the results book decides (no search).", show_default=False)] = None,
    directory: Annotated[Path, typer.Option("--dir", "-d", help=DIRECTORY_HELP)] = Path("campaign"),
    store: Annotated[str | None, typer.Option("--store", help="With a root, for a new campaign: its results store (as for `run`).", show_default=False)] = None,
    depth: Annotated[int | None, typer.Option("--depth", help="The nodes at most this many moves from the root.", callback=integer(0))] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object.")] = False,
    as_markdown: Annotated[bool, typer.Option("--markdown", help="A Markdown table.")] = False,
) -> None:
    """Print a campaign's ledger: a row a node (position, why it is needed, status, winning move, method, attempts, next budget, certificate), and the certificates' count.

    No search.  On a terminal the table fits its width; into a file or a pipe it is printed whole."""
    from sylver.campaign import Ledger

    if as_json and as_markdown:
        fail("--json and --markdown contradict each other")
    ledger = _from_book(directory, position, store) if position else Ledger.open(directory, resume=False)
    try:
        _show(ledger, depth, as_json, as_markdown)
    finally:
        ledger.close()


@campaign_app.command()
def verify(
    directory: Annotated[Path, typer.Option("--dir", "-d", help=DIRECTORY_HELP)] = Path("campaign"),
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Processes for the second reading of a large certificate.  Default: one per core this process may use.", show_default=False, callback=integer(1))] = None,
) -> None:
    """Verify every certificate file of a campaign's ledger with the independent verifier (as `sylver verify`): each must be valid and prove what the ledger says.

    A line a file, smallest first, then the count.  Valid checks are recorded in DIR/verified.jsonl
    and not repeated.  Exit status 1 if one is not valid.  It only reads the ledger: run it beside
    the campaign."""
    from sylver.campaign import Ledger

    ledger = Ledger.open(directory, resume=False, read_only=True)
    try:
        _verify(ledger, jobs)
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
    from sylver.store.results import Store, default_location

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


def _from_book(directory: Path, position: list[str], store: str | None) -> Any:
    """``show`` with a root: the campaign in ``directory`` (made if new, with ``run``'s first
    budget), with every node the results book decides decided (no search), to be shown."""
    from sylver.campaign import Campaign, Options
    from sylver.store.results import Store

    ledger = _ledger(directory, _root(position), store, FIRST_BUDGET)
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
    from sylver.store.results import Store

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
        console.print(f"stopped; resume with `sylver campaign run --dir {ledger.directory}`; "
                      f"{headline(ledger.summary())}", highlight=False)
        raise typer.Exit(130) from None
    finally:
        status.stop()
    console.print(headline(summary), highlight=False)
    if summary["status"] not in ("P", "N"):
        console.print(f"resume with `sylver campaign run --dir {ledger.directory}`; the ledger: "
                      f"`sylver campaign show --dir {ledger.directory}`", highlight=False)


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
    """``verify``: a line for each certificate file (smallest first), then the count; exit 1 if one
    is not valid or does not prove what the ledger says."""
    from sylver.campaign.proof import VERIFIED, verify_certificates
    from sylver.executors import default_jobs
    from sylver.proof.certificate import ProgressLine, RecordError

    progress = ProgressLine(sys.stderr)
    counts = {"now": 0, "before": 0, "bad": 0}
    try:
        for c in verify_certificates(ledger, jobs or default_jobs(), progress if sys.stderr.isatty() else None):
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
          f"{counts['before']:,} recorded in {ledger.directory / VERIFIED}), {counts['bad']:,} not; "
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
