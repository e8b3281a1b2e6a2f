"""The adapters in the competitions' own calling conventions, and the arena's time argument.

The ``nextMove`` competition's reference referee calls ``nextMove(moves, remaining, t)`` with ``t``
the time the bot has already used in the game (0.0 at its first move, then the sum of its own calls'
``perf_counter`` durations) and ends the game when that passes 30 s; the competition's README says
``t`` is the time left on a 36 s clock.  :func:`sylver.compat.play_next_move` reproduces both, and a
referee that passes nothing (its loop is checked in :class:`TestDriver`); :func:`koth_game` is the
King-of-the-Hill driver (the start pair first in the list,
20 s per call).  Clocks are shortened where that keeps a test meaningful (the bot is built for the
same clock).
"""

from __future__ import annotations

import ast
import random
import time
from pathlib import Path

import pytest

from sylver.arena.host import Adapter
from sylver.arena.protocol import NewGame, TurnRequest
from sylver.arena.rules import make_rules
from sylver.arena.specs import parse_spec, parse_specs
from sylver.arena.tournament import Config, run_tournament
from sylver.bots.oracle import solver_ready
from sylver.compat import LATE, RESERVE, GameClock, Seed000Bot, Seed002Bot, play_next_move
from sylver.position import Outcome, Position, Termination
from sylver.solver import solve
from sylver.solver.engine import ENGINE

BOTS = Path(__file__).parent / "data" / "bots"
CONVENTIONS = ("used", "left", None)
NON_TRIVIAL = ((16, 20, 25), 42)
"""Not in the opening book, no theorem applies, the solver needs about 0.1 s: 42 is the only winning move."""
ISSUE = ((5, 52, 53, 96), 47)
"""The position of the issue's lost games: the only winning move is 47."""


@pytest.fixture(scope="module", autouse=True)
def solver_compiled():
    assert solver_ready(wait=600)


@pytest.fixture
def cold_solver():
    """The solver forgets what earlier tests solved (its tables outlive a call), so a move must search."""
    with ENGINE.lock:
        ENGINE.clear()


def next_move_game(bots, start=(), *, convention="used", clock=30.0, cap=10**6):
    """:func:`sylver.compat.play_next_move` as a tuple (winner's seat, reason, every number named,
    seconds used per seat, seconds per call per seat); its loop is checked in :class:`TestDriver`."""
    g = play_next_move(bots, start, time_arg=convention, clock=clock, cap=cap)
    return g.winner, g.reason, list(g.history), g.used, g.spent


def gcd(a, b):  # the King-of-the-Hill driver's helper, verbatim
    if a < b:
        return gcd(b, a)
    elif not b:
        return a
    else:
        return gcd(b, a % b)


def islinearcomb(n, l):  # noqa: E741 - the driver's signature
    """The driver's check returns the coefficients of a representation (or None).  Its own recursion
    is exponential in the move size, so the copy uses the library's witness instead; the returned
    value has the driver's shape (one coefficient per announced number, in order)."""
    w = Position(l).witness(n)
    if w is None:
        return None
    coeffs, left = [], dict(w)
    for x in l:
        coeffs.append(left.pop(x, 0))
    return coeffs


def koth_game(bots, seed, start=None, call_limit=20.0):
    """The King-of-the-Hill driver loop (printing replaced by a transcript), with its per-call limit
    timed by perf_counter (over it: disqualified, i.e. lost); ``start`` replaces the random pair.
    Returns (winner's seat, every number, transcript of (id, number, seconds), reason)."""
    random.seed(seed)
    lose = -1
    turn = 0
    nums = list(start or [])
    transcript = []
    reason = "named 1"
    while len(nums) < 2:
        nums = [random.randint(100000, 999999), random.randint(100000, 999999)]
        if gcd(nums[0], nums[1]) > 1:
            nums = []
    while lose < 0:
        t0 = time.perf_counter()
        v = bots[turn].announce(list(nums))
        dt = time.perf_counter() - t0
        transcript.append((bots[turn].id, v, dt))
        w = islinearcomb(v, nums)
        if dt > call_limit:
            lose, reason = turn, "time"
        elif w:
            lose, reason = turn, "illegal"
        elif v == 1:
            lose = turn
        nums += [v]
        turn = 1 - turn
    for b in bots:
        b.learn(bots[0].id, bots[1].id, nums)
    return 1 - lose, nums, transcript, reason


def wins(p: Position, move: int, rec: dict | None = None) -> bool:
    """Is ``move`` a winning move in ``p`` (the published complete set, else by solving)?"""
    if rec is not None and rec["complete"]:
        return move in rec["winning_moves"]
    return p.is_legal(move) and move > 1 and solve(p.play(move), first=True).outcome is Outcome.P


@pytest.fixture(scope="module")
def n_sample(request) -> list[tuple[tuple[int, ...], dict | None]]:
    """The issue's position, the non-trivial one, and 10 published N-positions (a fixed sample; none
    when the published results are not beside the checkout)."""
    try:
        known = request.getfixturevalue("known_results")
    except pytest.skip.Exception:
        known = []
    ns = [r for r in known if r["outcome"] == "N"]
    sample = [(tuple(r["position"]), r) for r in random.Random(12).sample(ns, min(10, len(ns)))]
    return [(ISSUE[0], None), (NON_TRIVIAL[0], None), *sample]


class Recorder:
    """A nextMove bot that records its arguments, sleeps ``pause`` seconds and names ``answers`` in turn."""

    def __init__(self, answers, pause=0.0):
        self.answers, self.pause, self.calls = list(answers), pause, []

    def nextMove(self, moves, remaining, *t):  # noqa: N802
        self.calls.append((list(moves), list(remaining), t))
        time.sleep(self.pause)
        return self.answers.pop(0)


class TestDriver:
    """The referee loop reproduces the reference referee's calling convention (and the README's)."""

    def test_time_used(self):
        a, b = Recorder([4, 9, 5, 2], pause=0.02), Recorder([6, 7, 3, 1])
        g = play_next_move((a, b), time_arg="used")
        assert (g.winner, g.reason, g.moves) == (0, Termination.NAMED_ONE, (4, 6, 9, 7, 5, 3, 2, 1))
        assert [c[2] for c in a.calls[:3]] == [(0.0,), (g.spent[0][0],), (g.spent[0][0] + g.spent[0][1],)]
        assert g.spent[0][0] >= 0.02 and g.used[0] == pytest.approx(sum(g.spent[0]))
        assert a.calls[1][:2] == ([4, 6], []) and a.calls[2][:2] == ([4, 6, 9, 7], [1, 2, 3, 5])

    def test_time_left_and_none(self):
        a, b = Recorder([5, 3]), Recorder([2, 1])
        g = play_next_move((a, b), time_arg="left", clock=36.0)
        assert [c[2][0] for c in b.calls] == [36.0, 36.0 - g.spent[1][0]]
        a, b = Recorder([5, 3]), Recorder([2, 1])
        play_next_move((a, b), time_arg=None)
        assert all(c[2] == () for c in a.calls + b.calls)

    def test_losses(self):
        g = play_next_move((Recorder([4, 9], pause=0.06), Recorder([6])), time_arg="used", clock=0.1)
        assert (g.winner, g.reason) == (1, Termination.TIMEOUT)
        g = play_next_move((Recorder([4, 8]), Recorder([6])))
        assert (g.winner, g.reason, g.moves) == (1, Termination.ILLEGAL_MOVE, (4, 6, 8))
        g = play_next_move((Recorder([4]), Recorder([1_000_001])))
        assert (g.winner, g.reason) == (0, Termination.ABOVE_CAP)


class TestGameClock:
    def test_reference_convention(self):
        c = GameClock(30.0)
        assert c.start([], 0.0) == pytest.approx(30.0 * (1 - RESERVE), abs=0.01)
        assert c.convention == "used"
        c.used = 4.0  # as if the first move had taken 4 s
        c.stop([], 5)
        assert c.start([5, 7], 3.0) == pytest.approx(30.0 - 4.0 - 30.0 * RESERVE, abs=0.01)  # own measure
        c.stop([5, 7], 11)
        assert c.start([5, 7, 11, 2], 12.0) == pytest.approx(30.0 - 12.0 - 30 * RESERVE, abs=0.01)  # the hint
        c.stop([5, 7, 11, 2], 3)
        assert c.start([], 0.0) == pytest.approx(30.0 * (1 - RESERVE), abs=0.01)  # a new game
        assert c.used == 0.0

    def test_a_short_clock_keeps_half_a_second(self):
        """5 % of a 2-s clock (0.1 s) is less than a time-limited solve can overrun: LATE is kept."""
        assert GameClock(2.0).start([], 0.0) == pytest.approx(2.0 - LATE, abs=0.01)
        assert GameClock(30.0).start([], 0.0) == pytest.approx(30.0 * (1 - RESERVE), abs=0.01)

    def test_readme_convention_and_none(self):
        c = GameClock(30.0)
        assert c.start([4], 36.0) == pytest.approx(30.0 * (1 - RESERVE), abs=0.01)  # never more than 30 s
        assert c.convention == "left"
        c.stop([4], 6)
        assert c.start([4, 6, 9], 3.0) == pytest.approx(3.0 - 30 * RESERVE, abs=0.01)
        c.stop([4, 6, 9], 7)
        assert c.start([8], None) == pytest.approx(30.0 * (1 - RESERVE), abs=0.01)  # new game, no hint

    def test_convention_from_the_trend(self):
        c = GameClock(10.0)
        c.start([4], 0.5)  # ambiguous at a first call: both readings, the smaller wins
        assert c.convention is None
        c.stop([4], 6)
        c.start([4, 6, 9], 0.7)  # grows: time used
        assert c.convention == "used"
        c.stop([4, 6, 9], 7)
        c.start([4, 6, 9, 7, 11], 0.6)  # shrinks: time left
        assert c.convention == "left"
        c.stop([4, 6, 9, 7, 11], 13)
        c.start([4, 6, 9, 7, 11, 13, 17], 0.6)  # unchanged: no news
        assert c.convention == "left"

    def test_asked_again_is_the_same_game(self):
        c = GameClock(30.0)
        c.start([4], 0.0)
        c.used = 2.0
        c.stop([4], 8)
        c.start([4], 2.0)  # a strike: the same position again
        assert c.used >= 2.0


@pytest.mark.parametrize("convention", CONVENTIONS)
class TestNextMoveReferee:
    def test_winning_moves(self, convention, n_sample):
        bot = Seed002Bot(seed=1)  # one instance for every game: each is recognised as a new one
        for start, rec in n_sample:
            w, reason, moves, used, _ = next_move_game(
                (bot, Seed002Bot(bot="random", seed=2)), start, convention=convention)
            p = Position(start)
            assert wins(p, moves[len(start)], rec), (start, moves)
            assert w == 0 and reason is Termination.NAMED_ONE and used[0] <= 30.0, (start, moves, reason)

    def test_non_trivial_move_takes_time(self, convention, cold_solver):
        start, answer = NON_TRIVIAL
        _, _, moves, _, spent = next_move_game((Seed002Bot(seed=3), Seed002Bot(bot="random", seed=3)), start,
                                               convention=convention)
        assert moves[len(start)] == answer
        assert spent[0][0] >= 0.01  # it searched: the solver needs about 0.1 s here

    @pytest.mark.clock  # (the bots size their solves by their game clock, a real one)
    def test_games_inside_a_short_clock(self, convention):
        clock = 2.0
        perfect = Seed002Bot(seed=4, clock=clock)
        for start, opponents in (((), ("random", "greedy", "sage")), ((41, 43), ("random",))):
            for opponent in opponents:
                for seat in (0, 1):
                    other = Seed002Bot(bot=opponent, seed=seat, clock=clock)
                    bots = (perfect, other) if seat == 0 else (other, perfect)
                    w, reason, moves, used, spent = next_move_game(bots, start, convention=convention, clock=clock)
                    calls = [round(x, 3) for x in spent[seat]]
                    assert reason is Termination.NAMED_ONE and used[seat] <= clock, (opponent, seat, reason, calls, moves)
                    assert w == seat or start, (opponent, seat, moves)  # {41,43}: N, the opponent may win


class TestKotHDriver:
    def test_winning_moves(self, n_sample):
        bot = Seed000Bot(0, seed=1)
        for start, rec in n_sample:
            if len(start) < 2:
                continue
            winner, nums, transcript, reason = koth_game([bot, Seed000Bot(1, bot="random", seed=2)], 1, start)
            assert wins(Position(start), nums[len(start)], rec), (start, nums)
            assert winner == 0 and reason == "named 1", (start, nums, reason)

    def test_non_trivial_move_takes_time(self, cold_solver):
        start, answer = NON_TRIVIAL
        _, nums, transcript, _ = koth_game([Seed000Bot(0, seed=3), Seed000Bot(1, bot="random", seed=3)], 1, start)
        assert nums[len(start)] == answer and transcript[0][2] >= 0.01

    def test_random_starts_inside_the_call_limit(self):
        limit = 1.5
        for seed, opponent in ((5, "greedy"), (6, "sage")):
            bots = [Seed000Bot(0, seed=1, call_limit=limit), Seed000Bot(1, bot=opponent, seed=2, call_limit=limit)]
            winner, nums, transcript, reason = koth_game(bots, seed, call_limit=limit)
            assert reason in ("named 1", "illegal") and all(dt <= limit for _, _, dt in transcript), transcript
            assert nums[-1] == 1 or not Position(nums[:-1]).is_legal(nums[-1])
            assert reason == "named 1" or transcript[-1][0] == 1  # only the opponent can blunder

    def test_signatures(self):
        bot = Seed000Bot(3)
        assert bot.id == 3
        move = bot.announce([123457, 654323])
        assert Position([123457, 654323]).is_legal(move)
        bot.learn(3, 4, [123457, 654323, move, 1])


class TestSeed002:
    def test_default_is_perfect(self):
        assert Seed002Bot().nextMove([], [], 0.0) == 5
        assert Seed002Bot().nextMove([4], [], 36.0) == 6

    def test_other_bot(self):
        bot = Seed002Bot(bot="greedy", seed=1)
        move = bot.nextMove([7, 9], Position("7,9").legal_moves(), 0.0)
        assert Position("7,9").is_legal(move)

    def test_the_bot_plans_in_wall_clock_time(self):
        """The competitions' own referees time a call with ``perf_counter`` (waiting for a CPU
        included), so the adapters tell the bot its clock is not CPU time (issue 35: the arena's is)."""
        told = []

        class Told:
            def choose(self, turn):
                told.append(turn)
                return 2

            def learn(self, record, seat):
                pass

        for adapter in (Seed002Bot(bot="greedy"), Seed000Bot(0, bot="greedy")):
            adapter.bot = Told()  # type: ignore[assignment]
            move = adapter.nextMove([7, 9], [], 0.0) if isinstance(adapter, Seed002Bot) else adapter.announce([7, 9])
            assert move == 2
        assert [(t.cpu_clock, t.per_call) for t in told] == [(False, False), (False, True)]


def test_arena_passes_the_reference_argument():
    """Under the classic rules a nextMove bot gets what the reference referee gives: 0.0 at its first
    move, then the sum of the times the referee charged for its previous moves."""
    rules = make_rules("classic", start=(7, 9))
    assert (rules.time_arg, rules.clock, rules.cap) == ("used", 30.0, 10**6)
    specs = parse_specs([f"{BOTS / 'clock_echo.py'}:ClockEcho", "random"])
    out = run_tournament(Config(specs, rules, 1, seed=5), None, concurrency=1)
    games = [r for r in out.records if r.loser == "ClockEcho" and r.reason is Termination.CRASH]
    assert games, out.records
    for r in games:
        seat = r.players.index("ClockEcho")
        seen = ast.literal_eval(r.detail.split("times ", 1)[1].split("]")[0] + "]")
        own = r.times[seat::2]  # the CPU time charged for each of its moves
        assert len(seen) >= 2 and len(own) >= len(seen) - 1
        charged = [sum(own[:k]) for k in range(len(seen))]
        assert seen[0] == 0.0 and seen == pytest.approx(charged, abs=1e-5) and charged[-1] > 0


@pytest.mark.parametrize("preset", ["classic", "classic-readme"])
def test_host_passes_the_argument_of_the_rules(preset):
    """The bot host hands a nextMove bot the time used (classic) or the time left (classic-readme)."""
    rules = make_rules(preset, start=(7, 9))
    host = Adapter(parse_spec(f"{BOTS / 'clock_echo.py'}:ClockEcho").to_json(), 0)
    assert host.ensure_instance() is None
    host.new_game(NewGame.from_json({"type": "game", "seed": 1, "rules": rules.to_json()}))
    history = [7, 9]
    for used in (0.0, 1.25):
        left = rules.clock - used
        move = host.turn(TurnRequest(game=1, seat=0, history=tuple(history), time_left=left, time_used=used))
        history += [move, max(Position(history + [move]).legal_moves())]
    assert host.instance.seen == ([0.0, 1.25] if preset == "classic" else [36.0, 34.75])
