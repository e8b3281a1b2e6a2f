"""Semigroup arithmetic at King-of-the-Hill size (issue 2's targets), printed as figures.

Each position: two random coprime generators in [100000, 999999], then 3 more random legal moves
below 10^7.  Printed: numba warm-up (first call: compile or cache load), then medians after warm-up
for building the position with its Apéry set, each further move, a membership test, a witness and
the theory report; Frobenius number and genus checked against Sylvester's formulas for the pairs;
and the ratio against the plain-Python reference (bench/semigroup_reference.py) on the same
positions in the same run.

    .venv/bin/python bench/bench_semigroup.py [--positions 30] [--reference 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import semigroup_reference as ref  # noqa: E402


def koth_games(count: int, seed: int) -> list[tuple[int, int, list[int]]]:
    """(a, b, three legal moves) per position, drawn with the library (not timed)."""
    from sylver import Position

    rng = random.Random(seed)
    games = []
    while len(games) < count:
        a, b = rng.randint(100_000, 999_999), rng.randint(100_000, 999_999)
        if math.gcd(a, b) != 1:
            continue
        p, moves = Position([a, b]), []
        while len(moves) < 3:
            x = rng.randrange(2, 10**7)
            if p.is_legal(x):
                moves.append(x)
                p = p.play(x)
        games.append((a, b, moves))
    return games


def per_call(fn, args: list, batch: int = 1000) -> float:  # noqa: ANN001
    """Median seconds per call over batches of ``batch`` calls."""
    times = []
    for i in range(0, len(args), batch):
        chunk = args[i : i + batch]
        t0 = time.perf_counter()
        for x in chunk:
            fn(x)
        times.append((time.perf_counter() - t0) / len(chunk))
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--reference", type=int, default=3, help="positions also run in plain Python")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    import platform

    print(f"# {platform.processor() or 'CPU'}: " + next((line.split(':', 1)[1].strip() for line in open('/proc/cpuinfo') if line.startswith('model name')), 'unknown model'))

    t0 = time.perf_counter()
    from sylver import Position, theory

    t_import = time.perf_counter() - t0
    t0 = time.perf_counter()
    w = Position([1009, 1013]).play(5000)
    w.witness(10**6)
    theory.report(w)
    t_warm = time.perf_counter() - t0
    print(f"warm-up: import {t_import * 1e3:.0f} ms; first calls (numba compile or cache load) "
          f"{t_warm * 1e3:.0f} ms")

    games = koth_games(args.positions, args.seed)
    build, move, member, legal, witness, report = [], [], [], [], [], []
    exact = 0
    rng = random.Random(args.seed + 1)
    probes = [rng.randrange(1, 10**12) for _ in range(20_000)]
    for a, b, moves in games:
        t0 = time.perf_counter()
        p = Position([a, b])
        build.append(time.perf_counter() - t0)
        exact += p.frobenius_number == (a - 1) * (b - 1) - 1 and p.genus == (a - 1) * (b - 1) // 2
        for x in moves:
            t0 = time.perf_counter()
            p = p.play(x)
            move.append(time.perf_counter() - t0)
        sg = p.semigroup
        member.append(per_call(sg.__contains__, probes))
        legal.append(per_call(p.is_legal, probes))
        witness.append(per_call(p.witness, [n for n in probes[:2000] if n in sg], batch=100))
        t0 = time.perf_counter()
        theory.report(p)
        report.append(time.perf_counter() - t0)

    def ms(xs: list[float]) -> str:
        return f"{statistics.median(xs) * 1e3:.2f} ms"

    def us(xs: list[float]) -> str:
        return f"{statistics.median(xs) * 1e6:.2f} µs"

    n = len(games)
    print(f"positions: {n} (seed {args.seed}), each 2 coprime generators in [100000, 999999] + 3 legal moves < 10^7")
    print(f"build position + Apéry set: median {ms(build)}   (target <= 20 ms)")
    print(f"each further move:          median {ms(move)}   (target <= 30 ms)")
    print(f"membership n in S:          median {us(member)}   (target <= 5 µs); Position.is_legal {us(legal)}")
    print(f"witness of an illegal move: median {us(witness)}")
    print(f"theory.report (5 generators): median {ms(report)}")
    print(f"Frobenius number and genus equal Sylvester's formulas: {exact}/{n} pairs")

    big = [9_999_991, 9_999_973]  # generators near 10^7: the Apéry set has 10^7 entries
    t0 = time.perf_counter()
    p = Position(big)
    tb = time.perf_counter() - t0
    t0 = time.perf_counter()
    p = p.play(10_000_019)
    tm = time.perf_counter() - t0
    t0 = time.perf_counter()
    theory.report(p)
    tr = time.perf_counter() - t0
    print(f"generators near 10^7 ({big[0]}, {big[1]}, then 10000019): build {tb * 1e3:.0f} ms, "
          f"move {tm * 1e3:.0f} ms, theory.report {tr * 1e3:.0f} ms")

    k = min(args.reference, n)
    rb, rm, rmem = [], [], []
    for a, b, moves in games[:k]:
        t0 = time.perf_counter()
        q = ref.Position([a, b])
        rb.append(time.perf_counter() - t0)
        assert ref.frobenius_number(q.ap) == (a - 1) * (b - 1) - 1
        for x in moves:
            t0 = time.perf_counter()
            q = q.play(x)
            rm.append(time.perf_counter() - t0)
        assert q.gens == list(Position([a, b, *moves]).generators)
        rmem.append(per_call(q.is_legal, probes))
    print(f"plain-Python reference on the first {k} positions (same algorithm, no numba):")
    print(f"  build {ms(rb)}, move {ms(rm)}, is_legal {us(rmem)}")
    fb = statistics.median(build[:k])
    fm = statistics.median(move[: 3 * k])
    fl = statistics.median(legal[:k])
    print(f"  ratio reference / sylver: build {statistics.median(rb) / fb:.0f}x, "
          f"move {statistics.median(rm) / fm:.0f}x, is_legal {statistics.median(rmem) / fl:.1f}x")


if __name__ == "__main__":
    main()
