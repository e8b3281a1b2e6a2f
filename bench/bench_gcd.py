"""Benchmark of positions with gcd > 1 (issue 11): the g = 2 periodicity engine and the paper's
sec. 2 statements (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002).

    .venv/bin/python bench/bench_gcd.py              # every target (more than an hour on 2 shared cores)
    .venv/bin/python bench/bench_gcd.py --quick      # {8,10,22} and {8,30,34} only
    .venv/bin/python bench/bench_gcd.py --only 6,40,74 --only 8,30,34
    .venv/bin/python bench/bench_gcd.py --only 6,50,94 --odd-limit-6-50-94 100000001 --checkpoint DIR
                                                     # the 10^8 scan, resumable
    .venv/bin/python bench/bench_gcd.py --only 12,26 --only 12,34   # replies to 12 the paper eliminated
    .venv/bin/python bench/bench_gcd.py --only 6,40,74 --certificates   # solve, certificate, verify
    .venv/bin/python bench/bench_gcd.py --only 16,30,56   # Z under --memory 8G: the budget holds (an hour)

Each target runs in a fresh process (its peak RSS is its own), after a warm-up (numba kernels
loaded from the cache, timed separately).  Wall-clock and CPU seconds are printed with the load
average and the CPU model: the machine is shared, so compare CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory

# (position, kind, target seconds, what the paper says)
TARGETS = [
    ("8,10,22", "solve", 2, "P (a long position known to be P)"),
    ("8,30,34", "solve", 120, "N, the unique winning move is 49337"),
    ("6,40,74", "tail", 1200, "no odd winning move; a period of length 403200 sets in at x = 381091"),
    ("6,44,82", "first", 1800, "4 wins, and so does 5993171 (target with --jobs 2)"),
    ("16,22,24,26,28,30,34", "solve", 1200, "P"),
    ("20,22,24,26,28,36", "solve", 1200, "P"),
    ("6,50,94", "tail", None, "neither period nor odd winning move below 10^8"),
    ("12,32,62", "solve", None, "probably P"),
    ("16,30,56", "solve", None, "P (Z, the answer 56 to 16 in the public campaign records; issue 31: "
     "decided within --memory 8G, the process staying within it)"),
] + [
    (f"12,{y}", "solvefirst", None, "N (a reply to 12 eliminated by the paper's search)")
    for y in (26, 34, 38, 46, 50, 58)  # 10, 14, 22: tests/test_gcd.py
]
QUICK = ("8,10,22", "8,30,34")
ODD_LIMIT = {"12,46": 20_001, "12,58": 100_001}
"""--odd-limit of a `solvefirst` target other than 2,001: {12,46}'s short child {12,40,46} needs
{8,12,46} N, whose only winning move 42 leaves {8,12,42,46}, P with a period certified at x = 6,557
(the family {8,12,8n+2,8n+6} of sec. 2, n = 5).  {12,58}'s short child {12,28,58} needs
{8,12,28,58} N, whose winning move 62 leaves {8,12,58,62} (n = 7), P with a period certified at
x = 71,327: below that limit the search leaves {12,28,58} undecided and never finishes."""
MEMORY = {"12,32,62": "4G", "12,58": "4G", "12,46": "2G", "16,30,56": "8G"}
"""--memory of a target (default 1G; for g > 1 it bounds the whole process): {12,32,62} builds large
union graphs of the long positions after its even moves (peak RSS 1.8 GB at 4G on 24 November).
{12,58} meets {12,44,52,58}, whose own graph passes 512M (993 families, 669,342 shapes and
counting).  {12,46}'s grandchildren {12,40,46,y} have graphs of 320,000-500,000 shapes and base
regions of 180,000-340,000 positions: at 1G their scans and base regions are dropped and made again
between the rounds of the iterative deepening (no answer after 34 CPU min, stopped; N [40] in about
111 CPU s at 2G, 24 November)."""


def _one(position: str, kind: str, odd_limit: int | None, jobs: int, checkpoint: str | None = None) -> dict:
    """Child process: warm up, then run one target (a `tail` or `first` scan keeps its checkpoint in
    the directory ``checkpoint``, if given, and resumes from it; its progress goes to stderr)."""
    import resource

    from sylver import Position
    from sylver.solver import solve
    from sylver.solver.gcd.periodic import Scan

    t0 = time.perf_counter()
    solve(Position("6,16"))  # loads every kernel (gcd-1 search and the scan)
    warm = time.perf_counter() - t0
    p = Position(position)
    c0, w0 = time.process_time(), time.perf_counter()
    out: dict = {"position": position, "kind": kind, "warmup_seconds": warm}
    if kind == "certificate":  # solve; then (timed apart) build the certificate, write it, check it
        import tempfile

        from sylver.proof.build import build_gcd_certificate, write_any_certificate
        from sylver.proof.certificate import verify_file

        memory = MEMORY.get(position, "1G")
        sol = solve(p, odd_limit=odd_limit, jobs=jobs, store=None, memory=memory)
        out.update(solve_cpu=time.process_time() - c0, outcome=sol.verdict)
        c1 = time.process_time()
        cert = build_gcd_certificate(sol, memory=sol_memory(memory), odd_limit=odd_limit)
        with tempfile.TemporaryDirectory() as tmp:
            path = f"{tmp}/c.json"
            out["bytes"] = write_any_certificate(cert, path)
            out["build_cpu"] = time.process_time() - c1
            c2 = time.process_time()
            out["proves"] = verify_file(path)
            out["verify_cpu"] = time.process_time() - c2
        out.update(certified=cert["outcome"], open_moves=cert.get("open_moves", {}), nodes=len(cert["nodes"]),
                   records=len(cert["periodic"]) + ("root_periodic" in cert))
    elif kind == "solvefirst":
        sol = solve(p, first=True, odd_limit=odd_limit or 2001, jobs=jobs, store=None,
                    memory=MEMORY.get(position, "1G"))
        out.update(outcome=sol.verdict, winning_moves=list(sol.winning_moves), complete=sol.complete,
                   odd_tail=sol.to_dict().get("odd_tail"), reason=sol.to_dict().get("reason"),
                   scan_bytes=sol.peak_bytes)
    elif kind == "solve":
        sol = solve(p, odd_limit=odd_limit, jobs=jobs, store=None, memory=MEMORY.get(position, "1G"))
        out.update(outcome=sol.verdict, winning_moves=list(sol.winning_moves), complete=sol.complete,
                   odd_tail=sol.to_dict().get("odd_tail"), reason=sol.to_dict().get("reason"),
                   scan_bytes=sol.peak_bytes)
    else:
        from sylver.solver.gcd.context import Context

        ctx = Context(odd_limit=odd_limit, deadline=None, memory=1 << 30, store=None, jobs=jobs,
                      cluster=None, progress=None, checkpoint_dir=None)
        from sylver.solver.engine import ENGINE

        b0 = time.perf_counter()
        ck = None if checkpoint is None else f"{checkpoint}/{position.replace(',', '-')}.npz"
        scan = Scan(p, base=ctx.p_positions, checkpoint=ck)
        out["resumed_from"] = scan.resumed_from
        out["build_and_base_seconds"] = time.perf_counter() - b0
        # the base region: its value/mode arrays, and the gcd-1 solver's tables after solving it
        out["base_array_bytes"] = int(scan.base.nbytes + scan.mode.nbytes)
        out["gcd1_table_bytes"] = int(ENGINE.table_bytes)
        out["gcd1_entries"] = int(ENGINE.count)
        until = odd_limit
        shown = [0.0]

        def report(pr) -> None:  # noqa: ANN001
            if time.monotonic() - shown[0] >= 60:
                shown[0] = time.monotonic()
                st = scan.state
                stage = "second" if st.family_from else "first"
                rest = f"rest period {st.rest.length} from {st.rest.start}" if st.rest else "rest not periodic yet"
                print(f"  [{time.strftime('%H:%M:%S')}] x = {pr.height:,}, {2 * pr.rate:,.0f} x/s, {stage} stage, "
                      f"{rest}, hits {list(pr.hits)}, {pr.memory / 2**20:.0f} MB, {load()}", file=sys.stderr, flush=True)

        if kind == "first":
            scan.run(until=until, stop=lambda s: bool(s.root_hits()), progress=report)
        else:
            scan.run(until=until, progress=report)
        per = scan.state.period
        out.update(
            scanned_to=scan.scanned_to, hits=scan.root_hits(),
            period=[per.start, per.length] if per else None,
            paper_start=value_start_by_largest_anchor(scan) if per else None,
            shapes=scan.graph.shapes, families=scan.graph.families, edges=scan.graph.edges,
            base_positions=scan.base_positions, scan_bytes=scan.memory_bytes(),
            bytes_per_shape=(scan.graph.nbytes() + scan.state.H.nbytes) / scan.graph.shapes,
            rate=(scan.scanned_to / 2) / max(scan.state.seconds, 1e-9),
        )
    out["seconds"] = time.perf_counter() - w0
    out["cpu"] = time.process_time() - c0
    out["peak_rss"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return out


def sol_memory(text: str) -> int:
    from sylver.machine import parse_memory

    return parse_memory(text)


def value_start_by_largest_anchor(scan) -> int | None:  # noqa: ANN001
    """The paper's start of the period: the least x such that every position of the root family
    whose largest odd move is ≥ x repeats with the period (our certified start is that of the whole
    state, which also holds t(E ÷ 2) heights of history per shape)."""
    import numpy as np

    from sylver.solver.gcd.periodic import ScanState

    per = scan.state.period
    L = per.length
    n0 = per.start - 2
    W = 2 * scan.Tmax + 200
    g = scan.graph

    def values(h0: int, h1: int) -> np.ndarray:
        H, F = scan.state_before(h0)
        tmp = ScanState(n=h0, H=H, flags=F, cur=np.zeros_like(scan.state.cur),
                        killer=np.full_like(scan.state.killer, -1),
                        first_hit=np.zeros_like(scan.state.first_hit), hits=[],
                        hkeys=np.zeros(2, dtype=np.uint64), hvals=np.zeros(2, dtype=np.int64), hcount=0)
        rows = []
        out = np.zeros(3, dtype=np.int64)
        while tmp.n <= h1:
            scan._run_kernel(tmp, tmp.n, 1, 1 << 62, np.zeros((1, 2), dtype=np.int64),
                             np.zeros(1, dtype=np.int64), out, np.zeros(1, dtype=np.int64))
            tmp.n = int(out[1])
            rows.append(tmp.cur.copy())
        return np.array(rows)

    lo = max(3, n0 - W)
    a, b = values(lo, n0), values(lo + L, n0 + L)
    maxd = np.array([o.bit_length() - 1 for o in g.offsets])
    best = None
    for i in range(len(a)):
        for s in np.nonzero((a[i] != b[i]) & (g.fam == 0))[0]:
            v = lo + 2 * i + 2 * int(maxd[s])
            best = v if best is None or v > best else best
    return None if best is None else best + 2


def run_child(position: str, kind: str, odd_limit: int | None, jobs: int, checkpoint: str | None) -> dict:
    args = [sys.executable, __file__, "--one", position, "--kind", kind, "--jobs", str(jobs)]
    if odd_limit is not None:
        args += ["--odd-limit", str(odd_limit)]
    if checkpoint is not None:
        args += ["--checkpoint", checkpoint]
    out = subprocess.run(args, stdout=subprocess.PIPE, text=True, check=False)
    lines = out.stdout.strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):  # killed, or crashed before it could say why
        return {"position": position, "kind": kind, "error": f"the target's process ended with exit code {out.returncode}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--kind", help=argparse.SUPPRESS)
    ap.add_argument("--odd-limit", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--jobs", type=int, default=1, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="{8,10,22} and {8,30,34} (with --only, those too)")
    ap.add_argument("--only", action="append", help="run only this position (repeatable)")
    ap.add_argument("--odd-limit-6-50-94", type=int, default=2_000_001,
                    help="how far to scan {6,50,94} (the paper: 10^8)")
    ap.add_argument("--odd-limit-12-32-62", type=int, default=100_001,
                    help="how far to scan {12,32,62} and its long even moves (its move 8 needs "
                    "{8,12,58,62} P: a period certified at x = 71,327)")
    ap.add_argument("--certificates", action="store_true",
                    help="for each target: solve, build its certificate (`--certificate`) and check it")
    ap.add_argument("--checkpoint", metavar="DIR",
                    help="keep the checkpoints of the scans ({6,40,74}, {6,44,82}, {6,50,94}) in DIR and "
                    "resume from them (a resumed run's CPU seconds are those since resuming)")
    ns = ap.parse_args()
    if ns.one:
        try:
            print(json.dumps(_one(ns.one, ns.kind, ns.odd_limit, ns.jobs, ns.checkpoint)))
        except Exception as exc:  # a row that says what failed; the other targets still run
            print(json.dumps({"position": ns.one, "kind": ns.kind, "error": f"{type(exc).__name__}: {exc}"}))
            sys.exit(1)
        return
    print(f"# gcd > 1 benchmark, {time.strftime('%Y-%m-%d %H:%M:%S')}, {cpu_model()}, {load()}")
    rows = []
    for position, kind, target, paper in TARGETS:
        chosen = [*(QUICK if ns.quick else ()), *(ns.only or ())]  # --quick and --only add up
        if chosen and position not in chosen:
            continue
        limit = {"6,50,94": ns.odd_limit_6_50_94, "12,32,62": ns.odd_limit_12_32_62}.get(position,
                                                                                     ODD_LIMIT.get(position))
        jobs = 2 if position == "6,44,82" else 1
        if ns.certificates:
            kind, jobs = "certificate", 1
        r = run_child(position, kind, limit, jobs, ns.checkpoint)
        r["target"], r["paper"] = target, paper
        rows.append(r)
        if "error" in r:
            print(f"\n{{{position}}} ({kind}): paper: {paper}\n  FAILED: {r['error']}; {load()}")
            continue
        if ns.certificates:
            target = None  # the targets are the solves'
        met = "" if target is None else ("  MET" if r["seconds"] <= target else "  NOT MET")
        print(f"\n{{{position}}} ({kind}{', --jobs 2' if jobs > 1 else ''}): paper: {paper}")
        budget = sol_memory(MEMORY.get(position, "1G"))
        within = "within" if r["peak_rss"] <= budget else "OVER"
        print(f"  {r['seconds']:.2f} s wall, {r['cpu']:.2f} s CPU (target {target} s){met}; "
              f"peak RSS {r['peak_rss'] / 2**20:.0f} MB, {within} --memory {MEMORY.get(position, '1G')}; "
              f"warm-up {r['warmup_seconds']:.2f} s; {load()}")
        if kind == "certificate":
            print(f"  solve {r['solve_cpu']:.1f} CPU s ({r['outcome']}); certificate {r['certified']}: built in "
                  f"{r['build_cpu']:.1f} CPU s, {r['bytes']:,} bytes, {r['nodes']:,} gcd-1 nodes, {r['records']} "
                  f"replay records; verified in {r['verify_cpu']:.1f} CPU s")
            for x, why in r["open_moves"].items():
                print(f"  left open: {x}: {why}")
            for line in r["proves"]:
                print(f"  | {line}")
        elif kind in ("solve", "solvefirst"):
            print(f"  outcome {r['outcome']}, winning moves {r['winning_moves']}, complete {r['complete']}")
            if r["odd_tail"]:
                print(f"  odd tail {r['odd_tail']}")
            print(f"  {r['reason']}")
            print(f"  scans (shape graphs, windows, state tables, snapshots): {r['scan_bytes'] / 2**20:.1f} MB")
        else:
            if r.get("resumed_from") is not None:
                print(f"  resumed from its checkpoint at x = {r['resumed_from']:,}")
            print(f"  scanned to {r['scanned_to']:,}, odd winning moves {r['hits']}, period "
                  f"{r['period']} (paper-style start: {r['paper_start']})")
            print(f"  {r['shapes']:,} shapes in {r['families']} families, {r['edges']:,} moves; "
                  f"{r['base_positions']:,} base-region positions ({r['build_and_base_seconds']:.1f} s); "
                  f"{r['bytes_per_shape']:.0f} bytes per shape; {r['scan_bytes'] / 2**20:.1f} MB in all; "
                  f"{2 * r['rate']:,.0f} x per second")
            nb = max(r["base_positions"], 1)
            print(f"  base region: {r['base_array_bytes'] / 2**10:.0f} KB of value/mode arrays; the gcd-1 "
                  f"solver's tables after its {r['base_positions']:,} positions: {r['gcd1_table_bytes'] / 2**20:.1f} MB "
                  f"({r['gcd1_entries']:,} stored states, {r['gcd1_table_bytes'] / nb / 1024:.1f} KB per position)")
    print("\n" + json.dumps(rows))


if __name__ == "__main__":
    main()
