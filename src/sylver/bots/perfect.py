"""``perfect``: exact play wherever it can be had, the theory where it decides, a careful search
everywhere else.

Order of business on each move (each step within the move's time budget):

1. **Theory** (:mod:`sylver.theory`): a move proven to leave a P-position —
   a prime p >= 5 on the empty position (Hutchings), p when every named number is a multiple of a
   prime p >= 5, the published P-positions with g > 1 ({4,6}, {6,9}, {8,12}, {8,14}, {10,16,24},
   {8,10,22}, the series {8,12,8n+2,8n+6}, ...), the {4,6} family {4,6,x}, and {2,3}.
2. **Exact**: the opening book shipped in the package, the memo of positions solved earlier, the
   results store (what ``sylver solve`` and the campaigns recorded, read-only: the opening-16
   lines such as {16,20} -> 34 where a campaign proved them; a stored N names a winning move, a
   stored P is lost: swindle), all answered at once; then the exact solver
   (:func:`sylver.solver.solve`) under a time limit; with gcd > 1, the same call's g > 1 engine
   (short positions, the g = 2 periodicity engine) for a winning move.  In an N-position it names a
   winning move; in a P-position (a lost game against perfect play) it *swindles*: it names the move
   whose resulting position has the fewest winning replies per legal reply, so a fallible opponent
   most likely goes wrong.  What the solver proves stays in its tables for the later moves (a solve
   first reads a winning move there), and a move answered at once gives its time to the positions
   after the opponent's replies, the hardest first (``PONDER_SHARE``, :meth:`Oracle.ponder`).
3. **Search** in positions too big to solve (KotH starts: two coprime 6-digit numbers, t ~ 10^11).
   Such a position behaves, for small numbers, like the empty position: once the small numbers named
   have gcd 1 and their t is below the big generators, the big ones are eliminated and the position
   *is* a small position, which the solver decides.  So the search looks two plies ahead at every
   small move and at a pass (the largest legal move, an end that eliminates nothing else):

   * a move leaving a position proven or solved P wins and is played at once;
   * a move leaving a proven or solved N-position is refuted; so is one after which the opponent has a
     small reply leaving a solved P-position;
   * among the rest, by a rule: in a pair {a,m} with a small, m ± 1..4 (see ``_prefer``); with no
     small number named yet, 5 (else the next prime not refuted) — the empty game's winning opening,
     after which every small reply m of the opponent leaves the coprime pair {5,m} (an N-position, in
     the book up to m = 151); otherwise a pass, so that the opponent has to commit first.  After
     ``patience`` passes of the opponent in a row it commits with the best swindle found (an
     N-position with the rarest winning replies), so that games against passive opponents end.

   The moves the rule chooses from (the pass, the opening prime, the neighbours) are judged whatever
   the time left, the other moves while time remains, and when to commit depends on the passes
   alone: more time only adds verdicts (a winning move found, a move refuted by a solve, a rarer
   swindle), it never changes the rule's choice for want of one.  (Issue 35: the short side of a
   time-odds match, with no time to judge 5, passed where the long side named 5, and a side whose
   time found a rare swindle committed while the other waited for one; the namer of the last small
   number is the first to run out of patience and commit, into a position the opponent's book
   answers, so the side with more time lost.)

Time: a move plans at most ``think`` seconds and at most 15 % of :func:`spendable` time: the
per-call limit, or the time left on a chess clock less a reserve of MOVE_FLOOR for each of our moves
still to come (:func:`reserve`: at most half the position's genus; issue 53, where 25 % of what was
left on each move of a pass war ran the clock out), and with less than QUICK to plan with the move is
one known at once or a pass; where the position can be solved exactly (gcd 1 within
``max_genus``, or gcd > 1 for the g > 1 engine), 25 % of a chess clock (7.5 s of a 30-s game's first
move, less the reserve; 90 % of it to the g > 1 engine), or, under a per-call limit (``Turn.per_call``: time a call
leaves unused is lost), 85 % of the call less a margin of a second, whatever ``think`` (a proof
decides the game; issue 35: with 25 % of a 20-s call, 9 in {16,34} and 7 in {16,90} were played
where the engine proves 20 and 17 winning with more time); 3 × ``think`` with no limit.
Under a CPU clock (``Turn.cpu_clock``: the arena charges CPU time) these are seconds of the process's
CPU time (``time.process_time``), within CPU_WALL_FACTOR × as much wall-clock time and the time left
(the solvers keep wall-clock deadlines: :func:`sylver.bots.oracle.cpu_limited` sets them from the
CPU share the process gets); issue 35: on a loaded machine 6 s of wall-clock time gave the engine
about 2 s of CPU in {16,20} and {16,34}, where it needs 3-6.5 s.
A time-limited solve returns at most one kernel slice late (some hundredths of a second; before
issue 53, up to 0.65 s), and a loaded machine delays a move more, so a caller keeping a clock holds a
reserve (see :class:`sylver.compat.GameClock`); a position in the book or the memo is answered in
milliseconds.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from sylver.bots.base import Bot, Turn
from sylver.bots.candidates import SMALL, candidates, hands_over_2_3, largest_allowed
from sylver.bots.oracle import MEMORY, Exact, Oracle, StoredResults, solver_ready, start_warm_up
from sylver.position import Outcome, Position
from sylver.theory import known_outcome, proven_n, winning_move_by_theory

EASY_GENUS = 60
"""A position with at most this many legal moves is within any searching opponent's reach."""

REACH_GENUS = 100
"""A position with at most this many legal moves is likely within a solver-equipped opponent's reach."""

BOOK_REPLY_LIMIT = 162
"""In {p}, replies below this are rated for a swindle (the book has {5,n} up to about here)."""

SWINDLE_GENUS = 150
"""Largest position solved completely (all winning moves) to rate a swindle."""

CLOCK_SHARE = 0.15
"""Largest share of the remaining time one move may take."""

SOLVE_SHARE = 0.25
"""Largest share of the remaining time a move may take when the position can be solved exactly (the
most any built-in bot plans to spend on one move)."""

PER_CALL_SHARE = 0.85
"""Largest share of a per-call limit (``Turn.per_call``) a move may take when the position can be solved
exactly: time a call leaves unused is lost, so a proof may take most of it."""

PER_CALL_MARGIN = 1.0
"""Seconds of a per-call limit never planned for (a time-limited solve can return late; the arena kills
a bot past its limit), unless SOLVE_SHARE of the call is more."""

CPU_WALL_FACTOR = 3.0
"""Under a CPU clock (``Turn.cpu_clock``) a move planning s seconds of CPU time takes at most this × s
of wall-clock time (and at most the time left): on a loaded machine the bot gets a third of a core
or more, and a move never hangs."""

GCD_ENGINE_SHARE = 0.9
"""Share of a move's time the g > 1 engine gets in a position with gcd > 1: its proof is the move; the
search after it only names a move it cannot judge."""

REPLY_LOOKUPS = 400
"""In a position with gcd > 1, the moves up to this are looked up (book, memo, store) before the
g > 1 engine is asked (the winning answers to the opening 16 named in docs/bots.md are below 60)."""

QUICK = 0.05
"""With less than this to spend on a move (SOLVE_SHARE of the time left), the move is chosen from what
is known at once (theory, book, memo, a solve of a position with at most QUICK_GENUS legal moves),
else it is the largest allowed number: a time-limited solve can return a tenth of a second late."""

QUICK_GENUS = 32
"""Positions this small are solved in milliseconds, even in time trouble."""

MOVE_FLOOR = 0.005
"""Seconds of a chess clock kept for each of our moves still to come (see :func:`reserve`): a move
answered at once (:meth:`PerfectBot._quick`) costs less (0.4 ms of CPU on average, 3.7 ms at most,
in the 98 passes of a pass war from {29,62,63,345,...}).  Issue 53: in pass wars of 193-379 plies
perfect spent 25 % of what was left on each move (positions of genus 250-1100, none decided), had
about a second left after 12-15 moves, and lost on time in the arena."""

MOVES_AHEAD = 100
"""The most of our moves :func:`reserve` counts on (a game of 200 plies more: 0.5 s)."""

PONDER_SHARE = CLOCK_SHARE
"""Share of the time a move may plan with (:func:`spendable`) that it gives, once its move is
chosen, to the positions the opponent's replies leave (:meth:`sylver.bots.oracle.Oracle.ponder`): a
move answered at once from the book or the theory spends it all there, so that the solver's tables
hold the answers to the game's next positions (issue 53: in the {11} line the book answered five
moves and the sixth needed 3.6 M states, some 6 s of CPU, with cold tables; pondered, 2 states).
Less than SOLVE_SHARE: the opponent may reply elsewhere."""

OPENING_PRIMES = (5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61)
"""With no small number named in a position too big to solve, the first of these not refuted is named:
{p} is a P-position for a prime p >= 5 (Hutchings; Sicherman 2002, sec. 1)."""


class _Deadline:
    """A move's time: ``seconds`` of wall-clock time or, under a CPU clock (``Turn.cpu_clock``), of
    this process's CPU time (``time.process_time``) within ``wall`` seconds of wall-clock time."""

    def __init__(self, seconds: float, *, cpu_clock: bool = False, wall: float | None = None) -> None:
        self.clock = time.process_time if cpu_clock else time.monotonic
        self.end = self.clock() + seconds
        self.wall_end = time.monotonic() + (seconds if wall is None else wall) if cpu_clock else None

    def wall(self) -> float | None:
        """Wall-clock seconds left under a CPU clock (the cap of its solves); None under a wall clock."""
        return None if self.wall_end is None else self.wall_end - time.monotonic()

    def left(self) -> float:
        wall = self.wall()
        return self.end - self.clock() if wall is None else min(wall, self.end - self.clock())

    def passed(self) -> bool:
        return self.left() <= 0


def _deadline(turn: Turn, seconds: float) -> _Deadline:
    """``seconds`` of the time ``turn`` measures: under a CPU clock at most CPU_WALL_FACTOR × that
    of wall-clock time, and never more than the time left less PER_CALL_MARGIN (so that a solve
    that runs at full speed after the machine's load fell still keeps within the limit)."""
    if not turn.cpu_clock:
        return _Deadline(seconds)
    wall = CPU_WALL_FACTOR * seconds
    if turn.time_left is not None:
        wall = min(wall, max(seconds, turn.time_left - PER_CALL_MARGIN))
    return _Deadline(seconds, cpu_clock=True, wall=wall)


def reserve(p: Position) -> float:
    """Seconds of a chess clock kept for our moves still to come in ``p``: MOVE_FLOOR for each, at
    most MOVES_AHEAD.  Every move takes at least one legal move away, so a game from ``p`` lasts at
    most its genus plies, ours half of them (a pass war takes one at a time)."""
    if not p.is_finite or p.generators[0] > 2 * MOVES_AHEAD:  # the genus is at least m - 1
        return MOVE_FLOOR * MOVES_AHEAD
    return MOVE_FLOOR * min(MOVES_AHEAD, (p.genus + 1) // 2)


def ponder_budget(turn: Turn) -> float:
    """Seconds a move may spend, in all, before its pondering stops: PONDER_SHARE of the time it
    plans with; none in time trouble (:data:`QUICK`), and none with no limit (``sylver play``'s
    moves: its player would wait for it, two seconds after a move the book answered at once)."""
    left = spendable(turn)
    if left is None:
        return 0.0
    return 0.0 if SOLVE_SHARE * left < QUICK else PONDER_SHARE * left


def spendable(turn: Turn) -> float | None:
    """The seconds a move plans with: a per-call limit, or the time left on a chess clock less the
    :func:`reserve` for the moves to come (None: no limit)."""
    if turn.time_left is None:
        return None
    left = max(0.0, turn.time_left)
    return left if turn.per_call else max(0.0, left - reserve(turn.position))


class PerfectBot(Bot):
    """Plays perfectly wherever the theory or the exact solver decides the position, and looks two
    moves ahead where neither does.

    Theory, then exact play (book, memo, results store, solver), then a two-ply search with exact
    leaves; the time a move leaves of its PONDER_SHARE goes to the positions after the opponent's
    replies (:meth:`Oracle.ponder`).  ``store``: the results store read as a book (an SQLite file or
    PostgreSQL URL, or a :class:`StoredResults`; default: the store the CLI uses); ``memory``: the cap
    of the solver's tables, which keep what it proved for the later moves (bytes or a size such as
    ``"1G"``; default 512M); ``ponder``: False for a caller that waits for the move and asks again
    at once (the web page's bot: 0.45 s of a 3-s call after a move the book answered)."""

    name = "perfect"

    def __init__(
        self,
        rng: random.Random | None = None,
        think: float = 2.0,
        patience: int = 3,
        max_genus: int = 400,
        *,
        store: StoredResults | str | Path | None = None,
        memory: str | int = MEMORY,
        ponder: bool = True,
    ) -> None:
        super().__init__(rng)
        self.think = float(think)
        self.patience = int(patience)
        stored = store if isinstance(store, StoredResults) else StoredResults(store)
        self.oracle = Oracle(max_genus=max_genus, store=stored, memory=memory)
        self.ponder = ponder
        start_warm_up()  # compile the solver now, not during a timed move
        self._stalls = 0
        self._last_t: int | None = None
        self._seen: tuple[int, ...] = ()

    # -- the move ------------------------------------------------------------------------------
    def choose(self, turn: Turn) -> int:
        if turn.history[: len(self._seen)] != self._seen or not self._seen:
            self._stalls, self._last_t = 0, None  # a new game (even without a learn() call)
        self._note_opponent(turn)
        ponder = _deadline(turn, ponder_budget(turn))
        move = self._choose(turn)
        after = turn.position.play(move) if move > 1 and turn.position.is_legal(move) else None
        self._last_t = after.frobenius_number if after is not None and after.is_finite else None
        self._seen = tuple(turn.history) + (move,)
        if after is not None and self.ponder and not ponder.passed():
            self.oracle.ponder(after, ponder.left(), wall=ponder.wall())
        return move

    def _choose(self, turn: Turn) -> int:
        budget = self.think
        left = spendable(turn)
        if left is not None:
            budget = min(budget, CLOCK_SHARE * left)
        deadline = _deadline(turn, max(budget, 0.01))
        p = turn.position
        if p.is_terminal or p.is_over:
            return 1
        move = winning_move_by_theory(p)
        if move is not None and turn.allows(move):
            return move
        known = self.oracle.known(p)  # book, memo, results store: no search
        if known is not None and known.outcome is Outcome.N:
            for w in known.winning_moves:
                if turn.allows(w):
                    return w
        if left is not None and SOLVE_SHARE * left < QUICK:
            return self._quick(turn)
        if known is not None and known.outcome is Outcome.P or known is None and known_outcome(p) is Outcome.P:
            # lost against perfect play ({p} for a prime p >= 5 by Hutchings' theorem): no solve,
            # the move's budget to a swindle (issue 53: a solve's share of the clock went to {23}
            # and to a search of it, 5-7 s of a 30-s game, which a later position needed)
            return self._swindle(turn, deadline) or self._fallback(turn)
        if not p.is_finite and not p.is_empty:
            # gcd > 1: short positions and the g = 2 periodicity engine; a proof decides the game,
            # so it may take the extended budget ({16,20}: 34 and {16,34}: 20 take it)
            move = self._known_reply(turn)
            if move is not None:
                return move
            deadline = self._extended(turn, deadline)
            exact = self.oracle.solve_gcd(p, time_limit=GCD_ENGINE_SHARE * deadline.left(), wall=deadline.wall())
            if exact is not None and exact.outcome is Outcome.N:
                for w in exact.winning_moves:
                    if turn.allows(w):
                        return w
        if p.is_finite:
            deadline = self._extended(turn, deadline)
            exact = self.oracle.solve(p, time_limit=0.7 * deadline.left(), wait=True, wall=deadline.wall())
            if exact is not None:
                if exact.outcome is Outcome.N:
                    for w in exact.winning_moves:
                        if turn.allows(w):
                            return w
                    if not exact.complete:  # the winning move found is out of bounds: look for another
                        full = self.oracle.solve(p, time_limit=0.7 * deadline.left(), complete=True,
                                                 wall=deadline.wall())
                        for w in full.winning_moves if full else ():
                            if turn.allows(w):
                                return w
                else:
                    return self._swindle(turn, deadline) or self._fallback(turn)
        return self._search(turn, deadline)

    def _known_reply(self, turn: Turn) -> int | None:
        """A move n <= REPLY_LOOKUPS of a position with gcd > 1 into a position known to be P (book,
        memo, results store: one lookup a move, some 0.1 ms), found before the g > 1 engine is given
        any time: a store may hold {16,20,34} P, from ``sylver solve 16 20 34``, without {16,20}."""
        p = turn.position
        for n in range(2, REPLY_LOOKUPS + 1):
            if turn.allows(n):
                known = self.oracle.known(p.play(n))
                if known is not None and known.outcome is Outcome.P:
                    return n
        return None

    def _extended(self, turn: Turn, deadline: _Deadline) -> _Deadline:
        """Solving decides the game, so it may take SOLVE_SHARE of a chess clock (7.5 s of a 30-s
        game's first move; only where the solver is asked: :meth:`Oracle.solvable`),
        :func:`solve_budget` of a per-call limit (whose unused time is lost), or 3 * think with no
        limit.
        While the solver still compiles (a fresh process), only for a position of genus at most
        REACH_GENUS, which the solver decides soon after (the solve waits for the compilation
        within its limit): in a bot process started for the game, {5,29,91} (genus 51, 27 wins,
        0.28 s of CPU) came 0.3 s after the start, got the move's 0.11 s, and 86 was named."""
        extended = 3 * self.think
        left = spendable(turn)
        if left is not None and not turn.per_call and not self.oracle.solvable(turn.position):
            # on a chess clock a position the solver does not take (genus beyond max_genus) keeps
            # the move's budget for its search: the time is the later positions' (issue 53: 25 % of
            # the clock on each of {23,97}'s first four moves, genus over 1,000, and 2.35 s were
            # left for {14,23,271}, whose winning 95 takes 3.1 M states cold)
            return deadline
        if left is not None:
            extended = solve_budget(left) if turn.per_call else SOLVE_SHARE * left
        if extended > deadline.left() and (solver_ready() or turn.position.is_finite and turn.position.genus <= REACH_GENUS):
            return _deadline(turn, extended)
        return deadline

    def _quick(self, turn: Turn) -> int:
        """A move in time trouble: a known or instantly solved winning move, else a near-pass."""
        p = turn.position
        exact = self.oracle.known(p)
        if exact is None and p.is_finite and p.genus <= QUICK_GENUS:
            exact = self.oracle.solve(p, time_limit=1.0)
        if exact is not None and exact.outcome is Outcome.N:
            for w in exact.winning_moves:
                if turn.allows(w):
                    return w
        return self._fallback(turn)

    def learn(self, record: object, seat: int) -> None:
        self._stalls = 0
        self._last_t = None

    # -- lost positions ------------------------------------------------------------------------
    def _swindle(self, turn: Turn, deadline: _Deadline, moves: list[int] | None = None) -> int | None:
        """In a lost position: the move leaving the opponent the rarest winning replies.

        Results already known (book, memo) are compared first; the solver is asked about the others,
        the largest first (their ratios are the smallest), while time remains."""
        p = turn.position
        if moves is None:
            moves = candidates(turn, self.rng, full_limit=400)
        if p.generators and p.generators[0] <= SMALL:  # replies {p,n} in the book reach past SMALL
            listed = set(moves)
            moves = list(moves) + [n for n in range(2, BOOK_REPLY_LIMIT) if n not in listed and turn.allows(n)]
        best: tuple[float, float] | None = None
        choice = None
        unknown: list[tuple[int, Position]] = []
        for n in moves:
            after = p.play(n)
            if hands_over_2_3(after):
                continue
            exact = self.oracle.known(after)
            if exact is None or not exact.complete:
                if after.is_finite and after.generators[0] <= SWINDLE_GENUS and after.genus <= SWINDLE_GENUS:
                    unknown.append((n, after))
                continue
            key = (_visible_ratio(after, exact), -exact.genus)
            if best is None or key < best:
                best, choice = key, n
        unknown.sort(key=lambda item: -item[1].genus)
        for n, after in unknown:
            if deadline.left() < 0.05:
                break
            exact = self.oracle.solve(after, time_limit=min(0.5, 0.3 * deadline.left()), complete=True,
                                      wall=deadline.wall())
            if exact is None or not exact.complete:
                continue
            key = (_visible_ratio(after, exact), -exact.genus)
            if best is None or key < best:
                best, choice = key, n
        return choice

    def _fallback(self, turn: Turn) -> int:
        """Any allowed move other than 1, preferring the largest (the least committal)."""
        top = largest_allowed(turn)
        if top is not None and top > 1:
            return top
        for n in candidates(turn, self.rng):
            return n
        return 1

    # -- positions too big to solve --------------------------------------------------------------
    def _search(self, turn: Turn, deadline: _Deadline) -> int:
        p = turn.position
        moves = candidates(turn, self.rng, full_limit=400)
        pass_move = largest_allowed(turn)
        near = _neighbours(p, turn)
        moves = near + [n for n in moves if n not in near]
        if pass_move is not None:  # judged early: it is the default choice; then other near-passes
            tops = [pass_move] + _below(turn, pass_move, 7)
            moves = [n for n in moves if n <= SMALL] + tops + [n for n in moves if n > SMALL and n not in tops]
        open_moves: list[int] = []
        lost: list[int] = []
        cheap = p.is_empty or p.generators[0] <= 10_000
        for n in moves:
            if deadline.left() < 0.02 and (open_moves or lost):
                break
            verdict = self._judge(turn, n, cheap, deadline)
            if verdict is True:
                return n
            (lost if verdict is False else open_moves).append(n)
        # the moves the rule chooses without a verdict (_prefer) are judged whatever the time left,
        # so that a move left unjudged for want of time never changes the rule's choice: the short
        # side of a time-odds match used to pass where the long side named 5 (issue 35)
        for group in _rule_moves(turn, pass_move):
            for n in group:
                if n not in open_moves and n not in lost:
                    verdict = self._judge(turn, n, cheap, deadline)
                    if verdict is True:
                        return n
                    (lost if verdict is False else open_moves).append(n)
                if n in open_moves:
                    break
        if open_moves:
            return self._prefer(turn, open_moves, pass_move, lost, deadline)
        swindle = self._swindle(turn, deadline, lost[:SMALL])
        if swindle is not None:
            return swindle
        return pass_move if pass_move is not None else self._fallback(turn)

    def _judge(self, turn: Turn, n: int, cheap: bool, deadline: _Deadline) -> bool | None:
        """True if the move ``n`` wins (leaves a known or solved P-position), False if it is refuted
        (leaves a known or solved N-position, or :meth:`_refuted`, tried when ``cheap``), else None."""
        after = turn.position.play(n)
        verdict = self._verdict(after, deadline)
        if verdict is None and cheap and self._refuted(turn, after, deadline):
            return False
        return verdict

    def _verdict(self, after: Position, deadline: _Deadline) -> bool | None:
        """True if ``after`` is known P (a win for the mover), False if known N, else None."""
        if after.is_terminal:
            return True
        if hands_over_2_3(after):
            return False
        known = known_outcome(after)
        if known is not None:
            return known is Outcome.P
        stored = self.oracle.known(after)
        if stored is not None:
            return stored.outcome is Outcome.P
        if after.is_finite:
            exact = self._exact(after, deadline)
            if exact is not None:
                return exact.outcome is Outcome.P
        return False if proven_n(after) else None

    def _exact(self, p: Position, deadline: _Deadline) -> Exact | None:
        hit = self.oracle.known(p)
        if hit is not None:
            return hit
        return self.oracle.solve(p, time_limit=min(0.25, 0.3 * deadline.left()), wall=deadline.wall())

    def _refuted(self, turn: Turn, after: Position, deadline: _Deadline) -> bool:
        """Does the opponent have a small reply leaving us a known or solved P-position?"""
        if after.is_finite and after.genus > 50_000_000:
            return False
        for m in range(2, SMALL + 1):
            if deadline.passed():
                return False
            if not after.is_legal(m) or turn.max_move is not None and m > turn.max_move:
                continue
            verdict = self._verdict(after.play(m), deadline)
            if verdict is True:
                return True
        return False

    def _note_opponent(self, turn: Turn) -> None:
        """Count the opponent's consecutive passive replies (a move above 1/50 of the t we left)."""
        if self._last_t is None or not turn.history:
            return
        last = turn.history[-1]
        if last * 50 > self._last_t:
            self._stalls += 1
        else:
            self._stalls = 0

    def _prefer(
        self, turn: Turn, open_moves: list[int], pass_move: int | None, lost: list[int], deadline: _Deadline
    ) -> int:
        """Choose among the moves nobody can judge yet (see the module docstring)."""
        p = turn.position
        if len(p.generators) == 2 and p.is_finite:
            # a coprime pair too big to solve: N (Hutchings), and in the solved pairs {5,m} a winning
            # move lies within m ± 4 four times in five (the opening book), so try those first
            for n in _neighbours(p, turn):
                if n in open_moves:
                    return n
        if p.is_empty:
            # no prime allowed (first KotH rules): the smallest undecided opening, 16 — every odd reply
            # leaves a coprime pair (N, solvable while small), many even ones have known answers
            # ({2}: 3, {4}: 6, {8}: 12, {10,16}: 24, {16,18}: 5, {16,24}: 10)
            return min(open_moves)
        if not any(x <= SMALL for x in p.generators):  # open with the smallest prime >= 5 still open (Hutchings)
            for q in OPENING_PRIMES:
                if q in open_moves:
                    return q
        if pass_move in open_moves and self._stalls < self.patience:
            return pass_move
        # the opponent keeps passing too: commit, leaving a position whose winning replies are rare;
        # when depends on the passes alone, not on how good a swindle the time allowed to find (a
        # side that waited for a good one committed first when its time found one, issue 35)
        small_lost = sorted((n for n in lost if n <= SMALL), reverse=True)
        if small_lost:
            swindle = self._swindle(turn, deadline, small_lost)
            if swindle is not None:
                self._stalls = 0
                return swindle
        if pass_move in open_moves:
            return pass_move
        return max(open_moves)  # the most pass-like move nobody can judge


def solve_budget(call: float) -> float:
    """Seconds a move may spend on a position it can solve exactly under a per-call limit of ``call``
    seconds: PER_CALL_SHARE of it, keeping PER_CALL_MARGIN, and never less than SOLVE_SHARE."""
    return max(SOLVE_SHARE * call, min(PER_CALL_SHARE * call, call - PER_CALL_MARGIN))


def _visible_ratio(after: Position, exact: Exact) -> float:
    """The share of winning replies in ``after``, or 1 when the theory names a winning reply."""
    if winning_move_by_theory(after) is not None:
        return 1.0
    gens = after.generators
    if len(gens) == 2 and any(abs(w - gens[1]) <= 4 for w in exact.winning_moves):
        return max(exact.win_ratio, 0.2)  # found by the neighbour heuristic (see _prefer)
    if any(after.play(w).genus <= EASY_GENUS for w in exact.winning_moves):
        return max(exact.win_ratio, 0.5)  # a searching opponent solves the winning reply's result
    if exact.genus <= REACH_GENUS:
        return max(exact.win_ratio, 0.3)  # small enough for an opponent's exhaustive search
    return exact.win_ratio


def _rule_moves(turn: Turn, pass_move: int | None) -> list[list[int]]:
    """The moves :meth:`PerfectBot._prefer` chooses by its rule alone, in groups of which it takes the
    first one not refuted: the neighbours m ± 1..4 of a pair {a,m}, the pass, and with no small
    number named yet the opening primes."""
    p = turn.position
    groups = [_neighbours(p, turn), [pass_move] if pass_move is not None else []]
    if not p.is_empty and not any(x <= SMALL for x in p.generators):
        groups.append([q for q in OPENING_PRIMES if turn.allows(q)])
    return groups


def _below(turn: Turn, top: int, count: int) -> list[int]:
    """Up to ``count`` allowed moves just below ``top`` (more near-passes)."""
    out: list[int] = []
    n = top - 1
    while len(out) < count and n > SMALL and n > top - 50 * count:
        if turn.allows(n):
            out.append(n)
        n -= 1
    return out


def _neighbours(p: Position, turn: Turn) -> list[int]:
    """m ± 1..4 for the larger number m of a coprime pair {a,m} with a small (see ``_prefer``)."""
    gens = p.generators
    if len(gens) != 2 or gens[0] > SMALL or not p.is_finite:
        return []
    m = gens[1]
    return [m + d for d in (1, -1, 2, -2, 3, -3, 4, -4) if m + d > 1 and turn.allows(m + d)]
