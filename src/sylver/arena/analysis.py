"""Blunder analysis of played games: every move made from a position the engine decides is judged.

A position is an N-position when the player to move has a winning move (one leaving a P-position),
a P-position when every move loses (Sicherman, "Theory and Practice of Sylver Coinage", Integers
2002, sec. 1).  A move made from a decided position is

- ``winning``: from an N-position, it leaves a P-position;
- ``blunder``: from an N-position, it leaves an N-position (the win is handed to the opponent);
- ``forced``: from a P-position (every move loses; nothing to judge);
- ``undecided``: the engine does not decide the position (gcd 1 with a Frobenius number t above
  the bound, a g > 1 position not proven within the time given), or, from an N-position, the
  position the move leaves.

Positions are decided by :func:`sylver.solver.solve` within ``seconds`` of CPU time each (so that
a proof does not depend on the machine's load; at most WALL_FACTOR × that of wall-clock time): gcd 1
with t <= ``max_t`` exactly; the empty position and g > 1 by the theorems and the paper's published
results (:mod:`sylver.theory`: {p} is P for a prime p >= 5, {8,12} is P, 6 wins in {4}, ...), else
by the solver's g > 1 engine (what it proves, never more).  What the solver decides is kept in a
results store (``analysis.sqlite`` in the results directory): a position proven once is proven for
every game, in every worker and in a rerun.
It is asked for one winning move (``first``); a move other than that one is judged by deciding the
position it leaves.  A bot's *blunder rate* is blunders / decided N-moves (winning + blunder),
with its 95 % Wilson interval.

Results directory: ``analysis.jsonl`` (a header line with the settings, then one line per game,
appended and fsync'ed as each game is analysed; a rerun skips the games in it, so a run killed
with ``kill -9`` resumes), then ``analysis.json`` (per bot, and the first blunder of each bot in
each game), ``blunders.csv`` (those first blunders), and the blunder columns merged into
``standings.json`` and ``standings.csv``.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import asdict, dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.arena.games import PlayedGame
from sylver.position import Outcome, Position

if TYPE_CHECKING:
    from sylver.solver import Solution

ANALYSIS_VERSION = 1
MAX_T = 150
"""Default bound on the Frobenius number of the gcd-1 positions solved (the public arena's)."""
SECONDS = 10.0
"""Default seconds of CPU time the engine gets for one position."""
WALL_FACTOR = 10.0
"""A position gets at most this × ``seconds`` of wall-clock time (a worker getting a tenth of a core)."""
STORE = "analysis.sqlite"
"""The results store of an analysis, in its results directory."""
FIRST_BLUNDERS_SHOWN = 20
"""First blunders printed (all are in analysis.json and blunders.csv)."""


class MoveClass(Enum):
    """What a move was, judged from the position it was made in (its class in the analysis; the
    position's own answer is a :class:`sylver.position.Verdict`)."""

    WINNING = "winning"
    BLUNDER = "blunder"
    FORCED = "forced"
    UNDECIDED = "undecided"


@dataclass(frozen=True)
class Settings:
    """What the engine is asked to decide (a rerun must use the same, or analyse afresh)."""

    max_t: int = MAX_T
    """gcd-1 positions with a Frobenius number above this are not solved."""
    seconds: float = SECONDS
    """Seconds of CPU time the engine gets for one position (a position it does not decide in that
    time is undecided)."""
    store: str = ""
    """The results store the decided positions are kept in and read from (empty: none); not part of
    the header: a rerun reads what is there."""

    def header(self) -> dict[str, Any]:
        return {"analysis": ANALYSIS_VERSION, "max_t": self.max_t, "seconds": self.seconds}


@dataclass(frozen=True)
class Decision:
    """A decided position."""

    outcome: Outcome
    winning_moves: tuple[int, ...]
    """Winning moves (sorted): all of them when ``complete``."""
    complete: bool


@dataclass(frozen=True, kw_only=True)
class MoveNote:
    """The judgement of one move."""

    ply: int
    """0 for the first move of the game."""
    seat: int
    """0: the first mover."""
    position: tuple[int, ...]
    """The minimal generators of the position the move was made in."""
    move: int
    verdict: MoveClass
    best: int | None = None
    """A winning move in the position: the move itself when it wins, else the one the engine found
    (None in a P-position, or when the position is undecided)."""
    why: str = ""
    """Why the move is undecided."""
    time: float = 0.0
    """CPU seconds the bot took for the move (from games.jsonl)."""

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["position"] = list(self.position)
        d["verdict"] = self.verdict.value
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> MoveNote:
        return cls(ply=d["ply"], seat=d["seat"], position=tuple(d["position"]), move=d["move"],
                   verdict=MoveClass(d["verdict"]), best=d.get("best"), why=d.get("why", ""),
                   time=d.get("time", 0.0))


@dataclass(frozen=True, kw_only=True)
class GameAnalysis:
    """The judged moves of one game (one line of analysis.jsonl)."""

    game: int
    phase: int
    players: tuple[str, str]
    notes: tuple[MoveNote, ...]
    seconds: float = 0.0
    """Wall seconds the analysis took."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "phase": self.phase, "players": list(self.players),
                "seconds": round(self.seconds, 6), "moves": [n.to_json() for n in self.notes]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameAnalysis:
        a, b = d["players"]
        return cls(game=d["game"], phase=d["phase"], players=(a, b), seconds=d.get("seconds", 0.0),
                   notes=tuple(MoveNote.from_json(n) for n in d["moves"]))

    def first_blunders(self) -> list[MoveNote]:
        """The first blunder of each seat (in the order they were made)."""
        seen: dict[int, MoveNote] = {}
        for n in self.notes:
            if n.verdict is MoveClass.BLUNDER and n.seat not in seen:
                seen[n.seat] = n
        return sorted(seen.values(), key=lambda n: n.ply)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion k / n (95 % for z = 1.96); (0, 1) when n = 0."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


class Analyst:
    """Decides positions (memoised) and judges the moves made in them.

    ``undecided``: a file of the positions the solver did not decide within ``settings.seconds``
    (one JSON line each, appended as they come): read first, so that a rerun, or another analyst
    given the same file, does not give them their seconds again (the store keeps decided positions
    only).  A line written with fewer seconds than the settings' is not taken."""

    def __init__(self, settings: Settings, undecided: str | Path | None = None) -> None:
        from sylver.bots.oracle import CpuShare
        from sylver.store.results import Store

        self.settings = settings
        self.memo: dict[Position, Decision | str] = {}
        self.share = CpuShare()
        self.store = Store(settings.store) if settings.store else None
        self.undecided = Path(undecided) if undecided else None
        if self.undecided is not None and self.undecided.exists():
            for line in self.undecided.read_text().splitlines():
                try:
                    rec = json.loads(line)
                    if rec["seconds"] >= settings.seconds:
                        self.memo[Position(rec["position"])] = rec["why"]
                except (ValueError, KeyError, TypeError):  # a line torn by a kill
                    continue

    def decide(self, p: Position) -> Decision | str:
        """The position's outcome and winning moves, or why it is not decided."""
        hit = self.memo.get(p)
        if hit is None:
            hit = self.memo[p] = self._decide(p)
        return hit

    def _decide(self, p: Position) -> Decision | str:
        from sylver.errors import TooLargeError

        if p.is_terminal:
            return Decision(Outcome.P, (), True)
        what = f"t = {p.frobenius_number}" if p.is_finite else f"g = {p.gcd}"
        if p.is_finite and p.frobenius_number > self.settings.max_t:
            return f"{what} > {self.settings.max_t}"
        if not p.is_finite:
            known = _by_theory(p)
            if known is not None:
                return known
        if self.store is not None:
            rec = self.store.get(p)
            if rec is not None:
                return Decision(rec.outcome, tuple(sorted(rec.winning_moves)), rec.complete)
        try:
            sol, why = self._solve(p)
        except MemoryError:
            return f"{what}: out of memory"
        except (TooLargeError, ValueError):
            return f"{what}: out of the engine's range"
        if sol is None or sol.outcome is None:
            if self.undecided is not None:
                with self.undecided.open("a") as f:
                    f.write(json.dumps({"position": str(p), "seconds": self.settings.seconds,
                                        "why": f"{what}: {why}"}) + "\n")
            return f"{what}: {why}"
        if self.store is not None:
            self.store.put(sol)
        return Decision(sol.outcome, tuple(sol.winning_moves), bool(sol.complete))

    def _solve(self, p: Position) -> tuple[Solution | None, str]:
        """The solver's answer within ``seconds`` of CPU time (:func:`sylver.bots.oracle.cpu_limited`),
        or None and why not."""
        from sylver.bots.oracle import cpu_limited
        from sylver.solver import SolveTimeout, solve

        seconds = self.settings.seconds
        why = [f"not decided within {seconds:g} s of CPU time"]

        def attempt(limit: float) -> Solution | None:
            try:
                sol = solve(p, first=True, time_limit=limit)
            except SolveTimeout:
                return None
            if sol.outcome is None:
                why.append(f"not proven ({sol.verdict})")
                return None
            return sol

        sol = cpu_limited(attempt, seconds, WALL_FACTOR * seconds, self.share)
        return sol, why[-1]

    def judge(self, p: Position, move: int) -> tuple[MoveClass, int | None, str]:
        """(verdict, a winning move, why undecided) of ``move`` made in ``p``."""
        d = self.decide(p)
        if isinstance(d, str):
            return MoveClass.UNDECIDED, None, d
        if d.outcome is Outcome.P:
            return MoveClass.FORCED, None, ""
        best = d.winning_moves[0] if d.winning_moves else None
        if move in d.winning_moves:
            return MoveClass.WINNING, move, ""
        if d.complete or move == 1:
            return MoveClass.BLUNDER, best, ""
        after = self.decide(p.play(move))
        if isinstance(after, str):
            return MoveClass.UNDECIDED, best, f"after {move}: {after}"
        if after.outcome is Outcome.P:
            return MoveClass.WINNING, move, ""
        return MoveClass.BLUNDER, best, ""

    def game(self, rec: PlayedGame) -> GameAnalysis:
        """Every legal move of ``rec`` judged (an illegal or invalid last answer is not a move)."""
        from sylver.errors import TooLargeError

        started = time.monotonic()
        notes = []
        try:
            p = Position(rec.start)
            for ply, move in enumerate(rec.moves):
                if type(move) is not int or not p.is_legal(move):
                    break
                verdict, best, why = self.judge(p, move)
                notes.append(MoveNote(ply=ply, seat=ply % 2, position=p.generators, move=move, verdict=verdict,
                                      best=best, why=why, time=rec.times[ply] if ply < len(rec.times) else 0.0))
                if move == 1:
                    break
                p = p.play(move)
        except TooLargeError:  # a position only the referee's arithmetic can hold: the rest is not judged
            pass
        return GameAnalysis(game=rec.game, phase=rec.phase, players=rec.players, notes=tuple(notes),
                            seconds=time.monotonic() - started)


def _by_theory(p: Position) -> Decision | None:
    """What the theorems and the paper's published results decide about a position with g ≠ 1
    (:func:`sylver.theory.known_outcome`, :func:`sylver.theory.winning_move_by_theory`), or None."""
    from sylver.theory import known_outcome, winning_move_by_theory

    outcome = known_outcome(p)
    if outcome is None:
        return None
    move = winning_move_by_theory(p) if outcome is Outcome.N else None
    return Decision(outcome, (move,) if move is not None else (), outcome is Outcome.P)


_analyst: Analyst | None = None


def analyse_game(task: tuple[dict[str, Any], Settings]) -> dict[str, Any]:
    """One game (a line of games.jsonl) analysed in a worker process: its line of analysis.jsonl.
    The worker keeps its analyst (and so the positions it decided) for the next games."""
    global _analyst
    line, settings = task
    if _analyst is None or _analyst.settings != settings:
        _analyst = Analyst(settings)
    return _analyst.game(PlayedGame.from_json(line)).to_json()


@dataclass
class BlunderStats:
    """One bot's line of the analysis."""

    name: str
    moves: int = 0
    """Legal moves analysed."""
    winning: int = 0
    blunders: int = 0
    forced: int = 0
    undecided: int = 0
    first_blunders: list[dict[str, Any]] = field(default_factory=list)
    """The bot's first blunder in each game where it made one: game, ply, position, move, best."""

    @property
    def decided_n_moves(self) -> int:
        return self.winning + self.blunders

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.blunders, self.decided_n_moves)

    def rate_text(self) -> str:
        """``3/120 = 2.5 % [0.9 - 7.1 %]``."""
        lo, hi = self.interval
        n = self.decided_n_moves
        return f"{self.blunders}/{n} = {100 * self.blunders / max(n, 1):.1f} % [{100 * lo:.1f} - {100 * hi:.1f} %]"

    def columns(self) -> dict[str, Any]:
        """The columns merged into the standings."""
        lo, hi = self.interval
        n = self.decided_n_moves
        return {"blunders": self.blunders, "decided_n_moves": n,
                "blunder_rate": self.blunders / n if n else None, "blunder_low": lo, "blunder_high": hi,
                "winning_moves": self.winning, "forced_moves": self.forced, "undecided_moves": self.undecided}

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "moves": self.moves, **self.columns(), "first_blunders": self.first_blunders}


def summarise(names: Iterable[str], games: Iterable[GameAnalysis]) -> dict[str, BlunderStats]:
    """Per bot (in the order of ``names``) the counts of its judged moves and its first blunders."""
    stats = {n: BlunderStats(n) for n in names}
    for ga in sorted(games, key=lambda g: (g.phase, g.game)):
        for n in ga.notes:
            s = stats.setdefault(ga.players[n.seat], BlunderStats(ga.players[n.seat]))
            s.moves += 1
            if n.verdict is MoveClass.WINNING:
                s.winning += 1
            elif n.verdict is MoveClass.BLUNDER:
                s.blunders += 1
            elif n.verdict is MoveClass.FORCED:
                s.forced += 1
            else:
                s.undecided += 1
        for n in ga.first_blunders():
            stats[ga.players[n.seat]].first_blunders.append(
                {"game": ga.game, "ply": n.ply, "position": list(n.position), "move": n.move, "best": n.best,
                 "time": n.time})
    return stats


class Journal:
    """analysis.jsonl: the settings, then one line per analysed game, appended and fsync'ed."""

    def __init__(self, path: Path | None, settings: Settings) -> None:
        self.path = path
        self.settings = settings
        self.games: dict[tuple[int, int], GameAnalysis] = {}

    def load(self) -> None:
        """Read what an earlier run analysed (a line torn by a kill is dropped); a journal made with
        other settings raises ValueError."""
        if self.path is None or not self.path.exists():
            return
        data = self.path.read_bytes()
        good = 0
        for i, line in enumerate(data.split(b"\n")):
            end = good + len(line) + 1
            if end > len(data):  # no newline: cut by a kill
                break
            try:
                d = json.loads(line)
            except ValueError:
                break
            if i == 0:
                if d != self.settings.header():
                    raise ValueError(
                        f"{self.path} was made with other settings ({_settings_text(d)}); rerun with them, "
                        "or delete the file to analyse afresh")
            else:
                ga = GameAnalysis.from_json(d)
                self.games[(ga.phase, ga.game)] = ga
            good = end
        if good < len(data):
            with open(self.path, "r+b") as f:
                f.truncate(good)

    def append(self, ga: GameAnalysis) -> None:
        self.games[(ga.phase, ga.game)] = ga
        if self.path is None:
            return
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "a") as f:
            if fresh:
                f.write(json.dumps(self.settings.header()) + "\n")
            f.write(json.dumps(ga.to_json()) + "\n")
            f.flush()
            os.fsync(f.fileno())


def _settings_text(header: dict[str, Any]) -> str:
    return f"--max-t {header.get('max_t')}, --solve-seconds {header.get('seconds')}"


Progress = Callable[[GameAnalysis, int, int], None]
"""Called with each game analysed, the number analysed so far and the total."""


def analyse_games(records: list[PlayedGame], settings: Settings, journal: Journal, *, jobs: int = 1,
                  progress: Progress | None = None) -> list[GameAnalysis]:
    """Analyse ``records`` (those in ``journal`` are kept, not redone) on ``jobs`` worker processes;
    every game's analysis, in the order of ``records``."""
    from sylver.campaign.attempt import init_worker
    from sylver.executors import make_executor

    todo = [r for r in records if (r.phase, r.game) not in journal.games]
    done = len(records) - len(todo)
    if todo:
        with make_executor(jobs, initializer=init_worker) as pool:
            pending = {pool.submit(analyse_game, (r.to_json(), settings)) for r in todo}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    ga = GameAnalysis.from_json(fut.result())
                    journal.append(ga)
                    done += 1
                    if progress is not None:
                        progress(ga, done, len(records))
    return [journal.games[(r.phase, r.game)] for r in records]


@dataclass
class Analysis:
    """What :func:`analyse_results` returns."""

    settings: Settings
    games: list[GameAnalysis]
    stats: dict[str, BlunderStats]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        first = sorted(({"bot": s.name, **b} for s in self.stats.values() for b in s.first_blunders),
                       key=lambda b: (b["game"], b["ply"]))
        return {**self.settings.header(), "games": len(self.games), "seconds": round(self.seconds, 3),
                "bots": [s.to_json() for s in self.stats.values()], "first_blunders": first}


def analyse_results(out: Path | None, records: list[PlayedGame], names: list[str], settings: Settings, *,
                    jobs: int = 1, progress: Progress | None = None) -> Analysis:
    """Analyse the games ``records`` of the results directory ``out`` (None: in memory, no files),
    resuming its analysis.jsonl; write analysis.json, blunders.csv and the blunder columns of the
    standings."""
    started = time.monotonic()
    if out is not None and not settings.store:
        settings = replace(settings, store=str(out / STORE))
    journal = Journal(out / "analysis.jsonl" if out is not None else None, settings)
    journal.load()
    games = analyse_games(records, settings, journal, jobs=jobs, progress=progress)
    result = Analysis(settings, games, summarise(names, games), time.monotonic() - started)
    if out is not None:
        write_analysis(out, result)
    return result


def write_analysis(out: Path, result: Analysis) -> None:
    """analysis.json, blunders.csv, and the blunder columns in standings.json / standings.csv."""
    from sylver.arena.tournament import STANDINGS_COLUMNS, fsync_write, write_csv

    doc = result.to_json()
    fsync_write(out / "analysis.json", json.dumps(doc, indent=1) + "\n")
    cols = ["game", "bot", "ply", "position", "move", "best", "time"]
    write_csv(out / "blunders.csv", cols, [{**b, "position": " ".join(map(str, b["position"]))}
                                           for b in doc["first_blunders"]])
    path = out / "standings.json"
    if not path.exists():
        return
    standings = json.loads(path.read_text())
    for row in standings["standings"]:
        s = result.stats.get(row["name"])
        row.update(s.columns() if s is not None else BlunderStats(row["name"]).columns())
    standings["analysis"] = {k: v for k, v in doc.items() if k != "bots"}
    fsync_write(path, json.dumps(standings, indent=1) + "\n")
    write_csv(out / "standings.csv", STANDINGS_COLUMNS + ANALYSIS_COLUMNS, standings["standings"])


ANALYSIS_COLUMNS = ["blunders", "decided_n_moves", "blunder_rate", "blunder_low", "blunder_high",
                    "winning_moves", "forced_moves", "undecided_moves"]
"""The columns the analysis adds to standings.csv."""


def load_results(out: Path) -> tuple[list[PlayedGame], list[str]]:
    """The finished games of a results directory's last phase, and its bots (ValueError if it holds
    no tournament)."""
    from sylver.arena.tournament import Config, ResultsDir

    plan_path = out / "plan.json"
    try:
        plan = json.loads(plan_path.read_text())
        config = Config.from_json(plan["config"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{out}: not a tournament's results directory (plan.json: {exc})") from None
    results = ResultsDir(out)
    results.load_or_create(config)
    phase = max(0, len(plan.get("phases", [])) - 1)
    records = sorted(results.done(phase).values(), key=lambda r: r.game)
    return records, config.names
