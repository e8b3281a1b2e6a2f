"""Certificates of positions a campaign decided through their children, composed from the children's
certificates (format and checker: :mod:`sylver.solver.certificate`), so that a proof found in many
attempts, over days and machines, is checked as one file by the same independent checker.

* S is N because its move x leaves P: the proof of S + x (its certificate's P-positions, with S + x
  among them) and S's claim "x wins".
* S is short and P because each obligation x is N: for each, the least winning reply r found (or 0
  for a theorem, see :mod:`sylver.campaign.tree`) and the proof of S + x + r, which the certificate
  of S + x holds.

The P-positions of the certificates merged are kept once each (by their canonical generators: any
one of two proofs of the same position will do, the checker checks whichever is kept).
"""

from __future__ import annotations

from typing import Any

from sylver.position import Position
from sylver.solver.certificate import FORMAT, GCD_FORMAT, GCD_VERSION, VERSION


class Proofs:
    """The P-positions proved by a set of certificates: gcd-1 ``nodes``, short ``claims`` (prime g)
    and replay records of long positions with g = 2 (``periodic``), each once."""

    def __init__(self) -> None:
        self.nodes: dict[tuple[int, ...], list[Any]] = {}
        self.claims: dict[tuple[int, ...], list[Any]] = {}
        self.periodic: dict[tuple[int, ...], dict[str, Any]] = {}

    def add(self, cert: dict[str, Any]) -> None:
        """Take in what ``cert`` proves P: its P-positions, and its root if it is P."""
        for gens, replies in cert.get("nodes", []):
            self.nodes.setdefault(_key(gens), [gens, replies])
        for gens, replies in cert.get("claims", []):
            self.claims.setdefault(_key(gens), [gens, replies])
        for item in cert.get("periodic", []):
            self.periodic.setdefault(_key(item["position"]), item)
        if cert.get("outcome") != "P":
            return
        root = cert["position"]
        if "root_periodic" in cert:
            self.periodic.setdefault(_key(root), {**cert["root_periodic"], "position": root})
        elif "root_replies" in cert:
            table = self.nodes if cert.get("format") == FORMAT else self.claims
            table.setdefault(_key(root), [root, cert["root_replies"]])
        # else a gcd-1 P root without root_replies is one of its own nodes

    def certificate(self, position: Position, *, outcome: str, winning: list[int],
                    root_replies: list[int] | None = None) -> dict[str, Any]:
        """The certificate of ``position`` from what was added: N with ``winning`` (not complete), or
        P with ``root_replies`` (a short position's obligations, in the checker's order)."""
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
            cert["claims"] = list(self.claims.values())
            cert["periodic"] = list(self.periodic.values())
        cert["nodes"] = list(self.nodes.values())
        return cert


def _key(gens: list[int]) -> tuple[int, ...]:
    """A proved position's key: certificates list canonical (minimal, sorted) generators."""
    return tuple(sorted(gens))


__all__ = ["Proofs"]
