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
  with at most ``--line-easy`` legal moves (60, solved in milliseconds) not followed;
* **answers** (the ``"answers"`` list: position, a winning move, genus): a winning answer to every
  reply to the P-positions of the lines' first ``--reply-plies`` (2) of our moves, and to every
  losing reply to each pair above with t <= ``--line-max-t``, read from the tables of the search
  that has just decided the position (deciding it proved each position after a losing reply N by
  a reply into a P-position it stored), else solved within ``--answer-seconds``.
  usingStrongCounterV3 names a random move in a position with 30-199 legal moves (issue 53: 138 in
  {11,38,172} leaves {11,38,138,172}, 9.4 M states cold, 21 s of CPU), and the pairs are where
  perfect's swindles go (it rates them by their complete winning sets: {23} -> 14, then the bots'
  271 leaves {14,23,271}, 3.1 M states cold, 7.1 s of CPU; {16,21} + 129 leaves {16,21,129});
* **pair lines**: the lines, ``--pair-plies`` (5) of our moves deep, from the positions the bots'
  passes (t, t less the multiplicity) leave after each of those pairs ({15,23,307}: 63 wins,
  2.9 M states cold; with two, perfect lost a game in {16,21,156,183,187}, its third move in
  {16,21}'s line), followed while the pair's tables are warm.

The pairs and the openings' replies get complete winning-move sets, each within ``--per-position``
seconds; the lines one winning move, each within ``--line-seconds``.  A position not finished in
its time is left out.

    .venv/bin/python scripts/make_opening_book.py --memory 1G     # one process; see below
    .venv/bin/python scripts/make_opening_book.py --memory 4G --per-position 300 --max-genus 190 \
        --extend FIRST                                            # the pairs the first left out

The time limits are wall-clock seconds: on a loaded machine a position may be left out, and
``--extend BOOK --per-position 300 --line-seconds 3000`` (BOOK: what the first run wrote) makes
only what BOOK lacks, with its answers and lines.

Run time (29 November 2026, Intel Xeon, 2 cores shared with two long searches: about half a core):
30 min, 896 s of CPU, at most 1.1 GB resident with ``--memory 1G``; the first families 483 s, the
lines 1,319 s (a line's positions after its pair take a few states, the solver's tables warm from
the pair; the pairs' CPU: {13,33} 224 s, {13,34} 216 s, {13,32} 100 s, {11,39} 27 s, {11,38} 22 s,
the others under 14 s).  1,302 positions, 120 KB.  With the answers and the pair lines (the same
machine, a quarter of a core): 54 min, 780 s of CPU, 1.08 GB resident at most (the answers
themselves 0.1 s of CPU or less a pair: read from the tables), 1,898 positions and 16,067 answers;
seven pairs ({14,23}, {15,22}, {15,23}, {16,21}, {17,19}, {17,20}, {17,24}) over 20 s of wall
clock and the lines of {13,32} and {13,33} over 600 s were left out; ``--extend FIRST
--per-position 300 --max-genus 154 --line-primes ""`` made six of the pairs and {18,19} (6 min), and
for want of time the shipped book then took the two lines and {17,24} from the earlier book (the
output of this script at commit 441e962): ``--extend SECOND --extend EARLIER --max-genus 154
--line-primes ""``; so those two lines have no answers.  The pairs of genus 155-320 that no run
finished in 20 s are not in it.

The shipped book (30 November 2026, AMD EPYC, a quiet core beside a frontier search; the pair lines
five deep): the first command above, 12 min, 702 s of CPU, 1.09 GB resident at most: every position
of the earlier book with the same outcome and first winning move, the lines of {13,32} and {13,33}
with their answers and {17,24} among them, 4,094 positions and 18,181 answers; 13 pairs over
20 s left out, six of which ({17,21}, {19,20}, {19,21}, {18,23}, {19,22}, {20,21}: 13-83 M states
each) the second command made (11 min; at ``--memory 1G`` the tables do not hold such a pair's
answers, which are then solved one by one: 922 s of CPU for {18,23}'s, 2.3 s at 4G).  4,330
positions and 19,123 answers (828 KB).  Not in it: the pairs of genus 198-253 ({19,23}, {19,24},
{20,23}, {21,22}, {21,23}, {22,23}, {23,24}).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

from sylver.position import Outcome, Position
from sylver.solver import SolveTimeout, solve, stored_winning_move

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


def answers(q: Position, winning: set[int], easy: int, seconds: float, memory: str) -> tuple[list[list], list[Position]]:
    """A winning answer to every losing reply r to ``q`` (every reply when ``q`` is P; a reply not in
    ``winning``, the complete winning set, when it is N) with more than ``easy`` legal moves after
    it, as ``[generators, answer, genus]``: read from the tables of the search that just decided
    ``q`` (:func:`sylver.solver.stored_winning_move`: deciding ``q`` proved each such position N by
    a reply into a stored P-position), else solved with ``first`` within ``seconds``; and the
    positions left out."""
    out: list[list] = []
    left: list[Position] = []
    for r in q.legal_moves():
        if r < 2 or r in winning:
            continue
        child = q.play(r)
        if child.genus <= easy or child.is_over:
            continue
        move = stored_winning_move(child)
        if move is None:
            try:
                sol = solve(child, first=True, time_limit=seconds, memory=memory)
            except SolveTimeout:
                left.append(child)
                continue
            if sol.outcome is not Outcome.N:
                raise AssertionError(f"{child}: {sol.outcome} after a losing reply {r} to {q}")
            move = sol.winning_moves[0]
        out.append([list(child.generators), move, child.genus])
    return out, left


def lines(starts: list[Position], known: dict[tuple[int, ...], dict], plies: int, easy: int,
          seconds: float, memory: str, replies: list[list] | None = None,
          reply_plies: int = 0, answer_seconds: float = 60.0) -> tuple[list[dict], list[Position]]:
    """The line positions of ``starts`` (see the module docstring) as book records, each N-position
    solved with ``first`` (or taken from ``known``, the records made so far), and those left out;
    with ``replies`` (a list), the :func:`answers` to every reply to the P-positions of the first
    ``reply_plies`` of our moves are appended to it."""
    records: list[dict] = []
    skipped: list[Position] = []
    answered: set[tuple[int, ...]] = set()
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
                    if sol.outcome is None:  # g > 1, not proven
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
                if replies is not None and ply < reply_plies and after.generators not in answered:
                    answered.add(after.generators)
                    found, left = answers(after, set(), easy, answer_seconds, memory)
                    replies += found
                    skipped += left
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
    ap.add_argument("--reply-plies", type=int, default=2,
                    help="our moves of each line after 11 and 13 whose P-position gets an answer to every reply")
    ap.add_argument("--pair-plies", type=int, default=5, help="our moves kept in each line after a pair's passes")
    ap.add_argument("--answer-seconds", type=float, default=60.0,
                    help="seconds for an answer the tables do not hold")
    ap.add_argument("--memory", default="1G", help="the solver's table (as sylver solve --memory)")
    ap.add_argument("--extend", type=Path, action="append", default=[],
                    help="a book this script wrote: its entries are kept, and only the positions it lacks "
                         "(left out for time) are made, with their answers and lines (repeatable: the "
                         "first book's entry of a position is kept)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    records: list[dict] = []
    replies: list[list] = []
    kept: set[tuple[int, ...]] = set()
    for path in args.extend:
        data = json.loads(path.read_text())
        records += [r for r in data["positions"] if tuple(r["position"]) not in kept]
        kept |= {tuple(r["position"]) for r in data["positions"]}
        replies += [a for a in data.get("answers", []) if tuple(a[0]) not in kept]
        kept |= {tuple(a[0]) for a in data.get("answers", [])}
    started = time.monotonic()
    skipped: list[Position] = []
    todo = wanted(args.max5, args.max7, args.max4, args.pairs)
    for i, p in enumerate(todo):
        if i % 25 == 0:
            print(f"{i}/{len(todo)} positions, {len(replies)} answers, {time.monotonic() - started:.0f} s", flush=True)
        if p.generators in kept:
            continue
        if p.genus > args.max_genus:
            skipped.append(p)
            continue
        try:
            sol = solve(p, time_limit=args.per_position, memory=args.memory)
        except SolveTimeout:
            skipped.append(p)
            continue
        if sol.outcome is None:  # g > 1, not proven
            skipped.append(p)
            continue
        records.append(record(p, sol.outcome.value, list(sol.winning_moves), bool(sol.complete)))
        if p.genus > args.line_easy and p.frobenius_number <= args.line_max_t:
            # a pair perfect's swindle may leave (its complete winning set rates it): the bots'
            # replies to it, read from this solve's tables while they are warm
            winning = set(sol.winning_moves)
            c0 = time.process_time()
            found, left = answers(p, winning, args.line_easy, args.answer_seconds, args.memory)
            replies += found
            skipped += left
            c1 = time.process_time()
            starts = [p.play(n) for n in passes(p) if n not in winning]
            more, left = lines(starts, {}, args.pair_plies, args.line_easy, args.line_seconds, args.memory)
            records += more
            skipped += left
            print(f"{p}: {sol.states:,} states, {len(found)} answers ({c1 - c0:.1f} s CPU), "
                  f"{len(more)} line positions ({time.process_time() - c1:.1f} s CPU)", flush=True)
    primes = tuple(int(x) for x in args.line_primes.split(",") if x.strip())
    print(f"lines after {primes}, {len(replies)} answers, {time.monotonic() - started:.0f} s", flush=True)
    known = {tuple(r["position"]): r for r in records}
    starts = [q for q in line_starts(primes, args.line_max_t)  # with --extend: the lines it lacks
              if q.generators not in known or not known[q.generators]["winning_moves"]
              or q.play(known[q.generators]["winning_moves"][0]).generators not in kept]
    more, left_out = lines(starts, known,
                           args.line_plies, args.line_easy, args.line_seconds, args.memory,
                           replies=replies, reply_plies=args.reply_plies, answer_seconds=args.answer_seconds)
    have = {tuple(r["position"]) for r in records}
    records += [r for r in more if tuple(r["position"]) not in have]
    skipped += left_out
    written, answered = write_book(records, replies, args.out)
    print(
        f"{written} positions and {answered} answers written to {args.out} in {time.monotonic() - started:.0f} s; "
        f"{len(skipped)} skipped (too large or over the time limit)"
    )


def write_book(records: list[dict], replies: list[list], out: Path) -> tuple[int, int]:
    """Write ``records`` and the :func:`answers` ``replies`` to ``out``, each position once (two lines
    may reach the same P-position: {11,19} -> 13 and {13,19} -> 11; a position with a record is not
    repeated among the answers); return how many of each."""
    seen: set[tuple[int, ...]] = set()
    unique = []
    for r in records:
        if tuple(r["position"]) not in seen:
            seen.add(tuple(r["position"]))
            unique.append(r)
    answered = []
    for a in replies:
        if tuple(a[0]) not in seen:
            seen.add(tuple(a[0]))
            answered.append(a)
    about = (
        "Opening book of the sylver bots, generated by scripts/make_opening_book.py with the exact "
        "solver (complete winning-move sets; one winning move in the lines after 11 and 13). "
        "\"answers\": [position, a winning move, genus] of N-positions after a losing reply."
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w") as fh:
        fh.write('{"about": ' + json.dumps(about) + ',\n"positions": [\n')
        fh.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in unique))
        fh.write('\n],\n"answers": [\n')
        fh.write(",\n".join(json.dumps(a, separators=(",", ":")) for a in answered))
        fh.write("\n]}\n")
    return len(unique), len(answered)


if __name__ == "__main__":
    main()
