"""Benchmark of the shape graph build (Sicherman, "Theory and Practice of Sylver Coinage", Integers
2002, sec. 2, the Periodicity Theorem): the numba kernels of sylver.solver.gcd.shapekernels against the
Python builder of sylver.solver.gcd.shapes (the reference), on the same positions in the same run.

    .venv/bin/python bench/bench_shapes.py                 # {12,40,46} (the Python build: about 2 min)
    .venv/bin/python bench/bench_shapes.py 8,14 10,16,24   # other positions; a+b+c: their union graph
    .venv/bin/python bench/bench_shapes.py --region        # BaseRegion.of: {6,40,74}, {12,40,46}, and
                                                           # the union of {12,40,46}'s long children
    .venv/bin/python bench/bench_shapes.py --region 8,30,34 kids:12,40,46   # kids:P: that union

    .venv/bin/python bench/bench_shapes.py --bytes 16,30,42,56 --against /tmp/old-h50/src
                                                           # resident bytes a base-region position
                                                           # takes, here and with other sources
    .venv/bin/python bench/bench_shapes.py --peak 12,40,46 --against /tmp/old-h50/src
                                                           # the build's peak against its estimate

Both builds are checked to give the same graph; the figures are CPU seconds (the machine is shared),
printed with the load and the CPU model.  ``--region`` times the base region's listing
(:class:`sylver.solver.gcd.periodic.BaseRegion`) instead: the numba kernel against its Python reference
(both checked to list the same), the Position of each distinct semigroup listed included; the
gcd-1 solves are not timed (every position is given the value N).

``--bytes`` measures what the base region of a position costs in resident memory (the figure behind
``sylver.solver.gcd.periodic.REGION_POSITION_BYTES``), each measurement in a fresh process whose
``PYTHONPATH`` is this checkout's src/ or a directory given with ``--against`` (e.g. a worktree of an
older commit: the same script measures both): the graph is built, then ``BaseRegion.of`` lists the
region and decides its positions through a g > 1 solve's memo (``Context``), the gcd-1 solves
replaced by a fixed rule (P for about one position in 16, the fraction of P-positions in the base
regions of {6,44,82} and {12,26,46,54}: 4-7 %), so that only the region and the memo are measured.
Printed per position: the peak of the process's resident memory above what it held before (the
kernel's VmHWM, reset first), what it holds once the region is made (after ``malloc_trim``), both
with and without the region's rows of ``mode``, ``which`` and ``base`` (per (shape, height), not per
position), and the memo's entries; and the peak of the graph's build (its renumbering included)
beside the graph's own bytes.

``--peak`` measures the build of the graph alone, each in a fresh process (as ``--bytes``, with
``--against``): its seconds (exploring the shapes, then the graph in its order: ``graph()``), the
peak of the process's resident memory above what it held before (VmHWM, reset first) and the
builder's estimate of that peak (``needed()`` once every shape is explored: what a build checks
against its budget), their ratio, and the finished graph's bytes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("positions", nargs="*",
                    help="positions with g = 2 (a+b: the union graph of several; kids:P the union of P's "
                         "long children, as the g = 2 search builds it)")
    ap.add_argument("--region", action="store_true", help="time the base region's listing instead")
    ap.add_argument("--bytes", action="store_true", help="measure the resident bytes a base-region position takes")
    ap.add_argument("--against", action="append", default=[], metavar="SRC",
                    help="with --bytes: also measure with the package in SRC (e.g. /tmp/old-h50/src)")
    ap.add_argument("--peak", action="store_true", help="measure the build's peak against its estimate")
    ap.add_argument("--bytes-child", help=argparse.SUPPRESS)
    ap.add_argument("--peak-child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.bytes_child:
        _bytes_child(args.bytes_child)
        return
    if args.peak_child:
        _peak_child(args.peak_child)
        return
    if args.bytes:
        _bytes(args.positions or ["16,30,42,56"], args.against)
        return
    if args.peak:
        _peaks(args.positions or ["12,40,46"], args.against)
        return
    if args.region:
        _region(args.positions or ["6,40,74", "12,40,46", "kids:12,40,46"])
        return
    args.positions = args.positions or ["12,40,46"]
    from sylver import Position
    from sylver.solver.gcd.shapes import build_union

    print(f"CPU: {cpu_model()}")
    build_union([Position([8, 10, 22])])  # loads the kernels (compiles them if the cache is cold)
    for arg in args.positions:
        positions = [Position(p) for p in arg.split("+")]
        cpu = {}
        graphs = {}
        for compiled in (True, False):
            c0 = time.process_time()
            graphs[compiled] = build_union(positions, compiled=compiled)
            cpu[compiled] = time.process_time() - c0
        k, p = graphs[True], graphs[False]
        same = (k.fingerprint() == p.fingerprint() and k.edges == p.edges and k.fam_even == p.fam_even)
        name = " + ".join(q.braces() for q in positions)
        print(f"{name}: {k.shapes:,} shapes in {k.families:,} families, {k.edges:,} moves; "
              f"kernels {cpu[True]:.2f} CPU s, Python {cpu[False]:.2f} CPU s: {cpu[False] / max(cpu[True], 1e-9):.1f}x; "
              f"same graph: {same}; {load()}")
        if not same:
            sys.exit(f"bench_shapes: the two builds of {name} differ")


def _long_children(text: str) -> list:
    """The long positions after the even moves of the position ``text`` (those the g = 2 search
    builds one union graph for: see sylver.solver.gcd.memory.offer_union)."""
    from sylver import Position
    from sylver.solver.gcd.context import gaps as _gaps
    from sylver.solver.gcd.context import half as _half
    from sylver.solver.gcd.context import quiet as _quiet

    p = Position(text)
    children = [p.play(2 * y) for y in _gaps(_half(p))]
    return [c for c in children if _half(c).generators != (1,) and not _quiet(_half(c))]


def _region(args: list[str]) -> None:
    """The ``--region`` figures."""
    import numpy as np

    from sylver import Position
    from sylver.solver.gcd.periodic import BaseRegion, list_region, list_region_python
    from sylver.solver.gcd.shapes import build_union

    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    list_region(build_union([Position([8, 10, 22])]))  # loads the kernel (compiles it if the cache is cold)
    for arg in args:
        positions = _long_children(arg[5:]) if arg.startswith("kids:") else [Position(p) for p in arg.split("+")]
        name = f"the union of {Position(arg[5:]).braces()}'s {len(positions)} long children" if arg.startswith(
            "kids:") else " + ".join(q.braces() for q in positions)
        g = build_union(positions)
        cpu = {}
        listed = {}
        for compiled, listing in ((True, list_region), (False, list_region_python)):
            c0 = time.process_time()
            listed[compiled] = listing(g)
            cpu[compiled] = time.process_time() - c0
        (mode, which, reps, ps), (rm, rw, rr, rps) = listed[True], listed[False]
        same = np.array_equal(mode, rm) and np.array_equal(which, rw) and reps == rr and ps == rps
        c0 = time.process_time()
        region = BaseRegion.of(g, lambda ps: [False] * len(ps))
        whole = time.process_time() - c0
        cells = int((which >= 0).sum())
        print(f"{name}: {g.shapes:,} shapes, {cells:,} (shape, height) pairs solved by the gcd-1 solver, "
              f"{len(region.positions):,} distinct positions; listing and Positions: kernel {cpu[True]:.2f} CPU s, "
              f"Python {cpu[False]:.2f} CPU s: {cpu[False] / max(cpu[True], 1e-9):.1f}x; same listing: {same}; "
              f"BaseRegion.of (kernel, no solve) {whole:.2f} CPU s; {load()}", flush=True)
        if not same:
            sys.exit(f"bench_shapes: the two listings of {name} differ")


def _commit(src: str) -> str:
    """The commit of the checkout ``src`` (``git describe``), or ``?``."""
    import subprocess

    return subprocess.run(["git", "-C", src, "describe", "--always", "--dirty"], capture_output=True,
                          text=True).stdout.strip() or "?"


def _child(mode: str, arg: str, src: str) -> dict:
    """The JSON answer of this script's ``--MODE-child ARG`` run with the package of ``src`` (a
    fresh process: its peak is its own); a failure ends the bench with its error."""
    import json
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, __file__, f"--{mode}-child", arg], env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"bench_shapes --{mode} {arg} with {src}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _bytes(args: list[str], against: list[str]) -> None:
    """The ``--bytes`` figures: one fresh process per position and source directory."""
    here = Path(__file__).resolve().parent
    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; {load()}")
    for src in [str(here.parent / "src"), *against]:
        commit = _commit(src)
        for arg in args:
            r = _child("bytes", arg, src)
            K = max(r["positions"], 1)
            print(f"{r['position']} with {src} ({commit}): {r['shapes']:,} shapes, {r['positions']:,} distinct "
                  f"gcd-1 positions ({r['p']:,} P); per position: peak {r['peak'] / K:,.0f} bytes "
                  f"({(r['peak'] - r['rows']) / K:,.0f} besides the rows), held after {r['held'] / K:,.0f} "
                  f"({(r['held'] - r['rows']) / K:,.0f} besides the rows, {r['rows'] / K:,.0f} the rows); "
                  f"memo {r['memo']:,} entries; {r['seconds']:.1f} s; the graph's build: peak "
                  f"{r['graph_peak'] / 2**20:,.0f} MiB for a graph of {r['graph_bytes'] / 2**20:,.0f} MiB "
                  f"({r['moves']:,} moves); {load()}", flush=True)


def _bytes_child(text: str) -> None:
    """One ``--bytes`` measurement (in its own process): a JSON line."""
    import gc
    import json
    import zlib

    from sylver import Position
    from sylver.solver.gcd import context
    from sylver.solver.gcd.periodic import BaseRegion
    from sylver.solver.gcd.shapes import build

    def fake(positions: list, ctx: object, found: object) -> None:  # P for about one in 16
        for p in positions:
            found(p, zlib.crc32(repr(p.generators).encode()) % 16 == 0)  # type: ignore[operator]

    context._solve_many = fake  # type: ignore[assignment]
    build(Position([6, 16]))  # the kernels loaded
    gc.collect()
    start = context.process_bytes()
    _reset_peak()
    g = build(Position(text))
    graph_peak = _peak() - start
    ctx = context.Context(odd_limit=None, deadline=None, memory=1 << 40, store=None, jobs=1, cluster=None,
                          progress=None, checkpoint_dir=None)
    base_fn = getattr(ctx, "base_values", ctx.p_positions)  # what sylver.solver.gcd.memory passes
    BaseRegion.of(build(Position([6, 16])), base_fn)  # the kernels loaded, and a first small region
    ctx.gcd1.clear()
    gc.collect()
    context.give_back()
    before = context.process_bytes()
    _reset_peak()
    started = time.monotonic()
    region = BaseRegion.of(g, base_fn)
    seconds = time.monotonic() - started
    hwm = _peak()
    gc.collect()
    context.give_back()
    after = context.process_bytes()
    K = len(region.values)
    print(json.dumps({
        "position": Position(text).braces(), "shapes": g.shapes, "positions": K,
        "p": int(sum(bool(v) for v in region.values)), "peak": hwm - before, "held": after - before,
        "rows": int(region.mode.nbytes + region.which.nbytes + region.base.nbytes), "memo": len(ctx.gcd1),
        "seconds": seconds, "graph_peak": graph_peak, "graph_bytes": g.nbytes(), "moves": g.edges,
    }))


def _peaks(args: list[str], against: list[str]) -> None:
    """The ``--peak`` figures: one fresh process per position and source directory."""
    here = Path(__file__).resolve().parent
    print(f"CPU: {cpu_model()}; {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; {load()}")
    for arg in args:
        for src in [str(here.parent / "src"), *against]:
            commit = _commit(src)
            r = _child("peak", arg, src)
            print(f"{r['position']} with {src} ({commit}): {r['shapes']:,} shapes, {r['families']:,} families, "
                  f"{r['same']:,} moves keeping the height, {r['down']:,} down; explored in {r['explore']:.2f} CPU s, "
                  f"graph() {r['graph']:.2f} CPU s; peak {r['peak'] / 2**20:,.1f} MiB, estimate "
                  f"{r['estimate'] / 2**20:,.1f} MiB (estimate / peak {r['estimate'] / max(r['peak'], 1):.2f}); "
                  f"the graph {r['graph_bytes'] / 2**20:,.1f} MiB; {load()}", flush=True)


def _peak_child(text: str) -> None:
    """One ``--peak`` measurement (in its own process): a JSON line."""
    import gc
    import json

    from sylver import Position
    from sylver.solver.gcd import context
    from sylver.solver.gcd.shapes import build, union_builder

    build(Position([6, 16]))  # the kernels loaded
    gc.collect()
    context.give_back()
    start = context.process_bytes()
    _reset_peak()
    b = union_builder([Position(text)])
    c0 = time.process_time()
    b.explore_families(None)
    b.explore_shapes(None, b.roots)
    c1 = time.process_time()
    estimate = b.needed()
    g = b.graph()
    c2 = time.process_time()
    peak = _peak() - start
    print(json.dumps({
        "position": Position(text).braces(), "shapes": g.shapes, "families": g.families,
        "same": int(g.same_idx.shape[0]), "down": int(g.down_idx.shape[0]), "explore": c1 - c0,
        "graph": c2 - c1, "peak": peak, "estimate": estimate, "graph_bytes": g.nbytes(),
    }))


def _reset_peak() -> None:
    """VmHWM (the peak of the resident memory) := the resident memory now (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def _peak() -> int:
    """VmHWM in bytes."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))


if __name__ == "__main__":
    main()
