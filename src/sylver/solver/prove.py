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
from sylver.solver import kernels as _k
from sylver.solver.certificate import FORMAT, VERSION
from sylver.solver.engine import ENGINE, SearchTimeout, child_gaps, root_gaps
from sylver.solver.solution import Solution


class _Builder:
    def __init__(self, deadline: float | None, tick: Callable[[int], None] | None) -> None:
        self.nodes: dict[bytes, tuple[list[int], list[int]]] = {}
        self.terminal: set[bytes] = set()
        self.todo: list[np.ndarray] = []
        self.deadline = deadline
        self.tick = tick

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
        y = int(_k.known_p_reply(buf, W, ENGINE.ptable, (egtab, egfilt), efshift, egg))
        if y == 0:
            for cand in _k.gap_list(child, 0, W):
                if cand >= 2 and ENGINE.outcome(child_gaps(child, int(cand)), deadline=self.deadline) is Outcome.P:
                    y = int(cand)
                    break
        if y == 0:  # pragma: no cover - would mean the solver's answer was wrong
            raise RuntimeError(f"no winning reply to {x}: the position is not P")
        self.add(child_gaps(child, y))
        return y

    def add(self, gaps: np.ndarray, key: bytes | None = None) -> None:
        """Take in the P-position ``gaps`` (its bytes ``key``) as a node, unless it is one already
        or terminal.  The kernels run unchecked: ``gaps`` is always a uint64 array made here or by
        :func:`child_gaps` (a certificate's million calls paid 30 s in type checks)."""
        if key is None:
            key = gaps.tobytes()
        if key in self.nodes or key in self.terminal:
            return
        W = gaps.shape[0]
        if _k.is_terminal.unchecked(gaps, 0, W):
            self.terminal.add(key)
            return
        gens = _k.min_generators.unchecked(gaps, 0, W).tolist()
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
            egtab, egfilt, efshift, egg = ENGINE.endgame()
            _k.refute_moves(gaps, ENGINE.ptable, found, after, (egtab, egfilt), efshift, egg)
            raw, step = after.tobytes(), 8 * W
            for k, (x, y) in enumerate(zip(moves, found.tolist(), strict=True)):
                if y > 0:
                    key = raw[k * step : (k + 1) * step]
                    if key not in self.nodes and key not in self.terminal:
                        self.add(after[k * W : (k + 1) * W].copy(), key)
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
    if solution.outcome is None:
        raise ValueError(f"{position.braces()}: no proven outcome to certify")
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
                        b.add(child_gaps(gaps, x))
                    else:
                        replies.append(b.refute(gaps, x))
                cert["root_replies"] = replies
            else:
                for w in solution.winning_moves:
                    b.add(child_gaps(gaps, w))
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
    """Collects the gcd-1 nodes and the short P claims behind a short position's answer."""

    def __init__(self, deadline: float | None, memory: int | None = None, odd_limit: int | None = None,
                 replies: dict[Position, tuple[int, ...]] | None = None) -> None:
        self.replies = replies or {}
        """The winning moves that the solve found for positions with g > 1 (tried first)."""
        self.nodes: dict[tuple[int, ...], list[Any]] = {}
        self.claims: dict[tuple[int, ...], list[Any]] = {}
        self.periodic: dict[tuple[int, ...], dict[str, Any]] = {}
        self.deadline = deadline
        self.memory = memory
        self.odd_limit = odd_limit
        # the solves of positions with g > 1: the budget and the odd limit of the solve being proved
        self.options: dict[str, Any] = {k: v for k, v in (("memory", memory), ("odd_limit", odd_limit)) if v}

    def periodic_claim(self, q: Position, even_winning: list[int], complete: bool = True,
                       opened: dict[int, str] | None = None) -> dict[str, Any]:
        """The replay record of a long position with g = 2: the certified period, the base-region
        positions (each proved), and a refutation of each even move (-1: a winning even move; None:
        left open, when not ``complete`` or, given ``opened``, when its refutation cannot be
        certified: the move and why go into ``opened``)."""
        from sylver.solver.periodic import Scan

        scan = Scan(q, memory=self.memory // 2) if self.memory else Scan(q)  # the scans' half, as in solve
        scan.run(until=self.odd_limit, deadline=self.deadline)
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
        return {"position": list(q.generators), "start": per.start, "length": per.length,
                "base": base, "even_replies": replies}

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

    def _left(self) -> float | None:
        return None if self.deadline is None else max(self.deadline - time.monotonic(), 0.001)

    def p_gcd1(self, q: Position) -> None:
        """Add the P-proof of the gcd-1 position q (a node and its subproofs)."""
        from sylver.solver.orchestration import solve

        if q.is_terminal or q.generators in self.nodes:
            return
        if q.frobenius_number > MAX_PROOF_T:
            raise NotCertifiable(f"{q.braces()} has t = {q.frobenius_number:,}: beyond the gcd-1 proofs "
                                 f"that the builder searches for (t <= {MAX_PROOF_T:,})")
        sol = solve(q, time_limit=self._left())
        if sol.outcome is not Outcome.P:
            raise RuntimeError(f"{q.braces()} is not P")
        cert = build_certificate(sol, time_limit=self._left())
        self.nodes[q.generators] = [list(q.generators), cert.get("root_replies", [])]
        for gens, replies in cert["nodes"]:
            self.nodes.setdefault(tuple(gens), [gens, replies])

    def refute(self, after: Position) -> int:
        """A reply that wins in ``after`` (N), with its proof added; 0 for a theorem."""
        from sylver.solver.orchestration import solve
        from sylver.theory import is_ender, is_prime

        g = after.gcd
        if g == 1:
            if after.frobenius_number > 1 and is_ender(after):
                return 0
            sol = solve(after, first=True, time_limit=self._left())
            r = sol.winning_moves[0]
            self.p_gcd1(after.play(r))
            return r
        if g >= 5 and is_prime(g) and len(after.generators) > 1:
            return 0
        known = self.replies.get(after, ())
        flaws = []
        for r in known:  # the solve's winning moves: no search again
            try:
                self.prove_p(after.play(r))
            except NotCertifiable as exc:
                flaws.append(str(exc))
                continue
            return r
        if known:  # any other winning move would take a complete solve of ``after``
            raise NotCertifiable(f"the winning reply {_moves(known)} found in {after.braces()} cannot be "
                                 f"certified: {'; '.join(flaws)}")
        # the first winning move found is enough when its position can be proved P (e.g. not a
        # gcd-1 position too large for the checker); else every winning move is tried
        sol = solve(after, first=True, time_limit=self._left(), **self.options)
        if sol.outcome is Outcome.N:
            try:
                self.prove_p(after.play(sol.winning_moves[0]))
                return sol.winning_moves[0]
            except NotCertifiable:
                pass
        sol = solve(after, time_limit=self._left(), **self.options)
        if sol.outcome is not Outcome.N:
            raise NotCertifiable(f"{after.braces()} is not proved N")
        for r in sol.winning_moves:
            child = after.play(r)
            try:
                self.prove_p(child)
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
        if q.generators in self.claims or q.generators in self.periodic:
            return
        if g == 2 and not is_short(q):
            self.periodic[q.generators] = self.periodic_claim(q, [])
            return
        if not is_short(q):
            raise NotCertifiable(f"{q.braces()} is long with g = {g}: no certificate covers it")
        self.claims[q.generators] = [list(q.generators), None]  # guards against cycles
        replies = [self.refute(q.play(x)) for x in short_moves(q)]
        self.claims[q.generators][1] = replies


def short_moves(q: Position) -> list[int]:
    """The moves of a short position that a certificate answers (the checker's order): the z ≤ t(h)
    with p ∤ z (z ≥ 2), then p·y for each gap y of h."""
    p = q.gcd
    h = Position(x // p for x in q.generators)
    t = h.frobenius_number
    return [z for z in range(2, t + 1) if z % p] + [p * y for y in h.semigroup.gaps()]


def build_gcd_certificate(solution: Solution, *, time_limit: float | None = None, memory: int | None = None,
                          odd_limit: int | None = None) -> dict[str, Any]:
    """The certificate of the answer for a position with prime g, short, or long with g = 2
    (sylver-gcd-certificate); of an N answer that is not complete, for any g > 1 (its winning
    moves' positions proved P: nothing is claimed of the other moves).  ``memory`` and ``odd_limit``: those of the solve (the positions with
    g > 1 met on the way are solved, and their scans run, within them).  The replies that the solve
    found (``solution.gcd_details.replies``) are tried first, so that the positions it decided are not searched
    again.  A probably-P answer (sec. 2) gets a certificate of what is proven: no odd move wins, the
    even moves that lose are refuted, and those that leave long positions not proven N are ``null``
    (open).  So is a P answer when the refutation of one of its even moves that leave long positions
    cannot be certified (e.g. its winning reply leaves a gcd-1 position beyond ``MAX_PROOF_T``): the
    certificate then claims probably-P, never more than it proves, and says why in ``open_moves``
    (not checked: an explanation).

    Raises :class:`NotCertifiable` when the answer rests on a bounded search or on a scan without a
    certified period."""
    from sylver.solver.certificate import GCD_FORMAT, GCD_VERSION, PROBABLY_P
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
    b = _GcdBuilder(None if time_limit is None else time.monotonic() + time_limit, memory, odd_limit,
                    details.replies)
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
    cert["claims"] = list(b.claims.values())
    cert["periodic"] = list(b.periodic.values())
    cert["nodes"] = list(b.nodes.values())
    return cert


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
