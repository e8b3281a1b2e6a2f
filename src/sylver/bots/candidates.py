"""Candidate moves for the heuristic bots: every legal move in small positions; in large ones the
small numbers (where the game is decided), a sample of other legal moves and the largest one."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from sylver.bots.base import Turn
from sylver.position import Position

SMALL = 64
"""Numbers up to this are always considered."""


def largest_allowed(turn: Turn, tries: int = 10_000) -> int | None:
    """The largest legal move the rules allow (t itself when uncapped): a near-pass, since t
    eliminates no other legal move.  None when none is found near the cap."""
    p = turn.position
    hi = p.frobenius_number if p.is_finite else None
    if turn.max_move is not None:
        hi = turn.max_move if hi is None else min(hi, turn.max_move)
    if hi is None:  # gcd > 1 without a cap: every large non-multiple of g is legal
        hi = max(max(p.generators, default=1) * 1000 + 1, 10**6)
    for n in range(hi, max(1, hi - tries), -1):
        if turn.allows(n):
            return n
    return None


def candidates(
    turn: Turn, rng: random.Random, full_limit: int = 3000, samples: int = 16, small: int = SMALL
) -> list[int]:
    """Moves worth scoring: all allowed moves (except 1) when there are at most ``full_limit`` legal
    moves, else the allowed numbers 2..small, ``samples`` random allowed moves and the largest one."""
    p = turn.position
    if p.is_finite and p.generators[0] <= full_limit + 1 and p.genus <= full_limit:
        return [n for n in p.legal_moves() if n > 1 and turn.allows(n)]
    out = [n for n in range(2, small + 1) if turn.allows(n)]
    seen: set[int] = set(out)
    top = largest_allowed(turn)
    hi = top if top is not None else SMALL
    for _ in range(samples * 8):
        if len(seen) >= len(out) + samples or hi <= small:
            break
        n = rng.randint(small + 1, hi)
        if n not in seen and turn.allows(n):
            seen.add(n)
            out.append(n)
    if top is not None and top not in seen:
        out.append(top)
    return out


def reply_count(p: Position) -> float:
    """The number of legal moves the opponent has after this position (inf when g > 1)."""
    if p.is_over:
        return 0.0
    return float(p.genus) if p.is_finite else float("inf")


def hands_over_2_3(p: Position) -> bool:
    """Can the player to move in ``p`` finish the game at once by leaving {2,3}?"""
    if p.is_terminal or p.is_over:
        return False
    gens = p.generators
    return bool(gens) and (2 in gens and p.is_legal(3) or 3 in gens and p.is_legal(2))


def scan_width(p: Position) -> tuple[int, int]:
    """(small, samples) for the one-ply bots: fewer candidates where each costs O(multiplicity)."""
    return (24, 6) if p.generators and p.generators[0] > 2000 else (SMALL, 16)


def time_budget(turn: Turn, most: float = 2.0, share: float = 0.1) -> float:
    """Seconds a one-ply bot may spend: at most ``most`` and ``share`` of the time left (no limit
    when the turn has none, so that the choice depends only on the seed)."""
    if turn.time_left is None:
        return float("inf")
    return max(0.005, min(most, share * turn.time_left))


def least_scored(
    turn: Turn,
    rng: random.Random,
    score: Callable[[Position], tuple[int, float]],
    wins_at_once: Callable[[Position], bool],
) -> int:
    """The one-ply choice of ``greedy`` and ``sage``: a candidate move whose position ``wins_at_once``
    if any, else one of those with the least ``score`` (ties at random), within :func:`time_budget`."""
    best: list[int] = []
    best_score: tuple[int, float] = (2, float("inf"))
    small, samples = scan_width(turn.position)
    deadline = time.monotonic() + time_budget(turn)
    for n in candidates(turn, rng, samples=samples, small=small):
        if best and time.monotonic() > deadline:
            break
        after = turn.position.play(n)
        if wins_at_once(after):
            return n
        value = score(after)
        if value < best_score:
            best, best_score = [n], value
        elif value == best_score:
            best.append(n)
    return rng.choice(best) if best else 1
