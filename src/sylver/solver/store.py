"""Results store: solved positions kept in SQLite and reused (DESIGN.md, "Store").

One row per position (its canonical text ``"4,5"``): outcome, winning moves, whether the set of
winning moves is complete, the Frobenius number, and how it was obtained.  The database runs in WAL
mode with a busy timeout, and every write is a read-check-write inside ``BEGIN IMMEDIATE``, so several
processes can write at once.  A result that contradicts a stored one (another outcome, a winning move
missing from a stored complete set, or a stored winning move missing from a new complete set) raises
:class:`StoreConflictError`: one of the two computations is wrong, and that must never pass silently.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sylver.position import Outcome, Position

if TYPE_CHECKING:
    from sylver.solver import Solution

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    position TEXT PRIMARY KEY,
    outcome TEXT NOT NULL CHECK (outcome IN ('P', 'N')),
    winning_moves TEXT NOT NULL,
    complete INTEGER NOT NULL,
    frobenius_number INTEGER NOT NULL,
    states INTEGER NOT NULL,
    seconds REAL NOT NULL,
    updated REAL NOT NULL
)
"""


class StoreConflictError(ValueError):
    """A new result contradicts the stored one for the same position."""


@dataclass(frozen=True)
class Record:
    """A stored result."""

    position: Position
    outcome: Outcome
    winning_moves: tuple[int, ...]
    complete: bool
    frobenius_number: int
    states: int
    seconds: float


def default_path() -> Path:
    """``$SYLVER_STORE`` if set, else ``results.sqlite`` in the user's cache directory."""
    env = os.environ.get("SYLVER_STORE")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sylver")) / "results.sqlite"


class Store:
    """A SQLite results store (opened lazily per process; safe to share a path between processes)."""

    def __init__(self, path: str | Path | None = None, timeout: float = 60.0) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.timeout = timeout
        self._conn: sqlite3.Connection | None = None
        self._pid = -1

    def __repr__(self) -> str:
        return f"Store({str(self.path)!r})"

    def __reduce__(self) -> tuple[type, tuple[str, float]]:
        return (Store, (str(self.path), self.timeout))

    def _db(self) -> sqlite3.Connection:
        if self._conn is None or self._pid != os.getpid():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None)
            except (OSError, sqlite3.Error) as exc:
                raise ValueError(f"cannot open the results store {self.path}: {exc}") from None
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute(SCHEMA)
            except sqlite3.DatabaseError as exc:
                conn.close()
                raise ValueError(f"{self.path} is not a sylver results store: {exc}") from None
            self._conn = conn
            self._pid = os.getpid()
        return self._conn

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------------
    def get(self, position: Position) -> Record | None:
        """The stored result for ``position``, or None."""
        row = self._db().execute(
            "SELECT outcome, winning_moves, complete, frobenius_number, states, seconds "
            "FROM results WHERE position = ?",
            (str(position),),
        ).fetchone()
        return None if row is None else _record(position, row)

    def __len__(self) -> int:
        return int(self._db().execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def records(self) -> list[Record]:
        rows = self._db().execute(
            "SELECT position, outcome, winning_moves, complete, frobenius_number, states, seconds "
            "FROM results ORDER BY position"
        ).fetchall()
        return [_record(Position.parse(r[0]), r[1:]) for r in rows]

    # -- writing -------------------------------------------------------------------------------
    def put(self, solution: Solution) -> None:
        """Record ``solution``, merging with a stored result; a contradiction raises."""
        self.put_result(
            solution.position, solution.outcome, solution.winning_moves, solution.complete,
            solution.frobenius_number, solution.states, solution.seconds,
        )

    def put_result(
        self,
        position: Position,
        outcome: Outcome,
        winning_moves: tuple[int, ...] | list[int],
        complete: bool,
        frobenius_number: int,
        states: int = 0,
        seconds: float = 0.0,
    ) -> None:
        moves = tuple(sorted(int(x) for x in winning_moves))
        if outcome is Outcome.P and moves:
            raise ValueError("a P-position has no winning moves")
        if outcome is Outcome.N and complete and not moves:
            raise ValueError("an N-position has at least one winning move")
        complete = complete or outcome is Outcome.P
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            row = db.execute(
                "SELECT outcome, winning_moves, complete, frobenius_number, states, seconds "
                "FROM results WHERE position = ?",
                (str(position),),
            ).fetchone()
            if row is not None:
                old = _record(position, row)
                moves, complete = _merge(old, outcome, moves, complete)
                states = max(states, old.states)
            db.execute(
                "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    str(position), outcome.value, json.dumps(list(moves)), int(complete),
                    frobenius_number, states, seconds, time.time(),
                ),
            )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise


def _record(position: Position, row: tuple) -> Record:
    return Record(
        position, Outcome(row[0]), tuple(json.loads(row[1])), bool(row[2]), int(row[3]),
        int(row[4]), float(row[5]),
    )


def _merge(
    old: Record, outcome: Outcome, moves: tuple[int, ...], complete: bool
) -> tuple[tuple[int, ...], bool]:
    where = f"{old.position.braces()}"
    if old.outcome is not outcome:
        raise StoreConflictError(
            f"conflicting results for {where}: stored {old.outcome}, new {outcome}"
        )
    new_set, old_set = set(moves), set(old.winning_moves)
    if old.complete and not new_set <= old_set:
        raise StoreConflictError(
            f"conflicting results for {where}: {sorted(new_set - old_set)} not in the stored "
            f"complete set {sorted(old_set)}"
        )
    if complete and not old_set <= new_set:
        raise StoreConflictError(
            f"conflicting results for {where}: stored winning moves {sorted(old_set - new_set)} "
            f"missing from the new complete set {sorted(new_set)}"
        )
    if complete and old.complete and new_set != old_set:  # pragma: no cover - caught above
        raise StoreConflictError(f"conflicting results for {where}")
    if old.complete:
        return old.winning_moves, True
    if complete:
        return moves, True
    return tuple(sorted(old_set | new_set)), False
