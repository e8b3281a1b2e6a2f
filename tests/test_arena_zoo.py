"""The zoo of misbehaving bots: each loses with the right reason and the tournament completes;
the hostile ones (issue 13) harm neither their referee nor their opponent nor the machine."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from sylver.arena import cgroups
from sylver.arena.rules import make_rules
from sylver.arena.sandbox import (
    StartError,
    fork_limit_enforced,
    sandbox_problem,
    user_namespaces_problem,
)
from sylver.arena.specs import parse_spec
from sylver.arena.tournament import Config, run_tournament

BOTS = Path(__file__).parent / "data" / "bots"
ZOO = BOTS / "zoo.py"


def sandbox_verdict(problem: str, ci: bool, userns_problem: str) -> tuple[str, str]:
    """("run" | "skip" | "fail", why) for the tests that need the sandbox: they run where it works;
    in CI they fail where it does not, unless the kernel itself offers no user namespaces."""
    if not problem:
        return "run", ""
    if ci and not userns_problem:
        return "fail", (f"no sandbox for untrusted bots in CI although the kernel offers user namespaces: "
                        f"{problem}")
    why = f"no sandbox for untrusted bots: {problem}"
    return "skip", f"{why} ({userns_problem})" if userns_problem else why


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() not in ("", "0", "false", "no")


@pytest.fixture
def sandbox() -> None:
    problem = sandbox_problem()
    verdict, why = sandbox_verdict(problem, _in_ci(), user_namespaces_problem() if problem else "")
    if verdict == "fail":
        pytest.fail(why)
    if verdict == "skip":
        pytest.skip(why)


needs_sandbox = pytest.mark.usefixtures("sandbox")


def test_a_missing_sandbox_fails_in_ci_unless_the_kernel_lacks_user_namespaces() -> None:
    assert sandbox_verdict("", True, "") == ("run", "")
    verdict, why = sandbox_verdict("bwrap: execvp /tmp/ci/.venv/bin/python: No such file", True, "")
    assert verdict == "fail" and "in CI" in why and "execvp" in why
    verdict, why = sandbox_verdict("bwrap: setting up uid map: Permission denied", True, "user namespaces are disabled")
    assert verdict == "skip" and "user namespaces are disabled" in why
    assert sandbox_verdict("bubblewrap (bwrap) is not installed", False, "")[0] == "skip"

# class -> (reason of its loss, a fragment of the detail)
EXPECTED = {
    "RaisesInInit": ("crash", "exception in __init__: RuntimeError: broken constructor"),
    "RaisesInAnnounce": ("crash", "ZeroDivisionError"),
    "RaisesInNextMove": ("crash", "KeyError"),
    "ReturnsFloat": ("invalid", "2.5"),
    "ReturnsStr": ("invalid", "'2'"),
    "ReturnsNone": ("invalid", "None"),
    "ReturnsZero": ("invalid", "not a positive integer"),
    "ReturnsNegative": ("invalid", "-5"),
    "ReturnsOne": ("named-one", "named 1"),
    "ReturnsIllegal": ("illegal", "illegal move"),
    "SleepsForever": ("timeout", "wall-clock"),
    "BurnsCPU": ("timeout", "CPU time"),  # never the wall-clock guard, even on a loaded machine
    "Allocates10GB": ("crash", "MemoryError"),
    "CallsSysExit": ("crash", "sys.exit(3)"),
    "CallsOsExit": ("crash", "exited with status 7"),
    "ReturnsHuge": ("invalid", "an integer with about 5,001 digits; answers have at most 100 digits"),  # D8
    "ReturnsLong": ("invalid", "an integer with 201 digits"),
}
WELL_BEHAVED = ["PrintsToStdout", "MutatesList", "NumpyInt", "RaisesInLearn"]
HOSTILE = ["KillsHost", "KillsOpponent", "EscapesCgroup", "ReadsSecrets"]  # D1, D2, D3, D5: harmless here
WRITES = [BOTS / "written-by-zoo", BOTS.parent / "written-by-zoo", Path("/var/tmp/written-by-zoo"),
          Path("/root/written-by-zoo")]


def _files(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()
            and "__pycache__" not in p.parts}


def _bot_processes() -> list[str]:
    """Command lines of live processes of this zoo (bots, or what they started)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if state != "Z" and (str(ZOO).encode() in cmd or cmd.startswith(b"sylver-zoo-stray")):
                out.append(cmd.replace(b"\0", b" ").decode(errors="replace")[:200])
    return out


def _config(classes: list[str], rules, rounds: int = 1) -> Config:
    specs = [parse_spec(f"{ZOO}:Smallest")] + [parse_spec(f"{ZOO}:{c}") for c in classes]
    pairs = [(0, i) for i in range(1, len(specs))]
    return Config(specs, rules, rounds, seed=7, memory_mb=2048, pairs=pairs)


@needs_sandbox
def test_zoo_each_failure_has_its_reason(tmp_path: Path) -> None:
    classes = list(EXPECTED) + WELL_BEHAVED + HOSTILE
    if fork_limit_enforced():
        classes.append("ForksRepeatedly")
    rules = make_rules("koth", move_time=0.4)
    before = _files(BOTS.parent)
    outcome = run_tournament(_config(classes, rules), tmp_path / "zoo", concurrency=2)
    # D5: nothing outside a bot's own private /tmp was written; D3: nothing a bot started lives on
    assert _files(BOTS.parent) == before
    assert not [p for p in WRITES if p.exists()]
    assert _bot_processes() == []
    by_bot: dict[str, list[dict]] = {}
    for r in outcome.records:
        other = r.players[0] if r.players[1] == "Smallest" else r.players[1]
        by_bot.setdefault(other, []).append(r)
    assert outcome.voids == 0
    assert len(outcome.records) == 2 * len(classes)
    for cls, (reason, fragment) in EXPECTED.items():
        games = by_bot[cls]
        assert len(games) == 2, cls
        for g in games:
            assert g.loser == cls, (cls, g)
            assert g.reason == reason, (cls, g.reason, g.detail)
            assert fragment in g.detail, (cls, g.detail)
    if "ForksRepeatedly" in classes:
        for g in by_bot["ForksRepeatedly"]:
            assert g.loser == "ForksRepeatedly"
            assert g.reason in ("crash", "timeout"), g
    for cls in WELL_BEHAVED + HOSTILE:
        for g in by_bot[cls]:
            # Smallest vs Smallest-like play: 2, 3, then the first player must name 1.
            assert g.reason == "named-one", (cls, g)
            assert g.moves == (2, 3, 1), (cls, g.moves)
            assert g.winner_seat == 1
            assert cls == "RaisesInLearn" or not g.learn_errors, (cls, g.learn_errors)  # D3: no survivor
    learn = [e for g in by_bot["RaisesInLearn"] for e in g.learn_errors]
    assert learn and all(e.bot == "RaisesInLearn" and "cannot learn" in e.detail for e in learn)
    table = {s.name: s for s in outcome.table}
    assert table["Smallest"].points == 3 * sum(1 for r in outcome.records if r.winner == "Smallest")
    assert table["BurnsCPU"].timeouts == 2 and table["SleepsForever"].timeouts == 2
    assert table["ReturnsIllegal"].illegal == 2 and table["CallsOsExit"].crashes == 2
    assert (tmp_path / "zoo" / "standings.csv").exists()


@needs_sandbox
def test_grandchild_is_frozen_between_turns_and_leaves_no_zombie() -> None:
    """D4: a setsid grandchild gets no CPU while its bot is not on move, dies with the game, and
    the middle process it leaves as a zombie is collected before the next game."""
    specs = [parse_spec(f"{ZOO}:Sleeper"), parse_spec(f"{ZOO}:GrandchildThinks")]
    outcome = run_tournament(Config(specs, make_rules("koth", move_time=2), 2, seed=3), None, concurrency=1)
    assert len(outcome.records) == 4 and outcome.voids == 0
    for g in outcome.records:
        # the message leads with the bot's complaint (pytest cuts a record's repr short)
        assert g.reason == "named-one" and g.moves == (2, 3, 1), (g.reason, g.moves, g.detail, g.cpu, g.walls)
        assert not g.learn_errors, g.learn_errors
    assert _bot_processes() == []


@needs_sandbox
def test_a_bot_under_tmp_sees_its_folder_only(tmp_path: Path) -> None:
    """A bot whose folder is under /tmp (as in a CI clone) is bound on top of the sandbox's private
    /tmp: it runs, cannot read the file beside its folder nor write beside it (D5)."""
    import shutil

    assert str(tmp_path).startswith("/tmp/")
    (tmp_path / "bots").mkdir()
    zoo = tmp_path / "bots" / "zoo.py"
    shutil.copy(ZOO, zoo)
    (tmp_path / "secret-of-zoo").write_text("organiser's")
    specs = [parse_spec(f"{zoo}:Smallest"), parse_spec(f"{zoo}:ReadsSecrets")]
    outcome = run_tournament(Config(specs, make_rules("koth", move_time=2), 1, seed=1), None, concurrency=1)
    assert len(outcome.records) == 2 and outcome.voids == 0
    for g in outcome.records:
        assert g.reason == "named-one" and g.moves == (2, 3, 1), g
    assert sorted(p.name for p in tmp_path.rglob("*") if "__pycache__" not in p.parts) == [
        "bots", "secret-of-zoo", "zoo.py"]


def _busy_tree(group: cgroups.BotCgroup):
    """A process and its setsid grandchild spinning in ``group`` (both counted before it returns)."""
    import subprocess
    import time

    def join() -> None:
        for path in group.procs_files:
            Path(path).write_text(str(os.getpid()))

    proc = subprocess.Popen(["sh", "-c", "setsid sh -c 'while :; do :; done' & while :; do :; done"],
                            preexec_fn=join)  # noqa: PLW1509
    deadline = time.monotonic() + 10
    while len(group.pids()) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(group.pids()) == 2, group.pids()
    return proc


def _cpu_gain(group: cgroups.BotCgroup, seconds: float) -> float:
    import time

    c0 = group.cpu_seconds()
    time.sleep(seconds)
    c1 = group.cpu_seconds()
    assert c0 is not None and c1 is not None
    return c1 - c0


def _runs(group: cgroups.BotCgroup, least: float = 0.03, within: float = 10.0) -> bool:
    """Does the tree use ``least`` seconds of CPU within ``within`` seconds?  (Polled: on a loaded
    machine a busy process gets a small share of a core, but it gets some.)"""
    import time

    c0 = group.cpu_seconds()
    end = time.monotonic() + within
    while time.monotonic() < end:
        time.sleep(0.1)
        c1 = group.cpu_seconds()
        assert c0 is not None and c1 is not None
        if c1 - c0 > least:
            return True
    return False


@pytest.mark.parametrize("freezer_works", [True, False])
def test_freeze_returns_once_the_tree_is_stopped(monkeypatch: pytest.MonkeyPatch, freezer_works: bool) -> None:
    """``freeze`` returns only when the kernel reports the whole tree frozen (a v1 freezer can be
    slow or stay FREEZING under load); a freezer that never reports it is backed by SIGSTOP."""
    if not {"freezer", "cpu"} <= set(cgroups.roots()):
        pytest.skip(f"no writable cgroup freezer and CPU time here (found {sorted(cgroups.roots())})")
    group = cgroups.BotCgroup(cgroups.MAX_PROCESSES)
    proc = _busy_tree(group)
    sink = None
    try:
        if not freezer_works:
            monkeypatch.setattr(cgroups, "FREEZE_WAIT", 0.05)
            monkeypatch.setattr(group, "_reached_frozen", lambda: False)
            sink = os.open(os.devnull, os.O_WRONLY)
            monkeypatch.setattr(group, "_freezer", lambda: sink)
        assert _runs(group)
        for _ in range(3):
            group.freeze()
            assert freezer_works == group._reached_frozen() and bool(group._stopped) != freezer_works
            assert _cpu_gain(group, 0.3) < 0.01  # at once: the setsid grandchild included
            group.thaw()
            assert group._stopped == []
            assert _runs(group)
    finally:
        proc.kill()
        proc.wait()
        group.remove()
        if sink is not None:
            os.close(sink)


def _v2_roots() -> dict[str, str]:
    """The features the cgroup v2 hierarchy offers bots here (pids only where its controller is on v2)."""
    base = cgroups.v2_base()
    return cgroups.hierarchy_roots(base) if base else {}


def _events(group: cgroups.BotCgroup) -> str:
    return Path(group.dirs["freezer"], "cgroup.events").read_text()


def test_cgroup_v2_freezer_cpu_and_pids() -> None:
    """The cgroup v2 path (``cgroup.freeze``, ``cpu.stat``, ``pids.max``): a process and its setsid
    grandchild stop using CPU when frozen, run again when thawed, and die with the cgroup."""
    found = _v2_roots()
    if "freezer" not in found or "cpu" not in found:
        pytest.skip(f"no writable cgroup v2 hierarchy with a freezer and CPU time here (found {sorted(found)})")
    cgroups.use_roots(found)
    try:
        group = cgroups.BotCgroup(cgroups.MAX_PROCESSES)
        assert group.can_freeze and group.dirs["freezer"].startswith(cgroups.v2_base() or "?")
        proc = _busy_tree(group)
        try:
            assert _runs(group)
            group.freeze()
            assert "frozen 1" in _events(group)  # freeze returns once it is
            assert _cpu_gain(group, 0.5) < 0.01  # the whole tree, the setsid grandchild included
            group.thaw()
            assert _runs(group)
            if "pids" in found:
                assert Path(group.dirs["pids"], "pids.max").read_text().strip() == str(cgroups.MAX_PROCESSES)
            assert group.kill() == 2 and group.pids() == []
        finally:
            proc.kill()
            proc.wait()
            dirs = list(group.dirs.values())
            group.remove()
        assert not any(os.path.exists(d) for d in dirs)
    finally:
        cgroups.use_roots(None)


@needs_sandbox
def test_grandchild_is_frozen_by_the_cgroup_v2_freezer() -> None:
    """D4 again with the freezer and CPU time of cgroup v2 (the pids limit stays where it was)."""
    v2 = {f: r for f, r in _v2_roots().items() if f in ("freezer", "cpu")}
    if len(v2) < 2:
        pytest.skip("no writable cgroup v2 hierarchy with a freezer and CPU time here")
    cgroups.use_roots({**cgroups.roots(), **v2})
    try:
        specs = [parse_spec(f"{ZOO}:Sleeper"), parse_spec(f"{ZOO}:GrandchildThinks")]
        outcome = run_tournament(Config(specs, make_rules("koth", move_time=2), 1, seed=3), None, concurrency=1)
    finally:
        cgroups.use_roots(None)
    assert len(outcome.records) == 2 and outcome.voids == 0
    for g in outcome.records:
        # the message leads with the bot's complaint (pytest cuts a record's repr short)
        assert g.reason == "named-one" and g.moves == (2, 3, 1), (g.reason, g.moves, g.detail, g.cpu, g.walls)
        assert not g.learn_errors, g.learn_errors
    assert _bot_processes() == []


def test_without_the_sandbox_a_bot_that_kills_its_host_loses() -> None:
    """D1 with --unsafe-no-sandbox: the worker dies during the bot's turn; the bot loses that game
    ("killed its host"), the games of the others are played again and the tournament completes."""
    specs = [parse_spec(f"{ZOO}:Smallest"), parse_spec(f"{ZOO}:KillsHost"), parse_spec(f"name=other,{ZOO}:Smallest")]
    config = Config(specs, make_rules("koth", move_time=2), 1, seed=5, pairs=[(0, 1), (0, 2)],
                    unsafe_no_sandbox=True)
    outcome = run_tournament(config, None, concurrency=2)
    assert outcome.voids == 0 and len(outcome.records) == 4
    for g in outcome.records:
        if "KillsHost" in g.players:
            assert g.loser == "KillsHost" and g.reason == "crash", g
            assert g.detail.startswith("killed its host: the referee's worker process"), g.detail
        else:
            assert g.reason == "named-one" and g.moves == (2, 3, 1), g
    assert _bot_processes() == []


def test_above_cap_and_three_strikes(tmp_path: Path) -> None:
    rules = make_rules("classic", clock=5)
    outcome = run_tournament(_config(["AboveCap"], rules), tmp_path / "cap", concurrency=1)
    for g in outcome.records:
        assert g.loser == "AboveCap" and g.reason == "above-cap", g
        assert g.strikes == ()
    rules3 = make_rules("classic", clock=5, penalties=3)
    outcome = run_tournament(_config(["AboveCap"], rules3), None, concurrency=1)
    assert len(outcome.records) == 2
    for g in outcome.records:
        assert g.loser == "AboveCap" and g.reason == "above-cap", g
        seat = g.players.index("AboveCap")
        assert [s.seat for s in g.strikes] == [seat, seat], g
        assert all(s.answer == 2_000_003 for s in g.strikes)


def test_cmd_bot_garbage_on_stdout_is_a_protocol_loss(tmp_path: Path) -> None:
    rules = make_rules("koth", move_time=2)
    specs = [parse_spec(f"name=good,cmd:{sys.executable} {BOTS / 'cmd_smallest.py'}"),
             parse_spec(f"name=noisy,cmd:{sys.executable} {BOTS / 'cmd_smallest.py'} --garbage")]
    outcome = run_tournament(Config(specs, rules, 1, seed=1), None, concurrency=1)
    assert len(outcome.records) == 2
    for g in outcome.records:
        assert g.loser == "noisy" and g.reason == "protocol"
        assert "garbage on stdout" in g.detail


def test_import_failure_fails_the_run_at_once(tmp_path: Path) -> None:
    specs = [parse_spec(f"{ZOO}:Smallest"), parse_spec(f"{BOTS / 'zoo_import_fails.py'}:Bot")]
    with pytest.raises(StartError, match="cannot import zoo_import_fails.py: ModuleNotFoundError"):
        run_tournament(Config(specs, make_rules("koth"), 1), tmp_path / "x", concurrency=1)
    assert not (tmp_path / "x" / "games.jsonl").exists()
    with pytest.raises(StartError, match="has no class 'Nope'"):
        run_tournament(Config([specs[0], parse_spec(f"{ZOO}:Nope")], make_rules("koth"), 1), None, concurrency=1)


def test_cmd_bot_logs_are_allowed_but_unasked_answers_lose() -> None:
    rules = make_rules("koth", start=(7, 9))
    specs = [parse_spec(f"name=logger,cmd:{sys.executable} {BOTS / 'cmd_chatty.py'}"),
             parse_spec(f"name=twice,cmd:{sys.executable} {BOTS / 'cmd_chatty.py'} --twice")]
    outcome = run_tournament(Config(specs, rules, 1, seed=1), None, concurrency=1)
    first, second = sorted(outcome.records, key=lambda r: r.game)
    # logger first: 2, 3 (twice), then logger's 3 is illegal; twice's stray answer shows up at learn
    assert first.loser == "logger" and first.reason == "illegal"
    assert [e.bot for e in first.learn_errors] == ["twice"]
    assert "without being asked" in first.learn_errors[0].detail
    # twice first: its stray second answer is found before its next move when it has reached the
    # pipe by then; on a loaded machine it may arrive after the next turn was sent, and protocol v1
    # answers carry no turn id, so it is then taken as that answer (5: illegal).  A loss either way.
    assert second.loser == "twice"
    if second.reason == "protocol":
        assert "without being asked" in second.detail
    else:
        assert second.reason == "illegal" and second.moves[-1] == 5, second


def test_chess_clock_runs_out(tmp_path: Path) -> None:
    rules = make_rules("classic", clock=0.5)
    outcome = run_tournament(_config(["BurnsCPU"], rules), None, concurrency=2)
    assert len(outcome.records) == 2
    for g in outcome.records:
        assert g.loser == "BurnsCPU" and g.reason == "timeout", g
