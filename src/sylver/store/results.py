"""Results store: solved positions kept in SQLite or PostgreSQL and reused (docs/solve.md, "Results store").

One row per position (its canonical text ``"4,5"``): outcome, winning moves, whether the set of
winning moves is complete, the Frobenius number, and how it was obtained.  ``Store(location)`` opens
an SQLite file (the default, under the user's cache directory) or, for a ``postgresql://`` URL, a
PostgreSQL database (psycopg 3, the ``postgres`` extra) that several machines can share, e.g. the
workers of a Dask cluster.  Both hold the same table (:data:`SCHEMA`) under the same rules.

Every write is a read-check-write in one transaction that holds the position's write lock (SQLite:
``BEGIN IMMEDIATE`` on a WAL database with a busy timeout; PostgreSQL: a transaction-scoped advisory
lock on the position), so several processes and machines can write at once.  A result that
contradicts a stored one (another outcome, a winning move missing from a stored complete set, or a
stored winning move missing from a new complete set) raises :class:`StoreConflictError`: one of the
two computations is wrong, and that must never pass silently.

The store also reads the results book (:mod:`sylver.store.book`, the project's results shipped with
sylver): :meth:`Store.get` answers from it a position its database has no row for (and adds the
book's winning moves to a row's), and a result that contradicts the book is refused as one that
contradicts a row.  ``Store(..., book=False)``, or ``SYLVER_BOOK=off``, is a store without it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
import time
import weakref
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from sylver.position import Outcome, Position
from sylver.store.book import Book, ConflictError, Entry, load, merged_moves

if TYPE_CHECKING:
    from sylver.solution import Solution

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    position TEXT PRIMARY KEY,
    outcome TEXT NOT NULL CHECK (outcome IN ('P', 'N')),
    winning_moves TEXT NOT NULL,
    complete INTEGER NOT NULL,
    frobenius_number BIGINT NOT NULL,
    states BIGINT NOT NULL,
    seconds DOUBLE PRECISION NOT NULL,
    updated DOUBLE PRECISION NOT NULL
)
"""
"""The results table, in SQL both databases read alike (SQLite: integer and real affinity, 64 bits)."""

CERTIFICATE_SCHEMA = """
CREATE TABLE IF NOT EXISTS certificates (
    position TEXT PRIMARY KEY,
    outcome TEXT NOT NULL,
    certificate BYTEA NOT NULL,
    updated DOUBLE PRECISION NOT NULL
)
"""
"""Proof certificates (:mod:`sylver.proof.certificate`), one per position: the evidence behind a
result that a campaign (:mod:`sylver.campaign`) recorded.  ``certificate`` is zlib-compressed: the
certificate file itself (up to :data:`INLINE_BYTES`), or a reference to a larger file
(:data:`REFERENCE`).  (SQLite stores the bytes as a BLOB whatever the declared type.)"""

INLINE_BYTES = 64 << 20
"""The largest certificate file kept in the database itself (compressed, a few MB).  A larger one
(gigabytes for the large nodes of the opening 16, where a blob stops at about 1 GB in SQLite and
PostgreSQL and would be read into memory whole) is recorded by reference: :data:`REFERENCE`."""

REFERENCE = "sylver-certificate-file"
"""The format of a reference to a certificate file: ``{"format": REFERENCE, "path": ..., "bytes":
..., "sha256": ...}``; the file must stay where it is (a campaign's ``certificates/``; a directory
every machine sees, for several), and a reader that finds it missing, of another size or with
another SHA-256 takes it for no certificate."""

COLUMNS = "position, outcome, winning_moves, complete, frobenius_number, states, seconds, updated"

URL_SCHEMES = ("postgresql://", "postgres://")
"""A store location starting with one of these is a PostgreSQL connection URL."""

_UPSERT = (
    f"INSERT INTO results ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (position) DO UPDATE SET outcome = excluded.outcome, "
    "winning_moves = excluded.winning_moves, complete = excluded.complete, "
    "frobenius_number = excluded.frobenius_number, states = excluded.states, "
    "seconds = excluded.seconds, updated = excluded.updated"
)
_SCHEMA_LOCK = 0x53594C5645520001
"""Advisory-lock key under which PostgreSQL clients create the table (one at a time)."""


class StoreConflictError(ConflictError):
    """A new result contradicts the stored one (or the book's) for the same position."""


@dataclass(frozen=True, kw_only=True)
class Record:
    """A stored result: a row of :data:`SCHEMA`.

    Its fields are the first seven of :class:`~sylver.solver.Solution`, with the same names and
    meanings, and :meth:`Store.put` maps one onto the other.  It is a type of its own because it
    says something else: a Solution is one call's answer (its own time and counters, possibly an
    outcome not proven, None, and no t for gcd > 1, plus a self-check, a reason, the scan of the
    odd moves...), while a Record is what every solve that recorded the position established
    together (merged: the union of their winning moves, the largest search), always a proven
    outcome, t stored as 0 for gcd > 1.  One type would make every reader of the store check for
    None outcomes that cannot occur there, and carry fields a row does not have.
    """

    position: Position
    outcome: Outcome
    winning_moves: tuple[int, ...]
    complete: bool
    frobenius_number: int
    states: int
    seconds: float
    source: str = "store"
    """Where it comes from: ``store`` (a row of the database, with the book's winning moves added
    when the book has the position) or ``book`` (the results book alone)."""


def default_location() -> str | Path:
    """``$SYLVER_STORE`` if set (a path, or a PostgreSQL URL), else ``results.sqlite`` in the user's
    cache directory."""
    env = os.environ.get("SYLVER_STORE")
    if env:
        return env if is_url(env) else Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("sylver")) / "results.sqlite"


def is_url(location: str | Path) -> bool:
    """Is ``location`` a PostgreSQL URL (``postgresql://…`` or ``postgres://…``) rather than a path?"""
    return isinstance(location, str) and location.startswith(URL_SCHEMES)


def redact(url: str) -> str:
    """``url`` with its password (in the authority or a ``password=`` parameter) replaced by ``***``."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        user, host = netloc.rsplit("@", 1)
        if ":" in user:
            user = user.split(":", 1)[0] + ":***"
        netloc = f"{user}@{host}"
    query = re.sub(r"(^|&)password=[^&]*", r"\1password=***", parts.query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


_INHERITED: list[Any] = []
"""Connections a forked child inherited: kept alive, never closed (closing would end the parent's)."""

_OPEN: weakref.WeakSet[Store] = weakref.WeakSet()
"""Stores of this process with an open connection: their SQLite connections close before a fork."""


def _close_before_fork() -> None:
    """Close this process's SQLite connections before it forks (they reopen lazily).

    SQLite keeps per-file lock state in process-global structures.  A child forked while the parent
    holds a connection inherits that state without the locks themselves (POSIX locks belong to a
    process), so a connection the child opens to the same file believes it holds locks it does not:
    another process may then checkpoint and reset the WAL under it, and committed rows are lost.
    (Python 3.11's sqlite3 connections are in a reference cycle, so a dropped one stays open until
    the cyclic garbage collector runs: an open connection at fork time is the normal case.)
    """
    for store in list(_OPEN):
        if not store.postgres:
            try:
                store.close()
            except sqlite3.ProgrammingError:  # opened by another thread, possibly in use there
                pass


os.register_at_fork(before=_close_before_fork)


class Store:
    """A results store: an SQLite file, or a PostgreSQL database when ``location`` is a
    ``postgresql://`` URL (default: :func:`default_location`).  Opened lazily, once per process; a Store pickles to its location, so it
    can be handed to worker processes and machines, which open it again.

    A URL may carry a password (``postgresql://user:secret@host/db``); it is never shown (repr,
    messages), but it does travel to the workers with the Store: prefer ``PGPASSWORD`` or
    ``~/.pgpass`` on each machine.
    """

    def __init__(self, location: str | Path | None = None, timeout: float = 60.0, *, read_only: bool = False,
                 book: bool = True) -> None:
        if location is None:
            location = default_location()
        self.postgres = is_url(location)
        self.path: Path | str = str(location) if self.postgres else Path(location)
        """The SQLite file, or the PostgreSQL URL."""
        self.timeout = timeout
        """Seconds to wait for the database (SQLite busy timeout; PostgreSQL connect and lock timeouts)."""
        self.read_only = read_only
        """Only read: an SQLite file is opened read-only (a missing one is an error, not created) and
        usable from any thread; no table is created (a bot reading a store as its book)."""
        self.use_book = book
        """Read the results book (:func:`sylver.store.book.load`) as well (module docstring)."""
        self._conn: Any = None
        self._pid = -1

    def __str__(self) -> str:
        return redact(str(self.path)) if self.postgres else str(self.path)

    def __repr__(self) -> str:
        return f"Store({str(self)!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_reopen, (str(self.path), self.timeout, self.read_only, self.use_book))

    def _db(self) -> Any:
        if self._conn is None or self._pid != os.getpid():
            if self._conn is not None:
                _INHERITED.append(self._conn)
                self._conn = None
            self._conn = self._open_postgres() if self.postgres else self._open_sqlite()
            self._pid = os.getpid()
            _OPEN.add(self)
        return self._conn

    def _open_sqlite(self) -> sqlite3.Connection:
        path = Path(self.path)
        if self.read_only:
            return self._open_sqlite_read_only(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(path, timeout=self.timeout, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise ValueError(f"cannot open the results store {path}: {exc}") from None
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA busy_timeout={int(self.timeout * 1000)}")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(SCHEMA)
            conn.execute(CERTIFICATE_SCHEMA)
            conn.execute(f"SELECT {COLUMNS} FROM results LIMIT 0")
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise ValueError(f"{path} is not a sylver results store: {exc}") from None
        return conn

    def _open_sqlite_read_only(self, path: Path) -> sqlite3.Connection:
        if not path.is_file():
            raise ValueError(f"cannot open the results store {path}: no such file")
        try:
            conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=self.timeout,
                                   isolation_level=None, check_same_thread=False)
            conn.execute(f"SELECT {COLUMNS} FROM results LIMIT 0")
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"{path} is not a sylver results store: {exc}") from None
        return conn

    def _open_postgres(self) -> Any:
        try:
            import psycopg
        except ImportError:
            raise ValueError(
                f"the results store {self} needs psycopg 3: pip install 'sylver[postgres]'"
            ) from None
        try:
            conn = psycopg.connect(str(self.path), autocommit=True, connect_timeout=max(1, round(self.timeout)))
        except psycopg.Error as exc:
            raise ValueError(f"cannot open the results store {self}: {_one_line(exc)}") from None
        try:
            conn.execute(f"SET lock_timeout = {int(self.timeout * 1000)}")
            if self.read_only:
                conn.execute("SET default_transaction_read_only = on")
            else:  # CREATE TABLE IF NOT EXISTS races with itself: one at a time
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                    conn.execute(SCHEMA)
                    conn.execute(CERTIFICATE_SCHEMA)
            conn.execute(f"SELECT {COLUMNS} FROM results LIMIT 0")
        except psycopg.Error as exc:
            conn.close()
            raise ValueError(f"{self} is not a sylver results store: {_one_line(exc)}") from None
        return conn

    def _sql(self, query: str) -> str:
        return query.replace("?", "%s") if self.postgres else query

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Database errors (a lost connection, a lock not granted in time) as one-line ValueErrors."""
        errors: tuple[type[BaseException], ...] = (sqlite3.Error, *_psycopg_errors(self.postgres))
        try:
            yield
        except errors as exc:
            if self.postgres:  # the connection may be gone: open a new one next time
                self.close()
            raise ValueError(f"results store {self}: {_one_line(exc)}") from None

    @contextmanager
    def _locked(self, position: Position) -> Iterator[Any]:
        """A transaction holding the write lock for ``position``; committed on success."""
        db = self._db()
        if self.postgres:
            with db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_lock_key(position),))
                yield db
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def close(self) -> None:
        if self._conn is not None and self._pid == os.getpid():
            self._conn.close()
        self._conn = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown, or a connection of another thread
            pass

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------------
    @property
    def book(self) -> Book | None:
        """The results book this store reads (None: none)."""
        return load() if self.use_book else None

    def book_entry(self, position: Position) -> Entry | None:
        """The results book's entry for ``position``, or None."""
        book = self.book
        return None if book is None else book.get(position)

    def get(self, position: Position) -> Record | None:
        """The stored result for ``position`` (with the book's winning moves), else the book's, or None."""
        with self._errors():
            row = self._db().execute(self._sql(_SELECT_ONE), (str(position),)).fetchone()
        entry = self.book_entry(position)
        if row is None:
            return None if entry is None else _from_book(entry)
        rec = _record(position, row)
        if entry is None:
            return rec
        moves, complete = _against_book(entry, rec.outcome, rec.winning_moves, rec.complete)
        return Record(position=position, outcome=rec.outcome, winning_moves=moves, complete=complete,
                      frobenius_number=rec.frobenius_number, states=max(rec.states, entry.states),
                      seconds=rec.seconds)

    def __len__(self) -> int:
        with self._errors():
            return int(self._db().execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def records(self) -> list[Record]:
        """Every stored result, by position text."""
        with self._errors():
            rows = self._db().execute(
                "SELECT position, outcome, winning_moves, complete, frobenius_number, states, seconds "
                "FROM results"
            ).fetchall()
        return [_record(Position.parse(r[0]), r[1:]) for r in sorted(rows, key=lambda r: r[0])]

    def certificate(self, position: Position) -> dict[str, Any] | None:
        """The stored proof certificate of ``position`` as a JSON object, or None: for small ones
        (:meth:`certificate_file` copies one of any size)."""
        import tempfile

        with tempfile.TemporaryDirectory(prefix="sylver-certificate-") as tmp:
            path = Path(tmp) / "c.json"
            if not self.certificate_file(position, path):
                return None
            with open(path, encoding="utf-8") as fh:
                cert = json.load(fh)
        return cert if isinstance(cert, dict) else None

    def _certificate_blob(self, position: Position) -> bytes | None:
        """The stored certificate row of ``position`` (compressed JSON, or a compressed reference), or None."""
        with self._errors():
            row = self._db().execute(
                self._sql("SELECT certificate FROM certificates WHERE position = ?"), (str(position),)
            ).fetchone()
        return None if row is None else bytes(row[0])

    def has_certificate(self, position: Position) -> bool:
        """Whether a proof certificate of ``position`` is stored (a referenced file: still there with
        its size; its SHA-256 is checked when it is read)."""
        blob = self._certificate_blob(position)
        if blob is None:
            return False
        try:
            ref = _reference_of(blob)
            return ref is None or ref[0].stat().st_size == ref[1]
        except (zlib.error, ValueError, KeyError, TypeError, OSError):
            return False

    def certificate_file(self, position: Position, path: str | Path) -> bool:
        """Write the stored proof certificate of ``position`` to ``path`` (through ``path.part``,
        renamed when complete), a chunk at a time; whether there is one.  A referenced file
        (:data:`REFERENCE`) is linked, or copied, once its size and SHA-256 are found unchanged:
        missing or changed, it is no certificate."""
        blob = self._certificate_blob(position)
        if blob is None:
            return False
        path = Path(path)
        part = path.with_name(path.name + ".part")
        try:
            ref = _reference_of(blob)
            if ref is None:
                _inflate(blob, part)
            elif not _unchanged(*ref):
                return False
            else:
                _link_or_copy(ref[0], part)
        except (zlib.error, ValueError, KeyError, TypeError):
            part.unlink(missing_ok=True)
            raise ValueError(f"results store {self}: the certificate of {position.braces()} is damaged") from None
        except BaseException:
            part.unlink(missing_ok=True)
            raise
        os.replace(part, path)
        return True

    def reference(self, position: Position) -> dict[str, Any] | None:
        """The stored proof of ``position`` P as an import of the certificate format
        (``{"position", "outcome": "P", "path", "bytes", "sha256"}``, the path absolute), when the
        store keeps it by reference (a file larger than :data:`INLINE_BYTES`) and the file is
        there, unchanged (size and SHA-256), proving that position P, complete (its header); else
        None (no proof, a small one kept inline, or a stale reference), and the caller proves it
        itself."""
        blob = self._certificate_blob(position)
        if blob is None:
            return None
        try:
            ref = _reference_of(blob)
        except (zlib.error, ValueError, KeyError, TypeError):
            return None
        if ref is None or not _unchanged(*ref):
            return None
        path, size, sha256 = ref
        try:
            head = _line_head(path)
        except OSError:
            return None
        gens = list(position.generators)
        if head is None or (head.get("position"), head.get("outcome"), head.get("complete")) != (gens, "P", True):
            return None
        return {"position": gens, "outcome": "P", "path": str(path), "bytes": size, "sha256": sha256}

    # -- writing -------------------------------------------------------------------------------
    def put_certificate(self, position: Position, cert: dict[str, Any] | str | Path, *,
                        sha256: str | None = None) -> None:
        """Record the proof certificate of ``position``: a certificate file (read a chunk at a time;
        its outcome from its header), or a small one as a dict, replacing one stored
        before (both prove the same outcome, which the results table holds, or :meth:`put_result`
        would have refused it).  A file larger than :data:`INLINE_BYTES` is recorded by reference
        (:data:`REFERENCE`): it must stay where it is; ``sha256``, its digest when the caller has
        just computed it (a check of the file), spares reading it again."""
        if isinstance(cert, dict):  # small: one line of JSON
            outcome = str(cert.get("outcome"))
            blob = zlib.compress(json.dumps(cert, separators=(",", ":")).encode(), 6)
        else:
            path = Path(cert).resolve()
            outcome = str(_head(path).get("outcome"))
            size = path.stat().st_size
            if size > INLINE_BYTES:
                ref = {"format": REFERENCE, "path": str(path), "bytes": size, "sha256": sha256 or file_sha256(path)}
                blob = zlib.compress(json.dumps(ref, separators=(",", ":")).encode(), 6)
            else:
                blob = _deflate(path)
        with self._errors(), self._locked(position) as db:
            db.execute(
                self._sql("INSERT INTO certificates (position, outcome, certificate, updated) VALUES (?, ?, ?, ?) "
                          "ON CONFLICT (position) DO UPDATE SET outcome = excluded.outcome, "
                          "certificate = excluded.certificate, updated = excluded.updated"),
                (str(position), outcome, blob, time.time()),
            )

    def put(self, solution: Solution) -> None:
        """Record ``solution``, merging with a stored result; a contradiction raises.  Nothing is
        recorded when the outcome is not proven (gcd > 1: probably-P or unknown); a position with
        gcd > 1 has no Frobenius number (the column holds 0)."""
        if solution.outcome is None:
            return
        self.put_result(
            solution.position, solution.outcome, solution.winning_moves, solution.complete,
            solution.frobenius_number or 0, solution.states, solution.seconds,
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
        """Record a result, merging with the stored one (:class:`StoreConflictError` if they contradict)."""
        moves = tuple(sorted(int(x) for x in winning_moves))
        if outcome is Outcome.P and moves:
            raise ValueError("a P-position has no winning moves")
        if outcome is Outcome.N and complete and not moves:
            raise ValueError("an N-position has at least one winning move")
        complete = complete or outcome is Outcome.P
        entry = self.book_entry(position)
        if entry is not None:
            _against_book(entry, outcome, moves, complete)
        with self._errors(), self._locked(position) as db:
            row = db.execute(self._sql(_SELECT_ONE), (str(position),)).fetchone()
            if row is not None:
                old = _record(position, row)
                moves, complete = _merge(old, outcome, moves, complete)
                states = max(states, old.states)
            db.execute(
                self._sql(_UPSERT),
                (
                    str(position), outcome.value, json.dumps(list(moves)), int(complete),
                    int(frobenius_number), int(states), float(seconds), time.time(),
                ),
            )


_REFERENCE_START = f'{{"format":"{REFERENCE}"'.encode()
"""How a reference (:data:`REFERENCE`) begins, once inflated (a certificate begins with its format too)."""

_CHUNK = 1 << 20


def _reference_of(blob: bytes) -> tuple[Path, int, str] | None:
    """The file a stored certificate row refers to (path, bytes, SHA-256); None for a certificate
    kept inline.  A damaged row raises (zlib.error, ValueError, KeyError or TypeError)."""
    if zlib.decompressobj().decompress(blob, len(_REFERENCE_START)) != _REFERENCE_START:
        return None
    ref = json.loads(zlib.decompress(blob))
    return Path(ref["path"]), int(ref["bytes"]), str(ref["sha256"])


def _head(path: Path) -> dict[str, Any]:
    """The fields of the certificate file ``path`` on its first line (laid out an item a line), or,
    in another layout, all of them."""
    head = _line_head(path)
    if head is not None:
        return head
    with open(path, encoding="utf-8") as fh:
        whole: dict[str, Any] = json.load(fh)
    return whole


def _line_head(path: Path) -> dict[str, Any] | None:
    """The fields of the certificate file ``path`` but its claims and nodes, read from its first
    line; None when it is not laid out an item a line (or that line is not a header).  Such a first
    line is an object cut open at its last field, a list continued on the next lines (``…,"nodes":[``
    or ``…,"claims":[``: ``sylver.proof.certificate.NODES_OPEN``, ``CLAIMS_OPEN``): the store reads
    it without the checker, below which it stands."""
    with open(path, "rb") as fh:
        first = fh.readline().rstrip(b"\r\n")
    cut = first.rfind(b',"')
    if not (first.startswith(b"{") and first.endswith(b'":[') and cut > 0):
        return None
    try:
        head = json.loads(first[:cut] + b"}")
    except ValueError:
        return None
    return head if isinstance(head, dict) else None


def _deflate(path: Path) -> bytes:
    """The file ``path``, zlib-compressed a chunk at a time."""
    pack = zlib.compressobj(6)
    with open(path, "rb") as fh:
        chunks = [pack.compress(chunk) for chunk in iter(lambda: fh.read(_CHUNK), b"")]
    return b"".join([*chunks, pack.flush()])


def _inflate(blob: bytes, path: Path) -> None:
    """Write the zlib-compressed ``blob`` to ``path``, a chunk at a time."""
    unpack = zlib.decompressobj()
    with open(path, "wb") as fh:
        for i in range(0, len(blob), _CHUNK):
            fh.write(unpack.decompress(blob[i : i + _CHUNK]))
        fh.write(unpack.flush())
        if not unpack.eof:
            raise ValueError("truncated")


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file ``path`` (hex), read a chunk at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _unchanged(path: Path, size: int, sha256: str) -> bool:
    """Whether the file ``path`` is there with ``size`` bytes and the SHA-256 ``sha256``."""
    try:
        return path.stat().st_size == size and file_sha256(path) == sha256
    except OSError:
        return False


def _link_or_copy(source: Path, target: Path) -> None:
    """``target`` becomes ``source``'s content: a hard link when both are on one file system (no
    copy of gigabytes), else a copy."""
    import shutil

    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


_SELECT_ONE = (
    "SELECT outcome, winning_moves, complete, frobenius_number, states, seconds FROM results WHERE position = ?"
)


def _reopen(location: str, timeout: float, read_only: bool, book: bool = True) -> Store:
    """A pickled :class:`Store`, opened again (in a worker process or on another machine)."""
    return Store(location, timeout, read_only=read_only, book=book)


def _psycopg_errors(postgres: bool) -> tuple[type[BaseException], ...]:
    if not postgres:
        return ()
    try:
        import psycopg
    except ImportError:
        return ()
    return (psycopg.Error,)


def _lock_key(position: Position) -> int:
    """A signed 64-bit advisory-lock key for ``position`` (a collision only serialises two writers)."""
    return int.from_bytes(hashlib.blake2b(str(position).encode(), digest_size=8).digest(), "big", signed=True)


def _record(position: Position, row: tuple) -> Record:
    return Record(
        position=position, outcome=Outcome(row[0]), winning_moves=tuple(json.loads(row[1])),
        complete=bool(row[2]), frobenius_number=int(row[3]), states=int(row[4]), seconds=float(row[5]),
    )


def _merge(
    old: Record, outcome: Outcome, moves: tuple[int, ...], complete: bool
) -> tuple[tuple[int, ...], bool]:
    try:
        return merged_moves(old.position.braces(), (old.outcome, old.winning_moves, old.complete),
                            (outcome, moves, complete))
    except ConflictError as exc:
        raise StoreConflictError(str(exc)) from None


def _against_book(entry: Entry, outcome: Outcome, moves: tuple[int, ...], complete: bool) -> tuple[tuple[int, ...], bool]:
    """A result for the position of the book's ``entry`` merged with it (:class:`StoreConflictError`
    when they contradict)."""
    try:
        return merged_moves(entry.position.braces(), (entry.outcome, entry.winning, entry.complete),
                            (outcome, moves, complete), ("results book's", "new"))
    except ConflictError as exc:
        raise StoreConflictError(str(exc)) from None


def _from_book(entry: Entry) -> Record:
    p = entry.position
    return Record(position=p, outcome=entry.outcome, winning_moves=entry.winning, complete=entry.complete,
                  frobenius_number=p.frobenius_number if p.gcd == 1 else 0, states=entry.states,
                  seconds=entry.seconds, source="book")
