"""The base region of a shape graph (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002,
sec. 2, the Periodicity Theorem): the numba kernel of sylver.solver.shapekernels lists it exactly as
its plain-Python reference sylver.solver.periodic.list_region_python (mode, which position, the keys
of the positions to solve in the same order), and BaseRegion.of gives the same region either way,
the positions made from their keys a batch at a time.

The larger graphs ({12,40,46}'s own, and the union of its long children) are compared in
bench/bench_shapes.py --region."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from sylver import Outcome, Position
from sylver.errors import TooLargeError
from sylver.solver import solve
from sylver.solver.periodic import (
    REGION_BATCH,
    BaseRegion,
    _region_bound,
    list_region,
    list_region_python,
    region_key,
    region_positions,
)
from sylver.solver.shapes import build, build_union

GRAPHS = [["8,10,22"], ["6,40,74"], ["8,30,34"], ["10,16,24"], ["12,14,46", "12,22,40"]]
"""Positions with g = 2 (several: their union graph; {12,14,46} and {12,22,40} are two of the long
positions after the even moves of {12,40,46})."""


def _graph(positions: list[str]):
    return build_union([Position(p) for p in positions])


def _same_listing(g) -> tuple:
    """Both listings of ``g``, checked equal (the same keys, first met at the same places); the
    positions made from the keys (the semigroups found by shapekernels.semigroups) have the
    generators and the Apéry set that Position's constructor gives to the (shape, height) where each
    is first met."""
    mode, which, reps, keys = list_region(g)
    ref_mode, ref_which, ref_reps, ref_keys = list_region_python(g)
    for got, want in ((mode, ref_mode), (which, ref_which), (reps, ref_reps), (keys, ref_keys)):
        assert got.dtype == want.dtype and np.array_equal(got, want)
    assert keys.dtype == np.uint64 and keys.shape == (reps.shape[0], _region_bound(g) // 64 + 1)
    assert keys.flags.c_contiguous and keys.flags.owndata  # cut to the keys found, no second copy
    positions = region_positions(keys, _region_bound(g))
    assert positions == [g.concrete(int(s), int(n)) for s, n in reps]
    for p, (s, n) in zip(positions, reps.tolist(), strict=True):
        q = g.concrete(s, n)
        assert np.array_equal(p.semigroup.apery_array(), q.semigroup.apery_array())
        assert p.frobenius_number == q.frobenius_number and p.genus == q.genus
        assert np.array_equal(region_key(q, _region_bound(g)), keys[which[s, (n - 3) // 2]])
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
    for k, (s, n) in enumerate(reps.tolist()):
        assert which[s, (n - 3) // 2] == k
    assert len(set(positions_solved)) == len(positions_solved)
    if positions == GRAPHS[-1]:  # more than the kernel's first key arrays (1,024): they grew
        assert len(reps) > 1024


@functools.cache
def _direct_p(p: Position) -> bool:
    return p.is_terminal or solve(p, first=True).outcome is Outcome.P


@pytest.mark.parametrize("batch", [None, 1, 2])
def test_region_of_is_the_same_either_way(batch: int | None) -> None:
    """BaseRegion.of with the kernel and with the reference: the same keys, values and region,
    {6,40,74}'s positions decided by the gcd-1 solver, each once, ``batch`` positions a call (the
    Positions made per batch), and each the position of its (shape, height)."""
    g = build(Position("6,40,74"))
    calls: list[list[Position]] = []

    def base(ps: list[Position]) -> list[bool]:
        calls.append(ps)
        return [_direct_p(p) for p in ps]

    kernel = BaseRegion.of(g, base, batch=batch)
    seen = [p for ps in calls for p in ps]
    values = dict(zip(seen, kernel.values.tolist(), strict=True))
    ref = BaseRegion.of(g, lambda ps: [values[p] for p in ps], compiled=False, batch=batch)
    assert len(seen) == len(set(seen)) == len(kernel) == 704
    assert all(len(ps) <= (batch or REGION_BATCH) for ps in calls) and len(calls) == -(-704 // (batch or 704))
    assert kernel.positions() == seen == ref.positions() == [p for p, _ in kernel.items(batch=3)]
    for name in ("base", "mode", "which", "keys", "values"):
        assert np.array_equal(getattr(kernel, name), getattr(ref, name)), name
    assert kernel.values.dtype == np.uint8 and kernel.nbytes() == sum(a.nbytes for a in kernel.arrays())
    solved = kernel.which >= 0
    assert np.array_equal(kernel.base[solved], kernel.values[kernel.which[solved]])
    for s, i in np.argwhere(solved)[::97]:  # each position is the one of its (shape, height)
        assert kernel.positions(kernel.which[s, i], kernel.which[s, i] + 1) == [g.concrete(int(s), 3 + 2 * int(i))]
    assert kernel.values.any() and not kernel.values.all()


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
