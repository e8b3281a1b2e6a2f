"""The shape graph (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 2, the
Periodicity Theorem): the numba build (:mod:`sylver.solver.gcd.shapekernels`) against the Python build
of :mod:`sylver.solver.gcd.shapes`, its reference: the same graph, shape for shape and move for move."""

from __future__ import annotations

import numpy as np
import pytest

from sylver import Position
from sylver.errors import TooLargeError
from sylver.solver.gcd.shapes import ShapeGraph, build, build_union, union_builder

ARRAYS = ("fam", "T", "fam_T", "fam_root", "same_ptr", "same_idx", "down_ptr", "down_idx")


def assert_same_graph(a: ShapeGraph, b: ShapeGraph) -> None:
    assert (a.shapes, a.families, a.edges) == (b.shapes, b.families, b.edges)
    assert a.fam_gaps == b.fam_gaps and a.fam_even == b.fam_even and a.fam_index == b.fam_index
    assert a.offsets == b.offsets and a.root == b.root
    for name in ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert a.fingerprint() == b.fingerprint()


@pytest.mark.parametrize("gens", [[8, 10, 22], [6, 16], [8, 14], [10, 16, 24], [2], [4, 6], [4, 134], [4, 262]],
                         ids=lambda g: ",".join(map(str, g)))
def test_kernel_build_is_the_python_build(gens: list[int]) -> None:
    """{4,134} and {4,262}: t(S ÷ 2) = 65 and 129, gap masks and offsets of two and three 64-bit words."""
    S = Position(gens)
    assert_same_graph(build(S), build(S, compiled=False))


def test_union_kernel_build_is_the_python_build() -> None:
    kids = [Position([10, 12, 38]), Position([12, 14, 20]), Position([12, 16, 20, 38])]
    assert_same_graph(build_union(kids), build_union(kids, compiled=False))
    pair = [Position([8, 14]), Position([8, 10, 22])]
    union = build_union(pair)
    assert_same_graph(union, build_union(pair, compiled=False))
    for p in pair:
        assert_same_graph(union.subgraph(p), build(p, compiled=False))


def test_subgraph_of_every_shape_shares_the_moves() -> None:
    """A subgraph that keeps every shape (its position reaches all of them) shares the graph's moves
    instead of copying them, and is the position's own graph all the same."""
    S = Position([8, 10, 22])
    g = build(S)
    sub = g.subgraph(S)
    assert sub.same_idx is g.same_idx and sub.down_idx is g.down_idx and sub.parent_index.size == g.shapes
    assert_same_graph(sub, build(S, compiled=False))
    g = build(Position([6, 44, 82]))
    every = np.arange(g.shapes)
    assert g.subgraph_bytes(every) < g.subgraph_bytes(every[1:]) // 2 < g.nbytes()


@pytest.mark.parametrize("compiled", [True, False], ids=["kernel", "python"])
def test_stopped_by_the_deadline_then_resumed(compiled: bool) -> None:
    """A build stopped by its deadline goes on where it stopped, to the graph of a build in one go by
    the other builder.  The kernels explore a batch of shapes before they look at the deadline, so
    a build stopped again and again still gets on (the Python builder looks every 512 shapes found)."""
    kids = [Position([10, 12, 38]), Position([12, 14, 20]), Position([12, 16, 20, 38])]
    reference = build_union(kids, compiled=not compiled)
    builder = union_builder(kids, compiled=compiled)
    if compiled:
        builder.budget = 256  # shapes explored between two looks at the deadline (adapted later)
    seen = 0
    for _ in range(3 if compiled else 1):
        with pytest.raises(TimeoutError):
            builder.finish(0.0)
        assert seen < builder.explored < reference.shapes
        seen = builder.explored
    assert_same_graph(builder.finish(None), reference)


def test_family_exploration_stops_at_the_deadline() -> None:
    """The families (reached by even moves) are explored before the shapes, and that too stops at
    the deadline and goes on where it stopped: {40,42,44,58} has more than 150,000 families (a
    solve given 3 s took 19 s in them before)."""
    from sylver.solver.gcd.shapes import FAMILIES_PER_LOOK

    builder = union_builder([Position([40, 42, 44, 58])])
    assert len(builder.fam_gaps) == 1 and builder.fam_todo
    with pytest.raises(TimeoutError):
        builder.finish(0.0)
    first = len(builder.fam_gaps)
    assert builder.fam_todo and first > FAMILIES_PER_LOOK
    with pytest.raises(TimeoutError):
        builder.finish(0.0)
    assert len(builder.fam_gaps) > first and builder.explored == 0


@pytest.mark.parametrize("compiled", [True, False], ids=["kernel", "python"])
def test_stopped_by_memory(compiled: bool) -> None:
    """Past its memory the build stops with TooLargeError (saying how far it got); with enough it
    gives the graph."""
    S = Position([10, 16, 24])
    with pytest.raises(TooLargeError, match="shapes so far"):
        build(S, memory=100_000, compiled=compiled)
    assert_same_graph(build(S, memory=50_000_000, compiled=compiled), build(S, compiled=not compiled))


PEAK_CHILD = """
import gc, json, sys
from sylver import Position
from sylver.solver.gcd import context
from sylver.solver.gcd.shapes import build, union_builder

def hwm():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))

build(Position([6, 16]))  # the kernels loaded
gc.collect()
context.give_back()
start = context.process_bytes()
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
if hwm() > start + (1 << 20):  # VmHWM could not be reset
    print(json.dumps(None))
    sys.exit()
b = union_builder([Position(sys.argv[1])])
b.explore_families(None)
b.explore_shapes(None, b.roots)
estimate = b.needed()
g = b.graph()
print(json.dumps({"estimate": estimate, "peak": hwm() - start, "graph": g.nbytes()}))
"""


def test_the_estimate_is_not_below_the_peak() -> None:
    """The kernel builder's estimate (``needed()`` once every shape is explored: what a build checks
    against its budget) is not below the peak of the resident memory that the build and its graph's
    renumbering reach, measured in a fresh process (VmHWM, reset once the kernels are loaded), nor
    far above it; {12,32,62}: 459,951 shapes, about 130 MB.  The Python builder is the reference
    of the graph, not of this."""
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", PEAK_CHILD, "12,32,62"], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if r is None:
        pytest.skip("the peak of the resident memory cannot be reset here (/proc/self/clear_refs)")
    assert r["peak"] <= r["estimate"] < 1.5 * r["peak"], r
    assert r["graph"] <= r["peak"]
