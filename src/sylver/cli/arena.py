"""`sylver tournament`, `sylver match`, `sylver conformance`: the arena (docs/arena.md)."""

from __future__ import annotations

from pathlib import Path

import typer

from sylver.cli.common import app, console, fail, integer, print_json, seconds

BOT_HELP = ("Bot spec (repeat): a built-in name, path/file.py:Class, or 'cmd:PROGRAM ARGS'; "
            "prefix name=NAME, to rename.")
RULES_HELP = ("Rules preset: koth (the King-of-the-Hill competition), koth-2020 (its first rules), classic (the "
              "nextMove competition's reference referee: 30 s clock, nextMove gets the time used) or "
              "classic-readme (its README: 36 s clock, nextMove gets the time left).")
TIME_ARG_HELP = "What nextMove bots get as their third argument: 'used' (seconds used this game) or 'left'."
UNSAFE_HELP = ("Run bots without the sandbox where bubblewrap is unavailable (only bots you trust: they can "
               "then see and kill other processes, read your files and use the network).")


def _rules(rules: str, start: str | None, cap: int | None, clock: float | None, move_time: float | None,
           no_prime_first: bool | None, gap_list_limit: int | None, penalties: int | None,
           time_arg: str | None = None):  # noqa: ANN202
    from sylver.arena.rules import make_rules
    from sylver.position import parse_numbers

    start_t = None
    if start is not None:
        try:
            start_t = tuple(parse_numbers(start))
        except ValueError as exc:
            fail(f"--start: {exc}")
    try:
        r = make_rules(rules, start=start_t, cap=cap, clock=clock, move_time=move_time,
                       no_prime_first=no_prime_first, gap_list_limit=gap_list_limit, penalties=penalties,
                       time_arg=time_arg)
    except ValueError as exc:
        fail(str(exc))
    if start_t:
        from sylver.arena.openings import start_problem

        problem = start_problem(start_t)
        if problem is not None:
            fail(f"--start: {problem}")
    return r


def _openings(text: str | None, start: str | None, seed: int):  # noqa: ANN202
    """The ``--openings`` suite (None without the option); a bad file or name fails in one line."""
    if text is None:
        return None
    if start is not None:
        fail("--start and --openings exclude each other (put the start in the suite)")
    from sylver.arena.openings import load_suite

    try:
        return load_suite(text, seed)
    except ValueError as exc:
        fail(str(exc))


def _specs(texts: list[str]):  # noqa: ANN202
    from sylver.arena.specs import parse_specs

    try:
        return parse_specs(texts)
    except ValueError as exc:
        fail(str(exc))


def _run(config, out, concurrency, cluster, quiet, as_json, match_names=None, every=0,  # noqa: ANN001,ANN202
         analyse=None):
    from sylver.arena.report import ConsoleEvents, standings_table
    from sylver.arena.tournament import run_tournament
    from sylver.errors import BotError

    events = ConsoleEvents(console, quiet=quiet or as_json, match=match_names is not None, every=every,
                           rules=config.rules)
    if match_names:
        events.names = match_names
    if not as_json:
        console.print(f"Rules: {config.describe()}; bots: {', '.join(config.names)}", highlight=False)
    try:
        with events:
            outcome = run_tournament(config, out, concurrency=concurrency, cluster=cluster, events=events)
    except (BotError, ValueError) as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; rerun the same command to resume" if out else "interrupted", 130)
    analysis = None
    if analyse is not None:
        analysis = _analyse(out, outcome.records, config.names, analyse, concurrency, quiet or as_json)
    if as_json:
        standings = [s.to_json() for s in outcome.table]
        if analysis is not None:
            for row in standings:
                row.update(analysis.stats[row["name"]].columns())
        print_json({"standings": standings, "games": len(outcome.records),
                    "disqualified": outcome.disqualified, "voids": outcome.voids, "out": str(out) if out else None,
                    **({"analysis": analysis.to_json()} if analysis is not None else {})})
    else:
        from rich.console import Console

        table = standings_table(outcome.table, config.rules,
                                f"Standings after {len(outcome.records)} games ({outcome.seconds:.1f} s)",
                                blunders=analysis.stats if analysis is not None else None)
        (console if console.is_terminal else Console(width=200)).print(table)
        if analysis is not None:
            _print_blunders(analysis)
        if outcome.voids:
            console.print(f"[bold red]{outcome.voids} game(s) voided by referee errors (see games.jsonl)")
        if out:
            also = ", analysis.jsonl, analysis.json, blunders.csv" if analysis is not None else ""
            console.print(f"Results in {out}/ (plan.json, games.jsonl, standings.json, standings.csv{also})",
                          highlight=False)
    if outcome.voids:
        raise typer.Exit(1)


def _settings(max_t: int, solve_seconds: float):  # noqa: ANN202
    from sylver.arena.analysis import Settings

    return Settings(max_t=max_t, seconds=solve_seconds)


def _analyse(out, records, names, settings, jobs, quiet):  # noqa: ANN001,ANN202
    """The blunder analysis of ``records`` (resumed from ``out``/analysis.jsonl), with progress lines."""
    from sylver.arena.analysis import MoveClass, analyse_results
    from sylver.executors import default_jobs

    def progress(ga, done: int, total: int) -> None:  # noqa: ANN001
        if not quiet:
            counts = {v: sum(n.verdict is v for n in ga.notes) for v in MoveClass}
            console.print(f"Analysed game {ga.game} ({done} of {total}, {ga.seconds:.1f} s): "
                          + ", ".join(f"{counts[v]} {v.value}" for v in MoveClass), highlight=False)

    try:
        return analyse_results(Path(out) if out else None, records, names, settings, jobs=jobs or default_jobs(),
                               progress=progress)
    except ValueError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        fail("interrupted; rerun the same command to resume the analysis" if out else "interrupted", 130)


def _print_blunders(analysis) -> None:  # noqa: ANN001
    from sylver.arena.report import first_blunder_lines

    for line in first_blunder_lines(analysis):
        console.print(line, highlight=False, markup=False)


MAX_T_HELP = "Blunder analysis: solve gcd-1 positions whose Frobenius number t is at most this."
SOLVE_SECONDS_HELP = "Blunder analysis: seconds of CPU time the engine gets per position (gcd 1 within --max-t, and g > 1)."
OPENINGS_HELP = ("Opening suite: a file (one start position a line) or a bundled suite: empty, one-number, "
                 "paper, opening16, koth[:N]; each start is played twice a round, the seats swapped.")
ANALYSE_HELP = "After the games, judge every move the engine can decide (blunder analysis; resumable)."


@app.command()
def tournament(
    bot: list[str] = typer.Option(..., "--bot", "-b", help=BOT_HELP),  # noqa: B008
    out: Path = typer.Option(..., "--out", "-o", help="Results directory (rerun the same command to resume)."),  # noqa: B008
    rules: str = typer.Option("koth", "--rules", help=RULES_HELP),
    rounds: int = typer.Option(100, "--rounds", help="Round-robin rounds (each pair plays twice a round).",
                               callback=integer(1)),
    seed: int = typer.Option(0, "--seed", help="Tournament seed (starts, lots, bots' random seeds)."),
    concurrency: int = typer.Option(None, "--concurrency", "-j", help="Local worker processes (default: cores).",
                                    callback=integer(1)),
    cluster: str = typer.Option(None, "--cluster", help="Dask scheduler address, e.g. tcp://HOST:8786."),
    start: str = typer.Option(None, "--start", help="Fixed start position, e.g. '4,5' (replaces a random start)."),
    cap: int = typer.Option(None, "--cap", help="Largest number a bot may name (0: no cap).",
                            callback=integer(1, zero="no cap")),
    clock: float = typer.Option(None, "--clock", help="Chess clock per bot per game, seconds (0: none).",
                                callback=seconds(zero="none")),
    move_time: float = typer.Option(None, "--move-time", help="Limit per call, seconds (0: none).",
                                    callback=seconds(zero="none")),
    no_prime_first: bool = typer.Option(None, "--no-prime-first/--prime-first-ok",
                                        help="Forbid a prime as the first move (the first King-of-the-Hill rules)."),
    gap_list_limit: int = typer.Option(None, "--gap-list-limit", callback=integer(0),
                                       help="nextMove bots get the remaining moves when at most this many."),
    penalties: int = typer.Option(None, "--penalties", help="Illegal answers that lose (3: three strikes).",
                                  callback=integer(1)),
    time_arg: str = typer.Option(None, "--time-arg", help=TIME_ARG_HELP),
    disqualify_on_timeout: bool = typer.Option(False, "--disqualify-on-timeout",
                                               help="Disqualify a bot that times out and replay every round."),
    memory: int = typer.Option(4096, "--memory", help="Address-space limit per bot, MiB.",
                               callback=integer(64, unit="MiB")),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help=UNSAFE_HELP),
    report_every: int = typer.Option(0, "--report-every", help="Print standings every N games (0: ~10 times).",
                                     callback=integer(1, zero="~10 times")),
    openings: str = typer.Option(None, "--openings", help=OPENINGS_HELP),
    analyse: bool = typer.Option(False, "--analyse", help=ANALYSE_HELP),
    max_t: int = typer.Option(150, "--max-t", help=MAX_T_HELP, callback=integer(1)),
    solve_seconds: float = typer.Option(10.0, "--solve-seconds", help=SOLVE_SECONDS_HELP, callback=seconds(0.01)),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No per-game lines."),
    as_json: bool = typer.Option(False, "--json", help="Print the standings as JSON."),
) -> None:
    """Run (or resume) a round-robin tournament of bots; results go to --out."""
    from sylver.arena.tournament import Config

    specs = _specs(bot)
    if len(specs) < 2:
        fail("a tournament needs at least two --bot")
    suite = _openings(openings, start, seed)
    r = _rules(rules, start, cap, clock, move_time, no_prime_first, gap_list_limit, penalties, time_arg)
    config = Config(
        specs, r, rounds=rounds, seed=seed, disqualify_on_timeout=disqualify_on_timeout, memory_mb=memory,
        unsafe_no_sandbox=unsafe_no_sandbox, openings=suite,
    )
    total = rounds * len(specs) * (len(specs) - 1) * (len(suite.starts) if suite else 1)
    _run(config, out, concurrency, cluster, quiet, as_json, every=report_every or max(1, total // 10),
         analyse=_settings(max_t, solve_seconds) if analyse else None)


@app.command()
def match(
    bot_a: str = typer.Argument(..., metavar="A", help="First bot spec."),
    bot_b: str = typer.Argument(..., metavar="B", help="Second bot spec."),
    games: int = typer.Option(10, "--games", "-n", help="Games (seat-swapped pairs; rounded up to even).",
                              callback=integer(1)),
    out: Path = typer.Option(None, "--out", "-o", help="Results directory (optional; resumable)."),  # noqa: B008
    rules: str = typer.Option("koth", "--rules", help=RULES_HELP),
    seed: int = typer.Option(0, "--seed"),
    concurrency: int = typer.Option(None, "--concurrency", "-j", callback=integer(1)),
    cluster: str = typer.Option(None, "--cluster"),
    start: str = typer.Option(None, "--start"),
    cap: int = typer.Option(None, "--cap", callback=integer(1, zero="no cap")),
    clock: float = typer.Option(None, "--clock", callback=seconds(zero="none")),
    move_time: float = typer.Option(None, "--move-time", callback=seconds(zero="none")),
    no_prime_first: bool = typer.Option(None, "--no-prime-first/--prime-first-ok"),
    gap_list_limit: int = typer.Option(None, "--gap-list-limit", callback=integer(0)),
    penalties: int = typer.Option(None, "--penalties", callback=integer(1)),
    time_arg: str = typer.Option(None, "--time-arg", help=TIME_ARG_HELP),
    memory: int = typer.Option(4096, "--memory", callback=integer(64, unit="MiB")),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help=UNSAFE_HELP),
    openings: str = typer.Option(None, "--openings", help=OPENINGS_HELP + " --games is rounded up to whole "
                                 "passes of the suite."),
    analyse: bool = typer.Option(False, "--analyse", help=ANALYSE_HELP),
    max_t: int = typer.Option(150, "--max-t", help=MAX_T_HELP, callback=integer(1)),
    solve_seconds: float = typer.Option(10.0, "--solve-seconds", help=SOLVE_SECONDS_HELP, callback=seconds(0.01)),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Play A against B: --games games in seat-swapped pairs."""
    from sylver.arena.tournament import Config

    specs = _specs([bot_a, bot_b])
    suite = _openings(openings, start, seed)
    r = _rules(rules, start, cap, clock, move_time, no_prime_first, gap_list_limit, penalties, time_arg)
    per_round = 2 * (len(suite.starts) if suite else 1)
    config = Config(specs, r, rounds=-(-games // per_round), seed=seed, memory_mb=memory, pairs=[(0, 1)],
                    unsafe_no_sandbox=unsafe_no_sandbox, openings=suite)
    _run(config, out, concurrency, cluster, quiet, as_json, match_names=config.names,
         analyse=_settings(max_t, solve_seconds) if analyse else None)


@app.command()
def blunders(
    out: Path = typer.Argument(..., metavar="DIR", help="A tournament's or match's results directory (--out)."),  # noqa: B008
    jobs: int = typer.Option(None, "--jobs", "-j", help="Worker processes (default: cores).", callback=integer(1)),
    max_t: int = typer.Option(150, "--max-t", help=MAX_T_HELP, callback=integer(1)),
    solve_seconds: float = typer.Option(10.0, "--solve-seconds", help=SOLVE_SECONDS_HELP, callback=seconds(0.01)),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No per-game lines."),
    as_json: bool = typer.Option(False, "--json", help="Print the analysis as JSON."),
) -> None:
    """Judge every move of a tournament's games that the engine can decide: winning, blunder, forced."""
    from sylver.arena.analysis import load_results
    from sylver.executors import default_jobs

    try:
        records, names = load_results(out)
    except ValueError as exc:
        fail(str(exc))
    analysis = _analyse(out, records, names, _settings(max_t, solve_seconds), jobs or default_jobs(),
                        quiet or as_json)
    if as_json:
        print_json(analysis.to_json())
        return
    from rich.console import Console

    from sylver.arena.report import blunder_table

    (console if console.is_terminal else Console(width=200)).print(blunder_table(analysis, f"Blunder analysis of {len(records)} games ({analysis.seconds:.1f} s; "
                                          f"t <= {max_t}, {solve_seconds:g} s a position)"))
    _print_blunders(analysis)
    console.print(f"Results in {out}/ (analysis.jsonl, analysis.json, blunders.csv; standings.json and "
                  "standings.csv updated)", highlight=False)


@app.command()
def conformance(
    bot: str = typer.Argument(..., help="Bot spec: built-in name, path/file.py:Class or 'cmd:PROGRAM ARGS'."),
    rules: str = typer.Option("koth", "--rules", help=RULES_HELP),
    move_time: float = typer.Option(None, "--move-time", callback=seconds(zero="none")),
    clock: float = typer.Option(None, "--clock", callback=seconds(zero="none")),
    cap: int = typer.Option(None, "--cap", callback=integer(1, zero="no cap")),
    time_arg: str = typer.Option(None, "--time-arg", help=TIME_ARG_HELP),
    memory: int = typer.Option(4096, "--memory", callback=integer(64, unit="MiB")),
    unsafe_no_sandbox: bool = typer.Option(False, "--unsafe-no-sandbox", help=UNSAFE_HELP),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Test that a bot keeps the arena's protocol: it starts, answers legal moves in a few positions, learns and quits."""
    from rich.table import Table

    from sylver.arena.conformance import run_conformance

    spec = _specs([bot])[0]
    r = _rules(rules, None, cap, clock, move_time, None, None, None, time_arg)
    from sylver.errors import BotError

    try:
        steps = run_conformance(spec, r, memory, unsafe_no_sandbox)
    except BotError as exc:
        fail(str(exc))
    ok = all(s.ok for s in steps)
    if as_json:
        print_json({"bot": spec.name, "ok": ok, "steps": [s.__dict__ for s in steps]})
    else:
        t = Table(title=f"conformance of {spec.name}")
        for c in ("step", "result", "time", "detail"):
            t.add_column(c)
        for s in steps:
            t.add_row(s.what, "[green]ok" if s.ok else "[red]FAIL", f"{s.seconds * 1e3:.1f} ms", s.detail)
        console.print(t)
        console.print("[green]conforms" if ok else "[red]does not conform")
    if not ok:
        raise typer.Exit(1)
