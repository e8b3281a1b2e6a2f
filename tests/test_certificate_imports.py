"""Certificates that import the proofs they rest on (``imports``: path, bytes, SHA-256 of a file
proving a P-position), composed so by a campaign above ``IMPORT_BYTES``, and `sylver verify` checking
each distinct file once per run, or once ever with ``--known`` (issues 31, 32).

Small positions: {6,9} is P (short, g = 3), so {6} and {9} are N by 9 and 6 (Sicherman 2002, sec. 2);
{5,14,18} is P (gcd 1), so 14 wins in {5,18}."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import sylver.campaign.proof as proof_module
from sylver.campaign.attempt import certificate
from sylver.campaign.proof import compose
from sylver.position import Outcome, Position
from sylver.proof.certificate import (
    CLAIMS_OPEN,
    NODES_OPEN,
    CertificateError,
    Verifier,
    verify_any,
    verify_path,
)
from sylver.solver import solve
from sylver.store.results import Store, file_sha256


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """p69.json ({6,9} P), six.json and nine.json (N, each importing p69.json), p5.json ({5,14,18}
    P, gcd 1) and r5.json ({5,18} N, importing p5.json), composed with every child imported."""
    monkeypatch.setattr(proof_module, "IMPORT_BYTES", 0)
    for name, text in (("p69", "6,9"), ("p5", "5,14,18")):
        sol = solve(Position.parse(text))
        assert sol.verdict == "P"
        certificate(sol, tmp_path / f"{name}.json", 60.0, 1 << 30)
    for name, text, child, w in (("six", "6", "p69", 9), ("nine", "9", "p69", 6), ("r5", "5,18", "p5", 14)):
        compose(tmp_path / f"{name}.json", Position.parse(text), [tmp_path / f"{child}.json"], outcome="N",
                winning=[w])
    return tmp_path


def edit_head(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Change the header (first line) of a certificate file laid out an item a line."""
    first, rest = path.read_text().split("\n", 1)
    opener = next(o for o in (NODES_OPEN, CLAIMS_OPEN) if first.endswith(o))
    head = json.loads(first[: -len(opener)] + "}")
    change(head)
    path.write_text(json.dumps(head, separators=(",", ":"))[:-1] + opener + "\n" + rest)


def point(importer: Path, target: Path) -> None:
    """Make the first import of ``importer`` name ``target`` as it now is (path, bytes, SHA-256)."""
    def change(head: dict[str, Any]) -> None:
        head["imports"][0].update(path=str(target), bytes=target.stat().st_size, sha256=file_sha256(target))
    edit_head(importer, change)


class TestChecker:
    @pytest.mark.parametrize(("name", "child", "position"), [("six", "p69", [6, 9]), ("r5", "p5", [5, 14, 18])])
    def test_an_importing_certificate_verifies(self, files: Path, name: str, child: str, position: list[int]) -> None:
        path = files / f"{name}.json"
        head = json.loads(path.read_text().split("\n", 1)[0].rsplit(",", 1)[0] + "}")
        assert head["imports"] == [{"position": position, "outcome": "P", "path": str(files / f"{child}.json"),
                                    "bytes": (files / f"{child}.json").stat().st_size,
                                    "sha256": file_sha256(files / f"{child}.json")}]
        checked = verify_path(str(path))
        assert checked.nodes == 0 and [(r.position, r.how) for r in checked.imports] == [(position, "checked")]
        assert checked.head["outcome"] == "N"
        with pytest.raises(CertificateError, match="check it from its file"):
            verify_any(json.loads(path.read_text()))  # a dict has no directory to resolve its imports from

    def test_the_import_is_what_proves_the_move(self, files: Path) -> None:
        def drop(head: dict[str, Any]) -> None:
            del head["imports"]
        for name in ("six", "r5"):
            edit_head(files / f"{name}.json", drop)
            with pytest.raises(CertificateError, match="winning move .* is not proved P"):
                verify_path(str(files / f"{name}.json"))

    def test_imports_of_a_copied_file_are_carried(self, files: Path) -> None:
        """A small certificate copied into a composed one brings its imports along, paths absolute."""
        (files / "sub").mkdir()
        compose(files / "sub" / "six2.json", Position.parse("6"), [files / "six.json"], outcome="N", winning=[9])
        checked = verify_path(str(files / "sub" / "six2.json"))
        assert [(r.position, r.path) for r in checked.imports] == [([6, 9], str(files / "p69.json"))]

    @pytest.mark.parametrize("flaw", ["byte", "node", "sha256", "missing", "another position", "an N file",
                                      "outcome N", "relative path"])
    def test_a_bad_import_is_refused_naming_it(self, files: Path, flaw: str) -> None:
        importer, child = files / "r5.json", files / "p5.json"
        expect = re.escape("import {5,14,18}")
        if flaw == "byte":  # one byte changed: another SHA-256
            text = child.read_bytes()
            i = text.index(b"[5,14,18]") + 1
            child.write_bytes(text[:i] + b"6" + text[i + 1 :])
            expect += r".*the file has changed"
        elif flaw == "node":  # a node removed, and the import made to match the file: the file is invalid
            lines = child.read_text().split("\n")
            k = next(i for i, line in enumerate(lines) if i > 0 and line.startswith("[[") and lines[i + 1].startswith("[["))
            child.write_text("\n".join(lines[:k] + lines[k + 1 :]))
            point(importer, child)
            expect += r".*not proved P"
        elif flaw == "sha256":
            edit_head(importer, lambda h: h["imports"][0].update(sha256="0" * 64))
            expect += r".*the file has changed"
        elif flaw == "missing":
            child.unlink()
            expect += r".*cannot read"
        elif flaw == "another position":  # a valid file of another P-position
            point(importer, files / "p69.json")
            expect += r".*the file proves \{6,9\} P, not \{5,14,18\} P"
        elif flaw == "an N file":
            point(importer, files / "six.json")
            expect += r".*the file proves \{6\} N \(not complete\), not \{5,14,18\} P"
        elif flaw == "outcome N":
            edit_head(importer, lambda h: h["imports"][0].update(outcome="N"))
            expect += ": only P-positions are imported"
        else:  # a relative path is relative to the importing file's directory, not the current one
            edit_head(importer, lambda h: h["imports"][0].update(path="p5.json"))
            (files / "sub").mkdir()
            (files / "sub" / "r5.json").write_bytes(importer.read_bytes())
            assert verify_path(str(importer)).imports[0].how == "checked"
            importer = files / "sub" / "r5.json"
            expect += r" \(p5.json\): cannot read .*sub/p5.json"
        with pytest.raises(CertificateError, match=expect):
            verify_path(str(importer))

    def test_a_cycle_is_refused(self, files: Path) -> None:
        """p69.json made to import six.json, which imports it (with its new SHA-256): a cycle, named."""
        six, p69 = files / "six.json", files / "p69.json"
        edit_head(p69, lambda h: h.update(imports=[{"position": [6], "outcome": "P", "path": str(six), "bytes": 1,
                                                      "sha256": "0" * 64}]))
        point(six, p69)
        with pytest.raises(CertificateError) as got:
            verify_path(str(six))
        assert str(got.value) == f"import {{6,9}} ({p69}): import {{6}} ({six}): a cycle of imports: {six} → {p69} → {six}"

    def test_a_gcd1_certificate_imports_no_position_with_g_above_1(self, files: Path) -> None:
        point(files / "r5.json", files / "p69.json")
        edit_head(files / "r5.json", lambda h: h["imports"][0].update(position=[6, 9]))
        with pytest.raises(CertificateError, match=re.escape("a gcd-1 certificate imports {6,9}, whose g > 1")):
            verify_path(str(files / "r5.json"))

    def test_each_file_checked_once(self, files: Path) -> None:
        verifier = Verifier()
        for name in ("six", "nine", "p69", "six"):
            verifier.verify(str(files / f"{name}.json"))
        assert [Path(p).name for p, _ in verifier.verified] == ["p69.json", "six.json", "nine.json"]
        assert verifier.done[file_sha256(files / "nine.json")].imports[0].how == "checked above"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sylver", "verify", *args], capture_output=True, text=True,
                          timeout=120)


class TestVerifyCommand:
    def test_several_files_share_an_import(self, files: Path) -> None:
        out = cli("--json", str(files / "six.json"), str(files / "nine.json"), str(files / "p69.json"))
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        assert [r["valid"] for r in rows] == [True] * 3
        read = [Path(c["path"]).name for r in rows for c in r["checked"]]
        assert read == ["p69.json", "six.json", "nine.json"]  # p69.json once, for six.json
        assert [i["how"] for r in rows[:2] for i in r["imports"]] == ["checked", "checked above"]
        text = cli(str(files / "six.json"), str(files / "r5.json"))
        lines = text.stdout.splitlines()
        assert text.returncode == 0 and f"{files / 'six.json'}: valid" in lines and f"{files / 'r5.json'}: valid" in lines
        assert any(line.startswith("  rests on {5,14,18} P: checked, ") for line in lines)

    def test_known_records(self, files: Path) -> None:
        known = files / "known.jsonl"
        assert cli("--known", str(known), str(files / "p69.json")).returncode == 0
        rec = json.loads(known.read_text())
        assert (rec["sha256"], rec["bytes"], rec["position"], rec["outcome"], rec["complete"]) == (
            file_sha256(files / "p69.json"), (files / "p69.json").stat().st_size, [6, 9], "P", True)
        out = cli("--known", str(known), str(files / "six.json"))
        assert out.returncode == 0
        assert f"  rests on {{6,9}} P: checked before, {rec['sha256'][:12]}, {rec['time']}" in out.stdout.splitlines()
        out = cli("--json", "--known", str(known), str(files / "nine.json"))
        assert [Path(c["path"]).name for c in json.loads(out.stdout)["checked"]] == ["nine.json"]
        assert len(known.read_text().splitlines()) == 3  # p69, six, nine
        out = cli("--json", str(files / "nine.json"))  # without --known nothing is taken on trust
        assert [Path(c["path"]).name for c in json.loads(out.stdout)["checked"]] == ["p69.json", "nine.json"]
        known.write_text(json.dumps({**rec, "bytes": rec["bytes"] + 1}) + "\n")  # a record that does not match
        out = cli("--json", "--known", str(known), str(files / "six.json"))
        assert [Path(c["path"]).name for c in json.loads(out.stdout)["checked"]] == ["p69.json", "six.json"]
        assert json.loads(out.stdout)["imports"][0]["how"] == "checked"

    def test_a_file_recorded_valid_is_not_read_again(self, files: Path) -> None:
        """With --known, a given file that a record names (SHA-256, size, the moves it proved) is
        valid without a reading; a record of N without its moves (older checks) is checked again."""
        known = files / "known.jsonl"
        assert cli("--known", str(known), str(files / "six.json")).returncode == 0  # p69, six
        out = cli("--json", "--known", str(known), str(files / "six.json"))
        got = json.loads(out.stdout)
        assert got["valid"] and got["checked"] == [] and got["checked_before"] and got["winning_moves"] == [9]
        text = cli("--known", str(known), str(files / "p69.json")).stdout
        assert text.startswith(f"valid (recorded valid in {known}, ") and text.splitlines()[0].endswith("not read again)")
        lines = [json.loads(line) for line in known.read_text().splitlines()]
        known.write_text("".join(json.dumps({k: v for k, v in r.items() if k != "winning_moves"}) + "\n" for r in lines))
        out = cli("--json", "--known", str(known), str(files / "six.json"))
        assert [Path(c["path"]).name for c in json.loads(out.stdout)["checked"]] == ["six.json"]  # p69: P, recorded

    def test_into_the_results_store(self, files: Path) -> None:
        """--store: each valid certificate's result and file go to the store, where a solve finds
        them; a certificate that contradicts the store is one line, exit 2."""
        db = files / "s.sqlite"
        out = cli("--store", str(db), str(files / "six.json"), str(files / "r5.json"))
        assert out.returncode == 0, out.stderr
        store = Store(db)
        six, r5 = store.get(Position.parse("6")), store.get(Position.parse("5,18"))
        assert (six.outcome.value, six.winning_moves, r5.winning_moves) == ("N", (9,), (14,))
        assert store.certificate(Position.parse("6"))["outcome"] == "N"
        other = files / "t.sqlite"
        Store(other).put_result(Position.parse("5,18"), Outcome.P, [], True, Position.parse("5,18").frobenius_number)
        out = cli("--store", str(other), str(files / "r5.json"))
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "r5.json" in out.stderr, out.stderr

    def test_bad_input(self, files: Path) -> None:
        known = files / "known.jsonl"
        known.write_text('{"sha256": "ab"}\n')
        for args, says in ((["--known", str(known), str(files / "six.json")], f"{known} line 1 is not a record"),
                           ([str(files / "six.json"), str(files / "none.json")], "cannot read")):
            out = cli(*args)
            assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1, out.stderr
            assert out.stderr.startswith("sylver: error: ") and says in out.stderr
        (files / "p69.json").unlink()
        out = cli(str(files / "six.json"), str(files / "r5.json"))  # a missing import: a flaw of its certificate
        assert out.returncode == 1 and out.stdout.startswith(f"{files / 'six.json'}: invalid: import {{6,9}} (")
        assert f"{files / 'r5.json'}: valid" in out.stdout


def test_a_campaign_imports_its_large_children(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """{8} (N: 12 and 14 win, sec. 2) with every child's file counted large: the root's certificate
    imports the file of the P-position its winning move leaves, by absolute path, so that the copy
    the results store keeps (inline: it is small) verifies wherever it is written."""
    from tests.test_campaign import campaign

    monkeypatch.setenv("SYLVER_BOOK", "off")  # bare stores: the results book decides {8} at once
    monkeypatch.setattr(proof_module, "IMPORT_BYTES", 0)
    ledger, store, summary = campaign(tmp_path, "8", first_states=1)  # the root decided by its children
    root = ledger.node(Position.parse("8"))
    assert summary["status"] == "N" and root is not None and root.method == "children"
    child = ledger.node(Position.parse("8").play(root.winning))
    checked = verify_path(str(ledger.directory / root.certificate))
    assert [(r.position, r.path) for r in checked.imports] == [
        (list(child.position.generators), str((ledger.directory / child.certificate).resolve()))]
    copy = tmp_path / "elsewhere" / "8.json"
    copy.parent.mkdir()
    assert Store(store.path).certificate_file(root.position, copy)
    assert verify_path(str(copy)).imports[0].how == "checked"
