"""When a certificate kept in the results store, or one just checked, proves an answer: the rules
that ``sylver solve --certificate``, ``sylver verify --store | --book`` and a campaign follow (they
lived in the CLI and in the campaign's loop; the store keeps files and results, and knows nothing of
what a certificate proves).

- :func:`proves_outcome`: a certificate's header proves a position's outcome (the same position and
  outcome; for N, at least one winning move).
- :func:`proves`: a certificate's header proves an answer (its outcome; for a complete answer,
  complete with the same winning moves).
- :func:`copy_stored`: the store's certificate of an answer read from it, written to a file, when
  it proves that answer (a proof already built is not built again); :func:`copy_stored_outcome`:
  the same for a position's outcome (a campaign's node decided from the store).
- :func:`record_built`: a certificate just built for an answer, into the store beside the result.
- :func:`record_verified`: a certificate found valid by the verifier, with its result, into a store.
- :func:`against_book`: a valid certificate compared with the results book's entry of its position.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sylver.position import Outcome, Position

if TYPE_CHECKING:
    from sylver.solution import Solution
    from sylver.store import Store


def proves_outcome(head: dict[str, Any], position: Position, outcome: Outcome) -> bool:
    """Whether a certificate with header ``head`` proves that ``position`` is ``outcome``: the same
    position and outcome, and for N at least one winning move (a proof of one is enough)."""
    return ((head.get("outcome"), head.get("position")) == (outcome.value, list(position.generators))
            and (outcome is Outcome.P or bool(head.get("winning_moves"))))


def proves(head: dict[str, Any], sol: Solution) -> bool:
    """Whether a certificate with header ``head`` proves the answer ``sol``: its position's outcome
    (:func:`proves_outcome`), and, when ``sol`` is complete, complete with the same winning moves."""
    if sol.outcome is None or not proves_outcome(head, sol.position, sol.outcome):
        return False
    return not sol.complete or (head.get("complete") is True
                                and sorted(head.get("winning_moves", [])) == sorted(sol.winning_moves))


def copy_stored(db: Store | None, sol: Solution, path: Path) -> int | None:
    """Write to ``path`` the certificate that the results store keeps for the answer ``sol`` read
    from it, when that certificate proves it (:func:`proves`): its size in bytes; None when there is
    no such certificate (the caller builds one; nothing is left at ``path``)."""
    if db is None or not sol.from_store or sol.outcome is None:
        return None
    head = _copied(db, sol.position, path)
    if head is None or not proves(head, sol):
        path.unlink(missing_ok=True)
        return None
    return path.stat().st_size


def copy_stored_outcome(db: Store, position: Position, outcome: Outcome, path: Path) -> list[int] | None:
    """Write to ``path`` the certificate that the results store keeps for ``position``, when it
    proves that the position is ``outcome`` (:func:`proves_outcome`): the winning moves it proves,
    least first (the store's record may hold more); None when there is no such certificate (nothing
    is left at ``path``)."""
    head = _copied(db, position, path)
    if head is None or not proves_outcome(head, position, outcome):
        path.unlink(missing_ok=True)
        return None
    return sorted(head.get("winning_moves") or [])


def _copied(db: Store, position: Position, path: Path) -> dict[str, Any] | None:
    """The header of the store's certificate of ``position``, copied (or linked) to ``path`` a chunk
    at a time; None when the store has none or cannot produce it unchanged (a referenced file
    missing or altered), or it is not a certificate."""
    from sylver.proof.build import certificate_parts

    try:
        if not db.certificate_file(position, path):
            return None
        return certificate_parts(path)[0]
    except (ValueError, OSError):
        return None


def record_built(db: Store | None, sol: Solution, path: Path, outcome: str) -> None:
    """Record the certificate just written to ``path`` in the results store beside the answer
    ``sol``, when it proves the answer stored (``outcome``, the outcome of its header, is the
    answer's P or N, not probably-P), so that a campaign or the web page takes it from there (a file
    above the store's inline size by reference: it must stay where it is).  A store that refuses
    it raises ValueError or OSError."""
    if db is None or sol.outcome is None or outcome != sol.outcome.value:
        return
    db.put_certificate(sol.position, path)


def record_verified(db: Store, file: Path, head: dict[str, Any], sha256: str) -> None:
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


__all__ = ["against_book", "copy_stored", "copy_stored_outcome", "proves", "proves_outcome", "record_built",
           "record_verified"]
