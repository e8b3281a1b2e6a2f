"""Shared test configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
"""The shared folder beside the checkout (seeds, published results)."""


@pytest.fixture(scope="session")
def known_results() -> list[dict]:
    """The published positions with their complete winning-move sets (shared/data/known_results.json)."""
    import json

    path = SHARED / "data" / "known_results.json"
    if not path.exists():
        pytest.skip(f"{path} not found")
    return json.loads(path.read_text())["positions"]


@pytest.fixture(scope="session")
def on_terminal() -> Callable[[list[str]], tuple[subprocess.CompletedProcess, bytes]]:
    """Run ``python -m sylver ARGS`` with its stderr on a pseudo-terminal (its stdout piped): the
    finished process and the bytes the terminal showed (what a user watching it sees)."""

    def run(args: list[str]) -> tuple[subprocess.CompletedProcess, bytes]:
        import pty

        controller, terminal = pty.openpty()
        try:
            out = subprocess.run([sys.executable, "-m", "sylver", *args], stdout=subprocess.PIPE,
                                 stderr=terminal, text=True, timeout=300)
            os.close(terminal)
            terminal = -1
            shown = b""
            while True:
                try:
                    chunk = os.read(controller, 1 << 16)
                except OSError:  # the terminal's other end closed: all read
                    break
                if not chunk:
                    break
                shown += chunk
        finally:
            os.close(controller)
            if terminal >= 0:
                os.close(terminal)
        return out, shown

    return run


@pytest.fixture(autouse=True, scope="session")
def _ctrl_c_raises() -> None:
    """Ctrl-C (SIGINT) raises KeyboardInterrupt in the tests, as in a terminal, even when the suite
    was started in the background by a shell that set SIGINT to be ignored (Python then installs
    no handler): the tests of what Ctrl-C does send it to their own process."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _clock_tests_on_the_real_clock(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A test marked ``clock`` measures a time limit itself (that a solve given 0.2 s stops within
    1.5 s): ``SYLVER_TEST_TIME_SCALE`` (``make test-fast-machine``, ``make test-slow-machine``)
    does not apply to it, nor to the processes it starts (docs/design.md, testing)."""
    if request.node.get_closest_marker("clock") is not None:
        from sylver.machine import TIME_SCALE

        monkeypatch.delenv(TIME_SCALE, raising=False)


@pytest.fixture(autouse=True, scope="session")
def _private_results_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test, nor any process it starts, reads or writes the user's real results store."""
    import os

    os.environ["SYLVER_STORE"] = str(tmp_path_factory.mktemp("store") / "results.sqlite")


@pytest.fixture(autouse=True, scope="session")
def _bots_unsandboxed_without_bubblewrap() -> None:
    """Where the sandbox cannot run (bubblewrap missing: scripts/setup-test-env.sh installs it), the
    arena tests run their bots without it; the tests of the sandbox itself skip, saying why."""
    import os

    from sylver.arena.sandbox import UNSAFE_ENV, sandbox_problem

    why = sandbox_problem()
    if why:
        os.environ[UNSAFE_ENV] = "1"
        print(f"\nthe arena's sandbox is unavailable ({why}): bots run without it in these tests")


TEST_ENDGAME_GENUS = 16
"""The in-process solver of the tests uses an endgame table of this genus (built in the session),
not the saved one (genus 32): every search then runs the kernel above genus 16 and the table
below, so the differential tests exercise both and the seam between them.  Commands started as
processes use the saved table, as users do; tests/test_endgame.py tests both tables."""


@pytest.fixture(autouse=True, scope="session")
def _small_endgame_table() -> None:
    from sylver.solver import endgame
    from sylver.solver.engine import ENGINE

    ENGINE.set_endgame(endgame.build(TEST_ENDGAME_GENUS))


CHROMIUM = os.environ.get("SYLVER_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Chromium for the browser tests (tests/test_browser.py, tests/test_web_board.py) and its options."""


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"Chromium not found at {CHROMIUM}: run `bash scripts/setup-test-env.sh` (apt-get install -y chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install playwright)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()
