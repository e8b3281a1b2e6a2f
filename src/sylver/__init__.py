"""sylver: Sylver Coinage analysis, solving, bots and arena; plus a perfect Wythoff's Nim player.

>>> from sylver import Position
>>> p = Position.parse("4, 5")
>>> p.legal_moves()
[1, 2, 3, 6, 7, 11]
>>> p.play(11)
Position('4,5,11')

The names below are imported at first use, so ``import sylver`` (and the ``sylver`` command) does not
pay for modules it does not need.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sylver.errors import (
        BotError,
        IllegalMoveError,
        InvalidMoveError,
        InvalidPositionError,
        TooLargeError,
    )
    from sylver.position import GameRecord, GameResult, Outcome, Position, Termination
    from sylver.semigroup import Semigroup

_HOME = {
    "BotError": "sylver.errors",
    "GameRecord": "sylver.position",
    "GameResult": "sylver.position",
    "IllegalMoveError": "sylver.errors",
    "InvalidMoveError": "sylver.errors",
    "InvalidPositionError": "sylver.errors",
    "Outcome": "sylver.position",
    "Position": "sylver.position",
    "Semigroup": "sylver.semigroup",
    "Termination": "sylver.position",
    "TooLargeError": "sylver.errors",
}

__all__ = [
    "BotError",
    "GameRecord",
    "GameResult",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "Outcome",
    "Position",
    "Semigroup",
    "Termination",
    "TooLargeError",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module at first use (PEP 562)."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'sylver' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
