"""Arena benchmarks: referee overhead per move, sandbox start-up and tournament throughput (issues 4, 13).

1. Board micro-benchmark: the referee's legality test and in-place Apéry update on KotH starts.
2. Sandbox start-up: starting a Python bot (hello/ready) in the sandbox and without it; median.
3. IPC round trip to a frozen bot (thaw, send, answer, freeze), sandboxed.
4. Referee overhead per move (legality, bookkeeping, IPC, freezing): the referee's CPU per move and
   (game wall time − the time the bots report for their own calls) / moves, with KotH starts and
   moves up to 10^7, sandboxed bots; median of games.  Target ≤ 2 ms.
5. Throughput: KotH-rules games per second between two instant sandboxed bots at --concurrency 2
   (bot start-up included).  Target ≥ 20.
6. ``--load``: a KotH match between two bots that compute for 80 % of their 1 s per move, with
   2 × cores busy processes beside it: no timeout unless a bot's own CPU time passed the limit.

Run: .venv/bin/python bench/bench_arena.py [--games N] [--load]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sylver.arena.board import Board
from sylver.arena.rules import make_rules
from sylver.arena.specs import parse_specs
from sylver.arena.tournament import Config, run_tournament
from sylver.position import Position, Termination

HERE = Path(__file__).parent


def machine() -> None:
    model = "?"
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    from sylver.arena.sandbox import sandbox_problem

    why = sandbox_problem()
    print(f"CPU: {model}, {os.cpu_count()} cores; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"sandbox: {'bubblewrap' if not why else 'NONE (' + why + ')'}")


def startup(n: int = 8) -> float:
    """Median start-up of a sandboxed bot, seconds (printed with that of an unsandboxed one)."""
    from sylver.arena.sandbox import BotProcess

    bots = HERE / "arena_bots.py"
    spec = parse_specs([f"{bots}:Instant"])[0]
    medians = {}
    for sandbox in (True, False):
        walls = []
        for _ in range(n):
            proc = BotProcess(spec, 0, sandbox=sandbox)
            t = time.perf_counter()
            proc.start()
            walls.append(time.perf_counter() - t)
            proc.close()
        medians[sandbox] = statistics.median(walls)
        print(f"bot start-up (hello/ready) {'in the sandbox  ' if sandbox else 'without sandbox'}: median "
              f"{medians[sandbox] * 1e3:7.1f} ms ({n} starts; once per bot per worker, not per game)")
    return medians[True]


def board_micro() -> None:
    rng = random.Random(1)
    rules = make_rules("koth")
    legal, add, play = [], [], []
    for _ in range(20):
        a, b = rules.draw_start(rng)
        board = Board([a, b])
        pos = Position([a, b])
        for _ in range(10):
            n = rng.randint(2, 10**7)
            t = time.perf_counter()
            ok = board.is_legal(n)
            legal.append(time.perf_counter() - t)
            if ok:
                t = time.perf_counter()
                board.add(n)
                add.append(time.perf_counter() - t)
                t = time.perf_counter()
                pos = pos.play(n)
                play.append(time.perf_counter() - t)
    print(f"board.is_legal        median {statistics.median(legal) * 1e6:8.2f} µs  ({len(legal)} calls)")
    print(f"board.add (in place)  median {statistics.median(add) * 1e3:8.3f} ms  ({len(add)} calls, m ~ 1e5..1e6)")
    print(f"Position.play (copy)  median {statistics.median(play) * 1e3:8.3f} ms  (for comparison)")


def overhead(games: int) -> None:
    bots = HERE / "arena_bots.py"
    specs = parse_specs([f"name=a,{bots}:UpTo1e7", f"name=b,{bots}:UpTo1e7"])
    rounds = max(1, games // 2)
    cfg = Config(specs, make_rules("koth"), rounds, seed=1)
    out = run_tournament(cfg, None, concurrency=1)
    ref, upd, gap = [], [], []
    moves = 0
    for r in out.records:
        n = len(r.moves)
        if n:
            ref.append(r.referee_cpu / n)
            upd.append(r.update_cpu / n)
            gap += [w - c for w, c in zip(r.walls, r.times, strict=True)]
            moves += n
    mx = max(max(r.moves) for r in out.records)
    print(f"games: {len(ref)} KotH games between two random-up-to-10^7 sandboxed bots, {moves} moves, "
          f"largest move {mx:,}")
    print(f"referee CPU per move (legality, bookkeeping, JSON, freezer, cgroup): median of games "
          f"{statistics.median(ref) * 1e3:.3f} ms; target <= 2 ms")
    print(f"Apéry update per move (overlapped with the opponent's thinking): median of games "
          f"{statistics.median(upd) * 1e3:.3f} ms")
    print(f"per-move wall minus the bot's own CPU (IPC + waiting; includes machine load): median "
          f"{statistics.median(gap) * 1e3:.3f} ms")


def ipc_roundtrip(n: int = 500) -> None:
    from sylver.arena.protocol import Ping
    from sylver.arena.sandbox import BotProcess

    bots = HERE / "arena_bots.py"
    proc = BotProcess(parse_specs([f"{bots}:Instant"])[0], 0)
    proc.start()
    walls = []
    try:
        for _ in range(n):
            r = proc.call(Ping(), 5.0)
            walls.append(r.wall)
    finally:
        proc.close()
    print(f"IPC round trip to a frozen sandboxed bot (thaw, send, answer, freeze): median "
          f"{statistics.median(walls) * 1e3:.3f} ms")


def throughput(games: int, start_up: float) -> None:
    bots = HERE / "arena_bots.py"
    specs = parse_specs([f"name=a,{bots}:Instant", f"name=b,{bots}:Instant"])
    rounds = max(1, games // 2)
    cfg = Config(specs, make_rules("koth"), rounds, seed=2)
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        out = run_tournament(cfg, Path(d) / "t", concurrency=2)
        total = time.perf_counter() - t
    walls = sorted(r.wall for r in out.records)
    starts = 2 * len({r.worker for r in out.records})  # each worker starts each bot once
    print(f"throughput: {len(out.records)} KotH games in {total:.2f} s = {len(out.records) / total:.1f} games/s "
          f"at --concurrency 2 (incl. start-up and results files); median game {statistics.median(walls) * 1e3:.1f} ms"
          f"; target >= 20 games/s; load average now {os.getloadavg()[0]:.2f}")
    print(f"sandbox start-up in that run: {starts} bot starts (2 bots x {starts // 2} workers) x "
          f"{start_up * 1e3:.0f} ms = {starts * start_up / len(out.records) * 1e3:.2f} ms per game amortised "
          f"(one start per game would cost {2 * start_up * 1e3:.0f} ms per game)")


def loaded(games: int) -> bool:
    """A KotH match at load 2 × cores: every timeout must come with the bot's CPU over the limit."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]
    try:
        time.sleep(5)  # let the load average rise
        bots = HERE / "arena_bots.py"
        specs = parse_specs([f"name=a,{bots}:BurnsMost", f"name=b,{bots}:BurnsMost"])
        cfg = Config(specs, make_rules("koth", move_time=1.0), max(1, games // 2), seed=3)
        t = time.perf_counter()
        out = run_tournament(cfg, None, concurrency=2)
        total = time.perf_counter() - t
        load = os.getloadavg()[0]
    finally:
        for p in burners:
            p.kill()
    walls = [w for r in out.records for w in r.walls] or [0.0]
    cpus = [c for r in out.records for c in r.times] or [0.0]
    timeouts = [r for r in out.records if r.reason is Termination.TIMEOUT]
    unfair = [r for r in timeouts if "wall-clock" in r.detail]
    print(f"load test: {len(out.records)} KotH games (1 s per move, bots compute 0.8 s) beside "
          f"{len(burners)} busy processes, load average {load:.1f}, in {total:.0f} s; per move CPU median "
          f"{statistics.median(cpus):.2f} s, wall median {statistics.median(walls):.2f} s, max {max(walls):.2f} s; "
          f"timeouts {len(timeouts)}, of which by the wall-clock guard: {len(unfair)}")
    for r in timeouts:
        print(f"  game {r.game}: {r.loser} {r.detail}")
    fair = not unfair and all("CPU time" in r.detail for r in timeouts)
    print(f"load test verdict: {'OK' if fair else 'FAILED'} (a timeout only when the bot's own CPU time passed "
          f"its limit)")
    return fair


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400, help="games for the throughput run")
    ap.add_argument("--overhead-games", type=int, default=6)
    ap.add_argument("--load", action="store_true", help="also run the load test (about a minute)")
    ap.add_argument("--load-games", type=int, default=8)
    args = ap.parse_args()
    machine()
    board_micro()
    start_up = startup()
    ipc_roundtrip()
    overhead(args.overhead_games)
    throughput(args.games, start_up)
    if args.load and not loaded(args.load_games):
        sys.exit(1)


if __name__ == "__main__":
    main()
