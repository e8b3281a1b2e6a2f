"""The Wythoff's Nim API: who wins from a square, the queen's move and the perfect player's answer,
the cold positions.  Every rule is :mod:`sylver.wythoff`'s; piles of any size up to
``max_pile_digits`` digits."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Query
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from sylver import wythoff
from sylver.errors import InvalidMoveError, InvalidPositionError
from sylver.web.jobs import JobRunner
from sylver.web.limits import ApiError, Limits


class WythoffIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: tuple[StrictInt, StrictInt] = Field(description="The queen's square / pile sizes (i, j).")
    misere: bool = Field(default=False, description="Misère play: whoever takes the last counter loses.")


class WythoffMoveIn(WythoffIn):
    to: tuple[StrictInt, StrictInt] = Field(description="The square the queen moves to.")


def routes(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
    # Integer arithmetic in O(digits²): tens of milliseconds at 4,000 digits, in a position process.
    async def work(fn: Any, *args: Any) -> Any:
        return await runner.run(fn, limits, *args, lane="position", timeout=2 * limits.job_time)

    @app.get("/api/wythoff/analyze", tags=["wythoff"])
    async def wythoff_analyze(
        i: Annotated[int, Query(description="First pile (the queen's column).")],
        j: Annotated[int, Query(description="Second pile (the queen's row).")],
        misere: Annotated[bool, Query(description="Misère play.")] = False,
    ) -> dict[str, Any]:
        """Who wins from (i, j) with perfect play, and every winning move (at most three).  Piles of
        any size up to ``max_pile_digits`` digits (see ``/api/info``)."""
        return await work(_wythoff_analyze, i, j, misere)

    @app.post("/api/wythoff/move", tags=["wythoff"])
    async def wythoff_move(body: WythoffMoveIn) -> dict[str, Any]:
        """Move the queen to ``to``; unless that ends the game, the perfect player answers."""
        return await work(_wythoff_move, body.position, body.to, body.misere)

    @app.post("/api/wythoff/computer-move", tags=["wythoff"])
    async def wythoff_computer_move(body: WythoffIn) -> dict[str, Any]:
        """The perfect player moves from ``position`` (a winning move when there is one)."""
        return await work(_wythoff_computer_move, body.position, body.misere)

    @app.get("/api/wythoff/cold", tags=["wythoff"])
    async def wythoff_cold(
        limit: Annotated[int, Query(ge=0, description="Largest pile.")] = 20,
        misere: Annotated[bool, Query(description="Misère play.")] = False,
    ) -> dict[str, Any]:
        """The cold positions (P: the player to move loses) with both piles at most ``limit``."""
        if limit > limits.max_cold:
            raise ApiError(422, "too_large", f"limit {limit} exceeds the server's limit {limits.max_cold}")
        return await work(_wythoff_cold, limit, misere)


def _wythoff_analyze(limits: Limits, i: int, j: int, misere: bool) -> dict[str, Any]:
    return _wythoff_facts(_pile_pair(i, j, limits), misere)


def _wythoff_move(
    limits: Limits, position: tuple[int, int], to: tuple[int, int], misere: bool
) -> dict[str, Any]:
    p = _pile_pair(*position, limits)
    if p.is_over():
        raise ApiError(409, "game_over", "the game is over: the queen is in the corner")
    try:
        after = p.play(to)
    except (InvalidMoveError, InvalidPositionError) as exc:
        raise ApiError(409, "illegal_move", str(exc)) from None
    out: dict[str, Any] = {"you": list(after), "reply": None}
    if not after.is_over():
        reply = wythoff.computer_move(after, misere)
        out["reply"] = list(reply)
        after = reply
    out.update(_wythoff_facts(after, misere))
    mover, other = ("you", "computer") if out["reply"] is None else ("computer", "you")
    out["winner"] = wythoff.winner(after, mover, other, misere)
    return out


def _wythoff_computer_move(limits: Limits, position: tuple[int, int], misere: bool) -> dict[str, Any]:
    p = _pile_pair(*position, limits)
    if p.is_over():
        raise ApiError(409, "game_over", "the game is over: the queen is in the corner")
    reply = wythoff.computer_move(p, misere)
    out: dict[str, Any] = {"reply": list(reply)}
    out.update(_wythoff_facts(reply, misere))
    out["winner"] = wythoff.winner(reply, "computer", "you", misere)
    return out


def _wythoff_cold(limits: Limits, limit: int, misere: bool) -> dict[str, Any]:
    return {"limit": limit, "misere": misere, "cold": [list(q) for q in wythoff.p_positions(limit, misere)]}


def _pile_pair(i: int, j: int, limits: Limits) -> wythoff.WythoffPosition:
    """The position (i, j), refused (422) with a pile of more than ``max_pile_digits`` digits."""
    largest = 10**limits.max_pile_digits - 1
    for name, x in (("i", i), ("j", j)):
        if x > largest:
            raise ApiError(
                422, "too_large", f"pile {name} has {x.bit_length() * 0.30103:,.0f} digits or more; "
                f"at most {limits.max_pile_digits:,}",
            )
    try:
        return wythoff.WythoffPosition(i, j)
    except InvalidPositionError as exc:
        raise ApiError(422, "invalid_position", str(exc)) from None


def _wythoff_facts(p: wythoff.WythoffPosition, misere: bool) -> dict[str, Any]:
    small = max(p) <= 200
    return {
        "position": list(p),
        "misere": misere,
        "over": p.is_over(),
        "outcome": p.outcome(misere).value,
        "winning_moves": [list(q) for q in p.winning_moves(misere)],
        "moves": [list(q) for q in p.moves()] if small else None,
        "nim_value": p.nim_value(misere) if max(p) <= 64 else None,
    }
