"""Bots for bench/bench_arena.py."""

import random


class Instant:
    """Seed-000 sample style: answers at once with a random number up to 100001 (often illegal)."""

    def __init__(self, id):
        self.id = id

    def announce(self, list):
        return random.randint(1, 100001)

    def learn(self, first, second, list):
        pass


class UpTo1e7:
    """A sylver.bots.Bot-style class: a random legal number in [2, 10^7] (the host keeps the position)."""

    def __init__(self):
        self.rng = random.Random()

    def choose(self, turn):
        p = turn.position
        for _ in range(200):
            n = self.rng.randint(2, 10**7)
            if p.is_legal(n):
                return n
        if p.is_finite:
            moves = [n for n in p.legal_moves() if n > 1]
            return moves[0] if moves else 1
        return 1
