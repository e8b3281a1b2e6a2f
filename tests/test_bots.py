"""The built-in bots: protocol, legality under every rule, the theory they rely on, perfect play."""

from __future__ import annotations

import math
import random

import pytest

from sylver.bots import BOTS, Bot, Turn, make_bot
from sylver.bots.oracle import opening_book
from sylver.bots.selfplay import play_game
from sylver.position import Outcome, Position, Termination
from sylver.solver import solve
from sylver.theory import is_prime


@pytest.fixture(scope="module", autouse=True)
def solver_compiled():
    """The bots never wait for the solver's compilation during a move; the tests do, once."""
    from sylver.bots.oracle import solver_ready

    assert solver_ready(wait=600)


LINE_STATES = 3_000_000
"""The most states a test gives a solve of one of the book's line positions."""

SMALL_POSITIONS = ["", "4", "6", "10,15", "4,5", "5,9", "6,9,20", "7,11,13", "12,17", "9,10"]


def koth_start(rng: random.Random) -> Position:
    while True:
        a, b = rng.randint(100_000, 999_999), rng.randint(100_000, 999_999)
        if math.gcd(a, b) == 1:
            return Position((a, b))


def fast(name: str, seed: int = 0) -> Bot:
    options = {"think": 0.2} if name == "perfect" else {}
    return make_bot(name, random.Random(seed), **options)


class TestRegistry:
    def test_names(self):
        assert {"random", "greedy", "sage", "perfect"} <= set(BOTS)
        for name, cls in BOTS.items():
            assert cls.name == name
            assert cls.__doc__ and cls.__module__.startswith("sylver.bots")

    def test_unknown(self):
        with pytest.raises(ValueError, match="built-in bots"):
            make_bot("nobody")


class TestLegality:
    @pytest.mark.parametrize("name", ["random", "greedy", "sage", "perfect"])
    @pytest.mark.parametrize("text", SMALL_POSITIONS)
    def test_small_positions(self, name, text):
        p = Position(text)
        n = fast(name).choose(Turn(p, tuple(p.generators), time_left=5.0))
        assert p.is_legal(n) and n > 1

    @pytest.mark.parametrize("name", ["random", "greedy", "sage", "perfect"])
    def test_koth_start_with_cap(self, name):
        p = koth_start(random.Random(7))
        n = fast(name).choose(Turn(p, tuple(p.generators), time_left=20.0, max_move=10**6))
        assert p.is_legal(n) and 1 < n <= 10**6

    @pytest.mark.parametrize("name", ["random", "greedy", "sage", "perfect"])
    def test_no_prime_first(self, name):
        turn = Turn(Position(), (), time_left=5.0, max_move=10**6, no_prime_first=True)
        n = fast(name).choose(turn)
        assert turn.allows(n) and not is_prime(n)

    def test_terminal_position_names_one(self):
        for name in BOTS:
            assert fast(name).choose(Turn(Position("2,3"))) == 1

    @pytest.mark.parametrize("name", ["random", "greedy", "sage"])
    def test_rng_reproducible(self, name):
        p = koth_start(random.Random(3))
        a = [fast(name, 5).choose(Turn(p)) for _ in range(3)]
        b = [fast(name, 5).choose(Turn(p)) for _ in range(3)]
        assert a == b


class TestPerfect:
    def test_book_is_exact(self):
        book = opening_book()
        assert len(book) > 100
        rng = random.Random(2)
        for gens in rng.sample(sorted(gens for gens, entry in book.items() if entry.complete), 8):
            entry = book[gens]
            if entry.genus <= 80:
                sol = solve(Position(gens))
                assert sol.outcome is entry.outcome and sol.winning_moves == entry.winning_moves

    def test_the_lines_after_11_and_13_are_in_the_book(self, tmp_path, monkeypatch):
        """The `nextMove` competition's bots answer 11 with a random m < 100; {11,38} takes the solver
        about 25 s of CPU (172 wins), more than a move of a 30-s clock (issue 53: every blunder of
        perfect against those bots was in that line).  perfect names 172 from the book, the solver
        never called; every {11,m} and {13,m} with t <= 400 is in the book with a winning move and
        the P-position it leaves, and so are the positions after the bots' replies to it (t and
        t - 11).  A sample of the line's entries agrees with the solver, each within a bound of
        states (not seconds)."""
        import sylver.solver
        from sylver.bots.oracle import Oracle

        book = opening_book()
        monkeypatch.setattr(sylver.solver, "solve", lambda *a, **k: pytest.fail("the solver was called"))
        monkeypatch.setattr(Oracle, "ponder", lambda *a, **k: False)  # the book alone, in no time
        bot = make_bot("perfect", random.Random(0), store=tmp_path / "none.sqlite")
        p = Position("11,38")
        assert bot.choose(Turn(p, tuple(p.generators), time_left=30.0, cpu_clock=True, max_move=1000)) == 172
        assert book[p.generators].winning_moves == (172,) and book[(11, 38, 172)].outcome is Outcome.P
        after = Position((11, 38, 172))
        for reply in (after.frobenius_number, after.frobenius_number - 11):  # 255, 244
            q = after.play(reply)
            assert book[q.generators].outcome is Outcome.N and book[q.generators].winning_moves
        q = Position("11,38,172")  # game 16 against bestBot: 244, 177, 222, 72, 206, 167, 195 (the book's moves)
        for reply in (244, 222, 206, 195):
            q = q.play(reply)
            move = bot.choose(Turn(q, tuple(q.generators), time_left=20.0, cpu_clock=True, max_move=1000))
            assert move in book[q.generators].winning_moves
            q = q.play(move)
        assert q == Position("11,38,72,130,167,172,195")
        pairs = [Position((a, m)) for a in (11, 13) for m in range(a + 1, 100) if math.gcd(a, m) == 1
                 and a * m - a - m <= 400]
        assert len(pairs) == 48 and all(book[q.generators].winning_moves for q in pairs)
        monkeypatch.undo()
        lines = sorted(g for g, e in book.items() if not e.complete and e.genus <= 100)
        assert len(lines) >= 4
        for gens in random.Random(53).sample(lines, 4):
            q = Position(gens).play(book[gens].winning_moves[0])
            assert solve(q, max_states=LINE_STATES).outcome is Outcome.P, gens

    def test_the_answers_to_every_reply_are_in_the_book(self, tmp_path, monkeypatch):
        """Where the package's bots reply at random (usingStrongCounterV3: 138 in {11,38,172}, 129 in
        {16,21}) or pass after a pair perfect's swindle left ({23} -> 14, then 271; {23} -> 15, then
        307; {16,21}'s line three of perfect's moves deep, {16,21,156,183,187}: the pair lines go
        five deep), the book holds a winning answer, so perfect names it with the solver never
        called: with cold tables those positions take 2.9-9.4 M states, more than a move of a 30-s
        clock decides (issue 53: each was a blunder, the last a lost game).  Every losing reply to
        {11,38,172} and to {14,23} is answered; a sample of the answers agrees with the solver
        within a bound of states."""
        import sylver.solver
        from sylver.bots.oracle import Oracle

        book = opening_book()
        monkeypatch.setattr(sylver.solver, "solve", lambda *a, **k: pytest.fail("the solver was called"))
        monkeypatch.setattr(Oracle, "ponder", lambda *a, **k: False)
        bot = make_bot("perfect", random.Random(0), store=tmp_path / "none.sqlite")
        for text in ("11,38,138,172", "16,21,129", "14,23,271", "15,23,307", "16,21,156,183,187"):
            q = Position(text)
            move = bot.choose(Turn(q, tuple(q.generators), time_left=20.0, cpu_clock=True, max_move=1000))
            assert book[q.generators].outcome is Outcome.N and move in book[q.generators].winning_moves, text
        for parent in (Position("11,38,172"), Position("14,23")):
            winning = set(book[parent.generators].winning_moves) if parent.generators in book else set()
            for r in parent.legal_moves():
                q = parent.play(r)
                if r > 1 and r not in winning and q.genus > 60:
                    assert book[q.generators].outcome is Outcome.N and book[q.generators].winning_moves, q
        monkeypatch.undo()
        answers = sorted(g for g, e in book.items() if not e.complete and 60 < e.genus <= 90)
        for gens in random.Random(53).sample(answers, 4):
            q = Position(gens).play(book[gens].winning_moves[0])
            assert solve(q, max_states=LINE_STATES).outcome is Outcome.P, gens

    def test_known_n_positions(self, known_results):
        bot = fast("perfect")
        bot.think = 2.0
        for rec in known_results:
            p = Position(rec["position"])
            if rec["outcome"] != "N" or p.genus > 60:
                continue
            move = bot.choose(Turn(p, tuple(p.generators), time_left=20.0))
            assert move in rec["winning_moves"] or solve(p.play(move)).outcome is Outcome.P, p

    def test_plays_into_known_p(self):
        bot = fast("perfect")
        assert bot.choose(Turn(Position())) == 5
        assert bot.choose(Turn(Position("4"))) == 6
        assert bot.choose(Turn(Position("35"))) in (5, 7)

    def test_no_prime_first_opening_and_replies(self):
        bot = fast("perfect")
        assert bot.choose(Turn(Position(), (), time_left=20.0, no_prime_first=True)) == 16
        for reply, answer in (("2", 3), ("4", 6), ("10", 24), ("24", 10), ("6", 4), ("14", 8)):
            p = Position((16, int(reply)))
            assert bot.choose(Turn(p, time_left=20.0)) == answer

    def test_gcd_above_one_uses_the_engine(self):
        """{14,20} (g = 2, short) is decided by no theorem; the g > 1 engine finds 10 ({10,14} is P)."""
        from sylver import theory

        p = Position("14,20")
        assert theory.winning_move_by_theory(p) is None
        bot = fast("perfect")
        exact = bot.oracle.solve_gcd(p, time_limit=600.0)  # what the bot asks, without the clock
        assert exact is not None and exact.outcome is Outcome.N and exact.winning_moves == (10,)
        assert bot.choose(Turn(p, tuple(p.generators), time_left=20.0)) == 10  # remembered

    def test_lost_position_still_legal(self):
        p = Position("4,5,11")  # P: every move loses against perfect play
        n = fast("perfect").choose(Turn(p, time_left=5.0))
        assert p.is_legal(n) and n != 1

    def test_wins_from_empty_as_first_player(self):
        for g in range(3):
            bots = (fast("perfect", g), fast("random", 100 + g))
            result = play_game(bots, Position(), clock=30.0, max_move=10**6)
            assert result.winner == 0 and result.reason is Termination.NAMED_ONE, result

    def test_koth_game_against_greedy_is_clean(self):
        start = koth_start(random.Random(11))
        result = play_game((fast("perfect"), fast("greedy")), start, per_move=20.0)
        assert result.reason is Termination.NAMED_ONE


    @pytest.mark.parametrize("text, move", [("11,13,14", None), ("16,34", 20)])
    def test_a_per_call_limit_is_spent_on_a_solvable_position(self, text, move, tmp_path, monkeypatch):
        """Time a call leaves unused is lost: under a per-call limit perfect hands the solver (gcd 1)
        or the g > 1 engine most of the call, under a chess clock of the same size SOLVE_SHARE of
        it, as before (issue 35: 9 in {16,34} after 2.3 s of a 20-s call).  The budgets handed over
        are counted, not the time taken: the solver is replaced by one that answers at once."""
        from sylver.bots import perfect
        from sylver.bots.oracle import Exact, Oracle

        p = Position(text)
        winning = move or solve(p, first=True).winning_moves[0]
        given: list[float] = []

        def answer(self, q, time_limit, *args, **kwargs):
            given.append(time_limit)
            return Exact(Outcome.N, (winning,), False, q.genus if q.is_finite else 0)

        monkeypatch.setattr(Oracle, "solve", answer)
        monkeypatch.setattr(Oracle, "solve_gcd", answer)
        budgets = {}
        for per_call in (False, True):
            bot = make_bot("perfect", random.Random(0), store=tmp_path / "none.sqlite")  # think: 2 s
            assert bot.oracle.known(p) is None
            given.clear()
            turn = Turn(p, tuple(p.generators), time_left=20.0, per_call=per_call)
            assert bot.choose(turn) == winning and len(given) == 1
            budgets[per_call] = given[0]
        most = max(0.7, perfect.GCD_ENGINE_SHARE)  # the solver's share of the move (g > 1: the engine's)
        assert budgets[False] <= most * perfect.SOLVE_SHARE * 20.0 + 1e-6
        assert 0.7 * 15.0 <= budgets[True] <= most * perfect.PER_CALL_SHARE * 20.0 + 1e-6
        assert perfect.solve_budget(20.0) == 17.0 and perfect.solve_budget(2.0) == 1.0
        assert perfect.solve_budget(0.4) == perfect.SOLVE_SHARE * 0.4  # the margin is kept where it can be


    def test_under_a_cpu_clock_the_budget_is_cpu_time(self, tmp_path, monkeypatch):
        """``Turn.cpu_clock`` (the arena charges CPU time): perfect's deadline counts this process's
        CPU time, so on a loaded machine its solve runs for as much wall-clock time as the CPU time
        it plans needs (issue 35: 6 s of wall gave about 2 s of CPU in {16,20} and {16,34}, where the
        g > 1 engine needs 3-6.5 s).  A fake clock gives the process a third of a core; a fake solver
        spends its whole limit and proves the position on its second attempt.  Under a wall clock
        the engine gets one attempt of the move's budget (a third of it in CPU time)."""
        import types

        import sylver.solver
        from sylver.bots import oracle, perfect
        from sylver.solver import Solution

        assert oracle.solver_ready(wait=600.0)
        clock = types.SimpleNamespace(wall=1000.0, cpu=10.0)
        fake_time = types.SimpleNamespace(monotonic=lambda: clock.wall, process_time=lambda: clock.cpu)
        monkeypatch.setattr(oracle, "time", fake_time)
        monkeypatch.setattr(perfect, "time", fake_time)
        limits: list[float] = []
        p = Position("16,34")

        def one_third_of_a_core(q, *, time_limit, **options) -> Solution:
            if q != p:  # the search's solves after a failed proof: out of this test
                raise ValueError(q)
            limits.append(time_limit)
            clock.wall += time_limit
            clock.cpu += time_limit / 3
            if len(limits) == 1:
                raise TimeoutError
            return Solution(position=q, outcome=Outcome.N, winning_moves=(20,), complete=False,
                            frobenius_number=None, states=1, seconds=0.0)

        monkeypatch.setattr(sylver.solver, "solve", one_third_of_a_core)
        monkeypatch.setattr(oracle, "load_factor", lambda: 1.0)  # learnt from the first attempt alone
        cpu = {}
        for cpu_clock in (False, True):
            bot = make_bot("perfect", random.Random(0), store=tmp_path / "none.sqlite")
            limits.clear()
            cpu0 = clock.cpu
            turn = Turn(p, tuple(p.generators), time_left=30.0, cpu_clock=cpu_clock)
            move = bot.choose(turn)
            cpu[cpu_clock] = clock.cpu - cpu0
            # 6.64 s of the first move's 7.5, less the reserve for the moves to come
            planned = perfect.GCD_ENGINE_SHARE * perfect.SOLVE_SHARE * (30.0 - perfect.reserve(p))
            if cpu_clock:
                assert move == 20 and limits == pytest.approx([planned, 3 * 2 / 3 * planned])
                assert bot.oracle.share.value == pytest.approx(1 / 3)
                monkeypatch.setattr(oracle, "load_factor", lambda: 4.0)  # load 8 on 2 cores
                assert bot.oracle.share.value == pytest.approx(1 / 4)
            else:
                assert limits == pytest.approx([planned])  # timed out: the search names a move
        assert cpu[True] == pytest.approx(perfect.GCD_ENGINE_SHARE * perfect.SOLVE_SHARE * (30.0 - perfect.reserve(p)))
        assert cpu[False] == pytest.approx(cpu[True] / 3)


    def test_a_small_position_is_solved_while_the_solver_compiles(self, tmp_path, monkeypatch):
        """In a fresh bot process whose solver is still compiling, a position of genus at most
        REACH_GENUS gets a solve's share of the clock (the solve waits for the compilation within
        it), not the move's budget: {5,29,91} (genus 51, N: 27) came 0.3 s after the process started
        and got 0.11 s, and perfect named 86 (issue 53, the pass-war starts).  A larger position
        keeps the move's budget while the solver compiles.  Limits asked for, not timed."""
        from sylver.bots import oracle, perfect
        from sylver.bots.oracle import Exact, Oracle

        limits: list[tuple[Position, float]] = []

        def record(self, q, time_limit, *args, **kwargs):
            limits.append((q, time_limit))
            return Exact(outcome=Outcome.N, winning_moves=(27,), complete=False, genus=q.genus) if q.genus < 60 else None

        monkeypatch.setattr(Oracle, "solve", record)
        monkeypatch.setattr(perfect, "solver_ready", lambda wait=0.0: False)
        monkeypatch.setattr(oracle, "solver_ready", lambda wait=0.0: False)
        monkeypatch.setattr(perfect.PerfectBot, "_search", lambda self, turn, deadline: turn.position.frobenius_number)
        small = Position([5, 29, 91])
        bot = make_bot("perfect", random.Random(0), think=0.3, store=tmp_path / "none.sqlite")
        assert bot.choose(Turn(small, (29, 5, 91), time_left=29.8)) == 27
        planned = perfect.SOLVE_SHARE * (29.8 - perfect.reserve(small))
        assert limits[0][0] == small and limits[0][1] > 0.5 * planned > 10 * 0.3
        large = Position([29, 62, 63])
        assert large.genus > perfect.REACH_GENUS
        limits.clear()
        bot = make_bot("perfect", random.Random(0), think=0.3, store=tmp_path / "none.sqlite")
        bot.choose(Turn(large, (29, 62, 63), time_left=29.8))
        assert all(limit <= 0.3 for q, limit in limits if q == large)

    def test_a_position_the_solver_does_not_take_keeps_the_moves_budget(self, tmp_path, monkeypatch):
        """On a chess clock a gcd-1 position beyond ``max_genus`` ({23,97}, genus 1,056: the solver
        is not asked) gets the move's budget for its search, not a solve's share of the clock: in
        game 40 of the one-number suite perfect gave 25 % of what was left to each of its first
        four moves there (7.4, 5.5, 4.1, 3.1 s) and had 2.35 s for {14,23,271}, whose winning 95
        takes 3.1 M states cold (issue 53).  Under a per-call limit, whose unused time is lost, the
        search keeps the solve's budget.  Budgets asked for, not timed."""
        from sylver.bots import perfect
        from sylver.bots.oracle import Oracle

        p = Position("23,97")
        assert p.genus == 1056
        budgets: list[float] = []
        monkeypatch.setattr("sylver.solver.solve", lambda *a, **k: pytest.fail("the solver was asked"))
        monkeypatch.setattr(Oracle, "ponder", lambda *a, **k: False)
        monkeypatch.setattr(perfect.PerfectBot, "_search",
                            lambda self, turn, deadline: budgets.append(deadline.left()) or 98)
        for cpu_clock in (False, True):
            bot = make_bot("perfect", random.Random(0), think=2.0, store=tmp_path / "none.sqlite")
            assert bot.choose(Turn(p, (23, 97), time_left=30.0, cpu_clock=cpu_clock, max_move=1000)) == 98
        assert len(budgets) == 2 and all(0 < b <= 2.0 for b in budgets)  # think, not 7.4 s
        budgets.clear()
        bot = make_bot("perfect", random.Random(0), think=2.0, store=tmp_path / "none.sqlite")
        bot.choose(Turn(p, (23, 97), time_left=20.0, per_call=True, max_move=1000))
        assert budgets[0] > 0.9 * perfect.solve_budget(20.0)

    def test_a_position_lost_by_a_theorem_is_swindled_at_once(self, tmp_path, monkeypatch):
        """{23} is P (Hutchings: a prime p >= 5): perfect swindles with the move's budget, asking
        neither the g > 1 engine nor the search, which took 5-7 s of a 30-s game there (issue 53,
        game 39 of the one-number suite)."""
        from sylver.bots import perfect
        from sylver.bots.oracle import Oracle

        monkeypatch.setattr(Oracle, "solve_gcd", lambda *a, **k: pytest.fail("the g > 1 engine was asked"))
        monkeypatch.setattr(Oracle, "ponder", lambda *a, **k: False)
        monkeypatch.setattr(perfect.PerfectBot, "_search", lambda *a, **k: pytest.fail("a search"))
        bot = make_bot("perfect", random.Random(0), think=0.3, store=tmp_path / "none.sqlite")
        p = Position("23")
        move = bot.choose(Turn(p, (23,), time_left=30.0, cpu_clock=True, max_move=1000))
        assert p.is_legal(move) and move > 1

    def test_a_pass_war_keeps_time_for_the_moves_to_come(self, tmp_path, monkeypatch):
        """On a chess clock perfect keeps MOVE_FLOOR for each of its moves still to come (at most half
        the genus, at most MOVES_AHEAD): with 0.6 s left in {29,62,63,345,...} (genus 235) it
        passes at once, where it gave 25 % of what was left to a solve and a search on every move
        and lost three pass wars on time in the arena (issue 53; game 52 of the one-number suite
        against usingStrongCounterV2 reached this position with 1.33 s left).  Counted: no solve,
        no search; not timed."""
        from sylver.bots import perfect
        from sylver.bots.oracle import Oracle

        p = Position("29,62,63,345,346,347,349,350,351,354,355,359")
        asked: list[Position] = []

        def record(self, q, *args, **kwargs):
            asked.append(q)
            return None

        monkeypatch.setattr(Oracle, "solve", record)
        monkeypatch.setattr(Oracle, "solve_gcd", record)
        monkeypatch.setattr(Oracle, "ponder", record)
        monkeypatch.setattr(perfect.PerfectBot, "_search",
                            lambda self, turn, deadline: record(self, turn.position) or p.frobenius_number)
        bot = make_bot("perfect", random.Random(0), store=tmp_path / "none.sqlite")
        for cpu_clock in (True, False):
            move = bot.choose(Turn(p, tuple(p.generators), time_left=0.6, cpu_clock=cpu_clock, max_move=1000))
            assert move == p.frobenius_number and not asked  # the pass, answered at once, and no ponder
        # with the reserve and a move's planning to spare the position is solved, as before
        bot.choose(Turn(p, tuple(p.generators), time_left=30.0, cpu_clock=True, max_move=1000))
        assert asked and asked[0] == p
        assert p.genus == 235 and perfect.reserve(p) == pytest.approx(perfect.MOVES_AHEAD * perfect.MOVE_FLOOR)
        assert perfect.reserve(Position("11,38")) == pytest.approx(93 * perfect.MOVE_FLOOR)  # genus 185
        # the reserve is bounded: positions with infinitely many legal moves, or a large genus
        assert perfect.reserve(Position("16,34")) == perfect.reserve(Position("100003,200003"))
        assert perfect.reserve(Position("16,34")) == perfect.MOVES_AHEAD * perfect.MOVE_FLOOR
        turn = Turn(p, tuple(p.generators), time_left=20.0, per_call=True)
        assert perfect.spendable(turn) == 20.0  # a per-call limit keeps nothing back

    def test_a_move_from_the_book_prepares_the_next_one(self, tmp_path, monkeypatch):
        """A move answered at once (the book's 47 in {7,59}) gives its time to the positions after the
        opponent's replies (``Oracle.ponder``, here limited by states, not seconds: the same on any
        machine), so that the next move, in {7,47,59} + 158 (not in the book: a solve of some 38,000
        states with cold tables), is answered from what the ponder proved, with no solve (issue 53:
        the {11} line's sixth move, after five from the book, needed 3.6 M states cold, 2 pondered).
        Without the ponder and the look into the tables the second move calls the solver, as it does
        in a process that kept nothing."""
        from sylver.bots.oracle import Oracle
        from sylver.solver import engine

        engine.ENGINE.clear()
        real_ponder = Oracle.ponder
        pondered: list[tuple[Position, bool]] = []

        def ponder(self, q, time_limit, **kwargs):
            done = real_ponder(self, q, 1e9, max_states=200_000)
            pondered.append((q, done))
            return done

        solves: list[Position] = []
        real_solve = solve

        def counting_solve(p, **kwargs):
            solves.append(p)
            return real_solve(p, **kwargs)

        monkeypatch.setattr(Oracle, "ponder", ponder)
        monkeypatch.setattr("sylver.solver.solve", counting_solve)
        bot = make_bot("perfect", random.Random(0), think=30.0, store=tmp_path / "none.sqlite")
        start = Position("7,59")
        assert bot.choose(Turn(start, (7, 59), time_left=300.0)) == 47  # no ponder with no limit
        q = start.play(47)
        assert pondered == [(q, True)] and not solves  # every reply decided within the states
        p = q.play(158)
        assert p.generators not in opening_book()
        move = bot.choose(Turn(p, (7, 59, 47, 158)))
        assert not solves
        engine.ENGINE.clear()
        assert real_solve(p.play(move)).outcome is Outcome.P
        engine.ENGINE.clear()
        assert real_solve(p, first=True).states > 30_000  # what the move would have searched cold
        # a process that kept nothing (a fresh one for each call): the move is solved, as before
        engine.ENGINE.clear()
        fresh = make_bot("perfect", random.Random(0), think=30.0, store=tmp_path / "none.sqlite")
        solves.clear()
        move = fresh.choose(Turn(p, (7, 59, 47, 158)))
        assert solves == [p]
        engine.ENGINE.clear()
        assert real_solve(p.play(move)).outcome is Outcome.P

    def test_a_long_lived_bot_keeps_no_big_position_alive(self):
        """What perfect keeps from a King-of-the-Hill game's moves (its memo, the theory's caches)
        holds no position of the game's 6-digit numbers: each carries an Apéry set of some MB, and a
        bot's process that kept them ran out of the arena's 4 GiB of address space after some 88
        games of 20-s calls (issue 53: the theory's ender cache was keyed by the Position).  Counted
        after the moves, whatever they were."""
        import gc

        bot = fast("perfect")
        rng = random.Random(53)
        starts: set[int] = set()
        for _ in range(3):
            p = koth_start(rng)
            starts.update(p.generators)
            history = list(p.generators)
            for _ in range(6):
                move = bot.choose(Turn(p, tuple(history), time_left=2.0, per_call=True))
                if move == 1 or not p.is_legal(move):
                    break
                p = p.play(move)
                history.append(move)
        del p
        gc.collect()
        assert not [o for o in gc.get_objects() if type(o) is Position and starts & set(o.generators)]


class TestTimeOdds:
    """Where nothing is decidable (King-of-the-Hill starts) perfect's rule chooses the same moves
    whatever its time: a move left unjudged for want of time must not change the choice (issue 35:
    the short side of a time-odds match passed where the long side named 5, and so won the pass war)."""

    class Expired:
        """A move's deadline already passed when the move starts: no time to judge anything."""

        def __init__(self, seconds: float, **clock: object) -> None:
            self.seconds = seconds

        def left(self) -> float:
            return 0.0

        def wall(self) -> None:
            return None

        def passed(self) -> bool:
            return True

    @staticmethod
    def against_a_passer(bot: Bot, start: Position, moves: int) -> list[int]:
        """``bot``'s first ``moves`` moves against an opponent who always names t (a pass)."""
        p, history, named = start, tuple(start.generators), []
        for _ in range(moves):
            n = bot.choose(Turn(p, history, time_left=20.0))
            named.append(n)
            p = p.play(n)
            history += (n, p.frobenius_number)
            p = p.play(p.frobenius_number)
        return named

    @pytest.mark.parametrize("start", [koth_start(random.Random(1)), Position((519040, 656541))])
    def test_same_moves_with_and_without_time(self, start, monkeypatch):
        """The opening prime, then passes while the opponent has passed fewer than ``patience`` (3)
        times, then a commitment (a small number), with or without the time to judge anything.  In
        {519040,656541} 5 and 7 are refuted and 11 is named; the swindles {11,m} are not all in the
        book, so the commitment itself may differ (the side with time solves more of them)."""
        from sylver.bots import perfect

        with_time = self.against_a_passer(fast("perfect"), start, 4)
        monkeypatch.setattr(perfect, "_Deadline", self.Expired)
        without_time = self.against_a_passer(fast("perfect"), start, 4)
        assert without_time[0] == with_time[0] in perfect.OPENING_PRIMES
        for moves in (with_time, without_time):
            assert all(n > 10**5 for n in moves[1:3]) and moves[3] < 200


class TestReferee:
    class Fixed(Bot):
        name = "fixed"

        def __init__(self, moves, rng=None):
            super().__init__(rng)
            self.moves = list(moves)

        def choose(self, turn):
            return self.moves.pop(0)

    def test_illegal_move_loses_with_witness(self):
        r = play_game((self.Fixed([4]), self.Fixed([13])), Position("5"))
        assert (r.winner, r.reason, r.detail) == (0, Termination.ILLEGAL_MOVE, "13 = 4·2 + 5·1")

    def test_cap_and_one(self):
        r = play_game((self.Fixed([11]), self.Fixed([1])), Position(), max_move=10)
        assert (r.winner, r.reason) == (1, Termination.ABOVE_CAP)
        r = play_game((self.Fixed([1]), self.Fixed([2])), Position())
        assert (r.winner, r.reason) == (1, Termination.NAMED_ONE)

    def test_one_precedence_in_every_referee(self):
        """13 in {4,5} under a cap of 10 is both illegal and above the cap: ``illegal`` for the
        judge, the arena's referee (its ``judge_answer``, as in a tournament), the in-process referee,
        the nextMove loop; a prime first move above the cap is ``prime-first``; a malformed answer is
        ``invalid`` everywhere (the nextMove loop called it ``illegal`` before)."""
        from sylver.arena.board import Board
        from sylver.arena.referee import judge_answer
        from sylver.arena.rules import make_rules
        from sylver.compat import play_next_move
        from sylver.judge import MoveRules, judge

        class NextMove:
            def __init__(self, answer):
                self.answer = answer

            def nextMove(self, moves, remaining, t):  # noqa: N802
                return self.answer

        for answer, start, first, reason in ((13, (4, 5), False, Termination.ILLEGAL_MOVE),
                                             (13, (), True, Termination.PRIME_FIRST),
                                             (12.0, (4, 5), False, Termination.INVALID_MOVE),
                                             (10**100, (4, 5), False, Termination.INVALID_MOVE)):
            rules = MoveRules(cap=10, no_prime_first=first)
            assert judge(answer, Position(start), rules, first_move=True).reason is reason
            arena = make_rules("koth-2020", start=start, cap=10, no_prime_first=first)
            assert judge_answer(answer, Board(list(start)), arena, True).reason is reason
            r = play_game((self.Fixed([answer]), self.Fixed([2])), Position(start), max_move=10, no_prime_first=first)
            assert (r.winner, r.reason, r.moves) == (1, reason, (answer,))
            if not first:
                g = play_next_move((NextMove(answer), NextMove(2)), start, cap=10)
                assert (g.winner, g.reason, g.history) == (1, reason, start + (answer,))
        assert "about 5,001 digits" in judge(10**5000, Position()).detail  # longer than Python writes out


class TestProperties:
    """Every bot names an allowed number in any position, under any cap (hypothesis)."""

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        gens=st.lists(st.integers(2, 60), min_size=0, max_size=4),
        cap=st.one_of(st.none(), st.integers(2, 200)),
        name=st.sampled_from(["random", "greedy", "sage", "perfect"]),
        seed=st.integers(0, 10**6),
    )
    def test_allowed(self, gens, cap, name, seed):
        p = Position(gens)
        if p.is_terminal or p.is_over:
            return
        turn = Turn(p, tuple(p.generators), time_left=2.0, max_move=cap)
        if not any(turn.allows(n) for n in range(2, (cap or 200) + 1)):
            return  # only 1 (or nothing) is allowed
        n = fast(name, seed).choose(turn)
        assert turn.allows(n) and n != 1, (p, cap, n)


class TestResultsStoreAsBook:
    """perfect answers a stored position from the results store before any solving (issue 35)."""

    @staticmethod
    def no_solving(monkeypatch):
        from sylver.bots.oracle import Oracle

        def refuse(*args, **kwargs):
            raise AssertionError("solved a position the store answers")

        monkeypatch.setattr(Oracle, "solve", refuse)
        monkeypatch.setattr(Oracle, "solve_gcd", refuse)

    def test_stored_winning_move_played_at_once(self, tmp_path, monkeypatch):
        from sylver.store.results import Store

        path = tmp_path / "results.sqlite"
        small = Position((11, 13, 14))
        last = solve(small).winning_moves[-1]  # the store's move, not the one a first-win solve names
        with Store(path) as store:  # the opening-16 line of the public ledger, and a gcd-1 position
            store.put_result(Position((16, 20)), Outcome.N, [34], False, 0)
            store.put_result(small, Outcome.N, [last], False, small.frobenius_number)
        before = path.read_bytes()
        self.no_solving(monkeypatch)
        bot = make_bot("perfect", random.Random(0), store=path)
        for p, best in ((Position((16, 20)), 34), (small, last)):
            assert bot.choose(Turn(p, tuple(p.generators), time_left=20.0)) == best
        assert path.read_bytes() == before

    def test_reply_into_stored_p_position(self, tmp_path, monkeypatch):
        """With {16,20} and {16,34} themselves not stored, the reply into the stored P-position is
        found before the g > 1 engine is asked (issue 35: it had 70 % of the move's budget first)."""
        from sylver.bots.oracle import StoredResults
        from sylver.store.results import Store

        path = tmp_path / "results.sqlite"
        with Store(path) as store:
            store.put_result(Position((16, 20, 34)), Outcome.P, [], True, 0)
        exact = StoredResults(path).get(Position((34, 20, 16)))
        assert exact is not None and exact.outcome is Outcome.P and exact.complete
        self.no_solving(monkeypatch)
        bot = make_bot("perfect", random.Random(0), store=path)
        for p, best in ((Position((16, 20)), 34), (Position((16, 34)), 20)):
            for per_call in (False, True):
                assert bot.choose(Turn(p, tuple(p.generators), time_left=20.0, per_call=per_call)) == best

    @pytest.mark.parametrize("content", [None, b"not a database" * 50, b""])
    def test_missing_or_broken_store_does_not_crash(self, tmp_path, content):
        path = tmp_path / "results.sqlite"
        if content is not None:
            path.write_bytes(content)
        bot = make_bot("perfect", random.Random(0), think=0.2, store=path)
        p = Position((7, 11, 13))
        n = bot.choose(Turn(p, tuple(p.generators), time_left=5.0))
        assert p.is_legal(n) and n > 1
        assert bot.oracle.store is not None and bot.oracle.store.problem
        assert path.exists() == (content is not None)  # a missing store is not created

    def test_store_without_results_table(self, tmp_path):
        import sqlite3

        path = tmp_path / "other.sqlite"
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE notes (x TEXT)")
        from sylver.bots.oracle import StoredResults

        stored = StoredResults(path)
        assert stored.get(Position((16, 20))) is None and "results" in stored.problem
        with sqlite3.connect(path) as db:  # nothing was added to somebody else's database
            assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["notes"]

    def test_locked_store_is_a_miss_then_read(self, tmp_path):
        """A store locked by a writer for a moment answers nothing then, and is read afterwards."""
        import sqlite3

        from sylver.bots.oracle import StoredResults
        from sylver.store.results import SCHEMA

        path = tmp_path / "results.sqlite"
        writer = sqlite3.connect(path, isolation_level=None)  # a rollback journal: a writer locks readers out
        writer.execute(SCHEMA)
        writer.execute("INSERT INTO results VALUES ('16,20', 'N', '[34]', 0, 0, 0, 0.0, 0.0)")
        stored = StoredResults(path)
        writer.execute("BEGIN EXCLUSIVE")
        assert stored.get(Position((16, 20))) is None and not stored.problem
        writer.execute("COMMIT")
        exact = stored.get(Position((16, 20)))
        assert exact is not None and exact.winning_moves == (34,)
        writer.close()
