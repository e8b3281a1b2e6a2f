"""`sylver verify FILE...`: certificates verified by the independent verifier (:mod:`sylver.proof`),
and what the results store and the results book say of them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sylver.cli.common import app, fail, integer, print_json


@app.command()
def verify(
    files: Annotated[list[Path], typer.Argument(help="Certificates written by `sylver solve --certificate` or a campaign (gcd 1, short positions, or a replay record of a g = 2 scan).", show_default=False)],
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object per file: {\"valid\": ..., \"flaw\": ...}, or what it proves, its imports and the files checked for it.")] = False,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="Processes for the second reading of a large certificate's gcd-1 P-positions (either format).  Default: one per core this process may use.", show_default=False, callback=integer(1))] = None,
    known: Annotated[Path | None, typer.Option("--known", help="A JSON-lines record of complete valid checks: one is appended after each, and a file recorded there (SHA-256 and size), given or imported, is not read again.  A check's progress is recorded there too, every minute: a check cut short continues where it stood.", show_default=False)] = None,
    store: Annotated[str | None, typer.Option("--store", help="Record each valid certificate's result and the certificate itself (by reference when large: the file must stay where it is) in this results store (SQLite file or postgresql:// URL), for solves and campaigns to use.", show_default=False)] = None,
    book: Annotated[bool, typer.Option("--book", help="Compare each valid certificate with the results book's entry of its position: its result, and its SHA-256 and size with the book's receipt (exit 1 when they differ).")] = False,
) -> None:
    """Verify a proof certificate independently of the solver; print `valid` or the first flaw (exit 1).

    Several files are checked in one process, each distinct file (by SHA-256) once, the files they
    import included; each gets its lines, after its name.  A file that is not a readable
    certificate (unreadable, not JSON, truncated) gives one error line and exit 2.  A gcd-1
    certificate as `sylver solve --certificate` writes it is read a line at a time, twice, holding
    only its P-positions' gap masks.  With --known, a file recorded valid there is not read again
    (`valid`, and when it was checked), and a check cut short (Ctrl-C, kill) is continued where it
    stood by the next check of the same file with the same --known (its progress is recorded there
    every minute).  With --store, a valid certificate that proves P or N goes
    to that results store with its result.  With g > 1, `valid` is followed by what the certificate
    proves, what it does not (the even moves that a probably-P claim leaves open) and the theorems
    it rests on; with imports, by the files it rests on and how each was found valid (checked now,
    above, or before: by a record of --known).  On a terminal, a line on stderr tells how far the
    reading of each file has gone (its hashing, then its two readings)."""
    from sylver.executors import default_jobs
    from sylver.proof.certificate import (
        CertificateError,
        CertificateFileError,
        ProgressLine,
        RecordError,
        Verifier,
    )
    from sylver.proof.stored import against_book

    for file in files:
        try:
            file.open("rb").close()
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror}")
    db = _store(store) if store is not None else None
    bad = False
    progress = ProgressLine(sys.stderr)  # on a terminal: how far each reading of a file has gone
    try:
        verifier = Verifier(jobs or default_jobs(), str(known) if known else None, progress if sys.stderr.isatty() else None)
        for file in files:
            name = f"{file}: " if len(files) > 1 and not as_json else ""
            before = len(verifier.verified)
            try:
                checked = verifier.verify(str(file), recorded=known is not None)
            except CertificateFileError:
                raise
            except CertificateError as exc:
                progress.clear()
                bad = True
                if as_json:
                    print_json({"file": str(file), "valid": False, "flaw": str(exc)})
                else:
                    print(f"{name}invalid: {exc}")
                continue
            progress.clear()
            read = verifier.verified[before:]
            head = checked.head
            if db is not None:
                _record(db, file, head, checked.sha256)
            book_line = ""
            if book:
                book_line, agrees = against_book(head, checked.sha256, checked.bytes)
                bad = bad or not agrees
            _print_valid(file, checked, (name, read, known, book_line), as_json)
    except (CertificateFileError, RecordError) as exc:
        progress.clear()
        fail(str(exc))
    if bad:
        raise typer.Exit(1)


def _print_valid(file: Path, checked: Any, context: tuple[str, list[Any], Path | None, str], as_json: bool) -> None:
    """``sylver verify``'s lines (or JSON object) for a valid certificate: ``context`` is the file's
    name prefix, the files this check read, the --known file and the line --book adds."""
    from sylver.proof.certificate import report, resumed

    name, read, known, book_line = context
    head = checked.head
    if as_json:
        print_json({"file": str(file), "valid": True, "position": head["position"], "outcome": head["outcome"],
                    "winning_moves": head["winning_moves"], "complete": head["complete"],
                    "nodes": checked.nodes, "proves": checked.proves, "sha256": checked.sha256,
                    "bytes": checked.bytes, "imports": [vars(r) for r in checked.imports],
                    "checked": [{"path": p, "sha256": d} for p, d in read],
                    **({"checked_before": checked.verified_before} if checked.verified_before else {}),
                    **({"resumed": checked.resumed} if checked.resumed else {}),
                    **({"book": book_line} if book_line else {})})
        return
    when = checked.verified_before
    print(f"{name}valid" + (f" (recorded valid in {known}, {checked.sha256[:12]}, {when}: not read again)"
                            if when else "" if read else f" (the same file as one checked above, {checked.sha256[:12]})")
          + (f" ({resumed(checked, str(known))})" if checked.resumed else ""))
    for line in report(checked):
        print(f"  {line}")
    if book_line:
        print(f"{name}{book_line}")


def _store(location: str) -> Any:
    """The results store of ``verify --store`` (one line and exit 2 when it cannot be opened)."""
    from sylver.position import Position
    from sylver.store.results import Store

    db = Store(location)
    db.get(Position([2, 3]))  # an unusable store fails here, before any check
    return db


def _record(db: Any, file: Path, head: dict[str, Any], sha256: str) -> None:
    """``verify --store``: a valid certificate's result and file to the store
    (:func:`sylver.proof.stored.record_verified`; one that contradicts the store's: one line, exit 2)."""
    from sylver.proof.stored import record_verified
    from sylver.store import StoreConflictError

    try:
        record_verified(db, file, head, sha256)
    except StoreConflictError as exc:
        fail(f"{file}: {exc}")
