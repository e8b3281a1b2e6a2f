"""Benchmark of the shape graph build (Sicherman, "Theory and Practice of Sylver Coinage", Integers
2002, sec. 2, the Periodicity Theorem): the numba kernels of sylver.solver.shapekernels against the
Python builder of sylver.solver.shapes (the reference), on the same positions in the same run.

    .venv/bin/python bench/bench_shapes.py                 # {12,40,46} (the Python build: about 2 min)
    .venv/bin/python bench/bench_shapes.py 8,14 10,16,24   # other positions; a+b+c: their union graph

Both builds are checked to give the same graph; the figures are CPU seconds (the machine is shared),
printed with the load and the CPU model.
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
    ap.add_argument("positions", nargs="*", default=["12,40,46"],
                    help="positions with g = 2 (a+b: the union graph of several)")
    args = ap.parse_args()
    from sylver import Position
    from sylver.solver.shapes import build_union

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


if __name__ == "__main__":
    main()
