"""Building proof certificates (the format and the checker are in :mod:`sylver.solver.certificate`).

A P-position is proved by a winning reply to each of its moves, recursively; a move into an ender
with t > 1 is refuted by the strategy-stealing theorem instead (sec. 1).  Replies are found in the
engine's transposition table when it holds them (it does right after a solve), else by solving the
candidate positions.  Each P-position is written once, however many paths reach it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from sylver.position import Outcome, Position
from sylver.solver import Solution, root_gaps
from sylver.solver import kernels as _k
from sylver.solver.certificate import FORMAT, VERSION
from sylver.solver.engine import ENGINE, SearchTimeout


class _Builder:
    def __init__(self, deadline: float | None, tick: Callable[[int], None] | None) -> None:
        self.nodes: dict[bytes, tuple[list[int], list[int]]] = {}
        self.todo: list[np.ndarray] = []
        self.deadline = deadline
        self.tick = tick

    def _child(self, gaps: np.ndarray, x: int) -> np.ndarray:
        W = gaps.shape[0]
        buf = np.empty(2 * W, dtype=np.uint64)
        buf[:W] = gaps
        _k.play_into(buf, 0, W, W, x)
        return buf[W:].copy()

    def _outcome(self, gaps: np.ndarray) -> int:
        if _k.is_terminal(gaps, 0, gaps.shape[0]):
            return 0
        t = int(_k.top_bit(gaps, 0, gaps.shape[0]))
        if t > 1 and _k.is_ender(gaps, 0, gaps.shape[0], t):
            return 1
        return ENGINE.outcome(gaps, deadline=self.deadline)

    def refute(self, gaps: np.ndarray, x: int) -> int:
        """A reply to x in ``gaps`` that wins (0 when the position after x is an ender with t > 1)."""
        child = self._child(gaps, x)
        W = child.shape[0]
        t = int(_k.top_bit(child, 0, W))
        if t > 1 and _k.is_ender(child, 0, W, t):
            return 0
        buf = np.zeros(2 * W, dtype=np.uint64)
        buf[:W] = child
        y = int(_k.known_p_reply(buf, W, ENGINE.ptable))
        if y == 0:
            for cand in _k.gap_list(child, 0, W):
                if cand >= 2 and self._outcome(self._child(child, int(cand))) == 0:
                    y = int(cand)
                    break
        if y == 0:  # pragma: no cover - would mean the solver's answer was wrong
            raise RuntimeError(f"no winning reply to {x}: the position is not P")
        self.add(self._child(child, y))
        return y

    def add(self, gaps: np.ndarray) -> None:
        if _k.is_terminal(gaps, 0, gaps.shape[0]):
            return
        key = gaps.tobytes()
        if key not in self.nodes:
            gens = [int(v) for v in _k.min_generators(gaps, 0, gaps.shape[0])]
            self.nodes[key] = (gens, [])
            self.todo.append(gaps)

    def run(self) -> None:
        while self.todo:
            gaps = self.todo.pop()
            W = gaps.shape[0]
            replies = self.nodes[gaps.tobytes()][1]
            moves = [int(x) for x in _k.gap_list(gaps, 0, W) if x >= 2]
            found = np.empty(len(moves), dtype=np.int64)
            after = np.empty(len(moves) * W, dtype=np.uint64)
            # the replies known from the table (or enders), all at once; the rest are searched
            _k.refute_moves(gaps, ENGINE.ptable, found, after)
            for k, x in enumerate(moves):
                y = int(found[k])
                if y > 0:
                    self.add(after[k * W : (k + 1) * W].copy())
                elif y < 0:
                    y = self.refute(gaps, x)
                replies.append(y)
            if self.tick is not None:
                self.tick(len(self.nodes))


def build_certificate(
    solution: Solution,
    *,
    time_limit: float | None = None,
    tick: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """The certificate of ``solution`` (complete solutions prove every root move's value)."""
    deadline = None if time_limit is None else time.monotonic() + time_limit
    position: Position = solution.position
    gaps = root_gaps(position)
    b = _Builder(deadline, tick)
    cert: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "position": list(position.generators),
        "outcome": solution.outcome.value,
        "winning_moves": list(solution.winning_moves),
        "complete": solution.complete,
    }
    with ENGINE.lock:
        try:
            if solution.complete:
                winning = set(solution.winning_moves)
                replies = []
                for x in _k.gap_list(gaps, 0, gaps.shape[0]):
                    x = int(x)
                    if x < 2:
                        continue
                    if x in winning:
                        replies.append(-1)
                        b.add(b._child(gaps, x))
                    else:
                        replies.append(b.refute(gaps, x))
                cert["root_replies"] = replies
            else:
                for w in solution.winning_moves:
                    b.add(b._child(gaps, w))
            b.run()
        except SearchTimeout:
            raise TimeoutError("certificate not built within the time limit") from None
    cert["nodes"] = [[gens, replies] for gens, replies in b.nodes.values()]
    return cert


def write_certificate(cert: dict[str, Any], path: str | Path) -> int:
    """Write ``cert`` compactly (one node per line); return the number of bytes written."""
    head = {k: v for k, v in cert.items() if k != "nodes"}
    parts = [json.dumps(head, separators=(",", ":"))[:-1], ',"nodes":[\n']
    parts.append(",\n".join(json.dumps(n, separators=(",", ":")) for n in cert["nodes"]))
    parts.append("\n]}\n")
    text = "".join(parts)
    Path(path).write_text(text, encoding="utf-8")
    return len(text.encode())


__all__ = ["Outcome", "build_certificate", "write_certificate"]
