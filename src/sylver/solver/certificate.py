"""Proof certificates for solved positions, and their independent checker.

This module is self-contained (standard library only: no solver, no numba, no other sylver module),
so a certificate can be checked by code that shares nothing with the engine that produced it::

    python -m sylver.solver.certificate proof.json      # or: sylver verify proof.json
    python src/sylver/solver/certificate.py proof.json  # even without installing sylver

Format (JSON, ``"format": "sylver-certificate"``, ``"version": 1``):

* ``position``, ``outcome`` (``"P"``/``"N"``), ``winning_moves`` (sorted), ``complete``.
* ``nodes``: a list of ``[generators, replies]``, each a position claimed to be P.  ``replies`` is
  aligned with the position's legal moves other than 1 in increasing order: for the move x, either a
  reply y such that the position after x then y is {2,3} or another node (so x loses), or 0, which
  claims that the position after x is an ender with t > 1 and so N by strategy stealing
  (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1: every ender with t > 1 is N).  Every position appears once, so shared
  subproofs are written once.
* ``root_replies`` (present when ``complete``): aligned with the root's legal moves other than 1,
  ``-1`` for a winning move (the position after it must be a node) or a reply / 0 as above for a
  losing move.  Without it (``--first``), each listed winning move must lead to a node.

Checking is local: each node is checked against its own legal moves, and positions strictly lose
gaps along every move, so by induction every node is P.  Naming 1 is never a winning move (it loses
at once), so it is not listed.  A position is handled as the bitmask of its gaps (a Python int);
naming x closes the set of members under +x by doubling shifts.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

FORMAT = "sylver-certificate"
VERSION = 1


class CertificateError(ValueError):
    """The certificate is malformed or one of its claims is false (the message names the flaw)."""


def _braces(gens: list[int] | tuple[int, ...]) -> str:
    return "{" + ",".join(map(str, gens)) + "}"


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _short(value: object) -> str:
    text = json.dumps(value) if isinstance(value, list | dict | str | int | float | bool | None) else repr(value)
    return text if len(text) <= 60 else text[:50] + "…"


def gap_mask(generators: list[int] | tuple[int, ...], what: str = "generators") -> int:
    """Bitmask of the gaps (bit n set iff n is not a sum with multiples of the generators); gcd 1."""
    if not isinstance(generators, list | tuple) or not generators or not all(
        _is_int(g) and g >= 1 for g in generators
    ):
        raise CertificateError(f"{what} {_short(generators)} is not a list of positive integers")
    gens = sorted(set(generators))
    if math.gcd(*gens) != 1:
        raise CertificateError(f"{_braces(gens)} has gcd {math.gcd(*gens)}, not 1")
    m = gens[0]
    if m == 1:
        return 0
    # Frobenius bound (Schur): t <= (m - 1) * (largest - 1) - 1
    limit = (m - 1) * (gens[-1] - 1) + 1
    if limit > 1 << 16:
        raise CertificateError(f"{_braces(gens)} is too large for this checker")
    full = (1 << (limit + 1)) - 1
    members = 1
    for g in gens:
        members = _close(members, g, full, limit)
    return full & ~members


def _close(members: int, x: int, full: int, limit: int) -> int:
    """The members after naming x: closed under +x (doubling shifts)."""
    members |= 1 << x if x <= limit else 0
    s = x
    while s <= limit:
        members |= (members << s) & full
        s <<= 1
    return members


def play(gaps: int, x: int) -> int:
    """The gap mask after naming the gap x."""
    limit = gaps.bit_length()
    full = (1 << (limit + 1)) - 1
    members = full & ~gaps
    return gaps & ~_close(members, x, full, limit)


def moves(gaps: int) -> list[int]:
    """Legal moves other than 1, increasing."""
    out = []
    n = 2
    g = gaps >> 2
    while g:
        if g & 1:
            out.append(n)
        g >>= 1
        n += 1
    return out


def is_ender(gaps: int) -> bool:
    """Every legal move other than t eliminates t (sec. 1).  A gap n < t eliminates t iff t - kn is a
    member for some k >= 1; checked directly from the definition."""
    t = gaps.bit_length() - 1
    for n in range(1, t):
        if gaps >> n & 1:
            if not any(not (gaps >> (t - k * n) & 1) for k in range(1, t // n + 1)):
                return False
    return True


def check(cert: Any) -> None:
    """Raise :class:`CertificateError` naming the first flaw, or return if the certificate is valid."""
    if not isinstance(cert, dict) or cert.get("format") != FORMAT:
        raise CertificateError("not a sylver certificate (missing \"format\": \"sylver-certificate\")")
    if cert.get("version") != VERSION:
        raise CertificateError(f"unsupported certificate version {cert.get('version')!r}")
    for key in ("position", "outcome", "winning_moves", "complete", "nodes"):
        if key not in cert:
            raise CertificateError(f"missing field {key!r}")
    root = cert["position"]
    root_gaps = gap_mask(root, "'position'")
    outcome = cert["outcome"]
    winning = cert["winning_moves"]
    if outcome not in ("P", "N"):
        raise CertificateError(f"outcome must be 'P' or 'N', not {_short(outcome)}")
    if not isinstance(winning, list) or not all(_is_int(w) for w in winning):
        raise CertificateError(f"'winning_moves' {_short(winning)} is not a list of integers")
    if winning != sorted(set(winning)):
        raise CertificateError("'winning_moves' must be a sorted list without repeats")
    if not isinstance(cert["complete"], bool):
        raise CertificateError(f"'complete' must be true or false, not {_short(cert['complete'])}")
    if outcome == "P" and winning:
        raise CertificateError("a P-position has no winning moves")
    if outcome == "N" and not winning:
        raise CertificateError("an N-position needs a winning move")

    nodes: dict[int, tuple[list[int], list[int]]] = {}
    raw = cert["nodes"]
    if not isinstance(raw, list):
        raise CertificateError("'nodes' must be a list")
    for i, item in enumerate(raw):
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], list)):
            raise CertificateError(f"node {i} is not [generators, replies]")
        gaps = gap_mask(item[0], f"node {i}: generators")
        if gaps in nodes:
            raise CertificateError(f"node {i} ({_braces(item[0])}) appears twice")
        nodes[gaps] = (item[0], item[1])

    def is_p(gaps: int) -> bool:
        return gaps == 0b10 or gaps in nodes

    def check_reply(where: str, gaps: int, x: int, y: object) -> None:
        after = play(gaps, x)
        if y == 0:
            if after.bit_length() - 1 <= 1 or not is_ender(after):
                raise CertificateError(
                    f"{where}: after {x} the position is not an ender with t > 1, so it is not N by "
                    "strategy stealing"
                )
            return
        if not isinstance(y, int) or isinstance(y, bool) or y < 2 or not (after >> y & 1):
            raise CertificateError(f"{where}: reply {y!r} to {x} is not a legal move other than 1")
        if not is_p(play(after, y)):
            raise CertificateError(
                f"{where}: after {x} and the reply {y} the position is not proved P (no node for it)"
            )

    for gaps, (gens, replies) in nodes.items():
        where = f"node {_braces(gens)}"
        legal = moves(gaps)
        if len(replies) != len(legal):
            raise CertificateError(
                f"{where}: {len(replies)} replies for {len(legal)} legal moves other than 1"
            )
        for x, y in zip(legal, replies, strict=True):
            check_reply(where, gaps, x, y)

    where = f"root {_braces(root)}"
    legal = moves(root_gaps)
    for w in winning:
        if w not in legal:
            raise CertificateError(f"{where}: winning move {w} is not a legal move other than 1")
        if not is_p(play(root_gaps, w)):
            raise CertificateError(f"{where}: the position after winning move {w} is not proved P")
    if cert["complete"]:
        root_replies = cert.get("root_replies")
        if outcome == "P" and root_replies is None:
            if root_gaps not in nodes and root_gaps != 0b10:
                raise CertificateError(f"{where}: claimed P but it is not a node")
            return
        if not isinstance(root_replies, list) or len(root_replies) != len(legal):
            raise CertificateError(f"{where}: 'root_replies' must have one entry per legal move other than 1")
        claimed = [x for x, y in zip(legal, root_replies, strict=True) if y == -1]
        if claimed != winning:
            raise CertificateError(f"{where}: 'root_replies' mark {claimed} as winning, not {winning}")
        for x, y in zip(legal, root_replies, strict=True):
            if y != -1:
                check_reply(where, root_gaps, x, y)
    elif outcome == "P":
        raise CertificateError(f"{where}: a P claim must be complete")


def check_file(path: str) -> None:
    try:
        with open(path, encoding="utf-8") as fh:
            cert = json.load(fh)
    except OSError as exc:
        raise CertificateError(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CertificateError(f"{path} is not JSON: {exc}") from None
    check(cert)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: certificate.py FILE", file=sys.stderr)
        return 2
    try:
        check_file(args[0])
    except CertificateError as exc:
        print(f"invalid: {exc}")
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
