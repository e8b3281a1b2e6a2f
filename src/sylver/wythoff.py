"""Wythoff's Nim: P-positions, every winning move, Grundy values, sums and misère play.

The game (as the perfect Wythoff's Nim player challenge states it): two piles of counters; a move
removes any positive number of counters from one pile, or the same positive number from both.
Under *normal* play whoever takes the last counter wins; under *misère* play (``misere=True``) whoever takes it loses.
Equivalently a queen on a quarter-infinite board moves left, down or diagonally down-left;
the position ``(i, j)`` is her square, ``(0, 0)`` the corner.

Normal play (Wythoff, 1907).  With the golden ratio φ = (1 + √5)/2 and the Beatty sequences

    a_k = ⌊k·φ⌋,   b_k = ⌊k·φ²⌋ = a_k + k      (k = 0, 1, 2, ...)

the P-positions (the player to move loses) are exactly (a_k, b_k) and (b_k, a_k).  By Beatty's
theorem every positive integer is in exactly one of {a_k : k ≥ 1}, {b_k : k ≥ 1}, and
b_k − a_k = k, so *every pile size x has exactly one partner* ``y`` with {x, y} a P-position,
and *every difference d = j − i has exactly one P-position* on its diagonal.

Misère play.  The misère P-positions differ only at the start: (0, 1), (1, 0) and (2, 2) replace
(0, 0), (1, 2) and (2, 1); from k = 2 on they are (a_k, b_k), (b_k, a_k) again.  Proof: call this
set M; (0, 0) is a misère N-position (the previous player took the last counter).  M has one
member per pile size (0↔1, 2↔2, a_k↔b_k) and one per diagonal d = j − i ((2, 2) for d = 0,
(0, 1)/(1, 0) for d = ±1, (a_k, b_k)/(b_k, a_k) for d = ±k, k ≥ 2), so no move joins two members.
From (i, j) ∉ M ∪ {(0, 0)}, i ≤ j by symmetry, let y be the partner of i in M.  If y < j, moving to
(i, y) works; y = j is excluded; so y > j ≥ i.  That rules out i = 0 (then j = 0), i = 1 (y = 0) and
i = 2 (y = 2), so i = a_k with k ≥ 2 and y = b_k, and d = j − i satisfies 0 ≤ d < k.  The member of
M on diagonal d — (2, 2), (0, 1) or (a_d, b_d) with a_d < a_k — has a smaller first pile than
i ≥ 3, so a diagonal move reaches it.  (The same argument with (0, 0) on diagonal 0 is Wythoff's
theorem for normal play.)  Both are also checked by brute force for every i, j ≤ 300 in the tests.

All arithmetic is exact integer arithmetic — ⌊n·φ⌋ = (n + isqrt(5n²)) // 2 — so every function
is right for piles with thousands of digits; no floating point is used anywhere.

>>> winning_move(13, 9)
WythoffPosition(i=10, j=6)
>>> winning_moves(13, 9)
[WythoffPosition(i=10, j=6), WythoffPosition(i=13, j=8)]
>>> print(winning_move(25, 30))
(8, 13)
>>> winning_move(10, 6) is None
True
>>> nim_value(3, 4)
2
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np

from sylver.errors import InvalidMoveError, InvalidPositionError, TooLargeError
from sylver.jit import njit
from sylver.position import Outcome

_Player = TypeVar("_Player")

MAX_TABLE_CELLS = 1 << 24
"""Most cells a cached Grundy table may hold (int32: 64 MB); larger requests raise TooLargeError."""

MISERE_SUM_WORK = 2_000_000
"""Most moves the exhaustive misère-sum search may examine (a few seconds) before TooLargeError."""

# ---------------------------------------------------------------------------------------------
# Input checking and the position type


def check_pile(n: object, what: str = "pile") -> int:
    """Return ``n`` as an int if it is a non-negative integer (numpy ints accepted), else raise.

    ``bool``, ``float`` (even ``3.0``), strings and ``None`` are rejected with
    :class:`~sylver.errors.InvalidPositionError`, as are negative numbers.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise InvalidPositionError(f"{what} {n!r} is not an integer (pile sizes are integers ≥ 0)")
    value = int(n)
    if value < 0:
        raise InvalidPositionError(f"{what} {value} is negative (pile sizes are integers ≥ 0)")
    return value


class _Piles(NamedTuple):
    i: int
    """Size of the first pile (the queen's column)."""
    j: int
    """Size of the second pile (the queen's row)."""


_TOKEN = re.compile(r"[^\s,;()\[\]{}]+")


class WythoffPosition(_Piles):
    """A Wythoff position: the two pile sizes, validated; an immutable, hashable pair.

    It is a tuple, so ``WythoffPosition(5, 3) == (5, 3)``; its text form is ``(5, 3)``.

    >>> WythoffPosition.parse("(13, 9)")
    WythoffPosition(i=13, j=9)
    >>> print(WythoffPosition(13, 9).winning_move())
    (10, 6)
    """

    __slots__ = ()

    def __new__(cls, i: int, j: int) -> WythoffPosition:
        return super().__new__(cls, check_pile(i, "pile"), check_pile(j, "pile"))

    @classmethod
    def parse(cls, text: str) -> WythoffPosition:
        """``"13 9"``, ``"13,9"``, ``"(13, 9)"`` or ``"[13, 9]"`` -> ``WythoffPosition(13, 9)``."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"expected text, got {type(text).__name__}")
        tokens = _TOKEN.findall(text)
        if len(tokens) != 2:
            raise InvalidPositionError(
                f"{text!r} is not a Wythoff position: give two pile sizes, e.g. '13 9' or '(13, 9)'"
            )
        return cls(*(_parse_pile(t) for t in tokens))

    def __str__(self) -> str:
        return f"({self.i}, {self.j})"

    @property
    def total(self) -> int:
        """Number of counters left, i + j."""
        return self.i + self.j

    def is_over(self) -> bool:
        """True at ``(0, 0)``: no move is left."""
        return self.i == 0 and self.j == 0

    def outcome(self, misere: bool = False) -> Outcome:
        """``Outcome.P`` if the player to move loses with perfect play, else ``Outcome.N``."""
        return outcome(self.i, self.j, misere)

    def is_p_position(self, misere: bool = False) -> bool:
        """See :func:`is_p_position`."""
        return is_p_position(self.i, self.j, misere)

    def winning_move(self, misere: bool = False) -> WythoffPosition | None:
        """See :func:`winning_move`."""
        return winning_move(self.i, self.j, misere)

    def winning_moves(self, misere: bool = False) -> list[WythoffPosition]:
        """See :func:`winning_moves`."""
        return winning_moves(self.i, self.j, misere)

    def nim_value(self, misere: bool = False) -> int:
        """See :func:`nim_value`."""
        return nim_value(self.i, self.j, misere)

    def is_legal(self, target: Iterable[int]) -> bool:
        """True if one move leads from here to ``target``."""
        a, b = target
        if a < 0 or b < 0:
            return False
        di, dj = self.i - a, self.j - b
        if di < 0 or dj < 0 or di == dj == 0:
            return False
        return di == 0 or dj == 0 or di == dj

    def play(self, target: Iterable[int]) -> WythoffPosition:
        """The position ``target`` after checking that one move leads there, else InvalidMoveError."""
        t = tuple(target)
        if len(t) != 2:
            raise InvalidMoveError(f"{t!r} is not a position (two pile sizes)")
        try:
            new = WythoffPosition(*t)
        except InvalidPositionError as exc:
            raise InvalidMoveError(str(exc)) from None
        if not self.is_legal(new):
            raise InvalidMoveError(
                f"{new} cannot be reached from {self} in one move: take counters from one pile, "
                "or the same number from both"
            )
        return new

    def moves(self) -> list[WythoffPosition]:
        """Every position one move away (i + j + min(i, j) of them), nearest first."""
        i, j = self.i, self.j
        out = [WythoffPosition(x, j) for x in range(i - 1, -1, -1)]
        out += [WythoffPosition(i, y) for y in range(j - 1, -1, -1)]
        out += [WythoffPosition(i - d, j - d) for d in range(1, min(i, j) + 1)]
        return out


def _parse_pile(token: str) -> int:
    if not re.fullmatch(r"[+-]?\d+", token):
        raise InvalidPositionError(f"{token!r} is not a pile size (an integer ≥ 0)")
    return check_pile(int(token))


# ---------------------------------------------------------------------------------------------
# Beatty sequences, exactly


def lower_wythoff(k: int) -> int:
    """a_k = ⌊k·φ⌋ (OEIS A000201, with a_0 = 0), exactly: (k + isqrt(5k²)) // 2.

    ⌊x/2⌋ = ⌊⌊x⌋/2⌋ for every real x, and ⌊k + √(5k²)⌋ = k + isqrt(5k²).
    """
    k = check_pile(k, "index")
    return (k + math.isqrt(5 * k * k)) // 2


def upper_wythoff(k: int) -> int:
    """b_k = ⌊k·φ²⌋ = a_k + k (OEIS A001950, with b_0 = 0)."""
    return lower_wythoff(k) + k


def _partner(x: int) -> int:
    """The y with {x, y} a normal-play P-position (x ≥ 0).

    Let k = ⌊(x + 1)/φ⌋.  x = a_m means m·φ − 1 < x < m·φ (φ is irrational), i.e.
    x/φ < m < (x + 1)/φ: an interval of width 1/φ < 1, so if x is an a_m then m = k.  Otherwise x
    is some b_m = ⌊m·φ²⌋, m = ⌊(x + 1)/φ²⌋ = (x + 1) − ⌈(x + 1)/φ⌉ = x − k, and the partner is
    a_m = b_m − m = k.  And ⌊(x + 1)/φ⌋ = ⌊((x + 1)·√5 − (x + 1))/2⌋ = (isqrt(5(x + 1)²) − (x + 1)) // 2.
    """
    if x == 0:
        return 0
    n = x + 1
    k = (math.isqrt(5 * n * n) - n) // 2
    if (k + math.isqrt(5 * k * k)) // 2 == x:
        return x + k
    return k


_MISERE_PARTNER = {0: 1, 1: 0, 2: 2}


def partner(x: int, misere: bool = False) -> int:
    """The unique pile size y such that (x, y) is a P-position.

    >>> [partner(x) for x in range(8)]
    [0, 2, 1, 5, 7, 3, 10, 4]
    >>> [partner(x, misere=True) for x in range(4)]
    [1, 0, 2, 5]
    """
    x = check_pile(x)
    if misere and x in _MISERE_PARTNER:
        return _MISERE_PARTNER[x]
    return _partner(x)


def diagonal_p_position(d: int, misere: bool = False) -> WythoffPosition:
    """The unique P-position (i, j) with j − i = d (d any integer).

    Normal play: (a_k, b_k) for d = k ≥ 0 and (b_k, a_k) for d = −k.  Misère play: (2, 2) for
    d = 0, (0, 1) for d = 1, (1, 0) for d = −1, otherwise as in normal play.
    """
    if isinstance(d, bool) or not isinstance(d, int | np.integer):
        raise InvalidPositionError(f"difference {d!r} is not an integer")
    d = int(d)
    if misere and abs(d) <= 1:
        return WythoffPosition(*{0: (2, 2), 1: (0, 1), -1: (1, 0)}[d])
    k = abs(d)
    a = (k + math.isqrt(5 * k * k)) // 2
    return WythoffPosition(a, a + k) if d >= 0 else WythoffPosition(a + k, a)


# ---------------------------------------------------------------------------------------------
# Outcomes and winning moves


def is_p_position(i: int, j: int, misere: bool = False) -> bool:
    """True if the player to move from (i, j) loses with perfect play (a "cold" position).

    Normal play: (i, j) is (a_k, b_k) or (b_k, a_k).  Misère play: see the module docstring;
    note that (0, 0) is *not* a misère P-position (the previous player took the last counter and
    lost, so the player to move has won).

    >>> [is_p_position(*p) for p in [(0, 0), (1, 2), (2, 2), (10, 6)]]
    [True, True, False, True]
    >>> is_p_position(2, 2, misere=True)
    True
    """
    i, j = check_pile(i), check_pile(j)
    return partner(i, misere) == j


def outcome(i: int, j: int, misere: bool = False) -> Outcome:
    """``Outcome.P`` (the player to move loses) or ``Outcome.N`` (the player to move wins)."""
    return Outcome.P if is_p_position(i, j, misere) else Outcome.N


def winning_moves(i: int, j: int, misere: bool = False) -> list[WythoffPosition]:
    """Every winning move from (i, j), as the positions they lead to, sorted; [] if none.

    There are at most three, and this list is complete, for any pile sizes:

    *Proof.*  A move from (i, j) keeps j (it lowers the first pile), keeps i (it lowers the second)
    or keeps the difference j − i (it lowers both equally).  A move is winning iff it leads to a
    P-position.  Among the P-positions exactly one has second pile j, namely (partner(j), j);
    exactly one has first pile i, (i, partner(i)); and exactly one has difference j − i,
    diagonal_p_position(j − i) — because every pile size has exactly one partner and every
    difference exactly one P-position (Beatty's theorem for normal play; the misère set differs only
    by the relabelling of 0, 1, 2 and of the diagonals 0, ±1, see the module docstring).  So the
    winning moves are among these three candidates, and a candidate is reachable iff its changed
    pile(s) are strictly smaller.  The candidates are distinct (each changes a different pile set),
    so the list has no duplicates.  (Tested against brute force for all i, j ≤ 300.)

    In misère play (0, 0) has no move at all, though the player to move has won: [] is returned.

    >>> winning_moves(2, 2)
    [WythoffPosition(i=0, j=0), WythoffPosition(i=1, j=2), WythoffPosition(i=2, j=1)]
    >>> winning_moves(1, 2)
    []
    """
    i, j = check_pile(i), check_pile(j)
    moves = []
    x = partner(j, misere)
    if x < i:
        moves.append(WythoffPosition(x, j))
    y = partner(i, misere)
    if y < j:
        moves.append(WythoffPosition(i, y))
    a, b = diagonal_p_position(j - i, misere)
    if a < i:  # then b < j as well: j - b = i - a
        moves.append(WythoffPosition(a, b))
    moves.sort()
    return moves


def winning_move(i: int, j: int, misere: bool = False) -> WythoffPosition | None:
    """The position after a winning move from (i, j), or ``None`` if there is none.

    ``None`` means the position is lost (a P-position) — except in misère play at (0, 0), where the
    game is already over and won by the player to move (see :func:`is_p_position`).  Of several
    winning moves, the one taking the most counters is returned (it shortens the game).

    >>> winning_move(5, 0), winning_move(5, 10), winning_move(1, 2)
    (WythoffPosition(i=0, j=0), WythoffPosition(i=5, j=3), None)
    """
    moves = winning_moves(i, j, misere)
    if not moves:
        return None
    return min(moves, key=lambda p: (p.i + p.j, p))


def computer_move(position: Iterable[int], misere: bool = False) -> WythoffPosition:
    """The perfect player's move from ``position``: a winning move when there is one (as
    :func:`winning_move`); from a P-position the smallest move, one counter from the larger pile,
    which leaves the opponent the most room to go wrong.  InvalidMoveError at (0, 0) (no move left).

    >>> computer_move((13, 9)), computer_move((10, 6))
    (WythoffPosition(i=10, j=6), WythoffPosition(i=9, j=6))
    """
    p = WythoffPosition(*position)
    if p.is_over():
        raise InvalidMoveError("(0, 0) has no move left: the game is over")
    best = winning_move(p.i, p.j, misere)
    if best is not None:
        return best
    return WythoffPosition(p.i - 1, p.j) if p.i >= p.j else WythoffPosition(p.i, p.j - 1)


def winner(position: Iterable[int], last_mover: _Player, other: _Player, misere: bool = False) -> _Player | None:
    """Who has won: None while the queen is not in the corner; at (0, 0) ``last_mover`` (who took
    the last counter) in normal play, ``other`` in misère play.

    >>> winner((0, 0), "you", "computer"), winner((0, 0), "you", "computer", misere=True)
    ('you', 'computer')
    """
    if not WythoffPosition(*position).is_over():
        return None
    return other if misere else last_mover


def p_positions(limit: int, misere: bool = False) -> list[WythoffPosition]:
    """Every P-position (i, j) with i ≤ limit and j ≤ limit, sorted.

    >>> [str(p) for p in p_positions(5)]
    ['(0, 0)', '(1, 2)', '(2, 1)', '(3, 5)', '(5, 3)']
    >>> [str(p) for p in p_positions(5, misere=True)]
    ['(0, 1)', '(1, 0)', '(2, 2)', '(3, 5)', '(5, 3)']
    """
    limit = check_pile(limit, "limit")
    out = []
    for k in range(limit + 1):
        a, b = diagonal_p_position(k, misere)
        if b > limit:
            if k >= 2:  # b_k grows with k (misère (2, 2) on diagonal 0 comes before (0, 1))
                break
            continue
        out.append(WythoffPosition(a, b))
        if a != b:
            out.append(WythoffPosition(b, a))
    out.sort()
    return out


# ---------------------------------------------------------------------------------------------
# Grundy values


@njit(cache=True)
def grundy_rectangle(
    rows: int, cols: int, terminal: int
) -> np.ndarray:  # pragma: no cover - compiled
    """G(i, j) for 0 ≤ i ≤ rows, 0 ≤ j ≤ cols (rows ≤ cols), G(0, 0) = terminal, else the mex.

    Column by column; the values already seen in each row, in the current column and in each
    live diagonal are uint64 bitsets.  Only rows + 1 diagonals are live at a time (column j touches
    d = j − rows .. j), so they sit in a ring buffer indexed d mod (rows + 1): memory is
    O(rows · (cols + rows) / 64) words plus the table.  The mex scan starts at the first non-full
    word of the row's bitset (a pointer that only moves forward).
    """
    bound = cols + 2 * rows + 2  # G(i, j) ≤ number of options + 1 = i + j + min(i, j) + 1
    words = bound // 64 + 1
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    one = np.uint64(1)
    table = np.empty((rows + 1, cols + 1), dtype=np.int32)
    row_bits = np.zeros((rows + 1, words), dtype=np.uint64)
    row_low = np.zeros(rows + 1, dtype=np.int64)
    ring = rows + 1
    diag_bits = np.zeros((ring, words), dtype=np.uint64)
    col_bits = np.zeros(words, dtype=np.uint64)
    for j in range(cols + 1):
        # bitsets are cleared bit by bit (clearing whole rows of words would cost O(cols) per column)
        if j > 0:
            for i in range(rows + 1):  # the column just finished
                g = table[i, j - 1]
                col_bits[g // 64] &= ~(one << np.uint64(g % 64))
        if j > 0:
            # diagonal d = j starts at (0, j) in the slot of the retired diagonal j - ring,
            # whose cells are (i, j - ring + i)
            slot = j % ring
            for i in range(rows + 1):
                if j - ring + i >= 0:
                    g = table[i, j - ring + i]
                    diag_bits[slot, g // 64] &= ~(one << np.uint64(g % 64))
        for i in range(rows + 1):
            slot = (j - i) % ring
            if i == 0 and j == 0:
                g = terminal
            else:
                w = row_low[i]
                while row_bits[i, w] == full:
                    w += 1
                row_low[i] = w
                while True:
                    x = row_bits[i, w] | col_bits[w] | diag_bits[slot, w]
                    if x != full:
                        break
                    w += 1
                b = 0
                while (x >> np.uint64(b)) & one:
                    b += 1
                g = w * 64 + b
            table[i, j] = g
            w = g // 64
            bit = one << np.uint64(g % 64)
            row_bits[i, w] |= bit
            col_bits[w] |= bit
            diag_bits[slot, w] |= bit
    return table


def _short(n: int, unit: str = "") -> str:
    """``n`` with thousands separators, or ``a 1,001-digit number`` when it is long (for messages)."""
    # log10(2) rounded down: never too many digits, at most one too few, fixed by the loop
    digits = max(1, (n.bit_length() - 1) * 30102999566 // 10**11 + 1)
    while n >= 10**digits:
        digits += 1
    if digits <= 24:
        return f"{n:,} {unit}".rstrip()
    return f"a {digits:,}-digit number of {unit}" if unit else f"a {digits:,}-digit number"


class _GrundyCache:
    """The largest Grundy rectangle computed so far (rows ≤ cols, i.e. for i ≤ j), per variant."""

    def __init__(self, terminal: int) -> None:
        self.terminal = terminal
        self.table = np.zeros((0, 0), dtype=np.int32)
        self.lock = threading.Lock()

    def covering(self, rows: int, cols: int) -> np.ndarray:
        with self.lock:
            have_r, have_c = self.table.shape[0] - 1, self.table.shape[1] - 1
            if rows <= have_r and cols <= have_c:
                return self.table
            want_r, want_c = max(rows, have_r), max(cols, have_c)
            # grow geometrically so that a run of slowly growing queries stays linear overall
            grow_c = max(want_c, 2 * have_c, 63) if cols > have_c else want_c
            grow_r = max(want_r, 2 * have_r, 63) if rows > have_r else want_r
            for new_r, new_c in ((min(grow_r, grow_c), grow_c), (want_r, want_c), (rows, cols)):
                if (new_r + 1) * (new_c + 1) <= MAX_TABLE_CELLS:
                    break
            else:
                raise TooLargeError(
                    f"the Grundy value of ({_short(rows)}, {_short(cols)}) needs a table of "
                    f"{_short((rows + 1) * (cols + 1), 'cells')} (limit {MAX_TABLE_CELLS:,}); "
                    "no formula is known for large non-zero Grundy values"
                )
            table = grundy_rectangle(new_r, new_c, self.terminal)
            table.setflags(write=False)
            self.table = table
            return table


_CACHES = {False: _GrundyCache(0), True: _GrundyCache(1)}


def grundy_table(n: int, misere: bool = False) -> np.ndarray:
    """The Grundy values G(i, j) for all 0 ≤ i, j ≤ n as a read-only (n+1)×(n+1) int32 array.

    Normal play: G(0, 0) = 0 and G(i, j) = mex of G over every position one move away.  With
    ``misere=True``: the misère Grundy value (Conway's G⁻, *On Numbers and Games* ch. 12, the first
    component of the genus): G⁻(0, 0) = 1, else the same mex.  G⁻(i, j) = 0 iff (i, j) is a misère
    P-position; unlike G it does *not* determine the outcome of sums.

    Computed by a numba kernel over rows, columns and diagonals (bitset mex), cached and reused.
    """
    n = check_pile(n, "n")
    table = _CACHES[bool(misere)].covering(n, n)
    return table[: n + 1, : n + 1]


def _short_row_value(a: int, b: int) -> int:
    """G(a, b) for a ≤ 2 (normal play), any b: the rows 0, 1, 2 in closed form.

    G(0, b) = b.  G(1, b) = b + 1, b + 1, b − 2 and G(2, b) = b + 2, b − 1, b − 1 for
    b ≡ 0, 1, 2 (mod 3).  Proof by induction on m = b // 3: each row takes exactly the values
    0 .. 3m − 1 on b < 3m (each block of three is a permutation of 3t, 3t + 1, 3t + 2), so the mex
    at b is decided by the few options off the row.  Row 1, options (0, b) = b and (0, b − 1):
    b = 3m sees {.. 3m − 1, 3m} → 3m + 1; b = 3m + 1 adds 3m + 1 (its row) and 3m, 3m + 1 → 3m + 2;
    b = 3m + 2 sees 3m + 1, 3m + 2 twice → 3m.  Row 2, options (0, b), (1, b), (1, b − 1), (0, b − 2):
    b = 3m: 3m, 3m + 1, 3m − 3, 3m − 2 → 3m + 2; b = 3m + 1: 3m + 2 (row), 3m + 1, 3m + 2, 3m + 1,
    3m − 1 → 3m; b = 3m + 2: 3m + 2, 3m (row), 3m + 2, 3m, 3m + 2, 3m → 3m + 1.  (The tests also
    compare with the table for b ≤ 200,000.)
    """
    if a == 0:
        return b
    r = b % 3
    if a == 1:
        return b - 2 if r == 2 else b + 1
    return b + 2 if r == 0 else b - 1


def _short_row_position(a: int, value: int) -> int:
    """The b with G(a, b) = value, for a ≤ 2 (each of these rows is a permutation of ℕ)."""
    r = value % 3
    if a == 0:
        return value
    if a == 1:
        return value + 2 if r == 0 else value - 1
    return value - 2 if r == 2 else value + 1


def nim_value(i: int, j: int, misere: bool = False) -> int:
    """The Grundy value (nim value) of (i, j); with ``misere=True`` the misère Grundy value G⁻.

    P-positions (value 0), and in normal play the rows and columns 0, 1, 2 (closed forms, see
    ``_short_row_value``), are answered for any pile sizes; other values come from a cached table
    (see :func:`grundy_table`) and raise TooLargeError when the table would exceed MAX_TABLE_CELLS.

    >>> [nim_value(1, j) for j in range(6)]
    [1, 2, 0, 4, 5, 3]
    >>> nim_value(2, 10**30)
    999999999999999999999999999999
    """
    i, j = check_pile(i), check_pile(j)
    if is_p_position(i, j, misere):
        return 0
    a, b = min(i, j), max(i, j)
    if not misere and a <= 2:
        return _short_row_value(a, b)
    if a == 0:
        return b if b >= 2 else 1  # misère: G⁻(0, 0) = 1, (0, 1) is P
    return int(_CACHES[bool(misere)].covering(a, b)[a, b])


# ---------------------------------------------------------------------------------------------
# Sums of Wythoff games


@dataclass(frozen=True)
class SumMove:
    """A move in a sum of Wythoff games: one component changes."""

    index: int
    """Which component moves (0-based, in the order given)."""
    before: WythoffPosition
    """That component before the move."""
    after: WythoffPosition
    """That component after the move."""

    def __str__(self) -> str:
        return f"component {self.index + 1}: {self.before} -> {self.after}"


def _components(games: Iterable[Sequence[int]]) -> list[WythoffPosition]:
    out = []
    for n, game in enumerate(games):
        if isinstance(game, str):
            raise InvalidPositionError(
                f"component {n + 1} is text {game!r}, expected a pair of piles"
            )
        try:
            i, j = game
        except (TypeError, ValueError):
            raise InvalidPositionError(
                f"component {n + 1} ({game!r}) is not a pair of pile sizes"
            ) from None
        out.append(WythoffPosition(i, j))
    return out


def _move_to_value(p: WythoffPosition, target: int) -> WythoffPosition:
    """A move from ``p`` to a position of Grundy value ``target`` < G(p) (exists by the mex rule)."""
    if target == 0:
        move = winning_move(p.i, p.j)
        assert move is not None
        return move
    a, b = min(p), max(p)
    if a <= 2:  # closed forms, any size: the few options off the long row, then the row itself
        flip = p.i > p.j
        options = [(x, b) for x in range(a)] + [(a - d, b - d) for d in range(1, a + 1)]
        y = _short_row_position(a, target)
        if y < b:
            options.append((a, y))
        for x, y in options:
            if _short_row_value(min(x, y), max(x, y)) == target:
                return WythoffPosition(y, x) if flip else WythoffPosition(x, y)
        raise AssertionError(f"no option of {p} has value {target}")  # pragma: no cover
    table = _CACHES[False].covering(min(p), max(p))
    for q in p.moves():
        if table[min(q), max(q)] == target:
            return q
    raise AssertionError(f"no option of {p} has value {target}")  # pragma: no cover


def sum_nim_value(games: Iterable[Sequence[int]]) -> int:
    """The Grundy value of a sum of Wythoff games (normal play): the XOR of the components' values."""
    value = 0
    for p in _components(games):
        value ^= nim_value(p.i, p.j)
    return value


def winning_move_in_sum(games: Iterable[Sequence[int]], misere: bool = False) -> SumMove | None:
    """A winning move in the sum of Wythoff games ``games`` (a list of (i, j) pairs), or None.

    Normal play (Sprague–Grundy): the sum is lost iff the XOR s of the components' Grundy values is
    0; otherwise some component has G ^ s < G and moving it to a position of value G ^ s wins.
    Components that are P-positions have value 0 whatever their size; if exactly one component is
    not a P-position, it is moved to a P-position by the exact formula (any size).  Otherwise the
    Grundy values come from the closed forms of rows 0–2 (any size) or from the cached table
    (TooLargeError beyond it).

    Misère play: Grundy values do not decide misère sums in general (Conway, *On Numbers and
    Games* ch. 12: only for special, "tame", games), so rather than rely on such a theory a misère
    sum is solved by exhaustive search, exact but limited to
    MISERE_SUM_WORK examined moves (TooLargeError beyond).  A single component is answered by the
    formula for any size.

    >>> print(winning_move_in_sum([(1, 2), (3, 4)]))
    component 2: (3, 4) -> (1, 2)
    >>> winning_move_in_sum([(1, 2), (3, 5)]) is None
    True
    """
    comps = _components(games)
    if misere:
        return _misere_sum_move(comps)
    hot = [n for n, p in enumerate(comps) if not is_p_position(p.i, p.j)]
    if not hot:
        return None
    if len(hot) == 1:
        n = hot[0]
        after = winning_move(comps[n].i, comps[n].j)
        assert after is not None
        return SumMove(n, comps[n], after)
    values = [nim_value(p.i, p.j) for p in comps]
    s = 0
    for v in values:
        s ^= v
    if s == 0:
        return None
    for n, (p, v) in enumerate(zip(comps, values, strict=True)):
        if v ^ s < v:
            return SumMove(n, p, _move_to_value(p, v ^ s))
    raise AssertionError("a component with G ^ s < G exists when s != 0")  # pragma: no cover


def _misere_sum_move(comps: list[WythoffPosition]) -> SumMove | None:
    live = [n for n, p in enumerate(comps) if not p.is_over()]
    if len(live) <= 1:
        # a sum of one live component plays like that component (empty ones have no moves)
        if not live:
            return None
        n = live[0]
        after = winning_move(comps[n].i, comps[n].j, misere=True)
        return None if after is None else SumMove(n, comps[n], after)
    moves_here = sum(comps[n].i + comps[n].j + min(comps[n]) for n in live)
    if moves_here > MISERE_SUM_WORK:
        raise TooLargeError(
            f"this misère sum has {_short(moves_here, 'moves')} from the start alone; exhaustive "
            f"search is limited to {MISERE_SUM_WORK:,} (misère sums have no Grundy-value shortcut)"
        )
    wins = _MisereSumSolver(MISERE_SUM_WORK)
    start = tuple(sorted(_canon(comps[n]) for n in live))
    if not wins.is_n(start):
        return None
    for n in live:
        p = comps[n]
        for q in p.moves():
            rest = [_canon(comps[m]) for m in live if m != n]
            if not q.is_over():
                rest.append(_canon(q))
            if not wins.is_n(tuple(sorted(rest))):
                return SumMove(n, p, q)
    raise AssertionError("an N-position has a move to a P-position")  # pragma: no cover


def _canon(p: WythoffPosition) -> tuple[int, int]:
    return (p.i, p.j) if p.i <= p.j else (p.j, p.i)


class _MisereSumSolver:
    """Exhaustive misère search over sums; a state is the sorted tuple of live components (i ≤ j).

    A state with no live component is a win for the player to move (the opponent took the last
    counter).  Iterative depth-first search, memoised, with a budget on the moves examined.
    """

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.work = 0
        self.memo: dict[tuple[tuple[int, int], ...], bool] = {}

    def _children(
        self, state: tuple[tuple[int, int], ...]
    ) -> Iterator[tuple[tuple[int, int], ...]]:
        for n, (i, j) in enumerate(state):
            rest = state[:n] + state[n + 1 :]
            targets = [(x, j) for x in range(i)] + [(i, y) for y in range(j)]
            targets += [(i - d, j - d) for d in range(1, i + 1)]
            for a, b in targets:
                self.work += 1
                if self.work > self.budget:
                    raise TooLargeError(
                        f"this misère sum needs more than {self.budget:,} moves of exhaustive "
                        "search (misère sums have no Grundy-value shortcut)"
                    )
                if a == 0 and b == 0:
                    yield rest
                else:
                    yield tuple(sorted(rest + ((min(a, b), max(a, b)),)))

    def is_n(self, root: tuple[tuple[int, int], ...]) -> bool:
        """True if the player to move from ``root`` wins (misère play)."""
        memo = self.memo
        if root in memo:
            return memo[root]
        # each frame: the state, its children still to look at, and the child being searched
        stack: list[list] = [[root, self._children(root), None]]
        while stack:
            frame = stack[-1]
            state, children, pending = frame
            if not state:
                memo[state] = True
                stack.pop()
                continue
            result: bool | None = None
            if pending is not None and not memo[pending]:
                result = True
            else:
                frame[2] = None
                for child in children:
                    if child in memo:
                        if not memo[child]:
                            result = True
                            break
                        continue
                    frame[2] = child
                    stack.append([child, self._children(child), None])
                    break
                else:
                    result = False
                if result is None:
                    continue
            memo[state] = result
            stack.pop()
        return memo[root]


__all__ = [
    "MAX_TABLE_CELLS",
    "MISERE_SUM_WORK",
    "SumMove",
    "WythoffPosition",
    "check_pile",
    "computer_move",
    "diagonal_p_position",
    "grundy_rectangle",
    "grundy_table",
    "is_p_position",
    "lower_wythoff",
    "nim_value",
    "outcome",
    "p_positions",
    "partner",
    "sum_nim_value",
    "upper_wythoff",
    "winner",
    "winning_move",
    "winning_move_in_sum",
    "winning_moves",
]
