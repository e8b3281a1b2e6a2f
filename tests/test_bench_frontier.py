"""`bench/bench_frontier.py --replacement`: one search for a winning reply under each memory budget,
largest first, its states against the largest budget's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = [sys.executable, str(Path(__file__).resolve().parents[1] / "bench" / "bench_frontier.py")]


def test_the_replacement_rows_largest_budget_first() -> None:
    out = subprocess.run([*BENCH, "--replacement", "64M,256M", "--only", "9,14,19", "--time-limit", "120"],
                         capture_output=True, text=True, timeout=300, check=True).stdout.splitlines()
    assert out[0].startswith("# replacement:") and out[1].startswith("# ") and "no results store" in out[1]
    rows = [r.split() for r in out if r.startswith("{9,14,19}")]
    assert [r[1] for r in rows] == ["256M", "64M"], out  # the reference (largest) first
    assert all(r[2] == rows[0][2] and r[2].isdigit() for r in rows), out  # the same winning reply found
    assert rows[0][4] == "1.00", out


def test_a_name_is_not_a_position_for_replacement() -> None:
    bad = subprocess.run([*BENCH, "--replacement", "64M", "--only", "T"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and bad.stderr.strip().endswith("not 'T'"), bad.stderr
