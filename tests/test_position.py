"""Position and GameRecord: the paper's sec. 1 examples, text round trips, pickling, errors, replay."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sylver import GameRecord, Position, Termination
from sylver.errors import IllegalMoveError, InvalidMoveError, InvalidPositionError, TooLargeError
from test_semigroup import brute_members, pure_python

GENS = st.lists(st.integers(1, 60), min_size=0, max_size=6)


class TestPaperSection1:
    def test_legal_moves_of_4_5(self) -> None:
        p = Position([4, 5])
        assert p.legal_moves() == [1, 2, 3, 6, 7, 11]
        assert p.legal_move_count == 6 and p.genus == 6

    def test_t_5_6(self) -> None:
        assert Position([5, 6]).frobenius_number == 19

    def test_tbar_6_8(self) -> None:
        assert Position([6, 8]).tbar == 10
        assert Position([4, 5]).tbar == 11
        assert Position([6]).tbar is None and Position().tbar is None

    def test_canonical(self) -> None:
        assert Position([4, 5, 10, 13]) == Position([4, 5])
        assert Position([4, 5, 10, 13]).generators == (4, 5)
        assert str(Position([13, 10, 5, 4])) == "4,5"

    def test_infinite_moves_when_gcd_above_1(self) -> None:
        p = Position([6, 8])
        assert not p.is_finite and p.legal_move_count is None
        assert p.is_legal(5) and p.is_legal(10) and not p.is_legal(14)
        with pytest.raises(TooLargeError, match="infinitely many"):
            p.legal_moves()
        assert p.describe_moves() == "infinitely many: every positive integer not divisible by 2, and the multiples 2, 4, 10 of 2"
        assert Position([4, 6]).describe_moves() == "infinitely many: every positive integer not divisible by 2, and the multiple 2 of 2"
        assert Position([6]).describe_moves() == "infinitely many: every positive integer not divisible by 6"
        assert Position([20, 22]).describe_moves() == (
            "infinitely many: every positive integer not divisible by 2, and 45 multiples of 2 (the largest 178)"
        )


class TestText:
    @pytest.mark.parametrize("text", ["4, 5", "{4,5}", "4 5", "[5,4]", " (4;5) ", "{4,5,10,13}", "+4 5"])
    def test_parse(self, text: str) -> None:
        assert Position.parse(text) == Position([4, 5]) == Position(text)

    def test_empty(self) -> None:
        for text in ("", "{}", "  "):
            assert Position.parse(text) == Position()
        e = Position()
        assert e.is_empty and str(e) == "" and e.braces() == "{}" and repr(e) == "Position('')"
        assert e.gcd == 0 and e.is_legal(1) and e.is_legal(10**30) and e.witness(5) is None
        assert e.describe_moves() == "every positive integer"
        assert e.play(6) == Position([6])
        with pytest.raises(TooLargeError):
            e.legal_moves()

    @settings(max_examples=100, deadline=None)
    @given(GENS)
    def test_round_trips(self, gens: list[int]) -> None:
        p = Position(gens)
        assert Position.parse(str(p)) == p
        assert Position.parse(p.braces()) == p
        assert eval(repr(p)) == p
        assert pickle.loads(pickle.dumps(p)) == p
        assert hash(pickle.loads(pickle.dumps(p))) == hash(p)

    @pytest.mark.parametrize("text", ["0", "-3", "4.5", "abc", "4,x", "1e5", "٣", "4 0"])
    def test_bad_text(self, text: str) -> None:
        with pytest.raises(InvalidPositionError, match="not a positive integer"):
            Position.parse(text)

    @pytest.mark.parametrize(("text", "message"), [("4,,5", "missing number"), ("4,5,", "missing number"),
                                                   ("{4,5", "not closed"), ("4,5}", "unexpected '}'"),
                                                   ("{4,{5}}", "unexpected '{'"), ("(4,5]", "not closed")])
    def test_malformed_text(self, text: str, message: str) -> None:
        with pytest.raises(InvalidPositionError, match=message):
            Position.parse(text)

    def test_too_many_digits(self) -> None:
        with pytest.raises(InvalidPositionError, match="too large"):
            Position.parse("9" * 5000)

    @pytest.mark.parametrize("bad", [[0], [-3], [4.5], ["abc"], [True]])
    def test_bad_numbers(self, bad: list[object]) -> None:
        with pytest.raises(InvalidPositionError):
            Position(bad)  # type: ignore[arg-type]

    def test_ordering(self) -> None:
        assert Position([5]) < Position([2, 3]) < Position([2, 5])
        assert sorted([Position([4, 5]), Position([7])]) == [Position([7]), Position([4, 5])]
        with pytest.raises(TypeError):
            _ = Position([4]) < 5  # type: ignore[operator]


class TestMoves:
    def test_illegal_move_has_witness(self) -> None:
        p = Position([4, 5])
        with pytest.raises(IllegalMoveError, match=r"13 is illegal in \{4,5\}: 13 = 4·2 \+ 5·1") as err:
            p.play(13)
        assert err.value.move == 13 and err.value.witness == {4: 2, 5: 1}
        assert p.witness_text(13) == "13 = 4·2 + 5·1"
        assert p.witness(11) is None and p.witness_text(11) is None

    @pytest.mark.parametrize("bad", [0, -3, 4.5, "abc", True, None])
    def test_invalid_moves(self, bad: object) -> None:
        p = Position([4, 5])
        with pytest.raises(InvalidMoveError):
            p.play(bad)
        with pytest.raises(InvalidMoveError):
            p.check_move(bad)
        if bad not in (0, -3):
            with pytest.raises(InvalidMoveError):
                p.is_legal(bad)
        with pytest.raises(InvalidMoveError):
            p.witness(bad)  # type: ignore[arg-type]

    def test_is_legal_edge_cases(self) -> None:
        p = Position([4, 5])
        assert not p.is_legal(0) and not p.is_legal(-3) and p.is_legal(11) and not p.is_legal(12)

    def test_terminal_and_over(self) -> None:
        assert Position([2, 3]).is_terminal and Position([2, 3]).legal_moves() == [1]
        over = Position([2, 3]).play(1)
        assert over.is_over and over.legal_moves() == [] and over.frobenius_number == -1

    @settings(max_examples=100, deadline=None)
    @given(st.lists(st.integers(2, 40), min_size=1, max_size=3), st.lists(st.integers(1, 80), max_size=6))
    def test_play_matches_union(self, start: list[int], moves: list[int]) -> None:
        p = Position(start)
        named = list(start)
        for n in moves:
            member = brute_members(named, n)[n]
            assert p.is_legal(n) == (not member)
            if member:
                with pytest.raises(IllegalMoveError):
                    p.play(n)
                continue
            p = p.play(n)
            named.append(n)
            assert p == Position(named)

    def test_pure_python_path_agrees(self) -> None:
        with pure_python():
            p = Position([7, 8, 10, 13])
            assert p.legal_moves() == [1, 2, 3, 4, 5, 6, 9, 11, 12, 19]
            assert p.play(11) == Position([7, 8, 10, 11, 13])
            assert p.witness_text(20) == "20 = 7·1 + 13·1"

    def test_koth_size(self) -> None:
        p = Position([240891, 696853])
        assert p.frobenius_number == 240890 * 696852 - 1
        p = p.play(1058758).play(4279350).play(1978349)
        assert p.frobenius_number == 112_460_300
        assert not p.is_legal(112_460_301)
        assert p.witness(112_460_301) is not None


class TestGameRecord:
    def test_naming_one_loses(self) -> None:
        r = GameRecord(Position([4, 5]), (11, 6, 3, 2, 1)).result()
        assert r is not None and r.loser == 0 and r.winner == 1 and r.reason is Termination.NAMED_ONE
        assert r.ply == 4

    def test_illegal_move_loses_with_witness(self) -> None:
        r = GameRecord(Position([4, 5]), (11, 13)).result()
        assert r is not None and r.loser == 1 and r.reason is Termination.ILLEGAL_MOVE
        assert r.detail == "13 = 4·2 + 5·1"

    def test_invalid_move_loses(self) -> None:
        r = GameRecord(Position([4, 5]), (0,)).result()
        assert r is not None and r.loser == 0 and r.reason is Termination.INVALID_MOVE

    def test_unfinished_and_positions(self) -> None:
        rec = GameRecord(Position(), (5, 4))
        assert rec.result() is None
        assert list(rec.positions()) == [Position(), Position([5]), Position([4, 5])]

    def test_moves_after_end_raise(self) -> None:
        with pytest.raises(ValueError, match="after the game ended"):
            GameRecord(Position([2, 3]), (1, 5)).result()
