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


# -- hostile bots (issue 13): each tries to escape or to harm its referee or opponent -------------
STRAY = "sylver-zoo-stray"
"""argv[0] of the processes the hostile bots leave behind (tests look for it in /proc)."""


def _running(pid):
    """Is ``pid`` a live process (not a zombie) in this bot's view of /proc?"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def _spawn(script):
    """Start ``sh -c script`` in a new session by a double fork, the middle process not waited for
    (it stays a zombie of the bot); return (middle pid, grandchild pid)."""
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:
        os.close(r)
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.execv("/bin/sh", [STRAY, "-c", script])
        os.write(w, str(pid).encode())
        os._exit(0)
    os.close(w)
    pid = int(os.read(r, 32) or 0)
    os.close(r)
    return middle, pid


def _cpu(pid):
    """CPU seconds used by ``pid`` so far (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0.0


class StrayChecker(Smallest):
    """Remembers the processes it starts in a game; ``learn`` (called once the referee has ended
    the game) raises if one of them still runs; ``complaint`` finds zombies left from earlier games."""

    def __init__(self, id):
        self.id = id
        self.strays = []
        self.middles = set()

    def spawn(self, script):
        middle, pid = _spawn(script)
        self.middles.add(middle)
        self.strays.append(pid)
        return pid

    def complaint(self):
        me = os.getpid()
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in self.middles:
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if fields[0] == "Z" and int(fields[1]) == me:
                    return "zombies were left from an earlier game"
        return ""

    def learn(self, first, second, list):
        alive = [p for p in self.strays if _running(p)]
        self.strays = []
        self.middles = set()
        if alive:
            raise RuntimeError(f"processes {alive} survived the game")


class KillsHost(Smallest):
    """D1: kills its parent process (the referee's worker when it runs without the sandbox)."""

    def announce(self, list):
        import signal

        os.kill(os.getppid(), signal.SIGKILL)
        return smallest_legal(list)


class KillsOpponent(Smallest):
    """D2: kills every other bot of this zoo it can see (its opponent, when it can see it)."""

    def announce(self, list):
        import signal

        me = os.getpid()
        here = os.path.abspath(__file__).encode()
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in (me, os.getppid()):
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        cmd = f.read()
                    if here in cmd and b"KillsOpponent" not in cmd:
                        os.kill(int(entry), signal.SIGKILL)
                except OSError:
                    pass
        return smallest_legal(list)


class EscapesCgroup(StrayChecker):
    """D3: starts a process that moves itself into the root cgroups and sleeps forever."""

    def announce(self, list):
        complaint = self.complaint()
        if complaint:
            return complaint
        self.spawn("for f in /sys/fs/cgroup/*/cgroup.procs /sys/fs/cgroup/cgroup.procs; do echo $$ > $f; "
                   "done 2>/dev/null; while :; do sleep 0.05; done")
        return smallest_legal(list)


class GrandchildThinks(StrayChecker):
    """D4: a setsid grandchild computes during the opponent's turn; answers a complaint if it got
    CPU time while the bot was not on move, or if zombies were left from an earlier game."""

    def __init__(self, id):
        super().__init__(id)
        self.cpu_at_answer = None

    def announce(self, list):
        complaint = self.complaint()
        if self.strays and self.cpu_at_answer is not None:
            gained = _cpu(self.strays[0]) - self.cpu_at_answer
            if gained > 0.05:
                complaint = f"its grandchild computed {gained:.2f} s while it was not on move"
        if complaint:
            return complaint
        if not self.strays:
            self.spawn("while :; do :; done")
        move = smallest_legal(list)
        self.cpu_at_answer = _cpu(self.strays[0])
        return move

    def learn(self, first, second, list):
        self.cpu_at_answer = None
        super().learn(first, second, list)


class Sleeper(Smallest):
    """Thinks 0.4 s per move without using the CPU (the opponent of GrandchildThinks)."""

    def announce(self, list):
        time.sleep(0.4)
        return smallest_legal(list)


class ReadsSecrets(Smallest):
    """D5: reads /etc/passwd, writes outside its directory, looks at the network and at the
    organiser's environment; answers what it managed to do (a string: an invalid answer)."""

    def announce(self, list):
        import socket

        done = []
        try:
            with open("/etc/passwd") as f:
                f.read()
            done.append("read /etc/passwd")
        except OSError:
            pass
        here = os.path.dirname(os.path.abspath(__file__))
        for path in (os.path.join(here, "written-by-zoo"), os.path.join(here, "..", "written-by-zoo"),
                     "/var/tmp/written-by-zoo", "/root/written-by-zoo"):
            try:
                with open(path, "w") as f:
                    f.write("x")
                done.append(f"wrote {path}")
            except OSError:
                pass
        try:
            with open(os.path.join(here, "..", "secret-of-zoo")) as f:  # beside its folder (a test puts one)
                f.read()
            done.append("read a file beside its folder")
        except OSError:
            pass
        with open("/tmp/private", "w") as f:  # its private temporary directory is writable
            f.write("x")
        nics = [n for _, n in socket.if_nameindex() if n != "lo"]
        if nics:
            done.append(f"sees network interfaces {nics}")
        if "SYLVER_STORE" in os.environ:
            done.append("sees the organiser's environment")
        return "; ".join(done) if done else smallest_legal(list)


class HugeFirst(Smallest):
    """D6: under koth-2020, opens with the legal 10^16 + 2, then plays the smallest legal number."""

    def announce(self, list):
        return 10**16 + 2 if not list else smallest_legal(list)


class ReturnsHuge(Smallest):
    """D8: answers 10**5000 (too long even to write as a JSON number)."""

    def announce(self, list):
        return 10**5000


class ReturnsLong(Smallest):
    """Answers 10**200 + 1: a positive integer with more digits than an answer may have."""

    def announce(self, list):
        return 10**200 + 1
