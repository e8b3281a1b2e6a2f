"""Benchmark of the exact solver: prints states, seconds, states/s, bytes/state, peak RSS, with the
CPU model and the load average.

    .venv/bin/python bench/bench_solver.py              # everything but the scale section (minutes)
    .venv/bin/python bench/bench_solver.py --quick      # the two smallest targets only
    .venv/bin/python bench/bench_solver.py --repeat 5   # median of 5 runs per target
    .venv/bin/python bench/bench_solver.py --base main~1 --quick   # A/B against another commit
    .venv/bin/python bench/bench_solver.py --base bb88c51 --positions 16,20,28,35,54 16,26,33,62,89,102
    .venv/bin/python bench/bench_solver.py --scale      # the large positions only (an hour or more)
    .venv/bin/python bench/bench_solver.py --jobs 2 --scaling --positions 16,20,28,74,273   # --jobs 1 vs 2
    .venv/bin/python bench/bench_solver.py --jobs 2 --base main --positions 16,20,28,74,273  # --jobs 2 A/B
    .venv/bin/python bench/bench_solver.py --jobs 2 --base-jobs 1 --base bb88c51   # both cores here, one there

Each target runs in a fresh process (so its peak RSS is its own), after a JIT warm-up that is timed
separately; the table is cleared before every run; times are wall-clock medians, with the CPU time of
the same run beside them.  ``--base REF`` checks REF out in a temporary git worktree and runs every
target there too, alternating with this tree, so that both figures come from the same machine at
the same time (the only comparison worth printing: figures published elsewhere ran elsewhere); the
worktree is the one ``bench_startup.py`` keeps per commit (~/.cache/sylver-bench/<commit>), so a
second A/B against the same commit reuses its compiled kernels (compiling them takes minutes).
Before timing, the base worktree gets the endgame table (a copy of this tree's when the base reads
the same format, else built there), then ``sylver warmup`` runs there (its kernels ahead of time, as
an installed tree has them); the output says what each did.
The published state counts of rudi-cilibrasi/sylver-coinage are printed for the search sizes only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory

TARGETS = [
    # position, the peer's published states (its Kunz engine), our target seconds
    ("16,20,28,35,54", 160_049, 0.05),
    ("16,26,33,62,89,102", 1_721_485, 0.5),
    ("16,20,28,86,105", 4_122_547, 1.6),
    ("16,20,28,82,145", 6_835_860, 3.0),
    ("16,20,28,74,273", 12_989_520, 7.0),
    ("16,26,62,95,98,102", 44_985_582, 90.0),
]
ALL_MOVES = ["12,17", "15,19", "16,17"]
SCALE = [
    # position, published outcome: rudi-cilibrasi/sylver-coinage (D: 633,734,956 states)
    ("16,26,82,88,701", "P"),
    ("16,26,82,88,667,701", "N"),
    ("16,26,82,88,695,697", "P"),
]


def _one(position: str, repeat: int, first: bool, jobs: int, prune: bool, memory: str = "1G",
         check: bool | None = False) -> dict:
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
    last = [time.monotonic()]

    def progress(p) -> None:  # long runs: a line on stderr a minute
        if time.monotonic() - last[0] >= 60:
            last[0] = time.monotonic()
            print(f"  .. {position}: {p.states:,} states, {p.seconds:.0f} s, {p.root_moves_decided}/"
                  f"{p.root_moves} root moves, tables {ENGINE.table_bytes / 2**30:.2f} GiB", file=sys.stderr, flush=True)

    busiest = []
    for _ in range(repeat):
        ENGINE.clear()
        sampler = _ThreadCPU() if jobs > 1 and not os.environ.get("SYLVER_BENCH_BASE") else None
        c0 = time.process_time()
        extra = {"self_check": True} if check else {}  # a --base tree may predate the self-check
        sol = solve(Position(position), first=first, jobs=jobs, prune=prune, memory=memory,
                    progress=progress, **extra)
        runs.append((sol.seconds, time.process_time() - c0, sol))
        if sampler is not None:
            busiest.append(sampler.stop())
    runs.sort(key=lambda r: r[0])
    seconds, cpu, sol = runs[len(runs) // 2]
    from sylver.solver import kernels

    aot = getattr(kernels.search, "ahead_of_time", None) is not None  # a --base tree may predate it
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
        "wall_min": runs[0][0],
        "busiest_thread_cpu": min(busiest) if busiest else None,
        "table_bytes": ENGINE.table_bytes,
        "entries": entries,
        "stats": sol.stats,
        "saturated": getattr(sol, "saturated", None),
        "self_check": None if getattr(sol, "self_check", None) is None else sol.self_check.to_dict(),
        "peak_bytes": sol.peak_bytes,
        "import_seconds": t1 - t0,
        "warmup_seconds": t2 - t1,
        "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "kernels": "ahead of time" if aot else "numba JIT",
    }


class _ThreadCPU:
    """The CPU seconds of each searching thread of ``--jobs`` (``time.thread_time`` when its work
    ends; wraps ``parallel._ThreadedSolve.work``): ``stop`` returns the most one of them used.  On
    free cores a solve takes about that long; on a shared machine whose scheduler gives this session
    a fixed share (autogroups), its threads run in turn, and the wall time shows no gain."""

    def __init__(self) -> None:
        from sylver.solver import parallel

        self.cls = parallel._ThreadedSolve
        self.work = self.cls.work
        self.cpu: list[float] = []
        real, cpu = self.work, self.cpu

        def work(solve: object, i: int) -> None:
            try:
                real(solve, i)
            finally:
                cpu.append(time.thread_time())

        self.cls.work = work

    def stop(self) -> float:
        self.cls.work = self.work
        return max(self.cpu, default=0.0)


BASE_SRC: str | None = None
"""The ``src`` directory of the ``--base`` worktree."""


def run_child(position: str, repeat: int = 1, first: bool = True, jobs: int = 1, prune: bool = True,
              memory: str = "1G", check: bool = False, base: bool = False) -> dict:
    args = [sys.executable, __file__, "--one", position, "--repeat", str(repeat), "--jobs", str(jobs),
            "--memory", memory]
    if not first:
        args.append("--all")
    if not prune:
        args.append("--no-prune")
    if check:
        args.append("--check")
    env = dict(os.environ)
    if base:
        env["PYTHONPATH"] = BASE_SRC or ""
        env["SYLVER_BENCH_BASE"] = "1"  # a base tree may have no threads to time
    out = subprocess.run(args, stdout=subprocess.PIPE, text=True, check=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def scale(memory: str, only: list[str] | None = None, jobs: int = 1) -> None:
    """The large positions: outcome, states, seconds, peak memory, self-check (P: complete; N: the
    least winning move, whose position the self-check solves afresh).  Bytes per state three ways:
    the tables and filter ÷ the states they hold (``B/state``); everything counted, the process's
    peak RSS ÷ the states the tables hold at the end (``RSS/stored``; for an N answer those of its
    self-check, which starts afresh) and ÷ the states searched (``RSS/searched``: a search also
    stores children it refutes without searching them)."""
    print(f"\n## scale: one process each, --jobs {jobs}, --memory {memory}, --first, self-check of N answers on"
          f"{'' if jobs == 1 else ' (cpu s: all threads)'}")
    print(f"{'position':<24} {'outcome':>7} {'published':>9} {'states':>13} {'seconds':>9} {'cpu s':>9} "
          f"{'peak RSS':>9} {'B/state':>8} {'RSS/stored':>10} {'RSS/searched':>12} {'saturated':>9}  self-check")
    for pos, published in SCALE:
        if only and pos not in only:
            continue
        r = run_child(pos, first=True, jobs=jobs, memory=memory, check=True)
        c = r["self_check"]
        check = "-" if c is None else f"passed: {c['moves']} P afresh ({c['states']:,} states, {c['seconds']:.0f} s)"
        print(f"{'{' + pos + '}':<24} {r['outcome']:>7} {published:>9} {r['states']:>13,} {r['seconds']:>9.1f} "
              f"{r['cpu']:>9.1f} {r['peak_rss'] / 2**30:>7.2f}GB {r['table_bytes'] / max(r['entries'], 1):>8.1f} "
              f"{r['peak_rss'] / max(r['entries'], 1):>10.1f} {r['peak_rss'] / r['states']:>12.1f} "
              f"{r['saturated']!s:>9}  {check}", flush=True)
        if r["outcome"] != published:
            print(f"  !! differs from the published {published}")


def ab(ref: str, targets: list, repeat: int, jobs: int = 1, base_jobs: int | None = None) -> None:
    """Each target at ``ref`` (the worktree of ``bench_startup.base_worktree``, kept for the next
    A/B against the same commit) and in this tree, alternating, in one run.  With ``jobs`` > 1 the
    figure is the least wall-clock time (the CPU time of one job is the wrong measure); the base runs
    with ``base_jobs`` (default ``jobs``): ``--jobs 2 --base-jobs 1`` compares both cores here with
    the base's best (a base whose ``--jobs`` was slower than one job)."""
    from bench_startup import base_endgame, base_warmup, base_worktree

    global BASE_SRC
    tree, _sha = base_worktree(ref)
    BASE_SRC = str(tree / "src")
    commit = subprocess.run(["git", "-C", str(tree), "log", "-1", "--format=%h %s"],
                            capture_output=True, text=True).stdout.strip()
    print(f"\n## the base's endgame table: {base_endgame(tree)}", flush=True)
    print(f"## the base's kernels: {base_warmup(tree)}", flush=True)
    base_jobs = jobs if base_jobs is None else base_jobs
    what = ("least CPU seconds" if jobs == base_jobs == 1 else
            f"--jobs {jobs} (base: --jobs {base_jobs}), least wall-clock seconds")
    print(f"\n## A/B: this tree against {ref} ({commit[:70]}), {what} of {repeat} runs each, "
          "alternating (the base compiles its kernels first, once per commit)")
    key = "cpu_min" if jobs == base_jobs == 1 else "wall_min"
    for base in (True, False):  # first compilations outside the figures: a solve whose tables grow
        run_child("16,26,33,62,89,102", base=base)
    for pos, _states, _target in targets:
        cur, old = [], []
        for _ in range(repeat):
            old.append(run_child(pos, jobs=base_jobs, base=True))
            cur.append(run_child(pos, jobs=jobs))
        a = min(r.get(key, r["seconds"]) for r in old)
        b = min(r.get(key, r["seconds"]) for r in cur)
        same = all(r["outcome"] == old[0]["outcome"] and r["winning_moves"] == old[0]["winning_moves"]
                   for r in old + cur)
        print(f"  {'{' + pos + '}':<22} base {a:.3f} s ({old[0]['states']:,} states, {old[0]['kernels']})  "
              f"this {b:.3f} s ({cur[0]['states']:,} states, {cur[0]['kernels']})  ratio {a / b:.2f}x  "
              f"{'same outcome' if same else '!! OUTCOMES DIFFER'}  [{load()}]", flush=True)


def scaling(targets: list, repeat: int, jobs: int) -> None:
    """Each target with ``--jobs 1`` and ``--jobs jobs`` in this tree, alternating: least wall-clock
    seconds of ``repeat`` runs each (one process per run, tables cleared)."""
    print(f"\n## --jobs 1 against --jobs {jobs}, this tree, least wall-clock seconds of {repeat} runs each, alternating")
    for pos, _states, _target in targets:
        one, many = [], []
        for _ in range(repeat):
            one.append(run_child(pos, jobs=1))
            many.append(run_child(pos, jobs=jobs))
        a = min(r["wall_min"] for r in one)
        b = min(r["wall_min"] for r in many)
        same = all(r["outcome"] == one[0]["outcome"] and r["winning_moves"] == one[0]["winning_moves"]
                   for r in one + many)
        busiest = min(r["busiest_thread_cpu"] or 0.0 for r in many)
        cpu_one = min(r["cpu_min"] for r in one)
        runs_one = ", ".join(f"{r['wall_min']:.2f}" for r in one)
        runs_many = ", ".join(f"{r['wall_min']:.2f}" for r in many)
        print(f"  {'{' + pos + '}':<22} jobs 1 {a:.3f} s (runs {runs_one}; "
              f"{one[0]['states']:,} states)  jobs {jobs} {b:.3f} s (runs {runs_many}; "
              f"{many[0]['states']:,} states, CPU {min(r['cpu_min'] for r in many):.2f} s)  speed-up {a / b:.2f}x  "
              f"{'same outcome' if same else '!! OUTCOMES DIFFER'}  [{load()}]", flush=True)
        if busiest:
            print(f"  {'':<22} CPU: jobs 1 {cpu_one:.2f} s; jobs {jobs}: busiest search thread {busiest:.2f} s, "
                  f"so on {jobs} free cores about {cpu_one / busiest:.2f}x (the wall time above is what this "
                  "session's share of the machine gave)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--all", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-prune", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jobs", type=int, default=1,
                    help="--jobs of each solve (--base: the A/B figure is then wall-clock time)")
    ap.add_argument("--base-jobs", type=int,
                    help="--jobs of the base's solves (default: --jobs), e.g. --jobs 2 --base-jobs 1")
    ap.add_argument("--scaling", action="store_true",
                    help="--jobs 1 against --jobs N (N from --jobs, at least 2) in this tree, alternating")
    ap.add_argument("--repeat", type=int, default=3, help="runs per target (median reported)")
    ap.add_argument("--quick", action="store_true", help="the two smallest targets only")
    ap.add_argument("--memory", default="1G", help="--memory of each solve (scale: 16G)")
    ap.add_argument("--check", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--scale", nargs="*", metavar="POS",
                    help="only the large positions (an hour or more), or those given (e.g. 16,26,82,88,701)")
    ap.add_argument("--base", help="also run the targets at this git commit (A/B, interleaved)")
    ap.add_argument("--positions", nargs="+", metavar="POS",
                    help="only these targets (e.g. 16,20,28,35,54), for --base or the target table")
    ns = ap.parse_args()
    if ns.one:
        print(json.dumps(_one(ns.one, ns.repeat, not ns.all, ns.jobs, not ns.no_prune, ns.memory,
                              True if ns.check else False)))
        return

    print(f"# solver benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}, {cpu_model()}, {load()}")
    if ns.scale is not None:
        scale("16G" if ns.memory == "1G" else ns.memory, ns.scale, ns.jobs)
        print(f"\n# done, {load()}")
        return
    targets = TARGETS[:2] if ns.quick else TARGETS
    if ns.positions:
        targets = [t for t in TARGETS if t[0] in ns.positions]
        targets += [(p, 0, 0.0) for p in ns.positions if p not in {t[0] for t in TARGETS}]
    if ns.base:
        ab(ns.base, targets, ns.repeat, ns.jobs, ns.base_jobs)
        return
    if ns.scaling:
        scaling(targets, ns.repeat, max(ns.jobs, 2))
        return
    print("\n## targets: outcome only (published P-positions), one process, after warm-up")
    header = f"{'position':<22} {'outcome':>7} {'states':>11} {'seconds':>8} {'cpu s':>7} {'states/s':>11} {'B/state':>8} {'peak RSS':>9} {'target':>7} {'peer states':>12}"
    print(header)
    warm = []
    for pos, c_states, target in targets:
        r = run_child(pos, repeat=ns.repeat if target < 3 else max(1, ns.repeat // 2))
        warm.append(r["warmup_seconds"])
        bps = r["table_bytes"] / max(r["entries"], 1)
        ok = "ok" if r["seconds"] <= target else "MISS"
        print(
            f"{'{' + pos + '}':<22} {r['outcome']:>7} {r['states']:>11,} {r['seconds']:>8.3f} {r['cpu']:>7.3f} "
            f"{r['states'] / r['seconds']:>11,.0f} {bps:>8.1f} {r['peak_rss'] / 2**20:>7.0f}MB "
            f"{target:>6.2f}{ok[0] if ok == 'ok' else '!'} {c_states:>12,}"
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

    print("\n## published results (known_results.json), every entry")
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
