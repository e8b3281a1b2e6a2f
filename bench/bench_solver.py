"""Benchmark of the exact solver (issue 3): prints states, seconds, states/s, bytes/state, peak RSS.

    .venv/bin/python bench/bench_solver.py            # everything (several minutes)
    .venv/bin/python bench/bench_solver.py --quick    # the two smallest targets only
    .venv/bin/python bench/bench_solver.py --repeat 5 # median of 5 runs per target

Each target runs in a fresh process (so its peak RSS is its own), after a JIT warm-up that is timed
separately; the table is cleared before every run; times are wall-clock medians, with the CPU time of
the same run beside them (the machine is shared: the load average is printed, and "x C++ cpu"
compares CPU seconds with the C++ solver's CPU seconds).  Reference figures are those of the published C++ solver
(rudi-cilibrasi/sylver-coinage ``native_solver``) from issue 3.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

TARGETS = [
    # position, published states, published CPU seconds, our target seconds
    ("16,20,28,35,54", 160_049, 0.40, 0.05),
    ("16,26,33,62,89,102", 1_721_485, 10.0, 0.5),
    ("16,20,28,86,105", 4_122_547, 33.0, 1.6),
    ("16,20,28,82,145", 6_835_860, 63.0, 3.0),
    ("16,20,28,74,273", 12_989_520, 144.0, 7.0),
]
ALL_MOVES = ["12,17", "15,19", "16,17"]


def _one(position: str, repeat: int, first: bool, jobs: int, prune: bool) -> dict:
    """Child process: warm up, then solve ``position`` ``repeat`` times with a cleared table."""
    import resource

    t0 = time.perf_counter()
    from sylver import Position
    from sylver.solver import solve
    from sylver.solver.engine import ENGINE

    t1 = time.perf_counter()
    solve(Position("5,14"))
    t2 = time.perf_counter()
    runs = []
    for _ in range(repeat):
        ENGINE.clear()
        c0 = time.process_time()
        sol = solve(Position(position), first=first, jobs=jobs, prune=prune)
        runs.append((sol.seconds, time.process_time() - c0, sol))
    runs.sort(key=lambda r: r[0])
    seconds, cpu, sol = runs[len(runs) // 2]
    entries = ENGINE.count
    return {
        "position": position,
        "outcome": sol.outcome.value,
        "winning_moves": list(sol.winning_moves),
        "states": sol.states,
        "seconds": seconds,
        "cpu": cpu,
        "all_seconds": [r[0] for r in runs],
        "cpu_min": min(r[1] for r in runs),
        "table_bytes": ENGINE.table_bytes,
        "entries": entries,
        "stats": sol.stats,
        "import_seconds": t1 - t0,
        "warmup_seconds": t2 - t1,
        "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def run_child(position: str, repeat: int = 1, first: bool = True, jobs: int = 1, prune: bool = True) -> dict:
    args = [sys.executable, __file__, "--one", position, "--repeat", str(repeat), "--jobs", str(jobs)]
    if not first:
        args.append("--all")
    if not prune:
        args.append("--no-prune")
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def load() -> str:
    a, b, c = os.getloadavg()
    return f"load average {a:.2f} {b:.2f} {c:.2f} on {os.cpu_count()} cores"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--all", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-prune", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, default=3, help="runs per target (median reported)")
    ap.add_argument("--quick", action="store_true", help="the two smallest targets only")
    ns = ap.parse_args()
    if ns.one:
        print(json.dumps(_one(ns.one, ns.repeat, not ns.all, ns.jobs, not ns.no_prune)))
        return

    print(f"# solver benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}, {load()}")
    targets = TARGETS[:2] if ns.quick else TARGETS
    print("\n## targets: outcome only (published P-positions), one process, after warm-up")
    header = f"{'position':<22} {'outcome':>7} {'states':>11} {'seconds':>8} {'cpu s':>7} {'states/s':>11} {'B/state':>8} {'peak RSS':>9} {'target':>7} {'C++ s':>6} {'x C++':>6} {'x C++ cpu':>9}"
    print(header)
    warm = []
    for pos, _c_states, c_secs, target in targets:
        r = run_child(pos, repeat=ns.repeat if c_secs < 60 else max(1, ns.repeat // 2))
        warm.append(r["warmup_seconds"])
        bps = r["table_bytes"] / max(r["entries"], 1)
        ok = "ok" if r["seconds"] <= target else "MISS"
        print(
            f"{'{' + pos + '}':<22} {r['outcome']:>7} {r['states']:>11,} {r['seconds']:>8.3f} {r['cpu']:>7.3f} "
            f"{r['states'] / r['seconds']:>11,.0f} {bps:>8.1f} {r['peak_rss'] / 2**20:>7.0f}MB "
            f"{target:>6.2f}{ok[0] if ok == 'ok' else '!'} {c_secs:>6.1f} {c_secs / r['seconds']:>6.1f} "
            f"{c_secs / r['cpu']:>9.1f}"
        )
        print(f"{'':<22} runs {', '.join(f'{s:.3f}' for s in r['all_seconds'])} s (least CPU {r['cpu_min']:.3f} s); "
              f"{r['table_bytes'] / 2**20:.1f} MB of tables for {r['entries']:,} states; {r['stats']}")
        if r["outcome"] != "P":
            print("  !! expected P")
    print(f"\nJIT warm-up (first solve in a fresh process, numba cache on disk): median "
          f"{statistics.median(warm):.2f} s; import of sylver.solver not included")

    print("\n## pruning: ender theorem on/off (outcome only, {16,26,33,62,89,102})")
    for prune in (True, False):
        r = run_child("16,26,33,62,89,102", repeat=1, prune=prune)
        print(f"  prune={prune!s:<5} states {r['states']:>10,}  seconds {r['seconds']:.3f}  {r['stats']}")

    print("\n## all winning moves (N-positions)")
    for pos in ALL_MOVES:
        r = run_child(pos, repeat=1, first=False)
        print(f"  {'{' + pos + '}':<10} {r['outcome']} {r['winning_moves']}  states {r['states']:,}  "
              f"{r['seconds']:.3f} s  peak RSS {r['peak_rss'] / 2**20:.0f} MB")

    print("\n## --jobs 2 (all winning moves of {16,17})")
    one = run_child("16,17", first=False, jobs=1)
    two = run_child("16,17", first=False, jobs=2)
    print(f"  jobs=1 {one['seconds']:.3f} s, jobs=2 {two['seconds']:.3f} s, speed-up "
          f"{one['seconds'] / two['seconds']:.2f}x (2 cores shared with other work: {load()})")

    print("\n## reachable positions from {12,17} (the paper: 158793, counting {12,17} itself)")
    from sylver import Position
    from sylver.solver import count_reachable

    t = time.perf_counter()
    n = count_reachable(Position("12,17"))
    print(f"  {n:,} positions in {time.perf_counter() - t:.2f} s: {'matches' if n == 158793 else 'DIFFERS'}")

    print("\n## shared/data/known_results.json, every entry")
    from pathlib import Path

    from sylver.solver import solve

    data = json.loads((Path(__file__).resolve().parents[2] / "shared" / "data" / "known_results.json").read_text())
    bad = 0
    t = time.perf_counter()
    for e in data["positions"]:
        sol = solve(Position(e["position"]))
        ok = sol.outcome.value == e["outcome"] and (
            list(sol.winning_moves) == e["winning_moves"] if e["complete"]
            else set(e["winning_moves"]) <= set(sol.winning_moves)
        )
        if not ok:
            bad += 1
            print(f"  MISMATCH {e['position']}: {sol.outcome} {sol.winning_moves} vs {e}")
    print(f"  {len(data['positions'])} entries, {bad} mismatches, {time.perf_counter() - t:.1f} s "
          "(includes {13,21}, t = 239, where t wins)")
    print(f"\n# done, {load()}")


if __name__ == "__main__":
    main()
