"""Certificates of positions a campaign decided through their children, composed from the children's
certificate files (format and checker: :mod:`sylver.solver.certificate`), so that a proof found in
many attempts, over days and machines, is checked as one file by the same independent checker.

* S is N because its move x leaves P: the proof of S + x (its certificate's P-positions, with S + x
  among them) and S's claim "x wins".
* S is short and P because each obligation x is N: for each, the least winning reply r found (or 0
  for a theorem, see :mod:`sylver.campaign.tree`) and the proof of S + x + r, which the certificate
  of S + x holds.

The children's files are read a line at a time and their gcd-1 P-positions written to the new file
as they are read, each once (by their canonical generators: any one of two proofs of the same
position will do, the checker checks whichever is kept): a composed certificate of gigabytes is
never held in memory.  Claims (short positions) and periodic records are few, and held.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

from sylver.position import Position
from sylver.solver.certificate import FORMAT, GCD_FORMAT, GCD_VERSION, VERSION
from sylver.solver.prove import NodeLines, assemble, certificate_parts, part_path


class Proofs:
    """The P-positions proved by a set of certificate files: gcd-1 nodes (written to ``nodes`` as
    they are read), short ``claims`` (prime g) and replay records of long positions with g = 2
    (``periodic``), each once."""

    def __init__(self, nodes: NodeLines) -> None:
        self.nodes = nodes
        self.claims: dict[tuple[int, ...], list[Any]] = {}
        self.periodic: dict[tuple[int, ...], dict[str, Any]] = {}

    def add(self, path: str | Path) -> None:
        """Take in what the certificate file ``path`` proves P: its P-positions, and its root if it
        is P."""
        head, claims, lines = certificate_parts(path)
        for line in lines:
            self.nodes.once(line)
        for gens, replies in claims:
            self.claims.setdefault(_key(gens), [gens, replies])
        for item in head.get("periodic", []):
            self.periodic.setdefault(_key(item["position"]), item)
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
            if self.claims or self.periodic:
                raise ValueError(f"{position.braces()} has gcd 1, but its proof has positions with g > 1")
            head = {"format": FORMAT, "version": VERSION}
        else:
            head = {"format": GCD_FORMAT, "version": GCD_VERSION}
        cert: dict[str, Any] = {**head, "position": gens, "outcome": outcome, "winning_moves": sorted(winning),
                                "complete": outcome == "P"}
        if root_replies is not None:
            cert["root_replies"] = root_replies
        if position.gcd != 1:
            cert["periodic"] = list(self.periodic.values())
        return cert


def compose(path: Path, position: Position, children: list[Path], *, outcome: str, winning: list[int],
            root_replies: list[int] | None = None) -> int:
    """Write to ``path`` the certificate of ``position`` (:meth:`Proofs.head`) from the certificate
    files ``children``, their gcd-1 nodes streamed through ``FILE.nodes.part`` (then ``FILE.part``,
    renamed when complete); its bytes."""
    nodes = part_path(path, "nodes")
    try:
        with open(nodes, "w", encoding="utf-8", newline="\n") as fh:
            proofs = Proofs(NodeLines(fh))
            for child in children:
                proofs.add(child)
        head = proofs.head(position, outcome=outcome, winning=winning, root_replies=root_replies)
        return assemble(path, head, list(proofs.claims.values()), nodes)
    finally:
        with contextlib.suppress(OSError):
            nodes.unlink()


def _key(gens: list[int]) -> tuple[int, ...]:
    """A proved position's key: certificates list canonical (minimal, sorted) generators."""
    return tuple(sorted(gens))


__all__ = ["Proofs", "compose"]
