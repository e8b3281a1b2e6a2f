"""Arena: rules, specs, referee, tournament files, resume after kill -9, disqualification, CLI."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sylver.arena.board import Board
from sylver.arena.games import GameSpec, PlayedGame, VoidGame, game_from_json
from sylver.arena.ratings import elo_ratings, standings
from sylver.arena.rules import make_rules
from sylver.arena.specs import parse_spec, parse_specs
from sylver.arena.tournament import Config, game_seed, make_games, run_tournament
from sylver.position import Position

BOTS = Path(__file__).parent / "data" / "bots"
ZOO = BOTS / "zoo.py"
SYLVER = [sys.executable, "-m", "sylver"]


def test_rules_presets_and_overrides() -> None:
    koth = make_rules("koth")
    assert koth.random_start == (100_000, 999_999) and koth.move_time == 20 and not koth.no_prime_first
    assert make_rules("koth-2020").no_prime_first and make_rules("koth-2020").start == ()
    classic = make_rules("classic")
    assert classic.cap == 1_000_000 and classic.clock == 30 and classic.move_time is None
    r = make_rules("classic", start=(4, 5), cap=0, clock=36, penalties=3)
    assert r.start == (4, 5) and r.cap is None and r.clock == 36 and r.penalties == 3
    import random

    a, b = koth.draw_start(random.Random(1))
    assert 100_000 <= a <= 999_999 and 100_000 <= b <= 999_999 and Position([a, b]).gcd == 1
    with pytest.raises(ValueError, match="unknown rules"):
        make_rules("chess")


def test_the_rules_line_names_the_openings() -> None:
    """With ``--openings`` the tournament's "Rules:" line names the suite's starts where the rules'
    own start was (it said "empty start", then the suite's name only; issue 53)."""
    from sylver.arena.openings import Suite, load_suite

    specs = parse_specs(["random", "greedy"])
    line = Config(specs, make_rules("classic"), openings=load_suite("one-number")).describe()
    assert line.startswith("classic, openings one-number: {4}, {5}, {6}, {7}, {8}, {9}, ..., {40} (37 starts, ")
    assert "empty start" not in line and line.endswith("cap 1,000,000, clock 30 s, nextMove gets the time used")
    line = Config(specs, make_rules("koth"), openings=Suite("mine.txt", ((16, 20), (5,)))).describe()
    assert line.startswith("koth, openings mine.txt: {16,20}, {5} (2 starts, ") and "random coprime" not in line
    assert Config(specs, make_rules("classic")).describe().startswith("classic, empty start, cap")


def test_specs() -> None:
    s = parse_spec("random")
    assert (s.kind, s.name) == ("builtin", "random")
    s = parse_spec(f"name=alice,{ZOO}:Smallest")
    assert (s.kind, s.name, s.cls) == ("python", "alice", "Smallest")
    assert parse_spec(f"{ZOO}:Smallest,name=bob").name == "bob"
    s = parse_spec("cmd:python3 -c 'print(1)'")
    assert s.kind == "cmd" and s.argv[1:] == ("-c", "print(1)")
    assert [x.name for x in parse_specs(["random", "random"])] == ["random", "random#2"]
    for bad, msg in (("nosuchbot", "unknown bot"), ("missing.py:X", "not found"),
                     ("cmd:no-such-program-xyz", "not found"), ("", "empty")):
        with pytest.raises(ValueError, match=msg):
            parse_spec(bad)


def test_board_matches_position() -> None:
    import random

    rng = random.Random(5)
    b = Board([400_009, 700_001])
    p = Position([400_009, 700_001])
    for _ in range(40):
        n = rng.randint(2, 10**7) if rng.random() < 0.8 else rng.randint(2, 300_000)
        assert b.is_legal(n) == p.is_legal(n)
        if p.is_legal(n):
            b.add(n)
            p = p.play(n)
    for n in range(1, 50_000, 7):
        assert b.is_legal(n) == p.is_legal(n)
        if not b.is_legal(n):
            w = b.witness(n)
            assert sum(x * c for x, c in w.items()) == n and set(w) <= set(b.named), (n, w)
    assert b.witness(p.frobenius_number) is None
    assert Board([4, 5]).witness_text(13) == "13 = 4·2 + 5·1"
    assert Board([]).is_legal(10**30) and not Board([6, 10**20]).is_legal(12)


def test_plan_is_deterministic() -> None:
    specs = parse_specs(["random", f"{ZOO}:Smallest", f"{ZOO}:Slow"])
    cfg = Config(specs, make_rules("koth"), rounds=3, seed=9)
    games = make_games(cfg, 0, [0, 1, 2])
    assert len(games) == 3 * 3 * 2
    assert games == make_games(cfg, 0, [0, 1, 2])
    assert games[0].seed == game_seed(9, 0, 1) != game_seed(10, 0, 1)
    assert {tuple(g.seats) for g in games[:6]} == {(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)}


def test_elo_and_ranking() -> None:
    res = [("a", "b", 1.0)] * 30 + [("b", "a", 1.0)] * 10 + [("b", "c", 1.0)] * 20
    elo = elo_ratings(["a", "b", "c"], res)
    assert elo["a"][0] > elo["b"][0] > elo["c"][0]
    assert abs(sum(e for e, _ in elo.values())) < 1e-6
    assert all(m > 0 for _, m in elo.values())
    rules = make_rules("koth")
    recs = [PlayedGame.from_json(d) for d in (
        {"players": ["x", "y"], "winner": "x", "loser": "y", "winner_seat": 0, "reason": "named-one",
         "times": [0.1, 0.2, 0.3]},
        {"players": ["y", "x"], "winner": "y", "loser": "x", "winner_seat": 0, "reason": "illegal",
         "times": [0.1, 0.2]})]
    table = standings(["x", "y"], recs, rules, seed=1)
    assert [s.points for s in table] == [3, 3] and {s.name for s in table} == {"x", "y"}
    x = next(s for s in table if s.name == "x")
    assert x.illegal == 1 and x.moves == 3 and x.max_time == pytest.approx(0.3)
    assert [s.name for s in standings(["x", "y"], recs, rules, seed=1)] == [s.name for s in table]


def test_seed_samples_run_unchanged(tmp_path: Path) -> None:
    """A seed-000 bot (Class(id), announce/learn) and seed-002 bots (nextMove with 3 or 2 args)."""
    specs = parse_specs([f"{BOTS / 'seed000_sample.py'}:SampleBot", f"{BOTS / 'myOwnBot.py'}:myBot",
                         f"{ZOO}:LearnChecker", "random"])
    out = run_tournament(Config(specs, make_rules("koth"), 1, seed=2), tmp_path / "koth", concurrency=2)
    assert len(out.records) == 12 and out.voids == 0
    for r in out.records:
        assert r.reason in ("named-one", "illegal", "invalid"), r
        assert not r.learn_errors, r.learn_errors
        assert r.reason != "invalid" or "SampleBot" == r.loser
    # classic rules with a finite start: nextMove bots get the remaining moves and never play illegally
    specs = parse_specs([f"{BOTS / 'myOwnBot.py'}:myBot", f"name=two,{BOTS / 'seed002_two_args.py'}:myBot", "random"])
    rules = make_rules("classic", start=(7, 9), clock=10)
    out = run_tournament(Config(specs, rules, 2, seed=3), None, concurrency=2)
    assert len(out.records) == 12
    for r in out.records:
        assert r.reason == "named-one", r
        assert r.start == (7, 9)


def test_disqualify_on_timeout_replays_without_the_bot(tmp_path: Path) -> None:
    specs = parse_specs([f"{ZOO}:Smallest", f"{ZOO}:SleepsForever", f"name=other,{ZOO}:Smallest"])
    rules = make_rules("koth", move_time=0.3)
    out = run_tournament(Config(specs, rules, 2, seed=4, disqualify_on_timeout=True), tmp_path / "dq",
                         concurrency=2)
    assert out.disqualified == ["SleepsForever"] and out.phase == 1
    assert len(out.records) == 4
    assert all("SleepsForever" not in r.players for r in out.records)
    table = {s.name: s for s in out.table}
    assert table["SleepsForever"].disqualified and table["SleepsForever"].rank == 3
    assert table["Smallest"].points + table["other"].points == 12
    plan = json.loads((tmp_path / "dq" / "plan.json").read_text())
    assert [p["bots"] for p in plan["phases"]] == [["Smallest", "SleepsForever", "other"], ["Smallest", "other"]]


def _lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def test_resume_after_kill_minus_nine(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = SYLVER + ["tournament", "--bot", f"{ZOO}:Slow", "--bot", f"{ZOO}:Smallest", "--rounds", "6",
                    "--seed", "5", "--concurrency", "2", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and len(_lines(out / "games.jsonl")) < 3:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    first = _lines(out / "games.jsonl")
    assert 3 <= len(first) < 12, "the run finished before it could be killed"
    plan_before = (out / "plan.json").read_text()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    games = _lines(out / "games.jsonl")
    ids = [g["game"] for g in games]
    assert sorted(ids) == list(range(1, 13)), ids
    assert games[: len(first)] == first
    assert (out / "plan.json").read_text() == plan_before
    st = json.loads((out / "standings.json").read_text())
    assert sum(s["games"] for s in st["standings"]) == 24
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and len(_lines(out / "games.jsonl")) == 12


def _cli(args: list[str]):  # noqa: ANN202
    from typer.testing import CliRunner

    from sylver.cli import app

    return CliRunner().invoke(app, args)


def test_cli_match_conformance_and_errors(tmp_path: Path) -> None:
    r = _cli(["match", f"{ZOO}:Smallest", "random", "--games", "2", "--seed", "1", "--concurrency", "1"])
    assert r.exit_code == 0, r.stderr
    assert "Started game 1 of 2 (Smallest vs random)" in r.stdout
    assert "Finished game" in r.stdout and "Score of Smallest vs random:" in r.stdout
    r = _cli(["conformance", f"{ZOO}:Smallest"])
    assert r.exit_code == 0 and "conforms" in r.stdout and not r.stderr, r.stdout
    r = _cli(["check", f"{ZOO}:ReturnsFloat", "--json"])  # the name before, with a note
    assert r.exit_code == 1 and json.loads(r.stdout)["ok"] is False
    assert r.stderr == "sylver: note: `sylver check` is deprecated: use `sylver conformance`\n"
    for args, msg in (
        (["tournament", "--bot", "random", "--out", str(tmp_path / "a")], "at least two"),
        (["tournament", "--bot", "random", "--bot", "nosuch", "--out", str(tmp_path / "a")], "unknown bot"),
        (["tournament", "--bot", "random", "--bot", f"{BOTS / 'zoo_import_fails.py'}:Bot", "--out",
          str(tmp_path / "b")], "cannot import"),
        (["match", "random", "random", "--rules", "nope"], "unknown rules"),
        (["match", "random", "random", "--clock", "-1"], "must be a positive number"),
        (["match", "random", "random", "--move-time", "nan"], "must be a positive number"),
        (["match", "random", "random", "--start", "4,,5"], "missing number"),
        (["match", "random", "random", "--start", "{4,5"], "not closed"),
        (["match", "random", "random", "--start", f"{10**17},{10**17 + 1},{10**17 + 3}"], "cannot judge"),
        (["tournament", "--bot", "random", "--bot", "random", "--start", "4,x", "--out", str(tmp_path / "d")],
         "--start"),
    ):
        r = _cli(args)
        assert r.exit_code == 2, (args, r.stdout, r.stderr)
        assert msg in r.stderr and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    # the installed command: standings as JSON; a different tournament in the same directory is refused
    run = SYLVER + ["tournament", "--bot", f"{ZOO}:Smallest", "--bot", "random", "--rounds", "1", "--json",
                    "--out", str(tmp_path / "c")]
    r = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["games"] == 2 and {s["name"] for s in doc["standings"]} == {"Smallest", "random"}
    r = _cli(run[len(SYLVER):-3] + ["--seed", "8", "--out", str(tmp_path / "c")])
    assert r.exit_code == 2 and "different tournament" in r.stderr


def test_koth_2020_prime_first_move_loses() -> None:
    specs = parse_specs([f"{ZOO}:Smallest", f"{ZOO}:Smallest"])  # names 2 first: a prime
    out = run_tournament(Config(specs, make_rules("koth-2020"), 1, seed=1), None, concurrency=1)
    assert len(out.records) == 2
    for r in out.records:
        assert r.start == () and r.reason == "prime-first" and r.winner_seat == 1
        assert r.moves == (2,)
    out = run_tournament(Config(specs, make_rules("koth-2020", no_prime_first=False), 1, seed=1), None,
                         concurrency=1)
    assert all(r.reason != "prime-first" for r in out.records)


def test_the_referee_tells_whether_the_time_is_per_call(tmp_path: Path) -> None:
    """``Turn.per_call``: True under King-of-the-Hill rules (20 s a call, no clock: time a call
    leaves unused is lost), False under the nextMove competition's chess clock (issue 35); and
    ``Turn.cpu_clock`` True under both: the arena charges CPU time.  The bot tells what it got in
    the error it raises on its first move."""
    bot = tmp_path / "turn_echo.py"
    bot.write_text("class TurnEcho:\n"
                   "    def choose(self, turn):\n"
                   "        raise RuntimeError(f'per_call={turn.per_call} cpu_clock={turn.cpu_clock} '\n"
                   "                           f'time_left={turn.time_left:g}')\n")
    specs = parse_specs([f"{bot}:TurnEcho", "random"])
    for name, told in (("koth", "per_call=True cpu_clock=True time_left=20"),
                       ("classic", "per_call=False cpu_clock=True time_left=30")):
        out = run_tournament(Config(specs, make_rules(name, start=(7, 9)), 1, seed=1), None, concurrency=1)
        assert len(out.records) == 2
        for r in out.records:
            assert r.loser == "TurnEcho" and r.reason == "crash" and told in r.detail, r


def test_huge_moves_are_judged_not_voided() -> None:
    """D6: under koth-2020 a legal first move 10^16 + 2 is judged; two huge named numbers are judged by
    arithmetic; a third that would leave no way to judge the game loses (too-large), never a void."""
    specs = parse_specs([f"{ZOO}:HugeFirst", f"{ZOO}:Smallest"])
    out = run_tournament(Config(specs, make_rules("koth-2020"), 1, seed=1), None, concurrency=1)
    assert out.voids == 0 and len(out.records) == 2
    first = next(r for r in out.records if r.first == "HugeFirst")
    assert first.moves == (10**16 + 2, 2, 3, 1) and first.winner == "HugeFirst", first
    specs = parse_specs([f"{ZOO}:Huge", f"name=h2,{ZOO}:Huge"])
    out = run_tournament(Config(specs, make_rules("koth-2020", no_prime_first=False), 1, seed=1), None,
                         concurrency=1)
    assert out.voids == 0 and len(out.records) == 2
    for r in out.records:
        assert r.moves == (10**30, 10**30 + 1, 10**30 + 2) and r.reason == "too-large", r
        assert r.loser == r.first and "no referee can judge" in r.detail


def test_board_judges_one_or_two_huge_generators() -> None:
    import random

    from sylver.arena.board import small_generators, small_representation
    from sylver.semigroup import Semigroup

    rng = random.Random(1)
    for _ in range(500):
        a, b = sorted(rng.sample(range(1, 40), 2))
        n = rng.randint(0, 300)
        brute = any((n - x * a) % b == 0 for x in range(n // a + 1))
        w = small_representation(n, (a, b))
        assert (w is not None) == brute and (w is None or sum(k * c for k, c in w.items()) == n)
        nums = [rng.randint(1, 40) for _ in range(rng.randint(1, 5))]
        gens = Semigroup(nums).generators
        assert small_generators(nums) == (gens if len(gens) <= 2 else None)
    x, y = 10**16 + 2, 10**16 + 3
    board = Board([x, y])  # the Apéry set w.r.t. 10^16 + 2 cannot be built
    assert not board.is_legal(3 * x + 2 * y) and board.is_legal(5 * x + 6) and board.is_legal(x + 5)
    assert board.witness_text(3 * x + 2 * y) == f"{3 * x + 2 * y} = {x}·3 + {y}·2"
    assert board.unjudgeable(7) == "" and "three or more" in board.unjudgeable(x + 5)
    board.add(7)  # a small number: the Apéry set can be built again
    assert board.is_legal(x + 8) == Position([x, y, 7]).is_legal(x + 8)


class _FlakyPool:
    """An in-process executor whose workers 'die' (the future fails) for chosen games."""

    def __init__(self, fail: dict[int, int]) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.pool = ThreadPoolExecutor(1)
        self.fail = fail

    def __enter__(self):  # noqa: ANN204
        return self

    def __exit__(self, *exc: object) -> None:
        self.pool.shutdown()

    def submit(self, fn, task):  # noqa: ANN001,ANN201
        from concurrent.futures import Future

        gid = task.game.id
        if self.fail.get(gid, 0) > 0:
            self.fail[gid] -= 1
            f: Future = Future()
            f.set_exception(ConnectionError("worker lost"))
            return f
        return self.pool.submit(fn, dataclasses.replace(task, watch_parent=False))


def test_a_game_lost_with_its_worker_is_played_once_more_then_void(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from sylver.arena.report import ConsoleEvents

    specs = parse_specs([f"{ZOO}:Smallest", "random"])
    pool = _FlakyPool({1: 1, 2: 5})  # game 1 fails once, game 2 every time
    text = StringIO()
    events = ConsoleEvents(Console(file=text, width=300))
    out = run_tournament(Config(specs, make_rules("koth"), 2, seed=1), tmp_path / "v", concurrency=1,
                         events=events, executor_factory=lambda: pool)
    assert out.voids == 1 and sorted(r.game for r in out.records) == [1, 3, 4]
    assert pool.fail == {1: 0, 2: 3}  # two attempts at game 2, no more
    void = [x for x in _lines(tmp_path / "v" / "games.jsonl") if x.get("void")]
    assert len(void) == 1 and void[0]["game"] == 2
    assert "ConnectionError: worker lost" in void[0]["error"] and "2 attempts" in void[0]["error"]
    printed = text.getvalue()
    assert "game 1: its worker failed" in printed and "playing it again" in printed
    assert "VOID game 2" in printed
    # "Started" is printed when a game starts, once per attempt, and always before "Finished"
    starts = [line for line in printed.splitlines() if line.startswith("Started game")]
    assert sorted(x.split()[2] for x in starts) == ["1", "3", "4"], starts  # failed attempts never started
    assert printed.index("Started game 3") < printed.index("Finished game 3")


def test_started_is_printed_when_the_game_starts() -> None:
    """With one worker, the next game is queued long before it starts: its "Started" line comes
    when the worker takes it up, after the previous game's play."""
    from sylver.arena.tournament import Events

    log: list[tuple[str, int, float]] = []

    class Record(Events):
        def started(self, game: GameSpec, number: int, total: int) -> None:
            log.append(("started", number, time.perf_counter()))

        def finished(self, record: PlayedGame, number: int, total: int) -> None:
            log.append(("finished", number, time.perf_counter()))

    specs = parse_specs([f"{ZOO}:Slow", "random"])
    out = run_tournament(Config(specs, make_rules("koth"), 1, seed=1), None, concurrency=1, events=Record())
    assert [x[:2] for x in log if x[1] == 1] == [("started", 1), ("finished", 1)], log
    assert [x[:2] for x in log if x[1] == 2] == [("started", 2), ("finished", 2)], log
    t = {(kind, n): at for kind, n, at in log}
    first = next(r for r in out.records if r.game == 1)
    assert t["started", 2] - t["started", 1] >= 0.8 * first.wall >= 0.8 * 0.1, (log, first.wall)


def test_untrusted_bots_are_refused_without_a_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SYLVER_UNSAFE_NO_SANDBOX"}
    env["PATH"] = "/nonexistent"  # no bwrap
    r = subprocess.run(SYLVER + ["conformance", f"{ZOO}:Smallest"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cannot sandbox the bots: bubblewrap (bwrap) is not installed" in r.stderr
    assert "--unsafe-no-sandbox" in r.stderr
    r = subprocess.run(SYLVER + ["conformance", f"{ZOO}:Smallest", "--unsafe-no-sandbox"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0 and "conforms" in r.stdout, r.stderr
    from sylver.arena import sandbox

    monkeypatch.delenv("SYLVER_UNSAFE_NO_SANDBOX", raising=False)
    monkeypatch.setattr(sandbox, "sandbox_problem", lambda: "no bwrap")
    sandbox.check_sandbox(parse_specs(["random", "greedy"]), False)  # built-in bots are trusted
    with pytest.raises(sandbox.SandboxUnavailable, match="no bwrap"):
        sandbox.check_sandbox(parse_specs(["random", f"{ZOO}:Smallest"]), False)


def test_files_written_by_the_first_version_read_and_write_back_unchanged(tmp_path: Path) -> None:
    """games.jsonl and plan.json of the first version of the arena (tests/data/arena, written before
    the typed records) read into GameSpec / PlayedGame and write back to the same JSON, so the
    earlier code reads what this one writes; a resume over such a directory replays nothing."""
    data = Path(__file__).parent / "data" / "arena"
    lines = [json.loads(x) for x in (data / "games-v1.jsonl").read_text().splitlines()]
    reasons = set()
    for d in lines:
        rec = game_from_json(d)
        assert isinstance(rec, PlayedGame) and rec.to_json() == d
        reasons.add(rec.reason)
        assert rec.winner == d["winner"] and rec.loser == d["loser"] and rec.first == d["first"]
    assert {"named-one", "illegal", "invalid", "crash", "above-cap"} <= reasons
    assert any(game_from_json(d).strikes for d in lines) and any(game_from_json(d).learn_errors for d in lines)
    plan = json.loads((data / "plan-v1.json").read_text())
    for g in plan["phases"][0]["games"]:
        assert GameSpec.from_json(g).to_json() == g
    void = {"game": 2, "phase": 0, "void": True, "players": ["a", "b"], "error": "referee error: boom",
            "traceback": "Traceback ...", "round": 1}
    assert isinstance(game_from_json(void), VoidGame) and game_from_json(void).to_json() == void


def test_results_of_the_first_version_resume_without_replaying(tmp_path: Path) -> None:
    """A results directory written by the first version (same bots, rules and seed) resumes: every
    game is already there, nothing is played, and the standings come out as they were."""

    data = Path(__file__).parent / "data" / "arena"
    plan = json.loads((data / "plan-v1.json").read_text())
    zoo = str(ZOO)
    for b in plan["config"]["bots"]:  # the fixture was written from another checkout
        b["target"] = zoo
        b["text"] = f"{zoo}:{b['cls']}"
    out = tmp_path / "v1"
    out.mkdir()
    (out / "plan.json").write_text(json.dumps(plan))
    lines = (data / "games-v1.jsonl").read_text().splitlines()[:20]  # the classic run's games
    (out / "games.jsonl").write_text("\n".join(lines) + "\n")
    config = Config.from_json(plan["config"])
    result = run_tournament(config, out, concurrency=1, check_start=False,
                            executor_factory=lambda: pytest.fail("a finished game was played again"))
    assert len(result.records) == 20 and (out / "games.jsonl").read_text().splitlines() == lines
    assert sum(s.games for s in result.table) == 40


def test_the_analysis_proves_a_position_once_for_every_game(tmp_path: Path, monkeypatch) -> None:
    """A position decided in one game is decided for the next, in another worker or a rerun too: the
    analysis keeps the solver's answers in a results store (issue 35: the same {16,34} was left
    undecided game after game).  Two games from {7,9}, analysed by two analysts (two workers)
    sharing the store: the second asks the solver about no position the first decided."""
    import sylver.solver
    from sylver.arena.analysis import STORE, Analyst, MoveClass, Settings
    from sylver.position import Termination

    real = sylver.solver.solve
    asked: list[Position] = []

    def counted(p, **options):  # noqa: ANN001,ANN003,ANN202
        asked.append(p)
        return real(p, **options)

    monkeypatch.setattr(sylver.solver, "solve", counted)
    settings = Settings(max_t=150, store=str(tmp_path / STORE))
    games = [PlayedGame(game=g, phase=0, round=0, seed=g, players=("a", "b"), start=(7, 9), moves=(2, 1),
                        times=(0.0, 0.0), walls=(0.0, 0.0), winner_seat=0, reason=Termination.NAMED_ONE,
                        detail="") for g in (1, 2)]
    first = Analyst(settings).game(games[0])
    solved = list(asked)
    assert Position("7,9") in solved and first.notes[0].verdict in (MoveClass.WINNING, MoveClass.BLUNDER)
    second = Analyst(settings).game(games[1])
    assert asked == solved, "the second game re-solved a position the first proved"
    assert [n.verdict for n in second.notes] == [n.verdict for n in first.notes]
    fresh = Analyst(Settings(max_t=150)).game(games[1])  # no store: solved again
    assert len(asked) > len(solved) and fresh.notes == second.notes
