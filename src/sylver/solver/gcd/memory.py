"""The shape graphs and scans of a g > 1 solve within its share of ``--memory`` (sec. 2): a scan
whose graph holds a position's family (:func:`scan_for`), union graphs built once for the long
positions after the even moves of one position (:func:`offer_union`), kept across the attempts of
an iterative deepening; what a scan proves about a family's odd moves (:func:`family_odd`); the
scans and graphs of a line of positions dropped once it is decided (:func:`forget`).  What they hold
is counted by :meth:`~sylver.solver.gcd.context.Context.held`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sylver.errors import TooLargeError
from sylver.position import Position
from sylver.solution import OddTail
from sylver.solver.gcd.context import Context, known

if TYPE_CHECKING:
    from sylver.solver.gcd.periodic import Scan
    from sylver.solver.gcd.shapes import ShapeGraph

KEPT_UNIONS = 2
"""Union graphs (or stopped builders) kept across the attempts of :func:`.g2._first_winning`."""
UNION_SHARE = 3
"""A union graph may take this fraction (1/3) of the memory left (:meth:`.context.Context.room`): its base
region and the scan of one of its positions need the rest (a union without room for them is no
use: each position then builds its own graph)."""


def scan_for(position: Position, ctx: Context) -> tuple[Scan, int]:
    """A scan whose shape graph contains the family of ``position`` (g = 2), and the family index."""
    from sylver.solver.gcd.periodic import Scan
    from sylver.solver.gcd.shapes import gap_mask

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
        from sylver.solver.gcd.periodic import BaseRegion, fits

        region = ctx.regions.get(id(union))
        if region is None:
            try:
                region = BaseRegion.of(union, ctx.base_values, ctx.deadline, memory=ctx.room(),
                                       batch=ctx.region_batch())
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
    scan = Scan(position, graph=graph, base=ctx.base_values, checkpoint=checkpoint, memory=ctx.room(),
                deadline=ctx.deadline, region=region, keep_base=False, room=lambda: ctx.room(scans=False),
                base_batch=ctx.region_batch())
    ctx.scans.append(scan)
    return scan, 0


def offer_union(children: list[Position], ctx: Context) -> None:
    """The long positions after the even moves of one position (g = 2) that will need scans of their
    own: their shape graphs overlap (most families contain several of them), so they are built as
    one union graph, once, when the first of them needs its graph (:func:`_union_for`)."""
    from sylver.solver.gcd.shapes import gap_mask

    group = []
    for child in children:
        h = Position(x // 2 for x in child.generators)
        if h.generators == (1,) or known(child, ctx, False) is not None:
            continue
        key = gap_mask(h)
        if any(key in g.fam_index for g in (*(s.graph for s in ctx.scans), *ctx.unions)):
            continue
        group.append(child)
    if len(group) >= 2:
        ctx.union_groups.append(group)


def _union_for(position: Position, key: int, ctx: Context) -> ShapeGraph | None:
    """A union graph containing the family ``key`` of ``position``: one built earlier, or that of the
    group offered with it (:func:`offer_union`), built now; None when there is none, or when the
    union would pass its share of the memory left (``UNION_SHARE`` of :meth:`.context.Context.room`; each
    position then builds its own graph)."""
    from sylver.solver.gcd.shapes import ShapeGraph, union_builder

    for union in ctx.unions:
        if key in union.fam_index:
            return union
    for group in ctx.union_groups:
        if position in group:
            members = [position] + [p for p in group if p != position and known(p, ctx, False) is None]
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
    for a later attempt at the same positions (the iterative deepening of :func:`.g2._first_winning`
    comes back to them with more time): the last ``KEPT_UNIONS`` only."""
    ctx.kept[members] = union
    while len(ctx.kept) > KEPT_UNIONS:
        old = ctx.kept.pop(next(iter(ctx.kept)))
        if not any(old is u for u in ctx.unions):
            ctx.regions.pop(id(old), None)


def run_scan(scan: Scan, ctx: Context, limit: int | None, needed: Callable[[], bool]) -> None:
    """Scan until ``needed()`` is false, a period is certified, the odd limit or the deadline."""
    until = limit
    if until is not None and until % 2 == 0:
        until -= 1
    last = [0.0]
    if not needed():
        return

    def stop(_scan: Scan) -> bool:
        if not ctx.time_left():
            return True
        now = time.monotonic()
        if now - last[0] < 0.2:
            return False
        last[0] = now
        return not needed()

    scan.run(until=until, stop=stop, deadline=ctx.deadline, progress=ctx.progress)


def family_odd(scan: Scan, f: int, limit: int | None) -> OddTail:
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


def forget(ctx: Context, scans: int, unions: int, groups: int) -> None:
    """Drop the scans, union graphs and offered groups made since these counts (those of the even
    moves of a position, once they are decided: their verdicts stay in ``ctx.verdicts``), so that
    memory holds the scans of one line of positions, not of the whole tree."""
    ctx.peak_scan_bytes = max(ctx.peak_scan_bytes, ctx.held())
    for union in ctx.unions[unions:]:
        if not any(union is k for k in ctx.kept.values()):
            ctx.regions.pop(id(union), None)
    del ctx.scans[scans:], ctx.unions[unions:], ctx.union_groups[groups:]
