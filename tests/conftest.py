"""Shared test configuration."""

from __future__ import annotations

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


@pytest.fixture(autouse=True, scope="session")
def _private_results_store(tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test, nor any process it starts, reads or writes the user's real results store."""
    import os

    os.environ["SYLVER_STORE"] = str(tmp_path_factory.mktemp("store") / "results.sqlite")
