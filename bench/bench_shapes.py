"""Benchmark of the shape graph build (Sicherman, "Theory and Practice of Sylver Coinage", Integers
2002, sec. 2, the Periodicity Theorem): the numba kernels of sylver.solver.gcd.shapekernels against the
Python builder of sylver.solver.gcd.shapes (the reference), on the same positions in the same run.

    .venv/bin/python bench/bench_shapes.py                 # {12,40,46} (the Python build: about 2 min)
    .venv/bin/python bench/bench_shapes.py 8,14 10,16,24   # other positions; a+b+c: their union graph
    .venv/bin/python bench/bench_shapes.py --region        # BaseRegion.of: {6,40,74}, {12,40,46}, and
                                                           # the union of {12,40,46}'s long children
    .venv/bin/python bench/bench_shapes.py --region 8,30,34 kids:12,40,46   # kids:P: that union

Both builds are checked to give the same graph; the figures are CPU seconds (the machine is shared),
printed with the load and the CPU model.  ``--region`` times the base region's listing
(:class:`sylver.solver.gcd.periodic.BaseRegion`) instead: the numba kernel against its Python reference
(both checked to list the same), the Position of each distinct semigroup listed included; the
gcd-1 solves are not timed (every position is given the value N).
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
