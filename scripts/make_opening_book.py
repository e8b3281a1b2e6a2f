"""Generate the opening book shipped with the bots: src/sylver/data/opening_book.json.

Every entry is computed here by the exact solver (:func:`sylver.solver.solve`, complete winning-move
sets); nothing is typed in by hand.  The positions are the ones games reach first:

* {5,m}: the replies to the opening 5 (Hutchings: {5} is P, so every reply m leaves the coprime
  pair {5,m}, an N-position whose winning move the bot must find at once) — and, in KotH games, the
  positions after the small numbers 5 and m have eliminated the two big start numbers;
* {7,m}, {4,m} (m odd): the same for the next opening primes and the reply to 4;
* every coprime pair {a,b} with 2 < a < b <= PAIR_LIMIT: the small two-number positions;
* **lines** after the openings 11 and 13 (``--line-primes``): the `nextMove` competition's bots
  answer a prime p with a random m < 100 (their rule), and {p,m} takes the solver far longer than a
  move ({11,38}: 172 wins, about 25 s of CPU).  For every {p,m} with t <= ``--line-max-t`` (400,
  the blunder analysis's bound: m <= 41 after 11, m <= 34 after 13), a winning move w (the solver's
  first, with ``first``: ``complete`` false), the P-position {p,m,w}, and then
  the same for the positions the bots' replies to it leave: t and t less the multiplicity (their
  rule in a position with 30 or more legal moves, by the parity of the legal moves: both are kept),
  ``--line-plies`` of our moves deep (5: the positions deeper in a line are smaller, not easy for
  a solver whose tables are cold; with two, perfect blundered in {11,38,172,177,222}, its third
  move, which it did not decide in 7.4 s of CPU; with four, under the competition's referee, in
  {11,38,72,167,172,195}, its fifth, which it decided in the arena in 4.1 s of CPU), a position
  with at most ``--line-easy`` legal moves (60, solved in milliseconds) not followed.

The pairs and the openings' replies get complete winning-move sets, each within ``--per-position``
seconds; the lines one winning move, each within ``--line-seconds``.  A position not finished in
its time is left out.

    .venv/bin/python scripts/make_opening_book.py --memory 1G     # one process; see below

Run time (29 November 2026, Intel Xeon, 2 cores shared with two long searches: about half a core):
30 min, 896 s of CPU, at most 1.1 GB resident with ``--memory 1G``; the first families 483 s, the
lines 1,319 s (a line's positions after its pair take a few states, the solver's tables warm from
the pair; the pairs' CPU: {13,33} 224 s, {13,34} 216 s, {13,32} 100 s, {11,39} 27 s, {11,38} 22 s,
the others under 14 s).  1,302 positions, 120 KB.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from sylver.position import Position
from sylver.solver import SolveTimeout, solve

OUT = Path(__file__).resolve().parents[1] / "src" / "sylver" / "data" / "opening_book.json"


def wanted(max5: int, max7: int, max4: int, pair_limit: int) -> list[Position]:
    seen: dict[Position, None] = {}
    for m in range(6, max5 + 1):
        if m % 5:
            seen[Position((5, m))] = None
    for m in range(8, max7 + 1):
        if m % 7:
            seen[Position((7, m))] = None
    for m in range(5, max4 + 1, 2):
        seen[Position((4, m))] = None
    for a in range(3, pair_limit + 1):
        for b in range(a + 1, pair_limit + 1):
            if math.gcd(a, b) == 1:
                seen[Position((a, b))] = None
    return sorted(seen, key=lambda p: (p.genus, p.generators))


def line_starts(primes: tuple[int, ...], max_t: int) -> list[Position]:
    """The pairs {p,m} (p in ``primes``, p < m < 100, coprime) with Frobenius number at most ``max_t``:
    the replies the `nextMove` competition's bots name to the opening p."""
    return [
        Position((p, m)) for p in primes for m in range(p + 1, 100)
        if math.gcd(p, m) == 1 and p * m - p - m <= max_t
    ]


def passes(p: Position) -> list[int]:
    """The replies of the `nextMove` competition's bots in a position with 30 or more legal moves:
    t, or t less the multiplicity (a gap, as t is), by the parity of the number of legal moves."""
    t = p.frobenius_number
    return [n for n in (t, t - p.generators[0]) if n > 1]


def record(p: Position, outcome: str, winning: list[int], complete: bool) -> dict:
    return {"position": list(p.generators), "outcome": outcome, "winning_moves": winning,
            "complete": complete, "genus": p.genus}


def lines(starts: list[Position], known: dict[tuple[int, ...], dict], plies: int, easy: int,
          seconds: float, memory: str) -> tuple[list[dict], list[Position]]:
    """The line positions of ``starts`` (see the module docstring) as book records, each N-position
    solved with ``first`` (or taken from ``known``, the records made so far), and those left out."""
    records: list[dict] = []
    skipped: list[Position] = []
    started = time.monotonic()
    for start in starts:  # one line after another: the solver's tables are warm from its start
        frontier = [start]
        for ply in range(plies):
            following: list[Position] = []
            for q in frontier:
                if q.genus <= easy or any(r["position"] == list(q.generators) for r in records):
                    continue
                rec = known.get(q.generators)
                if rec is None:
                    c0 = time.process_time()
                    try:
                        sol = solve(q, first=True, time_limit=seconds, memory=memory)
                    except SolveTimeout:
                        skipped.append(q)
                        continue
                    rec = record(q, sol.outcome.value, list(sol.winning_moves), bool(sol.complete))
                    print(f"  {q}: {rec['outcome']} {rec['winning_moves']}, {sol.states:,} states, "
                          f"{time.process_time() - c0:.1f} s CPU ({time.monotonic() - started:.0f} s)", flush=True)
                    records.append(rec)
                if rec["outcome"] != "N" or ply + 1 == plies:
                    continue
                after = q.play(rec["winning_moves"][0])  # P: every reply loses
                records.append(record(after, "P", [], True))
                following += [after.play(n) for n in passes(after)]
            frontier = following
    return records, skipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max5", type=int, default=160)
    ap.add_argument("--max7", type=int, default=60)
    ap.add_argument("--max4", type=int, default=161)
    ap.add_argument("--pairs", type=int, default=24, help="all coprime pairs up to this")
    ap.add_argument("--max-genus", type=int, default=320)
    ap.add_argument("--per-position", type=float, default=20.0, help="seconds per position")
    ap.add_argument("--line-primes", default="11,13", help="openings whose lines are kept (comma-separated)")
    ap.add_argument("--line-max-t", type=int, default=400, help="largest t of a line's pair {p,m}")
    ap.add_argument("--line-plies", type=int, default=5, help="our moves kept in each line")
    ap.add_argument("--line-easy", type=int, default=60, help="lines' positions this small are not kept")
    ap.add_argument("--line-seconds", type=float, default=600.0, help="seconds per line position")
    ap.add_argument("--memory", default="1G", help="the solver's table (as sylver solve --memory)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    records = []
    started = time.monotonic()
    skipped = []
    todo = wanted(args.max5, args.max7, args.max4, args.pairs)
    for i, p in enumerate(todo):
        if i % 25 == 0:
            print(f"{i}/{len(todo)} positions, {time.monotonic() - started:.0f} s", flush=True)
        if p.genus > args.max_genus:
            skipped.append(p)
            continue
        try:
            sol = solve(p, time_limit=args.per_position, memory=args.memory)
        except SolveTimeout:
            skipped.append(p)
            continue
        records.append(record(p, sol.outcome.value, list(sol.winning_moves), bool(sol.complete)))
    primes = tuple(int(x) for x in args.line_primes.split(",") if x.strip())
    print(f"lines after {primes}, {time.monotonic() - started:.0f} s", flush=True)
    more, left_out = lines(line_starts(primes, args.line_max_t), {tuple(r["position"]): r for r in records},
                           args.line_plies, args.line_easy, args.line_seconds, args.memory)
    have = {tuple(r["position"]) for r in records}
    records += [r for r in more if tuple(r["position"]) not in have]
    skipped += left_out
    written = write_book(records, args.out)
    print(
        f"{written} positions written to {args.out} in {time.monotonic() - started:.0f} s; "
        f"{len(skipped)} skipped (too large or over the time limit)"
    )


def write_book(records: list[dict], out: Path) -> int:
    """Write ``records`` to ``out``, each position once (two lines may reach the same P-position:
    {11,19} -> 13 and {13,19} -> 11); return how many."""
    seen: set[tuple[int, ...]] = set()
    unique = []
    for r in records:
        if tuple(r["position"]) not in seen:
            seen.add(tuple(r["position"]))
            unique.append(r)
    about = (
        "Opening book of the sylver bots, generated by scripts/make_opening_book.py with the exact "
        "solver (complete winning-move sets; one winning move in the lines after 11 and 13)."
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        fh.write('{"about": ' + json.dumps(about) + ',\n"positions": [\n')
        fh.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in unique))
        fh.write("\n]}\n")
    return len(unique)


if __name__ == "__main__":
    main()
