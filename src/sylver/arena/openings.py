"""Opening suites: the start positions a tournament or match plays, each twice with the seats swapped
(as chess tournaments play an opening book).

A suite is a file, one start position a line (``16, 20`` or ``{16,20}``; blank lines and ``#``
comments are skipped), or a bundled suite by name:

- ``empty``: the empty start;
- ``one-number``: the starts {n}, n = 4 .. 40;
- ``paper``: the positions whose outcome Sicherman, "Theory and Practice of Sylver Coinage",
  Integers 2002, states (P and N, secs. 1, 2, 5: :data:`sylver.theory.KNOWN_RESULTS`), {2,3} left
  out (only 1 is legal there);
- ``opening16``: the positions {16, r} for the replies r to the opening 16 that the public ledger
  answers (:data:`OPENING16_REPLIES`);
- ``koth`` or ``koth:N``: N (default 50) starts of the King-of-the-Hill competition, two random
  coprime 6-digit numbers, drawn from the tournament seed.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path

from sylver.errors import TooLargeError
from sylver.position import Position, parse_numbers

ONE_NUMBER = range(4, 41)
"""The one-number starts {n}: 4 .. 40 (2 and 3 are answered by each other; {4} is the first
position not decided by a two-line argument)."""

OPENING16_REPLIES: tuple[int, ...] = (
    2, 4, 6, 8, 10, 12, 14, 18, 20, 22, 24, 26, 28, 30, 34, 36, 56, 58, 62, 86, 88, 90, 140, 156,
)
"""The replies r to the opening 16 that the public ledger answers ({16, r} is N: a reply a with
{16, r, a} P is published for each); the campaign records of rudi-cilibrasi/sylver-coinage,
2026-09/10, as collected in ``shared/data/opening16_public.json`` (``replies_answered``)."""

KOTH_PAIRS = 50
"""Starts of the ``koth`` suite when no count is given."""

KOTH_RANGE = (100_000, 999_999)

SUITES = ("empty", "one-number", "paper", "opening16", "koth")


@dataclass(frozen=True)
class Suite:
    """A named list of start positions."""

    name: str
    """The suite's name, or the file it was read from."""
    starts: tuple[tuple[int, ...], ...]
    """The start positions (the numbers named before the first move), in order."""

    def to_json(self) -> dict:
        return {"name": self.name, "starts": [list(s) for s in self.starts]}

    @classmethod
    def from_json(cls, d: dict) -> Suite:
        return cls(d["name"], tuple(tuple(int(x) for x in s) for s in d["starts"]))

    def describe(self) -> str:
        """The suite by name and by its starts (all of them up to :data:`NAMED_STARTS`, else the first
        few and the last): ``openings one-number: {4}, {5}, {6}, {7}, ..., {40} (37 starts, each
        played twice with the seats swapped)``."""
        shown = [_braces(s) for s in self.starts]
        if len(shown) > NAMED_STARTS:
            shown = shown[: NAMED_STARTS - 2] + ["...", shown[-1]]
        return (f"openings {self.name}: {', '.join(shown)} ({len(self.starts)} starts, each played twice with the "
                "seats swapped)")


NAMED_STARTS = 8
"""Starts a suite's description names one by one (a longer suite: the first six, ``...``, the last)."""


def _braces(start: tuple[int, ...]) -> str:
    return "{" + ",".join(map(str, start)) + "}"


def start_problem(start: tuple[int, ...]) -> str | None:
    """Why no game can be played from ``start`` (None when one can): 1 named (the game is over), or
    a position the referee cannot judge (three or more minimal generators, the smallest too large
    for an Apéry set; see :mod:`sylver.arena.board`)."""
    from sylver.arena.board import small_generators
    from sylver.semigroup import Semigroup

    if 1 in start:
        return "1 is named: the game is over"
    if not start:
        return None
    try:
        Semigroup(start)
    except TooLargeError as exc:
        if small_generators(list(start)) is None:
            return f"the referee cannot judge moves from this start ({exc})"
    return None


def read_suite_file(path: Path) -> Suite:
    """The starts listed in ``path``; a line that is not a position raises ValueError naming the file
    and the line number."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--openings {path}: cannot read it ({exc.__class__.__name__}: {exc})") from None
    starts = []
    for number, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            start = tuple(parse_numbers(body))
        except ValueError as exc:
            raise ValueError(f"{path}:{number}: not a start position ({exc})") from None
        problem = start_problem(start)
        if problem is not None:
            raise ValueError(f"{path}:{number}: {body}: {problem}")
        starts.append(start)
    if not starts:
        raise ValueError(f"{path}: no start position in it")
    return Suite(str(path), tuple(starts))


def koth_starts(count: int, seed: int) -> tuple[tuple[int, int], ...]:
    """``count`` pairs of random coprime 6-digit numbers, drawn from ``seed`` (the competition's start)."""
    rng = random.Random(f"sylver-openings-koth:{seed}")
    lo, hi = KOTH_RANGE
    out: list[tuple[int, int]] = []
    while len(out) < count:
        a, b = rng.randint(lo, hi), rng.randint(lo, hi)
        if math.gcd(a, b) == 1:
            out.append((a, b))
    return tuple(out)


def paper_starts() -> tuple[tuple[int, ...], ...]:
    """The positions the paper decides (:data:`sylver.theory.KNOWN_RESULTS`), {2,3} left out."""
    from sylver.theory import KNOWN_RESULTS

    return tuple(r.generators for r in KNOWN_RESULTS if not Position(r.generators).is_terminal)


def bundled_suite(name: str, seed: int) -> Suite | None:
    """A bundled suite by name (see the module docstring), or None if ``name`` is none."""
    if name == "empty":
        return Suite(name, ((),))
    if name == "one-number":
        return Suite(name, tuple((n,) for n in ONE_NUMBER))
    if name == "paper":
        return Suite(name, paper_starts())
    if name == "opening16":
        return Suite(name, tuple((16, r) for r in OPENING16_REPLIES))
    kind, _, count = name.partition(":")
    if kind == "koth":
        if count and not (count.isascii() and count.isdigit() and int(count) > 0):
            raise ValueError(f"--openings {name}: the count after 'koth:' must be a positive integer")
        n = int(count) if count else KOTH_PAIRS
        return Suite(f"koth:{n}", koth_starts(n, seed))
    return None


def load_suite(text: str, seed: int = 0) -> Suite:
    """``--openings TEXT``: a bundled suite's name, else a file."""
    suite = bundled_suite(text, seed)
    if suite is not None:
        return suite
    path = Path(text)
    if not path.is_file():
        raise ValueError(f"--openings {text}: no such file, nor a bundled suite ({', '.join(SUITES)}, koth:N)")
    return read_suite_file(path)
