"""Strength of the built-in bots: win rates and blunder rates with 95 % intervals (issues 5, 12, 35).

0. ``suites`` (the default section): ``perfect`` against each ``--opponents`` bot in the arena
   (:func:`sylver.arena.tournament.run_tournament`, ``--rules``, default the ``nextMove``
   competition's reference referee: 30 s clock, cap 10^6) from each start of each ``--suites``
   opening suite, both seats; then the blunder analysis of the games
   (:mod:`sylver.arena.analysis`, t <= ``--max-t``).  Per suite and opponent: games, perfect's wins,
   each bot's blunders / decided N-moves (95 % Wilson interval), wall and perfect's CPU per game,
   and perfect's first blunders with the position, the winning move and its time.
1. ``known``: from every N-position of known_results.json (the published results), ``perfect``
   names a winning move (checked against the published complete move set, or by solving the
   resulting position).
2. ``adapters``: the same N-positions through the competitions' adapters: ``Seed002Bot`` called as
   the ``nextMove`` competition's reference referee calls it (third argument 0.0, the time used) and
   as its README says (36.0, the time left), and ``Seed000Bot`` (King of the Hill, no time argument).
3. ``empty``: ``perfect`` vs ``random`` from the empty start under the ``nextMove`` competition's
   rules (30 s chess clock per bot, moves capped at 10^6), both seats.
4. ``koth``: King-of-the-Hill starts (two random coprime 6-digit numbers; 20 s per call),
   ``perfect`` against every other built-in bot, both seats: each start is played twice with the
   seats swapped.
5. ``nextmove``: ``perfect`` through ``Seed002Bot`` in the reference referee's loop
   (:func:`sylver.compat.play_next_move`: the time used as third argument, 30 s a game, cap 10^6,
   every call timed with perf_counter) against ``sage``, ``greedy`` and ``random`` wrapped the same
   way, both seats, from the empty start and after each opening number in ``NEXTMOVE_STARTS`` (the
   competition asks for the best move "whatever the starting move").  Wins with 95 % intervals, and
   the clock ``perfect`` used per game (median, max).  The target (>= 99 %) is on the games where
   ``perfect``'s seat wins against perfect play (it moves first from an N-position or second from a
   P-position); the other seat is reported beside it (there it can only swindle).

6. ``time-odds``: ``perfect`` at ``--short-call`` seconds a call against ``perfect`` at ``--long-call``
   (default 2 s against 20 s, as issue 35 asks) from King-of-the-Hill starts, each start twice with
   the seats swapped (``--games`` games), as an arena match (:func:`sylver.arena.tournament.run_tournament`,
   ``--jobs`` games at a time, results in ``--out`` or a temp dir, resumable): each side is a
   process of its own with its own tables (nothing one side solved is visible to the other), frozen
   while the other thinks, told and held to its own per-call limit (CPU time; ``think`` set to it,
   so the bot's own shares bound it).  Printed: after each start, the two games, where the two sides
   first named different numbers in the same position (each judged by the blunder analysis, t <=
   ``--max-t``) and each side's first blunder, then a running tally (flushed: a stopped run still
   tells its figure); at the end the long side's wins with the Elo difference and its 95 % interval
   (Wilson interval of the score through 400 log10(s / (1 - s))), each side's blunders / decided
   N-moves and CPU per game.

7. ``package`` (issue 53; the default section when ``--package DIR`` is given): ``perfect`` against the
   ``nextMove`` competition's own bots (``--package-bots``: bestBot, usingStrongCounterV2,
   usingStrongCounterV3, loaded from DIR, the competition's folder; bench/nextmove_package.py) from
   each start of each ``--suites`` suite, both seats, ``--rounds`` rounds, ``--starts`` to take
   fewer: first through our referee (the arena, ``--rules``, the package's bots sandboxed as any
   ``nextMove`` bot), then the same games (start, first player, each bot's seed) through the
   competition's own referee loop and clock (its ``SylverCoinageGame``, called from here; its list of
   allowed moves bounded by ``--cap``, default 1000, as ours: it updates that list in pure Python
   after every move, hours a move at 10^6).  perfect thinks ``--think`` s a move (a position it can
   solve: 25 % of its clock) in both; under the competition's referee it plays in this process, its
   solver's tables cleared before each match (in the arena it has a process of its own), and the
   analysis runs after both referees' games of a match.  One analyst in this process judges every game (t <=
   ``--max-t``, ``--analysis-seconds`` a position, one memo: each position is solved once a run; the
   positions decided are kept in ``--analysis-store``, default analysis.sqlite in ``--out``, and those
   not decided in its ``-undecided.jsonl`` beside it, so that a rerun solves neither again), and per suite and opponent the two
   referees' figures are printed side by side (games, perfect's wins, each bot's blunders / decided
   N-moves with the 95 % interval, perfect's most time in a game), with the number of games whose
   moves and whose results are the same and one line for each result that differs.

Every game counts illegal moves and time losses (the targets are 0).  Sections 3-4 run in-process
with the small referee of :mod:`sylver.bots.selfplay`; ``perfect`` thinks at most ``--think``
seconds a move there (default 0.3 s; where the position can be solved, 3 × that under the clock of
section 3, most of the 20-s call in section 4); in sections 0 and 5 it plays at full strength (2 s
a move; where the position can be solved, 6 s within its clock, or 85 % of a per-call limit less a
second: ``Turn.per_call``).  The default run (section 0: the one-number
suite against ``sage``, 74 games) took 2.5 minutes on a 2-core AMD EPYC at load 11; ``--suites
one-number,opening16 --rounds 2 --max-t 400 --jobs 1`` (244 games) 11 minutes at load 4-10;
``--only time-odds --games 40 --short-call 0.2 --long-call 2 --jobs 1`` 1.8 minutes at load 5-9
(measured figures: docs/bots.md, "Strength").  ``--only`` picks sections (repeatable; ``--only all`` runs every one).

    .venv/bin/python bench/bench_strength.py [--suites one-number,opening16] [--opponents sage,greedy]
    .venv/bin/python bench/bench_strength.py --only all [--games 100] [--empty-games 200] [--nextmove-games 4]
    .venv/bin/python bench/bench_strength.py --only time-odds --games 200 --short-call 2 --long-call 20
    .venv/bin/python bench/bench_strength.py --suites one-number,opening16,paper --rounds 2 --max-t 400
    .venv/bin/python bench/bench_strength.py --package DIR --suites one-number,paper,opening16 --max-t 400 --jobs 1

``perfect`` reads the results store as a book (``$SYLVER_STORE``, or the user's cache): point it
at a campaign's store to play with what the campaigns proved.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory

from sylver.arena.analysis import Settings, analyse_results, wilson  # noqa: E402
from sylver.bots import BOTS, make_bot  # noqa: E402
from sylver.bots.base import Turn  # noqa: E402
from sylver.bots.selfplay import finish, play_game  # noqa: E402
from sylver.compat import SEED002_CAP, SEED002_CLOCK, Seed000Bot, Seed002Bot, play_next_move  # noqa: E402
from sylver.position import Outcome, Position, Termination  # noqa: E402
from sylver.theory import known_outcome  # noqa: E402

KNOWN = Path(__file__).resolve().parents[2] / "shared" / "data" / "known_results.json"

NEXTMOVE_STARTS: tuple[tuple[int, ...], ...] = ((), (4,), (6,), (8,), (9,), (10,), (12,), (5,), (7,), (11,))
"""The empty start and one opening number each: composites (N for the player to move: the theory
names the winning reply) and primes >= 5 (P, Hutchings)."""


SEARCHED_N: tuple[tuple[int, ...], ...] = (
    (5, 52, 53, 96), (16, 20, 25), (17, 19, 21), (10, 15, 56, 59), (18, 22, 39), (14, 19, 45),
)
"""N-positions outside the opening book that the solver settles in under a second, each with one or
a few winning moves (47, 42, 132, 67, 19, 46): found only by searching."""


def rate(wins: int, n: int) -> str:
    lo, hi = wilson(wins, n)
    return f"{wins}/{n} = {100 * wins / max(n, 1):5.1f} %  [95 % CI {100 * lo:5.1f} - {100 * hi:5.1f} %]"


def koth_start(rng: random.Random) -> Position:
    """Two random coprime 6-digit numbers, as the King-of-the-Hill driver draws them."""
    while True:
        a, b = rng.randint(100_000, 999_999), rng.randint(100_000, 999_999)
        if math.gcd(a, b) == 1:
            return Position((a, b))


def wins_in(p: Position, move: int, rec: dict) -> bool:
    """Is ``move`` a winning move in the published N-position ``p``?"""
    from sylver.solver import solve

    if move in rec["winning_moves"]:
        return True
    if rec["complete"] or not p.is_legal(move) or move <= 1:
        return False
    return solve(p.play(move), first=True).outcome is Outcome.P


def tournament(config: object, out: Path, **options: object) -> object:
    """:func:`sylver.arena.tournament.run_tournament`, a results directory that holds another
    tournament (an earlier run with other ``--rounds``, rules or seed) refused in one line."""
    from sylver.arena.tournament import run_tournament

    try:
        return run_tournament(config, out, **options)  # type: ignore[arg-type]
    except ValueError as exc:
        raise SystemExit(f"bench_strength: error: {exc}") from None


def suite_dir(suite: str) -> str:
    """The name of a suite's results directories in ``--out``: a bundled suite's name (``koth:50`` as
    ``koth-50``), a suite file's name without its folders and suffix (never a path out of ``--out``)."""
    if "/" in suite or suite.endswith((".txt", ".json", ".jsonl")):
        suite = Path(suite).stem
    return suite.replace(":", "-")


def suite_match(suite: str, opponent: str, args: argparse.Namespace, out: Path, analyst: object = None,
                think: float | None = None, analyse: bool = True) -> dict:
    """``perfect`` vs ``opponent`` (a built-in bot or an arena spec) from each start of ``suite`` (both
    seats) in the arena under ``--rules`` (and ``--cap``), then the blunder analysis of the games
    (resumable: ``out`` is the results directory; ``analyst``: an :class:`~sylver.arena.analysis.Analyst`
    of the whole run, in this process, whose memo every match shares, instead of the analysis of
    ``out``; ``think``: perfect's, default its own 2 s; ``analyse``: False to play only)."""
    from sylver.arena.openings import load_suite
    from sylver.arena.rules import make_rules
    from sylver.arena.specs import parse_specs
    from sylver.arena.tournament import Config

    openings = load_suite(suite, args.seed)
    if args.starts:
        openings = type(openings)(openings.name, openings.starts[: args.starts])
    specs = parse_specs(["perfect", opponent])
    if think is not None:
        specs[0] = dataclasses.replace(specs[0], options=(("think", think),))
    config = Config(specs, make_rules(args.rules, cap=args.cap), rounds=args.rounds,
                    seed=args.seed, pairs=[(0, 1)], openings=openings)
    started = time.monotonic()
    played = tournament(config, out, concurrency=args.jobs)
    play_seconds = time.monotonic() - started
    if not analyse:
        analysis = None
    elif analyst is None:
        analysis = analyse_results(out, played.records, config.names, Settings(max_t=args.max_t), jobs=args.jobs)
    else:
        analysis = analyse_with(analyst, played.records, config.names)
    cpu = [r.cpu[r.players.index("perfect")] for r in played.records]
    return {"records": played.records, "analysis": analysis, "play": play_seconds, "names": config.names,
            "wall": statistics.mean(r.wall for r in played.records), "cpu": statistics.mean(cpu),
            "cpu_max": max(cpu)}


def suites_section(args: argparse.Namespace) -> bool:
    """Section 0; True when perfect met its target (no blunder at t <= --max-t, no loss that is not
    a normal end)."""
    ok = True
    root = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-strength-"))
    print(f"perfect vs each opponent from each start of each suite, both seats ({args.rules} rules; "
          f"analysis: gcd 1 with t <= {args.max_t}, g > 1 proven within 10 s of CPU time); results in {root}")
    for suite in args.suites.split(","):
        for opponent in args.opponents.split(","):
            r = suite_match(suite, opponent, args, root / f"{suite_dir(suite)}-{opponent}")
            records, analysis = r["records"], r["analysis"]
            wins = sum(g.winner == "perfect" for g in records)
            print(f"   {suite} vs {opponent}: {len(records)} games, perfect wins {rate(wins, len(records))}")
            for name in ("perfect", opponent):
                s = analysis.stats[name]
                print(f"      {name:8s} blunders / decided N-moves {s.rate_text()}; winning {s.winning}, "
                      f"forced {s.forced}, undecided {s.undecided}")
            print(f"      per game: wall {r['wall']:.2f} s, perfect's CPU {r['cpu']:.2f} s (max {r['cpu_max']:.2f} s); "
                  f"play {r['play']:.0f} s, analysis {analysis.seconds:.0f} s", flush=True)
            for b in analysis.stats["perfect"].first_blunders:
                where = "{" + ",".join(map(str, b["position"])) + "}"
                print(f"      perfect's first blunder in game {b['game']}: {b['move']} in {where} "
                      f"({b['time']:.2f} s), {b['best']} wins")
            odd = [g for g in records if g.reason is not Termination.NAMED_ONE and g.loser == "perfect"]
            for g in odd:
                print(f"      perfect lost game {g.game} by {g.reason.phrase}: {g.detail}")
            ok &= analysis.stats["perfect"].blunders == 0 and not odd
    return ok


def analyse_with(analyst: object, records: list, names: list[str]) -> object:
    """The blunder analysis of ``records`` by ``analyst`` in this process (its memo kept for the next
    games: a position met in many games, or under both referees, is decided once)."""
    from sylver.arena.analysis import Analysis, Analyst, summarise

    assert isinstance(analyst, Analyst)
    started = time.monotonic()
    games = [analyst.game(r) for r in records]
    return Analysis(analyst.settings, games, summarise(names, games), time.monotonic() - started)


PACKAGE_CAP = 1000
"""The cap of section ``package`` when ``--cap`` is not given: the competition's referee updates its
list of allowed moves 1 .. cap in pure Python after every move (bench/nextmove_package.py)."""


def their_games(pkg: object, game: object, opponent: str, records: list, out: Path, args: argparse.Namespace) -> list:
    """The games of ``records`` (the arena's: start, first player, seed) played again through the
    competition's referee loop (``game``, :func:`nextmove_package.play`): ``perfect`` through
    Seed002Bot (one instance for the match, its rng seeded per game as the arena's bot host seeds
    it), the opponent the package's own class (one instance for the match, as its round robin
    makes one per match).  Resumable: ``out/games.jsonl`` (finished game ids are skipped)."""
    from nextmove_package import Caller, play, seat_seed, takes_time

    from sylver.arena.games import PlayedGame

    out.mkdir(parents=True, exist_ok=True)
    path = out / "games.jsonl"
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                g = PlayedGame.from_json(json.loads(line))
                done[g.game] = g
    todo = [r for r in records if r.game not in done]
    if todo:
        from sylver.solver.engine import ENGINE

        # perfect plays in this process here: its solver's tables must not hold what the analysis (in
        # this process too) or an earlier match solved; in the arena it has a process of its own
        ENGINE.clear()
        perfect = Seed002Bot(seed=args.seed, max_move=args.cap or PACKAGE_CAP, think=args.think)
        bot = pkg.bot_class(opponent)()  # type: ignore[attr-defined]
        ours = Caller("perfect", perfect.nextMove, True)
        theirs = Caller(opponent, bot.nextMove, takes_time(bot.nextMove))
        with path.open("a") as f:
            for r in todo:
                seat = r.players.index("perfect")
                perfect.bot.rng = random.Random(seat_seed(r.seed, seat))
                first, second = (ours, theirs) if seat == 0 else (theirs, ours)
                g = play(game, first, second, tuple(r.start), number=r.game, seed=r.seed, random_seat=1 - seat,
                         round_=r.round)
                f.write(json.dumps(g.to_json()) + "\n")
                f.flush()
                done[g.game] = g
    return [done[r.game] for r in records]


def referee_differences(ours: list, theirs: list, analyst: object) -> tuple[int, int, Counter, list[str]]:
    """Game by game: (games with the same moves, games with the same winner and reason, who made the
    first move that differs in the others — perfect or the opponent — and one line for each game whose
    result differs, with that first difference judged by ``analyst``)."""
    from sylver.arena.analysis import Analyst

    assert isinstance(analyst, Analyst)
    same_moves = same_result = 0
    first_by: Counter = Counter()
    lines = []
    for a, b in zip(ours, theirs, strict=True):
        same_moves += list(a.moves) == list(b.moves)
        split = next((k for k, (x, y) in enumerate(zip(a.moves, b.moves, strict=False)) if x != y), None)
        where = ""
        if split is not None:
            mover = a.players[split % 2]
            first_by[mover] += 1
            p = Position(a.start)
            for n in a.moves[:split]:
                p = p.play(int(n))
            judged = [analyst.judge(p, m)[0].value if type(m) is int and p.is_legal(m) else "not legal"
                      for m in (a.moves[split], b.moves[split])]
            where = (f"; first difference at ply {split}, {mover} in {_brief(p)}: ours {a.moves[split]} "
                     f"({judged[0]}), theirs {b.moves[split]} ({judged[1]})")
        if a.winner == b.winner and a.reason is b.reason:
            same_result += 1
        else:
            lines.append(f"game {a.game} from {{{','.join(map(str, a.start))}}}, {a.players[0]} first: ours {a.winner} "
                         f"won ({a.reason.phrase}, {len(a.moves)} plies), theirs {b.winner} won ({b.reason.phrase}, "
                         f"{len(b.moves)} plies){where}")
    return same_moves, same_result, first_by, lines


def package_section(args: argparse.Namespace) -> bool:
    """Issue 53: ``perfect`` against the ``nextMove`` competition's own bots (``--package`` folder:
    bestBot, usingStrongCounterV2, usingStrongCounterV3) from each start of each ``--suites`` suite,
    both seats, ``--rounds`` rounds: first through our referee (the arena, ``--rules`` with the cap),
    then the same games (start, first player, the game's seed for every random generator) through
    the competition's own referee loop and clock (bench/nextmove_package.py); the blunder analysis
    of both (t <= --max-t; one store of decided positions for the whole run), side by side, and
    the games whose results differ.  True when perfect made no blunder and lost no game by
    anything but naming 1, under either referee."""
    from nextmove_package import BOTS, capped, load_package

    from sylver.arena.analysis import Analyst

    pkg = load_package(args.package)
    cap = args.cap or PACKAGE_CAP
    args.cap = cap
    game = capped(pkg.referee.SylverCoinageGame, cap)
    opponents = [o for o in args.package_bots.split(",") if o]
    for o in opponents:
        if o not in BOTS:
            raise SystemExit(f"bench_strength: error: --package-bots {o}: one of {', '.join(BOTS)}")
    root = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-strength-"))
    store = Path(args.analysis_store) if args.analysis_store else root / "analysis.sqlite"
    analyst = Analyst(Settings(max_t=args.max_t, seconds=args.analysis_seconds, store=str(store)),
                      undecided=store.with_name(f"{store.stem}-undecided.jsonl"))
    print(f"perfect vs the nextMove competition's bots ({args.package}: {', '.join(opponents)}), each start of each "
          f"suite both seats, {args.rounds} round(s); ours: the arena, {args.rules} rules with cap {cap:,}; theirs: "
          f"{pkg.referee.__file__}'s SylverCoinageGame, its allowed moves 1 .. {cap:,} (was 10^6), the same games; "
          f"perfect thinks {args.think:g} s a move (a position it can solve: 25 % of its clock); analysis t <= "
          f"{args.max_t}, {args.analysis_seconds:g} s of CPU a position, one memo for the run; results in {root}",
          flush=True)
    ok = True
    rows = []
    for suite in args.suites.split(","):
        for opponent in opponents:
            name = f"{suite_dir(suite)}-{opponent}"
            r = suite_match(suite, pkg.spec(opponent), args, root / name, think=args.think, analyse=False)
            started = time.monotonic()
            theirs = their_games(pkg, game, opponent, r["records"], root / f"{name}-theirs", args)
            play_theirs = time.monotonic() - started
            r["analysis"] = analyse_with(analyst, r["records"], r["names"])  # after both referees' games
            a_theirs = analyse_with(analyst, theirs, r["names"])
            same_moves, same_result, first_by, diffs = referee_differences(r["records"], theirs, analyst)
            by = ", ".join(f"{n} {k}" for n, k in first_by.most_common()) or "none"
            print(f"   {suite} vs {opponent}: {len(theirs)} games; same moves in {same_moves} (the first move that "
                  f"differs made by: {by}), same result in {same_result}", flush=True)
            for label, records, analysis, secs in (("ours  ", r["records"], r["analysis"], r["play"]),
                                                   ("theirs", theirs, a_theirs, play_theirs)):
                wins = sum(g.winner == "perfect" for g in records)
                s_p, s_o = analysis.stats["perfect"], analysis.stats[opponent]
                clock = max(g.cpu[g.players.index("perfect")] for g in records)
                print(f"      {label} perfect wins {rate(wins, len(records))}; perfect's blunders / decided N-moves "
                      f"{s_p.rate_text()} (undecided {s_p.undecided}); {opponent}'s {s_o.rate_text()}; "
                      f"perfect's most time in a game {clock:.2f} s; play {secs:.0f} s, analysis {analysis.seconds:.0f} s",
                      flush=True)
                rows.append((suite, opponent, label.strip(), len(records), wins, s_p, s_o))
                for b in s_p.first_blunders:
                    where = "{" + ",".join(map(str, b["position"])) + "}"
                    print(f"         perfect's first blunder in game {b['game']}: {b['move']} in {where} "
                          f"({b['time']:.2f} s), {b['best']} wins")
                odd = [g for g in records if g.reason is not Termination.NAMED_ONE]
                for g in odd:
                    print(f"         game {g.game}: {g.loser} lost by {g.reason.phrase}: {g.detail}")
                ok &= s_p.blunders == 0 and not any(g.loser == "perfect" for g in odd)
            for line in diffs:
                print(f"      results differ: {line}")
    print("   | suite | opponent | referee | games | perfect wins | perfect's blunders / decided N-moves [95 %] | "
          "opponent's |")
    print("   | --- | --- | --- | ---: | ---: | --- | --- |")
    for suite, opponent, label, n, wins, s_p, s_o in rows:
        print(f"   | {suite} | {opponent} | {label} | {n} | {wins} | {s_p.rate_text()} | {s_o.rate_text()} |")
    return ok


def known_positions(known: Path, think: float) -> tuple[int, int, list[str]]:
    records = json.loads(known.read_text())["positions"]
    bot = make_bot("perfect", random.Random(0), think=think)
    ok = total = 0
    failures = []
    for rec in records:
        if rec["outcome"] != "N":
            continue
        p = Position(rec["position"])
        total += 1
        move = bot.choose(Turn(p, tuple(p.generators), time_left=20.0))
        if wins_in(p, move, rec):
            ok += 1
        else:
            failures.append(f"{p.braces()}: named {move}, winning {rec['winning_moves']}")
    return ok, total, failures


def adapter_positions(known: Path) -> list[tuple[str, int, int, list[str]]]:
    """Each N-position (the published ones and SEARCHED_N) as the first call of a game through each
    adapter: (way, ok, total, failures)."""
    records = [r for r in json.loads(known.read_text())["positions"] if r["outcome"] == "N"]
    records += [{"position": list(s), "winning_moves": [], "complete": False} for s in SEARCHED_N]
    ways = {
        "Seed002Bot, time used (reference referee: 0.0)": (Seed002Bot(seed=0), 0.0),
        "Seed002Bot, time left (README: 36.0)": (Seed002Bot(seed=0), 36.0),
        "Seed000Bot (King of the Hill)": (Seed000Bot(0, seed=0), None),
    }
    out = []
    for way, (bot, t) in ways.items():
        ok, failures = 0, []
        for rec in records:
            p = Position(rec["position"])
            moves = list(rec["position"])
            if isinstance(bot, Seed000Bot):
                move = bot.announce(moves)
            else:
                move = bot.nextMove(moves, p.legal_moves(), t)
            if wins_in(p, move, rec):
                ok += 1
            else:
                failures.append(f"{p.braces()}: named {move}, winning {rec['winning_moves']}")
        out.append((way, ok, len(records), failures))
    return out


def first_mover_wins(start: tuple[int, ...]) -> bool:
    """Does the player to move in ``start`` win against perfect play (the theory, else the solver)?"""
    from sylver.solver import solve

    p = Position(start)
    known = known_outcome(p)
    if known is not None:
        return not known
    return solve(p, first=True).outcome is Outcome.N


def nextmove_match(opponent: str, games: int, seed: int) -> dict:
    """``perfect`` through Seed002Bot vs ``opponent`` through Seed002Bot in the reference referee's
    loop, ``games`` games per start and seat.  Per seat class ("won": perfect's seat wins against
    perfect play; "lost": the other) the wins and games; the clock perfect used per game; the losses
    that are not ``named 1``."""
    perfect = Seed002Bot(seed=seed)  # one instance for every game, as in a tournament
    wins = {"won": [0, 0], "lost": [0, 0]}
    clock: list[float] = []
    bad: list[str] = []
    started = time.monotonic()
    for start in NEXTMOVE_STARTS:
        first_wins = first_mover_wins(start)
        for seat in (0, 1):
            kind = "won" if (seat == 0) == first_wins else "lost"
            for g in range(games):
                other = Seed002Bot(bot=opponent, seed=seed * 7919 + g * 2 + seat)
                bots = (perfect, other) if seat == 0 else (other, perfect)
                game = play_next_move(bots, start, time_arg="used", clock=SEED002_CLOCK, cap=SEED002_CAP)
                won = game.winner == seat
                wins[kind][0] += won
                wins[kind][1] += 1
                clock.append(game.used[seat])
                if game.reason is not Termination.NAMED_ONE:
                    loser = opponent if won else "perfect"
                    bad.append(f"{loser} lost by {game.reason.phrase} from {set(start) or '{}'} ({game.history[-1:]})")
    return {"wins": wins, "clock": clock, "bad": bad, "seconds": time.monotonic() - started}


def match(opponent: str, games: int, seed: int, think: float, koth: bool) -> tuple[int, int, Counter, float]:
    """``perfect`` vs ``opponent``; returns (perfect's wins, games, loss reasons by bot, seconds)."""
    rng = random.Random(seed)
    wins = 0
    reasons: Counter = Counter()
    started = time.monotonic()
    start = Position()
    for g in range(games):
        if koth and g % 2 == 0:
            start = koth_start(rng)
        seat = g % 2  # perfect's seat; the same start is played with both seatings
        bots = [None, None]
        bots[seat] = make_bot("perfect", random.Random(seed * 1_000_003 + g), think=think)
        bots[1 - seat] = make_bot(opponent, random.Random(seed * 1_000_033 + g))
        pair = (bots[0], bots[1])
        if koth:
            result = play_game(pair, start, per_move=20.0)
        else:
            result = play_game(pair, start, clock=30.0, max_move=10**6)
        finish(pair, result)
        won = result.winner == seat
        wins += won
        loser = opponent if won else "perfect"
        reasons[(loser, result.reason)] += 1
        if result.reason is not Termination.NAMED_ONE:
            print(f"   game {g}: {loser} lost by {result.reason.phrase} {result.detail}", flush=True)
    return wins, games, reasons, time.monotonic() - started


def elo(score: float) -> float:
    """The Elo difference that makes ``score`` (0..1) the expected score: 400 log10(s / (1 - s))."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return 400.0 * math.log10(score / (1.0 - score))


def odds_config(calls: tuple[float, float], pairs: int, seed: int) -> object:
    """The time-odds match as an arena match (:mod:`sylver.arena.tournament`): ``perfect`` named
    "short" with ``calls[0]`` s a call against ``perfect`` named "long" with ``calls[1]``, each the
    per-call limit the referee tells and enforces (CPU time of the bot's own process) and the bot's
    ``think``, so only its own clock shares bound it (15 % of the call, 25 % where the position can
    be solved); ``pairs`` King-of-the-Hill starts, each twice with the seats swapped.  Each side is a
    process of its own, with its own tables, frozen while the other thinks."""
    from sylver.arena.openings import load_suite
    from sylver.arena.rules import preset
    from sylver.arena.specs import parse_spec
    from sylver.arena.tournament import Config

    perfect = parse_spec("perfect")
    specs = [dataclasses.replace(perfect, name=side, move_time=t, options=(("think", t),))
             for side, t in zip(("short", "long"), calls, strict=True)]
    return Config(specs, preset("koth"), rounds=1, seed=seed, pairs=[(0, 1)], openings=load_suite(f"koth:{pairs}", seed))


def odds_game(record: object) -> dict:
    """An arena game record as the time-odds report reads it: the sides in seat order, the winner,
    the moves and each side's CPU seconds per call."""
    from sylver.arena.games import PlayedGame

    assert isinstance(record, PlayedGame)
    sides = record.players
    return {"sides": sides, "winner": record.winner, "reason": record.reason, "detail": record.detail,
            "moves": record.moves,
            "spent": {side: record.times[seat::2] for seat, side in enumerate(sides)}}


def divergence(start: Position, games: list[dict]) -> tuple[Position, int, int] | None:
    """Where the two games of a start first differ: (position, short's move, long's move) — the same
    position with the other side to move in each game — or None when one game is a prefix of the other."""
    a, b = games[0]["moves"], games[1]["moves"]  # a: short moved first; b: long moved first
    for k in range(min(len(a), len(b))):
        if a[k] != b[k]:
            p = start
            for n in a[:k]:
                p = p.play(int(n))  # type: ignore[call-overload]
            short, long = (a[k], b[k]) if k % 2 == 0 else (b[k], a[k])
            return p, int(short), int(long)  # type: ignore[call-overload]
    return None


def judge_moves(analyst: object, start: Position, game: dict) -> dict[str, list]:
    """Each side's judged moves in ``game`` (the blunder analysis: decidable once the small numbers
    named have eliminated the start's big ones, t <= --max-t): side -> [(ply, position, move,
    class, best)], undecided moves left out."""
    from sylver.arena.analysis import Analyst, MoveClass

    assert isinstance(analyst, Analyst)
    out: dict[str, list] = {"short": [], "long": []}
    p = start
    for ply, move in enumerate(game["moves"]):
        if type(move) is not int or not p.is_legal(move):
            break
        verdict, best, _ = analyst.judge(p, move)
        if verdict is not MoveClass.UNDECIDED:
            out[game["sides"][ply % 2]].append((ply, p, move, verdict, best))
        if move == 1:
            break
        p = p.play(move)
    return out


def odds_report(i: int, start: Position, games: list[dict], analyst: object, tally: dict) -> None:
    """One start's two games: who won, where the two sides first named different numbers in the
    same position, and each side's first blunder (added to ``tally``: side -> [blunders, N-moves])."""
    from sylver.arena.analysis import Analyst, MoveClass

    assert isinstance(analyst, Analyst)
    outcome = "; ".join(f"{g['sides'][0]} first: {g['winner']} won in {len(g['moves'])} plies" for g in games)
    split = divergence(start, games)
    if split is None:
        where = "same moves"
    else:
        p, short, long = split
        verdicts = [analyst.judge(p, m)[0].value for m in (short, long)]
        where = f"first difference in {_brief(p)}: short {short} ({verdicts[0]}), long {long} ({verdicts[1]})"
    print(f"   start {i} {start.braces()}: {outcome}; {where}", flush=True)
    for g in games:
        for side, notes in judge_moves(analyst, start, g).items():
            n_moves = [x for x in notes if x[3] in (MoveClass.WINNING, MoveClass.BLUNDER)]
            blunders = [x for x in n_moves if x[3] is MoveClass.BLUNDER]
            tally[side][0] += len(blunders)
            tally[side][1] += len(n_moves)
            if blunders:
                ply, p, move, _, best = blunders[0]
                print(f"      {g['sides'][0]} first, {side}'s first blunder (ply {ply}): {move} in {_brief(p)}, "
                      f"{best} wins")


class OddsTally:
    """The time-odds match as its games finish (the arena runner's events): each start's report once
    both its games are in, and a running tally line (flushed), so that a stopped run still tells its
    figure."""

    def __init__(self, starts: tuple[tuple[int, ...], ...], max_t: int) -> None:
        from sylver.arena.analysis import Analyst

        self.starts = starts
        self.analyst = Analyst(Settings(max_t=max_t))
        self.games: dict[int, dict] = {}
        self.long_wins = self.n = self.bad = 0
        self.spent: dict[str, list[float]] = {"short": [], "long": []}
        self.calls: dict[str, list[float]] = {"short": [], "long": []}
        self.blunders = {"short": [0, 0], "long": [0, 0]}

    def add(self, game_id: int, record: object) -> None:
        """Game ``game_id`` (1-based: games 2i+1 and 2i+2 are start i, short first, then long first)."""
        g = odds_game(record)
        self.games[game_id] = g
        self.n += 1
        self.long_wins += g["winner"] == "long"
        for side in self.spent:
            self.spent[side].append(sum(g["spent"][side]))
            self.calls[side].extend(g["spent"][side])
        i = (game_id - 1) // 2
        if g["reason"] is not Termination.NAMED_ONE:
            self.bad += 1
            print(f"   start {i}: {'short' if g['winner'] == 'long' else 'long'} lost by {g['reason'].phrase}: "
                  f"{g['detail']}", flush=True)
        first, second = self.games.get(2 * i + 1), self.games.get(2 * i + 2)
        if first is not None and second is not None:
            odds_report(i, Position(self.starts[i]), [first, second], self.analyst, self.blunders)
            print(f"   after {self.n} games: {self.score()}", flush=True)

    def score(self) -> str:
        """The long side's wins and the Elo difference long - short with its 95 % interval."""
        lo, hi = wilson(self.long_wins, self.n)
        return (f"long's wins {rate(self.long_wins, self.n)}; Elo difference long - short "
                f"{elo(self.long_wins / max(self.n, 1)):+.0f} [95 % CI {elo(lo):+.0f} .. {elo(hi):+.0f}]")


def time_odds_section(args: argparse.Namespace) -> bool:
    """Item 4 of issue 35: ``perfect`` at ``--short-call`` s a call against ``perfect`` at
    ``--long-call`` s a call from King-of-the-Hill starts, both seats, in the arena (each side its own
    process: :func:`odds_config`); the long side's score and the Elo difference (95 % Wilson interval
    on the score); where the two sides' moves differ, and each side's blunders where the blunder
    analysis decides the position (t <= --max-t)."""
    from sylver.arena.tournament import Events

    calls = (args.short_call, args.long_call)
    pairs = max(1, args.games // 2)
    config = odds_config(calls, pairs, args.seed + 3)
    root = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-strength-"))
    out = root / f"time-odds-{calls[0]:g}-{calls[1]:g}-{pairs}"
    print(f"time odds: perfect at {calls[0]:g} s a call ('short') vs perfect at {calls[1]:g} s a call ('long'), "
          f"{2 * pairs} games from {pairs} KotH starts (two random coprime 6-digit numbers), seats swapped; "
          f"each side in its own process (arena, per-call limits enforced on CPU time); analysis t <= "
          f"{args.max_t}; results in {out}", flush=True)
    tally = OddsTally(config.openings.starts, args.max_t)  # type: ignore[attr-defined]

    class Tell(Events):
        def finished(self, record: object, number: int, total: int) -> None:  # noqa: ARG002
            tally.add(record.game, record)  # type: ignore[attr-defined]

    started = time.monotonic()
    played = tournament(config, out, concurrency=args.jobs, events=Tell())
    for r in played.records:  # games of an earlier, interrupted run of the same directory
        if r.game not in tally.games:
            tally.add(r.game, r)
    print(f"   {tally.score()}")
    for side in ("short", "long"):
        print(f"   {side:5s} blunders / decided N-moves {rate(*tally.blunders[side])}")
    print(f"   CPU per game: short {statistics.mean(tally.spent['short']):.2f} s, long "
          f"{statistics.mean(tally.spent['long']):.2f} s; longest call: short {max(tally.calls['short']):.2f} s "
          f"of {calls[0]:g}, long {max(tally.calls['long']):.2f} s of {calls[1]:g}; voids {played.voids}  "
          f"({time.monotonic() - started:.0f} s)")
    return tally.bad == 0 and played.voids == 0


def _brief(p: Position) -> str:
    """A position's generators, the big ones abbreviated when there are many."""
    gens = p.generators
    if len(gens) <= 6:
        return p.braces()
    return "{" + ",".join(map(str, gens[:5])) + f",... ({len(gens)} numbers)" + "}"


def main() -> int:
    ap = argparse.ArgumentParser(description="Win rates of the built-in bots with 95 % intervals.")
    ap.add_argument("--games", type=int, default=100,
                    help="KotH games per pair (both seats), also of the time-odds match")
    ap.add_argument("--short-call", type=float, default=2.0, help="seconds a call of the time-odds match's short side")
    ap.add_argument("--long-call", type=float, default=20.0, help="seconds a call of the time-odds match's long side")
    ap.add_argument("--empty-games", type=int, default=200, help="perfect vs random games from {}")
    ap.add_argument("--nextmove-games", type=int, default=4,
                    help="games per start and seat in the nextmove section (10 starts, 2 seats, 3 opponents)")
    ap.add_argument("--think", type=float, default=0.3,
                    help="perfect's seconds per move (sections empty, koth, package: a position it can solve gets "
                         "25 %% of its clock whatever this)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--known", type=Path, default=KNOWN, help="the published results (known_results.json)")
    ap.add_argument("--suites", default="one-number", help="opening suites of section 'suites' (comma-separated)")
    ap.add_argument("--opponents", default="sage", help="perfect's opponents in section 'suites' (comma-separated)")
    ap.add_argument("--rules", default="classic", help="rules preset of sections 'suites' and 'package'")
    ap.add_argument("--cap", type=int, help=f"the rules' cap in sections 'suites' and 'package' (default: the preset's; "
                                            f"section 'package': {PACKAGE_CAP})")
    ap.add_argument("--package", help="the nextMove competition's folder (testingSylver-version-1.3.py and its bots): "
                                      "section 'package' (run when this is given and --only is not)")
    ap.add_argument("--package-bots", default="bestBot,strongCounterV2,strongCounterV3",
                    help="the package's bots perfect plays in section 'package'")
    ap.add_argument("--starts", type=int, default=0, help="only the first N starts of each suite (0: all)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="rounds of section 'suites' (each plays every start twice, the seats swapped)")
    ap.add_argument("--max-t", type=int, default=150, help="analysis bound on the Frobenius number")
    ap.add_argument("--analysis-seconds", type=float, default=10.0,
                    help="CPU seconds the analysis gives a position in section 'package' (undecided after that)")
    ap.add_argument("--analysis-store", help="section 'package': the results store the analysis reads and writes "
                                            "(default: analysis.sqlite in --out; one of an earlier run to reuse it), "
                                            "and beside it the positions it did not decide (NAME-undecided.jsonl)")
    ap.add_argument("--jobs", type=int, default=2, help="games (and analyses) at a time in sections 'suites' and 'time-odds'")
    ap.add_argument("--out", help="results directories of sections 'suites' and 'time-odds' go here (resumable; default: a temp dir)")
    all_sections = ("suites", "known", "adapters", "empty", "koth", "nextmove", "time-odds", "package")
    ap.add_argument(
        "--only", choices=(*all_sections, "all"), action="append",
        help="run only these sections (repeatable; default: suites; all: every section)",
    )
    args = ap.parse_args()
    sections = set(all_sections if "all" in (args.only or ()) else args.only or ("package" if args.package else "suites",))
    if "package" in sections and not args.package:
        if args.only and "package" in args.only:
            ap.error("--only package needs --package DIR (the nextMove competition's folder)")
        sections.discard("package")
    from sylver.bots.oracle import solver_ready

    print(f"CPU: {cpu_model()}, {load()}")
    solver_ready(wait=600)  # compile the solver before the clocks start
    failed = False
    bad_moves = 0
    if "suites" in sections:
        failed |= not suites_section(args)
    if "package" in sections:
        failed |= not package_section(args)
    if {"empty", "koth"} & sections:
        print(f"perfect thinks at most {args.think} s a move in sections empty and koth")

    if not {"known", "adapters"} & sections:
        pass
    elif args.known.exists():
        if "known" in sections:
            t0 = time.monotonic()
            ok, total, failures = known_positions(args.known, max(args.think, 2.0))
            print(f"known N-positions, perfect names a winning move: {rate(ok, total)}  "
                  f"({time.monotonic() - t0:.0f} s)")
            for f in failures:
                print("   MISSED", f)
            failed |= ok != total
        if "adapters" in sections:
            print(f"known N-positions and {len(SEARCHED_N)} that need a search, through the adapters "
                  "(first call of a game):")
            t0 = time.monotonic()
            for way, ok, total, failures in adapter_positions(args.known):
                print(f"   {way:48s} {rate(ok, total)}")
                for f in failures:
                    print("      MISSED", f)
                failed |= ok != total
            print(f"   ({time.monotonic() - t0:.0f} s)")
    else:
        print(f"{args.known} not found: known-position checks skipped (--known PATH)")

    if "empty" in sections:
        print("perfect vs random from the empty start (nextMove competition: 30 s clock, cap 10^6):")
        wins, n, reasons, secs = match("random", args.empty_games, args.seed, args.think, koth=False)
        print(f"   {rate(wins, n)}  ({secs:.0f} s)", flush=True)
        failed |= wins < 0.99 * n
        bad_moves += sum(c for (_, r), c in reasons.items() if r is not Termination.NAMED_ONE)

    if "koth" in sections:
        print("KotH starts (two random coprime 6-digit numbers, 20 s per call):")
    for opponent in sorted(b for b in BOTS if b != "perfect" and "koth" in sections):
        wins, n, reasons, secs = match(opponent, args.games, args.seed + 1, args.think, koth=True)
        print(f"   perfect vs {opponent:7s} {rate(wins, n)}  ({secs:.0f} s)", flush=True)
        failed |= wins < 0.9 * n
        bad_moves += sum(c for (_, r), c in reasons.items() if r is not Termination.NAMED_ONE)
    if "nextmove" in sections:
        print(f"perfect through Seed002Bot in the nextMove reference referee's loop (third argument: time used; "
              f"{SEED002_CLOCK:g} s a game, cap 10^6), {args.nextmove_games} games per start and seat;")
        print("   starts: " + " ".join("{" + ",".join(map(str, s)) + "}" for s in NEXTMOVE_STARTS)
              + "; 'won seat': perfect's seat wins against perfect play")
        for opponent in ("sage", "greedy", "random"):
            r = nextmove_match(opponent, args.nextmove_games, args.seed + 2)
            won, lost = r["wins"]["won"], r["wins"]["lost"]
            clock = r["clock"]
            print(f"   vs {opponent:7s} won seat {rate(*won)}", flush=True)
            print(f"   {'':10s} other seat {rate(*lost)}; all {rate(won[0] + lost[0], won[1] + lost[1])}")
            print(f"   {'':10s} clock used per game: median {statistics.median(clock):.2f} s, "
                  f"max {max(clock):.2f} s of {SEED002_CLOCK:g} s  ({r['seconds']:.0f} s)", flush=True)
            for b in r["bad"]:
                print("      ", b)
            failed |= won[0] < 0.99 * won[1]
            bad_moves += len(r["bad"])
    if "time-odds" in sections:
        failed |= not time_odds_section(args)
    print(f"illegal moves, time losses and other non-game losses: {bad_moves}")
    failed |= bad_moves > 0
    print("targets met" if not failed else "TARGETS MISSED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
