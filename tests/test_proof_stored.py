"""When a certificate proves an answer (sylver.proof.stored): the rule that ``sylver solve
--certificate`` applies to a certificate kept in the results store before it copies it instead of
building one (issue 52: the rule lived in the CLI)."""

from __future__ import annotations

from sylver.position import Position
from sylver.proof.stored import proves
from sylver.solver import solve


def test_a_header_proves_an_answer_that_it_states() -> None:
    complete = solve(Position([5, 18]))  # N: 14, 16 and 17 win, every other move loses
    head = {"position": [5, 18], "outcome": "N", "complete": True, "winning_moves": [14, 16, 17]}
    assert proves(head, complete)
    assert not proves({**head, "winning_moves": [14]}, complete)  # fewer moves than the answer's
    assert not proves({**head, "complete": False}, complete)
    assert not proves({**head, "outcome": "P"}, complete)
    assert not proves({**head, "position": [5, 19]}, complete)
    first = solve(Position([5, 18]), first=True)  # one winning move: a proof of it is enough
    assert not first.complete
    assert proves({**head, "winning_moves": [14], "complete": False}, first)
