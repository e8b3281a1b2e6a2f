"""``sylver book``: the results book (src/sylver/data/book.jsonl; docs/book.md): audit it, show it,
add what a campaign directory or a results store decided."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from sylver.cli.common import app, deprecated, fail, position_from_args, print_json

ACTIONS = ("show", "audit", "add", "page")
RENAMED = {"check": "audit"}
"""Actions renamed (issue 52: "check" meant four things): still done, after a one-line note."""


@app.command()
def book(
    action: Annotated[str, typer.Argument(help="`show` (a summary, or the entries under POSITION), `audit` (the entries against each other, the paper, the theory and the public record: exit 2 with a line per failure), `add` (what --dir and --store decided, merged in) or `page` (docs/frontier.md, generated).")],
    position: Annotated[list[str] | None, typer.Argument(help="With show: a position, e.g. `16 38` (its entry and those under it).", show_default=False)] = None,
    path: Annotated[Path | None, typer.Option("--book", help="The book file (default: the one sylver reads: $SYLVER_BOOK, else the package's data/book.jsonl).", show_default=False)] = None,
    directory: Annotated[Path | None, typer.Option("--dir", "-d", help="With add: a campaign directory whose decided nodes to add.", show_default=False)] = None,
    store: Annotated[str | None, typer.Option("--store", help="With add: a results store whose records under the campaign's root (or --root) to add.", show_default=False)] = None,
    root: Annotated[list[str] | None, typer.Option("--root", help="With add --store and no --dir: the position whose tree bounds what the store gives, e.g. `16,38,72`.", show_default=False)] = None,
    verified: Annotated[list[Path] | None, typer.Option("--verified", help="With add: the records of `sylver verify` checks (a --known file, or the lines of `sylver verify --json`): each valid certificate's receipt (SHA-256, bytes, date) goes to its position's entry.", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="With show: one JSON object.")] = False,
) -> None:
    """The results book: every result the project established, shipped with sylver and read by the results store."""
    from sylver.store import book as B

    if action in RENAMED:
        deprecated(f"sylver book {action}", f"sylver book {RENAMED[action]}")
        action = RENAMED[action]
    if action not in ACTIONS:
        fail(f"unknown action {action!r}: choose {', '.join(ACTIONS)}")
    file = path or B.default_path()
    if file is None:
        fail(f"the results book is off (${B.ENV}={B.OFF}): give --book FILE")
    current = B.read(file)
    if action == "audit":
        failures = B.audit(current)
        for line in failures:
            print(line)
        if failures:
            raise SystemExit(2)
        print(f"{file}: {len(current):,} entries, consistent")
        return
    if action == "page":
        from sylver.store.bookpage import page

        print(page(current), end="")
        return
    if action == "show":
        _show(current, position_from_args(position) if position else None, as_json)
        return
    _add(current, file, (directory, store, position_from_args(root) if root else None), verified or [])


def _show(current: Any, position: Any, as_json: bool) -> None:
    from sylver.store.public import published

    entries = list(current) if position is None else current.under(position)
    new = [e for e in entries if published(e.position) is None]
    summary = {"book": str(current.path), "entries": len(entries), "bytes": sum(len(e.to_line()) + 1 for e in entries),
               "checked_certificates": sum(e.certificate is not None for e in entries),
               "published": len(entries) - len(new), "new": len(new)}
    if as_json:
        import json

        print_json({**summary, "entries_list": [json.loads(e.to_line()) for e in entries] if position else None})
        return
    print(f"{summary['book']}: {summary['entries']:,} entries, {summary['bytes']:,} bytes; "
          f"{summary['checked_certificates']:,} with a checked certificate (digest recorded); "
          f"{summary['published']:,} in the public record, {summary['new']:,} new")
    if position is not None:
        for e in entries:
            print(f"{e.describe()}  [{'new' if published(e.position) is None else 'published'}; {e.how}]")


def _add(current: Any, file: Path, sources: tuple[Path | None, str | None, Any], verified: list[Path]) -> None:
    """``book add``: the entries of a campaign directory, a store (under the campaign's root or
    ``--root``) and the receipts of checks, merged, closed and audited before the file is written."""
    from sylver.campaign import Ledger
    from sylver.campaign.harvest import from_ledger, from_store, from_verified
    from sylver.store import book as B
    from sylver.store.results import Store

    directory, store, root = sources
    if directory is None and store is None and not verified:
        fail("add: give --dir CAMPAIGN_DIR, --store STORE (with --root POSITION) or --verified FILE")
    entries, ledger = [], None
    if directory is not None:
        ledger = Ledger.open(directory, resume=False, read_only=True)
        entries += from_ledger(ledger)
        root = root or ledger.root
    if store is not None or ledger is not None:
        location = store if store is not None else ledger.meta("store") if ledger is not None else None
        if root is None:
            fail("add: --store without --dir needs --root POSITION (the tree bounds what is taken)")
        entries += from_store(Store(location, book=False), root, ledger)
    for path in verified:
        entries += from_verified(path)
    try:
        merged = B.closed(current.merged(entries))
    except ValueError as exc:
        fail(str(exc))
    failures = B.audit(merged)
    if failures:
        fail(f"the book would not be consistent: {failures[0]}" + (f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""))
    B.write(merged, file)
    print(f"{file}: {len(merged) - len(current):,} entries added, {len(merged):,} in all (consistent)")
