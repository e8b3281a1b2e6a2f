"""`sylver warmup`: compile every numba kernel now (the first run on a machine), not in a later command."""

from __future__ import annotations

import time
from pathlib import Path

from sylver.cli.common import app, err_console


@app.command()
def warmup() -> None:
    """Compile the numba kernels and build the endgame table ahead (about two minutes, once per install; `make` runs it).

    Every command that needs a kernel compiles it at its first run on a machine and caches it next to the sources; this compiles them all at once, with a line per kernel that takes long. Afterwards every kernel loads from the cache in a fraction of a second. It builds the endgame table (the outcome of every position with at most 32 legal moves, which the solver looks up instead of searching them). With a C compiler it also builds the solver's kernels ahead of time, into a C extension module that `sylver solve` loads without numba (0.9 s less at each start). It also byte-compiles sylver's Python modules, which Python does not cache by itself where PYTHONDONTWRITEBYTECODE is set.
    """
    import compileall

    from sylver import jit

    jit.use_compiled()
    jit.use_aot(False)  # the workloads compile (or load) the JIT form of every kernel
    jit.watch_compilation(always=True)
    started = time.monotonic()
    err_console.print("warm-up: Python byte code …", highlight=False)
    compileall.compile_dir(Path(jit.__file__).parent, quiet=2)
    for what, run in _WORKLOADS:
        err_console.print(f"warm-up: {what} …", highlight=False)
        run()
    _ahead_of_time()
    err_console.print(f"warm-up: done in {time.monotonic() - started:.1f} s", highlight=False)


def _ahead_of_time() -> None:
    """Build the solver's kernels ahead of time (:mod:`sylver.aot`): ``sylver solve`` then starts
    without numba.  Without a C compiler it says so in one line and the kernels stay JIT-only."""
    from sylver import aot

    module = "sylver.solver.kernels"
    if aot.status(module)[0]:
        err_console.print("warm-up: the solver's kernels are compiled ahead of time already", highlight=False)
        return
    err_console.print("warm-up: the solver's kernels ahead of time (a C extension module) …", highlight=False)
    try:
        where = aot.build(module)
    except aot.AotUnavailable as e:
        err_console.print(f"warm-up: note: {e}; the solver's kernels load through numba instead (about "
                          "0.9 s more at the start of `sylver solve`)", highlight=False, markup=False, soft_wrap=True)
        return
    err_console.print(f"warm-up: built {where}", highlight=False, markup=False, soft_wrap=True)


def _semigroup_and_theory() -> None:
    from sylver import theory
    from sylver.position import Position

    for p in (Position([7, 11, 13]), Position([4, 6]), Position([16, 20, 28, 35, 54])):
        theory.report(p)
    Position([7, 11, 13]).play(23).legal_moves()


def _wythoff() -> None:
    from sylver.wythoff import grundy_table, winning_moves

    grundy_table(5)
    grundy_table(5, misere=True)
    winning_moves(13, 9)


def _solver() -> None:
    from sylver.position import Position
    from sylver.proof.build import build_certificate
    from sylver.solver import count_reachable, solve

    build_certificate(solve(Position([7, 11, 13])))
    solve(Position([4, 5]), first=True)
    solve(Position([16, 20, 28, 35, 54]))  # 150,000 states: the tables grow (0.1 s)
    count_reachable(Position([5, 7]))


def _endgame() -> None:
    from sylver.solver import ensure_endgame_table

    try:
        path = ensure_endgame_table(say=lambda text: err_console.print(f"warm-up: {text}", highlight=False))
    except OSError as e:  # a read-only install: the solver searches those positions itself
        err_console.print(f"warm-up: note: the endgame table cannot be saved ({e}); the solver searches "
                          "those positions itself (set SYLVER_AOT_DIR to a writable directory to keep it)",
                          highlight=False, markup=False, soft_wrap=True)
        return
    err_console.print(f"warm-up: the endgame table is {path}", highlight=False, markup=False, soft_wrap=True)


def _gcd() -> None:
    from sylver.solver.gcd import warm_up

    warm_up()


_WORKLOADS = (
    ("semigroup and theory kernels", _semigroup_and_theory),
    ("Wythoff kernel", _wythoff),
    ("solver kernels (the long part)", _solver),
    ("the endgame table: every position with at most 32 legal moves (about 40 s, once)", _endgame),
    ("gcd > 1 kernels (the periodicity scan)", _gcd),
)
