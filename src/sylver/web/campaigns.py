"""Read-only view of campaign directories (``sylver campaign run --dir DIR``) for the web page.

A campaign's directory holds ``ledger.sqlite`` (SQLite in WAL mode, written by the campaign while it
runs, possibly in another process) and ``certificates/*.json``.  The viewer never writes there: each
call opens the ledger read-only (``mode=ro``: no write, no lock held between calls; the running
campaign's writes are seen at the next call: :meth:`sylver.campaign.Ledger.open` with
``read_only``, which does not mark the running attempts open as a resuming campaign does), reads it
with :mod:`sylver.campaign.report`, and closes it.

The functions below run in a worker process of the web app (they parse every node's position).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sylver.campaign.ledger import Ledger


class CampaignError(ValueError):
    """The directory holds no readable campaign ledger."""


class CertificateNotFound(LookupError):
    """No certificate file for that position (not in the ledger, not decided, or the file is gone)."""


def check(directory: Path) -> dict[str, Any]:
    """The campaign in ``directory`` exists and is readable: its summary (CampaignError otherwise)."""
    with reading(directory) as ledger:
        return ledger.summary()


@contextmanager
def reading(directory: Path) -> Iterator[Ledger]:
    """The campaign's ledger, open read-only for the duration of the ``with`` block."""
    from sylver.campaign.ledger import FILE, Ledger

    d = Path(directory)
    if not (d / FILE).is_file():
        raise CampaignError(f"{d}: no campaign here (no {FILE}); give the --dir of `sylver campaign`")
    try:
        ledger = Ledger.open(d, read_only=True)
    except ValueError as exc:
        raise CampaignError(str(exc)) from None
    try:
        yield ledger
    except sqlite3.Error as exc:
        raise CampaignError(f"{d / FILE}: cannot read the campaign ledger: {exc}") from None
    finally:
        ledger.close()


def listing(directories: list[Path]) -> list[dict[str, Any]]:
    """Each campaign: its index, directory name, root, headline and summary."""
    from sylver.campaign.report import headline

    out = []
    for i, d in enumerate(directories):
        with reading(d) as ledger:
            summary = ledger.summary()
        out.append({"index": i, "name": d.name, "root": summary["root"], "headline": headline(summary),
                    "summary": summary})
    return out


def data(directory: Path, depth: int | None) -> dict[str, Any]:
    """:func:`sylver.campaign.report.ledger_data` (the nodes at most ``depth`` moves from the root),
    with ``headline``, ``root`` (the root in braces) and, on each node, ``replies``: the moves from the
    root that lead to it (empty for a node deeper down).  The nodes come in reply-table order: the
    root, its children by reply, then the others as the ledger lists them (by depth, then position)."""
    from sylver.campaign.report import headline, ledger_data

    with reading(directory) as ledger:
        out = ledger_data(ledger, depth)
        root = ledger.root
        children = ledger.children(root)
    replies: dict[tuple[int, ...], list[int]] = {}
    for move, child in children:
        replies.setdefault(tuple(child.generators), []).append(move)
    for node in out["nodes"]:
        node["replies"] = sorted(replies.get(tuple(node["position"]), []))
    rank = {tuple(root.generators): (0, 0)}

    def order(item: tuple[int, dict[str, Any]]) -> tuple[int, int, int]:
        k, node = item
        r = node["replies"]
        first = rank.get(tuple(node["position"]), (1, r[0]) if r else (2, 0))
        return (*first, k)

    out["nodes"] = [n for _, n in sorted(enumerate(out["nodes"]), key=order)]
    out["store"] = redact(out["store"])
    out["headline"] = headline(out["summary"])
    out["root"] = root.braces()
    out["depth"] = depth
    return out


def redact(store: str) -> str:
    """A results store's location without its password (a postgresql:// URL may hold one)."""
    from sylver.store.results import is_url
    from sylver.store.results import redact as redact_url

    return redact_url(store) if is_url(store) else store


def certificate(directory: Path, numbers: tuple[int, ...]) -> tuple[str, str]:
    """The certificate file of a decided node (the position ``numbers``): (absolute path, file name).
    The file name is the ledger row's, never the request's, and must lie in the campaign's
    ``certificates`` directory (CertificateNotFound otherwise)."""
    from sylver.errors import InvalidPositionError
    from sylver.position import Position

    try:
        p = Position(numbers)
    except InvalidPositionError as exc:
        raise CertificateNotFound(f"not a position: {exc}") from None
    with reading(directory) as ledger:
        node = ledger.node(p)
    if node is None:
        raise CertificateNotFound(f"{p.braces()} is not in the campaign's ledger")
    if not node.certificate:
        raise CertificateNotFound(f"{p.braces()} has no certificate (status {node.status}, method "
                                  f"{node.method or 'none'})")
    folder = (Path(directory) / "certificates").resolve()
    path = (Path(directory) / node.certificate).resolve()
    if path.parent != folder or path.suffix != ".json" or not path.is_file():
        raise CertificateNotFound(f"{p.braces()}: its certificate file {node.certificate} is not in the "
                                  "campaign's certificates directory")
    return str(path), path.name


__all__ = ["CampaignError", "CertificateNotFound", "certificate", "check", "data", "listing", "reading", "redact"]
