"""Positions with gcd > 1: the g = 2 periodicity engine, short positions, the theorems (Sicherman,
"Theory and Practice of Sylver Coinage", Integers 2002, sec. 1 end and sec. 2).

The larger statements of the paper ({8,30,34}[49337], {6,44,82} → 5993171, the period of
{6,40,74}, {16,22,24,26,28,30,34} and {20,22,24,26,28,36} P, {6,50,94}) are bench lines in
bench/bench_gcd.py."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import numpy as np
import pytest

from sylver import Outcome, Position
from sylver.solver import solve
from sylver.solver.gcd.periodic import Period, Scan
from sylver.solver.gcd.shapes import build
from sylver.theory import is_short, possible_winning_replies

DIFFERENTIAL = [[2], [4, 6], [6, 16], [8, 14], [8, 10, 22], [10, 16, 24]]


def direct_p(p: Position) -> bool:
    return p.is_terminal or solve(p, first=True).outcome is Outcome.P


# -- the periodicity engine ---------------------------------------------------------------------


@pytest.mark.parametrize("gens", DIFFERENTIAL, ids=lambda g: ",".join(map(str, g)))
def test_scan_matches_direct_solves(gens: list[int]) -> None:
    """The engine's outcome of S + x equals a direct gcd-1 solve of S ∪ {x} for every odd x ≤ 301,
    both scanning every height and through the certified period."""
    S = Position(gens)
    full = Scan(S)
    full.run(until=301, past_period=True)
    periodic = Scan(S)
    periodic.run(until=301)
    for x in range(3, 302, 2):
        want = direct_p(Position(gens + [x]))
        assert (x in full.root_hits()) == want, x
        assert periodic.is_p(x) == want, x


@pytest.mark.parametrize("gens", [[8, 10, 22], [6, 16]], ids=lambda g: ",".join(map(str, g)))
def test_every_shape_matches_direct_solves(gens: list[int]) -> None:
    """Every shape (not only S + x) at every height up to 91 agrees with the gcd-1 solver."""
    S = Position(gens)
    scan = Scan(S)
    g = scan.graph
    shapes = range(g.shapes)  # all of them (50 and 75)
    while scan.state.n <= 91:
        scan.run(until=scan.state.n, past_period=True)
        n = scan.scanned_to
        for s in shapes:
            assert bool(scan.state.cur[s]) == direct_p(g.concrete(s, n)), (g.concrete(s, n), n)


def test_8_10_22_period() -> None:
    """{8,10,22}: t̄ = 14 (the paper's example), no odd winning move, a certified period."""
    S = Position([8, 10, 22])
    assert S.tbar == 14
    scan = Scan(S)
    scan.run()
    assert scan.state.period is not None and scan.root_hits() == []
    # the period is certified by an exact comparison of the states: recompute both and compare
    per = scan.state.period
    a = scan.state_before(per.start)
    b = scan.state_before(per.start + per.length)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c = scan.state_before(per.start - 2)
    d = scan.state_before(per.start - 2 + per.length)
    assert not (np.array_equal(c[0], d[0]) and np.array_equal(c[1], d[1])), "the start is the least"


def test_shape_graph_invariants() -> None:
    g = build(Position([8, 10, 22]))
    assert g.fam_gaps[0] == sum(1 << n for n in (1, 2, 3, 6, 7))  # {4,5,11}: gaps 1,2,3,6,7
    assert int(g.T[g.root]) == 7 and g.offsets[g.root] == 1
    for s in range(g.shapes):
        for c in g.same_idx[g.same_ptr[s] : g.same_ptr[s + 1]]:
            assert c < s  # moves keeping the height lead to earlier shapes
        # at most multiplicity(E ÷ 2) anchors
        h = Position(x // 2 for x in g.family_position(int(g.fam[s])).generators)
        m = h.generators[0]
        assert bin(g.offsets[s]).count("1") <= m


def test_union_build_resumes_after_a_deadline() -> None:
    """A union graph's build stopped by its deadline goes on where it stopped, to the same graph."""
    from sylver.solver.gcd.shapes import build_union, union_builder

    kids = [Position([10, 12, 38]), Position([12, 14, 20]), Position([12, 16, 20, 38])]
    whole = build_union(kids)
    assert whole.shapes > 1024  # the deadline is looked at after the first 1024 shapes explored
    builder = union_builder(kids)
    with pytest.raises(TimeoutError):
        builder.finish(0.0)
    assert 0 < builder.explored < whole.shapes
    resumed = builder.finish(None)
    assert resumed.fingerprint() == whole.fingerprint() and resumed.edges == whole.edges


def test_union_subgraph_is_the_own_graph() -> None:
    """The long positions after the even moves of {12,20,38} share one union graph: each one's
    subgraph is its own graph, shape for shape and family for family (so a checkpoint fits either;
    its shapes found by the kernel as by the reference search), and the union's base region
    restricted to it is its own base region."""
    from sylver.solver.gcd.periodic import BaseRegion
    from sylver.solver.gcd.shapes import build_union

    kids = [Position([10, 12, 38]), Position([12, 14, 20]), Position([12, 16, 20, 38])]
    union = build_union(kids)
    known: dict[Position, bool] = {}

    def base(ps: list[Position]) -> list[bool]:
        for p in ps:
            if p not in known:
                known[p] = direct_p(p)
        return [known[p] for p in ps]

    region = BaseRegion.of(union, base)
    for kid in kids:
        own, sub = build(kid), union.subgraph(kid)
        assert sub.shapes == own.shapes and sub.fingerprint() == own.fingerprint()
        assert sub.fam_gaps == own.fam_gaps and sub.fam_even == own.fam_even and sub.root == own.root
        for name in ("fam", "T", "fam_T", "fam_root", "same_ptr", "same_idx", "down_ptr", "down_idx"):
            assert np.array_equal(getattr(sub, name), getattr(own, name)), name
        assert np.array_equal(sub.parent_index, union.subgraph(kid, compiled=False).parent_index)
        mine, theirs = BaseRegion.of(own, base), region.restrict(sub, base)
        assert np.array_equal(mine.mode, theirs.mode)
        solved = mine.mode == -1
        assert np.array_equal(mine.base[solved], theirs.base[solved])
        assert set(mine.positions()) == set(theirs.positions())


def test_checkpoint_resume(tmp_path) -> None:
    """A scan interrupted and resumed from its checkpoint reaches the same state and answer."""
    S = Position([6, 16])
    ref = Scan(S)
    ref.run(until=301, past_period=True)
    ck = tmp_path / "6,16.npz"
    first = Scan(S, checkpoint=ck)
    first.run(until=101, past_period=True)
    assert ck.exists()
    with np.load(ck) as z:  # the state tables are packed: their stored entries only
        assert z["hkeys"].shape[0] == first.state.hcount and (z["hkeys"] != 0).all()
        assert int(z["hcap"]) == first.state.hkeys.shape[0]
    second = Scan(S, checkpoint=ck)
    assert second.scanned_to == 101
    assert np.array_equal(np.sort(second.state.hkeys), np.sort(first.state.hkeys))
    second.run(until=301, past_period=True)
    assert second.root_hits() == ref.root_hits()
    assert np.array_equal(second.state.H, ref.state.H)
    assert second.state.period == ref.state.period


def test_two_stages_same_period() -> None:
    """Deciding S's own family alone once the rest is periodic (second stage) certifies the same
    least period and start, and the same odd winning moves, as deciding every shape throughout
    (``past_period``: one stage, a repeat of the whole state)."""
    S = Position([16, 22, 24, 26, 28, 30, 34])  # the rest: period 1680 from 221; S: 5040 from 631
    two = Scan(S)
    two.run()
    assert two.state.family_from > 0 and two.state.rest == Period(221, 1680)
    one = Scan(S, graph=two.graph, base=lambda ps: [dict(two.base_list)[p] for p in ps])
    one.run(until=two.scanned_to, past_period=True)
    assert one.state.family_from == 0
    assert one.state.period == two.state.period == Period(631, 5040)
    assert one.root_hits() == two.root_hits()
    # the whole state recurs (recomputed from the rest's period and S's family's snapshots)
    per = two.state.period
    a, b = two.state_before(per.start), two.state_before(per.start + per.length)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    c, d = two.state_before(per.start - 2), two.state_before(per.start - 2 + per.length)
    assert not (np.array_equal(c[0], d[0]) and np.array_equal(c[1], d[1]))


def test_short_kernel_same_as_the_killer_kernel() -> None:
    """Above every base region (t(E ÷ 2) < 64), the first stage driven by pending bits with its state
    hashes kept up to date gives the windows, family bits and P-hits of the kernel that walks each
    shape's moves, and stores the hash of each state as :func:`whole_hash` computes it."""
    from sylver.solver.gcd.periodic import _find, whole_hash

    S = Position([16, 22, 24, 26, 28, 30, 34])
    scan = Scan(S)
    scan.run(until=401)
    st = scan.state
    assert st.n > scan.Tmax and st.rest is None
    start = (st.H.copy(), st.flags.copy(), st.first_hit.copy(), st.hkeys.copy(), st.hvals.copy(), st.hcount)
    ends = []
    for short in (False, True):
        st.H, st.flags, st.first_hit = start[0].copy(), start[1].copy(), start[2].copy()
        st.hkeys, st.hvals = start[3].copy(), start[4].copy()
        hits, nhits = np.zeros((1 << 10, 2), dtype=np.int64), np.zeros(1, dtype=np.int64)
        out = np.zeros(3, dtype=np.int64)
        hcount = np.array([start[5]], dtype=np.int64)
        # 200 heights, stored in the table of the whole state (no table of the rest: it would repeat)
        scan._run_kernel(st, st.n + 398, 200, scan.record_from, hits, nhits, out, hcount, None, short=short)
        assert out[0] == 0 and out[1] == st.n + 400
        i = _find(st.hkeys, whole_hash(st.H, st.flags, scan.K0))
        assert st.hvals[i] == st.n + 398  # the last state's hash, as whole_hash computes it
        ends.append((st.H.copy(), st.flags.copy(), hits[: nhits[0]].tolist(), int(hcount[0])))
    assert np.array_equal(ends[0][0], ends[1][0]) and np.array_equal(ends[0][1], ends[1][1])
    assert ends[0][2:] == ends[1][2:]


def test_replay_values_match_the_engine() -> None:
    """The certificate's replay (plain Python, bit sets over the shapes) gives every shape the value
    the engine gives it, at every height up to 1,201, and its state after a height (each shape's
    last t(E ÷ 2) values and the family bits) is the engine's."""
    from sylver.proof.certificate import _Replay, _ReplayGraph, gap_mask

    S = Position([16, 22, 24, 26, 28, 30, 34])
    scan = Scan(S)
    g = scan.graph
    values = dict(scan.base_list)
    rg = _ReplayGraph(gap_mask([x // 2 for x in S.generators]))
    rank = [rg.rank[rg.index[(g.fam_gaps[int(g.fam[s])], g.offsets[s])]] for s in range(g.shapes)]
    assert sorted(rank) == list(range(g.shapes))  # the same shapes
    replay = _Replay(rg, lambda gens: values[Position(gens)])
    while replay.n <= 1201:
        n, cur = replay.step()
        scan.run(until=n, past_period=True)
        assert scan.scanned_to == n
        assert [cur >> r & 1 for r in rank] == scan.state.cur.tolist(), n
    state = replay.state()
    for s in range(g.shapes):
        r = rank[s]
        window = sum((state[1 + i] >> r & 1) << i for i in range(replay.tmax))
        assert window == int(scan.state.H[s, 0]), s
    dead = [any(state[0] >> rank[s] & 1 for s in range(g.shapes) if g.fam[s] == f) for f in range(g.families)]
    assert dead == [bool(x) for x in scan.state.flags]


def test_even_moves_decided_by_the_rest() -> None:
    """{8,30,34} scanned to 20,001: the rest's period (720 from 4,453) is certified, S's own is not
    (its winning move 49337 lies beyond): every even move is decided by the rest, the odd moves are
    open, and the answer says only that."""
    sol = solve(Position([8, 30, 34]), odd_limit=20001, store=None)
    assert sol.outcome is None and sol.verdict == "unknown" and not sol.complete
    assert sol.gcd_details.odd_tail.scanned_to == 20001 and sol.gcd_details.odd_tail.open_moves == "odd x > 20001"
    assert "undecided even moves" not in sol.gcd_details.reason and "paper states N" in sol.gcd_details.reason


def test_checkpoint_past_the_odd_limit(tmp_path) -> None:
    """A checkpoint scanned past a lower --odd-limit: the answer is what the scan to the limit
    proves (that of a run without the checkpoint: scanned_to, winning moves, open moves, the even
    moves that the rest's period decides only past the limit), and it says the checkpoint holds
    more."""
    S = Position([8, 30, 34])  # the rest's period (720 from 4,453) is certified by x = 5,171
    ref = solve(S, odd_limit=1001, store=None).to_dict()
    far = solve(S, odd_limit=20001, store=None, checkpoint=tmp_path).to_dict()
    assert far["odd_tail"]["scanned_to"] == 20001 and "undecided even moves" not in far["reason"]
    got = solve(S, odd_limit=1001, store=None, checkpoint=tmp_path).to_dict()
    assert "a checkpoint of an earlier run holds the scan to 20,001" in got["reason"]
    assert got["odd_tail"] == ref["odd_tail"] and got["odd_tail"]["open_moves"] == "odd x > 1001"
    assert got["reason"].replace("; a checkpoint of an earlier run holds the scan to 20,001, past the odd "
                                 "limit (a larger --odd-limit reads it)", "") == ref["reason"]
    assert got["outcome"] == ref["outcome"] and got["winning_moves"] == ref["winning_moves"]


def test_checkpoint_resume_second_stage(tmp_path) -> None:
    """A scan stopped in its second stage resumes from the checkpoint to the same period."""
    S = Position([6, 16])
    ref = Scan(S)
    ref.run()
    ck = tmp_path / "6,16.npz"
    first = Scan(S, checkpoint=ck)
    first.run(until=401)
    assert first.state.family_from and first.state.period is None
    second = Scan(S, checkpoint=ck)
    assert second.scanned_to == 401 and second.state.family_from == first.state.family_from
    second.run()
    assert second.state.period == ref.state.period and second.root_hits() == ref.root_hits()


def test_damaged_checkpoint_refused(tmp_path) -> None:
    """A checkpoint whose contents do not match its checksum is refused with a clear message."""
    S = Position([6, 16])
    ck = tmp_path / "6,16.npz"
    Scan(S, checkpoint=ck).run(until=201)
    with np.load(ck) as z:
        data = {k: z[k] for k in z.files}
    data["H"] = data["H"].copy()
    data["H"][0, 0] ^= 1
    np.savez(ck, **data)
    with pytest.raises(ValueError, match="damaged.*checksum does not match"):
        Scan(S, checkpoint=ck)
    ck.write_bytes(ck.read_bytes()[:100])
    with pytest.raises(ValueError, match="damaged"):
        Scan(S, checkpoint=ck)


# -- solve() on g > 1 -----------------------------------------------------------------------------


@pytest.mark.parametrize("gens", [[4, 6], [8, 14], [10, 16, 24]], ids=str)
def test_short_g2_p(gens: list[int]) -> None:
    sol = solve(Position(gens))
    assert sol.outcome is Outcome.P and sol.complete and sol.gcd_details.short and sol.method == "short"
    assert sol.gcd == 2 and sol.gcd_details.odd_tail is not None and sol.gcd_details.odd_tail.complete


def test_8_10_22_is_p() -> None:
    sol = solve(Position([8, 10, 22]))
    assert sol.outcome is Outcome.P and sol.complete and sol.gcd_details.short is False
    assert sol.method == "periodicity"
    tail = sol.gcd_details.odd_tail
    assert tail.period_length and tail.period_start and tail.odd_winning_moves == ()
    d = sol.to_dict()
    assert d["outcome"] == "P" and d["odd_tail"]["period_length"] == tail.period_length
    # the reason names a winning reply to each even move (2, 4, 6, 12, 14: the gaps of {4,5,11}
    # doubled), and each reply is one: the position after it is P
    replies = dict(pair.split(" → ") for pair in sol.gcd_details.reason.split("every even move loses, to the reply: ")[1].split(", "))
    assert sorted(map(int, replies)) == [2, 4, 6, 12, 14]
    for x, r in replies.items():
        assert solve(Position([8, 10, 22, int(x), int(r)]), store=None).outcome is Outcome.P, (x, r)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_series_8_12_p(n: int) -> None:
    """{8,12,8n+2,8n+6} is P (sec. 2)."""
    sol = solve(Position([8, 12, 8 * n + 2, 8 * n + 6]))
    assert sol.outcome is Outcome.P and sol.complete


@pytest.fixture
def short_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded searches of composite g get 1 s (the default is 10 s)."""
    from sylver.solver.gcd import composite

    monkeypatch.setattr(composite, "COMPOSITE_SECONDS", 1.0)


def test_8_12_unknown_says_why(short_budget: None) -> None:
    """{8,12} has g = 4: the paper derives P from the series; the engine cannot prove it."""
    sol = solve(Position([8, 12]))
    assert sol.outcome is None and sol.verdict == "unknown"
    assert "g = 4" in sol.gcd_details.reason and "the paper states P" in sol.gcd_details.reason


@pytest.mark.parametrize("gens", [[6, 9], [12, 15, 18], [12, 18, 21]], ids=str)
def test_short_g3_p(gens: list[int]) -> None:
    sol = solve(Position(gens))
    assert sol.outcome is Outcome.P and sol.complete and sol.gcd == 3 and sol.gcd_details.short


def test_12_15_21_possible_replies() -> None:
    """{12,15,21}: the move 100 has 63 possible winning replies not divisible by 3, from 41 to 218;
    the move 200 has 113, from 91 to 418 (sec. 2)."""
    a = possible_winning_replies([12, 15, 21], 100)
    b = possible_winning_replies([12, 15, 21], 200)
    assert (len(a), a[0], a[-1]) == (63, 41, 218)
    assert (len(b), b[0], b[-1]) == (113, 91, 418)


def test_9_15_21_six_wins() -> None:
    sol = solve(Position([9, 15, 21]))
    assert sol.outcome is Outcome.N and 6 in sol.winning_moves and not sol.complete


@pytest.mark.parametrize("gens,q", [([10, 15], 5), ([14, 21, 35], 7), ([15, 25], 5), ([5000, 5005], 5)])
def test_hutchings_prime_g(gens: list[int], q: int) -> None:
    """Nontrivial positions with prime g ≥ 5: g wins (sec. 2)."""
    sol = solve(Position(gens))
    assert sol.outcome is Outcome.N and q in sol.winning_moves


def test_p_theorem() -> None:
    for p in (5, 7, 11, 13):
        assert solve(Position([p])).outcome is Outcome.P
    assert solve(Position([2])).winning_moves == (3,)
    assert solve(Position([3])).winning_moves == (2,)


def test_empty_position() -> None:
    sol = solve(Position())
    assert sol.outcome is Outcome.N and not sol.complete and sol.gcd == 0
    assert {5, 7, 11, 13} <= set(sol.winning_moves)
    assert "Conway" in sol.gcd_details.reason and "greater than 12" in sol.gcd_details.reason


@pytest.mark.parametrize("opening,reply", [(4, 6), (6, 4), (8, 14), (9, 6)])
def test_openings(opening: int, reply: int) -> None:
    """4 loses to 6, 6 loses to 4 (and 9), 8 loses to 14 (and 12), 9 loses to 6 (sec. 2)."""
    sol = solve(Position([opening]))
    assert sol.outcome is Outcome.N and reply in sol.winning_moves
    assert solve(Position([opening, reply])).outcome is Outcome.P


def test_composite_search_bounded_by_states(monkeypatch: pytest.MonkeyPatch) -> None:
    """With a limit of states the bounded search of a composite g answers the same on any machine:
    its seconds (here none) do not count; without one they do."""
    from sylver.solver.gcd import composite

    monkeypatch.setattr(composite, "COMPOSITE_SECONDS", 0.0)
    sol = solve(Position([8]), first=True, max_states=100_000, store=None)
    assert sol.outcome is Outcome.N and sol.winning_moves == (14,)
    assert solve(Position([8]), first=True, store=None).outcome is None
    small = solve(Position([8]), first=True, max_states=5, store=None)
    assert small.outcome is None and "within 5 states" in small.gcd_details.reason


def test_composite_multiple_of_short(short_budget: None) -> None:
    """{24,42} = {8,14}×3: the moves 38, 40, 44, 46, ... leave short positions with g = 2; one of
    them is probably P (sec. 2), but none is decided within the budget: said plainly."""
    sol = solve(Position([24, 42]))
    assert sol.outcome in (None, Outcome.N) and not sol.complete
    assert "(38, 40, 44, 46, ...) leaves a short position with g = 2" in sol.gcd_details.reason
    for x in (38, 40, 44, 46):
        assert is_short(Position([24, 42, x])) and Position([24, 42, x]).gcd == 2


@pytest.mark.parametrize("y", [10, 14, 22])
def test_replies_to_12_eliminated(y: int) -> None:
    """{12,y} is N for the replies y to 12 that the paper's search eliminated (sec. 2); the first
    three here, found with ``first`` (26, 34, 38, 46, 50, 58: bench/bench_gcd.py).  The winning move
    found (usually 7, 16, 16) is checked on its own: the position after it is P."""
    sol = solve(Position([12, y]), first=True, odd_limit=2001)
    assert sol.outcome is Outcome.N and len(sol.winning_moves) == 1 and not sol.complete
    after = Position([12, y]).play(sol.winning_moves[0])
    assert f"{sol.winning_moves[0]} wins: it leaves {after.braces()}, which is P" in sol.gcd_details.reason
    if after.gcd == 1:
        assert direct_p(after)
    else:
        assert solve(after).outcome is Outcome.P


def test_reply_58_to_12_eliminated_by_28() -> None:
    """{12,58} is N (the last reply to 12 the paper's search eliminated, sec. 2): 28 wins, since
    {12,28,58} is P, every move proven to lose.  Its even move 8 loses to 62 only through the
    paper's family {8,12,8n+2,8n+6} (n = 7): {8,12,58,62} is P with a period certified at x = 71,327,
    so an odd limit of 20,001 leaves {12,28,58} undecided (the search for {12,58} itself, which finds
    28 in 33 CPU s: bench/bench_gcd.py --only 12,58)."""
    sol = solve(Position([12, 28, 58]), odd_limit=100_001, memory="2G")
    assert sol.outcome is Outcome.P and sol.complete and sol.gcd_details.odd_tail.complete
    assert "8 → 62" in sol.gcd_details.reason


def test_first_deepening_cuts_postpone_never_decide(monkeypatch) -> None:
    """The search for one winning move deepens iteratively: with budgets so small that nearly every
    attempt is cut (1 ms a move), it still answers exactly what an unhurried search proves, since a
    cut attempt is postponed, and what it left undecided is forgotten, never read back as a value."""
    from sylver.solver.gcd import g2

    monkeypatch.setattr(g2, "FIRST_BUDGET", 0.001)
    monkeypatch.setattr(g2, "FIRST_LEAST", 0.001)
    for gens, outcome in (([8, 14], Outcome.P), ([10, 16, 24], Outcome.P), ([12, 14], Outcome.N)):
        sol = solve(Position(gens), first=True, odd_limit=2001)
        assert sol.outcome is outcome, gens
        if outcome is Outcome.P:
            assert sol.complete and sol.gcd_details.odd_tail.complete
        else:
            assert solve(Position(gens).play(sol.winning_moves[0])).outcome is Outcome.P


def test_inner_search_deepens_over_its_odd_moves(monkeypatch) -> None:
    """A search below the root (inside a move's budget) gives each odd move a budget in rounds: an
    odd move whose gcd-1 solve never ends within its budget (a decoy that runs out every deadline it
    is given) is postponed, and the winning odd move after it is still found within the caller's
    cut; the decoy is never given a value."""
    import time

    from sylver.solver.gcd import context, g2

    pos = Position([12, 50])  # 17 wins: {12,17,50} is P
    h = context.half(pos)
    odd = list(range(3, h.frobenius_number + 1, 2))
    by_genus = sorted(odd, key=lambda x: (pos.play(x).genus, x))
    decoy = by_genus[0] if by_genus[0] != 17 else by_genus[1]
    assert by_genus.index(17) > by_genus.index(decoy)
    real = context.Context.p_positions

    def p_positions(self: Any, positions: list[Position], **kw: Any) -> list[bool]:
        if pos.play(decoy) in positions:
            assert self.deadline is not None  # never solved without a cut
            time.sleep(max(0.0, self.deadline - time.monotonic()))
            raise TimeoutError("time limit reached")
        return real(self, positions, **kw)

    monkeypatch.setattr(context.Context, "p_positions", p_positions)
    ctx = _context()
    ctx.deepening = True  # a search below the root
    ctx.deadline = time.monotonic() + 30.0
    tally = g2.Tally()
    g2._first_winning(pos, h, ctx, 2001, odd, tally)
    decided, winning = tally.decided, tally.winning
    assert winning and winning[0] % 2 == 1 and decoy not in decided
    assert direct_p(pos.play(winning[0]))
    assert time.monotonic() < ctx.deadline


def test_cheap_winning_is_proven_and_a_cut_decides_nothing(monkeypatch) -> None:
    """The long positions after the even moves of a position get a winning move looked for without a
    scan: one found is checked on its own (the position after it is P); with no time for it, the
    child gets no verdict at all (the scan decides it later)."""
    from sylver.solver.gcd import g2
    from sylver.solver.gcd.context import Context, half, quiet
    from sylver.solver.gcd.g2 import _cheap_winning

    def context() -> Context:
        return Context(odd_limit=2001, deadline=None, memory=1 << 30, store=None, jobs=1, cluster=None,
                       progress=None, checkpoint_dir=None)

    long = Position([12, 14, 40, 46])  # S ÷ 2 = {6,7,20,23} is not a quiet ender
    assert not quiet(half(long))
    ctx = context()
    _cheap_winning([long], ctx, 2001)
    v = ctx.verdicts[long]
    assert v.outcome is Outcome.N and len(v.winning) == 1 and not v.complete and not v.full
    after = long.play(v.winning[0])
    assert direct_p(after) if after.gcd == 1 else solve(after).outcome is Outcome.P
    monkeypatch.setattr(g2, "CHEAP_SECONDS", 0.0)
    ctx = context()
    _cheap_winning([long], ctx, 2001)
    assert long not in ctx.verdicts


def _context() -> Any:
    from sylver.solver.gcd.context import Context

    return Context(odd_limit=2001, deadline=None, memory=1 << 30, store=None, jobs=1, cluster=None,
                   progress=None, checkpoint_dir=None)


def test_a_gcd1_solve_past_the_memory_budget_leaves_its_move_undecided(monkeypatch) -> None:
    """A gcd-1 position below the root that its solver cannot solve within the memory budget
    (MemoryBudgetError) leaves the move to it undecided: the search goes on with the other moves,
    never counts that move as losing, and the reason names the position."""
    from sylver.errors import MemoryBudgetError
    from sylver.solver.gcd import context

    root = Position([12, 50])  # 17 wins: {12,17,50} is P
    blocked = root.play(17)
    real = context.Context.p_positions
    tried = []

    def p_positions(self: Any, positions: list[Position], **kw: Any) -> list[bool]:
        if blocked in positions:
            tried.append(blocked)
            raise MemoryBudgetError("the transposition tables are far too small (test)", expanded=1, overwrites=1)
        return real(self, positions, **kw)

    monkeypatch.setattr(context.Context, "p_positions", p_positions)
    # a budget of states, not seconds: the search reaches 17 (and what follows) on any machine
    sol = solve(root, first=True, odd_limit=2001, max_states=1000)
    assert 17 not in sol.winning_moves and len(tried) == 1  # not solved again in later rounds
    if sol.outcome is Outcome.N:
        after = root.play(sol.winning_moves[0])
        assert direct_p(after) if after.gcd == 1 else solve(after).outcome is Outcome.P
    else:
        assert sol.outcome is None and "{12,17,50}" in sol.gcd_details.reason and "memory" in sol.gcd_details.reason
        assert "17" in sol.gcd_details.odd_tail.open_moves


def test_moves_down_by_target() -> None:
    """The moves down of a graph sorted by their target (the kernels above the base regions walk
    them backwards) are those of a stable sort of the moves by target, from shape 0 or from the
    first shape of S's family."""
    from sylver.solver.gcd.periodic import incoming

    g = build(Position([6, 44, 82]))
    K0 = int(np.count_nonzero(g.fam != 0))
    for s_lo in (0, K0):
        src = np.repeat(np.arange(g.shapes), np.diff(g.down_ptr))[g.down_ptr[s_lo]:] - s_lo
        dst = g.down_idx[g.down_ptr[s_lo]:].astype(np.int64) - s_lo
        order = np.argsort(dst, kind="stable")
        in_ptr, in_src, in_j = incoming(g.down_ptr, g.down_idx, s_lo)
        rank = np.arange(g.down_idx.size) - np.repeat(g.down_ptr[:-1], np.diff(g.down_ptr)) + 1  # j
        assert in_src.size > 0 and in_j.dtype == np.uint8
        assert (in_ptr == np.concatenate(([0], np.cumsum(np.bincount(dst, minlength=g.shapes - s_lo))))).all()
        assert (in_src == src[order]).all() and (in_j == rank[g.down_ptr[s_lo]:][order]).all()


def test_a_scan_is_checked_against_the_room_before_it_is_made() -> None:
    """What a scan will hold besides its graph (base-region rows, moves down by target, windows) is
    counted before it is made: a union graph's subgraph too large for the room is refused with a
    message that says how much it needs and how much is left."""
    from sylver.errors import TooLargeError
    from sylver.solver.gcd.periodic import fits

    size = dict(graph_bytes=10**6, shapes=10**4, down_moves=10**6, Tmax=21)
    fits(Position([12, 40, 46, 56]), memory=10**8, **size)
    with pytest.raises(TooLargeError, match=r"the scan of \{12,40,46,56\} needs about 6\.\dM .* than the 4M left"):
        fits(Position([12, 40, 46, 56]), memory=4 << 20, **size)


def test_scans_share_half_the_memory() -> None:
    """The shape graphs, scans, base regions and memo of one solve share half of ``--memory``: a
    graph gets only what the others left (``Context.room``), and one that does not fit is not built
    past it (its position is left undecided, and tried again once twice as much is left); when
    memory is short, the memo's N results go first (its P results stay: a move to one wins), then
    the scans but the root's."""
    from sylver.solver.gcd import context, g2

    ctx = _context()
    root = ctx.root = Position([6, 44, 82])
    ctx.memory = 2 * 1_600_000  # the scan of {6,44,82} fits (about 760K), then not that of {8,30,34} too (840K left)
    half = ctx.half()
    assert ctx.room() == half
    scan, _ = g2.scan_for(root, ctx)
    assert 0 < scan.memory_bytes() <= ctx.held() and ctx.room() <= half - ctx.held()
    other = Position([8, 30, 34])
    v = g2.scan_or_verdict(other, ctx, True, 2001)
    assert isinstance(v, context.Finding) and v.outcome is None and "not scanned" in v.reason
    assert "use a larger --memory" in v.reason
    assert ctx.held() <= half and ctx.scans == [scan]
    fresh = _context()
    fresh.memory = ctx.memory
    assert not isinstance(g2.scan_or_verdict(other, fresh, True, 2001), context.Finding)
    ctx.scans.clear()  # its line of positions decided: what it held is free again
    assert isinstance(g2.scan_or_verdict(other, ctx, True, 2001), context.Finding)  # not twice as much yet
    ctx.memory *= 2
    assert not isinstance(g2.scan_or_verdict(other, ctx, True, 2001), context.Finding)

    ctx = _context()  # {6,44,82} below the root: its scan goes to make room for {8,30,34}'s
    ctx.root = Position([6, 10])
    ctx.memory = 2 * 1_600_000
    g2.scan_for(root, ctx)
    got = g2.scan_or_verdict(other, ctx, True, 2001)
    assert not isinstance(got, context.Finding) and [s.position for s in ctx.scans] == [other]
    assert ctx.held() <= ctx.half()

    ctx = _context()
    ctx.memory = 1 << 20
    ps = [Position([5, x]) for x in range(6, 6000) if x % 5]
    ctx.gcd1.update({p: i % 7 == 0 for i, p in enumerate(ps)})
    assert context.MEMO_BYTES * len(ctx.gcd1) > ctx.half() // 2
    room = ctx.room()
    assert ctx.gcd1 and all(ctx.gcd1.values()) and len(ctx.gcd1) == len(ps[::7])
    assert room <= ctx.half() - ctx.held()


def test_the_pool_counts_what_the_process_holds_beyond_it(monkeypatch) -> None:
    """What the process holds beyond what it held at the start (``Context.own``) and the gcd-1
    tables is the pool's (``Context.used``), even where the pool's own count (``held``) does not
    see it (issue 31: a dropped memo's pages stay resident): the caches go first, then no room."""
    from sylver.solver.engine import ENGINE
    from sylver.solver.gcd import context

    ctx = _context()
    ctx.memory = 64 << 20
    half = ctx.half()
    ctx.gcd1.update({Position([5, x]): False for x in range(6, 200) if x % 5})
    resident = ctx.own + ENGINE.table_bytes  # nothing beyond the tables
    monkeypatch.setattr(context, "process_bytes", lambda: resident)
    assert ctx.used() == ctx.held() and ctx.room() == half - ctx.held() > half // 2
    resident += half  # e.g. a freed graph's pages that the heap kept
    assert ctx.used() == half and ctx.room() == 0 and not ctx.gcd1
    resident -= half // 4
    assert ctx.room() == half // 4


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="VmHWM: Linux")
def test_a_solve_stays_within_its_memory_budget() -> None:
    """``--memory`` bounds the whole process for g > 1: the peak resident memory (VmHWM) of a
    solve of {16,20,34} (P, sec. 2) in a process of its own stays within 576M, the tables, the
    shape graphs, scans and base regions, the memo, and what none of them counts included."""
    import subprocess

    script = ("import sys\nfrom sylver.cli import main\ntry:\n"
              "    main(['solve', '16', '20', '34', '--memory', '576M', '--no-store', '-j', '1'])\n"
              "finally:\n    print(open('/proc/self/status').read(), file=sys.stderr)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and proc.stdout.startswith("{16,20,34}: P "), proc.stdout + proc.stderr
    peak = int(re.search(r"VmHWM:\s+(\d+) kB", proc.stderr).group(1)) << 10  # type: ignore[union-attr]
    assert peak <= 576 << 20


def test_long_first_without_a_scan(monkeypatch) -> None:
    """One winning move of a long position is looked for without a scan first: {12,40,42,46} (a long
    child of {12,40,46}) is N by an odd move found by the gcd-1 solver alone, no shape graph built;
    the position after it is P (checked on its own)."""
    from sylver.solver.gcd import context, g2

    def no_scan(*_a: object, **_k: object) -> None:
        raise AssertionError("a scan was started")

    monkeypatch.setattr(g2, "scan_for", no_scan)
    long = Position([12, 40, 42, 46])
    assert not context.quiet(context.half(long))
    ctx = _context()
    v = g2.solve_g2(long, ctx, full=False, limit=2001)
    assert v.outcome is Outcome.N and len(v.winning) == 1 and v.winning[0] % 2 == 1
    assert direct_p(long.play(v.winning[0]))
    assert long in ctx.cheap_tried


def test_cheap_look_made_once_unless_cut_by_the_caller(monkeypatch) -> None:
    """A long position looked at without a scan for all of ``CHEAP_SECONDS`` (or to the end) is not
    looked at again; one cut short by its caller's deadline is (the cut decides nothing)."""
    import time

    from sylver.solver.gcd import g2

    long = Position([12, 40, 46, 66])  # its least odd winning move, 207, is beyond 4·t(S ÷ 2)
    ctx = _context()
    monkeypatch.setattr(g2, "CHEAP_SECONDS", 0.0)
    assert g2._cheap_verdict(long, ctx, 2001) is None and long in ctx.cheap_tried
    monkeypatch.setattr(g2, "_cheap_move", lambda *_a: pytest.fail("looked at again"))
    assert g2._cheap_verdict(long, ctx, 2001) is None
    monkeypatch.undo()
    ctx = _context()
    ctx.deadline = time.monotonic() + 0.05  # sooner than CHEAP_SECONDS
    g2._cheap_verdict(long, ctx, 2001)
    assert long not in ctx.cheap_tried and long not in ctx.verdicts


def test_known_win_and_killer_moves() -> None:
    """A move whose position is already proven P in this call wins at once (odd: a gcd-1 result;
    even: a verdict); the moves that won in positions sharing a generator are suggested first,
    the most specific first, never an illegal one."""
    from sylver.solver.gcd.context import Finding
    from sylver.solver.gcd.g2 import _killer_moves, _known_win, _note_win

    ctx = _context()
    s = Position([4, 46])
    moves = [(5, s.play(5)), (6, s.play(6))]
    assert _known_win(moves, ctx) is None
    ctx.verdicts[Position([4, 6])] = Finding(outcome=Outcome.P, winning=[], complete=True, method="short",
                                             reason="")
    assert _known_win(moves, ctx) == 6
    ctx.gcd1[s.play(5)] = True
    assert _known_win(moves, ctx) == 5
    ctx = _context()
    _note_win(Position([12, 40, 46, 68]), [74], ctx)
    for y in (44, 50):
        _note_win(Position([12, 40, 46, y]), [y + 1], ctx)
    _note_win(Position([12, 40, 46, 56]), [24], ctx)  # (a bookkeeping test: 24 is never legal here)
    # 74 won after 68, met once: first; 45 and 51 won after 12, 40, 46 only; 24 is illegal
    assert _killer_moves(Position([12, 30, 40, 46, 68]), ctx) == [74, 45, 51]


def test_solve_base_past_its_deadline() -> None:
    """The gcd-1 solves of the engine stop at a deadline that has passed even when each would take
    no time at all (a search checks its deadline only between its slices)."""
    import time

    from sylver.solver.gcd.periodic import solve_base

    with pytest.raises(TimeoutError):
        solve_base([Position([4, 6, 9])], deadline=time.monotonic() - 1.0)
    assert solve_base([Position([4, 6, 9])], deadline=time.monotonic() + 60.0) == [direct_p(Position([4, 6, 9]))]


@pytest.mark.parametrize("saturated", [False, True])
def test_solve_base_agrees_with_solve(saturated: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``solve_base`` decides a position by one search from it (outcome only); ``solve`` decides its
    moves one by one.  Both agree on every position of a base region; with the tables at their
    budget every N outcome is taken from the gcd-1 solve (self-checked), and only those."""
    from sylver.solver import engine
    from sylver.solver.gcd.periodic import _region_bound, list_region, region_positions, solve_base

    g = build(Position([6, 44, 82]))
    positions = region_positions(list_region(g)[3], _region_bound(g))
    assert len(positions) > 1000
    expected = [direct_p(p) for p in positions]
    assert 0 < sum(expected) < len(expected)
    calls: list[Position] = []
    if saturated:
        from sylver.solver import local

        real = local.solve_local
        monkeypatch.setattr(engine.ENGINE, "saturated", lambda: True)
        monkeypatch.setattr(local, "solve_local", lambda r: calls.append(r.position) or real(r))
    engine.ENGINE.clear()
    assert solve_base(positions) == expected
    n_positions = [p for p, is_p in zip(positions, expected, strict=True) if not is_p]
    assert calls == (n_positions if saturated else [])


def test_purge_forgets_only_new_unknown_verdicts() -> None:
    """After a cut, the verdicts without an outcome made by the attempt are forgotten; those made
    before it, and every proven outcome, stay."""
    from sylver.solver.gcd.context import Context, Finding, purge

    ctx = Context(odd_limit=None, deadline=None, memory=1 << 30, store=None, jobs=1, cluster=None,
                  progress=None, checkpoint_dir=None)
    old, new_p, new_unknown = Position([8, 12]), Position([4, 6]), Position([12, 20, 46])
    for p, o in ((old, None), (new_p, Outcome.P), (new_unknown, None)):
        ctx.verdicts[p] = Finding(outcome=o, winning=[], complete=o is not None, method="short", reason="")
        if p == old:
            before = set(ctx.verdicts)
    purge(ctx, before)
    assert set(ctx.verdicts) == {old, new_p}


def test_gcd1_results_kept_past_a_deadline() -> None:
    """gcd-1 positions are solved and memoised one at a time: a deadline that passes during a list
    keeps the results already found (a later attempt does not solve them again)."""
    import time

    from sylver.solver.gcd.context import Context

    ctx = Context(odd_limit=None, deadline=None, memory=1 << 30, store=None, jobs=1, cluster=None,
                  progress=None, checkpoint_dir=None)
    cheap, hard = Position([12, 46, 5]), Position([16, 26, 62, 95, 98, 102])
    ctx.deadline = time.monotonic() + 0.5
    with pytest.raises(TimeoutError):
        ctx.p_positions([cheap, hard])  # P, so every move is searched: about a minute
    assert cheap in ctx.gcd1 and hard not in ctx.gcd1


def test_6_44_82_four_wins() -> None:
    """{6,44,82}: 4 wins, leaving {4,6} (sec. 2); 5993171 is a bench line."""
    sol = solve(Position([6, 44, 82]), first=True, odd_limit=1001)
    assert sol.outcome is Outcome.N and sol.winning_moves == (4,)
    assert solve(Position([4, 6])).outcome is Outcome.P


def test_batch_store_jobs_accept_gcd_above_one(tmp_path) -> None:
    """--batch (with --odd-limit), the store and --jobs take positions with g > 1."""
    from sylver.store.results import Store

    batch = tmp_path / "b.txt"
    batch.write_text("8 10 22\n6 9\n{}\n6 40 74\n")
    db = tmp_path / "r.sqlite"
    code, out, err = cli("solve", "--batch", str(batch), "--json", "--store", str(db),
                         "--odd-limit", "501", "--jobs", "2")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [d["outcome"] for d in lines] == ["P", "P", "N", "N"]
    assert [d["gcd"] for d in lines] == [2, 3, 0, 2]
    assert lines[3]["odd_tail"]["scanned_to"] == 501 and not lines[3]["complete"]
    rec = Store(str(db)).get(Position([8, 10, 22]))
    assert rec is not None and rec.outcome is Outcome.P and rec.complete
    assert len(Store(str(db))) > 4  # the even moves' positions were recorded too
    again = solve(Position([8, 10, 22]), store=str(db))  # they are read back
    assert again.outcome is Outcome.P and again.complete


@pytest.mark.parametrize("args,message", [
    (["6", "9", "--odd-limit", "-1"], "--odd-limit must be a positive integer"),
    (["6", "9", "--odd-limit", "abc"], "--odd-limit must be a positive integer"),
    (["6", "99999999999999999999999"], "too large"),
    (["2000", "2002"], "t(S ÷ 2) = 998,999: the g > 1 engine handles"),  # before any work
    (["3000", "3003"], "t(S ÷ 3) = 998,999"),
])
def test_bad_input_one_line(args: list[str], message: str) -> None:
    code, out, err = cli("solve", *args, "--no-store")
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_many_generators_refused_by_the_memory_budget() -> None:
    """S ÷ 2 of multiplicity 60 (59 gaps): the shape graph would pass the budget: one line, early."""
    code, _, err = cli("solve", *map(str, range(120, 240, 2)), "--no-store", "--memory", "1M")
    assert code == 2 and "needs more than" in err and "(60 generators)" in err


@pytest.mark.parametrize("first", [False, True], ids=["full", "first"])
def test_graph_too_large_below_the_root_leaves_the_move_open(first: bool, monkeypatch) -> None:
    """A long position below the root whose shape graph would pass the memory budget leaves the move
    to it undecided (the solve goes on, and says why), where it used to end the whole solve with
    TooLargeError ({12,58} `--first` met {12,44,52,58} after 25 minutes); the root's own graph too
    large is still the error.  {8,14} is P: its move 12 loses only to 10, which leaves the long
    {8,10,12,14}; {6,16} is N by 4 and 7 without any long position."""
    from sylver.errors import TooLargeError
    from sylver.solver.gcd import g2

    tried = []

    def too_large(position, ctx):
        tried.append(position)
        raise TooLargeError(f"the shape graph of {position.braces()} needs more than 1M (test)")

    monkeypatch.setattr(g2, "scan_for", too_large)
    sol = solve(Position([8, 14]), odd_limit=301, store=None, first=first)
    assert sol.outcome is None and not sol.winning_moves and not sol.complete
    assert "undecided even moves: 12" in sol.gcd_details.reason
    assert "for want of memory" in sol.gcd_details.reason and "{8,10,12,14} (the shape graph" in sol.gcd_details.reason
    # not tried again in the search; then alone, everything else freed (twice at most: the second
    # time with the gcd-1 tables emptied, g2.retry_alone)
    assert set(tried) == {Position([8, 10, 12, 14])} and len(tried) <= 3
    sol = solve(Position([6, 16]), odd_limit=301, store=None, first=first)
    assert sol.outcome is Outcome.N and "memory budget" not in sol.gcd_details.reason
    with pytest.raises(TooLargeError, match="needs more than 1M"):
        solve(Position([8, 10, 22]), odd_limit=301, store=None, first=first)


def test_damaged_checkpoint(tmp_path) -> None:
    """A damaged checkpoint file is reported (not silently replaced); an unwritable place too."""
    ck = tmp_path / "scans"
    ck.mkdir()
    (ck / "6,40,74.npz").write_bytes(b"PK\x03\x04 not a zip file")
    code, _, err = cli("solve", "6", "40", "74", "--no-store", "--checkpoint", str(ck), "--odd-limit", "101")
    assert code == 2 and "is damaged" in err and "delete it" in err
    code, _, err = cli("solve", "6", "40", "74", "--no-store", "--checkpoint",
                       str(ck / "6,40,74.npz" / "sub"), "--odd-limit", "101")
    assert code == 2 and "cannot create the checkpoint directory" in err


def test_json_fields() -> None:
    d = solve(Position([6, 16]), odd_limit=301).to_dict()
    assert d["gcd"] == 2 and d["outcome"] == "N" and 7 in d["winning_moves"]
    assert set(d["odd_tail"]) == {
        "scanned_to", "period_start", "period_length", "odd_winning_moves", "complete", "open_moves"
    }
    json.dumps(d)


# -- the command line -----------------------------------------------------------------------------


def cli(*args: str) -> tuple[int, str, str]:
    import contextlib
    import io

    from sylver.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return code, out.getvalue(), err.getvalue()


def test_cli_human_and_json(tmp_path) -> None:
    code, out, err = cli("solve", "8", "10", "22", "--no-store")
    assert code == 0, err
    assert "{8,10,22}: P" in out and "period" in out and "Periodicity Theorem" in out
    code, out, _ = cli("solve", "{}", "--json", "--no-store")
    d = json.loads(out)
    assert code == 0 and d["outcome"] == "N" and d["gcd"] == 0 and 5 in d["winning_moves"]
    code, out, _ = cli("solve", "6", "40", "74", "--odd-limit", "1001", "--json", "--no-store")
    d = json.loads(out)
    assert d["outcome"] == "N" and 4 in d["winning_moves"]  # 4 leaves {4,6}
    assert d["odd_tail"]["scanned_to"] == 1001
    assert d["odd_tail"]["open_moves"] == "odd x > 1001" and not d["complete"]


@pytest.mark.slow
def test_cli_interrupt_and_resume(tmp_path) -> None:
    """Ctrl-C in a long scan saves its state; the same command resumes from it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    ck = tmp_path / "scans"
    cmd = [sys.executable, "-m", "sylver", "solve", "6", "50", "94", "--no-store", "--checkpoint", str(ck)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ))
    deadline = time.monotonic() + 120
    while not (ck / "6,50,94.npz").exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout and "Traceback" not in stderr
    before = Scan(Position([6, 50, 94]), checkpoint=ck / "6,50,94.npz").scanned_to
    assert before > 3
    code, out, err = cli("solve", "6", "50", "94", "--no-store", "--checkpoint", str(ck),
                         "--odd-limit", str(before + 2000), "--json")
    assert code == 0, err
    assert json.loads(out)["odd_tail"]["scanned_to"] == before + 2000


def test_ctrl_c_inside_a_slice_waits_for_its_end(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C that lands while a slice's kernel has moved the windows but Python has not yet
    moved the height (nor recorded the P-hits) waits for the slice to end: the checkpoint written
    on the way out resumes to exactly the uninterrupted scan."""
    import os
    import signal

    S, until = Position([8, 30, 34]), 60001
    whole = Scan(S)
    whole.run(until=until, past_period=True)
    assert 49337 in whole.root_hits()
    real, calls = Scan._run_kernel, [0]

    def interrupted(self: Scan, *args: Any, **kw: Any) -> None:
        real(self, *args, **kw)
        calls[0] += 1
        if calls[0] == 4:
            os.kill(os.getpid(), signal.SIGINT)  # before _full_slice reads the new height

    monkeypatch.setattr(Scan, "_run_kernel", interrupted)
    ck = tmp_path / "8,30,34.npz"
    with pytest.raises(KeyboardInterrupt):
        Scan(S, checkpoint=ck).run(until=until, past_period=True)
    assert calls[0] == 4
    monkeypatch.undo()
    resumed = Scan(S, checkpoint=ck)
    assert 3 < resumed.scanned_to < until
    resumed.run(until=until, past_period=True)
    assert resumed.scanned_to == whole.scanned_to
    assert resumed.state.hits == whole.state.hits
    assert np.array_equal(resumed.state.H, whole.state.H) and np.array_equal(resumed.state.flags, whole.state.flags)


# -- proofs ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("gens", [[8, 10, 22], [8, 14], [6, 9], [12, 18, 21], [6, 16]], ids=str)
def test_certificates_verify(gens: list[int], tmp_path) -> None:
    from sylver.proof.build import build_gcd_certificate, write_any_certificate
    from sylver.proof.certificate import verify_file

    sol = solve(Position(gens))
    cert = build_gcd_certificate(sol)
    path = tmp_path / "c.json"
    write_any_certificate(cert, path)
    verify_file(str(path))
    code, out, _ = cli("verify", str(path))
    lines = out.splitlines()
    assert code == 0 and lines[0] == "valid"
    assert lines[1].strip() == f"{Position(gens).braces()} is {sol.verdict}: proven"
    assert "rests on (not checked here)" in lines[-1]


def test_certificate_flaws_are_caught() -> None:
    """A wrong period start, a false base-region value, a missing claim: each is rejected."""
    import copy

    from sylver.proof.build import build_gcd_certificate
    from sylver.proof.certificate import CertificateError, replay_scan, verify_any

    cert = build_gcd_certificate(solve(Position([8, 14])))
    verify_any(cert)
    per = cert["periodic"][0]
    bad = copy.deepcopy(cert)
    bad["periodic"][0]["start"] = per["start"] - 2  # the certified start is the least
    with pytest.raises(CertificateError, match="does not recur"):
        verify_any(bad)
    # a false value for a base-region position ({8,14}'s records have none: every base-region
    # position of {8,10,12,14} is decided by the scan itself)
    bad = build_gcd_certificate(solve(Position([8, 10, 22])))
    verify_any(bad)
    entry = bad["root_periodic"]["base"][0]
    entry[1] = 2 if entry[1] == -1 else -1
    with pytest.raises(CertificateError):
        verify_any(bad)
    bad = copy.deepcopy(cert)
    bad["claims"] = []
    with pytest.raises(CertificateError, match="not proved P"):
        verify_any(bad)
    # the replay is independent of the engine: it reproduces the engine's answer for {8,10,22}
    scan = Scan(Position([8, 10, 22]))
    scan.run()
    values = {tuple(p.generators): v for p, v in scan.base_list}
    hits = replay_scan([8, 10, 22], lambda g: values[Position(g).generators],
                       scan.state.period.start, scan.state.period.length)
    assert hits == []


def test_tampered_replay_records_rejected() -> None:
    """The record of {8,12,34,38} (P: period 720 from 821) replays; a period that is not one, a start
    before the least, a base-region position left out, an odd winning move claimed without proof, the
    record of a reply's position ({8,12,26,30}) given for another position: each is rejected."""
    import copy

    from sylver.proof.build import build_gcd_certificate
    from sylver.proof.certificate import CertificateError, verify_any

    cert = build_gcd_certificate(solve(Position([8, 12, 34, 38])))
    verify_any(cert)
    rec = cert["root_periodic"]
    assert (rec["start"], rec["length"]) == (821, 720)
    for field, value, message in [
        ("length", 360, "does not recur"),
        ("length", 722, "does not recur"),
        ("start", 819, "does not recur"),
        ("base", [e for e in rec["base"] if Position(e[0]) != Position(rec["base"][0][0])], "has no entry"),
        ("start", "821", "an odd start and a positive even length"),
        ("length", 0, "an odd start and a positive even length"),
        ("base", [[8]], r"not \[generators, reply\]"),
        ("base", [[8, 9]], "base-region position 8 is not a list"),
        ("base", {}, "must be a list"),
    ]:
        bad = copy.deepcopy(cert)
        bad["root_periodic"][field] = value
        with pytest.raises(CertificateError, match=message):
            verify_any(bad)
    ok = copy.deepcopy(cert)  # a multiple of the period, from a later start: still a proof
    ok["root_periodic"]["start"], ok["root_periodic"]["length"] = 901, 1440
    verify_any(ok)
    bad = copy.deepcopy(cert)
    bad["outcome"], bad["winning_moves"], bad["complete"] = "N", [101], False
    with pytest.raises(CertificateError, match="not proved P|odd winning moves"):
        verify_any(bad)
    bad = copy.deepcopy(cert)  # the record of {8,12,26,30} (a reply's position) given for another one
    (claim,) = [c for c in bad["periodic"] if c["position"] == [8, 12, 26, 30]]
    claim["position"] = [8, 12, 26, 34]
    with pytest.raises(CertificateError):
        verify_any(bad)


def test_a_child_refuted_beyond_the_gcd1_proofs(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A long child refuted by an odd reply whose position is beyond the gcd-1 proofs the builder
    searches for (in U = {16,26,88}: {16,26,88,98} + 1611, t = 1,745 > 1,024) is proved by a replay
    record of the child's scan (``periodic_n``).  {8,14} with the bound lowered to 40: {8,14,18} +
    25 (t = 45) and {8,14,34} + 27 (t = 53).  The replay agrees with direct gcd-1 solves; a move
    the scan does not find winning, an even move, a record left out, a record of another position:
    each is refused."""
    import copy

    from sylver.campaign.proof import compose
    from sylver.proof import build as prove
    from sylver.proof.certificate import CertificateError, verify_any, verify_path

    monkeypatch.setattr(prove, "MAX_PROOF_T", 40)
    sol = solve(Position([8, 14]), store=None)
    cert = prove.build_gcd_certificate(sol)
    assert {tuple(r["position"]): r["winning"] for r in cert["periodic_n"]} == {(8, 14, 18): [25], (8, 14, 34): [27]}
    assert "1 P and 2 N" in " ".join(verify_any(cert))
    for gens, w in (([8, 14, 18], 25), ([8, 14, 34], 27)):
        assert Position([*gens, w]).frobenius_number > 40
        assert solve(Position([*gens, w]), store=None).outcome is Outcome.P
    prove.stream_gcd_certificate(sol, tmp_path / "c.json")  # the file a solve writes, checked as `sylver verify` does
    assert verify_path(str(tmp_path / "c.json")).head["outcome"] == "P"
    compose(tmp_path / "14.json", Position([14]), [tmp_path / "c.json"], outcome="N", winning=[8])
    assert verify_path(str(tmp_path / "14.json")).head["outcome"] == "N"  # a campaign's file, composed
    miss = next(w for w in range(3, 60, 2) if solve(Position([8, 14, 18, w]), store=None).outcome is Outcome.N)
    for change, message in [
        (lambda c: c["periodic_n"][0].update(winning=[miss]), f"does not find the odd move {miss} winning"),
        (lambda c: c["periodic_n"][0].update(winning=[26]), "is not a list of odd moves"),
        (lambda c: c["periodic_n"][0].update(winning=[]), "is not a list of odd moves"),
        (lambda c: c["periodic_n"].pop(0), "not proved P"),
        (lambda c: c["periodic_n"][0].update(position=[8, 14, 19]), "is not a position with g = 2"),
        (lambda c: c["periodic_n"][0].update(position=[8, 14, 34]), "not proved P"),
        (lambda c: c["periodic_n"][0].pop("base"), "lacks position/start/length/base/winning"),
        (lambda c: c["periodic_n"][0].update(start=c["periodic_n"][0]["start"] - 2), "does not recur"),
    ]:
        bad = copy.deepcopy(cert)
        change(bad)
        with pytest.raises(CertificateError, match=message):
            verify_any(bad)


def test_base_region_entries_once() -> None:
    """A replay record lists each base-region position once ({8,12,34,38}: the scan meets 37
    positions 97 times); a repeat is refused in a version-2 certificate, and read in a version-1
    one (written before) when it agrees with the first entry."""
    import copy

    from sylver.proof.build import build_gcd_certificate
    from sylver.proof.certificate import GCD_VERSION, CertificateError, verify_any

    cert = build_gcd_certificate(solve(Position([8, 12, 34, 38])))
    assert cert["version"] == GCD_VERSION == 2
    for rec in [cert["root_periodic"], *cert["periodic"]]:
        seen = [Position(g) for g, _ in rec["base"]]
        assert len(seen) == len(set(seen))
    base = cert["root_periodic"]["base"]
    assert len(base) == 37
    repeated = copy.deepcopy(cert)
    repeated["root_periodic"]["base"] = base + base[:5]
    with pytest.raises(CertificateError, match="appears twice"):
        verify_any(repeated)
    repeated["version"] = 1
    verify_any(repeated)
    p = next(i for i, (_, r) in enumerate(base) if r == -1)
    n = next(i for i, (_, r) in enumerate(base) if r != -1)
    for i, flip in ((p, base[n][1]), (n, -1)):
        conflict = copy.deepcopy(repeated)
        conflict["root_periodic"]["base"].append([base[i][0], flip])
        with pytest.raises(CertificateError, match="two different entries"):
            verify_any(conflict)
    bad = copy.deepcopy(cert)
    bad["version"] = 3
    with pytest.raises(CertificateError, match="unsupported certificate version 3"):
        verify_any(bad)


def test_certificate_uses_the_solves_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    """The solve keeps the winning moves it found for the positions with g > 1 it proved N
    (``GcdDetails.replies``); the certificate builder starts from them and solves no position with
    g > 1 again ({8,10,22}: its even moves lead to long positions)."""
    import sylver.solver
    from sylver.proof.build import build_gcd_certificate
    from sylver.proof.certificate import verify_any

    sol = solve(Position([8, 10, 22]))
    assert sol.gcd_details.replies and all(p.gcd > 1 and r for p, r in sol.gcd_details.replies.items())
    real = sylver.solver.solve

    def gcd1_only(p: Position, **kw: object) -> object:
        assert p.gcd == 1, f"{p} solved again"
        return real(p, **kw)

    monkeypatch.setattr(sylver.solver, "solve", gcd1_only)
    verify_any(build_gcd_certificate(sol))


def test_certificate_claims_no_more_than_it_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    """A P answer one of whose long even moves cannot be refuted in the certificate (here: the
    builder is made to fail on it) gets a probably-P certificate with that move left open."""
    from sylver.proof.build import NotCertifiable, _GcdBuilder, build_gcd_certificate, short_moves
    from sylver.proof.certificate import verify_any

    sol = solve(Position([8, 14]))
    x = next(m for m in short_moves(sol.position) if m % 2 == 0 and not is_short(sol.position.play(m))
             and len(sol.position.play(m).generators) > 1)
    refute = _GcdBuilder.refute

    def failing(self: _GcdBuilder, after: Position) -> int:
        if after == sol.position.play(x):
            raise NotCertifiable("its reply cannot be certified (test)")
        return refute(self, after)

    monkeypatch.setattr(_GcdBuilder, "refute", failing)
    cert = build_gcd_certificate(sol)
    assert (cert["outcome"], cert["complete"], cert["open_moves"]) == (
        "probably-P", False, {str(x): "its reply cannot be certified (test)"})
    assert verify_any(cert)[0].endswith("NOT proven P")


def test_probably_p_certificate() -> None:
    """A probably-P answer (sec. 2) gets a certificate of what is proven: every move refuted except
    the even moves left open (``null``), each of which must produce a long position; `verify` says
    what is not proven.  ({8,14} is P; here the solve's proof that its long move X loses is taken
    away, as if the scan of {8,14,X} had stopped at the odd limit.)"""
    import copy
    import dataclasses

    from sylver.proof.build import build_gcd_certificate, short_moves
    from sylver.proof.certificate import CertificateError, verify_any

    sol = solve(Position([8, 14]))
    longs = [x for x in short_moves(sol.position) if x % 2 == 0 and not is_short(sol.position.play(x))
             and sol.position.play(x).gcd == 2 and len(sol.position.play(x).generators) > 1]
    x = longs[0]
    details = dataclasses.replace(sol.gcd_details, probably_p=True, replies={
        p: r for p, r in sol.gcd_details.replies.items() if p != sol.position.play(x)})
    probably = dataclasses.replace(sol, outcome=None, complete=False, gcd_details=details)
    cert = build_gcd_certificate(probably)
    assert cert["outcome"] == "probably-P" and not cert["complete"]
    moves = short_moves(sol.position)
    assert [m for m, r in zip(moves, cert["root_replies"], strict=True) if r is None] == [x]
    lines = verify_any(cert)
    assert lines[0] == "{8,14} is probably P (Sicherman, \"Theory and Practice of Sylver Coinage\", " \
        "Integers 2002, sec. 2): NOT proven P"
    assert lines[2].startswith(f"not proven: the even move {x} produces a long position with g = 2")
    assert lines[2].endswith("{8,14} is N if it is P, else P")
    full = build_gcd_certificate(sol)
    for i, value, message in [
        (moves.index(x), None, None),
        (0, None, "does not produce a long position"),  # an odd move left open
        (moves.index(x), 0, "neither an ender"),
    ]:
        bad = copy.deepcopy(cert)
        bad["root_replies"][i] = value
        if message is None:  # every move refuted: then the claim is P, not probably-P
            bad["root_replies"][i] = full["root_replies"][i]
            bad["periodic"], bad["claims"], bad["nodes"] = (full[k] for k in ("periodic", "claims", "nodes"))
            message = "leaves no move open"
        with pytest.raises(CertificateError, match=message):
            verify_any(bad)
    for field, value, message in [("complete", True, "is not complete"), ("outcome", "P", "must be complete")]:
        bad = copy.deepcopy(cert)
        bad[field] = value
        with pytest.raises(CertificateError, match=message):
            verify_any(bad)


def test_tight_memory_budget_same_period() -> None:
    """Under a memory budget too small for a hash of every state, only some states are kept (and
    fewer snapshots): the same least period and start are certified."""
    S = Position([16, 22, 24, 26, 28, 30, 34])  # period 5040 from 631: 2,800 states
    ref = Scan(S)
    ref.run()
    known = dict(ref.base_list)
    tight = Scan(S, graph=ref.graph, memory=96 << 10, base=lambda ps: [known[p] for p in ps])
    tight.run()
    assert tight.state.sample > 0
    assert tight.state.period == ref.state.period


def test_a_scan_grows_within_its_memory() -> None:
    """What a scan adds while it runs (its hash tables of states, snapshots, the table of the rest)
    stays within what its memory leaves (issue 31: the process passed ``--memory``): given the room
    that ``fits`` asks for, the scan holds no more at any time, keeping only some states, and
    certifies the same period as without a budget (which holds more)."""
    from sylver.solver.gcd.periodic import fits

    S = Position([16, 22, 24, 26, 28, 30, 34])
    ref = Scan(S)
    ref.run()
    known, g = dict(ref.base_list), ref.graph
    need = fits(S, graph_bytes=g.nbytes(), shapes=g.shapes, down_moves=int(g.down_idx.shape[0]),
                Tmax=int(g.fam_T.max()), memory=1 << 30)
    memory = need + (64 << 10)
    assert ref.memory_bytes() > memory
    tight = Scan(S, graph=g, memory=memory, base=lambda ps: [known[p] for p in ps], keep_base=False)
    peak = [tight.memory_bytes()]
    for name in ("_grow", "_snapshot", "_enter_family_stage", "_incoming"):
        real = getattr(tight, name)

        def measured(*args: Any, real: Any = real) -> Any:
            out = real(*args)
            peak[0] = max(peak[0], tight.memory_bytes())
            return out

        setattr(tight, name, measured)
    tight.run()
    assert peak[0] <= memory and tight.memory_bytes() <= memory
    assert tight.state.sample > 0 and tight.state.period == ref.state.period


@pytest.mark.parametrize("compiled", [True, False])
def test_a_base_region_too_large_is_refused_before_its_positions_are_made(compiled: bool) -> None:
    """A base region's positions are counted before any is made or solved (issue 31: a listing of
    760,895 positions passed the budget): past the memory left for it, TooLargeError says how many
    and how much, as soon as the keys listed so far pass it ("more than") or once they are all
    counted; none is solved; within it, the same region as without a budget."""
    from sylver.errors import TooLargeError
    from sylver.solver.gcd.periodic import REGION_POSITION_BYTES, BaseRegion

    g = build(Position([6, 44, 82]))
    solved: list[Position] = []

    def base(ps: list[Position]) -> list[bool]:
        solved.extend(ps)
        return [False] * len(ps)

    rows = 1936 * 18 * 4  # which: a row of 18 heights (t(E ÷ 2) ≤ 37) for each of the 1,936 shapes
    exact = rows + 1069 * REGION_POSITION_BYTES
    with pytest.raises(TooLargeError, match=r"the base region of \{6,44,82\} lists 1,069 gcd-1 positions to "
                                            rf"solve, about \d+\.\dK \({REGION_POSITION_BYTES} bytes each and "
                                            r"136\.1K of rows\), more than the \d+\.\dK left for it: use a larger --memory"):
        BaseRegion.of(g, base, memory=exact - 1, compiled=compiled)
    with pytest.raises(TooLargeError, match=r"the base region of \{6,44,82\} lists more than [\d,]+ gcd-1 "
                                            r"positions to solve, about [\d.]+K at least"):
        BaseRegion.of(g, base, memory=rows + 500 * REGION_POSITION_BYTES, compiled=compiled)
    assert not solved
    region = BaseRegion.of(g, base, memory=exact, compiled=compiled)
    assert len(region) == len(solved) == 1069
    assert region.nbytes() - rows - region.mode.nbytes - region.base.nbytes == 1069 * (8 * 2 + 1)


def test_a_solve_leaves_a_move_whose_base_region_does_not_fit_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    """Below the root, a long position whose base region would pass the memory left is undecided
    for want of memory (the reason says so) before any of its positions is solved; a scan made by
    a solve grows within what the solve's pool has left (``Context.room``).  (A base region of small
    keys rarely passes what its graph's build needs first: here a position counts 1,000 bytes.)"""
    from sylver.solver.gcd import context, g2, periodic

    monkeypatch.setattr(periodic, "REGION_POSITION_BYTES", 1000)  # positions as large as Positions were
    ctx = _context()
    ctx.root = Position([6, 10])
    ctx.memory = 2 * 1_800_000  # the graph of {6,44,82} fits, its 1,069 base-region positions not
    v = g2.scan_or_verdict(Position([6, 44, 82]), ctx, True, 2001)
    assert isinstance(v, context.Finding) and v.outcome is None
    assert re.search(r"the base region of \{6,44,82\} lists (more than [\d,]+|1,069) gcd-1 positions", v.reason)
    assert not ctx.gcd1 and ctx.states == 0
    ctx = _context()
    ctx.memory = 2 * 2_300_000
    scan, _ = g2.scan_for(Position([6, 44, 82]), ctx)
    assert ctx.scans == [scan] and scan.room() <= ctx.half() - ctx.held()


@pytest.mark.slow
def test_cluster_base_region() -> None:
    """--cluster: the base-region positions of {6,40,74} (704) are solved on a Dask cluster, with
    the same answer as in this process."""
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    ref = solve(Position([6, 40, 74]), odd_limit=301)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as lc:
        sol = solve(Position([6, 40, 74]), odd_limit=301, cluster=lc.scheduler_address)
    assert sol.to_dict()["odd_tail"] == ref.to_dict()["odd_tail"]
    assert sol.winning_moves == ref.winning_moves == (4,)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc)."""
    import os

    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
def test_cli_kill_and_resume(tmp_path) -> None:
    """kill -9 in a long scan loses at most the work since the last checkpoint: the same command
    resumes from the checkpoint and gives the answer of an uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    limit = "300001"  # the scan runs ~60,000 x a CPU second: 100001 could end within the wait below
    args = ["solve", "6", "50", "94", "--no-store", "--odd-limit", limit, "--json"]
    code, out, err = cli(*args)
    assert code == 0, err
    ref = json.loads(out)
    assert ref["odd_tail"]["scanned_to"] == int(limit)

    ck = tmp_path / "scans"
    saved = ck / "6,50,94.npz"
    args += ["--checkpoint", str(ck)]
    proc = subprocess.Popen([sys.executable, "-m", "sylver", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, SYLVER_CHECKPOINT_SECONDS="1"))
    try:
        deadline = time.monotonic() + 120
        while not saved.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None, "the scan ended before its first checkpoint: raise the limit"
        cpu = _cpu_seconds(proc.pid)
        while _cpu_seconds(proc.pid) < cpu + 0.5 and proc.poll() is None:
            time.sleep(0.02)  # half a CPU second past the first checkpoint: the kill lands mid-scan
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL, stderr
    with np.load(saved) as z:
        before = int(z["n"]) - 2  # the checkpoint's state is after height n - 2
    assert 3 < before < int(limit)
    stale = ck / "6,50,94.npz.tmp4194305"  # as left by a run killed while writing (no such pid)
    stale.write_bytes(b"partial")

    code, out, err = cli(*args)
    assert code == 0, err
    assert f"from its checkpoint at x = {before:,}" in err  # resumed from the checkpoint, not from x = 3
    assert not stale.exists()
    got = json.loads(out)
    for d in (ref, got):
        for key in ("seconds", "peak_bytes", "peak_rss_bytes"):
            d.pop(key)
    assert got == ref


def test_checkpoint_interval_checked(tmp_path, monkeypatch) -> None:
    """A bad SYLVER_CHECKPOINT_SECONDS is a one-line error before any work."""
    monkeypatch.setenv("SYLVER_CHECKPOINT_SECONDS", "soon")
    code, _, err = cli("solve", "6", "40", "74", "--no-store", "--checkpoint", str(tmp_path), "--odd-limit", "101")
    assert code == 2 and "SYLVER_CHECKPOINT_SECONDS must be a positive number of seconds" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("gens", [[8, 14], [10, 16, 24], [6, 16], [8, 18]], ids=str)
def test_jobs_spread_long_children(gens: list[int], monkeypatch) -> None:
    """With --jobs 2 the long positions after the even moves are solved in worker processes; the
    answer is that of --jobs 1, but for which reply the reason names against an even move when
    several win (the killer moves found differ between processes): each one named is checked."""
    import sylver.executors

    one = solve(Position(gens), odd_limit=301, store=None, jobs=1).to_dict()
    pools = []
    real = sylver.executors.make_executor

    def counting(jobs=None, cluster=None):
        pools.append(jobs)
        return real(jobs, cluster)

    monkeypatch.setattr(sylver.executors, "make_executor", counting)
    two = solve(Position(gens), odd_limit=301, store=None, jobs=2).to_dict()
    assert pools and set(pools) == {2}
    replies, shapes = [], []
    for d in (one, two):
        for key in ("seconds", "peak_bytes"):
            d.pop(key)
        reason = d.pop("reason")
        replies.append(dict(re.findall(r"(\d+) → (\d+)", reason)))
        shapes.append(re.sub(r"→ \d+", "→ z", reason))
    assert two == one and shapes[0] == shapes[1]
    assert replies[0].keys() == replies[1].keys()
    for y, z in replies[1].items():
        if z != replies[0][y]:  # another winning reply: the position after it must be P
            assert solve(Position([*gens, int(y), int(z)]), odd_limit=301, store=None).outcome is Outcome.P, (y, z)


# -- --time-limit and Ctrl-C with --jobs: the workers are stopped ---------------------------------

SLOW_WORKERS = """
import os, sys, time
import sylver.solver.gcd.periodic as periodic

_real, _parent, _pids = periodic.solve_base, os.getpid(), {pids!r}


def _slow(positions, **kw):  # a base region far too hard for the time given, in the workers only
    if os.getpid() != _parent:
        with open(_pids, "a") as fh:
            fh.write(f"{{os.getpid()}}\\n")
        time.sleep(60)
    return _real(positions, **kw)


periodic.solve_base = _slow
"""


def _warm() -> None:
    """Compile (or load) the kernels before a timed solve: compiling is not interruptible."""
    solve(Position([8, 10, 22]), store=None)


def _alive(pids_file) -> list[int]:
    """The processes named in ``pids_file`` that still run (not ended, not zombies)."""
    import psutil

    pids = {int(x) for x in pids_file.read_text().split()} if pids_file.exists() else set()
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


@pytest.mark.clock  # (the long steps are a minute's sleep)
def test_time_limit_holds_with_jobs(tmp_path) -> None:
    """--time-limit with --jobs 2: the answer comes within the limit (plus a margin), says what is
    undecided, and the worker processes busy with the long even moves' positions (here: with a
    base region that takes a minute) are ended, not waited for."""
    import time

    import sylver.solver.gcd.periodic as periodic

    _warm()
    pids = tmp_path / "pids"
    real = periodic.solve_base
    exec(SLOW_WORKERS.format(pids=str(pids)), {})  # replaces periodic.solve_base
    try:
        start = time.monotonic()
        sol = solve(Position([14, 16]), odd_limit=301, time_limit=3, jobs=2, store=None)
        wall = time.monotonic() - start
    finally:
        periodic.solve_base = real
    assert wall < 3 + 3, wall
    assert pids.exists(), "no long child reached a worker"
    assert sol.verdict in ("N", "unknown") and not sol.complete
    assert "undecided even moves" in sol.gcd_details.reason
    assert _alive(pids) == []


@pytest.mark.clock  # (the long steps are a minute's sleep)
def test_time_limit_holds_in_base_region_with_jobs(tmp_path) -> None:
    """--time-limit with --jobs 2 while the workers solve the root's base region (704 positions for
    {6,40,74}, here each chunk taking a minute): the solve ends at the limit (nothing is proven, so
    it says that: SolveTimeout) and the workers are ended."""
    import time

    import sylver.solver.gcd.periodic as periodic
    from sylver.solver import SolveTimeout

    _warm()
    pids = tmp_path / "pids"
    real = periodic.solve_base
    exec(SLOW_WORKERS.format(pids=str(pids)), {})  # replaces periodic.solve_base
    start = time.monotonic()
    try:
        with pytest.raises(SolveTimeout, match="not solved within 2 s"):
            solve(Position([6, 40, 74]), odd_limit=301, time_limit=2, jobs=2, store=None)
    finally:
        periodic.solve_base = real
    # the chunks take a minute: ending within seconds of the limit is the point (the margin is for
    # starting and ending the workers on a loaded machine, which took over 3 s at load 6)
    assert time.monotonic() - start < 2 + 20
    assert pids.exists() and _alive(pids) == []


@pytest.mark.slow
def test_ctrl_c_stops_jobs_workers(tmp_path) -> None:
    """Ctrl-C (SIGINT to the main process only) during a --jobs 2 solve whose workers are busy:
    the command ends within seconds, says it was interrupted, and no worker is left running."""
    import os
    import signal
    import subprocess
    import sys
    import time

    pids = tmp_path / "pids"
    script = SLOW_WORKERS.format(pids=str(pids)) + (
        "from sylver.cli import main\n"
        "main(['solve', '14', '16', '--odd-limit', '301', '--jobs', '2', '--no-store'])\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ))
    try:
        deadline = time.monotonic() + 120
        while not pids.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.poll() is None and pids.exists(), "no worker started"
        time.sleep(0.5)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stdout and "Traceback" not in stderr
    assert took < 5, took
    assert _alive(pids) == []


def test_short_reason_says_why_odd_moves_are_open() -> None:
    """A short position's open odd moves are "not needed" only when a winning move was found; a
    solve stopped by its time limit says they were left undecided."""
    from sylver.solution import OddTail
    from sylver.solver.gcd.g2 import _g2_reason

    odd = OddTail(scanned_to=0, period_start=None, period_length=None, odd_winning_moves=(),
                  complete=False, open_moves="53, 55")
    pos = Position([12, 46])
    stopped = _g2_reason(pos, "short", 109, odd, [14], None, False)
    assert "except 53, 55, left undecided (the solve stopped before it decided them)" in stopped
    assert "winning move was found" not in stopped
    won = _g2_reason(pos, "short", 109, odd, [], Outcome.N, False)
    assert "except 53, 55, not needed (a winning move was found first)" in won


def test_one_verdict_vocabulary() -> None:
    """A solve's verdict is a :class:`~sylver.position.Verdict`, whose values are the words of the
    JSON and of the certificates (whose checker keeps its own copy: standard library only)."""
    from sylver.position import Verdict
    from sylver.proof.certificate import PROBABLY_P

    assert Verdict.of(Outcome.P) is Verdict.P and Verdict.of(Outcome.N, probably_p=True) is Verdict.N
    assert Verdict.of(None, probably_p=True) is Verdict.PROBABLY_P and Verdict.of(None) is Verdict.UNKNOWN
    assert PROBABLY_P == Verdict.PROBABLY_P == "probably-P"
    sol = solve(Position([4, 6]))
    assert sol.verdict is Verdict.P and sol.to_dict()["outcome"] == "P"


def test_progress_view_tells_the_reports_apart() -> None:
    """``sylver solve``'s progress view gets both kinds of report (a solve's ``progress`` callback
    receives a ``ProgressReport``): a resumed scan is said once, full tables once."""
    from sylver.cli.common import err_console
    from sylver.cli.solve import _ProgressView
    from sylver.solver import Progress, ScanProgress

    view = _ProgressView(False)
    scan = ScanProgress(height=101, limit=None, rate=1.0, shapes=1, families=1, memory=0, seconds=1.0,
                        hits=(), position=Position([6, 44, 82]), resumed_from=99)
    full = Progress(states=10, seconds=5.0, root_moves_decided=0, root_moves=3, winning_moves=(),
                    table_bytes=1 << 20, tables_full="the --memory budget 1M")
    with err_console.capture() as out:
        for report in (scan, full, scan, full):
            view(report)
    text = " ".join(out.get().split())
    assert text.count("resuming the scan of {6,44,82} from its checkpoint at x = 99") == 1
    assert text.count("the transposition tables are full (the --memory budget 1M) after 10 states") == 1


# -- children refused for want of memory, tried again alone (issue 31) -------------------------


def test_a_child_refused_for_want_of_memory_is_decided_alone() -> None:
    """{16,20,34} (P, short: Sicherman 2002, sec. 2) with ``--memory 224M``: its even move 58 leaves
    the long {16,20,34,58}, whose shape graph and base region did not fit beside what the solve held
    then, so the answer was probably-P ("left undecided for want of memory"), though
    {16,20,34,58} alone at 224M is N by 291 in seconds.  Tried again alone, it is decided: P."""
    sol = solve(Position([16, 20, 34]), memory="224M", store=None)
    assert sol.outcome is Outcome.P and sol.complete, sol.gcd_details.reason
    assert "58 → 291" in sol.gcd_details.reason and "want of memory" not in sol.gcd_details.reason


def test_a_child_tried_alone_stays_within_the_budget(monkeypatch) -> None:
    """The retry of a child alone (``g2.retry_alone``) gives the shape graphs what the gcd-1 tables
    leave, not more: at every ``forget`` of the retry (the end of a position's search, where its
    scans are largest) the graphs, scans, regions and memo held (``Context.held``) fit their part,
    and with the tables' bytes within the budget.  {16,20,34} with 36M for its data (``--memory
    72M``): 58 fits only with more than half of it (its shape graph: about 19M at the peak of its
    build; 64M before the estimate was that peak, issue 50)."""
    from sylver.solver.engine import ENGINE
    from sylver.solver.gcd import g2
    from sylver.solver.gcd.context import Context

    root = Position([16, 20, 34])
    ctx = Context(odd_limit=None, deadline=None, memory=36 << 20, store=None, jobs=1, cluster=None,
                  progress=None, checkpoint_dir=None)
    ctx.root = root
    seen: list[tuple[int, int, int, int]] = []
    real = g2.forget

    def forget(c: Context, *counts: int) -> None:
        seen.append((c.half(), c.tables(), c.held(), ENGINE.table_bytes))
        real(c, *counts)

    monkeypatch.setattr(g2, "forget", forget)
    v = g2.solve_g2(root, ctx)
    assert v.outcome is Outcome.P and v.complete and not ctx.too_large
    alone = [s for s in seen if s[0] > ctx.memory // 2]
    assert alone, "58 was decided without a retry"
    for half, tables, held, table_bytes in alone:
        assert half + tables <= ctx.memory and held <= half and table_bytes <= tables
        assert held + table_bytes <= ctx.memory


def test_the_roots_own_graph_refused_is_tried_with_the_tables_capped() -> None:
    """The root's own shape graph refused at half of the budget is built again with the gcd-1
    tables capped at 1/8 of it (``g2._root_alone``), as a child tried alone is.  {16,20,34,58}
    with 36M for its data (its shape graph: about 19M at the peak of its build): N by 291 (the
    child of the test above); before, TooLargeError "the shape graph needs more than the … left"
    at half of it (``sylver solve 16 38 56 60 74 --memory 20G``: its base region refused beside the tables'
    half, issue 31).  With 20M it is refused again: an error.  (64M and 48M until the estimate was
    the build's real peak, issue 50.)"""
    from sylver.errors import TooLargeError
    from sylver.solver.gcd import g2
    from sylver.solver.gcd.context import TABLES_ALONE, Context

    def context(memory: int) -> Context:
        ctx = Context(odd_limit=None, deadline=None, memory=memory, store=None, jobs=1, cluster=None,
                      progress=None, checkpoint_dir=None)
        ctx.root = Position([16, 20, 34, 58])
        return ctx

    ctx = context(36 << 20)
    v = g2.solve_g2(ctx.root, ctx, full=False)
    assert v.outcome is Outcome.N and v.winning == [291], v.reason
    assert ctx.half() == ctx.memory - ctx.memory // TABLES_ALONE
    ctx = context(20 << 20)
    with pytest.raises(TooLargeError, match=r"shape graph of \{16,20,34,58\} needs more than the 17.5M left"):
        g2.solve_g2(ctx.root, ctx, full=False)


def test_with_worker_processes_a_child_alone_has_the_whole_budget() -> None:
    """With ``--jobs 2`` this process has half of the data budget (its workers share the other
    half, :func:`~sylver.solver.gcd.context.data_memory`); once the workers are gone, a child tried
    alone has the whole of it, as with one process.  {16,20,34} with 32M (of 64M: the budget with
    which one process decides it, above): P; before, 30 and 58 were left undecided for want of
    memory (``sylver solve 16 26 88 --memory 16G -j 2``: probably-P at 3.1 GB peak, issue 31)."""
    from sylver.solver.gcd import g2
    from sylver.solver.gcd.context import Context

    root = Position([16, 20, 34])
    ctx = Context(odd_limit=None, deadline=None, memory=32 << 20, store=None, jobs=2, cluster=None,
                  progress=None, checkpoint_dir=None)
    ctx.root = root
    v = g2.solve_g2(root, ctx)
    assert v.outcome is Outcome.P and v.complete and not ctx.too_large, v.reason
    assert (ctx.jobs, ctx.memory, ctx.graphs) == (2, 32 << 20, None)  # restored after the retries
