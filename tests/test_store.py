"""The SQLite results store: reuse, merging, conflicts, several processes writing at once."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from sylver import Outcome, Position
from sylver.solver import solve
from sylver.solver.store import Store, StoreConflictError, default_path


def _writer(path: str, worker: int) -> int:
    store = Store(path)
    for n in range(7, 40):
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


class TestStore:
    def test_roundtrip_and_reuse(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "r.sqlite")
        first = solve(Position("5,18"), store=store)
        assert not first.from_store
        rec = store.get(Position("5,18"))
        assert rec is not None and rec.complete and rec.winning_moves == (14, 16, 17)
        again = solve(Position("18,5"), store=tmp_path / "r.sqlite")
        assert again.from_store and again.states == 0
        assert again.winning_moves == (14, 16, 17) and again.complete
        least = solve(Position("5,18"), store=store, first=True)
        assert least.from_store and least.winning_moves == (14,) and not least.complete

    def test_root_children_recorded(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "r.sqlite")
        solve(Position("5,14"), store=store)
        after = store.get(Position("5,14,18"))
        assert after is not None and after.outcome is Outcome.P and after.complete

    def test_first_result_is_not_reused_as_complete(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "r.sqlite")
        solve(Position("5,18"), store=store, first=True)
        rec = store.get(Position("5,18"))
        assert rec is not None and not rec.complete and rec.winning_moves == (14,)
        full = solve(Position("5,18"), store=store)
        assert not full.from_store and full.winning_moves == (14, 16, 17)
        rec = store.get(Position("5,18"))
        assert rec is not None and rec.complete

    def test_merge_partial_results(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "r.sqlite")
        p = Position("5,18")
        store.put_result(p, Outcome.N, (16,), False, 67)
        store.put_result(p, Outcome.N, (14,), False, 67)
        rec = store.get(p)
        assert rec is not None and rec.winning_moves == (14, 16) and not rec.complete

    def test_conflicts_are_hard_errors(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "r.sqlite")
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

    def test_not_a_database(self, tmp_path: Path) -> None:
        junk = tmp_path / "junk.sqlite"
        junk.write_bytes(b"this is not sqlite" * 100)
        with pytest.raises(ValueError, match="not a sylver results store"):
            Store(junk).get(Position("4,5"))

    def test_default_path(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
        monkeypatch.setenv("SYLVER_STORE", str(tmp_path / "x.sqlite"))
        assert default_path() == tmp_path / "x.sqlite"
        monkeypatch.delenv("SYLVER_STORE")
        assert default_path().name == "results.sqlite"

    def test_wal_and_concurrent_writers(self, tmp_path: Path) -> None:
        path = str(tmp_path / "shared.sqlite")
        Store(path).get(Position("4,5"))  # create it
        ctx = mp.get_context("spawn")
        with ctx.Pool(4) as pool:
            assert sorted(pool.starmap(_writer, [(path, w) for w in range(4)])) == [0, 1, 2, 3]
        store = Store(path)
        mode = store._db().execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"
        for w in range(4):
            for n in range(3):
                assert store.get(Position([101 + w, 200 + n])) is not None
        rec = store.get(Position("5,14"))
        assert rec is not None and rec.winning_moves == (18,) and rec.complete
