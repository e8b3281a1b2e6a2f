"""``greedy``: squeeze the opponent — name the move that leaves the fewest legal replies.

Idea: the game ends when moves run out, so shrink the opponent's choices as fast as possible, while
never handing over an immediate win (leaving a position where the reply 2 or 3 makes {2,3}).  A
move that leaves {2,3} wins at once.  No theory beyond that, no search: a one-ply heuristic that
beats ``random`` and loses to anything that looks deeper.
"""

from __future__ import annotations

from sylver.bots.base import Bot, Turn
from sylver.bots.candidates import hands_over_2_3, least_scored, reply_count


class GreedyBot(Bot):
    """Names the move that leaves the opponent the fewest legal replies, never one after which the
    opponent can make {2,3} (where only the losing 1 is left); no theory and no search.

    Candidates: every allowed move in small positions, the small numbers and a random sample in
    large ones; ties are broken at random."""

    name = "greedy"

    def choose(self, turn: Turn) -> int:
        return least_scored(
            turn,
            self.rng,
            score=lambda after: (1 if hands_over_2_3(after) else 0, reply_count(after)),
            wins_at_once=lambda after: after.is_terminal,
        )
