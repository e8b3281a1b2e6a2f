"""Candidate moves for the heuristic bots: every legal move in small positions; in large ones the
small numbers (where the game is decided), a sample of other legal moves and the largest one."""

from __future__ import annotations

import random

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


def candidates(turn: Turn, rng: random.Random, full_limit: int = 3000, samples: int = 16) -> list[int]:
    """Moves worth scoring: all allowed moves (except 1) when there are at most ``full_limit`` legal
    moves, else the allowed numbers 2..SMALL, ``samples`` random allowed moves and the largest one."""
    p = turn.position
    if p.is_finite and p.genus <= full_limit:
        return [n for n in p.legal_moves() if n > 1 and turn.allows(n)]
    out = [n for n in range(2, SMALL + 1) if turn.allows(n)]
    seen = set(out)
    top = largest_allowed(turn)
    hi = top if top is not None else SMALL
    for _ in range(samples * 8):
        if len(seen) >= len(out) + samples or hi <= SMALL:
            break
        n = rng.randint(SMALL + 1, hi)
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
