"""Arena benchmarks: referee overhead per move and tournament throughput (issue 4 targets).

1. Board micro-benchmark: the referee's legality test and in-place Apéry update on KotH starts.
2. Referee overhead per move (legality, bookkeeping, IPC, pausing): (game wall time − the time the
   bots report for their own calls) / moves, with KotH starts and moves up to 10^7; median of games.
   Target ≤ 2 ms.
3. Throughput: KotH-rules games per second between two instant bots at --concurrency 2.  Target ≥ 20.

Run: .venv/bin/python bench/bench_arena.py [--games N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from sylver.arena.board import Board
from sylver.arena.rules import make_rules
from sylver.arena.specs import parse_specs
from sylver.arena.tournament import Config, run_tournament
from sylver.position import Position

HERE = Path(__file__).parent


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
        n = len(r["moves"])
        if n:
            ref.append(r["referee_cpu"] / n)
            upd.append(r["update_cpu"] / n)
            gap += [w - c for w, c in zip(r["walls"], r["times"], strict=True)]
            moves += n
    mx = max(max(r["moves"]) for r in out.records)
    print(f"games: {len(ref)} KotH games between two random-up-to-10^7 bots, {moves} moves, largest move {mx:,}")
    print(f"referee CPU per move (legality, bookkeeping, JSON, signals, /proc): median of games "
          f"{statistics.median(ref) * 1e3:.3f} ms; target <= 2 ms")
    print(f"Apéry update per move (overlapped with the opponent's thinking): median of games "
          f"{statistics.median(upd) * 1e3:.3f} ms")
    print(f"per-move wall minus the bot's own CPU (IPC + waiting; includes machine load): median "
          f"{statistics.median(gap) * 1e3:.3f} ms")


def ipc_roundtrip(n: int = 500) -> None:
    from sylver.arena.sandbox import BotProcess

    bots = HERE / "arena_bots.py"
    proc = BotProcess(parse_specs([f"{bots}:Instant"])[0], 0)
    proc.start()
    walls = []
    try:
        for _ in range(n):
            r = proc.call({"type": "ping"}, 5.0)
            walls.append(r.wall)
    finally:
        proc.close()
    print(f"IPC round trip to a paused bot (resume, send, answer, pause): median {statistics.median(walls) * 1e3:.3f} ms")


def throughput(games: int) -> None:
    bots = HERE / "arena_bots.py"
    specs = parse_specs([f"name=a,{bots}:Instant", f"name=b,{bots}:Instant"])
    rounds = max(1, games // 2)
    cfg = Config(specs, make_rules("koth"), rounds, seed=2)
    with tempfile.TemporaryDirectory() as d:
        t = time.perf_counter()
        out = run_tournament(cfg, Path(d) / "t", concurrency=2)
        total = time.perf_counter() - t
    walls = sorted(r["wall"] for r in out.records)
    print(f"throughput: {len(out.records)} KotH games in {total:.2f} s = {len(out.records) / total:.1f} games/s "
          f"at --concurrency 2 (incl. start-up and results files); median game {statistics.median(walls) * 1e3:.1f} ms"
          f"; target >= 20 games/s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=400, help="games for the throughput run")
    ap.add_argument("--overhead-games", type=int, default=6)
    args = ap.parse_args()
    board_micro()
    ipc_roundtrip()
    overhead(args.overhead_games)
    throughput(args.games)


if __name__ == "__main__":
    main()
