"""The results book: what the project has established, versioned in the repository (docs/book.md).

``src/sylver/data/book.jsonl`` (package data: an installed sylver finds it) holds one JSON object a
line, one position a line, sorted by the position's generators, its keys in the order of
:data:`FIELDS`, so that it diffs and merges well.  The results store reads it as a fallback
(:meth:`sylver.store.results.Store.get`), so ``sylver solve``, the campaign, the perfect bot and the
web page know it on a fresh install; ``sylver book add`` adds what a campaign or a store decided.

A book is written only when :func:`audit` finds it consistent: an N entry's winning move leads to a
P entry or to a position the theory proves P; a P entry of a short position has each obligation N in
the book or by a theorem; no entry contradicts the paper, the theory or the public record
(:mod:`sylver.store.public`).  Two results for one position merge (the union of the winning
moves, the larger search kept) unless they contradict (:class:`ConflictError`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from sylver.position import Outcome, Position

FIELDS = ("position", "outcome", "winning", "complete", "how", "states", "seconds", "engine", "date",
          "certificate", "rebuild", "note")
"""The keys of a line, in the order they are written."""

HOWS = ("search", "children", "paper", "published")
"""How an entry was decided: one search (``sylver solve`` or a campaign's attempt); by its children
(a campaign: a winning child P, or every obligation of a short position N); stated by the paper;
a published result (the public record) taken as such."""

ENV = "SYLVER_BOOK"
"""Another book file for this process (tests use a small one), or ``off`` for none."""

OFF = "off"

PACKAGE_BOOK = Path(__file__).resolve().parent.parent / "data" / "book.jsonl"
"""The book shipped with sylver (in a checkout installed editable: the repository's)."""


class BookError(ValueError):
    """A book file that cannot be read (a broken line), or a book that :func:`audit` refuses."""


class ConflictError(ValueError):
    """Two results for the same position contradict each other (another outcome, or a winning move
    missing from a complete set): one of the two computations is wrong."""


@dataclass(frozen=True, kw_only=True)
class Certificate:
    """The receipt of a certificate that ``sylver verify`` found valid."""

    sha256: str
    """Its SHA-256 (hex); empty when the check's record did not keep it."""
    bytes: int
    checked: str
    """The date of the check (ISO, e.g. 2026-11-28)."""
    nodes: int | None = None
    """Its gcd-1 P-positions, when known."""

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"sha256": self.sha256, "bytes": self.bytes, "checked": self.checked}
        if self.nodes is not None:
            d["nodes"] = self.nodes
        return d


@dataclass(frozen=True, kw_only=True)
class Entry:
    """A line of the book: one position's result and its evidence."""

    position: Position
    outcome: Outcome
    winning: tuple[int, ...] = ()
    """Winning moves known (sorted; empty for P, or for an N whose reply was not kept)."""
    complete: bool = False
    """Whether ``winning`` is every winning move (always for P)."""
    how: str = "search"
    """One of :data:`HOWS`."""
    states: int = 0
    seconds: float = 0.0
    engine: str = ""
    """The sylver version and commit that decided it, when known."""
    date: str = ""
    """When it was decided (ISO date)."""
    certificate: Certificate | None = None
    """The receipt of a checked certificate; None: none was checked (``note`` says why)."""
    rebuild: str = ""
    """The command that rebuilds the certificate, or re-derives the result."""
    note: str = ""

    def to_line(self) -> str:
        """The entry as its line of the book (keys in :data:`FIELDS` order)."""
        d = {"position": str(self.position), "outcome": self.outcome.value, "winning": list(self.winning),
             "complete": self.complete, "how": self.how, "states": self.states,
             "seconds": round(self.seconds, 3), "engine": self.engine, "date": self.date,
             "certificate": None if self.certificate is None else self.certificate.to_dict(),
             "rebuild": self.rebuild, "note": self.note}
        return json.dumps(d, ensure_ascii=False)

    def evidence(self) -> str:
        """How it was decided, and its certificate: ``decided 2026-11-27 by a search (9,489,849
        states, 68.7 s; sylver 0.1.0 (commit bbf2e9a)); certificate …``."""
        how = {"search": "a search", "children": "its children (a campaign)", "paper": "the paper",
               "published": "the public record"}[self.how]
        figures = ", ".join(x for x in (f"{self.states:,} states" if self.states else "",
                                         f"{self.seconds:g} s" if self.seconds else "", self.engine) if x)
        text = f"decided {self.date or '(date not recorded)'} by {how}" + (f" ({figures})" if figures else "")
        c = self.certificate
        if c is not None:
            digest = f"SHA-256 {c.sha256}, " if c.sha256 else ""
            text += f"; certificate {digest}{c.bytes:,} bytes, checked valid {c.checked}"
        elif self.note:
            text += f"; {self.note}"
        return text

    def source_text(self) -> str:
        """What ``sylver solve`` prints of an answer read from the book."""
        return f"from the results book: {self.evidence()}" + (f"; rebuild: {self.rebuild}" if self.rebuild else "")

    def describe(self) -> str:
        """One line: ``{16,38,101} N, 33 wins``."""
        moves = ", ".join(map(str, self.winning))
        wins = f", {moves} win{'s' if len(self.winning) == 1 else ''}" if self.winning else ""
        return f"{self.position.braces()} {self.outcome.value}{wins}"


def entry_from_dict(d: Any, where: str = "") -> Entry:
    """An :class:`Entry` from a line's JSON object; a bad one raises :class:`BookError` (one line,
    ``where`` first)."""
    prefix = f"{where}: " if where else ""
    if not isinstance(d, dict):
        raise BookError(f"{prefix}not a JSON object")
    unknown = set(d) - set(FIELDS)
    if unknown or "position" not in d or "outcome" not in d:
        raise BookError(f"{prefix}unknown keys {sorted(unknown)}" if unknown else f"{prefix}no position or outcome")
    try:
        position = Position.parse(str(d["position"]))
        if str(position) != d["position"]:
            raise BookError(f"{prefix}{d['position']!r} is not in canonical form ({position})")
        outcome = Outcome(d["outcome"])
        cert = d.get("certificate")
        entry = Entry(
            position=position, outcome=outcome, winning=tuple(sorted(int(x) for x in d.get("winning", []))),
            complete=bool(d.get("complete", outcome is Outcome.P)), how=str(d.get("how", "search")),
            states=int(d.get("states", 0)), seconds=float(d.get("seconds", 0.0)), engine=str(d.get("engine", "")),
            date=str(d.get("date", "")), rebuild=str(d.get("rebuild", "")), note=str(d.get("note", "")),
            certificate=None if cert is None else Certificate(
                sha256=str(cert.get("sha256", "")), bytes=int(cert["bytes"]), checked=str(cert["checked"]),
                nodes=None if cert.get("nodes") is None else int(cert["nodes"])),
        )
    except BookError:
        raise
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise BookError(f"{prefix}{' '.join(str(exc).split()) or type(exc).__name__}") from None
    if entry.how not in HOWS:
        raise BookError(f"{prefix}how {entry.how!r} is not one of {', '.join(HOWS)}")
    if entry.outcome is Outcome.P and (entry.winning or not entry.complete):
        raise BookError(f"{prefix}a P entry has no winning moves and is complete")
    if entry.outcome is Outcome.N and entry.complete and not entry.winning:
        raise BookError(f"{prefix}a complete N entry names its winning moves")
    return entry


class Book:
    """A results book: its entries by position text (``"16,38,101"``).  A book read lazily
    (:func:`load`) holds its lines as JSON objects and makes each :class:`Entry` when it is asked for
    (a Position costs a millisecond to build: a store opens the book at once)."""

    def __init__(self, entries: dict[str, Any] | None = None, path: Path | None = None) -> None:
        self.lines: dict[str, Any] = dict(entries or {})
        """Entry, or its line's JSON object not read yet, by position text."""
        self.path = path
        """The file it was read from, if any."""
        self._index: dict[frozenset[int], list[tuple[int, Entry]]] | None = None

    @property
    def entries(self) -> dict[str, Entry]:
        """Every entry, by position text."""
        return {key: self.entry(key) for key in self.lines}

    def entry(self, key: str) -> Entry:
        item = self.lines[key]
        if not isinstance(item, Entry):
            item = self.lines[key] = entry_from_dict(item, f"{self.path or 'the book'}: {key}")
        return item

    def get(self, position: Position) -> Entry | None:
        key = str(position)
        return self.entry(key) if key in self.lines else None

    def __contains__(self, position: object) -> bool:
        return isinstance(position, Position) and str(position) in self.lines

    def __iter__(self) -> Iterator[Entry]:
        """The entries in the book's order (by generators)."""
        return iter(sorted(self.entries.values(), key=lambda e: e.position.generators))

    def __len__(self) -> int:
        return len(self.lines)

    def children(self, position: Position) -> list[tuple[int, Entry]]:
        """The entries one move from ``position`` (move, entry), by move.  ⟨p, x⟩ = q exactly when x
        is the only generator of q outside p and p ⊆ q, so q's other generators are among p's: an
        index by those finds them."""
        if self._index is None:
            self._index = {}
            for e in self:
                for x in e.position.generators:
                    rest = frozenset(e.position.generators) - {x}
                    self._index.setdefault(rest, []).append((x, e))
        gens = position.generators
        found = {}
        for size in range(len(gens) + 1):
            for subset in combinations(gens, size):
                for x, e in self._index.get(frozenset(subset), ()):
                    if x not in position.semigroup and e.position != position and position.play(x) == e.position:
                        found[x] = e
        return sorted(found.items())

    def under(self, position: Position) -> list[Entry]:
        """The entries of positions reached from ``position`` by moves (it included): every generator
        of ``position`` is in theirs."""
        gens = position.generators
        return [e for e in self if all(x in e.position.semigroup for x in gens)]

    def merged(self, entries: Iterable[Entry]) -> Book:
        """This book with ``entries`` added, each merged with the entry of its position
        (:func:`merge`; a contradiction raises :class:`ConflictError`)."""
        out = self.entries
        for e in entries:
            key = str(e.position)
            out[key] = merge(out[key], e) if key in out else e
        return Book(out, self.path)

    def text(self) -> str:
        """The book as its file: a line an entry, sorted by generators."""
        return "".join(e.to_line() + "\n" for e in self)


def merged_moves(where: str, old: tuple[Outcome, tuple[int, ...], bool], new: tuple[Outcome, tuple[int, ...], bool],
                 names: tuple[str, str] = ("stored", "new")) -> tuple[tuple[int, ...], bool]:
    """The winning moves and completeness of two results (outcome, winning moves, complete) for the
    position ``where`` together: the union of the moves, complete when either is; a contradiction
    (another outcome, a move missing from a complete set) raises :class:`ConflictError` naming
    ``where`` and the two results (``names``: what to call them)."""
    (old_outcome, old_moves, old_complete), (outcome, moves, complete) = old, new
    first, second = names
    if old_outcome is not outcome:
        raise ConflictError(f"conflicting results for {where}: {first} {old_outcome}, {second} {outcome}")
    new_set, old_set = set(moves), set(old_moves)
    if old_complete and not new_set <= old_set:
        raise ConflictError(f"conflicting results for {where}: {sorted(new_set - old_set)} not in the "
                            f"{first} complete set {sorted(old_set)}")
    if complete and not old_set <= new_set:
        raise ConflictError(f"conflicting results for {where}: {first} winning moves {sorted(old_set - new_set)} "
                            f"missing from the {second} complete set {sorted(new_set)}")
    if old_complete:
        return tuple(sorted(old_moves)), True
    if complete:
        return tuple(sorted(moves)), True
    return tuple(sorted(old_set | new_set)), False


def merge(old: Entry, new: Entry) -> Entry:
    """Two entries of one position as one: the union of their winning moves; the evidence (how,
    search, engine, date) of the larger search (more states), with the checked
    certificate of either (its receipt, rebuild command and note first; a bare receipt, the record of
    a check with no search of its own, keeps the other's rebuild command: the book's entry names the
    command that built the file checked, a receipt only a generic one).  On a tie the book's entry
    stays (the same search added again from a store must not replace a note written for it)."""
    moves, complete = merged_moves(old.position.braces(), (old.outcome, old.winning, old.complete),
                                   (new.outcome, new.winning, new.complete), ("book's", "new entry's"))
    proof = old if old.certificate is not None else new if new.certificate is not None else None
    keep = old if old.states > new.states or (old.states == new.states and proof is not new) else new
    if proof is not None and keep.certificate is None:  # the larger search, with the checked certificate
        kept = [part for part in keep.note.split("; ") if part and "not checked" not in part]
        receipt = proof.states == 0 and keep.rebuild  # (harvest.from_verified: a check's record)
        keep = replace(keep, certificate=proof.certificate, rebuild=keep.rebuild if receipt else proof.rebuild,
                       note="; ".join([proof.note, *kept] if proof.note else kept))
    return replace(keep, winning=moves, complete=complete)


def closed(book: Book) -> Book:
    """``book`` with what its entries' own evidence proves besides, so that :func:`audit` can be
    strict: the P-position after each winning move of an N entry decided by one search (that search
    proved it P), and each obligation of a short P entry (the proof of the P entry proved it N; the
    entry holds the outcome only), when neither the book nor a theorem has it."""
    while True:
        added = [*_replies(book), *_obligations(book)]
        if not added:
            return book
        book = book.merged(added)


def _replies(book: Book) -> list[Entry]:
    added = []
    for e in book:
        if e.outcome is not Outcome.N or e.how != "search":
            continue
        for w in e.winning:
            after = e.position.play(w)
            if after not in book and _proved(book, after, Outcome.P) is None:
                added.append(Entry(position=after, outcome=Outcome.P, complete=True, how="search",
                                   engine=e.engine, date=e.date, rebuild=e.rebuild,
                                   note=f"the position after {e.position.braces()}'s winning move {w}, "
                                        f"proven by its search"))
    return added


def _obligations(book: Book) -> list[Entry]:
    from sylver.theory import short_moves

    added: dict[str, Entry] = {}
    for e in book:
        if e.outcome is not Outcome.P or not _short(e.position):
            continue
        how = "its search" if e.how == "search" else "its proof"
        for x in short_moves(e.position):
            after = e.position.play(x)
            if after not in book and str(after) not in added and _proved(book, after, Outcome.N) is None:
                added[str(after)] = Entry(
                    position=after, outcome=Outcome.N, how=e.how if e.how in ("search", "children") else "search",
                    engine=e.engine, date=e.date, rebuild=e.rebuild,
                    note=f"an obligation of {e.position.braces()} (its move {x}), proven N by {how}; the reply not kept")
    return list(added.values())


def _short(p: Position) -> bool:
    """Is ``p`` short (prime g, p ÷ g a quiet ender: sec. 1)?"""
    from sylver.theory import is_prime, is_short

    return p.gcd > 1 and is_prime(p.gcd) and is_short(p)


# -- the file ----------------------------------------------------------------------------------------
def default_path() -> Path | None:
    """The book this process reads: ``$SYLVER_BOOK`` (``off``: none), else the package's
    ``data/book.jsonl``."""
    env = os.environ.get(ENV, "")
    if env:
        return None if env == OFF else Path(env)
    return PACKAGE_BOOK


def read(path: str | Path, *, lazy: bool = False) -> Book:
    """The book in the file ``path`` (a missing file is an empty book); a broken line raises
    :class:`BookError` naming the file and the line (``lazy``: only its JSON is read now, each entry
    when it is asked for)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Book({}, path)
    except (OSError, UnicodeDecodeError) as exc:
        raise BookError(f"cannot read the results book {path}: {exc}") from None
    entries: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            d = json.loads(line)
        except ValueError as exc:
            raise BookError(f"{where}: not JSON ({exc})") from None
        if lazy and isinstance(d, dict) and isinstance(d.get("position"), str):
            key = d["position"]
        else:
            d = entry_from_dict(d, where)
            key = str(d.position)
        if key in entries:
            raise BookError(f"{where}: {{{key}}} has a line already")
        entries[key] = d
    return Book(entries, path)


_LOADED: dict[Path, tuple[float, Book]] = {}


def load(path: str | Path | None = None) -> Book | None:
    """The book of :func:`default_path` (or ``path``), read once per process (again when the file
    changed); None when the book is off."""
    p = default_path() if path is None else Path(path)
    if p is None:
        return None
    try:
        stamp = p.stat().st_mtime
    except OSError:
        stamp = -1.0
    cached = _LOADED.get(p)
    if cached is None or cached[0] != stamp:
        cached = _LOADED[p] = (stamp, read(p, lazy=True))
    return cached[1]


def write(book: Book, path: str | Path) -> None:
    """Write ``book`` to ``path`` (through a temporary file, renamed), once :func:`audit` finds it
    consistent; else :class:`BookError` with the failures, a line each."""
    failures = audit(book)
    if failures:
        raise BookError("the book is not written: " + "; ".join(failures[:5])
                        + (f"; and {len(failures) - 5} more" if len(failures) > 5 else ""))
    path = Path(path)
    part = path.with_name(path.name + ".part")
    part.write_text(book.text(), encoding="utf-8")
    os.replace(part, path)
    _LOADED.pop(path.resolve(), None)


# -- consistency -------------------------------------------------------------------------------------
def audit(book: Book) -> list[str]:
    """What is wrong with ``book``, a line per failure naming the entry (empty: consistent).

    * An N entry: each winning move leads to a P entry, or to a position the theory proves P.
    * A P entry of a short position (sec. 1): each obligation (the moves its certificate answers,
      :func:`sylver.theory.short_moves`) leads to an N entry or a position proved N by a
      theorem.
    * No entry contradicts the paper's results or the theory (:func:`sylver.theory.outcome_by_theory`),
      the complete sets of ``../shared/data/known_results.json`` when present, or the public record
      of the opening 16 (:func:`sylver.store.public.conflict`).
    """
    from sylver.store.public import conflict

    failures = []
    for e in book:
        problem = _theory_conflict(e) or conflict(e.position, e.outcome, e.winning, e.complete) or _support(book, e)
        if problem:
            failures.append(f"{e.describe()}: {problem}")
    return failures


def _theory_conflict(e: Entry) -> str:
    """How the paper or the theory contradicts ``e`` ('' when they do not)."""
    from sylver.theory import known_result, outcome_by_theory

    known = known_result(e.position)
    if known is not None:
        try:
            merged_moves(e.position.braces(), (known.outcome, known.winning_moves, known.complete),
                         (e.outcome, e.winning, e.complete), ("paper's", "book's"))
        except ConflictError as exc:
            return str(exc)
    outcome, why = outcome_by_theory(e.position)
    if outcome is not None and outcome is not e.outcome:
        return f"the theory proves it {outcome.value}: {why}"
    return ""


def _support(book: Book, e: Entry) -> str:
    """Why ``e`` does not rest on the book and the theorems ('' when it does)."""
    if e.outcome is Outcome.N:
        for w in e.winning:
            after = e.position.play(w)
            if _proved(book, after, Outcome.P) is None:
                return f"its winning move {w} leads to {after.braces()}, which is not P in the book nor by a theorem"
        return ""
    from sylver.theory import short_moves

    if not _short(e.position):
        return ""
    for x in short_moves(e.position):
        after = e.position.play(x)
        if _proved(book, after, Outcome.N) is None:
            return f"its obligation {x} leads to {after.braces()}, which is not N in the book nor by a theorem"
    return ""


def _proved(book: Book, position: Position, outcome: Outcome) -> str | None:
    """Where ``position`` is proved ``outcome``: "book", "theory", or None."""
    from sylver.theory import known_outcome, outcome_by_theory, proven_n

    entry = book.get(position)
    if entry is not None:
        return "book" if entry.outcome is outcome else None
    if outcome is Outcome.N and proven_n(position):
        return "theory"
    if known_outcome(position) is outcome or outcome_by_theory(position)[0] is outcome:
        return "theory"
    return None


__all__ = ["ENV", "FIELDS", "HOWS", "Book", "BookError", "Certificate", "ConflictError", "Entry", "audit",
           "default_path", "entry_from_dict", "load", "merge", "merged_moves", "read", "closed", "write"]
