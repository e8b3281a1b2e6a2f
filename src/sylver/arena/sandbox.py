"""Sandboxed bot processes: one OS process per bot, resource limits, own working directory,
paused (SIGSTOP) whenever it is not its turn, timed by CPU time with a wall-clock guard.

Limits: address space (``RLIMIT_AS``, default 4 GiB), CPU (``RLIMIT_CPU`` raised call by call to
the time the bot may use plus a margin, so even a bot that ignores signals dies), processes
(``RLIMIT_NPROC`` and, where the pids cgroup controller is writable, a pids cgroup of its own, which
also holds root), file size (``RLIMIT_FSIZE``) and no core dumps.  The bot dies with the process
that started it (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from sylver.arena.specs import BotSpec
from sylver.errors import BotError

HOST = Path(__file__).with_name("host.py")
DEFAULT_MEMORY_MB = 4096
MAX_PROCESSES = 64
"""Processes (and threads) a bot may have at once, where this can be enforced."""
MAX_LINE = 1 << 20
WALL_FACTOR = 2.0
WALL_SLACK = 1.0
"""Wall-clock guard: a call may take at most WALL_FACTOR × its time + WALL_SLACK seconds."""
PAUSE_GRACE = 0.002
"""Seconds an idle bot may stay unpaused while its opponent thinks (it is waiting on its input)."""
UNLIMITED_WALL = 3600.0
"""Wall-clock guard of a call with no time limit at all."""
STARTUP_WALL = 60.0
"""Seconds a bot may take to start and answer the hello."""
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_counter = itertools.count()
_PIDS_ROOT: str | None | bool = False


class StartError(BotError):
    """The bot cannot start: the message says why (one line)."""


@dataclass
class Reply:
    """The outcome of one call: a message, or why there is none."""

    msg: dict | None
    cpu: float
    wall: float
    failure: str = ""
    """"" (a message came), ``timeout``, ``crash``, ``protocol``."""
    detail: str = ""


def _pids_cgroup_root() -> str | None:
    """A writable pids-cgroup directory for our bots, or None."""
    global _PIDS_ROOT
    if _PIDS_ROOT is not False:
        return _PIDS_ROOT  # type: ignore[return-value]
    root = None
    for base in ("/sys/fs/cgroup/pids", "/sys/fs/cgroup"):
        if not os.path.isfile(os.path.join(base, "pids.max")) and not os.path.isfile(
            os.path.join(base, "cgroup.procs")
        ):
            continue
        candidate = os.path.join(base, "sylver-arena")
        try:
            os.makedirs(candidate, exist_ok=True)
            probe = os.path.join(candidate, f"probe-{os.getpid()}")
            os.makedirs(probe, exist_ok=True)
            ok = os.path.isfile(os.path.join(probe, "pids.max"))
            os.rmdir(probe)
            if ok:
                root = candidate
                break
        except OSError:
            continue
    _PIDS_ROOT = root
    return root


def fork_limit_enforced() -> bool:
    """Can this machine stop a bot from forking without bound (non-root, or a pids cgroup)?"""
    return os.geteuid() != 0 or _pids_cgroup_root() is not None


_swept = False


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _sweep_stale() -> None:
    """Remove the working directories and cgroups left by arena processes that were killed."""
    global _swept
    if _swept:
        return
    _swept = True
    tmp = tempfile.gettempdir()
    try:
        entries = os.listdir(tmp)
    except OSError:
        entries = []
    for e in entries:
        parts = e.split("-")
        if e.startswith("sylver-bot-") and len(parts) > 3 and parts[2].isdigit() and not _pid_alive(int(parts[2])):
            shutil.rmtree(os.path.join(tmp, e), ignore_errors=True)
    root = _pids_cgroup_root()
    if root:
        for e in os.listdir(root):
            parts = e.split("-")
            if e.startswith("bot-") and len(parts) == 3 and parts[1].isdigit() and not _pid_alive(int(parts[1])):
                try:
                    os.rmdir(os.path.join(root, e))
                except OSError:
                    pass


def _user_processes() -> int:
    """Processes and threads of this user (RLIMIT_NPROC counts them all, not just the bot's)."""
    uid = os.getuid()
    n = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        data = f.read()
                    n += int(data[data.rfind(b")") + 2 :].split()[17])
            except (OSError, ValueError, IndexError):
                continue
    return n


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (all threads) from /proc, None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


class BotProcess:
    """One running bot speaking the JSON-lines protocol."""

    def __init__(self, spec: BotSpec, bot_id: int, memory_mb: int = DEFAULT_MEMORY_MB) -> None:
        self.spec = spec
        self.bot_id = bot_id
        self.memory_mb = memory_mb
        self.proc: subprocess.Popen | None = None
        self.workdir = ""
        self.cgroup: str | None = None
        self.buf = b""
        self.stopped = False
        self.dead = False
        self.api = ""
        self.cpu_hard = resource.RLIM_INFINITY
        self._cpu_last: float | None = None

    # -- life cycle --------------------------------------------------------------------------------
    def start(self, hello: dict | None = None) -> dict:
        """Start the process and exchange hello/ready; raises StartError with a reason."""
        _sweep_stale()
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in self.spec.name)[:40]
        self.workdir = tempfile.mkdtemp(prefix=f"sylver-bot-{os.getpid()}-{safe}-")
        if self.spec.kind == "cmd":
            argv = list(self.spec.argv)
        else:
            argv = [sys.executable, "-u", str(HOST), json.dumps(self.spec.to_json()),
                    str(self.bot_id)]
        root = _pids_cgroup_root()
        if root is not None:
            path = os.path.join(root, f"bot-{os.getpid()}-{next(_counter)}")
            try:
                os.makedirs(path, exist_ok=True)
                with open(os.path.join(path, "pids.max"), "w") as f:
                    f.write(str(MAX_PROCESSES))
                self.cgroup = path
            except OSError:
                self.cgroup = None
        env = dict(os.environ)
        env.update(OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1")
        env.pop("PYTHONSTARTUP", None)
        log = open(os.path.join(self.workdir, "bot.log"), "wb")  # noqa: SIM115
        memory = self.memory_mb * 1024 * 1024
        cgroup = self.cgroup
        nproc = MAX_PROCESSES if os.geteuid() == 0 else _user_processes() + MAX_PROCESSES

        def limits() -> None:  # runs in the child between fork and exec
            if cgroup:
                try:
                    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
                        f.write(str(os.getpid()))
                except OSError:
                    pass
            try:
                libc = ctypes.CDLL(None)
                libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
            except Exception:  # noqa: BLE001
                pass
            for res, val in (
                (resource.RLIMIT_AS, memory),
                (resource.RLIMIT_NPROC, nproc),
                (resource.RLIMIT_FSIZE, 256 << 20),
                (resource.RLIMIT_CORE, 0),
            ):
                try:
                    resource.setrlimit(res, (val, val))
                except (ValueError, OSError):
                    pass

        try:
            self.proc = subprocess.Popen(  # noqa: S603
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd=self.workdir,
                env=env,
                start_new_session=True,
                preexec_fn=limits,  # noqa: PLW1509
                close_fds=True,
            )
        except OSError as exc:
            log.close()
            self.close()
            raise StartError(f"bot {self.spec.name}: cannot start {argv[0]}: {exc.strerror}") from None
        finally:
            log.close()
        try:
            self.cpu_hard = resource.prlimit(self.proc.pid, resource.RLIMIT_CPU)[1]
        except OSError:
            pass
        os.set_blocking(self.proc.stdout.fileno(), False)  # type: ignore[union-attr]
        os.set_blocking(self.proc.stdin.fileno(), False)  # type: ignore[union-attr]
        hello = dict(hello or {})
        hello.update(type="hello", protocol=1, id=self.bot_id, name=self.spec.name)
        r = self.call(hello, None, wall=STARTUP_WALL, pause=False)
        if r.failure or r.msg is None:
            why = r.detail or r.failure
            self.close()
            raise StartError(f"bot {self.spec.name} cannot start: {why}")
        if r.msg.get("type") == "error":
            self.close()
            raise StartError(f"bot {self.spec.name} cannot start: {r.msg.get('message', '?')}")
        if r.msg.get("type") != "ready":
            self.close()
            raise StartError(f"bot {self.spec.name} cannot start: expected a ready message, got {r.msg!r:.100}")
        self.api = str(r.msg.get("api", self.spec.kind))
        self.pause()
        return r.msg

    @property
    def alive(self) -> bool:
        return self.proc is not None and not self.dead and self.proc.poll() is None

    def log_tail(self, lines: int = 3) -> str:
        try:
            data = Path(self.workdir, "bot.log").read_bytes()[-4000:].decode(errors="replace")
        except OSError:
            return ""
        return " | ".join(x.strip() for x in data.strip().splitlines()[-lines:] if x.strip())[:400]

    def _signal(self, sig: int) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def pause(self) -> None:
        if not self.stopped and self.alive:
            self._signal(signal.SIGSTOP)
            self.stopped = True

    def resume(self) -> None:
        if self.stopped:
            self._signal(signal.SIGCONT)
            self.stopped = False

    def kill(self) -> None:
        """Kill the bot and everything it started."""
        if self.proc is None:
            return
        self.dead = True
        self._signal(signal.SIGKILL)
        self._signal(signal.SIGCONT)
        if self.cgroup:
            for _ in range(50):
                try:
                    pids = Path(self.cgroup, "cgroup.procs").read_text().split()
                except OSError:
                    break
                if not pids:
                    break
                for p in pids:
                    try:
                        os.kill(int(p), signal.SIGKILL)
                    except (ProcessLookupError, ValueError, PermissionError):
                        pass
                time.sleep(0.01)
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """Ask the bot to quit, then make sure it and its children are gone; remove its directory."""
        if self.proc is not None and self.alive:
            try:
                self.resume()
                self.send({"type": "quit"})
                self.proc.wait(timeout=0.5)
            except (OSError, subprocess.TimeoutExpired, ValueError):
                pass
        if self.proc is not None:
            self.kill()
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    if stream:
                        stream.close()
                except OSError:
                    pass
        if self.cgroup:
            for _ in range(20):
                try:
                    os.rmdir(self.cgroup)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.02)
            self.cgroup = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = ""

    def exit_description(self) -> str:
        assert self.proc is not None
        try:
            code = self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            text = f"killed by {name}"
        else:
            text = f"exited with status {code}"
        tail = self.log_tail()
        return f"{text}: {tail}" if tail else text

    # -- calls ---------------------------------------------------------------------------------------
    def send(self, msg: dict) -> bool:
        """Send a message that needs no answer; False if the bot is gone."""
        if not self.alive:
            return False
        data = (json.dumps(msg) + "\n").encode()
        fd = self.proc.stdin.fileno()  # type: ignore[union-attr]
        deadline = time.perf_counter() + 10.0
        try:
            while data:
                try:
                    n = os.write(fd, data)
                    data = data[n:]
                except BlockingIOError:
                    if time.perf_counter() > deadline:
                        return False
                    select.select([], [fd], [], 0.1)
        except (OSError, ValueError):
            return False
        return True

    def call(self, msg: dict, time_left: float | None, *, wall: float | None = None,
             pause: bool = True, before_wait=None, idle: BotProcess | None = None) -> Reply:  # noqa: ANN001
        """Send ``msg`` and wait for one answer within ``time_left`` seconds of CPU time.

        ``before_wait`` runs after the message is sent (the referee's own bookkeeping overlaps the
        bot's thinking).  The bot is paused again afterwards unless ``pause`` is False.  ``idle``
        (the opponent, which has just answered) is paused as soon as this call lasts longer than
        PAUSE_GRACE: two signals per move would cost more than most moves of fast bots.
        """
        assert self.proc is not None
        pid = self.proc.pid
        self.resume()
        c0 = self._cpu_last if self._cpu_last is not None else _cpu_seconds(pid)
        if c0 is None or not self.alive:
            if before_wait:
                before_wait()
            return Reply(None, 0.0, 0.0, "crash", self.exit_description())
        if time_left is not None:
            budget = max(time_left, 0.0)
            soft = int(c0 + budget + 2.0) + 1
            try:
                hard = self.cpu_hard
                if hard != resource.RLIM_INFINITY and soft > hard:
                    soft = hard
                resource.prlimit(pid, resource.RLIMIT_CPU, (soft, hard))
            except (OSError, ValueError):
                pass
            guard = wall if wall is not None else budget * WALL_FACTOR + WALL_SLACK
        else:
            budget = None
            guard = wall if wall is not None else UNLIMITED_WALL
        t0 = time.perf_counter()
        extra = self._unsolicited()
        if extra:
            if before_wait:
                before_wait()
            self.kill()
            return Reply(None, 0.0, 0.0, "protocol", f"wrote {extra!r} without being asked")
        sent = self.send(msg)
        if before_wait:
            before_wait()
        if not sent:
            return Reply(None, 0.0, time.perf_counter() - t0, "crash", self.exit_description())
        fd = self.proc.stdout.fileno()  # type: ignore[union-attr]
        deadline = t0 + guard
        result: Reply | None = None
        while True:
            line, ok = self._take_line()
            if not ok:
                result = Reply(None, 0.0, 0.0, "protocol", "an output line longer than 1 MiB")
                break
            if line is not None:
                stripped = line.strip()
                if not stripped:
                    continue
                try:
                    obj = json.loads(stripped)
                except ValueError:
                    obj = None
                if not isinstance(obj, dict):
                    text = stripped[:60].decode(errors="replace")
                    result = Reply(None, 0.0, 0.0, "protocol", f"garbage on stdout: {text!r}")
                    break
                if obj.get("type") == "log":
                    continue
                result = Reply(obj, 0.0, 0.0)
                break
            now = time.perf_counter()
            if now >= deadline:
                result = Reply(None, 0.0, 0.0, "timeout", f"no answer within the wall-clock guard of {guard:.3g} s")
                break
            wait = deadline - now
            if budget is not None:
                used = (_cpu_seconds(pid) or 0.0) - c0
                if used > budget + 0.05:
                    result = Reply(None, used, 0.0, "timeout", f"used {used:.2f} s of CPU time (limit {budget:.3g} s)")
                    break
                wait = min(wait, max(0.005, min(0.25, budget - used + 0.02)))
            if idle is not None and not idle.stopped:
                if now - t0 >= PAUSE_GRACE:
                    idle.pause()
                else:
                    wait = min(wait, PAUSE_GRACE - (now - t0))
            try:
                ready, _, _ = select.select([fd], [], [], wait)
            except (OSError, ValueError):
                ready = [fd]
            if ready:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    result = Reply(None, 0.0, 0.0, "crash", "")
                    break
                self.buf += chunk
        wall_used = time.perf_counter() - t0
        c1 = _cpu_seconds(pid)
        self._cpu_last = c1
        proc_cpu = (c1 - c0) if c1 is not None else result.cpu
        result.wall = wall_used
        reported = result.msg.get("cpu") if result.msg else None
        if isinstance(reported, int | float) and reported >= 0 and proc_cpu <= reported + 0.03:
            result.cpu = float(reported)
        else:
            result.cpu = max(proc_cpu, result.cpu)
        if result.failure == "crash":
            self.dead = True
            result.detail = self.exit_description()
            if "SIGXCPU" in result.detail:
                result.failure = "timeout"
                result.detail = f"exceeded its CPU time ({result.detail})"
        elif result.failure:
            self.kill()
        elif budget is not None and result.cpu > budget:
            result.failure = "timeout"
            result.detail = f"used {result.cpu:.2f} s of CPU time (limit {budget:.3g} s)"
        if not self.dead and result.msg and result.msg.get("type") == "error":
            self.reap_strays()
        if pause and not self.dead:
            self.pause()
        return result

    def reap_strays(self) -> None:
        """Kill every process the bot started (its children do not outlive its move)."""
        if self.proc is None:
            return
        host = self.proc.pid
        pids: list[int] = []
        if self.cgroup:
            try:
                pids = [int(p) for p in Path(self.cgroup, "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                pids = []
        else:
            for entry in os.listdir("/proc"):
                if not entry.isdigit() or int(entry) == host:
                    continue
                try:
                    with open(f"/proc/{entry}/stat", "rb") as f:
                        data = f.read()
                except OSError:
                    continue
                fields = data[data.rfind(b")") + 2 :].split()
                if len(fields) > 2 and int(fields[2]) == host:
                    pids.append(int(entry))
        for p in pids:
            if p != host:
                try:
                    os.kill(p, signal.SIGKILL)
                    os.kill(p, signal.SIGCONT)
                except (ProcessLookupError, PermissionError):
                    pass

    def _unsolicited(self) -> str:
        """A line the bot wrote without being asked ("" if none; log messages are allowed).

        Reads what is already in the pipe first, so a stray line written after an answer in the
        same turn is caught here rather than taken as the answer to the next turn.
        """
        self._drain()
        while b"\n" in self.buf:
            line, rest = self.buf.split(b"\n", 1)
            if line.strip():
                try:
                    obj = json.loads(line)
                except ValueError:
                    obj = None
                if not (isinstance(obj, dict) and obj.get("type") == "log"):
                    return line.strip()[:60].decode(errors="replace")
            self.buf = rest
        return ""

    def _drain(self) -> None:
        """Move whatever the bot has written so far into ``buf``, without waiting."""
        if self.proc is None or self.proc.stdout is None:
            return
        fd = self.proc.stdout.fileno()
        while len(self.buf) <= MAX_LINE:
            try:
                ready, _, _ = select.select([fd], [], [], 0)
                chunk = os.read(fd, 1 << 16) if ready else b""
            except (OSError, ValueError):
                return
            if not chunk:
                return
            self.buf += chunk

    def _take_line(self) -> tuple[bytes | None, bool]:
        i = self.buf.find(b"\n")
        if i < 0:
            return None, len(self.buf) <= MAX_LINE
        line, self.buf = self.buf[:i], self.buf[i + 1 :]
        return line, True

