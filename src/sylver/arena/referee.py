"""The referee: plays one game between two sandboxed bots under a set of :class:`Rules`.

Every way a bot can fail is a loss with a reason, a :class:`sylver.position.Termination` whose value
is the code in ``games.jsonl`` (field ``reason``); an answer is judged by :func:`sylver.judge.judge`
(its order of precedence: invalid, named-one, illegal, prime-first, above-cap), then too-large:

============== ==================================================================
``named-one``  named 1 (the normal end of a game)
``illegal``    named a sum with multiples of the named numbers (``detail``: witness)
``prime-first`` named a prime as the first move under ``--no-prime-first`` (first KotH rules)
``above-cap``  named a number above ``--cap`` (``nextMove`` rules)
``invalid``    answered something that is not a positive integer (float, str, None, 0, -5, …), or
               one with more than ``sylver.judge.MAX_ANSWER_DIGITS`` digits
``too-large``  named a legal number after which no referee could judge the game (see
               :meth:`Board.unjudgeable`: three or more minimal generators, all huge)
``timeout``    exceeded its time (CPU time, or the wall-clock guard)
``crash``      raised, exited, was killed, or ran out of memory (``detail`` says which)
``protocol``   wrote something that is not a protocol message on stdout (``cmd:`` bots)
============== ==================================================================

With ``penalties = k > 1`` an illegal answer (illegal, prime-first, above-cap, invalid, too-large:
``Termination.is_bad_answer``) only loses at the k-th; the earlier ones are listed in ``strikes``
and the bot is asked again.

:func:`play_game` is a short loop over the seats: :meth:`_Game.ask` sends a seat the typed messages
of :mod:`sylver.arena.protocol` through its :class:`~sylver.arena.protocol.BotChannel` and returns
its judged :class:`Answer`, :class:`Clocks` keeps each seat's time and chess clock, :class:`Strikes` the
forgiven answers; the result is a :class:`sylver.arena.games.PlayedGame`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from sylver.arena.board import Board
from sylver.arena.games import GameSpec, LearnError, PlayedGame, Strike
from sylver.arena.protocol import (
    BotChannel,
    Error,
    GameOver,
    Message,
    Move,
    NewGame,
    Ok,
    OversizeInt,
    Reply,
    TurnRequest,
)
from sylver.arena.rules import Rules
from sylver.judge import Ending, judge, too_long
from sylver.position import Termination

LEARN_TIME = 20.0
"""Seconds ``learn`` may take when the rules set no per-call limit (King-of-the-Hill: 20 s)."""


@dataclass
class Seat:
    """A bot in one game."""

    name: str
    bot_id: int
    process: BotChannel | None
    """The bot's process (:class:`sylver.arena.sandbox.BotProcess`), None when it could not start."""
    start_error: str = ""
    """Set when the bot could not even be started for this game (it forfeits)."""
    move_time: float | None = field(default=None, kw_only=True)
    """Seconds it may spend on one call, instead of the rules' ``move_time`` (None: the rules')."""

    @property
    def playing(self) -> bool:
        return self.process is not None and not self.start_error


@dataclass(frozen=True, kw_only=True)
class Answer:
    """What a seat answered on its turn: a move (``reason`` None), or why it loses (``reason``)."""

    value: object = None
    reason: Termination | None = None
    detail: str = ""
    counted: bool = True
    """False when no answer came that counts as one (a failure, a chess clock run out)."""
    cpu: float = 0.0
    wall: float = 0.0


def describe_failure(reply: Reply) -> tuple[Termination, str]:
    """Reason and detail for a reply that is not the awaited message."""
    if reply.failure:
        return Termination(reply.failure), reply.detail
    msg = reply.msg
    if isinstance(msg, Error):
        if msg.error == "MemoryError":
            return Termination.CRASH, f"out of memory in {msg.where}: {msg.message}"
        return Termination.CRASH, f"exception in {msg.where}: {msg.message}"
    return Termination.PROTOCOL, f"expected a move, got {str(msg.to_json() if msg else None)[:100]}"


def judge_answer(value: object, board: Board, rules: Rules, first_move: bool) -> Ending | None:
    """How the answer ``value`` ends the game (None: it is a move): the judge
    (:func:`sylver.judge.judge`, its order of precedence), and what only this referee adds: an
    answer too long to carry (``invalid``), a move after which no referee could judge the game
    (``too-large``).  The details are those of ``games.jsonl`` since its first version."""
    if isinstance(value, OversizeInt):
        return too_long(value.digits, about=True)
    ending = judge(value, board, rules.move_rules, first_move=first_move)
    if ending is None:
        why = board.unjudgeable(int(value))  # type: ignore[call-overload]
        return Ending(Termination.TOO_LARGE, why) if why else None
    if ending.reason is Termination.NAMED_ONE:
        return Ending(ending.reason, "named 1")
    if ending.reason is Termination.ILLEGAL_MOVE:
        return Ending(ending.reason, f"{ending.reason.phrase} {ending.detail}")
    return ending


def rules_message(rules: Rules) -> dict:
    """The rules as the bots are told them at the start of a game; ``cpu_time``: the clock and the
    per-call limit are charged in CPU seconds of the bot's processes (:meth:`Clocks.charge`)."""
    return {"cap": rules.cap, "clock": rules.clock, "move_time": rules.move_time,
            "no_prime_first": rules.no_prime_first, "time_arg": rules.time_arg, "cpu_time": True}


class Clocks:
    """Each seat's time: what it used in the game, and what is left on its chess clock (if any)."""

    def __init__(self, rules: Rules, move_times: tuple[float | None, float | None] = (None, None)) -> None:
        self.rules = rules
        self.move_times = tuple(rules.move_time if t is None else t for t in move_times)
        """Each seat's per-call limit: its own (a time-odds match), else the rules'."""
        self.left: list[float | None] = [rules.clock, rules.clock]
        self.used = [0.0, 0.0]

    def time_left(self, seat: int) -> float | None:
        """Seconds the seat may use in its next call (None: no limit)."""
        limits = [x for x in (self.move_times[seat], self.left[seat]) if x is not None]
        return max(0.0, min(limits)) if limits else None

    def charge(self, seat: int, cpu: float) -> bool:
        """Count ``cpu`` seconds against the seat; False when that exhausted its chess clock."""
        self.used[seat] += cpu
        left = self.left[seat]
        if left is None:
            return True
        self.left[seat] = left - cpu
        return left - cpu >= 0


class Strikes:
    """Illegal answers forgiven under rules with several penalties (the k-th loses)."""

    def __init__(self, penalties: int) -> None:
        self.penalties = penalties
        self.count = [0, 0]
        self.log: list[Strike] = []

    def forgive(self, seat: int, ply: int, answer: Answer) -> bool:
        """Record the bad answer as a strike and return True, unless it is the one that loses."""
        if answer.reason is None or not answer.reason.is_bad_answer or self.count[seat] + 1 >= self.penalties:
            return False
        self.count[seat] += 1
        self.log.append(Strike(seat=seat, ply=ply, answer=answer.value, reason=answer.reason, detail=answer.detail))
        return True


@dataclass
class _Game:
    """The state of a game in progress (the referee's own)."""

    spec: GameSpec
    rules: Rules
    seats: list[Seat]
    on_turn: Callable[[int], None] | None
    board: Board = field(init=False)
    history: list[int] = field(init=False)
    moves: list[object] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    walls: list[float] = field(default_factory=list)
    pending: int | None = None
    update_cpu: float = 0.0

    def __post_init__(self) -> None:
        self.board = Board(list(self.spec.start))
        self.history = list(self.spec.start)

    def _call(self, s: int, msg: Message, time_left: float | None, *, pause: bool = True,
              idle: Callable[[], None] | None = None) -> Reply:
        if self.on_turn is not None:
            self.on_turn(s)
        proc = self.seats[s].process
        assert proc is not None
        reply = proc.call(msg, time_left, pause=pause, idle=idle,
                          before_wait=self._update_board if isinstance(msg, TurnRequest) else None)
        if self.on_turn is not None:
            self.on_turn(-1)
        return reply

    def _update_board(self) -> None:
        """Name the last move on the board (runs while the bot on move thinks)."""
        if self.pending is not None:
            u = time.thread_time()
            self.board.add(self.pending)
            self.update_cpu += time.thread_time() - u
            self.pending = None

    def ask(self, s: int, clocks: Clocks) -> Answer:
        """The answer of seat ``s`` on its turn, classified."""
        seat = self.seats[s]
        if not seat.playing:
            return Answer(reason=Termination.CRASH, detail=seat.start_error or "not running", counted=False)
        time_left = clocks.time_left(s)
        msg = TurnRequest(game=self.spec.id, seat=s, history=tuple(self.history), time_left=time_left,
                          time_used=clocks.used[s], max_move=self.rules.cap,
                          no_prime_first=self.rules.no_prime_first and not self.moves,
                          gap_list_limit=self.rules.gap_list_limit)
        other = self.seats[1 - s].process
        reply = self._call(s, msg, time_left, pause=False,
                           idle=other.pause if other is not None and other.alive else None)
        in_time = clocks.charge(s, reply.cpu)
        if reply.failure or not isinstance(reply.msg, Move):
            failure, why = describe_failure(reply)
            return Answer(reason=failure, detail=why, counted=False, cpu=reply.cpu, wall=reply.wall)
        value = reply.msg.move
        if not in_time:
            return Answer(value=value, reason=Termination.TIMEOUT, counted=False, cpu=reply.cpu, wall=reply.wall,
                          detail=f"chess clock exhausted ({self.rules.clock:g} s)")
        ending = judge_answer(value, self.board, self.rules, not self.moves)
        if ending is None:
            return Answer(value=value, cpu=reply.cpu, wall=reply.wall)
        return Answer(value=value, reason=ending.reason, detail=ending.detail, cpu=reply.cpu, wall=reply.wall)

    def record(self, s: int, answer: Answer) -> None:
        """Keep a counted answer (a move, or the one that loses the game)."""
        self.times.append(round(answer.cpu, 6))
        self.walls.append(round(answer.wall, 6))
        self.moves.append(answer.value)
        if answer.reason is None:
            self.history.append(answer.value)  # type: ignore[arg-type]
            self.pending = answer.value  # type: ignore[assignment]

    def tell_result(self, winner: int, reason: Termination, last: Answer | None) -> list[LearnError]:
        """Tell each bot still running how the game ended; the errors of those that fail."""
        full: list[object] = list(self.history)
        if last is not None:
            v = last.value
            full.append(v if isinstance(v, int | float | str) or v is None else repr(v))
        errors = []
        for s, seat in enumerate(self.seats):
            proc = seat.process
            if proc is None or seat.start_error or not proc.alive:
                continue
            r = self._call(s, GameOver(game=self.spec.id, seat=s, history=tuple(full), start=self.spec.start,
                                       first_id=self.seats[0].bot_id, second_id=self.seats[1].bot_id,
                                       winner=winner, reason=reason.value),
                           self.rules.move_time or LEARN_TIME)
            if r.failure or not isinstance(r.msg, Ok):
                code, text = describe_failure(r)
                errors.append(LearnError(seat=s, bot=seat.name, reason=code, detail=f"in learn: {text}"))
        return errors

    def announce(self) -> None:
        """Tell each bot that a game starts."""
        for s, seat in enumerate(self.seats):
            if seat.process is not None and seat.playing:
                seat.process.send(NewGame(game=self.spec.id, seat=s, seed=self.spec.seed * 2 + s, start=self.spec.start,
                                          first_id=self.seats[0].bot_id, second_id=self.seats[1].bot_id,
                                          opponent=self.seats[1 - s].name, rules=rules_message(self.rules)))


def play_game(spec: GameSpec, rules: Rules, seats: list[Seat],
              on_turn: Callable[[int], None] | None = None) -> PlayedGame:
    """Play one game; ``seats[0]`` moves first.  Returns its record (a line of games.jsonl).

    ``on_turn(s)`` is called before each call to the bot in seat s and ``on_turn(-1)`` after it
    (the worker's journal: who was on move if the worker dies)."""
    t_start = time.perf_counter()
    ref_t0 = time.thread_time()
    game = _Game(spec, rules, seats, on_turn)
    clocks, strikes = Clocks(rules, (seats[0].move_time, seats[1].move_time)), Strikes(rules.penalties)
    game.announce()
    ply = 0
    while True:
        s = ply % 2
        answer = game.ask(s, clocks)
        if not answer.counted:
            break
        if strikes.forgive(s, len(game.moves), answer):
            continue
        game.record(s, answer)
        if answer.reason is not None:
            break
        ply += 1
    referee_cpu = time.thread_time() - ref_t0 - game.update_cpu
    for seat in seats:
        if seat.process is not None:
            seat.process.pause()
            seat.process.reap_strays()  # nothing a bot started outlives the game
    assert answer.reason is not None
    winner = 1 - s
    learn_errors = game.tell_result(winner, answer.reason, answer if answer.counted else None)
    witness = None
    if answer.reason is Termination.ILLEGAL_MOVE:
        w = game.board.witness(int(answer.value))  # type: ignore[call-overload]
        witness = {str(k): v for k, v in (w or {}).items()}
    return PlayedGame(
        game=spec.id, phase=spec.phase, round=spec.round, seed=spec.seed, players=(seats[0].name, seats[1].name),
        start=spec.start, moves=tuple(game.moves), times=tuple(game.times), walls=tuple(game.walls),
        winner_seat=winner, reason=answer.reason, detail=answer.detail, witness=witness,
        strikes=tuple(strikes.log), learn_errors=tuple(learn_errors),
        cpu=(round(clocks.used[0], 4), round(clocks.used[1], 4)), wall=round(time.perf_counter() - t_start, 4),
        referee_cpu=round(referee_cpu, 6), update_cpu=round(game.update_cpu, 6),
    )
