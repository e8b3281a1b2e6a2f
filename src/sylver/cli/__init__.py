"""The ``sylver`` command.  Each command group lives in its own module and registers on ``app``;
``main`` turns every library error into one line on stderr and exit status 2 (no traceback).

Start-up time matters here (every command pays it): a command's module is imported, and the command
built, only when it runs (``COMMANDS`` in :mod:`sylver.cli.common`); the command modules import only
typer at module level and the library where a command runs, so ``sylver --help`` imports no numpy
and ``sylver wythoff`` no numba; small kernel calls run as Python (:mod:`sylver.jit`)."""

from __future__ import annotations

import os
import sys

import typer

from sylver import jit
from sylver.cli.common import app, fail
from sylver.errors import BotError


@app.command()
def version() -> None:
    """Print the installed version of sylver."""
    from importlib.metadata import version as dist_version

    print(dist_version("sylver"))


def join_numbers(argv: list[str]) -> list[str]:
    """Join each run of plain-number arguments into one (``4 5 6`` -> ``"4 5 6"``).

    A position given as separate integers is joined with blanks by the commands anyway; Click's
    parser takes time quadratic in the number of arguments (100,000 numbers: seconds), one argument
    costs nothing.  The first number after an option stays apart: it may be that option's value."""
    out: list[str] = []
    run: list[str] = []
    for arg in argv + ["-"]:
        if arg.isascii() and arg.isdigit() and not (out and out[-1].startswith("-") and not run):
            run.append(arg)
            continue
        if run:
            out.append(" ".join(run))
            run = []
        out.append(arg)
    return out[:-1]


BLAS_THREADS = {"OPENBLAS_NUM_THREADS": "1"}
"""Set for the command (unless the user set them) before numpy is imported: sylver makes no BLAS
call, and numpy's OpenBLAS otherwise starts a thread per core that spins for its first tenth of a
second: 60-90 ms of CPU in every command that imports numpy (`sylver wythoff 13 9`: 0.21 CPU s
instead of 0.14), taken from the search threads on a machine of 2 cores."""


def main(argv: list[str] | None = None) -> None:
    """Entry point of the console script."""
    for name, value in BLAS_THREADS.items():
        os.environ.setdefault(name, value)
    jit.interpret_small_calls()
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 64:
        args = join_numbers(args)
    try:
        app(args=args, prog_name="sylver")
    except (ValueError, BotError, OverflowError) as exc:
        fail(str(exc))
    except MemoryError:
        fail("out of memory")
    except BrokenPipeError:
        sys.stderr.close()
        raise typer.Exit(1) from None


__all__ = ["app", "join_numbers", "main"]
