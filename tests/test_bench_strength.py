"""The time-odds match of bench/bench_strength.py (issue 35): each side plays in a process of its own
(the arena's), with its own solver tables and its own per-call limit."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from sylver.arena.host import Adapter
from sylver.arena.rules import preset
from sylver.arena.specs import BotSpec, parse_spec, parse_specs
from sylver.arena.tournament import Config, run_tournament
from sylver.position import Termination

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "tests" / "data" / "bots" / "engine_probe.py"
sys.path.insert(0, str(ROOT / "bench"))

from bench_strength import odds_config, suite_dir, tournament  # noqa: E402 - bench/ is not a package


def test_one_side_never_sees_what_the_other_solved() -> None:
    """Seat 0 solves {11,13} (62 entries in its table) and passes; seat 1, in its own process, finds its
    table empty, solves and passes; seat 0's table is not empty at its second move: it is the one that
    raises (were the tables shared, seat 1 would raise at ply 1).  Seat 0 is told its own 3 s a call,
    not the rules' 20 s."""
    probe = parse_spec(f"{PROBE}:EngineProbe")
    specs = [dataclasses.replace(probe, name="a", move_time=3.0), dataclasses.replace(probe, name="b")]
    rules = dataclasses.replace(preset("koth"), random_start=None, start=(11, 13))
    config = Config(specs, rules, rounds=1, seed=1, pairs=[(0, 1)], unsafe_no_sandbox=True)
    first = run_tournament(config, None, concurrency=1).records[0]
    assert first.players == ("a", "b") and first.reason is Termination.CRASH, first
    assert len(first.moves) == 2 and first.winner == "b", first
    assert "table held 62 entries; time left 3.0" in first.detail, first.detail


def test_each_side_is_perfect_with_its_own_limit_and_think() -> None:
    """The match's specs: perfect twice, named short and long, each told and thinking its own seconds
    a call; a plan written with them reads back the same."""
    config = odds_config((2.0, 20.0), pairs=3, seed=5)
    short, long = config.specs  # type: ignore[attr-defined]
    assert (short.name, short.target, short.move_time, short.options) == ("short", "perfect", 2.0, (("think", 2.0),))
    assert (long.name, long.move_time, long.options) == ("long", 20.0, (("think", 20.0),))
    assert BotSpec.from_json(long.to_json()) == long
    assert len(config.openings.starts) == 3  # type: ignore[attr-defined]
    host = Adapter(long.to_json(), 1)
    assert host.ensure_instance() is None and host.instance.think == 20.0  # type: ignore[attr-defined]


def test_a_results_directory_of_another_run_is_refused_in_one_line(tmp_path: Path) -> None:
    """Rerun on the same --out with other --rounds: one line naming the directory, no traceback; the
    same run again resumes (plays nothing more)."""
    rules = dataclasses.replace(preset("koth"), random_start=None, start=(5, 7))
    config = Config(parse_specs(["random", "greedy"]), rules, rounds=1, seed=1, pairs=[(0, 1)])
    first = tournament(config, tmp_path, concurrency=1)
    assert len(first.records) == 2  # type: ignore[attr-defined]
    again = tournament(config, tmp_path, concurrency=1)
    assert [r.moves for r in again.records] == [r.moves for r in first.records]  # type: ignore[attr-defined]
    with pytest.raises(SystemExit) as refused:
        tournament(dataclasses.replace(config, rounds=2), tmp_path, concurrency=1)
    text = str(refused.value)
    assert text.startswith("bench_strength: error: ") and str(tmp_path) in text and "\n" not in text


def test_a_suite_files_results_stay_in_out(tmp_path: Path) -> None:
    """A suite given as a file's path names its results directories by the file's name, so that they
    go into ``--out``, not beside the file."""
    assert suite_dir("koth:50") == "koth-50" and suite_dir("opening16") == "opening16"
    suite = tmp_path / "starts" / "blunders.txt"
    assert suite_dir(str(suite)) == "blunders" and suite_dir("blunders.txt") == "blunders"
    out = tmp_path / "out"
    assert (out / f"{suite_dir(str(suite))}-bestBot").parent == out
