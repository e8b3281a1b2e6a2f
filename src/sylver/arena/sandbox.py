"""Bot processes: one sandbox per bot, resource limits, frozen whenever it is not its turn, timed by
the CPU time of its whole process tree with a wall-clock backstop (docs/arena.md, "Isolation").

The sandbox is bubblewrap (``bwrap``): new user, PID, mount, IPC, UTS, network and cgroup
namespaces, no capabilities, no nested user namespaces, a read-only view of Python, the ``sylver``
package and the bot's own directory, a private size-limited writable ``/tmp``, no environment of the
organiser's.  A bot sees its own processes only, so it can neither signal its referee or its
opponent nor see their files.  Built-in bots are trusted and run unsandboxed (still in their own
cgroups).  Without bubblewrap, untrusted bots are refused unless the organiser passes
``--unsafe-no-sandbox`` (or sets ``SYLVER_UNSAFE_NO_SANDBOX=1``).

Limits: address space (``RLIMIT_AS``, default 4 GiB), CPU (``RLIMIT_CPU`` raised call by call to
the time the bot may use plus a margin, so even a bot that ignores signals dies), processes (a pids
cgroup, else ``RLIMIT_NPROC``), file size (``RLIMIT_FSIZE``), no core dumps; the bot dies with the
process that started it (``PR_SET_PDEATHSIG``, bwrap ``--die-with-parent``, and the PID namespace:
when its first process ends, the kernel kills every other).  Its cgroups (:mod:`.cgroups`) freeze
the whole tree between turns and measure its CPU time.

:class:`BotProcess` is the process; :class:`PipeChannel` the JSON-lines protocol on its pipes (the
typed messages of :mod:`sylver.arena.protocol`).
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from sylver.arena.cgroups import MAX_PROCESSES, BotCgroup, pid_alive, sweep_stale
from sylver.arena.protocol import Error, Hello, Log, Message, Quit, Ready, Reply, decode, encode
from sylver.arena.specs import BotSpec
from sylver.errors import BotError
from sylver.machine import load_factor

HOST = Path(__file__).with_name("host.py")
DEFAULT_MEMORY_MB = 4096
MAX_LINE = 1 << 20
WALL_FACTOR = 2.0
WALL_SLACK = 1.0
"""Wall-clock guard: a call may take WALL_FACTOR × its time + WALL_SLACK seconds, not counting the
time the bot waited for a CPU, and never less than that × the load factor (load average / cores)."""
PAUSE_GRACE = 0.002
"""Seconds an idle bot may stay unpaused while its opponent thinks (it is waiting on its input)."""
UNLIMITED_WALL = 3600.0
"""Wall-clock guard of a call with no time limit at all."""
STARTUP_WALL = 60.0
"""Seconds a bot may take to start and answer the hello."""
TMP_SIZE = 64 << 20
"""Bytes of the sandbox's private writable /tmp (and 1/16 of it for /dev/shm)."""
UNSAFE_ENV = "SYLVER_UNSAFE_NO_SANDBOX"
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class StartError(BotError):
    """The bot cannot start: the message says why (one line)."""


class SandboxUnavailable(BotError):
    """Untrusted bots cannot be sandboxed here (the message says why and what to do)."""


def fork_limit_enforced() -> bool:
    """Can this machine stop a bot from forking without bound (non-root, or a pids cgroup)?"""
    return os.geteuid() != 0 or BotCgroup.available("pids")


_swept = False


def _sweep_stale() -> None:
    """Remove the log and journal directories and cgroups left by arena processes that were killed."""
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
        if e.startswith(("sylver-bot-", "sylver-journal-")) and len(parts) > 3 and parts[2].isdigit() and not pid_alive(int(parts[2])):
            shutil.rmtree(os.path.join(tmp, e), ignore_errors=True)
    sweep_stale()


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


def _stat_fields(pid: int) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2 :].split()


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (all threads) from /proc, None if it is gone."""
    fields = _stat_fields(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def _run_delay(pid: int) -> float:
    """Seconds the process's main thread has spent runnable but waiting for a CPU (0 if unknown)."""
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _descendants(root: int) -> list[int]:
    """Every process below ``root`` (one scan of /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat_fields(int(entry))
            if fields is not None and len(fields) > 2:
                children.setdefault(int(fields[1]), []).append(int(entry))
    out: list[int] = []
    todo = [root]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


# -- the sandbox ---------------------------------------------------------------------------------
def _python_paths() -> list[str]:
    """What the bot host needs to run: the interpreter's prefixes, its library and the sylver package."""
    import sylver

    paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.dirname(os.path.realpath(sys.executable))),
             str(Path(sylver.__file__).resolve().parents[1])]
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.append(sysconfig.get_paths().get(key, ""))
    paths += [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return paths


PRIVATE_DIRS = ("/", "/tmp", "/dev", "/proc")
"""Directories the sandbox replaces by its own: what lives in them is bound file by file."""


def _folder_of(path: str) -> str:
    """The folder to show for ``path`` (a file): its directory, or the file itself when that
    directory is one the sandbox replaces (a bot at /tmp/bot.py must not reveal the whole /tmp)."""
    folder = os.path.dirname(path)
    return path if os.path.realpath(folder) in PRIVATE_DIRS else folder


def _bind_set(paths: list[str]) -> list[str]:
    """Existing absolute paths, resolved, without those under /usr or under another one."""
    out: list[str] = []
    for p in sorted({os.path.realpath(p) for p in paths if p and os.path.isabs(p) and os.path.exists(p)}):
        if p in PRIVATE_DIRS or p == "/usr" or p.startswith("/usr/") or any(p == q or p.startswith(q + "/") for q in out):
            continue
        out.append(p)
    return out


def sandbox_argv(spec: BotSpec, argv: list[str]) -> list[str]:
    """The bwrap command line that runs ``argv`` for ``spec`` in its sandbox.

    bwrap applies its mount operations in order: the private ``/tmp`` (and ``/dev``, ``/proc``) come
    first and the read-only binds after them, so a bot, a virtualenv or a checkout that lives under
    ``/tmp`` (a CI clone) is bound on top of the private ``/tmp`` rather than hidden by it.
    """
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    args = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--ro-bind", "/usr", "/usr"]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    if os.path.isfile("/etc/ld.so.cache"):
        args += ["--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_SIZE // 16), "--tmpfs", "/dev/shm",
             "--remount-ro", "/dev", "--size", str(TMP_SIZE), "--tmpfs", "/tmp"]
    if spec.kind == "python":
        wanted = _python_paths() + [_folder_of(spec.target)]
    else:  # the program's installation (e.g. a virtualenv: bin/..), and the files named in its arguments
        prog = argv[0]
        wanted = [os.path.dirname(os.path.dirname(p)) for p in (prog, os.path.realpath(prog))]
        wanted += [a if os.path.isdir(a) else _folder_of(a) for a in argv if os.path.isabs(a) and os.path.exists(a)]
    return args + _binds(_bind_set(wanted)) + ["--remount-ro", "/", "--chdir", "/tmp", "--"] + argv


def _binds(paths: list[str]) -> list[str]:
    """Read-only binds of ``paths``.  Those deeper in ``/tmp`` go into a read-only skeleton mounted
    on their top folder there (``/tmp/ci`` for ``/tmp/ci/main/.venv``): the folders that lead to
    them exist only in it, so the bot cannot write beside them; the rest of its ``/tmp`` stays
    writable and private."""
    args: list[str] = []
    skeletons: dict[str, list[str]] = {}
    for p in paths:
        parts = p.split("/")
        if p.startswith("/tmp/") and len(parts) > 3:
            skeletons.setdefault("/".join(parts[:3]), []).append(p)
        else:
            args += ["--ro-bind", p, p]
    for top, inside in skeletons.items():
        args += ["--size", str(1 << 20), "--tmpfs", top]
        for p in inside:
            args += ["--ro-bind", p, p]
        args += ["--remount-ro", top]
    return args


def _sandbox_env(spec: BotSpec) -> dict[str, str]:
    """The whole environment of a sandboxed bot (none of the organiser's variables)."""
    import sylver

    path = "/usr/local/bin:/usr/bin:/bin"
    if spec.kind == "cmd":
        path = os.path.dirname(spec.argv[0]) + ":" + path
    env = {"PATH": path, "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "SYLVER_SANDBOX": "1"}
    if spec.kind == "python":
        src = str(Path(sylver.__file__).resolve().parents[1])
        extra = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != src]
        env["PYTHONPATH"] = os.pathsep.join([src] + extra)
    return env


@functools.cache
def sandbox_problem() -> str:
    """Why untrusted bots cannot be sandboxed on this machine ("" if they can)."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = BotSpec(kind="python", name="probe", target=str(HOST), cls="", argv=(), text="")
    argv = sandbox_argv(probe, [sys.executable, "-c", "import os; os.listdir('/tmp')"])
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=_sandbox_env(probe))  # noqa: S603
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap cannot run: {exc}"
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or [f"exit status {r.returncode}"])[-1]
        return f"bubblewrap cannot create the sandbox here ({why[:200]})"
    return ""


@functools.cache
def user_namespaces_problem() -> str:
    """Why this machine cannot give a process a new user namespace ("" if it can): the one thing
    bubblewrap needs from the kernel.  Tried in a child process, so nothing here changes."""
    try:
        if Path("/proc/sys/user/max_user_namespaces").read_text().strip() == "0":
            return "user namespaces are disabled (/proc/sys/user/max_user_namespaces is 0)"
    except OSError:
        pass
    code = ("import ctypes, os, sys\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "sys.exit(0 if libc.unshare(0x10000000) == 0 else ctypes.get_errno())")  # CLONE_NEWUSER
    try:
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)  # noqa: S603
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot test for user namespaces: {exc}"
    if r.returncode != 0:
        return f"the kernel refuses a new user namespace ({os.strerror(r.returncode)})"
    return ""


def unsafe_from_env() -> bool:
    """``SYLVER_UNSAFE_NO_SANDBOX=1``: the environment form of ``--unsafe-no-sandbox``."""
    return os.environ.get(UNSAFE_ENV, "") not in ("", "0")


def check_sandbox(specs: list[BotSpec], unsafe: bool) -> None:
    """Raise :class:`SandboxUnavailable` when untrusted bots would have to run without a sandbox."""
    if unsafe or unsafe_from_env() or all(s.kind == "builtin" for s in specs):
        return
    why = sandbox_problem()
    if why:
        raise SandboxUnavailable(f"cannot sandbox the bots: {why}; pass --unsafe-no-sandbox to run them "
                                 "without one (only bots you trust)")


_warmed = False


def _warm_kernels() -> None:
    """Compile (and cache next to the sources) the kernels the bot host uses, outside the sandbox:
    inside it the cache is read-only."""
    global _warmed
    if not _warmed:
        from sylver.arena.host import warm_up

        warm_up()
        _warmed = True


def _limits_in_child(cgroup: BotCgroup, memory_mb: int) -> Callable[[], None]:
    """What a bot's first process runs between fork and exec: join its cgroups, die with its
    parent, and set its resource limits."""
    procs_files = cgroup.procs_files
    memory = memory_mb * 1024 * 1024
    if cgroup.limits_processes:
        nproc = None
    else:
        nproc = MAX_PROCESSES if os.geteuid() == 0 else _user_processes() + MAX_PROCESSES

    def limits() -> None:
        for path in procs_files:
            try:
                with open(path, "w") as f:
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
            if val is not None:
                try:
                    resource.setrlimit(res, (val, val))
                except (ValueError, OSError):
                    pass

    return limits


class PipeChannel:
    """The referee's end of a bot's JSON-lines protocol: typed messages written to the bot's stdin,
    lines read from its stdout without blocking (log messages skipped, a line longer than
    MAX_LINE or one that is no JSON object is a protocol failure).  The process it talks to is
    :class:`BotProcess`'s business."""

    def __init__(self, to_bot: IO[bytes], from_bot: IO[bytes]) -> None:
        self.to_bot, self.from_bot = to_bot.fileno(), from_bot.fileno()
        os.set_blocking(self.to_bot, False)
        os.set_blocking(self.from_bot, False)
        self.buf = b""

    def fileno(self) -> int:
        """The descriptor to wait on for the bot's output."""
        return self.from_bot

    def write(self, msg: Message) -> bool:
        """Write one message; False if the pipe is closed or stays full for 10 s."""
        data = encode(msg)
        deadline = time.perf_counter() + 10.0
        try:
            while data:
                try:
                    n = os.write(self.to_bot, data)
                    data = data[n:]
                except BlockingIOError:
                    if time.perf_counter() > deadline:
                        return False
                    select.select([], [self.to_bot], [], 0.1)
        except (OSError, ValueError):
            return False
        return True

    def receive(self) -> bool:
        """Read what the bot wrote (it was ready); False at the end of its output."""
        try:
            chunk = os.read(self.from_bot, 1 << 16)
        except BlockingIOError:
            return True
        except OSError:
            chunk = b""
        self.buf += chunk
        return bool(chunk)

    def next_message(self) -> Reply | None:
        """The next message in what the bot has written (log messages skipped), a protocol failure,
        or None while no complete line has come."""
        while True:
            line, ok = self._take_line()
            if not ok:
                return Reply(msg=None, failure="protocol", detail="an output line longer than 1 MiB")
            if line is None:
                return None
            stripped = line.strip()
            if not stripped:
                continue
            msg = decode(stripped)
            if msg is None:
                text = stripped[:60].decode(errors="replace")
                return Reply(msg=None, failure="protocol", detail=f"garbage on stdout: {text!r}")
            if not isinstance(msg, Log):
                return Reply(msg=msg)

    def unsolicited(self) -> str:
        """A line the bot wrote without being asked ("" if none; log messages are allowed).

        Reads what is already in the pipe first, so a stray line written after an answer in the
        same turn is caught here rather than taken as the answer to the next turn.
        """
        self._drain()
        while b"\n" in self.buf:
            line, rest = self.buf.split(b"\n", 1)
            if line.strip() and not isinstance(decode(line), Log):
                return line.strip()[:60].decode(errors="replace")
            self.buf = rest
        return ""

    def _drain(self) -> None:
        """Move whatever the bot has written so far into ``buf``, without waiting."""
        while len(self.buf) <= MAX_LINE:
            try:
                ready, _, _ = select.select([self.from_bot], [], [], 0)
            except (OSError, ValueError):
                return
            if not ready or not self.receive():
                return

    def _take_line(self) -> tuple[bytes | None, bool]:
        i = self.buf.find(b"\n")
        if i < 0:
            return None, len(self.buf) <= MAX_LINE
        line, self.buf = self.buf[:i], self.buf[i + 1 :]
        return line, True


class CallClock:
    """The limits of one call: its CPU budget and its wall-clock guard (see :meth:`BotProcess.call`).

    The load factor and the CPU waiting are read once the call outlasts its first wait (a fast
    answer needs neither); waiting before that counts as the bot's own time."""

    def __init__(self, bot: BotProcess, c0: float, budget: float | None, wall: float | None) -> None:
        self.bot, self.pid, self.c0, self.budget = bot, bot.pid, c0, budget
        self.wall_given = wall is not None
        if wall is not None:
            self.guard = wall
        else:
            self.guard = UNLIMITED_WALL if budget is None else budget * WALL_FACTOR + WALL_SLACK
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + self.guard
        self.used = 0.0
        """CPU seconds used in the call, as last measured."""
        self.polled = False
        """True once a wait ended without output."""
        self.load = 0.0
        self.delay0 = 0.0

    def check(self, now: float) -> tuple[Reply | None, float]:
        """A timeout if the call has passed a limit, else None and how long to wait for output."""
        budget, guard, t0 = self.budget, self.guard, self.t0
        if self.polled and budget is not None:
            self.used = (self.bot._cpu() or self.c0) - self.c0
            if self.used > budget + 0.05:
                return Reply(msg=None, cpu=self.used, failure="timeout",
                             detail=f"used {self.used:.2f} s of CPU time (limit {budget:.3g} s)"), 0.0
        if self.polled and not self.load:
            self.load = load_factor()
            self.delay0 = _run_delay(self.pid)
            self.deadline = t0 + guard * self.load
        if now >= self.deadline:
            waited = _run_delay(self.pid) - self.delay0
            if now - t0 - waited >= guard:
                rule = "2 × its time + 1 s, " if not self.wall_given and budget is not None else ""
                return Reply(msg=None, cpu=self.used, failure="timeout", detail=(
                    f"no answer within the wall-clock guard of {guard:.3g} s ({rule}at least × the load "
                    f"factor {self.load:.2g}): {now - t0:.3g} s passed, {waited:.2g} s of them waiting for a "
                    f"CPU, and it used {self.used:.2f} s of CPU time")), 0.0
            wait = max(0.01, guard - (now - t0 - waited))
        else:
            wait = self.deadline - now
        if budget is not None:
            wait = min(wait, max(0.005, min(0.25, budget - self.used + 0.02)))
        return None, wait


class BotProcess:
    """One running bot: its process's life cycle (start in the sandbox, freeze and thaw, CPU time,
    kill) and its calls, timed, over its :class:`PipeChannel`; the referee sees it as a
    :class:`sylver.arena.protocol.BotChannel`."""

    def __init__(self, spec: BotSpec, bot_id: int, memory_mb: int = DEFAULT_MEMORY_MB, *,
                 sandbox: bool = True) -> None:
        self.spec = spec
        self.bot_id = bot_id
        self.memory_mb = memory_mb
        self.sandboxed = sandbox and spec.kind != "builtin" and not unsafe_from_env()
        """Built-in bots are trusted; the others run in the sandbox unless the organiser opts out."""
        self.proc: subprocess.Popen | None = None
        self.pid = 0
        """The bot's first process (the host of a Python bot, or the ``cmd:`` program), outer PID."""
        self.keep: tuple[int, ...] = ()
        """Processes that are not the bot's strays: its first process and bwrap's two."""
        self.workdir = ""
        self.cgroup: BotCgroup | None = None
        self.channel: PipeChannel | None = None
        """The protocol's pipes, once the process runs."""
        self.stopped = False
        self.dead = False
        self.api = ""
        self.cpu_hard = resource.RLIM_INFINITY
        self._cpu_soft = -1
        self._cpu_last: float | None = None

    # -- life cycle --------------------------------------------------------------------------------
    def start(self) -> Ready:
        """Start the process and exchange hello/ready; raises StartError with a reason."""
        _sweep_stale()
        if self.sandboxed:
            why = sandbox_problem()
            if why:
                raise SandboxUnavailable(f"cannot sandbox bot {self.spec.name}: {why}; pass "
                                         "--unsafe-no-sandbox to run it without one (only bots you trust)")
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in self.spec.name)[:40]
        self.workdir = tempfile.mkdtemp(prefix=f"sylver-bot-{os.getpid()}-{safe}-")
        self._spawn()
        r = self.call(Hello(id=self.bot_id, name=self.spec.name), None, wall=STARTUP_WALL, pause=False)
        if not isinstance(r.msg, Ready):
            if r.failure or r.msg is None:
                why = r.detail or r.failure
            elif isinstance(r.msg, Error):
                why = r.msg.message
            else:
                why = f"expected a ready message, got {r.msg.to_json()!r:.100}"
            self.close()
            raise StartError(f"bot {self.spec.name} cannot start: {why}")
        self.api = r.msg.api or self.spec.kind
        if self.sandboxed:
            self._find_first_process()
        self.pause()
        return r.msg

    def _command(self) -> tuple[list[str], dict[str, str], str]:
        """The command line, environment and working directory of the bot's first process."""
        if self.spec.kind == "cmd":
            argv = list(self.spec.argv)
        else:
            argv = [sys.executable, "-u", str(HOST), json.dumps(self.spec.to_json()), str(self.bot_id)]
        threads = {"OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                   "MKL_NUM_THREADS": "1", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if self.sandboxed:
            if self.spec.kind == "python":
                _warm_kernels()
            env = _sandbox_env(self.spec)
            argv = sandbox_argv(self.spec, argv)
            cwd = "/"
        else:
            env = dict(os.environ)
            env.pop("PYTHONSTARTUP", None)
            cwd = self.workdir
        env.update(threads)
        return argv, env, cwd

    def _spawn(self) -> None:
        """Start the first process in cgroups of its own and within the limits, its stderr to bot.log."""
        argv, env, cwd = self._command()
        cgroup = BotCgroup(MAX_PROCESSES)
        self.cgroup = cgroup if cgroup.dirs else None
        log = open(os.path.join(self.workdir, "bot.log"), "wb")  # noqa: SIM115
        try:
            self.proc = subprocess.Popen(  # noqa: S603
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                cwd=cwd,
                env=env,
                start_new_session=True,
                preexec_fn=_limits_in_child(cgroup, self.memory_mb),  # noqa: PLW1509
                close_fds=True,
            )
        except OSError as exc:
            log.close()
            self.close()
            raise StartError(f"bot {self.spec.name}: cannot start {argv[0]}: {exc.strerror}") from None
        finally:
            log.close()
        self.pid = self.proc.pid
        self.keep = (self.pid,)
        self.cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
        self.channel = PipeChannel(self.proc.stdin, self.proc.stdout)  # type: ignore[arg-type]

    def _find_first_process(self) -> None:
        """The sandboxed bot's first process: PID 2 of its namespace (bwrap, then bwrap's reaper)."""
        assert self.proc is not None
        outer = self.proc.pid
        pids = self.cgroup.pids() if self.cgroup is not None else _descendants(outer)
        for p in pids:
            try:
                with open(f"/proc/{p}/status", "rb") as f:
                    ns = next((line.split()[1:] for line in f if line.startswith(b"NSpid:")), [])
            except OSError:
                continue
            if len(ns) == 2 and ns[1] == b"2":
                fields = _stat_fields(p)
                reaper = int(fields[1]) if fields else 0
                self.pid, self.keep, self._cpu_last = p, (outer, reaper, p), None
                if self.cgroup is not None:
                    self.cgroup.unfreeze_always((outer, reaper))
                return
        self.keep = tuple(pids) or (outer,)  # no NSpid (old kernel): spare what runs at the start

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
        """Signal the bot's process group (and bwrap's: in the sandbox the bot leads a session)."""
        if self.proc is None:
            return
        for group in dict.fromkeys((self.proc.pid, self.pid)):
            try:
                os.killpg(group, sig)
            except (ProcessLookupError, PermissionError):
                pass

    def pause(self) -> None:
        """Stop the bot: its whole cgroup (freezer), else its process group (SIGSTOP)."""
        if not self.stopped and self.alive:
            if self.cgroup is not None and self.cgroup.can_freeze:
                self.cgroup.freeze()
            else:
                self._signal(signal.SIGSTOP)
            self.stopped = True

    def resume(self) -> None:
        if self.stopped:
            if self.cgroup is not None and self.cgroup.can_freeze:
                self.cgroup.thaw()
            else:
                self._signal(signal.SIGCONT)
            self.stopped = False

    def kill(self) -> None:
        """Kill the bot and everything it started."""
        if self.proc is None:
            return
        self.dead = True
        if self.cgroup is not None:
            self.cgroup.kill()
        else:
            for p in _descendants(self.proc.pid):
                try:
                    os.kill(p, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        self._signal(signal.SIGKILL)
        self._signal(signal.SIGCONT)
        self.stopped = False
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        """Ask the bot to quit, then make sure it and its children are gone; remove its directory."""
        if self.proc is not None and self.alive:
            try:
                self.resume()
                self.send(Quit())
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
        if self.cgroup is not None:
            self.cgroup.remove()
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
        if self.sandboxed and code > 128:  # bwrap exits with 128 + the signal that killed the bot
            code = 128 - code
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

    def _cpu(self) -> float | None:
        """CPU seconds of the bot so far: its whole cgroup, else its first process."""
        if self.cgroup is not None:
            c = self.cgroup.cpu_seconds()
            if c is not None:
                return c
        return _cpu_seconds(self.pid)

    # -- calls ---------------------------------------------------------------------------------------
    def send(self, msg: Message) -> bool:
        """Send a message that needs no answer; False if the bot is gone."""
        return self.alive and self.channel is not None and self.channel.write(msg)

    def call(self, msg: Message, time_left: float | None, *, wall: float | None = None,
             pause: bool = True, before_wait: Callable[[], None] | None = None,
             idle: Callable[[], None] | None = None) -> Reply:
        """Send ``msg`` and wait for one answer within ``time_left`` seconds of CPU time.

        ``before_wait`` runs after the message is sent (the referee's own bookkeeping overlaps the
        bot's thinking).  The bot is paused again afterwards unless ``pause`` is False.  ``idle``
        (pausing the opponent, which has just answered) runs as soon as this call lasts longer than
        PAUSE_GRACE: two freezes per move would cost more than most moves of fast bots.

        The wall-clock guard (``wall``, else WALL_FACTOR × time + WALL_SLACK) counts only the time
        the bot did not spend waiting for a CPU, and is never shorter than itself × the load factor.
        """
        assert self.proc is not None
        self.resume()
        c0 = self._cpu_last if self._cpu_last is not None else self._cpu()
        if c0 is None or not self.alive:
            if before_wait:
                before_wait()
            return Reply(msg=None, failure="crash", detail=self.exit_description())
        budget = None if time_left is None else max(time_left, 0.0)
        if budget is not None:
            self._arm_cpu_limit(c0, budget)
        clock = CallClock(self, c0, budget, wall)
        assert self.channel is not None
        extra = self.channel.unsolicited()
        if extra:
            if before_wait:
                before_wait()
            self.kill()
            return Reply(msg=None, failure="protocol", detail=f"wrote {extra!r} without being asked")
        sent = self.send(msg)
        if before_wait:
            before_wait()
        if not sent:
            return Reply(msg=None, wall=time.perf_counter() - clock.t0, failure="crash",
                         detail=self.exit_description())
        result = self._await_answer(clock, idle)
        self._settle(result, clock)
        if pause and not self.dead:
            self.pause()
        return result

    def _arm_cpu_limit(self, c0: float, budget: float) -> None:
        """The kernel's backstop: RLIMIT_CPU of the first process at its CPU time so far (at most
        the tree's, c0) + the budget + a margin."""
        soft = int(c0 + budget + 2.0) + 1
        hard = self.cpu_hard
        if hard != resource.RLIM_INFINITY and soft > hard:
            soft = hard
        if soft != self._cpu_soft:
            try:
                resource.prlimit(self.pid, resource.RLIMIT_CPU, (soft, hard))
                self._cpu_soft = soft
            except (OSError, ValueError):
                pass

    def _await_answer(self, clock: CallClock, idle: Callable[[], None] | None) -> Reply:
        """Read the bot's output until a message, a failure, or a limit of ``clock``."""
        channel = self.channel
        assert channel is not None
        while True:
            reply = channel.next_message()
            if reply is not None:
                return reply
            now = time.perf_counter()
            reply, wait = clock.check(now)
            if reply is not None:
                return reply
            if idle is not None:
                if now - clock.t0 >= PAUSE_GRACE:
                    idle()
                    idle = None
                else:
                    wait = min(wait, PAUSE_GRACE - (now - clock.t0))
            try:
                ready, _, _ = select.select([channel.fileno()], [], [], wait)
            except (OSError, ValueError):
                ready = [channel.fileno()]
            clock.polled = clock.polled or not ready
            if ready and not channel.receive():
                return Reply(msg=None, failure="crash")

    def _settle(self, result: Reply, clock: CallClock) -> None:
        """Fill in the call's CPU and wall time, and turn what they and the bot's exit show into the
        failure they are (a crash by SIGXCPU is a timeout; a late answer too)."""
        result.wall = time.perf_counter() - clock.t0
        c1 = self._cpu()
        self._cpu_last = c1
        proc_cpu = (c1 - clock.c0) if c1 is not None else result.cpu
        reported = getattr(result.msg, "cpu", None)
        if isinstance(reported, float) and reported >= 0 and proc_cpu <= reported + 0.03:
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
        elif clock.budget is not None and result.cpu > clock.budget:
            result.failure = "timeout"
            result.detail = f"used {result.cpu:.2f} s of CPU time (limit {clock.budget:.3g} s)"
        if not self.dead and isinstance(result.msg, Error):
            self.reap_strays()

    def reap_strays(self) -> int:
        """Kill every process the bot started (its first process stays); return how many."""
        if self.proc is None or self.dead:
            return 0
        if self.cgroup is not None:
            n = self.cgroup.kill(spare=self.keep)
            if self.stopped:
                self.cgroup.freeze()
            return n
        victims = [p for p in _descendants(self.proc.pid) if p not in self.keep]
        for p in victims:
            try:
                os.kill(p, signal.SIGKILL)
                os.kill(p, signal.SIGCONT)
            except (ProcessLookupError, PermissionError):
                pass
        return len(victims)
