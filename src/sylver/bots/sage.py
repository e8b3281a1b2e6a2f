"""``sage``: plays by the theorems of the paper, without search (G. Sicherman, "Theory and Practice
of Sylver Coinage", Integers 2002; the sections below are the paper's).

Idea: a move that leaves a position the theory proves P wins (a prime p >= 5 on the empty position
or when every named number is a multiple of p; the published P-positions {4,6}, {6,9}, {8,12},
{8,14}, {10,16,24}, {8,10,22}, ...; the {4,6} family; {2,3}).  A move that leaves a position the
theory proves N loses against a good reply, so it is avoided: a coprime pair (Hutchings: an ender),
any ender with t > 1 (strategy stealing), a multiple of a prime p >= 5, a position where 2 or 3
finishes.  Among the remaining moves it squeezes like ``greedy`` (fewest legal replies).  Stronger
than ``greedy``; it still has no exact search, so it loses where the theory is silent.
"""

from __future__ import annotations

from sylver.bots.base import Bot, Turn
from sylver.bots.candidates import least_scored, reply_count
from sylver.position import Outcome
from sylver.theory import known_outcome, proven_n, winning_move_by_theory


class SageBot(Bot):
    """Wins by a theorem when one applies, never moves into a position the theory proves lost, and
    otherwise leaves the opponent the fewest legal replies."""

    name = "sage"

    def choose(self, turn: Turn) -> int:
        p = turn.position
        move = winning_move_by_theory(p)
        if move is not None and turn.allows(move):
            return move
        return least_scored(
            turn,
            self.rng,
            score=lambda after: (1 if proven_n(after) else 0, reply_count(after)),
            wins_at_once=lambda after: after.is_terminal or known_outcome(after) is Outcome.P,
        )
