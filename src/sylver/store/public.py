"""The public record of the opening 16, as results per position: what is published, so that the
results book (:mod:`sylver.store.book`) says of each of its entries whether it is new.

``src/sylver/data/opening16_public.json`` is a copy of ``../shared/data/opening16_public.json``
(facts from the public campaign records of rudi-cilibrasi/sylver-coinage, the last dated
2026-10-10; tests compare the copy with the shared file when it is there).  :func:`results` derives
the positions it decides:

* ``replies_answered`` r → a: {16,r} N (a wins), {16,r,a} P; ``p_positions`` and
  ``p_positions_more`` P; X = {16,26,82,88} N by 701; {16,31,150} P (claimed there, not replayed);
* the obligations of {16,38} (sec. 1: the odd moves up to t(8,19) = 125 and the even 2y, y a gap of
  {8,19}): each N but those the record leaves open (the odd 109, 117, 125; the short rungs 72,
  88, 104, 120; the long even moves it lists open), with the winning reply where it names one, and
  the P-position that reply leaves;
* the obligations of {16,38,72}: each N but the even 68, 78, 84 and those above 98 (not searched
  there), the replies named, 56 through B56; the hard replies tried ({16,38,72,78,81} N, …,
  {16,38,68,72,147} N by 36); {16,38,88}'s obligations 42 → 181 and 46 → 129;
* the paper's results (:data:`sylver.theory.KNOWN_RESULTS` and the positions its winning moves
  lead to), and the complete sets of ``../shared/data/known_results.json`` when present.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from sylver.position import Outcome, Position

DATA = Path(__file__).resolve().parent.parent / "data" / "opening16_public.json"
"""The package's copy of the public record."""
SHARED = Path(__file__).resolve().parents[3].parent / "shared" / "data"
"""``../shared/data`` beside the repository (a checkout's; absent in an installed sylver)."""
SOURCE = "the public record of 2026-10-10 (rudi-cilibrasi/sylver-coinage)"


@dataclass(frozen=True, kw_only=True)
class Published:
    """A position the public record (or the paper) decides."""

    position: Position
    outcome: Outcome
    winning: tuple[int, ...] = ()
    """The winning moves it names (none: the outcome only, or P)."""
    complete: bool = False
    where: str = ""
    """Where it says so."""


def record() -> dict[str, Any]:
    """The public record (the package's copy)."""
    with open(DATA, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


@lru_cache(maxsize=1)
def results() -> dict[str, Published]:
    """Every position the public record, the paper and the shared known results decide, by
    position text (module docstring)."""
    found: dict[str, Published] = {}

    def add(gens: Any, outcome: Outcome, winning: tuple[int, ...] = (), where: str = "", complete: bool = False) -> None:
        p = gens if isinstance(gens, Position) else Position(gens)
        old = found.get(str(p))
        if old is not None:
            winning = tuple(sorted(set(old.winning) | set(winning)))
            where = old.where
            complete = complete or old.complete
        found[str(p)] = Published(position=p, outcome=outcome, winning=winning,
                                  complete=complete or outcome is Outcome.P, where=where)

    def answered(p: Position, move: int, reply: int | None, where: str) -> None:
        after = p.play(move)
        add(after, Outcome.N, () if reply is None else (reply,), where)
        if reply is not None:
            add(after.play(reply), Outcome.P, (), f"{where} (the position after the reply)")

    data = record()
    sixteen = Position([16])
    for r, a in data["replies_answered"].items():
        answered(sixteen, int(r), int(a), f"{SOURCE}: the reply {r} to 16 is answered by {a}")
    for name, gens in data["p_positions"].items():
        add(gens, Outcome.P, (), f"{SOURCE}: {name} is P")
    for gens in data["p_positions_more"]:
        add(gens, Outcome.P, (), f"{SOURCE}: P")
    x = data["facts"]["X"]
    add(x["position"], Outcome(x["outcome"]), (int(x["least_winning_move"]),), f"{SOURCE}: X, {x['note']}")
    claimed = data["facts"]["claimed_not_replayed"]
    add(claimed["position"], Outcome(claimed["outcome"]), (), f"{SOURCE}: claimed (not replayed there)")
    _obligations_16_38(data, answered, add)
    _paper(add)
    return found


def _obligations_16_38(data: dict[str, Any], answered: Any, add: Any) -> None:
    """The obligations of {16,38}, {16,38,72} and {16,38,88} that the record decides (module docstring)."""
    from sylver.theory import short_moves
    update = data["update_2026_10_10"]
    base = Position([16, 38])
    odd = update["odd_obligations_of_16_38"]
    long_even = update["long_even_obligations_of_16_38"]
    rungs = set(update["short_even_ladder_of_16_38"]["rungs"])
    replies = {int(k): int(v) for k, v in long_even["answered_by_odd_reply"].items()}
    won = dict((int(a), int(b)) for a, b in re.findall(r"(\d+): [\d,]+ \(won by (\d+)\)", odd["note_decided"]))
    replies.update(won)
    replies.update((int(a), int(b)) for a, b in re.findall(r"(\d+) moves to \{[\d,]+\} by (\d+)", long_even["also"]))
    open_ = set(odd["open"]) | rungs | set(long_even["open"])
    for x in short_moves(base):
        if x not in open_:
            answered(base, x, replies.get(x), f"{SOURCE}: {{16,38}}'s obligation {x} is N")
    r72 = update["obligations_of_16_38_72"]
    p72 = Position([16, 38, 72])
    even72 = {int(k): int(v) for k, v in r72["even_answered"].items()}
    even_n = set(even72) | set(r72["even_answered_withheld"]) | {56}  # the record's resolver stopped after 98
    b56 = Position(data["p_positions"]["B56"])
    for x in short_moves(p72):
        if x % 2 == 0 and x not in even_n:  # open there (68, 78, 84) or not searched (above 98)
            continue
        after = p72.play(x)
        reply = even72.get(x)
        if x == 56:  # through B56 = {16,38,56,60}: its generator outside {16,38,56}
            reply = next(g for g in b56.generators if g not in after.semigroup)
        answered(p72, x, reply, f"{SOURCE}: {{16,38,72}}'s obligation {x} is N")
    hard = r72["hard_replies_tried"]
    for move, many in re.findall(r"(\d+) \+ \{([\d, ]+)\} N", hard):
        for reply in many.split(","):
            add(p72.play(int(move)).play(int(reply)), Outcome.N, (),
                f"{SOURCE}: {{16,38,72}}'s obligation {move}, the reply {reply.strip()} tried: N")
    for move, reply, wins in re.findall(r"(\d+) \+ (\d+) N \(won by (\d+)", hard):
        answered(p72.play(int(move)), int(reply), int(wins),
                 f"{SOURCE}: {{16,38,72}}'s obligation {move}, the reply {reply} tried: N, {wins} wins")
    p88 = Position([16, 38, 88])
    for x, a in update["obligations_of_16_38_88"]["examples_answered"].items():
        answered(p88, int(x), int(a), f"{SOURCE}: {{16,38,88}}'s obligation {x} is answered by {a}")


def _paper(add: Any) -> None:
    """The paper's results and the positions its stated winning moves lead to; the complete sets of
    ``../shared/data/known_results.json`` when present."""
    from sylver.theory import KNOWN_RESULTS, known_p_positions

    for r in KNOWN_RESULTS:
        add(r.generators, r.outcome, r.winning_moves, r.citation, r.complete)
    for p, cite in known_p_positions():
        add(p, Outcome.P, (), cite, True)
    shared = SHARED / "known_results.json"
    if shared.is_file():
        with open(shared, encoding="utf-8") as fh:
            for item in json.load(fh)["positions"]:
                add(item["position"], Outcome(item["outcome"]), tuple(item["winning_moves"]),
                    f"../shared/data/known_results.json ({item.get('source', '')})", bool(item["complete"]))


def published(position: Position) -> Published | None:
    """What the public record (or the paper) says of ``position``, or None: a result of ours on it
    is new."""
    return results().get(str(position))


def conflict(position: Position, outcome: Outcome, winning: tuple[int, ...], complete: bool) -> str:
    """How a result contradicts the published one ('' when it does not): another outcome, a
    published winning move missing from a complete set, or a move of ours missing from a
    published complete set."""
    pub = published(position)
    if pub is None:
        return ""
    if pub.outcome is not outcome:
        return f"{pub.where} says {pub.outcome.value}"
    if complete and not set(pub.winning) <= set(winning):
        return f"{pub.where} names the winning moves {list(pub.winning)}, not all in this complete set"
    if pub.complete and not set(winning) <= set(pub.winning):
        return f"{pub.where} gives the complete set {list(pub.winning)}"
    return ""


__all__ = ["DATA", "SHARED", "Published", "conflict", "published", "record", "results"]
