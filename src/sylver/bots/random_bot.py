"""``random``: names a legal number uniformly at random, avoiding 1 while anything else is legal."""

from __future__ import annotations

from sylver.bots.base import Bot, Turn

_SAMPLES = 10_000


class RandomBot(Bot):
    """Names a legal move other than 1 at random (1 only when nothing else is allowed).

    With g = 1 the legal moves are the gaps 2..t: sampled by rejection (a gap's density is about 1/2
    for KotH starts) and, when rejection keeps failing, by listing them.  With g > 1 there are
    infinitely many: the bot samples uniformly from 2..max(4·max generator, 100), capped by the rules.
    """

    name = "random"

    def choose(self, turn: Turn) -> int:
        p = turn.position
        cap = turn.max_move
        if p.is_finite:
            hi = p.frobenius_number
        else:
            hi = max(4 * max(p.generators, default=0), 100)
        if cap is not None:
            hi = min(hi, cap)
        for _ in range(_SAMPLES):
            if hi < 2:
                break
            n = self.rng.randint(2, hi)
            if turn.allows(n):
                return n
        if p.is_finite or hi < 2:
            moves = [n for n in p.legal_moves() if n > 1 and n <= hi and turn.allows(n)] if p.is_finite else []
            if moves:
                return self.rng.choice(moves)
        return 1
