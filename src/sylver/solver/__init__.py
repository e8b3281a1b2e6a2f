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

This package's public API, re-exported here from the modules that define it (outside the package,
only this and :mod:`sylver.solver.gcd` are imported; ``tests/test_codebase.py`` checks it):

- :mod:`~sylver.solver.orchestration`: :func:`solve`, what one call does in order, and
  :func:`open_store`;
- :mod:`sylver.solution`: :class:`Solution`, :class:`Progress`, :class:`ScanProgress`
  (:data:`ProgressReport`: either), :class:`SelfCheck`,
  :class:`SolveTimeout`, :class:`SolveInterrupted`;
- :mod:`~sylver.solver.local`: :func:`sweep` (``sylver sweep``), :class:`Request` (a gcd-1 solve's
  options, resolved), :data:`ROOT_ORDERS`;
- :mod:`~sylver.solver.engine`: :func:`check_solvable`, :func:`root_gaps`, :func:`count_reachable`,
  :func:`memory_budget_error`, :func:`stored_winning_move` (a winning move the tables already
  prove), :data:`MAX_FROBENIUS` (the kernel's boundary);
- :mod:`~sylver.solver.endgame`: :func:`ensure_endgame_table` (``sylver warmup``);
- :mod:`sylver.errors`: :class:`MemoryBudgetError`, :class:`SelfCheckError`, :class:`WorkerDiedError`.

Below them: :mod:`~sylver.solver.parallel` (the root moves over threads or a cluster),
:mod:`~sylver.solver.gcd` (gcd > 1: its own entry point), :mod:`~sylver.solver.reference` (a
plain-Python solver for the tests).  The results store (:mod:`sylver.store`) stands below this
package, the proofs (:mod:`sylver.proof`) above it.
"""

from __future__ import annotations

from sylver.errors import MemoryBudgetError, SelfCheckError, WorkerDiedError
from sylver.solution import (
    GcdDetails,
    Progress,
    ProgressReport,
    ScanProgress,
    SelfCheck,
    Solution,
    SolveInterrupted,
    SolveTimeout,
)
from sylver.solver.endgame import ensure as ensure_endgame_table
from sylver.solver.engine import (
    MAX_FROBENIUS,
    check_solvable,
    count_reachable,
    memory_budget_error,
    root_gaps,
    stored_winning_move,
)
from sylver.solver.local import ROOT_ORDERS, Request, sweep
from sylver.solver.orchestration import open_store, solve

__all__ = [
    "GcdDetails",
    "MAX_FROBENIUS",
    "MemoryBudgetError",
    "Progress",
    "ProgressReport",
    "ROOT_ORDERS",
    "Request",
    "ScanProgress",
    "SelfCheck",
    "SelfCheckError",
    "Solution",
    "SolveInterrupted",
    "SolveTimeout",
    "WorkerDiedError",
    "check_solvable",
    "count_reachable",
    "ensure_endgame_table",
    "memory_budget_error",
    "open_store",
    "root_gaps",
    "solve",
    "stored_winning_move",
    "sweep",
]
