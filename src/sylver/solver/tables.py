"""Zeroed arrays for the hash tables of the solver: the transposition tables
(:class:`sylver.solver.engine.Engine`) and the endgame table (:mod:`sylver.solver.endgame`)."""

from __future__ import annotations

import mmap
import sys

import numpy as np

HUGE_PAGE = 1 << 21
"""Tables of at least this many bytes are mapped on 2 MiB pages where the kernel allows it
(transparent huge pages, ``madvise``): a probe at a random slot then rarely misses the TLB."""


MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000 if sys.platform.startswith("linux") else 0)
"""Reserve address space without committing memory (Python < 3.13 does not name the flag)."""


def table_zeros(n: int, dtype: type) -> np.ndarray:
    """A zeroed array of n items for a transposition table, on huge pages when large enough.  The
    memory is the operating system's zero pages until written: a table reserved at its cap costs
    only the pages its used part touched (``Engine``).  Raises MemoryError, as ``np.zeros`` does,
    when the address space cannot be had (a sandbox's ``RLIMIT_AS``, an arena bot's 4 GiB)."""
    nbytes = n * np.dtype(dtype).itemsize
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < HUGE_PAGE or advice is None:
        return np.zeros(n, dtype=dtype)
    # private: the transparent huge pages of shared anonymous memory (shmem) are off on most
    # systems (``shmem_enabled`` = never), so a shared mapping would stay on 4 KiB pages
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE
    try:
        area = mmap.mmap(-1, nbytes + HUGE_PAGE, flags=flags)  # zeroed
    except OSError as exc:  # ENOMEM: beyond the address space this process may have (RLIMIT_AS)
        raise MemoryError(f"cannot reserve {nbytes:,} bytes for a table: {exc.strerror}") from None
    try:
        area.madvise(advice)
    except OSError:  # pragma: no cover - kernels without THP
        pass
    raw = np.frombuffer(area, dtype=np.uint8)
    start = -raw.ctypes.data % HUGE_PAGE  # a 2 MiB boundary, so whole huge pages cover the table
    return raw[start : start + nbytes].view(dtype)

