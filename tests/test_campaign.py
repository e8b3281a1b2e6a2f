"""Campaigns (`sylver campaign`): the ledger on small roots whose trees are known (Sicherman 2002,
sec. 2: 4 loses to 6, 6 to 4 and 9, 8 to 12 and 14), certificates composed from children and checked
by the independent verifier, kill -9 and resume, a Dask cluster that loses a worker, bad input."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
import shlex
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from sylver.campaign import Campaign, Ledger, Options, tree
from sylver.campaign.report import ledger_data, markdown
from sylver.position import Outcome, Position
from sylver.proof.certificate import CertificateError, verify_any, verify_file
from sylver.store.results import Store


def campaign(tmp: Path, root: str, **options: object) -> tuple[Ledger, Store, dict]:
    store = Store(tmp / "store.sqlite")
    ledger = Ledger.create(tmp / "c", Position.parse(root), budget=float(options.get("first_budget", 2.0)),
                           store=str(store.path))
    opts = Options(**{"jobs": 1, "memory": 1 << 30, **options})  # type: ignore[arg-type]
    summary = Campaign(ledger, store, opts).work()
    return ledger, store, summary


def verified(ledger: Ledger) -> int:
    """Check every certificate file of the campaign; return how many."""
    files = sorted((ledger.directory / "certificates").glob("*.json"))
    for f in files:
        verify_file(str(f))
    return len(files)


class TestTree:
    def test_kinds(self) -> None:
        assert tree.kind(Position.parse("4,5")) is tree.Kind.GCD1
        assert tree.kind(Position.parse("16,38")) is tree.Kind.SHORT
        assert tree.kind(Position.parse("16")) is tree.Kind.COMPOSITE
        assert tree.kind(Position.parse("8,10,22")) is tree.Kind.LONG

    def test_obligations_of_16_38(self) -> None:
        """{16,38} = 2·{8,19}: the odd moves up to t = 125 and the 63 even moves 2y, y a gap of {8,19}."""
        moves = tree.moves(Position.parse("16,38"))
        assert [x for x in moves if x % 2] == list(range(3, 126, 2))
        assert len([x for x in moves if x % 2 == 0]) == 63
        odd_left = [x for x in moves if x % 2 and not tree.theorem_n(Position.parse("16,38").play(x))]
        assert {85, 87, 93, 101, 109, 117, 125} <= set(odd_left)

    def test_theorems(self) -> None:
        assert tree.theorem_n(Position.parse("4,5"))  # a coprime pair: an ender
        assert tree.theorem_n(Position.parse("10,15"))  # g = 5, not {5}: 5 wins
        assert not tree.theorem_n(Position.parse("5"))
        assert not tree.theorem_n(Position.parse("2,3"))


@pytest.fixture(autouse=True)
def _no_results_book(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bare stores (and workers): the results book decides many of these small roots ({8} is the reply 8
    to 16) at once; tests/test_book.py tests a campaign with a book."""
    monkeypatch.setenv("SYLVER_BOOK", "off")


class TestSmallRoots:
    @pytest.mark.parametrize(("root", "winners"), [("4", {6}), ("6", {4, 9}), ("8", {12, 14})])
    def test_opening_loses_as_the_paper_says(self, tmp_path: Path, root: str, winners: set[int]) -> None:
        ledger, store, summary = campaign(tmp_path, root)
        assert summary["status"] == "N" and summary["winning"] in winners and summary["certified"]
        rec = store.get(Position.parse(root))
        assert rec is not None and rec.winning_moves[0] in winners
        assert store.certificate(Position.parse(root))["outcome"] == "N"
        assert verified(ledger) >= 1

    def test_a_line_to_try_first(self, tmp_path: Path) -> None:
        """--try 14,12 from {8}: {8,14} is expanded at once (no attempt of its own) and {8,12,14} is
        the first position attempted after the root; {8} is then N through 14, certified.  A bare
        store: the results book decides {8} (the reply 8 to 16)."""
        store = Store(tmp_path / "store.sqlite", book=False)
        ledger = Ledger.create(tmp_path / "c", Position.parse("8"), budget=2.0, store=str(store.path))
        ledger.add_lines([(14, 12)])
        ledger.add_lines([(14, 12)])
        assert ledger.lines == [(14, 12)]
        summary = Campaign(ledger, store, Options(jobs=1, memory=1 << 30)).work()
        tried = [a["position"] for a in ledger.attempts() if a["result"] != "theorem"]
        assert tried[0] == "8,12,14" and "8,14" not in tried and "8" not in tried
        assert summary["status"] == "N" and summary["winning"] == 14 and summary["certified"]
        assert verified(ledger) >= 1

    def test_only_a_line(self, tmp_path: Path) -> None:
        """--only 10 from {8}: {8,10} (N: 22 answers it, {8,10,22} is P, sec. 2) and what it rests on
        are the only nodes attempted; then nothing is left to try, and {8} stays open."""
        store = Store(tmp_path / "store.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("8"), budget=2.0, store=str(store.path))
        ledger.add_lines([(10,)])
        # one state a first attempt: {8,10} is decided by its children on any machine (either way, the
        # assertions hold: only the line is attempted)
        summary = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_states=1, only=((10,),))).work()
        tried = {a["position"] for a in ledger.attempts() if a["result"] != "theorem"}
        assert tried and all(p.startswith("8,10") for p in tried), tried
        assert ledger.node(Position.parse("8,10")).status == "N"
        assert summary["status"] == "open"

    def test_only_a_decided_line_builds_its_certificate(self, tmp_path: Path) -> None:
        """--only on a node decided by a solve whose certificate is still to be built: that build is
        all there is to do, not the open nodes below it, which matter to the root only through
        other open nodes ({8,10,12}, below {8,12} too)."""
        store = Store(tmp_path / "store.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("8"), budget=2.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, only=((10,),)))
        for p in ("8", "8,10", "8,12"):
            work.expand(ledger.node(Position.parse(p)))
        assert Position.parse("8,10,12") in [c for _, c in ledger.children(Position.parse("8,12"))]
        ledger.decide(Position.parse("8,10"), status="N", winning=22, method="solve", states=1, seconds=1.0,
                      peak_bytes=0, certificate="", note="")
        assert [n.position.braces() for n in work.frontier(set())] == ["{8,10}"]
        everything = {n.position.braces() for n in Campaign(ledger, store, Options(jobs=1, memory=1 << 30)).frontier(set())}
        assert "{8,10}" in everything and "{8,10,12}" not in everything  # (below {8,12}: test_only_what_can_help_its_parent)

    def test_only_what_can_help_its_parent(self, tmp_path: Path) -> None:
        """{8} (composite) is N when one reply leaves P, and P only by a search: its children help
        only by being P.  {8,12} (composite) is then attempted by nothing, and its children, which
        could only prove it N, are left alone; the obligations of the short {8,6} (P when each is
        N) are all attempted."""
        store = Store(tmp_path / "store.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("8"), budget=2.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30))
        for p in ("8", "8,12", "6,8"):
            work.expand(ledger.node(Position.parse(p)))
        chosen = {n.position for n in work.frontier(set())}
        below_12 = {c for _, c in ledger.children(Position.parse("8,12"))}
        below_6 = {c for _, c in ledger.children(Position.parse("6,8")) if not ledger.node(c).decided}
        replies = {c for _, c in ledger.children(Position.parse("8"))}
        assert below_12 - below_6 - replies and below_6 <= chosen
        assert not (below_12 - below_6 - replies) & chosen
        assert Position.parse("8,12") not in chosen

    def test_only_a_line_towards_the_root(self, tmp_path: Path) -> None:
        """--only 12 from {8}: {8,12} (composite) helps {8} only by being P, which no attempt at its
        children can prove: once it is expanded (and so left to them), nothing is to be tried."""
        store = Store(tmp_path / "store.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("8"), budget=2.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, only=((12,),)))
        assert work.helping(()) == frozenset("PN") and work.helping((12,)) == frozenset("P")
        assert work.helping((10, 3)) == frozenset("N")  # {8,10} short: P when {3,8,10} is N
        work.expand(ledger.node(Position.parse("8")))
        assert [n.position for n in work.frontier(set())] == [Position.parse("8,12")]
        work.expand(ledger.node(Position.parse("8,12")))
        assert work.frontier(set()) == []

    def test_what_helps(self) -> None:
        both, p, n = frozenset("PN"), frozenset("P"), frozenset("N")
        assert tree.helps(tree.Kind.SHORT, both) == both
        assert tree.helps(tree.Kind.SHORT, p) == n and tree.helps(tree.Kind.SHORT, n) == p
        for k in (tree.Kind.LONG, tree.Kind.COMPOSITE):
            assert tree.helps(k, both) == tree.helps(k, n) == p
            assert tree.helps(k, p) == frozenset()

    def test_root_decided_by_its_children(self, tmp_path: Path) -> None:
        """{8,14} (P, sec. 2) with a first attempt of one state, too few for one solve on any
        machine: expanded into its obligations, each N, and the root's certificate composed from
        theirs."""
        ledger, store, summary = campaign(tmp_path, "8,14", first_states=1)
        assert summary["status"] == "P" and summary["certified"]
        root = ledger.node(Position.parse("8,14"))
        assert root is not None and root.method == "children" and root.expanded
        kids = ledger.children(root.position)
        assert [x for x, _ in kids] == sorted(tree.moves(root.position))
        assert all(ledger.node(c).status == "N" for _, c in kids)
        lines = verify_file(str(ledger.directory / root.certificate))
        assert lines[0] == "{8,14} is P: proven"
        assert store.get(root.position).outcome.value == "P"
        verified(ledger)

    def test_states_grow_with_the_budget(self, tmp_path: Path) -> None:
        """``first_states``: a node's first attempt may search that many states, each later one as
        many more as its budget is larger; an attempt at a certificate alone, any number."""
        store = Store(tmp_path / "store.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("8,14"), budget=2.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_states=10))
        root = ledger.node(Position.parse("8,14"))
        assert work.states(root) == 10
        ledger.record_attempt(root.position, budget=2.0, started=time.time(), seconds=0.1, result="open", states=10,
                              peak_bytes=0, worker="w", note="not decided within 10 states", next_budget=8.0)
        assert work.states(ledger.node(root.position)) == 40
        ledger.decide(root.position, status="P", winning=None, method="solve", states=1, seconds=1.0,
                      peak_bytes=0, certificate="", note="")
        assert work.states(ledger.node(root.position)) is None
        assert Campaign(ledger, store, Options(jobs=1, memory=1 << 30)).states(root) is None

    def test_composed_from_the_childrens_files(self, tmp_path: Path) -> None:
        """The certificate of a node decided by its children holds each of their gcd-1 nodes once
        (those of several children merged), their claims and the proofs of its obligations'
        replies: as the in-memory composition did, streamed from file to file."""
        ledger, _, _ = campaign(tmp_path, "8,14", first_states=1)
        root = ledger.node(Position.parse("8,14"))
        cert = json.loads((ledger.directory / root.certificate).read_text())
        nodes, claims, lines = set(), set(), 0
        for _, c in ledger.children(root.position):
            kid = ledger.node(c)
            if kid.method == "theorem":
                continue
            sub = json.loads((ledger.directory / kid.certificate).read_text())
            lines += len(sub.get("nodes", []))
            nodes |= {tuple(n[0]) for n in sub.get("nodes", [])}
            claims |= {tuple(n[0]) for n in sub.get("claims", [])}
        got = [tuple(n[0]) for n in cert["nodes"]]
        assert len(got) == len(set(got)) and set(got) == nodes and lines > len(nodes)  # some shared
        assert {tuple(n[0]) for n in cert["claims"]} == claims
        assert (ledger.directory / root.certificate).read_text().count("\n") == 3 + len(claims) + len(got)  # an item a line
        assert verify_file(str(ledger.directory / root.certificate))[0] == "{8,14} is P: proven"

    def test_a_tampered_certificate_is_refused(self, tmp_path: Path) -> None:
        ledger, _, _ = campaign(tmp_path, "8,14", first_states=1)  # decided by its children on any machine
        cert = json.loads((ledger.directory / ledger.node(Position.parse("8,14")).certificate).read_text())
        verify_any(cert)
        bad = copy.deepcopy(cert)
        i = next(i for i, r in enumerate(bad["root_replies"]) if r and r > 0)
        bad["root_replies"][i] += 1
        with pytest.raises(CertificateError):
            verify_any(bad)
        bad = copy.deepcopy(cert)
        bad["nodes"] = bad["nodes"][1:]
        with pytest.raises(CertificateError):
            verify_any(bad)

    def test_ledger_as_json_and_markdown(self, tmp_path: Path) -> None:
        ledger, _, _ = campaign(tmp_path, "8", first_states=1)  # the root expanded: its children listed
        data = ledger_data(ledger)
        assert data["summary"]["status"] == "N" and data["nodes"][0]["why"] == "root"
        w = data["summary"]["winning"]
        kid = next(n for n in data["nodes"] if n["position"] == list(Position([8, w]).generators))
        assert kid["why"] == f"{{8}} + {w}" and kid["status"] == "P"
        text = markdown(ledger)
        assert f"| {{8}} | root | N | {w} |" in text

    def test_the_store_answers_a_second_campaign(self, tmp_path: Path) -> None:
        campaign(tmp_path, "8,14", first_states=1)
        store = Store(tmp_path / "store.sqlite")
        ledger = Ledger.create(tmp_path / "again", Position.parse("8,14"), budget=2.0, store=str(store.path))
        summary = Campaign(ledger, store, Options(jobs=1, memory=1 << 30)).work()
        assert summary["status"] == "P" and ledger.node(Position.parse("8,14")).method == "store"
        assert ledger.attempts() == []


def sylver(*args: str, **kw: object) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sylver", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)  # type: ignore[call-overload]


def decided(directory: Path) -> set[str]:
    try:
        with sqlite3.connect(directory / "ledger.sqlite") as db:
            return {r[0] for r in db.execute("SELECT position FROM nodes WHERE status IN ('P', 'N') "
                                             "AND method != 'theorem'")}
    except sqlite3.Error:
        return set()


def test_kill_9_loses_only_the_attempt_in_progress(tmp_path: Path) -> None:
    d, store = tmp_path / "c", tmp_path / "s.sqlite"
    proc = sylver("campaign", "run", "8", "14", "--dir", str(d), "--store", str(store), "--first-states", "1",
                  "-j", "1")
    deadline = time.time() + 120
    while time.time() < deadline and len(decided(d)) < 3 and proc.poll() is None:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = decided(d)
    assert len(before) >= 3
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", f"campaign run 8 14 --dir {d}"], capture_output=True, text=True).stdout
    assert left == "", "a worker outlived the campaign"
    ledger = Ledger.open(d)
    summary = Campaign(ledger, Store(store), Options(jobs=1, memory=1 << 30, first_states=1)).work()
    assert summary["status"] == "P" and summary["certified"]
    decisive = {a["position"] for a in ledger.attempts() if a["result"] in ("P", "N")}
    for text in before:  # decided before the kill: not searched again
        n = sum(1 for a in ledger.attempts() if a["position"] == text and a["result"] in ("P", "N"))
        assert n <= 1, text
    assert decisive
    verified(ledger)


def test_sigterm_stops_as_ctrl_c_does(tmp_path: Path) -> None:
    """SIGTERM (a job scheduler's stop) to the campaign's process alone: its attempts are stopped,
    their nodes open again, and it says how to resume."""
    d, store = tmp_path / "c", tmp_path / "s.sqlite"
    proc = subprocess.Popen([sys.executable, "-m", "sylver", "campaign", "run", "16", "--dir", str(d), "--store", str(store),
                             "-j", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and len(decided(d)) < 2 and proc.poll() is None:
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "stopped; resume with" in out
    ledger = Ledger.open(d, resume=False)
    assert not [n for n in ledger.nodes() if n.status == "working"]
    left = subprocess.run(["pgrep", "-f", f"campaign run 16 --dir {d}"], capture_output=True, text=True).stdout
    assert left == "", "a worker outlived the campaign"


@pytest.mark.parametrize("shared", [True, False], ids=["shared directory", "workers elsewhere"])
def test_a_dask_campaign_survives_a_lost_worker(tmp_path: Path, shared: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed mid-campaign; the workers write the certificates into the campaign's
    directory, or, when they do not find its mark there (workers on other machines), send them
    compressed to the campaign's process, which writes them."""
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    from sylver.campaign.attempt import TOKEN

    if not shared:
        monkeypatch.setattr(Campaign, "mark", lambda self: "a mark the workers do not find")

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=50) as cluster, Client(cluster) as client:
        store = Store(tmp_path / "s.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("8,14"), budget=2.0, store=str(store.path))
        result: dict = {}
        lines: list[str] = []

        def work() -> None:
            opts = Options(jobs=2, memory=1 << 30, cluster=cluster.scheduler_address, first_states=1)
            result["summary"] = Campaign(ledger, store, opts, lines.append).work()

        t = threading.Thread(target=work)
        t.start()
        deadline = time.time() + 60
        while time.time() < deadline and sum(line.startswith("attempt") for line in lines) < 3:
            time.sleep(0.02)
        victim = sorted(client.run(os.getpid).values())[0]
        os.kill(victim, signal.SIGKILL)  # a worker dies mid-campaign; the nanny restarts it
        t.join(240)
        assert not t.is_alive()
    assert result["summary"]["status"] == "P" and result["summary"]["certified"]
    assert (ledger.directory / "certificates" / TOKEN).exists() == shared
    assert verified(ledger) >= 2


class TestCommand:
    def run(self, *args: str) -> subprocess.CompletedProcess:
        from tests.test_solver_cli import run

        return run(*args)

    def test_a_campaign_and_its_ledger(self, tmp_path: Path) -> None:
        d = tmp_path / "c"
        before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
        out = self.run("campaign", "run", "4", "--dir", str(d), "--store", str(tmp_path / "s.sqlite"), "-j", "1")
        assert out.returncode == 0, out.stderr
        # its stop on SIGTERM ends with it (the g = 2 scan holds Ctrl-C only under Python's own handler)
        assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
        assert "{4} is N: 6 wins" in out.stdout
        shown = self.run("campaign", "show", "--dir", str(d), "--json")
        assert json.loads(shown.stdout)["summary"]["winning"] == 6
        md = self.run("campaign", "show", "--dir", str(d), "--markdown")
        assert md.stdout.startswith("# Campaign on {4}")
        # in a pipe the table is printed whole, at its natural width: a row a node, no cell folded
        table = self.run("campaign", "show", "--dir", str(d)).stdout.splitlines()
        head = next(line for line in table if line.startswith("┃"))
        assert [c.strip() for c in head.split("┃")[1:-1]][:2] == ["position", "why"] and "certificate" in head
        rows = [line.split("│")[1].strip() for line in table if line.startswith("│")]
        assert rows == [n["text"] for n in json.loads(shown.stdout)["nodes"]]

    @pytest.mark.parametrize(("args", "message"), [
        (["4", "5"], "has gcd 1"),
        (["4,x"], "4,x"),
        (["0"], "0"),
        (["6", "50000"], "the g > 1 engine handles t(S ÷ g) <= 5,461"),
    ])
    def test_bad_roots(self, tmp_path: Path, args: list[str], message: str) -> None:
        out = self.run("campaign", "run", *args, "--dir", str(tmp_path / "c"), "--store", str(tmp_path / "s.sqlite"))
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.splitlines()) == 1
        assert not (tmp_path / "c").exists()

    @pytest.mark.parametrize(("line", "message"), [
        ("16", "16 is illegal in {8}"), ("x", "give moves from the root"), ("12,1", "naming 1 loses"),
        ("5,7", "{5,8} has gcd 1"),
    ])
    def test_bad_lines_to_try(self, tmp_path: Path, line: str, message: str) -> None:
        out = self.run("campaign", "run", "8", "--try", line, "--dir", str(tmp_path / "c"), "--store", str(tmp_path / "s.sqlite"))
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.splitlines()) == 1
        assert not (tmp_path / "c").exists()

    def test_a_bad_line_to_work_on_only(self, tmp_path: Path) -> None:
        out = self.run("campaign", "run", "8", "--only", "12,x", "--dir", str(tmp_path / "c"), "--store", str(tmp_path / "s.sqlite"))
        assert out.returncode == 2 and "--only '12,x'" in out.stderr and len(out.stderr.splitlines()) == 1
        assert not (tmp_path / "c").exists()
        out = self.run("campaign", "--dir", str(tmp_path / "c"), "--show", "--only", "12")
        assert out.returncode == 2 and "--only go with work" in out.stderr

    def test_the_old_spellings_still_work_with_a_note(self, tmp_path: Path) -> None:
        """`sylver campaign ROOT --dir D` (run), `… --show` (show) and `--dir D --verify` (verify), the
        spellings before the subcommands (issue 52): the same as the subcommands, after a one-line note
        on stderr that gives the new spelling; their old refusals are the same lines."""
        d, store = str(tmp_path / "c"), str(tmp_path / "s.sqlite")
        old = self.run("campaign", "4", "--dir", d, "--store", store, "-j", "1")
        assert old.returncode == 0 and "{4} is N: 6 wins" in old.stdout, old.stderr
        assert old.stderr.splitlines()[0] == (
            f"sylver: note: `sylver campaign {shlex.join(['4', '--dir', d, '--store', store, '-j', '1'])}` is "
            f"deprecated: use `sylver campaign {shlex.join(['run', '4', '--dir', d, '--store', store, '-j', '1'])}`")
        shown, new = self.run("campaign", "--dir", d, "--show", "--json"), self.run("campaign", "show", "--dir", d, "--json")
        assert shown.returncode == new.returncode == 0 and shown.stdout == new.stdout
        assert f"use `sylver campaign {shlex.join(['show', '--dir', d, '--json'])}`" in shown.stderr
        assert "note" not in new.stderr
        checked = self.run("campaign", "--dir", d, "--verify", "-j", "1")
        assert checked.returncode == 0 and re.search(r"\d+ certificate files: \d+ valid", checked.stdout), checked.stderr
        assert f"use `sylver campaign {shlex.join(['verify', '--dir', d, '-j', '1'])}`" in checked.stderr
        again = self.run("campaign", "verify", "--dir", d, "-j", "1")
        assert again.returncode == 0 and "0 checked now" in again.stdout and "note" not in again.stderr
        for args, refusal in [(["4", "--dir", d, "--verify"], "give no position"),
                              (["--dir", d, "--show", "--try", "6"], "--try and --only go with work"),
                              (["--dir", d, "--json"], "go with --show"),
                              (["--dir", d, "--show", "--json", "--markdown"], "contradict each other")]:
            out = self.run("campaign", *args)
            assert out.returncode == 2 and refusal in out.stderr and len(out.stderr.splitlines()) == 1, (args, out.stderr)
        resumed = self.run("campaign", "--dir", d)  # the bare old spelling resumes (the root is decided)
        assert resumed.returncode == 0 and f"use `sylver campaign {shlex.join(['run', '--dir', d])}`" in resumed.stderr

    def test_another_campaigns_directory(self, tmp_path: Path) -> None:
        d = tmp_path / "c"
        assert self.run("campaign", "run", "4", "--dir", str(d), "--store", str(tmp_path / "s.sqlite"), "-j", "1").returncode == 0
        out = self.run("campaign", "run", "6", "--dir", str(d), "--store", str(tmp_path / "s.sqlite"))
        assert out.returncode == 2 and "holds the campaign on {4}" in out.stderr
        assert Ledger.open(d).node(Position.parse("4")).status == "N"  # nothing lost
        out = self.run("campaign", "show", "--dir", str(tmp_path / "none"))
        assert out.returncode == 2 and "no campaign in" in out.stderr and len(out.stderr.splitlines()) == 1

    def test_a_store_that_cannot_be_written(self, tmp_path: Path) -> None:
        (tmp_path / "file").write_text("x")
        out = self.run("campaign", "run", "4", "--dir", str(tmp_path / "c"), "--store", str(tmp_path / "file" / "s.sqlite"))
        assert out.returncode == 2 and len(out.stderr.splitlines()) == 1 and "store" in out.stderr
        assert not (tmp_path / "c").exists()

    def test_a_cluster_that_cannot_be_reached(self, tmp_path: Path) -> None:
        d = tmp_path / "c"
        out = self.run("campaign", "run", "8", "--dir", str(d), "--store", str(tmp_path / "s.sqlite"),
                       "--cluster", "tcp://127.0.0.1:9")
        assert out.returncode == 2 and "cannot reach the Dask scheduler" in out.stderr
        assert len(out.stderr.splitlines()) == 1
        root = Ledger.open(d).node(Position.parse("8"))
        assert root is not None and root.status == "open" and root.attempts == 0


def test_a_contradicting_attempt_is_never_passed_over(tmp_path: Path) -> None:
    """A later search that finds another outcome for a decided node (while building its
    certificate) stops the campaign with the conflict: one of the two computations is wrong."""
    from sylver.campaign.attempt import Attempt
    from sylver.store.results import StoreConflictError

    store = Store(tmp_path / "s.sqlite")
    ledger = Ledger.create(tmp_path / "c", Position.parse("8,14"), budget=1.0, store=str(store.path))
    p = Position.parse("8,14")
    ledger.decide(p, status="P", winning=None, method="solve", states=1, seconds=0.1, peak_bytes=0,
                  certificate="", note="")
    work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30))
    forged = Attempt(position="8,14", outcome="N", winning=3, states=1, seconds=0.1, peak_bytes=0, worker="w",
                     note="")
    with pytest.raises(StoreConflictError, match="the ledger holds P, a new search found N"):
        work.absorb(ledger.node(p), forged, 0.0)


def test_from_the_store_the_move_its_certificate_proves(tmp_path: Path) -> None:
    """{6}: 4 and 9 both win (sec. 2); the store's record holds both, its certificate proves 9."""
    from sylver.campaign.attempt import certificate
    from sylver.campaign.proof import compose
    from sylver.solver import solve

    store = Store(tmp_path / "s.sqlite")
    six = Position.parse("6")
    sol = solve(six.play(9))
    assert sol.verdict == "P"
    certificate(sol, tmp_path / "child.json", 60.0, 1 << 30)
    compose(tmp_path / "six.json", six, [tmp_path / "child.json"], outcome="N", winning=[9])
    assert verify_file(str(tmp_path / "six.json"))[0].startswith("{6} is N")
    store.put_result(six, Outcome.N, [4, 9], False, 0)
    store.put_certificate(six, tmp_path / "six.json")
    ledger = Ledger.create(tmp_path / "c", six, budget=1.0, store=str(store.path))
    summary = Campaign(ledger, store, Options(jobs=1, memory=1 << 30)).work()
    assert summary["status"] == "N" and summary["winning"] == 9 and ledger.node(six).method == "store"
    assert (ledger.directory / ledger.node(six).certificate).read_bytes() == (tmp_path / "six.json").read_bytes()


def test_an_attempt_past_its_hard_limit_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that does not stop at its budget (a long step of a g > 1 solve: here a solve that
    sleeps, so that no machine is fast enough to finish first) is ended at the attempt's hard limit,
    and the node comes back with a larger budget."""
    import sylver.solver
    from sylver.campaign import attempt, run

    monkeypatch.setattr(attempt, "hard_limit", lambda seconds: 0.3)  # the worker forks with these
    monkeypatch.setattr(run, "hard_limit", lambda seconds: 0.3)
    monkeypatch.setattr(sylver.solver, "solve", lambda *args, **kw: time.sleep(600))
    store = Store(tmp_path / "s.sqlite")
    root = Position.parse("16,20,34")
    ledger = Ledger.create(tmp_path / "c", root, budget=5.0, store=str(store.path))
    Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_budget=5.0, max_attempts=1)).work()
    tries = ledger.attempts(root)
    assert tries and tries[0]["result"] == "failed" and "was stopped" in tries[0]["note"], (tries[0]["result"], tries[0]["note"])
    node = ledger.node(root)
    assert node is not None and node.status == "open" and node.budget == 5.0 * 4


def test_a_result_stored_since_is_taken_at_its_turn(tmp_path: Path) -> None:
    """A node expanded before its result reached the store (from another campaign, or a `sylver
    solve`) is decided from the store when its turn comes, with no attempt of its own."""
    from sylver.campaign.attempt import certificate
    from sylver.solver import solve

    store = Store(tmp_path / "s.sqlite")
    root = Position.parse("8,14")
    ledger = Ledger.create(tmp_path / "c", root, budget=2.0, store=str(store.path))
    Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_states=1, max_attempts=1)).work()  # root expanded
    child = next(c for _, c in ledger.children(root) if ledger.node(c).status == "open")
    sol = solve(child, first=True)
    store.put(sol)
    certificate(sol, tmp_path / "child.json", 60.0, 1 << 30)
    store.put_certificate(child, tmp_path / "child.json")
    summary = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_states=1)).work()
    node = ledger.node(child)
    assert node.method == "store" and node.certificate and node.status == sol.verdict
    assert all(a["position"] != str(child) for a in ledger.attempts())
    assert summary["status"] == "P" and summary["certified"]


class TestCertificateFiles:
    """An attempt streams its certificate to the file the ledger assigns (never a dict in memory),
    or, from a worker that cannot write the campaign's directory, sends it compressed; the store
    keeps large ones by reference, and a referenced file missing or changed is no certificate."""

    def task(self, tmp_path: Path, text: str, token: str = "run") -> object:
        from sylver.campaign.attempt import TOKEN, Task

        d = tmp_path / "certificates"
        d.mkdir(exist_ok=True)
        (d / TOKEN).write_text("run")
        # (an hour for a second's work: the attempt decides and certifies on any machine)
        return Task(position=text, seconds=3600.0, memory=1 << 30, certificate=str(d / f"{text}.json"), token=token)

    @pytest.mark.parametrize("text", ["5,18", "12,17", "8,14", "10,14", "6,9", "8,10,22", "14,18"])
    def test_the_file_an_attempt_writes(self, tmp_path: Path, text: str) -> None:
        """Its file is what the builders give for the same answer (the header, and the nodes as a
        set: gcd 1 from empty tables, where both find the same replies; with g > 1 the sub-proofs'
        replies depend on the tables, so its nodes are checked), and `sylver verify` accepts it."""
        from sylver.campaign.attempt import run
        from sylver.proof.build import build_certificate, build_gcd_certificate
        from sylver.solver import solve
        from sylver.solver.engine import ENGINE

        task = self.task(tmp_path, text)
        ENGINE.clear()
        ENGINE.stack.clear_ordering()
        got = run(task)  # type: ignore[arg-type]
        assert got.certificate == task.certificate and got.compressed is None  # type: ignore[attr-defined]
        path = Path(got.certificate)
        assert got.certificate_size == path.stat().st_size and sorted(path.parent.iterdir())[-1] == path
        cert = json.loads(path.read_text())
        ENGINE.clear()
        ENGINE.stack.clear_ordering()
        sol = solve(Position.parse(text), first=True, store=None)
        ref = build_certificate(sol) if sol.gcd == 1 else build_gcd_certificate(sol)
        assert {k: v for k, v in cert.items() if k != "nodes"} == {k: v for k, v in ref.items() if k != "nodes"}
        nodes = {tuple(n[0]) for n in cert["nodes"]}
        assert len(nodes) == len(cert["nodes"]) == got.certificate_nodes
        if sol.gcd == 1:
            assert nodes == {tuple(n[0]) for n in ref["nodes"]}
        out = subprocess.run([sys.executable, "-m", "sylver", "verify", str(path)], capture_output=True, text=True,
                             timeout=120)
        assert out.returncode == 0 and out.stdout.startswith("valid"), out.stdout + out.stderr

    def test_from_a_worker_on_another_machine(self, tmp_path: Path) -> None:
        """A worker that does not find the campaign's mark in the directory builds the file in its
        own temporary directory and sends it compressed; the campaign writes it under the name."""
        from sylver.campaign.attempt import run

        task = self.task(tmp_path, "10,14", token="another run")
        got = run(task)  # type: ignore[arg-type]
        assert got.certificate is None and got.compressed and not Path(task.certificate).exists()  # type: ignore[attr-defined]
        store = Store(tmp_path / "s.sqlite")
        ledger = Ledger.create(tmp_path / "c", Position.parse("10,14"), budget=60.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30))
        work.absorb(ledger.node(Position.parse("10,14")), got, time.time())
        node = ledger.node(Position.parse("10,14"))
        assert node.status == "P" and node.certificate
        path = ledger.directory / node.certificate
        assert path.stat().st_size == got.certificate_size and len(got.compressed) < got.certificate_size / 3
        assert verify_file(str(path))[0] == "{10,14} is P: proven"
        assert store.certificate_file(Position.parse("10,14"), tmp_path / "copy.json")
        assert (tmp_path / "copy.json").read_bytes() == path.read_bytes()

    def test_a_changed_store_file_is_not_trusted(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A certificate stored by reference (as one above INLINE_BYTES is) whose file has changed or
        is gone is no certificate: the campaign certifies the node again."""
        from sylver.store import results as store_module

        monkeypatch.setattr(store_module, "INLINE_BYTES", 0)
        ledger, store, _ = campaign(tmp_path, "8,14", first_states=1)
        root = ledger.node(Position.parse("8,14"))
        path = ledger.directory / root.certificate
        text = path.read_text()
        path.write_text(text.replace("[", " [", 1))  # another file, as valid as before
        assert store.certificate_file(root.position, tmp_path / "x.json") is False
        assert store.certificate(root.position) is None
        other = Ledger.create(tmp_path / "again", root.position, budget=2.0, store=str(store.path))
        summary = Campaign(other, store, Options(jobs=1, memory=1 << 30)).work()
        assert summary["status"] == "P" and summary["certified"]
        assert other.node(root.position).method != "store"
        path.unlink()
        assert store.certificate_file(root.position, tmp_path / "x.json") is True  # stored again, from "again"
        (other.directory / other.node(root.position).certificate).unlink()
        assert store.certificate_file(root.position, tmp_path / "x.json") is False  # gone


class TestVerify:
    """`sylver campaign --dir D --verify`: every certificate file of the ledger checked by the
    independent verifier, proving what the ledger says; recorded in D/verified.jsonl, not repeated."""

    def test_checked_once_then_recorded(self, tmp_path: Path) -> None:
        from sylver.campaign.proof import VERIFIED, recorded_valid, verify_certificates

        # a first attempt of one state: the root is expanded on any machine, and most nodes have files
        ledger, _, _ = campaign(tmp_path, "8,14", first_states=1)
        files = {n.certificate for n in ledger.nodes() if n.decided and n.certificate}
        first = list(verify_certificates(ledger))
        assert {c.node.certificate for c in first} == files and files
        assert all(not c.flaw and not c.before and c.bytes > 0 for c in first)
        assert [c.bytes for c in first] == sorted(c.bytes for c in first)  # smallest first
        assert len(recorded_valid(ledger)) == len(files)
        records = [json.loads(line) for line in (ledger.directory / VERIFIED).read_text().splitlines()]
        assert all(isinstance(r["winning_moves"], list) for r in records)
        again = list(verify_certificates(ledger))
        assert all(not c.flaw and c.before for c in again)  # not read again: the records say valid

    def test_a_file_that_does_not_prove_what_the_ledger_says(self, tmp_path: Path) -> None:
        """A wrong winning move in the ledger, then a damaged file (recorded valid before, but its
        SHA-256 changed): each is a flaw, whatever the records say."""
        from sylver.campaign.proof import verify_certificates

        ledger, _, _ = campaign(tmp_path, "8", first_states=1)
        assert all(not c.flaw for c in verify_certificates(ledger))
        root = ledger.node(Position.parse("8"))
        assert root is not None and root.status == "N" and root.certificate and root.winning in (12, 14)
        wrong = root.winning + 1
        with ledger.transaction() as db:
            db.execute("UPDATE nodes SET winning = ? WHERE position = ?", (wrong, str(root.position)))
        flaws = {c.node.position: c.flaw for c in verify_certificates(ledger) if c.flaw}
        assert list(flaws) == [root.position]
        assert flaws[root.position].endswith(f"winning, not {wrong}; the ledger says {{8}} is N, {wrong} wins")
        with ledger.transaction() as db:
            db.execute("UPDATE nodes SET winning = ? WHERE position = ?", (root.winning, str(root.position)))
        path = ledger.directory / root.certificate
        path.write_bytes(path.read_bytes()[:-10])
        flaws = {c.node.position: c.flaw for c in verify_certificates(ledger) if c.flaw}
        assert list(flaws) == [root.position]

    def test_the_command(self, tmp_path: Path) -> None:
        from tests.test_solver_cli import run

        d = tmp_path / "c"
        assert run("campaign", "run", "8,14", "--dir", str(d), "--store", str(tmp_path / "s.sqlite"), "-j", "1",
                   "--first-budget", "0.02").returncode == 0
        out = run("campaign", "verify", "--dir", str(d), "-j", "1")
        assert out.returncode == 0, out.stderr
        last = out.stdout.splitlines()[-1]
        assert re.match(r"\d+ certificate files: (\d+) valid \(\1 checked now, 0 recorded in .*\), 0 not; \d+ nodes decided", last), last
        shown = run("campaign", "show", "--dir", str(d)).stdout
        assert re.search(r"certificates: (\d+) written, \1 of them recorded valid", shown), shown
        (d / "verified.jsonl").write_text((d / "verified.jsonl").read_text() + "not a record\n")
        assert "0 of them recorded valid" in run("campaign", "show", "--dir", str(d)).stdout  # shown still
        out = run("campaign", "verify", "--dir", str(d), "-j", "1")
        assert out.returncode == 2 and "line" in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr
        (d / "verified.jsonl").unlink()
        cert = sorted((d / "certificates").glob("*.json"))[-1]
        cert.write_text(cert.read_text()[:-20])  # truncated
        out = run("campaign", "verify", "--dir", str(d), "-j", "1")
        assert out.returncode == 1 and f"{cert.name}: invalid: " in out.stdout
        out = run("campaign", "8", "--dir", str(d), "--verify")
        assert out.returncode == 2 and "give no position" in out.stderr and len(out.stderr.splitlines()) == 1


def test_a_new_run_keeps_the_parts_a_build_resumes_from(tmp_path: Path) -> None:
    """A run starts by removing the gcd-1 nodes of a g > 1 proof left half written (nothing resumes
    from them), not a gcd-1 certificate's partial file: the next build of its answer resumes from it."""
    store = Store(tmp_path / "s.sqlite")
    ledger = Ledger.create(tmp_path / "c", Position.parse("8"), budget=2.0, store=str(store.path))
    directory = ledger.certificate_path(ledger.root).parent
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "5_18.json.part").write_text("a cut gcd-1 build")
    (directory / "8_14.json.nodes.part").write_text("the nodes of a cut g > 1 build")
    Campaign(ledger, store, Options(jobs=1, memory=1 << 30)).mark()
    assert sorted(p.name for p in directory.glob("*.part")) == ["5_18.json.part"]


def test_kill_9_while_a_certificate_is_written(tmp_path: Path) -> None:
    """kill -9 of a campaign while its attempt streams a certificate ({14,20}: N, a proof of 45,000
    gcd-1 P-positions, a few seconds to write) leaves nothing under the final name; the next start
    finishes, certified, and leaves no partial file."""
    d, store = tmp_path / "c", tmp_path / "s.sqlite"
    # the root's first attempt decides it and writes its certificate on any machine (seconds of work)
    proc = sylver("campaign", "run", "14", "20", "--dir", str(d), "--store", str(store), "-j", "1", "--first-budget", "600")
    deadline = time.time() + 120
    parts: list[Path] = []
    while time.time() < deadline and not parts and proc.poll() is None:
        parts = list((d / "certificates").glob("*.part")) if (d / "certificates").is_dir() else []
        time.sleep(0.01)
    assert parts, proc.communicate()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.5)
    names = {p.name for p in (d / "certificates").iterdir()}
    assert "14_20.json" not in names and any(n.endswith(".part") for n in names), names
    ledger = Ledger.open(d)
    summary = Campaign(ledger, Store(store), Options(jobs=1, memory=1 << 30)).work()
    assert summary["status"] == "N" and summary["certified"]
    assert not list((d / "certificates").glob("*.part"))
    assert verified(ledger) >= 1


class TestDecidedWithoutCertificate:
    """A node that an attempt decided but whose certificate was not built (the attempt ran out of
    time building it, or was stopped past its hard limit after its solve had recorded the outcome
    in the store) stays decided; the next attempt builds the certificate alone, with a budget sized
    from the solve's seconds, and the certificate verifies."""

    ROOT = Position.parse("8,14")  # P (sec. 2: 14 answers 8), g = 2, short

    def certified_later(self, tmp_path: Path, ledger: Ledger, work: Campaign, budget: float) -> None:
        from tests.test_solver_cli import run as cli

        node = ledger.node(self.ROOT)
        assert node is not None and node.status == "P" and node.method == "solve" and not node.certificate
        assert node.budget == budget
        row = next(r for r in ledger_data(ledger)["nodes"] if r["text"] == "{8,14}")
        from sylver.campaign.report import cells

        assert cells(row)[-1] == "to build" and cells(row)[6] == f"{budget:g}"
        assert work.frontier(set()) == [node]  # a certificate to build: nothing is searched again
        summary = work.work()
        assert summary["status"] == "P" and summary["certified"]
        tries = ledger.attempts(self.ROOT)
        # the certificate alone from then on, first with ``budget`` (a machine too slow to build it
        # in time tries again with more: nothing is searched again either way)
        results = [t["result"] for t in tries]
        assert results[0] == "P" and results[-1] == "certificate" and tries[1]["budget"] == budget
        assert set(results[1:-1]) <= {"no certificate"}
        assert ledger.node(self.ROOT).attempts == len(tries)
        out = cli("verify", str(ledger.directory / ledger.node(self.ROOT).certificate))
        assert out.returncode == 0 and "valid" in out.stdout

    def test_its_certificate_not_built_within_the_attempt(self, tmp_path: Path) -> None:
        from sylver.campaign.attempt import Attempt
        from sylver.campaign.run import CERTIFY_FACTOR

        store = Store(tmp_path / "s.sqlite")
        ledger = Ledger.create(tmp_path / "c", self.ROOT, budget=1.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_budget=1.0))
        late = Attempt(position="8,14", outcome="P", winning=None, states=10, seconds=9.0, peak_bytes=0, worker="w",
                       note="solve (short, 4.0 s); its certificate was not built within 4 s", solve_seconds=4.0)
        work.absorb(ledger.node(self.ROOT), late, time.time() - 9)
        self.certified_later(tmp_path, ledger, work, CERTIFY_FACTOR * 4.0)

    def test_its_attempt_stopped_after_the_solve(self, tmp_path: Path) -> None:
        """The worker died while building the certificate: its solve had recorded the outcome."""
        from sylver.campaign.run import CERTIFY_FACTOR
        from sylver.solver import solve

        store = Store(tmp_path / "s.sqlite")
        ledger = Ledger.create(tmp_path / "c", self.ROOT, budget=1.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30, first_budget=0.5))
        assert solve(self.ROOT, first=True, store=store).verdict == "P"  # the attempt's solve, recorded
        rec = store.get(self.ROOT)
        assert rec is not None and rec.seconds > 0
        ledger.set_working(self.ROOT)
        work.failed(ledger.node(self.ROOT), time.time() - 50, "its worker process died")
        assert "decided by its solve" in ledger.node(self.ROOT).note
        self.certified_later(tmp_path, ledger, work, max(0.5, round(CERTIFY_FACTOR * rec.seconds, 1)))

    def test_a_killed_attempt_without_a_decision_leaves_the_node_open(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "s.sqlite")
        ledger = Ledger.create(tmp_path / "c", self.ROOT, budget=1.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30))
        ledger.set_working(self.ROOT)
        work.failed(ledger.node(self.ROOT), time.time() - 0.5, "its worker process died")
        node = ledger.node(self.ROOT)
        assert node is not None and node.status == "open" and node.budget == 1.0


class TestBudget:
    """An attempt honours its budget: the g > 1 engine looks at its deadline inside its long steps
    (the gcd-1 solves, the shape graphs and scans), the certificate builder inside its loop over the
    nodes, so that an attempt ends within seconds of its budget, its node left open."""

    @staticmethod
    def attempt(text: str, seconds: float, states: int | None = None) -> Any:
        from concurrent.futures import ThreadPoolExecutor

        from sylver.campaign.attempt import Task, run

        with ThreadPoolExecutor(1) as ex:  # (not the main thread: no alarm is set)
            return ex.submit(run, Task(position=text, seconds=seconds, states=states, memory=1 << 30)).result()

    @pytest.mark.clock
    @pytest.mark.parametrize("text", ["16,28,58", "16,26,88"])  # Y and U: P, each about 15 min
    def test_a_g2_attempt_with_a_tiny_budget(self, text: str) -> None:
        self.attempt("16,30,56", 0.5)  # (the engine's first use in a process loads its tables)
        a = self.attempt(text, 1.0)
        assert a.outcome is None and a.seconds < 1.0 + 5

    def test_a_gcd1_attempt_says_how_far_it_got(self) -> None:
        """An open gcd-1 node's attempt notes its root moves decided (`bench_frontier.py --ledger`
        shows them: the size of the search that failed, and how far into the node it went).  Cut by a
        budget of states, so that how far it got does not depend on the machine."""
        a = self.attempt("16,38,85", 600.0, states=10_000)
        m = re.fullmatch(r"not decided within 10,000 states \((\d+) of 155 root moves decided\)", a.note)
        assert a.outcome is None and m and 0 < int(m[1]) < 155 and a.states > 0, a.note

    def test_the_certificate_builder_looks_at_its_deadline(self, tmp_path: Path) -> None:
        """{16,20,28,35,54} (P, gcd 1): its certificate has 15,559 nodes, nearly all with a reply in
        the solve's table (no search to look at the clock): past its deadline, the builder stops
        within ``NODES_PER_LOOK`` nodes (it used to build them all: a 32-s attempt at
        {16,26,38,67,72} took 123 s), and leaves only its partial file (resumed by the next attempt)."""
        from sylver.proof.build import NODES_PER_LOOK, stream_certificate
        from sylver.solver import solve

        sol = solve(Position.parse("16,20,28,35,54"), first=True)
        built: list[int] = []
        with pytest.raises(TimeoutError):
            stream_certificate(sol, tmp_path / "c.json", time_limit=0.0, tick=built.append, memory=1 << 30)
        assert max(built, default=0) <= NODES_PER_LOOK  # nodes, by batch
        assert list(tmp_path.iterdir()) == [tmp_path / "c.json.part"]


def test_the_ledger_as_the_frontier_bench_prints_it(tmp_path: Path) -> None:
    """`bench/bench_frontier.py --ledger DIR [--node POSITION]`: the moves of the root (or of a node),
    each decided one with its answer, then the counts; a node not in the ledger is one line, exit 2."""
    ledger, _, summary = campaign(tmp_path, "8,14", first_states=1)  # decided by its children
    assert summary["status"] == "P"
    kids = ledger.children(Position.parse("8,14"))
    ledger.close()
    bench = [sys.executable, str(Path(__file__).parent.parent / "bench" / "bench_frontier.py"), "--ledger", str(tmp_path / "c")]
    out = subprocess.run(bench, capture_output=True, text=True, timeout=120, check=True).stdout.splitlines()
    assert out[1].endswith("{8,14} is P") and out[2].split()[:4] == ["move", "position", "kind", "status"]
    rows = {int(r.split()[0]): r.split() for r in out[3:-2]}
    assert rows and set(rows) <= {x for x, _ in kids} and all(r[3] == "N" for r in rows.values())
    assert all(r[-1] == "written" for r in rows.values())  # (not checked yet: `sylver campaign --verify`)
    counts = out[-2]
    assert counts.startswith("# ") and sum(int(n) for n in re.findall(r": (\d+)", counts)) == len(kids)
    assert out[-1].startswith("# certificates: ") and "0 of them recorded valid" in out[-1]
    child = kids[-1][1]
    node = subprocess.run([*bench, "--node", ",".join(map(str, child.generators))], capture_output=True, text=True,
                          timeout=120, check=True).stdout.splitlines()
    assert node[1].endswith(f"{child.braces()} is N")
    bad = subprocess.run([*bench, "--node", "8,15"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip().endswith("is not in the ledger in " + str(tmp_path / "c"))


class TestStrategies:
    """How an attempt looks for a node's answer (attempt.STRATEGIES), in turns per node."""

    def test_the_turns_of_each_kind(self, tmp_path: Path) -> None:
        store = Store(tmp_path / "store.sqlite", book=False)
        ledger = Ledger.create(tmp_path / "c", Position.parse("6,10,14"), budget=2.0, store=str(store.path))
        work = Campaign(ledger, store, Options(jobs=1, memory=1 << 30))
        root = ledger.node(ledger.root)
        assert root is not None and root.status == "open"
        assert tree.Kind(root.kind) is tree.Kind.LONG
        assert [work.strategy(dataclasses.replace(root, attempts=i)) for i in range(3)] == ["solve", "sweep-frobenius", "solve"]
        work.wanted[root.position] = frozenset({"N"})  # a long node that helps only by being N
        assert [work.strategy(dataclasses.replace(root, attempts=i)) for i in range(2)] == ["sweep-frobenius", "sweep-ascending"]
        gcd1 = dataclasses.replace(root, position=Position.parse("6,10,15"), kind=tree.Kind.GCD1.value)
        assert [work.strategy(dataclasses.replace(gcd1, attempts=i)) for i in range(2)] == ["solve-frobenius", "solve"]
        assert work.strategy(dataclasses.replace(root, status="N")) == "solve"  # a certificate to build

    @pytest.mark.parametrize("strategy", ["sweep-frobenius", "sweep-ascending", "solve-frobenius"])
    def test_an_attempt_finds_a_winning_reply_and_proves_it(self, tmp_path: Path, strategy: str) -> None:
        from sylver.campaign.attempt import TOKEN, Task, run

        position = "6,10,14" if strategy.startswith("sweep") else "10,21"
        (tmp_path / TOKEN).write_text("t")
        cert = tmp_path / "c.json"
        result = run(Task(position=position, seconds=60, memory=1 << 28, store=str(tmp_path / "s.sqlite"),
                          certificate=str(cert), token="t", strategy=strategy))
        assert result.outcome == "N" and result.winning is not None
        p = Position.parse(position)
        assert Store(tmp_path / "s.sqlite", book=False).get(p.play(result.winning)).outcome is Outcome.P
        assert result.certificate == str(cert)
        from sylver.proof.certificate import verify_path

        head = verify_path(str(cert)).head
        assert head["outcome"] == "N" and result.winning in head["winning_moves"]
        if strategy.startswith("sweep"):
            assert "sweep" in result.note

    def test_a_sweep_that_finds_nothing_says_so(self, tmp_path: Path) -> None:
        from sylver.campaign.attempt import Task, run

        result = run(Task(position="10,14", seconds=60, memory=1 << 28, store=str(tmp_path / "s.sqlite"),
                          strategy="sweep-frobenius", states=1))
        assert result.outcome is None and "sweep" in result.note
