"""The base region of a shape graph (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002,
sec. 2, the Periodicity Theorem): the numba kernel of sylver.solver.gcd.shapekernels lists it exactly as
its plain-Python reference sylver.solver.gcd.periodic.list_region_python (mode, which position, the
positions to solve in the same order), and BaseRegion.of gives the same region either way.

The larger graphs ({12,40,46}'s own, and the union of its long children) are compared in
bench/bench_shapes.py --region."""

from __future__ import annotations

import random

import numpy as np
import pytest

from sylver import Outcome, Position
from sylver.errors import TooLargeError
from sylver.solver import solve
from sylver.solver.gcd.periodic import BaseRegion, list_region, list_region_python
from sylver.solver.gcd.shapes import build, build_union

GRAPHS = [["8,10,22"], ["6,40,74"], ["8,30,34"], ["10,16,24"], ["12,14,46", "12,22,40"]]
"""Positions with g = 2 (several: their union graph; {12,14,46} and {12,22,40} are two of the long
positions after the even moves of {12,40,46})."""


def _graph(positions: list[str]):
    return build_union([Position(p) for p in positions])


def _same_listing(g) -> tuple:
    """Both listings of ``g``, checked equal: the kernel's positions (built from the semigroups found
    by shapekernels.semigroups) have the generators and the Apéry set that Position's constructor
    gives."""
    mode, which, reps, positions = list_region(g)
    ref_mode, ref_which, ref_reps, ref_positions = list_region_python(g)
    assert mode.dtype == ref_mode.dtype and which.dtype == ref_which.dtype
    assert np.array_equal(mode, ref_mode)
    assert np.array_equal(which, ref_which)
    assert reps == ref_reps
    assert positions == ref_positions
    for p, q in zip(positions, ref_positions, strict=True):
        assert np.array_equal(p.semigroup.apery_array(), q.semigroup.apery_array())
        assert p.frobenius_number == q.frobenius_number and p.genus == q.genus
    return mode, which, reps, positions


@pytest.mark.parametrize("positions", GRAPHS, ids=lambda ps: "+".join(ps))
def test_kernel_lists_as_the_reference(positions: list[str]) -> None:
    """Every (shape, height): the same mode and the same position, numbered alike; each position
    listed once per distinct semigroup, at its first (shape, height)."""
    g = _graph(positions)
    mode, which, reps, positions_solved = _same_listing(g)
    assert (mode == -2).any() and (mode >= 0).any() and (which >= 0).any()  # all three kinds met
    # which is set exactly where the gcd-1 solver decides, inside each shape's base region
    heights = 3 + 2 * np.arange(mode.shape[1])
    inside = heights[None, :] <= g.T[:, None]
    assert np.array_equal(which >= 0, inside & (mode == -1))
    # a position is met first at its own (shape, height), and distinct keys are distinct semigroups
    for k, (s, n) in enumerate(reps):
        assert which[s, (n - 3) // 2] == k
    assert positions_solved == [g.concrete(s, n) for s, n in reps]
    assert len(set(positions_solved)) == len(positions_solved)
    if positions == GRAPHS[-1]:  # more than the kernel's first key arrays (1,024): they grew
        assert len(reps) > 1024


def test_region_of_is_the_same_either_way() -> None:
    """BaseRegion.of with the kernel and with the reference: the same positions, values and region,
    {6,40,74}'s positions decided by the gcd-1 solver (called once, each position once)."""
    g = build(Position("6,40,74"))
    calls: list[list[Position]] = []

    def base(ps: list[Position]) -> list[bool]:
        calls.append(ps)
        return [p.is_terminal or solve(p, first=True).outcome is Outcome.P for p in ps]

    kernel = BaseRegion.of(g, base)
    values = dict(zip(calls[0], kernel.values, strict=True))
    ref = BaseRegion.of(g, lambda ps: [values[p] for p in ps], compiled=False)
    assert len(calls) == 1 and len(set(calls[0])) == len(calls[0])
    assert kernel.positions == ref.positions and kernel.values == ref.values
    for name in ("base", "mode", "which"):
        assert np.array_equal(getattr(kernel, name), getattr(ref, name)), name
    solved = kernel.which >= 0
    assert np.array_equal(kernel.base[solved], np.array(kernel.values, dtype=np.uint8)[kernel.which[solved]])
    # each position is the one of its (shape, height)
    for s, i in np.argwhere(solved)[::97]:
        assert kernel.positions[kernel.which[s, i]] == g.concrete(int(s), 3 + 2 * int(i))
    assert any(kernel.values) and not all(kernel.values)


def test_random_positions() -> None:
    """A few random small positions with g = 2 (an even number below 12 and two more below 50, S ÷ 2
    of gcd 1, at most 5,000 shapes): the same listing."""
    rng = random.Random(11)
    done = 0
    while done < 8:
        p = Position([rng.choice([6, 8, 10]), *rng.sample(range(12, 50, 2), 2)])
        if p.gcd != 2 or Position(x // 2 for x in p.generators).generators == (1,):
            continue
        try:
            g = build(p, memory=1 << 24)
        except TooLargeError:
            continue
        if g.shapes <= 5_000:  # the reference lists about 5,000 shapes a second
            _same_listing(g)
            done += 1


def test_deadline() -> None:
    """A deadline already past stops either listing with TimeoutError."""
    g = _graph(["12,14,46", "12,22,40"])
    for listing in (list_region, list_region_python):
        with pytest.raises(TimeoutError):
            listing(g, 0.0)
