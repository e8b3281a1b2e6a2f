"""Start-up of the ``sylver`` command (issue 15, targets 3 and 4): whole-process times, A/B in one run.

    .venv/bin/python bench/bench_startup.py               # 7 runs per command, A/B against `main`
    .venv/bin/python bench/bench_startup.py --runs 15 --base HEAD~1
    .venv/bin/python bench/bench_startup.py --no-base     # this tree only
    .venv/bin/python bench/bench_startup.py --cold        # also the first run: compile from scratch

Every command runs as a fresh process (the console script, with PYTHONPATH set to the tree's
``src``), ``--runs`` times, alternating with the same command from a ``git worktree`` of ``--base``
(kept in ~/.cache/sylver-bench/<commit> so that its numba cache survives between runs: its first
use compiles the base's kernels, which takes minutes).  One untimed run of each command comes first,
and both trees are byte-compiled (Python caches byte code itself on first import, unless
PYTHONDONTWRITEBYTECODE is set, as it may be on a build machine).
Figures are medians: wall-clock seconds, and the CPU seconds (user + system) of the same process,
which a busy machine inflates less; the load average is printed before and after.  The targets are
for a quiet machine: a command is ``ok`` when its wall time meets the target, ``cpu ok`` when only
its CPU time does (the machine is busy), else ``OVER``.

Before timing, the base worktree gets the endgame table and its kernels ahead of time (``sylver
warmup``), as an installed tree has them: without them its solves search more positions and load
numba first, and the comparison would say so, not the change.

``--cold`` times the first compilation with an empty numba cache (``NUMBA_CACHE_DIR`` set to a
temporary directory): ``sylver warmup`` for this tree, with its peak resident memory, and the first
``sylver solve`` for the base (which has no warmup).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = [
    # (arguments, target in seconds: median wall time on a quiet machine)
    (["--help"], 0.3),
    (["version"], 0.3),
    (["wythoff", "13", "9"], 0.4),
    (["analyze", "4", "5"], 0.8),
    (["solve", "16", "20", "28", "35", "54", "--no-store"], 1.0),
]


def sylver_command() -> list[str]:
    """The console script next to this Python (as a user runs it), else ``python -m sylver``."""
    script = Path(sys.executable).with_name("sylver")
    return [str(script)] if script.exists() else [sys.executable, "-m", "sylver"]


def run(tree: Path, args: list[str], env_extra: dict[str, str] | None = None) -> tuple[float, float, int]:
    """One whole process: (wall seconds, CPU seconds, peak RSS bytes); exits non-zero -> error."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"), COLUMNS="100", **(env_extra or {}))
    t0 = time.perf_counter()
    proc = subprocess.Popen(sylver_command() + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"`sylver {' '.join(args)}` in {tree} exited {proc.returncode}:\n{err}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def base_worktree(ref: str) -> tuple[Path, str]:
    """A detached worktree of ``ref``, reused across runs (its numba cache is next to its sources)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{ref}^{{commit}}"],
                         capture_output=True, text=True, check=True).stdout.strip()
    path = Path.home() / ".cache" / "sylver-bench" / sha[:12]
    if not (path / "src" / "sylver").is_dir():
        path.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--force", str(path), sha],
                       check=True, capture_output=True)
    return path, sha[:10]


_ENDGAME_INFO = """
import json
from sylver.solver import endgame as e
print(json.dumps({"version": e.VERSION, "genus": e.GENUS, "dir": str(e.directory()), "names": e._names(e.GENUS)}))
"""


def base_endgame(tree: Path) -> str:
    """Give the ``--base`` worktree ``tree`` the endgame table (``sylver warmup`` builds it; a fresh
    worktree has none, and its solves would search those positions), before any timing: a copy of
    this tree's when the file format (version and genus) is the same, else built there (about a
    minute, its progress on stderr).  Returns what was done, for the output."""
    def info(src: Path) -> dict | None:
        out = subprocess.run([sys.executable, "-c", _ENDGAME_INFO], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=str(src)))
        return json.loads(out.stdout) if out.returncode == 0 else None  # another layout: build it there

    if not (tree / "src" / "sylver" / "solver" / "endgame.py").is_file():
        return "none (the base predates it)"
    base = info(tree / "src") or {"version": "?", "genus": "?", "dir": "?", "names": ["?"]}
    where = Path(base["dir"])
    if all((where / n).is_file() for n in base["names"]):
        return f"present ({where / base['names'][0]})"
    ours = info(ROOT / "src")
    here = Path(ours["dir"]) if ours else None
    if (ours and (ours["version"], ours["genus"]) == (base["version"], base["genus"])
            and all((here / n).is_file() for n in ours["names"])):
        import shutil

        where.mkdir(parents=True, exist_ok=True)
        for n in ours["names"]:
            shutil.copyfile(here / n, where / n)
        return f"copied from this tree (version {base['version']}, genus {base['genus']}) to {where}"
    print(f"building the base's endgame table (version {base['version']}, genus {base['genus']}) in {where} "
          "before timing ...", flush=True)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from sylver.solver import endgame; endgame.ensure(say=print)"],
                   env=dict(os.environ, PYTHONPATH=str(tree / "src")), check=True)
    return f"built there in {time.perf_counter() - t:.0f} s (version {base['version']}, genus {base['genus']})"


def base_warmup(tree: Path) -> str:
    """Run ``sylver warmup`` in the ``--base`` worktree ``tree`` before any timing, so that the base
    runs its kernels as an installed tree does (ahead of time where it builds them, else loaded from
    numba's cache), not the JIT compiling inside the first run: minutes once per commit, seconds
    after.  Returns what was done, for the output."""
    if not (tree / "src" / "sylver" / "cli" / "warmup.py").is_file():
        return "no `sylver warmup` in the base (it predates it): numba JIT, compiled in the untimed first runs"
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "sylver", "warmup"], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(tree / "src")))
    if out.returncode != 0:
        return f"`sylver warmup` failed there (exit {out.returncode}): {out.stderr.strip()[-200:]}"
    aot = "ahead of time" if ("sylver-aot-" in out.stderr or "ahead of time already" in out.stderr) else "numba JIT"
    return f"`sylver warmup` run there in {time.perf_counter() - t:.0f} s (solver kernels: {aot})"


def median_runs(trees: list[Path], args: list[str], runs: int) -> list[tuple[float, float]]:
    """Median (wall, CPU) per tree, the trees' runs alternating."""
    samples: list[list[tuple[float, float]]] = [[] for _ in trees]
    for _ in range(runs):
        for i, tree in enumerate(trees):
            wall, cpu, _ = run(tree, args)
            samples[i].append((wall, cpu))
    return [(statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for s in samples]


def cold(tree: Path, args: list[str]) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory(prefix="sylver-cold-numba-") as cache:
        return run(tree, args, {"NUMBA_CACHE_DIR": cache})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7, help="timed runs per command and tree (default 7)")
    ap.add_argument("--base", default="main", help="commit to compare with (default main)")
    ap.add_argument("--no-base", action="store_true", help="time this tree only")
    ap.add_argument("--cold", action="store_true", help="also time the first compilation (minutes)")
    opts = ap.parse_args()

    print(f"# sylver start-up: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"# {load()}; {opts.runs} runs per command; median wall seconds (CPU seconds)", flush=True)
    trees = [ROOT]
    label = ""
    if not opts.no_base:
        base, sha = base_worktree(opts.base)
        trees.append(base)
        label = f"{opts.base} ({sha})"
        print(f"# base: {label} in {base}")
        print(f"# the base's endgame table: {base_endgame(base)}", flush=True)
        print(f"# the base's kernels: {base_warmup(base)}", flush=True)
    print("# warming up (one untimed run per command and tree; a fresh base worktree compiles first)",
          flush=True)
    for tree in trees:
        compileall.compile_dir(tree / "src" / "sylver", quiet=2)
    for args, _ in COMMANDS:
        for tree in trees:
            run(tree, args)

    head = f"{'command':<44} {'target':>6}  {'this tree':>15} {'':>6}"
    if label:
        head += f"  {label:>22}  {'speed-up':>8}"
    print(head, flush=True)
    for args, target in COMMANDS:
        medians = median_runs(trees, args, opts.runs)
        wall, cpu = medians[0]
        verdict = "ok" if wall <= target else "cpu ok" if cpu <= target else "OVER"
        line = f"{'sylver ' + ' '.join(args):<44} {target:>6.2f}  {wall:>6.3f} ({cpu:5.3f}) {verdict:>6}"
        if label:
            bwall, bcpu = medians[1]
            line += f"  {bwall:>13.3f} ({bcpu:5.3f})  {bwall / wall:>7.1f}×"
        print(line, flush=True)
    print(f"# {load()}")

    if opts.cold:
        print("# first run with an empty numba cache (NUMBA_CACHE_DIR: a new temporary directory)")
        wall, cpu, rss = cold(ROOT, ["warmup"])
        print(f"this tree: sylver warmup                   {wall:7.1f} s wall {cpu:7.1f} s CPU, peak RSS {rss / 2**30:.2f} GiB")
        solve = COMMANDS[-1][0]
        if label:
            wall, cpu, rss = cold(trees[1], solve)
            print(f"base: sylver {' '.join(solve):<30} {wall:7.1f} s wall {cpu:7.1f} s CPU, peak RSS {rss / 2**30:.2f} GiB")
        print(f"# {load()}")


if __name__ == "__main__":
    main()
