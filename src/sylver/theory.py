"""The theory of Sylver Coinage from G. Sicherman, "Theory and Practice of Sylver Coinage",
Integers 2 (2002) #G02, as functions on positions ("sec. N" below are the paper's sections).

Sec. 1: t and t̄, eliminated moves, ends, enders (quiet, unquiet) and non-enders, Hutchings's theorem
and the p-theorem, short and long prime multiples.  Sec. 2: the known results with g > 1.  Sec. 3:
the strong and weak antisymmetry principles, the Odds-and-Enders theorem, the enclosure E(S) and
Ē(S).  Sec. 4: Roberts's formula for arithmetic progressions and its classification A/B/C.

Every function takes a :class:`~sylver.position.Position` or anything ``Position()`` accepts (a list
of numbers or a string such as ``"{4,5}"``).  The hot loops run on the Apéry set of the semigroup
(:mod:`sylver.semigroup`), compiled with numba; so the ender classification, the ends and t̄ stay fast
for positions whose genus is far too large to list (e.g. two generators near 10^6, genus ~ 10^11).

Two facts make that possible (both follow from sec. 3 and are checked against the definitions by
brute force in the tests):

* S is an ender iff it satisfies the weak antisymmetry principle, iff genus(S) = ⌊t/2⌋ + 1
  (each pair {n, t-n}, n ≠ t/2, holds at least one gap, so genus ≥ ⌊t/2⌋ + 1, with equality iff each
  pair holds exactly one).  With the Odds-and-Enders theorem, S is a quiet ender iff moreover t is odd.
* n is an end iff S ∪ {n} generates a semigroup with exactly one gap fewer, i.e. iff n + s ∈ S for
  every s ∈ S \\ {0} and 2n ∈ S: the ends are w - m for the Apéry elements w that stay Apéry-maximal
  (w + x is never an Apéry element, x a generator) and whose double 2(w - m) lies in S.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from sylver.errors import InvalidPositionError, TooLargeError
from sylver.jit import njit
from sylver.position import Outcome, Position, parse_numbers
from sylver.semigroup import Semigroup

PositionLike = Position | Iterable[int] | str

PAPER = 'Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002'
"""How results and reasons cite the paper: ``f"{PAPER}, sec. 2"``."""

ENCLOSURE_WORK_LIMIT = 300_000_000
"""Largest (moves adjoined) × (multiplicity) that :func:`enclosure` will compute (else TooLargeError)."""
SCAN_LIMIT = 1_000_000
"""Largest genus (resp. t) for which :func:`moves_not_eliminating_t` (resp. :func:`legal_table`)
scans the numbers one by one."""


def as_position(position: PositionLike) -> Position:
    """``position`` itself if it is a Position, else ``Position(position)``."""
    return position if isinstance(position, Position) else Position(position)


def _require_finite(p: Position, what: str) -> None:
    if p.gcd != 1:
        raise ValueError(f"{what} is defined only for positions with g = 1 ({p.braces()} has g = {p.gcd})")
    if p.is_over:
        raise ValueError(f"{what} is not defined for {{1}}: the game is over")


# ------------------------------------------------------------------------------------------------
# Sec. 1: t, t̄, elimination
# ------------------------------------------------------------------------------------------------


def t(position: PositionLike) -> int:
    """t(S): the greatest number that is not a sum with multiples of S, i.e. the largest legal move.

    Defined when g(S) = 1 (sec. 1); for two coprime numbers t(m, n) = (m-1)(n-1) - 1 (Sylvester).
    """
    p = as_position(position)
    _require_finite(p, "t")
    return p.frobenius_number


def tbar(position: PositionLike) -> int | None:
    """t̄(S) = g(S)·t(S ÷ g(S)) (sec. 1), which extends t to g > 1: t̄(6,8) = 2·t(3,4) = 10.

    None for the empty position and for {g} (where S ÷ g = {1} has no legal move).
    """
    return as_position(position).tbar


def eliminated_moves(numbers: Iterable[int] | str) -> list[int]:
    """The numbers of a (non-canonical) list that are eliminated by the others, sorted (sec. 1).

    A number is eliminated when it is a sum with multiples of the other numbers, so it does not
    affect play: in {4,5,10,13}, 10 and 13 are eliminated by 4 and 5.  Mutual elimination is
    impossible (no number helps eliminate a smaller one), so the eliminated numbers are exactly the
    numbers that are not minimal generators.
    """
    listed = set(parse_numbers(numbers) if isinstance(numbers, str) else numbers)
    return sorted(listed - set(Position(listed).generators))


def eliminates(position: PositionLike, n: int, m: int) -> bool:
    """Does naming n eliminate m (sec. 1)?  True iff m ≠ n is legal in S and illegal in Sn.

    m is illegal in Sn iff m - j·n ∈ S for some j ≥ 1.  Only j up to a period needs testing: with
    multiplicity a, m - j·n and m - (j + a/gcd(a, n))·n lie in the same class mod a, and the larger
    of two numbers of a class is in S when the smaller is.
    """
    p = as_position(position)
    n, m = int(n), int(m)
    if n == m or not p.is_legal(n) or not p.is_legal(m):
        return False
    sg = p.semigroup
    a = sg.multiplicity
    if not a:  # the empty position: m ∈ <n> iff n divides m
        return m % n == 0
    top = min(m // n, a // math.gcd(a, n))
    return any((m - j * n) in sg for j in range(1, top + 1))


def quietly_eliminates(position: PositionLike, n: int, m: int) -> bool:
    """Does n eliminate m *quietly*, i.e. with n used once: m - n ∈ S (sec. 1, quiet enders)?"""
    p = as_position(position)
    n, m = int(n), int(m)
    return n != m and p.is_legal(n) and p.is_legal(m) and (m - n) in p.semigroup


@njit(cache=True)
def _special_gaps(ap: np.ndarray, others: np.ndarray, out: np.ndarray) -> int:  # pragma: no cover
    m = ap.shape[0]
    k = 0
    for r in range(1, m):
        w = ap[r]
        maximal = True
        for i in range(others.shape[0]):
            v = w + others[i]
            if ap[v % m] == v:
                maximal = False
                break
        if maximal:
            f = w - m
            d = 2 * f
            if ap[d % m] <= d:
                out[k] = f
                k += 1
    return k


def _special_gaps_py(ap: list[int], others: tuple[int, ...]) -> list[int]:
    m = len(ap)
    found = []
    for r in range(1, m):
        w = ap[r]
        if all(ap[(w + x) % m] != w + x for x in others):
            f = w - m
            if ap[(2 * f) % m] <= 2 * f:
                found.append(f)
    return found


def ends(position: PositionLike) -> list[int]:
    """The ends of S (g = 1), sorted: the legal moves that eliminate no other legal move (sec. 1).

    t is always an end.  Computed from the Apéry set in O(multiplicity × generators): n is an end iff
    n + s ∈ S for every nonzero s ∈ S and 2n ∈ S (see the module docstring).
    """
    p = as_position(position)
    _require_finite(p, "the ends")
    sg = p.semigroup
    gens = sg.generators
    if len(gens) == 1:  # only {1}, excluded above
        return []
    arr = _apery_int64(sg)
    if arr is not None:
        out = np.empty(arr.shape[0], dtype=np.int64)
        k = _special_gaps(arr, np.asarray(gens[1:], dtype=np.int64), out)
        return sorted(out[:k].tolist())
    return sorted(_special_gaps_py(_apery_ints(sg), gens[1:]))


def _apery_int64(sg: Semigroup) -> np.ndarray | None:
    """The Apéry array when the kernels' sums (up to 4·m·max generator) stay in int64, else None."""
    from sylver import semigroup

    gens = sg.generators
    if 4 * gens[0] * gens[-1] >= semigroup.INT64_SAFE:
        return None
    try:
        return sg.apery_array()
    except TooLargeError:
        return None


def _apery_ints(sg: Semigroup) -> list[int]:
    """The Apéry set as Python ints (g = 1, so every class is reached)."""
    return [int(v) for v in sg.apery_set()]  # type: ignore[arg-type]


def is_end(position: PositionLike, n: int) -> bool:
    """Is n an end of S: legal, and eliminating no other legal move (sec. 1)?"""
    p = as_position(position)
    _require_finite(p, "an end")
    n = int(n)
    sg = p.semigroup
    if not p.is_legal(n) or (2 * n) not in sg:
        return False
    if len(sg.generators) == 1:
        return True
    # n + s ∈ S for all nonzero s ∈ S  ⇔  n + w ∈ S for every Apéry element w ≠ 0 and n + m ∈ S.
    ap = sg.apery_set()
    return all((n + w) in sg for w in ap[1:] if w is not None) and (n + sg.multiplicity) in sg


class EnderKind(Enum):
    """The sec. 1 trichotomy of positions with g = 1."""

    QUIET = "quiet"
    """A quiet ender: every legal n < t eliminates t with n used once (t - n ∈ S)."""
    UNQUIET = "unquiet"
    """An ender that is not quiet (t is even: the Odds-and-Enders theorem)."""
    NONE = "none"
    """A non-ender: some legal move other than t is an end."""

    def __str__(self) -> str:
        return self.value


def ender_kind(position: PositionLike) -> EnderKind:
    """Quiet ender, unquiet ender or non-ender (sec. 1), for a position with g = 1.

    An *ender* is a position whose only end is t: every legal move other than t eliminates t.  It is
    *quiet* when each legal n < t eliminates t without multiples of n (t - n ∈ S).  By the weak
    antisymmetry principle (sec. 3) S is an ender iff genus = ⌊t/2⌋ + 1, and by the Odds-and-Enders
    theorem (sec. 3) an ender is quiet iff t is odd.  O(multiplicity).
    """
    p = as_position(position)
    _require_finite(p, "the ender classification")
    tt = p.frobenius_number
    if p.genus != tt // 2 + 1:
        return EnderKind.NONE
    return EnderKind.QUIET if tt % 2 else EnderKind.UNQUIET


def is_ender(position: PositionLike) -> bool:
    """Is S an ender: g = 1 and t is its only end (sec. 1)?  Every ender with t > 1 is N."""
    return ender_kind(position) is not EnderKind.NONE


def is_quiet_ender(position: PositionLike) -> bool:
    """Is S a quiet ender: every legal n < t has t - n ∈ S (sec. 1)?  E.g. {7,8,10,13}, every {m,n}."""
    return ender_kind(position) is EnderKind.QUIET


def is_unquiet_ender(position: PositionLike) -> bool:
    """Is S an ender that is not quiet (sec. 1)?  E.g. {4,5,7}: 3 eliminates 6 only as 3 + 3."""
    return ender_kind(position) is EnderKind.UNQUIET


def odds_and_enders(position: PositionLike) -> bool | None:
    """The Odds-and-Enders theorem (sec. 3): an ender is quiet iff t is odd.

    Returns whether the ender S is quiet, decided by the parity of t alone; None for a non-ender.
    """
    p = as_position(position)
    if not is_ender(p):
        return None
    return p.frobenius_number % 2 == 1


def moves_not_eliminating_t(position: PositionLike) -> list[int]:
    """The legal moves n < t that do not eliminate t (sec. 4 lists them for Roberts's sets).

    Empty iff S is an ender.  n eliminates t iff t - j·n ∈ S for some j ≥ 1 (see :func:`eliminates`).
    For Roberts's sets (sec. 4, case C) this is exactly {kd : k ∤ s} in subcase I; in subcase II it
    contains the t - kd, 1 ≤ k ≤ r, of the proof sketch, and in general other moves too (e.g. 23 in
    {9,10,11}, t = 35), though it is empty exactly when r = 0 as the theorem says.
    Scans the gaps, so it refuses (TooLargeError) past :data:`SCAN_LIMIT` of them.
    """
    p = as_position(position)
    _require_finite(p, "t")
    if p.genus > SCAN_LIMIT:
        raise TooLargeError(f"{p.genus:,} legal moves exceed the scan limit of {SCAN_LIMIT:,}")
    tt = p.frobenius_number
    return [n for n in p.legal_moves(SCAN_LIMIT) if n < tt and not eliminates(p, n, tt)]


# ------------------------------------------------------------------------------------------------
# Sec. 3: antisymmetry, enclosure
# ------------------------------------------------------------------------------------------------


def satisfies_strong_antisymmetry(position: PositionLike) -> bool:
    """The Strong Antisymmetry Principle (sec. 3): for every 0 < n < t, exactly one of n, t - n is
    legal.  It characterises quiet enders exactly."""
    return is_quiet_ender(position)


def satisfies_weak_antisymmetry(position: PositionLike) -> bool:
    """The Weak Antisymmetry Principle (sec. 3): for every 0 < n < t with n ≠ t/2, exactly one of
    n, t - n is legal.  Every ender satisfies it, and conversely (a legal n ≠ t/2 below t then has
    t - n ∈ S, and t/2 eliminates t as t/2 + t/2), so it characterises enders."""
    return is_ender(position)


def legal_table(position: PositionLike) -> tuple[list[int], list[int]]:
    """The sec. 3 table: (legal moves, illegal numbers) among 1..t-1, e.g. for {7,8,10,13}."""
    p = as_position(position)
    _require_finite(p, "the table")
    tt = p.frobenius_number
    if tt > SCAN_LIMIT:
        raise TooLargeError(f"t = {tt:,} exceeds the scan limit of {SCAN_LIMIT:,}")
    legal = [n for n in range(1, tt) if p.is_legal(n)]
    illegal = [n for n in range(1, tt) if not p.is_legal(n)]
    return legal, illegal


@njit(cache=True)
def _enclosure_moves(ap: np.ndarray, t: int, out: np.ndarray) -> int:  # pragma: no cover
    m = ap.shape[0]
    k = 0
    half = t // 2 + 1
    for r in range(m):
        w = ap[r]
        w2 = ap[(t - r) % m]
        lo = max(half, t - w2 + 1, 1)
        hi = min(w, t)  # exclusive
        n = lo + ((r - lo) % m)
        while n < hi:
            out[k] = n
            k += 1
            n += m
    return k


def enclosure_moves(position: PositionLike) -> list[int]:
    """The moves adjoined by the enclosure (sec. 3): legal n with t/2 < n < t and t - n legal.

    There are genus - ⌊t/2⌋ - 1 of them (none iff S is an ender); found per residue class in
    O(multiplicity + count).
    """
    p = as_position(position)
    _require_finite(p, "the enclosure")
    tt = p.frobenius_number
    count = p.genus - tt // 2 - 1
    if count == 0:
        return []
    if count > ENCLOSURE_WORK_LIMIT:
        raise TooLargeError(f"the enclosure adjoins {count:,} moves")
    sg = p.semigroup
    arr = _apery_int64(sg)
    if arr is not None:
        out = np.empty(count, dtype=np.int64)
        k = _enclosure_moves(arr, tt, out)
        assert k == count
        return sorted(out.tolist())
    ap = _apery_ints(sg)
    m = len(ap)
    found: list[int] = []
    for r in range(m):
        w, w2 = ap[r], ap[(tt - r) % m]
        lo = max(tt // 2 + 1, tt - w2 + 1, 1)
        found.extend(range(lo + (r - lo) % m, min(w, tt), m))
    return sorted(found)


def enclosure(position: PositionLike) -> Position:
    """E(S) (sec. 3): S with every legal n adjoined such that t/2 < n < t and t - n is legal.

    E(S) is an ender with t(E(S)) = t(S), E(S) = S when S is an ender, and no position between S and
    E(S) other than E(S) is an ender.  Example: E({7,11,13,15}) = {7,11,13,15,17,19}.  Requires g = 1.
    """
    p = as_position(position)
    if p.is_over:
        return p
    adds = enclosure_moves(p)
    if not adds:
        return p
    work = min(len(adds), p.semigroup.multiplicity) * p.semigroup.multiplicity
    if work > ENCLOSURE_WORK_LIMIT:
        raise TooLargeError(f"the enclosure adjoins {len(adds):,} moves: too much work")
    return Position(p.generators + tuple(adds))


def enclosure_bar(position: PositionLike) -> Position:
    """Ē(S) = E(S ÷ g(S)) × g(S) (sec. 3), which extends E to g > 1.

    Example: Ē(14,22,26,30) = {14,22,26,30,34,38}.  Ē({g}) = {g}; Ē({}) = {}.
    """
    p = as_position(position)
    g = p.gcd
    if g <= 1:
        return p if g == 0 else enclosure(p)
    reduced = Position(x // g for x in p.generators)
    return Position(x * g for x in enclosure(reduced).generators)


# ------------------------------------------------------------------------------------------------
# Sec. 4: arithmetic progressions
# ------------------------------------------------------------------------------------------------


def roberts_frobenius_number(a0: int, d: int, s: int) -> int:
    """Roberts's formula (sec. 4): t(a0, a0+d, ..., a0+sd) = (⌊(a0-2)/s⌋ + 1)·a0 + (d-1)(a0-1) - 1,
    for a0 ≥ 2, d ≥ 1, s ≥ 1 and gcd(a0, d) = 1.  With s = 1 it is Sylvester's formula."""
    if a0 < 2 or d < 1 or s < 1 or math.gcd(a0, d) != 1:
        raise ValueError(f"Roberts's formula needs a0 >= 2, d >= 1, s >= 1, gcd(a0, d) = 1 (got {a0}, {d}, {s})")
    return ((a0 - 2) // s + 1) * a0 + (d - 1) * (a0 - 1) - 1


def arithmetic_progression(numbers: PositionLike) -> tuple[int, int, int] | None:
    """(a0, d, s) when the canonical generators are a0, a0+d, ..., a0+sd with s ≥ 1, else None."""
    gens = as_position(numbers).generators
    if len(gens) < 2:
        return None
    d = gens[1] - gens[0]
    if any(b - a != d for a, b in zip(gens, gens[1:], strict=False)):
        return None
    return gens[0], d, len(gens) - 1


@dataclass(frozen=True)
class RobertsCase:
    """Sec. 4's classification of S = {a0, a0+d, ..., a0+sd} with g = 1 and s ≤ a0 - 1."""

    case: str
    """``"A"`` (s = 1), ``"B"`` (a0 = 3, s = 2) or ``"C"`` (a0 > 3)."""
    a0: int
    """The first term."""
    d: int
    """The common difference."""
    s: int
    """The number of steps (s + 1 terms)."""
    frobenius_number: int
    """t by Roberts's formula."""
    ender_kind: EnderKind
    """What the theorem says: A quiet; B unquiet; C quiet if s | a0 - 2, else a non-ender."""


def roberts_classification(position: PositionLike) -> RobertsCase | None:
    """Sec. 4's theorem for arithmetic progressions, or None when S is not one (with g = 1).

    A) s = 1: a quiet ender (Hutchings).  B) a0 = 3 and s = 2: an unquiet ender with t = 2d.
    C) a0 > 3: a quiet ender if s divides a0 - 2, otherwise not an ender.
    """
    p = as_position(position)
    ap = arithmetic_progression(p)
    if ap is None or p.gcd != 1:
        return None
    a0, d, s = ap
    if s > a0 - 1:  # pragma: no cover - such a progression is never minimal
        return None
    tt = roberts_frobenius_number(a0, d, s)
    if s == 1:
        return RobertsCase(case="A", a0=a0, d=d, s=s, frobenius_number=tt, ender_kind=EnderKind.QUIET)
    if a0 == 3:
        return RobertsCase(case="B", a0=a0, d=d, s=s, frobenius_number=tt, ender_kind=EnderKind.UNQUIET)
    kind = EnderKind.QUIET if (a0 - 2) % s == 0 else EnderKind.NONE
    return RobertsCase(case="C", a0=a0, d=d, s=s, frobenius_number=tt, ender_kind=kind)


# ------------------------------------------------------------------------------------------------
# Sec. 1: Hutchings; short and long
# ------------------------------------------------------------------------------------------------


def is_prime(n: int) -> bool:
    """Deterministic primality for any int (Miller-Rabin with the first 13 prime bases, exact below
    3.3·10^24; beyond that a strong probable-prime test with 20 further random bases)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for q in small:
        if n % q == 0:
            return n == q
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    bases = list(small)
    if n >= 3_317_044_064_679_887_385_961_981:
        rng = random.Random(n)
        bases += [rng.randrange(2, n - 1) for _ in range(20)]
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def prime_factor_at_least_5(n: int) -> int | None:
    """Some prime factor p ≥ 5 of n (the smallest one when n < 10^12), or None if n = 2^a·3^b."""
    while n % 2 == 0:
        n //= 2
    while n % 3 == 0:
        n //= 3
    if n == 1:
        return None
    q = 5
    while q * q <= n and q < 1_000_000:
        if n % q == 0:
            return q
        q += 2
    while not is_prime(n):  # Pollard-Brent: n is composite with every prime factor above 10^6
        f = _pollard_brent(n)
        n = min(f, n // f)
    return n


def _pollard_brent(n: int) -> int:
    rng = random.Random(n)
    while True:
        y, c, m = rng.randrange(1, n), rng.randrange(1, n), 128
        g = r = q = 1
        x = ys = y
        while g == 1:
            x = y
            for _ in range(r):
                y = (y * y + c) % n
            k = 0
            while k < r and g == 1:
                ys = y
                for _ in range(min(m, r - k)):
                    y = (y * y + c) % n
                    q = q * abs(x - y) % n
                g = math.gcd(q, n)
                k += m
            r *= 2
        if g == n:
            g = 1
            while g == 1:
                ys = (ys * ys + c) % n
                g = math.gcd(abs(x - ys), n)
        if g != n:
            return g


def is_coprime_pair(position: PositionLike) -> bool:
    """Is S = {m, n} with g(m, n) = 1?  Such a position is a quiet ender (Hutchings; sec. 3)."""
    p = as_position(position)
    return len(p.generators) == 2 and p.gcd == 1


def hutchings(position: PositionLike) -> Outcome | None:
    """Hutchings's theorem and p-theorem (sec. 1), where they apply.

    Every {m, n} with g = 1 is an ender (in fact a quiet ender, sec. 3) and {2,3} is the only one
    with t = 1, so every other {m, n} is N; hence {p} is P for every prime p ≥ 5 (all its moves lead
    to such pairs).  None when neither applies.
    """
    p = as_position(position)
    if is_coprime_pair(p):
        return Outcome.P if p.generators == (2, 3) else Outcome.N
    if len(p.generators) == 1 and p.generators[0] >= 5 and is_prime(p.generators[0]):
        return Outcome.P
    return None


def prime_multiple_kind(position: PositionLike) -> str | None:
    """``"short"`` or ``"long"`` for a prime multiple S = T × p of a position T ≠ {1} (sec. 1).

    Short: T is a quiet ender (then moves z coprime to p with z > t(T) produce quiet enders, so the
    search for a winning move is finite).  Long: T is an unquiet ender or a non-ender.  None when g
    is 1, 0 or composite, or S = {p}.
    """
    p = as_position(position)
    g = p.gcd
    if g < 2 or len(p.generators) < 2 or not is_prime(g):
        return None
    reduced = Position(x // g for x in p.generators)
    return "short" if is_quiet_ender(reduced) else "long"


def is_short(position: PositionLike) -> bool:
    """Is S a prime multiple of a quiet ender (sec. 1)?  E.g. {4,6}, {8,14}, {10,16,24}."""
    return prime_multiple_kind(position) == "short"


def is_long(position: PositionLike) -> bool:
    """Is S a prime multiple of an unquiet ender or a non-ender (sec. 1)?  E.g. {8,10,22}."""
    return prime_multiple_kind(position) == "long"


# ------------------------------------------------------------------------------------------------
# Known results (sec. 1, 2, 5)
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnownResult:
    """A result stated in the paper (see :data:`PAPER`)."""

    generators: tuple[int, ...]
    """The position (canonical generators)."""
    outcome: Outcome
    """P or N."""
    winning_moves: tuple[int, ...]
    """Winning moves stated in the paper (empty for P)."""
    complete: bool
    """True when the paper states these are all the winning moves."""
    citation: str
    """Where the paper says so."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "position": list(self.generators),
            "outcome": self.outcome.value,
            "winning_moves": list(self.winning_moves),
            "complete": self.complete,
            "citation": self.citation,
        }


def _k(gens: Iterable[int], outcome: str, wins: Iterable[int], complete: bool, cite: str) -> KnownResult:
    # written in canonical form (the tests check it), so importing this module computes nothing
    return KnownResult(
        generators=tuple(gens), outcome=Outcome(outcome), winning_moves=tuple(wins), complete=complete,
        citation=cite,
    )


_S1 = f"{PAPER}, sec. 1"
_S2 = f"{PAPER}, sec. 2"
_S5 = f"{PAPER}, sec. 5"
KNOWN_RESULTS: tuple[KnownResult, ...] = (
    _k([2, 3], "P", [], True, f"{_S1}: the only legal move in {{2,3}} is 1"),
    _k([4, 6], "P", [], True, f"{_S1}: {{4,6}} is P (Quiet End Theorem)"),
    _k([6, 9], "P", [], True, f"{_S2}: the short positions {{6,9}}, {{12,15,18}}, {{12,18,21}} are P"),
    _k([12, 15, 18], "P", [], True, f"{_S2}: the short positions {{6,9}}, {{12,15,18}}, {{12,18,21}} are P"),
    _k([12, 18, 21], "P", [], True, f"{_S2}: the short positions {{6,9}}, {{12,15,18}}, {{12,18,21}} are P"),
    _k([8, 14], "P", [], True, f"{_S2}: short positions that are P: {{4,6}}, {{8,14}}, {{10,16,24}}"),
    _k([10, 16, 24], "P", [], True, f"{_S2}: short positions that are P: {{4,6}}, {{8,14}}, {{10,16,24}}"),
    _k([8, 10, 22], "P", [], True, f"{_S2}: long positions with g = 2 known to be P: {{8,10,22}}"),
    _k([8, 12], "P", [], True, f"{_S2}: from the series {{8,12,8n+2,8n+6}}, {{8,12}} is also P"),
    _k([16, 22, 24, 26, 28, 30, 34], "P", [], True, f"{_S2}: {{16,22,24,26,28,30,34}} is P"),
    _k([20, 22, 24, 26, 28, 36], "P", [], True, f"{_S2}: {{20,22,24,26,28,36}} is P"),
    _k([8, 30, 34], "N", [49337], True, f"{_S2}: the unique winning move in {{8,30,34}} is 49337"),
    _k([6, 44, 82], "N", [4, 5993171], False, f"{_S2}: in {{6,44,82}} 4 wins, and so does 5993171"),
    _k([9, 15, 21], "N", [6], False, f"{_S2}: 6 wins in {{9,15,21}} (others unknown)"),
    _k([2], "N", [3], True, f"{_S2}: 2 loses to 3 and vice versa"),
    _k([3], "N", [2], True, f"{_S2}: 2 loses to 3 and vice versa"),
    _k([4], "N", [6], False, f"{_S2}: 4 loses to 6"),
    _k([6], "N", [4, 9], False, f"{_S2}: 6 loses to 4 and 9"),
    _k([8], "N", [12, 14], False, f"{_S2}: 8 loses to 12 and 14"),
    _k([12], "N", [8], False, f"{_S2}: 12 loses to 8 at least"),
    # Footnote of sec. 1: the known {m, n} in which t wins.
    *(
        _k(pair, "N", [(pair[0] - 1) * (pair[1] - 1) - 1], False, f"{_S1}, footnote: t wins")
        for pair in ((2, 5), (4, 5), (5, 6), (5, 9), (8, 15), (13, 14), (13, 21))
    ),
    # Sec. 5: worked examples of the Single Win Theorem and the synthetic search.
    _k([5, 14], "N", [18], True, f"{_S5}: {{5,14}} [18]"),
    _k([5, 18], "N", [14, 16, 17], True, f"{_S5}: {{5,18}} [14,16,17]"),
    _k([5, 14, 16, 18], "N", [17], True, f"{_S5}: {{5,14,16,18}} has the unique winning move 17"),
    _k([5, 16, 17, 18], "N", [14], True, f"{_S5}: {{5,16,17,18}} has the unique winning move 14"),
    _k([4, 9], "N", [19], False, f"{_S5}: solving {{4,9}} gives 19"),
    _k([5, 9], "N", [31], True, f"{_S5}: {{5,9,19}} [31]"),  # 19 = 5·2 + 9: {5,9} canonically
    _k([6, 9, 19], "N", [17, 20, 22], True, f"{_S5}: {{6,9,19,31}} [17,20,22]"),  # 31 = 6·2 + 19
    _k([17, 18, 27, 33, 43], "N", [4, 5, 6, 7], True, f"{_S5}: {{17,18,27,33,43}} [4,5,6,7]"),
    _k([17, 18, 27, 33, 43, 56], "N", [4, 5, 6, 7, 9], True, f"{_S5}: {{17,18,27,33,43,56}} [4,5,6,7,9]"),
)
"""The paper's results, with citations.  P entries and the positions reached by stated winning
moves are the known P-positions used by :func:`outcome_by_theory`."""

_BY_GENERATORS = {r.generators: r for r in KNOWN_RESULTS}
_FAMILY_CITE = f"{_S2}: the series {{8,12,8n+2,8n+6}}, n = 1, 2, 3, ..., is P"


def _family_member(gens: tuple[int, ...]) -> bool:
    """Is <gens> = {8,12,8n+2,8n+6} for some n ≥ 1?  (For n = 1 the sorted generators are 8,10,12,14.)"""
    if len(gens) != 4 or 8 not in gens or 12 not in gens:
        return False
    a, b = sorted(set(gens) - {8, 12})
    return a % 8 == 2 and b == a + 4


def known_result(position: PositionLike) -> KnownResult | None:
    """The paper's statement about exactly this position, if there is one (see KNOWN_RESULTS)."""
    p = as_position(position)
    found = _BY_GENERATORS.get(p.generators)
    if found is None and _family_member(p.generators):
        return KnownResult(
            generators=p.generators, outcome=Outcome.P, winning_moves=(), complete=True, citation=_FAMILY_CITE
        )
    return found


_known_p_cache: list[tuple[Position, str]] | None = None


def known_p_positions() -> list[tuple[Position, str]]:
    """Every P-position the paper states, or reaches by a stated winning move (sec. 2), with its
    citation (the family {8,12,8n+2,8n+6} is not listed: :func:`known_result` answers it)."""
    global _known_p_cache
    if _known_p_cache is None:
        found: dict[Position, str] = {}
        for r in KNOWN_RESULTS:
            start = Position(r.generators)
            if r.outcome is Outcome.P:
                found.setdefault(start, r.citation)
            else:
                for w in r.winning_moves:
                    found.setdefault(start.play(w), f"{r.citation} (so {start.play(w).braces()} is P)")
        _known_p_cache = list(found.items())
    return _known_p_cache


def _known_p_citation(p: Position) -> str | None:
    """Why ``p`` is a known P-position (stated P, or reached by a stated winning move), or None."""
    global _known_p_index
    if _known_p_index is None:
        _known_p_index = dict(known_p_positions())
    return _known_p_index.get(p)


_known_p_index: dict[Position, str] | None = None


def winning_move_to_known_p(position: PositionLike) -> tuple[int, str] | None:
    """A legal move x such that S x is a P-position stated in the paper (or a P-member of the {4,6}
    family, :func:`four_six_family`), with its citation, if any.

    Naming x leads to K iff S ⊆ K and x is the only generator of K that is not in S.
    """
    p = as_position(position)
    sg = p.semigroup
    candidates = list(known_p_positions())
    for x in p.generators:  # members of the series {8,12,8n+2,8n+6} that S could be part of
        for n in {(x - 2) // 8 if x % 8 == 2 else 0, (x - 6) // 8 if x % 8 == 6 else 0} - {0}:
            candidates.append((Position([8, 12, 8 * n + 2, 8 * n + 6]), _FAMILY_CITE))
        for y in (x, x - 2):  # members {4,6,y,y+2}, y ≡ 1 (mod 4), of the {4,6} family
            if y >= 5 and y % 4 == 1:
                candidates.append((Position([4, 6, y, y + 2]), FOUR_SIX_CITATION))
    for k, cite in candidates:
        # <S, x> = K iff S ⊆ K and x is the only generator of K outside S (a generator y ≠ x of K
        # lies in <S, x> only as y ∈ S: y = s + j·x with j ≥ 1 would make y - x ∈ K).
        if k == p or not all(x in k.semigroup for x in p.generators):
            continue
        outside = [x for x in k.generators if x not in sg]
        if len(outside) == 1:
            return outside[0], cite
    return None


# ------------------------------------------------------------------------------------------------
# Sec. 2: positions with g > 1 (the solver's engine is sylver.solver.gcd; these are the bounds)
# ------------------------------------------------------------------------------------------------


def short_move_bound(position: PositionLike) -> int | None:
    """For a short position S = h × p (p prime, h a quiet ender): t(h), the largest move not
    divisible by p that can win (sec. 1 end, sec. 2: by the Quiet End Theorem every larger such move
    leaves a quiet ender, which is N).  None when S is not short."""
    p = as_position(position)
    if not is_short(p):
        return None
    g = p.gcd
    return Position(x // g for x in p.generators).frobenius_number


def short_moves(position: PositionLike) -> list[int]:
    """The obligations of a short position S = h × p (sec. 1): every move z > t(h) with p ∤ z leaves
    a quiet ender, which is N (Quiet End Theorem), so S is P exactly when each of the other moves
    is N: the z ≤ t(h) with p ∤ z (z ≥ 2), then p·y for each gap y of h (the certificate checker's
    order)."""
    q = as_position(position)
    p = q.gcd
    h = Position(x // p for x in q.generators)
    t = h.frobenius_number
    return [z for z in range(2, t + 1) if z % p] + [p * y for y in h.semigroup.gaps()]


def possible_winning_replies(position: PositionLike, x: int) -> list[int]:
    """The replies to x in S (g = g(S) > 1) that could win and are not multiples of g (sec. 2).

    A reply y that eliminates x leaves S + y, a position of the same kind already met below x; the
    others are the legal y, g ∤ y, with x ∉ <S, y>.  They lie below x + t̄(S) (larger ones are
    eliminated by x).  In {12,15,21} the move 100 has 63 of them, from 41 to 218, and 200 has 113,
    from 91 to 418 (sec. 2).
    """
    p = as_position(position)
    g = p.gcd
    if g < 2:
        raise ValueError(f"possible_winning_replies needs g > 1 ({p.braces()} has g = {g})")
    after = p.play(x)
    if after.gcd != 1:
        raise ValueError(f"{x} keeps a common divisor with {p.braces()}: give a move with gcd(g, x) = 1")
    out = []
    for y in after.legal_moves():
        if y == 1 or y % g == 0:
            continue
        if x not in Position(p.generators + (y,)).semigroup:
            out.append(y)
    return out


# ------------------------------------------------------------------------------------------------
# The {4,6} family (from sec. 1: {4,6} is P)
# ------------------------------------------------------------------------------------------------

FOUR_SIX_CITATION = (
    "the {4,6} family ({4,6,x,x+2} is P for odd x ≡ 1 mod 4), a consequence of {4,6} being P "
    f"({PAPER}, sec. 1)"
)
"""Where the {4,6} family's results come from, for reasons and citations."""


def four_six_family(position: PositionLike) -> tuple[Outcome, tuple[int, ...]] | None:
    """The outcome and *every* winning move of {4,6,x} and {4,6,x,x+2} for odd x ≥ 5; else None.

    These are exactly the positions with g = 1 in which 4 and 6 are minimal generators (any odd
    number named besides eliminates every odd number from x + 4 on, x the least odd one named).

    Theorem.  Let x ≥ 5 be odd.  (a) {4,6,x,x+2} is P if x ≡ 1 (mod 4); if x ≡ 3 (mod 4) it is N
    and x - 2 is its only winning move.  (b) {4,6,x} is N; its only winning move is x + 2 if
    x ≡ 1 (mod 4) and x - 2 if x ≡ 3 (mod 4).  (So {4,5,6,7}, {4,6,9,11}, {4,6,13,15}, ... are P.)

    Proof.  <4,6> holds 0 and the even numbers from 4 on, and adding an odd x adds x + 2k for k = 0
    and every k ≥ 2.  So the legal moves in {4,6,x,x+2} are 1, 2 and the odd numbers below x; in
    {4,6,x} they are these and x + 2.  Naming 1 loses; 2 leaves the coprime pair {2,x}, N by
    Hutchings's theorem (sec. 1); 3 leaves {3,4} (N, Hutchings) or, for x = 5, {3,4,5} (N: 2 leaves
    {2,3}); an odd y with 5 ≤ y ≤ x - 4 leaves {4,6,y} (x and x + 2 are y plus an even number
    ≥ 4), which is N because {4,6} is P (sec. 1) and y is a move from {4,6}.  Only x - 2 (for
    x ≥ 7), leaving {4,6,x-2,x}, and in {4,6,x} also x + 2, leaving {4,6,x,x+2}, remain.  Hence
    {4,6,x,x+2} is P iff x = 5 or {4,6,x-2,x} is N, which gives (a) by induction on x, and (b)
    follows from (a).  Checked against the exact solver in the tests (and further by
    ``bench/bench_theory.py``).
    """
    p = as_position(position)
    gens = set(p.generators)
    if not {4, 6} <= gens:
        return None
    rest = sorted(gens - {4, 6})
    if not rest or rest[0] < 5 or rest[0] % 2 == 0 or rest[1:] not in ([], [rest[0] + 2]):
        return None
    x = rest[0]
    if len(rest) == 2:
        return (Outcome.P, ()) if x % 4 == 1 else (Outcome.N, (x - 2,))
    return Outcome.N, ((x + 2,) if x % 4 == 1 else (x - 2,))


# ------------------------------------------------------------------------------------------------
# What the theorems decide
# ------------------------------------------------------------------------------------------------


def outcome_by_theory(position: PositionLike) -> tuple[Outcome | None, str]:
    """What theorems (and the paper's stated results) alone decide about S, with the reason.

    The reason cites the paper's sections as "sec. N"; a stated result is cited in full (:data:`PAPER`).

    In order: {1} (over); {} (N: any prime ≥ 5 wins, sec. 2); {2,3} (P); the paper's known results
    and the positions its stated winning moves lead to (P);
    a prime p ≥ 5 dividing g with S ≠ {p} (N: naming p leaves {p}, which is P by the p-theorem);
    {p} (P, p-theorem); enders with t > 1 (N by strategy stealing, sec. 1; includes every coprime
    pair by Hutchings's theorem); the {4,6} family (:func:`four_six_family`); a move to a known
    P-position (N).  Otherwise (None, why not).  :func:`known_outcome` is its quick part.
    """
    p = as_position(position)
    gens = p.generators
    family = four_six_family(p)
    if p.is_over:
        return None, "the game is over: 1 has been named, and whoever named it lost"
    if p.is_empty:
        return Outcome.N, "any prime p >= 5 wins, since {p} is P by Hutchings's p-theorem (sec. 2)"
    if p.is_terminal:
        return Outcome.P, "the only legal move is 1, which loses (sec. 1)"
    known = known_result(p)
    stated = ""
    if known is not None:
        wins = f" (winning moves {list(known.winning_moves)})" if known.winning_moves else ""
        stated = f"{known.citation}{wins}"
    g = p.gcd
    if g == 1:
        kind = ender_kind(p)
        if kind is not EnderKind.NONE:
            why = (
                "a coprime pair, hence a quiet ender by Hutchings's theorem (sec. 1, sec. 3)"
                if len(gens) == 2
                else f"an {kind.value} ender" if kind is EnderKind.UNQUIET else "a quiet ender"
            )
            move = winning_move_to_known_p(p)
            if stated:
                also = f"; {stated}"
            elif family is not None:
                also = f"; {family[1][0]} is the only winning move ({FOUR_SIX_CITATION})"
            elif move is not None:
                also = f"; {move[0]} wins: it leads to {p.play(move[0]).braces()}, which is P ({move[1]})"
            else:
                also = "; the theorem does not name the winning move"
            return Outcome.N, (
                f"{p.braces()} is {why} with t = {p.frobenius_number} > 1: N by strategy stealing "
                f"(sec. 1){also}"
            )
    if known is not None:
        return known.outcome, stated
    reached = _known_p_citation(p)
    if reached is not None:
        return Outcome.P, reached
    if family is not None:
        if family[0] is Outcome.P:
            return Outcome.P, f"{p.braces()} is P: every move leads to an N-position ({FOUR_SIX_CITATION})"
        return Outcome.N, f"{family[1][0]} is the only winning move ({FOUR_SIX_CITATION})"
    if g > 1:
        q = prime_factor_at_least_5(g)
        if q is not None and gens != (q,):
            return Outcome.N, (
                f"{q} wins: every number named is a multiple of the prime {q}, so naming {q} leaves "
                f"{{{q}}}, which is P by Hutchings's p-theorem (sec. 1, sec. 2)"
            )
        if len(gens) == 1 and is_prime(g):
            return Outcome.P, (
                f"Hutchings's p-theorem (sec. 1): every move from {{{g}}} gives a coprime pair, "
                "an ender with t > 1, hence N"
            )
    move = winning_move_to_known_p(p)
    if move is not None:
        return Outcome.N, f"{move[0]} wins: it leads to {p.play(move[0]).braces()}, which is P ({move[1]})"
    if g == 1:
        return None, "a non-ender with g = 1: no theorem decides it; the exact solver can (finitely many moves)"
    if len(gens) == 1:
        return None, f"{{{g}}} with g = 2^a·3^b > 12 is open (sec. 2: Conway's prize question)"
    kind_text = prime_multiple_kind(p)
    extra = f" (a {kind_text} position)" if kind_text else ""
    return None, f"g = {g}{extra}: no theorem or published result decides it"


def known_outcome(position: PositionLike) -> Outcome | None:
    """What the theorems decide about S by quick tests alone (no Apéry set, no search), or None.

    The quick part of :func:`outcome_by_theory`, for players that ask about many positions per move:
    {} is N; the paper's known results, the positions its stated winning moves lead to (P) and the
    {4,6} family (:func:`four_six_family`); Hutchings
    (sec. 1): {p} is P for a prime p ≥ 5, every coprime pair other than {2,3} is N; a prime p ≥ 5
    dividing g with S ≠ {p} makes S N (p wins, sec. 2); so does a legal 2 or 3 when the other is
    named ({2,3} is P); {x} with a move to a known P-position is N.  None for {1} and when these
    tests are silent (:func:`proven_n` adds the ender test).
    """
    p = as_position(position)
    if p.is_over:
        return None
    if p.is_empty:
        return Outcome.N
    stated = known_result(p)
    if stated is not None:
        return stated.outcome
    if _known_p_citation(p) is not None:
        return Outcome.P
    family = four_six_family(p)
    if family is not None:
        return family[0]
    pair = hutchings(p)
    if pair is not None:
        return pair
    gens = p.generators
    q = prime_factor_at_least_5(p.gcd) if p.gcd > 1 else None
    if q is not None and gens != (q,):
        return Outcome.N
    if 2 in gens and p.is_legal(3) or 3 in gens and p.is_legal(2):
        return Outcome.N
    if len(gens) == 1 and winning_move_to_known_p(p) is not None:
        return Outcome.N
    return None


def winning_move_by_theory(position: PositionLike) -> int | None:
    """A move that theorems prove winning in S (it leaves a proven P-position), or None.

    In order: 5 from {} (the p-theorem); a winning move the paper states for S; the {4,6} family's;
    a prime p ≥ 5 dividing g when S ≠ {p}; a move to a known P-position (which includes naming 3
    when 2 is named and 2 when 3 is).  None when S is P or the theory names no move (an ender is N
    by strategy stealing without a named move).
    """
    p = as_position(position)
    if p.is_empty:
        return 5
    if p.is_over or p.is_terminal:
        return None
    stated = known_result(p)
    if stated is not None and stated.winning_moves:
        return stated.winning_moves[0]
    family = four_six_family(p)
    if family is not None and family[1]:
        return family[1][0]
    g = p.gcd
    if g > 1:
        q = prime_factor_at_least_5(g)
        if q is not None and p.generators != (q,):
            return q
    found = winning_move_to_known_p(p)
    return int(found[0]) if found is not None else None


ENDER_CACHE = 4096
"""Ender tests :func:`proven_n` remembers (the latest), by the position's generators."""

_enders: dict[tuple[int, ...], bool | None] = {}


def _is_ender_if_cheap(p: Position) -> bool | None:
    """:func:`is_ender` for g = 1 (True at once for coprime pairs), None when g ≠ 1 or too large.

    Remembered by the generators alone, never the Position: a position holds its semigroup's Apéry
    set, 8 bytes per unit of its smallest number (3.6 MiB for a King-of-the-Hill start pair), and the
    cache keyed by the Position that this replaces kept up to 4,096 of them alive, so a bot's process
    grew by about 150 MB a game at King-of-the-Hill sizes, out of its 4 GiB of address space after
    some 88 games of 20-s calls (issue 53)."""
    key = p.generators
    if key in _enders:
        return _enders[key]
    if not p.is_finite or p.is_over:
        verdict = None
    elif len(key) == 2:
        verdict = True
    else:
        try:
            verdict = is_ender(p)
        except TooLargeError:  # the Apéry set would not fit
            verdict = None
    while len(_enders) >= ENDER_CACHE:  # the oldest first (dicts keep their order)
        _enders.pop(next(iter(_enders)), None)
    _enders[key] = verdict
    return verdict


def proven_n(position: PositionLike) -> bool:
    """True when theorems prove S is N (so a player never moves into S): :func:`known_outcome`
    says N, or S is an ender with t > 1 (strategy stealing, sec. 1).  Ender tests are cached."""
    p = as_position(position)
    if p.is_terminal:
        return False
    verdict = known_outcome(p)
    if verdict is not None:
        return verdict is Outcome.N
    if p.is_finite and not p.is_over and p.frobenius_number > 1:
        return bool(_is_ender_if_cheap(p))
    return False


# ------------------------------------------------------------------------------------------------
# The report behind `sylver analyze --json`
# ------------------------------------------------------------------------------------------------


def report(position: PositionLike, *, move_list_limit: int = 10_000) -> dict[str, Any]:
    """Everything the theory says about a position, as the JSON object of ``sylver analyze --json``.

    Keys: position, braces, gcd, multiplicity, embedding_dimension, frobenius_number (t; null unless
    g = 1), conductor, tbar, genus (null unless g = 1), apery_set_size, legal_moves (null when
    infinite or more than ``move_list_limit``), legal_move_count (null when infinite),
    legal_moves_description, ends (null unless g = 1 or when more than ``move_list_limit``),
    end_count, ender ("quiet"/"unquiet"/"none"; null unless g = 1), strong_antisymmetry,
    weak_antisymmetry, enclosure (generators of Ē), enclosure_moves (the moves E adjoins),
    prime_multiple ("short"/"long"/null), short_bound, roberts, known_result, outcome_by_theory
    ("N"/"P"/null), reason, winning_move (a move the theory proves winning, or null), notes (why
    a field is null).  Fields too large to compute are null with a note, never a hang.
    """
    p = as_position(position)
    notes: list[str] = []
    sg = p.semigroup
    g = p.gcd
    finite = g == 1
    out: dict[str, Any] = {
        "position": list(p.generators),
        "braces": p.braces(),
        "gcd": g,
        "multiplicity": sg.multiplicity,
        "embedding_dimension": len(p.generators),
        "frobenius_number": p.frobenius_number if finite else None,
        "conductor": sg.conductor if finite else None,
        "tbar": p.tbar,
        "genus": p.genus if finite else None,
        "apery_set_size": sg.multiplicity if len(p.generators) > 1 else None,
        "legal_moves": None,
        "legal_move_count": p.legal_move_count,
        "legal_moves_description": p.describe_moves() if not p.is_over else "none: the game is over",
        "ends": None,
        "end_count": None,
        "ender": None,
        "strong_antisymmetry": None,
        "weak_antisymmetry": None,
        "enclosure": None,
        "enclosure_moves": None,
        "prime_multiple": prime_multiple_kind(p),
        "short_bound": None,
        "roberts": None,
        "known_result": None,
    }
    _report_moves_and_ends(p, out, notes, move_list_limit)
    _report_enclosure(p, out, notes, move_list_limit)
    if out["prime_multiple"] == "short":
        out["short_bound"] = Position(x // g for x in p.generators).frobenius_number
    rc = roberts_classification(p)
    if rc is not None:
        out["roberts"] = {
            "case": rc.case,
            "a0": rc.a0,
            "d": rc.d,
            "s": rc.s,
            "frobenius_number": rc.frobenius_number,
            "ender": rc.ender_kind.value,
        }
    kr = known_result(p)
    if kr is not None:
        out["known_result"] = kr.as_dict()
    outcome, reason = outcome_by_theory(p)
    out["outcome_by_theory"] = outcome.value if outcome else None
    out["reason"] = reason
    out["winning_move"] = winning_move_by_theory(p)
    out["notes"] = notes
    return out


def _report_moves_and_ends(p: Position, out: dict[str, Any], notes: list[str], limit: int) -> None:
    """The legal-move, end and ender fields of :func:`report`, with a note for each one left null."""
    if p.gcd == 1:
        if p.genus <= limit:
            out["legal_moves"] = p.legal_moves(limit)
        else:
            notes.append(f"legal_moves: {p.genus:,} legal moves, more than the limit {limit:,}")
    else:
        notes.append("legal_moves: infinitely many (g != 1)")
    if p.gcd == 1 and not p.is_over:
        kind = ender_kind(p)
        out["ender"] = kind.value
        out["strong_antisymmetry"] = kind is EnderKind.QUIET
        out["weak_antisymmetry"] = kind is not EnderKind.NONE
        if kind is not EnderKind.NONE:
            end_list = [p.frobenius_number]
        else:
            end_list = ends(p)
        out["end_count"] = len(end_list)
        if len(end_list) <= limit:
            out["ends"] = end_list
        else:
            notes.append(f"ends: {len(end_list):,} ends, more than the limit {limit:,}")
    elif p.is_over:
        out["ends"], out["end_count"] = [], 0
        notes.append("ender: undefined for {1} (no legal move remains)")
    else:
        notes.append("ends, ender: defined only for g = 1 (see enclosure for Ē)")


def _report_enclosure(p: Position, out: dict[str, Any], notes: list[str], limit: int) -> None:
    g = p.gcd
    if g == 0:
        out["enclosure"] = []
        return
    reduced = p if g == 1 else Position(x // g for x in p.generators)
    if reduced.is_over:
        out["enclosure"], out["enclosure_moves"] = list(p.generators), []
        return
    count = reduced.genus - reduced.frobenius_number // 2 - 1
    if count > limit:
        notes.append(f"enclosure: E adjoins {count:,} moves, more than the limit {limit:,}")
        return
    try:
        out["enclosure"] = list(enclosure_bar(p).generators)
        out["enclosure_moves"] = [g * x for x in enclosure_moves(reduced)]
    except TooLargeError as exc:
        notes.append(f"enclosure: {exc}")


__all__ = [
    "ENCLOSURE_WORK_LIMIT",
    "FOUR_SIX_CITATION",
    "KNOWN_RESULTS",
    "EnderKind",
    "InvalidPositionError",
    "KnownResult",
    "RobertsCase",
    "arithmetic_progression",
    "as_position",
    "eliminated_moves",
    "eliminates",
    "enclosure",
    "enclosure_bar",
    "enclosure_moves",
    "ender_kind",
    "ends",
    "four_six_family",
    "hutchings",
    "is_coprime_pair",
    "is_end",
    "is_ender",
    "is_long",
    "is_prime",
    "is_quiet_ender",
    "is_short",
    "is_unquiet_ender",
    "known_outcome",
    "known_p_positions",
    "known_result",
    "legal_table",
    "moves_not_eliminating_t",
    "odds_and_enders",
    "outcome_by_theory",
    "possible_winning_replies",
    "prime_multiple_kind",
    "proven_n",
    "quietly_eliminates",
    "report",
    "roberts_classification",
    "roberts_frobenius_number",
    "satisfies_strong_antisymmetry",
    "satisfies_weak_antisymmetry",
    "short_move_bound",
    "short_moves",
    "t",
    "tbar",
    "winning_move_by_theory",
    "winning_move_to_known_p",
]
