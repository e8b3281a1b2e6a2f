"""Building proof certificates (the format and the checker are in :mod:`sylver.proof.certificate`).

A P-position is proved by a winning reply to each of its moves, recursively; a move into an ender
with t > 1 is refuted by the strategy-stealing theorem instead (sec. 1).  Replies are found in the
engine's transposition table when it holds them (it does right after a solve), else by solving the
candidate positions.  Each P-position is written once, however many paths reach it.

The builder is streamed: a P-position (a *node*) is handed on — written to the file, by
:func:`stream_certificate` — as soon as its replies are found, and forgotten.  What it keeps is the
stack of nodes still to prove and the set of the positions met (:class:`SeenSet`: 16 bytes a slot,
about 23–46 bytes a position), so a proof of tens of millions of nodes fits beside the solve's
tables (the dictionary of nodes that it replaces took about a kilobyte a node).  The stack is one
array, and one compiled call (:func:`~sylver.solver.kernels.prove_nodes`) proves a batch of nodes —
replies, positions met, generators, the JSON lines — leaving to Python only the rare moves whose
reply must be searched (2 to 3.6 times the nodes a CPU second of the node-at-a-time builder:
docs/engine.md, "Building speed").  Its kernels are in :mod:`sylver.solver.kernels` with the
solver's, compiled ahead of time by ``sylver warmup``.  A build that is cut (its time limit,
Ctrl-C, kill -9) leaves its partial file, and the next build of the same answer goes on from it
(:func:`stream_certificate`; the kept lines are read by this module's own kernels, JIT-compiled:
``_kept_nodes``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import functools
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from sylver import jit
from sylver.machine import deadline as machine_deadline
from sylver.position import Outcome, Position
from sylver.proof.certificate import FORMAT, NODES_OPEN, VERSION
from sylver.solution import Solution
from sylver.solver import kernels as _k
from sylver.solver.engine import (
    ENGINE,
    SearchTimeout,
    TableThrash,
    child_gaps,
    memory_budget_error,
    root_gaps,
)
from sylver.solver.kernels import (
    BATCH_BYTES,
    BATCH_COUNT,
    BATCH_DONE,
    BATCH_MOVES,
    BATCH_SIZE,
    BATCH_SP,
    BATCH_TODO,
    STOP_FLUSH,
    STOP_GROW_SEEN,
    STOP_GROW_STACK,
    STOP_SEARCH,
    is_terminal,
    play_into,
    seen_put_key,
)
from sylver.theory import short_moves

if TYPE_CHECKING:
    from sylver.store.results import Store


class SeenSet:
    """The positions (gap sets, of any number of words) that a proof has met: an open-addressing
    table of 16-byte keys, kept at most 3/4 full (so 21–43 bytes a position; its kernels,
    ``kernels.seen_add`` and ``kernels.seen_rehash``, are always compiled, never run as Python: they
    rely on uint64 arithmetic that wraps).  A position has one key whatever the width of its array,
    so one set serves the gcd-1 proofs of positions of several sizes (the sub-proofs of a g > 1
    certificate, :class:`_GcdBuilder`).

    With t < 128 a key is the gap set itself: exact.  Beyond, it is a 128-bit digest, two
    independent 64-bit hashes; two positions of a proof share one with probability about
    n²/2**129 (10**-21 for n = 10**9).  Then the second would be taken for met and left out of the
    certificate, and the checker, which compares exact gap sets, would refuse the certificate: a
    collision can cost a certificate, never make a false one pass.  Exact keys of W words would
    take W/2 times the memory (2.5 times at t = 289)."""

    def __init__(self, slots: int = 1 << 16) -> None:
        self.slots = np.zeros(2 * slots, dtype=np.uint64)
        self.count = 0

    def add(self, keys: np.ndarray, fresh: np.ndarray) -> None:
        """Add the positions ``keys[k*W:(k+1)*W]`` (W = ``len(keys) // len(fresh)``) with
        ``fresh[k]`` set; clear ``fresh[k]`` for those met before."""
        self.reserve(fresh.shape[0])
        if fresh.shape[0]:
            self.count += int(_k.seen_add(self.slots, keys, keys.shape[0] // fresh.shape[0], fresh))

    def reserve(self, more: int) -> None:
        """Grow the table (four times) if ``more`` positions added would fill it beyond 3/4."""
        cap = self.slots.shape[0] // 2
        if 4 * (self.count + more) > 3 * cap:
            grown = np.zeros(4 * cap, dtype=np.uint64)
            _k.seen_rehash.unchecked(self.slots, grown)
            self.slots = grown

    def met(self, gaps: np.ndarray) -> bool:
        """Add the one position ``gaps``; whether it was met before."""
        fresh = np.ones(1, dtype=np.bool_)
        self.add(gaps, fresh)
        return not bool(fresh[0])

    def nbytes(self) -> int:
        return int(self.slots.nbytes)


Emit = Callable[[str, int], None]
"""Where a builder's nodes go: ``emit(lines, n)``, n node lines ``[[generators],[replies]]``
separated by ",\n"."""
NODES_PER_LOOK = 256
"""Nodes a certificate builder finishes between two looks at its deadline."""


class _Builder:
    """Proves P-positions: takes them in (:meth:`add`), then (:meth:`run`) finds a reply to each of
    their moves and hands the finished nodes' lines to ``emit``, a batch at a time.  The positions
    still to prove are a stack of W-word rows in one array."""

    def __init__(self, emit: Emit, deadline: float | None, tick: Callable[[int], None] | None,
                 seen: SeenSet, W: int) -> None:
        self.seen = seen
        self.W = W
        self.stack = np.zeros(1024 * W, dtype=np.uint64)
        self.state = np.zeros(BATCH_SIZE, dtype=np.int64)
        self.emit = emit
        self.nodes = 0
        self.deadline = deadline
        self.tick = tick
        self.found = np.zeros(64 * W, dtype=np.int64)
        self.after = np.zeros(64 * W * W, dtype=np.uint64)
        self.node = np.zeros(W, dtype=np.uint64)
        self.out = np.zeros(1 << 20, dtype=np.uint8)

    def refute(self, gaps: np.ndarray, x: int) -> int:
        """A reply to x in ``gaps`` that wins (0 when the position after x is an ender with t > 1)."""
        child = child_gaps(gaps, x)
        W = child.shape[0]
        t = int(_k.top_bit(child, 0, W))
        if t > 1 and _k.is_ender(child, 0, W, t):
            return 0
        buf = np.zeros(2 * W, dtype=np.uint64)
        buf[:W] = child
        egtab, egfilt, efshift, egg = ENGINE.endgame()
        y = int(_k.first_p_reply(buf, W, (ENGINE.ptable, ENGINE.pfilt), ENGINE.fshift, (egtab, egfilt), efshift, egg))
        if y == 0:
            for cand in _k.gap_list(child, 0, W):
                if cand >= 2 and ENGINE.outcome(child_gaps(child, int(cand)), deadline=self.deadline) is Outcome.P:
                    y = int(cand)
                    break
        if y == 0:  # pragma: no cover - would mean the solver's answer was wrong
            raise RuntimeError(f"no winning reply to {x}: the position is not P")
        self.add(child_gaps(child, y))
        return y

    def add(self, gaps: np.ndarray) -> None:
        """Take in the P-position ``gaps`` as a node, unless it was met before or is terminal."""
        if not self.seen.met(gaps) and not _k.is_terminal.unchecked(gaps, 0, gaps.shape[0]):
            self.push(gaps)

    def push(self, gaps: np.ndarray) -> None:
        sp, W = int(self.state[BATCH_SP]), self.W
        if (sp + 1) * W > self.stack.shape[0]:
            self.stack = np.concatenate([self.stack, np.zeros_like(self.stack)])
        self.stack[sp * W : (sp + 1) * W] = gaps
        self.state[BATCH_SP] = sp + 1

    def run(self) -> None:
        """Prove the nodes taken in, and those their replies lead to: :func:`~sylver.solver.kernels.prove_nodes` in batches
        that end at each multiple of ``NODES_PER_LOOK`` nodes (a look at the clock: most replies
        come from the table, with no search to look at it), at a node with a move whose reply must
        be searched (:meth:`finish`), or when an array must grow."""
        st = self.state
        while st[BATCH_SP]:
            st[BATCH_TODO] = NODES_PER_LOOK - self.nodes % NODES_PER_LOOK
            st[BATCH_COUNT] = self.seen.count
            egtab, egfilt, efshift, egg = ENGINE.endgame()
            tables = ((ENGINE.ptable, ENGINE.pfilt), ENGINE.fshift, (egtab, egfilt), efshift, egg)
            status = _k.prove_nodes(self.stack, st, self.seen.slots, tables, self.found, self.after, self.node, self.out)
            self.seen.count = int(st[BATCH_COUNT])
            done, n = int(st[BATCH_DONE]), int(st[BATCH_MOVES])
            if done:
                self.emit(self.out[: st[BATCH_BYTES]].tobytes().decode("ascii"), done)
                self.nodes += done
            if status == STOP_SEARCH:
                self.finish(self.node.copy(), self.found[:n].copy(), self.after[: n * self.W].copy())
                self.nodes += 1
            elif status == STOP_GROW_SEEN:
                self.seen.reserve(n)
            elif status == STOP_GROW_STACK:
                self.stack = np.concatenate([self.stack, np.zeros(max(self.stack.shape[0], n * self.W), np.uint64)])
            elif status == STOP_FLUSH and not done:
                self.out = np.zeros(2 * self.out.shape[0], dtype=np.uint8)
            if done or status == STOP_SEARCH:
                if self.tick is not None:
                    self.tick(self.nodes)
                if self.nodes % NODES_PER_LOOK == 0 and self.deadline is not None and time.monotonic() > self.deadline:
                    raise SearchTimeout

    def finish(self, gaps: np.ndarray, found: np.ndarray, after: np.ndarray) -> None:
        """Finish the node ``gaps`` whose replies :func:`~sylver.solver.kernels.node_replies` left some unknown (-1), as
        ``prove_nodes`` does the others: in the order of the moves, the positions met for the
        first time are taken in, and the moves without a known reply are searched (:meth:`refute`;
        each reply's position taken in as it is found)."""
        W = self.W
        fresh = found > 0
        self.seen.add(after, fresh)
        replies = found.tolist()
        moves = _k.gap_list.unchecked(gaps, 0, W)[1:].tolist()  # 1 is always a gap
        for k in np.flatnonzero(fresh | (found < 0)).tolist():
            if replies[k] > 0:
                if not _k.is_terminal.unchecked(after, k * W, W):
                    self.push(after[k * W : (k + 1) * W])
            else:
                replies[k] = self.refute(gaps, moves[k])
        self.emit(_dumps([_k.min_generators.unchecked(gaps, 0, W).tolist(), replies]), 1)


def _head(solution: Solution) -> dict[str, Any]:
    """The fields of the header of ``solution``'s certificate that its root's replies do not change."""
    if solution.outcome is None:
        raise ValueError(f"{solution.position.braces()}: no proven outcome to certify")
    return {
        "format": FORMAT,
        "version": VERSION,
        "position": list(solution.position.generators),
        "outcome": solution.outcome.value,
        "winning_moves": list(solution.winning_moves),
        "complete": solution.complete,
    }


def _root(solution: Solution, head: dict[str, Any], b: _Builder, gaps: np.ndarray) -> dict[str, Any]:
    """The header ``head`` with the root's replies (``root_replies``: -1 for a winning move, else a
    reply that wins, found by ``b``) when ``solution`` is complete; the positions they lead to (those
    of the winning moves only, when it is not) taken in by ``b``."""
    if not solution.complete:
        for w in solution.winning_moves:
            b.add(child_gaps(gaps, w))
        return head
    winning = set(solution.winning_moves)
    replies = []
    for x in _k.gap_list(gaps, 0, gaps.shape[0]):
        x = int(x)
        if x < 2:
            continue
        if x in winning:
            replies.append(-1)
            b.add(child_gaps(gaps, x))
        else:
            replies.append(b.refute(gaps, x))
    return {**head, "root_replies": replies}


def _build(solution: Solution, emit: Emit, begin: Callable[[dict[str, Any]], None],
           time_limit: float | None, tick: Callable[[int], None] | None, seen: SeenSet | None = None,
           memory: int | None = None, resume: Callable[[_Builder, np.ndarray], None] | None = None) -> int:
    """Build the certificate of ``solution``: ``begin(header)`` once the header (with the root's
    replies) is known, before any node; then ``emit(lines, n)`` for each batch of nodes, and
    ``tick(nodes so far)`` after it.  Returns the nodes.
    ``seen``: the positions proved already (by earlier proofs emitting to the same file), left out.
    ``memory``: the tables' budget in bytes (the solve's; a solution answered from the results store
    found the tables at whatever size they were); tables far too small for the proof's searches
    raise :class:`~sylver.errors.MemoryBudgetError`, as a solve's do.
    ``resume(builder, root gaps)``: instead of the root's replies, takes in the header and the nodes
    of a build that was cut (:func:`_resume`; the header is written already: no ``begin``)."""
    deadline = machine_deadline(time.monotonic(), time_limit)
    position: Position = solution.position
    head = _head(solution)
    gaps = root_gaps(position)
    b = _Builder(emit, deadline, tick, SeenSet() if seen is None else seen, W=gaps.shape[0])
    if resume is not None:
        resume(b, gaps)
    with ENGINE.lock:
        if memory is not None:
            ENGINE.set_memory(memory)
        try:
            if resume is None:
                begin(_root(solution, head, b, gaps))
            b.run()
        except SearchTimeout:
            raise TimeoutError("certificate not built within the time limit") from None
        except TableThrash as exc:
            budget = memory if memory is not None else ENGINE.table_bytes
            raise memory_budget_error(position, budget, exc.expanded, exc.overwrites) from None
    return b.nodes


def warmed(solution: Solution, memory: str | int | None = None, time_limit: float | None = None) -> float | None:
    """Search the position of ``solution`` again, without the results store, when its answer was
    read from there (``from_store``): such an answer comes with no tables, and the proof's searches
    would each start cold (a resumed build of {16,31,150} wrote 0.87 MB of certificate in 2 minutes
    that way, 60-130 MB a minute warm).  The new search must give the same answer: a store that disagrees is
    damaged (:class:`~sylver.errors.SelfCheckError`).  Returns what is left of ``time_limit``; a
    search that runs out of it raises :class:`TimeoutError` (Ctrl-C: :class:`KeyboardInterrupt`)."""
    if not solution.from_store:
        return time_limit
    from sylver.errors import SelfCheckError
    from sylver.solver import solve

    start = time.monotonic()
    try:
        fresh = solve(solution.position, first=not solution.complete, time_limit=time_limit,
                      memory="1G" if memory is None else memory)  # (solve's default)
    except TimeoutError:
        raise TimeoutError("certificate not built within the time limit (the answer was read from the results "
                           "store; searching the position again for the proof took longer)") from None
    if fresh.outcome != solution.outcome or solution.complete and sorted(fresh.winning_moves) != sorted(
            solution.winning_moves):  # (not complete: any winning move may be the one found)
        raise SelfCheckError(f"{solution.position.braces()}: the results store says {_answer(solution)}, a new "
                             f"search says {_answer(fresh)}: the store is damaged")
    return None if time_limit is None else max(time_limit - (time.monotonic() - start), 0.001)


def _answer(s: Solution) -> str:
    """``P``, or ``N (14, 16, 17 win)``."""
    outcome = s.outcome.value if s.outcome else "?"
    return f"{outcome} ({_moves(sorted(s.winning_moves))} win)" if s.winning_moves else outcome


def build_certificate(
    solution: Solution,
    *,
    time_limit: float | None = None,
    tick: Callable[[int], None] | None = None,
    memory: str | int | None = None,
) -> dict[str, Any]:
    """The certificate of ``solution`` (complete solutions prove every root move's value), in
    memory; :func:`stream_certificate` writes a large one to a file as it is built.  An answer
    read from the results store is searched again first (:func:`warmed`, within ``memory``)."""
    time_limit = warmed(solution, memory, time_limit)
    cert: dict[str, Any] = {}
    nodes: list[list[Any]] = []
    _build(solution, lambda lines, n: nodes.extend(json.loads(f"[{lines}]")), cert.update, time_limit, tick)
    cert["nodes"] = nodes
    return cert


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def stream_certificate(
    solution: Solution,
    path: str | Path,
    *,
    time_limit: float | None = None,
    tick: Callable[[int], None] | None = None,
    memory: int | None = None,
    resumed: Callable[[int], None] | None = None,
) -> tuple[int, int]:
    """Write the certificate of ``solution`` to ``path`` as it is built (the header, then each node
    as it is finished, one a line: the layout of :func:`write_certificate`); return the number of
    nodes and of bytes.  The file appears when it is complete: it is written beside it
    (``path`` + ``.part``) and renamed.  A build cut by its time limit (:class:`TimeoutError`) or by
    Ctrl-C leaves the partial file, as kill -9 does, and the next build of the same answer resumes
    from it (:func:`_resume`: its nodes are kept, not proved again; ``resumed(nodes kept)`` is
    called); a partial file of another answer, or unreadable, is replaced; any other failure
    removes it.  ``memory``: the tables' budget (bytes) for the proof's searches (:func:`_build`).
    An answer read from the results store is searched again first (:func:`warmed`), before the
    partial file is touched."""
    path = Path(path)
    time_limit = warmed(solution, memory, time_limit)
    part = part_path(path)
    cut = _cut(part, _head(solution))

    def build(cut: _Cut | None) -> tuple[int, int]:
        with through_part(path, keep=(TimeoutError, KeyboardInterrupt),
                          resume_at=None if cut is None else cut.end) as fh:
            lines = NodeLines(fh)

            def begin(head: dict[str, Any]) -> None:
                fh.write(_dumps(head)[:-1] + ',"nodes":[\n')

            def resume(b: _Builder, gaps: np.ndarray) -> None:
                assert cut is not None
                _resume(part, cut, b, gaps)
                lines.count = b.nodes
                if resumed is not None:
                    resumed(b.nodes)

            try:
                nodes = _build(solution, lines.lines, begin, time_limit, tick, memory=memory,
                               resume=None if cut is None else resume)
            except TimeoutError as exc:
                why = str(exc) or "certificate not built"
                raise TimeoutError(f"{why} ({part} kept: building it again resumes from it)") from None
            fh.write("\n]}\n")
            size = fh.tell()
        return nodes, size

    if cut is not None:
        try:
            return build(cut)
        except _Unreadable:  # the partial file is removed: built again from nothing
            pass
    return build(None)


@dataclass(frozen=True)
class _Cut:
    """What the partial file of a cut build keeps: its header (the same answer's) and its node lines
    from byte ``start`` (after the header's line) to byte ``end`` (the end of the last node line
    but one: the last may be cut short)."""

    head: dict[str, Any]
    start: int
    end: int


class _Unreadable(ValueError):
    """A partial certificate file whose node lines cannot be resumed from."""


def _cut(part: Path, head: dict[str, Any]) -> _Cut | None:
    """The kept part of the partial certificate file ``part`` when its header has the fields
    ``head`` (the same position, outcome, winning moves and completeness); None when there is no
    such file, or it holds another answer or cannot be read."""
    opener = NODES_OPEN.encode() + b"\n"
    try:
        with open(part, "rb") as fh:
            first = fh.readline(1 << 24)
            start = fh.tell()
            old = json.loads(first[: -len(opener)] + b"}") if first.endswith(opener) else None
            if not isinstance(old, dict) or any(old.get(k) != v for k, v in head.items()):
                return None
            pos = fh.seek(0, os.SEEK_END)
            while pos > start:  # back to the last ",\n" (a byte of overlap: one that spans two blocks)
                step = min(1 << 20, pos - start)
                fh.seek(pos - step)
                i = fh.read(step + 1).rfind(b",\n")
                if i >= 0:
                    return _Cut(old, start, pos - step + i)
                pos -= step
            return _Cut(old, start, start)
    except (OSError, ValueError):
        return None


def _resume(part: Path, cut: _Cut, b: _Builder, gaps: np.ndarray) -> None:
    """Set up the builder ``b`` (root ``gaps``) to go on with the build that was cut leaving ``part``
    (``cut``): its kept nodes are met (and counted: ``b.nodes``), then the positions reached from its
    header and from its kept nodes (a move, then its reply) that are neither {2,3} nor kept nodes are
    taken in: those the cut build still had to prove.  Raises :class:`_Unreadable` when its lines
    are not the nodes of that root."""
    b.nodes = _kept_lines(part, cut, b, reach=False)
    head, W = cut.head, gaps.shape[0]
    if not head["complete"]:
        for w in head["winning_moves"]:
            b.add(child_gaps(gaps, w))
    else:
        moves = [int(x) for x in _k.gap_list(gaps, 0, W) if x >= 2]
        replies = head.get("root_replies")
        if not isinstance(replies, list) or len(replies) != len(moves):
            raise _Unreadable(f"{part}: its root replies are not those of its position")
        for x, y in zip(moves, replies, strict=True):
            if y == -1:
                b.add(child_gaps(gaps, x))
            elif type(y) is int and 2 <= y < 64 * W and int(child_gaps(gaps, x)[y >> 6]) >> (y & 63) & 1:
                b.add(child_gaps(child_gaps(gaps, x), y))
            elif y != 0:
                raise _Unreadable(f"{part}: {y} is not a reply to {x}")
    _kept_lines(part, cut, b, reach=True)


def _kept_lines(part: Path, cut: _Cut, b: _Builder, *, reach: bool) -> int:
    """Read the kept node lines of ``part`` (``cut``) a block at a time into ``b`` (:func:`_kept_nodes`:
    their positions met, or with ``reach`` the positions they reach taken in); how many."""
    state = np.zeros(KEPT_SIZE, dtype=np.int64)
    rest, left, nodes = b"", cut.end - cut.start, 0
    with open(part, "rb") as fh:
        fh.seek(cut.start)
        while left > 0 or rest:
            block = fh.read(min(1 << 24, left))
            if left > 0 and not block:
                raise _Unreadable(f"{part} was cut short while being read")
            left -= len(block)
            text = rest + block
            split = text.rfind(b",\n") + 2 if left > 0 else len(text)  # whole lines (1: none)
            split = 0 if split == 1 else split
            rest = text[split:]
            state[:] = 0
            while split:
                state[KEPT_SP], state[KEPT_COUNT] = b.state[BATCH_SP], b.seen.count
                status = _kept_nodes(np.frombuffer(text, dtype=np.uint8, count=split), b.W, reach,
                                     b.seen.slots, b.stack, state)
                b.state[BATCH_SP], b.seen.count = state[KEPT_SP], int(state[KEPT_COUNT])
                if status == KEPT_DONE:
                    break
                if status == KEPT_GROW_SEEN:
                    b.seen.reserve(64 * b.W)
                elif status == KEPT_GROW_STACK:
                    b.stack = np.concatenate([b.stack, np.zeros(max(b.stack.shape[0], 64 * b.W * b.W), np.uint64)])
                else:
                    raise _Unreadable(f"{part}: a node line near byte {cut.start + int(state[KEPT_AT]):,} "
                                      "is not a node of this certificate")
            nodes += int(state[KEPT_NODES])
    return nodes


# the state of ``_kept_nodes``, in an int64 array shared with ``_kept_lines``: the byte it is at,
# the builder's stack pointer and seen count, the lines read
KEPT_AT, KEPT_SP, KEPT_COUNT, KEPT_NODES = range(4)
KEPT_SIZE = 4
# why ``_kept_nodes`` stopped
KEPT_DONE, KEPT_GROW_SEEN, KEPT_GROW_STACK, KEPT_MALFORMED = range(4)


@jit.njit(interpret=False, cache=True)
def _read_list(text, i, xs):  # pragma: no cover - compiled
    """Read the JSON list of integers >= 0 at ``text[i:]`` into ``xs``: its length and the index
    after it (-1 and where it failed: no such list, or longer than ``xs``)."""
    n = text.shape[0]
    if i >= n or text[i] != 91:  # [
        return -1, i
    i += 1
    if i < n and text[i] == 93:  # ]
        return 0, i + 1
    k = 0
    while True:
        v = -1
        while i < n and 48 <= text[i] <= 57 and v < 1 << 40:
            v = (0 if v < 0 else 10 * v) + np.int64(text[i]) - 48
            i += 1
        if v < 0 or k >= xs.shape[0] or i >= n:
            return -1, i
        xs[k] = v
        k += 1
        if text[i] == 93:
            return k, i + 1
        if text[i] != 44:  # ,
            return -1, i
        i += 1


@jit.njit(interpret=False, cache=True)
def _node_gaps(bits, gens, ng, W):  # pragma: no cover - compiled
    """Write to ``bits[0:W]`` the gap set of the position with the generators ``gens[:ng]``: from
    every number but 0 a gap, each generator named in turn; False when one is not a gap then."""
    for w in range(W):
        bits[W + w] = ~np.uint64(0)
    bits[W] ^= np.uint64(1)
    src, dst = W, 0
    for k in range(ng):
        g = gens[k]
        if g < 2 or g >= 64 * W or (bits[src + (g >> 6)] >> np.uint64(g & 63)) & np.uint64(1) == 0:
            return False
        play_into(bits, src, dst, W, g)
        src, dst = dst, src
    if src != 0:
        bits[0:W] = bits[W : 2 * W]
    return True


@jit.njit(interpret=False, cache=True)
def _reach(bits, replies, nr, W, slots, stack, sp):  # pragma: no cover - compiled
    """Add to the seen set ``slots`` the positions reached from the node ``bits[0:W]`` by each move
    x >= 2 (increasing) and its reply ``replies[k]`` (0: none, an ender), and push on ``stack``
    (``sp`` rows of W words) those met for the first time but {2,3}.  The new sp and the number of
    positions added (-1: the replies are not those of the node's moves)."""
    added = 0
    k = 0
    for x in range(2, 64 * W):
        if (bits[x >> 6] >> np.uint64(x & 63)) & np.uint64(1) == 0:
            continue
        if k >= nr:
            return sp, -1
        y = replies[k]
        k += 1
        if y == 0:
            continue
        play_into(bits, 0, W, W, x)
        if y < 2 or y >= 64 * W or (bits[W + (y >> 6)] >> np.uint64(y & 63)) & np.uint64(1) == 0:
            return sp, -1
        play_into(bits, W, 2 * W, W, y)
        if seen_put_key(slots, bits, 2 * W, W):
            added += 1
            if not is_terminal(bits, 2 * W, W):
                stack[sp * W : (sp + 1) * W] = bits[2 * W : 3 * W]
                sp += 1
    return sp, added if k == nr else -1


@jit.njit(interpret=False, cache=True)
def _kept_nodes(text, W, reach, slots, stack, state):  # pragma: no cover - compiled
    """Read the node lines ``[[generators],[replies]]`` of ``text`` (separated by ",\\n") from byte
    ``state[KEPT_AT]``: add each node's position (W words) to the seen set ``slots``, or, with
    ``reach``, the positions it reaches (:func:`_reach`, pushed on ``stack``: ``state[KEPT_SP]``
    rows); ``state[KEPT_COUNT]``: the positions in ``slots``; ``state[KEPT_NODES]``: the lines read.
    Returns why it stopped: the text is read (``KEPT_DONE``); the seen set or the stack must grow
    before the line at ``state[KEPT_AT]`` (``KEPT_GROW_SEEN``, ``KEPT_GROW_STACK``); or that line
    is not a node (``KEPT_MALFORMED``)."""
    n = text.shape[0]
    i, sp, count = state[KEPT_AT], state[KEPT_SP], state[KEPT_COUNT]
    bits = np.zeros(3 * W, dtype=np.uint64)  # the node, after a move, after its reply
    gens = np.zeros(64 * W, dtype=np.int64)
    replies = np.zeros(64 * W, dtype=np.int64)
    status = KEPT_DONE
    while i < n:
        ng, j = _read_list(text, i + 1, gens)
        nr = -1
        if text[i] == 91 and ng > 0 and j < n and text[j] == 44:
            nr, j = _read_list(text, j + 1, replies)
        if nr < 0 or j >= n or text[j] != 93 or not (
                j + 1 == n or (j + 2 < n and text[j + 1] == 44 and text[j + 2] == 10)):
            status = KEPT_MALFORMED
            break
        if 4 * (count + nr + 1) > 3 * (slots.shape[0] // 2):
            status = KEPT_GROW_SEEN
            break
        if (sp + nr) * W > stack.shape[0]:
            status = KEPT_GROW_STACK
            break
        if not _node_gaps(bits, gens, ng, W):
            status = KEPT_MALFORMED
            break
        added = 0
        if reach:
            sp, added = _reach(bits, replies, nr, W, slots, stack, sp)
        elif seen_put_key(slots, bits, 0, W):
            added = 1
        if added < 0:
            status = KEPT_MALFORMED
            break
        count += added
        state[KEPT_NODES] += 1
        i = j + 1 if j + 1 == n else j + 3
    state[KEPT_AT], state[KEPT_SP], state[KEPT_COUNT] = i, sp, count
    return status


def part_path(path: Path, what: str = "part") -> Path:
    """Where a certificate for ``path`` is written until it is complete (``FILE.part``; its gcd-1
    nodes, while the claims of a g > 1 certificate are still being found: ``FILE.nodes.part``)."""
    return path.with_name(f"{path.name}.{what}" if what == "part" else f"{path.name}.{what}.part")


@contextlib.contextmanager
def claimed(part: Path, binary: bool = False, resume_at: int | None = None) -> Iterator[IO[Any]]:
    """``part`` opened for writing and held by this process alone while the block runs (an
    exclusive lock, released when it closes): a second build of the same certificate fails at once
    with ``OSError`` (EBUSY, "another build is writing it") and leaves the file as it is, instead
    of both writing into it.  The file is kept to ``resume_at`` bytes and appended to, or written
    anew."""
    fd = os.open(part, os.O_WRONLY | os.O_CREAT, 0o644)  # not truncated before the lock is held
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise OSError(errno.EBUSY, f"another build is writing {part} now") from None
    except OSError:  # a file system without locks (some network ones): written unguarded, as before
        pass
    try:
        os.ftruncate(fd, resume_at or 0)
        os.lseek(fd, 0, os.SEEK_END)
    except BaseException:
        os.close(fd)
        raise
    with open(fd, "wb") if binary else open(fd, "w", encoding="utf-8", newline="\n") as fh:
        yield fh


@contextlib.contextmanager
def through_part(path: Path, binary: bool = False, *, keep: tuple[type[BaseException], ...] = (),
                 resume_at: int | None = None) -> Iterator[IO[Any]]:
    """A file opened for writing ``path``: it is ``FILE.part`` (:func:`part_path`, held by this
    build alone: :func:`claimed`) while the block runs, renamed to ``path`` when the block ends,
    removed when it raises (but one of ``keep``: a build cut by its time limit, or by Ctrl-C, is
    resumed from it), so that a certificate appears whole or not at all (kill -9 leaves only a
    ``.part``).  ``resume_at``: the ``.part`` is kept to that many bytes and appended to, not
    written anew."""
    part = part_path(path)
    with claimed(part, binary, resume_at) as fh:
        try:
            yield fh
            fh.flush()
        except keep:
            raise
        except BaseException:
            with contextlib.suppress(OSError):
                part.unlink()
            raise
        os.replace(part, path)


class NodeLines:
    """The items of a certificate's list written to ``fh`` a line at a time (a comma after each but
    the last), each once when keyed (:meth:`once`)."""

    def __init__(self, fh: Any) -> None:
        self.fh = fh
        self.count = 0
        self.keys: SeenSet | None = None

    def write(self, text: str) -> None:
        self.lines(text, 1)

    def lines(self, text: str, n: int) -> None:
        """Write ``text``, n items separated by ",\\n" (a builder's batch, :data:`Emit`)."""
        self.fh.write(",\n" + text if self.count else text)
        self.count += n

    def node(self, node: list[Any]) -> None:
        self.write(_dumps(node))

    def once(self, text: str) -> bool:
        """Write the node line ``text`` (``[[generators],[replies]]``) unless a node with the same
        generators was written by :meth:`once` before (a 128-bit digest of them, in a
        :class:`SeenSet`: a collision would leave out a node, which the checker then misses, never
        a false proof); whether it was written."""
        if self.keys is None:
            self.keys = SeenSet()
        digest = hashlib.blake2b(text[: text.index("]") + 1].encode(), digest_size=16).digest()
        key = np.frombuffer(digest, dtype=np.uint64).copy()
        key[0] |= np.uint64(1)  # never 0 (the empty slot)
        if self.keys.met(key):
            return False
        self.write(text)
        return True


def write_certificate(cert: dict[str, Any], path: str | Path) -> int:
    """Write ``cert`` compactly (one node per line); return the number of bytes written."""
    head = {k: v for k, v in cert.items() if k != "nodes"}
    parts = [_dumps(head)[:-1], ',"nodes":[\n']
    parts.append(",\n".join(_dumps(n) for n in cert["nodes"]))
    parts.append("\n]}\n")
    text = "".join(parts)
    Path(path).write_text(text, encoding="utf-8")
    return len(text.encode())


__all__ = ["Outcome", "SeenSet", "NodeLines", "build_certificate", "claimed", "part_path", "through_part", "stream_certificate", "write_certificate"]


# ------------------------------------------------------------------------------------------------
# Short positions with prime g (format "sylver-gcd-certificate")
# ------------------------------------------------------------------------------------------------


MAX_PROOF_T = 1024
"""The largest t of a gcd-1 position whose P-proof the certificate builder searches for.  Beyond it
(e.g. {12,32,62,82,2909}, t = 3,011 and 1,508 moves, the reply that wins in {12,32,62,82}) a proof by
search must refute every one of its moves, each leading to positions as large: out of reach; the
scan found it P through the shapes instead."""


def _moves(xs: tuple[int, ...] | list[int]) -> str:
    return ", ".join(map(str, xs))


class NotCertifiable(ValueError):
    """The answer rests on something a certificate cannot carry (a long position, a bounded search)."""


class _GcdBuilder:
    """Collects the short P claims and periodic records behind the answer of a position with g > 1,
    and writes the gcd-1 nodes of their sub-proofs to a file as they are found (one
    :class:`SeenSet` across the sub-proofs: a node once, and a sub-proof met before not searched
    again), never holding them.  A P-position whose proof the results store ``store`` keeps by
    reference (a large file, unchanged) is imported instead (:meth:`imported`)."""

    def __init__(self, nodes: NodeLines, deadline: float | None, *, memory: int | None = None,
                 odd_limit: int | None = None, replies: dict[Position, tuple[int, ...]] | None = None,
                 store: Store | None = None) -> None:
        self.replies = replies or {}
        """The winning moves that the solve found for positions with g > 1 (tried first)."""
        self.nodes = nodes
        """Where the gcd-1 nodes go as they are proved, a line each (a temporary file)."""
        self.seen = SeenSet()
        """The gcd-1 positions met by every sub-proof so far: each proved once, whichever needs it."""
        self.claims: dict[tuple[int, ...], list[Any]] = {}
        self.periodic: dict[tuple[int, ...], dict[str, Any]] = {}
        self.periodic_n: dict[tuple[int, ...], dict[str, Any]] = {}
        """Replay records of long N positions with g = 2 whose odd winning moves (``winning``) the
        proof uses (:meth:`prove_reply`)."""
        self.replays: dict[tuple[int, ...], tuple[dict[str, Any], Callable[[int], bool]]] = {}
        """The replay records made so far (a scan each), with whether the scan finds an odd move
        winning (:func:`_scan_hit`)."""
        self.deadline = deadline
        self.memory = memory
        self.odd_limit = odd_limit
        # the solves of positions with g > 1: the budget and the odd limit of the solve being proved
        self.options: dict[str, Any] = {k: v for k, v in (("memory", memory), ("odd_limit", odd_limit)) if v}
        # the gcd-1 solves: tables of half the budget, as in the solve (the other half is the graphs')
        self.tables: dict[str, Any] = {"memory": memory // 2} if memory else {}
        self.store = store
        self.imports: dict[tuple[int, ...], dict[str, Any]] = {}
        """The positions proved P by files of the store (the ``imports`` of the certificate)."""
        self.looked_up: set[tuple[int, ...]] = set()
        """The positions looked up in the store (each once: a stale file is hashed once)."""

    def imported(self, q: Position) -> bool:
        """Whether q is proved P by a certificate file that the results store keeps by reference
        (:meth:`~sylver.store.results.Store.reference`: larger than its inline size, unchanged),
        imported rather than proved and written again; a gcd-1 q is then met (:class:`SeenSet`),
        so that sub-proofs reaching it take it as proved, as the checker does."""
        key = q.generators
        if key in self.imports:
            return True
        if self.store is None or key in self.looked_up:
            return False
        self.looked_up.add(key)
        try:
            item = self.store.reference(q)
        except ValueError:  # the store cannot be read (a lost connection): the proof is built here
            item = None
        if item is None:
            return False
        self.imports[key] = item
        if q.gcd == 1:
            self.seen.met(root_gaps(q))
        return True

    def replay_record(self, q: Position) -> tuple[dict[str, Any], Any]:
        """The replay record of a long position with g = 2, but its even moves: the certified period
        and the base-region positions (each proved); and the scan that found them."""
        from sylver.solver.gcd import periodic_scan

        # the scans' half of the memory, as in solve; its graph and base region within the time too
        scan = periodic_scan(q, memory=self.memory // 2 if self.memory else 1 << 30, deadline=self.deadline,
                             until=self.odd_limit)
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise TimeoutError("certificate not built within the time limit")
        per = scan.state.period
        if per is None:
            raise NotCertifiable(f"no period was certified for {q.braces()}"
                                 + (f" up to {self.odd_limit:,}" if self.odd_limit else ""))
        base = []
        for bp, is_p in dict(scan.base_list).items():  # once each (the scan's list repeats some)
            if is_p:
                self.p_gcd1(bp)
                base.append([list(bp.generators), -1])
            else:
                base.append([list(bp.generators), self.refute(bp)])
        return {"position": list(q.generators), "start": per.start, "length": per.length, "base": base}, scan

    def periodic_claim(self, q: Position, even_winning: list[int], complete: bool = True,
                       opened: dict[int, str] | None = None) -> dict[str, Any]:
        """The replay record of a long position with g = 2 (:meth:`replay_record`) and a refutation
        of each even move (-1: a winning even move; None: left open, when not ``complete`` or,
        given ``opened``, when its refutation cannot be certified: the move and why go into
        ``opened``)."""
        record, _ = self.replay_record(q)
        h = Position(x // 2 for x in q.generators)
        replies: list[int | None] = []
        for y in h.semigroup.gaps():
            x = 2 * y
            if x in even_winning:
                self.prove_p(q.play(x))
                replies.append(-1)
            elif not complete and self.left_open(q.play(x)):
                replies.append(None)
            else:
                replies.append(self.refute_or_open(q.play(x), x, opened if complete or opened is not None else {}))
        return {**record, "even_replies": replies}

    def prove_reply(self, after: Position, r: int) -> None:
        """Add the proof that ``after`` + r is P: :meth:`prove_p`; or, when ``after`` is long with
        g = 2 and r is odd with ``after`` + r beyond the gcd-1 proofs that the builder searches for
        (t > :data:`MAX_PROOF_T`, e.g. {16,26,88,98} + 1611, t = 1,745), a replay record of
        ``after``'s scan that finds r winning (``periodic_n``; the checker replays it)."""
        q = after.play(r)
        if not (r % 2 and self.left_open(after, known=True) and q.frobenius_number > MAX_PROOF_T):
            self.prove_p(q)
            return
        key = after.generators
        if key not in self.replays:
            record, scan = self.replay_record(after)
            self.replays[key] = record, functools.partial(_scan_hit, frozenset(scan.hits(0)), scan.scanned_to,
                                                          record["start"], record["length"])
        record, hit = self.replays[key]
        if not hit(r):  # no record without a winning move (the checker refuses an empty one)
            raise NotCertifiable(f"the scan of {after.braces()} does not find {r} winning")
        rec = self.periodic_n.setdefault(key, {**record, "winning": []})
        if r not in rec["winning"]:
            rec["winning"].append(r)

    def refute_or_open(self, after: Position, x: int, opened: dict[int, str] | None) -> int | None:
        """:meth:`refute`; or, when that fails and ``opened`` is a dict, None: the move x is left
        open (x and why go into ``opened``)."""
        try:
            return self.refute(after)
        except NotCertifiable as exc:
            if opened is None:
                raise
            opened[x] = str(exc)
            return None

    def left_open(self, after: Position, known: bool = False) -> bool:
        """Whether the position after an even move is long (g = 2) and (unless ``known``) not proven
        N by the solve: a claim that is not complete (N with some winning moves, probably-P) may
        leave it open."""
        from sylver.theory import is_short

        return (after.gcd == 2 and len(after.generators) > 1 and not is_short(after)
                and (known or after not in self.replies))

    def stored_winning(self, after: Position) -> tuple[int, ...]:
        """The winning moves of ``after`` that the results store records (none when it records
        ``after`` as P or not at all, or cannot be read: the replies are then searched)."""
        if self.store is None:
            return ()
        try:
            rec = self.store.get(after)
        except ValueError:  # the store cannot be read (a lost connection)
            return ()
        return () if rec is None or rec.outcome is not Outcome.N else rec.winning_moves

    def _left(self) -> float | None:
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.001)

    def p_gcd1(self, q: Position) -> None:
        """Add the P-proof of the gcd-1 position q (a node and its subproofs)."""
        from sylver.solver import solve

        if q.is_terminal or self.imported(q):
            return
        if q.frobenius_number > MAX_PROOF_T:
            raise NotCertifiable(f"{q.braces()} has t = {q.frobenius_number:,}: beyond the gcd-1 proofs "
                                 f"that the builder searches for (t <= {MAX_PROOF_T:,})")
        if self.seen.met(root_gaps(q)):
            return
        sol = solve(q, time_limit=self._left(), **self.tables)
        if sol.outcome is not Outcome.P:
            raise RuntimeError(f"{q.braces()} is not P")

        def begin(head: dict[str, Any]) -> None:  # q itself is a node, its replies those of the root
            self.nodes.node([list(q.generators), head.get("root_replies", [])])

        _build(sol, self.nodes.lines, begin, self._left(), None, self.seen)

    def refute(self, after: Position) -> int:
        """A reply that wins in ``after`` (N), with its proof added; 0 for a theorem."""
        from sylver.solver import solve
        from sylver.theory import is_ender, is_prime

        g = after.gcd
        if g == 1 and after.frobenius_number > 1 and is_ender(after):
            return 0
        if g >= 5 and is_prime(g) and len(after.generators) > 1:
            return 0
        stored = self.stored_winning(after)
        imported = next((w for w in stored if self.imported(after.play(w))), 0)
        if imported:  # the store's proof of its position: neither solved nor written again
            return imported
        known = self.replies.get(after, ()) or stored
        if g == 1:
            r = known[0] if known else solve(after, first=True, time_limit=self._left(), **self.tables).winning_moves[0]
            self.p_gcd1(after.play(r))
            return r
        flaws = []
        for r in known:  # the solve's (or the store's) winning moves: no search again
            try:
                self.prove_reply(after, r)
            except NotCertifiable as exc:
                flaws.append(str(exc))
                continue
            return r
        if known:  # any other winning move would take a complete solve of ``after``
            raise NotCertifiable(f"the winning reply {_moves(known)} found in {after.braces()} cannot be "
                                 f"certified: {'; '.join(flaws)}")
        # the first winning move found is enough when its position can be proved P (e.g. not a
        # gcd-1 position too large for the checker); else every winning move is tried
        sol = solve(after, first=True, time_limit=self._left(), store=self.store, **self.options)
        if sol.outcome is Outcome.N:
            try:
                self.prove_reply(after, sol.winning_moves[0])
                return sol.winning_moves[0]
            except NotCertifiable:
                pass
        sol = solve(after, time_limit=self._left(), store=self.store, **self.options)
        if sol.outcome is not Outcome.N:
            raise NotCertifiable(f"{after.braces()} is not proved N")
        for r in sol.winning_moves:
            try:
                self.prove_reply(after, r)
            except NotCertifiable:
                continue
            return r
        raise NotCertifiable(f"no winning reply in {after.braces()} can be certified")

    def prove_p(self, q: Position) -> None:
        """Add the proof that q (gcd 1, or short with prime g) is P."""
        from sylver.theory import is_prime, is_short

        g = q.gcd
        if g == 1:
            self.p_gcd1(q)
            return
        if len(q.generators) == 1 and g >= 5 and is_prime(g):
            return
        if q.generators in self.claims or q.generators in self.periodic or self.imported(q):
            return
        if g == 2 and not is_short(q):
            self.periodic[q.generators] = self.periodic_claim(q, [])
            return
        if not is_short(q):
            raise NotCertifiable(f"{q.braces()} is long with g = {g}: no certificate covers it")
        self.claims[q.generators] = [list(q.generators), None]  # guards against cycles
        replies = [self.refute(q.play(x)) for x in short_moves(q)]
        self.claims[q.generators][1] = replies


def _scan_hit(hits: frozenset[int], scanned_to: int, start: int, length: int, x: int) -> bool:
    """Whether a scan with these ``hits`` up to ``scanned_to`` and this period finds the odd move x
    winning (``Scan.is_p``, without holding the scan)."""
    return (x if x <= scanned_to else start + (x - start) % length) in hits


@dataclass(frozen=True, kw_only=True)
class Written:
    """A certificate written to a file (:func:`stream_gcd_certificate`)."""

    head: dict[str, Any]
    """Its fields but ``claims``, ``periodic`` and ``nodes``: what it proves (``outcome`` may be less
    than the solve's, with ``open_moves`` saying why)."""
    claims: int
    periodic: int
    nodes: int
    """P-positions with gcd 1."""
    size: int
    """Bytes."""


def stream_gcd_certificate(solution: Solution, path: str | Path, *, time_limit: float | None = None,
                           memory: int | None = None, odd_limit: int | None = None,
                           store: Store | None = None) -> Written:
    """Write to ``path`` the certificate of the answer for a position with prime g, short, or long with g = 2
    (sylver-gcd-certificate); of an N answer that is not complete, for any g > 1 (its winning
    moves' positions proved P: nothing is claimed of the other moves).  ``memory`` and ``odd_limit``: those of the solve (the positions with
    g > 1 met on the way are solved, and their scans run, within them).  The replies that the solve
    found (``solution.gcd_details.replies``) are tried first, so that the positions it decided are not searched
    again.  A probably-P answer (sec. 2) gets a certificate of what is proven: no odd move wins, the
    even moves that lose are refuted, and those that leave long positions not proven N are ``null``
    (open).  So is a P answer when the refutation of one of its even moves that leave long positions
    cannot be certified (e.g. its winning reply leaves a gcd-1 position beyond ``MAX_PROOF_T``): the
    certificate then claims probably-P, never more than it proves, and says why in ``open_moves``
    (not checked: an explanation).  With the results ``store``, a P-position it needs whose proof
    the store keeps by reference (a file above the store's inline size, unchanged) is imported
    (``imports``: its path, absolute, bytes and SHA-256), not solved and written again: a gcd-1
    proof of gigabytes is written, and checked (``sylver verify --known``), once.

    The gcd-1 nodes go to ``FILE.nodes.part`` as they are proved, the claims are held (a few per
    short position); the file is then the header, the claims, the periodic records and the nodes, a
    line each (the layout :func:`write_any_certificate` writes and ``verify_path`` reads), written
    as ``FILE.part`` and renamed when complete: nothing is left under either name if it fails.

    Raises :class:`NotCertifiable` when the answer rests on a bounded search or on a scan without a
    certified period."""
    from sylver.proof.certificate import PROBABLY_P
    from sylver.theory import is_short

    position = solution.position
    details = solution.gcd_details
    if details is None:
        raise NotCertifiable(f"{position.braces()} has gcd 1: its certificate is build_certificate's")
    probably = solution.verdict == PROBABLY_P
    winning_only = solution.outcome is Outcome.N and not solution.complete and not is_short(position)
    long2 = solution.gcd == 2 and not is_short(position) and not winning_only
    if not (solution.outcome is not None or probably) or not (is_short(position) or long2 or winning_only):
        raise NotCertifiable(
            f"certificates cover gcd 1, short positions with prime g and long positions with g = 2; "
            f"{position.braces()} has g = {solution.gcd}"
            + ("" if solution.outcome is not None or probably else " and no proven outcome")
        )
    path = Path(path)
    nodes_path = part_path(path, "nodes")
    with claimed(nodes_path) as fh:
        try:
            b = _GcdBuilder(NodeLines(fh), machine_deadline(time.monotonic(), time_limit),
                            memory=memory, odd_limit=odd_limit, replies=details.replies, store=store)
            head = _gcd_head(solution, b, long2, probably)
            fh.flush()
            size = assemble(path, head, list(b.claims.values()), nodes_path)
        finally:
            with contextlib.suppress(OSError):
                nodes_path.unlink()
    return Written(head=head, claims=len(b.claims), periodic=len(b.periodic), nodes=b.nodes.count, size=size)


def _gcd_head(solution: Solution, b: _GcdBuilder, long2: bool, probably: bool) -> dict[str, Any]:
    """The header of a g > 1 certificate (with its ``periodic`` records), its claims and nodes proved
    by ``b`` on the way."""
    from sylver.proof.certificate import GCD_FORMAT, GCD_VERSION, PROBABLY_P

    position = solution.position
    cert: dict[str, Any] = {
        "format": GCD_FORMAT, "version": GCD_VERSION, "position": list(position.generators),
        "outcome": solution.verdict, "winning_moves": list(solution.winning_moves),
        "complete": solution.complete,
    }
    winning = set(solution.winning_moves)
    for w in solution.winning_moves:
        b.prove_p(position.play(w))
    opened: dict[int, str] = {}  # moves whose refutation cannot be certified, and why
    if long2:
        cert["root_periodic"] = b.periodic_claim(
            position, [w for w in winning if w % 2 == 0], solution.complete, opened
        )
    elif solution.complete or probably:
        cert["root_replies"] = [
            -1 if x in winning else None if probably and b.left_open(position.play(x))
            else b.refute_or_open(position.play(x), x, opened) for x in short_moves(position)
        ]
    if opened:  # the certificate proves less than the solve: those moves are left open
        for x, why in opened.items():
            if not b.left_open(position.play(x), known=True):
                raise NotCertifiable(why)
        if solution.outcome is Outcome.P:
            cert["outcome"] = PROBABLY_P
        elif not long2:
            del cert["root_replies"]
        cert["complete"] = False
        cert["open_moves"] = {str(x): why for x, why in sorted(opened.items())}
    if b.imports:
        cert["imports"] = list(b.imports.values())
    cert["periodic"] = list(b.periodic.values())
    if b.periodic_n:
        cert["periodic_n"] = [{k: v for k, v in rec.items() if k != "scan"} for rec in b.periodic_n.values()]
    return cert


def build_gcd_certificate(solution: Solution, **options: Any) -> dict[str, Any]:
    """The certificate of :func:`stream_gcd_certificate` (same ``options``) as a dict, read back from
    a temporary file: for small positions (tests, the web app)."""
    with tempfile.TemporaryDirectory(prefix="sylver-certificate-") as tmp:
        path = Path(tmp) / "c.json"
        stream_gcd_certificate(solution, path, **options)
        with open(path, encoding="utf-8") as fh:
            cert: dict[str, Any] = json.load(fh)
    return cert


def assemble(path: Path, head: dict[str, Any], claims: list[Any], nodes: Path) -> int:
    """Write the certificate with the fields ``head`` (``periodic`` among them), ``claims`` and the
    node lines of the file ``nodes`` (as :class:`NodeLines` wrote them) to ``path``, an item a line:
    the layout of :func:`write_any_certificate` (of :func:`write_certificate` for gcd 1, which has
    no claims); through ``FILE.part``, renamed when complete.  Returns its bytes."""
    with through_part(path) as fh:
        if head.get("format") == FORMAT:
            fh.write(_dumps(head)[:-1] + ',"nodes":[\n')
        else:
            fh.write(_dumps(head)[:-1] + ',"claims":[\n')
            fh.write(",\n".join(_dumps(c) for c in claims))
            fh.write('\n],"nodes":[\n')
        fh.flush()
        with open(nodes, encoding="utf-8") as src:
            shutil.copyfileobj(src, fh, 1 << 20)
        fh.write("\n]}\n")
        size = fh.tell()
    return size


def certificate_parts(path: str | Path) -> tuple[dict[str, Any], list[Any], Iterator[str]]:
    """What the certificate file ``path`` holds: its fields but ``claims`` and ``nodes`` (the
    header), its claims, and its node lines (each the JSON text of one node), read a line at a time
    from a file laid out an item a line, as written here; a file in another layout (from an older
    results store) is read whole.  The file is trusted to be well formed (a certificate this
    program wrote): its proof is for ``verify_path``."""
    from sylver.proof.certificate import CLAIMS_OPEN, NODES_OPEN

    with open(path, "rb") as fh:
        first = fh.readline().rstrip(b"\r\n")
        claims: list[Any] = []
        opener = next((o for o in (NODES_OPEN, CLAIMS_OPEN) if first.startswith(b"{") and first.endswith(o.encode())),
                      None)
        if opener is not None:
            head = json.loads(first[: -len(opener)] + b"}")
            if opener == CLAIMS_OPEN:
                for raw in fh:
                    text = raw.strip()
                    if text == b'],"nodes":[':
                        break
                    if text:
                        claims.append(json.loads(text.rstrip(b",")))
            offset = fh.tell()
    if opener is None:
        with open(path, encoding="utf-8") as whole:
            cert = json.load(whole)
        head = {k: v for k, v in cert.items() if k not in ("claims", "nodes")}
        return head, cert.get("claims", []), (_dumps(n) for n in cert.get("nodes", []))

    def lines() -> Iterator[str]:
        with open(path, "rb") as fh:
            fh.seek(offset)
            for raw in fh:
                text = raw.strip()
                if text == b"]}":
                    return
                if text:
                    yield text.rstrip(b",").decode()

    return head, claims, lines()


def write_any_certificate(cert: dict[str, Any], path: str | Path) -> int:
    """Write a certificate of either format (nodes and claims one per line)."""
    if cert.get("format") != "sylver-gcd-certificate":
        return write_certificate(cert, path)
    head = {k: v for k, v in cert.items() if k not in ("nodes", "claims")}
    parts = [json.dumps(head, separators=(",", ":"))[:-1], ',"claims":[\n']
    parts.append(",\n".join(json.dumps(c, separators=(",", ":")) for c in cert["claims"]))
    parts.append('\n],"nodes":[\n')
    parts.append(",\n".join(json.dumps(n, separators=(",", ":")) for n in cert["nodes"]))
    parts.append("\n]}\n")
    text = "".join(parts)
    Path(path).write_text(text, encoding="utf-8")
    return len(text.encode())


__all__ += ["NotCertifiable", "Written", "assemble", "build_gcd_certificate", "certificate_parts",
            "stream_gcd_certificate", "write_any_certificate"]
