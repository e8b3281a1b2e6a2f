"""A game reviewed: its replay and result, who wins at each step, each move's refutations, and a game
record read from text — the game logic the web page shows, callable by any front end.

A P-position is one where the player to move loses; N, where the player to move has a winning move,
one leaving a P-position (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1).
The caches here are objects their caller holds (a server keeps one per worker process), never
module state.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sylver import theory
from sylver.arena.games import PlayedGame
from sylver.arena.report import result_text
from sylver.errors import IllegalMoveError, InvalidPositionError
from sylver.position import GameRecord, Outcome, Position, Termination, parse_numbers

if TYPE_CHECKING:
    from sylver.solution import Solution
    from sylver.store.results import Store


class ReplayError(ValueError):
    """A game that cannot be replayed: ``code`` is ``invalid_position`` (the start), ``game_over`` (a
    move after 1 was named), ``illegal_move`` or ``timeout``; ``ply`` (1-based), ``move`` and
    ``witness`` name the move at fault when there is one."""

    def __init__(self, code: str, message: str, *, ply: int | None = None, move: int | None = None,
                 witness: dict[int, int] | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.ply, self.move, self.witness = code, message, ply, move, witness

    def __reduce__(self) -> Any:  # it crosses from worker processes
        return (_replay_error, (self.code, self.message, self.ply, self.move, self.witness))


def _replay_error(code: str, message: str, ply: int | None, move: int | None,
                  witness: dict[int, int] | None) -> ReplayError:
    return ReplayError(code, message, ply=ply, move=move, witness=witness)


def game_over(i: int) -> ReplayError:
    """``moves[i]`` came after 1 was named."""
    return ReplayError("game_over", f"moves[{i}]: the game ended when 1 was named", ply=i + 1)


def illegal(i: int, x: int, exc: IllegalMoveError) -> ReplayError:
    """``moves[i]`` = x is illegal (``exc`` holds the witness)."""
    return ReplayError("illegal_move", f"moves[{i}]: {exc}", ply=i + 1, move=x, witness=exc.witness)


# -- replay ----------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class GameEnd:
    """How a replayed game ended."""

    winner: int | None
    """The winner's seat (0: the first mover), None for a start that holds 1 (nobody won)."""
    reason: Termination
    """Named 1, or an illegal number (a bot's, which stays in the record as the losing move)."""
    ply: int | None
    """The 0-based index of the last move, None when no move was made."""
    move: int | None
    """The last move."""
    detail: str
    """The rule's detail, e.g. the witness of an illegal number."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "winner": self.winner, "loser": None if self.winner is None else 1 - self.winner,
            "reason": self.reason.phrase, "ply": self.ply, "move": self.move, "detail": self.detail,
        }


Key = tuple[tuple[int, ...], tuple[int, ...]]


class Replayer:
    """Replays games, remembering the positions reached by recent ones (least recently used dropped
    first) within ``max_bytes`` (a position holds an Apéry set of its smallest number's 8-byte
    entries).  Thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[Key, tuple[Position, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def _get(self, key: Key) -> Position | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def _put(self, key: Key, p: Position) -> None:
        gens = p.generators
        size = 8 * (gens[0] // max(p.gcd, 1)) + 64 * len(gens) + 256 if len(gens) > 1 else 256
        if size > self.max_bytes:
            return
        with self._lock:
            if key in self._items:
                return
            self._items[key] = (p, size)
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, (_, dropped) = self._items.popitem(last=False)
                self._bytes -= dropped

    def position_after(self, start: tuple[int, ...], moves: tuple[int, ...], deadline: float | None = None) -> Position:
        """The position after ``moves`` from ``start``, every move legal (else :class:`ReplayError`);
        past ``deadline`` (a ``time.monotonic()`` value) the replay stops (``timeout``).

        A client usually sends the game it sent a moment ago plus a move or two, so the replay
        starts from the longest recently seen prefix of at most three moves less, else from the start."""
        n = len(moves)
        p: Position | None = None
        k = n
        for k in range(n, max(n - 3, 0) - 1, -1):
            p = self._get((start, moves[:k]))
            if p is not None:
                break
        if p is None:
            k = 0
            try:
                p = Position(start)
            except InvalidPositionError as exc:
                raise ReplayError("invalid_position", f"start: {exc}") from None
            self._put((start, ()), p)
        for i in range(k, n):
            x = moves[i]
            if deadline is not None and time.monotonic() > deadline:
                raise ReplayError("timeout", f"replaying the game took too long (stopped at move {i} of {n})")
            if p.is_over:
                raise game_over(i)
            try:
                p = p.play(x)
            except IllegalMoveError as exc:
                raise illegal(i, x, exc) from None
        if k < n:
            self._put((start, moves), p)
        return p

    def game(
        self, start: tuple[int, ...], moves: tuple[int, ...], deadline: float | None = None,
        vet: Callable[[Position, int], None] | None = None,
    ) -> tuple[Position, GameEnd | None]:
        """The position a game reaches and how it ended (None while it goes on); ``vet(position,
        move)``: the caller's check of the last move before it is played (a server's size limit).

        Only the last move may end the game: naming 1, or (a bot's) illegal number, which stays in
        the record as the losing move.  A start that holds 1 is a game over before any move."""
        if not moves:
            p = self.position_after(start, ())
            if not p.is_over:
                return p, None
            return p, GameEnd(winner=None, reason=Termination.NAMED_ONE, ply=None, move=None,
                           detail="the start holds 1: no move is left")
        before = self.position_after(start, moves[:-1], deadline)
        last = moves[-1]
        if before.is_over:
            raise game_over(len(moves) - 1)
        if vet is not None:
            vet(before, last)
        # The result of the whole game is decided by its last move alone: replay just that move.
        result = GameRecord(before, (last,)).result()
        illegal_last = result is not None and result.reason is Termination.ILLEGAL_MOVE
        after = before if illegal_last else self.position_after(start, moves, deadline)
        if result is None:
            return after, None
        mover = (len(moves) - 1) % 2
        winner = mover if result.winner == 0 else 1 - mover
        return after, GameEnd(winner=winner, reason=result.reason, ply=len(moves) - 1, move=last, detail=result.detail)

    def positions(self, start: tuple[int, ...], moves: tuple[int, ...], deadline: float) -> list[Position]:
        """The positions of a game: the start and after each move (but not after an illegal last move)."""
        p = self.position_after(start, ())
        out = [p]
        for i, x in enumerate(moves):
            if time.monotonic() > deadline:
                raise ReplayError("timeout", f"replaying the game took too long (stopped at move {i} of {len(moves)})")
            if p.is_over:
                raise game_over(i)
            if i == len(moves) - 1 and not p.is_legal(x):
                break
            try:
                p = p.play(x)
            except IllegalMoveError as exc:
                raise illegal(i, x, exc) from None
            out.append(p)
        return out


# -- who wins at each step ---------------------------------------------------------------------------
def is_solvable(p: Position) -> bool:
    """Does the exact solver take ``p`` (gcd 1, not over, t in its range)?"""
    from sylver.solver import check_solvable

    try:
        check_solvable(p)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class SolverUse:
    """What the solver may use for a review: the memory of its tables and a results store."""

    memory: int | str = "256M"
    """The transposition tables' memory: bytes, or a size as ``--memory`` takes it."""
    store: Store | None = None
    """The results store read first and written to, or None."""

    def solve(self, p: Position, deadline: float, first: bool = False) -> Solution:
        """``solve(p)`` within what is left until ``deadline`` (SolveTimeout past it)."""
        from sylver.solver import solve

        return solve(p, first=first, time_limit=max(deadline - time.monotonic(), 0.001),
                     memory=self.memory, store=self.store)


class OutcomeMemo:
    """Outcomes the solver decided, with a winning move of an N-position, for later reviews (least
    recently used dropped first beyond ``size``)."""

    def __init__(self, size: int = 100_000) -> None:
        self.size = size
        self._items: OrderedDict[tuple[int, ...], tuple[str, int | None]] = OrderedDict()

    def get(self, p: Position) -> tuple[str, int | None] | None:
        return self._items.get(p.generators)

    def remember(self, p: Position, sol: Solution) -> int | None:
        """Keep the solver's outcome of ``p`` (and a winning move); the move."""
        assert sol.outcome is not None
        move = sol.winning_moves[0] if sol.winning_moves else None
        self._items[p.generators] = (sol.outcome.value, move)
        if len(self._items) > self.size:
            self._items.popitem(last=False)
        return move


@dataclass
class StepOutcomes:
    """Who wins at each step of a game: ``outcomes[k]`` (P, N or None: not decided) of the position
    after k moves, ``by[k]`` what decided it (``theory``, ``store``, ``solver``; ``over`` once 1 is
    named), ``best[k]`` a winning move of an N-position when one is known."""

    outcomes: list[str | None]
    by: list[str | None]
    best: list[int | None]

    @property
    def complete(self) -> bool:
        return all(o is not None or b == "over" for o, b in zip(self.outcomes, self.by, strict=True))


def step_outcomes(positions: list[Position], played: int, deadline: float, use: SolverUse,
                  memo: OutcomeMemo) -> StepOutcomes:
    """Who wins at each of ``positions`` (a game's, ``played`` moves made): the memo, the store and
    the theory answer first; the solver then works from the last position back until ``deadline``;
    a winning move is always sought where the game turned."""
    from sylver.solver import MAX_FROBENIUS, SolveTimeout

    steps = StepOutcomes([None] * len(positions), [None] * len(positions), [None] * len(positions))
    pending: list[int] = []
    for k, p in enumerate(positions):
        if p.is_over:
            steps.by[k] = "over"
            continue
        known = memo.get(p)
        if known is not None:
            (steps.outcomes[k], steps.best[k]), steps.by[k] = known, "solver"
            continue
        record = use.store.get(p) if use.store is not None else None
        if record is not None:
            steps.outcomes[k], steps.by[k] = record.outcome.value, "store"
            steps.best[k] = record.winning_moves[0] if record.winning_moves else None
            continue
        if time.monotonic() < deadline:
            verdict, _ = theory.outcome_by_theory(p)
            if verdict is not None:
                steps.outcomes[k], steps.by[k] = verdict.value, "theory"
                continue
        if p.is_finite and p.frobenius_number <= MAX_FROBENIUS:
            pending.append(k)
    for k in reversed(pending):  # the later positions are smaller, and warm the table for the earlier
        if deadline - time.monotonic() <= 0.01:
            break
        try:
            sol = use.solve(positions[k], deadline, first=True)
        except SolveTimeout:
            break
        if sol.outcome is None:  # gcd > 1, not proven in the time
            continue
        steps.outcomes[k], steps.by[k] = sol.outcome.value, "solver"
        steps.best[k] = memo.remember(positions[k], sol)
    _best_where_turned(positions, played, steps, deadline, use, memo)
    return steps


def _best_where_turned(positions: list[Position], played: int, steps: StepOutcomes, deadline: float,
                       use: SolverUse, memo: OutcomeMemo) -> None:
    """Fill ``best[k]`` (a winning move) where the game turned: an N-position (one of the first
    ``played``, a move was played from it) whose move left the opponent a won game (N again, 1
    named, or an illegal last move: no position after it).  A theorem decides many such
    positions without naming a move: the solver names one within what is left of the time."""
    from sylver.solver import SolveTimeout

    outcomes, best = steps.outcomes, steps.best
    for k, p in enumerate(positions[:played]):
        gone = k + 1 == len(positions) or positions[k + 1].is_over  # an illegal last move, or 1 named
        turned = outcomes[k] == "N" and (gone or outcomes[k + 1] == "N")
        if not turned or best[k] is not None or not is_solvable(p):
            continue
        if deadline - time.monotonic() <= 0.01:
            return
        try:
            best[k] = memo.remember(p, use.solve(p, deadline, first=True))
        except SolveTimeout:
            return


# -- each move's refutations ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Defence:
    """A move x > 1 of a position and how the opponent answers it."""

    move: int
    """The move."""
    legal_replies: int
    """The opponent's legal replies other than 1 after it."""
    refutations: tuple[int, ...] | None
    """The opponent's winning replies (empty: x wins), None when not decided in the time."""
    theory: str | None
    """The theorem that shows x loses, when one does."""

    @property
    def share(self) -> float:
        """The refutations among the legal replies (2 when not decided: ranked last)."""
        return 2.0 if self.refutations is None else len(self.refutations) / max(self.legal_replies, 1)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "legal_replies": self.legal_replies,
                "refutations": None if self.refutations is None else list(self.refutations),
                "theory": self.theory}


def defences(p: Position, deadline: float, use: SolverUse) -> list[Defence]:
    """Every move x > 1 of ``p`` with its refutations, the best defence first: in a P-position every
    move loses, and the hardest to refute leaves the fewest winning replies among the opponent's
    legal replies (then a move no theorem refutes, then the smaller).  The theorems answer first;
    the solver then tries the moves no theorem refutes, the fewest replies first, until ``deadline``."""
    from sylver.solver import SolveTimeout

    rows: dict[int, Defence] = {}
    for x in p.legal_moves():
        if x == 1:
            continue
        child = p.play(x)
        verdict, why = theory.outcome_by_theory(child)
        rows[x] = Defence(x, child.genus - 1 if child.frobenius_number > 1 else 0,
                          () if verdict is Outcome.P else None, why if verdict is Outcome.N else None)
    # The moves no theorem refutes first: they are the best practical tries.
    for row in sorted(rows.values(), key=lambda r: (r.theory is not None, r.legal_replies)):
        if row.refutations is not None:
            continue
        if deadline - time.monotonic() <= 0.01:
            break
        try:
            sol = use.solve(p.play(row.move), deadline)
        except SolveTimeout:
            break
        rows[row.move] = Defence(row.move, row.legal_replies, sol.winning_moves, row.theory)
    return sorted(rows.values(), key=lambda r: (r.refutations is None, r.share, r.theory is not None, r.move))


# -- game records --------------------------------------------------------------------------------------
LOSING_ANSWERS = frozenset({Termination.NAMED_ONE, Termination.ILLEGAL_MOVE, Termination.PRIME_FIRST,
                            Termination.ABOVE_CAP, Termination.INVALID_MOVE})
"""Reasons whose losing answer is the last entry of an arena record's ``moves`` (the others: no
answer was given, or, ``too-large``, the answer was legal)."""


class RecordError(ValueError):
    """A game record that cannot be read."""


@dataclass(frozen=True)
class RecordText:
    """A game record read from text: its start (numbers, or text still to parse), moves and, from an
    arena's record, the players and the result line."""

    start: list[int] | str
    moves: list[int]
    players: list[str] | None = None
    result: str | None = None


def record_result(r: dict[str, Any]) -> str:
    """The result line of a game record given as JSON (``A wins {B named 1}``), or its reason if the
    record is odd."""
    try:
        return result_text(PlayedGame.from_json(r))
    except (KeyError, TypeError, ValueError):
        return str(r.get("reason", ""))


def move_list(values: Any, what: str) -> list[int]:
    """``values`` of a record, checked to be a list of integers."""
    if not isinstance(values, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in values):
        raise RecordError(f"{what}: the record holds a value that is not a move")
    return list(values)


_PLAIN_RECORD = re.compile(r"\s*\{([^{}]*)\}(.*)", re.S)


def parse_record(text: str) -> RecordText:
    """A game record: one line of an arena's ``games.jsonl`` (or any JSON object with ``start`` and
    ``moves``), a JSON list of moves from the empty start, or a plain list: the start in braces,
    then the moves (``{4,5} 11 7``).  An arena record's losing answer that is not a number is not a
    move to replay."""
    body = text.strip()
    if not body:
        raise RecordError("the game record is empty")
    if body[0] in "[{":
        try:
            data = json.loads(body)
        except ValueError:
            lines = [line for line in body.splitlines() if line.strip()]
            if len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines):
                raise RecordError(f"the text holds {len(lines)} lines of JSON: paste one game record") from None
            data = None  # a plain list that starts with the start in braces
        if isinstance(data, list):
            return RecordText([], move_list(data, "moves"))
        if isinstance(data, dict) and data:
            return _json_record(data)
    m = _PLAIN_RECORD.fullmatch(body)
    start, rest = (m.group(1), m.group(2)) if m else ("", body)
    try:
        moves = parse_numbers(rest)
    except InvalidPositionError as exc:
        raise RecordError(f"moves: {exc}") from None
    return RecordText(start, moves)


def _json_record(data: dict[str, Any]) -> RecordText:
    moves = data.get("moves")
    if not isinstance(moves, list):
        raise RecordError("the JSON record has no list of moves (\"moves\": [...])")
    last = moves[-1] if moves else None
    if data.get("reason") in LOSING_ANSWERS and not (isinstance(last, int) and not isinstance(last, bool) and last >= 1):
        moves = moves[:-1]  # an answer that is not a number lost the game: not a move to replay
    players = data.get("players")
    if not (isinstance(players, list) and len(players) == 2 and all(isinstance(x, str) for x in players)):
        players = None
    result = record_result(data) if {"winner", "loser", "reason"} <= data.keys() else None
    return RecordText(move_list(data.get("start") or [], "start"), move_list(moves, "moves"), players, result)

