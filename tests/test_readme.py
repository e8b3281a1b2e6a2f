"""The README's Python example runs as written (doctest)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example() -> None:
    text = README.read_text(encoding="utf-8")
    assert ">>> " in text
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("page", ["analyze.md", "index.md"])
def test_docs_examples(page: str) -> None:
    path = README.parent / "docs" / page
    failed, attempted = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
