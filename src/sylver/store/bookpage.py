"""docs/frontier.md, generated from the results book (``sylver book page``): new results first,
each with its command and certificate receipt, then what was reproduced of the public record."""

from __future__ import annotations

from sylver.position import Outcome
from sylver.store.book import Book, Entry
from sylver.store.public import published

INTRO = """# The frontier of the opening 16: results

Generated from the results book (`src/sylver/data/book.jsonl`) by `sylver book page >
docs/frontier.md`; a test checks that this page is what the book generates. Do not edit it: add to
the book (`sylver book add`, docs/book.md) and generate it again. The history of the sessions and
their measurements: [frontier-log.md](frontier-log.md).

The open question (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 2):
"Opening moves 2^a 3^b greater than 12 are undecided, and Conway has offered a prize for the first
to be decided." The smallest is 16: {16} is N exactly when some reply r leaves a P-position {16, r}.
The public record (rudi-cilibrasi/sylver-coinage, last dated 2026-10-10; `opening16_public.json`)
answers the replies 2–36, 56, 58, 62, 86, 88, 90, 140 and 156; the lowest reply nobody has
answered is 38, and {16,38} is P (16 loses) exactly when each of its obligations is N.

A result is *new* when the public record (and the paper) do not decide its position. Certificates
are not kept in the repository: each row gives the command that rebuilds one, and `sylver verify`
checks it (against the recorded SHA-256 where the book has one).
"""


def _result(e: Entry) -> str:
    if e.outcome is Outcome.P:
        return "P"
    return "N, " + ", ".join(map(str, e.winning)) + (" (all)" if e.complete else "") if e.winning else "N"


def _receipt(e: Entry) -> str:
    c = e.certificate
    if c is not None:
        digest = f"SHA-256 `{c.sha256[:16]}…`, " if c.sha256 else ""
        return f"{digest}{c.bytes:,} bytes, checked valid {c.checked}"
    return e.note.replace("|", "/") or "certificate not checked"


def _table(entries: list[Entry]) -> list[str]:
    lines = ["| position | result | how | date | command | certificate |", "| --- | --- | --- | --- | --- | --- |"]
    for e in entries:
        lines.append(f"| {e.position.braces()} | {_result(e)} | {e.how} | {e.date} | `{e.rebuild}` | {_receipt(e)} |")
    return lines


def page(book: Book) -> str:
    """The page (Markdown)."""
    new = [e for e in book if published(e.position) is None]
    old = [e for e in book if published(e.position) is not None]

    def shown(entries: list[Entry]) -> list[Entry]:
        return [e for e in entries if e.outcome is Outcome.P or e.winning]

    out = [INTRO, f"The book holds {len(book):,} entries: {len(new):,} new, {len(old):,} in the public record "
           f"(or the paper); {sum(e.certificate is not None for e in book):,} with a certificate receipt "
           "(SHA-256, bytes, date of the check).", "", "## New results", "",
           f"{len(shown(new)):,} results with a winning move or P (the other {len(new) - len(shown(new)):,} new "
           "entries are outcome-only N: obligations of a P-position, proven by its proof).", "",
           *_table(shown(new)), "", "## Reproduced from the public record", "",
           f"{len(shown(old)):,} results with a winning move or P ({len(old) - len(shown(old)):,} more outcome-only).", "",
           *_table(shown(old)), ""]
    return "\n".join(out)


__all__ = ["INTRO", "page"]
