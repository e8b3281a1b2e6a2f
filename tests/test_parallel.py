"""``--jobs N`` in one process (sylver.solver.parallel): threads over the engine's one pair of tables
give the answers of one job, and stop on a time limit, Ctrl-C and a memory budget far too small."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sylver import Outcome, Position
from sylver.solver import MemoryBudgetError, SolveInterrupted, SolveTimeout, solve
from sylver.solver.engine import ENGINE, START_NTABLE, SliceGate

AGREE = [
    "12,17",  # N: 50, 105
    "13,17,21",  # N: 20, 35, 49
    "18,22,25",  # N: 48, 57, 64 (170,000 states)
    "10,11",  # N: 24, 28, 47
    "16,20,28,35,54",  # P (about 100,000 states: the tables grow many times)
]


def _searching() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("sylver-search-")]


@pytest.mark.parametrize("text", AGREE)
def test_threads_agree_with_one_job(text: str) -> None:
    """Outcome, every winning move and ``complete``, with 2 and 3 threads, from cleared tables (so
    that they grow while the threads search) and from warm ones; ``first`` gives the least."""
    p = Position(text)
    ENGINE.clear()
    one = solve(p)
    for jobs in (2, 3):
        ENGINE.clear()
        many = solve(p, jobs=jobs)
        assert (many.outcome, many.winning_moves, many.complete) == (one.outcome, one.winning_moves, True)
        assert many.decided == one.decided
        warm = solve(p, jobs=jobs)
        assert (warm.outcome, warm.winning_moves) == (one.outcome, one.winning_moves)
        ENGINE.clear()
        least = solve(p, jobs=jobs, first=True)
        assert least.winning_moves == one.winning_moves[:1]
        assert least.complete == (one.outcome is Outcome.P)
    assert ENGINE.gate is None and not _searching()


def test_several_winning_moves_are_all_found() -> None:
    one = solve(Position("17,26,27"))
    assert one.winning_moves == (13, 36, 38, 45)  # 356,000 states
    ENGINE.clear()
    assert solve(Position("17,26,27"), jobs=2).winning_moves == one.winning_moves


def test_tables_grow_while_threads_search() -> None:
    """Cleared tables grow from their least size while two threads search them (stop the world)."""
    ENGINE.clear()
    assert ENGINE.ntable.shape[0] == START_NTABLE
    sol = solve(Position("16,20,28,35,54"), jobs=2)
    assert sol.outcome is Outcome.P and sol.complete
    assert ENGINE.ntable.shape[0] > START_NTABLE
    # the counts kept by the threads are about what the tables hold
    held = int(np.count_nonzero(ENGINE.ntable))
    assert abs(ENGINE.ncount - held) <= held // 20 + 64


def test_stats_and_states_add_up() -> None:
    ENGINE.clear()
    sol = solve(Position("16,20,28,35,54"), jobs=2)
    assert sol.states > 50_000 and sol.stats["children"] > sol.states
    assert sol.peak_bytes >= ENGINE.table_bytes


def test_thread_stacks_are_kept_between_solves() -> None:
    """As the single search's stack is: their hints and endgame cache stay warm for the next solve
    of the process (fresh stacks made a repeated 15 ms solve of {16,20,28,35,54} 1.5x slower)."""
    solve(Position("12,17"), jobs=2)
    kept = ENGINE.stacks(2)
    ENGINE.clear()
    sol = solve(Position("13,17,21"), jobs=2)
    assert sol.winning_moves == (20, 35, 49)
    assert all(a is b for a, b in zip(ENGINE.stacks(2), kept, strict=True))
    assert len({id(s) for s in ENGINE.stacks(3)}) == 3


@pytest.mark.clock
def test_time_limit() -> None:
    ENGINE.clear()
    with pytest.raises(SolveTimeout) as info:
        solve(Position("20,21"), jobs=2, time_limit=0.5)  # minutes of search otherwise
    partial = info.value.partial
    assert partial is not None and not partial.complete
    assert len(partial.decided) < Position("20,21").genus - 1  # root moves: every gap but 1
    assert ENGINE.gate is None and not _searching()
    assert solve(Position("12,17"), jobs=2).winning_moves == (50, 105)  # usable afterwards


def test_ctrl_c() -> None:
    """Ctrl-C (KeyboardInterrupt in the calling thread, here from the progress callback) stops both
    searches and raises SolveInterrupted with the root moves decided so far."""
    calls = []

    def interrupt(progress: object) -> None:
        calls.append(progress)
        if len(calls) >= 3:
            raise KeyboardInterrupt

    ENGINE.clear()
    with pytest.raises(SolveInterrupted) as info:
        solve(Position("20,21"), jobs=2, progress=interrupt)
    assert info.value.partial is not None and not info.value.partial.complete
    assert ENGINE.gate is None and not _searching()
    assert solve(Position("12,17"), jobs=2).winning_moves == (50, 105)


def test_memory_budget_far_too_small() -> None:
    with pytest.raises(MemoryBudgetError, match=r"budget 256K is far too small for \{16,20,28,35,54\}") as info:
        solve(Position("16,20,28,35,54"), memory="256K", jobs=2)
    assert info.value.move is not None
    assert ENGINE.gate is None and not _searching()
    sol = solve(Position("16,20,28,35,54"), jobs=2)  # the engine is usable with a normal budget
    assert sol.outcome is Outcome.P


def test_tiny_budget_degrades_gracefully() -> None:
    """Tables at their cap: overwrites, same answer."""
    ENGINE.clear()
    sol = solve(Position("12,17"), memory="512K", jobs=2)
    assert sol.winning_moves == (50, 105) and sol.stats["overwrites"] > 0
    solve(Position("4,5"), memory="1G")


def test_gate_grows_only_when_no_call_runs() -> None:
    """``SliceGate``: a thread past the load waits for the others' calls to end before it grows
    the tables; meanwhile no call begins."""

    class Tables:
        def __init__(self) -> None:
            self.ncount = self.pcount = 0
            self.grown = 0
            self.running_at_growth: list[int] = []

        def needs_growth(self) -> bool:
            return self.ncount >= 100 * (self.grown + 1)

        def _grow_tables(self) -> None:
            self.running_at_growth.append(gate.running)
            self.grown += 1

    gate = SliceGate()
    tables = Tables()

    def worker() -> None:
        for _ in range(2000):
            gate.enter()
            gate.leave(tables, 1, 0)  # type: ignore[arg-type]

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert tables.ncount == 8000 and tables.grown > 10
    assert set(tables.running_at_growth) == {0} and gate.running == 0 and not gate.growing


def test_help_decides_as_a_search_does() -> None:
    """``help`` (the children of the position after a root move, one by one, most gaps first)
    gives the outcome the search gives, for every root move."""
    from sylver.solver.engine import Stack
    from sylver.solver.local import Request
    from sylver.solver.parallel import _ThreadedSolve

    p = Position("18,22,25")
    one = solve(p)
    ENGINE.clear()
    ts = _ThreadedSolve(Request(position=p), 1)
    ts.stacks = [Stack()]
    with ENGINE.lock:
        helped = {x: ts.help(0, x) for x in ts.roots.moves}
    assert helped == one.decided


def test_one_thread_helps_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    """One root move left to search and two threads: the second helps the first (from the other
    end of its children), and the root move's outcome is the one-job one."""
    from sylver.solver import parallel

    p = Position("16,20,28,35,54")
    one = solve(p)
    calls: list[int] = []
    real_triage, real_help = parallel._ThreadedSolve.triage, parallel._ThreadedSolve.help

    def triage(self: parallel._ThreadedSolve) -> list[int]:
        todo = real_triage(self)
        for x in todo[:-1]:
            self.roots.decided[x] = one.decided[x]
        return todo[-1:]  # the largest root move that needs a search: its position has the most gaps

    def help_(self: parallel._ThreadedSolve, i: int, x: int) -> Outcome | None:
        calls.append(x)
        return real_help(self, i, x)

    monkeypatch.setattr(parallel._ThreadedSolve, "triage", triage)
    monkeypatch.setattr(parallel._ThreadedSolve, "help", help_)
    for _ in range(3):
        ENGINE.clear()
        two = solve(p, jobs=2)
        assert two.decided == one.decided and two.outcome is Outcome.P
    assert calls
