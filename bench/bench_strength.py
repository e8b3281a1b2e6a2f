"""Strength of the built-in bots: win rates with 95 % intervals (issue 5 targets).

1. From every N-position of shared/data/known_results.json, ``perfect`` names a winning move
   (checked against the published complete move set, or by solving the resulting position).
2. ``perfect`` vs ``random`` from the empty start under seed 002's rules (30 s chess clock per bot,
   moves capped at 10^6), both seats.
3. KotH starts (two random coprime 6-digit numbers, shared/seeds/000; 20 s per call), ``perfect``
   against every other built-in bot, both seats: each start is played twice with the seats swapped.

Every game counts illegal moves and time losses (the targets are 0).  The games run in-process with
the small referee of :mod:`sylver.bots.selfplay`; ``perfect`` thinks at most ``--think`` seconds a
move (default 0.3 s: the whole bench then takes about 6 minutes on a busy 2-core machine; the
sections can run as separate processes with ``--only``).

    .venv/bin/python bench/bench_strength.py [--games 100] [--empty-games 200] [--think 0.3]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path

from sylver.bots import BOTS, make_bot
from sylver.bots.base import Turn
from sylver.bots.selfplay import Played, finish, play_game
from sylver.position import Outcome, Position

KNOWN = Path(__file__).resolve().parents[2] / "shared" / "data" / "known_results.json"


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
    """Two random coprime 6-digit numbers, as the seed-000 driver draws them."""
    while True:
        a, b = rng.randint(100_000, 999_999), rng.randint(100_000, 999_999)
        if math.gcd(a, b) == 1:
            return Position((a, b))


def known_positions(think: float) -> tuple[int, int, list[str]]:
    from sylver.solver import solve

    records = json.loads(KNOWN.read_text())["positions"]
    bot = make_bot("perfect", random.Random(0), think=think)
    ok = total = 0
    failures = []
    for rec in records:
        if rec["outcome"] != "N":
            continue
        p = Position(rec["position"])
        total += 1
        move = bot.choose(Turn(p, tuple(p.generators), time_left=20.0))
        if move in rec["winning_moves"] or (
            p.is_legal(move) and move > 1 and solve(p.play(move), first=True).outcome is Outcome.P
        ):
            ok += 1
        else:
            failures.append(f"{p.braces()}: named {move}, winning {rec['winning_moves']}")
    return ok, total, failures


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
            result: Played = play_game(pair, start, per_move=20.0)
        else:
            result = play_game(pair, start, clock=30.0, max_move=10**6)
        finish(pair, start, result)
        won = result.winner == seat
        wins += won
        loser = opponent if won else "perfect"
        reasons[(loser, result.reason)] += 1
        if result.reason not in ("named 1",):
            print(f"   game {g}: {loser} lost by {result.reason} {result.detail}", flush=True)
    return wins, games, reasons, time.monotonic() - started


def main() -> int:
    ap = argparse.ArgumentParser(description="Win rates of the built-in bots with 95 % intervals.")
    ap.add_argument("--games", type=int, default=100, help="KotH games per pair (both seats)")
    ap.add_argument("--empty-games", type=int, default=200, help="perfect vs random games from {}")
    ap.add_argument("--think", type=float, default=0.3, help="perfect's seconds per move")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--only", choices=("known", "empty", "koth"), action="append",
        help="run only these sections (repeatable; default: all)",
    )
    args = ap.parse_args()
    sections = set(args.only or ("known", "empty", "koth"))
    from sylver.bots.oracle import solver_ready

    solver_ready(wait=600)  # compile the solver before the clocks start
    print(f"perfect thinks at most {args.think} s a move (and at most 15 % of its remaining clock)")
    failed = False
    bad_moves = 0

    if "known" not in sections:
        pass
    elif KNOWN.exists():
        t0 = time.monotonic()
        ok, total, failures = known_positions(max(args.think, 2.0))
        print(f"known N-positions, perfect names a winning move: {rate(ok, total)}  ({time.monotonic() - t0:.0f} s)")
        for f in failures:
            print("   MISSED", f)
        failed |= ok != total
    else:
        print(f"{KNOWN} not found: known-position check skipped")

    if "empty" in sections:
        print("perfect vs random from the empty start (seed 002 rules: 30 s clock, cap 10^6):")
        wins, n, reasons, secs = match("random", args.empty_games, args.seed, args.think, koth=False)
        print(f"   {rate(wins, n)}  ({secs:.0f} s)", flush=True)
        failed |= wins < 0.99 * n
        bad_moves += sum(c for (_, r), c in reasons.items() if r not in ("named 1",))

    if "koth" in sections:
        print("KotH starts (two random coprime 6-digit numbers, 20 s per call):")
    for opponent in sorted(b for b in BOTS if b != "perfect" and "koth" in sections):
        wins, n, reasons, secs = match(opponent, args.games, args.seed + 1, args.think, koth=True)
        print(f"   perfect vs {opponent:7s} {rate(wins, n)}  ({secs:.0f} s)", flush=True)
        failed |= wins < 0.9 * n
        bad_moves += sum(c for (_, r), c in reasons.items() if r not in ("named 1",))
    print(f"illegal moves, time losses and other non-game losses: {bad_moves}")
    failed |= bad_moves > 0
    print("targets met" if not failed else "TARGETS MISSED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
