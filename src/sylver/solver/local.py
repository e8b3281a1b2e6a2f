"""The root moves of a gcd-1 solve decided one by one in this process (:func:`solve_local`), what a
solve in progress knows about its root moves (:class:`RootMoves`, shared with
:mod:`sylver.solver.parallel`, which decides them over processes), and the self-check of an N
answer (:func:`checked`).

A position is N iff some root move leads to a P-position (a winning move), so a solve decides the
position after each legal move other than 1 (naming 1 loses); with ``first`` it stops at the least
winning move.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sylver.errors import SelfCheckError
from sylver.machine import deadline
from sylver.position import Outcome, Position
from sylver.solution import (
    Progress,
    SelfCheck,
    Solution,
    SolveInterrupted,
    SolveTimeout,
    states_limit,
)
from sylver.solver import kernels as _k
from sylver.solver.engine import (
    ENGINE,
    Counters,
    SearchTimeout,
    TableThrash,
    child_gaps,
    format_memory,
    memory_budget_error,
    root_gaps,
    root_moves,
    settled,
)

if TYPE_CHECKING:
    from sylver.store.results import Store

PROGRESS_EVERY = 0.1
"""Seconds between progress reports from inside a root move's search."""


@dataclass(frozen=True, kw_only=True)
class Request:
    """One solve of a gcd-1 position, its options resolved once: its memory (bytes, parsed),
    the results store opened (None: no store)."""

    position: Position
    first: bool = False
    """Stop at the least winning move."""
    time_limit: float | None = None
    """Seconds from ``start``; None: no limit."""
    max_states: int | None = None
    """States the solve may examine (``Solution.states``, the root included); None: no limit.  Unlike
    seconds, it stops the search at the same point on any machine."""
    memory: int = 1 << 30
    """Bytes for the transposition tables (``--memory``)."""
    store: Store | None = None
    progress: Callable[[Progress], None] | None = None
    order: int = _k.ORDER_GENUS
    """The kernel's move order (``kernels.ORDER_*``)."""
    root_order: str = "ascending"
    """The order in which the root moves are decided (:data:`ROOT_ORDERS`)."""
    rounds: int | None = None
    """A sweep's first round: states a reply may take before it waits for the next round, each
    round :data:`ROUND_GROWTH` times the last (:func:`sweep`); None: each reply to its end."""
    prune: bool = True
    """Decide enders without a search (strategy stealing)."""
    start: float = field(default_factory=time.monotonic)
    """``time.monotonic()`` when the solve began."""

    @property
    def deadline(self) -> float | None:
        return deadline(self.start, self.time_limit)

    @property
    def max_expanded(self) -> int | None:
        """The positions its searches may expand (the root is the first state), counted in their
        :class:`~sylver.solver.engine.Counters`."""
        return None if self.max_states is None else self.max_states - 1


@dataclass
class RootMoves:
    """The root moves of a gcd-1 position and the outcome of the position after each one decided
    so far (P: a winning move), with the positions expanded (the root included)."""

    position: Position
    moves: list[int]
    start: float
    decided: dict[int, Outcome] = field(default_factory=dict)
    states: int = 1

    def winning(self) -> tuple[int, ...]:
        """The winning moves found so far, sorted."""
        return tuple(sorted(x for x, o in self.decided.items() if o is Outcome.P))

    def progress(self, expanding: int = 0, **more: Any) -> Progress:
        """A snapshot; ``expanding``: positions expanded so far by the search under way; ``more``:
        further fields (the tables' memory)."""
        return Progress(
            states=self.states + expanding, seconds=time.monotonic() - self.start,
            root_moves_decided=len(self.decided), root_moves=len(self.moves),
            winning_moves=self.winning(), **more,
        )

    def least_winning_known(self) -> bool:
        """Is the least winning move known (or is there none)?  Every smaller move is decided."""
        for x in self.moves:
            o = self.decided.get(x)
            if o is None:
                return False
            if o is Outcome.P:
                return True
        return True

    def solution(self, *, complete: bool, first: bool = False, **more: Any) -> Solution:
        """The answer so far (``first``: only the least winning move); ``more``: further fields."""
        w = self.winning()
        if first:
            w = w[:1]
        return Solution(
            position=self.position, outcome=Outcome.N if w else Outcome.P, winning_moves=w,
            complete=complete, frobenius_number=self.position.frobenius_number, states=self.states,
            seconds=time.monotonic() - self.start, genus=len(self.moves) + 1,
            decided=dict(self.decided), **more,
        )

    def timeout(self, time_limit: float | None, *, max_states: int | None = None, **more: Any) -> SolveTimeout:
        """The error for a solve that ran out of time (or, ``max_states`` given, reached that limit
        of states), with what it had decided."""
        within = f"{time_limit:g} s" if max_states is None else states_limit(max_states)
        return SolveTimeout(
            f"{self.position.braces()} not solved within {within} "
            f"({len(self.decided)} of {len(self.moves)} root moves decided)",
            self.solution(complete=False, **more), within=within,
        )


ROOT_ORDERS = ("ascending", "frobenius", "genus")
"""How the root moves of a solve are ordered: ``ascending`` (least move first: with ``first``, the
least winning move is the first found), ``frobenius`` (least Frobenius number of the position
after the move first, as the public campaign's sweeps of 2026-10 tried the replies to an obligation:
small positions are cheap to decide, and with ``first`` the first winning move found, not always
the least, ends the solve) or ``genus`` (most legal moves left after the move first, the larger move
first among equals: the hardest positions first, as ``perfect`` ponders the replies to its move,
:meth:`sylver.bots.oracle.Oracle.ponder`)."""


def ordered_root_moves(position: Position, moves: list[int], root_order: str) -> list[int]:
    """``moves`` (root moves of ``position``, ascending) in the order ``root_order`` decides them."""
    if root_order == "ascending":
        return moves
    if root_order == "genus":
        genus = {x: position.play(x).genus for x in moves}
        return sorted(moves, key=lambda x: (-genus[x], -x))
    if root_order != "frobenius":
        raise ValueError(f"unknown root order {root_order!r}: expected one of {', '.join(ROOT_ORDERS)}")
    f = {x: position.play(x).frobenius_number for x in moves}
    return sorted(moves, key=lambda x: (f[x], x))


def solve_local(request: Request, only: list[int] | None = None) -> Solution:
    """Decide every root move of ``request.position`` (or those in ``only``) in this process.

    With a store, the position after each root move that needs a search is looked up first and
    recorded once decided (P: complete; N: outcome only), so an interrupted solve resumes where it
    stopped."""
    return _LocalSolve(request, only).run()


class _LocalSolve:
    """One :func:`solve_local` call: the root moves, the counters, the progress reports."""

    def __init__(self, request: Request, only: list[int] | None) -> None:
        self.request = request
        self.gaps = root_gaps(request.position)
        moves = root_moves(self.gaps)
        if only is not None:
            wanted = set(only)
            moves = [x for x in moves if x in wanted]
        moves = ordered_root_moves(request.position, moves, request.root_order)
        self.complete_set = only is None
        self.roots = RootMoves(position=request.position, moves=moves, start=request.start)
        self.counters = Counters()
        self.last_report = request.start

    def run(self) -> Solution:
        request, roots = self.request, self.roots
        with ENGINE.lock:
            ENGINE.set_memory(request.memory)
            current: int | None = None  # the root move being decided
            try:
                for current in roots.moves:
                    outcome = self.decide(current)
                    roots.decided[current] = outcome
                    roots.states = 1 + self.counters.expanded
                    if outcome is Outcome.P and request.first:
                        break
                    if request.progress is not None:
                        request.progress(self.snapshot())
            except SearchTimeout:
                limit = request.max_expanded
                states = request.max_states if limit is not None and self.counters.expanded >= limit else None
                raise roots.timeout(request.time_limit, max_states=states, stats=ENGINE.stats(self.counters)) from None
            except KeyboardInterrupt:
                partial = roots.solution(complete=False, stats=ENGINE.stats(self.counters))
                raise SolveInterrupted(partial) from None
            except TableThrash as exc:
                raise memory_budget_error(
                    request.position, request.memory, exc.expanded, exc.overwrites, current
                ) from None
            peak, saturated = ENGINE.peak_bytes, ENGINE.saturated()
        return roots.solution(
            complete=self.complete_set and not (request.first and roots.winning()),
            peak_bytes=peak, stats=ENGINE.stats(self.counters), saturated=saturated,
        )

    def decide(self, x: int) -> Outcome:
        """The outcome of the position after root move x: without a search when it is settled,
        else from the store when it holds it, else searched (and recorded in the store)."""
        request = self.request
        store = request.store
        after = None if store is None else request.position.play(x)
        # with a store the position after x is needed anyway: its gaps come from it
        child = child_gaps(self.gaps, x) if after is None else root_gaps(after, self.gaps.shape[0])
        known = settled(child, request.prune, self.counters)
        if known is not None:
            return known
        if store is not None and after is not None:
            rec = store.get(after)
            if rec is not None:
                return rec.outcome
        outcome = ENGINE.search(
            child, deadline=request.deadline, counters=self.counters, tick=self.tick,
            order=request.order, prune=request.prune, max_expanded=request.max_expanded,
        )
        if store is not None and after is not None:
            store.put_result(after, outcome, (), outcome is Outcome.P, after.frobenius_number)
        return outcome

    def tick(self, expanded: int) -> None:
        """Called by the engine between kernel slices: a progress report every ``PROGRESS_EVERY``."""
        if self.request.progress is not None:
            now = time.monotonic()
            if now - self.last_report >= PROGRESS_EVERY:
                self.last_report = now
                self.request.progress(self.snapshot(expanded))

    def snapshot(self, expanding: int = 0) -> Progress:
        return snapshot(self.roots, self.request.memory, expanding)


def snapshot(roots: RootMoves, memory: int, expanding: int = 0) -> Progress:
    """``RootMoves.progress`` with the tables' memory, and what stopped them once they are full."""
    full = None
    if ENGINE.saturated():
        if ENGINE.short_of_memory is not None:
            full = f"the machine's available memory ({format_memory(ENGINE.short_of_memory)} left)"
        else:
            full = f"the --memory budget {format_memory(memory)}"
    return roots.progress(expanding, table_bytes=ENGINE.table_bytes, tables_full=full)


__all__ = ["ROOT_ORDERS", "Request", "RootMoves", "Sweep", "ordered_root_moves", "solve_local", "sweep"]


def _check_progress(
    request: Request, sol: Solution, checked: int, move: int, counters: Counters
) -> Callable[[int], None] | None:
    """The engine's tick during the self-check of ``move``: a :class:`Progress` with ``checking``
    set, every ``PROGRESS_EVERY`` seconds (a check can take as long as the solve)."""
    report = request.progress
    if report is None:
        return None
    last = begin = time.monotonic()

    def tick(expanded: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY:
            last = now
            report(Progress(
                states=counters.expanded + expanded, seconds=now - begin,
                root_moves_decided=checked, root_moves=len(sol.winning_moves),
                winning_moves=sol.winning_moves, checking=move,
            ))

    return tick


def self_check(sol: Solution, request: Request) -> Solution:
    """``sol`` with its :class:`SelfCheck`: each winning move's position searched afresh must be P."""
    begin = time.monotonic()
    gaps = root_gaps(sol.position)
    counters = Counters()
    with ENGINE.lock:
        ENGINE.clear()  # nothing the first search stored is used
        ENGINE.set_memory(request.memory)
        for i, w in enumerate(sol.winning_moves):
            try:
                outcome = ENGINE.outcome(
                    child_gaps(gaps, w), deadline=request.deadline, counters=counters,
                    tick=_check_progress(request, sol, i, w, counters),
                )
            except SearchTimeout:
                raise SolveTimeout(
                    f"{sol.position.braces()}: the search answered N (winning move {w}), but its "
                    f"self-check did not finish within the time limit; no answer is given",
                    replace(sol, outcome=Outcome.P, winning_moves=(), complete=False),
                ) from None
            except TableThrash as exc:
                raise memory_budget_error(
                    sol.position, request.memory, exc.expanded, exc.overwrites, w
                ) from None
            if outcome is not Outcome.P:
                after = sol.position.play(w).braces()
                raise SelfCheckError(
                    f"the solver contradicted itself on {sol.position.braces()}: its search answered "
                    f"N with winning move {w}, but a fresh search of {after} (the position after {w}) "
                    f"answers N, not P; no answer is given (please report this position)"
                )
    check = SelfCheck(
        moves=sol.winning_moves, states=counters.expanded, seconds=time.monotonic() - begin
    )
    return replace(sol, self_check=check, seconds=sol.seconds + check.seconds)


def checked(sol: Solution, request: Request, check: bool | None = None) -> Solution:
    """``sol`` with its :func:`self_check` when it is N and ``check`` asks for one, or (``check``
    None) when a table reached its memory budget (``Solution.saturated``)."""
    if sol.outcome is Outcome.N and (check or (check is None and sol.saturated)):
        return self_check(sol, request)
    return sol


@dataclass(frozen=True, kw_only=True)
class Sweep:
    """What :func:`sweep` established: the replies decided in order (the outcome of the position
    after each), the winning ones found, the states searched and the seconds."""

    position: Position
    order: list[int]
    """The replies, in the order they were (or would have been) decided (in rounds: first tried)."""
    decided: dict[int, Outcome]
    winning: tuple[int, ...]
    states: int
    seconds: float
    complete: bool
    """Was every reply decided (no stop at a winning one, no time limit reached)?"""
    rounds: int = 0
    """Rounds begun (0: each reply was searched to its end, in order)."""


ROUND_GROWTH = 4
"""How many times more states a reply may take in a sweep's next round than in the last."""


def sweep(request: Request, replies: list[int],
          report: Callable[[int, Outcome, int, float], None] | None = None,
          round_report: Callable[[int, int, int, int, float], None] | None = None,
          last: Collection[int] = ()) -> Sweep:
    """Decide the positions after ``replies`` (legal moves of ``request.position``, any gcd, each
    leaving a gcd-1 position) in ``request.root_order``, with one transposition table for all of
    them, until one is P when ``request.first`` (the public campaign's sweeps of 2026-10: the odd
    replies to an obligation, least Frobenius number first, one shared memo).  With a store, each
    is looked up first and recorded once decided, as a solve's root moves are (a reply whose
    position it knows P comes first: a transposition, e.g. 69 against {16,38,66,72}, whose position
    is the P-position {16,38,66,69,72} that answers 69 with 66), and a winning reply found is
    recorded (the position N).  ``report`` is called after each reply decided with it, its
    outcome, the states and seconds so far.  At the time limit (or ``max_states``) the replies
    decided so far are the answer (``complete`` False).

    In rounds (``request.rounds`` = R states): round k gives each reply not yet decided R·4^(k-1)
    states (:data:`ROUND_GROWTH`), in the same order, and a reply that needs more waits for the
    next round, its table entries kept: meant to find a winning reply whose proof is cheap behind
    costly refutations, it has not beaten one reply at a time on the nodes measured (docs/solve.md:
    {16,38,101}, {16,38,87}).  ``round_report`` is called as each round begins with its number, its
    states a reply, the replies left, the states and seconds so far.

    ``last``: replies decided after all the others, in the same order among themselves: those
    another search refuted at a high cost (the public record's hard replies to {16,38,72}'s
    obligations 78 and 84, each N after 300-600 M states), when what is sought is a winning reply
    (which needs a proof of its own whatever the order)."""
    position = request.position
    after = {x: position.play(x) for x in replies}
    bad = [x for x, a in after.items() if a.gcd != 1]
    if bad:
        raise ValueError(f"the sweep of {position.braces()} takes replies leaving gcd 1, not {bad[:5]}")
    f = {x: a.frobenius_number for x, a in after.items()}
    order = ordered_root_moves(position, sorted(replies), request.root_order)
    known: set[int] = set()
    if request.store is not None:  # a reply whose position the store (or the book) knows P comes first
        known = {x for x in order if (rec := request.store.get(after[x])) is not None and rec.outcome is Outcome.P}
    deferred = set(last) - known
    order.sort(key=lambda x: (x not in known, x in deferred))
    words = max(f.values(), default=0) // 64 + 1
    counters, decided = Counters(), {}
    left, budget, rounds = list(order), request.rounds, 0
    with ENGINE.lock:
        ENGINE.set_memory(request.memory)
        try:
            won = False
            while left and not won:  # one pass over the replies without rounds (none waits)
                if budget is not None:
                    rounds += 1
                    if round_report is not None:
                        round_report(rounds, budget, len(left), counters.expanded, time.monotonic() - request.start)
                waiting = []
                for x in left:
                    outcome = _sweep_one(request, after[x], words, counters, budget)
                    if outcome is None:
                        waiting.append(x)
                        continue
                    decided[x] = outcome
                    if report is not None:
                        report(x, outcome, counters.expanded, time.monotonic() - request.start)
                    if outcome is Outcome.P and request.first:
                        won = True
                        break
                left = waiting
                budget = None if budget is None else budget * ROUND_GROWTH
        except SearchTimeout:
            pass  # the replies decided so far stand; the sweep is not complete
        except TableThrash as exc:
            raise memory_budget_error(position, request.memory, exc.expanded, exc.overwrites, None) from None
    winning = tuple(sorted(x for x, o in decided.items() if o is Outcome.P))
    seconds = time.monotonic() - request.start
    if winning and request.store is not None:  # the position is N: its winning replies found
        request.store.put_result(position, Outcome.N, winning, False,
                                 position.frobenius_number if position.gcd == 1 else 0, counters.expanded, seconds)
    return Sweep(position=position, order=order, decided=decided, winning=winning, states=counters.expanded,
                 seconds=seconds, complete=len(decided) == len(order) or bool(winning and request.first),
                 rounds=rounds)


def _sweep_one(request: Request, after: Position, words: int, counters: Counters,
               budget: int | None = None) -> Outcome | None:
    """The outcome of ``after`` for :func:`sweep`: from the store, settled, or searched (and
    recorded with the states and seconds its search took: the book's sizes of a stopped sweep);
    None when its search reached ``budget`` states (its round's) first."""
    store = request.store
    rec = None if store is None else store.get(after)
    if rec is not None:
        return rec.outcome
    gaps = root_gaps(after, words)
    before, begin = counters.expanded, time.monotonic()
    limit = request.max_expanded
    mine = None if budget is None else counters.expanded + budget
    rounds_limit = mine is not None and (limit is None or mine < limit)
    if rounds_limit:
        limit = mine
    try:
        outcome = settled(gaps, request.prune, counters) or ENGINE.search(
            gaps, deadline=request.deadline, counters=counters, order=request.order, prune=request.prune,
            max_expanded=limit)
    except SearchTimeout:
        if not rounds_limit or (request.deadline is not None and time.monotonic() > request.deadline):
            raise  # the sweep's own limit
        return None
    if store is not None:  # with the states and seconds it took here (the sweep's tables warm)
        store.put_result(after, outcome, (), outcome is Outcome.P, after.frobenius_number,
                         counters.expanded - before, time.monotonic() - begin)
    return outcome
