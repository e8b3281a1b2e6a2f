# A nextMove bot that reports the time arguments it got (tests/test_compat.py): it spends a little CPU
# time on each move, names the largest remaining move, and at its third call of a game (or when only 1
# is left) raises an error whose message lists every third argument it received in that game.


class ClockEcho:
    def __init__(self):
        self.seen, self.answered = [], None

    def nextMove(self, moves, remaining, time):
        n = len(self.answered or [])
        if self.answered is None or len(moves) <= n or moves[:n] != self.answered:
            self.seen = []  # a new game
        self.seen.append(time)
        if len(self.seen) == 3 or remaining == [1]:
            raise RuntimeError("times " + repr(self.seen))
        x = 0
        for i in range(200_000):  # a few ms of CPU, so that the times add up visibly
            x += i
        move = max(remaining)
        self.answered = list(moves) + [move]
        return move
