"""The results store and the results book: what is known of positions, shared by every part of
sylver (the solver reads and writes it, the campaigns, bots, the page and the CLI read it).

- :mod:`~sylver.store.results`: :class:`Store` (SQLite by default, PostgreSQL for several
  machines), its rows (:class:`Record`), certificates kept inline or by reference, and the
  conflict rules (:class:`StoreConflictError`);
- :mod:`~sylver.store.book`: the results book (``data/book.jsonl``), which the store takes in;
  :mod:`~sylver.store.bookpage`: docs/frontier.md generated from it;
- :mod:`~sylver.store.public`: the public record of the opening 16, which the book is checked
  against.

It stands below the solver: it knows positions, the theory (to check the book) and what a solve
answers (:class:`sylver.solution.Solution`), nothing of how a solve is made.
"""

from __future__ import annotations

from sylver.store.results import (
    INLINE_BYTES,
    Record,
    Store,
    StoreConflictError,
    default_location,
    file_sha256,
    is_url,
    redact,
)

__all__ = ["INLINE_BYTES", "Record", "Store", "StoreConflictError", "default_location", "file_sha256", "is_url",
           "redact"]
