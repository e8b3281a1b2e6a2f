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
