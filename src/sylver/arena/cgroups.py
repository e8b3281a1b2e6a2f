"""Control groups for bots: a process limit, a freezer for the whole process tree, its CPU time.

Each bot gets a cgroup of its own (``sylver-arena/bot-<referee pid>-<n>``) in every hierarchy that
provides one of three features, on cgroup v1 (one hierarchy per controller) or v2 (one hierarchy):

- ``pids``: ``pids.max``, at most :data:`MAX_PROCESSES` processes and threads (binds root too);
- ``freezer``: ``freezer.state`` (v1) or ``cgroup.freeze`` (v2): every process of the bot, however
  it was started (``setsid``, double fork), is stopped between its turns;
- ``cpu``: ``cpuacct.usage`` (v1) or ``cpu.stat`` (v2): the CPU time of the whole tree.

The bot's first process joins them between fork and exec, so every process it starts is in them
too, and a sandboxed bot cannot leave them (it sees no cgroup file system).  Creating cgroups needs
root or a delegated subtree; without them the sandbox falls back to signals (docs/arena.md).
"""

from __future__ import annotations

import itertools
import os
import signal
import time

MAX_PROCESSES = 64
"""Processes (and threads) a bot may have at once, where this can be enforced."""
FREEZE_WAIT = 0.2
"""Seconds a freeze may take to be reported complete before the bot's processes get SIGSTOP too."""
GROUP = "sylver-arena"
_FEATURES = {"pids": ("pids.max",), "freezer": ("freezer.state", "cgroup.freeze"),
             "cpu": ("cpuacct.usage", "cpu.stat")}
_BASES = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup/freezer", "/sys/fs/cgroup/cpuacct",
          "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup", "/sys/fs/cgroup/unified")
_counter = itertools.count()
_roots: dict[str, str] | None = None


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _probe(base: str) -> list[str]:
    """The features a child cgroup of ``base``/sylver-arena offers (empty if we cannot create one)."""
    if not os.path.isfile(os.path.join(base, "cgroup.procs")):
        return []
    group = os.path.join(base, GROUP)
    v2 = os.path.isfile(os.path.join(base, "cgroup.controllers"))
    try:
        os.makedirs(group, exist_ok=True)
        if v2:  # the pids controller must be enabled on the way down (best effort)
            for d in (base, group):
                try:
                    _write(os.path.join(d, "cgroup.subtree_control"), "+pids")
                except OSError:
                    pass
        probe = os.path.join(group, f"probe-{os.getpid()}")
        os.makedirs(probe, exist_ok=True)
        try:
            files = set(os.listdir(probe))
        finally:
            os.rmdir(probe)
    except OSError:
        return []
    return [f for f, names in _FEATURES.items() if any(n in files for n in names)]


def hierarchy_roots(base: str) -> dict[str, str]:
    """Feature -> the ``sylver-arena`` directory providing it in the one hierarchy mounted at ``base``."""
    return {feature: os.path.join(base, GROUP) for feature in _probe(base)}


def v2_base() -> str | None:
    """Where the cgroup v2 (unified) hierarchy is mounted (None: it is not)."""
    try:
        with open("/proc/self/mounts") as f:
            for line in f:
                fields = line.split()
                if len(fields) > 2 and fields[2] == "cgroup2":
                    return fields[1]
    except OSError:
        pass
    return None


def roots() -> dict[str, str]:
    """Feature -> the ``sylver-arena`` directory providing it (cached per process).

    The hierarchies are tried in the order of ``_BASES``: on a machine with both (systemd's
    "hybrid" layout) the v1 controllers come first, as they always provide ``pids``."""
    global _roots
    if _roots is None:
        found: dict[str, str] = {}
        for base in _BASES:
            for feature, root in hierarchy_roots(base).items():
                found.setdefault(feature, root)
            if len(found) == len(_FEATURES):
                break
        _roots = found
    return _roots


def use_roots(found: dict[str, str] | None) -> None:
    """Use these ``sylver-arena`` directories from now on (None: probe again), in this process and
    the worker processes it forks afterwards (to run on one hierarchy of a hybrid machine)."""
    global _roots
    _roots = found


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists (also one of another user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale() -> None:
    """Thaw, empty and remove the cgroups left by referee processes that died (e.g. ``kill -9``)."""
    for group in set(roots().values()):
        try:
            entries = os.listdir(group)
        except OSError:
            continue
        for e in entries:
            parts = e.split("-")
            if e.startswith("bot-") and len(parts) == 3 and parts[1].isdigit() and not pid_alive(int(parts[1])):
                BotCgroup.adopt({f: os.path.join(r, e) for f, r in roots().items()}).remove()


class BotCgroup:
    """The cgroups of one bot (any of them may be missing: then that feature is unavailable)."""

    def __init__(self, max_processes: int = MAX_PROCESSES) -> None:
        name = f"bot-{os.getpid()}-{next(_counter)}"
        self.dirs: dict[str, str] = {}
        for feature, root in roots().items():
            path = os.path.join(root, name)
            try:
                os.makedirs(path, exist_ok=True)
                self.dirs[feature] = path
            except OSError:
                continue
        if "pids" in self.dirs:
            try:
                _write(os.path.join(self.dirs["pids"], "pids.max"), str(max_processes))
            except OSError:
                self.dirs.pop("pids")
        self._freeze_fd: int | None = None
        self._v2_freeze = False
        self._stopped: list[int] = []
        """Processes stopped by SIGSTOP because the freezer did not stop them in time."""
        self.frozen = False

    @classmethod
    def adopt(cls, dirs: dict[str, str]) -> BotCgroup:
        self = cls.__new__(cls)
        self.dirs = {f: d for f, d in dirs.items() if os.path.isdir(d)}
        self._freeze_fd = None
        self._v2_freeze = False
        self._stopped = []
        self.frozen = True
        return self

    @staticmethod
    def available(feature: str) -> bool:
        """Can bots get the cgroup feature ``pids``, ``freezer`` or ``cpu`` here?"""
        return feature in roots()

    # -- features ---------------------------------------------------------------------------------
    @property
    def limits_processes(self) -> bool:
        return "pids" in self.dirs

    @property
    def can_freeze(self) -> bool:
        return "freezer" in self.dirs

    @property
    def procs_files(self) -> list[str]:
        """The ``cgroup.procs`` files a new process writes its pid into (between fork and exec)."""
        return [os.path.join(d, "cgroup.procs") for d in dict.fromkeys(self.dirs.values())]

    def pids(self) -> list[int]:
        """Every process in the bot's cgroups."""
        for d in self.dirs.values():
            try:
                with open(os.path.join(d, "cgroup.procs")) as f:
                    return [int(p) for p in f.read().split()]
            except (OSError, ValueError):
                continue
        return []

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) of every process the bot ever had in its cgroup; None if unknown."""
        d = self.dirs.get("cpu")
        if d is None:
            return None
        try:
            with open(os.path.join(d, "cpuacct.usage"), "rb") as f:
                return int(f.read()) / 1e9
        except FileNotFoundError:
            pass
        except (OSError, ValueError):
            return None
        try:
            with open(os.path.join(d, "cpu.stat"), "rb") as f:
                for line in f:
                    if line.startswith(b"usage_usec "):
                        return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            pass
        return None

    def _freezer(self) -> int:
        if self._freeze_fd is None:
            d = self.dirs["freezer"]
            path = os.path.join(d, "freezer.state")
            if not os.path.exists(path):
                path = os.path.join(d, "cgroup.freeze")
                self._v2_freeze = True
            self._freeze_fd = os.open(path, os.O_WRONLY)
        return self._freeze_fd

    def _reached_frozen(self) -> bool | None:
        """Whether the kernel reports every process of the bot frozen (None: it cannot be read)."""
        d = self.dirs["freezer"]
        try:
            if self._v2_freeze:
                with open(os.path.join(d, "cgroup.events"), "rb") as f:
                    return b"frozen 1" in f.read().splitlines()
            with open(os.path.join(d, "freezer.state"), "rb") as f:
                return f.read().strip() == b"FROZEN"
        except OSError:
            return None

    def freeze(self) -> None:
        """Stop every process of the bot, and return once the kernel reports them all stopped.

        Freezing is asynchronous, and a v1 freezer can stay ``FREEZING`` (a task that was busy in
        the kernel, or forking, when asked), so the request is repeated until the state says
        ``FROZEN`` (v2: ``frozen 1``).  If it does not within :data:`FREEZE_WAIT`, every process
        of the bot also gets SIGSTOP (and SIGCONT when thawed): a bot never runs off its turn."""
        if not self.can_freeze or self.frozen:
            return
        deadline = time.monotonic() + FREEZE_WAIT
        pause = 1e-4
        while True:
            try:
                os.write(self._freezer(), b"1" if self._v2_freeze else b"FROZEN")
            except OSError:
                pass
            reached = self._reached_frozen()
            if reached:
                break
            if time.monotonic() > deadline:
                self._stopped = self.pids()
                for p in self._stopped:
                    try:
                        os.kill(p, signal.SIGSTOP)
                    except (ProcessLookupError, PermissionError):
                        pass
                break
            time.sleep(pause)
            pause = min(2 * pause, 0.01)
        self.frozen = True

    def thaw(self) -> None:
        if self.can_freeze and self.frozen:
            try:
                os.write(self._freezer(), b"0" if self._v2_freeze else b"THAWED")
            except OSError:
                pass
            for p in self._stopped:
                try:
                    os.kill(p, signal.SIGCONT)
                except (ProcessLookupError, PermissionError):
                    pass
            self._stopped = []
            self.frozen = False

    def unfreeze_always(self, pids: tuple[int, ...]) -> None:
        """Take processes that never run bot code (the sandbox's own) out of the freezer, where
        each freeze and thaw would wake them for nothing (cgroup v1: the freezer is its own tree)."""
        d = self.dirs.get("freezer")
        if d is None or not os.path.exists(os.path.join(d, "freezer.state")):
            return
        for pid in pids:
            try:
                _write(os.path.join(os.path.dirname(d), "cgroup.procs"), str(pid))
            except OSError:
                pass

    def kill(self, spare: tuple[int, ...] = ()) -> int:
        """SIGKILL every process but ``spare`` until none is left; the number killed."""
        killed = set()
        for _ in range(100):
            victims = [p for p in self.pids() if p not in spare]
            if not victims:
                break
            for p in victims:
                try:
                    os.kill(p, signal.SIGKILL)
                    killed.add(p)
                except (ProcessLookupError, PermissionError):
                    pass
            self.thaw()  # a frozen process (cgroup v1) dies only once thawed
            time.sleep(0.002)
        return len(killed)

    def remove(self) -> None:
        """Kill whatever is left and remove the cgroups."""
        if self.pids():
            self.thaw()
            self.kill()
        if self._freeze_fd is not None:
            try:
                os.close(self._freeze_fd)
            except OSError:
                pass
            self._freeze_fd = None
        for d in dict.fromkeys(self.dirs.values()):
            for _ in range(50):
                try:
                    os.rmdir(d)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)
        self.dirs = {}
