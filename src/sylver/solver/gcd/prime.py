"""Positions with prime g = p ≥ 3 (sec. 1 end, sec. 2): :func:`solve_prime`.

Short (S ÷ p a quiet ender): the finitely many moves z ≤ t(S ÷ p) not divisible by p are solved
exactly; a move p·y gives a position with g = p, decided recursively (p ≥ 5: it is N by Hutchings's
theorem, since p wins there).  Long: p wins when p ≥ 5; otherwise a bounded search for a winning
move.
"""

from __future__ import annotations

from sylver.position import Outcome, Position
from sylver.solver.gcd.context import MAX_T_H, Context, Finding, gaps, known, quiet, record


def solve_prime(position: Position, ctx: Context, depth: int = 0, *, full: bool = True) -> Finding:
    """The verdict for a position with prime g ≥ 3 (see the module docstring); ``full`` as for
    :func:`.g2.solve_g2`."""
    cached = known(position, ctx, full)
    if cached is not None:
        return cached
    p = position.gcd
    h = Position(x // p for x in position.generators)
    v = _prime_theorem(p, h, full)
    if v is not None:
        ctx.verdicts[position] = v
        return v
    t_h = h.frobenius_number
    short = quiet(h)
    winning: list[int] = []
    undecided: list[int] = []
    reasons: list[str] = []
    if p >= 5:
        winning.append(p)
        reasons.append(f"{p} wins: it leaves {{{p}}}, which is P by Hutchings's p-theorem (sec. 1, sec. 2)")
    # short: every move z > t(h) with p ∤ z leaves a quiet ender (N); long, p = 3: a bounded search
    bound = t_h if short else (0 if p >= 5 else ctx.search_limit)
    for z in range(2, bound + 1):
        if z % p == 0:
            continue
        if (not short or not full) and winning:
            break  # one winning move is all that is sought
        if not ctx.time_left():
            break
        if ctx.p_positions([position.play(z)])[0]:
            winning.append(z)
    _multiples(position, h, ctx, depth, full, short, winning, undecided)
    winning = sorted(set(winning))
    complete = short and not undecided and (full or not winning)
    if winning:
        outcome: Outcome | None = Outcome.N
    elif complete:
        outcome = Outcome.P
    else:
        outcome = None
    reasons.append(_prime_reason(p, t_h, short, bound))
    if undecided:
        reasons.append(f"undecided multiples of {p}: {', '.join(map(str, undecided))}")
    v = Finding(outcome=outcome, winning=winning, complete=complete, method="short" if short else "search",
                reason="; ".join(reasons), short=short, full=full)
    ctx.verdicts[position] = v
    record(position, v, ctx)
    return v


def _prime_theorem(p: int, h: Position, full: bool) -> Finding | None:
    """The verdict that a theorem gives for a position p·h with prime g = p ≥ 3, if any: {p}
    (Hutchings's theorem, sec. 1), or t(h) beyond the engine's range with p ≥ 5 (p wins)."""
    if h.generators == (1,):
        if p >= 5:
            return Finding(outcome=Outcome.P, winning=[], complete=True, method="theorem",
                           reason=f"Hutchings's p-theorem (sec. 1): every move from {{{p}}} gives a coprime "
                           "pair, an ender with t > 1, hence N")
        # {3}: every move z gives the coprime pair {3, z}, N unless z = 2
        return Finding(outcome=Outcome.N, winning=[2], complete=True, method="theorem",
                       reason="every move z gives the coprime pair {3,z}, which is N unless z = 2 "
                       "(Hutchings's theorem, sec. 1)")
    t_h = h.frobenius_number
    if t_h > MAX_T_H:  # p >= 5 (else check_range refused it): the theorem alone
        return Finding(outcome=Outcome.N, winning=[p], complete=False, method="theorem",
                       reason=f"{p} wins: it leaves {{{p}}}, which is P by Hutchings's p-theorem (sec. 1, "
                       f"sec. 2); the other moves are not searched (t(S ÷ {p}) = {t_h:,} is beyond the "
                       f"engine's {MAX_T_H:,})", full=full)
    return None


def _multiples(position: Position, h: Position, ctx: Context, depth: int, full: bool, short: bool,
               winning: list[int], undecided: list[int]) -> None:
    """The moves p·y (y a gap of h, y > 1) of a position with prime g = p: positions with g = p,
    decided recursively for p = 3 (N for p ≥ 5: p wins there); append to ``winning`` and
    ``undecided``."""
    p = position.gcd
    for y in gaps(h):
        if winning and not full:
            break
        if y == 1 or p >= 5:
            continue  # p itself is handled by the caller; for p >= 5 the child is N (p wins there)
        x = p * y
        if (not short and depth > 1) or not ctx.time_left():
            undecided.append(x)
            continue
        cv = solve_prime(position.play(x), ctx, depth + 1, full=False)
        if cv.outcome is Outcome.P:
            winning.append(x)
        elif cv.outcome is None:
            undecided.append(x)


def _prime_reason(p: int, t_h: int, short: bool, bound: int) -> str:
    if short:
        return (f"short (S ÷ {p} is a quiet ender with t = {t_h}): no move above {t_h} that is not a "
                f"multiple of {p} can win (Quiet End Theorem, sec. 1); those up to {t_h} were solved exactly")
    if p >= 5:
        return f"long: the other moves not divisible by {p} are not decided"
    return (f"long: moves not divisible by {p} were tried up to {bound} (infinitely many remain; "
            "sec. 2: long positions with g = 3 are generally intractable)")
