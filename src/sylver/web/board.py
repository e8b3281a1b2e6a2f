"""The research board of a root position: every reply to it, and what is known of each.

A root is an opening 2^a·3^b ≥ 12 (Sicherman 2002, sec. 2: those above 12 are undecided; the opening
{16} first), the root of a campaign the page shows (``sylver serve --campaign``), or a root the
research works on (:func:`researched`): an undecided position with g > 1 some of whose replies the
results book or the public record decides ({16,38}, {16,38,72}: the campaigns' roots below {16}).  For each legal
reply up to a bound (the largest reply anything below knows of, at most :data:`MOST_REPLIES` numbers)
the board reads, at once and without a search:

* the theory (:func:`sylver.theory.outcome_by_theory`): the odd replies to 16 lose by Hutchings's
  theorem, a few even ones lead to a position a theorem decides;
* the results store (``--store``) and the results book (:mod:`sylver.store.book`; the store falls
  back to it, and without a store the book is read alone), with the certificate when one is stored
  or the book records one checked;
* the public record (:func:`sylver.store.public.published`): whether the result is published or ours;
* each campaign's ledger: the node of the reply, its status, and the largest search that failed on it.

The functions run in a position process of the web app; nothing here writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from sylver.position import Position

MOST_REPLIES = 400
"""The board lists the legal replies up to this number at most."""


def smooth(n: int) -> bool:
    """Whether ``n`` is 2^a·3^b."""
    for p in (2, 3):
        while n % p == 0:
            n //= p
    return n == 1


def is_open_opening(p: Position) -> bool:
    """An opening the paper lists as undecided (2^a·3^b ≥ 12), whose board the page shows."""
    return len(p.generators) == 1 and p.generators[0] >= 12 and smooth(p.generators[0])


def campaign_root(p: Position, campaign_dirs: Sequence[str]) -> int | None:
    """The index of the first campaign whose root is ``p``, or None."""
    from sylver.web.campaigns import reading

    for i, d in enumerate(campaign_dirs):
        with reading(Path(d)) as ledger:
            if ledger.root == p:
                return i
    return None


def applies(p: Position, campaign_dirs: Sequence[str], store: Any = None) -> bool:
    """Whether ``p`` has a research board (module docstring)."""
    return not p.is_over and (is_open_opening(p) or campaign_root(p, campaign_dirs) is not None
                              or researched(p, store))


@lru_cache(maxsize=8)
def _keys(keys: tuple[str, ...]) -> tuple[frozenset[int], ...]:
    return tuple(frozenset(int(x) for x in k.split(",")) for k in keys)


def _decided_children(p: Position, keys: tuple[str, ...]) -> list[int]:
    """The moves x ≤ :data:`MOST_REPLIES` from ``p`` to a position among ``keys`` (position texts).
    A move x leads to q exactly when x is q's only generator outside p (and q is p + x): a scan of
    the texts, no position built but the candidates'."""
    gens = frozenset(p.generators)
    found = []
    for key, q in zip(keys, _keys(keys), strict=True):
        extra = q - gens
        if len(extra) == 1:
            (x,) = extra
            if x <= MOST_REPLIES and p.is_legal(x) and str(p.play(x)) == key:
                found.append(x)
    return found


def researched(p: Position, store: Any = None) -> bool:
    """Whether ``p`` is a root the research works on: g > 1 (infinitely many replies, the solver does
    not take it), not decided by the store, the results book, the public record or a theorem, and
    at least one of its replies decided in the results book or the public record."""
    from sylver.store.book import load
    from sylver.store.public import published, results

    if p.gcd == 1 or p.is_over or published(p) is not None or _theory(p)[0] is not None:
        return False
    book = store.book if store is not None else load()
    if (store is not None and store.get(p) is not None) or (book is not None and p in book):
        return False
    if book is not None and _decided_children(p, tuple(book.lines)):
        return True
    return bool(_decided_children(p, tuple(results())))


@lru_cache(maxsize=4096)
def _theory(child: Position) -> tuple[str | None, str]:
    """What a theorem says of ``child`` (kept: the board asks again at every visit)."""
    from sylver.theory import outcome_by_theory

    outcome, why = outcome_by_theory(child)
    return (None if outcome is None else outcome.value), why


@dataclass(frozen=True)
class _Node:
    """What the board shows of a campaign's node."""

    status: str
    winning: int | None
    attempts: int
    certificate: str


def _campaigns(campaign_dirs: Sequence[str]) -> list[dict[str, Any]]:
    """Each campaign's nodes by position text: status, winning move, the largest search that failed.
    Read with two queries, no position parsed (a campaign's ledger holds thousands of nodes and
    attempts, and the board answers at once)."""
    from sylver.web.campaigns import reading

    out = []
    for i, d in enumerate(campaign_dirs):
        with reading(Path(d)) as ledger:
            failed = dict(ledger.conn.execute(
                "SELECT position, MAX(COALESCE(states, 0)) FROM attempts WHERE result IS NULL OR result NOT IN ('P', 'N') "
                "GROUP BY position").fetchall())
            nodes = {text: _Node(status, winning, attempts or 0, certificate or "") for text, status, winning, attempts, certificate
                     in ledger.conn.execute("SELECT position, status, winning, attempts, certificate FROM nodes")}
            root = str(ledger.root)
            children = ledger.conn.execute("SELECT move, child FROM edges WHERE parent = ? ORDER BY move", (root,)).fetchall()
        out.append({"index": i, "root": root, "nodes": nodes, "failed": failed, "children": children})
    return out


def board(store: Any, p: Position, campaign_dirs: Sequence[str]) -> dict[str, Any]:
    """The board of ``p`` (module docstring): ``rows`` (one a legal reply up to ``bound``), ``root``
    (what is known of ``p`` itself), ``campaign`` (the index of the campaign whose root it is)."""
    from sylver.store.book import load
    from sylver.store.public import published

    book = store.book if store is not None else load()
    camps = _campaigns(campaign_dirs)
    replies: dict[int, Position] = {}
    known: set[int] = set()
    top = min(MOST_REPLIES, p.frobenius_number) if p.is_finite else MOST_REPLIES
    for n in range(2, top + 1):
        if not p.is_legal(n):
            continue
        child = p.play(n)
        replies[n] = child
        if (book is not None and child in book) or published(child) is not None or \
                any(str(child) in c["nodes"] for c in camps):
            known.add(n)
    for c in camps:
        if c["root"] == str(p):
            known.update(m for m, _ in c["children"] if m <= MOST_REPLIES)
    bound = top if p.is_finite else max(known, default=2 * p.generators[0]) + 1
    rows = [_row(store, book, n, child, camps) for n, child in replies.items() if n <= bound]
    index = next((c["index"] for c in camps if c["root"] == str(p)), None)
    return {"position": list(p.generators), "bound": bound, "finite": p.is_finite, "rows": rows,
            "root": _known(store, book, p, camps), "campaign": index}


def _known(store: Any, book: Any, p: Position, camps: list[dict[str, Any]]) -> dict[str, Any]:
    """What is known of one position: outcome (P, N or None), winning moves, how, published or ours,
    certificate, campaign nodes."""
    from sylver.store.public import published

    out: dict[str, Any] = {"outcome": None, "winning": [], "complete": False, "how": None, "why": "",
                           "published": False, "ours": False, "certificate": None, "campaigns": []}
    pub = published(p)
    if pub is not None:
        out.update(outcome=pub.outcome.value, winning=list(pub.winning), complete=pub.complete, how="published",
                   published=True, why=pub.where)
    rec = store.get(p) if store is not None else None
    entry = book.get(p) if book is not None else None
    if rec is not None or entry is not None:
        if rec is not None:
            outcome, moves, complete = rec.outcome.value, rec.winning_moves, rec.complete
        else:
            assert entry is not None
            outcome, moves, complete = entry.outcome.value, entry.winning, entry.complete
        ours = (rec is not None and rec.source == "store") or (entry is not None and entry.how != "published")
        out.update(outcome=outcome, winning=sorted(set(out["winning"]) | set(moves)), ours=out["ours"] or ours,
                   complete=out["complete"] or complete,
                   how=out["how"] if not ours else ("store" if rec is not None and rec.source == "store" else "book"))
        if entry is not None and entry.certificate is not None:
            out["certificate"] = {"stored": False, "checked": entry.certificate.checked, "sha256": entry.certificate.sha256}
        if rec is not None and rec.source == "store" and store.has_certificate(p):
            out["certificate"] = {"stored": True, "checked": "", "sha256": ""}
        if entry is not None and not out["why"]:
            out["why"] = entry.evidence()
    for c in camps:
        node = c["nodes"].get(str(p))
        if node is None:
            continue
        out["campaigns"].append({"index": c["index"], "status": node.status, "winning": node.winning,
                                 "failed_states": c["failed"].get(str(p), 0), "attempts": node.attempts,
                                 "certificate": bool(node.certificate)})
        if node.status in ("P", "N") and out["outcome"] is None:
            out.update(outcome=node.status, winning=[node.winning] if node.winning else [], how="campaign", ours=True)
    outcome, why = _theory(p)
    out["theorem"] = why if outcome is not None else ""
    if out["outcome"] is None and outcome is not None:
        out.update(outcome=outcome, how="theorem", why=why)
    return out


def _row(store: Any, book: Any, move: int, child: Position, camps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"move": move, "position": list(child.generators)} | _known(store, book, child, camps)


__all__ = ["MOST_REPLIES", "applies", "board", "campaign_root", "is_open_opening", "smooth"]
