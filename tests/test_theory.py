"""sylver.theory: the paper's examples (shared/seeds/004) and every function against brute force."""

from __future__ import annotations

import json
import math
from functools import cache

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sylver import Outcome, Position
from sylver import theory as T
from sylver.errors import TooLargeError
from test_semigroup import brute_members, pure_python

FINITE = st.lists(st.integers(2, 20), min_size=1, max_size=4).filter(lambda g: math.gcd(*g) == 1)


# -- brute force, straight from the definitions ---------------------------------------------------
class Brute:
    """Legal moves, elimination, ends, enders, enclosure of a small g = 1 position by definition."""

    def __init__(self, gens: list[int]) -> None:
        self.gens = sorted(set(gens))
        self.bound = max(gens) * min(gens) + 2  # Schur: t <= (min - 1)(max - 1) - 1
        self.member = brute_members(self.gens, self.bound)
        self.gaps = [n for n in range(1, self.bound + 1) if not self.member[n]]
        self.t = self.gaps[-1] if self.gaps else -1
        self._after: dict[int, list[bool]] = {}

    def legal(self, n: int) -> bool:
        return 1 <= n <= self.bound and not self.member[n]

    def after(self, n: int) -> list[bool]:
        """Membership in S ∪ {n} up to t + 1 (everything above t is in S already)."""
        if n not in self._after:
            top = max(self.t, 0) + 1
            self._after[n] = brute_members(self.gens + [n], top) + [True] * (self.bound - top)
        return self._after[n]

    def eliminates(self, n: int, m: int) -> bool:
        return n != m and self.legal(n) and self.legal(m) and self.after(n)[m]

    def ends(self) -> list[int]:
        return [n for n in self.gaps if not any(self.eliminates(n, m) for m in self.gaps)]

    def kind(self) -> str:
        if self.ends() != [self.t]:
            return "none"
        quiet = all(self.member[self.t - n] for n in self.gaps if n < self.t)
        return "quiet" if quiet else "unquiet"

    def antisymmetric(self, skip_half: bool) -> bool:
        t = self.t
        return all(
            self.legal(n) != self.legal(t - n) for n in range(1, t) if not (skip_half and 2 * n == t)
        )

    def enclosure(self) -> Position:
        t = self.t
        adds = [n for n in self.gaps if t < 2 * n < 2 * t and self.legal(t - n)]
        return Position(self.gens + adds)


# -- the paper's examples -------------------------------------------------------------------------
class TestSection1:
    def test_t_and_tbar(self) -> None:
        assert T.t([5, 6]) == 19
        assert T.tbar([6, 8]) == 10
        with pytest.raises(ValueError, match="g = 2"):
            T.t([6, 8])

    def test_eliminated_moves(self) -> None:
        assert T.eliminated_moves([4, 5, 10, 13]) == [10, 13]
        assert T.eliminated_moves("{4,5,10,13}") == [10, 13]
        assert T.eliminated_moves([4, 5]) == []

    def test_ends_and_enders(self) -> None:
        assert T.ends([4, 5]) == [11]
        assert T.ends([7, 11, 13, 15]) == [17, 19, 23]
        assert T.ender_kind([4, 5]) is T.EnderKind.QUIET

    def test_4_5_7_is_an_unquiet_ender(self) -> None:
        p = Position([4, 5, 7])
        assert p.legal_moves() == [1, 2, 3, 6] and T.t(p) == 6
        assert T.is_ender(p) and T.is_unquiet_ender(p) and not T.is_quiet_ender(p)
        assert T.eliminates(p, 3, 6) and not T.quietly_eliminates(p, 3, 6)

    def test_hutchings(self) -> None:
        assert T.hutchings([2, 3]) is Outcome.P
        assert T.hutchings([5, 7]) is Outcome.N
        assert T.hutchings([7]) is Outcome.P
        assert T.hutchings([9]) is None and T.hutchings([4, 6]) is None
        assert T.outcome_by_theory([11])[0] is Outcome.P

    def test_coprime_pairs_are_quiet_enders_even_at_koth_size(self) -> None:
        p = Position([240891, 696853])
        assert T.is_quiet_ender(p) and T.ends(p) == [T.t(p)]
        assert T.outcome_by_theory(p)[0] is Outcome.N

    @pytest.mark.parametrize("gens", [[4, 6], [8, 14], [10, 16, 24], [6, 9], [12, 15, 18], [12, 18, 21]])
    def test_short_positions_of_the_paper(self, gens: list[int]) -> None:
        assert T.is_short(gens) and T.prime_multiple_kind(gens) == "short"

    @pytest.mark.parametrize(
        "gens",
        [[8, 10, 22], [8, 12, 18, 22], [8, 30, 34], [6, 44, 82], [6, 40, 74], [16, 22, 24, 26, 28, 30, 34],
         [20, 22, 24, 26, 28, 36], [6, 50, 94], [12, 15, 21], [9, 15, 21]],
    )
    def test_long_positions_of_the_paper(self, gens: list[int]) -> None:
        assert T.is_long(gens)

    def test_neither_short_nor_long(self) -> None:
        assert T.prime_multiple_kind([8, 12]) is None  # g = 4
        assert T.prime_multiple_kind([4, 5]) is None and T.prime_multiple_kind([7]) is None


class TestSection3:
    def test_quiet_ender_7_8_10_13_and_its_table(self) -> None:
        p = Position([7, 8, 10, 13])
        assert T.t(p) == 19 and T.is_quiet_ender(p)
        legal, illegal = T.legal_table(p)
        assert legal == [1, 2, 3, 4, 5, 6, 9, 11, 12]
        assert illegal == [7, 8, 10, 13, 14, 15, 16, 17, 18]
        assert T.satisfies_strong_antisymmetry(p) and T.satisfies_weak_antisymmetry(p)

    def test_enclosure(self) -> None:
        s = Position([7, 11, 13, 15])
        assert T.t(s) == 23
        assert s.legal_moves() == [1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 17, 19, 23]
        assert T.enclosure_moves(s) == [17, 19]
        e = T.enclosure(s)
        assert e == Position([7, 11, 13, 15, 17, 19]) and T.is_ender(e) and T.t(e) == 23

    def test_enclosure_bar(self) -> None:
        assert T.enclosure_bar([14, 22, 26, 30]) == Position([14, 22, 26, 30, 34, 38])
        assert T.enclosure_bar([6]) == Position([6]) and T.enclosure_bar([]) == Position()

    def test_odds_and_enders(self) -> None:
        assert T.odds_and_enders([7, 8, 10, 13]) is True
        assert T.odds_and_enders([4, 5, 7]) is False
        assert T.odds_and_enders([7, 11, 13, 15]) is None


class TestSection4:
    def test_formula_examples(self) -> None:
        assert T.roberts_frobenius_number(5, 1, 1) == 19  # Sylvester: t(5,6)
        assert T.roberts_frobenius_number(7, 1, 3) == 2 * 7 + 0 - 1 == T.t([7, 8, 9, 10])
        with pytest.raises(ValueError):
            T.roberts_frobenius_number(6, 2, 1)

    @pytest.mark.parametrize(
        ("gens", "case", "kind"),
        [
            ([5, 7], "A", "quiet"),
            ([3, 5, 7], "B", "unquiet"),  # t = 2d = 4
            ([3, 7, 11], "B", "unquiet"),
            ([5, 7, 9, 11], "C", "quiet"),  # s = 3 divides a0 - 2 = 3
            ([6, 7, 8], "C", "quiet"),  # s = 2 divides 4
            ([7, 8, 9], "C", "none"),  # s = 2 does not divide 5
            ([4, 5, 6, 7], "C", "none"),  # s = a0 - 1 (subcase I)
        ],
    )
    def test_classification(self, gens: list[int], case: str, kind: str) -> None:
        rc = T.roberts_classification(gens)
        assert rc is not None and rc.case == case and rc.ender_kind.value == kind
        assert rc.frobenius_number == T.t(gens)
        assert T.ender_kind(gens).value == kind

    def test_case_b_t_is_2d(self) -> None:
        for d in (1, 2, 4, 5, 7, 8):
            assert T.t([3, 3 + d, 3 + 2 * d]) == 2 * d

    @settings(max_examples=150, deadline=None)
    @given(st.integers(2, 14), st.integers(1, 12), st.integers(1, 13))
    def test_all_progressions(self, a0: int, d: int, s: int) -> None:
        assume(math.gcd(a0, d) == 1 and s <= a0 - 1)
        gens = [a0 + k * d for k in range(s + 1)]
        p = Position(gens)
        assert p.generators == tuple(gens)
        rc = T.roberts_classification(p)
        assert rc is not None and rc.frobenius_number == T.t(p) == Brute(gens).t
        assert rc.ender_kind.value == Brute(gens).kind()
        missing = T.moves_not_eliminating_t(p)
        if rc.case == "C" and s == a0 - 1:  # subcase I: exactly the kd with k not dividing s
            assert missing == [k * d for k in range(1, s + 1) if s % k]
        elif rc.case == "C":  # subcase II: t - kd for k <= r fail (the sketch omits some others)
            r = (a0 - 2) % s
            assert {T.t(p) - k * d for k in range(1, r + 1)} <= set(missing)
            assert (missing == []) == (r == 0)

    def test_not_a_progression(self) -> None:
        assert T.arithmetic_progression([4, 5, 7]) is None
        assert T.roberts_classification([4, 5, 7]) is None
        assert T.roberts_classification([6, 8, 10]) is None  # g = 2


# -- every function against brute force -----------------------------------------------------------
class TestAgainstBruteForce:
    @settings(max_examples=250, deadline=None)
    @given(FINITE)
    def test_classification_ends_enclosure(self, gens: list[int]) -> None:
        b = Brute(gens)
        p = Position(gens)
        assume(not p.is_over)
        assert T.t(p) == b.t
        assert T.ends(p) == b.ends()
        ends = b.ends()
        assert all(T.is_end(p, n) == (n in ends) for n in b.gaps + [b.t + 1, b.t + 2])
        kind = b.kind()
        assert T.ender_kind(p).value == kind
        assert T.is_ender(p) == (kind != "none")
        assert T.satisfies_strong_antisymmetry(p) == b.antisymmetric(skip_half=False) == (kind == "quiet")
        assert T.satisfies_weak_antisymmetry(p) == b.antisymmetric(skip_half=True) == (kind != "none")
        if kind != "none":  # Odds and Enders (sec. 3)
            assert (kind == "quiet") == (b.t % 2 == 1)
        e = T.enclosure(p)
        assert e == b.enclosure()
        assert T.is_ender(e) and T.t(e) == b.t  # sec. 3: E(S) is an ender with the same t
        assert T.moves_not_eliminating_t(p) == [n for n in b.gaps if n < b.t and not b.eliminates(n, b.t)]

    @settings(max_examples=80, deadline=None)
    @given(FINITE, st.integers(1, 40), st.integers(1, 40))
    def test_elimination(self, gens: list[int], n: int, m: int) -> None:
        b = Brute(gens)
        assume(m <= b.bound)
        assert T.eliminates(gens, n, m) == b.eliminates(n, m)
        quiet = n != m and b.legal(n) and b.legal(m) and m - n >= 0 and b.member[m - n]
        assert T.quietly_eliminates(gens, n, m) == quiet

    @settings(max_examples=80, deadline=None)
    @given(st.lists(st.integers(1, 40), min_size=1, max_size=6))
    def test_eliminated_moves(self, numbers: list[int]) -> None:
        distinct = sorted(set(numbers))
        expected = [x for x in distinct if brute_members([y for y in distinct if y != x], x)[x]]
        assert T.eliminated_moves(numbers) == expected

    @settings(max_examples=60, deadline=None)
    @given(FINITE, st.integers(2, 5))
    def test_enclosure_bar(self, gens: list[int], g: int) -> None:
        assume(Position(gens) != Position([1]))
        assert T.enclosure_bar([g * x for x in gens]) == Position(g * x for x in Brute(gens).enclosure())
        assert T.tbar([g * x for x in gens]) == g * Brute(gens).t

    @settings(max_examples=60, deadline=None)
    @given(FINITE)
    def test_pure_python_path(self, gens: list[int]) -> None:
        assume(not Position(gens).is_over)
        with pure_python():
            b = Brute(gens)
            assert T.ends(gens) == b.ends()
            assert T.enclosure(gens) == b.enclosure()
            assert T.ender_kind(gens).value == b.kind()

    @settings(max_examples=100, deadline=None)
    @given(st.integers(2, 60), st.integers(2, 60))
    def test_coprime_pairs_are_quiet_enders(self, m: int, n: int) -> None:
        assume(math.gcd(m, n) == 1)
        assert T.is_quiet_ender([m, n])
        assert T.t([m, n]) == (m - 1) * (n - 1) - 1

    @settings(max_examples=60, deadline=None)
    @given(FINITE, st.integers(1, 4), st.integers(1, 4), st.integers(2, 60))
    def test_quiet_end_theorem(self, gens: list[int], x: int, y: int, z: int) -> None:
        """Sec. 1: if z is coprime with x and y, (S×x)z is a quiet ender iff (S×y)z is."""
        assume(math.gcd(z, x) == 1 and math.gcd(z, y) == 1)
        sx = Position([g * x for g in gens] + [z])
        sy = Position([g * y for g in gens] + [z])
        assume(not sx.is_over and not sy.is_over)
        assert T.is_quiet_ender(sx) == T.is_quiet_ender(sy)


# -- outcomes -------------------------------------------------------------------------------------
def brute_is_n(gens: tuple[int, ...]) -> bool:
    """Exhaustive Sylver Coinage on a small g = 1 position (naming 1 loses)."""

    @cache
    def win(gaps: frozenset[int]) -> bool:
        top = max(gaps)
        for x in gaps:
            if x == 1:
                continue
            member = [n not in gaps for n in range(top + 1)]
            for n in range(x, top + 1):
                member[n] = member[n] or member[n - x]
            rest = frozenset(n for n in gaps if not member[n])
            if not win(rest):
                return True
        return False

    return win(frozenset(Position(gens).legal_moves()))


class TestOutcomes:
    @pytest.mark.parametrize(
        ("gens", "outcome"),
        [
            ([], "N"), ([2, 3], "P"), ([5], "P"), ([7], "P"), ([25], "N"), ([35], "N"), ([2], "N"),
            ([3], "N"), ([4], "N"), ([6], "N"), ([8], "N"), ([9], "N"), ([12], "N"), ([16], None),
            ([18], None), ([4, 6], "P"), ([6, 9], "P"), ([8, 12], "P"), ([8, 14], "P"),
            ([10, 16, 24], "P"), ([8, 10, 22], "P"), ([8, 12, 34, 38], "P"), ([12, 15, 18], "P"),
            ([12, 18, 21], "P"), ([16, 22, 24, 26, 28, 30, 34], "P"), ([20, 22, 24, 26, 28, 36], "P"),
            ([6, 44, 82], "N"), ([8, 30, 34], "N"), ([9, 15, 21], "N"), ([10, 15], "N"),
            ([12, 15, 21], None), ([6, 40, 74], "N"), ([6, 50, 94], "N"), ([24, 42], None), ([6, 8], "N"),
            ([4, 5], "N"), ([7, 8, 10, 13], "N"), ([4, 5, 7], "N"), ([7, 11, 13, 15], None),
        ],
    )
    def test_outcome_by_theory(self, gens: list[int], outcome: str | None) -> None:
        got, reason = T.outcome_by_theory(gens)
        assert (got.value if got else None) == outcome
        assert reason

    def test_game_over(self) -> None:
        assert T.outcome_by_theory([1]) == (None, "the game is over: 1 has been named, and whoever named it lost")

    def test_winning_moves_named_by_theory(self) -> None:
        assert T.report([6, 8])["winning_move"] == 4  # 4 leaves {4,6}
        assert T.report([12, 16, 36])["winning_move"] == 8  # 8 leaves {8,12}
        assert T.report([24, 42])["winning_move"] is None
        assert T.report([35, 70])["winning_move"] == 5  # g = 35: 5 leaves {5}
        assert T.report([8, 12, 26])["winning_move"] == 30  # completes {8,12,26,30}
        assert T.report([3, 5, 7])["winning_move"] == 2  # 2 leaves {2,3}

    def test_large_prime_factor_of_g(self) -> None:
        p = 1_000_003
        outcome, reason = T.outcome_by_theory([2 * p, 3 * p])
        assert outcome is Outcome.N and reason.startswith(f"{p} wins")
        assert T.report([p * 2, p * 3])["winning_move"] == p
        q = 1_000_000_007
        assert T.report([q * 4 * p])["winning_move"] == p

    @settings(max_examples=40, deadline=None)
    @given(st.lists(st.integers(2, 9), min_size=2, max_size=3))
    def test_theory_never_contradicts_exhaustive_search(self, gens: list[int]) -> None:
        p = Position(gens)
        assume(p.gcd == 1 and not p.is_over and p.genus <= 12)
        got, _ = T.outcome_by_theory(p)
        if got is not None:
            assert (got is Outcome.N) == brute_is_n(p.generators)

    def test_eight_twelve_family_every_member(self) -> None:
        """{8,12,8n+2,8n+6} is P (sec. 2), n = 1 included (sorted: 8,10,12,14); and {8,10,12}
        wins by 14 into it."""
        for n in range(1, 12):
            rec = T.known_result([8, 12, 8 * n + 2, 8 * n + 6])
            assert rec is not None and rec.outcome is Outcome.P, n
        assert T.known_result([8, 12, 18, 26]) is None
        assert T.winning_move_to_known_p([8, 10, 12]) is not None
        assert T.winning_move_to_known_p([8, 10, 12])[0] == 14

    def test_published_results(self, known_results: list[dict]) -> None:
        for entry in known_results:
            got, reason = T.outcome_by_theory(entry["position"])
            if got is not None:
                assert got.value == entry["outcome"], (entry, reason)
            move = T.report(entry["position"])["winning_move"]
            if move is not None and entry["complete"]:
                assert move in entry["winning_moves"], entry

    def test_known_table_is_cited_and_consistent(self, known_results: list[dict]) -> None:
        published = {tuple(e["position"]): e for e in known_results}
        for r in T.KNOWN_RESULTS:
            assert r.citation.startswith(T.PAPER + ", sec. ")
            assert Position(r.generators).generators == r.generators  # written in canonical form
            assert (r.outcome is Outcome.P) == (not r.winning_moves)
            start = Position(r.generators)
            for w in r.winning_moves:
                assert start.is_legal(w)
            e = published.get(r.generators)
            if e is not None:
                assert e["outcome"] == r.outcome.value
                assert set(r.winning_moves) <= set(e["winning_moves"]) or not e["complete"]


class TestFourSixFamily:
    X_MAX = 400
    """The family is checked against the exact solver for every odd x below this (x up to 2001 and
    more: ``bench/bench_theory.py``)."""

    def test_shape(self) -> None:
        assert T.four_six_family([4, 5, 6]) == (Outcome.N, (7,))
        assert T.four_six_family([4, 5, 6, 7]) == (Outcome.P, ())
        assert T.four_six_family([4, 6, 7]) == (Outcome.N, (5,))
        assert T.four_six_family([4, 6, 7, 9]) == (Outcome.N, (5,))
        assert T.four_six_family([4, 6, 9, 11]) == (Outcome.P, ())
        assert T.four_six_family([4, 6, 9, 11, 13, 19]) == (Outcome.P, ())  # canonically {4,6,9,11}
        for other in ([4, 6], [3, 4, 6], [4, 6, 8], [6, 9, 11], [4, 7, 9], [2, 4, 6], [4, 6, 1]):
            assert T.four_six_family(other) is None, other

    def test_against_the_solver(self) -> None:
        from sylver.solver import solve

        for x in range(5, self.X_MAX, 2):
            for gens in ((4, 6, x), (4, 6, x, x + 2)):
                sol = solve(Position(gens))
                assert T.four_six_family(gens) == (sol.outcome, sol.winning_moves), gens

    def test_in_the_theory_outcome(self) -> None:
        assert T.outcome_by_theory([4, 6, 101, 103])[0] is Outcome.P
        assert T.outcome_by_theory([4, 6, 10**9 + 1, 10**9 + 3])[0] is Outcome.P
        outcome, reason = T.outcome_by_theory([4, 6, 10**9 + 3])
        assert outcome is Outcome.N and str(10**9 + 1) in reason and "{4,6} family" in reason
        assert T.report([4, 6, 10**9 + 3])["winning_move"] == 10**9 + 1
        assert T.winning_move_by_theory([6, 101, 103]) == 4  # leaves {4,6,101,103}, P
        assert T.winning_move_by_theory([4, 6, 10**9 + 1, 10**9 + 3]) is None


class TestPlayFacts:
    """The quick tests players run on many positions: known_outcome, proven_n, winning_move_by_theory."""

    def test_known_p_positions(self) -> None:
        for q in ("2,3", "4,6", "6,9", "8,12", "8,14", "10,16,24", "8,10,22", "8,12,18,22", "4,5,6,7"):
            assert T.known_outcome(q) is Outcome.P, q
        assert T.known_outcome("") is Outcome.N and T.known_outcome("1") is None
        assert T.known_outcome("16") is None and T.known_outcome("9") is Outcome.N
        assert T.known_outcome("3,5,7") is Outcome.N  # 2 leaves {2,3}

    def test_theory_moves(self) -> None:
        cases = {
            "": 5, "10,15": 5, "4": 6, "9": 6, "12": 8, "2,7": 3, "3,11": 2, "8,10": 22,
            "16,24": 10,  # {10,16,24} is P
            "16,18": 5,  # {5,16,18} is P: 16 wins in {5,18}
            "16": None,  # open (sec. 2)
            "2,3": None, "4,6": None,
        }
        for text, move in cases.items():
            assert T.winning_move_by_theory(text) == move, text

    def test_proven_n(self) -> None:
        assert T.proven_n("5,14") and not T.proven_n("5,14,18")
        assert T.proven_n("123457,654321")  # Hutchings, without computing
        assert T.proven_n("4,5,7") and not T.proven_n("7,11,13,15")  # an ender, a non-ender
        assert not T.proven_n("2,3") and not T.proven_n("4,6")

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.integers(2, 40), min_size=1, max_size=4))
    def test_quick_tests_agree_with_outcome_by_theory(self, gens: list[int]) -> None:
        p = Position(gens)
        full, _ = T.outcome_by_theory(p)
        quick = T.known_outcome(p)
        assert quick is None or quick is full, p
        if T.proven_n(p):
            assert full is Outcome.N, p
        move = T.winning_move_by_theory(p)
        if move is not None:
            assert full is Outcome.N and T.known_outcome(p.play(move)) is Outcome.P, (p, move)


# -- the report -----------------------------------------------------------------------------------
REQUIRED = {
    "position", "gcd", "frobenius_number", "tbar", "genus", "legal_moves", "legal_move_count", "ends",
    "ender", "enclosure", "outcome_by_theory", "reason",
}


class TestReport:
    def test_4_5(self) -> None:
        r = T.report("4,5")
        assert REQUIRED <= set(r)
        assert r["position"] == [4, 5] and r["gcd"] == 1 and r["frobenius_number"] == 11
        assert r["legal_moves"] == [1, 2, 3, 6, 7, 11] and r["legal_move_count"] == 6
        assert r["ends"] == [11] and r["ender"] == "quiet" and r["enclosure"] == [4, 5]
        assert r["outcome_by_theory"] == "N" and "strategy stealing" in r["reason"]
        json.dumps(r)

    def test_gcd_above_1(self) -> None:
        r = T.report([14, 22, 26, 30])
        assert r["frobenius_number"] is None and r["genus"] is None and r["legal_moves"] is None
        assert r["legal_move_count"] is None and r["ender"] is None and r["ends"] is None
        assert r["tbar"] == 46 and r["enclosure"] == [14, 22, 26, 30, 34, 38]

    def test_limit(self) -> None:
        r = T.report([101, 103], move_list_limit=100)
        assert r["legal_moves"] is None and r["legal_move_count"] == 5100
        assert any("legal_moves" in note for note in r["notes"])

    def test_koth_size_fields_become_null_with_notes(self) -> None:
        r = T.report([240891, 696853, 1058758, 4279350, 1978349])
        assert r["genus"] == 63_137_782 and r["frobenius_number"] == 112_460_300
        assert r["legal_moves"] is None and r["enclosure"] is None
        assert r["ender"] == "none" and r["ends"] == T.ends([240891, 696853, 1058758, 4279350, 1978349])
        assert any(note.startswith("enclosure") for note in r["notes"])
        json.dumps(r)

    @pytest.mark.parametrize("gens", [[], [1], [2, 3], [5], [16], [6, 8]])
    def test_edge_positions(self, gens: list[int]) -> None:
        r = T.report(gens)
        assert REQUIRED <= set(r)
        json.dumps(r)

    def test_huge_generator(self) -> None:
        r = T.report([5, 10**30 + 1])
        assert r["frobenius_number"] == 4 * 10**30 - 1 and r["ender"] == "quiet"
        assert r["ends"] == [4 * 10**30 - 1] and r["legal_moves"] is None


# -- helpers: primes, moves to known P-positions, limits -------------------------------------------
class TestHelpers:
    @settings(max_examples=200, deadline=None)
    @given(st.integers(-5, 20_000))
    def test_is_prime(self, n: int) -> None:
        assert T.is_prime(n) == (n >= 2 and all(n % q for q in range(2, math.isqrt(n) + 1)))

    def test_is_prime_large(self) -> None:
        assert T.is_prime(2**61 - 1) and not T.is_prime((2**31 - 1) * (2**61 - 1))
        assert T.is_prime(10**30 + 57) and not T.is_prime(10**30 + 1)

    @settings(max_examples=200, deadline=None)
    @given(st.integers(1, 10**6))
    def test_prime_factor_at_least_5(self, n: int) -> None:
        q = T.prime_factor_at_least_5(n)
        rest = n
        for small in (2, 3):
            while rest % small == 0:
                rest //= small
        if rest == 1:
            assert q is None
        else:
            assert q is not None and q >= 5 and n % q == 0 and T.is_prime(q)

    def test_prime_factor_of_semiprime_above_trial_division(self) -> None:
        assert T.prime_factor_at_least_5(6 * (10**9 + 7) * (10**9 + 9)) in (10**9 + 7, 10**9 + 9)

    @settings(max_examples=150, deadline=None)
    @given(st.lists(st.integers(2, 40), min_size=1, max_size=4))
    def test_winning_move_to_known_p_is_checked_by_playing_it(self, gens: list[int]) -> None:
        p = Position(gens)
        found = T.winning_move_to_known_p(p)
        known_p = {k for k, _ in T.known_p_positions()}
        if found is not None:
            x, _ = found
            after = p.play(x)
            stated = T.known_result(after)  # a stated P-position, or a member of {8,12,8n+2,8n+6}
            assert (
                after in known_p
                or (stated is not None and stated.outcome is Outcome.P)
                or T.four_six_family(after) == (Outcome.P, ())
            )
        else:  # no legal move among the known P-positions' generators reaches one
            for k in known_p:
                for x in k.generators:
                    if p.is_legal(x):
                        assert p.play(x) != k

    def test_scan_limits(self) -> None:
        big = Position([4001, 4003])
        with pytest.raises(TooLargeError):
            T.moves_not_eliminating_t(big)
        assert T.moves_not_eliminating_t(Position([401, 403])) == []
        with pytest.raises(TooLargeError):
            T.legal_table(Position([1009, 1013]))

    def test_defined_only_for_g_1(self) -> None:
        for f in (T.ends, T.ender_kind, T.enclosure_moves):
            with pytest.raises(ValueError, match="g = 2"):
                f([4, 6])
        with pytest.raises(ValueError, match="game is over"):
            T.ender_kind([1])


class TestEnderCache:
    def test_proven_n_keeps_no_position_alive(self) -> None:
        """The ender tests :func:`proven_n` remembers are keyed by the generators: the Positions asked
        about (each with its Apéry set: 0.8 MB for a smallest number of 100,003) are not kept alive by
        it.  Issue 53: a cache keyed by the Position kept thousands of King-of-the-Hill positions, and
        a bot's process ran out of its 4 GiB of address space after some 88 games."""
        import gc

        asked = set()
        for k in range(20):
            p = Position((100_003, 100_004 + 7 * k, 100_005 + 7 * k))
            asked.add(p.generators)
            assert T.proven_n(p) is False  # not an ender
            assert T.proven_n(Position(p.generators)) is False  # asked again: remembered
        del p
        gc.collect()
        assert not [o for o in gc.get_objects() if type(o) is Position and o.generators in asked]
        assert all(T._enders.get(g, True) is False for g in asked)
        assert len(T._enders) <= T.ENDER_CACHE
