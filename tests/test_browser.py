"""Browser tests: Playwright drives Debian's Chromium through the real page served by uvicorn.

Skipped (with the reason) only when Chromium is not installed; ``make test`` installs it first
(scripts/setup-test-env.sh).  Screenshots of each view go to a temporary directory and are checked
to be real pictures (many distinct colours), not blank pages.
"""

from __future__ import annotations

import base64
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import expect

from sylver import GameRecord, Position
from sylver.web.app import create_app
from test_web import live_server

pytestmark = pytest.mark.browser

expect.set_options(timeout=60_000)  # as long as the pages' own waits (set_default_timeout), not 5 s


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real (tiny) tournament run by the arena: two built-in bots, classic rules from {7,11}."""
    out = tmp_path_factory.mktemp("tournament")
    cmd = [sys.executable, "-m", "sylver", "tournament", "--rules", "classic", "--start", "7,11",
           "--bot", "random", "--bot", "greedy", "--rounds", "1", "--seed", "3", "--concurrency", "1",
           "--quiet", "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def base_url(results_dir: Path) -> Iterator[str]:
    from sylver.machine import TIME_SCALE

    # the page's solves answer within its own real-time limits (a round of "Keep solving" is one):
    # its worker processes (started, and restarted, while it serves) run on the real clock, whatever
    # SYLVER_TEST_TIME_SCALE (docs/design.md, testing)
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(TIME_SCALE, raising=False)
        app = create_app(results_dir=results_dir, warm_up=True)
        with live_server(app) as url:
            # the worker processes import sylver and compile the numba kernels once; wait for that
            assert app.state.runner.wait_warm(180), "the worker processes did not start"
            yield url


API_DELAY = float(os.environ.get("SYLVER_TEST_API_DELAY") or 0)
"""``SYLVER_TEST_API_DELAY=0.5``: every ``/api/`` request a page of the browser tests makes waits a
random 0 to 0.5 s before it is sent, so that answers come late and out of order, as from a slow
server.  A test that reads the page before the answer it checks has arrived then fails at once
instead of once in a while in CI; each test waits for what it checks (``wait_for_function``,
``expect``).  Unset or 0: no delay."""

LATE_FETCH = """(delay) => {
    const send = window.fetch.bind(window);
    window.fetch = (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input), location.href);
        if (!url.pathname.startsWith('/api/')) return send(input, init);
        return new Promise((go) => setTimeout(go, Math.random() * delay)).then(() => send(input, init));
    };
}"""
"""The delay, in the page: ``fetch`` (the page's one way to the server) wrapped.  Not a Playwright
route: its handlers run in the test's process, stall while the test computes, and those still
waiting when a context closes are left as pending tasks."""


def new_context(browser: object, **options: object) -> object:
    """A browser context for a test (every test makes its contexts here), its pages' ``/api/``
    requests delayed when ``SYLVER_TEST_API_DELAY`` is set."""
    context = browser.new_context(**options)  # type: ignore[attr-defined]
    if API_DELAY > 0:
        context.add_init_script(f"({LATE_FETCH})({API_DELAY * 1000})")  # type: ignore[attr-defined]
    return context


def watch(pg: object) -> list[str]:
    """Collect what goes wrong in a page: JavaScript errors, console errors (a 4xx or 5xx answer
    logs one), failed requests and error answers.  A test that provokes one on purpose says so with
    ``allow(pg, pattern)``."""
    errors: list[str] = []
    pg.sylver_allowed = []  # type: ignore[attr-defined]
    pg.on("pageerror", lambda exc: errors.append(f"JavaScript error: {exc}"))  # type: ignore[attr-defined]
    pg.on("console", lambda m: errors.append(f"console error: {m.text}") if m.type == "error" else None)  # type: ignore[attr-defined]
    pg.on("requestfailed", lambda r: None if "ERR_ABORTED" in (r.failure or "") else errors.append(  # type: ignore[attr-defined]
        f"request failed: {r.method} {r.url}: {r.failure}"))
    pg.on("response", lambda r: errors.append(f"answer {r.status}: {r.request.method} {r.url}") if r.status >= 400 else None)  # type: ignore[attr-defined]
    return errors


def allow(pg: object, pattern: str) -> None:
    """An error answer (and its console line) this test provokes on purpose: ``pattern`` is a regular
    expression searched in the lines of :func:`watch`."""
    pg.sylver_allowed.append(pattern)  # type: ignore[attr-defined]


def check_clean(pg: object, errors: list[str]) -> None:
    allowed = getattr(pg, "sylver_allowed", [])
    left = [e for e in errors if not any(re.search(a, e) for a in allowed)
            and not (allowed and e.startswith("console error: Failed to load resource"))]
    assert not left, f"errors in the page: {left}"


@pytest.fixture()
def page(browser: object, base_url: str) -> Iterator[object]:
    context = new_context(browser, viewport={"width": 1280, "height": 900})
    pg = context.new_page()  # type: ignore[attr-defined]
    pg.set_default_timeout(60_000)  # generous: CI machines are shared and noisy
    errors = watch(pg)
    pg.goto(base_url + "/")
    pg.wait_for_selector("body[data-ready=true]")
    yield pg
    context.close()
    check_clean(pg, errors)


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


def distinct_colours(page: object, png: bytes) -> int:
    """Distinct colours of a PNG, counted by the browser itself (no image library needed)."""
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    return page.evaluate(  # type: ignore[attr-defined]
        """async (url) => {
            const img = new Image();
            img.src = url;
            await img.decode();
            const c = document.createElement('canvas');
            c.width = img.width; c.height = img.height;
            const ctx = c.getContext('2d');
            ctx.drawImage(img, 0, 0);
            const d = ctx.getImageData(0, 0, c.width, c.height).data;
            const seen = new Set();
            for (let i = 0; i < d.length; i += 4) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            return seen.size;
        }""",
        url,
    )


def screenshot(page: object, shots: Path, name: str) -> Path:
    path = shots / f"{name}.png"
    png = page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
    assert path.stat().st_size > 10_000
    assert distinct_colours(page, png) > 50, f"{path} looks blank"
    return path


# -- Sylver Coinage -------------------------------------------------------------------------------
def new_game(page: object, start: str, bot: str = "random", first: str = "human") -> None:
    page.check("#sc-setup input[name=start][value=list]")  # type: ignore[attr-defined]
    page.fill("#sc-start-list", start)  # type: ignore[attr-defined]
    page.select_option("#sc-bot", bot)  # type: ignore[attr-defined]
    page.check(f"#sc-setup input[name=first][value={first}]")  # type: ignore[attr-defined]
    page.click("#sc-new")  # type: ignore[attr-defined]
    # the new game's start heads the move list (the position itself may already be the bot's reply)
    braces = Position.parse(start).braces()
    expect(page.locator('#sc-history li[data-ply="0"] .after')).to_have_text(braces)  # type: ignore[attr-defined]
    wait_idle(page)


def wait_idle(page: object) -> None:
    """Until the page waits for the human (or the game is over)."""
    page.wait_for_function(  # type: ignore[attr-defined]
        """() => {
            const st = document.querySelector('#sc-status');
            const idle = document.querySelector('#sc-grid').getAttribute('aria-busy') !== 'true';
            return idle && (st.textContent.startsWith('Your move') || / to move/.test(st.textContent)
                            || ['win', 'lose', 'over'].some((c) => st.classList.contains(c)));
        }"""
    )


def play(page: object, *numbers: int) -> None:
    """Click these numbers in turn, each at the position shown (the game branches off there)."""
    for n in numbers:
        ply = current_ply(page)
        page.click(f'#sc-grid [data-n="{n}"]')  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            """([p, n]) => {
                const mv = document.querySelectorAll('#sc-history li .mv')[p];
                return current() > p && mv && mv.textContent.replace(/,/g, '') === String(n);
                function current() { const li = document.querySelector('#sc-history li.current'); return li ? +li.dataset.ply : -1; }
            }""",
            arg=[ply, n],
        )
        wait_idle(page)


def current_ply(page: object) -> int:
    return int(page.get_attribute("#sc-history li.current", "data-ply"))  # type: ignore[attr-defined]


def history(page: object) -> list[int]:
    texts = page.locator("#sc-history li .mv").all_inner_texts()  # type: ignore[attr-defined]
    return [int(t.replace(",", "")) for t in texts]


def test_play_whole_game_by_clicking(page: object, shots: Path) -> None:
    """Click legal numbers until the game ends; the winner shown is the one the rules give."""
    new_game(page, "7, 11", bot="random")
    for _ in range(60):
        status = page.locator("#sc-status")  # type: ignore[attr-defined]
        if "win" in (status.get_attribute("class") or "") or "lose" in (status.get_attribute("class") or ""):
            break
        legal = page.locator("#sc-grid .cell.legal")  # type: ignore[attr-defined]
        numbers = [int(x) for x in legal.evaluate_all("els => els.map(e => e.dataset.n)")]
        assert numbers, "no legal move shown while the game goes on"
        choice = max(n for n in numbers) if numbers != [1] else 1
        before = len(history(page))
        page.click(f'#sc-grid [data-n="{choice}"]')  # type: ignore[attr-defined]
        page.wait_for_function(  # type: ignore[attr-defined]
            "(n) => document.querySelectorAll('#sc-history li .mv').length > n", arg=before
        )
        wait_idle(page)
    else:
        pytest.fail("the game did not end")
    moves = history(page)
    result = GameRecord(Position([7, 11]), tuple(moves)).result()
    assert result is not None
    text = page.inner_text("#sc-status")  # type: ignore[attr-defined]
    if result.winner == 0:  # the human moved first
        assert text.startswith("You win"), text
    else:
        assert text.startswith("The random bot wins"), text
    assert "named 1" in text
    screenshot(page, shots, "sylver-game-over")


def test_illegal_move_shows_witness(page: object) -> None:
    new_game(page, "4, 5")
    page.click('#sc-grid [data-n="9"]')  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-error:not([hidden])")  # type: ignore[attr-defined]
    assert "9 = 4·1 + 5·1" in page.inner_text("#sc-error")  # type: ignore[attr-defined]
    page.fill("#sc-move", "13")  # type: ignore[attr-defined]
    page.press("#sc-move", "Enter")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-error').textContent.includes('13 =')")  # type: ignore[attr-defined]
    assert "13 is illegal in {4,5}: 13 = 4·2 + 5·1" in page.inner_text("#sc-error")  # type: ignore[attr-defined]
    assert history(page) == []  # refused: nothing was played


def test_analysis_panel_four_five(page: object, shots: Path) -> None:
    new_game(page, "4, 5")
    # the solver's answer, not its progress (whose winning moves found so far are chips too)
    expect(page.locator("#sc-solver-body")).to_contain_text("Outcome")  # type: ignore[attr-defined]
    facts = page.inner_text("#sc-facts")  # type: ignore[attr-defined]
    assert re.search(r"\bt\s+11\b", facts), facts
    assert page.locator("#sc-solver-body .chip").all_inner_texts() == ["11"]  # type: ignore[attr-defined]
    assert "N" in page.inner_text("#sc-solver-body")  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-theory dl")  # type: ignore[attr-defined]
    theory = page.inner_text("#sc-theory")  # type: ignore[attr-defined]
    assert "quiet ender" in theory
    assert "win" in (page.get_attribute('#sc-grid [data-n="11"]', "class") or "")  # type: ignore[attr-defined]
    assert " t" in " " + (page.get_attribute('#sc-grid [data-n="11"]', "class") or "")  # type: ignore[attr-defined]
    legal = page.locator("#sc-grid .cell.legal").evaluate_all("els => els.map(e => +e.dataset.n)")  # type: ignore[attr-defined]
    assert legal == [1, 2, 3, 6, 7, 11]
    assert page.is_visible("#sc-anti svg")  # type: ignore[attr-defined]
    screenshot(page, shots, "sylver-analysis")
    page.uncheck("#sc-spoilers")  # type: ignore[attr-defined]
    assert not page.is_visible("#sc-solver") and not page.is_visible("#sc-theory")  # type: ignore[attr-defined]
    page.check("#sc-spoilers")  # type: ignore[attr-defined]
    assert page.is_visible("#sc-solver")  # type: ignore[attr-defined]


def test_keyboard_play_and_undo(page: object) -> None:
    new_game(page, "4, 5", bot="greedy")
    page.focus('#sc-grid [data-n="11"]')  # type: ignore[attr-defined]
    page.keyboard.press("Enter")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#sc-history li .mv').length >= 2")  # type: ignore[attr-defined]
    wait_idle(page)
    assert history(page)[0] == 11
    page.click("#sc-undo")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#sc-history li .mv').length === 0")  # type: ignore[attr-defined]
    assert page.inner_text("#sc-position") == "{4,5}"  # type: ignore[attr-defined]


def test_keyboard_focus_survives_analysis(page: object) -> None:
    """The grid is rebuilt when the theory report and the solver's answer arrive (they mark t, the
    ends and the winning moves): a number focused from the keyboard keeps the focus."""
    new_game(page, "4, 5", bot="greedy")
    page.wait_for_selector("#sc-solver-body .chip")  # type: ignore[attr-defined]
    page.focus('#sc-grid [data-n="7"]')  # type: ignore[attr-defined]
    page.evaluate("scGrid()")  # type: ignore[attr-defined]  # what an arriving answer does
    assert page.evaluate("document.activeElement.dataset.n") == "7"  # type: ignore[attr-defined]
    assert page.evaluate("document.querySelector('#sc-grid').contains(document.activeElement)")  # type: ignore[attr-defined]


def test_game_survives_a_reload(page: object) -> None:
    new_game(page, "4, 5", bot="greedy")
    page.click('#sc-grid [data-n="11"]')  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#sc-history li .mv').length >= 2")  # type: ignore[attr-defined]
    wait_idle(page)
    moves = history(page)
    page.reload()  # type: ignore[attr-defined]
    page.wait_for_selector("body[data-ready=true]")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#sc-history li .mv').length >= 2")  # type: ignore[attr-defined]
    assert history(page) == moves
    assert page.input_value("#sc-bot") == "greedy"  # type: ignore[attr-defined]


def test_gcd_above_one_and_bot_first(page: object) -> None:
    new_game(page, "6, 9", bot="random", first="bot")
    assert len(history(page)) == 1
    if Position([6, 9]).play(history(page)[0]).gcd > 1:
        assert "infinitely many" in page.inner_text("#sc-describe")  # type: ignore[attr-defined]


def test_koth_start_pages_through_numbers(page: object) -> None:
    page.check("#sc-setup input[name=start][value=koth]")  # type: ignore[attr-defined]
    page.click("#sc-new")  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-pager:not([hidden])")  # type: ignore[attr-defined]
    wait_idle(page)
    page.fill("#sc-goto", "123456")  # type: ignore[attr-defined]
    page.press("#sc-goto", "Enter")  # type: ignore[attr-defined]
    page.wait_for_selector('#sc-grid [data-n="123456"]')  # type: ignore[attr-defined]


# -- Wythoff --------------------------------------------------------------------------------------
def test_wythoff_game(page: object, shots: Path) -> None:
    page.click("#tab-wythoff")  # type: ignore[attr-defined]
    page.fill("#wy-i", "9")  # type: ignore[attr-defined]
    page.fill("#wy-j", "13")  # type: ignore[attr-defined]
    page.click("#wy-setup button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#wy-position').textContent === '(9, 13)'")  # type: ignore[attr-defined]
    page.check("#wy-hint")  # type: ignore[attr-defined]
    page.check("#wy-cold")  # type: ignore[attr-defined]
    page.wait_for_selector("#wy-board .sq.cold")  # type: ignore[attr-defined]
    cold = page.locator("#wy-board .sq.cold").evaluate_all("els => els.map(e => [+e.dataset.x, +e.dataset.y])")  # type: ignore[attr-defined]
    from sylver.wythoff import p_positions

    assert sorted(map(tuple, cold)) == sorted(map(tuple, p_positions(13)))
    screenshot(page, shots, "wythoff")
    for _ in range(30):
        if page.locator("#wy-status.win, #wy-status.lose").count():  # type: ignore[attr-defined]
            break
        target = page.locator("#wy-board .sq.win").first  # type: ignore[attr-defined]
        assert target.count(), "from a hot position the hint shows a winning move"
        before = page.locator("#wy-history li").count()  # type: ignore[attr-defined]
        target.click()
        page.wait_for_function("(n) => document.querySelectorAll('#wy-history li').length > n", arg=before)  # type: ignore[attr-defined]
    assert page.inner_text("#wy-status").startswith("You win")  # type: ignore[attr-defined]
    assert page.inner_text("#wy-position") == "(0, 0)"  # type: ignore[attr-defined]


def test_wythoff_illegal_square_is_not_a_move(page: object) -> None:
    page.click("#tab-wythoff")  # type: ignore[attr-defined]
    page.wait_for_selector("#wy-board .sq")  # type: ignore[attr-defined]
    page.click('#wy-board [data-x="8"][data-y="10"]', force=True)  # type: ignore[attr-defined]
    # a legal move next: had the illegal square been sent, the page would be busy with it (this click
    # ignored) or would show its refusal (an error answer, which the page's watch reports)
    page.click('#wy-board [data-x="9"][data-y="12"]')  # type: ignore[attr-defined]
    expect(page.locator("#wy-history li")).to_have_count(2)  # type: ignore[attr-defined]  # the move and the reply
    assert page.locator("#wy-history li .mv").first.inner_text() == "(9, 12)"  # type: ignore[attr-defined]
    assert page.is_hidden("#wy-error")  # type: ignore[attr-defined]


# -- the tournament viewer ------------------------------------------------------------------------
def test_tournament_viewer(page: object, shots: Path, results_dir: Path) -> None:
    page.click("#tab-results")  # type: ignore[attr-defined]
    page.wait_for_selector("#rs-standings tbody tr")  # type: ignore[attr-defined]
    names = page.locator("#rs-standings tbody tr td:nth-child(2)").all_inner_texts()  # type: ignore[attr-defined]
    assert sorted(names) == ["greedy", "random"]
    # the standings and the games list come from two requests: wait for the second
    page.wait_for_function("() => document.querySelectorAll('#rs-games tbody tr').length === 2")  # type: ignore[attr-defined]
    rows = page.locator("#rs-games tbody tr")  # type: ignore[attr-defined]
    assert rows.count() == 2
    rows.nth(1).click()
    page.wait_for_selector("#rs-step dd")  # type: ignore[attr-defined]
    assert "the start" in page.inner_text("#rs-step")  # type: ignore[attr-defined]
    page.click("#rs-fwd")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#rs-step').textContent.includes('named')")  # type: ignore[attr-defined]
    page.click("#rs-last")  # type: ignore[attr-defined]
    # the last step's "wins: …", not the verdict "… wins with perfect play" that earlier steps show
    page.wait_for_function("() => document.querySelector('#rs-step').textContent.includes('wins: ')")  # type: ignore[attr-defined]
    assert "wins: " in page.inner_text("#rs-step")  # type: ignore[attr-defined]
    screenshot(page, shots, "tournament")


def test_replay_shows_the_board_and_opens_the_analysis(page: object, results_dir: Path) -> None:
    """The replay draws the position (the grid, with the named numbers), marks each move with the
    outcome it left, and "Analyse this position" opens it on the Sylver Coinage board."""
    import json

    from sylver.solver import solve

    game = json.loads((results_dir / "games.jsonl").read_text().splitlines()[0])
    page.click("#tab-results")  # type: ignore[attr-defined]
    page.click(f'#rs-games tbody tr[data-game="{game["game"]}"]')  # type: ignore[attr-defined]
    page.wait_for_selector("#rs-grid .cell")  # type: ignore[attr-defined]
    named = page.locator("#rs-grid .cell.named").all_inner_texts()  # type: ignore[attr-defined]
    assert named == ["7", "11"]
    page.click("#rs-fwd")  # type: ignore[attr-defined]
    first = game["moves"][0]
    page.wait_for_function("(n) => [...document.querySelectorAll('#rs-grid .cell.named')].some((c) => c.textContent === String(n))", arg=first)  # type: ignore[attr-defined]
    page.wait_for_selector('#rs-moves li[data-ply="1"] .badge')  # type: ignore[attr-defined]
    after = Position([7, 11]).play(first)
    assert page.inner_text('#rs-moves li[data-ply="1"] .badge') == solve(after).outcome.value  # type: ignore[attr-defined]
    page.click("#rs-analyse")  # type: ignore[attr-defined]
    page.wait_for_function("(b) => document.querySelector('#sc-position').textContent === b", arg=after.braces())  # type: ignore[attr-defined]
    assert page.evaluate("location.hash") == f"#sylver/7,11/{first}/vs=nobody"  # type: ignore[attr-defined]
    assert page.input_value("#sc-bot") == ""  # type: ignore[attr-defined]  # both sides: an analysis
    assert page.locator("#sc-history li .who").all_inner_texts()[1] == game["players"][0]  # type: ignore[attr-defined]


def test_api_docs_render_offline(page: object, base_url: str) -> None:
    page.goto(base_url + "/docs")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('.swagger-ui .opblock').length >= 15")  # type: ignore[attr-defined]


# -- the analysis board: addresses, the move list, records ------------------------------------------
def test_url_round_trip_and_back_forward(page: object, browser: object, base_url: str) -> None:
    """Each move is an address (#sylver/START/MOVES): a copied link reproduces the board, and Back and
    Forward step through the moves with the rest of the game still in the list."""
    new_game(page, "4, 5", bot="")
    play(page, 11, 7)
    assert page.evaluate("location.hash") == "#sylver/4,5/11,7/vs=nobody"  # type: ignore[attr-defined]
    other = new_context(browser, viewport={"width": 1280, "height": 800})
    try:
        pg = other.new_page()  # type: ignore[attr-defined]
        pg.goto(base_url + "/#sylver/4,5/11,7")
        pg.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5,7}'")
        assert history(pg) == [11, 7]
    finally:
        other.close()
    page.go_back()  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5,11}'")  # type: ignore[attr-defined]
    assert history(page) == [11, 7] and current_ply(page) == 1
    page.go_back()  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5}'")  # type: ignore[attr-defined]
    assert page.evaluate("location.hash") == "#sylver/4,5//vs=nobody"  # type: ignore[attr-defined]
    page.go_forward()  # type: ignore[attr-defined]
    page.go_forward()  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5,7}'")  # type: ignore[attr-defined]
    assert current_ply(page) == 2


def test_click_a_move_to_walk_and_branch(page: object) -> None:
    new_game(page, "4, 5", bot="")
    play(page, 11, 7, 6)
    page.click('#sc-history button.mv[data-ply="1"]')  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5,11}'")  # type: ignore[attr-defined]
    assert current_ply(page) == 1 and history(page) == [11, 7, 6]
    assert page.evaluate("location.hash") == "#sylver/4,5/11/vs=nobody"  # type: ignore[attr-defined]
    assert "move 1 of 3" in page.inner_text("#sc-status")  # type: ignore[attr-defined]
    page.press('#sc-history button.mv[data-ply="1"]', "ArrowRight")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5,7}'")  # type: ignore[attr-defined]
    assert current_ply(page) == 2
    page.click("#sc-first")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,5}'")  # type: ignore[attr-defined]
    page.click('#sc-grid [data-n="7"]')  # type: ignore[attr-defined]  # a different first move: a variation
    page.wait_for_function("() => location.hash === '#sylver/4,5/7/vs=nobody'")  # type: ignore[attr-defined]
    assert history(page) == [11, 7, 6] and page.inner_text("#sc-history .variation .vmv") == "1.7"  # type: ignore[attr-defined]


def test_moves_marked_with_outcomes_and_the_turning_move(page: object) -> None:
    """11 is the only winning move in {4,5}: after 7 the opponent has a won game, so 7 turned it."""
    from sylver.solver import solve

    new_game(page, "4, 5", bot="")
    play(page, 7)
    page.wait_for_selector('#sc-history li[data-ply="1"] .badge')  # type: ignore[attr-defined]
    assert page.inner_text('#sc-history li[data-ply="1"] .badge') == solve(Position([4, 5, 7])).outcome.value == "N"  # type: ignore[attr-defined]
    assert "turned" in (page.get_attribute('#sc-history li[data-ply="1"]', "class") or "")  # type: ignore[attr-defined]
    assert "best was 11" in page.inner_text('#sc-history li[data-ply="1"]')  # type: ignore[attr-defined]
    reply = solve(Position([4, 5, 7])).winning_moves[0]
    play(page, reply)
    page.wait_for_selector('#sc-history li[data-ply="2"] .badge')  # type: ignore[attr-defined]
    assert page.inner_text('#sc-history li[data-ply="2"] .badge') == "P"  # type: ignore[attr-defined]
    assert "turned" not in (page.get_attribute('#sc-history li[data-ply="2"]', "class") or "")  # type: ignore[attr-defined]


def test_export_and_import(page: object, results_dir: Path) -> None:
    import json

    new_game(page, "4, 5", bot="")
    play(page, 11, 7)
    page.click("#sc-export-open")  # type: ignore[attr-defined]
    rec = json.loads(page.input_value("#sc-export-json"))  # type: ignore[attr-defined]
    assert rec["start"] == [4, 5] and rec["moves"] == [11, 7] and rec["players"] == ["First", "Second"]
    assert page.input_value("#sc-export-plain") == "{4,5} 11 7"  # type: ignore[attr-defined]
    # an arena's record, pasted as it is in games.jsonl
    line = (results_dir / "games.jsonl").read_text().splitlines()[0]
    game = json.loads(line)
    page.click("#sc-import-open")  # type: ignore[attr-defined]
    page.fill("#sc-import-text", line)  # type: ignore[attr-defined]
    page.click("#sc-import button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_function("(n) => document.querySelectorAll('#sc-history li .mv').length === n", arg=len(game["moves"]))  # type: ignore[attr-defined]
    assert history(page) == game["moves"]
    names = page.locator("#sc-history li .who").all_inner_texts()[1:]  # type: ignore[attr-defined]
    assert names[:2] == game["players"]
    assert page.evaluate("location.hash") == f"#sylver/7,11/{','.join(map(str, game['moves']))}/vs=nobody"  # type: ignore[attr-defined]
    assert page.inner_text("#sc-status").startswith(f"{game['winner']} wins")  # type: ignore[attr-defined]
    # a plain list, and a bad one (the server refuses it: 422)
    allow(page, r"answer 422: POST .*/api/sylver/import")
    page.click("#sc-import-open")  # type: ignore[attr-defined]
    page.fill("#sc-import-text", "{4,5} 11 x")  # type: ignore[attr-defined]
    page.click("#sc-import button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-import-error:not([hidden])")  # type: ignore[attr-defined]
    assert "'x'" in page.inner_text("#sc-import-error")  # type: ignore[attr-defined]
    page.fill("#sc-import-text", "{6,9} 4")  # type: ignore[attr-defined]
    page.click("#sc-import button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{4,6,9}'")  # type: ignore[attr-defined]


def test_start_with_one_is_over(page: object) -> None:
    """{1}: the page said "Your move" and kept Play enabled while the analysis said the game was over."""
    page.check("#sc-setup input[name=start][value=list]")  # type: ignore[attr-defined]
    page.fill("#sc-start-list", "1")  # type: ignore[attr-defined]
    page.click("#sc-new")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-position').textContent === '{1}'")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#sc-status').textContent.includes('over')")  # type: ignore[attr-defined]
    assert "Your move" not in page.inner_text("#sc-status")  # type: ignore[attr-defined]
    assert page.is_disabled("#sc-move-form button[type=submit]") and page.is_disabled("#sc-move")  # type: ignore[attr-defined]
    assert "game is over" in page.inner_text("#sc-facts")  # type: ignore[attr-defined]


def goto_position(page: object, position: str) -> None:
    """Open ``position`` by its link and wait until the page shows it: only the hash changes, so
    until the page reacts, the previous test's position (its reason, defence, pager) is still there."""
    page.goto(page.url.split("#")[0] + "#sylver/" + position + "/")  # type: ignore[attr-defined]
    page.wait_for_function(  # type: ignore[attr-defined]
        "(b) => document.querySelector('#sc-position').textContent.replace(/[^0-9,]/g, '') === b", arg=position
    )


# -- the solver: progress, keep solving, best defence ----------------------------------------------
@pytest.mark.clock  # (its rounds are the page's time limit itself: it waits for each to end)
def test_keep_solving(page: object) -> None:
    """A round shows its progress from the first moment (elapsed time, moves decided, moves ruled out)
    and states its time limit; "Keep solving" continues from there.  (That the requests add up to the
    complete answer is tested on the API, in test_web.py.)"""
    decided = """() => +document.querySelector('#sc-solver-body .hint').textContent.match(/(\\d+) of/)[1]"""
    elapsed = "() => +document.querySelector('#sc-solver-body .elapsed').textContent"
    page.evaluate("INFO.limits.solve_time = 0.05")  # type: ignore[attr-defined]  # short rounds
    # an open node of the {16,38} campaign (hours of search; its small moves are decided at once): no
    # 1.5-s round finishes it on any machine ({16,36,38,56,60,111}, 13 s of CPU, left a margin of 9)
    position = "16,38,85"
    goto_position(page, position)
    page.wait_for_selector("#sc-solver-body .elapsed", timeout=5_000)  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-keep")  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-solver-body .hint", timeout=10_000)  # type: ignore[attr-defined]
    text = page.inner_text("#sc-solver-body")  # type: ignore[attr-defined]
    assert "Not decided within the time limit" in text and "time limit 0.05 s per round" in text
    root_moves = Position.parse(position).genus - 1
    assert re.search(rf"\d+ of {root_moves} moves decided so far", text), text
    before, spent = page.evaluate(decided), page.evaluate(elapsed)  # type: ignore[attr-defined]
    page.evaluate("INFO.limits.solve_time = 1.5")  # type: ignore[attr-defined]
    page.click("#sc-keep")  # type: ignore[attr-defined]
    # the round's time adds to what was spent (waited for, not its spinner: a round can pass between
    # two polls of a loaded machine)
    page.wait_for_function(  # type: ignore[attr-defined]
        f"() => {{ const e = document.querySelector('#sc-solver-body .elapsed'); return e && +e.textContent > {spent} + 1; }}",
        timeout=60_000)
    page.wait_for_selector("#sc-keep")  # type: ignore[attr-defined]
    assert page.evaluate(decided) >= before and page.evaluate(elapsed) > spent + 1  # type: ignore[attr-defined]
    ruled = page.inner_text("#sc-solver-body dl")  # type: ignore[attr-defined]
    assert "Ruled out" in ruled and page.locator("#sc-grid .cell.lost").count() > 0  # type: ignore[attr-defined]


def test_best_defence_in_a_p_position(page: object) -> None:
    from sylver.solver import solve

    goto_position(page, "4,5,11")
    page.wait_for_selector("#sc-defence li")  # type: ignore[attr-defined]
    first = int(page.inner_text("#sc-defence li .chip"))  # type: ignore[attr-defined]
    p = Position([4, 5, 11])
    shares = {x: len(solve(p.play(x)).winning_moves) / (p.play(x).genus - 1) for x in p.legal_moves() if x != 1}
    assert shares[first] == min(shares.values())
    assert "wins against it" in page.inner_text("#sc-defence")  # type: ignore[attr-defined]


# -- layout: big numbers, phones, dark mode -------------------------------------------------------
def goto_number(page: object, n: int) -> None:
    page.fill("#sc-goto", str(n))  # type: ignore[attr-defined]
    page.press("#sc-goto", "Enter")  # type: ignore[attr-defined]
    page.wait_for_selector(f'#sc-grid [data-n="{n}"]')  # type: ignore[attr-defined]


CELLS_FIT = """() => {
    const grid = document.querySelector('#sc-grid').getBoundingClientRect();
    const cells = [...document.querySelectorAll('#sc-grid .cell')];
    return cells.filter((c) => {
        const r = c.getBoundingClientRect();
        return c.scrollWidth > c.clientWidth + 1 || r.right > grid.right + 1 || r.left < grid.left - 1;
    }).map((c) => c.textContent);
}"""


def test_big_numbers_fit_the_grid(page: object) -> None:
    """11-digit numbers overlapped and the last column spilled out of the grid."""
    goto_position(page, "123457,234569")
    page.wait_for_selector("#sc-pager:not([hidden])")  # type: ignore[attr-defined]
    goto_number(page, 28958000000)
    assert page.evaluate(CELLS_FIT) == []  # type: ignore[attr-defined]


def test_phone(browser: object, base_url: str, shots: Path) -> None:
    """390×844: no sideways scroll in any view, big numbers fit, the tabs fit, the move list comes right
    after the board and the analysis after it (the grid scrolls inside itself; issue 51: stepping
    through a game needs the board and the moves together), and a tapped game's replay opens in view."""
    context = new_context(browser, viewport={"width": 390, "height": 844})
    pg = context.new_page()  # type: ignore[attr-defined]
    pg.set_default_timeout(60_000)
    errors = watch(pg)
    no_sideways = "() => document.documentElement.scrollWidth <= window.innerWidth"
    try:
        pg.goto(base_url + "/#sylver/123457,234569/")
        pg.wait_for_selector("body[data-ready=true]")
        pg.wait_for_selector("#sc-pager:not([hidden])")
        goto_number(pg, 28958000000)
        assert pg.evaluate(no_sideways) and pg.evaluate(CELLS_FIT) == []
        tabs = pg.evaluate("[...document.querySelectorAll('.tabs button')].map((b) => b.getBoundingClientRect().right)")
        assert max(tabs) <= 390
        grid = pg.evaluate("document.querySelector('#sc-grid').getBoundingClientRect().height")
        assert grid <= 0.5 * 844
        order = pg.evaluate("""() => ['#sc-board', '#sc-moves-card', '#sc-analysis'].map(
            (s) => document.querySelector(s).getBoundingClientRect().top)""")
        assert order == sorted(order), order
        screenshot(pg, shots, "phone-sylver-big-numbers")
        pg.click("#tab-wythoff")
        pg.fill("#wy-i", str(10**30))
        pg.click("#wy-setup button[type=submit]")
        pg.wait_for_selector("#wy-numbers:not([hidden])")
        assert pg.evaluate(no_sideways)
        pg.click("#tab-results")
        # the view loaded (the standings and the games come from two requests): standings arriving
        # after the tap would push the replay down, the page's scroll anchor being above them
        pg.wait_for_selector("#rs-standings tbody tr")
        pg.wait_for_selector("#rs-games tbody tr")
        # the standings fit the phone: no sideways scroll inside their own frame either (the faults
        # in one column, whose title names them)
        fits = "(s) => { const w = document.querySelector(s).parentElement; return w.scrollWidth <= w.clientWidth + 1; }"
        assert pg.evaluate(fits, "#rs-standings")
        faults = pg.evaluate("[...document.querySelectorAll('#rs-standings tbody td.phone-col')].map((td) => td.title)")
        assert faults and all("crashes" in t and "timeouts" in t for t in faults), faults
        pg.click("#rs-games tbody tr")
        pg.wait_for_selector("#rs-grid .cell")
        top = pg.evaluate("document.querySelector('#rs-replay').getBoundingClientRect().top")
        assert 0 <= top < 844 / 2, top
        assert pg.evaluate(no_sideways)
        screenshot(pg, shots, "phone-replay")
    finally:
        context.close()
    check_clean(pg, errors)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("size", [(1280, 800), (390, 844)])
def test_colour_schemes(browser: object, base_url: str, shots: Path, scheme: str, size: tuple[int, int]) -> None:
    """Both colour schemes at both sizes: the page follows the system's, with readable contrast."""
    context = new_context(browser, viewport={"width": size[0], "height": size[1]}, color_scheme=scheme)
    pg = context.new_page()  # type: ignore[attr-defined]
    pg.set_default_timeout(60_000)
    errors = watch(pg)
    try:
        pg.goto(base_url + "/#sylver/4,5/7")
        pg.wait_for_selector("body[data-ready=true]")
        pg.wait_for_selector("#sc-solver-body .chip")
        colours = pg.evaluate("""() => {
            const lum = (c) => { const [r, g, b] = c.match(/\\d+/g).map(Number); return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255; };
            const card = getComputedStyle(document.querySelector('.card'));
            return [lum(getComputedStyle(document.documentElement).backgroundColor), lum(card.backgroundColor), lum(card.color)];
        }""")
        background, card, ink = colours
        if scheme == "dark":
            assert background < 0.2 and card < 0.2 and ink > 0.7, colours
        else:
            assert background > 0.8 and card > 0.8 and ink < 0.3, colours
        assert pg.evaluate("document.documentElement.scrollWidth") <= size[0]
        screenshot(pg, shots, f"sylver-{scheme}-{size[0]}")
    finally:
        context.close()
    check_clean(pg, errors)


def test_no_internal_words_in_the_page(page: object) -> None:
    goto_position(page, "2,5")
    # every answer in (the words looked for below could be in any): the theory, the solver, best play
    page.wait_for_selector("#sc-theory .reason")  # type: ignore[attr-defined]
    expect(page.locator("#sc-solver-body")).to_contain_text("Outcome")  # type: ignore[attr-defined]
    page.wait_for_selector("#sc-pv .pv-end")  # type: ignore[attr-defined]
    page.click("#sc-howto summary")  # type: ignore[attr-defined]
    text = page.inner_text("body")  # type: ignore[attr-defined]
    assert 'Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1' in text
    assert "King-of-the-Hill Sylver Coinage bot competition" in text
    assert not re.search(r"shared/|seeds?/0|seed 00\d", text)
    bots = page.evaluate("[...document.querySelectorAll('#sc-bot option:not([value=\\'\\'])')].map((o) => o.title)")  # type: ignore[attr-defined]
    assert all(t.endswith(".") for t in bots)


# -- a campaign's ledger ---------------------------------------------------------------------------
def test_campaign_view(browser: object, tmp_path: Path, shots: Path) -> None:
    """`sylver serve --campaign DIR`: the tab, the headline and the ledger as a table with headers (the
    root's replies first), a certificate link (marked valid once `sylver campaign --verify` checked
    it), the status filter in the address, focus kept across a refresh."""
    from sylver.campaign import Ledger
    from sylver.campaign.proof import verify_certificates
    from test_web import make_campaign

    directory = make_campaign(tmp_path / "four")
    ledger = Ledger.open(directory, read_only=True)
    assert all(not c.flaw for c in verify_certificates(ledger))  # `sylver campaign --verify`: each file valid
    ledger.close()
    app = create_app(campaign_dirs=[directory])
    with live_server(app) as url:
        context = new_context(browser, viewport={"width": 1280, "height": 900})
        pg = context.new_page()  # type: ignore[attr-defined]
        pg.set_default_timeout(60_000)
        errors = watch(pg)
        try:
            pg.goto(url + "/#campaign/0")
            pg.wait_for_selector("#cp-table tbody tr")
            assert pg.get_attribute("#tab-campaign", "aria-selected") == "true"
            assert pg.inner_text("#cp-headline").startswith("{4} is N")
            headers = pg.locator("#cp-table thead th[scope=col]").all_inner_texts()
            assert [h.lower() for h in headers[:4]] == ["reply", "position", "status", "winning"]
            assert pg.inner_text("#cp-table tbody tr:first-child th[scope=row]") == "{4}"
            link = pg.locator("#cp-table a[download]").first
            assert link.get_attribute("href").startswith("/api/campaigns/0/certificate/")
            assert pg.locator("#cp-table td:has(a[download])").first.inner_text().endswith("✓ valid")
            link.focus()
            key = pg.evaluate("() => { window.focusedBefore = document.activeElement; return document.activeElement.dataset.key; }")
            pg.evaluate("cpLoad()")  # what the 10-second refresh does while a root is open
            pg.wait_for_function(  # a new table, and focus on the same link in it
                "(k) => document.activeElement !== window.focusedBefore && document.activeElement.dataset.key === k", arg=key)
            pg.select_option("#cp-status", "P")
            assert pg.evaluate("location.hash") == "#campaign/0/1/P"
            statuses = pg.locator("#cp-table tbody td.status").all_inner_texts()
            assert statuses and set(statuses) == {"P"}
            screenshot(pg, shots, "campaign")
            # a node decided by a search whose certificate is still to be built says so, with its budget
            with sqlite3.connect(tmp_path / "four" / "ledger.sqlite") as db:
                text, budget = db.execute("SELECT position, budget FROM nodes WHERE status IN ('P', 'N') "
                                          "AND method = 'solve' AND certificate != '' LIMIT 1").fetchone()
                db.execute("UPDATE nodes SET certificate = '' WHERE position = ?", (text,))
            pg.select_option("#cp-status", "")
            pg.evaluate("cpLoad()")
            row = f"#cp-table tbody tr[data-position='{text}']"
            pg.wait_for_function("(sel) => document.querySelector(sel)?.innerText.includes('to build')", arg=row)
            assert pg.inner_text(f"{row} td.search").endswith(f"next {budget:g} s")
        finally:
            context.close()
        check_clean(pg, errors)


# -- Wythoff: any pile size, bad piles -----------------------------------------------------------
def test_wythoff_any_size_and_bad_piles(page: object) -> None:
    from sylver import wythoff

    page.click("#tab-wythoff")  # type: ignore[attr-defined]
    page.wait_for_selector("#wy-board .sq")  # type: ignore[attr-defined]
    for typed, message in (("", "Pile i is empty"), ("abc", "not a whole number"), ("-3", "not a whole number")):
        page.fill("#wy-i", typed)  # type: ignore[attr-defined]
        page.click("#wy-setup button[type=submit]")  # type: ignore[attr-defined]
        page.wait_for_function("(m) => document.querySelector('#wy-error').textContent.includes(m)", arg=message)  # type: ignore[attr-defined]
    assert page.inner_text("#wy-position") == "(9, 13)"  # type: ignore[attr-defined]  # nothing was sent
    big = 10**30
    page.fill("#wy-i", str(big))  # type: ignore[attr-defined]
    page.fill("#wy-j", "123")  # type: ignore[attr-defined]
    page.check("#wy-hint")  # type: ignore[attr-defined]
    page.click("#wy-setup button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_selector("#wy-numbers:not([hidden])")  # type: ignore[attr-defined]
    assert page.is_hidden("#wy-board") and page.inner_text("#wy-pile-i") == str(big)  # type: ignore[attr-defined]
    best = wythoff.winning_move(big, 123)
    assert page.inner_text("#wy-win-chips .chip") == f"({best.i}, {best.j})"  # type: ignore[attr-defined]
    page.click("#wy-win-chips .chip")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#wy-history li').length === 2")  # type: ignore[attr-defined]
    # a move typed as "take k from pile j"
    page.uncheck("#wy-hint")  # type: ignore[attr-defined]
    page.fill("#wy-i", str(10**40))  # type: ignore[attr-defined]
    page.fill("#wy-j", str(10**40))  # type: ignore[attr-defined]
    page.click("#wy-setup button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#wy-pile-j').textContent.length === 41")  # type: ignore[attr-defined]
    page.fill("#wy-take-k", "5")  # type: ignore[attr-defined]
    page.select_option("#wy-take-from", "j")  # type: ignore[attr-defined]
    page.click("#wy-take button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelectorAll('#wy-history li').length === 2")  # type: ignore[attr-defined]
    first = page.locator("#wy-history li .mv").first.inner_text()  # type: ignore[attr-defined]
    assert first == f"({10**40}, {10**40 - 5})"
