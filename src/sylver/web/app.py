"""The web app: one static page and a JSON API over the same library calls as the CLI.

``create_app(limits, results_dir, campaign_dirs)`` builds the FastAPI application; ``sylver serve``
runs it with uvicorn.  The server keeps no game state: a client sends the start and the moves so far
and gets the position back, so any number of clients (or tabs) can play at once and a restart loses
nothing.  Every error is a 4xx/5xx answer with a JSON body ``{"error": {"code": ..., "message":
...}}``; the message is one line that names the input and why (e.g. the witness ``13 = 4·2 + 5·1``).
Interactive API documentation is served at ``/docs``.

The event loop only reads requests and checks their sizes (constant time: the length of a text,
of a list); parsing, validation and every library call run in :class:`~sylver.web.jobs.JobRunner`.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt
from starlette.exceptions import HTTPException as StarletteHTTPException

from sylver import theory, wythoff
from sylver.arena.rules import preset
from sylver.bots import BOTS, Turn, make_bot
from sylver.errors import BotError, IllegalMoveError, InvalidMoveError, InvalidPositionError
from sylver.position import GameRecord, Outcome, Position, Termination, parse_numbers
from sylver.web import campaigns
from sylver.web.jobs import BusyError, JobRunner, JobTimeoutError, Limits
from sylver.web.results import LOSING_ANSWERS, ResultsError, ResultsView, record_result

STATIC = Path(__file__).resolve().parent / "static"


def koth_rules() -> Any:
    """The rules of the King-of-the-Hill Sylver Coinage bot competition (the referee draws the start:
    two random coprime numbers)."""
    return preset("koth")


class ApiError(Exception):
    """An error answer: HTTP status, a short machine code, a one-line message and extra fields."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra

    def __reduce__(self) -> Any:  # it crosses from worker processes
        return (_api_error, (self.status, self.code, self.message, self.extra))


def _api_error(status: int, code: str, message: str, extra: dict[str, Any]) -> ApiError:
    return ApiError(status, code, message, **extra)


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


class WythoffIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    position: tuple[StrictInt, StrictInt] = Field(description="The queen's square / pile sizes (i, j).")
    misere: bool = Field(default=False, description="Misère play: whoever takes the last counter loses.")


class WythoffMoveIn(WythoffIn):
    to: tuple[StrictInt, StrictInt] = Field(description="The square the queen moves to.")


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
        _check_store(limits)
    campaign_paths = [Path(d) for d in campaign_dirs]
    for d in campaign_paths:
        campaigns.check(d)
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
    _sylver_routes(app, limits, runner)
    _wythoff_routes(app, limits, runner)
    if app.state.results is not None:
        _results_routes(app, app.state.results, limits, runner)
    if campaign_paths:
        _campaign_routes(app, campaign_paths, limits, runner)

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


# -- Sylver Coinage -------------------------------------------------------------------------------
def _sylver_routes(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
    """The server's description and the Sylver Coinage API, in the order /docs lists them."""
    _info_route(app, limits, runner)
    work = _in_position_process(limits, runner)
    _game_routes(app, limits, runner, work)
    _board_routes(app, limits, work)
    _solver_routes(app, limits, runner)
    _theory_routes(app, limits, work)


PositionWork = Callable[..., Awaitable[Any]]
"""``await work(fn, *args, key=start)``: ``fn(limits, *args)`` run in a position process."""


def _in_position_process(limits: Limits, runner: JobRunner) -> PositionWork:
    """``fn(limits, *args)`` in a position process: the same start, the same process (its cache)."""

    async def work(fn: Any, *args: Any, key: Sequence[int] | str) -> Any:
        return await runner.run(
            fn, limits, *args, lane="position", key=_key(key), timeout=2 * limits.job_time
        )

    return work


def _info_route(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
    about = {
        "version": app.version,
        "bots": [{"name": name, "about": _summary(cls.__doc__)} for name, cls in sorted(BOTS.items())],
        "features": {"theory": True, "solver": True, "wythoff": True, "results": app.state.results is not None,
                     "campaigns": bool(app.state.campaigns), "store": limits.store is not None},
        "limits": limits.public() | {"max_text": limits.max_text},
        "paper": theory.PAPER,
    }

    @app.get("/api/info", tags=["server"])
    async def info() -> dict[str, Any]:
        """What this server offers: the built-in bots, the optional features, the limits, how the page
        cites the paper behind the theory, and whether the worker processes have warmed up (``ready``:
        until then the first requests wait for them)."""
        return about | {"ready": runner.ready}



def _game_routes(app: FastAPI, limits: Limits, runner: JobRunner, work: PositionWork) -> None:
    """A game's state, a human's or a bot's move, and an imported record."""
    @app.post("/api/sylver/state", tags=["sylver"])
    async def state(game: StateIn) -> dict[str, Any]:
        """The position reached by a game, its legal moves (the first ones) and, if over, the result."""
        _size_game(game, limits)
        if game.refuse_illegal:
            return await work(_state_refusing, game.start, game.moves, key=game.start)
        return await work(_state, game.start, game.moves, key=game.start)

    @app.post("/api/sylver/move", tags=["sylver"])
    async def move(body: MoveIn) -> dict[str, Any]:
        """Name a number.  An illegal number is refused (409) with its witness; 1 ends the game."""
        _size_game(body, limits)
        if body.move < 1:
            raise ApiError(422, "invalid_move", f"move {body.move} is not a positive integer")
        if body.move > limits.max_number:
            raise ApiError(422, "too_large", f"move {body.move} exceeds the server's limit {limits.max_number}")
        return await work(_human_move, body.start, body.moves, body.move, key=body.start)

    @app.post("/api/sylver/bot-move", tags=["sylver"])
    async def bot_move(body: BotMoveIn) -> dict[str, Any]:
        """Let a built-in bot name the next number (thinking at most the server's bot time)."""
        _size_game(body, limits)
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
        _size_numbers(position, "position", limits)
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
        _size_numbers(position, "position", limits)
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
        _size_numbers(body.position, "position", limits)
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
        _size_game(body, limits)
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
        _size_numbers(body.position, "position", limits)
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
        _size_numbers(position, "position", limits)
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
        _size_numbers(position, "position", limits)
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
        _size_numbers(position, "position", limits)
        return await work(_replies, position, key=position)

    @app.get("/api/sylver/random-start", tags=["sylver"])
    def random_start(seed: Annotated[int | None, Query(description="Seed for a reproducible start.")] = None) -> dict[str, Any]:
        """A start of the King-of-the-Hill Sylver Coinage bot competition: two random coprime numbers in
        [100000, 999999]."""
        return {"start": list(koth_rules().draw_start(random.Random(seed)))}


# -- Wythoff's Nim --------------------------------------------------------------------------------
def _wythoff_routes(app: FastAPI, limits: Limits, runner: JobRunner) -> None:
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


# -- the tournament viewer -----------------------------------------------------------------------
def _results_routes(app: FastAPI, view: ResultsView, limits: Limits, runner: JobRunner) -> None:
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
        """The finished games, in the order they finished."""
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
        start = _int_list(rec.get("start") or [], "start")
        moves = _int_list(rec["moves"][:ply], "moves")
        return await runner.run(
            _state, limits, start, moves, lane="position", key=_key(start), timeout=2 * limits.job_time
        )


def _results_call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except KeyError as exc:
        raise ApiError(404, "not_found", str(exc.args[0]) if exc.args else "not found") from None
    except ResultsError as exc:
        raise ApiError(500, "bad_results", str(exc)) from None


# -- campaigns ---------------------------------------------------------------------------------------
def _campaign_routes(app: FastAPI, directories: list[Path], limits: Limits, runner: JobRunner) -> None:
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
        """A campaign's ledger, as ``sylver campaign --show --json`` prints it: ``summary``, ``store``,
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
        _size_numbers(position, "position", limits)
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
        numbers = _numbers(position.replace("_", ","), "position", limits)
    except ApiError as exc:
        if exc.code != "invalid_position":
            raise
        raise campaigns.CertificateNotFound(f"no certificate for {position!r}: {exc.message}") from None
    return campaigns.certificate(directory, numbers)


def _int_list(values: Any, what: str) -> list[int]:
    if not isinstance(values, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in values):
        raise ApiError(422, "invalid_record", f"{what}: the record holds a value that is not a move")
    return list(values)


def _key(start: Sequence[int] | str) -> tuple[int, ...] | str:
    """A hashable key of a start: requests of one game go to one position process."""
    return start if isinstance(start, str) else tuple(start)


def _summary(doc: str | None) -> str:
    """The first paragraph of a docstring, on one line."""
    first = (doc or "").strip().split("\n\n")[0]
    return " ".join(first.split())


# -- validation -----------------------------------------------------------------------------------
# On the event loop only sizes are checked (constant time); the rest runs in the job.
def _size_numbers(raw: Sequence[int] | str, what: str, limits: Limits) -> None:
    """Refuse a position longer than the limits before anything reads it."""
    if isinstance(raw, str):
        if len(raw) > limits.max_text:
            raise ApiError(
                422, "too_large",
                f"{what}: {len(raw):,} characters; at most {limits.max_text:,} ({limits.max_numbers:,} numbers)",
            )
    elif len(raw) > limits.max_numbers:
        raise ApiError(422, "too_large", f"{what}: {len(raw):,} numbers; at most {limits.max_numbers:,}")


def _size_game(game: GameIn, limits: Limits) -> None:
    _size_numbers(game.start, "start", limits)
    if len(game.moves) > limits.max_moves:
        raise ApiError(422, "too_large", f"moves: {len(game.moves):,} moves; at most {limits.max_moves:,}")


def _numbers(raw: Sequence[int] | str, what: str, limits: Limits) -> tuple[int, ...]:
    """A position given at once, as a list or as text: parsed (in linear time) and checked."""
    _size_numbers(raw, what, limits)
    if isinstance(raw, str):
        try:
            numbers: Sequence[int] = parse_numbers(raw)
        except InvalidPositionError as exc:
            raise ApiError(422, "invalid_position", f"{what}: {exc}") from None
        _size_numbers(numbers, what, limits)
    else:
        numbers = raw
    return _check_numbers(numbers, what, limits)


def _check_numbers(numbers: Sequence[int], what: str, limits: Limits) -> tuple[int, ...]:
    for x in numbers:
        if x < 1:
            raise ApiError(422, "invalid_position", f"{what}: {x} is not a positive integer")
        if x > limits.max_number:
            raise ApiError(422, "too_large", f"{what}: {x} exceeds the server's limit {limits.max_number}")
    distinct = len(set(numbers))
    if distinct >= 2 and min(numbers) > limits.max_multiplicity:
        raise ApiError(
            422,
            "too_large",
            f"{what}: the smallest number {min(numbers)} exceeds the server's limit {limits.max_multiplicity} "
            "(a position's work grows with its smallest number)",
        )
    if distinct >= 2 and distinct * min(numbers) > limits.max_work:
        raise ApiError(
            422,
            "too_large",
            f"{what}: {distinct} numbers with smallest {min(numbers)} are more work than the server allows "
            f"(count × smallest ≤ {limits.max_work})",
        )
    return tuple(numbers)


def _game(
    limits: Limits, start: Sequence[int] | str, moves: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The start and the moves of a request, checked (not yet replayed)."""
    numbers = _numbers(start, "start", limits)
    if len(moves) > limits.max_moves:
        raise ApiError(422, "too_large", f"moves: {len(moves):,} moves; at most {limits.max_moves:,}")
    return numbers, _check_moves(numbers, moves, limits)


def _check_moves(start: tuple[int, ...], moves: Sequence[int], limits: Limits) -> tuple[int, ...]:
    """Each move a positive integer within the limit, and no position on the way with a smallest
    number above ``max_multiplicity`` (the smallest named number only decreases, so the first
    position with two distinct numbers is the one to check)."""
    distinct = set(start)
    smallest = min(start, default=None)
    for i, x in enumerate(moves):
        if x < 1:
            raise ApiError(422, "invalid_move", f"moves[{i}]: {x} is not a positive integer")
        if x > limits.max_number:
            raise ApiError(422, "too_large", f"moves[{i}]: {x} exceeds the server's limit {limits.max_number}")
        if len(distinct) < 2:
            distinct.add(x)
            smallest = x if smallest is None else min(smallest, x)
            if len(distinct) >= 2 and smallest > limits.max_multiplicity:
                raise ApiError(
                    422,
                    "too_large",
                    f"moves[{i}]: naming {x} would build a position whose smallest number {smallest} exceeds "
                    f"the server's limit {limits.max_multiplicity}",
                )
    return tuple(moves)


def _check_size(p: Position, move: int, limits: Limits) -> None:
    """Refuse a move that would make the position's smallest number larger than the limit."""
    if p.generators and min(p.generators[0], move) > limits.max_multiplicity:
        raise ApiError(
            422,
            "too_large",
            f"naming {move} in {p.braces()} would build a position whose smallest number exceeds the "
            f"server's limit {limits.max_multiplicity}",
        )


# -- game records ----------------------------------------------------------------------------------
_PLAIN_RECORD = re.compile(r"\s*\{([^{}]*)\}(.*)", re.S)


def _parse_record(text: str) -> tuple[list[int] | str, list[int], list[str] | None, str | None]:
    """(start, moves, players, result text) of a game record (see ``/api/sylver/import``)."""
    body = text.strip()
    if not body:
        raise ApiError(422, "invalid_record", "the game record is empty")
    if body[0] in "[{":
        try:
            data = json.loads(body)
        except ValueError:
            lines = [line for line in body.splitlines() if line.strip()]
            if len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines):
                raise ApiError(
                    422, "invalid_record", f"the text holds {len(lines)} lines of JSON: paste one game record"
                ) from None
            data = None  # a plain list that starts with the start in braces
        if isinstance(data, list):
            return [], _int_list(data, "moves"), None, None
        if isinstance(data, dict) and data:
            moves = data.get("moves")
            if not isinstance(moves, list):
                raise ApiError(422, "invalid_record", "the JSON record has no list of moves (\"moves\": [...])")
            last = moves[-1] if moves else None
            if data.get("reason") in LOSING_ANSWERS and not (isinstance(last, int) and not isinstance(last, bool) and last >= 1):
                moves = moves[:-1]  # an answer that is not a number lost the game: not a move to replay
            players = data.get("players")
            if not (isinstance(players, list) and len(players) == 2 and all(isinstance(x, str) for x in players)):
                players = None
            result = record_result(data) if {"winner", "loser", "reason"} <= data.keys() else None
            return _int_list(data.get("start") or [], "start"), _int_list(moves, "moves"), players, result
    m = _PLAIN_RECORD.fullmatch(body)
    start, rest = (m.group(1), m.group(2)) if m else ("", body)
    try:
        moves = parse_numbers(rest)
    except InvalidPositionError as exc:
        raise ApiError(422, "invalid_record", f"moves: {exc}") from None
    return start, moves, None, None


def _import(limits: Limits, text: str) -> dict[str, Any]:
    start, moves, players, result = _parse_record(text)
    out = _state(limits, start, moves)
    out["players"] = players
    out["record_result"] = result
    return out


# -- the work (runs in the job threads and processes) ------------------------------------------------
class _PositionCache:
    """Positions reached by recent requests (in each position process), least recently used dropped
    first, within a memory budget (a position holds an Apéry set of up to ``max_multiplicity``
    8-byte entries)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[tuple[int, ...], tuple[int, ...]], tuple[Position, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[tuple[int, ...], tuple[int, ...]]) -> Position | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def put(self, key: tuple[tuple[int, ...], tuple[int, ...]], p: Position) -> None:
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


_CACHE = _PositionCache(128 << 20)


def _position_after(start: tuple[int, ...], moves: tuple[int, ...], deadline: float | None = None) -> Position:
    """The position after ``moves`` from ``start``, every move legal; past ``deadline`` (a
    ``time.monotonic()`` value) the replay stops with a 504, so an abandoned job frees its thread.

    A client usually sends the game it sent a moment ago plus a move or two, so the replay starts
    from the longest recently seen prefix of at most three moves less, else from the start."""
    n = len(moves)
    p: Position | None = None
    k = n
    for k in range(n, max(n - 3, 0) - 1, -1):
        p = _CACHE.get((start, moves[:k]))
        if p is not None:
            break
    if p is None:
        k = 0
        try:
            p = Position(start)
        except InvalidPositionError as exc:
            raise ApiError(422, "invalid_position", f"start: {exc}") from None
        _CACHE.put((start, ()), p)
    for i in range(k, n):
        x = moves[i]
        if deadline is not None and time.monotonic() > deadline:
            raise ApiError(504, "timeout", f"replaying the game took too long (stopped at move {i} of {n})")
        if p.is_over:
            raise ApiError(422, "game_over", f"moves[{i}]: the game ended when 1 was named", ply=i + 1)
        try:
            p = p.play(x)
        except IllegalMoveError as exc:
            raise ApiError(422, "illegal_move", f"moves[{i}]: {exc}", move=x, witness=exc.witness, ply=i + 1) from None
    if k < n:
        _CACHE.put((start, moves), p)
    return p


def _replay(start: tuple[int, ...], moves: tuple[int, ...], limits: Limits) -> tuple[Position, Any]:
    """The position reached and the result (None while the game goes on).

    Only the last move may end the game: naming 1, or (a bot's) illegal number, which stays in the
    record as the losing move.  A start that holds 1 is a game over before any move: nobody won it."""
    deadline = time.monotonic() + limits.job_time
    if not moves:
        p = _position_after(start, ())
        if not p.is_over:
            return p, None
        return p, {
            "winner": None, "loser": None, "reason": Termination.NAMED_ONE.phrase, "ply": None, "move": None,
            "detail": "the start holds 1: no move is left",
        }
    before = _position_after(start, moves[:-1], deadline)
    last = moves[-1]
    if before.is_over:
        raise ApiError(422, "game_over", f"moves[{len(moves) - 1}]: the game ended when 1 was named", ply=len(moves))
    _check_size(before, last, limits)
    # The result of the whole game is decided by its last move alone: replay just that move.
    result = GameRecord(before, (last,)).result()
    after = before if result is not None and result.reason is Termination.ILLEGAL_MOVE else _position_after(start, moves, deadline)
    if result is None:
        return after, None
    mover = (len(moves) - 1) % 2
    winner = mover if result.winner == 0 else 1 - mover
    return after, {
        "winner": winner,
        "loser": 1 - winner,
        "reason": result.reason.phrase,
        "ply": len(moves) - 1,
        "move": last,
        "detail": result.detail,
    }


def _state(limits: Limits, start: Sequence[int] | str, moves: Sequence[int]) -> dict[str, Any]:
    """The ``/api/sylver/state`` answer for a game given as the request gave it."""
    numbers, played = _game(limits, start, moves)
    p, result = _replay(numbers, played, limits)
    return _describe(p, numbers, played, result, limits)


def _state_refusing(limits: Limits, start: Sequence[int] | str, moves: Sequence[int]) -> dict[str, Any]:
    """The ``/api/sylver/state`` answer with ``refuse_illegal``: the game up to its first illegal move
    (or move after 1), which ``refused`` names; ``refused`` is None when every move is legal."""
    numbers, played = _game(limits, start, moves)
    try:
        p, result = _replay(numbers, played, limits)
    except ApiError as exc:
        if "ply" not in exc.extra:
            raise
        ply = exc.extra["ply"]
        message = exc.message.split(": ", 1)[1]  # without the API's "moves[i]: "
    else:
        if result is None or result["winner"] is None or result["reason"] == Termination.NAMED_ONE.phrase:
            return _describe(p, numbers, played, result, limits) | {"refused": None}
        ply = len(played)
        message = f"{played[-1]} is illegal in {p.braces()}: {result['detail']}"
    out = _state(limits, numbers, played[: ply - 1])
    out["refused"] = {"ply": ply, "move": played[ply - 1], "message": message}
    return out


def _describe(
    p: Position, start: tuple[int, ...], moves: tuple[int, ...], result: Any, limits: Limits
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
        "result": result,
        "cells": _legal_string(p, 1, shown),
        "cells_top": top,
        "solvable": _is_solvable(p),
    }


def _is_solvable(p: Position) -> bool:
    """Does the exact solver take ``p`` (gcd 1, not over, t in its range)?  The page asks it only then."""
    from sylver.solver import check_solvable

    try:
        check_solvable(p)
    except ValueError:
        return False
    return True


def _legal_string(p: Position, lo: int, hi: int) -> str:
    return "".join("1" if p.is_legal(n) else "0" for n in range(lo, hi + 1))


def _cells(limits: Limits, position: str, lo: int, hi: int) -> dict[str, Any]:
    p = _position_after(_numbers(position, "position", limits), ())
    return {"position": list(p.generators), "lo": lo, "hi": hi, "legal": _legal_string(p, lo, hi)}


def _witness(limits: Limits, position: str, n: int) -> dict[str, Any]:
    p = _position_after(_numbers(position, "position", limits), ())
    w = p.witness(n)
    return {
        "position": list(p.generators),
        "n": n,
        "legal": w is None and not p.is_over,
        "witness": {str(k): v for k, v in w.items()} if w else None,
        "text": p.witness_text(n),
    }


def _human_move(limits: Limits, start: Sequence[int] | str, moves: Sequence[int], n: int) -> dict[str, Any]:
    numbers, played = _game(limits, start, moves)
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
    _check_size(p, n, limits)
    return _state(limits, numbers, played + (n,))


def _bot_move(
    limits: Limits, start: Sequence[int] | str, moves: Sequence[int], name: str, seed: int | None
) -> dict[str, Any]:
    numbers, played = _game(limits, start, moves)
    p, result = _replay(numbers, played, limits)
    if result is not None:
        raise ApiError(409, "game_over", "the game is over: start a new game or undo")
    rng = random.Random(seed if seed is not None else random.SystemRandom().randrange(2**63))
    bot = make_bot(name, rng)
    turn = Turn(position=p, history=numbers + played, time_left=limits.bot_time)
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
        _check_size(p, n, limits)
    except ApiError as exc:
        raise ApiError(500, "bot_error", f"the {name} bot's move is too large: {exc.message}") from None
    out = _state(limits, numbers, played + (n,))
    out["bot_move"] = n
    return out


def _solvable(limits: Limits, raw: Sequence[int] | str) -> Position:
    """The position of a solver request, or 422 ``not_solvable`` (gcd > 1, over, t too large)."""
    from sylver.solver import check_solvable

    p = _position_after(_numbers(raw, "position", limits), ())
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


_OUTCOMES: OrderedDict[tuple[int, ...], tuple[str, int | None]] = OrderedDict()
"""Outcomes the solver decided in this worker process, with a winning move of an N-position (least
recently used dropped first)."""
_OUTCOMES_SIZE = 100_000


def _positions(start: tuple[int, ...], moves: tuple[int, ...], deadline: float) -> list[Position]:
    """The positions of a game: the start and after each move (but not after an illegal last move)."""
    p = _position_after(start, ())
    out = [p]
    for i, x in enumerate(moves):
        if time.monotonic() > deadline:
            raise ApiError(504, "timeout", f"replaying the game took too long (stopped at move {i} of {len(moves)})")
        if p.is_over:
            raise ApiError(422, "game_over", f"moves[{i}]: the game ended when 1 was named", ply=i + 1)
        if i == len(moves) - 1 and not p.is_legal(x):
            break
        try:
            p = p.play(x)
        except IllegalMoveError as exc:
            raise ApiError(422, "illegal_move", f"moves[{i}]: {exc}", move=x, witness=exc.witness, ply=i + 1) from None
        out.append(p)
    return out


def _outcomes(
    limits: Limits, start: Sequence[int] | str, moves: Sequence[int], seconds: float
) -> dict[str, Any]:
    from sylver.solver import SolveTimeout, solve
    from sylver.solver.engine import MAX_FROBENIUS

    began = time.monotonic()
    deadline = began + seconds
    numbers, played = _game(limits, start, moves)
    positions = _positions(numbers, played, began + limits.job_time)
    outcomes: list[str | None] = [None] * len(positions)
    by: list[str | None] = [None] * len(positions)
    best: list[int | None] = [None] * len(positions)
    pending: list[int] = []
    store = _store(limits)
    for k, p in enumerate(positions):
        if p.is_over:
            by[k] = "over"
            continue
        known = _OUTCOMES.get(p.generators)
        if known is not None:
            (outcomes[k], best[k]), by[k] = known, "solver"
            continue
        record = store.get(p) if store is not None else None
        if record is not None:
            outcomes[k], by[k] = record.outcome.value, "store"
            best[k] = record.winning_moves[0] if record.winning_moves else None
            continue
        if time.monotonic() < deadline:
            verdict, _ = theory.outcome_by_theory(p)
            if verdict is not None:
                outcomes[k], by[k] = verdict.value, "theory"
                continue
        if p.is_finite and p.frobenius_number <= MAX_FROBENIUS:
            pending.append(k)
    for k in reversed(pending):  # the later positions are smaller, and warm the table for the earlier
        left = deadline - time.monotonic()
        if left <= 0.01:
            break
        try:
            sol = solve(positions[k], first=True, time_limit=left, memory=limits.solve_memory, store=store)
        except SolveTimeout:
            break
        if sol.outcome is None:  # gcd > 1, not proven in the time
            continue
        outcomes[k], by[k] = sol.outcome.value, "solver"
        best[k] = _remember(positions[k], sol)
    _best_where_turned(limits, positions, len(played), outcomes, best, deadline)
    return {
        "outcomes": outcomes,
        "by": by,
        "best": best,
        "complete": all(o is not None or b == "over" for o, b in zip(outcomes, by, strict=True)),
        "seconds": round(time.monotonic() - began, 6),
        "time_limit": seconds,
    }


def _remember(p: Position, sol: Any) -> int | None:
    """Keep the solver's outcome of ``p`` (and a winning move) for the next requests; the move."""
    move = sol.winning_moves[0] if sol.winning_moves else None
    _OUTCOMES[p.generators] = (sol.outcome.value, move)
    if len(_OUTCOMES) > _OUTCOMES_SIZE:
        _OUTCOMES.popitem(last=False)
    return move  # type: ignore[no-any-return]


def _best_where_turned(
    limits: Limits, positions: list[Position], played: int, outcomes: list[str | None], best: list[int | None],
    deadline: float,
) -> None:
    """Fill ``best[k]`` (a winning move) where the game turned: an N-position (one of the first
    ``played``, a move was played from it) whose move left the opponent a won game (N again, 1
    named, or an illegal last move: no position after it).  A theorem decides many such
    positions without naming a move: the solver names one within what is left of the time."""
    from sylver.solver import SolveTimeout, solve

    for k, p in enumerate(positions[:played]):
        gone = k + 1 == len(positions) or positions[k + 1].is_over  # an illegal last move, or 1 named
        turned = outcomes[k] == "N" and (gone or outcomes[k + 1] == "N")
        if not turned or best[k] is not None or not _is_solvable(p):
            continue
        left = deadline - time.monotonic()
        if left <= 0.01:
            return
        try:
            best[k] = _remember(p, solve(p, first=True, time_limit=left, memory=limits.solve_memory, store=_store(limits)))
        except SolveTimeout:
            return


def _defence(limits: Limits, raw: Sequence[int] | str, seconds: float) -> dict[str, Any]:
    from sylver.solver import SolveTimeout, solve

    began = time.monotonic()
    deadline = began + seconds
    p = _solvable(limits, raw)
    rows: dict[int, dict[str, Any]] = {}
    for x in p.legal_moves():
        if x == 1:
            continue
        child = p.play(x)
        verdict, why = theory.outcome_by_theory(child)
        rows[x] = {
            "move": x,
            "legal_replies": child.genus - 1 if child.frobenius_number > 1 else 0,
            "refutations": [] if verdict is Outcome.P else None,
            "theory": why if verdict is Outcome.N else None,
        }
    # The moves no theorem refutes first: they are the best practical tries.
    for row in sorted(rows.values(), key=lambda r: (r["theory"] is not None, r["legal_replies"])):
        if row["refutations"] is not None:
            continue
        left = deadline - time.monotonic()
        if left <= 0.01:
            break
        try:
            sol = solve(p.play(row["move"]), time_limit=left, memory=limits.solve_memory, store=_store(limits))
        except SolveTimeout:
            break
        row["refutations"] = list(sol.winning_moves)

    def rank(r: dict[str, Any]) -> tuple[bool, float, bool, int]:
        share = len(r["refutations"]) / max(r["legal_replies"], 1) if r["refutations"] is not None else 2.0
        return (r["refutations"] is None, share, r["theory"] is not None, r["move"])

    ordered = sorted(rows.values(), key=rank)
    return {
        "position": list(p.generators),
        "moves": ordered,
        "complete": all(r["refutations"] is not None for r in ordered),
        "seconds": round(time.monotonic() - began, 6),
        "time_limit": seconds,
    }


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


def _analyze(limits: Limits, position: str) -> dict[str, Any]:
    """The theory's report; for gcd > 1 also ``engine``: what the g > 1 engine proves within the
    solver's time (as ``sylver analyze``)."""
    p = _position_after(_numbers(position, "position", limits), ())
    r = theory.report(p, move_list_limit=limits.max_cells)
    r["stored"] = _stored(limits, p)
    if p.gcd > 1 and r["stored"] is not None:
        r["engine"] = {k: r["stored"][k] for k in ("outcome", "winning_moves", "complete")} | {
            "method": "store", "reason": "", "odd_tail": None, "source": "store"}
    elif p.gcd > 1:
        from sylver.solver.gcd import QUICK_SECONDS, answer_within

        r["engine"] = answer_within(p, min(limits.solve_time, QUICK_SECONDS)) | {"source": "engine"}
    return r


# -- the results store -------------------------------------------------------------------------------
_STORES: dict[str, Any] = {}
"""The results stores opened in this worker process, by location."""


def _store(limits: Limits) -> Any:
    """The store of ``sylver serve --store`` (a :class:`~sylver.solver.store.Store`, opened once per
    process), or None."""
    if limits.store is None:
        return None
    store = _STORES.get(limits.store)
    if store is None:
        from sylver.solver.store import Store

        store = _STORES[limits.store] = Store(limits.store)
    return store


def _check_store(limits: Limits) -> None:
    """Open the store once at start-up: a store that cannot be opened is a one-line ValueError."""
    from sylver.solver.store import Store

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
        "states": rec.states, "seconds": round(rec.seconds, 6), "certificate": store.certificate(p) is not None,
    }


REPLY_CANDIDATES = 400
"""Most replies whose positions ``/api/sylver/replies`` looks up in the store (the first legal moves)."""


def _replies(limits: Limits, raw: str) -> dict[str, Any]:
    """The ``/api/sylver/replies`` answer: the stored results of the positions after the first
    :data:`REPLY_CANDIDATES` legal moves other than 1, within a second."""
    p = _position_after(_numbers(raw, "position", limits), ())
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


def _certificate(limits: Limits, raw: str) -> tuple[dict[str, Any], str]:
    """The proof certificate of a position (``sylver verify`` checks it): the one in the results
    store, else, for gcd 1, one built from a solve within the server's solver time (404 when
    neither exists in time), and its file name."""
    from sylver.solver import SolveTimeout, solve
    from sylver.solver.prove import build_certificate

    p = _position_after(_numbers(raw, "position", limits), ())
    name = "sylver-certificate-" + "_".join(map(str, p.generators)) + ".json"
    store = _store(limits)
    cert = store.certificate(p) if store is not None else None
    if cert is not None:
        return cert, name
    if not _is_solvable(p):
        raise ApiError(404, "not_found", f"no certificate of {p.braces()}: none is stored, and only "
                       "positions with gcd 1 in the solver's range get one built")
    deadline = time.monotonic() + limits.solve_time
    try:
        sol = solve(p, time_limit=limits.solve_time, memory=limits.solve_memory, store=store)
        return build_certificate(sol, time_limit=max(deadline - time.monotonic(), 0.5)), name
    except (SolveTimeout, TimeoutError):
        raise ApiError(404, "not_found", f"no certificate of {p.braces()}: it takes more than the "
                       f"server's {limits.solve_time:g} s to build") from None


__all__ = ["ApiError", "Limits", "create_app"]
