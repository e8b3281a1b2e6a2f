"""Web server under load, two cases (the CPU model and the load average are printed first).

1. 400 mixed requests from 40 concurrent clients while a long solve runs: the total time, requests
   per second, the latency median / 95th percentile / maximum and the status codes.
2. Blocking: four clients keep sending oversized requests (a 105 KB position typed as text, a list
   of 15,000 numbers, a 13 KB position in a query string, a 2,000-move game replayed until its
   deadline) while /api/info is asked every 20 ms: its latency median / 95th percentile / maximum
   (target: p95 <= 200 ms; one such request used to freeze the server for 30-55 s).  Larger bodies
   (the 245 KB of the report) are refused before they are read.

The clients run in processes of their own: in the server's process they would compete with it for
the GIL and measure themselves.

Run: .venv/bin/python bench/bench_web.py
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import socket
import statistics
import threading
import time
from typing import Any

import httpx
import uvicorn
from machine import cpu_model  # noqa: E402 - bench/ is the script's directory

from sylver.web.app import create_app

REQUESTS = 400
CONCURRENCY = 40
PROBE_SECONDS = 8.0


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


async def load(base: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as ac:

        async def one(i: int) -> tuple[float, int]:
            t = time.perf_counter()
            kind = i % 5
            if kind == 0:
                r = await ac.post("/api/sylver/state", json={"start": [7, 11], "moves": [59]})
            elif kind == 1:
                r = await ac.post("/api/sylver/move", json={"start": [4, 5], "move": 13})  # 409 + witness
            elif kind == 2:
                r = await ac.post("/api/sylver/bot-move", json={"start": [7, 11], "bot": "random", "seed": i})
            elif kind == 3:
                r = await ac.get("/api/wythoff/analyze", params={"i": i, "j": 2 * i})
            else:
                r = await ac.get("/api/sylver/cells", params={"position": "100003,100019", "lo": i * 1000})
            return time.perf_counter() - t, r.status_code

        solve = asyncio.ensure_future(
            ac.post("/api/sylver/solve", json={"position": "16,20,28,74,273", "time_limit": 5})
        )
        await asyncio.sleep(0.2)
        gate = asyncio.Semaphore(CONCURRENCY)

        async def limited(i: int) -> tuple[float, int]:
            async with gate:
                return await one(i)

        t0 = time.perf_counter()
        results = await asyncio.gather(*(limited(i) for i in range(REQUESTS)))
        total = time.perf_counter() - t0
        latencies = sorted(x for x, _ in results)
        codes: dict[int, int] = {}
        for _, c in results:
            codes[c] = codes.get(c, 0) + 1
        print(
            f"{REQUESTS} requests, {CONCURRENCY} concurrent, during a 5 s solve: {total:.2f} s, "
            f"{REQUESTS / total:.0f} requests/s, latency median {statistics.median(latencies) * 1000:.0f} ms, "
            f"p95 {latencies[int(0.95 * len(latencies))] * 1000:.0f} ms, max {latencies[-1] * 1000:.0f} ms; "
            f"status codes {codes}"
        )
        r = await solve
        print(f"the long solve: HTTP {r.status_code}, decided={r.json().get('decided')}")


def oversized_senders(base: str, stop: Any, codes: Any) -> None:
    """Four clients, each with one oversized request in flight at all times (a process of its own)."""
    # just under the body limit (128 KB), so that the server reads them: 15,000 numbers, 105 KB
    text = json.dumps({"start": ",".join(str(100_000 + i) for i in range(15_000))}).encode()
    numbers = json.dumps({"start": [100_000 + i for i in range(15_000)]}, separators=(",", ":")).encode()
    query = ",".join(str(1_000 + i) for i in range(2_600))  # 13 KB: past the 2,000-number limit
    game = json.dumps({"start": [1_999_993], "moves": [1_999_992 - i for i in range(2_000)]}).encode()
    kinds = {  # the last one is accepted: its replay runs to the deadline (10 s)
        "text": ("POST", "/api/sylver/state", {"content": text}),
        "list": ("POST", "/api/sylver/state", {"content": numbers}),
        "query": ("GET", "/api/sylver/analyze", {"params": {"position": query}}),
        "replay": ("POST", "/api/sylver/state", {"content": game}),
    }

    async def sender(name: str) -> None:
        method, path, kw = kinds[name]
        headers = {"content-type": "application/json"}
        async with httpx.AsyncClient(base_url=base, timeout=120, headers=headers) as ac:
            while not stop.is_set():
                r = await ac.request(method, path, **kw)
                key = f"{name} {r.status_code}"
                codes[key] = codes.get(key, 0) + 1

    async def run() -> None:
        await asyncio.gather(*(sender(name) for name in kinds))

    asyncio.run(run())


def blocking(base: str) -> None:
    """/api/info latency (asked every 20 ms from this process) while another process keeps four
    oversized requests in flight."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Manager() as manager:
        stop, codes = manager.Event(), manager.dict()
        senders = ctx.Process(target=oversized_senders, args=(base, stop, codes))
        senders.start()
        waits = []
        with httpx.Client(base_url=base, timeout=120) as c:
            while sum(codes.values()) < 8:  # every kind under way
                time.sleep(0.05)
            end = time.perf_counter() + PROBE_SECONDS
            while time.perf_counter() < end:
                t = time.perf_counter()
                assert c.get("/api/info").status_code == 200
                waits.append(time.perf_counter() - t)
                time.sleep(0.02)
        stop.set()
        senders.join(120)
        answers = dict(sorted(codes.items()))
    p95 = percentile(waits, 0.95)
    print(
        f"/api/info while 4 oversized requests are in flight: {len(waits)} probes, latency median "
        f"{statistics.median(waits) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max {max(waits) * 1000:.0f} ms "
        f"(target p95 <= 200 ms: {'met' if p95 <= 0.2 else 'MISSED'}); oversized answers {answers}"
    )


def clients(base: str) -> None:
    """Both cases, from a process of their own (the server's process only serves)."""
    asyncio.run(load(base))
    blocking(base)


def main() -> None:
    app = create_app(warm_up=True)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    t = time.perf_counter()
    app.state.runner.wait_warm(300)
    print(f"worker processes warmed up in {time.perf_counter() - t:.1f} s")
    client = multiprocessing.get_context("spawn").Process(target=clients, args=(f"http://127.0.0.1:{port}",))
    try:
        client.start()
        client.join()
    finally:
        server.should_exit = True
        thread.join(10)


if __name__ == "__main__":
    main()
