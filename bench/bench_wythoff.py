"""Wythoff's Nim figures (issue 6): `python bench/bench_wythoff.py`.

- winning_move on random piles of 1,000 digits: median time per call (target ≤ 1 ms);
- the Grundy table for all i, j ≤ 1000: median time of the numba kernel (target ≤ 5 s),
  after one warm-up call (numba compilation, or loading its on-disk cache, reported separately).
"""

from __future__ import annotations

import random
import statistics
import time

from sylver.wythoff import grundy_rectangle, is_p_position, winning_move, winning_moves


def random_piles(rng: random.Random, digits: int) -> tuple[int, int]:
    lo, hi = 10 ** (digits - 1), 10**digits - 1
    return rng.randint(lo, hi), rng.randint(lo, hi)


def bench_winning_move(digits: int, calls: int, rng: random.Random) -> list[float]:
    times = []
    for _ in range(calls):
        i, j = random_piles(rng, digits)
        t = time.perf_counter()
        move = winning_move(i, j)
        times.append(time.perf_counter() - t)
        assert move is not None and is_p_position(*move)
    return times


def main() -> None:
    rng = random.Random(2026)
    import platform

    print(f"# {platform.processor() or 'CPU'}: " + next((line.split(':', 1)[1].strip() for line in open('/proc/cpuinfo') if line.startswith('model name')), 'unknown model'))
    for digits, calls in [(1_000, 2_000), (10_000, 100)]:
        times = bench_winning_move(digits, calls, rng)
        target = "  (target ≤ 1 ms)" if digits == 1_000 else ""
        print(
            f"winning_move, random piles of {digits:,} digits: median {statistics.median(times) * 1e3:.3f} ms, "
            f"p95 {sorted(times)[int(0.95 * len(times))] * 1e3:.3f} ms over {calls:,} calls{target}"
        )
    i, j = random_piles(rng, 1_000)
    t = time.perf_counter()
    for _ in range(200):
        winning_moves(i, j)
    print(
        f"winning_moves (complete list), 1,000 digits: {(time.perf_counter() - t) / 200 * 1e3:.3f} ms per call"
    )

    t = time.perf_counter()
    grundy_rectangle(10, 10, 0)
    print(f"Grundy kernel warm-up (numba compile or cache load): {time.perf_counter() - t:.2f} s")
    for n, repeats in [(1000, 5), (4000, 1)]:
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            table = grundy_rectangle(n, n, 0)
            times.append(time.perf_counter() - t)
        target = "  (target ≤ 5 s)" if n == 1000 else ""
        print(
            f"Grundy table, all i, j ≤ {n}: median {statistics.median(times):.3f} s over {repeats} runs, "
            f"max value {int(table.max())}{target}"
        )


if __name__ == "__main__":
    main()
