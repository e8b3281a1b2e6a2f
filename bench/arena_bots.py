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


def _smallest_legal(numbers, bound=5000):
    reach = bytearray(bound + 1)
    reach[0] = 1
    for x in numbers:
        if 0 < x <= bound:
            for i in range(x, bound + 1):
                if reach[i - x]:
                    reach[i] = 1
    return next((n for n in range(2, bound + 1) if not reach[n]), 1)


class BurnsMost:
    """A nextMove-style bot that computes for 80 % of its time on every move (by its own CPU clock),
    then names the smallest legal number: the load test of the wall-clock guard."""

    def nextMove(self, moves, remaining, time_left):
        import time

        stop = time.process_time() + 0.8 * min(time_left, 60)
        while time.process_time() < stop:
            pass
        return _smallest_legal(moves)
