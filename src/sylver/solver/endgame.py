"""The endgame table: the outcome of every position with at most ``GENUS`` legal moves.

A position (gcd 1) is a numerical semigroup S; its genus g(S) is its number of gaps, i.e. of legal
moves (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1).  Every semigroup
of genus g + 1 arises exactly once from one of genus g by removing a minimal generator larger than
its Frobenius number t (the tree of numerical semigroups: the parent of S is S ∪ {t}), so the
semigroups of genus 1, 2, ..., ``GENUS`` are listed level by level (1, 1, 2, 4, 7, 12, 23, ...,
15,195,070 of genus 32: OEIS A007323).  A move x leaves a position of smaller genus, so the
outcomes are found level by level too: S is P iff no move x >= 2 leaves a P-position (naming 1
loses).  Genus g means t <= 2g - 1, so for g <= 32 the gap set is one 64-bit word, which is the
position's key: exact, no hashing collision possible.

The search (``kernels.search``) looks up every child of at most ``GENUS`` gaps here instead of
searching it: in a search from {16,20,28,35,54} (genus 59) most of the positions expanded have
genus 20 to 35.  Only the P-positions are kept (2,848,067 of the 38,858,195 positions of genus
<= 32), in buckets of 8 gap words (one cache line) behind a one-word Bloom filter
(``kernels.eg_has``).

The table is built by ``sylver warmup`` (about a minute) into a file beside the ahead-of-time
kernels (:mod:`sylver.aot`), with a manifest holding its SHA-256, checked at every load: a missing
or damaged file is never used (the solver then searches those positions itself, with the same
answers, more slowly).  This construction shares nothing with the search but the move rule: it is a
third, independent solver, and the tests compare the three.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sylver.solver import kernels as k

GENUS = 32
"""The table holds every position with at most this many gaps (t < 64: one word)."""
VERSION = 2
"""Format of the table's file and manifest."""
MAX_LOAD = 0.75
"""Largest fraction of the table's slots that hold a P-position (linear probing over buckets of 8)."""


def geometry(count: int) -> tuple[int, int]:
    """(slots, filter words) of a table of ``count`` P-positions: a power of two of slots at most
    ``MAX_LOAD`` full, in buckets of 8, and a filter word per bucket (``kernels.eg_has``: 6 P-positions
    per word at most, two bits each: 2.5-3 % false positives)."""
    slots = max(64, 1 << max(0, math.ceil(count / MAX_LOAD) - 1).bit_length())
    return slots, slots // k.SLOTS



@dataclass
class EndgameTable:
    """The P-positions of genus <= ``genus``, laid out for ``kernels.eg_has``."""

    genus: int
    table: np.ndarray
    filter: np.ndarray
    fshift: int
    path: Path | None = None
    counts: list[int] = field(default_factory=list)
    """Positions of each genus 0..genus (index 0: the semigroup N, not a position)."""
    p_counts: list[int] = field(default_factory=list)
    """P-positions of each genus."""

    @classmethod
    def from_words(cls, genus: int, words: np.ndarray, **info: object) -> EndgameTable:
        slots, fwords = geometry(words.shape[0])
        from sylver.solver.tables import table_zeros

        table = table_zeros(slots, np.uint64)
        filt = table_zeros(fwords, np.uint64)
        fshift = 64 - (fwords.bit_length() - 1)
        k.eg_fill(table, filt, fshift, np.ascontiguousarray(words, dtype=np.uint64))
        return cls(genus, table, filt, fshift, **info)  # type: ignore[arg-type]

    def is_p(self, word: int) -> bool:
        """Whether the position with gap word ``word`` (genus <= ``genus``) is P."""
        return bool(k.eg_lookup(self.table, self.filter, self.fshift, np.array([word], dtype=np.uint64)))

    def words(self) -> np.ndarray:
        """The P-positions' gap words, sorted."""
        return np.sort(self.table[self.table != 0])


def build(genus: int = GENUS, tick: Callable[[int, int, int], None] | None = None) -> EndgameTable:
    """List every semigroup of genus 1..``genus`` (<= 32) and decide each; ``tick(g, positions,
    p_positions)`` after each genus."""
    if not 1 <= genus <= 32:
        raise ValueError(f"the endgame table's genus must be 1..32 (t < 64), not {genus}")
    level = np.array([2], dtype=np.uint64)  # genus 1: the gap set {1}, P (only 1 is legal)
    found = [np.array([2], dtype=np.uint64)]
    counts, p_counts = [1, 1], [0, 1]
    total = 1
    eg = EndgameTable.from_words(genus, found[0])
    if tick is not None:
        tick(1, 1, 1)
    for g in range(2, genus + 1):
        n = k.eg_tree_children(level, np.empty(0, dtype=np.uint64))
        nxt = np.empty(n, dtype=np.uint64)
        k.eg_tree_children(level, nxt)
        level = nxt
        out = np.empty(n, dtype=np.uint64)
        p = int(k.eg_decide(level, eg.table, eg.filter, eg.fshift, out))
        counts.append(n)
        p_counts.append(p)
        found.append(out[:p].copy())
        total += p
        if geometry(total) != (eg.table.shape[0], eg.filter.shape[0]):
            eg = EndgameTable.from_words(genus, np.concatenate(found))
        else:
            k.eg_fill(eg.table, eg.filter, eg.fshift, found[-1])
        if tick is not None:
            tick(g, n, p)
    eg.counts, eg.p_counts = counts, p_counts
    return eg


# -- the file --------------------------------------------------------------------------------------


def directory() -> Path:
    """Where the table's file lives: beside the ahead-of-time kernels (``SYLVER_AOT_DIR``)."""
    from sylver import aot

    return aot.directory(k)


def _names(genus: int) -> tuple[str, str]:
    stem = f"sylver-endgame-g{genus}-v{VERSION}"
    return stem + ".npy", stem + ".json"


def save(eg: EndgameTable, where: Path | None = None) -> Path:
    """Write the table's P-positions (sorted by bucket, so that loading fills the table in one
    sweep) and its manifest (genus, counts, SHA-256), atomically; returns the file's path."""
    where = directory() if where is None else where
    where.mkdir(parents=True, exist_ok=True)
    words = eg.words()
    buckets = geometry(words.shape[0])[1]
    words = words[np.argsort(k.eg_bucket_order(words, 64 - (buckets.bit_length() - 1)), kind="stable")]
    data = words.astype("<u8").tobytes()
    name, manifest = _names(eg.genus)
    info = {"format": "sylver-endgame", "version": VERSION, "genus": eg.genus, "p_positions": int(words.shape[0]),
            "counts": eg.counts, "p_counts": eg.p_counts, "sha256": hashlib.sha256(data).hexdigest()}
    for fname, payload in ((name, data), (manifest, (json.dumps(info) + "\n").encode())):
        fd, tmp = tempfile.mkstemp(prefix=".sylver-endgame-", dir=where)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(payload)
            os.chmod(tmp, 0o644)
            os.replace(tmp, where / fname)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    for old in where.glob(f"sylver-endgame-g{eg.genus}-v*"):  # other versions' files
        if old.name not in (name, manifest):
            old.unlink(missing_ok=True)
    return where / name


class DamagedTable(Exception):
    """The table's file does not match its manifest."""


def read(genus: int = GENUS, where: Path | None = None) -> EndgameTable | None:
    """The table saved in ``where`` (default ``directory()``), or None when there is none; raises
    DamagedTable when its file does not match its manifest."""
    where = directory() if where is None else where
    name, manifest = _names(genus)
    try:
        info = json.loads((where / manifest).read_text())
        data = (where / name).read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as e:
        raise DamagedTable(f"{where / manifest}: {e}") from e
    if not isinstance(info, dict) or info.get("version") != VERSION or info.get("genus") != genus:
        raise DamagedTable(f"{where / manifest}: not a version-{VERSION} table of genus {genus}")
    if hashlib.sha256(data).hexdigest() != info.get("sha256") or len(data) != 8 * info.get("p_positions", -1):
        raise DamagedTable(f"{where / name}: its checksum does not match its manifest")
    words = np.frombuffer(data, dtype="<u8").astype(np.uint64)  # writable, as eg_fill is compiled for
    return EndgameTable.from_words(genus, words, path=where / name, counts=info.get("counts", []),
                                   p_counts=info.get("p_counts", []))


_loaded: dict[int, EndgameTable | None] = {}
_warned = False


def load(genus: int = GENUS) -> EndgameTable | None:
    """The saved table (read once per process), or None when it is not built or is damaged (then
    one line on stderr says so, once)."""
    global _warned
    if genus not in _loaded:
        try:
            _loaded[genus] = read(genus)
        except DamagedTable as e:
            _loaded[genus] = None
            if not _warned:
                _warned = True
                print(f"sylver: the endgame table is not used ({e}); `sylver warmup` builds it again",
                      file=sys.stderr)
    return _loaded[genus]


def ensure(genus: int = GENUS, say: Callable[[str], None] | None = None) -> Path:
    """Build and save the table unless a sound one is saved; returns its path."""
    try:
        eg = read(genus)
    except DamagedTable as e:
        if say is not None:
            say(f"the endgame table is damaged ({e}): building it again")
        eg = None
    if eg is not None and eg.path is not None:
        return eg.path
    where = directory()
    where.mkdir(parents=True, exist_ok=True)  # OSError now, not after building it
    with tempfile.TemporaryFile(dir=where):
        pass
    start = time.monotonic()

    def tick(g: int, n: int, p: int) -> None:
        if say is not None and g >= 24:
            say(f"endgame table: genus {g}: {n:,} positions, {p:,} P ({time.monotonic() - start:.0f} s)")

    path = save(build(genus, tick))
    _loaded.pop(genus, None)
    return path
