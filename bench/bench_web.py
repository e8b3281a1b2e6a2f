"""Web server under load: 400 mixed requests from 40 concurrent clients while a long solve runs.

Prints the total time, requests per second, the latency median / 95th percentile / maximum and the
status codes.  Run: .venv/bin/python bench/bench_web.py
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import threading
import time

import httpx
import uvicorn

from sylver.web.app import create_app

REQUESTS = 400
CONCURRENCY = 40


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
    t = time.perf_counter()
    app.state.runner.wait_warm(300)
    print(f"worker processes warmed up in {time.perf_counter() - t:.1f} s")
    try:
        asyncio.run(load(f"http://127.0.0.1:{port}"))
    finally:
        server.should_exit = True
        thread.join(10)


if __name__ == "__main__":
    main()
