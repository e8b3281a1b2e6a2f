"""Strength of the built-in bots: win rates with 95 % intervals (issues 5 and 12).

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

Every game counts illegal moves and time losses (the targets are 0).  Sections 3-4 run in-process
with the small referee of :mod:`sylver.bots.selfplay`; ``perfect`` thinks at most ``--think``
seconds a move there (default 0.3 s); in section 5 it plays at full strength (2 s a move, 6 s where
the position can be solved, within its clock).  The default run takes some minutes on a busy 2-core
machine (``--games``, ``--empty-games``, ``--nextmove-games`` for more; the sections can run as
separate processes with ``--only``).

    .venv/bin/python bench/bench_strength.py [--games 100] [--empty-games 200] [--nextmove-games 4]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

from sylver.bots.lore import known_outcome

from sylver.bots import BOTS, make_bot
from sylver.bots.base import Turn
from sylver.bots.selfplay import finish, play_game
from sylver.compat import SEED002_CAP, SEED002_CLOCK, Seed000Bot, Seed002Bot, play_next_move
from sylver.position import Outcome, Position, Termination

KNOWN = Path(__file__).resolve().parents[2] / "shared" / "data" / "known_results.json"

NEXTMOVE_STARTS: tuple[tuple[int, ...], ...] = ((), (4,), (6,), (8,), (9,), (10,), (12,), (5,), (7,), (11,))
"""The empty start and one opening number each: composites (N for the player to move: the theory
names the winning reply) and primes >= 5 (P, Hutchings)."""


SEARCHED_N: tuple[tuple[int, ...], ...] = (
    (5, 52, 53, 96), (16, 20, 25), (17, 19, 21), (10, 15, 56, 59), (18, 22, 39), (14, 19, 45),
)
"""N-positions outside the opening book that the solver settles in under a second, each with one or
a few winning moves (47, 42, 132, 67, 19, 46): found only by searching."""


def machine() -> str:
    """The CPU model, the cores and the load (benchmark figures are only comparable on one machine)."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = ", load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"CPU: {model}, {os.cpu_count()} cores{load}"


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a win rate."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


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


def main() -> int:
    ap = argparse.ArgumentParser(description="Win rates of the built-in bots with 95 % intervals.")
    ap.add_argument("--games", type=int, default=100, help="KotH games per pair (both seats)")
    ap.add_argument("--empty-games", type=int, default=200, help="perfect vs random games from {}")
    ap.add_argument("--nextmove-games", type=int, default=4,
                    help="games per start and seat in the nextmove section (10 starts, 2 seats, 3 opponents)")
    ap.add_argument("--think", type=float, default=0.3, help="perfect's seconds per move (sections empty, koth)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--known", type=Path, default=KNOWN, help="the published results (known_results.json)")
    all_sections = ("known", "adapters", "empty", "koth", "nextmove")
    ap.add_argument(
        "--only", choices=all_sections, action="append",
        help="run only these sections (repeatable; default: all)",
    )
    args = ap.parse_args()
    sections = set(args.only or all_sections)
    from sylver.bots.oracle import solver_ready

    print(machine())
    solver_ready(wait=600)  # compile the solver before the clocks start
    print(f"perfect thinks at most {args.think} s a move (and at most 15 % of its remaining clock)")
    failed = False
    bad_moves = 0

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
    print(f"illegal moves, time losses and other non-game losses: {bad_moves}")
    failed |= bad_moves > 0
    print("targets met" if not failed else "TARGETS MISSED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
