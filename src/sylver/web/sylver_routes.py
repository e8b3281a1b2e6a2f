"""The Sylver Coinage API: a game's state, a human's or a bot's move, an imported record, the board's
cells and witnesses, the solver within a time limit, and what the theory says.

The routes check sizes on the event loop; the work (below them) runs in the job processes, with the
:class:`~sylver.web.limits.Limits` as its first argument, and calls the library for every rule:
:mod:`sylver.review` replays games, ranks defences and reads game records.
"""

from __future__ import annotations

import random
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from sylver import theory
from sylver.arena.rules import preset
from sylver.bots import BOTS, Turn, make_bot
from sylver.errors import BotError, IllegalMoveError, InvalidMoveError
from sylver.position import Outcome, Position, Termination
from sylver.review import (
    GameEnd,
    OutcomeMemo,
    RecordError,
    Replayer,
    ReplayError,
    SolverUse,
    defences,
    is_solvable,
    parse_record,
    step_outcomes,
)
from sylver.web.jobs import JobRunner
from sylver.web.limits import ApiError, Limits

# -- request bodies -------------------------------------------------------------------------------
Numbers = list[StrictInt] | str


class GameIn(BaseModel):
    """A game so far: the start position and the moves named from it (the first mover's first)."""

    model_config = ConfigDict(extra="forbid")
    start: Numbers = Field(default_factory=list, description='The start: a list [4, 5] or text "4, 5".')
    moves: list[StrictInt] = Field(default_factory=list, description="The moves named so far, in order.")


class StateIn(GameIn):
    refuse_illegal: bool = Field(
        default=False,
        description="Stop before the first illegal move (or a move after 1 was named) and name it in "
        "``refused`` (its 1-based ``ply``, the ``move``, a one-line ``message``), rather than answer 422 "
        "or let an illegal last move end the game (as a bot's record does).",
    )


class MoveIn(GameIn):
    move: StrictInt = Field(description="The number to name next.")


class BotMoveIn(GameIn):
    bot: str = Field(default="random", description="A built-in bot (see /api/info).")
    seed: StrictInt | None = Field(default=None, description="Seed of the bot's random generator.")


class SolveIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: Numbers = Field(description="The position to solve (gcd 1).")
    time_limit: float | None = Field(default=None, gt=0, description="Seconds (capped by the server).")


class OutcomesIn(GameIn):
    time_limit: float | None = Field(default=None, gt=0, description="Seconds (capped by the server).")


class ImportIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(
        description='A game record: one line of an arena\'s games.jsonl, {"start": [4, 5], "moves": [11]}, '
        'or a plain list: the start in braces, then the moves ("{4,5} 11 7").'
    )


# -- the routes -----------------------------------------------------------------------------------
def routes(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
    """The Sylver Coinage API, in the order /docs lists them."""
    work = in_position_process(limits, runner)
    _game_routes(app, limits, runner, work)
    _board_routes(app, limits, work)
    _solver_routes(app, limits, runner)
    _theory_routes(app, limits, work)


PositionWork = Callable[..., Awaitable[Any]]
"""``await work(fn, *args, key=start)``: ``fn(limits, *args)`` run in a position process."""


def in_position_process(limits: Limits, runner: JobRunner) -> PositionWork:
    """``fn(limits, *args)`` in a position process: the same start, the same process (its cache)."""

    async def work(fn: Any, *args: Any, key: Sequence[int] | str) -> Any:
        return await runner.run(
            fn, limits, *args, lane="position", key=_key(key), timeout=2 * limits.job_time
        )

    return work


def _key(start: Sequence[int] | str) -> tuple[int, ...] | str:
    """A hashable key of a start: requests of one game go to one position process."""
    return start if isinstance(start, str) else tuple(start)


def _game_routes(app: FastAPI, limits: Limits, runner: JobRunner, work: PositionWork) -> None:
    """A game's state, a human's or a bot's move, and an imported record."""
    @app.post("/api/sylver/state", tags=["sylver"])
    async def state(game: StateIn) -> dict[str, Any]:
        """The position reached by a game, its legal moves (the first ones) and, if over, the result."""
        limits.size_game(game.start, game.moves)
        if game.refuse_illegal:
            return await work(_state_refusing, game.start, game.moves, key=game.start)
        return await work(game_state, game.start, game.moves, key=game.start)

    @app.post("/api/sylver/move", tags=["sylver"])
    async def move(body: MoveIn) -> dict[str, Any]:
        """Name a number.  An illegal number is refused (409) with its witness; 1 ends the game."""
        limits.size_game(body.start, body.moves)
        if body.move < 1:
            raise ApiError(422, "invalid_move", f"move {body.move} is not a positive integer")
        if body.move > limits.max_number:
            raise ApiError(422, "too_large", f"move {body.move} exceeds the server's limit {limits.max_number}")
        return await work(_human_move, body.start, body.moves, body.move, key=body.start)

    @app.post("/api/sylver/bot-move", tags=["sylver"])
    async def bot_move(body: BotMoveIn) -> dict[str, Any]:
        """Let a built-in bot name the next number (thinking at most the server's bot time)."""
        limits.size_game(body.start, body.moves)
        if body.bot not in BOTS:
            raise ApiError(422, "unknown_bot", f"unknown bot {body.bot!r}; built-in bots: {', '.join(sorted(BOTS))}")
        return await runner.run(
            _bot_move, limits, body.start, body.moves, body.bot, body.seed,
            timeout=limits.bot_time + limits.job_time, lane="bot",
        )

    @app.post("/api/sylver/import", tags=["sylver"])
    async def import_record(body: ImportIn) -> dict[str, Any]:
        """Read a game record and answer the position it reaches, as ``/api/sylver/state`` does, with the
        record's ``players`` and result text when it has them.  A record is one line of the arena's
        ``games.jsonl`` (or any JSON object with ``start`` and ``moves``), a JSON list of moves from the
        empty start, or a plain list: the start in braces, then the moves (``{4,5} 11 7``)."""
        return await work(_import, body.text, key=body.text[:64])



def _board_routes(app: FastAPI, limits: Limits, work: PositionWork) -> None:
    """Which numbers are legal in a position, and the witness of an illegal one."""
    @app.get("/api/sylver/cells", tags=["sylver"])
    async def cells(
        position: Annotated[str, Query(description='The position, e.g. "4,5" (empty: no number named).')] = "",
        lo: Annotated[int, Query(ge=1, description="First number.")] = 1,
        hi: Annotated[int | None, Query(ge=1, description="Last number (default: lo + 99).")] = None,
    ) -> dict[str, Any]:
        """Which numbers lo…hi are legal: a string with one character per number, 1 legal, 0 illegal."""
        limits.size_numbers(position, "position")
        hi = lo + 99 if hi is None else hi
        if hi < lo:
            raise ApiError(422, "invalid_request", f"hi ({hi}) is smaller than lo ({lo})")
        if hi - lo + 1 > limits.max_cells:
            raise ApiError(422, "too_large", f"{hi - lo + 1} numbers asked; at most {limits.max_cells} per request")
        if hi > limits.max_number:
            raise ApiError(422, "too_large", f"hi = {hi} exceeds the server's limit {limits.max_number}")
        return await work(_cells, position, lo, hi, key=position)

    @app.get("/api/sylver/witness", tags=["sylver"])
    async def witness(
        position: Annotated[str, Query(description='The position, e.g. "4,5".')],
        n: Annotated[int, Query(description="The number to check.")],
    ) -> dict[str, Any]:
        """Is n legal here?  If not, the witness: n as a sum with multiples of the named numbers."""
        limits.size_numbers(position, "position")
        if n < 1:
            raise ApiError(422, "invalid_move", f"move {n} is not a positive integer")
        if n > limits.max_number:
            raise ApiError(422, "too_large", f"{n} exceeds the server's limit {limits.max_number}")
        return await work(_witness, position, n, key=position)



def _solver_routes(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
    """The exact solver within a time limit: a position, a game's steps, every move's refutations."""
    @app.post("/api/sylver/solve", tags=["sylver"])
    async def solve(body: SolveIn) -> dict[str, Any]:
        """Solve a gcd-1 position exactly within a time limit: the outcome and every winning move.

        The answer names the time limit it had (``time_limit``) and what it decided: ``winning_moves``
        and ``ruled_out`` (the moves proven to lose), ``root_moves_decided`` of ``root_moves`` (the legal
        moves other than 1).  Past the limit ``complete`` is false; ``decided`` is true only if a winning
        move was found (then ``outcome`` is N).  The solver process keeps what it learnt, so asking
        again continues the search where it stopped: that is how the page's *keep solving* works.
        gcd > 1, or t beyond the solver's range: 422."""
        limits.size_numbers(body.position, "position")
        seconds = min(body.time_limit or limits.solve_time, limits.solve_time)
        return await runner.run(
            _solve, limits, body.position, seconds, timeout=2 * seconds + limits.job_time, lane="solve"
        )

    @app.post("/api/sylver/outcomes", tags=["sylver"])
    async def outcomes(body: OutcomesIn) -> dict[str, Any]:
        """Who wins at each step of a game: ``outcomes[k]`` is P, N or null (not decided within the time
        limit) for the position after ``k`` moves (``by[k]``: ``theory``, ``store`` or ``solver``;
        ``over`` once 1 is named); ``best[k]``: a winning move of an N-position when one is known,
        always sought where the game turned (a move left the opponent a won game).  The store and the
        theory answer first; the solver then works from the last position back."""
        limits.size_game(body.start, body.moves)
        seconds = min(body.time_limit or limits.solve_time, limits.solve_time)
        return await runner.run(
            _outcomes, limits, body.start, body.moves, seconds,
            timeout=2 * seconds + limits.job_time, lane="solve",
        )

    @app.post("/api/sylver/defence", tags=["sylver"])
    async def defence(body: SolveIn) -> dict[str, Any]:
        """Every move's refutations: for each legal move other than 1, the opponent's winning replies
        (``refutations``, null when not decided within the time limit) and the theorem that refutes it,
        if one does.  Sorted with the best defence first: in a P-position every move loses, and the
        hardest to refute leaves the fewest winning replies among the opponent's legal replies."""
        limits.size_numbers(body.position, "position")
        seconds = min(body.time_limit or limits.solve_time, limits.solve_time)
        return await runner.run(
            _defence, limits, body.position, seconds, timeout=2 * seconds + limits.job_time, lane="solve"
        )

    @app.get("/api/sylver/certificate", tags=["sylver"])
    async def certificate(
        position: Annotated[str, Query(description='The position, e.g. "4,5".')],
    ) -> JSONResponse:
        """The proof certificate of a position's outcome, as a JSON file to download (``sylver verify``
        checks it): the one in the results store (``sylver serve --store``), else, for gcd 1, one
        built within the server's solver time.  None in time: 404."""
        limits.size_numbers(position, "position")
        cert, name = await runner.run(
            _certificate, limits, position, timeout=3 * limits.solve_time + limits.job_time, lane="solve"
        )
        return JSONResponse(cert, headers={"Content-Disposition": f'attachment; filename="{name}"'})



def _theory_routes(app: FastAPI, limits: Limits, work: PositionWork) -> None:
    """What the theory says about a position, and a start of the King-of-the-Hill competition."""
    @app.get("/api/sylver/analyze", tags=["sylver"])
    async def analyze(
        position: Annotated[str, Query(description='The position, e.g. "4,5" (empty: no number named).')] = "",
    ) -> dict[str, Any]:
        """What the theory says (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002): t,
        t̄, genus, ends, ender kind, enclosure, the outcome when a theorem decides it and why — the same
        report as ``sylver analyze --json``."""
        limits.size_numbers(position, "position")
        return await work(_analyze, position, key=position)

    @app.get("/api/sylver/replies", tags=["sylver"])
    async def replies(
        position: Annotated[str, Query(description='The position, e.g. "16" (empty: no number named).')] = "",
    ) -> dict[str, Any]:
        """The replies to a position whose results the results store holds (``sylver serve --store``):
        for each legal move x > 1 among the first ones, the position after it, its ``outcome`` (P: x
        wins) and the answers that beat it (``winning_moves``; all of them when ``complete``);
        ``examined``: how many moves were looked up (a certificate is not read here: a campaign's can
        be megabytes; the analysis of the position after a reply says whether one is stored).  The table of a campaign's
        root (the opening {16}) from the store.  Without a store: no replies."""
        limits.size_numbers(position, "position")
        return await work(_replies, position, key=position)

    @app.get("/api/sylver/board", tags=["sylver"])
    async def research_board(
        position: Annotated[str, Query(description='The root, e.g. "16" or "16,38".')] = "16",
    ) -> dict[str, Any]:
        """The research board of a root (an opening 2^a·3^b ≥ 12 such as {16}, a campaign's root, or an
        undecided position with g > 1 whose replies the results book or the public record decides in
        part, such as {16,38} and {16,38,72}):
        every legal reply up to ``bound`` with what is known of the position after it — ``outcome``
        (N: the reply loses), ``winning`` (the answers that beat it), ``how`` (``theorem``,
        ``published``, ``book``, ``store``, ``campaign``), ``published`` (the public record decides it),
        ``ours`` (the results book, the store or a campaign does), ``certificate``, ``campaigns`` (its
        node in each campaign: ``status``, ``failed_states``: the largest search that failed) — read
        at once, never searched; ``root``: the same of the position itself.  ``applies``: false for a
        position without a board (then no rows)."""
        limits.size_numbers(position, "position")
        return await work(_board, position, key=position)

    @app.get("/api/sylver/random-start", tags=["sylver"])
    def random_start(seed: Annotated[int | None, Query(description="Seed for a reproducible start.")] = None) -> dict[str, Any]:
        """A start of the King-of-the-Hill Sylver Coinage bot competition: two random coprime numbers in
        [100000, 999999]."""
        return {"start": list(preset("koth").draw_start(random.Random(seed)))}


# -- the work (runs in the job processes) ----------------------------------------------------------
def _import(limits: Limits, text: str) -> dict[str, Any]:
    try:
        record = parse_record(text)
    except RecordError as exc:
        raise ApiError(422, "invalid_record", str(exc)) from None
    out = game_state(limits, record.start, record.moves)
    out["players"] = record.players
    out["record_result"] = record.result
    return out


REPLAYER = Replayer(128 << 20)
"""The positions of recent games, in this worker process."""
MEMO = OutcomeMemo()
"""Outcomes the solver decided in this worker process."""


def _refused(exc: ReplayError) -> ApiError:
    extra = {k: v for k, v in (("move", exc.move), ("witness", exc.witness), ("ply", exc.ply)) if v is not None}
    return ApiError(504 if exc.code == "timeout" else 422, exc.code, exc.message, **extra)


def position_after(start: tuple[int, ...], moves: tuple[int, ...], deadline: float | None = None) -> Position:
    """The position after ``moves`` from ``start`` (:meth:`~sylver.review.Replayer.position_after`)."""
    try:
        return REPLAYER.position_after(start, moves, deadline)
    except ReplayError as exc:
        raise _refused(exc) from None


def _replay(start: tuple[int, ...], moves: tuple[int, ...], limits: Limits) -> tuple[Position, GameEnd | None]:
    """The position reached and how the game ended (:meth:`~sylver.review.Replayer.game`), the last
    move within the limits."""
    try:
        return REPLAYER.game(start, moves, time.monotonic() + limits.job_time, vet=limits.check_size)
    except ReplayError as exc:
        raise _refused(exc) from None


def game_state(limits: Limits, start: Sequence[int] | str, moves: Sequence[int]) -> dict[str, Any]:
    """The ``/api/sylver/state`` answer for a game given as the request gave it."""
    numbers, played = limits.game(start, moves)
    p, result = _replay(numbers, played, limits)
    return _describe(p, numbers, played, result, limits)


def _state_refusing(limits: Limits, start: Sequence[int] | str, moves: Sequence[int]) -> dict[str, Any]:
    """The ``/api/sylver/state`` answer with ``refuse_illegal``: the game up to its first illegal move
    (or move after 1), which ``refused`` names; ``refused`` is None when every move is legal."""
    numbers, played = limits.game(start, moves)
    try:
        p, result = _replay(numbers, played, limits)
    except ApiError as exc:
        if "ply" not in exc.extra:
            raise
        ply = exc.extra["ply"]
        message = exc.message.split(": ", 1)[1]  # without the API's "moves[i]: "
    else:
        if result is None or result.winner is None or result.reason is Termination.NAMED_ONE:
            return _describe(p, numbers, played, result, limits) | {"refused": None}
        ply = len(played)
        message = f"{played[-1]} is illegal in {p.braces()}: {result.detail}"
    out = game_state(limits, numbers, played[: ply - 1])
    out["refused"] = {"ply": ply, "move": played[ply - 1], "message": message}
    return out


def _describe(
    p: Position, start: tuple[int, ...], moves: tuple[int, ...], result: GameEnd | None, limits: Limits
) -> dict[str, Any]:
    finite = p.is_finite
    t = p.frobenius_number if finite else None
    if finite:
        top = max(t or 0, 0)
    else:  # a preview of the infinite set: a few rows past the largest named number
        top = max(60, 2 * max(p.generators, default=0) + 12)
    shown = min(top, limits.max_cells)
    return {
        "start": list(start),
        "moves": list(moves),
        "position": list(p.generators),
        "braces": p.braces(),
        "gcd": p.gcd,
        "finite": finite,
        "frobenius_number": t,
        "tbar": p.tbar,
        "genus": p.genus if finite else None,
        "legal_move_count": p.legal_move_count,
        "describe": "no legal move: 1 has been named" if p.is_over else p.describe_moves(),
        "over": result is not None,
        "to_move": len(moves) % 2,
        "result": None if result is None else result.to_dict(),
        "cells": _legal_string(p, 1, shown),
        "cells_top": top,
        "solvable": is_solvable(p),
    }


def _legal_string(p: Position, lo: int, hi: int) -> str:
    return "".join("1" if p.is_legal(n) else "0" for n in range(lo, hi + 1))


def _cells(limits: Limits, position: str, lo: int, hi: int) -> dict[str, Any]:
    p = position_after(limits.numbers(position, "position"), ())
    return {"position": list(p.generators), "lo": lo, "hi": hi, "legal": _legal_string(p, lo, hi)}


def _witness(limits: Limits, position: str, n: int) -> dict[str, Any]:
    p = position_after(limits.numbers(position, "position"), ())
    w = p.witness(n)
    return {
        "position": list(p.generators),
        "n": n,
        "legal": w is None and not p.is_over,
        "witness": {str(k): v for k, v in w.items()} if w else None,
        "text": p.witness_text(n),
    }


def _human_move(limits: Limits, start: Sequence[int] | str, moves: Sequence[int], n: int) -> dict[str, Any]:
    numbers, played = limits.game(start, moves)
    p, result = _replay(numbers, played, limits)
    if result is not None:
        raise ApiError(409, "game_over", "the game is over: start a new game or undo")
    try:
        p.check_move(n)
    except InvalidMoveError as exc:
        raise ApiError(422, "invalid_move", str(exc)) from None
    except IllegalMoveError as exc:
        raise ApiError(
            409,
            "illegal_move",
            str(exc),
            move=n,
            witness={str(k): v for k, v in exc.witness.items()},
            text=p.witness_text(n),
        ) from None
    limits.check_size(p, n)
    return game_state(limits, numbers, played + (n,))


def _bot_move(
    limits: Limits, start: Sequence[int] | str, moves: Sequence[int], name: str, seed: int | None
) -> dict[str, Any]:
    numbers, played = limits.game(start, moves)
    p, result = _replay(numbers, played, limits)
    if result is not None:
        raise ApiError(409, "game_over", "the game is over: start a new game or undo")
    rng = random.Random(seed if seed is not None else random.SystemRandom().randrange(2**63))
    # the player waits for the reply: perfect does not ponder in it (0.45 s of a 3-s call)
    bot = make_bot(name, rng, **({"ponder": False} if name == "perfect" else {}))
    turn = Turn(position=p, history=numbers + played, time_left=limits.bot_time, per_call=True)
    try:
        n = bot.choose(turn)
    except BotError as exc:
        raise ApiError(500, "bot_error", f"the {name} bot failed: {exc}") from None
    try:
        n = int(n)
    except (TypeError, ValueError):
        raise ApiError(500, "bot_error", f"the {name} bot answered {n!r}, not a number") from None
    if n < 1 or n > limits.max_number:
        raise ApiError(500, "bot_error", f"the {name} bot answered {n}, outside 1…{limits.max_number}")
    try:
        limits.check_size(p, n)
    except ApiError as exc:
        raise ApiError(500, "bot_error", f"the {name} bot's move is too large: {exc.message}") from None
    out = game_state(limits, numbers, played + (n,))
    out["bot_move"] = n
    return out


def _solvable(limits: Limits, raw: Sequence[int] | str) -> Position:
    """The position of a solver request, or 422 ``not_solvable`` (gcd > 1, over, t too large)."""
    from sylver.solver import check_solvable

    p = position_after(limits.numbers(raw, "position"), ())
    try:
        check_solvable(p)
    except ValueError as exc:
        raise ApiError(422, "not_solvable", str(exc)) from None
    return p


def _solve(limits: Limits, raw: Sequence[int] | str, seconds: float) -> dict[str, Any]:
    from sylver.solver import SolveTimeout, solve

    p = _solvable(limits, raw)
    root_moves = p.genus - 1  # every legal move but 1, which always loses
    try:
        sol = solve(p, time_limit=seconds, memory=limits.solve_memory, store=_store(limits))
    except SolveTimeout as exc:
        part = exc.partial
        decided = part.decided if part is not None else {}
        wins = sorted(x for x, o in decided.items() if o is Outcome.P)
        return {
            "position": list(p.generators),
            "decided": bool(wins),
            "outcome": "N" if wins else None,
            "winning_moves": wins,
            "ruled_out": sorted(x for x, o in decided.items() if o is Outcome.N),
            "complete": False,
            "frobenius_number": p.frobenius_number,
            "genus": p.genus,
            "root_moves": root_moves,
            "root_moves_decided": len(decided),
            "states": part.states if part is not None else 0,
            "seconds": round(part.seconds, 6) if part is not None else seconds,
            "time_limit": seconds,
            "from_store": False,
            "source": "solver",
            "reason": f"not fully solved within the time limit of {seconds:g} s: "
            f"{len(decided)} of {root_moves} moves decided",
        }
    out = sol.to_dict()
    winning = set(sol.winning_moves)
    out.update(
        decided=True,
        reason="",
        ruled_out=[x for x in p.legal_moves() if x != 1 and x not in winning],
        root_moves=root_moves,
        root_moves_decided=root_moves,
        time_limit=seconds,
        source="store" if sol.from_store else "solver",
    )
    return out


def _outcomes(
    limits: Limits, start: Sequence[int] | str, moves: Sequence[int], seconds: float
) -> dict[str, Any]:
    began = time.monotonic()
    numbers, played = limits.game(start, moves)
    try:
        positions = REPLAYER.positions(numbers, played, began + limits.job_time)
    except ReplayError as exc:
        raise _refused(exc) from None
    steps = step_outcomes(positions, len(played), began + seconds, _solver_use(limits), MEMO)
    return {
        "outcomes": steps.outcomes,
        "by": steps.by,
        "best": steps.best,
        "complete": steps.complete,
        "seconds": round(time.monotonic() - began, 6),
        "time_limit": seconds,
    }


def _defence(limits: Limits, raw: Sequence[int] | str, seconds: float) -> dict[str, Any]:
    began = time.monotonic()
    p = _solvable(limits, raw)
    ordered = defences(p, began + seconds, _solver_use(limits))
    return {
        "position": list(p.generators),
        "moves": [d.to_dict() for d in ordered],
        "complete": all(d.refutations is not None for d in ordered),
        "seconds": round(time.monotonic() - began, 6),
        "time_limit": seconds,
    }


def _analyze(limits: Limits, position: str) -> dict[str, Any]:
    """The theory's report; for gcd > 1 also ``engine``: what the g > 1 engine proves within the
    solver's time (as ``sylver analyze``)."""
    p = position_after(limits.numbers(position, "position"), ())
    r = theory.report(p, move_list_limit=limits.max_cells)
    r["stored"] = _stored(limits, p)
    if p.gcd > 1 and r["stored"] is None and _has_board(limits, p):
        # an open root (the opening {16}, a campaign's): its board says what is known, at once; the
        # engine would spend its seconds at every visit and find nothing
        r["engine"] = {"outcome": "unknown", "winning_moves": [], "complete": False, "method": "board",
                       "reason": "no theorem or stored result decides it: the board of its replies says what is known",
                       "odd_tail": None, "source": "board"}
    elif p.gcd > 1 and r["stored"] is not None:
        r["engine"] = {k: r["stored"][k] for k in ("outcome", "winning_moves", "complete")} | {
            "method": "store", "reason": "", "odd_tail": None, "source": "store"}
    elif p.gcd > 1:
        from sylver.solver.gcd import QUICK_SECONDS, answer_within

        r["engine"] = answer_within(p, min(limits.solve_time, QUICK_SECONDS)) | {"source": "engine"}
    return r


def _has_board(limits: Limits, p: Position) -> bool:
    from sylver.web import board

    return board.applies(p, limits.campaigns, _store(limits))


# -- the results store -------------------------------------------------------------------------------
_STORES: dict[str, Any] = {}
"""The results stores opened in this worker process, by location."""


def _store(limits: Limits) -> Any:
    """The store of ``sylver serve --store`` (a :class:`~sylver.store.results.Store`, opened once per
    process), or None."""
    if limits.store is None:
        return None
    store = _STORES.get(limits.store)
    if store is None:
        from sylver.store.results import Store

        store = _STORES[limits.store] = Store(limits.store)
    return store


def _solver_use(limits: Limits) -> SolverUse:
    """What the solver may use for one request."""
    return SolverUse(limits.solve_memory, _store(limits))


def check_store(limits: Limits) -> None:
    """Open the store once at start-up: a store that cannot be opened is a one-line ValueError."""
    from sylver.store.results import Store

    with Store(limits.store) as store:
        len(store)


def _stored(limits: Limits, p: Position) -> dict[str, Any] | None:
    """What the results store holds about ``p``: its outcome, winning moves (all of them when
    ``complete``), the search that found it and whether a proof certificate is stored; None
    without a store or a record."""
    store = _store(limits)
    rec = store.get(p) if store is not None and not p.is_over else None
    if rec is None:
        return None
    return {
        "outcome": rec.outcome.value, "winning_moves": list(rec.winning_moves), "complete": rec.complete,
        "states": rec.states, "seconds": round(rec.seconds, 6), "certificate": store.has_certificate(p),
        "source": rec.source,
    }


REPLY_CANDIDATES = 400
"""Most replies whose positions ``/api/sylver/replies`` looks up in the store (the first legal moves)."""


def _replies(limits: Limits, raw: str) -> dict[str, Any]:
    """The ``/api/sylver/replies`` answer: the stored results of the positions after the first
    :data:`REPLY_CANDIDATES` legal moves other than 1, within a second."""
    p = position_after(limits.numbers(raw, "position"), ())
    store = _store(limits)
    rows: list[dict[str, Any]] = []
    examined = 0
    deadline = time.monotonic() + min(1.0, limits.job_time / 2)
    n = 1
    top = p.frobenius_number if p.is_finite else None
    while store is not None and not p.is_over and examined < REPLY_CANDIDATES and time.monotonic() < deadline:
        n += 1
        if top is not None and n > top:
            break
        if not p.is_legal(n):
            continue
        examined += 1
        child = p.play(n)
        rec = store.get(child)
        if rec is not None:
            rows.append({
                "move": n, "position": list(child.generators), "outcome": rec.outcome.value,
                "winning_moves": list(rec.winning_moves), "complete": rec.complete,
            })
    return {"position": list(p.generators), "replies": rows, "examined": examined}


def _board(limits: Limits, raw: str) -> dict[str, Any]:
    from sylver.web import board

    p = position_after(limits.numbers(raw, "position"), ())
    if not board.applies(p, limits.campaigns, _store(limits)):
        return {"position": list(p.generators), "applies": False, "rows": []}
    return board.board(_store(limits), p, limits.campaigns) | {"applies": True}


def _certificate(limits: Limits, raw: str) -> tuple[dict[str, Any], str]:
    """The proof certificate of a position (``sylver verify`` checks it): the one in the results
    store, else, for gcd 1, one built from a solve within the server's solver time (404 when
    neither exists in time), and its file name."""
    from sylver.proof.build import build_certificate
    from sylver.solver import SolveTimeout, solve

    p = position_after(limits.numbers(raw, "position"), ())
    name = "sylver-certificate-" + "_".join(map(str, p.generators)) + ".json"
    store = _store(limits)
    cert = store.certificate(p) if store is not None else None
    if cert is not None:
        return cert, name
    if not is_solvable(p):
        raise ApiError(404, "not_found", f"no certificate of {p.braces()}: none is stored, and only "
                       "positions with gcd 1 in the solver's range get one built")
    deadline = time.monotonic() + limits.solve_time
    try:
        sol = solve(p, time_limit=limits.solve_time, memory=limits.solve_memory, store=store)
        return build_certificate(sol, time_limit=max(deadline - time.monotonic(), 0.5), memory=limits.solve_memory), name
    except (SolveTimeout, TimeoutError):
        raise ApiError(404, "not_found", f"no certificate of {p.braces()}: it takes more than the "
                       f"server's {limits.solve_time:g} s to build") from None
