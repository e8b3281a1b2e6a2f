"""The arena on a Dask cluster: a local scheduler and two worker processes on loopback."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from sylver.arena.rules import make_rules
from sylver.arena.specs import parse_specs
from sylver.arena.tournament import Config, Events, run_tournament

distributed = pytest.importorskip("distributed")

BOTS = Path(__file__).parent / "data" / "bots"
ZOO = BOTS / "zoo.py"


def test_tournament_on_dask_survives_a_lost_worker(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None, silence_logs=50) as cluster, Client(cluster) as client:
        specs = parse_specs([f"{ZOO}:Slow", f"{ZOO}:Smallest", "random"])
        config = Config(specs, make_rules("koth"), rounds=3, seed=11)
        out = tmp_path / "dask"
        result: dict = {}

        log: list[tuple[str, int]] = []

        class Record(Events):
            def started(self, game: dict, number: int, total: int) -> None:
                log.append(("started", number))

            def finished(self, record: dict, number: int, total: int) -> None:
                log.append(("finished", number))

        def run() -> None:
            result["outcome"] = run_tournament(config, out, cluster=cluster.scheduler_address, events=Record())

        t = threading.Thread(target=run)
        t.start()
        games = out / "games.jsonl"
        deadline = time.time() + 90
        while time.time() < deadline and (not games.exists() or len(games.read_text().splitlines()) < 2):
            time.sleep(0.05)
        pids = client.run(os.getpid)
        victim = sorted(pids.values())[0]
        os.kill(victim, signal.SIGKILL)  # a worker dies mid-run; the nanny restarts it
        t.join(180)
        assert not t.is_alive()
    outcome = result["outcome"]
    lines = [json.loads(x) for x in games.read_text().splitlines()]
    assert sorted(r["game"] for r in lines) == list(range(1, 19))
    assert outcome.voids == 0 and len(outcome.records) == 18
    workers = {r["worker"] for r in lines}
    assert len(workers) >= 2, workers
    # each game is announced when a worker starts it (told by the worker), before it finishes
    for n in range(1, 19):
        assert log.index(("started", n)) < log.index(("finished", n)), log
    assert any(log[i + 1] != ("finished", n) for i, (kind, n) in enumerate(log) if kind == "started"), log
