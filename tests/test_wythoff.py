"""Wythoff's Nim (shared/seeds/003): the library against brute force and independent checks."""

from __future__ import annotations

import functools
import pickle
from decimal import Decimal, getcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sylver.errors import InvalidMoveError, InvalidPositionError, TooLargeError
from sylver.position import Outcome
from sylver.wythoff import (
    SumMove,
    WythoffPosition,
    computer_move,
    diagonal_p_position,
    grundy_table,
    is_p_position,
    lower_wythoff,
    nim_value,
    outcome,
    p_positions,
    partner,
    sum_nim_value,
    upper_wythoff,
    winner,
    winning_move,
    winning_move_in_sum,
    winning_moves,
)

N = 300
"""Brute force covers every position with i, j ≤ N."""


# ---------------------------------------------------------------------------------------------
# Independent references


def _brute(n: int, misere: bool) -> tuple[np.ndarray, np.ndarray, dict]:
    """Outcome (True = P), Grundy values and the P-options of every position with i, j ≤ n,
    straight from the definitions, in plain Python.

    The options of (i, j) are the cells below it in its column, left of it in its row and down-left
    on its diagonal.  Outcome: P iff no option is P; (0, 0) is P in normal play, N in misère play.
    Grundy: the mex of the options' values (kept per line as a bit mask); misère G⁻(0, 0) = 1.
    """
    p = np.zeros((n + 1, n + 1), dtype=bool)
    g = np.zeros((n + 1, n + 1), dtype=np.int64)
    p_in_row: dict[int, list[tuple[int, int]]] = {}
    p_in_col: dict[int, list[tuple[int, int]]] = {}
    p_in_diag: dict[int, list[tuple[int, int]]] = {}
    row_mask: dict[int, int] = {}
    col_mask: dict[int, int] = {}
    diag_mask: dict[int, int] = {}
    p_options = {}
    for i in range(n + 1):
        for j in range(n + 1):
            # every P-cell already in the row / column / diagonal is an option (it is lower-left)
            options = p_in_row.get(i, []) + p_in_col.get(j, []) + p_in_diag.get(j - i, [])
            p_options[i, j] = set(options)
            if i == j == 0:
                is_p, value = not misere, 1 if misere else 0
            else:
                is_p = not options
                seen = row_mask.get(i, 0) | col_mask.get(j, 0) | diag_mask.get(j - i, 0)
                value = (~seen & (seen + 1)).bit_length() - 1  # the lowest bit not in seen
            p[i, j], g[i, j] = is_p, value
            if is_p:
                for lines, key in ((p_in_row, i), (p_in_col, j), (p_in_diag, j - i)):
                    lines.setdefault(key, []).append((i, j))
            for masks, key in ((row_mask, i), (col_mask, j), (diag_mask, j - i)):
                masks[key] = masks.get(key, 0) | 1 << value
    return p, g, p_options


@functools.cache
def brute(misere: bool) -> tuple[np.ndarray, np.ndarray, dict]:
    return _brute(N, misere)


def zeckendorf_partner(x: int) -> int:
    """Partner of x via the Zeckendorf representation (independent of φ and of isqrt).

    With F_2 = 1, F_3 = 2, ...: x is a lower Wythoff number a_k iff the smallest Fibonacci number
    in its Zeckendorf representation has an even index; then b_k is the representation shifted up
    one index, and conversely a_k is b_k shifted down.
    """
    if x == 0:
        return 0
    fibs = [1, 2]  # fibs[p] = F_(p+2)
    while fibs[-1] <= x:
        fibs.append(fibs[-1] + fibs[-2])
    fibs.append(fibs[-1] + fibs[-2])
    terms = []
    rest = x
    for p in range(len(fibs) - 1, -1, -1):
        if fibs[p] <= rest:
            rest -= fibs[p]
            terms.append(p)
    if terms[-1] % 2 == 0:  # smallest term F_2, F_4, ...: x = a_k, shift up to b_k
        return sum(fibs[p + 1] for p in terms)
    return sum(fibs[p - 1] for p in terms)  # x = b_k, shift down to a_k


def wythoff_pairs_by_mex(count: int) -> list[tuple[int, int]]:
    """Wythoff's construction: a_k = mex of all earlier numbers, b_k = a_k + k."""
    used: set[int] = set()
    pairs = []
    a = 0
    for k in range(count):
        while a in used:
            a += 1
        pairs.append((a, a + k))
        used.update((a, a + k))
    return pairs


def is_move(src: tuple[int, int], dst: tuple[int, int]) -> bool:
    di, dj = src[0] - dst[0], src[1] - dst[1]
    return (
        min(dst) >= 0
        and di >= 0
        and dj >= 0
        and (di, dj) != (0, 0)
        and (di == 0 or dj == 0 or di == dj)
    )


huge = st.integers(min_value=0, max_value=10**1200)


# ---------------------------------------------------------------------------------------------


class TestSeedExamples:
    def test_examples(self):
        assert winning_move(5, 0) == (0, 0)
        assert winning_move(2, 2) in {(1, 2), (2, 1), (0, 0)}
        assert winning_move(1, 2) is None
        assert winning_move(13, 9) in {(13, 8), (10, 6)}
        assert winning_move(10, 6) is None
        assert winning_move(5, 10) == (5, 3)
        assert winning_move(25, 30) == (8, 13)

    def test_complete_sets(self):
        assert winning_moves(2, 2) == [(0, 0), (1, 2), (2, 1)]
        assert winning_moves(13, 9) == [(10, 6), (13, 8)]
        assert winning_moves(5, 10) == [(5, 3)]

    def test_first_cold_positions(self):
        assert p_positions(5) == [(0, 0), (1, 2), (2, 1), (3, 5), (5, 3)]


class TestBeatty:
    def test_mex_construction(self):
        for k, (a, b) in enumerate(wythoff_pairs_by_mex(20_000)):
            assert (lower_wythoff(k), upper_wythoff(k)) == (a, b)
            assert partner(a) == b and partner(b) == a

    def test_partner_every_number(self):
        pairs = wythoff_pairs_by_mex(8_000)
        expected = {}
        for a, b in pairs:
            expected[a], expected[b] = b, a
        for x in range(12_000):
            assert partner(x) == expected[x]

    @given(st.integers(min_value=0, max_value=10**600))
    @settings(max_examples=150, deadline=None)
    def test_lower_wythoff_against_decimal(self, k):
        getcontext().prec = 1300
        phi = (1 + Decimal(5).sqrt()) / 2
        assert lower_wythoff(k) == int((k * phi).to_integral_value(rounding="ROUND_FLOOR"))

    @given(huge)
    @settings(max_examples=150, deadline=None)
    def test_partner_against_zeckendorf(self, x):
        assert partner(x) == zeckendorf_partner(x)

    def test_zeckendorf_reference_is_sound(self):
        pairs = wythoff_pairs_by_mex(2000)
        for a, b in pairs:
            assert zeckendorf_partner(a) == b and zeckendorf_partner(b) == a


class TestBruteForce:
    @pytest.mark.parametrize("misere", [False, True])
    def test_outcomes_and_complete_winning_moves(self, misere):
        p, _, p_options = brute(misere)
        for i in range(N + 1):
            for j in range(N + 1):
                assert is_p_position(i, j, misere) == bool(p[i, j]), (i, j)
                got = winning_moves(i, j, misere)
                assert {tuple(m) for m in got} == p_options[i, j], (i, j)
                assert len(got) == len(set(got)) and got == sorted(got)
                best = winning_move(i, j, misere)
                assert (best is None) == (not got) and (best is None or best in got)

    @pytest.mark.parametrize("misere", [False, True])
    def test_grundy_values(self, misere):
        p, g, _ = brute(misere)
        table = grundy_table(N, misere)
        assert table.shape == (N + 1, N + 1)
        assert np.array_equal(table, g)
        assert np.array_equal(table == 0, p)
        for i, j in [
            (0, 0),
            (0, 1),
            (0, 7),
            (1, 0),
            (2, 2),
            (7, 0),
            (17, 250),
            (250, 17),
            (300, 299),
        ]:
            assert nim_value(i, j, misere) == g[i, j]

    @pytest.mark.parametrize("misere", [False, True])
    def test_p_positions(self, misere):
        p, _, _ = brute(misere)
        for limit in [0, 1, 2, 3, 10, N]:
            want = sorted(
                (int(i), int(j))
                for i, j in zip(*np.nonzero(p[: limit + 1, : limit + 1]), strict=True)
            )
            assert p_positions(limit, misere) == want

    def test_misere_differs_only_at_the_start(self):
        normal, misere = brute(False)[0], brute(True)[0]
        diff = {(int(i), int(j)) for i, j in zip(*np.nonzero(normal != misere), strict=True)}
        assert diff == {(0, 0), (1, 2), (2, 1), (0, 1), (1, 0), (2, 2)}

    def test_one_p_position_per_row_column_diagonal(self):
        for misere in (False, True):
            for d in range(-N // 2, N // 2):
                a, b = diagonal_p_position(d, misere)
                assert b - a == d and is_p_position(a, b, misere)


class TestGrundyTable:
    def test_rectangles_agree_with_square(self):
        from sylver.wythoff import grundy_rectangle

        square = grundy_table(600)
        for rows, cols in [(0, 600), (1, 600), (5, 400), (40, 599)]:
            assert np.array_equal(grundy_rectangle(rows, cols, 0), square[: rows + 1, : cols + 1])

    def test_long_thin_rectangle_rows_one_and_two(self):
        # G(1, j) = j + 1, j + 1, j - 2 and G(2, j) = j + 2, j - 1, j - 1 for j ≡ 0, 1, 2 (mod 3);
        # the thin kernel reuses its diagonal ring buffer 200,000 times here
        from sylver.wythoff import grundy_rectangle

        j = np.arange(200_001)
        table = grundy_rectangle(2, 200_000, 0)
        assert np.array_equal(table[0], j)
        assert np.array_equal(table[1], np.where(j % 3 == 2, j - 2, j + 1))
        assert np.array_equal(table[2], np.where(j % 3 == 0, j + 2, j - 1))
        for b in list(range(0, 300)) + list(range(199_000, 200_001, 7)):
            for a in range(3):
                assert nim_value(a, b) == nim_value(b, a) == table[a, b]

    def test_long_thin_values(self):
        table = grundy_table(2500)
        for i, j in [(1, 2500), (2500, 3), (7, 2499), (2400, 2500)]:
            assert nim_value(i, j) == table[i, j] == table[j, i]
        assert [nim_value(1, j) for j in range(2400, 2406)] == list(table[1, 2400:2406])

    def test_read_only_and_symmetric(self):
        table = grundy_table(200)
        assert not table.flags.writeable
        assert np.array_equal(table, table.T)

    def test_huge_values_known_by_formula(self):
        big = 10**1000
        a, b = diagonal_p_position(big)
        assert nim_value(a, b) == 0 and nim_value(b, a) == 0
        assert nim_value(0, big) == big
        assert big % 3 == 1
        assert nim_value(1, big) == big + 1 and nim_value(big + 1, 1) == big - 1
        assert nim_value(2, big) == big - 1 and nim_value(2, big + 2) == big + 4
        with pytest.raises(TooLargeError):
            nim_value(3, big)


class TestHuge:
    @given(huge, huge)
    @settings(max_examples=120, deadline=None)
    def test_winning_moves_lead_to_p_positions(self, i, j):
        moves = winning_moves(i, j)
        assert is_p_position(i, j) == (zeckendorf_partner(i) == j) == (not moves)
        for m in moves:
            assert is_move((i, j), m)
            assert zeckendorf_partner(m.i) == m.j
        # completeness: the only other candidates (same row / column / diagonal) are not P
        candidates = {(zeckendorf_partner(j), j), (i, zeckendorf_partner(i))}
        a, b = diagonal_p_position(j - i)
        candidates.add((a, b))
        assert {tuple(m) for m in moves} == {c for c in candidates if is_move((i, j), c)}

    @given(st.integers(min_value=0, max_value=10**1000), st.booleans())
    @settings(max_examples=100, deadline=None)
    def test_p_positions_are_lost(self, k, misere):
        a, b = upper_wythoff(k) - k, upper_wythoff(k)
        if misere and k < 2:
            a, b = [(2, 2), (0, 1)][k]
        assert is_p_position(a, b, misere) and is_p_position(b, a, misere)
        assert winning_move(a, b, misere) is None
        assert winning_move(a + 1, b, misere) is not None

    def test_thousands_of_digits(self):
        i, j = 7 * 10**4999 + 12345, 3 * 10**4999
        m = winning_move(i, j)
        assert m is not None and is_move((i, j), m) and zeckendorf_partner(m.i) == m.j


class TestPositionType:
    def test_text_forms(self):
        p = WythoffPosition(13, 9)
        assert str(p) == "(13, 9)"
        assert repr(p) == "WythoffPosition(i=13, j=9)"
        assert eval(repr(p)) == p == (13, 9)
        for text in ["13 9", "13,9", "(13, 9)", "[13, 9]", " ( 13 ,9 ) "]:
            assert WythoffPosition.parse(text) == p
        assert pickle.loads(pickle.dumps(p)) == p and hash(p) == hash((13, 9))

    def test_methods(self):
        p = WythoffPosition(13, 9)
        assert p.outcome() is Outcome.N and outcome(10, 6) is Outcome.P
        assert p.winning_moves() == winning_moves(13, 9) and p.winning_move() == (10, 6)
        assert p.nim_value() == nim_value(13, 9) and p.total == 22
        assert len(p.moves()) == 13 + 9 + 9 and all(is_move(p, q) for q in p.moves())
        assert p.play((10, 6)) == (10, 6) and p.play([13, 0]) == (13, 0)
        for bad in [(13, 9), (14, 9), (12, 7), (11, 8), (-1, 9)]:
            with pytest.raises(InvalidMoveError):
                p.play(bad)
        assert WythoffPosition(0, 0).is_over() and not p.is_over()
        assert WythoffPosition(0, 0).outcome(misere=True) is Outcome.N

    @pytest.mark.parametrize("bad", [-1, 1.5, 3.0, True, "3", None, [1]])
    def test_invalid_piles(self, bad):
        with pytest.raises(InvalidPositionError):
            WythoffPosition(bad, 3)
        for f in (is_p_position, winning_move, winning_moves, nim_value):
            with pytest.raises(ValueError):
                f(3, bad)
        with pytest.raises(InvalidPositionError):
            p_positions(bad)

    def test_numpy_integers(self):
        assert winning_move(np.int64(13), np.uint8(9)) == (10, 6)

    @pytest.mark.parametrize("text", ["", "1", "1 2 3", "a b", "1.5 2", "-1 2"])
    def test_bad_text(self, text):
        with pytest.raises(InvalidPositionError):
            WythoffPosition.parse(text)


class TestSums:
    @staticmethod
    @functools.cache
    def _wins(state: tuple[tuple[int, int], ...], misere: bool) -> bool:
        state = tuple(sorted(c for c in state if c != (0, 0)))
        if not state:
            return misere
        for n, c in enumerate(state):
            for q in WythoffPosition(*c).moves():
                if not TestSums._wins(state[:n] + (tuple(q),) + state[n + 1 :], misere):
                    return True
        return False

    SMALL = [
        ((a, b), (c, d)) for a in range(5) for b in range(a, 5) for c in range(5) for d in range(5)
    ] + [((1, 2), (2, 3), (1, 4)), ((3, 3), (2, 2), (1, 1)), ((0, 3), (4, 1), (2, 0))]

    @pytest.mark.parametrize("misere", [False, True])
    def test_against_exhaustive_search(self, misere):
        for games in self.SMALL:
            move = winning_move_in_sum(games, misere=misere)
            won = self._wins(games, misere)
            if move is None:
                assert not won or (misere and all(g == (0, 0) for g in games)), games
                continue
            assert won, games
            assert isinstance(move, SumMove) and games[move.index] == move.before
            assert is_move(move.before, move.after)
            after = list(games)
            after[move.index] = tuple(move.after)
            assert not self._wins(tuple(after), misere), (games, move)
            if not misere:
                g = 0
                for c in games:
                    g ^= nim_value(*c)
                assert sum_nim_value(games) == g != 0

    def test_huge_components(self):
        big = diagonal_p_position(10**500)
        move = winning_move_in_sum([big, (5, 10), tuple(reversed(big))])
        assert move == SumMove(1, WythoffPosition(5, 10), WythoffPosition(5, 3))
        assert str(move) == "component 2: (5, 10) -> (5, 3)"
        assert winning_move_in_sum([big, big]) is None
        lone = winning_move_in_sum([(10**500, 3)])
        assert lone is not None and is_p_position(*lone.after)
        with pytest.raises(TooLargeError):
            winning_move_in_sum([(10**500, 3), (4, 5)])

    def test_edge_components_any_size(self):
        big = 10**500
        # G(0, big) = big, G(3, 4) = 2: the edge component moves to (0, 2)
        move = winning_move_in_sum([(0, big), (3, 4)])
        assert move == SumMove(0, WythoffPosition(0, big), WythoffPosition(0, 2))
        move = winning_move_in_sum([(big, 0), (0, big), (1, 1)])
        assert move is not None and move.index == 2 and nim_value(*move.after) == 0
        with pytest.raises(TooLargeError):
            winning_move_in_sum([(0, big), (3, 4)], misere=True)

    @given(
        st.lists(st.tuples(st.integers(0, 2), huge, st.booleans()), min_size=2, max_size=4),
        st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=2),
    )
    @settings(max_examples=150, deadline=None)
    def test_short_rows_any_size(self, rows, small):
        games = [(b, a) if flip else (a, b) for a, b, flip in rows] + small
        move = winning_move_in_sum(games)
        s = sum_nim_value(games)
        assert (move is None) == (s == 0)
        if move is not None:
            assert games[move.index] == move.before and is_move(move.before, move.after)
            after = list(games)
            after[move.index] = move.after
            assert sum_nim_value(after) == 0

    def test_misere_single_component_any_size(self):
        move = winning_move_in_sum([(0, 0), (10**400, 1)], misere=True)
        assert move is not None and move.index == 1 and is_p_position(*move.after, misere=True)

    def test_misere_sum_budget(self, monkeypatch):
        monkeypatch.setattr("sylver.wythoff.MISERE_SUM_WORK", 20_000)
        with pytest.raises(TooLargeError):
            winning_move_in_sum([(300, 400), (200, 500), (100, 600)], misere=True)

    @pytest.mark.parametrize("bad", [[(1, 2, 3)], ["12"], [(1, -2)], [5]])
    def test_invalid_components(self, bad):
        with pytest.raises(InvalidPositionError):
            winning_move_in_sum(bad)


def test_isqrt_formula_is_exact_near_squares():
    # the hardest cases for any approximation of φ: k where √5·k is extremely close to an integer (convergents of √5 = 2, 9/4, 38/17...)
    h, k = 9, 4
    for _ in range(150):
        assert zeckendorf_partner(lower_wythoff(k)) == upper_wythoff(k)
        h, k = 9 * h + 20 * k, 4 * h + 9 * k


class TestPlayingAPerson:
    @pytest.mark.parametrize("misere", [False, True])
    def test_computer_move(self, misere):
        p, _, _ = brute(misere)
        for i in range(60):
            for j in range(60):
                if i == j == 0:
                    continue
                move = computer_move((i, j), misere)
                assert WythoffPosition(i, j).is_legal(move)
                if p[i, j]:  # lost: one counter from the larger pile
                    assert move == ((i - 1, j) if i >= j else (i, j - 1))
                else:
                    assert move == winning_move(i, j, misere)
        with pytest.raises(InvalidMoveError, match="game is over"):
            computer_move((0, 0), misere)

    def test_winner(self):
        assert winner((0, 0), "you", "computer") == "you"
        assert winner((0, 0), "you", "computer", misere=True) == "computer"
        assert winner((0, 1), "you", "computer") is None
        assert winner(WythoffPosition(0, 0), True, False, misere=True) is False
