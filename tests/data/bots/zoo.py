"""The zoo of misbehaving bots (tests/test_arena_zoo.py).  Seed-000 API unless noted."""

import os
import sys
import time


def smallest_legal(numbers, bound=5000):
    """The smallest n >= 2 that is not a sum with multiples of ``numbers`` (1 if none up to bound)."""
    reach = bytearray(bound + 1)
    reach[0] = 1
    for x in numbers:
        if isinstance(x, int) and 0 < x <= bound:
            for i in range(x, bound + 1):
                if reach[i - x]:
                    reach[i] = 1
    for n in range(2, bound + 1):
        if not reach[n]:
            return n
    return 1


class Smallest:
    """The well-behaved reference: names the smallest legal number above 1."""

    def __init__(self, id):
        self.id = id

    def announce(self, list):
        return smallest_legal(list)

    def learn(self, first, second, list):
        pass


class RaisesInInit(Smallest):
    def __init__(self, id):
        raise RuntimeError("broken constructor")


class RaisesInAnnounce(Smallest):
    def announce(self, list):
        return 1 // 0


class RaisesInNextMove:
    def nextMove(self, moves, remaining, time):
        raise KeyError("oops")


class RaisesInLearn(Smallest):
    def learn(self, first, second, list):
        raise ValueError("cannot learn")


class ReturnsFloat(Smallest):
    def announce(self, list):
        return 2.5


class ReturnsStr(Smallest):
    def announce(self, list):
        return "2"


class ReturnsNone(Smallest):
    def announce(self, list):
        return None


class ReturnsZero(Smallest):
    def announce(self, list):
        return 0


class ReturnsNegative(Smallest):
    def announce(self, list):
        return -5


class ReturnsOne(Smallest):
    def announce(self, list):
        return 1


class ReturnsIllegal(Smallest):
    def announce(self, list):
        return list[0] + list[1]


class AboveCap:
    """Seed-002 API; run with the classic rules (cap 1,000,000)."""

    def nextMove(self, moves, remaining, time):
        return 2_000_003


class SleepsForever(Smallest):
    def announce(self, list):
        while True:
            time.sleep(1000)


class BurnsCPU(Smallest):
    def announce(self, list):
        x = 0
        while True:
            x += 1


class Allocates10GB(Smallest):
    def announce(self, list):
        block = bytearray(10 * 1024**3)
        return len(block)


class ForksRepeatedly(Smallest):
    def announce(self, list):
        while True:
            os.fork()


class PrintsToStdout(Smallest):
    def announce(self, list):
        print("thinking hard about", list)
        print("garbage { not json")
        sys.stdout.flush()
        return smallest_legal(list)


class CallsSysExit(Smallest):
    def announce(self, list):
        sys.exit(3)


class CallsOsExit(Smallest):
    def announce(self, list):
        os._exit(7)


class MutatesList(Smallest):
    def announce(self, list):
        move = smallest_legal(list)
        list.append(2)
        list.clear()
        list.extend([99, 98])
        return move

    def learn(self, first, second, list):
        list.clear()


class NumpyInt(Smallest):
    def announce(self, list):
        import numpy

        return numpy.int64(smallest_legal(list))


class Slow(Smallest):
    """Takes 0.1 s per move (for the resume test)."""

    def announce(self, list):
        time.sleep(0.1)
        return smallest_legal(list)


class LearnChecker(Smallest):
    """Checks the seed-000 calls: constructed with its id, learn(first_id, second_id, full list)."""

    def __init__(self, id):
        assert isinstance(id, int)
        self.id = id
        self.seen = None

    def announce(self, list):
        assert type(list) is type([]) and all(isinstance(x, int) for x in list)
        self.seen = tuple(list)
        return smallest_legal(list)

    def learn(self, first, second, list):
        assert isinstance(first, int) and isinstance(second, int) and first != second
        assert self.id in (first, second), (self.id, first, second)
        assert tuple(list[: len(self.seen)]) == self.seen, (list, self.seen)
        assert list[-1] == 1 or len(list) > len(self.seen)


class Huge(Smallest):
    """Names numbers beyond what the referee's arithmetic handles (its games are voided, loudly)."""

    def announce(self, list):
        return 10**30 + len(list)
