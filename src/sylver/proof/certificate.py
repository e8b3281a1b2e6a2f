"""Proof certificates for solved positions, and their independent verifier.

This module is self-contained (standard library only: no solver, no numba, no other sylver module),
so a certificate can be checked by code that shares nothing with the engine that produced it::

    python -m sylver.proof.certificate proof.json      # or: sylver verify proof.json
    python src/sylver/proof/certificate.py proof.json  # even without installing sylver
    python certificate.py --known checks.jsonl r30.json r56.json   # Z's proof, imported by both: once

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
gaps along every move, so by induction every node is P.

Either format may carry ``imports`` in its header: certificate files (path relative to the
importing file's directory, or absolute; bytes; SHA-256) each proving a position P, complete, which
the certificate then uses as proved P.  :class:`Verifier` checks each imported file (size, SHA-256,
and the whole proof, recursively; a cycle is refused), each distinct file once, or not at all when
a record of an earlier complete check of it is given (``known``).

A file laid out a node a line (the header on the first line, ending ``"nodes":[``; a node a line,
a comma after each but the last; ``]}``), as ``sylver solve --certificate`` writes it, is checked in
two passes, a line at a time (:func:`verify_path`): the first collects the nodes' gap masks, exactly
(:class:`GapSet`, the bytes of each mask), refusing a repeated one; the second checks each node's
replies against them.  Only the masks are held, so memory grows with the number of nodes (about 50
bytes a node at t = 300), not with the file (replies take most of its bytes).  Exact masks, not
digests: a certificate may be adversarial, and a digest collision between a position reached and a
node would let a false claim pass.  The gcd-1 nodes of a ``sylver-gcd-certificate`` laid out an
item a line (:data:`CLAIMS_OPEN`) are read the same way.  Any other layout of the same JSON is read
whole, as before.

**Positions with g > 1** (``"format": "sylver-gcd-certificate"``, version 2; Sicherman,
"Theory and Practice of Sylver Coinage", Integers 2002, sec. 1 end): ``position``, ``outcome``,
``winning_moves``, ``complete``, ``nodes`` (gcd-1 P-positions as above) and ``claims``: a list of
``[generators, replies]``, each a position T with prime g = p claimed P.  The checker verifies that
h = T ÷ p is a quiet ender from the definition (every gap n < t(h) has t(h) − n in h), so every move
z > t(h) with p ∤ z leaves a quiet ender, which is N (the Quiet End Theorem, sec. 1); ``replies`` then
covers the finitely many other moves in increasing order — the z ≤ t(h) with p ∤ z (z ≥ 2), then the
p·y for each gap y of h — each with a reply r such that T + x + r is {2,3}, a node or a claim, or 0
(T + x is an ender with t > 1, or p ≥ 5 and T + x ≠ {p}: p wins there, since {p} is P by
Hutchings's p-theorem).  The root (itself short) is checked the same way: ``root_replies`` as for
gcd 1 (−1 marks a winning move, whose position must be a node or a claim).  Naming 1 is never a winning move (it loses
at once), so it is not listed.  A position is handled as the bitmask of its gaps (a Python int);
naming x closes the set of members under +x by doubling shifts.

Long positions with g = 2 are P by a replay record (``periodic``; the root's: ``root_periodic``):
the checker replays the scan of the odd moves itself (:func:`replay_scan`) with the base-region
values the record proves (each position listed once: version 1, still read, repeated some), and
checks a reply to each even move.  A long position L with g = 2 that is N through an odd move
(``periodic_n``: a replay record without even replies, and ``winning``, odd moves whose positions
the replay finds P, at their place in the period when beyond it) proves each L + w P, a gcd-1
position of any size: a child refuted by an odd reply far beyond the gcd-1 proofs a builder can
search (t > 1,024).  Its base region is proved by gcd-1 nodes only, so no record rests on
another.  The outcome ``"probably-P"`` (sec. 2: no odd winning move, and every even move is known
to lose or produces a long position) is not complete: every move is refuted except the even moves
given a ``null`` reply, each checked to produce a long position with g = 2, about which nothing is
proven.  :func:`verify_gcd` returns what a valid certificate proves,
what it does not, and what it rests on.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import sys
import time
from array import array
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, replace
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
        type(g) is int and g >= 1 for g in generators  # not a bool
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
    # Closed up to a guess first (t is rarely above the largest generator + m): when the members
    # there end with m in a row, every larger number is one too (add multiples of m), and the gaps
    # are those below; otherwise twice the guess, up to Schur's bound, exact without the test.
    bound = gens[-1] + 2 * m
    while bound < limit:
        members = _members(gens, bound)
        run = (1 << m) - 1
        if members >> (bound - m + 1) & run == run:
            return ((1 << (bound + 1)) - 1) & ~members
        bound *= 2
    full = (1 << (limit + 1)) - 1
    return full & ~_members(gens, limit)


def _members(gens: list[int], limit: int) -> int:
    """The members of the semigroup generated by ``gens`` up to ``limit`` (bit n: n is a sum of
    multiples of them), none above it."""
    full = (1 << (limit + 1)) - 1
    members = 1
    for g in gens:  # (:func:`_close`, inlined)
        members |= 1 << g
        s = g
        while s <= limit:
            members |= members << s
            s <<= 1
        members &= full
    return members


def _close(members: int, x: int, limit: int) -> int:
    """The members after naming x, closed under +x by doubling shifts: exact up to ``limit``, with
    bits above it left over (the caller masks them)."""
    members |= 1 << x
    s = x
    while s <= limit:
        members |= members << s
        s <<= 1
    return members


def play(gaps: int, x: int) -> int:
    """The gap mask after naming the gap x."""
    limit = gaps.bit_length()
    return gaps & ~_close(((1 << limit) - 1) ^ gaps, x, limit)


def moves(gaps: int) -> list[int]:
    """Legal moves other than 1, increasing."""
    return list(itertools.compress(itertools.count(2), bin(gaps >> 2)[:1:-1].encode().translate(_BITS)))


_BITS = bytes.maketrans(b"01", b"\0\1")


def is_ender(gaps: int) -> bool:
    """Every legal move other than t eliminates t (sec. 1).  A gap n < t eliminates t iff t - kn is a
    member for some k >= 1; checked from the definition, on bit sets: ``dual`` (bit j: t - j is a
    member) settles k = 1 for all n at once, and the few gaps left test their multiples kn <= t."""
    t = gaps.bit_length() - 1
    if t < 2:
        return True
    below = (1 << t) - 1
    dual = int(format(~gaps & below, f"0{t + 1}b")[::-1], 2)  # the members below t, reflected about t
    rest = gaps & below & ~dual
    while rest:
        low = rest & -rest
        multiples = _close(low, low.bit_length() - 1, t)  # n, 2n, 3n, ... (and some above t)
        if not dual & multiples & ~low:
            return False
        rest ^= low
    return True


def verify(cert: Any, imported: Imported | None = None) -> None:
    """Raise :class:`CertificateError` naming the first flaw, or return if the certificate is valid.
    ``imported``: the positions its ``imports`` prove P (:meth:`Verifier.imports`, which checks the
    files they name; a certificate with imports is checked from its file, :func:`verify_path`)."""
    root, root_gaps, outcome, winning = _header(cert)
    nodes = cert["nodes"]
    if not isinstance(nodes, list):
        raise CertificateError("'nodes' must be a list")
    proof = _Proof(lambda: enumerate(nodes), len(nodes), _width(root_gaps), _gcd1_imports(cert, imported))
    proof.verify_nodes()
    proof.verify_root(root, root_gaps, outcome, winning, cert)


def _width(root_gaps: int) -> int:
    """Bytes of the root's gap mask: the nodes' masks are subsets of it (any other goes beside)."""
    return (root_gaps.bit_length() + 7) // 8


def _header(cert: Any) -> tuple[list[int], int, str, list[int]]:
    """The root's generators and gap mask, the outcome and the winning moves claimed, checked."""
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
    return root, root_gaps, outcome, winning


Nodes = Callable[[], Iterable[tuple[int, Any]]]
"""The nodes of a certificate, read afresh at each call: (index, item) for each."""


class GapSet:
    """The gap masks of a proof's nodes (Python ints), exact, in the order they were added: each
    mask's ``width`` bytes in one bytearray (a mask wider goes to a dict beside it), and a hash index
    of their numbers (an array of 4-byte ints, open addressing, linear probing, a third full for
    ``size`` masks, at most half full as it grows).  About ``width`` + 12 bytes a mask (50 at
    t = 300), where a set of ints takes about 100.

    An empty slot of the index holds :data:`EMPTY`, a number whose bytes would start beyond the end
    of the bytearray, where no mask matches: a probe compares bytes with no test for the empty slot
    first."""

    EMPTY = (1 << 31) - 1

    def __init__(self, size: int, width: int) -> None:
        self.width = max(1, width)  # (a key of no bytes would match anywhere)
        self.masks = bytearray()
        self.wide: dict[int, int] = {}
        """The masks wider than ``width`` bytes, with their numbers."""
        self.wide_at: dict[int, int] = {}
        """The same, by number."""
        self.size = 0
        self._index(max(8, 3 * size + 1))

    def _index(self, cap: int) -> None:
        self.cap = cap
        self.index = array("i", [self.EMPTY]) * cap
        for j in range(self.size):
            if j not in self.wide_at:
                mask = self.mask_at(j)
                self.index[self._slot(mask, mask.to_bytes(self.width, "little"))] = j

    def _slot(self, mask: int, key: bytes) -> int:
        """The slot of the index holding the number of ``mask`` (bytes ``key``), or the empty slot
        where it would go."""
        w, masks, index, cap = self.width, self.masks, self.index, self.cap
        i = hash(mask) % cap  # the mask modulo 2**61 - 1, modulo a size that is rarely a power of 2
        j = index[i]
        while j != self.EMPTY and not masks.startswith(key, j * w):
            i = i + 1 if i + 1 < cap else 0
            j = index[i]
        return i

    def add(self, mask: int) -> bool:
        """Add ``mask`` as number ``size``; False (and nothing added) if it was there already."""
        if mask.bit_length() > 8 * self.width:
            if mask in self.wide:
                return False
            self.wide[mask] = self.size
            self.wide_at[self.size] = mask
            self.masks += bytes(self.width)
        else:
            if 2 * (self.size + 1) > self.cap:
                self._index(2 * self.cap + 1)
            key = mask.to_bytes(self.width, "little")
            i = self._slot(mask, key)
            if self.index[i] != self.EMPTY:
                return False
            self.index[i] = self.size
            self.masks += key
        self.size += 1
        return True

    def __contains__(self, mask: int) -> bool:
        return self.first_missing([mask]) < 0

    def first_missing(self, masks: list[int]) -> int:
        """The place in ``masks`` of the first one not in the set, or -1 if all are (one call for
        a node's replies: the checker's hot spot, :meth:`_slot` inlined)."""
        w, table, index, cap, empty = self.width, self.masks, self.index, self.cap, self.EMPTY
        for k, mask in enumerate(masks):
            try:
                key = mask.to_bytes(w, "little")
            except OverflowError:  # wider than the table's masks (or negative: in no set)
                if mask not in self.wide:
                    return k
                continue
            i = hash(mask) % cap
            j = index[i]
            while not table.startswith(key, j * w):  # an empty slot's bytes start beyond the end
                if j == empty:
                    return k
                i = i + 1 if i + 1 < cap else 0
                j = index[i]
        return -1

    def mask_at(self, j: int) -> int:
        """The mask number ``j``."""
        if j in self.wide_at:
            return self.wide_at[j]
        return int.from_bytes(self.masks[j * self.width : (j + 1) * self.width], "little")


def _node(i: int, item: Any) -> tuple[list[int], list[Any]]:
    """The generators and replies of node ``i``, checked for shape."""
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], list)):
        raise CertificateError(f"node {i} is not [generators, replies]")
    return item[0], item[1]


PARALLEL_LEAST = 20_000
"""Least number of nodes for which a second pass is shared between processes (below it, forking
costs more than it saves)."""

_SHARED: _Proof | None = None
"""The proof whose second pass forked workers share (set while they run)."""

Progress = Callable[[str, str, int, int], None]
"""Told ``(path, what, done, size)`` as a file is read: what (``hashing``, ``reading 1 of 2``, …),
the bytes read so far of its ``size`` (:class:`Verifier`'s ``progress``)."""

_PROGRESS: Progress | None = None
"""The progress of the :class:`Verifier` checking now (None: silent)."""

PROGRESS_LINES = 1 << 14
"""Lines read between two reports of progress."""

CHECKPOINT_SECONDS = 60.0
"""Seconds between two progress records of a second reading (:class:`Checkpoint`)."""


@dataclass
class Checkpoint:
    """Where the second reading of a file stands, recorded in the verifier's ``known`` file so that
    a check cut short (Ctrl-C, kill -9, a machine taken back) is continued by the next check of the
    same file (same SHA-256 and size) with the same ``known``: a line ``{"sha256", "bytes",
    "checked_below", "share", "jobs", "run", "checker", "time", "path"}`` every
    :data:`CHECKPOINT_SECONDS` from each process of the reading, saying that its nodes i <
    ``checked_below`` (those with i % jobs == share) are checked.  The nodes below ``start`` (what
    the records of one earlier run prove checked, :func:`resume_point`) are not checked again; the
    first reading is made in full (a sixth of a check), as are the file's hashing and its layout
    checks.  The ``known`` file is trusted as the records of complete checks are: it is this
    verifier's own memory, never a file that comes with a certificate."""

    known: str
    sha256: str
    bytes: int
    start: int
    run: str
    last: float = 0.0
    failed: bool = False

    def tick(self, share: int, jobs: int, below: int) -> None:
        """Record, at most every :data:`CHECKPOINT_SECONDS`, that this process's nodes below
        ``below`` are checked (a record that cannot be written is told once on stderr, and the
        check goes on)."""
        now = time.monotonic()
        if now - self.last < CHECKPOINT_SECONDS or self.failed:
            return
        self.last = now
        rec = {"sha256": self.sha256, "bytes": self.bytes, "checked_below": below, "share": share,
               "jobs": jobs, "run": self.run, "checker": VERIFIER_VERSION, "time": _now()}
        try:
            with open(self.known, "a", encoding="utf-8") as fh:  # one short line: one write, appended
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        except OSError as exc:
            self.failed = True
            print(f"warning: cannot record progress in {self.known}: {exc.strerror}", file=sys.stderr)


_CHECKPOINT: Checkpoint | None = None
"""The checkpoint of the file the :class:`Verifier` checks now (None: no ``known`` file)."""


def _verify_share(share: tuple[int, int]) -> tuple[int, bool, str] | None:
    """:meth:`_Proof.verify_share` in a forked worker, of the proof it inherited; the worker that
    checks share 0 alone tells the progress (each reads the whole source)."""
    global _PROGRESS
    assert _SHARED is not None
    if share[0] != 0:
        _PROGRESS = None
    return _SHARED.verify_share(*share)


class _Proof:
    """The claimed P-positions of a certificate, each refuting every move with a reply.  Verified
    in two passes over ``nodes``: the first collects their gap masks (:class:`GapSet`, exact, in
    order), the second checks each node's replies against them; nothing else is kept, so a
    certificate read from a file a node at a time is checked in memory proportional to its nodes,
    not its bytes."""

    def __init__(self, nodes: Nodes, size: int, width: int, imported: frozenset[int] = frozenset()) -> None:
        self.nodes = nodes
        self.keys = GapSet(size, width)
        self.imported = imported
        """The gap masks of the positions proved P by the certificate's imports."""
        self.checkpoint: Checkpoint | None = None
        for i, item in nodes():
            gens, _ = _node(i, item)
            if not self.keys.add(gap_mask(gens, f"node {i}: generators")):
                raise CertificateError(f"node {i} ({_braces(gens)}) appears twice")
        self.count = self.keys.size

    def is_p(self, gaps: int) -> bool:
        return gaps == 0b10 or gaps in self.keys or gaps in self.imported

    def refute(self, where: Callable[[], str], gaps: int, legal: list[int], replies: list[Any]) -> None:
        """Each move x of ``gaps`` (``legal``, increasing) with its reply y (``replies``, aligned)
        leads by y to a claimed P-position, or y is 0 and after x the position is an ender with t > 1
        (N by strategy stealing); else raise, naming the first move refuted by neither (``where``:
        the position, in words).  The checker's inner loop: the members of ``gaps`` closed under +x
        (and kept, for each move closed so), then under +y, by doubling shifts (:func:`_close`,
        inlined), exact below t + 1 of the position closed; the positions reached are looked up at
        once.  A reply y < x that is a gap is legal after x (no sum with x is below x), and the
        position after both is the one after y, closed under +x: that way round when y was closed
        before (replies are smaller numbers, shared by many moves), and not at all when y was
        answered by x (the position after both was reached then)."""
        limit = gaps.bit_length()
        members = ((1 << limit) - 1) ^ gaps
        reached: list[int] = []
        reply = dict(zip(legal, replies, strict=True))
        closure: dict[int, int] = {}  # a move: the members after it, exact below limit
        for x, y in zip(legal, replies, strict=True):
            swapped = type(y) is int and y < x and y in reply  # y a gap below x: legal after x
            if swapped and reply[y] == x:
                continue  # y answered by x: the same position, reached then
            first, second = (y, x) if swapped else (x, y)
            closed = closure.get(first)
            if closed is None:
                closed = members | 1 << first
                s = first
                while s <= limit:
                    closed |= closed << s
                    s <<= 1
                closure[first] = closed
            after = gaps & ~closed
            if not swapped:
                if y == 0 and type(y) is int:
                    if after.bit_length() <= 2 or not is_ender(after):
                        self.refuted(where, gaps, legal, replies, reached)
                        raise CertificateError(f"{where()}: after {x} the position is not an ender with t > 1, "
                                               "so it is not N by strategy stealing")
                    continue
                if type(y) is not int or y < 2 or not after >> y & 1:
                    self.refuted(where, gaps, legal, replies, reached)
                    raise CertificateError(f"{where()}: reply {y!r} to {x} is not a legal move other than 1")
            top = after.bit_length()  # t + 1 after the first: the closure under the second is needed below it only
            closed |= 1 << second
            s = second
            while s <= top:
                closed |= closed << s
                s <<= 1
            final = after & ~closed
            if final != 0b10:  # {2,3}
                reached.append(final)
        self.refuted(where, gaps, legal, replies, reached)

    def refuted(self, where: Callable[[], str], gaps: int, legal: list[int], replies: list[Any],
                reached: list[int]) -> None:
        """Each position ``reached`` (by the first moves ``legal`` and their ``replies`` in ``gaps``
        that :meth:`refute` looks up) is a node, or imported."""
        k = self.keys.first_missing(reached)
        while k >= 0 and reached[k] in self.imported:
            rest = self.keys.first_missing(reached[k + 1 :])
            k = -1 if rest < 0 else k + 1 + rest
        if k >= 0:
            # the k-th of the pairs checked that were looked up (replies all legal, as :meth:`refute` skips)
            reply = dict(zip(legal, replies, strict=True))
            found = ((x, y) for x, y in zip(legal, replies, strict=True)
                     if y != 0 and not (type(y) is int and y < x and reply.get(y) == x)
                     and play(play(gaps, x), y) != 0b10)  # type: ignore[arg-type]
            x, y = next(itertools.islice(found, k, None))
            raise CertificateError(f"{where()}: after {x} and the reply {y} the position is not proved P (no node for it)")

    def verify_nodes(self, jobs: int = 1) -> None:
        """Every node has a valid reply to each of its legal moves other than 1 (node i's gap
        mask: the i-th of the first pass).  ``jobs`` > 1: that many forked processes share the
        second pass, process k checking the nodes i with i % jobs == k (each reads the whole source);
        the flaw reported is the first in the source's order, as with one process.  With a
        :class:`Checkpoint` (``known``), each process records how far it has gone, and the nodes
        below its ``start`` are not checked again."""
        global _CHECKPOINT
        self.checkpoint, _CHECKPOINT = _CHECKPOINT, None  # the file's (one reading of nodes a file)
        if jobs <= 1 or self.count < PARALLEL_LEAST or "fork" not in multiprocessing.get_all_start_methods():
            flaw = self.verify_share(0, 1)
        else:
            global _SHARED
            _SHARED = self  # the workers inherit it (and its GapSet) when forked
            try:
                with multiprocessing.get_context("fork").Pool(jobs) as pool:
                    flaws = pool.map(_verify_share, [(k, jobs) for k in range(jobs)])
            finally:
                _SHARED = None
            found = [f for f in flaws if f is not None]
            flaw = min(found) if found else None
        if flaw is not None:
            _, file_error, message = flaw
            raise (CertificateFileError if file_error else CertificateError)(message)

    def verify_share(self, k: int, jobs: int) -> tuple[int, bool, str] | None:
        """Check the nodes i with i % jobs == k: None, or the first flaw as (where in the source,
        whether the source itself is at fault, the message)."""
        n = 0
        checkpoint = self.checkpoint
        start = checkpoint.start if checkpoint is not None else 0
        try:
            for i, item in self.nodes():
                if i >= self.count:
                    return (i, True, f"more nodes than {self.count:,} at the second reading: the file changed")
                n += 1
                if i % jobs == k and i >= start:  # (below start: checked by an earlier run, recorded)
                    if checkpoint is not None:
                        checkpoint.tick(k, jobs, i)
                    try:
                        self.verify_node(i, item)
                    except CertificateError as exc:
                        return (i, isinstance(exc, CertificateFileError), str(exc))
        except CertificateFileError as exc:  # the source broke (a truncated or unparsable line)
            return (n, True, str(exc))
        if n != self.count:
            return (n, True, f"{n:,} nodes at the second reading, not {self.count:,}: the file changed")
        return None

    def verify_node(self, i: int, item: Any) -> None:
        """Node i (``item``, its gap mask the i-th of the first pass) refutes each of its moves."""
        gens, replies = _node(i, item)
        gaps = self.keys.mask_at(i)
        legal = moves(gaps)
        if len(replies) != len(legal):
            raise CertificateError(f"node {_braces(gens)}: {len(replies)} replies for {len(legal)} legal moves other than 1")
        self.refute(lambda: f"node {_braces(gens)}", gaps, legal, replies)

    def verify_root(
        self, root: list[int], root_gaps: int, outcome: str, winning: list[int], cert: dict
    ) -> None:
        """Each winning move leads to a claimed P-position; a complete claim refutes the others."""
        where = f"root {_braces(root)}"
        legal = moves(root_gaps)
        for w in winning:
            if w not in legal:
                raise CertificateError(f"{where}: winning move {w} is not a legal move other than 1")
            if not self.is_p(play(root_gaps, w)):
                raise CertificateError(f"{where}: the position after winning move {w} is not proved P")
        if not cert["complete"]:
            if outcome == "P":
                raise CertificateError(f"{where}: a P claim must be complete")
            return
        root_replies = cert.get("root_replies")
        if outcome == "P" and root_replies is None:
            if not self.is_p(root_gaps):
                raise CertificateError(f"{where}: claimed P but it is not a node")
            return
        if not isinstance(root_replies, list) or len(root_replies) != len(legal):
            raise CertificateError(f"{where}: 'root_replies' must have one entry per legal move other than 1")
        claimed = [x for x, y in zip(legal, root_replies, strict=True) if y == -1]
        if claimed != winning:
            raise CertificateError(f"{where}: 'root_replies' mark {claimed} as winning, not {winning}")
        pairs = [(x, y) for x, y in zip(legal, root_replies, strict=True) if y != -1]
        self.refute(lambda: where, root_gaps, [x for x, _ in pairs], [y for _, y in pairs])


GCD_FORMAT = "sylver-gcd-certificate"
PROBABLY_P = "probably-P"
GCD_VERSION = 2
"""Version 2: each base-region position of a replay record is listed once (version 1, still read,
listed some several times)."""


def _gaps_any(gens: list[int]) -> tuple[int, int]:
    """(g, gap mask of the position ÷ g) for a position with g >= 1."""
    g = math.gcd(*gens)
    return g, gap_mask([x // g for x in gens])


def _min_gens(gaps: int) -> list[int]:
    """The minimal generators of the numerical semigroup with this gap mask (members that are not a
    sum of two nonzero members; they are at most 2t + 1)."""
    if gaps not in _MIN_GENS:  # memoised: the replay asks for a family's at each height of its base region
        _MIN_GENS[gaps] = _min_gens_of(gaps)
    return list(_MIN_GENS[gaps])


_MIN_GENS: dict[int, tuple[int, ...]] = {}


def _min_gens_of(gaps: int) -> tuple[int, ...]:
    t = gaps.bit_length() - 1
    if t < 1:
        return (1,)

    def member(n: int) -> bool:
        return n > t or not (gaps >> n) & 1

    return tuple(m for m in range(2, 2 * t + 2)
                 if member(m) and not any(member(a) and member(m - a) for a in range(1, m)))


def _key(gens: list[int]) -> tuple[int, ...]:
    g, gaps = _gaps_any(gens)
    return tuple(g * x for x in _min_gens(gaps))


def _quiet_ender(gaps: int) -> bool:
    t = gaps.bit_length() - 1
    if t < 1:
        return False
    return all((gaps >> (t - n)) & 1 == 0 for n in range(1, t) if (gaps >> n) & 1)


def _prime(n: int) -> bool:
    return n >= 2 and all(n % q for q in range(2, math.isqrt(n) + 1))


def _short_moves(gens: list[int]) -> tuple[int, int, list[int]]:
    """(p, t(h), the moves that a claim must answer) for a short position T = h × p."""
    p, hg = _gaps_any(gens)
    if not _prime(p):
        raise CertificateError(f"{_braces(gens)} has g = {p}, not a prime")
    if not _quiet_ender(hg):
        raise CertificateError(f"{_braces(gens)} ÷ {p} is not a quiet ender: the position is not short")
    t = hg.bit_length() - 1
    out = [z for z in range(2, t + 1) if z % p]
    out += [p * y for y in range(1, t + 1) if (hg >> y) & 1]
    return p, t, out


def verify_gcd(cert: Any, nodes: tuple[Nodes, int] | None = None, jobs: int = 1,
              imported: Imported | None = None) -> tuple[list[str], int]:
    """Check a ``sylver-gcd-certificate`` (short positions with prime g, long ones with g = 2): raise,
    or return what it proves, what it does not and what it rests on, in a few lines, and the number
    of its gcd-1 nodes.  ``nodes``: where to read them (a source and a bound on their number) when
    they are not ``cert["nodes"]`` (a file read a line at a time); ``jobs``: processes for their second
    reading (:meth:`_Proof.verify_nodes`); ``imported``: as for :func:`verify`."""
    version = cert.get("version")
    if version not in (1, GCD_VERSION):
        raise CertificateError(f"unsupported certificate version {version!r}")
    for key in ("position", "outcome", "winning_moves", "complete", "claims", *(() if nodes else ("nodes",))):
        if key not in cert:
            raise CertificateError(f"missing field {key!r}")
    if nodes is None:
        items = cert["nodes"]
        if not isinstance(items, list):
            raise CertificateError("'nodes' must be a list")
        nodes = (lambda: enumerate(items), len(items))
    proofs = _GcdProofs(cert, *nodes, jobs, _imports_of(cert, imported))
    for claimed, (_gens, replies) in proofs.claims.items():
        where = f"claim {_braces(list(claimed))}"
        p, _t, moves_ = _short_moves(list(claimed))
        if len(replies) != len(moves_):
            raise CertificateError(f"{where}: {len(replies)} replies for {len(moves_)} moves to answer")
        for x, r in zip(moves_, replies, strict=True):
            proofs.refuted(where, list(claimed), x, r, p)
    for claimed, item in proofs.periodic.items():
        _verify_periodic(list(claimed), item, proofs.refuted, proofs.is_p, want_hits=[], version=version)
    for claimed, item in proofs.periodic_n.items():
        hits = set(_replayed_hits(list(claimed), item, proofs.gcd1_p, version))
        start, length = item["start"], item["length"]
        for w in item["winning"]:  # beyond the replay, the values repeat with the period
            if (w if w < start else start + (w - start) % length) not in hits:
                raise CertificateError(f"replay record {_braces(list(claimed))}: the replayed scan does not "
                                       f"find the odd move {w} winning")
    root = cert["position"]
    if not isinstance(root, list) or not root or not all(_is_int(x) and x >= 1 for x in root):
        raise CertificateError(f"'position' {_short(root)} is not a list of positive integers")
    if "root_periodic" in cert:
        opened = _verify_root_periodic(cert, root, proofs)
    elif cert["outcome"] == "N" and cert["complete"] is False and not _is_short_root(root):
        opened = _verify_root_winning(cert, root, proofs)
    else:
        opened = _verify_root_short(cert, root, proofs)
    return _summary(cert, root, proofs, opened), proofs.gcd1.count


def _is_short_root(root: list[int]) -> bool:
    g, hg = _gaps_any(root)
    return _prime(g) and _quiet_ender(hg)


def _verify_root_winning(cert: dict[str, Any], root: list[int], proofs: _GcdProofs) -> list[int]:
    """The root (any g > 1, e.g. a composite g or a long position) is claimed N, not complete: each
    winning move is legal and leaves a position proved P; nothing is claimed of the other moves."""
    where = f"root {_braces(root)}"
    g, hg = _gaps_any(root)
    for w in _root_outcome(cert, where):
        if w % g == 0 and not (hg >> (w // g)) & 1:
            raise CertificateError(f"{where}: winning move {w} is illegal")
        if not proofs.is_p(root + [w]):
            raise CertificateError(f"{where}: the position after winning move {w} is not proved P")
    return []


CITE = 'Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002'


def _summary(cert: dict[str, Any], root: list[int], proofs: _GcdProofs, opened: list[int]) -> list[str]:
    """What a valid gcd certificate proves, what it does not, and what it rests on (in words)."""
    where = _braces(root)
    outcome, winning = cert["outcome"], cert["winning_moves"]
    g, hg = _gaps_any(root)
    periodic = "root_periodic" in cert
    if periodic:
        rec = cert["root_periodic"]
        odd = (f"the scan of the odd moves, replayed from x = 3 to the end of its period ({rec['length']:,} "
               f"from x = {rec['start']:,}), finds "
               + (f"the odd winning moves {_list(w for w in winning if w % 2)} and no other"
                  if any(w % 2 for w in winning) else "no odd winning move"))
    else:
        t = hg.bit_length() - 1
        odd = (f"no move above {t} that is not a multiple of {g} wins ({where} ÷ {g} is a quiet ender, "
               "checked: Quiet End Theorem, sec. 1)")
    lines = []
    if outcome == PROBABLY_P:
        lines.append(f"{where} is probably P ({CITE}, sec. 2): NOT proven P")
        lines.append(f"proven: {odd}; every other move except {_list(opened)} loses (a reply to each, "
                     "whose position is proved P)")
        one = len(opened) == 1
        lines.append(f"not proven: the even move{'' if one else 's'} {_list(opened)} "
                     f"produce{'s a long position' if one else ' long positions'} with g = 2 whose outcome "
                     f"this certificate leaves open; {where} is N if {'it' if one else 'one of them'} is P, "
                     "else P")
    elif outcome == "P":
        lines.append(f"{where} is P: proven")
        lines.append(f"proven: {odd}; every other move loses (a reply to each, whose position is proved P)")
    else:
        lines.append(f"{where} is N: proven")
        lines.append(f"proven: the winning move{'s' if len(winning) > 1 else ''} {_list(winning)} "
                     f"leave{'' if len(winning) > 1 else 's'} a position proved P; "
                     + (f"{odd}; every other move loses (a reply to each)" if cert["complete"]
                        else (f"{odd}; " if periodic else "") + "the other moves are not all decided (not complete)"))
    heights = sum((int(r["start"]) - 3 + int(r["length"])) // 2 for r in  # the odd heights 3 .. start - 2 + length
                  [*proofs.periodic.values(), *proofs.periodic_n.values(), *([cert["root_periodic"]] if periodic else [])])
    lines.append(
        f"the proof: P-positions with gcd 1: {proofs.gcd1.count:,} (a reply to each of their moves); short "
        f"P-positions with prime g: {len(proofs.claims):,}; replay records of long positions with g = 2: "
        f"{len(proofs.periodic) + periodic:,}"
        + (f" P and {len(proofs.periodic_n):,} N (their odd winning moves' positions proved P)"
           if proofs.periodic_n else "")
        + f" ({heights:,} heights replayed)"
        + (f"; imported, proved P by other files: {len(proofs.imported) + len(proofs.gcd1.imported):,}"
           if proofs.imported or proofs.gcd1.imported else ""))
    lines.append(
        "rests on (not checked here): the theorems it names (" + CITE + ", sec. 1: the Quiet End "
        "Theorem, every ender with t > 1 is N, Hutchings's p-theorem; sec. 2: the Periodicity Theorem, "
        "i.e. the checker's own rules for the moves of a long position's shapes)")
    return lines


def _list(xs: Any) -> str:
    return ", ".join(map(str, xs)) or "none"


class _GcdProofs:
    """What a gcd certificate proves P: its gcd-1 nodes (checked by :func:`verify`), its short
    claims and its periodic claims (checked by :func:`verify_gcd`), and the theorems."""

    def __init__(self, cert: dict[str, Any], nodes: Nodes, size: int, jobs: int, imported: Imported) -> None:
        # the gcd-1 nodes: checked as the gcd-1 checker checks them (positions of t < 256 in the
        # table, the others beside it)
        self.gcd1 = _Proof(nodes, size, 32, frozenset(imported.masks))
        self.imported = imported.keys
        """The positions with g > 1 proved P by the certificate's imports (their keys)."""
        self.gcd1.verify_nodes(jobs)
        self.claims: dict[tuple[int, ...], list[Any]] = {}
        for i, item in enumerate(cert["claims"]):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], list)):
                raise CertificateError(f"claim {i} is not [generators, replies]")
            self.claims[_key(item[0])] = item
        self.periodic: dict[tuple[int, ...], dict[str, Any]] = {}
        for i, item in enumerate(cert.get("periodic", [])):
            if not (isinstance(item, dict) and {"position", "start", "length", "base", "even_replies"} <= set(item)):
                raise CertificateError(f"periodic claim {i} lacks position/start/length/base/even_replies")
            self.periodic[_key(item["position"])] = item
        self.periodic_n: dict[tuple[int, ...], dict[str, Any]] = {}
        self.replayed: set[int] = set()
        """The gap masks of the positions L + w, w a winning move of a ``periodic_n`` record of L."""
        for i, item in enumerate(cert.get("periodic_n", [])):
            if not (isinstance(item, dict) and {"position", "start", "length", "base", "winning"} <= set(item)):
                raise CertificateError(f"replay record {i} lacks position/start/length/base/winning")
            gens, winning = item["position"], item["winning"]
            if not (isinstance(gens, list) and gens and all(_is_int(x) and x >= 2 for x in gens)
                    and math.gcd(*gens) == 2):
                raise CertificateError(f"replay record {i}: {_short(gens)} is not a position with g = 2")
            if not (isinstance(winning, list) and winning and all(_is_int(w) and w % 2 == 1 and w > 1 for w in winning)):
                raise CertificateError(f"replay record {_braces(gens)}: 'winning' {_short(winning)} is not "
                                       "a list of odd moves")
            self.periodic_n[_key(gens)] = item
            self.replayed.update(gap_mask([*gens, w]) for w in winning)

    def gcd1_p(self, gens: list[int]) -> bool:
        """Whether the gcd-1 position ``gens`` is proved P by a node (or an import)."""
        return self.gcd1.is_p(gap_mask(gens))

    def is_p(self, gens: list[int]) -> bool:
        g = math.gcd(*gens)
        if g == 1:
            mask = gap_mask(gens)
            return self.gcd1.is_p(mask) or mask in self.replayed
        if len(_key(gens)) == 1 and _prime(g) and g >= 5:
            return True  # {p}, p >= 5: Hutchings's p-theorem
        key = _key(gens)
        return key in self.claims or key in self.periodic or key in self.imported

    def refuted(self, where: str, gens: list[int], x: int, r: object, p: int) -> None:
        """Raise unless the reply r (0: a theorem) refutes the move x in ``gens`` (g = p)."""
        after = gens + [x]
        if r == 0:
            ag = math.gcd(*after)
            if ag == 1:
                gaps = gap_mask(after)
                if gaps.bit_length() - 1 > 1 and is_ender(gaps):
                    return
            elif ag == p and p >= 5 and len(_key(after)) > 1:
                return
            raise CertificateError(f"{where}: the position after {x} is neither an ender with t > 1 "
                                   "nor a position where a prime g >= 5 wins")
        if not isinstance(r, int) or isinstance(r, bool) or r < 2:
            raise CertificateError(f"{where}: reply {r!r} to {x} is not a move")
        ag, agaps = _gaps_any(after)
        if r % ag == 0 and ag > 1 and (agaps >> (r // ag)) & 1 == 0:
            raise CertificateError(f"{where}: reply {r} to {x} is illegal")
        if ag == 1 and not (agaps >> r) & 1:
            raise CertificateError(f"{where}: reply {r} to {x} is illegal")
        if not self.is_p(after + [r]):
            raise CertificateError(f"{where}: after {x} and {r} the position is not proved P")


def _verify_root_periodic(cert: dict[str, Any], root: list[int], proofs: _GcdProofs) -> list[int]:
    """The root is a long position with g = 2: its replayed scan and its even moves; return the even
    moves left open (a probably-P claim)."""
    where = f"root {_braces(root)}"
    winning = _root_outcome(cert, where)
    odd = [w for w in winning if w % 2]
    for w in winning:
        if not proofs.is_p(root + [w]):
            raise CertificateError(f"{where}: the position after winning move {w} is not proved P")
    if not isinstance(cert["root_periodic"], dict):
        raise CertificateError(f"{where}: 'root_periodic' is not a replay record")
    opened = _verify_periodic(root, cert["root_periodic"], proofs.refuted, proofs.is_p, want_hits=odd,
                             version=cert["version"], complete=cert["complete"],
                             even_winning=[w for w in winning if w % 2 == 0])
    if cert["outcome"] == PROBABLY_P:
        _verify_open(where, root, opened)
        return opened
    return []


def _root_outcome(cert: dict[str, Any], where: str) -> list[int]:
    """The root's winning moves, checked against its outcome: P (complete, none), N (at least one)
    or probably-P (none, not complete: the moves left open are checked by the caller)."""
    outcome, winning, complete = cert["outcome"], cert["winning_moves"], cert["complete"]
    if outcome not in ("P", "N", PROBABLY_P):
        raise CertificateError(f"{where}: outcome must be 'P', 'N' or '{PROBABLY_P}', not {_short(outcome)}")
    if not isinstance(winning, list) or not all(_is_int(w) and w >= 2 for w in winning):
        raise CertificateError(f"{where}: 'winning_moves' {_short(winning)} is not a list of moves")
    if not isinstance(complete, bool):
        raise CertificateError(f"{where}: 'complete' must be true or false, not {_short(complete)}")
    if (outcome == "N") != bool(winning):
        raise CertificateError(f"{where}: outcome and winning moves disagree")
    if outcome == "P" and not complete:
        raise CertificateError(f"{where}: a P claim must be complete")
    if outcome == PROBABLY_P and complete:
        raise CertificateError(f"{where}: a {PROBABLY_P} claim is not complete")
    return winning


def _verify_open(where: str, root: list[int], opened: list[int]) -> None:
    """The moves a probably-P claim leaves open are even moves that produce long positions with
    g = 2 (sec. 2), and it leaves at least one (else the claim would be P)."""
    if not opened:
        raise CertificateError(f"{where}: a {PROBABLY_P} claim leaves no move open: claim P")
    for x in opened:
        after = root + [x]
        g, hg = _gaps_any(after)
        if g != 2 or hg == 0 or _quiet_ender(hg):
            raise CertificateError(f"{where}: the move {x} left open does not produce a long position with g = 2")


def _verify_root_short(cert: dict[str, Any], root: list[int], proofs: _GcdProofs) -> list[int]:
    """The root is a short position with prime g: its winning moves, and (complete) a refutation
    of every other move up to t(S ÷ g); a probably-P claim (g = 2) may leave even moves open
    (``null``), each producing a long position.  Return the moves left open."""
    where = f"root {_braces(root)}"
    p, _t, moves_ = _short_moves(root)
    winning = _root_outcome(cert, where)
    probably = cert["outcome"] == PROBABLY_P
    for w in winning:
        if w % p and w > _t:
            raise CertificateError(f"{where}: {w} leaves a quiet ender, so it cannot win")
        if not proofs.is_p(root + [w]):
            raise CertificateError(f"{where}: the position after winning move {w} is not proved P")
    if not (cert["complete"] or probably):
        return []
    rr = cert.get("root_replies")
    if not isinstance(rr, list) or len(rr) != len(moves_):
        raise CertificateError(f"{where}: 'root_replies' must answer each of the {len(moves_)} moves")
    marked = sorted(x for x, r in zip(moves_, rr, strict=True) if r == -1)
    if marked != sorted(winning):
        raise CertificateError(f"{where}: 'root_replies' mark {marked} as winning, not {winning}")
    opened = [x for x, r in zip(moves_, rr, strict=True) if r is None and probably]
    for x, r in zip(moves_, rr, strict=True):
        if r != -1 and x not in opened:
            proofs.refuted(where, root, x, r, p)
    if probably:
        _verify_open(where, root, opened)
    return opened


# -- the Periodicity Theorem (g = 2), replayed -------------------------------------------------------


def _close_half(gaps: int, y: int) -> int:
    """Gap mask of <H, y> from the gap mask of H (y a gap): members closed under +y."""
    top = gaps.bit_length()
    full = (1 << top) - 1
    members = (full & ~gaps) | (1 << y)
    for _ in range(top):
        grown = members | ((members << y) & full)
        if grown == members:
            break
        members = grown
    return gaps & ~members


def _bit_list(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if (mask >> i) & 1]


def replay_scan(gens: list[int], base: Any, start: int, length: int) -> list[int]:
    """Scan the odd moves of a position S with g = 2 from x = 3 to start - 2 + length, in plain Python,
    and return the odd x with S + x P; raise unless the state after start - 2 recurs after
    start - 2 + length (so the values are periodic from ``start`` on).

    An independent implementation of the engine of ``sylver.solver.gcd.periodic``: a position reached
    after an odd move is its even part E (a semigroup containing S, given by the gap mask of E ÷ 2)
    and its odd anchors a + 2δ (the offsets δ, a bit mask); while 2a > 2·t(E ÷ 2) its moves do not
    depend on a.  In the base region (n ≤ t(E ÷ 2)) a position <E, n + 2δ> whose even part (E closed
    under the sums of two anchors) is E itself has the shape's moves and is decided like the others;
    one whose even part is a larger E' is the shape of family E' at height n when that is above E''s
    base region (decided earlier in the step: E' has fewer gaps); for the rest, ``base(generators)``
    gives the outcome (True for P).

    Each height costs a few operations on bit sets (Python ints over the shapes, numbered in the
    order in which they are decided) instead of a walk over every shape's moves: a shape found P at
    height m marks, for each j, the shapes with a move down by j into it as *blocked* (N) at height
    m + 2j; a family's bit (its shape E + m P below the window) makes all its shapes N from then
    on; at each height only the shapes neither blocked nor of such a family are visited, in order,
    each P iff none of its moves that keep the height reaches a shape already found P at it.
    """
    g = math.gcd(*gens)
    if g != 2:
        raise CertificateError(f"{_braces(gens)} has g = {g}, not 2")
    graph = _ReplayGraph(gap_mask([x // 2 for x in gens]) if len(set(gens)) > 1 or gens[0] != 2 else 0)
    tmax = max(graph.T)
    if start - 2 < max(3, tmax - 1):
        raise CertificateError(f"the period must start after the base region (x > {tmax})")
    replay = _Replay(graph, base)
    hits = []
    snap = None
    end = start - 2 + length
    root = graph.rank[graph.index[(graph.root, 1)]]
    while replay.n <= end:
        n, cur = replay.step()
        if cur >> root & 1:
            hits.append(n)
        if n == start - 2:
            snap = replay.state()
    if snap != replay.state():
        raise CertificateError(f"{_braces(gens)}: the state after {start - 2} does not recur after {end}")
    return hits


class _Replay:
    """The values of every shape at heights 3, 5, 7, … in turn (:func:`replay_scan`).

    The shapes are numbered by rank (their place in the order in which they are decided) and a set
    of shapes is a Python int (bit r: the shape of rank r).  ``past[i]``: the shapes P at the i-th
    height before (a ring of max(T) + 1 heights); ``blocked[i]``: the shapes with a move down into a
    shape found P, at the i-th height ahead; ``dead``: the shapes of the families whose bit is set.
    """

    def __init__(self, graph: _ReplayGraph, base: Any) -> None:
        self.graph, self.base = graph, base
        self.tmax = tmax = max(graph.T)
        self.size = size = tmax + 2
        self.T = [graph.T[s] for s in graph.order]
        K = len(self.T)
        self.deep = [sum(1 << r for r in range(K) if self.T[r] >= i) for i in range(tmax + 1)]  # T >= i
        self.everything = (1 << K) - 1
        self.past = [0] * size  # by height // 2 mod size
        self.blocked = [0] * size
        self.dead_at = [0] * size
        self.dead = 0
        self.n = 3

    def step(self) -> tuple[int, int]:
        """Decide the height n (then n += 2); return n and the shapes P at it."""
        n, size = self.n, self.size
        i = (n >> 1) % size
        self.dead |= self.dead_at[i]
        self.dead_at[i] = 0
        stop = self.blocked[i] | self.dead
        self.blocked[i] = 0
        g = self.graph
        into, fam_bits, blocked, up = g.into, g.fam_bits, self.blocked, g.same_parents
        if n <= self.tmax:
            cur = g.base_step(n, self._past, stop, self.base)
            todo = cur
        else:
            # in order, each shape not blocked and without a move that keeps the height into a P
            # shape is P; a P shape blocks the shapes with such a move into it (all later in the
            # order), so the first shape left is always P
            cur = 0
            todo = self.everything & ~stop
        while todo:
            low = todo & -todo
            r = low.bit_length() - 1
            if n <= self.tmax:
                todo ^= low
            else:
                cur |= low
                todo &= ~(low | up[r])
            for j, mask in into[r]:
                blocked[(i + j) % size] |= mask
            if r in fam_bits:  # the family's E + n is P: from n + 2T + 2 on, a move down to it wins
                k = (i + self.T[r] + 1) % size
                self.dead_at[k] |= fam_bits[r]
        self.past[i] = cur
        self.n = n + 2
        return n, cur

    def _past(self, h: int) -> int:
        """The shapes P at the height h (within the last max(T) heights; 0 below 3)."""
        return self.past[(h >> 1) % self.size] if 3 <= h < self.n and h >= self.n - 2 * self.tmax else 0

    def state(self) -> tuple[int, ...]:
        """The state after the last height decided: each shape's last T values and the family bits
        (those set after it, the others are read by the next heights only through them)."""
        h = self.n - 2
        nxt = (self.n >> 1) % self.size
        return (self.dead | self.dead_at[nxt], *(self._past(h - 2 * i) & self.deep[i + 1] for i in range(self.tmax)))


class _ReplayGraph:
    """The shapes (family gap mask, offsets) reachable from S + x for :func:`replay_scan`, with
    their moves, in an order in which moves that keep the height lead to earlier shapes."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.index: dict[tuple[int, int], int] = {}
        self.keys: list[tuple[int, int]] = []
        self.kids: list[tuple[list[int], list[tuple[int, int]]]] = []
        self.shape(root, 1)
        i = 0
        while i < len(self.keys):
            fam, offs = self.keys[i]
            same = set()
            for y in _bit_list(fam):
                nf = _close_half(fam, y)
                same.add(self.shape(nf, self.reduce(offs, nf)))
            for k in self.ups(offs, fam):
                new = 1 << k
                for d in _bit_list(offs):
                    if d < k or (fam >> (d - k)) & 1:
                        new |= 1 << d
                same.add(self.shape(fam, new))
            down = [(j, self.shape(fam, ((offs << j) & fam) | 1)) for j in range(1, fam.bit_length())]
            self.kids[i] = (sorted(same), down)
            i += 1
        self.order = sorted(range(len(self.keys)), key=lambda s: (bin(self.keys[s][0]).count("1"),
                                                                  len(self.ups(self.keys[s][1], self.keys[s][0])), s))
        pos = {s: k for k, s in enumerate(self.order)}
        for s in self.order:
            if any(pos[c] >= pos[s] for c in self.kids[s][0]):
                raise CertificateError("the shape order is not topological")  # pragma: no cover
        self.T = [max(f.bit_length() - 1, 0) for f, _ in self.keys]
        # by rank (position in the order): moves that keep the height, moves down into each shape,
        # and for the root shape E + a of each family the shapes of that family
        self.rank = pos
        self.same_mask = [sum(1 << pos[c] for c in self.kids[s][0]) for s in self.order]
        parents = [0] * len(self.keys)  # by rank: the shapes with a move that keeps the height into it
        for s in self.order:
            for c in self.kids[s][0]:
                parents[pos[c]] |= 1 << pos[s]
        self.same_parents = parents
        into: list[dict[int, int]] = [{} for _ in self.keys]
        for s in self.order:
            for j, c in self.kids[s][1]:
                into[pos[c]][j] = into[pos[c]].get(j, 0) | 1 << pos[s]
        self.into = [sorted(d.items()) for d in into]
        members: dict[int, int] = {}
        for s, (f, _) in enumerate(self.keys):
            members[f] = members.get(f, 0) | 1 << pos[s]
        self.fam_bits = {pos[self.index[(f, 1)]]: m for f, m in members.items() if (f, 1) in self.index}

    def shape(self, fam: int, offs: int) -> int:
        k = (fam, offs)
        if k not in self.index:
            self.index[k] = len(self.keys)
            self.keys.append(k)
            self.kids.append(([], []))
        return self.index[k]

    @staticmethod
    def reduce(offs: int, fam: int) -> int:
        kept: list[int] = []
        for d in _bit_list(offs):
            if all((fam >> (d - e)) & 1 for e in kept):
                kept.append(d)
        return sum(1 << d for d in kept)

    @staticmethod
    def ups(offs: int, fam: int) -> list[int]:
        top = offs.bit_length() + fam.bit_length()
        return [k for k in range(1, top + 1)
                if not (offs >> k) & 1 and all((fam >> (k - d)) & 1 for d in _bit_list(offs) if d < k)]

    def base_step(self, n: int, past: Any, stop: int, base: Any) -> int:
        """The shapes (ranks) P at a height n <= max(T): those of a family with n <= t(E ÷ 2) from
        the even part of <E, n + 2δ> (see :func:`replay_scan`), the others as above the base region
        (``stop``: the shapes blocked or of a family whose bit is set; ``past(h)``: those P at h)."""
        cur = 0
        for r, s in enumerate(self.order):
            fam, offs = self.keys[s]
            if n <= self.T[s]:
                # the even part of <E, n + 2δ>: E closed under the sums of two anchors
                ds = _bit_list(offs)
                even = fam
                for a in range(len(ds)):
                    for b in range(a, len(ds)):
                        if (even >> (n + ds[a] + ds[b])) & 1:
                            even = _close_half(even, n + ds[a] + ds[b])
                other = self.index.get((even, self.reduce(offs, even)))
                if even != fam and other is not None and n > max(even.bit_length() - 1, 0):
                    v = bool(cur >> self.rank[other] & 1)  # that shape above its base region, decided earlier
                elif even != fam:
                    gens = [2 * x for x in _min_gens(fam)] if fam else [2]
                    v = bool(base(gens + [n + 2 * d for d in ds]))
                else:  # the moves are those of the shape: decided as above the base region
                    v = not (self.same_mask[r] & cur
                             or any(past(n - 2 * j) >> self.rank[c] & 1 for j, c in self.kids[s][1]))
            else:
                v = not (stop >> r & 1 or self.same_mask[r] & cur)
            if v:
                cur |= 1 << r
        return cur


def _verify_periodic(gens: list[int], item: dict[str, Any], refuted: Any, is_p: Any, *, want_hits: list[int],
                    version: int, complete: bool = True, even_winning: list[int] | None = None) -> list[int]:
    """A long position with g = 2: replay its scan (odd moves, :func:`_replayed_hits`) and check its
    even moves.  Return the even moves left open (``null`` replies, allowed only when not
    ``complete``)."""
    where = f"periodic claim {_braces(gens)}"
    hits = _replayed_hits(gens, item, is_p, version)
    if sorted(hits) != sorted(want_hits):
        raise CertificateError(f"{where}: the odd winning moves are {hits}, not {want_hits}")
    _, hg = _gaps_any(gens)
    evens = [2 * y for y in _bit_list(hg)]
    replies = item["even_replies"]
    if len(replies) != len(evens):
        raise CertificateError(f"{where}: {len(replies)} even replies for {len(evens)} even moves")
    opened = []
    for x, r in zip(evens, replies, strict=True):
        if r == -1:
            if even_winning is None or x not in even_winning or not is_p(gens + [x]):
                raise CertificateError(f"{where}: the even move {x} is not proved winning")
            continue
        if r is None and not complete:
            opened.append(x)
            continue
        refuted(where, gens, x, r, 2)
    if even_winning and sorted(even_winning) != sorted(x for x, r in zip(evens, replies, strict=True) if r == -1):
        raise CertificateError(f"{where}: the even winning moves do not match 'even_replies'")
    return opened


def _replayed_hits(gens: list[int], item: dict[str, Any], is_p: Any, version: int) -> list[int]:
    """The odd moves x of the long position ``gens`` (g = 2) with ``gens`` + x P, by replaying the
    scan of its replay record ``item`` (:func:`replay_scan`) from the base-region values it proves
    (``is_p``).  Each base-region position has one entry (version 1 certificates repeated some: a
    repeat must then agree with the first entry, which alone is checked)."""
    where = f"replay record {_braces(gens)}"
    base: dict[int, bool] = {}
    if not isinstance(item["base"], list):
        raise CertificateError(f"{where}: 'base' must be a list of [generators, reply]")
    for entry in item["base"]:
        if not (isinstance(entry, list) and len(entry) == 2):
            raise CertificateError(f"{where}: base-region entry {_short(entry)} is not [generators, reply]")
        bg, r = entry
        gaps = gap_mask(bg, f"{where}: base-region position")
        if gaps in base:
            if version >= 2:
                raise CertificateError(f"{where}: base-region position {_braces(bg)} appears twice")
            if base[gaps] != (r == -1):  # version 1 repeated entries: each must agree with the first
                raise CertificateError(f"{where}: base-region position {_braces(bg)} has two different entries")
            continue
        if r == -1:
            if not is_p(list(bg)):
                raise CertificateError(f"{where}: base-region position {_braces(bg)} is not proved P")
            base[gaps] = True
        else:
            _refute_gcd1(where, list(bg), r, is_p)
            base[gaps] = False

    def lookup(bg: list[int]) -> bool:
        gaps = gap_mask(bg)
        if gaps == 0b10:
            return True
        if gaps not in base:
            raise CertificateError(f"{where}: base-region position {_braces(bg)} has no entry")
        return base[gaps]

    start, length = item["start"], item["length"]
    if not (_is_int(start) and _is_int(length) and start % 2 == 1 and length > 0 and length % 2 == 0):
        raise CertificateError(f"{where}: the period must be an odd start and a positive even length, "
                               f"not {_short(start)} and {_short(length)}")
    return replay_scan(gens, lookup, start, length)


def _refute_gcd1(where: str, gens: list[int], r: object, is_p: Any) -> None:
    """A gcd-1 position refuted by the reply r (or 0: an ender with t > 1)."""
    gaps = gap_mask(gens)
    if r == 0:
        if gaps.bit_length() - 1 > 1 and is_ender(gaps):
            return
        raise CertificateError(f"{where}: {_braces(gens)} is not an ender with t > 1")
    if not isinstance(r, int) or isinstance(r, bool) or r < 2 or not (gaps >> r) & 1:
        raise CertificateError(f"{where}: {r!r} is not a legal reply in {_braces(gens)}")
    if not is_p(gens + [r]):
        raise CertificateError(f"{where}: after {r} in {_braces(gens)} the position is not proved P")


def verify_any(cert: Any, imported: Imported | None = None) -> list[str]:
    """Check a certificate of either format; return what it proves, in words (:func:`verify_gcd`;
    nothing more to say for gcd 1, where the claim is the whole statement).  ``imported``: as for
    :func:`verify`."""
    if isinstance(cert, dict) and cert.get("format") == GCD_FORMAT:
        return verify_gcd(cert, imported=imported)[0]
    verify(cert, imported)
    return []


class CertificateFileError(CertificateError):
    """The file cannot be read as a certificate: unreadable, not JSON, or truncated."""


# -- imports: a certificate resting on other certificate files ---------------------------------------


@dataclass(frozen=True)
class Rested:
    """A certificate file that a checked one imports, and how it was found valid."""

    position: list[int]
    """The position it proves P."""
    path: str
    """The file, as the importing certificate names it."""
    sha256: str
    """Its SHA-256 (hex)."""
    how: str
    """``checked`` (read and checked for this import), ``checked above`` (earlier in the same run) or
    ``checked before`` (by a record of an earlier run, :class:`Verifier` ``known``)."""
    when: str
    """When it was checked (UTC, ISO 8601)."""

    def line(self) -> str:
        """``rests on {16,30,56} P: checked before, 3fa2c1d0e2b4, 2026-11-27T09:12:00Z``."""
        return f"rests on {_braces(self.position)} P: {self.how}, {self.sha256[:12]}, {self.when}"


@dataclass
class Imported:
    """The positions that a certificate's imports prove P: gap masks (gcd 1) and keys (g > 1)."""

    masks: set[int]
    keys: set[tuple[int, ...]]
    rested: list[Rested]
    """Each import, in the certificate's order."""


def _imports_of(cert: dict[str, Any], imported: Imported | None) -> Imported:
    """What the certificate's ``imports`` prove, resolved by the caller (``imported``): none when it
    has none; a certificate with imports checked as a dict (no file to resolve them from) is refused."""
    if imported is not None:
        return imported
    if cert.get("imports"):
        raise CertificateError("its 'imports' name files: check it from its file (verify_path, sylver verify)")
    return Imported(set(), set(), [])


def _gcd1_imports(cert: dict[str, Any], imported: Imported | None) -> frozenset[int]:
    """The gap masks of the positions imported by a gcd-1 certificate (all of gcd 1: no position
    with g > 1 is reached from one with gcd 1)."""
    got = _imports_of(cert, imported)
    if got.keys:
        raise CertificateError(f"a gcd-1 certificate imports {_braces(list(min(got.keys)))}, whose g > 1")
    return frozenset(got.masks)


def _import_fields(i: int, item: Any) -> tuple[list[int], str, int, str]:
    """The position, path, bytes and SHA-256 of the import ``i`` (``item``), checked for shape."""
    if not (isinstance(item, dict) and {"position", "outcome", "path", "bytes", "sha256"} <= set(item)):
        raise CertificateError(f"import {i} lacks position/outcome/path/bytes/sha256")
    pos, path, size, digest = item["position"], item["path"], item["bytes"], item["sha256"]
    gens = pos if isinstance(pos, list) and pos and all(_is_int(x) and x >= 1 for x in pos) else None
    if gens is None:
        raise CertificateError(f"import {i}: 'position' {_short(pos)} is not a list of positive integers")
    if item["outcome"] != "P":
        raise CertificateError(f"import {_braces(gens)}: only P-positions are imported, not {_short(item['outcome'])}")
    if not (isinstance(path, str) and path and _is_int(size) and size >= 0 and isinstance(digest, str)
            and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
        raise CertificateError(f"import {_braces(gens)}: 'path', 'bytes' or 'sha256' malformed")
    return gens, path, size, digest


VERIFIER_VERSION = 1
"""The rules of this verifier, numbered (raised when they change): a record of a check made under
another number (:class:`Verifier` ``known``; a record's key ``checker``, as written before the
name) is not trusted."""


class RecordError(ValueError):
    """A file of records of checks (``known``) that cannot be read or written, or a malformed line."""


def read_records(path: str) -> dict[tuple[str, int], dict[str, Any]]:
    """The records of complete valid checks in the JSON-lines file ``path`` (none if it does not
    exist), by (SHA-256, bytes): those of this checker's :data:`VERIFIER_VERSION` (others are kept in
    the file and not trusted).  A line that is not a record raises :class:`RecordError`."""
    out: dict[tuple[str, int], dict[str, Any]] = {}
    for n, rec in _record_lines(path):
        if isinstance(rec, dict) and "checked_below" in rec:
            _progress_record(path, n, rec)
            continue  # where a cut check stood (:func:`resume_point`)
        if not (isinstance(rec, dict) and isinstance(rec.get("sha256"), str) and _is_int(rec.get("bytes"))
                and isinstance(rec.get("position"), list) and rec.get("outcome") in ("P", "N", PROBABLY_P)
                and isinstance(rec.get("complete"), bool) and isinstance(rec.get("time"), str)
                and _is_int(rec.get("checker"))):
            raise RecordError(f"{path} line {n} is not a record of a check (sha256, bytes, position, "
                              "outcome, complete, proves, checker, time)")
        if rec["checker"] == VERIFIER_VERSION:
            out[(rec["sha256"], rec["bytes"])] = rec
    return out


def _record_lines(path: str) -> Iterator[tuple[int, Any]]:
    """(line number, its JSON value or None when it is not JSON) for each line of the JSON-lines
    file ``path`` (none if it does not exist; :class:`RecordError` if it cannot be read)."""
    try:
        fh = open(path, encoding="utf-8")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RecordError(f"cannot read {path}: {exc.strerror}") from None
    with fh:
        for n, text in enumerate(fh, 1):
            try:
                yield n, json.loads(text)
            except json.JSONDecodeError:
                yield n, None


def _progress_record(path: str, n: int, rec: dict[str, Any]) -> tuple[str, int, int]:
    """A progress record's run, share and jobs (:class:`Checkpoint`), its fields checked."""
    if not (isinstance(rec.get("sha256"), str) and _is_int(rec.get("bytes")) and _is_int(rec.get("checked_below"))
            and _is_int(rec.get("share")) and _is_int(rec.get("jobs")) and 0 <= rec["share"] < rec["jobs"]
            and isinstance(rec.get("run"), str) and _is_int(rec.get("checker"))):
        raise RecordError(f"{path} line {n} is not a record of a check's progress (sha256, bytes, "
                          "checked_below, share, jobs, run, checker, time)")
    return rec["run"], rec["share"], rec["jobs"]


def resume_point(path: str, sha256: str, size: int) -> int:
    """The number of nodes, from the first, whose check the progress records in the JSON-lines file
    ``path`` prove made (:class:`Checkpoint`; 0 if none): of each run of this checker's
    :data:`VERIFIER_VERSION` that recorded every one of its shares, the least of its shares' last
    ``checked_below``; the most of those.  (A run resumed at s records values >= s, and the nodes
    below s were checked before it.)"""
    runs: dict[str, dict[int, int]] = {}
    jobs: dict[str, int] = {}
    for n, rec in _record_lines(path):
        if not (isinstance(rec, dict) and "checked_below" in rec):
            continue  # (read_records, which reads the file first, refuses a line that is no record)
        run, share, count = _progress_record(path, n, rec)
        if (rec["sha256"], rec["bytes"], rec["checker"]) != (sha256, size, VERIFIER_VERSION):
            continue
        if jobs.setdefault(run, count) != count:
            raise RecordError(f"{path} line {n}: run {run} recorded with {count} processes and {jobs[run]}")
        shares = runs.setdefault(run, {})
        shares[share] = max(shares.get(share, 0), rec["checked_below"])
    return max((min(shares.values()) for run, shares in runs.items() if len(shares) == jobs[run]), default=0)


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _scan(path: str) -> tuple[bytes, int, int, str]:
    """The first line of the file ``path``, its number of lines, bytes and SHA-256, in one reading."""
    import hashlib

    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            total = os.fstat(fh.fileno()).st_size
            first = fh.readline()
            digest.update(first)
            lines, size = first.count(b"\n"), len(first)
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                digest.update(chunk)
                lines += chunk.count(b"\n")
                size += len(chunk)
                if _PROGRESS is not None and size % (64 << 20) < len(chunk):
                    _PROGRESS(path, "hashing", size, total)
    except OSError as exc:
        raise CertificateFileError(f"cannot read {path}: {exc.strerror}") from None
    return first, lines, size, digest.hexdigest()


@dataclass(frozen=True)
class Verified:
    """What a valid certificate file claims (:func:`verify_path`)."""

    head: dict[str, Any]
    """Its fields but ``nodes`` (and, with g > 1, ``claims`` and ``periodic``)."""
    nodes: int
    """Its P-positions with gcd 1."""
    proves: list[str]
    """What it proves, in words (:func:`verify_gcd`; empty for gcd 1)."""
    sha256: str = ""
    """The file's SHA-256 (hex)."""
    bytes: int = 0
    """The file's size."""
    imports: tuple[Rested, ...] = ()
    """The files it imports (``imports``), each found valid."""
    verified_before: str = ""
    """The time of the record of a valid check it was taken from (``Verifier.verify(recorded=True)``;
    '': checked by this process)."""
    resumed: int = 0
    """The nodes whose check was taken from the progress records of an earlier, cut check
    (:class:`Checkpoint`; 0: all checked by this process)."""

    def claim(self) -> str:
        """What it proves, in one line: ``{16,30} is N: 56 wins`` or ``{16,30,56} is P``."""
        head = self.head
        wins = ", ".join(map(str, head["winning_moves"]))
        return (f"{_braces(head['position'])} is {head['outcome']}" + (f": {wins} win" if wins else "")
                + ("s" if "," in wins else "") + ("" if head["complete"] or not wins else " (not complete)"))


class Verifier:
    """Checks certificate files and the files they import, each distinct file (by SHA-256) once.

    An import (``"imports": [{"position", "outcome": "P", "path", "bytes", "sha256"}, ...]`` in the
    header) names a file that proves that position P, complete; its path is relative to the
    importing file's directory, or absolute.  The file must have that size and SHA-256 and be valid
    (checked here, its own imports too; a cycle of imports is refused); the importing certificate
    then has that position proved P wherever it needs one.  Imports are checked one after the other
    and only what each proves is kept, so memory is that of the largest file's check.

    ``known``: a JSON-lines file of records of complete valid checks (:func:`read_records`), one
    appended after each; an import whose SHA-256 and size are recorded (and whose file is there with
    that size) is taken as checked, without reading it, as is one checked earlier by this verifier.
    Without it nothing is taken on trust from before this verifier.
    ``verified``: the files read and verified, in order (path, SHA-256).
    ``progress``: told how far each reading of a file has gone (:data:`Progress`; a line a second on
    a terminal: :class:`ProgressLine`)."""

    def __init__(self, jobs: int = 1, known: str | None = None, progress: Progress | None = None) -> None:
        self.jobs = jobs
        self.known = known
        self.progress = progress
        self.records = read_records(known) if known else {}
        self.done: dict[str, Verified] = {}
        self.verified: list[tuple[str, str]] = []
        self.stack: list[str] = []
        """The real paths of the files being checked, outermost first (for cycles)."""

    def verify(self, path: str, recorded: bool = False) -> Verified:
        """Check the certificate file ``path`` (once: a file with the SHA-256 of one checked before
        by this verifier is not read again; ``recorded``: nor one that ``known`` records with the
        moves it proved (or P), whose :class:`Verified` is then made from the record, with no nodes
        and ``verified_before`` its time); raise :class:`CertificateError` naming the first flaw
        (:class:`CertificateFileError`: not a readable certificate)."""
        global _PROGRESS
        before, _PROGRESS = _PROGRESS, self.progress
        try:
            first, lines, size, digest = _scan(path)
            rec = self.records.get((digest, size)) if recorded else None
            moves = rec.get("winning_moves", [] if rec["outcome"] == "P" else None) if rec is not None else None
            if rec is not None and isinstance(moves, list):  # (a record of P before moves were kept: none)
                head = {"position": rec["position"], "outcome": rec["outcome"], "winning_moves": moves,
                        "complete": rec["complete"]}
                proves = [] if math.gcd(*rec["position"]) == 1 else list(rec.get("proves", []))  # as a check says
                return Verified(head, 0, proves, sha256=digest, bytes=size, verified_before=str(rec["time"]))
            return self.done.get(digest) or self._verify(path, first, lines, size, digest)
        finally:
            _PROGRESS = before

    def _verify(self, path: str, first: bytes, lines: int, size: int, digest: str) -> Verified:
        global _CHECKPOINT
        self.stack.append(os.path.realpath(path))
        before = _CHECKPOINT
        start = resume_point(self.known, digest, size) if self.known else 0
        if self.known:
            _CHECKPOINT = Checkpoint(known=self.known, sha256=digest, bytes=size, start=start,
                                     run=f"{os.getpid()}-{time.time_ns()}", last=time.monotonic())
        try:
            checked = _verify_file(path, first, lines, self.jobs, lambda head: self.imports(path, head))
        finally:
            self.stack.pop()
            _CHECKPOINT = before
        checked = replace(checked, sha256=digest, bytes=size, resumed=min(start, checked.nodes))
        self.done[digest] = checked
        self.verified.append((path, digest))
        if self.known:
            self.remember(path, checked)
        return checked

    def remember(self, path: str, checked: Verified) -> None:
        """Append the record of a complete valid check to ``known``."""
        head = checked.head
        rec = {"sha256": checked.sha256, "bytes": checked.bytes, "position": head["position"],
               "outcome": head["outcome"], "winning_moves": list(head.get("winning_moves") or []),
               "complete": head["complete"], "proves": checked.proves or [checked.claim()], "checker": VERIFIER_VERSION, "time": _now(),
               "path": os.path.abspath(path)}
        try:
            with open(str(self.known), "a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec, separators=(",", ":")) + "\n")
        except OSError as exc:
            raise RecordError(f"cannot write {self.known}: {exc.strerror}") from None
        self.records[(checked.sha256, checked.bytes)] = rec

    def imports(self, path: str, head: dict[str, Any]) -> Imported:
        """The positions that the ``imports`` of the certificate ``path`` (header ``head``) prove P,
        each file checked (or recorded as checked); raise naming the first import at fault."""
        items = head.get("imports", [])
        if not isinstance(items, list):
            raise CertificateError("'imports' must be a list")
        got = Imported(set(), set(), [])
        for i, item in enumerate(items):
            gens, name, size, digest = _import_fields(i, item)
            rested = self.imported(gens, os.path.join(os.path.dirname(path), name), name, size, digest)
            g, gaps = _gaps_any(gens)
            if g == 1:
                got.masks.add(gaps)
            else:
                got.keys.add(_key(gens))
            got.rested.append(rested)
        return got

    def imported(self, gens: list[int], target: str, name: str, size: int, digest: str) -> Rested:
        """The import of ``gens`` from the file ``target`` (``name`` in the certificate), found valid
        and proving exactly ``gens`` P, complete."""
        where = f"import {_braces(gens)} ({name})"
        above = self.done.get(digest)
        rec = self.records.get((digest, size))
        there = os.path.isfile(target) and os.path.getsize(target) == size
        if above is not None and above.bytes == size and there:
            head, how, when = above.head, "checked above", _now()
        elif rec is not None and there:
            head, how, when = rec, "checked before", str(rec["time"])
        else:
            real = os.path.realpath(target)
            if real in self.stack:
                cycle = " → ".join(self.stack[self.stack.index(real):] + [real])
                raise CertificateError(f"{where}: a cycle of imports: {cycle}")
            try:
                first, lines, got_size, got = _scan(target)
                if (got_size, got) != (size, digest):
                    raise CertificateError(f"the file has changed: {got_size:,} bytes, SHA-256 {got[:12]}…, not "
                                           f"{size:,} and {digest[:12]}…")
                how = "checked"
                checked = self._verify(target, first, lines, got_size, got)
            except CertificateError as exc:
                raise CertificateError(f"{where}: {exc}") from None
            head, when = checked.head, _now()
        if head["outcome"] != "P" or head["complete"] is not True or _key(list(head["position"])) != _key(gens):
            raise CertificateError(f"{where}: the file proves {_braces(list(head['position']))} {head['outcome']}"
                                   f"{'' if head['complete'] else ' (not complete)'}, not {_braces(gens)} P")
        return Rested(gens, name, digest, how=how, when=when)


NODES_OPEN = ',"nodes":['
"""How the first line of a gcd-1 certificate written a node a line ends (``prove.write_certificate``)."""
CLAIMS_OPEN = ',"claims":['
"""How the first line of a gcd certificate written an item a line ends (``prove.write_any_certificate``:
then a claim a line, the line ``],"nodes":[``, a node a line, ``]}``)."""


def verify_file(path: str) -> list[str]:
    """:func:`verify_path`; what the certificate proves, in words (empty for gcd 1)."""
    return verify_path(path).proves


def verify_path(path: str, jobs: int = 1) -> Verified:
    """Check the certificate in the file ``path`` and the files it imports (:class:`Verifier`);
    raise :class:`CertificateError` naming the first flaw (:class:`CertificateFileError` when the
    file is not a readable certificate at all).

    A gcd-1 certificate laid out a node a line (the header on the first line, ending with
    ``"nodes":[``; then a node a line, with a comma after each but the last; then ``]}``), as
    ``sylver solve --certificate`` writes it, is read twice a line at a time (:class:`_Proof`):
    memory for its nodes' gap masks only, whatever the file's size; so are the gcd-1 nodes of a gcd
    certificate laid out an item a line (:data:`CLAIMS_OPEN`; its claims are held).  Any other file
    is read whole.  ``jobs``: processes for the second reading of the gcd-1 nodes, of either format
    (:meth:`_Proof.verify_nodes`)."""
    return Verifier(jobs).verify(path)


def _verify_file(path: str, first: bytes, lines: int, jobs: int, resolve: Callable[[Any], Imported]) -> Verified:
    """Check the certificate file ``path`` (its first line ``first``, ``lines`` lines), its imports
    resolved by ``resolve`` (given its header)."""
    text = first.rstrip(b"\r\n")
    if text.startswith(b"{") and text.endswith(NODES_OPEN.encode()):
        head = _json(path, 1, text[: -len(NODES_OPEN)] + b"}")
        if isinstance(head, dict) and head.get("format") == FORMAT:
            return _verify_lines(path, head, len(first), lines, jobs, resolve(head))
    if text.startswith(b"{") and text.endswith(CLAIMS_OPEN.encode()):
        head = _json(path, 1, text[: -len(CLAIMS_OPEN)] + b"}")
        if isinstance(head, dict) and head.get("format") == GCD_FORMAT:
            return _verify_gcd_lines(path, head, len(first), lines, jobs, resolve(head))
    try:
        with open(path, encoding="utf-8") as fh:
            cert = json.load(fh)
    except OSError as exc:
        raise CertificateFileError(f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CertificateFileError(f"{path} is not JSON: {exc}") from None
    imported = resolve(cert) if isinstance(cert, dict) else None
    proves = verify_any(cert, imported)
    head = {k: v for k, v in cert.items() if k not in ("nodes", "claims", "periodic", "periodic_n")}
    return Verified(head, len(cert["nodes"]), proves, imports=tuple(imported.rested) if imported else ())


def _json(path: str, line: int, text: bytes) -> Any:
    """The JSON value of the line ``text``: ``json.loads``, through its decoder directly when the
    text is UTF-8 and one value from its first byte to its last (what ``json.loads`` then returns,
    without its encoding detection and whitespace checks: half the time of a node's line)."""
    try:
        try:
            value, end = _DECODE(text.decode())
            if end == len(text):  # (a character that is not ASCII: json.loads decides)
                return value
        except ValueError:  # not UTF-8, not JSON, or not from the first byte: json.loads words it
            pass
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CertificateFileError(f"{path} is not JSON: line {line}: {exc}") from None


_DECODE = json.JSONDecoder().raw_decode


def _verify_lines(path: str, head: dict[str, Any], offset: int, lines: int, jobs: int, imported: Imported) -> Verified:
    """:func:`verify` of a certificate laid out a node a line, its nodes read from the file at each
    pass (``offset``: where they start; ``lines``: an upper bound on their number)."""
    root, root_gaps, outcome, winning = _header({**head, "nodes": []})
    readings = [0]

    def nodes() -> Iterator[tuple[int, Any]]:
        readings[0] += 1
        return _node_lines(path, offset, reading=readings[0])

    proof = _Proof(nodes, lines, _width(root_gaps), _gcd1_imports(head, imported))
    proof.verify_nodes(jobs)
    proof.verify_root(root, root_gaps, outcome, winning, head)
    return Verified(head, proof.count, [], imports=tuple(imported.rested))


def _verify_gcd_lines(path: str, head: dict[str, Any], offset: int, lines: int, jobs: int,
                     imported: Imported) -> Verified:
    """:func:`verify_gcd` of a gcd certificate laid out an item a line: its claims read at once, its
    gcd-1 nodes from the file at each pass."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            gen = _items(fh, path, 1, b'],"nodes":[', "claims")
            claims = []
            while True:
                try:
                    claims.append(next(gen)[1])
                except StopIteration as stop:
                    line = stop.value
                    break
            start = fh.tell()
    except OSError as exc:
        raise CertificateFileError(f"cannot read {path}: {exc.strerror}") from None

    readings = [0]

    def nodes() -> Iterator[tuple[int, Any]]:
        readings[0] += 1
        return _node_lines(path, start, line, readings[0])

    proves, count = verify_gcd({**head, "claims": claims}, (nodes, lines), jobs, imported)
    return Verified(head, count, proves, imports=tuple(imported.rested))


def _node_lines(path: str, offset: int, line: int = 1, reading: int = 1) -> Iterator[tuple[int, Any]]:
    """The nodes of a certificate laid out a node a line, from byte ``offset`` of the file (after
    its line ``line``) to the line ``]}``, the last: (index, node) for each (:func:`_items`), the
    ``reading``-th time (of 2) for the progress."""
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below, also when the caller stops early
    except OSError as exc:
        raise CertificateFileError(f"cannot read {path}: {exc.strerror}") from None
    with fh:
        fh.seek(offset)
        items = _items(fh, path, line, b"]}", "nodes")
        if _PROGRESS is not None:
            items = _told(items, fh, path, f"reading {reading} of 2", _PROGRESS)
        end = yield from items
        if fh.read().strip():
            raise CertificateFileError(f"{path} is not JSON: more after the end, line {end}")


def _told(items: Generator[tuple[int, Any], None, int], fh: Any, path: str, what: str,
          progress: Progress) -> Generator[tuple[int, Any], None, int]:
    """``items``, read from ``fh``, telling ``progress`` how far every :data:`PROGRESS_LINES`."""
    size = os.fstat(fh.fileno()).st_size
    progress(path, what, fh.tell(), size)
    n = 0
    while True:
        try:
            item = next(items)
        except StopIteration as stop:
            progress(path, what, size, size)
            return int(stop.value)
        yield item
        n += 1
        if n % PROGRESS_LINES == 0:
            progress(path, what, fh.tell(), size)


class ProgressLine:
    """A :data:`Progress` that keeps one line up to date on a terminal (``stream``), at most once a
    second: ``verifying NAME: reading 1 of 2, 34% (361 of 1,049 MB)``; :meth:`clear` rubs it out."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.shown = 0.0

    def __call__(self, path: str, what: str, done: int, size: int) -> None:
        now = time.monotonic()
        if now - self.shown < 1.0:
            return
        self.shown = now
        share = 100 * done // size if size else 100
        self.stream.write(f"\rverifying {os.path.basename(path)}: {what}, {share}% "
                          f"({done / 1e6:,.0f} of {size / 1e6:,.0f} MB)\x1b[K")
        self.stream.flush()

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = 0.0


def _items(fh: Any, path: str, after: int, end: bytes, what: str) -> Generator[tuple[int, Any], None, int]:
    """The items of a list laid out an item a line, read from ``fh`` (after its line ``after``) to
    the line ``end``: (index, item) for each; return the number of the line ``end``.  A file that
    breaks the layout (a truncated or unparsable line, a missing or extra comma, no ``end``) raises
    :class:`CertificateFileError`."""
    i, more, line = 0, True, after
    for line, raw in enumerate(fh, after + 1):
        text = raw.strip()
        if text != end and not raw.endswith(b"\n"):
            raise CertificateFileError(f"{path} is truncated: line {line} does not end")
        if text == end:
            if more and i:
                raise CertificateFileError(f"{path} is not JSON: line {line - 1} ends with a comma")
            return line
        if not text and i == 0:
            continue  # the empty list's line
        if not more:
            raise CertificateFileError(f"{path} is not JSON: no comma after line {line - 1}")
        more = text.endswith(b",")
        yield i, _json(path, line, text[:-1] if more else text)
        i += 1
    raise CertificateFileError(f"{path} is truncated: it ends at line {line}, inside the list of {what}")


def resumed(checked: Verified, known: str) -> str:
    """How much of a check an earlier run made (:class:`Checkpoint`), in words."""
    return (f"resumed: the first {checked.resumed:,} of its {checked.nodes:,} P-positions were checked by an "
            f"earlier run, recorded in {known}")


def report(checked: Verified) -> list[str]:
    """The lines that follow ``valid``: what the certificate proves (g > 1), and what it rests on
    (its imports, each with how it was found valid)."""
    return [*checked.proves, *(r.line() for r in checked.imports)]


def main(argv: list[str] | None = None) -> int:
    """``python certificate.py [--jobs N] [--known RECORDS] FILE...``: for each file (one
    :class:`Verifier`: a file imported by several is checked once), ``valid`` and :func:`report`, or
    ``invalid: the flaw``, each line after ``FILE: `` when there are several; exit 0 if all are
    valid, 1 if one is not, 2 (``error: why`` on stderr) when a file is not a readable certificate
    or the records cannot be read."""
    args = sys.argv[1:] if argv is None else argv
    jobs, known = 1, None
    while len(args) > 2 and args[0] in ("--jobs", "--known"):
        if args[0] == "--known":
            known = args[1]
        elif args[1].isdigit() and int(args[1]) >= 1:
            jobs = int(args[1])
        else:
            break
        args = args[2:]
    if not args or any(a.startswith("--") for a in args):
        print("usage: certificate.py [--jobs N] [--known RECORDS] FILE...", file=sys.stderr)
        return 2
    code = 0
    progress = ProgressLine(sys.stderr)
    try:
        verifier = Verifier(jobs, known, progress if sys.stderr.isatty() else None)
        for path in args:
            name = f"{path}: " if len(args) > 1 else ""
            try:
                checked = verifier.verify(path)
            except CertificateFileError:
                raise
            except CertificateError as exc:
                progress.clear()
                print(f"{name}invalid: {exc}")
                code = 1
                continue
            progress.clear()
            print(f"{name}valid" + (f" ({resumed(checked, str(known))})" if checked.resumed else ""))
            for line in report(checked):
                print(f"  {line}")
    except (CertificateFileError, RecordError) as exc:
        progress.clear()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
