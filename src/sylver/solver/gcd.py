"""Solving positions with g ≠ 1: what is proven, never more (Sicherman, "Theory and Practice of
Sylver Coinage", Integers 2002, sec. 1 end and sec. 2).

A position S with g = g(S) > 1 has infinitely many legal moves.  Write h = S ÷ g.

* **g = 2** (:func:`solve_g2`).  The odd moves: if h is a quiet ender (S is *short*, sec. 1), an odd
  move x > t(h) leaves a quiet ender (Quiet End Theorem), which is N, so only the odd x ≤ t(h) can
  win and each is solved exactly; otherwise (S *long*) the periodicity engine
  (:mod:`sylver.solver.periodic`) scans the odd moves until a certified period (or, once a winning
  odd move m is found, until m + t̄: every larger x loses to m).  The even moves 2y give g = 2
  positions, decided the same way (one scan covers every family that even moves reach from S),
  memoised by family.
* **prime g = p ≥ 3** (:func:`solve_prime`).  Short: the finitely many moves z ≤ t(h) not divisible
  by p are solved exactly; a move p·y gives a position with g = p, decided recursively (p ≥ 5: it is
  N by Hutchings's theorem, since p wins there).  Long: p wins when p ≥ 5; otherwise a bounded
  search for a winning move.
* **composite g**: a prime factor q ≥ 5 of g wins ({q} is P); otherwise a bounded search among the
  moves that leave a short position with prime g, or g = 1.
* **the empty position**: every prime p ≥ 5 wins (Hutchings's p-theorem); the openings 2^a·3^b are
  answered as far as they are known.

The outcome is ``P`` or ``N`` when proven, ``"probably-P"`` (sec. 2: no odd winning move, and every
even move is known to lose or produces a long position), or unknown (``None``).
"""

from __future__ import annotations

import math
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.errors import TooLargeError
from sylver.position import Outcome, Position
from sylver.solver.solution import OddTail, Solution, SolveInterrupted, SolveTimeout

if TYPE_CHECKING:
    from sylver.solver.periodic import BaseRegion, Scan, ScanProgress
    from sylver.solver.shapes import ShapeGraph
    from sylver.solver.store import Store

PROBABLY_P = "probably-P"
UNKNOWN = "unknown"
SEARCH_LIMIT = 64
"""Default bound of the bounded searches (moves tried in long positions with g ≥ 3 and composite g)."""
COMPOSITE_SECONDS = 10.0
"""Time given to the bounded search for a winning move in a position with composite g."""
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
MEMO_BYTES = 580
"""Bytes a memoised gcd-1 result holds: its dict entry (50) and its Position with its generators and
Apéry set (530; measured with tracemalloc: 526 for the 25,176 base-region positions of {12,26,46,54},
multiplicity 12; the base region of a union graph lists it too,
:meth:`sylver.solver.periodic.BaseRegion.nbytes`)."""
KEPT_UNIONS = 2
"""Union graphs (or stopped builders) kept across the attempts of :func:`_first_winning`."""
UNION_SHARE = 3
"""A union graph may take this fraction (1/3) of the memory left (:meth:`Context.room`): its base
region and the scan of one of its positions need the rest (a union without room for them is no
use: each position then builds its own graph)."""
SUB_SCAN_LIMIT = 2_001
"""Odd moves scanned for a long g = 2 position met inside a bounded search."""
MAX_T_H = 5_461
"""Largest t(S ÷ g) the engine takes on (a third of the gcd-1 solver's limit on t, 16,383: the
gcd-1 positions it solves, S ∪ {x} with x ≤ t(S ÷ 2) and the base region, have t ≤ 3·t(S ÷ 2)).
Beyond it only the theorems answer (a prime factor q ≥ 5 of g wins)."""


@dataclass(kw_only=True)
class Verdict:
    """The answer for one position (internal; :class:`~sylver.solver.Solution` is the public form)."""

    outcome: Outcome | None
    winning: list[int]
    complete: bool
    method: str
    reason: str
    probably_p: bool = False
    odd_tail: OddTail | None = None
    short: bool | None = None
    losing_unknown: list[int] = field(default_factory=list)
    full: bool = True
    """False when the search stopped at the first winning move."""

    @property
    def verdict(self) -> str:
        if self.outcome is not None:
            return self.outcome.value
        return PROBABLY_P if self.probably_p else UNKNOWN


def _is_prime(n: int) -> bool:
    from sylver.theory import is_prime

    return is_prime(n)


def _quiet(h: Position) -> bool:
    from sylver.theory import is_quiet_ender

    return h.generators != (1,) and is_quiet_ender(h)


def _gaps(h: Position) -> list[int]:
    return [] if h.generators == (1,) else h.semigroup.gaps()


class Context:
    """Budget and caches shared by one call of :func:`solve_any` (and its recursion)."""

    def __init__(
        self,
        *,
        odd_limit: int | None,
        deadline: float | None,
        memory: int,
        store: Store | None,
        jobs: int,
        cluster: str | None,
        progress: Callable[[ScanProgress], None] | None,
        checkpoint_dir: Path | None,
        search_limit: int = SEARCH_LIMIT,
    ) -> None:
        self.odd_limit = odd_limit
        self.deadline = deadline
        self.memory = memory
        self.store = store
        self.jobs = jobs
        self.cluster = cluster
        self.progress = progress
        self.checkpoint_dir = checkpoint_dir
        self.search_limit = search_limit
        self.gcd1: dict[Position, bool] = {}
        self.verdicts: dict[Position, Verdict] = {}
        self.scans: list[Scan] = []
        self.unions: list[ShapeGraph] = []
        """Shape graphs built for several positions at once (:func:`_offer_union`)."""
        self.union_groups: list[list[Position]] = []
        """Long positions whose graphs are to be built together when the first one needs its own."""
        self.regions: dict[int, BaseRegion] = {}
        """The base regions of the union graphs (by id), shared by their subgraphs' scans."""
        self.kept: dict[frozenset[Position], Any] = {}
        """Union graphs, or their builders stopped by a deadline, kept for a later attempt at the same
        positions (:func:`_keep`)."""
        self.killers: dict[int, Counter[int]] = {}
        """For a number m: the winning moves found in positions with g = 2 that have m among their
        generators, with how often (:func:`_killer_moves`)."""
        self.cheap_tried: set[Position] = set()
        """Long positions (g = 2) whose winning move was looked for without a scan, to the end or for
        the whole of ``CHEAP_SECONDS`` (:func:`_cheap_verdict`): not looked for again."""
        self.too_large: dict[Position, tuple[str, int]] = {}
        """Long positions below the root whose shape graph would pass the memory left for it (with the
        error's message and that memory): undecided in this call, tried again only when at least
        twice as much memory is left (:func:`_scan_or_verdict`)."""
        self.root: Position | None = None
        """The position the user asked for (None in a worker): its own graph too large is an error."""
        self.peak_scan_bytes = 0
        """The most memory :meth:`held` showed when scans were dropped (:func:`_forget`)."""
        self.deepening = False
        """True inside the iterative deepening of :func:`_first_winning` (the searches below it try
        their moves in turn)."""

    # -- gcd-1 positions -------------------------------------------------------------------------
    def p_positions(self, positions: list[Position]) -> list[bool]:
        """Which of these gcd-1 positions are P (exact solves, memoised; in parallel with jobs)."""
        gcd1 = self.gcd1
        todo = [p for p in dict.fromkeys(positions) if p not in gcd1]
        if todo:  # each result kept as it comes (in one process), so a deadline loses none
            _solve_many(todo, self, gcd1.__setitem__)
        return [gcd1[p] for p in positions]

    def time_left(self) -> bool:
        return self.deadline is None or time.monotonic() < self.deadline

    # -- memory ----------------------------------------------------------------------------------
    def half(self) -> int:
        """The half of ``--memory`` that the shape graphs, scans, base regions and the memo of gcd-1
        results share (the gcd-1 solver's tables have the other half)."""
        return max(self.memory // 2, 1 << 17)

    def held(self) -> int:
        """The bytes held now in :meth:`half`: the live scans, the union graphs (kept ones, or their
        stopped builders, too), the base regions and the memo of gcd-1 results."""
        from sylver.solver.shapes import ShapeGraph

        graphs = {id(u): u for u in (*self.unions, *self.kept.values())}
        arrays = {id(a): a for s in self.scans for a in s.arrays()}  # a scan's graph may share a union's moves
        rest = sum(s.object_bytes() for s in self.scans)
        for u in graphs.values():
            if isinstance(u, ShapeGraph):
                arrays.update((id(a), a) for a in u.arrays())
                rest += u.object_bytes()
            else:
                rest += u.needed()
        return (int(sum(a.nbytes for a in arrays.values())) + rest
                + sum(r.nbytes() for r in self.regions.values()) + MEMO_BYTES * len(self.gcd1))

    def room(self, scans: bool = True) -> int:
        """The memory a new shape graph or scan may take: :meth:`half` less what is :meth:`held`.  When
        less than half of it is left, the caches go first: the kept union graphs with their base
        regions, and the memo's N results (a P result stays: a move to it wins at once,
        :func:`_known_win`; an N result is solved again when asked, the gcd-1 solver's own tables
        remembering most of it); then, if that was not enough, the scans but the root's
        (:meth:`drop_scans`: none is running when a new one is made; a scan kept for a position cut
        by the iterative deepening, or whose graph holds the families of later positions, is made
        again when needed).  A graph or scan refused for want of memory drops them too, and is
        tried once more (:func:`_scan_or_verdict`).  With ``scans`` false the scans stay: what a
        running scan may still add (``Scan.room``)."""
        half = self.half()
        left = half - self.held()
        if left < half // 2 and (self.kept or len(self.gcd1)):
            self.kept.clear()
            live = {id(u) for u in self.unions}
            for k in [k for k in self.regions if k not in live]:
                del self.regions[k]
            for p in [p for p, v in self.gcd1.items() if not v]:
                del self.gcd1[p]
            left = half - self.held()
        if scans and left < half // 2 and self.drop_scans():
            left = half - self.held()
        return max(left, 0)

    def drop_scans(self) -> bool:
        """Drop the scans but the root's (see :meth:`room`); whether there were any."""
        if all(s.position == self.root for s in self.scans):
            return False
        # only ever fewer scans: the counts that _forget keeps stay past every outer scan
        self.scans[:] = [s for s in self.scans if s.position == self.root]
        return True


def _known(position: Position, ctx: Context, full: bool) -> Verdict | None:
    """The verdict already established for ``position`` in this call, or recorded in the results
    store by an earlier solve (with ``full``, only a complete record: every winning move)."""
    cached = ctx.verdicts.get(position)
    if cached is not None and (cached.complete or not full or cached.full):
        return cached
    if ctx.store is None:
        return None
    rec = ctx.store.get(position)
    if rec is None or (full and not rec.complete):
        return None
    v = Verdict(outcome=rec.outcome, winning=list(rec.winning_moves), complete=rec.complete, method="store",
                reason=f"{rec.outcome.value}, recorded in the results store by an earlier solve", full=full)
    ctx.verdicts[position] = v
    return v


def _record(position: Position, v: Verdict, ctx: Context) -> None:
    """Record a proven outcome in the results store (the column for t holds 0 for g > 1)."""
    if ctx.store is not None and v.outcome is not None:
        ctx.store.put_result(position, v.outcome, tuple(v.winning), v.complete, 0)


def _wall(deadline: float | None) -> float | None:
    """A ``time.monotonic()`` deadline as a ``time.time()`` one, for a task in another process (a
    Dask worker may run on another machine, where only the wall clock is shared)."""
    return None if deadline is None else time.time() + (deadline - time.monotonic())


def _monotonic(wall: float | None) -> float | None:
    """The inverse of :func:`_wall`, in the worker."""
    return None if wall is None else time.monotonic() + (wall - time.time())


def _solve_chunk(ps: list[Position], memory: int, deadline: float | None) -> list[bool]:
    """:func:`sylver.solver.periodic.solve_base` in a worker process (``deadline``: wall clock)."""
    from sylver.solver.periodic import solve_base

    return solve_base(ps, memory=memory, deadline=_monotonic(deadline))


def _solve_many(positions: list[Position], ctx: Context,
                found: Callable[[Position, bool], None]) -> None:
    """Decide gcd-1 positions with :func:`sylver.solver.periodic.solve_base` (the self-checked
    path of :func:`sylver.solver.solve`), split over processes with ``--jobs`` / ``--cluster``; they
    get half the memory budget (the scans the other half), shared by the ``--jobs`` processes of
    this machine (a cluster's workers each have their own).  ``found(p, is_p)`` receives each
    result.  TimeoutError at the deadline (the workers are stopped then, see
    :func:`sylver.executors.run_until`)."""
    from sylver.solver.periodic import solve_base

    memory = ctx.half()
    if (ctx.jobs > 1 or ctx.cluster) and len(positions) >= 64:
        from functools import partial

        from sylver.executors import make_executor, run_until

        size = max(16, len(positions) // (8 * max(ctx.jobs, 1)))
        chunks = [positions[i : i + size] for i in range(0, len(positions), size)]
        share = memory if ctx.cluster else max(memory // ctx.jobs, 1 << 17)
        work = partial(_solve_chunk, memory=share, deadline=_wall(ctx.deadline))
        with make_executor(ctx.jobs, ctx.cluster) as ex:
            done = run_until(ex, work, chunks, ctx.deadline)
        for i, values in done.items():  # the chunks finished by the deadline count
            for p, v in zip(chunks[i], values, strict=True):
                found(p, v)
        if len(done) < len(chunks):
            raise TimeoutError("time limit reached")
        return
    solve_base(positions, memory=memory, deadline=ctx.deadline, found=found)


# ------------------------------------------------------------------------------------------------
# g = 2
# ------------------------------------------------------------------------------------------------


def _scan_for(position: Position, ctx: Context) -> tuple[Scan, int]:
    """A scan whose shape graph contains the family of ``position`` (g = 2), and the family index."""
    from sylver.solver.periodic import Scan
    from sylver.solver.shapes import gap_mask

    h = Position(x // 2 for x in position.generators)
    key = gap_mask(h)
    for scan in ctx.scans:
        f = scan.graph.fam_index.get(key)
        if f is not None:
            return scan, f
    checkpoint = None
    if ctx.checkpoint_dir is not None:
        checkpoint = ctx.checkpoint_dir / f"{position}.npz"
    union = _union_for(position, key, ctx)
    graph = region = None
    if union is not None:
        from sylver.solver.periodic import BaseRegion, fits

        region = ctx.regions.get(id(union))
        if region is None:
            try:
                region = BaseRegion.of(union, ctx.p_positions, ctx.deadline, memory=ctx.room())
            except TooLargeError:  # no room for the union's base region: each position builds its own graph
                _drop_union(union, ctx)
                union = None
            else:
                ctx.regions[id(union)] = region
    if union is not None:
        keep = union.reachable(position)
        fits(position, graph_bytes=union.subgraph_bytes(keep), shapes=int(keep.size),
             down_moves=int((union.down_ptr[keep + 1] - union.down_ptr[keep]).sum()),
             Tmax=int(union.fam_T[union.fam[keep]].max()), memory=ctx.room())
        graph = union.subgraph(position, keep=keep)
    scan = Scan(position, graph=graph, base=ctx.p_positions, checkpoint=checkpoint, memory=ctx.room(),
                deadline=ctx.deadline, region=region, keep_base=False, room=lambda: ctx.room(scans=False))
    ctx.scans.append(scan)
    return scan, 0


def _scan_or_verdict(position: Position, ctx: Context, full: bool, limit: int | None) -> tuple[Scan, int] | Verdict:
    """The scan of a long position (:func:`_scan_for`), or a verdict without one: with ``full``
    false, N by a winning move found without a scan first (:func:`_cheap_verdict`); undecided when
    its shape graph would pass the memory budget and it is not the root (a move leading there is
    left open and the search goes on with the others, instead of the whole solve failing; the
    root's own graph too large stays an error, TooLargeError, which says to give more ``--memory``)."""

    cheap = None if full else _cheap_verdict(position, ctx, limit)
    if cheap is not None:
        return cheap
    failed = ctx.too_large.get(position)
    if failed is None or failed[1] < ctx.half() and ctx.room() >= 2 * failed[1]:
        while True:  # at most twice: the scans kept as caches go first, then once more
            budget = ctx.room()
            try:
                return _scan_for(position, ctx)
            except TooLargeError as exc:
                if position == ctx.root:
                    raise
                failed = ctx.too_large[position] = (str(exc), budget)
            if not ctx.drop_scans():
                break
    why = failed[0]
    return Verdict(outcome=None, winning=[], complete=False, method="periodicity", short=False, full=False,
                   reason=f"long: not scanned, {why}; undecided")


def _offer_union(children: list[Position], ctx: Context) -> None:
    """The long positions after the even moves of one position (g = 2) that will need scans of their
    own: their shape graphs overlap (most families contain several of them), so they are built as
    one union graph, once, when the first of them needs its graph (:func:`_union_for`)."""
    from sylver.solver.shapes import gap_mask

    group = []
    for child in children:
        h = Position(x // 2 for x in child.generators)
        if h.generators == (1,) or _known(child, ctx, False) is not None:
            continue
        key = gap_mask(h)
        if any(key in g.fam_index for g in (*(s.graph for s in ctx.scans), *ctx.unions)):
            continue
        group.append(child)
    if len(group) >= 2:
        ctx.union_groups.append(group)


def _union_for(position: Position, key: int, ctx: Context) -> ShapeGraph | None:
    """A union graph containing the family ``key`` of ``position``: one built earlier, or that of the
    group offered with it (:func:`_offer_union`), built now; None when there is none, or when the
    union would pass its share of the memory left (``UNION_SHARE`` of :meth:`Context.room`; each
    position then builds its own graph)."""
    from sylver.solver.shapes import ShapeGraph, union_builder

    for union in ctx.unions:
        if key in union.fam_index:
            return union
    for group in ctx.union_groups:
        if position in group:
            members = [position] + [p for p in group if p != position and _known(p, ctx, False) is None]
            if len(members) < 2:
                ctx.union_groups.remove(group)
                return None
            built = frozenset(members)
            memory = ctx.room() // UNION_SHARE
            kept = ctx.kept.pop(built, None)
            try:  # a TimeoutError leaves the group offered: a later attempt goes on with the build
                if isinstance(kept, ShapeGraph):
                    union = kept
                else:
                    builder = kept if kept is not None else union_builder(members, memory)
                    builder.memory = memory
                    try:
                        union = builder.finish(ctx.deadline)
                    except TimeoutError:
                        _keep(ctx, built, builder)
                        raise
            except TooLargeError:
                ctx.union_groups.remove(group)
                return None
            ctx.union_groups.remove(group)
            ctx.unions.append(union)
            _keep(ctx, built, union)
            return union
    return None


def _drop_union(union: ShapeGraph, ctx: Context) -> None:
    """Forget a union graph (its base region would not fit): its positions build their own graphs."""
    ctx.unions[:] = [u for u in ctx.unions if u is not union]
    for members in [m for m, u in ctx.kept.items() if u is union]:
        del ctx.kept[members]
    ctx.regions.pop(id(union), None)


def _keep(ctx: Context, members: frozenset[Position], union: ShapeGraph | Any) -> None:
    """Keep a union graph (with its base region, once listed), or its builder stopped by a deadline,
    for a later attempt at the same positions (the iterative deepening of :func:`_first_winning`
    comes back to them with more time): the last ``KEPT_UNIONS`` only."""
    ctx.kept[members] = union
    while len(ctx.kept) > KEPT_UNIONS:
        old = ctx.kept.pop(next(iter(ctx.kept)))
        if not any(old is u for u in ctx.unions):
            ctx.regions.pop(id(old), None)


def _run_scan(scan: Scan, ctx: Context, limit: int | None, needed: Callable[[], bool]) -> None:
    """Scan until ``needed()`` is false, a period is certified, the odd limit or the deadline."""
    until = limit
    if until is not None and until % 2 == 0:
        until -= 1
    last = [0.0]
    if not needed():
        return

    def stop(_scan: Scan) -> bool:
        if ctx.deadline is not None and time.monotonic() >= ctx.deadline:
            return True
        now = time.monotonic()
        if now - last[0] < 0.2:
            return False
        last[0] = now
        return not needed()

    scan.run(until=until, stop=stop, deadline=ctx.deadline, progress=ctx.progress)


def _family_odd(scan: Scan, f: int, limit: int | None) -> OddTail:
    """What the scan proves about the odd moves of family f, for a question bounded by ``limit``
    (--odd-limit): a scan resumed from a checkpoint may be past it, and then the answer is what the
    scan to the limit proves (the same as without the checkpoint), never more."""
    to = scan.upto(limit)
    T = int(scan.graph.fam_T[f])
    complete = scan.family_tail_complete(f, to)
    hits = tuple(scan.hits(f, to))
    per = scan.period_upto(to)
    if per is None and f != 0:  # a family other than the scan's own is periodic with the rest
        per = scan.rest_upto(to)
    if complete:
        open_moves = ""
    elif hits:
        open_moves = f"odd x in {to + 2}..{hits[0] + 2 * T}"
    else:
        open_moves = f"odd x > {to}"
    return OddTail(
        scanned_to=to, period_start=per.start if per else None,
        period_length=per.length if per else None, odd_winning_moves=hits, complete=complete,
        open_moves=open_moves,
    )


def solve_g2(position: Position, ctx: Context, *, full: bool = True, limit: int | None = None) -> Verdict:
    """The verdict for a position with g = 2 (see the module docstring).

    ``full``: every winning move is sought (else the search stops at the first: the outcome is all
    a parent needs).  ``limit``: the odd moves of a long position are scanned up to it (None: no
    limit).
    """
    known = _known(position, ctx, full)
    if known is not None:
        return known
    h = Position(x // 2 for x in position.generators)
    if h.generators == (1,):  # {2}: odd x gives {2, x}, N unless x = 3 (Hutchings)
        v = Verdict(
            outcome=Outcome.N, winning=[3], complete=True, method="theorem",
            reason="every odd x gives the coprime pair {2,x}, which is N unless x = 3 (Hutchings's "
            "theorem, sec. 1); {2,3} is P",
            odd_tail=OddTail(scanned_to=3, period_start=None, period_length=None, odd_winning_moves=(3,),
                             complete=True, open_moves=""),
        )
        ctx.verdicts[position] = v
        return v
    short = _quiet(h)
    beyond = None
    winning: list[int] = []
    unknown_even: list[int] = []
    long_open: list[int] = []
    replies: dict[int, int | None] = {}
    if short and not full:  # one winning move: the odd and the even moves together
        decided: dict[int, bool] = {}
        _first_winning(position, h, ctx, limit, list(range(3, h.frobenius_number + 1, 2)), decided, winning,
                       unknown_even, long_open, replies)
        odd = _short_odd_first(h.frobenius_number, decided)
    else:
        if short:
            odd = _short_odd_tail(position, h.frobenius_number, ctx)
        else:
            found = _scan_or_verdict(position, ctx, full, limit)
            if isinstance(found, Verdict):
                return found
            scan, f = found
            _run_scan(scan, ctx, limit, lambda: not scan.family_tail_complete(f) and (full or not scan.hits(f)))
            odd = _family_odd(scan, f, limit)
            beyond = scan.scanned_to if scan.scanned_to > odd.scanned_to else None
        winning = list(odd.odd_winning_moves)
        if full:
            _even_moves(position, h, ctx, limit, winning, unknown_even, long_open, replies)
        elif not winning:
            _first_winning(position, h, ctx, limit, [], {}, winning, unknown_even, long_open, replies)
    winning.sort()
    unknown_even.sort()
    complete = odd.complete and not unknown_even and (full or not winning)
    if winning:
        outcome: Outcome | None = Outcome.N
    elif odd.complete and not unknown_even:
        outcome = Outcome.P
    else:
        outcome = None
    probably = (
        outcome is None and odd.complete and not odd.odd_winning_moves
        and set(unknown_even) == set(long_open)
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
    v = Verdict(outcome=outcome, winning=winning, complete=complete, method="short" if short else "periodicity",
                reason=reason, probably_p=probably, odd_tail=odd, short=short, losing_unknown=unknown_even,
                full=full)
    ctx.verdicts[position] = v
    _note_win(position, winning, ctx)
    _record(position, v, ctx)
    return v


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


def _even_moves(position: Position, h: Position, ctx: Context, limit: int | None, winning: list[int],
                unknown_even: list[int], long_open: list[int], replies: dict[int, int | None]) -> None:
    """Decide every even move 2y of a position with g = 2 (each a position with g = 2, solved for its
    outcome only), short children first (cheap), then long ones; append to ``winning``,
    ``unknown_even``, (undecided long children) ``long_open`` and (each even move that loses: the
    least winning reply found) ``replies``.  With ``--jobs`` / ``--cluster``
    the long children go to worker processes (:func:`_long_apart`) while this one decides the short
    ones."""
    children = [(2 * y, position.play(2 * y)) for y in _gaps(h)]
    short = {x: _quiet(_half(child)) for x, child in children}
    children.sort(key=lambda c: (not short[c[0]], c[0]))
    kept = (len(ctx.scans), len(ctx.unions), len(ctx.union_groups))
    try:
        _decide_children(children, short, ctx, limit, winning, unknown_even, long_open, replies)
    finally:
        _forget(ctx, *kept)


def _half(position: Position) -> Position:
    """S ÷ 2."""
    return Position(x // 2 for x in position.generators)


def _first_winning(position: Position, h: Position, ctx: Context, limit: int | None, odd_moves: list[int],
                   decided: dict[int, bool], winning: list[int], unknown_even: list[int], long_open: list[int],
                   replies: dict[int, int | None]) -> None:
    """One winning move of a position with g = 2 (``odd_moves``: the odd moves still to decide, gcd-1
    positions; the even moves 2y give positions with g = 2): the first move proven to win ends the
    search (``winning``).  Fills ``decided`` (odd x: True when it wins), ``unknown_even``,
    ``long_open`` and ``replies`` as :func:`_even_moves` does.

    The outermost such search (``ctx.deepening`` false) deepens iteratively: the moves, likeliest
    winners first — the even moves that leave short positions (sec. 2: in a short position "at
    least one of them generally turns out to be P"), smallest t(S' ÷ 2) first; then the odd moves, by
    genus; then, once all those are decided, the even moves that leave long positions (each needs
    a scan) — are tried in rounds, the i-th (from 0)
    with ``FIRST_BUDGET`` / (i + 1) seconds in the first round, and those undecided come back in the
    next round with ``FIRST_GROWTH`` times more.  So one hard move (a gcd-1 solve can take hours)
    does not hold up an easier winning one, and an unlikely move costs little until the likely
    ones are exhausted.  A move cut by its budget is only postponed, never given a value: what its
    attempt proved stays (gcd-1 results in ``ctx.gcd1``, proven verdicts, its scan, resumed next
    time), what the cut left undecided is forgotten (:func:`_purge`).  The searches inside it (of
    the positions after its moves, within the budget of the move) deepen over their odd moves only
    (by genus, in rounds as above: one hard gcd-1 solve must not hold up an easy winning move beside
    it, and a cut solve loses nothing, the engine's tables keep what it proved), then try their even
    moves in turn (short first), uncut: a cut there would drop the shape graphs and base regions
    its scans built.  At the caller's deadline the moves not decided stay undecided.  It is one
    long piece because the order, the rounds and the bookkeeping of a cut share the move list and
    its budgets."""
    children = [(2 * y, position.play(2 * y)) for y in _gaps(h)]
    short = {x: _quiet(_half(child)) for x, child in children}
    deepen = not ctx.deepening
    todo: list[tuple[int, Position, str]]
    odd = sorted(((x, position.play(x), "odd") for x in odd_moves), key=lambda m: (m[1].genus, m[0]))
    evens = sorted(((x, c, "short") for x, c in children if short[x]),
                   key=lambda m: (_half(m[1]).frobenius_number, m[0]))
    todo = [*evens, *odd] if deepen else [*odd, *evens]
    todo += [(x, c, "long") for x, c in children if not short[x]]

    def waits(kind: str) -> bool:  # tried only once all the other moves are decided
        return kind == "long" if deepen else kind != "odd"
    won = _known_win([(x, c) for x, c, _ in todo], ctx)
    if won is not None:
        winning.append(won)
        if won % 2:
            decided[won] = True
        return
    outer = ctx.deadline
    budget = FIRST_BUDGET
    kept = (len(ctx.scans), len(ctx.unions), len(ctx.union_groups))
    offered = False
    ctx.deepening = True
    try:
        with _long_apart([c for _, c, kind in todo if kind == "long"], ctx, limit) as collect:
            while todo and not winning:
                later = []
                for i, m in enumerate(todo):
                    x, child, kind = m
                    if winning or (outer is not None and time.monotonic() >= outer) or (
                            waits(kind) and not all(waits(k) for _, _, k in todo)):
                        later.append(m)  # these come after the other moves are decided
                        continue
                    if kind == "long":
                        collect()
                        if not offered:
                            offered = True
                            longs = [c for _, c, k in todo if k == "long"]
                            _cheap_winning(longs, ctx, limit)
                            _offer_union(longs, ctx)
                    cut_at = (time.monotonic() + max(budget / (i + 1), FIRST_LEAST)
                              if deepen or kind == "odd" else None)
                    if outer is not None:
                        cut_at = outer if cut_at is None else min(cut_at, outer)
                    ctx.deadline = cut_at
                    before = set(ctx.verdicts)
                    scans = len(ctx.scans)
                    cv = None
                    timed_out = False
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
                        out = None
                        ctx.too_large.setdefault(child, (str(exc), ctx.half()))
                    finally:
                        ctx.deadline = outer
                    if timed_out or (cut_at is not None and time.monotonic() >= cut_at):
                        _purge(ctx, before)
                        if out is None:
                            later.append(m)
                            continue
                    _forget(ctx, scans, len(ctx.unions), len(ctx.union_groups))
                    if kind == "odd" and out is not None:
                        decided[x] = out is Outcome.P
                    if out is Outcome.P:
                        winning.append(x)
                    elif kind != "odd" and out is None:
                        unknown_even.append(x)
                        if kind == "long":
                            long_open.append(x)
                    elif kind != "odd" and cv is not None:
                        replies[x] = min(cv.winning) if cv.winning else None
                todo = later
                budget *= FIRST_GROWTH
                if outer is not None and time.monotonic() >= outer:
                    break
    finally:
        ctx.deadline = outer
        ctx.deepening = not deepen
        _forget(ctx, *kept)
    if not winning:  # the caller's deadline passed: the moves left are undecided
        for x, _, kind in todo:
            if kind != "odd":
                unknown_even.append(x)
                if kind == "long":
                    long_open.append(x)


def _cheap_winning(children: list[Position], ctx: Context, limit: int | None) -> None:
    """Before the long positions after the even moves of a position are scanned (each scan needs a
    shape graph, and those of many long positions at once are large): look for a winning move of each
    without a scan, within ``CHEAP_SECONDS`` each — its even moves that leave short positions
    (smallest t(S' ÷ 2) first), then its odd moves x < ``CHEAP_ODD`` · t(S ÷ 2) solved with the gcd-1
    solver.  A
    winning move found (the position after it proven P) makes the child N (into ``ctx.verdicts``);
    a child cut by the budget is only left to the scan, never given a value (:func:`_purge`)."""
    for child in children:
        if _known(child, ctx, False) is None:
            _cheap_verdict(child, ctx, limit)


def _cheap_verdict(position: Position, ctx: Context, limit: int | None) -> Verdict | None:
    """The verdict N of a long position with g = 2 whose winning move :func:`_cheap_move` finds (into
    ``ctx.verdicts``), or None; a position already looked at (``ctx.cheap_tried``) is not again."""
    if position in ctx.cheap_tried or not ctx.time_left():
        return None
    x = _cheap_move(position, ctx, limit)
    if x is None:
        return None
    v = Verdict(outcome=Outcome.N, winning=[x], complete=False, method="search", short=False,
                reason=f"{x} wins: it leaves {position.play(x).braces()}, which is P", full=False)
    ctx.verdicts[position] = v
    _note_win(position, [x], ctx)
    _record(position, v, ctx)
    return v


def _cheap_move(position: Position, ctx: Context, limit: int | None) -> int | None:
    """A winning move of a long position with g = 2 found without a scan (see :func:`_cheap_winning`),
    or None."""
    h = _half(position)
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
        evens = [(2 * y, position.play(2 * y)) for y in _gaps(h)]
        odds = [(x, position.play(x)) for x in range(3, CHEAP_ODD * h.frobenius_number, 2)]
        won = _known_win([*evens, *odds], ctx)
        if won is not None:
            return won
        evens = sorted(((x, c) for x, c in evens if _quiet(_half(c))),
                       key=lambda m: (_half(m[1]).frobenius_number, m[0]))
        killers = [(x, position.play(x)) for x in _killer_moves(position, ctx)]
        killers = [(x, c) for x, c in killers if x % 2 or _quiet(_half(c))]
        tried = {x for x, _ in killers}
        for x, child in [*killers, *((x, c) for x, c in [*odds, *evens] if x not in tried)]:
            if time.monotonic() >= cut_at:
                break
            if (ctx.p_positions([child])[0] if x % 2 else
                    solve_g2(child, ctx, full=False, limit=limit).outcome is Outcome.P):
                return x
    except (TimeoutError, TooLargeError):  # none found in time, or within the memory budget
        pass
    finally:
        ctx.deadline, ctx.deepening = outer, saved
        if time.monotonic() >= cut_at:
            _purge(ctx, before)
        _forget(ctx, *kept)
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
            v = _known(child, ctx, False)
            if v is not None and v.outcome is Outcome.P:
                return x
    return None


def _purge(ctx: Context, before: set[Position]) -> None:
    """Forget the verdicts without an outcome made since ``before`` (the keys of ``ctx.verdicts``
    then): a deadline cut them short, so a later attempt with more time must not read them back.
    Proven outcomes stay (a cut never makes one: a move left undecided is never counted as losing)."""
    for key in [k for k in ctx.verdicts if k not in before and ctx.verdicts[k].outcome is None]:
        del ctx.verdicts[key]


def _forget(ctx: Context, scans: int, unions: int, groups: int) -> None:
    """Drop the scans, union graphs and offered groups made since these counts (those of the even
    moves of a position, once they are decided: their verdicts stay in ``ctx.verdicts``), so that
    memory holds the scans of one line of positions, not of the whole tree."""
    ctx.peak_scan_bytes = max(ctx.peak_scan_bytes, ctx.held())
    for union in ctx.unions[unions:]:
        if not any(union is k for k in ctx.kept.values()):
            ctx.regions.pop(id(union), None)
    del ctx.scans[scans:], ctx.unions[unions:], ctx.union_groups[groups:]


def _decide_children(children: list[tuple[int, Position]], short: dict[int, bool], ctx: Context,
                     limit: int | None, winning: list[int], unknown_even: list[int], long_open: list[int],
                     replies: dict[int, int | None]) -> None:
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
                    _offer_union(longs, ctx)
            try:
                if not ctx.time_left():
                    raise TimeoutError
                cv = solve_g2(child, ctx, full=False, limit=limit)
            except TimeoutError:  # the deadline passed: the child is undecided, the rest stands
                unknown_even.append(x)
                if not short[x]:
                    long_open.append(x)
                continue
            if cv.outcome is Outcome.P:
                winning.append(x)
            elif cv.outcome is None:
                unknown_even.append(x)
                if cv.short is False:
                    long_open.append(x)
            else:
                replies[x] = min(cv.winning) if cv.winning else None


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
    from sylver.solver.shapes import gap_mask

    todo = []
    if ctx.jobs > 1 or ctx.cluster:
        for child in children:
            h = Position(x // 2 for x in child.generators)
            if h.generators == (1,) or _quiet(h) or _known(child, ctx, False) is not None:
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
                   deadline=_wall(ctx.deadline))
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
                _record(todo[i], v, ctx)

        ctx.jobs = 1
        try:
            yield collect
        finally:
            ctx.jobs = jobs
            tasks.stop()


def _child_verdict(child: Position, *, limit: int | None, memory: int, checkpoint_dir: Path | None,
                   search_limit: int, deadline: float | None) -> Verdict:
    """:func:`solve_g2` for one long child, outcome only, in a worker process (no store: the caller
    records the verdict; ``deadline``: wall clock, TimeoutError past it)."""
    ctx = Context(odd_limit=limit, deadline=_monotonic(deadline), memory=memory, store=None, jobs=1,
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


# ------------------------------------------------------------------------------------------------
# prime g >= 3, composite g, the empty position
# ------------------------------------------------------------------------------------------------


def solve_prime(position: Position, ctx: Context, depth: int = 0, *, full: bool = True) -> Verdict:
    """The verdict for a position with prime g ≥ 3 (see the module docstring); ``full`` as for
    :func:`solve_g2`."""
    known = _known(position, ctx, full)
    if known is not None:
        return known
    p = position.gcd
    h = Position(x // p for x in position.generators)
    v = _prime_theorem(p, h, full)
    if v is not None:
        ctx.verdicts[position] = v
        return v
    t_h = h.frobenius_number
    short = _quiet(h)
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
    v = Verdict(outcome=outcome, winning=winning, complete=complete, method="short" if short else "search",
                reason="; ".join(reasons), short=short, losing_unknown=undecided, full=full)
    ctx.verdicts[position] = v
    _record(position, v, ctx)
    return v


def _prime_theorem(p: int, h: Position, full: bool) -> Verdict | None:
    """The verdict that a theorem gives for a position p·h with prime g = p ≥ 3, if any: {p}
    (Hutchings's theorem, sec. 1), or t(h) beyond the engine's range with p ≥ 5 (p wins)."""
    if h.generators == (1,):
        if p >= 5:
            return Verdict(outcome=Outcome.P, winning=[], complete=True, method="theorem",
                           reason=f"Hutchings's p-theorem (sec. 1): every move from {{{p}}} gives a coprime "
                           "pair, an ender with t > 1, hence N")
        # {3}: every move z gives the coprime pair {3, z}, N unless z = 2
        return Verdict(outcome=Outcome.N, winning=[2], complete=True, method="theorem",
                       reason="every move z gives the coprime pair {3,z}, which is N unless z = 2 "
                       "(Hutchings's theorem, sec. 1)")
    t_h = h.frobenius_number
    if t_h > MAX_T_H:  # p >= 5 (else check_range refused it): the theorem alone
        return Verdict(outcome=Outcome.N, winning=[p], complete=False, method="theorem",
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
    for y in _gaps(h):
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


def solve_composite(position: Position, ctx: Context) -> Verdict:
    """Composite g: a prime factor q ≥ 5 wins; otherwise a bounded search (sec. 2)."""
    from sylver.theory import prime_factor_at_least_5

    g = position.gcd
    q = prime_factor_at_least_5(g)
    if q is not None:
        return Verdict(outcome=Outcome.N, winning=[q], complete=False, method="theorem",
                       reason=f"{q} wins: it leaves {{{q}}}, which is P by Hutchings's p-theorem (sec. 1, "
                       "sec. 2); the other winning moves are not decided")
    # moves p·z that leave a position with prime g = p; by the Quiet End Theorem (sec. 1) those with
    # z > t(h) and gcd(z, g/p) = 1 leave short positions when h = S ÷ g is a quiet ender (sec. 2:
    # {24,42} = {8,14}×3 and its moves 38, 40, 44, 46, ...)
    h = Position(x // g for x in position.generators)
    family = ""
    if _quiet(h):
        t_h = h.frobenius_number
        for p in sorted({p for p in range(2, g + 1) if g % p == 0 and _is_prime(p)}):
            zs = [z for z in range(t_h + 1, t_h + 40) if math.gcd(z, g // p) == 1][:4]
            family += (f"; every move {p}·z with z > {t_h} and gcd(z, {g // p}) = 1 "
                       f"({', '.join(str(p * z) for z in zs)}, ...) leaves a short position with g = {p}")
    winning: list[int] = []
    decided_n: list[int] = []
    undecided: list[int] = []
    saved = ctx.deadline
    budget = time.monotonic() + COMPOSITE_SECONDS
    ctx.deadline = budget if saved is None else min(saved, budget)
    try:
        for x in range(2, ctx.search_limit + 1):
            if x in position.semigroup:
                continue
            child = position.play(x)
            cg = child.gcd
            if cg < 2 or not _is_prime(cg):
                continue
            hc = Position(y // cg for y in child.generators)
            if not (_quiet(hc) or hc.generators == (1,)):
                continue
            if not ctx.time_left():
                undecided.append(x)
                continue
            try:
                cv = (solve_g2(child, ctx, full=False, limit=SUB_SCAN_LIMIT) if cg == 2
                      else solve_prime(child, ctx, full=False))
            except TimeoutError:
                undecided.append(x)
                continue
            if cv.outcome is Outcome.P:
                winning.append(x)
                break
            if cv.outcome is Outcome.N:
                decided_n.append(x)
            else:
                undecided.append(x)
    finally:
        ctx.deadline = saved
    searched = (
        f"the moves up to {ctx.search_limit} that leave a short position with prime g were tried "
        f"for {COMPOSITE_SECONDS:g} s at most: {_list(decided_n)} lose"
        + (f", {_list(undecided)} undecided" if undecided else "")
    )
    if winning:
        reason = (f"{winning[0]} wins: it leaves {position.play(winning[0]).braces()}, which is P; "
                  "the other winning moves are not decided (sec. 2: cases with composite g are "
                  f"generally intractable){family}")
        return Verdict(outcome=Outcome.N, winning=winning, complete=False, method="search", reason=reason)
    return Verdict(outcome=None, winning=[], complete=False, method="search",
                   reason=f"g = {g}: no theorem decides it, and no winning move was found: {searched}{family}")


def _list(xs: list[int]) -> str:
    return ", ".join(map(str, xs)) if xs else "none"


def solve_empty(ctx: Context) -> Verdict:
    """The empty position (sec. 2, last paragraphs)."""
    from sylver.theory import is_prime

    primes = [p for p in range(5, 100) if is_prime(p)]
    reason = (
        "N: every prime p >= 5 wins, since {p} is P by Hutchings's p-theorem (sec. 2); listed up to 100. "
        "Every multiple of such a prime loses to the prime.  Of the openings 2^a·3^b: 1 loses at once, "
        "2 loses to 3 and 3 to 2, 4 loses to 6, 6 loses to 4 and 9, 8 loses to 12 and 14, 9 loses to 6, "
        "and 12 loses to 8 (the paper derives {8,12} P from the series {8,12,8n+2,8n+6}); every opening "
        "2^a·3^b greater than 12 is undecided (Conway's prize question)"
    )
    return Verdict(outcome=Outcome.N, winning=primes, complete=False, method="theorem", reason=reason)


# ------------------------------------------------------------------------------------------------
# entry point
# ------------------------------------------------------------------------------------------------


PROCESS_BYTES = 320 << 20
"""What the process holds besides the solve's data, at least: the interpreter, numpy, numba and the
compiled kernels, the endgame table (about 200-250 MB once the kernels are loaded), and what the
pool does not count (transient copies while arrays grow, the verdicts and other small Python
objects: up to about 100 MB more in {12,46} at 1G, 24 November)."""


def process_bytes() -> int:
    """The process's resident memory now (Linux; ``PROCESS_BYTES`` where it cannot be read)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return PROCESS_BYTES


def data_budget(memory: int, workers: int = 0) -> int:
    """The part of ``--memory`` for this process's data in a g > 1 solve (gcd-1 tables, shape
    graphs, scans, base regions, memo): the budget less what the processes hold besides the data
    (this one's RSS when the solve starts, and each of its ``workers`` processes on this machine,
    ``--jobs``, ``PROCESS_BYTES`` at least), so that they stay within ``--memory`` together (at
    least 1 / (2 (1 + workers)) of it); with workers, half of that (its workers share the other
    half: :func:`_solve_many`, :func:`_long_apart`)."""
    own = max(process_bytes(), PROCESS_BYTES) + workers * PROCESS_BYTES
    data = max(memory - own, memory // (2 * (1 + workers)))
    return data // 2 if workers else data


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
) -> Solution:
    """Solve a position with g ≠ 1 (or the empty position): see the module docstring.  ``first``:
    stop at the first winning move found (the outcome is then all that is proven)."""
    start = time.monotonic()
    ctx = Context(
        odd_limit=odd_limit, deadline=None if time_limit is None else start + time_limit,
        memory=data_budget(memory, 0 if cluster or jobs <= 1 else jobs), store=store, jobs=jobs, cluster=cluster,
        progress=progress,
        checkpoint_dir=Path(checkpoint_dir) if checkpoint_dir is not None else None,
        search_limit=search_limit,
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
        elif _is_prime(g):
            v = solve_prime(position, ctx, full=not first)
        else:
            v = solve_composite(position, ctx)
    except KeyboardInterrupt:
        raise SolveInterrupted(_partial(position, ctx, start)) from None
    except TimeoutError:
        raise SolveTimeout(
            f"{position.braces()} not solved within {time_limit:g} s", _partial(position, ctx, start)
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
        reason += ("; left undecided for want of memory, their shape graphs or gcd-1 solves passing the "
                   "memory budget (a larger --memory may decide them): "
                   + ", ".join(p.braces() for p in ctx.too_large))
    sol = Solution(
        position=position, outcome=v.outcome, winning_moves=tuple(v.winning), complete=v.complete,
        frobenius_number=None, states=0, seconds=time.monotonic() - start,
        peak_bytes=max(ctx.peak_scan_bytes, ctx.held()), from_store=v.method == "store",
        probably_p=v.probably_p, gcd=g, short=v.short, method=v.method, odd_tail=v.odd_tail,
        reason=reason, replies={p: tuple(w.winning) for p, w in ctx.verdicts.items()
                                if w.outcome is Outcome.N and w.winning},
    )
    if not position.is_empty:
        _record(position, v, ctx)
    return sol


def check_range(position: Position, g: int) -> None:
    """TooLargeError when t(S ÷ g) is beyond ``MAX_T_H`` and no theorem answers (g without a prime
    factor ≥ 5), before any work: the engine would solve gcd-1 positions beyond the solver's range."""
    from sylver.theory import prime_factor_at_least_5

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
        return {"outcome": "unknown", "winning_moves": [], "complete": False, "method": "search",
                "reason": reason, "odd_tail": None}
    return {k: d.get(k) for k in keys}


def _partial(position: Position, ctx: Context, start: float) -> Solution:
    """What an interrupted solve had established: the root scan's odd winning moves so far."""
    tail = None
    wins: tuple[int, ...] = ()
    if ctx.scans and ctx.scans[0].position == position:
        tail = _family_odd(ctx.scans[0], 0, ctx.odd_limit)
        wins = tail.odd_winning_moves
    return Solution(
        position=position, outcome=Outcome.N if wins else None, winning_moves=wins, complete=False,
        frobenius_number=None, states=0, seconds=time.monotonic() - start,
        peak_bytes=sum(s.memory_bytes() for s in ctx.scans), gcd=position.gcd, method="periodicity",
        odd_tail=tail, reason="interrupted" + (
            f"; the scan state is saved in {ctx.scans[0].checkpoint}" if ctx.scans and ctx.scans[0].checkpoint else ""
        ),
    )


__all__ = ["OddTail", "PROBABLY_P", "UNKNOWN", "Verdict", "answer_within", "check_range", "solve_any"]
