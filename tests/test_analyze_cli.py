"""`sylver analyze`: the report, --json, and one-line errors with exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from sylver.cli import app

runner = CliRunner()


def analyze(*args: str):  # noqa: ANN201 - click Result
    return runner.invoke(app, ["analyze", *args])


class TestReport:
    @pytest.mark.parametrize("args", [("4", "5"), ("{4,5}",), ("4,5",), ("4, 5",), ("5", "4", "10", "13")])
    def test_forms_of_the_position(self, args: tuple[str, ...]) -> None:
        r = analyze(*args, "--json")
        assert r.exit_code == 0, r.stderr
        data = json.loads(r.stdout)
        assert data["position"] == [4, 5] and data["frobenius_number"] == 11
        assert data["legal_moves"] == [1, 2, 3, 6, 7, 11] and data["ender"] == "quiet"
        assert data["outcome_by_theory"] == "N"

    def test_json_is_one_object_with_the_issue_keys(self) -> None:
        r = analyze("14", "22", "26", "30", "--json")
        lines = r.stdout.strip().splitlines()
        assert len(lines) == 1
        data = json.loads(lines[0])
        for key in ("position", "gcd", "frobenius_number", "tbar", "genus", "legal_moves",
                    "legal_move_count", "ends", "ender", "enclosure", "outcome_by_theory", "reason"):
            assert key in data
        assert data["gcd"] == 2 and data["frobenius_number"] is None and data["tbar"] == 46
        assert data["enclosure"] == [14, 22, 26, 30, 34, 38] and data["legal_move_count"] is None
        # gcd > 1: what the engine of `sylver solve` proves within 5 s
        assert data["engine"]["outcome"] in ("P", "N", "probably-P", "unknown") and data["engine"]["reason"]

    def test_rich_report(self) -> None:
        r = analyze("7", "11", "13", "15")
        assert r.exit_code == 0
        out = r.stdout
        assert "{7,11,13,15}" in out and "23" in out and "non-ender" in out
        assert "17, 19, 23" in out  # the ends
        assert "{7,11,13,15,17,19}" in out  # E(S)

    def test_rich_report_of_a_p_position(self) -> None:
        r = analyze("{8,10,22}")
        assert r.exit_code == 0 and "P" in r.stdout and "sec. 2" in r.stdout

    def test_koth_size(self) -> None:
        r = analyze("240891", "696853", "1058758", "4279350", "1978349", "--json")
        data = json.loads(r.stdout)
        assert data["genus"] == 63_137_782 and data["legal_moves"] is None and data["notes"]

    def test_limit(self) -> None:
        data = json.loads(analyze("4", "5", "--json", "--limit", "3").stdout)
        assert data["legal_moves"] is None and data["legal_move_count"] == 6


class TestErrors:
    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["0"], "'0' is not a positive integer"),
            (["-3"], "'-3' is not a positive integer"),
            (["4", "-3"], "'-3' in '4 -3' is not a positive integer"),
            (["4.5"], "'4.5' is not a positive integer"),
            (["abc"], "'abc' is not a positive integer"),
            ([""], "the position is empty"),
            ([], "the position is empty"),
            (["1" + "0" * 40], "is too large"),
            (["--frobnicate"], "no such option: --frobnicate"),
            (["4", "5", "--limit", "-1"], "--limit '-1' is not a non-negative integer"),
            (["4", "5", "--limit", "abc"], "--limit 'abc' is not a non-negative integer"),
            (["4,,5"], "'4,,5': a missing number between two separators"),
            (["{4,5"], "'{4,5': '{' is not closed by '}'"),
            (["4,5}"], "unexpected '}'"),
        ],
    )
    def test_one_line_error_exit_2(self, args: list[str], message: str) -> None:
        r = analyze(*args)
        assert r.exit_code == 2
        assert r.stdout == ""
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("sylver: error: ") and message in lines[0]

    @pytest.mark.parametrize("arg", ["-3", "1" + "0" * 40])
    def test_console_script_has_no_traceback(self, arg: str) -> None:
        proc = subprocess.run(
            [sys.executable, "-m", "sylver", "analyze", arg], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 2
        assert proc.stderr.startswith("sylver: error: ") and proc.stderr.count("\n") == 1
        assert "Traceback" not in proc.stderr


def test_a_hundred_thousand_numbers_in_near_linear_time() -> None:
    """`sylver analyze $(seq 2 2 200000)`: the numbers reach Click as one argument (its parser is
    quadratic in the count of arguments); parsing and the reduction to minimal generators are linear."""
    from sylver.cli import join_numbers

    for n in (10_000, 100_000):
        args = ["analyze", *map(str, range(2, 2 * n + 1, 2)), "--json"]
        joined = join_numbers(args)
        assert joined == ["analyze", " ".join(args[1:-1]), "--json"]
        data = json.loads(runner.invoke(app, joined).stdout)
        assert data["position"] == [2] and data["gcd"] == 2
