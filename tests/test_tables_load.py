"""The transposition tables at the loads of large searches (docs/engine.md, "Memory and hash
collisions"): from ``engine.FINE_P`` keys on the P table grows at ``LOAD_FINE`` and from ``FINE_N``
on the N table at ``LOAD_N_FINE``, each by 1/8, so that a search of a billion states stores at most
16 bytes per state.  Fuller tables lose more results (a full bucket overwrites one of its keys,
recomputed when met again); these tests put small searches in that regime from the tables' least
size and hold them to the plain-Python reference solver's answers, with room to grow and at a budget
so small that the tables overwrite.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from sylver import Position
from sylver.solver import engine as eng
from sylver.solver import reference, solve
from sylver.solver.engine import ENGINE


@pytest.fixture
def fine_tables(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Both tables in the regime of large searches from their least size: a fresh P table of
    ``MIN_TABLE`` keys that grows by 1/8 at ``LOAD_FINE``, an N table that grows by 1/8 at
    ``LOAD_N_FINE``."""
    monkeypatch.setattr(eng, "FINE_N", eng.START_NTABLE)
    monkeypatch.setattr(eng, "FINE_P", eng.MIN_TABLE)
    monkeypatch.setattr(eng, "START_TABLE", eng.MIN_TABLE)
    ENGINE.clear()
    yield
    monkeypatch.undo()
    ENGINE.clear()


def _positions(count: int, seed: int) -> list[Position]:
    """Random gcd-1 positions of 17 to 44 gaps (above the tests' endgame table, genus 16, so that
    the kernel searches and stores them)."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        p = Position([rng.randint(4, 36) for _ in range(rng.randint(2, 4))])
        if p.gcd == 1 and not p.is_terminal and 17 <= p.genus <= 44:
            out.append(p)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_reference_at_the_fine_loads(fine_tables: None, seed: int) -> None:
    """60 positions a seed (240 in all): the outcome and complete winning-move set of the reference
    solver, with tables that grow at the fine loads (each search on the tables the previous ones
    filled, as the solves of a campaign share them: the P table grows past its least size), then
    again at 256K (sharing their tables too): an N table of 16K keys, which overwrites, and a P
    table that grows to 8K keys at ``LOAD_FINE``, then overwrites too."""
    positions = _positions(60, 300 + seed)
    slow = [reference.solve(p) for p in positions]
    for p, ref in zip(positions, slow, strict=True):
        warm = solve(p, self_check=False)
        assert (warm.outcome, warm.winning_moves) == (ref.outcome, ref.winning_moves), p
    assert eng.MIN_TABLE < ENGINE.ptable.shape[0] and ENGINE.pcount <= eng.LOAD_FINE * ENGINE.ptable.shape[0]
    overwrote = 0
    for p, ref in zip(positions, slow, strict=True):
        tiny = solve(p, memory="256K", self_check=False)
        assert (tiny.outcome, tiny.winning_moves) == (ref.outcome, ref.winning_moves), p
        overwrote += tiny.stats["overwrites"] > 0
    assert overwrote >= 30 and ENGINE.ptable.shape[0] == 2 * eng.MIN_TABLE, overwrote


def test_the_fine_loads_fill_the_tables(fine_tables: None) -> None:
    """A search of 1.7 M states grows both tables by 1/8 a few dozen times: each then holds what
    it counts, about as many keys as its fine load allows (so the loads of large searches are what
    ran), and the answer is that of the sparse tables of small searches."""
    import numpy as np

    p = Position("16,26,33,62,89,102")
    dense = solve(p, self_check=False)
    e = ENGINE
    assert e.pcount == np.count_nonzero(e.ptable) and e.ncount == np.count_nonzero(e.ntable)
    for count, size, load in [(e.pcount, e.ptable.shape[0], eng.LOAD_FINE), (e.ncount, e.ntable.shape[0], eng.LOAD_N_FINE)]:
        assert load / eng.GROWTH * size * 0.97 <= count <= load * size
    assert e.ptable.shape[0] >= 16 * eng.MIN_TABLE
    with pytest.MonkeyPatch.context() as m:
        m.setattr(eng, "LOAD_FINE", eng.LOAD)
        m.setattr(eng, "LOAD_N_FINE", eng.LOAD_N)
        ENGINE.clear()
        sparse = solve(p, self_check=False)
    assert (dense.outcome, dense.winning_moves) == (sparse.outcome, sparse.winning_moves)
    assert dense.stats["overwrites"] > sparse.stats["overwrites"]
