"""``sylver conformance BOT``: whether one bot keeps the arena's protocol (start, games, answers,
learn, quit): its conformance, step by step."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from sylver.arena.board import Board
from sylver.arena.protocol import GameOver, Move, NewGame, Ok, Quit, TurnRequest
from sylver.arena.referee import LEARN_TIME, describe_failure, judge_answer, rules_message
from sylver.arena.rules import Rules
from sylver.arena.sandbox import BotProcess, StartError, check_sandbox
from sylver.arena.specs import BotSpec


@dataclass
class Step:
    what: str
    ok: bool
    detail: str
    seconds: float = 0.0


PROBES: tuple[tuple[str, list[int] | None], ...] = (
    ("the empty position", []),
    ("{4,5}", [4, 5]),
    ("{6,9,20}", [6, 9, 20]),
    ("a KotH start", None),
)


def run_conformance(spec: BotSpec, rules: Rules, memory_mb: int = 4096, unsafe_no_sandbox: bool = False,
                    ) -> list[Step]:
    """Start the bot and ask it for moves in a few positions, then learn and quit: each step, with
    whether the bot kept the protocol."""
    check_sandbox([spec], unsafe_no_sandbox)
    steps: list[Step] = []
    proc = BotProcess(spec, 0, memory_mb, sandbox=not unsafe_no_sandbox)
    t = time.perf_counter()
    try:
        ready = proc.start()
    except StartError as exc:
        steps.append(Step("start", False, str(exc), time.perf_counter() - t))
        return steps
    steps.append(Step("start", True, f"protocol {ready.protocol}, api {ready.api or '?'}", time.perf_counter() - t))
    try:
        for gid, (label, start) in enumerate(PROBES, 1):
            if start is None:
                start = list(Rules().draw_start(random.Random(gid)))
            proc.send(NewGame(game=gid, seat=0, seed=gid, start=tuple(start), first_id=0, second_id=1,
                              opponent="conformance", rules=rules_message(rules)))
            limits = [x for x in (rules.move_time, rules.clock) if x]
            time_left = min(limits) if limits else None
            board = Board(start)
            r = proc.call(TurnRequest(game=gid, seat=0, history=tuple(start), time_left=time_left, time_used=0.0,
                                      max_move=rules.cap, no_prime_first=rules.no_prime_first,
                                      gap_list_limit=rules.gap_list_limit), time_left)
            what = f"move in {label}"
            if r.failure:
                steps.append(Step(what, False, f"{r.failure}: {r.detail}", r.cpu))
                if not proc.alive:
                    return steps
                continue
            if not isinstance(r.msg, Move):
                steps.append(Step(what, False, describe_failure(r)[1], r.cpu))
                continue
            value = r.msg.move
            ending = judge_answer(value, board, rules, True)
            steps.append(Step(what, ending is None, f"answered {value!r}" + (
                f": {ending.reason} ({ending.detail})" if ending is not None else ""), r.cpu))
            full = start + ([value] if isinstance(value, int) else [])
            r = proc.call(GameOver(game=gid, seat=0, history=tuple(full), start=tuple(start), first_id=0, second_id=1,
                                   winner=1, reason="conformance"), rules.move_time or LEARN_TIME)
            ok = not r.failure and isinstance(r.msg, Ok)
            steps.append(Step(f"learn after {label}", ok, "ok" if ok else
                              f"{r.failure} {describe_failure(r)[1]}".strip(), r.cpu))
        t = time.perf_counter()
        proc.resume()
        proc.send(Quit())
        try:
            proc.proc.wait(timeout=5)  # type: ignore[union-attr]
            steps.append(Step("quit", True, "exited", time.perf_counter() - t))
        except Exception:  # noqa: BLE001
            steps.append(Step("quit", False, "did not exit within 5 s of a quit message", time.perf_counter() - t))
    finally:
        proc.close()
    return steps
