"""The {4,6} family theorem against the exact solver, further than the tests go:
`python bench/bench_theory.py [X_MAX]` (default 2001).

For every odd x with 5 <= x < X_MAX, solves {4,6,x} and {4,6,x,x+2} exactly and compares the outcome
and the complete set of winning moves with :func:`sylver.theory.four_six_family`; prints the CPU
model, the range checked, the solver's time (total and the slowest position) and any disagreement
(exit status 1 if there is one).  The tests check x < 400.
"""

from __future__ import annotations

import sys
import time

from machine import cpu_model  # noqa: E402 - bench/ is the script's directory

from sylver.position import Position
from sylver.solver import solve
from sylver.theory import four_six_family


def main(x_max: int) -> int:
    print(f"CPU: {cpu_model()}")
    t = time.perf_counter()
    solve(Position((4, 6, 7)))
    print(f"solver warm-up (numba compile or cache load): {time.perf_counter() - t:.2f} s")
    total, slowest, checked, wrong = 0.0, (0.0, ()), 0, []
    for x in range(5, x_max, 2):
        for gens in ((4, 6, x), (4, 6, x, x + 2)):
            t = time.perf_counter()
            sol = solve(Position(gens))
            dt = time.perf_counter() - t
            total += dt
            slowest = max(slowest, (dt, gens))
            checked += 1
            if four_six_family(gens) != (sol.outcome, sol.winning_moves):
                wrong.append((gens, sol.outcome, sol.winning_moves, four_six_family(gens)))
    print(
        f"{{4,6}} family, odd 5 <= x < {x_max:,}: {checked:,} positions solved in {total:.2f} s "
        f"(slowest {Position(slowest[1]).braces()} {slowest[0]:.3f} s); disagreements: {len(wrong)}"
    )
    for gens, outcome, moves, claimed in wrong:
        print(f"  {Position(gens).braces()}: solver {outcome} {list(moves)}, theorem {claimed}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 2001))
