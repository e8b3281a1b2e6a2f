"""The referee: plays one game between two sandboxed bots under a set of :class:`Rules`.

Every way a bot can fail is a loss with a reason code (``games.jsonl`` field ``reason``):

============== ==================================================================
``named-one``  named 1 (the normal end of a game)
``illegal``    named a sum with multiples of the named numbers (``detail``: witness)
``prime-first`` named a prime as the first move under ``--no-prime-first`` (first KotH rules)
``above-cap``  named a number above ``--cap`` (``nextMove`` rules)
``invalid``    answered something that is not a positive integer (float, str, None, 0, -5, …), or
               one with more than ``MAX_ANSWER_DIGITS`` digits
``too-large``  named a legal number after which no referee could judge the game (see
               :meth:`Board.unjudgeable`: three or more minimal generators, all huge)
``timeout``    exceeded its time (CPU time, or the wall-clock guard)
``crash``      raised, exited, was killed, or ran out of memory (``detail`` says which)
``protocol``   wrote something that is not a protocol message on stdout (``cmd:`` bots)
============== ==================================================================

With ``penalties = k > 1`` an illegal answer (illegal, prime-first, above-cap, invalid) only loses
at the k-th; the earlier ones are listed in ``strikes`` and the bot is asked again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from sylver.arena.board import Board
from sylver.arena.rules import MAX_ANSWER_DIGITS, Rules
from sylver.arena.sandbox import BotProcess, OversizeInt
from sylver.theory import is_prime

ILLEGAL_REASONS = ("illegal", "prime-first", "above-cap", "invalid", "too-large")
_TOO_LONG = 10**MAX_ANSWER_DIGITS
CRASH_REASONS = ("crash", "protocol")
LEARN_TIME = 20.0
"""Seconds ``learn`` may take when the rules set no per-call limit (King-of-the-Hill: 20 s)."""


@dataclass
class Seat:
    """A bot in one game."""

    name: str
    bot_id: int
    process: BotProcess | None
    start_error: str = ""
    """Set when the bot could not even be started for this game (it forfeits)."""


def _describe_failure(kind: str, reply_msg: dict | None, detail: str) -> tuple[str, str]:
    """Reason code and detail for a reply that is not a move."""
    if kind:
        return kind, detail
    assert reply_msg is not None
    if reply_msg.get("type") == "error":
        where = reply_msg.get("where", "move")
        message = str(reply_msg.get("message", "error"))
        if reply_msg.get("error") == "MemoryError":
            return "crash", f"out of memory in {where}: {message}"
        return "crash", f"exception in {where}: {message}"
    return "protocol", f"expected a move, got {str(reply_msg)[:100]}"


def classify_answer(value: object, board: Board, rules: Rules, first_move: bool) -> tuple[str, str]:
    """``("", "")`` for a good move, else the reason code and detail."""
    if isinstance(value, OversizeInt) or isinstance(value, int) and not isinstance(value, bool) \
            and abs(value) >= _TOO_LONG:
        digits = value.digits if isinstance(value, OversizeInt) else len(str(abs(value)))
        return "invalid", (f"answered an integer with {'about ' if isinstance(value, OversizeInt) else ''}"
                           f"{digits:,} digits; answers have at most {MAX_ANSWER_DIGITS} digits")
    if isinstance(value, bool) or not isinstance(value, int):
        return "invalid", f"answered {value!r}, not an integer"
    if value < 1:
        return "invalid", f"answered {value}, not a positive integer"
    if value == 1:
        return "named-one", "named 1"
    if rules.cap is not None and value > rules.cap:
        return "above-cap", f"{value} is above the cap {rules.cap}"
    if first_move and rules.no_prime_first and is_prime(value):
        return "prime-first", f"{value} is a prime and the first move may not be one"
    if not board.is_legal(value):
        return "illegal", f"illegal move {board.witness_text(value)}"
    why = board.unjudgeable(value)
    if why:
        return "too-large", why
    return "", ""


def play_game(game: dict, rules: Rules, seats: list[Seat], on_turn: Callable[[int], None] | None = None) -> dict:
    """Play one game; ``seats[0]`` moves first.  Returns the record written to games.jsonl.

    ``on_turn(s)`` is called before each call to the bot in seat s and ``on_turn(-1)`` after it
    (the worker's journal: who was on move if the worker dies)."""
    t_start = time.perf_counter()
    ref_t0 = time.thread_time()
    update_cpu = [0.0]
    start = [int(x) for x in game["start"]]
    board = Board(start)
    history: list[int] = list(start)
    moves: list[object] = []
    times: list[float] = []
    walls: list[float] = []
    strikes: list[dict] = []
    clocks = [rules.clock, rules.clock]
    used = [0.0, 0.0]
    first_id, second_id = seats[0].bot_id, seats[1].bot_id
    for s, seat in enumerate(seats):
        if seat.process is not None and not seat.start_error:
            seat.process.send({
                "type": "game", "game": game["id"], "seat": s, "seed": game["seed"] * 2 + s,
                "start": start, "first_id": first_id, "second_id": second_id,
                "opponent": seats[1 - s].name,
                "rules": {"cap": rules.cap, "clock": rules.clock, "move_time": rules.move_time,
                          "no_prime_first": rules.no_prime_first, "time_arg": rules.time_arg},
            })
    loser = -1
    reason = detail = ""
    last_value: object = None
    pending: int | None = None
    ply = 0
    penalties = [0, 0]
    while loser < 0:
        s = ply % 2
        seat = seats[s]
        if seat.start_error or seat.process is None:
            loser, reason, detail = s, "crash", seat.start_error or "not running"
            break
        limits = [x for x in (rules.move_time, clocks[s]) if x is not None]
        time_left = max(0.0, min(limits)) if limits else None
        msg = {"type": "turn", "game": game["id"], "seat": s, "history": history, "time_left": time_left,
               "time_used": used[s], "max_move": rules.cap, "no_prime_first": rules.no_prime_first and not moves,
               "gap_list_limit": rules.gap_list_limit}
        todo = pending
        pending = None

        def overlap(todo: int | None = todo) -> None:
            if todo is not None:
                u = time.thread_time()
                board.add(todo)
                update_cpu[0] += time.thread_time() - u

        other = seats[1 - s].process
        if on_turn is not None:
            on_turn(s)
        reply = seat.process.call(msg, time_left, before_wait=overlap, pause=False,
                                  idle=other if other is not None and other.alive else None)
        if on_turn is not None:
            on_turn(-1)
        used[s] += reply.cpu
        if clocks[s] is not None:
            clocks[s] -= reply.cpu  # type: ignore[operator]
        if reply.failure or reply.msg is None or reply.msg.get("type") != "move":
            loser = s
            reason, detail = _describe_failure(reply.failure, reply.msg, reply.detail)
            break
        value = reply.msg.get("move")
        if clocks[s] is not None and clocks[s] < 0:  # type: ignore[operator]
            loser, reason, detail = s, "timeout", f"chess clock exhausted ({rules.clock:g} s)"
            last_value = value
            break
        reason, detail = classify_answer(value, board, rules, not moves)
        if reason in ILLEGAL_REASONS and penalties[s] + 1 < rules.penalties:
            penalties[s] += 1
            strikes.append({"seat": s, "ply": len(moves), "answer": value, "reason": reason, "detail": detail})
            reason = detail = ""
            continue
        times.append(round(reply.cpu, 6))
        walls.append(round(reply.wall, 6))
        moves.append(value)
        if reason:
            loser, last_value = s, value
            break
        history.append(value)  # type: ignore[arg-type]
        pending = value  # type: ignore[assignment]
        ply += 1
    referee_cpu = time.thread_time() - ref_t0 - update_cpu[0]
    for seat in seats:
        if seat.process is not None:
            seat.process.pause()
            seat.process.reap_strays()  # nothing a bot started outlives the game
    winner = 1 - loser
    full: list[object] = list(history)
    if moves and len(moves) + len(start) > len(history):
        full.append(last_value if isinstance(last_value, int | float | str) or last_value is None else repr(last_value))
    learn_errors = []
    for s, seat in enumerate(seats):
        proc = seat.process
        if proc is None or seat.start_error or not proc.alive:
            continue
        if on_turn is not None:
            on_turn(s)
        r = proc.call({"type": "result", "game": game["id"], "seat": s, "history": full, "start": start,
                       "first_id": first_id, "second_id": second_id, "winner": winner, "reason": reason},
                      rules.move_time or LEARN_TIME)
        if on_turn is not None:
            on_turn(-1)
        if r.failure or r.msg is None or r.msg.get("type") != "ok":
            code, text = _describe_failure(r.failure, r.msg, r.detail)
            learn_errors.append({"seat": s, "bot": seat.name, "reason": code, "detail": f"in learn: {text}"})
    names = [seats[0].name, seats[1].name]
    witness = None
    if reason == "illegal":
        w = board.witness(int(last_value))  # type: ignore[call-overload]
        witness = {str(k): v for k, v in (w or {}).items()}
    return {
        "game": game["id"], "phase": game.get("phase", 0), "round": game.get("round", 0),
        "seed": game["seed"], "players": names, "first": names[0],
        "start": start, "moves": moves, "times": times, "walls": walls,
        "winner": names[winner], "loser": names[loser], "winner_seat": winner,
        "reason": reason, "detail": detail, "witness": witness, "strikes": strikes, "learn_errors": learn_errors,
        "cpu": [round(used[0], 4), round(used[1], 4)], "wall": round(time.perf_counter() - t_start, 4),
        "referee_cpu": round(referee_cpu, 6), "update_cpu": round(update_cpu[0], 6),
    }
