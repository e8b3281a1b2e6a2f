"""Tournaments: the plan, the results directory, running games on an Executor, resuming.

Results directory (``--out``):

- ``plan.json``: the configuration and every game (id, round, players, seed, start), written
  atomically before the first game is played;
- ``games.jsonl``: one line per finished game, appended and fsync'ed as each game ends;
- ``standings.json`` / ``standings.csv``: written at the end.

Rerunning the same command on the same directory resumes: games already in ``games.jsonl`` are kept
and never replayed; the others are played.  A game's seed is a hash of the tournament seed, the
phase and the game id, so a replayed game is the same game.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sylver.arena.cgroups import sweep_stale
from sylver.arena.games import GameLine, GameSpec, PlayedGame, VoidGame, game_from_json
from sylver.arena.openings import Suite
from sylver.arena.ratings import BotStats, standings
from sylver.arena.rules import Rules
from sylver.arena.sandbox import DEFAULT_MEMORY_MB, BotProcess, check_sandbox
from sylver.arena.specs import BotSpec
from sylver.arena.worker import GameTask, read_journals, run_game
from sylver.executors import default_jobs, make_executor
from sylver.position import Termination

PLAN_VERSION = 1


def game_seed(seed: int, phase: int, game_id: int) -> int:
    """The seed of one game: a 63-bit hash of (tournament seed, phase, game id)."""
    h = hashlib.sha256(f"sylver-arena:{seed}:{phase}:{game_id}".encode()).digest()
    return int.from_bytes(h[:8], "big") >> 1


@dataclass
class Config:
    """A tournament: who plays, under which rules, how often."""

    specs: list[BotSpec]
    rules: Rules
    rounds: int = 100
    seed: int = 0
    disqualify_on_timeout: bool = False
    memory_mb: int = DEFAULT_MEMORY_MB
    pairs: list[tuple[int, int]] | None = None
    """Only these pairs play (``match``); None: round robin."""
    unsafe_no_sandbox: bool = False
    """Run untrusted bots without the sandbox (a run-time choice: not part of the plan)."""
    openings: Suite | None = None
    """Each round plays every start of this suite twice per pair, the seats swapped (``--openings``);
    None: one start per game from the rules."""

    def to_json(self) -> dict:
        return {
            "bots": [s.to_json() for s in self.specs], "rules": self.rules.to_json(), "rounds": self.rounds,
            "seed": self.seed, "disqualify_on_timeout": self.disqualify_on_timeout,
            "memory_mb": self.memory_mb, "pairs": [list(p) for p in self.pairs] if self.pairs else None,
            "openings": self.openings.to_json() if self.openings else None,
        }

    @classmethod
    def from_json(cls, d: dict) -> Config:
        return cls([BotSpec.from_json(s) for s in d["bots"]], Rules.from_json(d["rules"]), rounds=d["rounds"],
                   seed=d["seed"], disqualify_on_timeout=d["disqualify_on_timeout"], memory_mb=d["memory_mb"],
                   pairs=[tuple(p) for p in d["pairs"]] if d.get("pairs") else None,
                   openings=Suite.from_json(d["openings"]) if d.get("openings") else None)

    def describe(self) -> str:
        """The rules line of the tournament: the rules, with the openings' starts when it has them."""
        return self.rules.describe(self.openings)

    def identity(self) -> dict:
        """What must match for a resume (specs by their text and name, not resolved paths)."""
        d = self.to_json()
        d.pop("memory_mb")
        d["bots"] = [{"name": s.name, "kind": s.kind, "target": s.target, "cls": s.cls, "argv": list(s.argv)}
                     | ({"move_time": s.move_time, "options": [list(o) for o in s.options]}
                        if s.move_time is not None or s.options else {})
                     for s in self.specs]
        return d

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.specs]


def make_games(config: Config, phase: int, active: list[int]) -> list[GameSpec]:
    """Every game of one phase: each round, every pair twice (each bot first once) from each start of
    the opening suite, or from one start of the rules."""
    import random

    pairs = config.pairs or [(i, j) for i in range(len(config.specs)) for j in range(i + 1, len(config.specs))]
    pairs = [(i, j) for i, j in pairs if i in active and j in active]
    openings: list[tuple[int, ...] | None] = list(config.openings.starts) if config.openings else [None]
    games = []
    gid = 0
    for rnd in range(1, config.rounds + 1):
        for (i, j), opening in ((pair, o) for pair in pairs for o in openings):
            for first, second in ((i, j), (j, i)):
                gid += 1
                seed = game_seed(config.seed, phase, gid)
                start = config.rules.draw_start(random.Random(seed)) if opening is None else opening
                games.append(GameSpec(id=gid, phase=phase, round=rnd, seats=(first, second),
                                      players=(config.specs[first].name, config.specs[second].name),
                                      seed=seed, start=tuple(start)))
    return games


def fsync_write(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` atomically, durable once this returns."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    try:
        fd = os.open(path.parent, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
    except OSError:
        pass


class ResultsDir:
    """plan.json, games.jsonl and the standings files of one tournament (or none: in memory)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.records: list[GameLine] = []

    def load_or_create(self, config: Config) -> dict:
        """The plan (phases, games): loaded on resume, written first otherwise."""
        if self.path is None:
            return {"version": PLAN_VERSION, "config": config.to_json(), "phases": []}
        self.path.mkdir(parents=True, exist_ok=True)
        plan_path = self.path / "plan.json"
        if plan_path.exists():
            try:
                plan = json.loads(plan_path.read_text())
            except ValueError:
                raise ValueError(f"{plan_path} is damaged; use another --out directory") from None
            old = Config.from_json(plan["config"])
            if old.identity() != config.identity():
                raise ValueError(
                    f"{self.path} holds a different tournament (bots, rules, rounds or seed differ); "
                    "rerun the same command to resume it, or choose another --out")
            self._load_games()
            return plan
        plan = {"version": PLAN_VERSION, "config": config.to_json(), "phases": []}
        return plan

    def save_plan(self, plan: dict) -> None:
        if self.path is not None:
            fsync_write(self.path / "plan.json", json.dumps(plan, indent=1) + "\n")

    def _load_games(self) -> None:
        assert self.path is not None
        path = self.path / "games.jsonl"
        if not path.exists():
            return
        data = path.read_bytes()
        good_end = 0
        pos = 0
        for line in data.split(b"\n"):
            end = pos + len(line) + 1
            if end > len(data):  # no newline: a line cut by a kill
                break
            try:
                self.records.append(game_from_json(json.loads(line)))
                good_end = end
            except (ValueError, KeyError, TypeError):
                if line.strip():
                    break
                good_end = end
            pos = end
        if good_end < len(data):  # drop a torn last line so the next append starts clean
            with open(path, "r+b") as f:
                f.truncate(good_end)

    def append(self, record: GameLine) -> None:
        self.records.append(record)
        if self.path is None:
            return
        with open(self.path / "games.jsonl", "a") as f:
            f.write(json.dumps(record.to_json(), ensure_ascii=False) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def done(self, phase: int) -> dict[int, PlayedGame]:
        """The finished (non-void) games of a phase by id."""
        return {r.game: r for r in self.records if r.phase == phase and isinstance(r, PlayedGame)}

    def write_standings(self, table: list[BotStats], config: Config, extra: dict) -> None:
        if self.path is None:
            return
        doc = {"rules": config.rules.to_json(), "rounds": config.rounds, "seed": config.seed, **extra,
               "standings": [s.to_json() for s in table]}
        fsync_write(self.path / "standings.json", json.dumps(doc, indent=1) + "\n")
        write_csv(self.path / "standings.csv", STANDINGS_COLUMNS, [s.to_json() for s in table])


STANDINGS_COLUMNS = ["rank", "name", "points", "games", "wins", "losses", "wins_first", "wins_second", "crashes",
                     "timeouts", "illegal", "named_one", "learn_errors", "moves", "avg_time", "max_time",
                     "total_time", "elo", "elo_margin", "match_score", "wins_minus_losses", "wins_above_half",
                     "disqualified"]
"""The columns of standings.csv (the blunder analysis adds its own)."""


def write_csv(path: Path, cols: list[str], rows: list[dict]) -> None:
    """``rows`` as a CSV file with the columns ``cols`` (floats to 6 decimals), replaced atomically."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for d in rows:
            values = [d.get(c) for c in cols]
            w.writerow([round(v, 6) if isinstance(v, float) else v for v in values])
    os.replace(tmp, path)


class Events:
    """What the runner tells its user (the CLI prints these; tests may record them)."""

    def phase(self, phase: int, active: list[str], total: int, done: int) -> None: ...
    def started(self, game: GameSpec, number: int, total: int) -> None: ...
    def finished(self, record: PlayedGame, number: int, total: int) -> None: ...
    def void(self, record: VoidGame) -> None: ...
    def disqualified(self, names: list[str]) -> None: ...
    def note(self, text: str) -> None: ...


@dataclass
class TournamentResult:
    """What :func:`run_tournament` returns."""

    table: list[BotStats]
    records: list[PlayedGame]
    disqualified: list[str] = field(default_factory=list)
    phase: int = 0
    voids: int = 0
    seconds: float = 0.0


def preflight(config: Config, active: list[int]) -> None:
    """Start every bot once: one that cannot even start fails the run at once (StartError)."""
    from concurrent.futures import ThreadPoolExecutor

    def try_start(i: int) -> None:
        proc = BotProcess(config.specs[i], i, config.memory_mb, sandbox=not config.unsafe_no_sandbox)
        try:
            proc.start()
        finally:
            proc.close()

    with ThreadPoolExecutor(max_workers=min(8, max(1, len(active)))) as pool:
        for f in [pool.submit(try_start, i) for i in active]:
            f.result()  # the first bot (in command-line order) that cannot start raises


@contextmanager
def _kill_workers_on_interrupt(executor: object) -> Iterator[None]:
    """Ctrl-C: end the local worker processes at once (their bots die with them)."""
    try:
        yield
    except KeyboardInterrupt:
        for proc in list((getattr(executor, "_processes", None) or {}).values()):
            try:
                proc.kill()
            except Exception:  # noqa: BLE001
                pass
        raise


def _release_cluster_bots(executor: object) -> None:
    """On a Dask cluster, close the bots the workers keep between games (they outlive the run)."""
    client = getattr(executor, "_client", None)
    if client is None:
        return
    from sylver.arena.worker import close_all

    try:
        client.run(close_all)
    except Exception:  # noqa: BLE001 - best effort: idle bots also exit by themselves
        pass


def _exit_text(code: int | None) -> str:
    if code is None:
        return "died"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def forfeit_record(g: GameSpec, loser: int, detail: str, worker: str) -> PlayedGame:
    """The record of a game that the bot in seat ``loser`` lost before it could end (a crash)."""
    return PlayedGame(game=g.id, phase=g.phase, round=g.round, seed=g.seed, players=g.players, start=g.start,
                      moves=(), times=(), walls=(), winner_seat=1 - loser, reason=Termination.CRASH, detail=detail,
                      worker=worker)


def _disqualified_in(records: list[PlayedGame]) -> list[str]:
    out = []
    for r in records:
        if r.reason is Termination.TIMEOUT and r.loser not in out:
            out.append(r.loser)
        for e in r.learn_errors:
            if e.reason is Termination.TIMEOUT and e.bot not in out:
                out.append(e.bot)
    return out


class _PhaseRunner:
    """Plays the games of one phase on executors, one after the other if one breaks; counts the
    attempts of each game and the voids."""

    def __init__(self, config: Config, phase: int, games: list[GameSpec], *, key: str, jobs: int,
                 cluster: str | None, journal: str | None, max_attempts: int, executor_factory: Callable | None,
                 results: ResultsDir, events: Events) -> None:
        self.config, self.phase, self.games, self.key = config, phase, games, key
        self.jobs, self.cluster, self.journal = jobs, cluster, journal
        self.max_attempts = max_attempts
        self.factory = executor_factory or (lambda: make_executor(jobs, cluster))
        self.results, self.ev = results, events
        self.attempts: dict[int, int] = {}
        self.voids = 0
        self.stop = False
        self.announced: set[int] = set()

    def announce(self, g: GameSpec) -> None:
        """Tell that ``g`` started (once per attempt)."""
        if g.id not in self.announced:
            self.announced.add(g.id)
            self.ev.started(g, g.id, len(self.games))

    def give_up(self, g: GameSpec, why: str, again: list[GameSpec]) -> None:
        """A game lost through no fault of a bot: played again (at the front of ``again``) until
        ``max_attempts``, then recorded as void."""
        self.attempts[g.id] = self.attempts.get(g.id, 0) + 1
        if self.attempts[g.id] < self.max_attempts:
            self.ev.note(f"game {g.id}: {why}; playing it again")
            again.insert(0, g)
            return
        rec = VoidGame(game=g.id, phase=self.phase, players=g.players,
                       error=f"{why} ({self.attempts[g.id]} attempts): the game is void")
        self.results.append(rec)
        self.ev.void(rec)
        self.voids += 1

    def task(self, g: GameSpec, topic: str) -> GameTask:
        a, b = g.seats
        c = self.config
        return GameTask(key=self.key, game=g, rules=c.rules, bots=(c.specs[a], c.specs[b]), memory_mb=c.memory_mb,
                        sandbox=not c.unsafe_no_sandbox, journal=self.journal, started_topic=topic)

    def finished(self, g: GameSpec, rec: GameLine) -> None:
        """Keep the record of a game its worker returned."""
        self.announce(g)
        self.results.append(rec)
        if isinstance(rec, VoidGame):
            self.voids += 1
            self.ev.void(rec)
            return
        self.ev.finished(rec, g.id, len(self.games))
        if self.config.disqualify_on_timeout and _disqualified_in([rec]):
            self.stop = True

    def play(self, todo: list[GameSpec]) -> list[GameSpec]:
        """Play ``todo`` on one executor until done, stopped or the executor breaks; what is left."""
        queue = list(todo)
        with self.factory() as executor, _kill_workers_on_interrupt(executor):
            batch = _Batch(self, executor, queue)
            batch.run()
        if not batch.broken:
            return []
        return self._after_break(batch.lost, batch.workers) + queue

    def _after_break(self, lost: list[GameSpec], workers: dict) -> list[GameSpec]:
        """The pool broke: its processes are gone, their exit statuses known.  Each game it held is
        played again, or lost by the unsandboxed bot on move (it killed its host), or void."""
        sweep_stale()  # leftover cgroups of the dead workers' bots (frozen ones cannot die)
        playing = read_journals(self.journal) if self.journal is not None else {}
        if self.journal is not None:  # the next pool's workers start afresh
            for name in os.listdir(self.journal):
                os.unlink(os.path.join(self.journal, name))
        retry: list[GameSpec] = []
        for g in lost:
            j = playing.get((self.phase, g.id))
            if j is None:  # still queued in the pool
                retry.append(g)
                continue
            pid, seat, sandboxed = j
            code = getattr(workers.get(pid), "exitcode", None)
            if code == -signal.SIGTERM:  # stopped by the pool because another worker died
                retry.append(g)
                continue
            why = f"the referee's worker process (pid {pid}) {_exit_text(code)}"
            if seat >= 0 and not sandboxed:
                rec = forfeit_record(g, seat, f"killed its host: {why} during its turn (without the sandbox a "
                                     "bot can kill its referee)", worker=f"{os.uname().nodename}:{pid}")
                self.results.append(rec)
                self.announce(g)
                self.ev.finished(rec, g.id, len(self.games))
                continue
            self.give_up(g, why, retry)
        return retry


class _Batch:
    """The games in flight on one executor: a window of submitted tasks, collected as they end."""

    def __init__(self, runner: _PhaseRunner, executor: Any, queue: list[GameSpec]) -> None:
        self.runner, self.executor, self.queue = runner, executor, queue
        self.window = runner.jobs + 2 if not runner.cluster else max(4, runner.jobs * 2)
        self.inflight: dict[Future, GameSpec] = {}
        self.broken = False
        self.lost: list[GameSpec] = []
        self.workers: dict = {}
        self.client = getattr(executor, "_client", None)  # Dask: workers tell when they start a game
        self.topic = f"sylver-arena-started-{runner.key}" if self.client is not None else ""
        self.told: list[dict] = []

    def run(self) -> None:
        r = self.runner
        if self.client is not None and self.topic:
            self.client.subscribe_topic(self.topic, lambda event: self.told.append(event[1]))
        while (self.queue or self.inflight) and not self.broken:
            self._submit()
            if not self.inflight:
                break
            finished, _ = wait(list(self.inflight), timeout=0.05, return_when=FIRST_COMPLETED)
            for fut in finished:
                self._collect(fut)
            self._announce_started()
            if self.broken:
                self.workers = dict(getattr(self.executor, "_processes", None) or {})
                self.lost += self.inflight.values()
                self.inflight.clear()
            if r.stop:
                self.queue.clear()
        if self.client is not None and self.topic:
            try:
                self.client.unsubscribe_topic(self.topic)
            except Exception:  # noqa: BLE001
                pass
        _release_cluster_bots(self.executor)

    def _submit(self) -> None:
        r = self.runner
        while self.queue and len(self.inflight) < self.window and not r.stop:
            g = self.queue.pop(0)
            try:
                fut = self.executor.submit(run_game, r.task(g, self.topic))
            except (BrokenProcessPool, RuntimeError):
                self.queue.insert(0, g)
                self.broken = True
                return
            self.inflight[fut] = g
            if r.journal is None and not self.topic:  # no way to know when it starts
                r.announce(g)

    def _collect(self, fut: Future) -> None:
        g = self.inflight.pop(fut)
        try:
            rec = fut.result()
        except BrokenProcessPool:
            self.broken = True
            self.lost.append(g)
            return
        except Exception as exc:  # noqa: BLE001 - a lost (cluster) worker: play it again once
            self.runner.give_up(g, f"its worker failed ({type(exc).__name__}: {exc})", self.queue)
            return
        self.runner.finished(g, rec)

    def _announce_started(self) -> None:
        """Announce the games a worker has taken up (its journal, or a cluster worker's event)."""
        r = self.runner
        playing = read_journals(r.journal) if r.journal is not None else {}
        playing.update({(e["phase"], e["game"]): (0, 0, True) for e in list(self.told)})
        for g in self.inflight.values():
            if g.id not in r.announced and (r.phase, g.id) in playing:
                r.announce(g)


def _phase_games(plan: dict, config: Config, phase: int, active: list[int], results: ResultsDir) -> list[GameSpec]:
    """The games of a phase: from the plan, or planned now (and the plan saved before any is played)."""
    if len(plan["phases"]) <= phase:
        plan["phases"].append({"phase": phase, "bots": [config.names[i] for i in active],
                               "games": [g.to_json() for g in make_games(config, phase, active)]})
        results.save_plan(plan)
    return [GameSpec.from_json(g) for g in plan["phases"][phase]["games"]]


def run_tournament(
    config: Config,
    out: str | Path | None = None,
    *,
    concurrency: int | None = None,
    cluster: str | None = None,
    events: Events | None = None,
    max_attempts: int = 2,
    check_start: bool = True,
    executor_factory: Callable | None = None,
) -> TournamentResult:
    """Run (or resume) a tournament; return the final standings.

    A game lost with its worker process is played again once (``max_attempts`` in all), then
    recorded as void with the reason; but when the worker died during the turn of a bot running
    without the sandbox, that bot loses the game (``crash``, "killed its host"): without the
    sandbox a bot can kill the process that referees it.  Games whose worker was only stopped
    because another one died are played again without counting an attempt.
    """
    check_sandbox(config.specs, config.unsafe_no_sandbox)
    ev = events or Events()
    t0 = time.perf_counter()
    results = ResultsDir(out)
    plan = results.load_or_create(config)
    names = config.names
    disq: list[str] = []
    phase = 0
    voids = 0
    jobs = concurrency if concurrency and concurrency > 0 else default_jobs()
    key = f"{os.getpid()}-{time.time_ns()}"
    while True:
        active = [i for i, n in enumerate(names) if n not in disq]
        games = _phase_games(plan, config, phase, active, results)
        done = results.done(phase)
        new_disq = _disqualified_in(list(done.values())) if config.disqualify_on_timeout else []
        if new_disq and len(names) - len(set(disq + new_disq)) >= 2:
            # a disqualification recorded before a kill: go on with the next phase
            disq += [n for n in new_disq if n not in disq]
            ev.disqualified(new_disq)
            phase += 1
            continue
        todo = [g for g in games if g.id not in done]
        ev.phase(phase, [names[i] for i in active], len(games), len(done))
        if todo and check_start:
            preflight(config, active)
        journal = tempfile.mkdtemp(prefix=f"sylver-journal-{os.getpid()}-") if not cluster else None
        runner = _PhaseRunner(config, phase, games, key=key, jobs=jobs, cluster=cluster, journal=journal,
                              max_attempts=max_attempts, executor_factory=executor_factory, results=results,
                              events=ev)
        try:
            while todo and not runner.stop:
                todo = runner.play(todo)
        finally:
            voids += runner.voids
            if journal is not None:
                shutil.rmtree(journal, ignore_errors=True)
        done = results.done(phase)
        if config.disqualify_on_timeout:
            new_disq = [n for n in _disqualified_in(list(done.values())) if n not in disq]
            if new_disq:
                ev.disqualified(new_disq)
                if len(names) - len(disq) - len(new_disq) >= 2:
                    disq += new_disq
                    phase += 1
                    continue
                disq += new_disq
                ev.note("fewer than two bots remain after disqualifications: the last phase stands")
        break
    records = sorted(results.done(phase).values(), key=lambda r: r.game)
    if len(plan["phases"]) > phase:
        active_names = plan["phases"][phase]["bots"]
    else:
        active_names = [n for n in names if n not in disq]
    table = standings(active_names + [n for n in names if n in disq], records, config.rules, config.seed, disq)
    results.write_standings(table, config, {"phase": phase, "disqualified": disq, "games": len(records),
                                            "voids": voids})
    return TournamentResult(table, records, disqualified=disq, phase=phase, voids=voids,
                            seconds=time.perf_counter() - t0)
