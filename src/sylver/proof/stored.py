"""When a certificate kept in the results store, or one just checked, proves an answer: the rules
that ``sylver solve --certificate`` and ``sylver verify --store | --book`` follow (they lived in the
CLI; the store keeps files and results, and knows nothing of what a certificate proves).

- :func:`proves`: a certificate's header proves an answer (the same position and outcome; for a
  complete answer, complete with the same winning moves).
- :func:`copy_stored`: the store's certificate of an answer read from it, written to a file, when
  it proves that answer (a proof already built is not built again).
- :func:`record_built`: a certificate just built for an answer, into the store beside the result.
- :func:`record_checked`: a certificate found valid by the checker, with its result, into a store.
- :func:`against_book`: a valid certificate compared with the results book's entry of its position.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.position import Outcome, Position

if TYPE_CHECKING:
    from sylver.solution import Solution
    from sylver.store import Store


def proves(head: dict[str, Any], sol: Solution) -> bool:
    """Whether a certificate with header ``head`` proves the answer ``sol``: its position and
    outcome, and, when ``sol`` is complete, complete with the same winning moves."""
    if sol.outcome is None or (head.get("outcome"), head.get("position")) != (sol.outcome.value,
                                                                             list(sol.position.generators)):
        return False
    return not sol.complete or (head.get("complete") is True
                                and sorted(head.get("winning_moves", [])) == sorted(sol.winning_moves))


def copy_stored(db: Store | None, sol: Solution, path: Path) -> int | None:
    """Write to ``path`` the certificate that the results store keeps for the answer ``sol`` read
    from it, when that certificate proves it (:func:`proves`): its size in bytes; None when there is
    no such certificate (the caller builds one; nothing is left at ``path``)."""
    if db is None or not sol.from_store or sol.outcome is None:
        return None
    from sylver.proof.build import certificate_parts

    try:
        if not db.certificate_file(sol.position, path):
            return None
        head = certificate_parts(path)[0]
    except (ValueError, OSError):
        path.unlink(missing_ok=True)
        return None
    if not proves(head, sol):
        path.unlink()
        return None
    return path.stat().st_size


def record_built(db: Store | None, sol: Solution, path: Path, outcome: str) -> None:
    """Record the certificate just written to ``path`` in the results store beside the answer
    ``sol``, when it proves the answer stored (``outcome``, the outcome of its header, is the
    answer's P or N, not probably-P), so that a campaign or the web page takes it from there (a file
    above the store's inline size by reference: it must stay where it is).  A store that refuses
    it raises ValueError or OSError."""
    if db is None or sol.outcome is None or outcome != sol.outcome.value:
        return
    db.put_certificate(sol.position, path)


def record_checked(db: Store, file: Path, head: dict[str, Any], sha256: str) -> None:
    """A certificate found valid (header ``head``, digest ``sha256``) that proves P or N: its result
    and the file into the store ``db`` (a result that contradicts the store's raises
    :class:`~sylver.store.StoreConflictError`); a probably-P claim of the g > 1 engine is no result."""
    if head["outcome"] not in ("P", "N"):
        return
    position = Position(list(head["position"]))
    db.put_result(position, Outcome(head["outcome"]), list(head["winning_moves"]), bool(head["complete"]),
                  position.frobenius_number if position.gcd == 1 else 0)
    db.put_certificate(position, file, sha256=sha256 or None)


def against_book(head: dict[str, Any], sha256: str, size: int) -> tuple[str, bool]:
    """What the results book says of a valid certificate's position, and whether they agree: its
    result, and its digest and size when the book has a receipt."""
    from sylver.store.book import load

    position = Position(list(head["position"]))
    current = load()
    entry = None if current is None else current.get(position)
    if entry is None:
        return f"results book: no entry for {position.braces()} (`sylver book add` takes a campaign's)", True
    if entry.outcome.value != head["outcome"] or not set(entry.winning) <= set(head["winning_moves"]) \
            and entry.outcome.value == "N" and not set(entry.winning) & set(head["winning_moves"]):
        return f"results book: {entry.describe()}, the certificate proves {head['outcome']}: they disagree", False
    c = entry.certificate
    if c is None or not c.sha256:
        return (f"results book: {entry.describe()}, agrees; the book has no digest of its certificate "
                f"(this one: SHA-256 {sha256}, {size:,} bytes)"), True
    if (c.sha256, c.bytes) != (sha256, size):
        return (f"results book: {entry.describe()}; its certificate's receipt is SHA-256 {c.sha256}, {c.bytes:,} bytes, "
                f"not this file's {sha256}, {size:,} bytes"), False
    return f"results book: {entry.describe()}; the SHA-256 and size match its receipt (checked {c.checked})", True


__all__ = ["against_book", "copy_stored", "proves", "record_built", "record_checked"]
