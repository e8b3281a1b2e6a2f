"""sylver.semigroup against brute force, on both the int64 (numba) and the exact pure-Python path."""

from __future__ import annotations

import contextlib
import math
import pickle
import random
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sylver import semigroup
from sylver.errors import InvalidMoveError, InvalidPositionError, TooLargeError
from sylver.semigroup import Semigroup, check_number, minimal_generators

SMALL_GENS = st.lists(st.integers(1, 40), min_size=1, max_size=5)


@contextlib.contextmanager
def pure_python() -> Iterator[None]:
    """Force the exact pure-Python Apéry path (as for generators beyond int64)."""
    saved = semigroup.INT64_SAFE
    semigroup.INT64_SAFE = 0
    try:
        yield
    finally:
        semigroup.INT64_SAFE = saved


def brute_members(gens: list[int], bound: int) -> list[bool]:
    """member[n] for 0 <= n <= bound, by dynamic programming."""
    member = [False] * (bound + 1)
    member[0] = True
    for n in range(1, bound + 1):
        member[n] = any(n >= g and member[n - g] for g in gens)
    return member


def brute_minimal(gens: list[int]) -> tuple[int, ...]:
    kept: list[int] = []
    for g in sorted(set(gens)):
        if not brute_members(kept, g)[g] if kept else True:
            kept.append(g)
    return tuple(kept)


def check_against_brute(gens: list[int]) -> None:
    s = Semigroup(gens)
    g = math.gcd(*gens)
    assert s.gcd == g
    assert s.generators == brute_minimal(gens)
    assert s.multiplicity == min(gens)
    assert s.embedding_dimension == len(s.generators)
    bound = 2 * max(gens) * min(gens) + 2
    member = brute_members(gens, bound)
    for n in range(bound + 1):
        assert (n in s) == member[n], n
        w = s.representation(n)
        if member[n]:
            assert w is not None and all(c > 0 and x in s.generators for x, c in w.items())
            assert sum(x * c for x, c in w.items()) == n
        else:
            assert w is None
    ap = s.apery_set()
    m = s.multiplicity
    for r in range(m):
        in_class = [n for n in range(r, bound + 1, m) if member[n]]
        assert ap[r] == (in_class[0] if in_class else None)
    if g == 1:
        gaps = [n for n in range(1, bound + 1) if not member[n]]
        assert s.gaps() == gaps
        assert list(s.iter_gaps()) == gaps
        assert s.genus == len(gaps)
        assert s.frobenius_number == (gaps[-1] if gaps else -1)
        assert s.conductor == s.frobenius_number + 1
    else:
        with pytest.raises(ValueError, match="gcd"):
            _ = s.frobenius_number
        with pytest.raises(ValueError, match="gcd"):
            _ = s.genus


class TestAgainstBruteForce:
    @settings(max_examples=150, deadline=None)
    @given(SMALL_GENS)
    def test_numba_path(self, gens: list[int]) -> None:
        check_against_brute(gens)

    @settings(max_examples=60, deadline=None)
    @given(SMALL_GENS)
    def test_pure_python_path(self, gens: list[int]) -> None:
        with pure_python():
            s = Semigroup(gens)
            if len(s.generators) > 1:
                assert isinstance(s._apery(), list)
            check_against_brute(gens)

    @settings(max_examples=100, deadline=None)
    @given(SMALL_GENS, st.integers(1, 60))
    def test_add_equals_rebuild(self, gens: list[int], x: int) -> None:
        s = Semigroup(gens)
        assert s.add(x) == Semigroup(gens + [x])
        assert s.add(x).apery_set() == Semigroup(gens + [x]).apery_set()
        with pure_python():
            assert s.add(x).apery_set() == Semigroup(gens + [x]).apery_set()

    def test_add_of_a_new_multiplicity_or_gcd_equals_rebuild(self) -> None:
        """The O(m + x) path of ``add`` (x below the multiplicity, or x lowering the gcd)."""
        rng = random.Random(11)
        seen = {"multiplicity": 0, "gcd": 0}
        for _ in range(3000):
            g = rng.choice([1, 1, 2, 3, 4, 6, 12])
            s = Semigroup(g * rng.randint(2, 60) for _ in range(rng.randint(2, 6)))
            x = rng.randint(1, 3 * s.generators[-1])
            if len(s.generators) < 2 or x in s or not (x < s.generators[0] or x % s.gcd):
                continue
            seen["multiplicity" if x < s.generators[0] else "gcd"] += 1
            new, rebuilt = s.add(x), Semigroup(s.generators + (x,))
            assert new.generators == rebuilt.generators and new.gcd == rebuilt.gcd
            assert new.apery_set() == rebuilt.apery_set()
        assert min(seen.values()) > 300

    def test_descending_game_is_fast_path(self) -> None:
        """A game that names ever smaller numbers (each move a new multiplicity) keeps every
        generator until one is a sum, exactly as a rebuild says."""
        s = Semigroup([503, 502])
        for x in range(501, 300, -1):
            s = s.add(x)
        assert s == Semigroup(range(301, 504))
        assert s.apery_set() == Semigroup(range(301, 504)).apery_set()


class TestExactness:
    def test_sylvester_random_pairs(self) -> None:
        rng = random.Random(7)
        for _ in range(20):
            a, b = rng.randint(100_000, 999_999), rng.randint(100_000, 999_999)
            if math.gcd(a, b) != 1:
                continue
            s = Semigroup([a, b])
            assert s.frobenius_number == (a - 1) * (b - 1) - 1
            assert s.genus == (a - 1) * (b - 1) // 2

    def test_huge_generators_are_exact(self) -> None:
        big = 10**30 + 1
        s = Semigroup([5, big])
        assert isinstance(s._apery(), list)  # beyond int64: the exact path
        assert s.frobenius_number == 4 * (big - 1) - 1
        assert s.genus == 4 * (big - 1) // 2
        assert (3 * big + 10) in s
        assert (4 * (big - 1) - 1) not in s
        w = s.representation(3 * big + 10)
        assert w == {5: 2, big: 3}

    def test_huge_add_switches_to_exact_path(self) -> None:
        s = Semigroup([6, 10])
        s2 = s.add(10**25 + 3)
        assert s2.gcd == 1
        assert s2 == Semigroup([6, 10, 10**25 + 3])
        assert s2.frobenius_number == Semigroup([6, 10, 10**25 + 3]).frobenius_number

    def test_single_huge_generator(self) -> None:
        s = Semigroup([10**40])
        assert 3 * 10**40 in s and 10**40 + 1 not in s
        assert s.representation(2 * 10**40) == {10**40: 2}

    def test_witness_koth_size(self) -> None:
        s = Semigroup([240891, 696853, 1058758, 1978349, 4279350])
        assert s.frobenius_number == 112_460_300
        for n in (112_460_301, 9_999_999_999, 123_456_789_012):
            w = s.representation(n)
            assert w is not None and sum(x * c for x, c in w.items()) == n

    def test_huge_gcd_is_as_cheap_as_its_reduction(self) -> None:
        g = 10**12
        s = Semigroup([2 * g, 3 * g])
        assert s.gcd == g and 5 * g in s and g not in s and 5 * g + 1 not in s
        assert s.representation(7 * g) == {2 * g: 2, 3 * g: 1}
        s2 = s.add(7 * g).add(7)
        assert s2.gcd == 1 and s2 == Semigroup([2 * g, 3 * g, 7])
        with pytest.raises(TooLargeError):
            s.apery_array()

    def test_apery_array_with_gcd(self) -> None:
        s = Semigroup([6, 10, 15 * 2])
        arr = s.apery_array()
        assert [None if v == semigroup.UNREACHABLE else int(v) for v in arr] == s.apery_set()
        assert s.apery_set() == [0, None, 20, None, 10, None]
        assert s.add(14).apery_set() == Semigroup([6, 10, 14]).apery_set()

    def test_large_multiplicity_refused(self) -> None:
        with pytest.raises(TooLargeError, match="too large"):
            Semigroup([semigroup.MAX_MULTIPLICITY + 1, semigroup.MAX_MULTIPLICITY + 2])


class TestGaps:
    def test_gap_limit(self) -> None:
        s = Semigroup([1009, 1013])
        assert s.genus == 1008 * 1012 // 2
        with pytest.raises(TooLargeError, match="exceed the limit of 1,000"):
            s.gaps(limit=1000)
        assert len(s.gaps()) == s.genus

    def test_genus_fast_when_gaps_refused(self) -> None:
        s = Semigroup([999_983, 999_979])
        assert s.genus == 999_982 * 999_978 // 2
        with pytest.raises(TooLargeError):
            s.gaps()
        assert next(s.iter_gaps()) == 1

    def test_trivial(self) -> None:
        one = Semigroup([1])
        assert one.gaps() == [] and one.genus == 0 and one.frobenius_number == -1
        assert list(one.iter_gaps()) == []
        empty = Semigroup()
        assert empty.generators == () and empty.gcd == 0 and 0 in empty and 1 not in empty
        with pytest.raises(InvalidPositionError):
            empty.apery_set()


class TestValues:
    def test_canonical_and_equal(self) -> None:
        assert Semigroup([4, 5, 10, 13]) == Semigroup([5, 4])
        assert hash(Semigroup([4, 5, 10, 13])) == hash(Semigroup([4, 5]))
        assert minimal_generators([13, 10, 5, 4, 4]) == (4, 5)
        assert repr(Semigroup([5, 4])) == "Semigroup([4, 5])"

    def test_pickle(self) -> None:
        s = Semigroup([7, 8, 10, 13])
        s2 = pickle.loads(pickle.dumps(s))
        assert s2 == s and s2.frobenius_number == 19

    def test_numpy_ints(self) -> None:
        s = Semigroup([np.int64(4), np.int32(5)])
        assert s.generators == (4, 5) and np.int64(13) in s

    @pytest.mark.parametrize("bad", [0, -3, 4.5, "abc", True, None])
    def test_bad_generators(self, bad: object) -> None:
        with pytest.raises(InvalidMoveError):
            Semigroup([4, bad])  # type: ignore[list-item]

    def test_check_number(self) -> None:
        assert check_number(np.int64(5)) == 5
        with pytest.raises(InvalidMoveError, match="not a positive integer"):
            check_number(0)
        with pytest.raises(InvalidMoveError, match="not an integer"):
            check_number("7")

    def test_membership_of_odd_values(self) -> None:
        s = Semigroup([4, 5])
        assert "8" not in s and 8.0 not in s and -4 not in s and 0 in s
