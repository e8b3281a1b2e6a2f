"""What runs on an executor worker: one game per task, with the bots' processes kept alive between
games in the same worker thread (starting a Python bot costs ~0.1–1 s; a game can take 1 ms).

A task is a :class:`GameTask` (picklable, for a local process pool or Dask).  The cache is per
thread and per tournament; a bot whose process died or failed is started afresh for its next game.
"""

from __future__ import annotations

import atexit
import dataclasses
import multiprocessing.util
import os
import signal
import threading
import time
import traceback

from sylver.arena.games import GameLine, GameSpec, VoidGame
from sylver.arena.referee import Seat, play_game
from sylver.arena.rules import Rules
from sylver.arena.sandbox import DEFAULT_MEMORY_MB, BotProcess, StartError
from sylver.arena.specs import BotSpec

JOURNAL_LINE = 64
"""Bytes of a journal record (see :class:`Journal`)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class GameTask:
    """One game for a worker: the game, its rules and bots, and how to run them."""

    key: str
    """The tournament run (a worker keeps the bots of one run between games)."""
    game: GameSpec
    rules: Rules
    bots: tuple[BotSpec, BotSpec]
    """The bots in seat order."""
    memory_mb: int = DEFAULT_MEMORY_MB
    sandbox: bool = True
    journal: str | None = None
    """The directory of the local workers' journals (None on a cluster)."""
    started_topic: str = ""
    """The Dask event topic on which a cluster worker tells that it starts the game."""
    watch_parent: bool = True

_local = threading.local()
_all_caches: list[dict] = []
_all_lock = threading.Lock()
_watchdog_started = False


def _cache() -> dict:
    c = getattr(_local, "bots", None)
    if c is None:
        c = {}
        _local.bots = c
        with _all_lock:
            _all_caches.append(c)
    return c


def close_all() -> None:
    """Close every cached bot of this process."""
    with _all_lock:
        caches = list(_all_caches)
    for c in caches:
        for proc in list(c.values()):
            try:
                proc.close()
            except Exception:  # noqa: BLE001
                pass
        c.clear()


atexit.register(close_all)


def _watch_parent() -> None:
    """Exit when the process that started this worker dies (e.g. ``kill -9`` of the runner)."""
    global _watchdog_started
    if _watchdog_started:
        return
    _watchdog_started = True
    parent = os.getppid()
    try:  # Ctrl-C is the runner's to handle: it ends the workers (and so their bots) itself
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread (a Dask worker): leave it
        pass
    # multiprocessing workers leave through os._exit after running their finalizers, not atexit
    multiprocessing.util.Finalize(None, close_all, exitpriority=100)

    def run() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                close_all()
                os._exit(1)

    threading.Thread(target=run, daemon=True, name="sylver-arena-watchdog").start()


def _get_bot(key: str, spec: BotSpec, bot_id: int, memory_mb: int, sandbox: bool) -> tuple[BotProcess | None, str]:
    cache = _cache()
    for k in [k for k in cache if k[0] != key]:  # another tournament: release its bots
        cache.pop(k).close()
    proc = cache.get((key, bot_id))
    if proc is not None and proc.alive:
        return proc, ""
    if proc is not None:
        proc.close()
        cache.pop((key, bot_id), None)
    proc = BotProcess(spec, bot_id, memory_mb, sandbox=sandbox)
    try:
        proc.start()  # SandboxUnavailable propagates: the worker cannot play, the bot is not to blame
    except StartError as exc:
        return None, str(exc)
    cache[(key, bot_id)] = proc
    return proc, ""


class Journal:
    """A local worker's note of the game it plays and whose turn it is, so that the runner can tell
    when a game starts and what happened if the worker dies: one file per worker thread,
    ``<journal dir>/<pid>-<thread>``, opened once, rewritten in place (``<pid> <phase> <game> <seat on
    move or -1> <1 if that bot is sandboxed>``)."""

    def __init__(self, directory: str, game: GameSpec) -> None:
        fds = getattr(_local, "journals", None)
        if fds is None or fds[0] != directory:
            if fds is not None:
                os.close(fds[1])
            path = os.path.join(directory, f"{os.getpid()}-{threading.get_ident()}")
            fds = (directory, os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
            _local.journals = fds
        self.fd = fds[1]
        self.prefix = f"{os.getpid()} {game.phase} {game.id}"
        self.sandboxed = [True, True]
        self.mark(-1)

    def mark(self, seat: int) -> None:
        flag = int(self.sandboxed[seat]) if seat >= 0 else 1
        os.pwrite(self.fd, f"{self.prefix} {seat} {flag}".ljust(JOURNAL_LINE - 1).encode() + b"\n", 0)


def _tell_started(topic: str, game: GameSpec) -> None:
    """On a Dask worker: tell the runner that the game starts (an event on ``topic``)."""
    try:
        from distributed import get_worker

        get_worker().log_event(topic, {"phase": game.phase, "game": game.id})
    except Exception:  # noqa: BLE001 - only the progress line depends on it
        pass


def read_journals(directory: str) -> dict[tuple[int, int], tuple[int, int, bool]]:
    """(phase, game id) -> (worker pid, seat on move or -1, that bot sandboxed), for the game each
    worker thread plays or played last."""
    out = {}
    try:
        names = os.listdir(directory)
    except OSError:
        return {}
    for name in names:
        try:
            with open(os.path.join(directory, name), "rb") as f:
                pid, phase, game, seat, flag = f.read(JOURNAL_LINE).split()
            out[int(phase), int(game)] = (int(pid), int(seat), flag == b"1")
        except (OSError, ValueError):
            continue
    return out


def _release(seats: list[Seat], key: str) -> None:
    for seat in seats:
        if seat.process is not None:
            seat.process.close()
            _cache().pop((key, seat.bot_id), None)


def run_game(task: GameTask) -> GameLine:
    """Play the game of ``task`` and return its record (void on a referee error)."""
    if task.watch_parent:
        _watch_parent()
    game = task.game
    journal = Journal(task.journal, game) if task.journal else None
    if task.started_topic:
        _tell_started(task.started_topic, game)
    try:
        seats = []
        for spec, bot_id in zip(task.bots, game.seats, strict=True):
            proc, err = _get_bot(task.key, spec, bot_id, task.memory_mb, task.sandbox)
            seats.append(Seat(spec.name, bot_id, proc, f"could not start: {err}" if err else "",
                              move_time=spec.move_time))
        if journal is not None:
            journal.sandboxed = [s.process is None or s.process.sandboxed for s in seats]
        try:
            record = play_game(game, task.rules, seats, journal.mark if journal is not None else None)
        except (KeyboardInterrupt, SystemExit):
            _release(seats, task.key)
            raise
        except Exception as exc:  # noqa: BLE001 - a referee error voids the game, loudly
            _release(seats, task.key)
            return VoidGame(game=game.id, phase=game.phase, players=game.players, round=game.round,
                            error=f"referee error: {type(exc).__name__}: {exc}",
                            traceback=traceback.format_exc()[-2000:])
    finally:
        if journal is not None:
            journal.mark(-1)
    _release([s for s in seats if s.process is not None and not s.process.alive], task.key)
    return dataclasses.replace(record, worker=f"{os.uname().nodename}:{os.getpid()}")
