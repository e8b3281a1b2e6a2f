"""The ledger of a campaign: one SQLite file in the campaign's directory (``ledger.sqlite``) holding
the AND/OR tree (:mod:`sylver.campaign.tree`) as data: each node's position, status and evidence,
the edges (which move of which parent needs it) and every attempt made.

Each change is one committed transaction, so a campaign killed at any moment (kill -9 included)
loses at most the attempts that were running; :meth:`Ledger.open` marks them open again.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sylver.position import Position

FILE = "ledger.sqlite"
FORMAT = "sylver-campaign"
VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
    position TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    depth INTEGER NOT NULL,
    weight INTEGER NOT NULL,
    status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'working', 'P', 'N')),
    winning INTEGER,
    method TEXT NOT NULL DEFAULT '',
    states INTEGER NOT NULL DEFAULT 0,
    seconds REAL NOT NULL DEFAULT 0,
    peak_bytes INTEGER NOT NULL DEFAULT 0,
    certificate TEXT NOT NULL DEFAULT '',
    budget REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    expanded INTEGER NOT NULL DEFAULT 0,
    note TEXT NOT NULL DEFAULT '',
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS edges (
    parent TEXT NOT NULL,
    move INTEGER NOT NULL,
    child TEXT NOT NULL,
    PRIMARY KEY (parent, move)
);
CREATE INDEX IF NOT EXISTS edges_child ON edges (child);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY,
    position TEXT NOT NULL,
    budget REAL NOT NULL,
    started REAL NOT NULL,
    seconds REAL NOT NULL,
    result TEXT NOT NULL,
    states INTEGER NOT NULL,
    peak_bytes INTEGER NOT NULL,
    worker TEXT NOT NULL,
    note TEXT NOT NULL
);
"""


@dataclass(frozen=True, kw_only=True)
class Node:
    """A row of the ledger: a position of the tree and what is known of it."""

    position: Position
    kind: str
    """:class:`sylver.campaign.tree.Kind` value: gcd1, short, long or composite."""
    depth: int
    """Moves from the root (the least over the paths that reach it)."""
    weight: int
    """Genus of S ÷ g: the expected size of a search (:func:`sylver.campaign.tree.weight`)."""
    status: str
    """``open``, ``working`` (an attempt is running), ``P`` or ``N``."""
    winning: int | None
    """For N: the least winning move found (its position is P)."""
    method: str
    """How it was decided: ``solve`` (one search), ``children`` (its children's values), ``store``
    (a result and certificate recorded earlier), ``theorem``."""
    states: int
    seconds: float
    """The search's states and seconds (for ``children``: the sums over the subtree's attempts)."""
    peak_bytes: int
    certificate: str
    """The certificate file, relative to the campaign directory ('' while open, or decided with its
    certificate still to be built)."""
    budget: float
    """Seconds the next attempt gets (for a decided node whose certificate is still to be built:
    the next attempt at its certificate)."""
    attempts: int
    expanded: bool
    """Its children are in the ledger."""
    note: str
    """Why the last attempt failed, or what decided it."""

    @property
    def decided(self) -> bool:
        return self.status in ("P", "N")

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": list(self.position.generators), "kind": self.kind, "depth": self.depth,
            "status": self.status, "winning": self.winning, "method": self.method, "states": self.states,
            "seconds": round(self.seconds, 3), "peak_bytes": self.peak_bytes, "certificate": self.certificate,
            "budget": self.budget, "attempts": self.attempts, "expanded": self.expanded, "note": self.note,
        }


_NODE_COLUMNS = ("position, kind, depth, weight, status, winning, method, states, seconds, peak_bytes, "
                 "certificate, budget, attempts, expanded, note")


def _node(row: tuple) -> Node:
    return Node(position=Position.parse(row[0]), kind=row[1], depth=row[2], weight=row[3], status=row[4],
                winning=row[5], method=row[6], states=row[7], seconds=row[8], peak_bytes=row[9],
                certificate=row[10], budget=row[11], attempts=row[12], expanded=bool(row[13]), note=row[14])


class Ledger:
    """The ledger of the campaign in ``directory`` (:meth:`create` a new one, :meth:`open` one that
    exists)."""

    def __init__(self, directory: Path, conn: sqlite3.Connection) -> None:
        self.directory = directory
        self.conn = conn

    # -- opening ---------------------------------------------------------------------------------
    @classmethod
    def create(cls, directory: str | Path, root: Position, *, budget: float, store: str) -> Ledger:
        """A new campaign on ``root`` in ``directory`` (made if missing); an existing campaign there
        on the same root is opened instead, one on another root refused (ValueError)."""
        d = Path(directory)
        if (d / FILE).exists():
            ledger = cls.open(d, resume=False)
            if ledger.root != root:
                other = ledger.root
                ledger.close()
                raise ValueError(f"{d} holds the campaign on {other.braces()}, not {root.braces()}: "
                                 "choose another directory")
            ledger.close()
            return cls.open(d)
        if d.exists() and not d.is_dir():
            raise ValueError(f"{d} is not a directory")
        if d.exists() and any(p.name != "certificates" for p in d.iterdir()):
            raise ValueError(f"{d} is not empty and holds no campaign: choose a new directory")
        try:
            (d / "certificates").mkdir(parents=True, exist_ok=True)
            conn = _connect(d / FILE)
        except (OSError, sqlite3.Error) as exc:
            raise ValueError(f"cannot create the campaign in {d}: {exc}") from None
        ledger = cls(d, conn)
        conn.executescript(SCHEMA)
        with ledger.transaction() as db:
            for key, value in {"format": FORMAT, "version": str(VERSION), "root": str(root),
                               "store": store, "created": str(time.time())}.items():
                db.execute("INSERT INTO meta VALUES (?, ?)", (key, value))
        from sylver.campaign.tree import kind, weight

        ledger.add_node(root, kind=kind(root).value, depth=0, weight=weight(root), budget=budget)
        return ledger

    @classmethod
    def open(cls, directory: str | Path, *, resume: bool = True, read_only: bool = False) -> Ledger:
        """The campaign in ``directory`` (ValueError when there is none); to ``resume`` it, the
        attempts that were running when it stopped are marked open again (not when only reading: the
        campaign may be running in another process).  ``read_only``: the file is opened so (a viewer
        such as the web page: no write, no lock held)."""
        d = Path(directory)
        if not (d / FILE).is_file():
            raise ValueError(f"no campaign in {d}/ (no {FILE}): give a root position to start one, "
                             f"e.g. `sylver campaign run 16 38 --dir {d}`")
        try:
            if read_only:
                conn = sqlite3.connect(f"{(d / FILE).resolve().as_uri()}?mode=ro", uri=True, timeout=10,
                                       check_same_thread=False)
            else:
                conn = _connect(d / FILE)
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.Error as exc:
            raise ValueError(f"{d / FILE} is not a campaign ledger: {exc}") from None
        if meta.get("format") != FORMAT or meta.get("version") != str(VERSION):
            conn.close()
            raise ValueError(f"{d / FILE} is not a sylver campaign ledger (version {VERSION})")
        ledger = cls(d, conn)
        if resume and not read_only:
            ledger.reopen()
        return ledger

    def reopen(self) -> None:
        """Mark open again the nodes marked as being worked on (by a run that has stopped)."""
        with self.transaction() as db:
            db.execute("UPDATE nodes SET status = 'open' WHERE status = 'working'")

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise ValueError(f"campaign ledger {self.directory / FILE}: {exc}") from None

    # -- reading ---------------------------------------------------------------------------------
    def meta(self, key: str) -> str:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return "" if row is None else str(row[0])

    @property
    def root(self) -> Position:
        return Position.parse(self.meta("root"))

    @property
    def lines(self) -> list[tuple[int, ...]]:
        """The lines to try first (``sylver campaign run --try``): sequences of moves from the root."""
        text = self.meta("lines")
        return [tuple(line) for line in json.loads(text)] if text else []

    def add_lines(self, lines: list[tuple[int, ...]]) -> None:
        """Add ``lines`` to :attr:`lines` (those it holds already are kept once)."""
        merged = self.lines + [line for line in lines if line not in self.lines]
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('lines', ?)", (json.dumps([list(x) for x in merged]),))

    def node(self, position: Position) -> Node | None:
        row = self.conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes WHERE position = ?",
                                (str(position),)).fetchone()
        return None if row is None else _node(row)

    def nodes(self) -> list[Node]:
        """Every node, by depth, then position."""
        rows = self.conn.execute(f"SELECT {_NODE_COLUMNS} FROM nodes").fetchall()
        return sorted((_node(r) for r in rows), key=lambda n: (n.depth, n.position.generators))

    def children(self, position: Position) -> list[tuple[int, Position]]:
        """(move, child) of a node, by move."""
        rows = self.conn.execute("SELECT move, child FROM edges WHERE parent = ? ORDER BY move",
                                 (str(position),)).fetchall()
        return [(m, Position.parse(c)) for m, c in rows]

    def parents(self, position: Position) -> list[tuple[Position, int]]:
        """(parent, move) of each edge into ``position``."""
        rows = self.conn.execute("SELECT parent, move FROM edges WHERE child = ?", (str(position),)).fetchall()
        return [(Position.parse(p), m) for p, m in rows]

    def attempts(self, position: Position | None = None) -> list[dict[str, Any]]:
        """The attempts made (of one node, or all), oldest first."""
        query = "SELECT position, budget, started, seconds, result, states, peak_bytes, worker, note FROM attempts"
        rows = (self.conn.execute(query + " WHERE position = ? ORDER BY id", (str(position),)) if position
                else self.conn.execute(query + " ORDER BY id")).fetchall()
        keys = ("position", "budget", "started", "seconds", "result", "states", "peak_bytes", "worker", "note")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # -- writing ---------------------------------------------------------------------------------
    def add_node(self, position: Position, *, kind: str, depth: int, weight: int, budget: float) -> None:
        with self.transaction() as db:
            _insert(db, position, kind=kind, depth=depth, weight=weight, budget=budget)

    def expand(self, parent: Position, children: list[tuple[int, Position, str, int]], budget: float,
               decided: list[tuple[int, Position]]) -> None:
        """Record the children of ``parent`` in one transaction: ``children`` (move, child, kind,
        weight) to be worked on, ``decided`` (move, child) N by a theorem."""
        node = self.node(parent)
        depth = (node.depth if node else 0) + 1
        now = time.time()
        with self.transaction() as db:
            for move, child, kind, weight in children:
                _insert(db, child, kind=kind, depth=depth, weight=weight, budget=budget)
                db.execute("UPDATE nodes SET depth = MIN(depth, ?) WHERE position = ?", (depth, str(child)))
                db.execute("INSERT OR IGNORE INTO edges VALUES (?, ?, ?)", (str(parent), move, str(child)))
            for move, child in decided:
                _insert(db, child, kind="gcd1" if child.gcd == 1 else "theorem", depth=depth, weight=0, budget=0.0)
                db.execute("UPDATE nodes SET status = 'N', method = 'theorem', updated = ?, note = ? "
                           "WHERE position = ? AND status != 'N'",
                           (now, _theorem_note(child), str(child)))
                db.execute("INSERT OR IGNORE INTO edges VALUES (?, ?, ?)", (str(parent), move, str(child)))
            db.execute("UPDATE nodes SET expanded = 1, updated = ? WHERE position = ?", (now, str(parent)))

    def set_working(self, position: Position) -> None:
        with self.transaction() as db:
            db.execute("UPDATE nodes SET status = 'working', updated = ? WHERE position = ? AND status = 'open'",
                       (time.time(), str(position)))

    def record_attempt(self, position: Position, *, budget: float, started: float, seconds: float, result: str,
                       states: int, peak_bytes: int, worker: str, note: str, next_budget: float) -> None:
        """An attempt that did not decide the node: logged, the node open again with ``next_budget``."""
        with self.transaction() as db:
            _log(db, position, budget, started, seconds, result, states, peak_bytes, worker, note)
            db.execute("UPDATE nodes SET status = 'open', attempts = attempts + 1, budget = ?, note = ?, "
                       "updated = ? WHERE position = ? AND status IN ('open', 'working')",
                       (next_budget, note, time.time(), str(position)))

    def decide(self, position: Position, *, status: str, winning: int | None, method: str, states: int,
               seconds: float, peak_bytes: int, certificate: str, note: str,
               attempt: dict[str, Any] | None = None, next_budget: float | None = None) -> None:
        """The node is P or N (``attempt``: the attempt that decided it, logged with it;
        ``next_budget``: of the attempt at its certificate, when ``certificate`` is '')."""
        with self.transaction() as db:
            if attempt is not None:
                _log(db, position, attempt["budget"], attempt["started"], seconds, status, states, peak_bytes,
                     attempt["worker"], note)
            db.execute(
                "UPDATE nodes SET status = ?, winning = ?, method = ?, states = ?, seconds = ?, peak_bytes = ?, "
                "certificate = ?, note = ?, attempts = attempts + ?, budget = COALESCE(?, budget), updated = ? "
                "WHERE position = ?",
                (status, winning, method, states, seconds, peak_bytes, certificate, note,
                 int(attempt is not None), next_budget, time.time(), str(position)),
            )

    def certified(self, position: Position, certificate: str, attempt: dict[str, Any] | None = None) -> None:
        """The certificate of a decided node is written (file ``certificate``; ``attempt``: the attempt
        at the certificate alone that built it, logged as ``certificate``)."""
        with self.transaction() as db:
            if attempt is not None:
                _log(db, position, attempt["budget"], attempt["started"], attempt["seconds"], "certificate", 0, 0,
                     attempt["worker"], attempt["note"])
            db.execute("UPDATE nodes SET certificate = ?, updated = ?, attempts = attempts + ? WHERE position = ?",
                       (certificate, time.time(), int(attempt is not None), str(position)))

    def certify_failed(self, position: Position, *, budget: float, started: float, seconds: float, worker: str,
                       note: str, next_budget: float) -> None:
        """An attempt at a decided node's certificate that did not build it: logged, next budget."""
        with self.transaction() as db:
            _log(db, position, budget, started, seconds, "no certificate", 0, 0, worker, note)
            db.execute("UPDATE nodes SET budget = ?, attempts = attempts + 1, updated = ? WHERE position = ?",
                       (next_budget, time.time(), str(position)))

    def certificate_path(self, position: Position) -> Path:
        return self.directory / "certificates" / f"{str(position).replace(',', '_')}.json"

    def summary(self) -> dict[str, Any]:
        """Counts of the nodes by status, and the root's."""
        counts = dict(self.conn.execute("SELECT status, COUNT(*) FROM nodes GROUP BY status").fetchall())
        root = self.node(self.root)
        pending = self.conn.execute("SELECT COUNT(*) FROM nodes WHERE status IN ('P', 'N') AND certificate = '' "
                                    "AND method NOT IN ('theorem', 'book')").fetchone()[0]
        return {"root": list(self.root.generators), "status": root.status if root else "open",
                "winning": root.winning if root else None, "certified": bool(root and root.certificate),
                "certificates_pending": pending,
                "nodes": sum(counts.values()), **{k: counts.get(k, 0) for k in ("P", "N", "open", "working")}}


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, timeout=60, isolation_level=None, check_same_thread=False)  # one user at a time
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    return conn


def _insert(db: sqlite3.Connection, position: Position, *, kind: str, depth: int, weight: int,
            budget: float) -> None:
    db.execute("INSERT OR IGNORE INTO nodes (position, kind, depth, weight, budget, updated) VALUES (?, ?, ?, ?, ?, ?)",
               (str(position), kind, depth, weight, budget, time.time()))


def _log(db: sqlite3.Connection, position: Position, budget: float, started: float, seconds: float, result: str,
         states: int, peak_bytes: int, worker: str, note: str) -> None:
    db.execute("INSERT INTO attempts (position, budget, started, seconds, result, states, peak_bytes, worker, note) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (str(position), budget, started, seconds, result, states, peak_bytes, worker, note))


def _theorem_note(child: Position) -> str:
    if child.gcd == 1:
        return "an ender with t > 1: N by strategy stealing (sec. 1)"
    return f"g = {child.gcd} >= 5 prime: {child.gcd} wins, {{{child.gcd}}} is P (Hutchings's p-theorem, sec. 1)"


__all__ = ["FILE", "Ledger", "Node"]
