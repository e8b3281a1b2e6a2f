"""sylver: Sylver Coinage analysis, solving, bots and arena; plus a perfect Wythoff's Nim player.

>>> from sylver import Position
>>> p = Position.parse("4, 5")
>>> p.legal_moves()
[1, 2, 3, 6, 7, 11]
>>> p.play(11)
Position('4,5,11')
"""

from sylver.errors import (
    BotError,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    TooLargeError,
)
from sylver.position import GameRecord, GameResult, Outcome, Position, Termination
from sylver.semigroup import Semigroup

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
