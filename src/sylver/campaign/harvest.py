"""What a campaign directory and a results store decided, as results-book entries
(:mod:`sylver.store.book`; ``sylver book add``).

From the ledger: each node decided by a search (``solve``, ``store``) or by its children, with its
winning move, states, seconds; its certificate's receipt (SHA-256, bytes) when ``DIR/verified.jsonl``
records the file valid, else none, with a note.  From the store: the records of positions under the
campaign's root with winning moves, and its P-positions (a store also holds an outcome-only N record
of each root move every solve decided: those are taken only for the children of the ledger's open
nodes, where they let a later search skip a move).  Theorem-decided nodes need no entry.
"""

from __future__ import annotations

import datetime
from pathlib import Path

from sylver.campaign.ledger import Ledger
from sylver.position import Outcome, Position
from sylver.store.book import Certificate, Entry
from sylver.store.results import Store


def engine() -> str:
    """``sylver VERSION`` of this install."""
    from importlib.metadata import version

    return f"sylver {version('sylver')}"


def from_ledger(ledger: Ledger) -> list[Entry]:
    """The decided nodes of a campaign (module docstring)."""
    checked = _checked(ledger.directory)
    today = datetime.date.today().isoformat()
    root = " ".join(map(str, ledger.root.generators))
    out = []
    for node in ledger.nodes():
        if not node.decided or node.method in ("theorem", "book"):
            continue
        receipt = checked.get(node.certificate) if node.certificate else None
        note = "" if receipt else ("certificate not checked (`sylver campaign verify --dir D` records it)"
                                   if node.certificate else "no certificate built yet")
        out.append(Entry(position=node.position, outcome=Outcome(node.status),
                         winning=() if node.winning is None else (node.winning,), complete=node.status == "P",
                         how="children" if node.method == "children" else "search", states=node.states,
                         seconds=node.seconds, engine=engine(), date=today, certificate=receipt,
                         rebuild=f"sylver campaign run {root} --dir D --only {_line(ledger, node.position)}",
                         note=note))
    return out


def _line(ledger: Ledger, position: Position) -> str:
    """A line of moves from the root to ``position`` through the ledger's edges."""
    moves: list[int] = []
    p = position
    while p != ledger.root:
        parents = ledger.parents(p)
        if not parents:
            break
        p, x = min(parents, key=lambda pm: (_depth(ledger, pm[0]), pm[1]))
        moves.append(x)
    return ",".join(map(str, reversed(moves)))


def _depth(ledger: Ledger, position: Position) -> int:
    node = ledger.node(position)
    return 0 if node is None else node.depth


def _checked(directory: Path) -> dict[str, Certificate]:
    """The certificate files ``DIR/verified.jsonl`` records valid (``sylver campaign verify``), by
    path relative to ``directory``; an unreadable record is one line and exit 2 for the caller."""
    from sylver.proof.certificate import read_records

    path = directory / "verified.jsonl"
    if not path.is_file():
        return {}
    found: dict[str, Certificate] = {}
    for rec in read_records(str(path)).values():
        try:
            name = str(Path(str(rec["path"])).resolve().relative_to(directory.resolve()))
        except (KeyError, ValueError):
            continue
        found[name] = Certificate(sha256=rec["sha256"], bytes=rec["bytes"], checked=str(rec["time"])[:10])
    return found


def from_store(store: Store, root: Position, ledger: Ledger | None = None) -> list[Entry]:
    """The store's records under ``root`` with winning moves, its P-positions, and the outcome-only
    N records of the children of the ledger's open nodes (module docstring); without a ledger, every
    outcome-only N record under ``root`` (the replies a stopped sweep or solve decided: a later one
    skips them)."""
    wanted: set[Position] = set()
    if ledger is not None:
        for node in ledger.nodes():
            if node.status == "open":
                wanted.update(c for _, c in ledger.children(node.position))
    today = datetime.date.today().isoformat()
    out = []
    for rec in store.records():
        p = rec.position
        if not all(x in p.semigroup for x in root.generators):
            continue
        if rec.outcome is Outcome.N and not rec.winning_moves and ledger is not None and p not in wanted:
            continue
        out.append(Entry(position=p, outcome=rec.outcome, winning=rec.winning_moves, complete=rec.complete,
                         how="search", states=rec.states, seconds=rec.seconds, engine=engine(), date=today,
                         rebuild=f"sylver solve {' '.join(map(str, p.generators))} --first --certificate F"
                                 " && sylver verify F --book",
                         note="found by a search (`sylver solve`, `sylver sweep` or a campaign's attempt) and "
                              "recorded in a results store; certificate not checked"))
    return out


def from_verified(path: Path) -> list[Entry]:
    """The receipts of the valid checks in ``path``: the records of ``sylver verify --known`` or the
    lines of ``sylver verify --json`` (each with its position, outcome, SHA-256 and bytes; a --known
    file's records of a cut check's progress are skipped), as entries carrying their certificate (merged into an existing entry, the receipt is kept); a line that is
    neither, or an unreadable file, raises ValueError (one line)."""
    import json

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    out = []
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            rec = json.loads(text)
            if isinstance(rec, dict) and "checked_below" in rec:
                continue  # where a cut check stood (a --known file's progress record), no receipt
            position = Position(rec["position"])
            outcome = Outcome(rec["outcome"])
            sha256, size = str(rec["sha256"]), int(rec["bytes"])
        except (ValueError, KeyError, TypeError):
            raise ValueError(f"{path} line {n} is not a record of a valid check "
                             "(position, outcome, sha256, bytes)") from None
        if rec.get("valid") is False or not rec.get("complete", True) and outcome is Outcome.P:
            continue
        checked = str(rec.get("time") or datetime.datetime.fromtimestamp(path.stat().st_mtime).isoformat())[:10]
        words = " ".join(map(str, position.generators))
        out.append(Entry(position=position, outcome=outcome, winning=tuple(rec.get("winning_moves") or ()),
                         complete=bool(rec.get("complete", False)), how="search", states=0, seconds=0.0,
                         engine=engine(), date=checked,
                         certificate=Certificate(sha256=sha256, bytes=size, checked=checked, nodes=rec.get("nodes")),
                         rebuild=f"sylver solve {words} --certificate F && sylver verify F --book",
                         note=f"certificate checked valid by `sylver verify` on {checked}"))
    return out


__all__ = ["engine", "from_ledger", "from_store", "from_verified"]
