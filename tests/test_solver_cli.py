"""`sylver solve` from the command line: outputs, options, bad input, Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest


def run(*args: str, env_store: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``sylver ARGS`` in this process (start-up of a fresh interpreter costs seconds)."""
    import contextlib
    import io

    from sylver.cli import main

    old = os.environ.get("SYLVER_STORE")
    if env_store is not None:
        os.environ["SYLVER_STORE"] = str(env_store)
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main(list(args))
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
    finally:
        if env_store is not None:
            if old is None:
                os.environ.pop("SYLVER_STORE", None)
            else:
                os.environ["SYLVER_STORE"] = old
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


class TestSolveCommand:
    def test_human_output(self, tmp_path: Path) -> None:
        out = run("solve", "5", "18", env_store=tmp_path / "s.sqlite")
        assert out.returncode == 0, out.stderr
        assert "{5,18}: N" in out.stdout
        assert "winning moves: 14, 16, 17" in out.stdout
        assert "Frobenius number t = 67" in out.stdout
        assert "positions searched" in out.stdout and "peak memory" in out.stdout

    def test_json(self, tmp_path: Path) -> None:
        out = run("solve", "{16,20,28,35,54}", "--json", "--no-store")
        assert out.returncode == 0, out.stderr
        d = json.loads(out.stdout)
        assert d["position"] == [16, 20, 28, 35, 54]
        assert d["outcome"] == "P" and d["winning_moves"] == []
        assert d["frobenius_number"] == 113 and d["states"] >= 1 and d["seconds"] > 0

    def test_self_check_and_its_name_before(self) -> None:
        """--self-check (issue 52: "check" meant four things); --check, its name before, still
        works, after a one-line note."""
        out = run("solve", "12", "17", "--json", "--no-store", "--self-check")
        assert out.returncode == 0 and not out.stderr, out.stderr
        assert json.loads(out.stdout)["self_check"]["moves"] == [50, 105]
        old = run("solve", "12", "17", "--json", "--no-store", "--check")
        assert json.loads(old.stdout)["self_check"]["moves"] == [50, 105]
        assert old.stderr == ("sylver: note: `sylver solve --check` is deprecated: use "
                              "`sylver solve --self-check`\n")
        off = run("solve", "12", "17", "--json", "--no-store", "--no-check")
        assert json.loads(off.stdout)["self_check"] is None and "use `sylver solve --no-self-check`" in off.stderr
        both = run("solve", "12", "17", "--no-store", "--check", "--self-check")
        assert both.returncode == 2 and both.stderr.endswith(
            "sylver: error: --check is --self-check's name before: give --self-check alone\n")

    def test_first_and_store_reuse(self, tmp_path: Path) -> None:
        store = tmp_path / "s.sqlite"
        out = run("solve", "5,18", "--first", "--json", "--store", str(store))
        d = json.loads(out.stdout)
        assert d["winning_moves"] == [14] and not d["complete"]
        run("solve", "5,18", "--store", str(store))
        again = json.loads(run("solve", "5,18", "--json", "--store", str(store)).stdout)
        assert again["from_store"] and again["winning_moves"] == [14, 16, 17]

    def test_batch(self, tmp_path: Path) -> None:
        batch = tmp_path / "positions.txt"
        batch.write_text("4 5\n# a comment\n\n{5,14}\n4,6\nnot a position\n1\n")
        out = run("solve", "--batch", str(batch), "--json", "--no-store")
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        assert [d.get("winning_moves") for d in lines[:2]] == [[11], [18]]
        assert lines[2]["outcome"] == "P" and lines[2]["gcd"] == 2
        assert "not a positive integer" in lines[3]["error"]
        assert "game is over" in lines[4]["error"]
        assert out.returncode == 2

    def test_jobs(self, tmp_path: Path) -> None:
        out = run("solve", "12", "17", "--jobs", "2", "--json", "--store", str(tmp_path / "s.sqlite"))
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["winning_moves"] == [50, 105]

    def test_jobs_default_is_a_thread_per_core_for_gcd_1(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import sylver.executors
        import sylver.solver

        seen, real = [], sylver.solver.solve

        def spy(pos, **options):  # noqa: ANN001, ANN003, ANN202 - a stand-in for solve()
            seen.append(options["jobs"])
            return real(pos, **options)

        monkeypatch.setattr(sylver.solver, "solve", spy)
        monkeypatch.setattr(sylver.executors, "default_jobs", lambda: 3)
        outs = [run("solve", *args, "--json", "--no-store") for args in (["12", "17"], ["4", "6"], ["12", "17", "-j", "1"])]
        assert all(o.returncode == 0 for o in outs), [o.stderr for o in outs]
        assert seen == [3, 1, 1]  # threads for gcd 1; one process for gcd 2 (each worker costs memory)
        first, _, one = (json.loads(o.stdout) for o in outs)
        assert first["winning_moves"] == one["winning_moves"] == [50, 105]

    def test_memory_default_is_a_share_of_this_machine(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without --memory a solve gets 3/4 of the machine's memory (issue 31: 1G left positions
        undecided on a machine of 23 GB), at most what is available less 256M, at least 256M, and
        --help says how much that is here; --memory still sets it."""
        import psutil

        import sylver.machine as machine
        import sylver.solver
        from sylver.cli.solve import _memory_help

        assert 0 < machine.physical_memory() <= psutil.virtual_memory().total
        monkeypatch.setattr(machine, "physical_memory", lambda: 16 << 30)
        monkeypatch.setattr(machine, "available_memory", lambda: 20 << 30)
        assert machine.default_memory() == 12 << 30
        assert "Default: 3/4 of this machine's memory" in _memory_help() and "(12G here)" in _memory_help()
        monkeypatch.setattr(machine, "available_memory", lambda: 4 << 30)  # a busy machine
        assert machine.default_memory() == (4 << 30) - (256 << 20)
        assert "(3.8G here)" in _memory_help()
        monkeypatch.setattr(machine, "available_memory", lambda: 100 << 20)
        assert machine.default_memory() == 256 << 20
        monkeypatch.setattr(machine, "physical_memory", lambda: (6 << 30) + 12345)
        monkeypatch.setattr(machine, "available_memory", lambda: None)
        assert machine.default_memory() == 4608 << 20  # a whole number of 64M
        monkeypatch.setattr(machine, "physical_memory", lambda: None)
        assert machine.default_memory() == 1 << 30

        monkeypatch.setattr(machine, "physical_memory", lambda: 16 << 30)
        seen, real = [], sylver.solver.solve

        def spy(pos, **options):  # noqa: ANN001, ANN003, ANN202 - a stand-in for solve()
            seen.append(options["memory"])
            return real(pos, **{**options, "memory": 1 << 30})

        monkeypatch.setattr(sylver.solver, "solve", spy)
        outs = [run("solve", *args, "--json", "--no-store") for args in (["12", "17"], ["4", "6"], ["4", "6", "--memory", "1G"])]
        assert all(o.returncode == 0 for o in outs), [o.stderr for o in outs]
        assert seen == [12 << 30, 12 << 30, 1 << 30]

    def test_help_wraps_each_paragraph_at_the_terminal(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A command's description is one paragraph a line, wrapped at the terminal's width only (it
        also broke at the docstring's own line ends: "attempted with" / "a budget that")."""
        monkeypatch.setenv("COLUMNS", "300")
        out = run("campaign", "--help")
        assert out.returncode == 0, out.stderr
        assert "is attempted with a budget that grows when the attempt fails, cheapest first;" in out.stdout, out.stdout

    def test_memory_default_in_help(self) -> None:
        import re

        from sylver.machine import LEAST_DEFAULT, parse_memory, physical_memory

        out = run("solve", "--help")
        assert out.returncode == 0, out.stderr
        text = " ".join(out.stdout.replace("│", " ").split())
        assert "Default: 3/4 of this machine's memory, at most what it has available less 256M" in text
        here = re.search(r"\((\d+(?:\.\d)?[KMGT]) here\)", text)
        assert here is not None, text
        # what is available moves by a gigabyte in a second while other tests run (a reading before
        # and after the help's were both 3.96G, the help's 4.8G): the bounds, not this moment's value
        total = physical_memory() or 4 << 30
        assert 0.95 * LEAST_DEFAULT <= parse_memory(here.group(1)) <= 1.05 * total * 3 // 4

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["4", "6", "--odd-limit", "0"], "--odd-limit"),
            (["16", "72", "--time-limit", "30", "--certificate", "/tmp/x.json"], "--certificate is not available"),
            (["4", "x"], "not a positive integer"),
            ([], "give a position"),
            (["1"], "game is over"),
            (["4", "5", "--memory", "lots"], "invalid memory budget"),
            (["4", "5", "--jobs", "0"], "--jobs"),
            (["--batch", "/nonexistent/file"], "cannot read"),
            (["4", "5", "--time-limit", "nan"], "--time-limit must be a positive number of seconds"),
            (["4", "5", "--time-limit", "inf"], "--time-limit must be a positive number of seconds"),
            (["4,,5"], "a missing number between two separators"),
            (["{4,5"], "'{' is not closed by '}'"),
        ],
    )
    def test_bad_input(self, args: list[str], message: str) -> None:
        out = run("solve", *args, "--no-store")
        assert out.returncode == 2
        assert message in out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr

    @pytest.mark.parametrize("command", [["solve", "4", "5", "--no-store"], ["sweep", "4", "5", "--no-store"],
                                         ["campaign", "run", "8", "--dir", "/nonexistent/c"]])
    @pytest.mark.parametrize(("size", "message"), [
        ("lots", "--memory: invalid memory budget 'lots': use e.g. 512M or 4G"),
        ("10K", "--memory: memory budget '10K' is too small: at least 128K"),
    ])
    def test_one_memory_reader(self, command: list[str], size: str, message: str) -> None:
        """Every command's --memory is read by one callback (cli.common.memory_size): the same line."""
        out = run(*command, "--memory", size)
        assert out.returncode == 2 and out.stderr == f"sylver: error: {message}\n"

    @pytest.mark.clock  # (the search takes minutes: no machine finishes it in 0.3 s)
    def test_time_limit(self) -> None:
        out = run("solve", "16", "20", "28", "74", "273", "--no-store", "--time-limit", "0.3")
        assert out.returncode == 3 and "not solved within" in out.stderr

    def test_memory_far_too_small(self, tmp_path: Path) -> None:
        """One line and exit 2 within seconds, not minutes of recomputing lost results."""
        start = time.monotonic()
        out = run("solve", "16,20,28,35,54", "--memory", "256K", "--no-store")
        assert time.monotonic() - start < 30
        assert out.returncode == 2 and out.stdout == ""
        # the error; before it, on a busy machine, the notice of a solve that ran 2 s with full tables
        *notice, error = out.stderr.splitlines()
        assert error.startswith("sylver: error: memory budget 256K is far too small for {16,20,28,35,54}")
        assert "use --memory 64M or more" in error
        assert len(notice) <= 2 and all("tables are full" in line or "overwrit" in line for line in notice), notice
        assert "Traceback" not in out.stderr
        batch = tmp_path / "positions.txt"
        batch.write_text("16,20,28,35,54\n4 5\n")
        out = run("solve", "--batch", str(batch), "--json", "--memory", "256K", "--no-store")
        lines = [json.loads(line) for line in out.stdout.splitlines()]
        assert lines[0]["line"] == 1 and "far too small" in lines[0]["error"]
        assert lines[1]["winning_moves"] == [11]  # the next line is solved normally
        assert out.returncode == 2
        out = run("solve", "12,17", "--memory", "512K", "--no-store", "--json")
        assert out.returncode == 0 and json.loads(out.stdout)["winning_moves"] == [50, 105]

    def test_full_tables_said_while_solving(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A solve whose tables fill says so while it runs, once, on stderr (here at once: the
        notice waits 2 s of solving, set to 0), and its answer stays right."""
        import importlib

        monkeypatch.setattr(importlib.import_module("sylver.cli.solve"), "FULL_NOTICE_SECONDS", 0.0)
        out = run("solve", "12,17", "--memory", "512K", "--no-store", "--json")
        result = json.loads(out.stdout)
        assert out.returncode == 0 and result["saturated"] and result["winning_moves"] == [50, 105]
        notice = "the transposition tables are full (the --memory budget 512K) after "
        assert out.stderr.count(notice) == 1 and out.stderr.endswith("a larger --memory may help\n")
        assert out.stderr.count("\n") == 1  # one line, whatever the terminal's width

    def test_ctrl_c_prints_partial_result(self) -> None:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sylver", "solve", "20", "21", "--no-store"],  # minutes of search
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            _wait_for_cpu(proc.pid, 4.0)  # start-up (imports, JIT cache: about 2 s of CPU), then search
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:  # a failed assertion or timeout leaves no search running
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert proc.returncode == 130, stderr
        assert "interrupted after" in stdout and "losing moves so far" in stdout
        assert "Traceback" not in stderr

    def test_ctrl_c_with_jobs_stops_the_searches(self) -> None:
        """Ctrl-C in a terminal reaches the whole process group: partial result, exit 130, no wait
        for the searching threads."""
        proc = subprocess.Popen(
            [sys.executable, "-m", "sylver", "solve", "20", "21", "--no-store", "--jobs", "2"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        try:
            _wait_for_cpu(proc.pid, 4.0)  # start-up, then both threads search
            os.killpg(proc.pid, signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=30)
        finally:  # a failed assertion or timeout leaves no search (and no worker) running
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
        assert proc.returncode == 130, stderr
        assert "interrupted after" in stdout
        assert "Traceback" not in stderr


def _wait_for_cpu(pid: int, seconds: float, timeout: float = 180.0) -> None:
    """Wait until process ``pid`` has used ``seconds`` of CPU (a loaded machine slows the wall
    clock, not the work a process must do before it searches)."""
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:
            return
        time.sleep(0.1)


class TestCertificateInTheStore:
    """`sylver solve --certificate FILE` with a results store records the certificate there too, so
    that a campaign or the web page takes it from the store (issue 31): a researcher's long solve
    is not done again for its proof."""

    @pytest.mark.parametrize("gens", [["5", "18"], ["6", "9"], ["4", "6"]])
    def test_recorded_beside_the_result(self, gens: list[str], tmp_path: Path) -> None:
        from sylver.position import Position
        from sylver.store.results import Store

        db, cert = tmp_path / "store.sqlite", tmp_path / "c.json"
        out = run("solve", *gens, "--store", str(db), "--certificate", str(cert))
        assert out.returncode == 0, out.stderr
        store = Store(db)
        position = Position.parse(",".join(gens))
        assert store.get(position) is not None
        assert store.has_certificate(position)
        copy = tmp_path / "copy.json"
        assert store.certificate_file(position, copy)
        assert json.loads(copy.read_text())["position"] == json.loads(cert.read_text())["position"]
        verify = run("verify", str(copy))
        assert verify.returncode == 0 and "valid" in verify.stdout

    @pytest.mark.parametrize("gens", [["11", "14"], ["8", "10", "22"]], ids=["gcd 1", "g = 2"])
    def test_a_status_line_while_it_is_built(self, gens: list[str], tmp_path: Path, on_terminal: Any) -> None:
        """On a terminal, a status line on stderr while the certificate is built (none in a pipe);
        the certificate is written all the same."""
        from sylver.proof.certificate import verify_path

        cert, piped = tmp_path / "c.json", tmp_path / "p.json"
        out, shown = on_terminal(["solve", *gens, "--no-store", "-j", "1", "--certificate", str(cert)])
        assert out.returncode == 0 and b"building the certificate" in shown, shown
        plain = run("solve", *gens, "--no-store", "-j", "1", "--certificate", str(piped))
        assert plain.returncode == 0 and "building" not in plain.stderr
        assert verify_path(str(cert)).head == verify_path(str(piped)).head

    def test_not_without_a_store(self, tmp_path: Path) -> None:
        cert = tmp_path / "c.json"
        out = run("solve", "5", "18", "--no-store", "--certificate", str(cert))
        assert out.returncode == 0 and cert.exists()
        assert not (tmp_path / "store.sqlite").exists()


class TestSweep:
    """`sylver sweep`: a search for one winning reply, the replies leaving gcd 1 in order, one table."""

    def test_finds_a_winning_reply(self, tmp_path: Path) -> None:
        r = run("sweep", "10", "16", "--store", str(tmp_path / "s.sqlite"))
        assert r.returncode == 0, r.stderr
        assert "{10,16} is N: 9 wins ({9,10,16} is P)" in r.stdout
        assert "sylver solve 9 10 16 --certificate FILE" in " ".join(r.stdout.split())
        again = run("sweep", "10", "16", "--store", str(tmp_path / "s.sqlite"), "--json")
        data = json.loads(again.stdout)
        assert data["winning"] == [9] and data["states"] == 0 and data["complete"]  # from the store

    def test_none_wins_and_every_reply(self) -> None:
        r = run("sweep", "10", "14", "--no-store", "--up-to", "41", "--json")
        data = json.loads(r.stdout)
        assert r.returncode == 0 and data["winning"] == [] and data["complete"]
        assert data["replies"] == 20 and set(data["decided"].values()) == {"N"}
        logged = [line for line in r.stderr.splitlines() if " is N  (" in line]  # a line a reply, even with --json
        assert len(logged) == 20 and logged[0].startswith(f"{data['order'][0]}: ")
        told = [re.search(r"\(\+([\d,]+) states, ([\d,]+) in all", line) for line in logged]
        own = [int(m[1].replace(",", "")) for m in told if m]  # each reply's own states, and the sweep's
        assert len(own) == 20 and sum(own) == int(told[-1][2].replace(",", "")) == data["states"], logged
        every = json.loads(run("sweep", "10", "12", "--no-store", "--all", "--order", "ascending", "--json").stdout)
        assert 7 in every["winning"] and len(every["decided"]) == every["replies"]

    def test_rounds(self) -> None:
        """--rounds: each reply a few states first, the replies left more each round; the same
        answer as one at a time, each round logged."""
        from sylver.solver.engine import ENGINE

        plain = json.loads(run("sweep", "14", "20", "--no-store", "--up-to", "59", "--json").stdout)
        ENGINE.clear()  # (the commands run in this process: its tables would answer at once)
        r = run("sweep", "14", "20", "--no-store", "--up-to", "59", "--rounds", "200", "--json")
        data = json.loads(r.stdout)
        assert r.returncode == 0 and data["decided"] == plain["decided"] and data["rounds"] > 1, r.stderr
        assert plain["rounds"] == 0 and "round 2: " in r.stderr and "200 states each" in r.stderr
        assert "800 states each" in r.stderr  # 4 times more in the next round
        won = json.loads(run("sweep", "12", "22", "28", "--no-store", "--rounds", "1K", "--json").stdout)
        assert won["winning"] == [27] and won["complete"]

    def test_last(self) -> None:
        """--last R,...: those replies decided after all the others (the winning reply a plain sweep
        finds first, 9 against {10,16}, deferred: another is found, or it is found last)."""
        plain = json.loads(run("sweep", "10", "16", "--no-store", "--up-to", "41", "--json").stdout)
        assert plain["winning"] == [9]
        r = run("sweep", "10", "16", "--no-store", "--up-to", "41", "--last", "9,3", "--json")
        data = json.loads(r.stdout)
        assert r.returncode == 0 and data["order"][-2:] == [3, 9], r.stderr  # their own order kept
        assert data["order"][:-2] == [x for x in plain["order"] if x not in (3, 9)]
        assert data["winning"] and data["winning"][0] != 3
        assert list(data["decided"]) == [str(x) for x in data["order"][: data["order"].index(data["winning"][0]) + 1]]

    def test_certificate_from_the_sweeps_tables(self, tmp_path: Path) -> None:
        """gcd 1: the proof that the position is N by the reply found; gcd 2: that the position after
        it is P.  `sylver verify` accepts both."""
        for words, proves in ((("7", "11", "13"), ([7, 11, 13], "N", [5])), (("10", "12"), ([7, 10, 12], "P", []))):
            cert = tmp_path / ("c" + "_".join(words) + ".json")
            r = run("sweep", *words, "--no-store", "--certificate", str(cert), "--json")
            assert r.returncode == 0 and json.loads(r.stdout)["certificate"] == str(cert), r.stderr
            v = json.loads(run("verify", str(cert), "--json").stdout)
            assert v["valid"] and (v["position"], v["outcome"], v["winning_moves"]) == proves, v
        none = run("sweep", "10", "14", "--no-store", "--up-to", "41", "--certificate", str(tmp_path / "n.json"))
        assert none.returncode == 0 and not (tmp_path / "n.json").exists()  # no reply wins: nothing to prove

    @pytest.mark.parametrize(("args", "message"), [
        (("10", "16", "--certificate", "/nonexistent/c.json"), "is not a writable directory"),
        (("10", "16", "--order", "random"), "--order must be one of ascending, frobenius"),
        (("10", "16", "--store", "a", "--no-store"), "contradict"),
        (("1",), "the game is over"),
        (("10", "16", "--up-to", "1"), "--up-to"),
        (("10", "16", "--rounds", "0"), "--rounds must be a positive number of states"),
        (("10", "16", "--rounds", "lots"), "--rounds must be a positive number of states"),
        (("10", "16", "--last", "9,x"), "--last takes replies separated by commas"),
        (("10", "16", "--last", "4"), "--last: 4 not among the sweep's replies"),
        (("10", "16", "--last", "9" * 40), "--last takes replies"),
        (("10", "16", "--last", "9,\u00b2"), "--last takes replies separated by commas"),  # a digit int() refuses
        (("x",), "sylver: error"),
    ])
    def test_bad_input(self, args: tuple[str, ...], message: str) -> None:
        r = run("sweep", *args)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr

    def test_root_order_of_solve(self) -> None:
        r = run("solve", "16", "38", "46", "72", "11", "--no-store", "--json")  # P: every move decided
        assert json.loads(r.stdout)["outcome"] == "P"
        r = run("solve", "10", "21", "--first", "--root-order", "frobenius", "--no-store", "--json")
        assert json.loads(r.stdout)["outcome"] == "N"
        r = run("solve", "10", "21", "--root-order", "frobenius", "-j", "2")
        assert r.returncode == 2 and "give -j 1" in r.stderr
