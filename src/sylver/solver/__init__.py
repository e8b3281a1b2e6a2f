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

This package's public API, re-exported here from the modules that define it:

- :mod:`~sylver.solver.orchestration`: :func:`solve`, what one call does in order;
- :mod:`~sylver.solver.solution`: :class:`Solution`, :class:`Progress`, :class:`ScanProgress`
  (:data:`ProgressReport`: either), :class:`SelfCheck`,
  :class:`SolveTimeout`, :class:`SolveInterrupted`;
- :mod:`~sylver.solver.engine`: :func:`check_solvable`, :func:`root_gaps`, :func:`count_reachable`,
  :func:`memory_budget_error` (the kernel's boundary);
- :mod:`sylver.errors`: :class:`MemoryBudgetError`, :class:`SelfCheckError`, :class:`WorkerDiedError`.

Below them: :mod:`~sylver.solver.local` (the root moves decided in this process) and
:mod:`~sylver.solver.parallel` (over processes), :mod:`~sylver.solver.gcd` (gcd > 1),
:mod:`~sylver.solver.store` (the results store), :mod:`~sylver.solver.prove` and
:mod:`~sylver.solver.certificate` (proof certificates), :mod:`~sylver.solver.reference` (a
plain-Python solver for the tests).
"""

from __future__ import annotations

from sylver.errors import MemoryBudgetError, SelfCheckError, WorkerDiedError
from sylver.solver.engine import (
    check_solvable,
    count_reachable,
    memory_budget_error,
    root_gaps,
)
from sylver.solver.orchestration import solve
from sylver.solver.solution import (
    GcdDetails,
    Progress,
    ProgressReport,
    ScanProgress,
    SelfCheck,
    Solution,
    SolveInterrupted,
    SolveTimeout,
)

__all__ = [
    "GcdDetails",
    "MemoryBudgetError",
    "Progress",
    "ProgressReport",
    "ScanProgress",
    "SelfCheck",
    "SelfCheckError",
    "Solution",
    "SolveInterrupted",
    "SolveTimeout",
    "WorkerDiedError",
    "check_solvable",
    "count_reachable",
    "memory_budget_error",
    "root_gaps",
    "solve",
]
