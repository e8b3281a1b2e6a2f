"""Positions with g = 2 (sec. 1 end, sec. 2): :func:`solve_g2`.

The odd moves: if h = S ÷ 2 is a quiet ender (S is *short*, sec. 1), an odd move x > t(h) leaves a
quiet ender (Quiet End Theorem), which is N, so only the odd x ≤ t(h) can win and each is solved
exactly; otherwise (S *long*) the periodicity engine (:mod:`sylver.solver.gcd.periodic`) scans the odd
moves until a certified period (or, once a winning odd move m is found, until m + t̄: every larger
x loses to m).  The even moves 2y give g = 2 positions, decided the same way (one scan covers every
family that even moves reach from S), memoised by family; when one winning move is all that is
sought, by an iterative deepening over the moves (:func:`_first_winning`), a long position first
looked at without a scan (:func:`_cheap_verdict`).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sylver.errors import TooLargeError
from sylver.position import Outcome, Position
from sylver.solution import OddTail
from sylver.solver.gcd.context import (
    TABLES_ALONE,
    Context,
    Finding,
    from_wall,
    gaps,
    half,
    known,
    purge,
    quiet,
    record,
    to_wall,
)
from sylver.solver.gcd.memory import family_odd, forget, offer_union, run_scan, scan_for

if TYPE_CHECKING:
    from sylver.solver.gcd.periodic import Scan

FIRST_BUDGET = 0.25
"""Seconds each undecided move gets in the first round of :func:`_first_winning` (the search for one
winning move of a position with g = 2); each later round gives the moves still undecided
``FIRST_GROWTH`` times more."""
FIRST_GROWTH = 4.0
FIRST_LEAST = 0.005
"""The least budget of a move in :func:`_first_winning` (seconds): a search given a budget by its
caller's round shares it among its moves at first, so that each is tried once within it."""
CHEAP_SECONDS = 3.0
"""Seconds :func:`_cheap_winning` gives each long position to find a winning move without a scan."""
CHEAP_ODD = 4
""":func:`_cheap_winning` tries the odd moves x < CHEAP_ODD · t(S ÷ 2) of a long position S."""
KILLERS = 8
""":func:`_cheap_move` first tries at most this many of the moves that won in positions sharing a
generator with the position (:func:`_killer_moves`)."""


@dataclass
class Tally:
    """What the search of the moves of one position with g = 2 found (:func:`_even_moves`,
    :func:`_first_winning`)."""

    winning: list[int] = field(default_factory=list)
    """The winning moves found."""
    decided: dict[int, bool] = field(default_factory=dict)
    """The odd moves that :func:`_first_winning` decided (True: the move wins)."""
    unknown_even: list[int] = field(default_factory=list)
    """The even moves left undecided."""
    long_open: list[int] = field(default_factory=list)
    """Those of them that leave a long position."""
    wanting: list[int] = field(default_factory=list)
    """Those of them left undecided for want of memory (:attr:`Finding.wanting`)."""
    replies: dict[int, int | None] = field(default_factory=dict)
    """Each even move that loses: the least winning reply found (None: the position after it is N
    by a reason of its own, without a move)."""

    def even(self, x: int, finding: Finding | None, *, long: bool, wanting: bool = False) -> None:
        """Count the even move x by the finding for the position after it (None: undecided, as when
        a deadline cut its search); ``long``: that position is long; ``wanting``: its search passed
        the memory budget."""
        if finding is not None and finding.outcome is Outcome.P:
            self.winning.append(x)
        elif finding is None or finding.outcome is None:
            self.unknown_even.append(x)
            if long:
                self.long_open.append(x)
            if wanting or (finding is not None and finding.wanting):
                self.wanting.append(x)
        else:
            self.replies[x] = min(finding.winning) if finding.winning else None

    def undo(self, x: int) -> None:
        """Forget the even move x as undecided (it is tried again: :func:`retry_alone`)."""
        for moves in (self.unknown_even, self.long_open, self.wanting):
            if x in moves:
                moves.remove(x)


def solve_g2(position: Position, ctx: Context, *, full: bool = True, limit: int | None = None) -> Finding:
    """The verdict for a position with g = 2 (see the module docstring).

    ``full``: every winning move is sought (else the search stops at the first: the outcome is all
    a parent needs).  ``limit``: the odd moves of a long position are scanned up to it (None: no
    limit).
    """
    cached = known(position, ctx, full)
    if cached is not None:
        return cached
    h = Position(x // 2 for x in position.generators)
    if h.generators == (1,):  # {2}: odd x gives {2, x}, N unless x = 3 (Hutchings)
        v = Finding(
            outcome=Outcome.N, winning=[3], complete=True, method="theorem",
            reason="every odd x gives the coprime pair {2,x}, which is N unless x = 3 (Hutchings's "
            "theorem, sec. 1); {2,3} is P",
            odd_tail=OddTail(scanned_to=3, period_start=None, period_length=None, odd_winning_moves=(3,),
                             complete=True, open_moves=""),
        )
        ctx.verdicts[position] = v
        return v
    short = quiet(h)
    beyond = None
    tally = Tally()
    if short and not full:  # one winning move: the odd and the even moves together
        _first_winning(position, h, ctx, limit, list(range(3, h.frobenius_number + 1, 2)), tally)
        odd = _short_odd_first(h.frobenius_number, tally.decided)
    else:
        if short:
            odd = _short_odd_tail(position, h.frobenius_number, ctx)
        else:
            found = scan_or_verdict(position, ctx, full, limit)
            if isinstance(found, Finding):
                return found
            scan, f = found
            run_scan(scan, ctx, limit, lambda: not scan.family_tail_complete(f) and (full or not scan.hits(f)))
            odd = family_odd(scan, f, limit)
            beyond = scan.scanned_to if scan.scanned_to > odd.scanned_to else None
        tally.winning.extend(odd.odd_winning_moves)
        if full:
            _even_moves(position, h, ctx, limit, tally)
        elif not tally.winning:
            _first_winning(position, h, ctx, limit, [], tally)
    if position == ctx.root and tally.wanting and (full or not tally.winning):
        retry_alone(position, ctx, limit, tally, full)
    winning, unknown_even, replies = sorted(tally.winning), sorted(tally.unknown_even), tally.replies
    complete = odd.complete and not unknown_even and (full or not winning)
    if winning:
        outcome: Outcome | None = Outcome.N
    elif odd.complete and not unknown_even:
        outcome = Outcome.P
    else:
        outcome = None
    probably = (
        outcome is None and odd.complete and not odd.odd_winning_moves
        and set(unknown_even) == set(tally.long_open)
    )
    reason = _g2_reason(position, "short" if short else "long", h.frobenius_number, odd, unknown_even,
                        outcome, probably)
    if not full and winning:
        reason += f"; {winning[0]} wins: it leaves {position.play(winning[0]).braces()}, which is P"
    if outcome is Outcome.P and replies:
        reason += "; every even move loses, to the reply: " + ", ".join(
            f"{x} → {r}" if r is not None else f"{x} → (its own reason)" for x, r in sorted(replies.items()))
    if beyond is not None:
        reason += (f"; a checkpoint of an earlier run holds the scan to {beyond:,}, past the odd limit "
                   "(a larger --odd-limit reads it)")
    v = Finding(outcome=outcome, winning=winning, complete=complete, method="short" if short else "periodicity",
                reason=reason, probably_p=probably, odd_tail=odd, short=short, full=full,
                wanting=outcome is None and bool(tally.wanting))
    ctx.verdicts[position] = v
    _note_win(position, winning, ctx)
    record(position, v, ctx)
    return v


def scan_or_verdict(position: Position, ctx: Context, full: bool, limit: int | None) -> tuple[Scan, int] | Finding:
    """The scan of a long position (:func:`.memory.scan_for`), or a verdict without one: with ``full``
    false, N by a winning move found without a scan first (:func:`_cheap_verdict`); undecided when
    its shape graph would pass the memory budget and it is not the root (a move leading there is
    left open and the search goes on with the others, instead of the whole solve failing).  The
    root's own graph, scan or base region refused is tried once more with the gcd-1 tables capped at
    ``TABLES_ALONE`` of the budget, as a child tried alone is (:func:`_root_alone`); refused then,
    it stays an error, TooLargeError, which says to give more ``--memory``."""

    cheap = None if full else _cheap_verdict(position, ctx, limit)
    if cheap is not None:
        return cheap
    failed = ctx.too_large.get(position)
    if failed is None or failed[1] < ctx.half() and ctx.room() >= 2 * failed[1]:
        while True:  # at most twice: the scans kept as caches go first, then once more
            budget = ctx.room()
            try:
                return scan_for(position, ctx)
            except TooLargeError as exc:
                if position == ctx.root:
                    if _root_alone(ctx):
                        continue
                    raise
                failed = ctx.too_large[position] = (str(exc), budget)
            if not ctx.drop_scans():
                break
    why = failed[0]
    return Finding(outcome=None, winning=[], complete=False, method="periodicity", short=False, full=False,
                   reason=f"long: not scanned, {why}; undecided", wanting=True)


def _root_alone(ctx: Context) -> bool:
    """Before the root's own shape graph, scan or base region is refused for want of memory: the
    gcd-1 tables capped at ``TABLES_ALONE`` of the budget and the graphs given the rest
    (:meth:`.context.Context.release`), once, as for a child tried alone (:func:`retry_alone`); False
    when that was done already, or with worker processes (they share the tables' half).  The graph
    and base region of a long position come first, and its gcd-1 solves are small ones.  Before
    (issue 31), ``sylver solve 16 38 56 60 74 --memory 20G`` stopped at "the base region lists
    6,396,530 gcd-1 positions, about 6.0G, more than the 5.4G left", the tables holding the other
    half; now it is N (205 wins), 10.2 GB at the peak."""
    if _tables_capped(ctx):
        return False
    ctx.release(ctx.memory // TABLES_ALONE)
    return True


def _tables_capped(ctx: Context) -> bool:
    """Whether the gcd-1 tables can give the graphs no more room: capped at ``TABLES_ALONE`` of the
    budget already, or shared with worker processes (``--jobs``, ``--cluster``: the split stays)."""
    return ctx.jobs > 1 or bool(ctx.cluster) or ctx.half() >= ctx.memory - ctx.memory // TABLES_ALONE


def retry_alone(position: Position, ctx: Context, limit: int | None, tally: Tally, full: bool) -> None:
    """Before the root answers with even moves left undecided for want of memory (``tally.wanting``):
    each of them tried again, alone, with everything else freed (:meth:`.context.Context.release`:
    the caches, union graphs, base regions, scans, and the gcd-1 tables' unused share), so that a
    child refused for what the solve held at that moment (its siblings' union graph, the root's
    scan, the memo) is decided if it fits the budget on its own; if it is refused again, once more
    with the gcd-1 tables capped at ``TABLES_ALONE`` of the budget (emptied when they hold more)
    and the memo of gcd-1 results emptied.  What is still
    refused is in ``ctx.too_large`` afterwards (the refusals of the first attempt are replaced by
    those of the retries, kept only for the moves a deadline left untried).

    With ``--jobs`` (processes of this machine) the workers are gone by then, so their half of the
    budget (:func:`.context.data_memory`) is this process's: the children are tried as with one
    process, on the whole budget.  Before (issue 31), ``sylver solve 16 26 88 --memory 16G -j 2``
    tried them with a quarter of it (graphs "more than the 3.8G left") and answered probably-P at
    3.1 GB peak."""
    workers = ctx.jobs > 1 and not ctx.cluster
    saved = ctx.jobs, ctx.memory, ctx.graphs
    if workers:
        ctx.jobs, ctx.memory = 1, 2 * ctx.memory
    try:
        _retry_each(position, ctx, limit, tally, full)
    finally:
        if workers:
            ctx.jobs, ctx.memory, ctx.graphs = saved


def _retry_each(position: Position, ctx: Context, limit: int | None, tally: Tally, full: bool) -> None:
    """:func:`retry_alone`'s loop over the children left undecided for want of memory."""
    refused = dict(ctx.too_large)
    ctx.too_large.clear()
    todo = sorted(tally.wanting)
    for x in todo:
        if not ctx.time_left() or (tally.winning and not full):
            break
        todo = todo[1:]
        long = x in tally.long_open
        tally.undo(x)
        before = set(ctx.too_large)
        for tables in (None, ctx.memory // TABLES_ALONE):
            for p in [p for p in ctx.too_large if p not in before]:  # refused again: tried anew
                del ctx.too_large[p]
            ctx.release(tables)
            cv, wanting = _alone(position.play(x), ctx, limit)
            wanting = wanting or (cv is not None and cv.wanting)
            if not wanting or _tables_capped(ctx):
                break
        tally.even(x, cv, long=long, wanting=wanting)
    if todo:
        for p, why in refused.items():
            ctx.too_large.setdefault(p, why)


def _alone(child: Position, ctx: Context, limit: int | None) -> tuple[Finding | None, bool]:
    """The verdict of one child of :func:`retry_alone` (None: undecided), and whether a gcd-1 solve
    passed the memory budget."""
    kept = (len(ctx.scans), len(ctx.unions), len(ctx.union_groups))
    try:
        return solve_g2(child, ctx, full=False, limit=limit), False
    except TimeoutError:
        return None, False
    except TooLargeError as exc:
        ctx.too_large.setdefault(child, (str(exc), ctx.tables()))
        return None, True
    finally:
        forget(ctx, *kept)


def _short_odd_tail(position: Position, t_h: int, ctx: Context) -> OddTail:
    """The odd moves of a short position: only x ≤ t(S ÷ 2) can win (Quiet End Theorem, sec. 1),
    each solved exactly."""
    cands = list(range(3, t_h + 1, 2))
    vals = ctx.p_positions([position.play(x) for x in cands])
    hits = tuple(x for x, v in zip(cands, vals, strict=True) if v)
    return OddTail(scanned_to=t_h, period_start=None, period_length=None, odd_winning_moves=hits,
                   complete=True, open_moves="")


def _short_odd_first(t_h: int, decided: dict[int, bool]) -> OddTail:
    """The odd moves of a short position after :func:`_first_winning`: ``decided`` (x: True when x
    wins) holds those it decided before it stopped; the others up to t(S ÷ 2) are open."""
    cands = range(3, t_h + 1, 2)
    open_ = [x for x in cands if x not in decided]
    upto = open_[0] - 2 if open_ else t_h
    return OddTail(scanned_to=max(upto, 1), period_start=None, period_length=None,
                   odd_winning_moves=tuple(sorted(x for x, v in decided.items() if v)), complete=not open_,
                   open_moves=f"odd x in {{{', '.join(map(str, open_))}}}" if open_ else "")


def _even_moves(position: Position, h: Position, ctx: Context, limit: int | None, tally: Tally) -> None:
    """Decide every even move 2y of a position with g = 2 (each a position with g = 2, solved for its
    outcome only), short children first (cheap), then long ones, into ``tally``.  With ``--jobs`` /
    ``--cluster`` the long children go to worker processes (:func:`_long_apart`) while this one
    decides the short ones."""
    children = [(2 * y, position.play(2 * y)) for y in gaps(h)]
    short = {x: quiet(half(child)) for x, child in children}
    children.sort(key=lambda c: (not short[c[0]], c[0]))
    kept = (len(ctx.scans), len(ctx.unions), len(ctx.union_groups))
    try:
        _decide_children(children, short, ctx, limit, tally)
    finally:
        forget(ctx, *kept)


def _decide_children(children: list[tuple[int, Position]], short: dict[int, bool], ctx: Context,
                     limit: int | None, tally: Tally) -> None:
    """The loop of :func:`_even_moves`."""
    offered = False
    with _long_apart([child for _, child in children], ctx, limit) as collect:
        for x, child in children:
            if not short[x]:
                collect()
                if not offered:  # those not decided in workers: one union graph for their scans
                    offered = True
                    longs = [c for y, c in children if not short[y]]
                    _cheap_winning(longs, ctx, limit)
                    offer_union(longs, ctx)
            try:
                if not ctx.time_left():
                    raise TimeoutError
                cv = solve_g2(child, ctx, full=False, limit=limit)
            except TimeoutError:  # the deadline passed: the child is undecided, the rest stands
                tally.even(x, None, long=not short[x])
                continue
            except TooLargeError as exc:  # a gcd-1 solve past the memory budget: undecided too
                ctx.too_large.setdefault(child, (str(exc), ctx.tables()))
                tally.even(x, None, long=not short[x], wanting=True)
                continue
            tally.even(x, cv, long=not short[x])


Move = tuple[int, Position, str]
"""A move of :func:`_first_winning`: x, the position after it, and its kind: ``odd``, ``short`` or
``long`` (an even move that leaves a short or a long position)."""


def _first_winning(position: Position, h: Position, ctx: Context, limit: int | None, odd_moves: list[int],
                   tally: Tally) -> None:
    """One winning move of a position with g = 2 (``odd_moves``: the odd moves still to decide, gcd-1
    positions; the even moves 2y give positions with g = 2): the first move proven to win ends the
    search.  Into ``tally``: that move, the odd moves decided, the even moves left undecided (at the
    caller's deadline) and the replies to those that lose.

    The moves are tried likeliest winners first (:func:`_first_order`), in rounds with growing
    budgets (:func:`_rounds`), so that one hard move (a gcd-1 solve can take hours) does not hold
    up an easier winning one.  A move cut by its budget is only postponed, never given a value
    (:func:`_attempt`).  At the caller's deadline the moves not decided stay undecided."""
    deepen = not ctx.deepening
    todo = _first_order(position, h, odd_moves, deepen)
    won = _known_win([(x, c) for x, c, _ in todo], ctx)
    if won is not None:
        tally.winning.append(won)
        if won % 2:
            tally.decided[won] = True
        return
    outer = ctx.deadline
    kept = (len(ctx.scans), len(ctx.unions), len(ctx.union_groups))
    ctx.deepening = True
    try:
        todo = _rounds(todo, ctx, limit, tally, deepen)
    finally:
        ctx.deadline = outer
        ctx.deepening = not deepen
        forget(ctx, *kept)
    if not tally.winning:  # the caller's deadline passed: the moves left are undecided
        for x, _, kind in todo:
            if kind != "odd":
                tally.even(x, None, long=kind == "long")


def _first_order(position: Position, h: Position, odd_moves: list[int], deepen: bool) -> list[Move]:
    """The moves of :func:`_first_winning` in the order they are tried.  The outermost search
    (``deepen``): the even moves that leave short positions (sec. 2: in a short position "at least
    one of them generally turns out to be P"), smallest t(S' ÷ 2) first; then the odd moves, by
    genus; then the even moves that leave long positions (each needs a scan).  The searches inside
    it: the odd moves first, then the even ones (short first)."""
    children = [(2 * y, position.play(2 * y)) for y in gaps(h)]
    short = {x: quiet(half(child)) for x, child in children}
    odd = sorted(((x, position.play(x), "odd") for x in odd_moves), key=lambda m: (m[1].genus, m[0]))
    evens = sorted(((x, c, "short") for x, c in children if short[x]),
                   key=lambda m: (half(m[1]).frobenius_number, m[0]))
    todo: list[Move] = [*evens, *odd] if deepen else [*odd, *evens]
    return todo + [(x, c, "long") for x, c in children if not short[x]]


def _rounds(todo: list[Move], ctx: Context, limit: int | None, tally: Tally, deepen: bool) -> list[Move]:
    """The rounds of :func:`_first_winning`, until a winning move or the caller's deadline; returns
    the moves left undecided.

    The outermost search (``deepen``) deepens iteratively: the i-th move (from 0) gets
    ``FIRST_BUDGET`` / (i + 1) seconds in the first round, and those undecided come back in the
    next round with ``FIRST_GROWTH`` times more; the even moves that leave long positions wait until
    all the others are decided.  The searches inside it (within the budget of a move) deepen over
    their odd moves only (one hard gcd-1 solve must not hold up an easy winning move beside it, and
    a cut solve loses nothing, the engine's tables keep what it proved), then try their even moves
    in turn, uncut: a cut there would drop the shape graphs and base regions its scans built."""
    outer = ctx.deadline
    budget = FIRST_BUDGET
    offered = False

    def waits(kind: str) -> bool:  # tried only once all the other moves are decided
        return kind == "long" if deepen else kind != "odd"
    with _long_apart([c for _, c, kind in todo if kind == "long"], ctx, limit) as collect:
        while todo and not tally.winning:
            later = []
            for i, m in enumerate(todo):
                x, child, kind = m
                if tally.winning or not ctx.time_left() or (
                        waits(kind) and not all(waits(k) for _, _, k in todo)):
                    later.append(m)  # these come after the other moves are decided
                    continue
                if kind == "long":
                    collect()
                    if not offered:
                        offered = True
                        longs = [c for _, c, k in todo if k == "long"]
                        _cheap_winning(longs, ctx, limit)
                        offer_union(longs, ctx)
                cut_at = (time.monotonic() + max(budget / (i + 1), FIRST_LEAST)
                          if deepen or kind == "odd" else None)
                if outer is not None:
                    cut_at = outer if cut_at is None else min(cut_at, outer)
                if not _attempt(m, cut_at, ctx, limit, tally):
                    later.append(m)
            todo = later
            budget *= FIRST_GROWTH
            if not ctx.time_left():  # (ctx.deadline is ``outer`` here)
                break
    return todo


def _attempt(move: Move, cut_at: float | None, ctx: Context, limit: int | None, tally: Tally) -> bool:
    """Decide one move of :func:`_first_winning` by ``cut_at`` (None: uncut) into ``tally``; False
    when the cut came first and left it undecided: postponed to the next round.  What the attempt
    proved stays (gcd-1 results in ``ctx.gcd1``, proven findings, its scan, resumed next time); what
    the cut left undecided is forgotten (:func:`~sylver.solver.gcd.context.purge`)."""
    x, child, kind = move
    outer = ctx.deadline
    ctx.deadline = cut_at
    before = set(ctx.verdicts)
    scans = len(ctx.scans)
    cv = None
    timed_out = wanting = False
    try:
        if kind == "odd":
            if child in ctx.too_large:  # past the memory budget before: not again
                raise TooLargeError(ctx.too_large[child][0])
            out: Outcome | None = Outcome.P if ctx.p_positions([child])[0] else Outcome.N
        else:
            cv = solve_g2(child, ctx, full=False, limit=limit)
            out = cv.outcome
    except TimeoutError:
        out, timed_out = None, True
    except TooLargeError as exc:  # past the memory budget: undecided, the rest stands
        out, wanting = None, True
        ctx.too_large.setdefault(child, (str(exc), ctx.tables() if kind == "odd" else ctx.half()))
    finally:
        ctx.deadline = outer
    if timed_out or (cut_at is not None and time.monotonic() >= cut_at):
        purge(ctx, before)
        if out is None:
            return False
    forget(ctx, scans, len(ctx.unions), len(ctx.union_groups))
    if kind != "odd":
        tally.even(x, cv, long=kind == "long", wanting=wanting)
    elif out is not None:
        tally.decided[x] = out is Outcome.P
        if out is Outcome.P:
            tally.winning.append(x)
    return True


def _cheap_winning(children: list[Position], ctx: Context, limit: int | None) -> None:
    """Before the long positions after the even moves of a position are scanned (each scan needs a
    shape graph, and those of many long positions at once are large): look for a winning move of each
    without a scan, within ``CHEAP_SECONDS`` each — its even moves that leave short positions
    (smallest t(S' ÷ 2) first), then its odd moves x < ``CHEAP_ODD`` · t(S ÷ 2) solved with the gcd-1
    solver.  A
    winning move found (the position after it proven P) makes the child N (into ``ctx.verdicts``);
    a child cut by the budget is only left to the scan, never given a value (:func:`.context.purge`)."""
    for child in children:
        if known(child, ctx, False) is None:
            _cheap_verdict(child, ctx, limit)


def _cheap_verdict(position: Position, ctx: Context, limit: int | None) -> Finding | None:
    """The verdict N of a long position with g = 2 whose winning move :func:`_cheap_move` finds (into
    ``ctx.verdicts``), or None; a position already looked at (``ctx.cheap_tried``) is not again."""
    if position in ctx.cheap_tried or not ctx.time_left():
        return None
    x = _cheap_move(position, ctx, limit)
    if x is None:
        return None
    v = Finding(outcome=Outcome.N, winning=[x], complete=False, method="search", short=False,
                reason=f"{x} wins: it leaves {position.play(x).braces()}, which is P", full=False)
    ctx.verdicts[position] = v
    _note_win(position, [x], ctx)
    record(position, v, ctx)
    return v


def _cheap_move(position: Position, ctx: Context, limit: int | None) -> int | None:
    """A winning move of a long position with g = 2 found without a scan (see :func:`_cheap_winning`),
    or None."""
    h = half(position)
    outer = ctx.deadline
    cut_at = time.monotonic() + CHEAP_SECONDS
    if outer is None or cut_at <= outer:
        ctx.cheap_tried.add(position)  # to the end, or for all of its time: not again
    else:
        cut_at = outer
    before = set(ctx.verdicts)
    kept = (len(ctx.scans), len(ctx.unions), len(ctx.union_groups))
    saved = ctx.deepening
    ctx.deadline, ctx.deepening = cut_at, True
    try:
        evens = [(2 * y, position.play(2 * y)) for y in gaps(h)]
        odds = [(x, position.play(x)) for x in range(3, CHEAP_ODD * h.frobenius_number, 2)]
        won = _known_win([*evens, *odds], ctx)
        if won is not None:
            return won
        evens = sorted(((x, c) for x, c in evens if quiet(half(c))),
                       key=lambda m: (half(m[1]).frobenius_number, m[0]))
        killers = [(x, position.play(x)) for x in _killer_moves(position, ctx)]
        killers = [(x, c) for x, c in killers if x % 2 or quiet(half(c))]
        tried = {x for x, _ in killers}
        for x, child in [*killers, *((x, c) for x, c in [*odds, *evens] if x not in tried)]:
            if time.monotonic() >= cut_at or ctx.out_of_states():
                break
            if (ctx.p_positions([child])[0] if x % 2 else
                    solve_g2(child, ctx, full=False, limit=limit).outcome is Outcome.P):
                return x
    except (TimeoutError, TooLargeError):  # none found in time, or within the memory budget
        pass
    finally:
        ctx.deadline, ctx.deepening = outer, saved
        if time.monotonic() >= cut_at:
            purge(ctx, before)
        forget(ctx, *kept)
    return None


def _note_win(position: Position, winning: list[int], ctx: Context) -> None:
    """Count the winning moves found in ``position`` (g = 2) for each of its generators
    (``ctx.killers``)."""
    for x in winning:
        for m in position.generators:
            ctx.killers.setdefault(m, Counter())[x] += 1


def _killer_moves(position: Position, ctx: Context) -> list[int]:
    """The legal moves of ``position`` (g = 2) that won most often in positions sharing a generator
    with it, at most ``KILLERS``, by the share of the wins after each generator, summed (the "killer"
    heuristic of game search: siblings and cousins in the tree, e.g. S + a and S + a + b + c, are
    often won by the same reply to a)."""
    score: dict[int, float] = {}
    for m in position.generators:
        won = ctx.killers.get(m)
        if won:  # a generator met in few positions tells more than one met everywhere
            total = sum(won.values())
            for x, n in won.items():
                score[x] = score.get(x, 0.0) + n / total
    sg = position.semigroup
    return [x for x in sorted(score, key=lambda x: (-score[x], x)) if x > 1 and x not in sg][:KILLERS]


def _known_win(moves: list[tuple[int, Position]], ctx: Context) -> int | None:
    """The first of these moves (x, the position after it) whose position is already proven P in
    this call (by the search of a sibling or a cousin: positions recur in the tree, e.g. S + a + b
    after a, b and after b, a), or recorded so in the store; None when there is none."""
    for x, child in moves:
        if x % 2:
            if ctx.gcd1.get(child):
                return x
        else:
            v = known(child, ctx, False)
            if v is not None and v.outcome is Outcome.P:
                return x
    return None


@contextmanager
def _long_apart(children: list[Position], ctx: Context, limit: int | None) -> Iterator[Callable[[], None]]:
    """With ``--jobs`` / ``--cluster``: send the long children (g = 2, outcome only) that nothing in
    this call has decided or scanned yet to worker processes, each in its own task; they are
    independent, and each is what :func:`solve_g2` would compute for it in this process (its own
    scans, checkpoints and recursion).  A child whose family is in a scan of this call stays here,
    where that scan is shared.  Yields ``collect()``: wait for the workers' verdicts (into
    ``ctx.verdicts``) until the deadline, where the workers are stopped (a child not finished by
    then stays undecided).  Until then this process works with ``jobs = 1`` (the workers have the
    cores); leaving the block stops the tasks not collected (Ctrl-C, or a winning move found)."""
    from sylver.solver.gcd.shapes import gap_mask

    todo = []
    if ctx.jobs > 1 or ctx.cluster:
        for child in children:
            h = Position(x // 2 for x in child.generators)
            if h.generators == (1,) or quiet(h) or known(child, ctx, False) is not None:
                continue
            key = gap_mask(h)
            if any(key in scan.graph.fam_index for scan in ctx.scans):
                continue
            todo.append(child)
    if len(todo) < 2:
        yield lambda: None
        return
    from functools import partial

    from sylver.executors import Tasks, make_executor

    jobs = ctx.jobs
    work = partial(_child_verdict, limit=limit, memory=max(ctx.memory // max(jobs, 1), 1 << 20),
                   checkpoint_dir=ctx.checkpoint_dir, search_limit=ctx.search_limit,
                   deadline=to_wall(ctx.deadline))
    with make_executor(jobs, ctx.cluster) as ex:
        tasks = Tasks(ex, work, todo)
        collected = False

        def collect() -> None:
            nonlocal collected
            if collected:
                return
            collected = True
            ctx.jobs = jobs
            for i, v in sorted(tasks.collect(ctx.deadline).items()):
                ctx.verdicts[todo[i]] = v
                record(todo[i], v, ctx)

        ctx.jobs = 1
        try:
            yield collect
        finally:
            ctx.jobs = jobs
            tasks.stop()


def _child_verdict(child: Position, *, limit: int | None, memory: int, checkpoint_dir: Path | None,
                   search_limit: int, deadline: float | None) -> Finding:
    """:func:`solve_g2` for one long child, outcome only, in a worker process (no store: the caller
    records the verdict; ``deadline``: wall clock, TimeoutError past it)."""
    ctx = Context(odd_limit=limit, deadline=from_wall(deadline), memory=memory, store=None, jobs=1,
                  cluster=None, progress=None, checkpoint_dir=checkpoint_dir, search_limit=search_limit)
    return solve_g2(child, ctx, full=False, limit=limit)


def _g2_reason(
    position: Position, kind: str, t_h: int, odd: OddTail, unknown_even: list[int],
    outcome: Outcome | None, probably: bool,
) -> str:
    cite = "Sicherman, \"Theory and Practice of Sylver Coinage\", Integers 2002"
    parts = []
    if kind == "short":
        parts.append(
            f"short (S ÷ 2 is a quiet ender with t = {t_h}): no odd move above {t_h} can win "
            f"(Quiet End Theorem, {cite}, sec. 1); "
            + (f"the odd moves up to {t_h} were solved exactly" if odd.complete
               else f"the odd moves up to {t_h} were solved exactly except {odd.open_moves}, "
               + ("not needed (a winning move was found first)" if outcome is Outcome.N
                  else "left undecided (the solve stopped before it decided them)"))
        )
    else:
        if odd.period_length:
            parts.append(
                f"long: the odd moves were scanned to {odd.scanned_to:,} and a period of "
                f"{odd.period_length:,} was certified from x = {odd.period_start:,} (Periodicity "
                f"Theorem, {cite}, sec. 2)"
            )
        elif odd.complete and odd.odd_winning_moves:
            parts.append(
                f"long: the odd moves were scanned to {odd.scanned_to:,}; every larger odd move loses "
                f"to the odd winning move {odd.odd_winning_moves[0]:,}"
            )
        else:
            parts.append(f"long: the odd moves were scanned to {odd.scanned_to:,} without a period")
    if unknown_even:
        parts.append(f"undecided even moves: {', '.join(map(str, unknown_even))}")
    if probably:
        parts.append("probably P (sec. 2): no odd winning move, and every even move is known to lose "
                     "or produces a long position")
    return "; ".join(parts)
