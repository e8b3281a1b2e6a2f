"""sylver.review: a game's replay and how it ended, who wins at each step, the defences, records read."""

from __future__ import annotations

import json
import pickle
import time

import pytest

from sylver.position import Outcome, Position, Termination
from sylver.review import (
    OutcomeMemo,
    RecordError,
    Replayer,
    ReplayError,
    SolverUse,
    defences,
    parse_record,
    step_outcomes,
)
from sylver.solver import solve


class TestReplayer:
    def test_game_goes_on_or_ends_with_its_last_move(self) -> None:
        r = Replayer(1 << 20)
        p, end = r.game((4, 5), (11,))
        assert p == Position([4, 5, 11]) and end is None
        p, end = r.game((4, 5), (11, 13))  # 13 = 4·2 + 5·1: the second mover loses on it
        assert p == Position([4, 5, 11]) and end is not None
        assert (end.winner, end.reason, end.ply, end.move) == (0, Termination.ILLEGAL_MOVE, 1, 13)
        assert end.to_dict()["loser"] == 1 and "4·2 + 5·1" in end.detail
        _, end = r.game((4, 5), (11, 1))
        assert end is not None and end.reason is Termination.NAMED_ONE and end.winner == 0
        _, end = r.game((1,), ())
        assert end is not None and end.winner is None and end.to_dict()["loser"] is None

    def test_an_illegal_move_before_the_last_is_an_error_naming_it(self) -> None:
        with pytest.raises(ReplayError) as caught:
            Replayer(1 << 20).game((4, 5), (13, 11))
        exc = pickle.loads(pickle.dumps(caught.value))  # it crosses from worker processes
        assert (exc.code, exc.ply, exc.move, exc.witness) == ("illegal_move", 1, 13, {4: 2, 5: 1})
        with pytest.raises(ReplayError) as caught:
            Replayer(1 << 20).game((4, 5), (1, 11))
        assert caught.value.code == "game_over" and caught.value.ply == 2

    def test_the_vet_sees_the_last_move(self) -> None:
        seen = []
        Replayer(1 << 20).game((4, 5), (11, 7), vet=lambda p, x: seen.append((p, x)))
        assert seen == [(Position([4, 5, 11]), 7)]

    def test_positions_stop_before_an_illegal_last_move(self) -> None:
        ps = Replayer(1 << 20).positions((4, 5), (11, 13), time.monotonic() + 10)
        assert ps == [Position([4, 5]), Position([4, 5, 11])]


def test_step_outcomes_agree_with_the_solver() -> None:
    positions = Replayer(1 << 20).positions((4, 5), (6, 7), time.monotonic() + 10)
    memo = OutcomeMemo(10)
    steps = step_outcomes(positions, 2, time.monotonic() + 30, SolverUse(), memo)
    assert steps.complete
    assert steps.outcomes == [solve(p).outcome.value for p in positions]  # type: ignore[union-attr]
    for p, best, outcome in zip(positions, steps.best, steps.outcomes, strict=True):
        if best is not None:
            assert outcome == "N" and solve(p.play(best)).outcome is Outcome.P


def test_defences_best_first() -> None:
    p = Position([4, 5, 11])  # P: every move loses
    rows = defences(p, time.monotonic() + 30, SolverUse())
    assert sorted(r.move for r in rows) == [x for x in p.legal_moves() if x != 1]
    assert all(r.refutations == solve(p.play(r.move)).winning_moves for r in rows)
    assert [r.share for r in rows] == sorted(r.share for r in rows) and rows[0].share < rows[-1].share


class TestParseRecord:
    def test_forms(self) -> None:
        assert parse_record("{4, 5} 11, 7").moves == [11, 7]
        r = parse_record("{4,5} 11 7")
        assert (r.start, r.moves, r.players, r.result) == ("4,5", [11, 7], None, None)
        assert parse_record("[16, 5]").moves == [16, 5]
        line = {"start": [4, 5], "moves": [11, "x"], "players": ["a", "b"], "winner": "a", "loser": "b",
                "reason": "invalid"}
        r = parse_record(json.dumps(line))
        assert r.moves == [11] and r.players == ["a", "b"]  # the losing answer is not a number: not a move

    @pytest.mark.parametrize("text", ["", "  ", '{"start": [4]}', "[4, true]", '{"a": 1}\n{"b": 2}', "{4,5} 7 x"])
    def test_refused(self, text: str) -> None:
        with pytest.raises(RecordError):
            parse_record(text)
