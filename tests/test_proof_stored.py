"""When a certificate proves an answer (sylver.proof.stored): the rules that ``sylver solve
--certificate`` and a campaign apply to a certificate kept in the results store before they copy it
instead of building one (issue 52: the rules lived in the CLI and in the campaign's loop)."""

from __future__ import annotations

from pathlib import Path

from sylver.position import Outcome, Position
from sylver.proof.stored import copy_stored_outcome, proves, proves_outcome
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


def test_a_header_proves_an_outcome_with_a_winning_move() -> None:
    """The rule a campaign follows for a node decided from the store: the outcome, and for N one
    winning move at least (the store's record may hold more)."""
    six = Position([6])
    head = {"position": [6], "outcome": "N", "complete": False, "winning_moves": [9]}
    assert proves_outcome(head, six, Outcome.N)
    assert not proves_outcome({**head, "winning_moves": []}, six, Outcome.N)
    assert not proves_outcome(head, six, Outcome.P)
    assert not proves_outcome(head, Position([7]), Outcome.N)
    assert proves_outcome({"position": [4, 5], "outcome": "P"}, Position([4, 5]), Outcome.P)


def test_the_stored_certificate_of_an_outcome_is_copied_when_it_proves_it(tmp_path: Path) -> None:
    from sylver.proof.build import build_certificate, write_certificate
    from sylver.store import Store

    store = Store(tmp_path / "s.sqlite")
    p = Position([5, 18])
    sol = solve(p)
    write_certificate(build_certificate(sol), tmp_path / "cert.json")
    path = tmp_path / "copy.json"
    assert copy_stored_outcome(store, p, Outcome.N, path) is None and not path.exists()  # none stored
    store.put_result(p, Outcome.N, list(sol.winning_moves), True, p.frobenius_number)
    store.put_certificate(p, tmp_path / "cert.json")
    assert copy_stored_outcome(store, p, Outcome.N, path) == [14, 16, 17]
    assert path.read_bytes() == (tmp_path / "cert.json").read_bytes()
    path.unlink()
    assert copy_stored_outcome(store, p, Outcome.P, path) is None and not path.exists()
