"""API tests of the web app (FastAPI TestClient): every endpoint, good and bad input, limits."""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from sylver import GameRecord, Position
from sylver.web.app import create_app
from sylver.web.jobs import Limits


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(warm_up=True)
    with TestClient(app) as c:
        # the worker processes compile the numba kernels once (seconds on a fresh checkout)
        assert app.state.runner.wait_warm(300), "the worker processes did not start"
        yield c


def error(r: httpx.Response, status: int) -> dict:
    """The error object of a JSON error answer with the expected status."""
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"}
    err = body["error"]
    assert err["code"] and err["message"] and "\n" not in err["message"]
    assert "Traceback" not in err["message"]
    return err


class TestPage:
    def test_index(self, client: TestClient) -> None:
        r = client.get("/")
        assert r.status_code == 200
        assert "text/html" in r.headers["content-type"]
        assert "Sylver Coinage" in r.text and "/static/app.js" in r.text

    @pytest.mark.parametrize("name", ["app.js", "style.css", "favicon.svg"])
    def test_static(self, client: TestClient, name: str) -> None:
        assert client.get(f"/static/{name}").status_code == 200

    def test_docs_and_openapi(self, client: TestClient) -> None:
        docs = client.get("/docs")
        assert docs.status_code == 200 and "/docs-assets/swagger-ui-bundle.js" in docs.text  # no CDN
        assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
        assert client.get("/docs-assets/swagger-ui.css").status_code == 200
        spec = client.get("/openapi.json").json()
        for path in ("/api/info", "/api/sylver/state", "/api/sylver/move", "/api/sylver/bot-move",
                     "/api/sylver/cells", "/api/sylver/witness", "/api/sylver/solve", "/api/sylver/random-start"):
            assert path in spec["paths"], path

    def test_unknown_path(self, client: TestClient) -> None:
        assert error(client.get("/api/nothing"), 404)["code"] == "not_found"
        assert error(client.delete("/api/sylver/state"), 405)["code"] == "http_405"


class TestInfo:
    def test_info(self, client: TestClient) -> None:
        info = client.get("/api/info").json()
        from sylver.bots import BOTS

        assert [b["name"] for b in info["bots"]] == sorted(BOTS)
        assert info["features"]["solver"] is True
        assert info["features"]["results"] is False
        assert info["limits"]["max_cells"] == Limits().max_cells
        assert info["limits"]["solve_memory"] == "256M"  # as --solve-memory takes it, not in bytes
        assert Limits(solve_memory=3 * 2**30).public()["solve_memory"] == "3G"
        assert info["ready"] is True  # the module's app has warmed up its worker processes


class TestState:
    def test_four_five(self, client: TestClient) -> None:
        s = client.post("/api/sylver/state", json={"start": [5, 4, 10, 13]}).json()
        assert s["position"] == [4, 5] and s["braces"] == "{4,5}"
        assert s["gcd"] == 1 and s["finite"] is True
        assert s["frobenius_number"] == 11 and s["genus"] == 6 and s["tbar"] == 11
        legal = [n for n, c in enumerate(s["cells"], 1) if c == "1"]
        assert legal == Position([4, 5]).legal_moves() == [1, 2, 3, 6, 7, 11]
        assert s["over"] is False and s["result"] is None and s["to_move"] == 0

    def test_text_start(self, client: TestClient) -> None:
        s = client.post("/api/sylver/state", json={"start": "{4, 5}", "moves": [11]}).json()
        assert s["position"] == [4, 5, 11] and s["to_move"] == 1 and s["frobenius_number"] == 7

    def test_empty(self, client: TestClient) -> None:
        s = client.post("/api/sylver/state", json={}).json()
        assert s["position"] == [] and s["gcd"] == 0 and s["finite"] is False
        assert s["describe"] == "every positive integer"
        assert set(s["cells"]) == {"1"} and len(s["cells"]) == s["cells_top"] >= 60

    def test_gcd_above_one(self, client: TestClient) -> None:
        s = client.post("/api/sylver/state", json={"start": [6, 8]}).json()
        assert s["gcd"] == 2 and s["finite"] is False and s["frobenius_number"] is None
        assert s["tbar"] == 10  # the paper's example: t̄(6,8) = 2·t(3,4) = 10
        assert "not divisible by 2" in s["describe"]
        for n, c in enumerate(s["cells"], 1):
            assert (c == "1") == Position([6, 8]).is_legal(n)

    def test_koth_size_start_pages(self, client: TestClient) -> None:
        s = client.post("/api/sylver/state", json={"start": [100003, 100019]}).json()
        assert s["frobenius_number"] == (100003 - 1) * (100019 - 1) - 1
        assert len(s["cells"]) == Limits().max_cells < s["cells_top"]

    @pytest.mark.parametrize(
        "body, code",
        [
            ({"start": "4,x"}, "invalid_position"),
            ({"start": [0, 5]}, "invalid_position"),
            ({"start": [-3]}, "invalid_position"),
            ({"start": [4.5]}, "invalid_request"),
            ({"start": ["4"]}, "invalid_request"),
            ({"start": [True]}, "invalid_request"),
            ({"start": [10**40]}, "too_large"),
            ({"start": [3_000_001, 3_000_002]}, "too_large"),
            ({"start": list(range(1_000_000, 1_001_000))}, "too_large"),
            ({"start": [4, 5], "moves": [13, 7]}, "illegal_move"),
            ({"start": [4, 5], "moves": [0]}, "invalid_move"),
            ({"start": [4, 5], "moves": [1, 2]}, "game_over"),
            ({"start": [4, 5], "moves": "11"}, "invalid_request"),
            ({"start": [4, 5], "moves": [2] * 5000}, "too_large"),
            ({"start": [4, 5], "colour": "red"}, "invalid_request"),
        ],
    )
    def test_bad_input(self, client: TestClient, body: dict, code: str) -> None:
        assert error(client.post("/api/sylver/state", json=body), 422)["code"] == code

    def test_last_move_illegal_is_a_loss(self, client: TestClient) -> None:
        """A record whose last move is illegal (a bot's blunder) is a finished game, lost by that move."""
        s = client.post("/api/sylver/state", json={"start": [4, 5], "moves": [11, 13]}).json()
        assert s["over"] is True and s["position"] == [4, 5, 11]
        assert s["result"] == {
            "winner": 0, "loser": 1, "reason": "illegal move", "ply": 1, "move": 13, "detail": "13 = 4·2 + 5·1"
        }

    def test_long_game(self, client: TestClient) -> None:
        """1,200 moves replay fine (no recursion limit); every number below all named ones is legal."""
        moves = [2002 - i for i in range(1200)]
        s = client.post("/api/sylver/state", json={"start": [2003], "moves": moves}).json()
        assert s["position"][0] == moves[-1] and len(s["moves"]) == len(moves)
        s = client.post("/api/sylver/move", json={"start": [2003], "moves": moves[:-1], "move": moves[-1]}).json()
        assert s["position"][0] == moves[-1]

    def test_illegal_move_in_history_names_it(self, client: TestClient) -> None:
        err = error(client.post("/api/sylver/state", json={"start": [4, 5], "moves": [11, 13, 2]}), 422)
        assert "13 = 4·2 + 5·1" in err["message"] and "moves[1]" in err["message"]

    def test_body_too_large(self, client: TestClient) -> None:
        body = b'{"start": [4, 5], "moves": [' + b"2," * 200_000 + b"2]}"
        err = error(client.post("/api/sylver/state", content=body, headers={"content-type": "application/json"}), 413)
        assert err["code"] == "too_large"

        def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
            yield b'{"start": [4, 5], "moves": ['
            for _ in range(100):
                yield b"2," * 2_000
            yield b"2]}"

        r = client.post("/api/sylver/state", content=chunks(), headers={"content-type": "application/json"})
        assert error(r, 413)["code"] == "too_large"

    def test_not_json(self, client: TestClient) -> None:
        r = client.post("/api/sylver/state", content=b"{nope", headers={"content-type": "application/json"})
        error(r, 422)


class TestMove:
    def test_legal(self, client: TestClient) -> None:
        s = client.post("/api/sylver/move", json={"start": [4, 5], "moves": [], "move": 11}).json()
        assert s["moves"] == [11] and s["position"] == [4, 5, 11] and s["to_move"] == 1

    def test_illegal_refused_with_witness(self, client: TestClient) -> None:
        err = error(client.post("/api/sylver/move", json={"start": [4, 5], "move": 13}), 409)
        assert err["code"] == "illegal_move"
        assert err["text"] == "13 = 4·2 + 5·1" and "13 = 4·2 + 5·1" in err["message"]
        assert err["witness"] == {"4": 2, "5": 1} and err["move"] == 13

    def test_named_one_loses(self, client: TestClient) -> None:
        s = client.post("/api/sylver/move", json={"start": [4, 5], "moves": [11], "move": 1}).json()
        assert s["over"] is True
        assert s["result"] == {"winner": 0, "loser": 1, "reason": "named 1", "ply": 1, "move": 1, "detail": ""}
        err = error(client.post("/api/sylver/move", json={"start": [4, 5], "moves": [11, 1], "move": 2}), 409)
        assert err["code"] == "game_over"

    @pytest.mark.parametrize("move", [0, -5, 10**40, 2.5, "7", None, True])
    def test_bad_move(self, client: TestClient, move: object) -> None:
        r = client.post("/api/sylver/move", json={"start": [4, 5], "move": move})
        assert r.status_code == 422, r.text

    def test_move_too_large_for_position(self, client: TestClient) -> None:
        err = error(client.post("/api/sylver/move", json={"start": [2_500_000], "move": 2_500_001}), 422)
        assert err["code"] == "too_large"


class TestBotMove:
    def test_random_reproducible(self, client: TestClient) -> None:
        body = {"start": [7, 11], "moves": [], "bot": "random", "seed": 5}
        a = client.post("/api/sylver/bot-move", json=body).json()
        b = client.post("/api/sylver/bot-move", json=body).json()
        assert a["bot_move"] == b["bot_move"] and Position([7, 11]).is_legal(a["bot_move"])
        assert a["moves"] == [a["bot_move"]]

    def test_perfect_does_not_ponder_in_the_reply(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """The page waits for the bot's move: its perfect answers {7,11} (from the book) and returns,
        with no ponder of the positions after the player's replies (0.45 s of a 3-s call).  The
        route itself, in this process (the server runs it in its workers)."""
        import random

        from sylver.bots import Turn, make_bot
        from sylver.bots.oracle import Oracle
        from sylver.web import sylver_routes

        pondered: list[object] = []
        monkeypatch.setattr(Oracle, "ponder", lambda self, q, *args, **kwargs: pondered.append(q))
        body = sylver_routes._bot_move(Limits(), [7, 11], [], "perfect", 0)
        assert Position([7, 11]).is_legal(body["bot_move"]) and not pondered
        bot = make_bot("perfect", random.Random(0))  # elsewhere it ponders
        bot.choose(Turn(Position([7, 11]), (7, 11), time_left=3.0, per_call=True))
        assert pondered

    def test_bot_against_bot_to_the_end(self, client: TestClient) -> None:
        moves: list[int] = []
        for ply in range(200):
            s = client.post("/api/sylver/bot-move", json={"start": "6,10", "moves": moves, "seed": ply}).json()
            moves = s["moves"]
            if s["over"]:
                break
        else:
            pytest.fail("the game did not end")
        expected = GameRecord(Position([6, 10]), tuple(moves)).result()
        assert expected is not None
        assert s["result"]["winner"] == expected.winner and s["result"]["reason"] == expected.reason.phrase

    def test_empty_start(self, client: TestClient) -> None:
        s = client.post("/api/sylver/bot-move", json={"seed": 1}).json()
        assert s["bot_move"] >= 2 and s["position"] == [s["bot_move"]]

    def test_unknown_bot(self, client: TestClient) -> None:
        err = error(client.post("/api/sylver/bot-move", json={"start": [4, 5], "bot": "nobody"}), 422)
        assert err["code"] == "unknown_bot" and "random" in err["message"]

    def test_game_over(self, client: TestClient) -> None:
        err = error(client.post("/api/sylver/bot-move", json={"start": [4, 5], "moves": [1]}), 409)
        assert err["code"] == "game_over"


class TestCells:
    def test_window(self, client: TestClient) -> None:
        w = client.get("/api/sylver/cells", params={"position": "6,9", "lo": 100, "hi": 120}).json()
        assert w["lo"] == 100 and w["hi"] == 120 and len(w["legal"]) == 21
        p = Position([6, 9])
        assert w["legal"] == "".join("1" if p.is_legal(n) else "0" for n in range(100, 121))

    def test_default_range(self, client: TestClient) -> None:
        w = client.get("/api/sylver/cells", params={"position": "100003,100019", "lo": 10**9}).json()
        assert w["hi"] == 10**9 + 99 and len(w["legal"]) == 100

    @pytest.mark.parametrize(
        "params",
        [
            {"position": "4,5", "lo": 0},
            {"position": "4,5", "lo": 10, "hi": 5},
            {"position": "4,5", "lo": 1, "hi": 100000},
            {"position": "4,5", "lo": "x"},
            {"position": "4,5", "lo": 1, "hi": 10**13},
            {"position": "4;;q"},
        ],
    )
    def test_bad(self, client: TestClient, params: dict) -> None:
        error(client.get("/api/sylver/cells", params=params), 422)


class TestWitness:
    def test_illegal(self, client: TestClient) -> None:
        w = client.get("/api/sylver/witness", params={"position": "4,5", "n": 13}).json()
        assert w == {"position": [4, 5], "n": 13, "legal": False, "witness": {"4": 2, "5": 1}, "text": "13 = 4·2 + 5·1"}

    def test_legal(self, client: TestClient) -> None:
        w = client.get("/api/sylver/witness", params={"position": "4,5", "n": 11}).json()
        assert w["legal"] is True and w["witness"] is None and w["text"] is None

    @pytest.mark.parametrize("params", [{"position": "4,5", "n": 0}, {"position": "4,5"}, {"position": "4,5", "n": "a"}])
    def test_bad(self, client: TestClient, params: dict) -> None:
        error(client.get("/api/sylver/witness", params=params), 422)


class TestRandomStart:
    def test_koth_start(self, client: TestClient) -> None:
        a = client.get("/api/sylver/random-start", params={"seed": 7}).json()["start"]
        b = client.get("/api/sylver/random-start", params={"seed": 7}).json()["start"]
        assert a == b and len(a) == 2
        assert all(100_000 <= x <= 999_999 for x in a) and math.gcd(*a) == 1

    def test_bad_seed(self, client: TestClient) -> None:
        error(client.get("/api/sylver/random-start", params={"seed": "x"}), 422)


class TestSolve:
    def test_four_five(self, client: TestClient) -> None:
        r = client.post("/api/sylver/solve", json={"position": "4,5"})
        s = r.json()
        assert s["decided"] is True and s["outcome"] == "N"
        assert s["winning_moves"] == [11] and s["complete"] is True and s["frobenius_number"] == 11

    def test_p_position(self, client: TestClient) -> None:
        s = client.post("/api/sylver/solve", json={"position": [2, 3]}).json()
        assert s["outcome"] == "P" and s["winning_moves"] == []

    def test_known_results(self, client: TestClient, known_results: list[dict]) -> None:
        for rec in [r for r in known_results if r["complete"]][:15]:
            s = client.post("/api/sylver/solve", json={"position": rec["position"]}).json()
            assert s["outcome"] == rec["outcome"] and s["winning_moves"] == rec["winning_moves"], rec

    def test_time_limit(self, client: TestClient) -> None:
        s = client.post("/api/sylver/solve", json={"position": "16,20,28,74,273", "time_limit": 0.05}).json()
        assert s["complete"] is False
        if not s["decided"]:
            assert "not fully solved within the time limit of 0.05 s" in s["reason"]
        assert s["time_limit"] == 0.05 and s["root_moves_decided"] < s["root_moves"]

    @pytest.mark.parametrize(
        "body, code",
        [
            ({"position": "6,9"}, "not_solvable"),
            ({"position": ""}, "not_solvable"),
            ({"position": [100003, 100019]}, "not_solvable"),
            ({"position": "4,5", "time_limit": -1}, "invalid_request"),
            ({"position": "4,q"}, "invalid_position"),
            ({}, "invalid_request"),
        ],
    )
    def test_bad(self, client: TestClient, body: dict, code: str) -> None:
        assert error(client.post("/api/sylver/solve", json=body), 422)["code"] == code


# -- limits and concurrency ----------------------------------------------------------------------
class TestLimits:
    @pytest.mark.parametrize("bad", [{"job_time": 0}, {"solve_time": -1.0}, {"bot_time": True}, {"workers": 0},
                                     {"max_number": 0}, {"queue": -1}, {"max_cells": 2.5}, {"solve_memory": "lots"}])
    def test_made_checked(self, bad: dict[str, object]) -> None:
        """A limit out of its range is refused when the Limits are made, in one line naming it."""
        with pytest.raises(ValueError) as caught:
            Limits(**bad)  # type: ignore[arg-type]
        assert "\n" not in str(caught.value)
        if "solve_memory" not in bad:
            assert str(caught.value).startswith(next(iter(bad)) + ":")
        assert Limits(queue=0, job_time=0.05).queue == 0

    def test_job_timeout_is_504(self) -> None:
        """A job past its time limit is answered 504 (here: a position process that cannot even start
        within 2 × 0.05 s); the server keeps answering."""
        with TestClient(create_app(Limits(job_time=0.05))) as c:
            err = error(c.post("/api/sylver/state", json={"start": [4, 5]}), 504)
            assert err["code"] == "timeout" and "0.1 s" in err["message"]
            assert c.get("/api/info").status_code == 200

    def test_abandoned_replay_frees_its_worker(self) -> None:
        """A replay past the deadline stops, so the only worker thread serves the next request."""
        app = create_app(Limits(job_time=1.0, workers=1), warm_up=True)
        with TestClient(app) as c:
            assert app.state.runner.wait_warm(300)
            moves = [100_002 - i for i in range(2000)]  # far more than a second of work
            r = c.post("/api/sylver/state", json={"start": [100_003], "moves": moves})
            assert error(r, 504)["code"] == "timeout"
            start = time.monotonic()
            assert c.post("/api/sylver/state", json={"start": [4, 5]}).status_code == 200
            assert time.monotonic() - start < 5

    def test_runner_bounds(self) -> None:
        from sylver.web.jobs import BusyError, JobRunner, JobTimeoutError

        runner = JobRunner(Limits(workers=1, queue=1))

        async def main() -> None:
            slow = [asyncio.ensure_future(runner.run(time.sleep, 0.3)) for _ in range(2)]
            await asyncio.sleep(0.01)
            with pytest.raises(BusyError):
                await runner.run(time.sleep, 0)
            await asyncio.gather(*slow)
            with pytest.raises(JobTimeoutError):
                await runner.run(time.sleep, 0.3, timeout=0.02)
            assert await runner.run(sum, [1, 2, 3]) == 6

        asyncio.run(main())
        runner.shutdown()

    def test_runaway_worker_process_is_stopped(self) -> None:
        """A job in a worker process that ignores its budget is terminated; the lane then works again."""
        from sylver.web.jobs import JobRunner, JobTimeoutError

        runner = JobRunner(Limits())

        async def main() -> None:
            assert await runner.run(abs, -3, lane="solve") == 3
            with pytest.raises(JobTimeoutError):
                await runner.run(time.sleep, 30, timeout=0.5, lane="solve")
            start = time.monotonic()
            assert await runner.run(abs, -4, lane="solve", timeout=30) == 4
            assert time.monotonic() - start < 25  # a fresh process, not the sleeping one

        try:
            asyncio.run(main())
        finally:
            runner.shutdown()

    def test_busy_is_503(self) -> None:
        app = create_app(Limits(workers=1, queue=0, solve_time=1.0))
        with TestClient(app) as c:
            done = threading.Event()

            def slow() -> None:
                c.post("/api/sylver/solve", json={"position": "16,20,28,82,145"})
                done.set()

            th = threading.Thread(target=slow)
            th.start()
            deadline = time.monotonic() + 5
            while app.state.runner.pending == 0 and time.monotonic() < deadline:
                time.sleep(0.005)
            r = c.post("/api/sylver/state", json={"start": [4, 5]})
            th.join()
            assert done.is_set()
            if app.state.runner.pending == 0 and r.status_code == 200:
                pytest.skip("the solve finished before the second request arrived")
            assert error(r, 503)["code"] == "busy"

    def test_custom_limits(self) -> None:
        app = create_app(Limits(max_number=1000, max_cells=10), warm_up=True)
        with TestClient(app) as c:
            # the state is answered by a worker process: started first (a cold start at load 6-8 took
            # longer than a request's 20 s, and the answer was the 504 of a job not started)
            assert app.state.runner.wait_warm(300), "the worker processes did not start"
            assert error(c.post("/api/sylver/move", json={"start": [4, 5], "move": 1001}), 422)["code"] == "too_large"
            assert error(c.get("/api/sylver/cells", params={"position": "4,5", "hi": 20}), 422)["code"] == "too_large"
            assert len(c.post("/api/sylver/state", json={"start": [10, 11]}).json()["cells"]) == 10


@contextmanager
def live_server(app: object) -> Iterator[str]:
    """Serve ``app`` with uvicorn on a free loopback port in a thread; yield its base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))  # type: ignore[arg-type]
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def test_concurrent_clients() -> None:
    """40 clients at once on a real server, a mix of every kind of request: all answered correctly."""
    app = create_app(warm_up=True)
    with live_server(app) as base:
        assert app.state.runner.wait_warm(300)

        async def main() -> list[httpx.Response]:
            async with httpx.AsyncClient(base_url=base, timeout=60) as ac:
                reqs = []
                for i in range(40):
                    kind = i % 5
                    if kind == 0:
                        reqs.append(ac.post("/api/sylver/state", json={"start": [4 + i % 3, 5 + 2 * (i % 4)]}))
                    elif kind == 1:
                        reqs.append(ac.post("/api/sylver/move", json={"start": [4, 5], "move": 13}))
                    elif kind == 2:
                        reqs.append(ac.post("/api/sylver/bot-move", json={"start": [7, 11], "seed": i}))
                    elif kind == 3:
                        reqs.append(ac.post("/api/sylver/solve", json={"position": [4, 5]}))
                    else:
                        reqs.append(ac.get("/api/sylver/cells", params={"position": "100003,100019", "lo": i * 1000}))
                return await asyncio.gather(*reqs)

        answers = asyncio.run(main())
    for i, r in enumerate(answers):
        kind = i % 5
        if kind == 1:
            assert r.status_code == 409 and r.json()["error"]["text"] == "13 = 4·2 + 5·1"
            continue
        assert r.status_code == 200, r.text
        body = r.json()
        if kind == 0:
            assert body["position"] == list(Position([4 + i % 3, 5 + 2 * (i % 4)]).generators)
        elif kind == 2:
            assert Position([7, 11]).is_legal(body["bot_move"])
        elif kind == 3:
            assert body["winning_moves"] == [11]
        else:
            assert len(body["legal"]) == 100


class TestOversizedRequests:
    """Sizes are checked before anything is parsed: an oversized request is refused at once."""

    def test_text_longer_than_the_limit_is_not_parsed(self, client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
        import sylver.web.limits as web

        limits = client.get("/api/info").json()["limits"]
        text = ",".join(str(100_000 + i) for i in range(15_000))  # 105 KB, under the body limit
        assert len(text) > limits["max_text"] and len(text) < limits["max_body"]
        parsed: list[int] = []
        monkeypatch.setattr(web, "parse_numbers", lambda t: parsed.append(len(t)) or [])
        err = error(client.post("/api/sylver/state", json={"start": text}), 422)
        assert err["code"] == "too_large" and "characters" in err["message"]
        long_query = ",".join(["7"] * (limits["max_text"] // 2 + 1))
        assert error(client.get("/api/sylver/analyze", params={"position": long_query}), 422)["code"] == "too_large"
        assert error(client.get("/api/sylver/cells", params={"position": long_query}), 422)["code"] == "too_large"
        assert error(client.post("/api/sylver/solve", json={"position": long_query}), 422)["code"] == "too_large"
        assert parsed == []

    def test_too_many_numbers(self, client: TestClient) -> None:
        n = Limits().max_numbers + 1
        err = error(client.post("/api/sylver/state", json={"start": list(range(2, 2 + n))}), 422)
        assert err["code"] == "too_large" and f"{n:,} numbers" in err["message"]
        short = ",".join(["2"] * n)  # within the text limit, too many numbers once parsed
        assert error(client.post("/api/sylver/state", json={"start": short}), 422)["code"] == "too_large"

    def test_parsing_is_linear(self) -> None:
        """200,000 numbers as text parse (the old parser took minutes: quadratic in the text)."""
        from sylver.position import parse_numbers

        assert len(parse_numbers(",".join(["12345"] * 200_000))) == 200_000
        with pytest.raises(ValueError, match=r"^'x' in .{,100} is not a positive integer$"):  # one short line
            parse_numbers(",".join(["7"] * 99_999 + ["x"]))

    def test_info_answers_while_oversized_requests_are_in_flight(self) -> None:
        """/api/info answers at once while four oversized requests keep arriving (each took 30-55 s and
        froze the server).  Generous bounds, the machine may be busy: bench_web.py measures the p95."""
        with live_server(create_app()) as base:
            stop = threading.Event()
            refused: list[int] = []

            def oversized(count: int) -> None:  # 35,000 numbers (245 KB): 413; 15,000 (105 KB): 422
                body = json.dumps({"start": ",".join(str(100_000 + i) for i in range(count))}).encode()
                with httpx.Client(base_url=base, timeout=60, headers={"content-type": "application/json"}) as c:
                    while not stop.is_set():
                        refused.append(c.post("/api/sylver/state", content=body).status_code)

            senders = [threading.Thread(target=oversized, args=(n,)) for n in (35_000, 15_000, 35_000, 15_000)]
            for th in senders:
                th.start()
            waits = []
            try:
                with httpx.Client(base_url=base, timeout=60) as c:
                    while len(refused) < 8:
                        time.sleep(0.01)
                    for _ in range(20):
                        t = time.perf_counter()
                        assert c.get("/api/info").status_code == 200
                        waits.append(time.perf_counter() - t)
            finally:
                stop.set()
                for th in senders:
                    th.join()
        assert set(refused) == {413, 422}
        waits.sort()
        assert waits[len(waits) // 2] < 0.5 and waits[-1] < 2, waits


class TestGameOverAtTheStart:
    def test_start_with_one(self, client: TestClient) -> None:
        """{1}: the game is over before any move; the state says so (it said over: false)."""
        s = client.post("/api/sylver/state", json={"start": [1]}).json()
        assert s["over"] is True and s["legal_move_count"] == 0
        assert s["result"]["winner"] is None and s["result"]["loser"] is None
        assert "1" in s["describe"]
        for body in ({"start": [1], "move": 2}, {"start": "1, 5", "move": 2}):
            assert error(client.post("/api/sylver/move", json=body), 409)["code"] == "game_over"
        assert error(client.post("/api/sylver/bot-move", json={"start": [1]}), 409)["code"] == "game_over"
        assert error(client.post("/api/sylver/state", json={"start": [1], "moves": [2]}), 422)["code"] == "game_over"


class TestPlainWords:
    INTERNAL = re.compile(r"shared/|seeds?/0|seed 00\d|`sylver solve`|sylver\.(theory|position|solver|bots)\.")

    def test_bot_descriptions_are_whole_sentences(self, client: TestClient) -> None:
        for bot in client.get("/api/info").json()["bots"]:
            about = bot["about"]
            assert about.endswith(".") and len(about) > 30 and "\n" not in about, bot
            assert not self.INTERNAL.search(about), bot

    def test_no_internal_words_in_what_users_see(self, client: TestClient) -> None:
        seen = [client.get("/api/info").text, client.get("/openapi.json").text, client.get("/").text,
                client.get("/static/app.js").text]
        for position in ("4,5", "2,5", "8,14", "5,14", "7,11,13,15", "6,9", "8,12,26,30", "16", "", "1", "3", "12,17",
                         "4,5,7", "4,6,9", "4,6,9,11"):
            seen.append(client.get("/api/sylver/analyze", params={"position": position}).text)
            seen.append(client.post("/api/sylver/state", json={"start": position}).text)
        for text in seen:
            assert not self.INTERNAL.search(text), self.INTERNAL.search(text)
        assert "Sicherman" in client.get("/").text
        rep = client.get("/api/sylver/analyze", params={"position": "2,5"}).json()
        assert 'Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1' in rep["reason"]

    def test_moves_of_a_gcd_position_in_words(self, client: TestClient) -> None:
        s = client.post("/api/sylver/state", json={"start": [6, 9]}).json()
        assert s["describe"] == "infinitely many: every positive integer not divisible by 3, and the multiple 3 of 3"


class TestKeepSolving:
    def test_answers_state_their_time_limit_and_what_is_ruled_out(self, client: TestClient) -> None:
        s = client.post("/api/sylver/solve", json={"position": "4,5"}).json()
        assert s["time_limit"] == Limits().solve_time and s["root_moves"] == s["root_moves_decided"] == 5
        assert s["winning_moves"] == [11] and s["ruled_out"] == [2, 3, 6, 7]

    def test_asking_again_continues(self, client: TestClient) -> None:
        """Short requests, each continuing where the last stopped, end with the complete answer;
        every partial answer is right as far as it goes."""
        from sylver.solver import solve

        full = solve(Position([12, 17]))
        losing = set(Position([12, 17]).legal_moves()) - set(full.winning_moves) - {1}
        for _ in range(200):
            s = client.post("/api/sylver/solve", json={"position": "12,17", "time_limit": 0.05}).json()
            assert set(s["winning_moves"]) <= set(full.winning_moves)
            assert set(s["ruled_out"]) <= losing
            assert s["root_moves"] == len(losing) + len(full.winning_moves)
            if s["complete"]:
                break
            assert s["reason"].startswith("not fully solved within the time limit of 0.05 s")
        else:
            pytest.fail("keep solving did not finish")
        assert s["outcome"] == "N" and s["winning_moves"] == list(full.winning_moves)
        assert set(s["ruled_out"]) == losing


class TestOutcomes:
    def test_each_step_of_a_game(self, client: TestClient) -> None:
        from sylver.solver import solve
        from sylver.theory import outcome_by_theory

        moves = [11, 7, 6, 3, 2, 1]
        r = client.post("/api/sylver/outcomes", json={"start": [4, 5], "moves": moves}).json()
        assert len(r["outcomes"]) == len(r["by"]) == len(moves) + 1 and r["complete"] is True
        p = Position([4, 5])
        for k, x in enumerate([*moves, None]):
            if p.is_over:
                assert r["outcomes"][k] is None and r["by"][k] == "over"
                break
            expected = outcome_by_theory(p)[0] or solve(p).outcome
            assert r["outcomes"][k] == expected.value, (k, p)
            p = p.play(x)
        assert r["outcomes"][:2] == ["N", "P"]  # 11 wins in {4,5}

    def test_best_where_the_game_turned(self, client: TestClient) -> None:
        """{4,5}: 11 is the only winning move, so 7 turned the game, and the winning move is named
        there (``best`` names one wherever it is known; a P-position has none)."""
        r = client.post("/api/sylver/outcomes", json={"start": [4, 5], "moves": [7]}).json()
        assert r["outcomes"] == ["N", "N"] and r["best"][0] == 11
        good = client.post("/api/sylver/outcomes", json={"start": [4, 5], "moves": [11]}).json()
        assert good["outcomes"] == ["N", "P"] and good["best"][1] is None
        illegal = client.post("/api/sylver/outcomes", json={"start": [4, 5], "moves": [13]}).json()
        assert illegal["outcomes"] == ["N"] and illegal["best"] == [11]

    def test_a_record_ending_with_an_illegal_move(self, client: TestClient) -> None:
        r = client.post("/api/sylver/outcomes", json={"start": [4, 5], "moves": [11, 13]}).json()
        assert r["outcomes"] == ["N", "P"]

    def test_undecided_when_too_large(self, client: TestClient) -> None:
        r = client.post("/api/sylver/outcomes", json={"start": [100003, 100019], "moves": [5]}).json()
        assert r["outcomes"][0] == "N" and r["by"][0] == "theory"  # a coprime pair: an ender
        assert r["outcomes"][1] is None and r["complete"] is False


class TestDefence:
    def test_refutations_of_every_move(self, client: TestClient) -> None:
        from sylver.solver import solve

        p = Position([4, 5, 11])  # P: 11 wins in {4,5}
        r = client.post("/api/sylver/defence", json={"position": [4, 5, 11]}).json()
        assert r["complete"] is True
        assert sorted(row["move"] for row in r["moves"]) == [x for x in p.legal_moves() if x != 1]
        shares = []
        for row in r["moves"]:
            child = p.play(row["move"])
            assert row["refutations"] == list(solve(child).winning_moves)
            assert row["legal_replies"] == child.genus - 1
            shares.append(len(row["refutations"]) / max(row["legal_replies"], 1))
        assert shares == sorted(shares)

    def test_not_solvable(self, client: TestClient) -> None:
        assert error(client.post("/api/sylver/defence", json={"position": "6,9"}), 422)["code"] == "not_solvable"


class TestImport:
    def test_arena_record(self, client: TestClient) -> None:
        line = json.dumps({"game": 2, "players": ["beta", "alpha"], "first": "beta", "start": [4, 5], "moves": [11, 13],
                           "winner": "beta", "loser": "alpha", "reason": "illegal", "detail": "illegal move 13 = 4·2 + 5·1"})
        s = client.post("/api/sylver/import", json={"text": line + "\n"}).json()
        assert s["start"] == [4, 5] and s["moves"] == [11, 13] and s["over"] is True
        assert s["players"] == ["beta", "alpha"] and s["record_result"] == "beta wins {alpha illegal move 13 = 4·2 + 5·1}"

    def test_invalid_last_answer_is_dropped(self, client: TestClient) -> None:
        line = json.dumps({"start": [4, 5], "moves": [11, "abc"], "players": ["a", "b"], "winner": "a", "loser": "b",
                           "reason": "invalid", "detail": "answered 'abc'"})
        s = client.post("/api/sylver/import", json={"text": line}).json()
        assert s["moves"] == [11] and s["record_result"].startswith("a wins")

    @pytest.mark.parametrize(
        "text, start, moves",
        [("{4,5} 11 7 6", [4, 5], [11, 7, 6]), ("{4, 5}\n11, 7", [4, 5], [11, 7]), ("7 5 4", [], [7, 5, 4]),
         ("[7, 5]", [], [7, 5]), ("{}", [], []), ('{"start": [], "moves": [5, 7]}', [], [5, 7])],
    )
    def test_plain_lists(self, client: TestClient, text: str, start: list[int], moves: list[int]) -> None:
        s = client.post("/api/sylver/import", json={"text": text}).json()
        assert s["start"] == start and s["moves"] == moves and s["players"] is None

    @pytest.mark.parametrize(
        "text, code",
        [("", "invalid_record"), ("{4,5} 11 x", "invalid_record"), ('{"start": [4, 5]}', "invalid_record"),
         ('{"moves": [1.5]}', "invalid_record"), ('{"moves": [2]}\n{"moves": [3]}', "invalid_record"),
         ("{4,5} 11 13 7", "illegal_move"), ("{0} 5", "invalid_position")],
    )
    def test_bad(self, client: TestClient, text: str, code: str) -> None:
        assert error(client.post("/api/sylver/import", json={"text": text}), 422)["code"] == code


class TestAnalyze:
    def test_paper_example(self, client: TestClient) -> None:
        rep = client.get("/api/sylver/analyze", params={"position": "7,11,13,15"}).json()
        assert rep["frobenius_number"] == 23 and rep["ender"] == "none"
        assert rep["enclosure"] == [7, 11, 13, 15, 17, 19] and rep["enclosure_moves"] == [17, 19]

    def test_quiet_ender(self, client: TestClient) -> None:
        rep = client.get("/api/sylver/analyze", params={"position": "4,5"}).json()
        assert rep["ender"] == "quiet" and rep["ends"] == [11] and rep["outcome_by_theory"] == "N"

    def test_gcd_above_one(self, client: TestClient) -> None:
        rep = client.get("/api/sylver/analyze", params={"position": "14,22,26,30"}).json()
        assert rep["enclosure"] == [14, 22, 26, 30, 34, 38] and rep["ender"] is None
        assert rep["engine"]["outcome"] in ("P", "N", "probably-P", "unknown") and rep["engine"]["reason"]
        rep = client.get("/api/sylver/analyze", params={"position": "8,14"}).json()
        # P (short: about a second); "unknown" only when the machine is too busy for the 5 s
        assert rep["engine"]["outcome"] in ("P", "unknown") and rep["engine"]["method"] in ("short", "search")

    def test_koth_size(self, client: TestClient) -> None:
        rep = client.get("/api/sylver/analyze", params={"position": "100003,100019"}).json()
        assert rep["legal_moves"] is None and rep["ender"] == "quiet"

    @pytest.mark.parametrize("position", ["0", "4,x", "-3", str(10**40)])
    def test_bad(self, client: TestClient, position: str) -> None:
        error(client.get("/api/sylver/analyze", params={"position": position}), 422)


class TestWythoff:
    def test_analyze_seed_examples(self, client: TestClient) -> None:
        a = client.get("/api/wythoff/analyze", params={"i": 13, "j": 9}).json()
        assert a["outcome"] == "N" and a["winning_moves"] == [[10, 6], [13, 8]]
        assert [13, 0] in a["moves"] and [4, 0] in a["moves"] and len(a["moves"]) == 13 + 9 + 9
        assert client.get("/api/wythoff/analyze", params={"i": 10, "j": 6}).json()["outcome"] == "P"
        assert client.get("/api/wythoff/analyze", params={"i": 25, "j": 30}).json()["winning_moves"][0] == [8, 13]

    def test_huge_piles(self, client: TestClient) -> None:
        a = client.get("/api/wythoff/analyze", params={"i": 10**14, "j": 10**14 + 12345}).json()
        assert a["moves"] is None and a["winning_moves"]

    def test_any_size_the_library_handles(self, client: TestClient) -> None:
        """No fixed pile limit: the API takes what the library computes exactly (up to Python's
        integer-to-text limit, as the library's own parser)."""
        from sylver import wythoff

        for i, j in ((10**30, 3), (10**200 + 7, 10**199), (10**4000 - 1, 1)):
            a = client.get("/api/wythoff/analyze", params={"i": i, "j": j}).json()
            assert a["position"] == [i, j] and a["outcome"] == wythoff.outcome(i, j).value
            assert a["winning_moves"] == [list(q) for q in wythoff.winning_moves(i, j)]
        r = client.post("/api/wythoff/computer-move", json={"position": [10**30, 5]}).json()
        assert r["reply"] == list(wythoff.winning_move(10**30, 5))
        limit = client.get("/api/info").json()["limits"]["max_pile_digits"]
        assert limit == sys.get_int_max_str_digits() == 4300
        for digits in (limit + 1, 5000):  # refused with one clear line, never a 500
            body = b'{"position": [1' + b"0" * (digits - 1) + b", 1]}"
            r = client.post("/api/wythoff/computer-move", content=body, headers={"content-type": "application/json"})
            assert error(r, 422)["code"] in ("too_large", "invalid_request")
            assert error(client.get("/api/wythoff/analyze", params={"i": "1" * digits, "j": 1}), 422)

    def test_move_and_reply(self, client: TestClient) -> None:
        r = client.post("/api/wythoff/move", json={"position": [13, 9], "to": [10, 6]}).json()
        assert r["you"] == [10, 6] and r["reply"] is not None and r["position"] == r["reply"]
        assert r["winner"] is None and r["outcome"] == "N"  # from a cold position every move is hot

    def test_perfect_player_wins_from_hot(self, client: TestClient) -> None:
        r = client.post("/api/wythoff/computer-move", json={"position": [25, 30]}).json()
        assert r["reply"] == [8, 13] and r["outcome"] == "P"

    def test_reaching_the_corner(self, client: TestClient) -> None:
        r = client.post("/api/wythoff/move", json={"position": [5, 0], "to": [0, 0]}).json()
        assert r["winner"] == "you" and r["over"] is True and r["reply"] is None
        r = client.post("/api/wythoff/move", json={"position": [3, 3], "to": [0, 0], "misere": True}).json()
        assert r["winner"] == "computer"
        r = client.post("/api/wythoff/move", json={"position": [1, 1], "to": [1, 0]}).json()
        assert r["reply"] == [0, 0] and r["winner"] == "computer"

    def test_cold(self, client: TestClient) -> None:
        r = client.get("/api/wythoff/cold", params={"limit": 5}).json()
        assert r["cold"] == [[0, 0], [1, 2], [2, 1], [3, 5], [5, 3]]
        r = client.get("/api/wythoff/cold", params={"limit": 5, "misere": True}).json()
        assert r["cold"] == [[0, 1], [1, 0], [2, 2], [3, 5], [5, 3]]

    @pytest.mark.parametrize(
        "method, path, payload, status",
        [
            ("post", "/api/wythoff/move", {"position": [13, 9], "to": [10, 7]}, 409),
            ("post", "/api/wythoff/move", {"position": [13, 9], "to": [13, 9]}, 409),
            ("post", "/api/wythoff/move", {"position": [13, 9], "to": [14, 9]}, 409),
            ("post", "/api/wythoff/move", {"position": [0, 0], "to": [0, 0]}, 409),
            ("post", "/api/wythoff/move", {"position": [13, -9], "to": [1, 1]}, 422),
            ("post", "/api/wythoff/move", {"position": [13, 9]}, 422),
            ("post", "/api/wythoff/move", {"position": [13, 9, 1], "to": [1, 1]}, 422),
            ("post", "/api/wythoff/move", {"position": [13, 9.5], "to": [1, 1]}, 422),
            ("post", "/api/wythoff/computer-move", {"position": [0, 0]}, 409),
            ("get", "/api/wythoff/analyze", {"i": 3}, 422),
            ("get", "/api/wythoff/analyze", {"i": "a", "j": 1}, 422),
            ("get", "/api/wythoff/analyze", {"i": -1, "j": 1}, 422),
            ("get", "/api/wythoff/cold", {"limit": -1}, 422),
            ("get", "/api/wythoff/cold", {"limit": 10**6}, 422),
        ],
    )
    def test_bad(self, client: TestClient, method: str, path: str, payload: dict, status: int) -> None:
        if method == "post":
            r = client.post(path, json=payload)
        else:
            r = client.get(path, params=payload)
        error(r, status)


# -- the tournament viewer -------------------------------------------------------------------------
def write_results(path: Path, *, final: bool) -> None:
    """A results directory in the arena's format: two games, a void one and a torn last line."""
    from sylver.arena.rules import make_rules

    rules = make_rules("classic", start=(4, 5))
    games = [
        {"id": 1, "phase": 0, "round": 1, "seats": [0, 1], "players": ["alpha", "beta"], "seed": 11, "start": [4, 5]},
        {"id": 2, "phase": 0, "round": 1, "seats": [1, 0], "players": ["beta", "alpha"], "seed": 12, "start": [4, 5]},
        {"id": 3, "phase": 0, "round": 2, "seats": [0, 1], "players": ["alpha", "beta"], "seed": 13, "start": [4, 5]},
    ]
    plan = {
        "version": 1,
        "config": {"bots": [{"name": "alpha"}, {"name": "beta"}], "rules": rules.to_json(), "rounds": 2, "seed": 9},
        "phases": [{"phase": 0, "bots": ["alpha", "beta"], "games": games}],
    }
    (path / "plan.json").write_text(json.dumps(plan))
    base = {"phase": 0, "strikes": [], "learn_errors": [], "cpu": [0.0, 0.0], "wall": 0.01}
    records = [
        {**base, "game": 1, "round": 1, "seed": 11, "players": ["alpha", "beta"], "first": "alpha", "start": [4, 5],
         "moves": [11, 7, 6, 3, 2, 1], "times": [0.001] * 6, "winner": "alpha", "loser": "beta", "winner_seat": 0,
         "reason": "named-one", "detail": "named 1", "witness": None},
        {**base, "game": 2, "round": 1, "seed": 12, "players": ["beta", "alpha"], "first": "beta", "start": [4, 5],
         "moves": [11, 13], "times": [0.001, 0.002], "winner": "beta", "loser": "alpha", "winner_seat": 0,
         "reason": "illegal", "detail": "illegal move 13 = 4·2 + 5·1", "witness": {"4": 2, "5": 1}},
        {"game": 3, "phase": 0, "void": True, "players": ["alpha", "beta"], "error": "worker failed 3 times: boom"},
    ]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (path / "games.jsonl").write_text(text + '{"game": 4, "pha')  # a line being written
    if final:
        (path / "standings.json").write_text(json.dumps({"standings": [
            {"name": "beta", "rank": 1, "points": 3.0, "games": 2, "wins": 1, "losses": 1, "opponents": {}},
            {"name": "alpha", "rank": 2, "points": 3.0, "games": 2, "wins": 1, "losses": 1, "opponents": {}},
        ]}))


@pytest.fixture(scope="module")
def results_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """One served results directory for the tests that only read it (its workers start once)."""
    path = tmp_path_factory.mktemp("results")
    write_results(path, final=False)
    app = create_app(results_dir=path, warm_up=True)
    with TestClient(app) as c:
        # a replay's position is answered by a worker process: started before the first request, as
        # store_client's (a cold start at load 5-8 took longer than a request's 20 s)
        assert app.state.runner.wait_warm(300), "the worker processes did not start"
        yield c


class TestResults:
    def test_info_feature(self, results_client: TestClient) -> None:
        assert results_client.get("/api/info").json()["features"]["results"] is True

    def test_live_standings(self, results_client: TestClient) -> None:
        s = results_client.get("/api/results").json()
        assert s["finished"] is False and s["games_planned"] == 3 and s["games_played"] == 2 and s["voids"] == 1
        assert s["rules"].startswith("classic") and s["bots"] == ["alpha", "beta"]
        assert {r["name"]: r["wins"] for r in s["standings"]} == {"alpha": 1, "beta": 1}
        assert all("opponents" not in r for r in s["standings"])

    def test_the_rules_line_names_the_openings(self, tmp_path: Path) -> None:
        """A tournament played from an opening suite (``--openings``): the page's Rules line names its
        starts, as the tournament's own Rules line does (``Config.describe``), not the rules' start."""
        from sylver.arena.openings import load_suite
        from sylver.arena.rules import Rules
        from sylver.arena.tournament import Config

        write_results(tmp_path, final=False)
        plan = json.loads((tmp_path / "plan.json").read_text())
        suite = load_suite("one-number", 9)
        plan["config"]["openings"] = suite.to_json()
        (tmp_path / "plan.json").write_text(json.dumps(plan))
        with TestClient(create_app(results_dir=tmp_path)) as c:
            line = c.get("/api/results").json()["rules"]
        assert line == Rules.from_json(plan["config"]["rules"]).describe(suite)
        assert "openings one-number: {4}, {5}" in line and "start {4,5}" not in line
        config = Config([], Rules.from_json(plan["config"]["rules"]), openings=suite)
        assert line == config.describe()

    def test_final_standings(self, tmp_path: Path) -> None:
        write_results(tmp_path, final=True)
        with TestClient(create_app(results_dir=tmp_path)) as c:
            s = c.get("/api/results").json()
            assert s["finished"] is True and [r["name"] for r in s["standings"]] == ["beta", "alpha"]

    def test_games(self, results_client: TestClient) -> None:
        g = results_client.get("/api/results/games").json()
        assert g["total"] == 3 and [x["game"] for x in g["games"]] == [1, 2, 3]
        assert g["games"][0]["result"] == "alpha wins {beta named 1}" and g["games"][0]["moves"] == 6
        assert g["games"][1]["result"] == "beta wins {alpha illegal move 13 = 4·2 + 5·1}"
        assert g["games"][2]["void"] is True and "boom" in g["games"][2]["result"]
        page = results_client.get("/api/results/games", params={"offset": 1, "limit": 1, "bot": "beta"}).json()
        assert page["total"] == 3 and [x["game"] for x in page["games"]] == [2]
        assert results_client.get("/api/results/games", params={"bot": "nobody"}).json()["total"] == 0

    def test_game_and_replay(self, results_client: TestClient) -> None:
        g = results_client.get("/api/results/games/2").json()
        # every move is a step, the illegal last one too: the list's move count and the replay agree
        assert g["steps"] == 2 and g["losing_move"] == 13 and g["moves"] == [11, 13]
        p0 = results_client.get("/api/results/games/2/position", params={"ply": 0}).json()
        assert p0["position"] == [4, 5]
        p1 = results_client.get("/api/results/games/2/position", params={"ply": 1}).json()
        assert p1["position"] == [4, 5, 11] and p1["frobenius_number"] == 7
        p2 = results_client.get("/api/results/games/2/position", params={"ply": 2}).json()
        assert p2["position"] == [4, 5, 11] and p2["result"]["move"] == 13 and p2["result"]["winner"] == 0
        g1 = results_client.get("/api/results/games/1").json()
        assert g1["steps"] == 6 and g1["losing_move"] == 1
        before = results_client.get("/api/results/games/1/position", params={"ply": 5}).json()
        assert before["position"] == [2, 3]
        last = results_client.get("/api/results/games/1/position", params={"ply": 6}).json()
        assert last["position"] == [1] and last["over"] and last["result"]["reason"] == "named 1"

    @pytest.mark.parametrize(
        "path, params, status",
        [
            ("/api/results/games/99", {}, 404),
            ("/api/results/games/2/position", {"ply": 3}, 422),
            ("/api/results/games/2/position", {"ply": -1}, 422),
            ("/api/results/games/x", {}, 422),
            ("/api/results/games", {"limit": 0}, 422),
            ("/api/results/games", {"offset": -1}, 422),
        ],
    )
    def test_bad(self, results_client: TestClient, path: str, params: dict, status: int) -> None:
        error(results_client.get(path, params=params), status)

    def test_not_a_results_dir(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="plan.json"):
            create_app(results_dir=tmp_path)

    def test_absent_without_results(self, client: TestClient) -> None:
        assert client.get("/api/results").status_code == 404


class TestServeCommand:
    def test_serves_and_stops(self, tmp_path: Path) -> None:
        # a position solved once through the command line into a store, then served with that store
        store = tmp_path / "results.sqlite"
        solved = subprocess.run([sys.executable, "-m", "sylver", "solve", "7,11", "--store", str(store)],
                                capture_output=True, text=True, timeout=120)
        assert solved.returncode == 0, solved.stderr
        proc = subprocess.Popen(
            [sys.executable, "-m", "sylver", "serve", "--port", "0", "--workers", "1", "--store", str(store)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            assert m, line + proc.stderr.read()  # type: ignore[union-attr]
            base = f"http://127.0.0.1:{m.group(1)}"
            info = httpx.get(base + "/api/info", timeout=30).json()
            assert info["limits"]["workers"] == 1
            deadline = time.monotonic() + 300
            while not info["ready"] and time.monotonic() < deadline:  # the worker processes warm up
                time.sleep(0.5)
                info = httpx.get(base + "/api/info", timeout=30).json()
            assert info["ready"]
            # the bot and solver worker processes work when started through `python -m sylver`
            bot = httpx.post(base + "/api/sylver/bot-move", json={"start": [4, 5], "bot": "random", "seed": 1}, timeout=60)
            assert bot.status_code == 200 and bot.json()["bot_move"] in (2, 3, 6, 7, 11)
            sol = httpx.post(base + "/api/sylver/solve", json={"position": [4, 5]}, timeout=60)
            assert sol.status_code == 200 and sol.json()["winning_moves"] == [11]
            stored = httpx.post(base + "/api/sylver/solve", json={"position": [7, 11]}, timeout=60).json()
            assert stored["source"] == "store" and stored["complete"] and stored["states"] == 0
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=30)
        assert proc.returncode in (0, 130) and "Traceback" not in err  # 130: stopped by Ctrl-C

    @pytest.mark.parametrize(
        "args, message",
        [
            (["--results", "/nonexistent/dir"], "not a directory"),
            (["--solve-memory", "12Q"], "sylver: error: --solve-memory: invalid memory budget '12Q'"),  # as solve's
            (["--solve-memory", "1K"], "sylver: error: --solve-memory: memory budget '1K' is too small"),
            (["--host", "no.such.host.invalid"], "--host"),
        ],
    )
    def test_bad_options(self, args: list[str], message: str) -> None:
        r = subprocess.run([sys.executable, "-m", "sylver", "serve", *args], capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr

    def test_not_a_results_directory(self, tmp_path: Path) -> None:
        r = subprocess.run([sys.executable, "-m", "sylver", "serve", "--results", str(tmp_path)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "plan.json" in r.stderr and len(r.stderr.strip().splitlines()) == 1

    def test_port_in_use(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            port = s.getsockname()[1]
            r = subprocess.run([sys.executable, "-m", "sylver", "serve", "--port", str(port)],
                               capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "cannot listen" in r.stderr


# -- campaigns (sylver serve --campaign DIR) -------------------------------------------------------
def make_campaign(path: Path, *, work: bool = True) -> Path:
    """A small campaign on {4} in ``path`` (its results store beside it), worked until {4} is decided."""
    from sylver.campaign import Campaign, Ledger, Options
    from sylver.store.results import Store

    store = path.parent / f"{path.name}-store.sqlite"
    # the root expanded before any attempt (its own search would decide {4} at once, with no state to
    # count: {4,6} is P by a theorem), so it is decided by its children on any machine
    ledger = Ledger.create(path, Position.parse("4"), budget=2.0, store=str(store))
    book = os.environ.get("SYLVER_BOOK")
    os.environ["SYLVER_BOOK"] = "off"  # bare stores, its workers' too: the results book decides {4} at once
    try:
        if work:
            campaign = Campaign(ledger, Store(store, book=False), Options(jobs=1, memory=1 << 30, first_states=1))
            campaign.expand(ledger.node(ledger.root))
            campaign.work()
    finally:
        ledger.close()
        if book is None:
            os.environ.pop("SYLVER_BOOK", None)
        else:
            os.environ["SYLVER_BOOK"] = book
    return path


@pytest.fixture(scope="module")
def campaign_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_campaign(tmp_path_factory.mktemp("campaigns") / "four")


@pytest.fixture(scope="module")
def campaign_client(campaign_dir: Path) -> Iterator[TestClient]:
    with TestClient(create_app(campaign_dirs=[campaign_dir])) as c:
        yield c


def ledger_json(directory: Path) -> dict:
    """The ledger as the library reports it (`sylver campaign --show --json`)."""
    from sylver.campaign import Ledger
    from sylver.campaign.report import ledger_data

    ledger = Ledger.open(directory)
    try:
        return ledger_data(ledger)
    finally:
        ledger.close()


def node_status(directory: Path, position: str) -> str:
    import sqlite3

    with sqlite3.connect(directory / "ledger.sqlite") as db:
        return str(db.execute("SELECT status FROM nodes WHERE position = ?", (position,)).fetchone()[0])


class TestCampaigns:
    def test_info_and_list(self, campaign_client: TestClient, campaign_dir: Path) -> None:
        assert campaign_client.get("/api/info").json()["features"]["campaigns"] is True
        [c] = campaign_client.get("/api/campaigns").json()
        assert c["index"] == 0 and c["name"] == "four" and c["root"] == [4]
        assert c["summary"] == ledger_json(campaign_dir)["summary"] and c["summary"]["status"] == "N"
        assert c["headline"].startswith("{4} is N: ") and "nodes" in c["headline"]

    def test_ledger(self, campaign_client: TestClient, campaign_dir: Path) -> None:
        want = ledger_json(campaign_dir)
        got = campaign_client.get("/api/campaigns/0").json()
        assert got["summary"] == want["summary"] and got["attempts"] == want["attempts"]
        assert got["root"] == "{4}" and got["headline"].startswith("{4} is N")
        assert set(got["nodes"][0]) == set(want["nodes"][0]) | {"replies"}
        by_text = {n["text"]: n for n in got["nodes"]}
        assert len(by_text) == len(want["nodes"]) == want["summary"]["nodes"]
        for n in want["nodes"]:  # every field of every node, as the library reads it
            assert {k: v for k, v in by_text[n["text"]].items() if k != "replies"} == n
        # the reply table: the root, then its children by the root's move that leads to each
        nodes = got["nodes"]
        assert nodes[0]["position"] == [4] and nodes[0]["why"] == "root" and nodes[0]["replies"] == []
        replies = [n["replies"][0] for n in nodes[1:] if n["replies"]]
        assert replies == sorted(replies) and len(replies) >= 2
        assert all(n["replies"] for n in nodes[1:1 + len(replies)])
        for n in nodes:
            for r in n["replies"]:
                assert f"{{4}} + {r}" in n["why"]

    def test_depth(self, campaign_client: TestClient) -> None:
        got = campaign_client.get("/api/campaigns/0", params={"depth": 0}).json()
        assert [n["text"] for n in got["nodes"]] == ["{4}"] and got["depth"] == 0
        deep = campaign_client.get("/api/campaigns/0", params={"depth": 1}).json()
        assert all(n["depth"] <= 1 for n in deep["nodes"]) and len(deep["nodes"]) > 1

    def test_certificate_download(self, campaign_client: TestClient, campaign_dir: Path) -> None:
        decided = [n for n in ledger_json(campaign_dir)["nodes"] if n["certificate"]]
        assert decided, "the {4} campaign decided no node with a certificate"
        for n in decided:
            text = ",".join(map(str, n["position"]))
            r = campaign_client.get(f"/api/campaigns/0/certificate/{text}")
            assert r.status_code == 200, r.text
            assert r.content == (campaign_dir / n["certificate"]).read_bytes()
            assert r.headers["content-type"] == "application/json"
            name = n["certificate"].split("/")[-1]
            assert r.headers["content-disposition"] == f'attachment; filename="{name}"'
            assert json.loads(r.content)["position"] == n["position"]
        # the file name's spelling (4_6) and braces name the same position
        text = "_".join(map(str, decided[0]["position"]))
        assert campaign_client.get(f"/api/campaigns/0/certificate/{text}").status_code == 200

    @pytest.mark.parametrize("position", ["99", "abc", "0", "4,x", "%2E%2E%2Fledger.sqlite", "..%5Cledger.sqlite"])
    def test_certificate_refused(self, campaign_client: TestClient, position: str) -> None:
        assert error(campaign_client.get(f"/api/campaigns/0/certificate/{position}"), 404)["code"] == "not_found"

    def test_certificate_of_an_undecided_or_theorem_node(self, campaign_client: TestClient, campaign_dir: Path) -> None:
        without = [n for n in ledger_json(campaign_dir)["nodes"] if not n["certificate"]]
        assert without
        for n in without[:3]:
            text = ",".join(map(str, n["position"]))
            err = error(campaign_client.get(f"/api/campaigns/0/certificate/{text}"), 404)
            assert "no certificate" in err["message"]

    def test_certificate_file_outside_the_directory(self, tmp_path: Path) -> None:
        """The file name comes from the ledger row, and even a row naming a file outside the
        certificates directory (or no JSON file) is refused."""
        import sqlite3

        d = make_campaign(tmp_path / "c")
        (tmp_path / "secret.json").write_text('{"secret": 1}')
        with TestClient(create_app(campaign_dirs=[d])) as c:
            for path in ("../secret.json", "certificates/../../secret.json", str(tmp_path / "secret.json"),
                         "ledger.sqlite", "certificates/nothing.json"):
                with sqlite3.connect(d / "ledger.sqlite") as db:
                    db.execute("UPDATE nodes SET certificate = ? WHERE position = '4'", (path,))
                error(c.get("/api/campaigns/0/certificate/4"), 404)

    @pytest.mark.parametrize(
        "path, status",
        [("/api/campaigns/1", 404), ("/api/campaigns/-1", 404), ("/api/campaigns/x", 422),
         ("/api/campaigns/0?depth=-1", 422), ("/api/campaigns/1/certificate/4", 404)],
    )
    def test_bad(self, campaign_client: TestClient, path: str, status: int) -> None:
        error(campaign_client.get(path), status)

    def test_reread_and_read_only(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Every request reads the ledger again (a campaign running in another process updates it),
        and reading changes nothing: a node being worked on stays `working`."""
        from sylver.campaign import Campaign, Ledger, Options
        from sylver.store.results import Store

        d = make_campaign(tmp_path / "c", work=False)
        with TestClient(create_app(campaign_dirs=[d])) as c:
            first = c.get("/api/campaigns/0").json()
            assert first["summary"]["status"] == "open" and len(first["nodes"]) == 1
            ledger = Ledger.open(d)
            try:
                monkeypatch.setenv("SYLVER_BOOK", "off")  # as make_campaign: decided by its children
                campaign = Campaign(ledger, Store(tmp_path / "c-store.sqlite", book=False), Options(jobs=1, memory=1 << 30))
                campaign.expand(ledger.node(ledger.root))
                campaign.work()
                open_nodes = [n for n in ledger.nodes() if n.status == "open"]
                assert open_nodes
                ledger.set_working(open_nodes[0].position)
                later = c.get("/api/campaigns/0").json()  # while the campaign's connection is open
            finally:
                ledger.close()
            assert later["summary"]["status"] == "N" and len(later["nodes"]) > 1
            assert {n["text"]: n["status"] for n in later["nodes"]}[open_nodes[0].position.braces()] == "working"
            assert c.get("/api/campaigns").json()[0]["summary"]["working"] == 1
        assert node_status(d, str(open_nodes[0].position)) == "working"

    def test_several_campaigns(self, tmp_path: Path, campaign_dir: Path) -> None:
        other = make_campaign(tmp_path / "open", work=False)
        with TestClient(create_app(campaign_dirs=[campaign_dir, other])) as c:
            got = c.get("/api/campaigns").json()
            assert [x["summary"]["status"] for x in got] == ["N", "open"] and [x["index"] for x in got] == [0, 1]
            assert c.get("/api/campaigns/1").json()["headline"].startswith("{4} is open")

    def test_not_a_campaign(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="no campaign here"):
            create_app(campaign_dirs=[tmp_path])
        (tmp_path / "ledger.sqlite").write_text("not a database")
        with pytest.raises(ValueError, match="not a campaign ledger"):
            create_app(campaign_dirs=[tmp_path])

    def test_absent_without_campaigns(self) -> None:
        with TestClient(create_app()) as c:
            assert c.get("/api/info").json()["features"]["campaigns"] is False
            assert c.get("/api/campaigns").status_code == 404

    def test_store_password_not_shown(self) -> None:
        from sylver.web.campaigns import redact

        assert redact("postgresql://me:s3cret@db:5432/sylver") == "postgresql://me:***@db:5432/sylver"
        assert redact("/data/store.sqlite") == "/data/store.sqlite"

    @pytest.mark.parametrize("make, message", [(False, "not a directory"), (True, "no campaign here")])
    def test_serve_bad_campaign(self, tmp_path: Path, make: bool, message: str) -> None:
        d = tmp_path / "nothing"
        if make:
            d.mkdir()
        r = subprocess.run([sys.executable, "-m", "sylver", "serve", "--campaign", str(d)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


# -- issue 51: the research board of a root the research works on ----------------------------------
class TestResearchBoard:
    """The board of {16,38} and {16,38,72} (the campaigns' roots below {16}) with no campaign served:
    every reply known to the results book or the public record, with its status, read at once."""

    @pytest.mark.parametrize("root", ["16,38", "16,38,72"])
    def test_every_reply_the_book_decides(self, client: TestClient, root: str) -> None:
        from sylver.store.book import load
        from sylver.store.public import published

        p = Position.parse(root)
        b = client.get("/api/sylver/board", params={"position": root}).json()
        assert b["applies"] is True and b["position"] == list(p.generators) and not b["finite"]
        assert b["root"]["outcome"] is None  # open: nothing decides it
        rows = {r["move"]: r for r in b["rows"]}
        assert list(rows) == [x for x in range(2, b["bound"] + 1) if p.is_legal(x)]
        book = load()
        assert book is not None
        known = book.children(p)
        assert known
        for x, e in known:
            r = rows[x]
            assert r["outcome"] == e.outcome.value and set(e.winning) <= set(r["winning"]), (x, r)
            assert r["published"] == (published(e.position) is not None)
        assert any(r["outcome"] is None for r in b["rows"])  # the open replies are listed as open

    def test_analyze_does_not_run_the_engine(self, client: TestClient) -> None:
        """The g > 1 engine would spend its seconds at every visit: the board answers instead."""
        r = client.get("/api/sylver/analyze", params={"position": "16,38"}).json()
        assert r["engine"]["method"] == "board" and r["engine"]["outcome"] == "unknown"

    @pytest.mark.parametrize("position", ["6,16", "16,20", "4,6", "4,5"])
    def test_no_board_for_decided_or_unresearched_positions(self, client: TestClient, position: str) -> None:
        b = client.get("/api/sylver/board", params={"position": position}).json()
        assert b["applies"] is False and b["rows"] == []

    def test_bad_position(self, client: TestClient) -> None:
        assert "not a positive integer" in error(client.get("/api/sylver/board", params={"position": "16,x"}), 422)["message"]

    def test_a_campaign_root(self, campaign_dir: Path) -> None:
        """A served campaign's root ({4}): each reply with its ledger node (status, winning move) and
        the root's own node."""
        app = create_app(campaign_dirs=[campaign_dir], warm_up=True)
        with TestClient(app) as c:
            assert app.state.runner.wait_warm(300), "the worker processes did not start"
            b = c.get("/api/sylver/board", params={"position": "4"}).json()
        assert b["applies"] is True and b["campaign"] == 0
        nodes = {tuple(n["position"]): n for n in ledger_json(campaign_dir)["nodes"]}
        rows = [r for r in b["rows"] if r["campaigns"]]
        assert rows
        for r in rows:
            [c] = r["campaigns"]
            node = nodes[tuple(r["position"])]
            assert c["index"] == 0 and c["status"] == node["status"] and c["winning"] == node["winning"], (r, node)
            assert c["certificate"] == bool(node["certificate"])
        assert b["root"]["campaigns"][0]["status"] == nodes[(4,)]["status"]


# -- issue 34: addresses refused move by move, the solver asked only when it can answer ------------------
class TestRefuseIllegal:
    def test_an_illegal_last_move_is_refused_not_a_result(self, client: TestClient) -> None:
        r = client.post("/api/sylver/state", json={"start": [4, 5], "moves": [13], "refuse_illegal": True}).json()
        assert r["position"] == [4, 5] and r["moves"] == [] and not r["over"]
        assert r["refused"] == {"ply": 1, "move": 13, "message": "13 is illegal in {4,5}: 13 = 4·2 + 5·1"}

    def test_an_illegal_move_within_is_named_one_based(self, client: TestClient) -> None:
        r = client.post("/api/sylver/state", json={"start": [4, 5], "moves": [11, 7, 3, 2, 6, 9], "refuse_illegal": True}).json()
        assert r["position"] == [2, 3] and r["moves"] == [11, 7, 3, 2]
        assert r["refused"]["ply"] == 5 and r["refused"]["move"] == 6
        assert r["refused"]["message"].startswith("6 is illegal in {2,3}")
        after_one = client.post("/api/sylver/state", json={"start": [2, 3], "moves": [1, 5], "refuse_illegal": True}).json()
        assert after_one["refused"]["ply"] == 2 and after_one["moves"] == [1]

    def test_a_legal_game_is_not_refused(self, client: TestClient) -> None:
        r = client.post("/api/sylver/state", json={"start": [2, 3], "moves": [1], "refuse_illegal": True}).json()
        assert r["refused"] is None and r["over"] and r["result"]["reason"] == "named 1"

    def test_without_the_flag_an_error_names_the_ply(self, client: TestClient) -> None:
        err = error(client.post("/api/sylver/state", json={"start": [4, 5], "moves": [11, 7, 3, 2, 6, 9]}), 422)
        assert err["ply"] == 5 and err["move"] == 6

    @pytest.mark.parametrize("position, solvable", [([4, 5], True), ([6, 16], False), ([], False), ([1], False)])
    def test_solvable(self, client: TestClient, position: list[int], solvable: bool) -> None:
        assert client.post("/api/sylver/state", json={"start": position}).json()["solvable"] is solvable


# -- issue 34: the results store -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def store_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, Path]]:
    """A server over a results store that holds {7,11} and two replies to {4,5}, {4,5,11} and
    {4,5,7} (solved through the library), and a certificate of {4,6} (gcd 2: none is built on
    request)."""
    from sylver.proof.build import build_gcd_certificate
    from sylver.solver import solve
    from sylver.store.results import Store

    path = tmp_path_factory.mktemp("store") / "results.sqlite"
    with Store(path) as store:
        solve(Position([7, 11]), store=store)
        solve(Position([4, 5, 11]), store=store)
        solve(Position([4, 5, 7]), store=store)
        sol = solve(Position([4, 6]), store=store)
        store.put_certificate(Position([4, 6]), build_gcd_certificate(sol))
    app = create_app(store=path, warm_up=True)
    with TestClient(app) as c:
        # the worker processes started before the first request: on a loaded machine a cold start
        # took longer than a request's 20 s (the first test then read a timeout answer)
        assert app.state.runner.wait_warm(300), "the worker processes did not start"
        yield c, path


class TestStore:
    def test_info(self, store_client: tuple[TestClient, Path]) -> None:
        c, path = store_client
        info = c.get("/api/info").json()
        assert info["features"]["store"] is True and "store" not in info["limits"]
        assert str(path) not in json.dumps(info)

    def test_solve_answers_from_the_store(self, store_client: tuple[TestClient, Path]) -> None:
        from sylver.solver import solve

        r = store_client[0].post("/api/sylver/solve", json={"position": [7, 11]}).json()
        assert r["source"] == "store" and r["from_store"] and r["states"] == 0 and r["complete"]
        assert r["winning_moves"] == list(solve(Position([7, 11])).winning_moves)

    def test_analyze_shows_the_stored_result(self, store_client: tuple[TestClient, Path]) -> None:
        c = store_client[0]
        r = c.get("/api/sylver/analyze", params={"position": "7,11"}).json()
        assert r["stored"]["outcome"] == "N" and r["stored"]["complete"] and r["stored"]["certificate"] is False
        g = c.get("/api/sylver/analyze", params={"position": "4,6"}).json()
        assert g["engine"]["source"] == "store" and g["stored"]["certificate"] is True
        assert c.get("/api/sylver/analyze", params={"position": "5,7"}).json()["stored"] is None

    def test_a_solve_is_recorded_for_the_next_visitor(self, store_client: tuple[TestClient, Path]) -> None:
        from sylver.store.results import Store

        c, path = store_client
        first = c.post("/api/sylver/solve", json={"position": [5, 8]}).json()
        assert first["source"] == "solver" and first["complete"]
        with Store(path) as store:
            assert store.get(Position([5, 8])) is not None
        assert c.post("/api/sylver/solve", json={"position": [5, 8]}).json()["source"] == "store"

    def test_outcomes_read_the_store(self, store_client: tuple[TestClient, Path]) -> None:
        r = store_client[0].post("/api/sylver/outcomes", json={"start": [7, 11], "moves": []}).json()
        assert r["outcomes"] == ["N"] and r["by"] == ["store"]

    def test_certificates(self, store_client: tuple[TestClient, Path]) -> None:
        from sylver.proof.certificate import verify_any

        c = store_client[0]
        stored = c.get("/api/sylver/certificate", params={"position": "4,6"})
        assert stored.status_code == 200 and 'filename="sylver-certificate-4_6.json"' in stored.headers["content-disposition"]
        verify_any(stored.json())
        built = c.get("/api/sylver/certificate", params={"position": "4,5"})
        assert built.status_code == 200
        verify_any(built.json())
        assert built.json()["position"] == [4, 5] and built.json()["winning_moves"] == [11]
        err = error(c.get("/api/sylver/certificate", params={"position": "6,9"}), 404)
        assert "no certificate of {6,9}" in err["message"]

    def test_replies(self, store_client: tuple[TestClient, Path]) -> None:
        from sylver.solver import solve

        r = store_client[0].get("/api/sylver/replies", params={"position": "4,5"}).json()
        assert r["examined"] == 5  # 2, 3, 6, 7 and 11 are legal; 1 is not a reply to look up
        assert [x["move"] for x in r["replies"]] == [7, 11]
        seven, eleven = r["replies"]
        assert eleven["outcome"] == "P" and eleven["position"] == [4, 5, 11] and eleven["winning_moves"] == []
        assert seven["outcome"] == "N" and seven["winning_moves"] == list(solve(Position([4, 5, 7])).winning_moves)
        opening = store_client[0].get("/api/sylver/replies", params={"position": "16"}).json()
        assert opening["examined"] == 400  # {16}: infinitely many replies, the first 400 looked up
        by_move = {x["move"]: x for x in opening["replies"]}  # none in the store: the results book's
        assert by_move[20]["outcome"] == "N" and 34 in by_move[20]["winning_moves"]  # T = {16,20,34}
        assert all(x["outcome"] == "N" for x in opening["replies"])  # the reply 38 is open, none is P

    def test_without_a_store(self, client: TestClient) -> None:
        assert client.get("/api/sylver/replies", params={"position": "4,5"}).json()["replies"] == []
        assert client.get("/api/info").json()["features"]["store"] is False
        assert client.post("/api/sylver/solve", json={"position": [4, 5]}).json()["source"] == "solver"
        assert client.get("/api/sylver/analyze", params={"position": "4,5"}).json()["stored"] is None

    def test_a_store_that_cannot_be_opened(self, tmp_path: Path) -> None:
        bad = tmp_path / "not-a-store.sqlite"
        bad.write_text("hello, not a database " * 100)
        with pytest.raises(ValueError, match="not a sylver results store"):
            create_app(store=bad)
