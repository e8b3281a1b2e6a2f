"""Certificates of positions a campaign decided through their children, composed from the children's
certificate files (format and checker: :mod:`sylver.proof.certificate`), so that a proof found in
many attempts, over days and machines, is checked as one file by the same independent verifier.

* S is N because its move x leaves P: the proof of S + x (its certificate's P-positions, with S + x
  among them) and S's claim "x wins".
* S is short and P because each obligation x is N: for each, the least winning reply r found (or 0
  for a theorem, see :mod:`sylver.campaign.tree`) and the proof of S + x + r, which the certificate
  of S + x holds.

The children's files are read a line at a time and their gcd-1 P-positions written to the new file
as they are read, each once (by their canonical generators: any one of two proofs of the same
position will do, the checker checks whichever is kept): a composed certificate of gigabytes is
never held in memory.  Claims (short positions) and periodic records are few, and held.

A child's file larger than :data:`IMPORT_BYTES` that proves a P-position is not copied but
imported (the ``imports`` of the format: path, bytes, SHA-256), and the imports of the files
copied are carried over, so that a proof of gigabytes is written, and checked (``sylver verify
--known``), once however many certificates rest on it.  Import paths are absolute, like the results
store's references: a composed file stays valid wherever it is copied (the store keeps it inline
when small, and a campaign takes it from there into its directory) as long as the files it
imports are unchanged where they are, which the store requires of them anyway.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sylver.campaign.ledger import Ledger, Node
from sylver.position import Position
from sylver.proof.build import NodeLines, assemble, certificate_parts, claimed, part_path
from sylver.proof.certificate import (
    FORMAT,
    GCD_FORMAT,
    GCD_VERSION,
    VERSION,
    CertificateError,
    Progress,
    RecordError,
    Verifier,
    read_records,
)
from sylver.store.results import INLINE_BYTES, file_sha256

IMPORT_BYTES = INLINE_BYTES
"""A child's certificate file larger than this that proves a P-position is imported, not copied:
the files that the results store keeps by reference (above it), which must stay where they are;
smaller ones are copied in, so that a small proof stays one file a user can mail."""


class Proofs:
    """The P-positions proved by a set of certificate files: gcd-1 nodes (written to ``nodes`` as
    they are read), short ``claims`` (prime g) and replay records of long positions with g = 2
    (``periodic``; ``periodic_n``, of long N positions), each once; and the files imported
    (``imports``: the P-positions they prove)."""

    def __init__(self, nodes: NodeLines) -> None:
        self.nodes = nodes
        self.claims: dict[tuple[int, ...], list[Any]] = {}
        self.periodic: dict[tuple[int, ...], dict[str, Any]] = {}
        self.periodic_n: dict[tuple[int, ...], dict[str, Any]] = {}
        """Replay records of long N positions (their odd winning moves' positions proved P)."""
        self.imports: dict[tuple[int, ...], dict[str, Any]] = {}

    def add(self, path: str | Path) -> None:
        """Take in what the certificate file ``path`` proves P: its P-positions, and its root if it
        is P; or, a file of a P-position larger than :data:`IMPORT_BYTES`, import it."""
        path = Path(path).resolve()
        head, claims, lines = certificate_parts(path)
        size = path.stat().st_size
        if head.get("outcome") == "P" and head.get("complete") is True and size > IMPORT_BYTES:
            self.imports.setdefault(_key(head["position"]), {
                "position": head["position"], "outcome": "P", "path": str(path), "bytes": size,
                "sha256": file_sha256(path)})
            return
        for item in head.get("imports", []):  # what the file copied rests on, its path made absolute
            where = os.path.normpath(os.path.join(path.parent, item["path"]))
            self.imports.setdefault(_key(item["position"]), {**item, "path": where})
        for line in lines:
            self.nodes.once(line)
        for gens, replies in claims:
            self.claims.setdefault(_key(gens), [gens, replies])
        for item in head.get("periodic", []):
            self.periodic.setdefault(_key(item["position"]), item)
        for item in head.get("periodic_n", []):
            had = self.periodic_n.setdefault(_key(item["position"]), {**item, "winning": []})
            had["winning"] = sorted({*had["winning"], *item["winning"]})
        if head.get("outcome") != "P":
            return
        root = head["position"]
        if "root_periodic" in head:
            self.periodic.setdefault(_key(root), {**head["root_periodic"], "position": root})
        elif "root_replies" in head and head.get("format") == FORMAT:
            self.nodes.once(json.dumps([root, head["root_replies"]], separators=(",", ":")))
        elif "root_replies" in head:
            self.claims.setdefault(_key(root), [root, head["root_replies"]])
        # else a gcd-1 P root without root_replies is one of its own nodes

    def head(self, position: Position, *, outcome: str, winning: list[int],
             root_replies: list[int] | None = None) -> dict[str, Any]:
        """The header of the certificate of ``position`` from what was added: N with ``winning``
        (not complete), or P with ``root_replies`` (a short position's obligations, in the
        checker's order)."""
        gens = list(position.generators)
        head: dict[str, Any]
        if position.gcd == 1:
            if self.claims or self.periodic or self.periodic_n or any(math.gcd(*k) > 1 for k in self.imports):
                raise ValueError(f"{position.braces()} has gcd 1, but its proof has positions with g > 1")
            head = {"format": FORMAT, "version": VERSION}
        else:
            head = {"format": GCD_FORMAT, "version": GCD_VERSION}
        cert: dict[str, Any] = {**head, "position": gens, "outcome": outcome, "winning_moves": sorted(winning),
                                "complete": outcome == "P"}
        if root_replies is not None:
            cert["root_replies"] = root_replies
        if self.imports:
            cert["imports"] = list(self.imports.values())
        if position.gcd != 1:
            cert["periodic"] = list(self.periodic.values())
            if self.periodic_n:
                cert["periodic_n"] = list(self.periodic_n.values())
        return cert


def compose(path: Path, position: Position, children: list[Path], *, outcome: str, winning: list[int],
            root_replies: list[int] | None = None) -> int:
    """Write to ``path`` the certificate of ``position`` (:meth:`Proofs.head`) from the certificate
    files ``children``, their gcd-1 nodes streamed through ``FILE.nodes.part`` (then ``FILE.part``,
    renamed when complete), the large files of P-positions imported (:meth:`Proofs.add`); its bytes."""
    nodes = part_path(path, "nodes")
    with claimed(nodes) as fh:
        try:
            proofs = Proofs(NodeLines(fh))
            for child in children:
                proofs.add(child)
            head = proofs.head(position, outcome=outcome, winning=winning, root_replies=root_replies)
            fh.flush()
            return assemble(path, head, list(proofs.claims.values()), nodes)
        finally:
            with contextlib.suppress(OSError):
                nodes.unlink()


VERIFIED = "verified.jsonl"
"""The campaign's record of its certificate files found valid by the independent verifier, in its
directory: the JSON lines of ``sylver verify --known`` (:class:`sylver.proof.certificate.Verifier`)."""


@dataclass(frozen=True)
class Verification:
    """A decided node's certificate file, verified (:func:`verify_certificates`)."""

    node: Node
    flaw: str
    """'' when valid and proving what the ledger says; else why not."""
    bytes: int
    seconds: float
    before: str = ""
    """The time of the record it was found valid by, in an earlier run ('': checked now)."""


def verify_certificates(ledger: Ledger, jobs: int = 1, progress: Progress | None = None) -> Iterator[Verification]:
    """Verify each certificate file of the ledger's decided nodes, smallest first, with the independent
    checker, recording each valid check in :data:`VERIFIED` (a file recorded there, by its SHA-256 and
    size, with the moves it proved, is not read again): valid, and proving what the ledger says (the
    node's position and outcome; its winning move among those proved; complete for P)."""
    verifier = Verifier(jobs, str(ledger.directory / VERIFIED), progress)
    files = [(n, ledger.directory / n.certificate) for n in ledger.nodes() if n.decided and n.certificate]
    files.sort(key=lambda item: (item[1].stat().st_size if item[1].is_file() else -1, str(item[0].position)))
    for node, path in files:
        start = time.monotonic()
        try:
            checked = verifier.verify(str(path), recorded=True)
        except CertificateError as exc:  # (CertificateFileError too: missing, unreadable, not JSON)
            yield Verification(node, str(exc), bytes=path.stat().st_size if path.is_file() else 0,
                               seconds=time.monotonic() - start)
            continue
        yield Verification(node, _disagreement(node, checked.head), bytes=checked.bytes,
                           seconds=time.monotonic() - start, before=checked.verified_before)


def recorded_valid(ledger: Ledger) -> set[Position]:
    """The nodes whose certificate file :data:`VERIFIED` records as valid, by its path and size
    (without reading the files: :func:`verify_certificates` reads them); none when the record is
    unreadable (what shows the ledger goes on; ``--verify`` says what is wrong with it)."""
    try:
        records = read_records(str(ledger.directory / VERIFIED))
    except RecordError:
        return set()
    sizes = {str(rec.get("path")): rec["bytes"] for rec in records.values()}
    out = set()
    for node in ledger.nodes():
        path = (ledger.directory / node.certificate).resolve() if node.certificate else None
        if path is not None and path.is_file() and sizes.get(str(path)) == path.stat().st_size:
            out.add(node.position)
    return out


def _disagreement(node: Node, head: dict[str, Any]) -> str:
    """'' when a valid certificate's header proves what the ledger says of ``node``; else what it proves."""
    said = f"the ledger says {node.position.braces()} is {node.status}" + (f", {node.winning} wins" if node.winning else "")
    if _key(list(head["position"])) != _key(list(node.position.generators)) or head["outcome"] != node.status:
        return f"it proves {Position(list(head['position'])).braces()} {head['outcome']}; {said}"
    if node.status == "P" and head["complete"] is not True:
        return f"it does not prove {node.position.braces()} P completely; {said}"
    if node.status == "N" and node.winning not in head["winning_moves"]:
        return f"it proves {', '.join(map(str, head['winning_moves']))} winning, not {node.winning}; {said}"
    return ""


def _key(gens: list[int]) -> tuple[int, ...]:
    """A proved position's key: certificates list canonical (minimal, sorted) generators."""
    return tuple(sorted(gens))


__all__ = ["IMPORT_BYTES", "Proofs", "compose"]
