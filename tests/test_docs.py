"""The references between the docs hold (issue 52): every page that a page, a docstring, a test or a
bench names (``docs/solve.md``) exists; every link between pages (``[engine.md](engine.md)``) leads
to one; and a section quoted after a page's name (``docs/solve.md, "Certificates"``) is in that page.
And the user's pages stay guides: ``docs/solve.md`` within ``GUIDE_LINES``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SOURCES = sorted({ROOT / "README.md", *DOCS.glob("*.md"), *(ROOT / "src").rglob("*.py"),
                  *(ROOT / "tests").glob("*.py"), *(ROOT / "bench").glob("*.py")} - {Path(__file__).resolve()})
PAGE = re.compile(r"\bdocs/([\w.-]+\.md)\b")
LINK = re.compile(r"\]\(([\w./-]+\.md)(?:#[^)]*)?\)")
SECTION = re.compile(r"\bdocs/([\w.-]+\.md),?\s+\"([^\"]+)\"")
GUIDE_LINES = 400
"""At most this many lines in docs/solve.md: what the commands do, their options, what the answers
mean and a few figures; how the engine works and the record of its measurements are docs/engine.md."""


def words(text: str) -> str:
    """``text`` with its white space folded (a quoted section may break across lines) and a
    docstring's double backquotes read as Markdown's single ones."""
    return " ".join(text.replace("``", "`").split())


def references(pattern: re.Pattern[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Each match of ``pattern`` in the sources: the file (relative to the root) and its groups."""
    return [(str(path.relative_to(ROOT)), m.groups()) for path in SOURCES
            for m in pattern.finditer(path.read_text(encoding="utf-8"))]


def test_every_page_named_exists() -> None:
    missing = sorted({f"{where}: docs/{page}" for where, (page,) in references(PAGE) if not (DOCS / page).is_file()})
    assert not missing, "\n".join(missing)


def test_every_link_between_pages_leads_to_one() -> None:
    broken = []
    for path in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for m in LINK.finditer(path.read_text(encoding="utf-8")):
            if not (path.parent / m.group(1)).is_file():
                broken.append(f"{path.relative_to(ROOT)}: ({m.group(1)})")
    assert not broken, "\n".join(broken)


def test_every_section_quoted_is_in_its_page() -> None:
    text = {page.name: words(page.read_text(encoding="utf-8")) for page in DOCS.glob("*.md")}
    missing = sorted({f'{where}: docs/{page}, "{words(section)}"' for where, (page, section) in references(SECTION)
                      if page in text and words(section) not in text[page]})
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("source", [
    'see docs/nowhere.md, "Intro"',
])
def test_the_checks_can_fail(source: str) -> None:
    assert PAGE.findall(source) == ["nowhere.md"] and not (DOCS / "nowhere.md").exists()
    assert SECTION.findall('docs/solve.md, "No such\n   section"') == [("solve.md", "No such\n   section")]
    assert words("No such\n   section") not in words((DOCS / "solve.md").read_text(encoding="utf-8"))
    assert LINK.findall("[engine](engine.md#start) and [x](https://example.org)") == ["engine.md"]


def test_the_solve_guide_is_a_guide() -> None:
    lines = (DOCS / "solve.md").read_text(encoding="utf-8").count("\n")
    assert lines <= GUIDE_LINES, f"docs/solve.md has {lines} lines: the engine's record belongs in docs/engine.md"
