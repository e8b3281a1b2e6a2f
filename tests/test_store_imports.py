"""A proof already in the results store is imported, not built again (issue 31): the g > 1
certificate builder takes a P-position whose certificate the store keeps by reference (a file
larger than the store's inline size, unchanged) as an import (path, bytes, SHA-256), so that a
gcd-1 proof of gigabytes (D = {16,26,82,88,701} under U = {16,26,88}) is written, and checked
with ``sylver verify --known``, once.

Small positions: U = {8,14} is P (short, g = 2; so 14 wins in {8}, Sicherman 2002, sec. 2), and
one of its obligations is refuted through D = {8,14,18,25}, P with gcd 1.  The
store's inline size is lowered to 0 here, so that D's small file is kept by reference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import sylver.store.results as store_module
from sylver.campaign.attempt import TOKEN, Task, certificate, run
from sylver.campaign.proof import compose
from sylver.position import Outcome, Position
from sylver.proof.build import Written, stream_gcd_certificate
from sylver.proof.certificate import verify_path
from sylver.solver import solve
from sylver.store.results import Store, file_sha256

U = Position.parse("8,14")
D = Position.parse("8,14,18,25")


@pytest.fixture
def stored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Store:
    """A results store holding D P with its certificate d.json, by reference."""
    monkeypatch.setattr(store_module, "INLINE_BYTES", 0)
    sol = solve(D)
    assert sol.outcome is Outcome.P
    certificate(sol, tmp_path / "d.json", 60.0, 1 << 30)
    store = Store(tmp_path / "store.sqlite")
    store.put(sol)
    store.put_certificate(D, tmp_path / "d.json")
    return store


def d_import(directory: Path) -> dict[str, object]:
    d = directory / "d.json"
    return {"position": [8, 14, 18, 25], "outcome": "P", "path": str(d.resolve()), "bytes": d.stat().st_size,
            "sha256": file_sha256(d)}


def certify_u(path: Path, store: Store | None) -> Written:
    return stream_gcd_certificate(solve(U), path, time_limit=60.0, store=store)


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sylver", *args], capture_output=True, text=True, timeout=120)


def test_a_proof_kept_by_reference_is_imported(stored: Store, tmp_path: Path) -> None:
    own = certify_u(tmp_path / "own.json", None)
    got = certify_u(tmp_path / "u.json", stored)
    assert "imports" not in own.head and got.head["imports"] == [d_import(tmp_path)]
    # D is not proved again (its sub-proofs mostly are: other obligations' proofs share them)
    assert got.nodes < own.nodes
    assert [8, 14, 18, 25] not in (node[0] for node in json.loads((tmp_path / "u.json").read_text())["nodes"])
    assert [8, 14, 18, 25] in (node[0] for node in json.loads((tmp_path / "own.json").read_text())["nodes"])
    checked = verify_path(str(tmp_path / "u.json"))
    assert checked.head["outcome"] == "P"
    assert [(r.position, r.how) for r in checked.imports] == [([8, 14, 18, 25], "checked")]


def test_a_reply_recorded_in_the_store_is_not_searched(stored: Store, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """U's obligation 17 (an odd move: gcd 1) recorded N by 21 in the store, with the proof of
    {8,14,17,21} P kept by reference: the builder takes the reply from there, without a solve."""
    import sylver.solver as solver_api  # the builder calls sylver.solver.solve

    after, proved = Position.parse("8,14,17"), Position.parse("8,14,17,21")
    certificate(solve(proved), tmp_path / "p.json", 60.0, 1 << 30)
    stored.put_certificate(proved, tmp_path / "p.json")
    stored.put_result(after, Outcome.N, [21], False, after.frobenius_number)
    sol, solved = solve(U), []
    real = solver_api.solve
    monkeypatch.setattr(solver_api, "solve", lambda q, **kw: solved.append(q) or real(q, **kw))
    head = stream_gcd_certificate(sol, tmp_path / "u.json", time_limit=60.0, store=stored).head
    assert solved and after not in solved and proved not in solved
    assert [8, 14, 17, 21] in [i["position"] for i in head["imports"]]
    assert verify_path(str(tmp_path / "u.json")).head["outcome"] == "P"


def test_a_proof_kept_inline_is_copied(tmp_path: Path) -> None:
    """Below the store's inline size a proof is small: written into the certificate, one file."""
    sol = solve(D)
    certificate(sol, tmp_path / "d.json", 60.0, 1 << 30)
    store = Store(tmp_path / "store.sqlite")
    store.put_certificate(D, tmp_path / "d.json")
    assert store.reference(D) is None
    assert "imports" not in certify_u(tmp_path / "u.json", store).head


@pytest.mark.parametrize("stale", ["changed", "missing", "another position"])
def test_a_stale_reference_is_built_again(stored: Store, tmp_path: Path, stale: str) -> None:
    d = tmp_path / "d.json"
    if stale == "changed":  # same size, another SHA-256
        text = d.read_bytes()
        i = text.index(b"[8,14,18,25]") + 1
        d.write_bytes(text[:i] + b"9" + text[i + 1 :])
    elif stale == "missing":
        d.unlink()
    else:  # D's record names a valid file, unchanged, of another P-position
        other = Position.parse("8,14,17,21")
        certificate(solve(other), tmp_path / "other.json", 60.0, 1 << 30)
        stored.put_certificate(D, tmp_path / "other.json")
    assert stored.reference(D) is None
    got = certify_u(tmp_path / "u.json", stored)
    assert "imports" not in got.head
    checked = verify_path(str(tmp_path / "u.json"))
    assert checked.head["outcome"] == "P" and checked.imports == ()


def test_an_unreadable_store_costs_the_import_not_the_certificate(stored: Store, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def lost(*args: object) -> None:
        raise ValueError(f"results store {stored}: database is locked")
    monkeypatch.setattr(Store, "reference", lost)
    monkeypatch.setattr(Store, "get", lost)
    assert "imports" not in certify_u(tmp_path / "u.json", stored).head
    assert verify_path(str(tmp_path / "u.json")).head["outcome"] == "P"


def test_solve_imports_verify_checks_once_compose_carries(stored: Store, tmp_path: Path) -> None:
    """`sylver solve --store S --certificate F` imports D (and says so); `--no-store` does not; the
    certificate of {8} composed from U's carries U's import of D; `sylver verify --known` checks D
    for the first certificate resting on it, not for the second."""
    u, store = tmp_path / "u.json", str(tmp_path / "store.sqlite")
    out = cli("solve", "8", "14", "--store", store, "--certificate", str(u))
    assert out.returncode == 0, out.stderr
    said = " ".join(out.stdout.split())  # as wrapped to the terminal's width
    assert f"imports {{8,14,18,25}} P from {(tmp_path / 'd.json').resolve()})" in said
    out = cli("solve", "8", "14", "--no-store", "--certificate", str(tmp_path / "own.json"))
    assert out.returncode == 0 and "; imports {" not in " ".join(out.stdout.split()), out.stderr
    compose(tmp_path / "8.json", Position.parse("8"), [u], outcome="N", winning=[14])
    assert verify_path(str(tmp_path / "8.json")).imports[0].position == [8, 14, 18, 25]
    known = tmp_path / "known.jsonl"
    rows = []
    for name in ("u.json", "8.json"):
        out = cli("verify", "--json", "--known", str(known), str(tmp_path / name))
        assert out.returncode == 0, out.stdout + out.stderr
        rows.append(json.loads(out.stdout))
    assert [Path(c["path"]).name for c in rows[0]["checked"]] == ["d.json", "u.json"]
    assert [Path(c["path"]).name for c in rows[1]["checked"]] == ["8.json"]
    assert [i["how"] for r in rows for i in r["imports"]] == ["checked", "checked before"]


def test_a_campaign_attempt_imports(stored: Store, tmp_path: Path) -> None:
    """The campaign's attempt at U passes its results store to the certificate builder."""
    (tmp_path / TOKEN).write_text("t")
    got = run(Task(position="8,14", seconds=60.0, memory=1 << 30, store=str(tmp_path / "store.sqlite"),
                   certificate=str(tmp_path / "u.json"), token="t"))
    assert got.outcome == "P" and got.certificate == str(tmp_path / "u.json"), got.note
    assert [r.position for r in verify_path(got.certificate).imports] == [[8, 14, 18, 25]]


def test_a_solve_read_from_the_store_is_certified_from_its_records(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """U answered from the store carries no replies of its own: the builder takes each obligation's
    winning move from the store's records (the long {8,14,18}: 25), so that no position with g > 1
    is solved again (for B56 = {16,38,56,60} that would be six scans of 10–19 minutes at 20G each),
    and its gcd-1 solves get tables of half the budget, as the solve's do (not the library's 1G)."""
    import sylver.solver as solver_api  # the builder calls sylver.solver.solve

    store = Store(tmp_path / "store.sqlite", book=False)  # a bare store: the book would answer {2} too
    solve(U, store=store)
    sol = solve(U, store=store)
    assert sol.from_store and not sol.gcd_details.replies
    assert store.get(Position.parse("8,14,18")).winning_moves == (25,)
    calls: list[tuple[Position, dict[str, object]]] = []
    real = solver_api.solve

    def solving(q: Position, **kw: object) -> object:
        calls.append((q, kw))
        return real(q, **kw)

    monkeypatch.setattr(solver_api, "solve", solving)
    stream_gcd_certificate(sol, tmp_path / "u.json", time_limit=60.0, memory=64 << 20, store=store)
    assert [q for q, _ in calls if q.gcd > 1] == [Position.parse("2")]  # {2}: N by 3, at once
    assert {kw.get("memory") for q, kw in calls if q.gcd == 1} == {32 << 20}
    assert verify_path(str(tmp_path / "u.json")).head["outcome"] == "P"
