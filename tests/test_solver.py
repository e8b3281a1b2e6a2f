"""The exact solver: API, differential tests against the reference solver, published results."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from sylver import Outcome, Position, TooLargeError
from sylver.machine import parse_memory
from sylver.solver import Solution, SolveTimeout, reference, solve
from sylver.solver.engine import ENGINE


def random_positions(count: int, seed: int, max_genus: int) -> list[Position]:
    """Random gcd-1 positions with at most ``max_genus`` legal moves."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < count:
        k = rng.randint(1, 5)
        gens = [rng.randint(2, 30) for _ in range(k)]
        if math.gcd(*gens) != 1:
            continue
        p = Position(gens)
        if p.is_terminal or p.genus <= max_genus:
            out.append(p)
    return out


class TestAPI:
    def test_solution_fields(self) -> None:
        sol = solve(Position("4, 5"))
        assert isinstance(sol, Solution)
        assert sol.position == Position("4,5")
        assert sol.outcome is Outcome.N
        assert sol.winning_moves == (11,)
        assert sol.complete
        assert sol.frobenius_number == 11
        assert sol.genus == 6
        assert sol.states >= 1 and sol.seconds >= 0
        d = sol.to_dict()
        assert d["outcome"] == "N" and d["winning_moves"] == [11] and d["position"] == [4, 5]

    def test_terminal_is_p(self) -> None:
        sol = solve(Position("2,3"))
        assert sol.outcome is Outcome.P and sol.winning_moves == () and sol.complete

    def test_first_gives_least_winning_move(self) -> None:
        full = solve(Position("5,18"))
        assert full.winning_moves == (14, 16, 17)
        sol = solve(Position("5,18"), first=True)
        assert sol.winning_moves == (14,) and not sol.complete
        p = solve(Position("16,20,28,35,54"), first=True)
        assert p.outcome is Outcome.P and p.complete

    @pytest.mark.parametrize("text", ["4,6", "5", "6,9"])
    def test_gcd_above_one_is_answered(self, text: str) -> None:
        """gcd > 1 goes to the g > 1 engine (tests/test_gcd.py): these three are P."""
        sol = solve(Position(text))
        assert sol.outcome is Outcome.P and sol.gcd > 1 and sol.gcd_details.reason

    def test_over_and_empty(self) -> None:
        with pytest.raises(ValueError, match="over"):
            solve(Position("1"))
        assert solve(Position()).outcome is Outcome.N  # any prime >= 5 wins

    def test_frobenius_number_beyond_2047(self) -> None:
        """Bitsets of many words: {2,2049} has t = 2047 (1024 legal moves); naming 3 leaves {2,3}."""
        sol = solve(Position("2,2049"))
        assert sol.frobenius_number == 2047 and sol.winning_moves == (3,)
        sol = solve(Position("3,1100"))
        assert sol.frobenius_number == 2197 and sol.winning_moves[0] == 2
        ENGINE.clear()
        assert solve(Position("3,1100"), prune=False).winning_moves == sol.winning_moves

    def test_too_large(self) -> None:
        with pytest.raises(TooLargeError):
            solve(Position([2, 40001]))

    @pytest.mark.clock  # (the search takes minutes: no machine finishes it in 0.2 s)
    def test_time_limit_raises_promptly(self) -> None:
        ENGINE.clear()
        start = time.monotonic()
        with pytest.raises(SolveTimeout) as info:
            solve(Position("16,20,28,74,273"), time_limit=0.2)
        assert time.monotonic() - start < 1.5
        assert isinstance(info.value, TimeoutError)
        assert info.value.partial is not None and not info.value.partial.complete

    def test_a_passed_deadline_stops_the_next_search(self) -> None:
        """The deadline is checked before every kernel call (issue 53).  It was checked only after a
        slice the search had not finished, so a solve whose root moves are each decided within one
        slice (every one of {12,15,18,43}'s) ran to its end past its limit: perfect's moves in
        {41,43}'s games overran 0.4-0.65 s.  A limit long passed when the first search starts now
        stops it, whatever the machine's speed (before: answered N, 401 states)."""
        with pytest.raises(SolveTimeout) as info:
            solve(Position("12,15,18,43"), time_limit=1e-9)
        assert info.value.partial is not None and not info.value.partial.complete

    def test_a_limit_of_states(self) -> None:
        """``max_states``: the search stops after that many states whatever the machine's speed (a
        search of minutes), as at a time limit; a solve within it answers as without it."""
        ENGINE.clear()
        with pytest.raises(SolveTimeout, match=r"not solved within 5,000 states \(\d+ of 187 root") as info:
            solve(Position("16,20,28,74,273"), max_states=5000)
        partial = info.value.partial
        assert info.value.within == "5,000 states" and partial is not None and 0 < partial.states <= 5000
        assert 0 < len(partial.decided) < 187 and not partial.complete
        ENGINE.clear()
        assert solve(Position("12,17"), max_states=10**6).winning_moves == (50, 105)
        with pytest.raises(SolveTimeout, match="not solved within 1 state$"):  # g > 1: its gcd-1 positions
            solve(Position("8,14"), max_states=1)
        with pytest.raises(ValueError, match="one process"):
            solve(Position("12,17"), max_states=10, jobs=2)

    def test_memory_budget(self) -> None:
        assert parse_memory("4G") == 4 << 30
        assert parse_memory("512M") == 512 << 20
        assert parse_memory(1 << 20) == 1 << 20
        for bad in ["lots", "-1G", "1X", "1K", "10K"]:
            with pytest.raises(ValueError):
                parse_memory(bad)
        from sylver.machine import LEAST_MEMORY
        from sylver.solver.engine import MIN_TABLE

        assert LEAST_MEMORY == MIN_TABLE * 32  # the least tables (a P table, its filter, N twice P)

    def test_tiny_memory_degrades_gracefully(self) -> None:
        """A table far too small for the search overwrites entries but stays correct."""
        ENGINE.clear()
        sol = solve(Position("12,17"), memory="512K")
        assert sol.winning_moves == (50, 105)
        assert sol.stats["overwrites"] > 0
        assert ENGINE.table_bytes <= 512 << 10
        solve(Position("4,5"), memory="1G")  # restores a normal budget

    def test_budget_far_too_small_fails_fast(self) -> None:
        """A budget so small that the search keeps recomputing what its tables lost (exponential:
        10+ minutes before) raises MemoryBudgetError within seconds, and the engine stays usable."""
        from sylver.solver import MemoryBudgetError
        from sylver.solver.engine import START_NTABLE

        ENGINE.clear()
        start = time.monotonic()
        with pytest.raises(MemoryBudgetError, match=r"budget 256K is far too small for \{16,20,28,35,54\}") as info:
            solve(Position("16,20,28,35,54"), memory="256K")
        assert time.monotonic() - start < 30  # ~0.7 s alone; generous for a loaded machine
        err = info.value
        assert isinstance(err, TooLargeError) and isinstance(err, ValueError)
        assert "recomputing lost results" in str(err) and "use --memory 64M or more" in str(err)
        assert err.memory == 256 << 10 and err.suggested == 64 << 20
        assert err.overwrites > err.expanded // 2 > 0 and err.move is not None
        sol = solve(Position("16,20,28,35,54"), memory="1G")  # the same process, a normal budget
        # full buckets only as the tables grow (about 1 % of the stores), not a table stuck small
        assert sol.outcome is Outcome.P and sol.stats["overwrites"] < sol.states // 50
        assert ENGINE.ntable.shape[0] >= START_NTABLE  # not stuck at the tiny budget's size

    def test_memory_budget_error_pickles(self) -> None:
        """It crosses process boundaries (--jobs workers) with its fields."""
        import pickle

        from sylver.solver import MemoryBudgetError, memory_budget_error

        err = memory_budget_error(Position("12,17"), 1 << 30, 100, 99, 50)
        assert "budget 1G" in str(err) and "use --memory 4G or more" in str(err)
        back = pickle.loads(pickle.dumps(err))
        assert isinstance(back, MemoryBudgetError) and str(back) == str(err)
        assert (back.memory, back.suggested, back.expanded, back.overwrites, back.move) == (
            1 << 30, 4 << 30, 100, 99, 50,
        )

    def test_table_thrash_pickles(self) -> None:
        """The engine's internal TableThrash is the __context__ of a worker's MemoryBudgetError; once
        tblib's pickling support is installed (importing distributed does it) the context travels
        with it, and an exception that cannot be unpickled breaks the whole process pool."""
        import pickle

        from sylver.solver.engine import TableThrash

        back = pickle.loads(pickle.dumps(TableThrash(10, 7)))
        assert (back.expanded, back.overwrites) == (10, 7)

    def test_small_calls_are_cheap(self) -> None:
        solve(Position("7,9"))
        start = time.monotonic()
        for n in range(7, 30):
            if math.gcd(5, n) == 1:
                solve(Position([5, n]))
        per_call = (time.monotonic() - start) / 20
        assert per_call < 0.05  # generous: the shared machine is noisy

    def test_no_pruning_and_other_orders_agree(self) -> None:
        from sylver.solver import kernels

        p = Position("7,9,19,20,31")
        expected = solve(p).winning_moves
        for order in (kernels.ORDER_ASC, kernels.ORDER_DESC, kernels.ORDER_GENUS_DESC):
            ENGINE.clear()
            assert solve(p, order=order).winning_moves == expected
        ENGINE.clear()
        assert solve(p, prune=False).winning_moves == expected


class TestDifferential:
    """The numba engine against the independent plain-Python reference solver."""

    @pytest.mark.parametrize("seed", range(4))
    def test_random_positions(self, seed: int) -> None:
        for p in random_positions(75, seed, max_genus=34):
            ENGINE.clear() if seed % 2 else None
            fast = solve(p)
            slow = reference.solve(p)
            assert (fast.outcome, fast.winning_moves) == (slow.outcome, slow.winning_moves), p
            assert fast.complete and slow.complete

    def test_warm_engine_across_sizes(self) -> None:
        """Heuristic state kept between calls (counter-moves up to a large t) must not leak into a
        smaller position (regression: a stale counter-move beyond the bitset corrupted the stack)."""
        ENGINE.clear()
        solve(Position("12,17"), memory="512K")
        for text in ["10,19,24,27", "5,14", "7,9,19,20,31"]:
            p = Position(text)
            assert solve(p).winning_moves == reference.solve(p).winning_moves

    def test_width_of_the_bitset_does_not_matter(self) -> None:
        """A search from a bitset with extra zero words (the kernel's generic width, where each
        position's children are computed on that position's own width, ``kernels._width``) expands
        exactly the positions of the search at the natural width, with the same outcome (t from 41
        to 197: 1 to 4 words, N and P)."""
        from sylver.solver.engine import Counters, root_gaps

        outcomes, searched = set(), set()
        cases = [Position(g) for g in ("16,20,28,35,54", "16,20,28,35", "9,31", "5,34", "5,34,101", "7,25", "7,23,55",
                                       "9,20,145", "9,20,61,145", "16,20,28,35,134", "16,20,28,35,46,134",
                                       "10,14,131", "10,14,109,131", "4,67")]
        for p in cases:
            natural = root_gaps(p).shape[0]
            runs = []
            for words in (natural, natural + 3):
                ENGINE.clear()
                ENGINE.stack.clear_ordering()
                counters = Counters()
                runs.append((ENGINE.outcome(root_gaps(p, words), counters=counters), counters.expanded))
            assert runs[0] == runs[1], (p, runs)
            outcomes.add(runs[0][0])
            if runs[0][1] > 0:
                searched.add(natural)
        assert outcomes == {Outcome.N, Outcome.P}
        assert {2, 3} <= searched, searched

    def test_reference_first(self) -> None:
        assert reference.solve(Position("5,18"), first=True).winning_moves == (14,)
        with pytest.raises(ValueError, match="reference solver"):
            reference.solve(Position("12,17"))


class TestStoredWinningMove:
    """:func:`sylver.solver.stored_winning_move`, a winning move read from the tables that earlier
    solves of the process filled (``perfect`` keeps them for its later moves): never a move that
    does not win."""

    def test_what_the_tables_keep_is_what_a_fresh_solve_proves(self) -> None:
        """After {9,11} is solved (every winning move) and {7,12}'s replies swept, each position one
        and two moves from {9,11} (genus 10 to 39; 300 of them): a stored winning move is one the
        plain-Python reference solver finds, and a stored one is found where the tables hold it
        (most of the N-positions, none of the P-positions); the oracle's answers (tables first, then
        a solve) are the reference's."""
        from sylver.bots.oracle import Oracle
        from sylver.solver import stored_winning_move
        from sylver.solver.local import Request, sweep

        ENGINE.clear()
        root = Position("9,11")
        assert solve(root).complete
        q = Position("7,12")
        sweep(Request(position=q, root_order="genus"), [x for x in q.legal_moves() if x > 1])
        rng = random.Random(53)
        positions = [root.play(x) for x in root.legal_moves() if x > 1]
        while len(positions) < 300:
            a = rng.choice(positions[:40])
            moves = [x for x in a.legal_moves() if x > 1]
            if moves:
                positions.append(a.play(rng.choice(moves)))
        oracle = Oracle()
        stored = 0
        for p in positions:
            if p.is_terminal:
                continue
            slow = reference.solve(p)
            move = stored_winning_move(p)
            if move is not None:
                stored += 1
                assert move in slow.winning_moves, p
            exact = oracle.solve(p, time_limit=60.0)
            assert exact is not None and exact.outcome is slow.outcome, p
            assert set(exact.winning_moves) <= set(slow.winning_moves), p
        assert stored >= 100


class TestKunzKeys:
    """Table keys from the Kunz vector w.r.t. 16 (``kernels.state_keys``): exact for t < 240."""

    @staticmethod
    def _keys(gaps: np.ndarray, pad: int = 0) -> tuple[int, int]:
        from sylver.solver import kernels

        bits = np.concatenate([gaps, np.zeros(pad, dtype=np.uint64)])
        h, key = kernels.state_keys(bits, 0, bits.shape[0])
        return int(h), int(key)

    def test_keys_are_the_position(self) -> None:
        """Positions with 16 in S and t < 240 have hash = key, distinct for distinct positions, and
        the same whatever the width of the bitset; others keep two different hashes."""
        from sylver.solver import root_gaps

        rng = random.Random(16)
        seen: dict[int, tuple[int, ...]] = {}
        kinds = set()
        for _ in range(600):
            gens = [rng.choice([8, 16, 16, 9])] + [rng.randint(17, 400) for _ in range(rng.randint(1, 4))]
            if math.gcd(*gens) != 1:
                continue
            p = Position(gens)
            gaps = root_gaps(p)
            h, key = self._keys(gaps)
            assert (h, key) == self._keys(gaps, pad=3), p
            exact = (16 in p.semigroup) and p.frobenius_number < 240
            kinds.add((exact, (16 in p.semigroup)))
            assert (h == key) == exact, p
            assert key != 0
            if exact:
                g = tuple(p.semigroup.gaps())
                assert seen.setdefault(key, g) == g, p
        assert kinds == {(True, True), (False, True), (False, False)}

    @pytest.mark.parametrize("seed", range(2))
    def test_positions_with_16_against_reference(self, seed: int) -> None:
        """The exact keys (16 in S, t < 240) against the plain-Python reference solver."""
        rng = random.Random(seed)
        done = 0
        while done < 40:
            gens = [rng.choice([8, 16])] + [rng.randint(9, 60) for _ in range(rng.randint(1, 4))]
            if math.gcd(*gens) != 1:
                continue
            p = Position(gens)
            if p.is_terminal or p.genus > 30:
                continue
            ENGINE.clear() if seed else None
            fast = solve(p)
            slow = reference.solve(p)
            assert (fast.outcome, fast.winning_moves) == (slow.outcome, slow.winning_moves), p
            done += 1


class TestEnders:
    def test_word_wise_check_against_the_definition(self) -> None:
        """``kernels.is_ender`` (the gap set and-ed with its reflection about t, word by word) against
        ``certificate.is_ender`` (straight from the definition), on positions of 1 to 5 words."""
        from sylver.proof.certificate import is_ender
        from sylver.solver import kernels, root_gaps

        rng = random.Random(3)
        kinds = set()
        for _ in range(400):
            gens = [rng.randint(3, 40)] + [rng.randint(4, 330) for _ in range(rng.randint(1, 4))]
            if math.gcd(*gens) != 1:
                continue
            p = Position(gens)
            for x in [None] + rng.sample(range(2, p.frobenius_number + 1), 3):
                q = p if x is None or x in p.semigroup else p.play(x)
                t = q.frobenius_number
                if t < 2:
                    continue
                gaps = root_gaps(q, t // 64 + 1 + rng.randint(0, 1))
                word = sum(int(w) << (64 * i) for i, w in enumerate(gaps))
                expect = is_ender(word)
                assert bool(kernels.is_ender(gaps, 0, gaps.shape[0], t)) == expect, (q, t)
                kinds.add((expect, t // 64))
        assert {(True, w) for w in range(5)} | {(False, w) for w in range(5)} <= kinds


class TestEnumeration:
    def test_reachable_positions_from_12_17(self) -> None:
        """Sec. 2 of the paper: 158793 positions can be reached from {12,17}, counting itself."""
        from sylver.solver import count_reachable

        assert count_reachable(Position("12,17")) == 158793

    def test_reachable_small(self) -> None:
        from sylver.solver import count_reachable

        assert count_reachable(Position("2,3")) == 2  # {2,3} and {1}
        # {4,5}: itself, {1}, and the positions after 2, 3, 6, 7, 11 and the further moves
        seen = set()

        def walk(p: Position) -> None:
            if p in seen:
                return
            seen.add(p)
            for x in p.legal_moves():
                if x != 1:
                    walk(p.play(x))

        walk(Position("5,7"))
        assert count_reachable(Position("5,7")) == len(seen) + 1


class TestPublished:
    def test_known_results_fast_subset(self, known_results: list[dict]) -> None:
        checked = 0
        for entry in known_results:
            p = Position(entry["position"])
            if p.frobenius_number > 200 or p.genus > 60 and entry["outcome"] == "P":
                continue  # the heavy ones run in bench/bench_solver.py
            sol = solve(p)
            assert sol.outcome.value == entry["outcome"], p
            if entry["complete"]:
                assert list(sol.winning_moves) == entry["winning_moves"], p
            else:
                assert set(entry["winning_moves"]) <= set(sol.winning_moves), p
            checked += 1
        assert checked > 140

    def test_published_p_position(self) -> None:
        sol = solve(Position("16,20,28,35,54"))
        assert sol.outcome is Outcome.P and sol.winning_moves == ()

    @pytest.mark.parametrize(
        ("position", "winning"),
        [
            ("5,14", (18,)),
            ("5,18", (14, 16, 17)),
            ("5,14,16,18", (17,)),
            ("5,16,17,18", (14,)),
            ("17,18,27,33,43", (4, 5, 6, 7)),
            ("17,18,27,33,43,56", (4, 5, 6, 7, 9)),
        ],
    )
    def test_paper_section_5(self, position: str, winning: tuple[int, ...]) -> None:
        assert solve(Position(position)).winning_moves == winning

    @pytest.mark.parametrize("pair", ["2,5", "4,5", "5,6", "5,9", "8,15", "13,14"])
    def test_t_wins_in_the_seven_pairs(self, pair: str) -> None:
        """Footnote of sec. 1: t wins in these {m,n} ({13,21}, t = 239, is in the benchmark)."""
        p = Position(pair)
        assert p.frobenius_number in solve(p).winning_moves


RLIMIT_SCRIPT = r"""
import resource, sys
from sylver.position import Position
from sylver.solver import solve
from sylver.solver.engine import ENGINE

solve(Position.parse("4,5"), memory="64M")          # kernels loaded before the limit
with open("/proc/self/status") as f:
    vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (vm + (384 << 20), resource.RLIM_INFINITY))
try:
    solve(Position.parse("5,7"), memory="8G")
    print("no error")
except MemoryError as exc:
    print("MemoryError", exc)
assert ENGINE.ptable.shape[0] <= ENGINE.max_p <= ENGINE._pres.shape[0]
assert ENGINE.ntable.shape[0] <= ENGINE.max_n <= ENGINE._nres.shape[0]
sol = solve(Position.parse("6,7,8"), memory="64M")   # the engine still works
print("after", sol.outcome.value, list(sol.winning_moves))
"""


def test_a_refused_table_reservation_is_a_memory_error() -> None:
    """Under an address-space limit (an arena's sandbox: RLIMIT_AS) a budget too large to reserve
    is a MemoryError, as numpy's would be (which the bots catch), not an OSError that crashed
    ``perfect`` in 12 of 100 King-of-the-Hill games; the engine stays usable at a smaller budget."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", RLIMIT_SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith("MemoryError cannot reserve"), out.stdout
    expected = solve(Position.parse("6,7,8"), memory="64M")
    assert lines[-1] == f"after {expected.outcome.value} {list(expected.winning_moves)}", out.stdout


class TestReplyOrders:
    """The orders of a search for one winning reply (``root_order``, :func:`sweep`): any order finds a
    winning reply when there is one, and only a reply the reference solver says wins."""

    @pytest.mark.parametrize("seed", range(2))
    def test_frobenius_order_finds_a_winning_move(self, seed: int) -> None:
        for p in random_positions(40, 10 + seed, max_genus=30):
            if p.is_terminal:
                continue
            slow = reference.solve(p)
            fast = solve(p, first=True, root_order="frobenius", jobs=1)
            assert fast.outcome is slow.outcome, p
            assert set(fast.winning_moves) <= set(slow.winning_moves), p
            assert bool(fast.winning_moves) == (slow.outcome is Outcome.N), p

    def test_the_order_of_the_root_moves(self) -> None:
        from sylver.solver.local import ordered_root_moves

        p = Position("16,38,101")
        moves = [x for x in range(2, 60) if x not in p.semigroup]
        f = [p.play(x).frobenius_number for x in ordered_root_moves(p, moves, "frobenius")]
        assert f == sorted(f) and sorted(ordered_root_moves(p, moves, "frobenius")) == moves
        assert ordered_root_moves(p, moves, "ascending") == moves
        hardest = ordered_root_moves(p, moves, "genus")
        g = [(p.play(x).genus, x) for x in hardest]
        assert g == sorted(g, reverse=True) and sorted(hardest) == moves
        with pytest.raises(ValueError, match="unknown root order"):
            ordered_root_moves(p, moves, "random")
        with pytest.raises(ValueError, match="one at a time"):
            solve(p, root_order="frobenius", jobs=2)

    @pytest.mark.parametrize("text", ["10,16", "10,12", "6,26", "10,14", "8,12,22"])
    def test_a_sweep_of_the_odd_replies(self, text: str) -> None:
        """g > 1: a sweep of the replies leaving gcd 1 decides each as the reference solver does (or a
        solve, for the larger ones); with ``first`` it stops at the first that leaves P in its order,
        or decides them all when none does ({10,14}, {8,12,22})."""
        from sylver.solver.local import Request, sweep

        p = Position(text)
        replies = [x for x in range(3, 3 * p.generators[-1], 2) if x not in p.semigroup]
        every = sweep(Request(position=p, root_order="ascending"), replies)
        assert every.complete and list(every.decided) == replies
        for x, outcome in every.decided.items():
            after = p.play(x)
            assert outcome is (reference.solve(after) if after.genus <= 30 else solve(after)).outcome, (p, x)
        for order in ("frobenius", "ascending", "genus"):
            r = sweep(Request(position=p, first=True, root_order=order), replies)
            assert r.complete
            if every.winning:
                assert len(r.winning) == 1 and r.winning[0] in every.winning
                assert list(r.decided) == r.order[: r.order.index(r.winning[0]) + 1]
            else:
                assert not r.winning and len(r.decided) == len(replies)

    @pytest.mark.parametrize("text", ["10,16", "12,22,28", "14,20", "14,22,30"])
    def test_a_sweep_in_rounds(self, text: str) -> None:
        """In rounds (200 states a reply first, 4 times more each round) a sweep decides the replies
        as one reply at a time does, those left over carried to the next round ({14,20}: 6 rounds,
        none wins), and stops at a winning one ({12,22,28}: 27); a limit of states still ends it."""
        from sylver.solver.local import ROUND_GROWTH, Request, sweep

        p = Position(text)
        replies = [x for x in range(3, 3 * p.generators[-1], 2) if x not in p.semigroup]
        ENGINE.clear()
        every = sweep(Request(position=p, root_order="frobenius"), replies)
        ENGINE.clear()
        rounds = sweep(Request(position=p, root_order="frobenius", rounds=200), replies)
        assert rounds.complete and rounds.decided == every.decided
        if every.states > 200 * len(replies):  # more than a round's worth: some reply waited
            assert rounds.rounds > 1
        assert ROUND_GROWTH == 4
        ENGINE.clear()
        first = sweep(Request(position=p, first=True, root_order="frobenius", rounds=200), replies)
        assert first.complete and first.rounds >= 1
        if every.winning:
            assert len(first.winning) == 1 and first.winning[0] in every.winning
        else:
            assert not first.winning and first.decided == every.decided
        if every.states > 1000:
            ENGINE.clear()
            cut = sweep(Request(position=p, root_order="frobenius", rounds=200, max_states=every.states // 2), replies)
            assert not cut.complete and cut.states < every.states // 2 + 1
            assert all(every.decided[x] is o for x, o in cut.decided.items())

    def test_a_sweep_records_what_it_decides(self, tmp_path) -> None:
        from sylver.solver.local import Request, sweep
        from sylver.store.results import Store

        p = Position("10,16")
        replies = [x for x in range(3, 48, 2) if x not in p.semigroup]
        with Store(tmp_path / "s.sqlite", book=False) as store:
            r = sweep(Request(position=p, first=True, store=store), replies)
            w = r.winning[0]
            assert store.get(p.play(w)).outcome is Outcome.P
            rec = store.get(p)
            assert rec.outcome is Outcome.N and w in rec.winning_moves
            searched = [store.get(p.play(x)) for x in r.decided]
            assert sum(s.states for s in searched) == r.states  # each reply's own states, recorded
            longest = max(searched, key=lambda s: s.states)
            assert longest.states > 0 and longest.seconds > 0  # and the seconds of a search
            again = sweep(Request(position=p, first=True, store=store), replies)
            assert again.winning == r.winning and again.states == 0  # every reply from the store


def test_a_sweep_decides_the_replies_named_last_after_the_others(tmp_path) -> None:
    """``last``: those replies after all the others, their own order kept; a reply the store knows P
    still comes first (it costs nothing), and the outcomes are the plain sweep's."""
    from sylver.solver.local import Request, sweep
    from sylver.store.results import Store

    p = Position("10,12")
    replies = [x for x in range(3, 36, 2) if x not in p.semigroup]
    every = sweep(Request(position=p, root_order="ascending"), replies)
    deferred = [every.order[1], every.order[0]]
    r = sweep(Request(position=p, root_order="ascending"), replies, last=deferred)
    assert r.order == [x for x in every.order if x not in deferred] + sorted(deferred, key=every.order.index)
    assert r.decided == every.decided
    won = every.winning[0]
    with Store(tmp_path / "s.sqlite", book=False) as store:
        store.put_result(p.play(won), Outcome.P, (), True, p.play(won).frobenius_number)
        known = sweep(Request(position=p, first=True, root_order="ascending", store=store), replies, last=[won])
        assert known.order[0] == won and known.winning == (won,) and known.states == 0


def test_a_sweep_takes_a_known_p_position_first(tmp_path) -> None:
    """A reply whose position the store knows P (a transposition) is taken before any search."""
    from sylver.solver.local import Request, sweep
    from sylver.store.results import Store

    p = Position("10,12")  # 7 wins ({7,10,12} P); others may too
    replies = [x for x in range(3, 36, 2) if x not in p.semigroup]
    every = sweep(Request(position=p, root_order="ascending"), replies)
    last = max(every.winning, key=every.order.index)  # the winning reply a plain sweep meets last
    with Store(tmp_path / "s.sqlite", book=False) as store:
        store.put_result(p.play(last), Outcome.P, (), True, p.play(last).frobenius_number)
        r = sweep(Request(position=p, first=True, root_order="ascending", store=store), replies)
        assert r.winning == (last,) and list(r.decided) == [last] and r.states == 0
