"""The AND/OR tree of a campaign: what a position's value rests on (Sicherman, "Theory and Practice
of Sylver Coinage", Integers 2002, sec. 1-2).

A position S is N when one move leads to a P-position, and P when every move leads to an
N-position.  A campaign decides S either directly (one :func:`sylver.solver.solve` with a budget) or
through its moves, each a node of its own:

* **gcd 1** (``gcd1``): finitely many moves, searched exhaustively by the solver; a leaf here.
* **short** (prime g = p, S ÷ p a quiet ender, sec. 1): every move z > t(S ÷ p) with p ∤ z leaves a
  quiet ender, which is N (the Quiet End Theorem); the finitely many others
  (:func:`sylver.theory.short_moves`) are its *obligations*: S is P exactly when each of them
  is N.
* **long** (prime g, S ÷ g not a quiet ender) and **composite** g: infinitely many moves.  A move
  leading to a P-position proves S N; the children listed are *candidates* up to a bound
  (:func:`candidates`), and only a direct solve (for g = 2, the periodicity engine) can prove S P.

Moves decided by a theorem are not nodes: a move that leaves a gcd-1 ender with t > 1 (N by
strategy stealing, sec. 1; every coprime pair other than {2,3} is one, Hutchings) and, for prime
g = p ≥ 5, a move that leaves a position with g = p other than {p} (p wins there).
"""

from __future__ import annotations

from enum import StrEnum

from sylver.position import Position

CANDIDATE_FACTOR = 4
"""A long position's candidates: its moves up to ``CANDIDATE_FACTOR`` · t(S ÷ g) (as the solver's own
search for a cheap winning move, :data:`sylver.solver.gcd.g2.CHEAP_ODD`)."""
COMPOSITE_FACTOR = 10
"""A position with composite g: its candidates are its moves up to ``COMPOSITE_FACTOR`` times its
least generator ({16}: the replies up to 160)."""


class Kind(StrEnum):
    """What a position's value rests on (module docstring)."""

    GCD1 = "gcd1"
    SHORT = "short"
    LONG = "long"
    COMPOSITE = "composite"

    @property
    def finite(self) -> bool:
        """Are the position's children all its obligations (so it is P when each of them is N)?"""
        return self is Kind.SHORT


def kind(position: Position) -> Kind:
    """The :class:`Kind` of a non-empty position."""
    from sylver.theory import is_prime, is_short

    g = position.gcd
    if g == 1:
        return Kind.GCD1
    if not is_prime(g):
        return Kind.COMPOSITE
    return Kind.SHORT if is_short(position) else Kind.LONG


def theorem_n(after: Position) -> bool:
    """Is ``after`` (a position some move leaves) N by a theorem (module docstring)?"""
    from sylver.theory import is_ender, is_prime

    g = after.gcd
    if g == 1:
        return after.frobenius_number > 1 and is_ender(after)
    return is_prime(g) and g >= 5 and len(after.generators) > 1


def moves(position: Position) -> list[int]:
    """The moves whose positions are the node's children: a short position's obligations (all of
    them, :func:`sylver.theory.short_moves`), or a long or composite position's candidates
    (:func:`candidates`).  Not for gcd 1 (a leaf)."""
    k = kind(position)
    if k is Kind.SHORT:
        from sylver.theory import short_moves

        return short_moves(position)
    if k is Kind.GCD1:
        raise ValueError(f"{position.braces()} has gcd 1: the solver searches it as a whole")
    return candidates(position)


def candidates(position: Position) -> list[int]:
    """The legal moves x ≥ 2 up to the bound of a long or composite position (module docstring), in
    increasing order."""
    g = position.gcd
    h = Position(x // g for x in position.generators)
    if kind(position) is Kind.COMPOSITE or h.generators == (1,):
        bound = COMPOSITE_FACTOR * position.generators[0]
    else:
        bound = CANDIDATE_FACTOR * g * h.frobenius_number
    return [x for x in range(2, bound + 1) if x not in position.semigroup]


EITHER = frozenset({"P", "N"})
"""Both outcomes: what the root of a campaign wants (either decides it)."""


def helps(kind_: Kind, wanted: frozenset[str]) -> frozenset[str]:
    """The outcomes of a child that help decide its parent, given the parent's outcomes that would
    help (``wanted``, a subset of {"P", "N"}; the root wants both): a parent is N when one child is P,
    whatever its kind, and a short parent is P when every child is N; a long or composite parent is
    P only by a direct search, so its children do not help prove it P."""
    helping = {"P"} if "N" in wanted else set()
    if "P" in wanted and kind_.finite:
        helping.add("N")
    return frozenset(helping)


def weight(position: Position) -> int:
    """How large a search the position is expected to need, for ordering equal budgets: the genus
    of S ÷ g (the gcd-1 search's legal moves; for g > 1 those of S ÷ g)."""
    g = position.gcd
    h = Position(x // g for x in position.generators)
    return h.genus


__all__ = ["CANDIDATE_FACTOR", "COMPOSITE_FACTOR", "EITHER", "Kind", "candidates", "helps", "kind", "moves",
           "theorem_n", "weight"]
