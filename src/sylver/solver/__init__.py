"""Exact solving of Sylver Coinage positions (Sicherman, "Theory and Practice of Sylver Coinage",
Integers 2002, sec. 1-2): exhaustive search for gcd 1, and for gcd > 1 what is proven
(:mod:`sylver.solver.gcd`: short positions, the periodicity engine for g = 2, the theorems).

>>> from sylver import Position
>>> from sylver.solver import solve
>>> sol = solve(Position("4, 5"))
>>> sol.outcome, sol.winning_moves
(<Outcome.N: 'N'>, (11,))

A position with gcd 1 has finitely many legal moves (the gaps of its semigroup), so it can be searched
exhaustively.  :func:`solve` returns who wins with perfect play and every winning move (or only the
least with ``first=True``).  Naming 1 always loses, so it is never a winning move; {2,3} (only 1 is
legal) is P.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sylver import jit
from sylver.errors import MemoryBudgetError, SelfCheckError, WorkerDiedError
from sylver.position import Outcome, Position

jit.watch_compilation()  # before the kernels load: a cold numba cache compiles them (about a minute)

from sylver.solver import kernels as _k  # noqa: E402
from sylver.solver.engine import (  # noqa: E402
    ENGINE,
    MAX_FROBENIUS,
    Counters,
    SearchTimeout,
    TableThrash,
    format_memory,
    parse_memory,
)

if TYPE_CHECKING:
    from sylver.solver.gcd import OddTail
    from sylver.solver.store import Store

__all__ = [
    "MemoryBudgetError",
    "Progress",
    "SelfCheck",
    "SelfCheckError",
    "count_reachable",
    "Solution",
    "SolveInterrupted",
    "SolveTimeout",
    "WorkerDiedError",
    "parse_memory",
    "root_gaps",
    "solve",
]


@dataclass(frozen=True)
class SelfCheck:
    """The self-check of an N answer: each claimed winning move, played, gives a position that a
    fresh search (new, empty tables: nothing the first search stored is used) finds P."""

    moves: tuple[int, ...]
    """The winning moves checked."""
    states: int
    """Positions the fresh searches expanded."""
    seconds: float
    """What the check cost (wall clock)."""

    def to_dict(self) -> dict[str, Any]:
        return {"moves": list(self.moves), "states": self.states, "seconds": round(self.seconds, 6)}


@dataclass(frozen=True)
class Solution:
    """The value of a position: exact for gcd 1; for gcd > 1 what is proven (see ``verdict``)."""

    position: Position
    """The solved position."""
    outcome: Outcome | None
    """``Outcome.P``: the player to move loses; ``Outcome.N``: the player to move wins; None when
    not proven (only for gcd > 1: then ``verdict`` is ``"unknown"`` or ``"probably-P"``)."""
    winning_moves: tuple[int, ...]
    """Winning moves, sorted (empty for P).  All of them when ``complete``, else a subset."""
    complete: bool
    """True when ``winning_moves`` is the complete set."""
    frobenius_number: int | None
    """t: the largest legal move (None for gcd > 1: infinitely many moves are legal)."""
    states: int
    """Positions expanded by the search (0 when the answer came from the store)."""
    seconds: float
    """Wall-clock time of the call."""
    peak_bytes: int = 0
    """Bytes held by the transposition table and search stack at the end."""
    genus: int = 0
    """The number of legal moves."""
    from_store: bool = False
    """True when the answer was read from the results store."""
    decided: dict[int, Outcome] = field(default_factory=dict, compare=False, repr=False)
    """Outcome of the position after each root move decided (partial results of an interrupted solve)."""
    stats: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    """Search counters: children generated, ender prunes, terminal wins, table hits, overwrites."""
    saturated: bool = False
    """True when a transposition table reached its memory budget, so later results overwrote
    stored ones (slower, never wrong; it turns the self-check on by default)."""
    self_check: SelfCheck | None = None
    """The self-check of an N answer, when one ran."""
    probably_p: bool = False
    """gcd 2, outcome not proven: no odd winning move, and every even move is known to lose or
    produces a long position (the paper's "Probably P", sec. 2)."""
    gcd: int = 1
    """g(S) (0 for the empty position)."""
    short: bool | None = None
    """For prime g: is S ÷ g a quiet ender (S *short*, sec. 1)?  None otherwise."""
    method: str = "search"
    """How the answer was obtained: ``search`` (gcd 1), ``short``, ``periodicity``, ``theorem``."""
    odd_tail: OddTail | None = None
    """For g = 2: what the scan of the odd moves established."""
    reason: str = ""
    """For gcd > 1: why, in words, with the theorems used and what is undecided."""

    @property
    def verdict(self) -> str:
        """``"P"``, ``"N"``, ``"probably-P"`` or ``"unknown"``."""
        if self.outcome is not None:
            return self.outcome.value
        return "probably-P" if self.probably_p else "unknown"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``sylver solve --json``."""
        d: dict[str, Any] = {
            "position": list(self.position.generators),
            "outcome": self.verdict,
            "winning_moves": list(self.winning_moves),
            "complete": self.complete,
            "frobenius_number": self.frobenius_number,
            "genus": self.genus if self.gcd == 1 else None,
            "states": self.states,
            "seconds": round(self.seconds, 6),
            "peak_bytes": self.peak_bytes,
            "from_store": self.from_store,
            "gcd": self.gcd,
            "short": self.short,
            "method": self.method,
            "saturated": self.saturated,
            "self_check": None if self.self_check is None else self.self_check.to_dict(),
        }
        if self.gcd != 1:
            d["odd_tail"] = None if self.odd_tail is None else self.odd_tail.to_dict()
            d["reason"] = self.reason
        return d


class SolveTimeout(TimeoutError):
    """The time limit passed; ``partial`` holds the root moves decided so far."""

    def __init__(self, message: str, partial: Solution | None = None) -> None:
        super().__init__(message)
        self.partial = partial


class SolveInterrupted(KeyboardInterrupt):
    """Ctrl-C during a solve; ``partial`` holds the root moves decided so far."""

    def __init__(self, partial: Solution) -> None:
        super().__init__("interrupted")
        self.partial = partial


@dataclass(frozen=True)
class Progress:
    """A snapshot for progress displays."""

    states: int
    seconds: float
    root_moves_decided: int
    root_moves: int
    winning_moves: tuple[int, ...]


def memory_budget_error(
    position: Position, budget: int, expanded: int, overwrites: int, move: int | None = None
) -> MemoryBudgetError:
    """The error for a search that thrashed in tables capped by ``budget`` bytes."""
    suggested = max(64 << 20, 1 << (4 * budget - 1).bit_length())  # 4x, a power of two, >= 64M
    where = "" if move is None else f" after root move {move}"
    return MemoryBudgetError(
        f"memory budget {format_memory(budget)} is far too small for {position.braces()}: the search "
        f"is recomputing lost results ({overwrites:,} overwrites in {expanded:,} expansions{where}); "
        f"use --memory {format_memory(suggested)} or more",
        budget, suggested, expanded, overwrites, move,
    )


def check_solvable(position: Position) -> None:
    """Raise ValueError unless ``position`` can be solved exactly (gcd 1, game not over, t in range)."""
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__}")
    if position.is_empty:
        raise ValueError(
            "the empty position has infinitely many legal moves; exact solving needs gcd 1"
        )
    if position.is_over:
        raise ValueError("the game is over: 1 has been named")
    g = position.gcd
    if g != 1:
        raise ValueError(f"{position.braces()} has gcd {g}: {_gcd_message(position)}")
    t = position.frobenius_number
    if t > MAX_FROBENIUS:
        from sylver.errors import TooLargeError

        raise TooLargeError(
            f"{position.braces()} has Frobenius number {t}; the solver handles t <= {MAX_FROBENIUS}"
        )


def _gcd_message(position: Position) -> str:
    text = (
        "exact solving needs gcd 1 (with gcd > 1 infinitely many moves are legal, so the game "
        "tree is infinite)"
    )
    try:
        from sylver.theory import outcome_by_theory

        verdict, reason = outcome_by_theory(position)
    except Exception:  # theory must not hide this message
        verdict, reason = None, ""
    if verdict is not None:
        text += f"; theory says it is {verdict}: {reason}"
    elif reason:
        text += f"; theory does not decide it ({reason})"
    else:
        text += "; theory does not decide it"
    return text


def root_gaps(position: Position) -> np.ndarray:
    """The gap bitset of a gcd-1 position (uint64 words, bit n set iff n is a legal move)."""
    t = position.frobenius_number
    W = t // 64 + 1
    if len(position.generators) == 1:  # {1}
        return np.zeros(W, dtype=np.uint64)
    return _k.gaps_from_apery(position.semigroup.apery_array(), W)


def _child(gaps: np.ndarray, x: int) -> np.ndarray:
    W = gaps.shape[0]
    buf = np.empty(2 * W, dtype=np.uint64)
    buf[:W] = gaps
    _k.play_into(buf, 0, W, W, x)
    return buf[W:].copy()


def _open_store(store: Store | str | Path | None) -> Store | None:
    if store is None:
        return None
    from sylver.solver.store import Store

    if isinstance(store, Store):
        return store
    return Store(store)


def solve(
    position: Position,
    *,
    first: bool = False,
    time_limit: float | None = None,
    memory: str | int = "1G",
    store: Store | str | Path | None = None,
    jobs: int = 1,
    cluster: str | None = None,
    progress: Callable[[Progress], None] | None = None,
    order: int = _k.ORDER_GENUS,
    prune: bool = True,
    odd_limit: int | None = None,
    checkpoint: str | Path | None = None,
    check: bool | None = None,
) -> Solution:
    """Solve ``position`` exactly: its outcome and all its winning moves (the least with ``first``).

    A position with gcd > 1 (or the empty position) goes to :func:`sylver.solver.gcd.solve_any`,
    which answers what is proven (``outcome`` None when nothing is); ``odd_limit`` stops the scan of
    the odd moves of a g = 2 position at that x, and ``checkpoint`` (a directory) keeps long scans
    resumable; ``first`` stops at the first winning move found there too.

    ``time_limit`` (seconds) raises :class:`SolveTimeout` promptly; ``memory`` caps the transposition
    table (e.g. ``"4G"``; past it entries are overwritten, never a crash; a budget so small that the
    search keeps recomputing lost results raises :class:`MemoryBudgetError`); ``store`` (a path or a
    :class:`~sylver.solver.store.Store`) reuses and records results; ``jobs > 1`` splits the root
    moves over processes (``cluster``: a Dask scheduler address; a worker process that dies raises
    :class:`WorkerDiedError`).  ``progress`` is called with a
    :class:`Progress` about every few milliseconds on long solves.  Ctrl-C raises
    :class:`SolveInterrupted` carrying the root moves decided so far.

    ``check``: self-check an N answer (see :class:`SelfCheck`; a contradiction raises
    :class:`SelfCheckError` instead of answering); ``None`` (the default) checks when a table
    reached its memory budget (``Solution.saturated``).
    """
    start = time.monotonic()
    if isinstance(position, Position) and (position.is_empty or position.gcd > 1):
        from sylver.solver.gcd import solve_any

        return solve_any(
            position, odd_limit=odd_limit, time_limit=time_limit, memory=parse_memory(memory),
            store=_open_store(store), jobs=jobs, cluster=cluster,
            progress=progress,  # type: ignore[arg-type]  # called with a ScanProgress there
            checkpoint_dir=checkpoint, first=first,
        )
    check_solvable(position)
    budget = parse_memory(memory)
    db = _open_store(store)
    t = position.frobenius_number
    if db is not None:
        rec = db.get(position)
        if rec is not None and rec.complete:
            moves = rec.winning_moves[:1] if first else rec.winning_moves
            return Solution(
                position, rec.outcome, tuple(moves), not (first and len(rec.winning_moves) > 1),
                t, 0, time.monotonic() - start, 0, position.genus, True,
            )
    if jobs and jobs > 1 or cluster:
        from sylver.solver.parallel import solve_parallel

        sol = solve_parallel(
            position, first=first, time_limit=time_limit, memory=budget, jobs=jobs,
            cluster=cluster, progress=progress, start=start,
            store_path=None if db is None else db.path,
        )
    else:
        sol = _solve_local(
            position, first, time_limit, budget, progress, order, prune, start, None, db
        )
    if sol.outcome is Outcome.N and (check or (check is None and sol.saturated)):
        sol = _self_check(sol, budget, None if time_limit is None else start + time_limit)
    if db is not None:
        db.put(sol)
    return sol


def _self_check(sol: Solution, budget: int, deadline: float | None) -> Solution:
    """``sol`` with its :class:`SelfCheck`: each winning move's position searched afresh must be P."""
    from dataclasses import replace

    begin = time.monotonic()
    gaps = root_gaps(sol.position)
    counters = Counters()
    with ENGINE.lock:
        ENGINE.clear()  # nothing the first search stored is used
        ENGINE.set_budget(budget)
        for w in sol.winning_moves:
            child = _child(gaps, w)
            try:
                value = 0 if _k.is_terminal(child, 0, child.shape[0]) else ENGINE.outcome(
                    child, deadline=deadline, counters=counters
                )
            except SearchTimeout:
                raise SolveTimeout(
                    f"{sol.position.braces()}: the search answered N (winning move {w}), but its "
                    f"self-check did not finish within the time limit; no answer is given",
                    replace(sol, outcome=Outcome.P, winning_moves=(), complete=False),
                ) from None
            except TableThrash as exc:
                raise memory_budget_error(sol.position, budget, exc.expanded, exc.overwrites, w) from None
            if value != 0:
                after = sol.position.play(w).braces()
                raise SelfCheckError(
                    f"the solver contradicted itself on {sol.position.braces()}: its search answered "
                    f"N with winning move {w}, but a fresh search of {after} (the position after {w}) "
                    f"answers N, not P; no answer is given (please report this position)"
                )
    check = SelfCheck(sol.winning_moves, counters.expanded, time.monotonic() - begin)
    return replace(sol, self_check=check, seconds=sol.seconds + check.seconds)


def _solve_local(
    position: Position,
    first: bool,
    time_limit: float | None,
    budget: int,
    progress: Callable[[Progress], None] | None,
    order: int,
    prune: bool,
    start: float,
    only: list[int] | None,
    store: Store | str | Path | None = None,
) -> Solution:
    """Decide every root move (or those in ``only``) in this process.

    With a store, the position after each root move is looked up first and recorded once decided
    (P: complete; N: outcome only), so an interrupted solve resumes where it stopped."""
    db = _open_store(store)
    deadline = None if time_limit is None else start + time_limit
    gaps = root_gaps(position)
    t = position.frobenius_number
    moves = [int(x) for x in _k.gap_list(gaps, 0, gaps.shape[0]) if x != 1]
    if only is not None:
        wanted = set(only)
        moves = [x for x in moves if x in wanted]
    genus = len(moves) + 1
    decided: dict[int, Outcome] = {}
    winning: list[int] = []
    counters = Counters()
    base_states = [1]  # the root itself is expanded here
    last_report = [start]

    def snapshot(extra: int = 0) -> Progress:
        return Progress(
            base_states[0] + extra, time.monotonic() - start, len(decided), len(moves), tuple(winning)
        )

    def tick(expanded: int) -> None:
        if progress is not None:
            now = time.monotonic()
            if now - last_report[0] >= 0.1:
                last_report[0] = now
                progress(snapshot(expanded))

    def partial() -> Solution:
        out = Outcome.N if winning else Outcome.P
        return Solution(
            position, out, tuple(winning), False, t, base_states[0],
            time.monotonic() - start, 0, genus, False, dict(decided), _stats(counters),
        )

    with ENGINE.lock:
        ENGINE.set_budget(budget)
        current: int | None = None  # the root move being decided
        try:
            for x in moves:
                current = x
                child = _child(gaps, x)
                if _k.is_terminal(child, 0, child.shape[0]):
                    counters.terminal += 1
                    value = 0
                else:
                    ct = int(_k.top_bit(child, 0, child.shape[0]))
                    if prune and ct > 1 and _k.is_ender(child, 0, child.shape[0], ct):
                        counters.ender += 1
                        value = 1
                    else:
                        value = _child_value(
                            position, x, child, db, deadline, counters, tick, order, prune
                        )
                        base_states[0] = 1 + counters.expanded
                decided[x] = Outcome.P if value == 0 else Outcome.N
                if value == 0:
                    winning.append(x)
                    if first:
                        break
                if progress is not None:
                    progress(snapshot())
        except SearchTimeout:
            raise SolveTimeout(
                f"{position.braces()} not solved within {time_limit:g} s "
                f"({len(decided)} of {len(moves)} root moves decided)",
                partial(),
            ) from None
        except KeyboardInterrupt:
            raise SolveInterrupted(partial()) from None
        except TableThrash as exc:
            raise memory_budget_error(position, budget, exc.expanded, exc.overwrites, current) from None
        peak = ENGINE.table_bytes + ENGINE.bits.nbytes + ENGINE.moves.nbytes * 2
        saturated = ENGINE.saturated()
    outcome = Outcome.N if winning else Outcome.P
    complete = only is None and (not first or not winning)
    return Solution(
        position, outcome, tuple(winning), complete, t, base_states[0],
        time.monotonic() - start, peak, genus, False, decided, _stats(counters),
        saturated=saturated,
    )


def _child_value(
    position: Position,
    x: int,
    child: np.ndarray,
    db: Store | None,
    deadline: float | None,
    counters: Counters,
    tick: Callable[[int], None],
    order: int,
    prune: bool,
) -> int:
    """0 (P) or 1 (N) for the position after root move x, through the store when there is one."""
    after = None
    if db is not None:
        after = position.play(x)
        rec = db.get(after)
        if rec is not None:
            return 0 if rec.outcome is Outcome.P else 1
    value = ENGINE.outcome(
        child, deadline=deadline, counters=counters, tick=tick, order=order, prune=prune
    )
    if db is not None and after is not None:
        out = Outcome.P if value == 0 else Outcome.N
        db.put_result(after, out, (), value == 0, after.frobenius_number)
    return value


def count_reachable(position: Position) -> int:
    """How many distinct positions can be reached from ``position`` by legal moves, counting
    ``position`` itself and the final position {1} (after someone names 1).  A full enumeration:
    Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 2, gives 158793 for {12,17}."""
    check_solvable(position)
    gaps = root_gaps(position)
    size = 1 << 16
    while True:
        n = int(_k.count_reachable(gaps, np.zeros(size, dtype=np.uint64)))
        if n >= 0:
            return n + 1
        size *= 4


def _stats(c: Counters) -> dict[str, int]:
    return {
        "children": c.children,
        "ender_pruned": c.ender,
        "terminal": c.terminal,
        "table_hits": c.tt_hit,
        "overwrites": c.overwrite,
        "max_depth": c.max_depth,
        "killer_cutoffs": c.killer,
        "table_entries": ENGINE.count,
    }
