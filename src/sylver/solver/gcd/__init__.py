"""Solving positions with g ≠ 1: what is proven, never more (Sicherman, "Theory and Practice of
Sylver Coinage", Integers 2002, sec. 1 end and sec. 2).

A position S with g = g(S) > 1 has infinitely many legal moves.  Write h = S ÷ g.

* **g = 2** (:func:`.g2.solve_g2`).  The odd moves: if h is a quiet ender (S is *short*, sec. 1), an odd
  move x > t(h) leaves a quiet ender (Quiet End Theorem), which is N, so only the odd x ≤ t(h) can
  win and each is solved exactly; otherwise (S *long*) the periodicity engine
  (:mod:`sylver.solver.gcd.periodic`) scans the odd moves until a certified period (or, once a winning
  odd move m is found, until m + t̄: every larger x loses to m).  The even moves 2y give g = 2
  positions, decided the same way (one scan covers every family that even moves reach from S),
  memoised by family.
* **prime g = p ≥ 3** (:func:`.prime.solve_prime`).  Short: the finitely many moves z ≤ t(h) not divisible
  by p are solved exactly; a move p·y gives a position with g = p, decided recursively (p ≥ 5: it is
  N by Hutchings's theorem, since p wins there).  Long: p wins when p ≥ 5; otherwise a bounded
  search for a winning move.
* **composite g**: a prime factor q ≥ 5 of g wins ({q} is P); otherwise a bounded search among the
  moves that leave a short position with prime g, or g = 1.
* **the empty position**: every prime p ≥ 5 wins (Hutchings's p-theorem); the openings 2^a·3^b are
  answered as far as they are known.

The verdict (:class:`~sylver.position.Verdict`) is P or N when proven, else probably-P (sec. 2: no
odd winning move, and every even move is known to lose or produces a long position) or unknown
(the outcome None).

The modules: :mod:`.context` (the budget and caches of one solve), :mod:`.memory` (shape graphs and
scans within the memory budget), :mod:`.g2`, :mod:`.prime`, :mod:`.composite`, :mod:`.empty`; this
one is the entry point (:func:`solve_any`), called by :func:`sylver.solver.solve`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.errors import TooLargeError
from sylver.machine import deadline
from sylver.position import Outcome, Position, Verdict
from sylver.solution import (
    GcdDetails,
    Solution,
    SolveInterrupted,
    SolveTimeout,
    states_limit,
)
from sylver.solver.gcd.composite import solve_composite
from sylver.solver.gcd.context import (
    MAX_T_H,
    SEARCH_LIMIT,
    Context,
    data_memory,
    record,
    refusals,
)
from sylver.solver.gcd.empty import solve_empty
from sylver.solver.gcd.g2 import solve_g2
from sylver.solver.gcd.memory import family_odd
from sylver.solver.gcd.prime import solve_prime
from sylver.theory import is_prime, prime_factor_at_least_5

if TYPE_CHECKING:
    from sylver.solution import ScanProgress
    from sylver.solver.gcd.periodic import Scan
    from sylver.store.results import Store


def solve_any(
    position: Position,
    *,
    odd_limit: int | None = None,
    time_limit: float | None = None,
    memory: int = 1 << 30,
    store: Store | None = None,
    jobs: int = 1,
    cluster: str | None = None,
    progress: Callable[[ScanProgress], None] | None = None,
    checkpoint_dir: str | Path | None = None,
    search_limit: int = SEARCH_LIMIT,
    first: bool = False,
    max_states: int | None = None,
) -> Solution:
    """Solve a position with g ≠ 1 (or the empty position): see the module docstring.  ``first``:
    stop at the first winning move found (the outcome is then all that is proven).  ``max_states``:
    the gcd-1 positions it may decide (its states; SolveTimeout past them, as past ``time_limit``)."""
    start = time.monotonic()
    ctx = Context(
        odd_limit=odd_limit, deadline=deadline(start, time_limit),
        memory=data_memory(memory, 0 if cluster or jobs <= 1 else jobs), store=store, jobs=jobs, cluster=cluster,
        progress=progress,
        checkpoint_dir=Path(checkpoint_dir) if checkpoint_dir is not None else None,
        search_limit=search_limit, max_states=max_states,
    )
    ctx.root = position
    g = position.gcd
    if not position.is_empty:
        check_range(position, g)
    try:
        if position.is_empty:
            v = solve_empty(ctx)
        elif g == 2:
            v = solve_g2(position, ctx, full=not first, limit=odd_limit)
        elif is_prime(g):
            v = solve_prime(position, ctx, full=not first)
        else:
            v = solve_composite(position, ctx)
    except KeyboardInterrupt:
        raise SolveInterrupted(_partial(position, ctx, start)) from None
    except TimeoutError:
        within = states_limit(max_states) if max_states is not None and ctx.out_of_states() else f"{time_limit:g} s"
        raise SolveTimeout(
            f"{position.braces()} not solved within {within}", _partial(position, ctx, start), within=within
        ) from None
    known = None
    try:
        from sylver.theory import known_result

        known = known_result(position)
    except Exception:  # pragma: no cover - theory must not break solving
        known = None
    reason = v.reason
    if known is not None and known.outcome is not v.outcome:
        reason += f"; the paper states {known.outcome.value}" + (
            f" with winning moves {list(known.winning_moves)}" if known.winning_moves else ""
        ) + " (Sicherman, \"Theory and Practice of Sylver Coinage\", Integers 2002, sec. 2)"
    if ctx.too_large and not v.complete:
        reason += ("; left undecided for want of memory, even tried alone with everything else freed "
                   "(a larger --memory may decide them): " + refusals(ctx))
    sol = Solution(
        position=position, outcome=v.outcome, winning_moves=tuple(v.winning), complete=v.complete,
        frobenius_number=None, states=0, seconds=time.monotonic() - start,
        peak_bytes=max(ctx.peak_scan_bytes, ctx.held()), from_store=v.method in ("store", "book"),
        source=v.method if v.method in ("store", "book") else "search",
        gcd_details=GcdDetails(
            method=v.method, reason=reason, probably_p=v.probably_p, short=v.short, odd_tail=v.odd_tail,
            replies={p: tuple(w.winning) for p, w in ctx.verdicts.items() if w.outcome is Outcome.N and w.winning},
        ),
    )
    if not position.is_empty and v.method not in ("store", "book"):  # (read from there: its solve's seconds stay)
        record(position, v, ctx, sol.seconds)
    return sol


def check_range(position: Position, g: int) -> None:
    """TooLargeError when t(S ÷ g) is beyond ``MAX_T_H`` and no theorem answers (g without a prime
    factor ≥ 5), before any work: the engine would solve gcd-1 positions beyond the solver's range."""
    h = Position(x // g for x in position.generators)
    if h.generators == (1,) or prime_factor_at_least_5(g) is not None:
        return
    t = h.frobenius_number
    if t > MAX_T_H:
        gens = position.generators
        text = position.braces() if len(gens) <= 8 else "{" + ",".join(map(str, gens[:3])) + f",…}} ({len(gens)} generators)"
        raise TooLargeError(
            f"{text} has g = {g} and t(S ÷ {g}) = {t:,}: the g > 1 engine handles t(S ÷ g) <= "
            f"{MAX_T_H:,} (it solves gcd-1 positions with t up to about 3·t(S ÷ g))"
        )


QUICK_SECONDS = 5.0
"""Time :func:`answer_within` gives the engine by default (`sylver analyze`, the web page)."""
QUICK_ODD_LIMIT = 20_001
"""Odd moves :func:`answer_within` lets the g = 2 engine scan."""


def answer_within(
    position: Position, seconds: float = QUICK_SECONDS, odd_limit: int = QUICK_ODD_LIMIT
) -> dict[str, Any]:
    """What the engine proves about a position with gcd > 1 within ``seconds`` (for `sylver
    analyze` and the web page): ``outcome`` (P, N, probably-P, unknown), ``winning_moves``,
    ``complete``, ``method``, ``reason``, ``odd_tail``; never raises for a valid position."""
    keys = ("outcome", "winning_moves", "complete", "method", "reason", "odd_tail")
    try:
        d = solve_any(position, time_limit=seconds, odd_limit=odd_limit).to_dict()
    except (TimeoutError, ValueError) as exc:
        reason = str(exc) if isinstance(exc, ValueError) else f"not decided within {seconds:g} s"
        return {"outcome": Verdict.UNKNOWN, "winning_moves": [], "complete": False, "method": "search",
                "reason": reason, "odd_tail": None}
    return {k: d.get(k) for k in keys}


def _partial(position: Position, ctx: Context, start: float) -> Solution:
    """What an interrupted solve had established: the root scan's odd winning moves so far."""
    tail = None
    wins: tuple[int, ...] = ()
    if ctx.scans and ctx.scans[0].position == position:
        tail = family_odd(ctx.scans[0], 0, ctx.odd_limit)
        wins = tail.odd_winning_moves
    return Solution(
        position=position, outcome=Outcome.N if wins else None, winning_moves=wins, complete=False,
        frobenius_number=None, states=0, seconds=time.monotonic() - start,
        peak_bytes=sum(s.memory_bytes() for s in ctx.scans), gcd_details=GcdDetails(
            method="periodicity", odd_tail=tail, reason="interrupted" + (
                f"; the scan state is saved in {ctx.scans[0].checkpoint}" if ctx.scans and ctx.scans[0].checkpoint else ""
            ),
        ),
    )


def periodic_scan(position: Position, *, memory: int, deadline: float | None, until: int | None) -> Scan:
    """The periodicity scan of a long position with g = 2 (:class:`.periodic.Scan`), run until its
    period is certified, ``until`` (the last odd move to scan) or ``deadline``: what the certificate
    builder replays (a record of its period and base region)."""
    from sylver.solver.gcd.periodic import Scan

    scan = Scan(position, memory=memory, deadline=deadline)
    scan.run(until=until, deadline=deadline)
    return scan


def warm_up() -> None:
    """Compile the g > 1 engine's kernels (``sylver warmup``): a g = 2 scan (the shape graph, scan
    and state kernels), a shape graph of 14,700 shapes and its base region (their tables grow), and
    a short position with g = 3."""
    from sylver.solver.gcd.periodic import list_region
    from sylver.solver.gcd.shapes import build

    solve_any(Position([8, 10, 22]))
    list_region(build(Position([6, 76])))
    solve_any(Position([6, 9]))


__all__ = ["QUICK_SECONDS", "answer_within", "check_range", "periodic_scan", "solve_any", "warm_up"]
