"""The tournament viewer's API (an arena ``--out`` directory) and the campaigns' ledgers, read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query
from fastapi.responses import FileResponse

from sylver.review import RecordError, move_list
from sylver.web import campaigns
from sylver.web.jobs import JobRunner
from sylver.web.limits import ApiError, Limits
from sylver.web.results import ResultsError, ResultsView
from sylver.web.sylver_routes import game_state, in_position_process


def results_routes(app: FastAPI, view: ResultsView, limits: Limits, runner: JobRunner) -> None:
    """The tournament: its summary, its games, a game's record and the position at each of its moves."""
    work = in_position_process(limits, runner)

    @app.get("/api/results", tags=["results"])
    async def results_summary() -> dict[str, Any]:
        """The tournament: rules, progress and standings (live while it runs)."""
        return await runner.run(_results_call, view.summary)

    @app.get("/api/results/games", tags=["results"])
    async def results_games(
        offset: Annotated[int, Query(ge=0, description="Skip this many games.")] = 0,
        limit: Annotated[int, Query(ge=1, le=500, description="Games per page.")] = 50,
        bot: Annotated[str | None, Query(description="Only the games of this bot.")] = None,
    ) -> dict[str, Any]:
        """The finished games, by number (each phase after the one before)."""
        return await runner.run(_results_call, view.games, offset, limit, bot)

    @app.get("/api/results/games/{game}", tags=["results"])
    async def results_game(
        game: int, phase: Annotated[int | None, Query(ge=0, description="Tournament phase.")] = None
    ) -> dict[str, Any]:
        """One game's full record (``steps``: how many of its moves can be replayed)."""
        return await runner.run(_results_call, view.game, game, phase)

    @app.get("/api/results/games/{game}/position", tags=["results"])
    async def results_position(
        game: int,
        ply: Annotated[int, Query(ge=0, description="Moves played (0: the start).")] = 0,
        phase: Annotated[int | None, Query(ge=0, description="Tournament phase.")] = None,
    ) -> dict[str, Any]:
        """The position after ``ply`` moves of a game, as ``/api/sylver/state`` describes it."""
        rec = await runner.run(_results_call, view.game, game, phase)
        if ply > rec["steps"]:
            raise ApiError(422, "invalid_request", f"ply {ply}: game {game} has {rec['steps']} replayable moves")
        try:
            start = move_list(rec.get("start") or [], "start")
            moves = move_list(rec["moves"][:ply], "moves")
        except RecordError as exc:
            raise ApiError(422, "invalid_record", str(exc)) from None
        return await work(game_state, start, moves, key=start)


def _results_call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except KeyError as exc:
        raise ApiError(404, "not_found", str(exc.args[0]) if exc.args else "not found") from None
    except ResultsError as exc:
        raise ApiError(500, "bad_results", str(exc)) from None


# -- campaigns ---------------------------------------------------------------------------------------
def campaign_routes(app: FastAPI, directories: list[Path], limits: Limits, runner: JobRunner) -> None:
    """The ledgers of the campaigns given with ``--campaign``, read-only, reread at every request (a
    campaign running in another process updates its ledger): in a position process, as the ledger
    parses every node's position."""

    def directory(i: int) -> Path:
        if not 0 <= i < len(directories):
            raise ApiError(404, "not_found", f"no campaign {i}: this server shows {len(directories)} "
                           f"(0 to {len(directories) - 1})")
        return directories[i]

    async def work(fn: Any, *args: Any) -> Any:
        return await runner.run(_campaign_call, fn, *args, lane="position", key="campaigns",
                                timeout=2 * limits.job_time)

    @app.get("/api/campaigns", tags=["campaigns"])
    async def campaign_list() -> list[dict[str, Any]]:
        """The campaigns this server shows: for each its ``index``, directory ``name``, ``root``,
        ``headline`` (one line: the root's status and the counts) and ``summary`` (the counts of the
        nodes by status, and the root's status and winning move)."""
        return await work(campaigns.listing, directories)  # type: ignore[no-any-return]

    @app.get("/api/campaigns/{index}", tags=["campaigns"])
    async def campaign_ledger(
        index: int,
        depth: Annotated[int | None, Query(ge=0, description="Only the nodes at most this many moves from the root.")] = None,
    ) -> dict[str, Any]:
        """A campaign's ledger, as ``sylver campaign show --json`` prints it: ``summary``, ``store``,
        ``attempts`` (their count) and ``nodes`` (``text``, ``why``, ``position``, ``kind``, ``depth``,
        ``status``: open, working, P or N, ``winning``, ``method``, ``states``, ``seconds``,
        ``peak_bytes``, ``certificate``, ``budget``, ``attempts``, ``expanded``, ``note``), with
        ``headline``, ``root`` and, on each node, ``replies``: the root's moves that lead to it.  The
        nodes come in reply-table order: the root, its children by reply, then the others."""
        return await work(campaigns.data, directory(index), depth)  # type: ignore[no-any-return]

    @app.get("/api/campaigns/{index}/certificate/{position}", tags=["campaigns"], response_class=FileResponse)
    async def campaign_certificate(index: int, position: str) -> FileResponse:
        """The certificate of a decided node (``position``: its numbers, e.g. ``4,6``), as a JSON file
        to download (``sylver verify`` checks it).  The file is the one the ledger names for that
        node, in the campaign's ``certificates`` directory; a position the ledger does not hold, or
        holds without a certificate: 404."""
        d = directory(index)
        limits.size_numbers(position, "position")
        path, name = await work(_campaign_certificate, limits, d, position)
        return FileResponse(path, media_type="application/json", filename=name, headers={"Cache-Control": "no-cache"})


def _campaign_call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except campaigns.CertificateNotFound as exc:
        raise ApiError(404, "not_found", str(exc)) from None
    except campaigns.CampaignError as exc:
        raise ApiError(500, "bad_campaign", str(exc)) from None


def _campaign_certificate(limits: Limits, directory: Path, position: str) -> tuple[str, str]:
    try:
        numbers = limits.numbers(position.replace("_", ","), "position")
    except ApiError as exc:
        if exc.code != "invalid_position":
            raise
        raise campaigns.CertificateNotFound(f"no certificate for {position!r}: {exc.message}") from None
    return campaigns.certificate(directory, numbers)
