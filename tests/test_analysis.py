"""Blunder analysis of played games and opening suites (issue 35).

The recorded games (tests/data/analysis: random, greedy and sage from 18 small gcd-1 starts, played
by ``sylver tournament --openings tests/data/analysis/starts.txt --rules classic --seed 35``) are
judged move by move and compared with a plain-Python brute-force solve written here, independent of
the package's solvers.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from sylver.arena.analysis import (
    Analyst,
    GameAnalysis,
    MoveClass,
    Settings,
    analyse_results,
    load_results,
    wilson,
)
from sylver.arena.openings import OPENING16_REPLIES, load_suite, read_suite_file
from sylver.arena.rules import make_rules
from sylver.arena.specs import parse_specs
from sylver.arena.tournament import Config, make_games
from sylver.position import Position

DATA = Path(__file__).parent / "data" / "analysis"
SYLVER = [sys.executable, "-m", "sylver"]
OPENING16 = Path(__file__).resolve().parents[2] / "shared" / "data" / "opening16_public.json"


# -- an independent reference: positions as their sets of gaps -----------------------------------
def gaps_of(generators: tuple[int, ...]) -> frozenset[int]:
    """The legal moves (the positive integers not sums of the generators) of a gcd-1 position."""
    bound = max(generators) ** 2 + 1
    representable = [True] + [False] * bound
    for n in range(1, bound + 1):
        representable[n] = any(n >= g and representable[n - g] for g in generators)
    return frozenset(n for n in range(1, bound + 1) if not representable[n])


def after(gaps: frozenset[int], m: int) -> frozenset[int]:
    """The gaps left once m is named: g stays a gap unless g - k·m is 0 or a sum, for some k >= 1."""
    return frozenset(g for g in gaps if not any(g - k * m == 0 or (g - k * m) not in gaps
                                                for k in range(1, g // m + 1)))


@cache
def wins(gaps: frozenset[int]) -> bool:
    """Does the player to move win?  Naming 1 loses, so only moves other than 1 can win."""
    return any(not wins(after(gaps, m)) for m in gaps if m != 1)


def reference_verdict(generators: tuple[int, ...], move: int) -> MoveClass:
    gaps = gaps_of(generators)
    if not wins(gaps):
        return MoveClass.FORCED
    if move == 1 or wins(after(gaps, move)):
        return MoveClass.BLUNDER
    return MoveClass.WINNING


def copy_results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    out.mkdir()
    for name in ("plan.json", "games.jsonl"):
        shutil.copy(DATA / name, out / name)
    return out


def comparable(games: list[GameAnalysis]) -> list[tuple]:
    return [(g.game, g.phase, g.notes) for g in games]


# -- the analysis ------------------------------------------------------------------------------------
class TestAnalysis:
    def test_every_move_is_judged_as_the_brute_force_judges_it(self, tmp_path: Path) -> None:
        records, names = load_results(DATA)
        assert len(records) == 108 and names == ["random", "greedy", "sage"]
        result = analyse_results(None, records, names, Settings(max_t=150), jobs=2)
        seen = {v: 0 for v in MoveClass}
        for rec, ga in zip(records, result.games, strict=True):
            legal = [m for m in rec.moves if isinstance(m, int)]
            assert [n.move for n in ga.notes] == legal[: len(ga.notes)] and len(ga.notes) == len(legal)
            for n in ga.notes:
                assert n.verdict is reference_verdict(n.position, n.move), (rec.game, n)
                seen[n.verdict] += 1
                if n.verdict in (MoveClass.WINNING, MoveClass.BLUNDER):  # the move named as best wins
                    assert n.best is not None and not wins(after(gaps_of(n.position), n.best))
        assert seen[MoveClass.UNDECIDED] == 0 and min(seen[v] for v in MoveClass if v is not MoveClass.UNDECIDED) > 20
        # per bot: the counts of the judged moves, and the first blunder of each bot in each game
        for name, s in result.stats.items():
            mine = [(ga.game, n) for ga in result.games for n in ga.notes if ga.players[n.seat] == name]
            assert s.blunders == sum(n.verdict is MoveClass.BLUNDER for _, n in mine)
            assert s.decided_n_moves == sum(n.verdict in (MoveClass.WINNING, MoveClass.BLUNDER) for _, n in mine)
            firsts = {}
            for game, n in mine:
                if n.verdict is MoveClass.BLUNDER:
                    firsts.setdefault(game, n)
            assert [(b["game"], b["move"]) for b in s.first_blunders] == [(g, n.move) for g, n in firsts.items()]
        assert result.stats["random"].blunders > result.stats["sage"].blunders

    def test_positions_beyond_the_bound_are_undecided(self) -> None:
        records, names = load_results(DATA)
        analyst = Analyst(Settings(max_t=25))
        undecided = 0
        for rec in records[:30]:
            for n in analyst.game(rec).notes:
                t = max(gaps_of(n.position))
                if t > 25:
                    assert n.verdict is MoveClass.UNDECIDED and n.why == f"t = {t} > 25"
                    undecided += 1
                else:
                    assert n.verdict is reference_verdict(n.position, n.move)
        assert undecided > 0

    def test_a_position_not_decided_is_solved_once(self, tmp_path, monkeypatch) -> None:
        """A position the solver did not decide in its seconds is written to the ``undecided`` file,
        and an analyst given that file (a rerun) takes it from there without solving; not with more
        seconds than it was given (issue 53: a stopped analysis gave every undecided position of
        three pass wars its seconds again).  The solver is replaced by one that decides nothing and
        counts its calls, so that no machine is fast enough to change the test."""
        p = Position("11,38")
        path = tmp_path / "analysis-undecided.jsonl"
        settings = Settings(max_t=400, seconds=0.01)
        solved: list[Position] = []

        def undecided(self: Analyst, q: Position) -> tuple[None, str]:
            solved.append(q)
            return None, f"not decided within {self.settings.seconds:g} s of CPU time"

        monkeypatch.setattr(Analyst, "_solve", undecided)
        first = Analyst(settings, undecided=path)
        why = first.decide(p)
        assert why == "t = 369: not decided within 0.01 s of CPU time" and solved == [p]
        assert first.decide(p) == why and len(path.read_text().splitlines()) == 1  # memoised
        assert solved == [p]

        solved.clear()
        assert Analyst(settings, undecided=path).decide(p) == why and not solved
        longer = Analyst(Settings(max_t=400, seconds=5.0), undecided=path)
        assert longer.decide(p) == "t = 369: not decided within 5 s of CPU time" and solved == [p]

    def test_g_above_1_positions_the_engine_proves(self) -> None:
        """{4} is N and 6 wins ({4,6} is P: Sicherman 2002, sec. 1-2); {4,6} is P: every move is
        forced; from the empty position every prime >= 5 wins (Hutchings)."""
        from sylver.arena.games import PlayedGame
        from sylver.position import Termination

        rec = PlayedGame(game=1, phase=0, round=1, seed=0, players=("a", "b"), start=(4,), moves=(6, 9, 5),
                         times=(0.0, 0.0, 0.0), walls=(0.0, 0.0, 0.0), winner_seat=0, reason=Termination.NAMED_ONE,
                         detail="")
        notes = Analyst(Settings()).game(rec).notes
        assert [n.verdict for n in notes[:2]] == [MoveClass.WINNING, MoveClass.FORCED]
        assert notes[2].verdict is reference_verdict(notes[2].position, 5)  # {4,6,9}: gcd 1
        empty = PlayedGame(game=2, phase=0, round=1, seed=0, players=("a", "b"), start=(), moves=(7,),
                           times=(0.0,), walls=(0.0,), winner_seat=0, reason=Termination.NAMED_ONE, detail="")
        assert Analyst(Settings()).game(empty).notes[0].verdict is MoveClass.WINNING

    def test_wilson_interval(self) -> None:
        assert wilson(0, 0) == (0.0, 1.0)
        lo, hi = wilson(0, 181)
        assert lo == 0.0 and 0.020 < hi < 0.021  # 0 blunders in 181 moves: below 2.1 % at 95 %
        for k, n in ((1, 10), (5, 12), (50, 100)):
            lo, hi = wilson(k, n)
            assert lo < k / n < hi
            assert math.isclose(lo, 1 - wilson(n - k, n)[1]) and math.isclose(hi, 1 - wilson(n - k, n)[0])

    def test_results_files(self, tmp_path: Path) -> None:
        out = copy_results(tmp_path)
        records, names = load_results(out)
        analyse_results(out, records[:10], names, Settings(), jobs=1)
        doc = json.loads((out / "analysis.json").read_text())
        assert doc["games"] == 10 and [b["name"] for b in doc["bots"]] == names
        lines = (out / "analysis.jsonl").read_text().splitlines()
        assert json.loads(lines[0]) == Settings().header() and len(lines) == 11
        csv_lines = (out / "blunders.csv").read_text().splitlines()
        assert csv_lines[0] == "game,bot,ply,position,move,best,time"
        assert len(csv_lines) == 1 + len(doc["first_blunders"]) > 1
        with pytest.raises(ValueError, match="other settings"):
            analyse_results(out, records, names, Settings(max_t=99))


class TestResume:
    def test_analysis_resumes_after_kill_9(self, tmp_path: Path) -> None:
        """A run that kills itself with SIGKILL after its fifth game, a line torn by a kill, then
        `sylver blunders`: the five games are kept (not redone), the rest analysed, the result is that
        of an uninterrupted run."""
        out = copy_results(tmp_path)
        driver = (
            "import os, signal, sys\n"
            "from pathlib import Path\n"
            "from sylver.arena.analysis import Settings, analyse_results, load_results\n"
            "out = Path(sys.argv[1])\n"
            "records, names = load_results(out)\n"
            "def progress(ga, done, total):\n"
            "    if done == 5:\n"
            "        os.kill(os.getpid(), signal.SIGKILL)\n"
            "analyse_results(out, records, names, Settings(), jobs=1, progress=progress)\n"
        )
        killed = subprocess.run([sys.executable, "-c", driver, str(out)], capture_output=True, timeout=300)
        assert killed.returncode == -9, killed.stderr
        journal = out / "analysis.jsonl"
        before = journal.read_bytes()
        assert len(before.splitlines()) == 6 and not (out / "analysis.json").exists()
        with open(journal, "ab") as f:
            f.write(b'{"game": 77, "phase": 0, "play')  # torn by a kill
        done = subprocess.run([*SYLVER, "blunders", str(out), "-j", "2"], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.count("Analysed game") == 108 - 5
        after_run = journal.read_bytes()
        assert after_run.startswith(before)
        lines = [json.loads(x) for x in after_run.splitlines()[1:]]
        assert sorted(d["game"] for d in lines) == list(range(1, 109))
        records, names = load_results(out)
        resumed = analyse_results(out, records, names, Settings())  # everything is in the journal now
        assert journal.read_bytes() == after_run
        fresh = analyse_results(None, records, names, Settings(), jobs=2)
        assert comparable(resumed.games) == comparable(fresh.games)
        standings = json.loads((out / "analysis.json").read_text())
        assert standings["games"] == 108


# -- opening suites ----------------------------------------------------------------------------------
class TestOpenings:
    def test_bundled_suites(self) -> None:
        assert load_suite("empty").starts == ((),)
        assert load_suite("one-number").starts == tuple((n,) for n in range(4, 41))
        paper = load_suite("paper").starts
        assert (4, 6) in paper and (8, 30, 34) in paper and (5, 14) in paper and (2, 3) not in paper
        assert load_suite("opening16").starts == tuple((16, r) for r in OPENING16_REPLIES)
        koth = load_suite("koth:3", seed=7).starts
        assert koth == load_suite("koth:3", seed=7).starts != load_suite("koth:3", seed=8).starts
        assert all(100_000 <= a <= 999_999 and 100_000 <= b <= 999_999 and math.gcd(a, b) == 1 for a, b in koth)
        assert len(load_suite("koth").starts) == 50

    @pytest.mark.skipif(not OPENING16.exists(), reason="the published data is not on this machine")
    def test_opening16_replies_are_the_public_ledgers(self) -> None:
        ledger = json.loads(OPENING16.read_text())["replies_answered"]
        assert sorted(int(r) for r in ledger) == list(OPENING16_REPLIES)

    def test_a_suite_file(self, tmp_path: Path) -> None:
        f = tmp_path / "suite.txt"
        f.write_text("# comment\n\n4, 9\n{16,20}  # the opening 16\n[6 9 20]\n")
        assert read_suite_file(f).starts == ((4, 9), (16, 20), (6, 9, 20))

    @pytest.mark.parametrize("line", ["4, x", "{4,5", "0, 5", "1, 7", "4,,9"])
    def test_a_malformed_line_is_refused_in_one_line(self, tmp_path: Path, line: str) -> None:
        f = tmp_path / "bad.txt"
        f.write_text(f"5, 7\n# ok\n{line}\n")
        for args in (["match", "random", "greedy"], ["tournament", "-b", "random", "-b", "greedy", "-o",
                                                     str(tmp_path / "out")]):
            r = subprocess.run([*SYLVER, *args, "--openings", str(f)], capture_output=True, text=True, timeout=60)
            assert r.returncode == 2 and r.stdout == "", r.stderr
            assert r.stderr.startswith(f"sylver: error: {f}:3: ") and r.stderr.count("\n") == 1, r.stderr
        assert not (tmp_path / "out").exists()

    def test_each_start_is_played_twice_with_the_seats_swapped(self) -> None:
        suite = load_suite("one-number")
        config = Config(parse_specs(["random", "greedy", "sage"]), make_rules("classic"), rounds=2, openings=suite)
        games = make_games(config, 0, [0, 1, 2])
        assert len(games) == 2 * 3 * len(suite.starts) * 2
        pairs: dict[tuple, list] = {}
        for g in games:
            pairs.setdefault((g.round, frozenset(g.players), g.start), []).append(g.players)
        assert all(len(p) == 2 and p[0] == p[1][::-1] for p in pairs.values())
        assert Config.from_json(config.to_json()).identity() == config.identity()

    def test_match_with_openings_and_analysis(self, tmp_path: Path) -> None:
        f = tmp_path / "two.txt"
        f.write_text("5,7\n4,9\n")
        r = subprocess.run([*SYLVER, "match", "random", "greedy", "--openings", str(f), "-n", "3", "--rules",
                            "classic", "-o", str(tmp_path / "out"), "--analyse", "--json", "-j", "1"],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["games"] == 4 and doc["analysis"]["games"] == 4
        assert all("blunders" in s and "blunder_low" in s for s in doc["standings"])
        games = [json.loads(x) for x in (tmp_path / "out" / "games.jsonl").read_text().splitlines()]
        assert sorted(tuple(g["start"]) for g in games) == [(4, 9), (4, 9), (5, 7), (5, 7)]
        standings = json.loads((tmp_path / "out" / "standings.json").read_text())
        assert all("decided_n_moves" in s for s in standings["standings"])
        assert "blunder_rate" in (tmp_path / "out" / "standings.csv").read_text().splitlines()[0]
