"""Built-in bots and the Bot protocol.  ``make_bot("random", rng)`` builds one by name."""

from __future__ import annotations

import random

from sylver.bots.base import Bot, Turn
from sylver.bots.greedy import GreedyBot
from sylver.bots.perfect import PerfectBot
from sylver.bots.random_bot import RandomBot
from sylver.bots.sage import SageBot

BOTS: dict[str, type[Bot]] = {cls.name: cls for cls in (RandomBot, GreedyBot, SageBot, PerfectBot)}
"""The built-in bots by name."""


def make_bot(name: str, rng: random.Random | None = None, **options: object) -> Bot:
    """A built-in bot by name; unknown names raise ValueError listing the known ones."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; built-in bots: {', '.join(sorted(BOTS))}") from None
    return cls(rng=rng, **options)  # type: ignore[arg-type]


__all__ = [
    "BOTS",
    "Bot",
    "GreedyBot",
    "PerfectBot",
    "RandomBot",
    "SageBot",
    "Turn",
    "make_bot",
]
