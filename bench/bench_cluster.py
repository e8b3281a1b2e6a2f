"""A campaign on a real Dask cluster of this machine against local workers, on the same roots
(issue 50, item 4).  A P root (T) makes every setting decide the same nodes: each of its obligations.

    .venv/bin/python bench/bench_cluster.py                 # T = {16,20,34} (P) and {16,34}: 2 workers vs -j 1, -j 2
    .venv/bin/python bench/bench_cluster.py --root 16,140 --workers 2 --time-limit 900
    .venv/bin/python bench/bench_cluster.py --store postgresql://user:pw@host/db    # a server of yours

The cluster is started with the commands a user runs (docs/campaign.md, "On a cluster"):

    dask scheduler --host 127.0.0.1 --port P --no-dashboard
    dask worker tcp://127.0.0.1:P --nworkers W --nthreads 1 --memory-limit 0 --no-dashboard

and each root is attacked by ``sylver campaign run ROOT --dir D --cluster tcp://127.0.0.1:P --store URL``,
and by ``sylver campaign run ROOT --dir D2 -j J --store URL2`` for J = 1 (one local worker) and J = W
(a local pool as large as the cluster: what Dask itself costs).  The results store is
PostgreSQL: a new database for each setting and root on the test server that
``scripts/setup-test-env.sh`` starts (or on the server of --store), so neither setting sees what the
other decided; the results book is off in every process (``SYLVER_BOOK=off``), so every node is
searched.  Printed per root and setting: the root's outcome (the two must agree), wall seconds,
attempts, nodes decided, the CPU seconds of every process of the setting (campaign, scheduler,
workers and their children), and the wall-time ratio; with the CPU model and the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SYLVER = [sys.executable, "-m", "sylver"]
PGTEST_DIR = Path(os.environ.get("SYLVER_PGTEST_DIR", f"/tmp/sylver-pgtest-{os.getuid()}"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_url(given: str | None) -> str:
    """The PostgreSQL server's URL: --store, else the test server (started by the project's script)."""
    if given:
        return given
    subprocess.run(["bash", str(ROOT / "scripts" / "setup-test-env.sh")], check=False,
                   stdout=subprocess.DEVNULL)
    url_file = PGTEST_DIR / "url"
    if not url_file.exists():
        why = PGTEST_DIR.with_name(PGTEST_DIR.name + ".why")
        reason = why.read_text().strip() if why.exists() else "no URL written"
        sys.exit(f"bench_cluster: no PostgreSQL server: {reason}")
    return url_file.read_text().strip()


def new_database(url: str, name: str) -> str:
    """A new empty database ``name`` on the server of ``url``; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
    return url.rsplit("/", 1)[0] + "/" + name


def tree_cpu(procs: list[psutil.Process]) -> float:
    """CPU seconds (user + system) of ``procs`` and their living descendants."""
    total = 0.0
    seen: set[int] = set()
    for p in procs:
        try:
            for q in [p, *p.children(recursive=True)]:
                if q.pid in seen:
                    continue
                seen.add(q.pid)
                t = q.cpu_times()
                total += t.user + t.system + getattr(t, "children_user", 0.0) + getattr(t, "children_system", 0.0)
        except psutil.NoSuchProcess:
            continue
    return total


class Cluster:
    """A scheduler and ``workers`` worker processes on this machine, started as a user would."""

    def __init__(self, workers: int, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.log = log.open("w")
        dask = str(BIN / "dask")
        self.scheduler = subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", str(self.port), "--no-dashboard"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.worker = subprocess.Popen(
            [dask, "worker", self.address, "--nworkers", str(workers), "--nthreads", "1",
             "--memory-limit", "0", "--no-dashboard"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_for(workers)

    def wait_for(self, workers: int, timeout: float = 120.0) -> None:
        from distributed import Client

        with Client(self.address, timeout="30s") as client:
            client.wait_for_workers(workers, timeout=timeout)

    def processes(self) -> list[psutil.Process]:
        return [psutil.Process(p.pid) for p in (self.scheduler, self.worker) if p.poll() is None]

    def close(self) -> None:
        for p in (self.worker, self.scheduler):
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in (self.worker, self.scheduler):
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        self.log.close()


def campaign(root: str, directory: Path, store: str, args: list[str], env: dict[str, str],
             others: list[psutil.Process], time_limit: float) -> dict[str, Any]:
    """One campaign run to its end (or ``time_limit``): its root's outcome and figures.  CPU: the
    campaign's process and its local workers (waited for, so in our children's usage) plus the
    growth of ``others`` (the cluster's processes)."""
    before_others = tree_cpu(others)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    cmd = [*SYLVER, "campaign", "run", *root.split(","), "--dir", str(directory), "--store", store,
           "--time-limit", str(time_limit), *args]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) + tree_cpu(others) - before_others
    (directory.parent / f"{directory.name}.out").write_text(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1], "wall": wall}
    show = subprocess.run([*SYLVER, "campaign", "show", "--dir", str(directory), "--json"], env=env,
                          capture_output=True, text=True)
    data = json.loads(show.stdout) if show.returncode == 0 else {}
    nodes = data.get("nodes", [])
    return {"outcome": nodes[0].get("status", "?") if nodes else "?", "wall": wall, "cpu": cpu,
            "attempts": data.get("attempts", "?"),
            "decided": sum(1 for n in nodes if n.get("status") in ("P", "N")), "nodes": len(nodes)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", action="append", metavar="POSITION",
                    help="a root (repeatable; default 16,20,34 and 16,34)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes of the cluster (default 2)")
    ap.add_argument("--memory", default="2G", help="--memory of each attempt (default 2G)")
    ap.add_argument("--time-limit", type=float, default=900.0, help="seconds a campaign at most (default 900)")
    ap.add_argument("--store", help="a PostgreSQL server's URL (default: the test server of scripts/setup-test-env.sh)")
    ap.add_argument("--workdir", help="keep the campaigns' directories and logs here")
    ns = ap.parse_args()
    roots = ns.root or ["16,20,34", "16,34"]
    server = server_url(ns.store)
    work = Path(ns.workdir or tempfile.mkdtemp(prefix="bench-cluster-"))
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SYLVER_BOOK": "off", "PYTHONPATH": str(ROOT / "src")}
    tag = secrets.token_hex(3)
    print(f"# a campaign on a Dask cluster of this machine vs local workers, {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print(f"# {cpu_model()}, {load()}; --memory {ns.memory} an attempt, book off, PostgreSQL stores")
    print(f"{'root':<12}{'setting':<26}{'outcome':>8}{'wall s':>9}{'attempts':>10}{'decided':>9}{'cpu s':>9}")
    bad = 0
    for root in roots:
        name = root.replace(",", "_")
        settings: list[tuple[str, dict[str, Any]]] = []
        for jobs in sorted({1, ns.workers}):
            db = new_database(server, f"bench_{tag}_local{jobs}_{name}")
            settings.append((f"local, -j {jobs}", campaign(root, work / f"local{jobs}-{name}", db,
                                                            ["-j", str(jobs), "--memory", ns.memory], env, [],
                                                            ns.time_limit)))
        cluster = Cluster(ns.workers, env, work / f"cluster-{name}.log")
        try:
            db = new_database(server, f"bench_{tag}_cluster_{name}")
            settings.append((f"cluster, {ns.workers} workers",
                             campaign(root, work / f"cluster-{name}", db, ["--cluster", cluster.address, "--memory", ns.memory],
                                      env, cluster.processes(), ns.time_limit)))
        finally:
            cluster.close()
        for setting, r in settings:
            if "error" in r:
                bad += 1
                print(f"{root:<12}{setting:<26} error: {r['error']}")
                continue
            print(f"{root:<12}{setting:<26}{r['outcome']:>8}{r['wall']:>9.1f}{r['attempts']!s:>10}"
                  f"{r['decided']!s:>9}{r['cpu']:>9.1f}", flush=True)
        done = [(setting, r) for setting, r in settings if "error" not in r]
        if len({r["outcome"] for _, r in done}) > 1:
            bad += 1
            print(f"# DISAGREE: {root}: " + ", ".join(f"{setting} {r['outcome']}" for setting, r in done))
        if len(done) == len(settings):
            one = settings[0][1]["wall"]
            print(f"# {root}: wall against local -j 1: " +
                  ", ".join(f"{setting} {r['wall'] / one:.2f}" for setting, r in settings[1:]))
    print(f"# {load()}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
