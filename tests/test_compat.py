"""The seed adapters, driven by the seeds' own driver loops (copied from shared/seeds/000 and 002)."""

from __future__ import annotations

import random
import time

import pytest

from sylver.bots.oracle import solver_ready
from sylver.compat import Seed000Bot, Seed002Bot
from sylver.position import Position


@pytest.fixture(scope="module", autouse=True)
def solver_compiled():
    assert solver_ready(wait=600)


def gcd(a, b):  # the seed-000 driver's helper, verbatim
    if a < b:
        return gcd(b, a)
    elif not b:
        return a
    else:
        return gcd(b, a % b)


def islinearcomb(n, l):  # noqa: E741 - the seed's signature
    """The driver's check returns the coefficients of a representation (or None).  The seed's own
    recursion is exponential in the move size, so the copy uses the library's witness instead; the
    returned value has the driver's shape (one coefficient per announced number, in order)."""
    w = Position(l).witness(n)
    if w is None:
        return None
    coeffs, left = [], dict(w)
    for x in l:
        coeffs.append(left.pop(x, 0))
    return coeffs


def run_seed000(bots, seed):
    """shared/seeds/000's driver loop (printing replaced by a transcript list)."""
    random.seed(seed)
    lose = -1
    turn = 0
    nums = []
    transcript = []
    while len(nums) < 2:
        nums = [random.randint(100000, 999999), random.randint(100000, 999999)]
        if gcd(nums[0], nums[1]) > 1:
            nums = []
    while lose < 0:
        v = bots[turn].announce(list(nums))
        transcript.append((bots[turn].id, v))
        w = islinearcomb(v, nums)
        if w:
            lose = turn
        elif v == 1:
            lose = turn
        nums += [v]
        turn = 1 - turn
    for b in bots:
        b.learn(bots[0].id, bots[1].id, nums)
    return 1 - lose, nums, transcript


class TestSeed000:
    def test_driver_loop_perfect_vs_greedy(self):
        bots = [Seed000Bot(0, seed=1, think=0.3), Seed000Bot(1, bot="greedy", seed=2)]
        winner, nums, transcript = run_seed000(bots, seed=5)
        assert nums[-1] == 1 or not Position(nums[:-1]).is_legal(nums[-1])
        # every move before the last was legal: the game ended by the rules, not by a crash
        p = Position(nums[:2])
        for v in nums[2:-1]:
            p = p.play(v)
        assert all(isinstance(v, int) for _, v in transcript)
        assert winner in (0, 1)

    def test_signatures(self):
        bot = Seed000Bot(3)
        assert bot.id == 3
        move = bot.announce([123457, 654323])
        assert Position([123457, 654323]).is_legal(move)
        bot.learn(3, 4, [123457, 654323, move, 1])


def run_seed002(bots, cap=10**6, clock=30.0):
    """A seed-002-style driver: nextMove(moves, remaining, time) with a chess clock and a cap."""
    moves, left, turn = [], [clock, clock], 0
    while True:
        p = Position(moves)
        remaining = p.legal_moves() if p.is_finite else []
        t0 = time.monotonic()
        v = bots[turn].nextMove(list(moves), remaining, left[turn])
        left[turn] -= time.monotonic() - t0
        if left[turn] < 0 or v > cap or v == 1 or not p.is_legal(v):
            return 1 - turn, moves + [v]
        moves.append(v)
        turn = 1 - turn


class TestSeed002:
    def test_default_is_perfect(self):
        assert Seed002Bot().nextMove([], [], 36.0) == 5
        assert Seed002Bot().nextMove([4], [], 36.0) == 6

    def test_driver_loop(self):
        for seed in range(2):
            winner, moves = run_seed002([Seed002Bot(seed=seed, think=0.3), Seed002Bot(bot="random", seed=seed)])
            assert winner == 0 and moves[-1] == 1, moves

    def test_other_bot(self):
        bot = Seed002Bot(bot="greedy", seed=1)
        move = bot.nextMove([7, 9], Position("7,9").legal_moves(), 30.0)
        assert Position("7,9").is_legal(move)
