"""The web app: one static page and a JSON API over the same library calls as the CLI.

``create_app(limits, results_dir, campaign_dirs)`` builds the FastAPI application; ``sylver serve``
runs it with uvicorn.  The server keeps no game state: a client sends the start and the moves so far
and gets the position back, so any number of clients (or tabs) can play at once and a restart loses
nothing.  Every error is a 4xx/5xx answer with a JSON body ``{"error": {"code": ..., "message":
...}}``; the message is one line that names the input and why (e.g. the witness ``13 = 4·2 + 5·1``).
Interactive API documentation is served at ``/docs``.

The event loop only reads requests and checks their sizes (constant time: the length of a text,
of a list); parsing, validation and every library call run in :class:`~sylver.web.jobs.JobRunner`.
The routes of each game are in :mod:`~sylver.web.sylver_routes` and :mod:`~sylver.web.wythoff_routes`,
those of the tournament viewer and the campaigns in :mod:`~sylver.web.results_routes`; the rules they
apply are the library's (:mod:`sylver.review`, :mod:`sylver.wythoff`), the limits
:class:`~sylver.web.limits.Limits`.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from sylver import theory, wythoff
from sylver.bots import BOTS, Turn, make_bot
from sylver.position import Position
from sylver.web import campaigns, results_routes, sylver_routes, wythoff_routes
from sylver.web.jobs import BusyError, JobRunner, JobTimeoutError
from sylver.web.limits import ApiError, Limits
from sylver.web.results import ResultsView

STATIC = Path(__file__).resolve().parent / "static"


class _BodyLimit:
    """Refuse request bodies larger than ``limit`` bytes (413): the body is read (at most ``limit``
    bytes of it) before the app sees the request, so an oversized one never reaches the parser."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refuse = JSONResponse(
            {"error": {"code": "too_large", "message": f"the request body is larger than {self.limit} bytes"}},
            status_code=413,
        )
        length = dict(scope.get("headers") or []).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.limit:
            await refuse(scope, receive, send)
            return
        messages = []
        seen = 0
        while True:
            message = await receive()
            messages.append(message)
            if message.get("type") != "http.request":
                break
            seen += len(message.get("body", b""))
            if seen > self.limit:
                await refuse(scope, receive, send)
                return
            if not message.get("more_body"):
                break

        async def replay() -> Any:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


# -- the app --------------------------------------------------------------------------------------
def create_app(
    limits: Limits | None = None, results_dir: Path | str | None = None, warm_up: bool = False,
    campaign_dirs: Sequence[Path | str] = (), store: Path | str | None = None,
) -> FastAPI:
    """The FastAPI application (``results_dir``: an arena ``--out`` directory for the viewer;
    ``campaign_dirs``: campaign directories whose ledgers the page shows, read-only; ``store``: a
    results store (an SQLite file or a PostgreSQL URL) whose answers the page shows at once, and
    where the solver records what it proves; ``warm_up``: start the bot and solver processes at
    start-up rather than on first use).  A directory that holds no results or no campaign, or a
    store that cannot be opened: ValueError, one line."""
    limits = limits or Limits()
    if store is not None:
        limits = dataclasses.replace(limits, store=str(store))
        sylver_routes.check_store(limits)
    campaign_paths = [Path(d) for d in campaign_dirs]
    for d in campaign_paths:
        campaigns.check(d)
    limits = dataclasses.replace(limits, campaigns=tuple(str(d) for d in campaign_paths))
    runner = JobRunner(limits)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if warm_up:
            runner.warm_up(_warm_up)
        yield
        runner.shutdown()

    app = FastAPI(
        lifespan=lifespan,
        title="sylver",
        summary="Play and analyse Sylver Coinage and Wythoff's Nim.",
        description=(
            "The JSON API behind the sylver web page.  Positions are lists of positive integers "
            "(`[4, 5]`) or text (`\"4, 5\"`); errors are `{\"error\": {\"code\", \"message\"}}` with a "
            "4xx status (5xx when the server is busy or a job ran out of time)."
        ),
        version=_version(),
        docs_url=None,
        redoc_url=None,
    )
    app.state.limits = limits
    app.state.runner = runner
    app.state.results = ResultsView(Path(results_dir)) if results_dir is not None else None
    app.state.campaigns = campaign_paths

    app.add_middleware(_BodyLimit, limit=limits.max_body)
    _install_error_handlers(app)
    _info_route(app, limits, runner)
    sylver_routes.routes(app, limits, runner)
    wythoff_routes.routes(app, limits, runner)
    if app.state.results is not None:
        results_routes.results_routes(app, app.state.results, limits, runner)
    if campaign_paths:
        results_routes.campaign_routes(app, campaign_paths, limits, runner)

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _docs_routes(app)
    return app


def _docs_routes(app: FastAPI) -> None:
    """Interactive API docs at /docs, with Swagger UI served from the package (no CDN: the page
    must work on a closed network)."""
    from fastapi.openapi.docs import get_swagger_ui_html

    try:
        from swagger_ui_bundle import swagger_ui_path
    except ImportError:  # pragma: no cover - the dependency is declared; fall back to the CDN
        swagger_ui_path = None
    if swagger_ui_path is not None:
        app.mount("/docs-assets", StaticFiles(directory=swagger_ui_path), name="docs-assets")
        js, css = "/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"
    else:
        js = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui-bundle.js"
        css = "https://cdn.jsdelivr.net/npm/swagger-ui-dist@5/swagger-ui.css"

    @app.get("/docs", include_in_schema=False)
    def docs() -> Any:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title="sylver API",
            swagger_js_url=js,
            swagger_css_url=css,
            swagger_favicon_url="/static/favicon.svg",
        )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sylver")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"


def _install_error_handlers(app: FastAPI) -> None:
    def answer(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
        return JSONResponse({"error": {"code": code, "message": message, **extra}}, status_code=status)

    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return answer(exc.status, exc.code, exc.message, **exc.extra)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = exc.detail if isinstance(exc.detail, str) else "error"
        if exc.status_code == 400 and detail == "There was an error parsing the body":
            # json.loads refuses integers longer than Python's integer-to-text limit this way
            return answer(
                422, "invalid_request",
                f"the request body is not JSON the server can read (a number of more than "
                f"{sys.get_int_max_str_digits():,} digits?)",
            )
        return answer(exc.status_code, "not_found" if exc.status_code == 404 else f"http_{exc.status_code}", detail)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x not in ("body", "query"))
        msg = str(first.get("msg", "invalid request"))
        return answer(422, "invalid_request", f"{where}: {msg}" if where else msg)

    @app.exception_handler(ValueError)
    async def _library(_: Request, exc: ValueError) -> JSONResponse:
        # The library's precise errors (InvalidPositionError, TooLargeError, ...) are bad input.
        return answer(422, type(exc).__name__, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    @app.exception_handler(Exception)
    async def _internal(_: Request, exc: Exception) -> JSONResponse:
        import traceback

        traceback.print_exception(exc)  # the server's log gets the details, the client one line
        return answer(500, "internal_error", f"internal error: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")

    @app.exception_handler(BusyError)
    async def _busy(_: Request, exc: BusyError) -> JSONResponse:
        return answer(503, "busy", str(exc))

    @app.exception_handler(JobTimeoutError)
    async def _timeout(_: Request, exc: JobTimeoutError) -> JSONResponse:
        return answer(504, "timeout", str(exc))


# -- the server ------------------------------------------------------------------------------------
def _info_route(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
    about = {
        "version": app.version,
        "bots": [{"name": name, "about": _summary(cls.__doc__)} for name, cls in sorted(BOTS.items())],
        "features": {"theory": True, "solver": True, "wythoff": True, "results": app.state.results is not None,
                     "campaigns": bool(app.state.campaigns), "store": limits.store is not None, "board": True},
        "limits": limits.public() | {"max_text": limits.max_text},
        "paper": theory.PAPER,
    }

    @app.get("/api/info", tags=["server"])
    async def info() -> dict[str, Any]:
        """What this server offers: the built-in bots, the optional features, the limits, how the page
        cites the paper behind the theory, and whether the worker processes have warmed up (``ready``:
        until then the first requests wait for them)."""
        return about | {"ready": runner.ready}


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line."""
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.split())


def _warm_up(lane: str) -> None:
    """Run the lane's kind of work once in a fresh worker process (imports, numba compilation)."""
    if lane == "position":
        p = Position([7, 11, 13, 30])
        theory.report(p.play(17), move_list_limit=100)
        wythoff.winning_moves(10**40, 3)
        return
    from sylver.solver import solve

    solve(Position([4, 5]), time_limit=60)
    solve(Position([7, 11, 13, 30]), time_limit=60)
    theory.outcome_by_theory(Position([7, 11, 13, 30]))
    if lane == "bot":
        for name in BOTS:
            try:
                make_bot(name, random.Random(0)).choose(Turn(position=Position([7, 11]), time_left=1.0))
            except Exception:  # noqa: BLE001 - warming up must never break start-up
                pass


__all__ = ["ApiError", "Limits", "create_app"]
