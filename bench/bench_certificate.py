"""Benchmark of proof certificates (gcd 1): building one after a solve, and checking it, with the
peak RSS of each, the CPU model and the load average.

    .venv/bin/python bench/bench_certificate.py                          # {16,20,28,74,273}
    .venv/bin/python bench/bench_certificate.py --positions 16,20,28,35,54 --builder memory --checker dict
    PYTHONPATH=TREE/src .venv/bin/python bench/bench_certificate.py --checker none --repeat 3   # A/B of builds
    .venv/bin/python bench/bench_certificate.py --files runs/certs/16_37_38_72_94.json --repeat 3   # checks only

Each phase runs in a fresh process, so that its peak RSS is its own: the solve and the certificate
built from its tables (``--builder stream``: :func:`sylver.proof.build.stream_certificate`, nodes
written as they are finished; ``memory``: :func:`build_certificate`, the whole certificate as a
dict, then written), then the check (``--checker file``: :func:`sylver.proof.certificate.verify_path`,
the file read a node at a time, twice; ``dict``: the file loaded whole, then :func:`verify`;
``none``: not checked).  Times are CPU seconds of the phase (the machine is shared) and wall-clock
seconds beside them.  ``--repeat N`` runs each position N times (a fresh process each), to compare
builders by the median: run it with ``PYTHONPATH`` set to another tree's ``src`` for the other
builder (the phases inherit it), and the two alternated.  ``--files F ...``: no solve and no build,
the check of each certificate file given (as written by ``sylver solve --certificate``), ``--repeat``
times, with its median: the checker's CPU seconds on a real proof.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory


def _peak_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def build(text: str, path: str, builder: str, memory: str) -> dict:
    """Solve ``text`` (no store), then build its certificate into ``path``."""
    from sylver import Position
    from sylver.proof.build import build_certificate, stream_certificate, write_certificate
    from sylver.solver import solve

    t0, c0 = time.monotonic(), time.process_time()
    sol = solve(Position(text), memory=memory, store=None)
    out = {"outcome": sol.verdict, "states": sol.states, "solve_cpu": time.process_time() - c0,
           "solve_wall": time.monotonic() - t0, "solve_peak_mb": _peak_mb()}
    t1, c1 = time.monotonic(), time.process_time()
    if builder == "stream":
        out["nodes"], out["bytes"] = stream_certificate(sol, path)
    else:
        cert = build_certificate(sol)
        out["nodes"], out["bytes"] = len(cert["nodes"]), write_certificate(cert, path)
    out.update(build_cpu=time.process_time() - c1, build_wall=time.monotonic() - t1, build_peak_mb=_peak_mb())
    return out


def check(path: str, checker: str) -> dict:
    from sylver.proof.certificate import verify as verify_dict
    from sylver.proof.certificate import verify_path

    t0, c0 = time.monotonic(), time.process_time()
    if checker == "file":
        verify_path(path)
    else:
        with open(path, encoding="utf-8") as fh:
            verify_dict(json.load(fh))
    return {"check_cpu": time.process_time() - c0, "check_wall": time.monotonic() - t0, "check_peak_mb": _peak_mb()}


def checks(files: list[str], checker: str, repeat: int) -> None:
    """The check of each file, ``repeat`` times (a fresh process each): CPU and wall seconds, peak
    RSS, and the median CPU seconds."""
    import statistics

    print(f"CPU: {cpu_model()}; {load()}; checker {checker}")
    print("| file | bytes | runs: check (CPU s) | median (CPU s) | wall s | MB/s (CPU) | check peak |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for path in files:
        runs = [_phase("check", path, checker) for _ in range(repeat)]
        cpu = statistics.median(r["check_cpu"] for r in runs)
        size = Path(path).stat().st_size
        cpus = ", ".join(f"{r['check_cpu']:.1f}" for r in runs)
        walls = ", ".join(f"{r['check_wall']:.0f}" for r in runs)
        print(f"| {Path(path).name} | {size:,} | {cpus} | {cpu:.1f} | {walls} | {size / 1e6 / cpu:.2f} "
              f"| {max(r['check_peak_mb'] for r in runs):,.0f} MB |", flush=True)


def _phase(*args: str) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", *args], capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "phase failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", nargs="+", default=["16,20,28,74,273"])
    ap.add_argument("--builder", choices=["stream", "memory"], default="stream")
    ap.add_argument("--checker", choices=["file", "dict", "none"], default="file")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each position")
    ap.add_argument("--memory", default="2G", help="the solve's --memory")
    ap.add_argument("--files", nargs="+", help="check these certificate files only (no solve, no build)")
    ap.add_argument("--phase", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        kind, *rest = args.phase
        print(json.dumps(build(*rest) if kind == "build" else check(*rest)))
        return
    if args.files:
        checks(args.files, args.checker, args.repeat)
        return
    print(f"CPU: {cpu_model()}; {load()}; builder {args.builder}, checker {args.checker}")
    print("| position | outcome | states | solve (CPU s) | peak after solve | P-positions | bytes | build (CPU s) "
          "| nodes/s (CPU) | peak after build | check (CPU s) | check peak |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for text in [t for t in args.positions for _ in range(args.repeat)]:
            path = str(Path(tmp) / "c.json")
            b = _phase("build", text, path, args.builder, args.memory)
            c = _phase("check", path, args.checker) if args.checker != "none" else None
            checked = f"{c['check_cpu']:.1f} | {c['check_peak_mb']:,.0f} MB" if c else "– | –"
            print(f"| {{{text}}} | {b['outcome']} | {b['states']:,} | {b['solve_cpu']:.1f} | {b['solve_peak_mb']:,.0f} MB "
                  f"| {b['nodes']:,} | {b['bytes']:,} | {b['build_cpu']:.1f} | {b['nodes'] / max(b['build_cpu'], 1e-9):,.0f} "
                  f"| {b['build_peak_mb']:,.0f} MB | {checked} |", flush=True)


if __name__ == "__main__":
    main()
