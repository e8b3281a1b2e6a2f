"""The results store, on SQLite and on PostgreSQL: reuse, merging, conflicts, several processes
(standing in for several machines) writing at once.

The PostgreSQL tests use the throwaway server that ``scripts/setup-test-env.sh`` starts (``make test``
runs it), or the server at ``$SYLVER_TEST_POSTGRES`` (a URL); without one they skip, saying why.
Each test session works in a database of its own, dropped at the end."""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sylver import Outcome, Position
from sylver.solver import solve
from sylver.store.results import Store, StoreConflictError, default_location, redact
from test_solver_cli import run

PGTEST_DIR = Path(os.environ.get("SYLVER_PGTEST_DIR", f"/tmp/sylver-pgtest-{os.getuid()}"))
"""Where scripts/setup-test-env.sh keeps its PostgreSQL server (the URL in ``url``)."""


@pytest.fixture(scope="session")
def postgres_database() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database for this session (dropped at the end), or a skip."""
    url = os.environ.get("SYLVER_TEST_POSTGRES", "")
    if not url:
        if not (PGTEST_DIR / "url").exists():
            why_file = PGTEST_DIR.with_name(PGTEST_DIR.name + ".why")
            why = why_file.read_text().strip() if why_file.exists() else "it was not started"
            pytest.skip(
                f"no PostgreSQL test server ({why}): run `bash scripts/setup-test-env.sh` (make test does) "
                "or set SYLVER_TEST_POSTGRES to a server's URL"
            )
        url = (PGTEST_DIR / "url").read_text().strip()
    try:
        import psycopg
    except ImportError:
        pytest.skip("psycopg is not installed: pip install -e '.[test]'")
    name = f"sylver_test_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        with psycopg.connect(url, autocommit=True, connect_timeout=10) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
    except psycopg.Error as exc:
        pytest.skip(f"the PostgreSQL test server {redact(url)} cannot be used: {' '.join(str(exc).split())}")
    yield urlsplit(url)._replace(path=f"/{name}").geturl()
    with psycopg.connect(url, autocommit=True, connect_timeout=10) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def postgres_url(postgres_database: str) -> str:
    """The session's PostgreSQL database, without a results table (each test starts empty)."""
    import psycopg

    with psycopg.connect(postgres_database, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS results")
        conn.execute("DROP TABLE IF EXISTS certificates")
    return postgres_database


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty store of each kind: an SQLite file, a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "r.sqlite")
    return str(request.getfixturevalue("postgres_url"))


def _open_files(path: str) -> list[str]:
    """The files of this process whose names start with ``path`` (the database, -wal, -shm)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(path):
            found.append(target)
    return found


def _writer(location: str, worker: int) -> int:
    store = Store(location)
    for n in range(7, 26):  # the same positions in every worker: real contention
        p = Position([5, n]) if n % 5 else Position([6, n])
        if p.gcd != 1:
            continue
        sol = solve(p, store=store)
        assert sol.outcome is Outcome.N
    # and positions only this worker writes
    for n in range(3):
        store.put_result(Position([101 + worker, 200 + n]), Outcome.N, (), False, 0)
    store.close()
    return worker


def _put(location: str, outcome: str) -> str:
    """Record {5,18} with ``outcome`` from another process: "ok" or the conflict's message."""
    try:
        moves = (14, 16, 17) if outcome == "N" else ()
        Store(location).put_result(Position("5,18"), Outcome(outcome), moves, True, 67)
    except StoreConflictError as exc:
        return str(exc)
    return "ok"


class TestStore:
    def test_roundtrip_and_reuse(self, location: str) -> None:
        store = Store(location)
        first = solve(Position("5,18"), store=store)
        assert not first.from_store
        rec = store.get(Position("5,18"))
        assert rec is not None and rec.complete and rec.winning_moves == (14, 16, 17)
        again = solve(Position("18,5"), store=location)
        assert again.from_store and again.states == 0
        assert again.winning_moves == (14, 16, 17) and again.complete
        least = solve(Position("5,18"), store=store, first=True)
        assert least.from_store and least.winning_moves == (14,) and not least.complete

    def test_read_only(self, location: str, tmp_path: Path) -> None:
        """A store opened ``read_only`` (a bot's book) reads what another connection wrote, writes
        nothing, stays read-only when pickled to a worker; a missing SQLite file is an error, not made."""
        import pickle

        Store(location).put_result(Position("5,18"), Outcome.N, (14, 16, 17), True, 67)
        book = Store(location, read_only=True)
        rec = book.get(Position("5,18"))
        assert rec is not None and rec.winning_moves == (14, 16, 17)
        with pytest.raises(ValueError, match="read"):
            book.put_result(Position("5,19"), Outcome.N, (), False, 67)
        assert pickle.loads(pickle.dumps(book)).read_only
        with pytest.raises(ValueError, match="no such file"):
            Store(tmp_path / "none.sqlite", read_only=True).get(Position("5,18"))
        assert not (tmp_path / "none.sqlite").exists()

    def test_certificates(self, location: str) -> None:
        """A campaign's evidence: a certificate per position, kept compressed, replaced by a later
        one, and the same JSON read back from another connection."""
        from sylver.proof.build import build_certificate
        from sylver.proof.certificate import verify_any

        store = Store(location)
        assert store.certificate(Position("5,18")) is None
        cert = build_certificate(solve(Position("5,18")))
        store.put_certificate(Position("5,18"), cert)
        store.put_certificate(Position("5,18"), cert)
        again = Store(location).certificate(Position("18,5"))
        assert again == cert
        verify_any(again)

    @pytest.mark.parametrize("inline", [True, False], ids=["in the database", "by reference"])
    def test_certificate_files(self, location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                               inline: bool) -> None:
        """A certificate file goes in compressed (a chunk at a time), or, larger than INLINE_BYTES,
        as its path, size and SHA-256; it comes back to a file byte for byte, and a referenced file
        that has changed or is gone is no certificate, never trusted."""
        from sylver.proof.build import stream_certificate
        from sylver.proof.certificate import verify_path
        from sylver.store import results as store_module

        if not inline:
            monkeypatch.setattr(store_module, "INLINE_BYTES", 1000)
        store = Store(location)
        p = Position("12,17")
        path = tmp_path / "c.json"
        stream_certificate(solve(p), path)
        assert path.stat().st_size > 1000
        store.put_certificate(p, path)
        out = tmp_path / "out" / "c.json"
        out.parent.mkdir()
        assert Store(location).certificate_file(p, out)
        assert out.read_bytes() == path.read_bytes() and sorted(out.parent.iterdir()) == [out]
        verify_path(str(out))
        assert store.certificate(p)["outcome"] == "N" and store.has_certificate(p)
        assert not store.has_certificate(Position("12,19"))
        text = path.read_text()
        path.write_text(text.replace(",", ", ", 1))
        assert store.certificate_file(p, tmp_path / "again.json") is inline  # changed: not trusted
        path.write_text(text)
        assert store.certificate_file(p, tmp_path / "again.json")
        path.unlink()
        assert store.certificate_file(p, tmp_path / "again.json") is inline  # gone
        if not inline:
            assert store.certificate(p) is None and not store.has_certificate(p)
            assert not (tmp_path / "again.json.part").exists()

    def test_a_digest_computed_before(self, location: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A file recorded by reference with the digest its check computed (``verify --store``) is
        not read again for it; a digest that is not the file's makes the reference untrusted."""
        from sylver.proof.build import stream_certificate
        from sylver.store import results as store_module

        monkeypatch.setattr(store_module, "INLINE_BYTES", 0)
        p, path = Position("12,17"), tmp_path / "c.json"
        stream_certificate(solve(p), path)
        digest = store_module.file_sha256(path)
        store = Store(location)
        with monkeypatch.context() as m:
            m.setattr(store_module, "file_sha256", lambda _path: pytest.fail("hashed again"))
            store.put_certificate(p, path, sha256=digest)
        assert store.certificate_file(p, tmp_path / "out.json")
        store.put_certificate(p, path, sha256="0" * 64)
        assert not store.certificate_file(p, tmp_path / "again.json")

    def test_root_children_recorded(self, location: str) -> None:
        store = Store(location)
        solve(Position("5,14"), store=store)
        after = store.get(Position("5,14,18"))
        assert after is not None and after.outcome is Outcome.P and after.complete

    def test_first_result_is_not_reused_as_complete(self, location: str) -> None:
        store = Store(location)
        solve(Position("5,18"), store=store, first=True)
        rec = store.get(Position("5,18"))
        assert rec is not None and not rec.complete and rec.winning_moves == (14,)
        full = solve(Position("5,18"), store=store)
        assert not full.from_store and full.winning_moves == (14, 16, 17)
        rec = store.get(Position("5,18"))
        assert rec is not None and rec.complete

    def test_merge_partial_results(self, location: str) -> None:
        store = Store(location)
        p = Position("5,18")
        store.put_result(p, Outcome.N, (16,), False, 67)
        store.put_result(p, Outcome.N, (14,), False, 67)
        rec = store.get(p)
        assert rec is not None and rec.winning_moves == (14, 16) and not rec.complete

    def test_conflicts_are_hard_errors(self, location: str) -> None:
        store = Store(location)
        p = Position("5,18")
        store.put_result(p, Outcome.N, (14, 16, 17), True, 67)
        with pytest.raises(StoreConflictError, match="stored N, new P"):
            store.put_result(p, Outcome.P, (), True, 67)
        with pytest.raises(StoreConflictError, match="not in the stored complete set"):
            store.put_result(p, Outcome.N, (15,), False, 67)
        with pytest.raises(StoreConflictError, match="missing from the new complete set"):
            store.put_result(p, Outcome.N, (14, 16), True, 67)
        store.put_result(p, Outcome.N, (16,), False, 67)  # consistent: kept complete
        rec = store.get(p)
        assert rec is not None and rec.winning_moves == (14, 16, 17) and rec.complete

    def test_no_sqlite_connection_crosses_a_fork(self, tmp_path: Path) -> None:
        """A child forked while the parent holds the store open must not inherit the connection:
        SQLite's lock state would come along without the locks, and a writer in the child could
        lose committed rows of other processes (seen as rows missing after concurrent writers)."""
        path = tmp_path / "r.sqlite"
        held = Store(path)
        held.get(Position("4,5"))
        Store(path).get(Position("4,6"))  # dropped, but open until the cyclic gc runs
        ctx = mp.get_context("fork")
        with ctx.Pool(1) as pool:
            inherited = pool.apply(_open_files, (str(path),))
        assert inherited == []
        assert held.get(Position("4,5")) is None  # the parent's store reopens after the fork

    def test_not_a_database(self, tmp_path: Path) -> None:
        junk = tmp_path / "junk.sqlite"
        junk.write_bytes(b"this is not sqlite" * 100)
        with pytest.raises(ValueError, match="not a sylver results store"):
            Store(junk).get(Position("4,5"))

    def test_default_location(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.setenv("SYLVER_STORE", str(tmp_path / "x.sqlite"))
        assert default_location() == tmp_path / "x.sqlite"
        assert Store().path == tmp_path / "x.sqlite" and not Store().postgres
        monkeypatch.setenv("SYLVER_STORE", "postgresql://u@db.example/results")
        assert Store().postgres and Store().path == "postgresql://u@db.example/results"
        monkeypatch.delenv("SYLVER_STORE")
        assert Path(default_location()).name == "results.sqlite"

    def test_concurrent_writers(self, location: str) -> None:
        Store(location).get(Position("4,5"))  # create it; the dropped connection stays open until gc
        ctx = mp.get_context("fork")  # the workers start at once (spawn would import sylver anew)
        with ctx.Pool(4) as pool:
            assert sorted(pool.starmap(_writer, [(location, w) for w in range(4)])) == [0, 1, 2, 3]
        store = Store(location)
        if not store.postgres:
            assert store._db().execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        for w in range(4):
            for n in range(3):
                assert store.get(Position([101 + w, 200 + n])) is not None
        rec = store.get(Position("5,14"))
        assert rec is not None and rec.winning_moves == (18,) and rec.complete
        assert len(store) == len(store.records()) > 12

    def test_conflict_between_processes(self, location: str) -> None:
        ctx = mp.get_context("fork")  # the workers start at once (spawn would import sylver anew)
        with ctx.Pool(2) as pool:
            assert pool.apply(_put, (location, "N")) == "ok"
            assert "stored N, new P" in pool.apply(_put, (location, "P"))
        rec = Store(location).get(Position("5,18"))
        assert rec is not None and rec.outcome is Outcome.N and rec.complete

    def test_parallel_solve_shares_the_store(self, location: str) -> None:
        sol = solve(Position("5,14"), store=location, jobs=2)
        assert sol.winning_moves == (18,)
        store = Store(location)
        after = store.get(Position("5,14,18"))  # recorded as the threads decided it
        assert after is not None and after.outcome is Outcome.P
        assert solve(Position("5,14"), store=store).from_store

    def test_cli(self, location: str) -> None:
        first = run("solve", "5", "18", "--json", "--store", location)
        assert first.returncode == 0, first.stderr
        rec = Store(location).get(Position("5,18"))
        assert rec is not None and rec.complete
        again = json.loads(run("solve", "5,18", "--json", "--store", location).stdout)
        assert again["from_store"] and again["winning_moves"] == [14, 16, 17]


class TestPostgres:
    def test_same_table_as_sqlite(self, postgres_url: str, tmp_path: Path) -> None:
        import psycopg

        Store(postgres_url).get(Position("4,5"))
        lite = Store(tmp_path / "r.sqlite")
        lite.get(Position("4,5"))
        lite_columns = [r[1] for r in lite._db().execute("PRAGMA table_info(results)").fetchall()]
        with psycopg.connect(postgres_url) as conn:
            pg_columns = [r[0] for r in conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'results' "
                "ORDER BY ordinal_position"
            ).fetchall()]
        assert pg_columns == lite_columns

    def test_large_numbers(self, postgres_url: str) -> None:
        store = Store(postgres_url)
        p = Position([123457, 654323])
        store.put_result(p, Outcome.N, (), False, p.frobenius_number, states=2**40, seconds=1.5)
        rec = store.get(p)
        assert rec is not None and rec.frobenius_number == 80_779_976_831 and rec.states == 2**40

    def test_password_never_shown(self, postgres_url: str) -> None:
        url = "postgresql://me:s3cret@127.0.0.1:1/x?sslmode=disable&password=s3cret"
        assert "s3cret" not in repr(Store(url)) and "me:***@" in str(Store(url))
        with pytest.raises(ValueError, match="cannot open the results store") as err:
            Store(url, timeout=2).get(Position("4,5"))
        assert "s3cret" not in str(err.value) and "\n" not in str(err.value)
        out = run("solve", "4", "5", "--store", url)
        assert out.returncode == 2 and "s3cret" not in out.stderr
        assert out.stderr.startswith("sylver: error: cannot open the results store postgresql://me:***@")

    def test_not_a_store(self, postgres_url: str) -> None:
        import psycopg

        with psycopg.connect(postgres_url, autocommit=True) as conn:
            conn.execute("CREATE TABLE results (position TEXT, something_else INTEGER)")
        with pytest.raises(ValueError, match="is not a sylver results store"):
            Store(postgres_url).get(Position("4,5"))
