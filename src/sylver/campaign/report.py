"""The ledger as data (:func:`ledger_data`: JSON), and rendered: rows for a table (:func:`rows`, the
CLI and the web page) and Markdown (:func:`markdown`)."""

from __future__ import annotations

from typing import Any

from sylver.campaign.ledger import Ledger, Node
from sylver.campaign.proof import recorded_valid


def why(ledger: Ledger, node: Node) -> str:
    """Why a node is in the ledger: the root, or the moves of the parents that lead to it."""
    parents = ledger.parents(node.position)
    if not parents:
        return "root"
    return "; ".join(f"{p.braces()} + {x}" for p, x in sorted(parents, key=lambda e: (len(e[0].generators), e[1])))


def rows(ledger: Ledger, max_depth: int | None = None, theorems: bool = True) -> list[dict[str, Any]]:
    """One dict a node (``max_depth``: those at most that many moves from the root; ``theorems``:
    with the nodes N by a theorem): the :meth:`Node.to_dict` fields, with ``text`` (the position in
    braces), ``why``, ``certificate_pending`` (:func:`certificate_pending`) and ``certificate_valid``
    (its file recorded valid by ``sylver campaign verify``: :func:`~sylver.campaign.proof.recorded_valid`)."""
    out = []
    checked = recorded_valid(ledger)
    for node in ledger.nodes():
        if (max_depth is not None and node.depth > max_depth) or (not theorems and node.method == "theorem"):
            continue
        row = {"text": node.position.braces(), "why": why(ledger, node), **node.to_dict()}
        row["certificate_pending"] = certificate_pending(row)
        row["certificate_valid"] = node.position in checked
        out.append(row)
    return out


def certificate_pending(row: dict[str, Any]) -> bool:
    """Whether a node is decided by a search (``solve``, or the results store) with its certificate
    still to be built: its next attempt builds the certificate alone."""
    return row["status"] in ("P", "N") and not row["certificate"] and row["method"] in ("solve", "store")


def ledger_data(ledger: Ledger, max_depth: int | None = None) -> dict[str, Any]:
    """The whole ledger as one JSON object: summary, nodes (with why), and the attempts' count."""
    return {"summary": ledger.summary(), "store": ledger.meta("store"), "nodes": rows(ledger, max_depth),
            "attempts": len(ledger.attempts()), "certificates_recorded_valid": len(recorded_valid(ledger))}


COLUMNS = ("position", "why", "status", "winning", "method", "attempts", "budget s", "states", "seconds",
           "memory", "certificate")


def cells(row: dict[str, Any]) -> list[str]:
    """A row's cells, in :data:`COLUMNS` order, as text.  A node decided with its certificate still
    to be built shows the budget of the attempt that will build it, and ``to build``; a certificate
    file recorded valid by the independent verifier is followed by ``(valid)``."""
    status = row["status"]
    pending = certificate_pending(row)
    return [
        row["text"], row["why"], status, "" if row["winning"] is None else str(row["winning"]), row["method"],
        str(row["attempts"]), f"{row['budget']:g}" if pending or status not in ("P", "N") else "",
        f"{row['states']:,}" if row["states"] else "", f"{row['seconds']:.1f}" if row["seconds"] else "",
        _mb(row["peak_bytes"]),
        "to build" if pending else row["certificate"] + (" (valid)" if row.get("certificate_valid") else ""),
    ]


def _mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB" if n else ""


def headline(summary: dict[str, Any]) -> str:
    """One line: the root's status and the counts."""
    root = "{" + ",".join(map(str, summary["root"])) + "}"
    status = summary["status"]
    verdict = (f"{root} is {status}" + (f": {summary['winning']} wins" if summary.get("winning") else "")
               if status in ("P", "N") else f"{root} is open")
    return (f"{verdict}; {summary['nodes']:,} nodes: {summary['P']:,} P, {summary['N']:,} N, "
            f"{summary['open'] + summary['working']:,} open")


def markdown(ledger: Ledger, max_depth: int | None = None) -> str:
    """The ledger as a Markdown table, under its headline."""
    lines = [f"# Campaign on {ledger.root.braces()}", "", headline(ledger.summary()), "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for row in rows(ledger, max_depth, theorems=False):
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells(row)) + " |")
    return "\n".join(lines) + "\n\n" + theorem_line(ledger, max_depth) + "\n\n" + certificates_line(ledger) + "\n"


def certificates_line(ledger: Ledger) -> str:
    """The certificate files written, those recorded valid by ``sylver campaign verify``
    (:func:`~sylver.campaign.proof.recorded_valid`) and those still to be built."""
    written = sum(1 for n in ledger.nodes() if n.decided and n.certificate)
    valid = len(recorded_valid(ledger))
    return (f"certificates: {written:,} written, {valid:,} of them recorded valid by the independent verifier "
            f"(`sylver campaign verify --dir {ledger.directory}` checks the others), "
            f"{ledger.summary()['certificates_pending']:,} nodes decided by a search without one yet")


def theorem_line(ledger: Ledger, max_depth: int | None = None) -> str:
    """The nodes N by a theorem, counted (the tables leave them out; ``--json`` lists them)."""
    n = len(rows(ledger, max_depth)) - len(rows(ledger, max_depth, theorems=False))
    return (f"{n:,} more positions are N by a theorem (an ender with t > 1, or a prime g >= 5 that wins; "
            "sec. 1): not listed (--json lists them)")


__all__ = ["COLUMNS", "cells", "certificates_line", "headline", "ledger_data", "markdown", "rows", "theorem_line", "why"]
