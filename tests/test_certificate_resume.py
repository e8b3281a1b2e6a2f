"""A gcd-1 certificate build that is cut (its time limit, Ctrl-C, kill -9) resumes from its partial
file ``FILE.part`` (issue 31): the nodes it kept are not proved again, and the file it ends with is
a certificate that the checker accepts."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest

from sylver.position import Position
from sylver.proof.build import (
    build_certificate,
    claimed,
    stream_certificate,
    stream_gcd_certificate,
    write_certificate,
)
from sylver.proof.certificate import verify_path
from sylver.solver import solve
from sylver.solver.engine import ENGINE

CASES = [("16,20,28,35,54", False), ("12,17", True), ("11,14", False)]
"""P complete (15,559 nodes, root replies in the header), N not complete (winning moves only: 4,676
nodes), N complete (1,721 nodes)."""


def fresh_solve(text: str, first: bool = False) -> Any:
    """The solve of ``text`` from empty tables and move-ordering hints (two builds from it find the
    same replies)."""
    ENGINE.clear()
    ENGINE.stack.clear_ordering()
    return solve(Position(text), first=first, store=None)


def cut_after(k: int) -> Any:
    """A ``tick`` that cuts the build, as its time limit does, once k nodes are written."""

    def tick(nodes: int) -> None:
        if nodes >= k:
            raise TimeoutError("cut")

    return tick


def kept(part: Path) -> int:
    """The node lines of a partial file that a resumed build keeps: each line followed by ",\\n"
    (the last may be cut short, and is proved again)."""
    return kept_lines(part.read_bytes())


def kept_lines(data: bytes) -> int:
    """:func:`kept` of a partial file's bytes."""
    return data.count(b",\n")


def resume(sol: Any, path: Path) -> list[int]:
    """Build the certificate of ``sol`` to ``path``, resuming; what ``resumed`` was told; check it."""
    kept: list[int] = []
    nodes, size = stream_certificate(sol, path, resumed=kept.append)
    checked = verify_path(str(path))
    assert checked.nodes == nodes and path.stat().st_size == size
    head = json.loads(path.read_text())
    assert head["position"] == list(sol.position.generators) and head["outcome"] == sol.outcome.value
    assert head["complete"] == sol.complete and not Path(f"{path}.part").exists()
    return kept


class TestResume:
    @pytest.mark.parametrize(("text", "first"), CASES)
    def test_cut_at_several_points(self, text: str, first: bool, tmp_path: Path) -> None:
        """Cut after the first batch, in the middle, just before the end: the partial file is kept
        (the error says so), and the next build keeps its nodes but the last line."""
        sol = solve(Position(text), first=first, store=None)
        total, _ = stream_certificate(sol, tmp_path / "whole.json")
        path = tmp_path / "c.json"
        for k in (1, total // 2, total - 200):
            with pytest.raises(TimeoutError, match=r"c\.json\.part kept"):
                stream_certificate(sol, path, tick=cut_after(k))
            lines = kept(path.with_name("c.json.part"))
            assert lines + 1 >= k
            assert resume(sol, path) == [lines]
            path.unlink()

    def test_the_time_limit_keeps_the_part(self, tmp_path: Path) -> None:
        sol = solve(Position("16,20,28,35,54"), store=None)
        path = tmp_path / "c.json"
        with pytest.raises(TimeoutError, match="time limit"):
            stream_certificate(sol, path, time_limit=1e-6)
        part = path.with_name("c.json.part")
        assert part.exists() and not path.exists()
        expected = [kept(part)] if part.read_bytes().count(b"\n") else []  # the header is written
        assert resume(sol, path) == expected

    def test_ctrl_c_keeps_the_part_other_failures_do_not(self, tmp_path: Path) -> None:
        sol = solve(Position("12,17"), first=True, store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"

        def interrupt(nodes: int) -> None:
            raise KeyboardInterrupt

        def fail(nodes: int) -> None:
            raise RuntimeError("a bug")

        with pytest.raises(KeyboardInterrupt):
            stream_certificate(sol, path, tick=interrupt)
        assert part.exists()
        with pytest.raises(RuntimeError):
            stream_certificate(sol, path, tick=fail)
        assert list(tmp_path.iterdir()) == []

    def test_cut_twice_in_a_row(self, tmp_path: Path) -> None:
        """A resumed build counts its nodes from those kept (``tick`` too), and can be cut and
        resumed again."""
        sol = solve(Position("16,20,28,35,54"), store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=cut_after(3000))
        first = kept(part)
        ticks: list[int] = []

        def tick(nodes: int) -> None:
            ticks.append(nodes)
            cut_after(9000)(nodes)

        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=tick)
        second = kept(part)
        assert first < ticks[0] <= first + 256 and second + 1 >= 9000
        assert resume(sol, path) == [second]

    @pytest.mark.parametrize("chop", [1, 7, 40], ids=["a byte", "in the last line", "across lines"])
    def test_a_part_cut_short(self, chop: int, tmp_path: Path) -> None:
        """kill -9 leaves the file as far as it was written: anywhere in a line."""
        sol = solve(Position("16,20,28,35,54"), store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=cut_after(5000))
        data = part.read_bytes()
        last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
        cut = len(data) - (chop if chop < 40 else len(last) + 60)
        part.write_bytes(data[:cut])
        assert resume(sol, path) == [data[:cut].count(b",\n")]

    def test_a_header_cut_short(self, tmp_path: Path) -> None:
        sol = solve(Position("11,14"), store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=cut_after(1))
        part.write_bytes(part.read_bytes()[:30])
        assert resume(sol, path) == []  # built from nothing

    def test_only_the_header(self, tmp_path: Path) -> None:
        sol = solve(Position("11,14"), store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=cut_after(1))
        part.write_bytes(part.read_bytes().split(b"\n", 1)[0] + b"\n")
        assert resume(sol, path) == [0]


class TestNotResumed:
    def test_a_part_of_another_answer(self, tmp_path: Path) -> None:
        """The partial file of another position, or of another answer of the same position (its
        winning moves only), is replaced by a build from nothing."""
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(solve(Position("11,14"), store=None), path, tick=cut_after(1000))
        assert resume(solve(Position("12,17"), first=True, store=None), path) == []
        with pytest.raises(TimeoutError):
            stream_certificate(solve(Position("12,17"), store=None), path, tick=cut_after(1000))
        assert part.exists()
        assert resume(solve(Position("12,17"), first=True, store=None), path) == []

    @pytest.mark.parametrize("damage", [b"[[5,9],[x]],\n", b"[[5,9],[2]],\n", b"[[4,6],[]],\n"],
                             ids=["not JSON", "replies do not fit", "gcd 2"])
    def test_a_line_that_is_not_a_node(self, damage: bytes, tmp_path: Path) -> None:
        """A part whose lines are not nodes of its position is not resumed from: built anew."""
        sol = solve(Position("16,20,28,35,54"), store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=cut_after(2000))
        head, rest = part.read_bytes().split(b"\n", 1)
        part.write_bytes(head + b"\n" + damage + rest)
        assert resume(sol, path) == []

    @pytest.mark.parametrize(("text", "first"), CASES)
    def test_an_uninterrupted_build_is_unchanged(self, text: str, first: bool, tmp_path: Path) -> None:
        """Without a partial file (or with one of another answer) the file is the in-memory
        builder's, byte for byte."""
        ref = tmp_path / "ref.json"
        write_certificate(build_certificate(fresh_solve(text, first)), ref)
        stream_certificate(fresh_solve(text, first), tmp_path / "a.json")
        assert (tmp_path / "a.json").read_bytes() == ref.read_bytes()
        (tmp_path / "b.json.part").write_text('{"format":"sylver-certificate","position":[2,3],"nodes":[\n')
        stream_certificate(fresh_solve(text, first), tmp_path / "b.json")
        assert (tmp_path / "b.json").read_bytes() == ref.read_bytes()


def test_the_command_says_it_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``sylver solve … --certificate F`` resumes from ``F.part`` without an option, and says so."""
    from sylver.cli import main

    monkeypatch.chdir(tmp_path)
    with pytest.raises(TimeoutError):
        stream_certificate(solve(Position("16,20,28,35,54"), store=None), Path("c.json"), tick=cut_after(3000))
    lines = kept(tmp_path / "c.json.part")
    with pytest.raises(SystemExit) as stop:
        main(["solve", "16", "20", "28", "35", "54", "--no-store", "--certificate", "c.json"])
    out = " ".join(capsys.readouterr().out.split())
    assert stop.value.code == 0 and f"; resumed from c.json.part: {lines:,} nodes kept)" in out, out
    assert verify_path(str(tmp_path / "c.json")).nodes > lines  # (which nodes: the replies in the tables)


class TestOneBuildAtATime:
    """Two builds of the same certificate at once (a second terminal, a campaign beside a solve)
    would write into one partial file: the second fails at once and leaves the file alone."""

    def test_a_second_gcd1_build_is_refused(self, tmp_path: Path) -> None:
        sol = solve(Position("16,20,28,35,54"), store=None)
        path, part = tmp_path / "c.json", tmp_path / "c.json.part"
        with pytest.raises(TimeoutError):
            stream_certificate(sol, path, tick=cut_after(2000))
        before = part.read_bytes()
        with claimed(part, resume_at=len(before)):
            with pytest.raises(OSError, match=r"another build is writing .*c\.json\.part now") as refused:
                stream_certificate(sol, path)
            assert refused.value.errno == errno.EBUSY
            assert part.read_bytes() == before and not path.exists()
        assert resume(sol, path) == [kept_lines(before)]  # once it is free, the build resumes

    def test_a_second_gcd_build_is_refused(self, tmp_path: Path) -> None:
        """The same for a g > 1 certificate's node file ``FILE.nodes.part``."""
        sol = solve(Position("6,8"), store=None)
        path, nodes = tmp_path / "c.json", tmp_path / "c.json.nodes.part"
        with claimed(nodes) as fh:
            fh.write("mine")
            fh.flush()
            with pytest.raises(OSError, match="another build is writing"):
                stream_gcd_certificate(sol, path)
            assert nodes.read_text() == "mine" and not path.exists()
        stream_gcd_certificate(sol, path)
        assert verify_path(str(path)).head["outcome"] == "N" and not nodes.exists()

    def test_the_command_says_so(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
        from sylver.cli import main

        monkeypatch.chdir(tmp_path)
        with claimed(tmp_path / "c.json.part"):
            with pytest.raises(SystemExit) as stop:
                main(["solve", "11", "14", "--no-store", "--certificate", "c.json"])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and "another build is writing c.json.part now" in " ".join(err.split()), err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
