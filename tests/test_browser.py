"""Browser tests: Playwright drives Debian's Chromium through the real page served by uvicorn.

Skipped (with the reason) only when Chromium is not installed; ``make test`` installs it first
(scripts/setup-test-env.sh).  Screenshots of each view go to a temporary directory and are checked
to be real pictures (many distinct colours), not blank pages.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sylver import GameRecord, Position
from sylver.web.app import create_app
from test_web import live_server

pytestmark = pytest.mark.browser

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
    app = create_app(results_dir=results_dir, warm_up=True)
    with live_server(app) as url:
        # the worker processes import sylver and compile the numba kernels once; wait for that
        assert app.state.runner.wait_warm(180), "the worker processes did not start"
        yield url


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


@pytest.fixture()
def page(browser: object, base_url: str) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.set_default_timeout(60_000)  # generous: CI machines are shared and noisy
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(base_url + "/")
    pg.wait_for_selector("body[data-ready=true]")
    yield pg
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


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
    braces = Position.parse(start).braces()
    page.wait_for_function(  # type: ignore[attr-defined]
        "(b) => document.querySelector('#sc-position').textContent.startsWith(b.slice(0, -1))", arg=braces
    )
    wait_idle(page)


def wait_idle(page: object) -> None:
    """Until the page waits for the human (or the game is over)."""
    page.wait_for_function(  # type: ignore[attr-defined]
        """() => {
            const st = document.querySelector('#sc-status');
            const idle = document.querySelector('#sc-grid').getAttribute('aria-busy') !== 'true';
            return idle && (st.textContent.startsWith('Your move') || st.classList.contains('win') || st.classList.contains('lose'));
        }"""
    )


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
        assert text.startswith("The bot wins"), text
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
    page.wait_for_selector("#sc-solver-body .chip")  # type: ignore[attr-defined]
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
    assert page.locator("#wy-history li").count() == 0  # type: ignore[attr-defined]


# -- the tournament viewer ------------------------------------------------------------------------
def test_tournament_viewer(page: object, shots: Path, results_dir: Path) -> None:
    page.click("#tab-results")  # type: ignore[attr-defined]
    page.wait_for_selector("#rs-standings tbody tr")  # type: ignore[attr-defined]
    names = page.locator("#rs-standings tbody tr td:nth-child(2)").all_inner_texts()  # type: ignore[attr-defined]
    assert sorted(names) == ["greedy", "random"]
    rows = page.locator("#rs-games tbody tr")  # type: ignore[attr-defined]
    assert rows.count() == 2
    rows.nth(1).click()
    page.wait_for_selector("#rs-step dd")  # type: ignore[attr-defined]
    assert "the start" in page.inner_text("#rs-step")  # type: ignore[attr-defined]
    page.click("#rs-fwd")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#rs-step').textContent.includes('named')")  # type: ignore[attr-defined]
    page.click("#rs-last")  # type: ignore[attr-defined]
    page.wait_for_function("() => document.querySelector('#rs-step').textContent.includes('wins')")  # type: ignore[attr-defined]
    assert "wins {" in page.inner_text("#rs-step")  # type: ignore[attr-defined]
    screenshot(page, shots, "tournament")


def test_api_docs_render_offline(page: object, base_url: str) -> None:
    page.goto(base_url + "/docs")  # type: ignore[attr-defined]
    page.wait_for_selector(".swagger-ui .opblock")  # type: ignore[attr-defined]
    assert page.locator(".swagger-ui .opblock").count() >= 15  # type: ignore[attr-defined]


def test_narrow_screen(browser: object, base_url: str, shots: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844})  # type: ignore[attr-defined]
    pg = context.new_page()
    pg.goto(base_url + "/")
    pg.wait_for_selector("body[data-ready=true]")
    pg.wait_for_selector("#sc-grid .cell")
    width = pg.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, "the page scrolls sideways on a phone"
    screenshot(pg, shots, "narrow")
    context.close()
