"""What this machine gives a solve: its memory, read without importing numpy (``sylver solve``
states its default ``--memory`` in ``--help``, which must stay quick), memory sizes read and
written as ``--memory`` takes them (:func:`parse_memory`, :func:`format_memory`), and the deadline
of a search's time limit (where the test suite plays a faster or slower machine: :data:`TIME_SCALE`).

>>> format_memory(3 << 29)
'1.5G'
>>> parse_memory("1.5G") == 3 << 29
True
"""

from __future__ import annotations

import os
import re

UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
"""The suffixes of a memory size (binary units)."""

MEMORY_SHARE = (3, 4)
"""The share of the machine's memory that ``sylver solve`` takes by default (``default_memory``)."""
SPARE_BYTES = 256 << 20
"""What ``default_memory`` leaves of the memory available when it starts (the same spare as the
solver's tables keep, ``sylver.solver.engine.SPARE_MEMORY``)."""
LEAST_DEFAULT = 256 << 20
"""The least default budget, however little memory is available (the solver's tables then stop at
what the machine can give; a g > 1 solve keeps half of it for its scans)."""
ROUND = 64 << 20
"""The default is a whole number of these (so that ``--help`` shows it in a few digits)."""
LEAST_MEMORY = 128 << 10
"""The least memory a solve accepts: the solver's smallest tables (``sylver.solver.engine.MIN_TABLE``
keys: the least P table, its filter and an N table twice its size)."""


def parse_memory(memory: str | int) -> int:
    """A memory size in bytes: an int (bytes) or text, a number with a K/M/G/T suffix (binary units,
    ``"4G"``, ``"512M"``, ``"1.5G"``; an ``iB``/``B`` after it is allowed), at least
    :data:`LEAST_MEMORY`.  The one reader of ``--memory`` (``cli.common.memory``) and of the
    library's ``memory=`` (``sylver solve`` without ``--memory`` takes :func:`default_memory`; the
    library's ``sylver.solver.solve`` keeps 1G).  Anything else is a one-line ValueError."""
    if isinstance(memory, bool):
        raise ValueError(f"invalid memory budget {memory!r}")
    if isinstance(memory, int):
        value = memory
    else:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*", str(memory), re.IGNORECASE)
        if not m:
            raise ValueError(f"invalid memory budget {memory!r}: use e.g. 512M or 4G")
        value = int(float(m.group(1)) * UNITS[m.group(2).upper()])
    if value < LEAST_MEMORY:
        raise ValueError(f"memory budget {memory!r} is too small: at least {format_memory(LEAST_MEMORY)}")
    return value


def format_memory(n: int) -> str:
    """Bytes -> ``"256K"``, ``"64M"``, ``"1.5G"`` (binary units, the form ``--memory`` accepts)."""
    for unit in "TGMK":
        size = UNITS[unit]
        if n >= size:
            return f"{n // size}{unit}" if n % size == 0 else f"{n / size:.1f}{unit}"
    return f"{n}B"


def _meminfo(field: str) -> int | None:
    """A field of ``/proc/meminfo`` in bytes (Linux); None when it cannot be read."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _cgroup_limit() -> int | None:
    """The memory limit of this process's cgroup (v2 ``memory.max``, v1 ``memory.limit_in_bytes``),
    None when there is none."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = [line.rstrip("\n").split(":", 2) for line in f]
    except OSError:
        return None
    for _id, controllers, path in (parts for parts in lines if len(parts) == 3):
        if controllers == "":
            file = f"/sys/fs/cgroup{path.rstrip('/')}/memory.max"
        elif "memory" in controllers.split(","):
            file = f"/sys/fs/cgroup/memory{path.rstrip('/')}/memory.limit_in_bytes"
        else:
            continue
        try:
            with open(file) as f:
                text = f.read().strip()
            if text != "max":
                return int(text)
        except (OSError, ValueError):
            pass
    return None


def available_memory() -> int | None:
    """Bytes of memory the machine can still give (Linux: ``MemAvailable``); None when unknown."""
    return _meminfo("MemAvailable")


def physical_memory() -> int | None:
    """The machine's memory in bytes (its RAM, or this process's cgroup limit when lower); None
    when unknown."""
    total = _meminfo("MemTotal")
    if total is None:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
            try:
                import psutil

                total = int(psutil.virtual_memory().total)
            except Exception:
                return None
    limit = _cgroup_limit()
    return min(total, limit) if limit is not None else total


def default_memory() -> int:
    """``sylver solve``'s default ``--memory``: ``MEMORY_SHARE`` (3/4) of the machine's memory
    (:func:`physical_memory`), at most what is available now less ``SPARE_BYTES``, at least
    ``LEAST_DEFAULT``; a whole number of ``ROUND`` (64 MiB).  1G when the machine does not say."""
    total = physical_memory()
    if total is None:
        return 1 << 30
    num, den = MEMORY_SHARE
    budget = total * num // den
    avail = available_memory()
    if avail is not None:
        budget = min(budget, avail - SPARE_BYTES)
    return max(budget // ROUND * ROUND, LEAST_DEFAULT)


def load_factor() -> float:
    """max(1, one-minute load average / usable cores): how much slower a busy machine runs a process
    (the arena's sandbox times bots by it; a bot sizes its solves by it)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    try:
        return max(1.0, os.getloadavg()[0] / max(1, cores))
    except OSError:
        return 1.0


TIME_SCALE = "SYLVER_TEST_TIME_SCALE"
"""The environment variable that multiplies every search time limit (:func:`deadline`): K > 1 plays
a machine K times faster (a search meant not to finish in time gets K times as long), K < 1 one K
times slower (``make test-fast-machine``, ``make test-slow-machine``: docs/design.md, testing)."""


def deadline(start: float, seconds: float | None) -> float | None:
    """The ``time.monotonic()`` at which a search given ``seconds`` from ``start`` stops (None: no
    limit): the one place where a search's time limit becomes a deadline, scaled by :data:`TIME_SCALE`."""
    return None if seconds is None else start + seconds * time_scale()


def time_scale() -> float:
    """:data:`TIME_SCALE`'s value (1 when unset)."""
    text = os.environ.get(TIME_SCALE, "")
    try:
        scale = float(text) if text else 1.0
    except ValueError:
        scale = 0.0
    if not 0.0 < scale < float("inf"):
        raise ValueError(f"{TIME_SCALE}={text!r}: a positive number (e.g. 20 or 0.05)")
    return scale


__all__ = ["TIME_SCALE", "available_memory", "deadline", "default_memory", "format_memory", "load_factor",
           "parse_memory", "physical_memory", "time_scale"]
