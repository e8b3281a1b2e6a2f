"""The base region of a shape graph (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002,
sec. 2, the Periodicity Theorem): the numba kernel of sylver.solver.gcd.shapekernels lists it exactly as
its plain-Python reference sylver.solver.gcd.periodic.list_region_python (mode, which position, the keys
of the positions to solve in the same order), and BaseRegion.of gives the same region either way,
the positions made from their keys a batch at a time.

Positions with g = 2 are answered as by the engine that kept a Position per base-region position
(tests/data/g2_answers.json), and each region is the one the plain-Python reference lists and
decides, or refused under a budget one byte too small.  The larger graphs ({12,40,46}'s own, and
the union of its long children) are compared in bench/bench_shapes.py --region; the bytes a
position takes are measured by bench/bench_shapes.py --bytes."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sylver import Outcome, Position
from sylver.errors import TooLargeError
from sylver.solver import solve
from sylver.solver.gcd.periodic import (
    REGION_BATCH,
    BaseRegion,
    _region_bound,
    list_region,
    list_region_python,
    region_key,
    region_positions,
)
from sylver.solver.gcd.shapes import build, build_union

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


G2_ANSWERS = Path(__file__).resolve().parent / "data" / "g2_answers.json"
"""Positions with g = 2 and the engine's answers before the base region was kept as keys (commit
835b1fb, one Position kept per base-region position): each solved with ``odd_limit`` 2,001, complete."""


def _answers() -> list[dict]:
    return json.loads(G2_ANSWERS.read_text())["positions"]


@pytest.mark.slow
def test_g2_positions_answered_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """280 positions with g = 2 (the minimal {2a, 2b}, {2a, 2b, 2c} and {2a, 2b, 2c, 2d} with small a,
    b, c, d that the engine decided completely within seconds, tests/data/g2_answers.json): the same
    outcome and complete set of winning moves as the engine that kept a Position per base-region
    position (commit 835b1fb), the base regions' positions made and solved two at a time (each
    batch let go before the next is made)."""
    from sylver.solver.gcd import periodic

    batch = 2
    monkeypatch.setattr(periodic, "REGION_BATCH", batch)
    made = []
    real = BaseRegion.of.__func__  # type: ignore[attr-defined]

    def counted(cls: type, *args: Any, **kw: Any) -> BaseRegion:
        region = real(cls, *args, **kw)
        made.append(len(region))
        return region

    monkeypatch.setattr(BaseRegion, "of", classmethod(counted))
    rows = _answers()
    assert len(rows) == 280
    for row in rows:
        p = Position(row["position"])
        sol = solve(p, odd_limit=2001)  # no store, no time limit: the same search on any machine
        got = (sol.outcome.value if sol.outcome else None, list(sol.winning_moves), sol.complete)
        assert got == (row["outcome"], row["winning"], True), p
    assert len(made) >= 20 and sum(made) >= 20 * batch  # the base regions were made, in several batches


@pytest.mark.parametrize("positions", [["6,16"], ["10,16,24"], ["8,30,34"], ["6,40,74"], ["10,12,38", "12,14,20"]],
                         ids=lambda ps: "+".join(ps))
def test_region_as_the_plain_reference_decides_it(positions: list[str]) -> None:
    """The base region listed by the kernel and solved by a g > 1 solve's path (``Context.base_values``,
    two positions a batch: the memo keeps only the P results) is the region listed by the Python
    reference and solved by the plain-Python solver (sylver.solver.reference), key for key and
    value for value."""
    from sylver.solver import reference
    from sylver.solver.gcd.context import Context

    g = _graph(positions)
    ctx = Context(odd_limit=2001, deadline=None, memory=1 << 30, store=None, jobs=1, cluster=None,
                  progress=None, checkpoint_dir=None)
    engine = BaseRegion.of(g, ctx.base_values, batch=2)

    def plain(ps: list[Position]) -> list[bool]:
        return [p.is_terminal or reference.solve(p, first=True).outcome is Outcome.P for p in ps]

    ref = BaseRegion.of(g, plain, compiled=False)
    for name in ("base", "mode", "which", "keys", "values"):
        assert np.array_equal(getattr(engine, name), getattr(ref, name)), name
    assert engine.values.any() and not engine.values.all()
    assert len(ctx.gcd1) == int(engine.values.sum()) and all(ctx.gcd1.values())  # the P results only
    assert ctx.states == len(engine)


def test_tiny_budgets_refuse_or_give_the_same_region() -> None:
    """For the graphs of the long positions among the answers: a budget one byte short of what the
    region counts (its ``which`` rows and ``REGION_POSITION_BYTES`` a position) refuses it with
    TooLargeError before any position is solved, whether the listing sees it while it grows or once
    it is done; the exact budget gives the region made without one."""
    from sylver.solver.gcd.context import half, quiet
    from sylver.solver.gcd.periodic import REGION_POSITION_BYTES

    long = [Position(r["position"]) for r in _answers()]
    long = [p for p in long if half(p).generators != (1,) and not quiet(half(p))]
    assert len(long) >= 20
    asked: list[Position] = []

    def base(ps: list[Position]) -> list[bool]:
        asked.extend(ps)
        return [len(q.generators) % 3 == 0 for q in ps]

    for p in long[:40]:
        g = build(p)
        free = BaseRegion.of(g, lambda ps: [len(q.generators) % 3 == 0 for q in ps])
        exact = int(free.which.nbytes) + len(free) * REGION_POSITION_BYTES
        asked.clear()
        for compiled in (True, False):
            with pytest.raises(TooLargeError, match=r"the base region of .* lists (more than )?[\d,]+ gcd-1 positions"):
                BaseRegion.of(g, base, memory=exact - 1, compiled=compiled)
            assert not asked
            tight = BaseRegion.of(g, base, memory=exact, compiled=compiled, batch=2)
            for name in ("base", "mode", "which", "keys", "values"):
                assert np.array_equal(getattr(tight, name), getattr(free, name)), (p, name)
            asked.clear()
