"""`sylver serve`: the web page and its JSON API (FastAPI + uvicorn)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from sylver.cli.common import app, fail, integer, memory_size, seconds


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0 for every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).", callback=integer(0, 65535))] = 8000,
    results: Annotated[
        Path | None, typer.Option("--results", help="An arena results directory (sylver tournament --out DIR) to browse.")
    ] = None,
    campaign: Annotated[
        list[Path] | None,
        typer.Option("--campaign", help="A campaign directory (sylver campaign run --dir DIR) whose ledger to show, "
                     "read-only; repeat for several.", show_default=False),
    ] = None,
    store: Annotated[
        str | None,
        typer.Option("--store", help="A results store (an SQLite file or a postgresql:// URL, as sylver solve --store): "
                     "its answers show at once, and the solver records what it proves there.", show_default=False),
    ] = None,
    bot_time: Annotated[float, typer.Option(help="Seconds a bot may think about one move.", callback=seconds(0.05))] = 3.0,
    solve_time: Annotated[float, typer.Option(help="Most seconds the solver spends on one request.", callback=seconds(0.05))] = 5.0,
    job_time: Annotated[float, typer.Option(help="Hard limit in seconds for any one request's work.", callback=seconds(0.1))] = 10.0,
    workers: Annotated[int, typer.Option(help="Requests computed at once (at most 64).", callback=integer(1, 64))] = 2,
    queue: Annotated[int, typer.Option(help="Requests that may wait for a worker (more get 503 busy).", callback=integer(0))] = 64,
    max_number: Annotated[int, typer.Option(help="Largest number accepted in a position or move.", callback=integer(2))] = 10**12,
    max_multiplicity: Annotated[
        int, typer.Option(help="Largest smallest number of a position (its work grows with it).",
                          callback=integer(2))
    ] = 2_000_000,
    solve_memory: int = typer.Option("256M", "--solve-memory", metavar="SIZE", parser=str, callback=memory_size(),
                                     help="Memory of the solver's tables for one request (e.g. 256M, 1G; as solve --memory)."),
) -> None:
    """Serve the web page: play and analyse Sylver Coinage and Wythoff's Nim in the browser.

    Open http://HOST:PORT/ in a browser; the JSON API is documented at /docs.  With --results, the
    tournament viewer; with --campaign, each campaign's ledger (#campaign/0, …); with --store, the
    answers of a results store at once.
    """
    import uvicorn

    from sylver.web.app import create_app
    from sylver.web.jobs import Limits

    if results is not None and not results.is_dir():
        fail(f"--results {results}: not a directory")
    for d in campaign or ():
        if not d.is_dir():
            fail(f"--campaign {d}: not a directory")
    limits = Limits(
        max_number=max_number,
        max_multiplicity=max_multiplicity,
        bot_time=bot_time,
        solve_time=solve_time,
        job_time=job_time,
        workers=workers,
        queue=queue,
        solve_memory=solve_memory,
    )
    try:
        web_app = create_app(limits, results_dir=results, campaign_dirs=campaign or (), warm_up=True, store=store)
    except ValueError as exc:
        fail(str(exc))
    sock = _listen(host, port)
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    print(f"sylver: serving on http://{shown}:{sock.getsockname()[1]}/ (API docs at /docs); Ctrl-C stops", flush=True)
    config = uvicorn.Config(web_app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


def _listen(host: str, port: int) -> socket.socket:
    """Bind the listening socket here, so a busy port or bad address is one clear line."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        fail(f"--host {host}: {exc.strerror}")
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    return sock
