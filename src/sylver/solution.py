"""What a solve answers: :class:`Solution` (with, for gcd ≠ 1, the :class:`GcdDetails` of the g > 1
engine, and for g = 2 the :class:`OddTail` of its odd moves),
the snapshots it reports on the way (:data:`ProgressReport`: :class:`Progress` of a search,
:class:`ScanProgress` of a scan), and the ways it ends without an answer (:class:`SolveTimeout`,
:class:`SolveInterrupted`).

Every type is keyword-only: ``Solution(position=p, outcome=Outcome.N, ...)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sylver.position import Outcome, Position, Verdict


@dataclass(frozen=True, kw_only=True)
class OddTail:
    """What the scan of the odd moves of a position with g = 2 established."""

    scanned_to: int
    """Every odd move up to here is decided."""
    period_start: int | None
    """The scan's state after each height ≥ period_start - 2 repeats with period_length (certified)."""
    period_length: int | None
    """The certified period, in units of x (None when no period was certified)."""
    odd_winning_moves: tuple[int, ...]
    """The odd winning moves found (all of them when ``complete``)."""
    complete: bool
    """True when every odd move is decided (a certified period, the Quiet End Theorem for short
    positions, or the scan past m + t̄ after the first odd winning move m)."""
    open_moves: str
    """What is undecided, e.g. ``"odd x > 100001"``; empty when complete."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "scanned_to": self.scanned_to,
            "period_start": self.period_start,
            "period_length": self.period_length,
            "odd_winning_moves": list(self.odd_winning_moves),
            "complete": self.complete,
            "open_moves": self.open_moves,
        }


@dataclass(frozen=True, kw_only=True)
class SelfCheck:
    """The self-check of an N answer: each claimed winning move, played, gives a position that a
    fresh search (new, empty tables: nothing the first search stored is used) finds P."""

    moves: tuple[int, ...]
    """The winning moves checked."""
    states: int
    """Positions the fresh searches expanded."""
    seconds: float
    """What the check cost (wall clock)."""

    def to_dict(self) -> dict[str, Any]:
        return {"moves": list(self.moves), "states": self.states, "seconds": round(self.seconds, 6)}


@dataclass(frozen=True, kw_only=True)
class GcdDetails:
    """What the g > 1 engine established about a position with gcd g ≠ 1, or the empty position
    (Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002, sec. 1 end and sec. 2)."""

    method: str
    """How: ``short``, ``periodicity``, ``theorem``, ``search`` (a winning move found by solving the
    position it leaves) or ``store``."""
    reason: str
    """Why, in words, with the theorems used and what is undecided."""
    probably_p: bool = False
    """g = 2, outcome not proven: no odd winning move, and every even move is known to lose or
    produces a long position (the paper's "Probably P", sec. 2)."""
    short: bool | None = None
    """For prime g: is S ÷ g a quiet ender (S *short*, sec. 1)?  None otherwise."""
    odd_tail: OddTail | None = None
    """For g = 2: what the scan of the odd moves established."""
    replies: dict[Position, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)
    """The winning moves found for each position with g > 1 proven N on the way (the positions
    after the even moves, and deeper): the replies from which a certificate's refutations start
    (:mod:`sylver.proof.build`), so that building it does not solve them again."""


@dataclass(frozen=True, kw_only=True)
class Solution:
    """The value of a position: exact for gcd 1; for gcd > 1 what is proven (see ``verdict``).

    Its first seven fields are also the columns of the results store's
    :class:`~sylver.store.results.Record` (see there why that is a type of its own)."""

    position: Position
    """The solved position."""
    outcome: Outcome | None
    """``Outcome.P``: the player to move loses; ``Outcome.N``: the player to move wins; None when
    not proven (only for gcd > 1: then ``verdict`` is unknown or probably-P)."""
    winning_moves: tuple[int, ...]
    """Winning moves, sorted (empty for P).  All of them when ``complete``, else a subset."""
    complete: bool
    """True when ``winning_moves`` is the complete set."""
    frobenius_number: int | None
    """t: the largest legal move (None for gcd > 1: infinitely many moves are legal)."""
    states: int
    """Positions expanded by the search (0 when the answer came from the store)."""
    seconds: float
    """Wall-clock time of the call."""
    peak_bytes: int = 0
    """Bytes held by the transposition table and search stack at the end."""
    genus: int = 0
    """The number of legal moves."""
    from_store: bool = False
    """True when the answer was read from the results store (or from the results book through it)."""
    source: str = "search"
    """Where the answer comes from: ``search`` (this call), ``store`` (a row of the results store) or
    ``book`` (the results book, :mod:`sylver.store.book`, through the store)."""
    decided: dict[int, Outcome] = field(default_factory=dict, compare=False, repr=False)
    """Outcome of the position after each root move decided (partial results of an interrupted solve)."""
    stats: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    """Search counters: children generated, ender prunes, terminal wins, table hits, overwrites."""
    saturated: bool = False
    """True when a transposition table reached its memory budget, so later results overwrote
    stored ones (slower, never wrong; it turns the self-check on by default)."""
    self_check: SelfCheck | None = None
    """The self-check of an N answer, when one ran."""
    gcd_details: GcdDetails | None = None
    """For a position with gcd ≠ 1 (and the empty one): what the g > 1 engine established; None
    for gcd 1, whose answer is an exact search's."""

    @property
    def verdict(self) -> Verdict:
        """P, N, probably-P or unknown (:class:`~sylver.position.Verdict`)."""
        return Verdict.of(self.outcome, self.gcd_details is not None and self.gcd_details.probably_p)

    @property
    def gcd(self) -> int:
        """g(S) (0 for the empty position)."""
        return self.position.gcd

    @property
    def method(self) -> str:
        """How the answer was obtained: ``search`` (gcd 1), else the g > 1 engine's method."""
        return "search" if self.gcd_details is None else self.gcd_details.method

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``sylver solve --json``."""
        details = self.gcd_details
        d: dict[str, Any] = {
            "position": list(self.position.generators),
            "outcome": self.verdict,
            "winning_moves": list(self.winning_moves),
            "complete": self.complete,
            "frobenius_number": self.frobenius_number,
            "genus": self.genus if details is None else None,
            "states": self.states,
            "seconds": round(self.seconds, 6),
            "peak_bytes": self.peak_bytes,
            "from_store": self.from_store,
            "source": self.source,
            "gcd": self.gcd,
            "short": None if details is None else details.short,
            "method": self.method,
            "saturated": self.saturated,
            "self_check": None if self.self_check is None else self.self_check.to_dict(),
        }
        if details is not None:
            d["odd_tail"] = None if details.odd_tail is None else details.odd_tail.to_dict()
            d["reason"] = details.reason
        return d


def states_limit(n: int) -> str:
    """A limit of states as a message says it (``"1,000 states"``)."""
    return f"{n:,} state" + ("" if n == 1 else "s")


class SolveTimeout(TimeoutError):
    """The time limit passed, or the limit of states was reached; ``partial`` holds the root moves
    decided so far, ``within`` the limit as text (``"0.5 s"``, ``"1,000 states"``; "" when not told)."""

    def __init__(self, message: str, partial: Solution | None = None, within: str = "") -> None:
        super().__init__(message)
        self.partial = partial
        self.within = within


class SolveInterrupted(KeyboardInterrupt):
    """Ctrl-C during a solve; ``partial`` holds the root moves decided so far."""

    def __init__(self, partial: Solution) -> None:
        super().__init__("interrupted")
        self.partial = partial


@dataclass(frozen=True, kw_only=True)
class Progress:
    """A snapshot for progress displays."""

    states: int
    seconds: float
    root_moves_decided: int
    root_moves: int
    winning_moves: tuple[int, ...]
    checking: int | None = None
    """During the self-check: the winning move whose position is being searched afresh (``states``
    and ``seconds`` are then the check's, and the root-move counts count the winning moves checked,
    of all to check); None while solving."""
    table_bytes: int = 0
    """Bytes of transposition tables in use (0: not reported, as by ``--jobs``)."""
    tables_full: str | None = None
    """Once the tables stopped growing and results are being overwritten (the search goes on,
    recomputing what it loses, more slowly): what stopped them, e.g. "the --memory budget 1G"."""


@dataclass(frozen=True, kw_only=True)
class ScanProgress:
    """A snapshot for progress displays of a long scan."""

    height: int
    limit: int | None
    rate: float
    shapes: int
    families: int
    memory: int
    seconds: float
    hits: tuple[int, ...]
    position: Position
    """The position whose odd moves are scanned."""
    resumed_from: int | None = None
    """The height this run's scan resumed from (the checkpoint's ``scanned_to``), if it did."""


ProgressReport = Progress | ScanProgress
"""What a solve's ``progress`` callback receives: a :class:`Progress` of the gcd-1 search (or its
self-check), or a :class:`ScanProgress` of the scan of the odd moves of a position with g = 2."""
