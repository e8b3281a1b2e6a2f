"""The arena's protocol: typed messages and their JSON lines, the referee's pipe channel, and the
referee's game loop against a test double of a bot (no process: python-chess's ``MockTransport``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import pytest

from sylver.arena.games import GameSpec
from sylver.arena.protocol import (
    PROTOCOL,
    BotChannel,
    Error,
    GameOver,
    Hello,
    Log,
    Message,
    Move,
    NewGame,
    Ok,
    OversizeInt,
    Ping,
    Pong,
    Quit,
    Ready,
    Reply,
    TurnRequest,
    Unknown,
    decode,
    encode,
)
from sylver.arena.referee import Seat, play_game
from sylver.arena.rules import make_rules
from sylver.arena.sandbox import PipeChannel
from sylver.bots.base import Bot, Turn
from sylver.bots.selfplay import play_game as play_in_process
from sylver.position import Position, Termination


class ScriptedBot:
    """A :class:`BotChannel` that answers each turn from a script and records every message sent.

    A script item is a value (answered as a :class:`Move`), a message, or a :class:`Reply` (a
    failure, as the process would report it); a :class:`GameOver` is answered :class:`Ok`."""

    sandboxed = False

    def __init__(self, *answers: object, cpu: float = 0.001) -> None:
        self.answers = list(answers)
        self.cpu = cpu
        self.sent: list[Message] = []
        self.alive = True
        self.pauses = 0

    def send(self, msg: Message) -> bool:
        self.sent.append(msg)
        return self.alive

    def call(self, msg: Message, time_left: float | None, *, wall: float | None = None, pause: bool = True,
             before_wait: Callable[[], None] | None = None, idle: Callable[[], None] | None = None) -> Reply:
        self.sent.append(msg)
        if before_wait is not None:
            before_wait()
        if idle is not None:
            idle()
        if isinstance(msg, GameOver):
            return Reply(msg=Ok(cpu=0.0))
        answer = self.answers.pop(0)
        if isinstance(answer, Reply):
            return answer
        reply = answer if isinstance(answer, Message) else Move(move=answer)
        return Reply(msg=reply, cpu=self.cpu, wall=self.cpu)

    def pause(self) -> None:
        self.pauses += 1

    def reap_strays(self) -> int:
        return 0

    def close(self) -> None:
        self.alive = False


def referee(rules_name: str, first: ScriptedBot, second: ScriptedBot, *, start: tuple[int, ...] = (4, 5),
            **overrides: object):
    """One game of the arena's referee between two scripted bots."""
    seats = [Seat(name="a", bot_id=0, process=first), Seat(name="b", bot_id=1, process=second)]
    spec = GameSpec(id=7, phase=0, round=0, seats=(0, 1), players=("a", "b"), seed=3, start=start)
    return play_game(spec, make_rules(rules_name, start=start, **overrides), seats)  # type: ignore[arg-type]


def test_the_double_is_a_channel() -> None:
    channel: BotChannel = ScriptedBot()
    assert channel.alive and not channel.sandboxed


class TestMessages:
    def test_each_message_writes_the_keys_of_version_1_and_reads_back(self) -> None:
        msgs: list[Message] = [
            Hello(id=0, name="mybot"), Ready(name="mybot", api="nextMove"),
            NewGame(game=7, seat=0, seed=123, start=(400009, 700001), first_id=0, second_id=1, opponent="random",
                    rules={"cap": None, "clock": None, "move_time": 20.0, "no_prime_first": False, "time_arg": "left"}),
            TurnRequest(game=7, seat=0, history=(400009, 700001, 123457), time_left=20.0),
            Move(move=2), Move(move=2.5, repr="2.5", cpu=0.01),
            GameOver(game=7, seat=0, history=(4, 5, 1), start=(4, 5), first_id=0, second_id=1, winner=1,
                     reason="named-one"),
            Ok(cpu=0.0), Error(message="ZeroDivisionError: division by zero", error="ZeroDivisionError"),
            Ping(), Pong(), Quit(), Log(message="thinking"),
        ]
        for msg in msgs:
            line = encode(msg)
            assert line.endswith(b"\n") and decode(line) == msg, msg
        # the docs' examples (docs/arena.md, the cmd: protocol)
        assert json.loads(encode(msgs[0])) == {"type": "hello", "protocol": 1, "id": 0, "name": "mybot"}
        assert json.loads(encode(msgs[3])) == {"type": "turn", "game": 7, "seat": 0, "history": [400009, 700001, 123457],
                                               "time_left": 20.0, "time_used": 0.0, "max_move": None,
                                               "no_prime_first": False, "gap_list_limit": 1000000}
        assert json.loads(encode(msgs[6]))["type"] == "result" and PROTOCOL == 1

    def test_what_a_bot_may_write(self) -> None:
        assert decode(b'{"type": "move", "move": 2, "extra": 1}') == Move(move=2)  # unknown fields ignored
        assert decode(b'{"type": "error"}') == Error()
        assert decode(b'{"type": "dance"}') == Unknown({"type": "dance"})
        assert decode(b'{"type": ["move"]}') == Unknown({"type": ["move"]})
        assert decode(b'{"type": "turn"}') == Unknown({"type": "turn"})  # a turn without its history
        assert decode(b"2") is None and decode(b"not json") is None
        long = decode(b'{"type": "move", "move": ' + b"9" * 5000 + b"}")
        assert isinstance(long, Move) and isinstance(long.move, OversizeInt) and long.move.digits == 5000
        big = decode(encode(Move(move=OversizeInt.of(12345, about=True))))
        assert isinstance(big, Move) and isinstance(big.move, OversizeInt) and big.move.digits == 12345


class TestPipeChannel:
    @pytest.fixture
    def pipes(self):
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        with os.fdopen(to_w, "wb") as to_bot, os.fdopen(from_r, "rb") as from_bot:
            yield PipeChannel(to_bot, from_bot), to_r, from_w
        os.close(to_r)
        os.close(from_w)

    def test_messages_both_ways(self, pipes) -> None:
        channel, to_r, from_w = pipes
        assert channel.write(Ping())
        assert decode(os.read(to_r, 1000)) == Ping()
        os.write(from_w, b'{"type": "log", "message": "hi"}\n\n{"type": "pong"}\n{"type": "mo')
        assert channel.receive()
        assert channel.next_message() == Reply(msg=Pong())  # the log line is skipped
        assert channel.next_message() is None  # half a line
        os.write(from_w, b've", "move": 3}\nhello there\n')
        assert channel.receive() and channel.next_message() == Reply(msg=Move(move=3))
        garbage = channel.next_message()
        assert garbage is not None and garbage.failure == "protocol" and "garbage on stdout" in garbage.detail

    def test_unsolicited_and_overlong_lines(self, pipes) -> None:
        channel, _, from_w = pipes
        os.write(from_w, b'{"type": "log", "message": 1}\n')
        assert channel.unsolicited() == ""
        os.write(from_w, b'{"type": "move", "move": 2}\n')
        assert channel.unsolicited() == '{"type": "move", "move": 2}'
        channel.buf = b"x" * (2 << 20)
        reply = channel.next_message()
        assert reply is not None and reply.failure == "protocol" and "longer than 1 MiB" in reply.detail


class TestRefereeWithoutProcesses:
    def test_a_game_and_every_message_of_it(self) -> None:
        a, b = ScriptedBot(11, 6, 2), ScriptedBot(7, 3, 1)  # {4,5}: 11 7 6 3 2, then b names 1
        game = referee("koth", a, b)
        assert (game.moves, game.winner_seat, game.reason, game.detail) == ((11, 7, 6, 3, 2, 1), 0,
                                                                         Termination.NAMED_ONE, "named 1")
        assert game.result.loser == 1 and game.result.ply == 5
        new, first, *_, over = a.sent
        assert new == NewGame(game=7, seat=0, seed=6, start=(4, 5), first_id=0, second_id=1, opponent="b",
                              rules=new.rules) and new.rules["move_time"] == 20.0
        assert isinstance(first, TurnRequest) and first.history == (4, 5) and first.time_left == 20.0
        assert [m.history for m in b.sent if isinstance(m, TurnRequest)] == [(4, 5, 11), (4, 5, 11, 7, 6),
                                                                             (4, 5, 11, 7, 6, 3, 2)]
        assert over == GameOver(game=7, seat=0, history=(4, 5, 11, 7, 6, 3, 2, 1), start=(4, 5), first_id=0,
                                second_id=1, winner=0, reason="named-one")
        assert a.pauses >= 3 and b.pauses >= 3  # each paused while the other thinks, and at the end

    def test_illegal_and_above_the_cap_is_illegal_in_the_arena_and_in_selfplay(self) -> None:
        """The one precedence (sylver.judge): 13 in {4,5} under a cap of 10 loses as ``illegal``
        in the arena's game loop and in the in-process referee."""
        game = referee("classic", ScriptedBot(13), ScriptedBot(), cap=10)
        assert (game.reason, game.detail, game.witness) == (Termination.ILLEGAL_MOVE, "illegal move 13 = 4·2 + 5·1",
                                                            {"4": 2, "5": 1})

        class Names13(Bot):
            def choose(self, turn: Turn) -> int:
                return 13

        played = play_in_process((Names13(), Names13()), Position([4, 5]), max_move=10)
        assert (played.reason, played.winner) == (game.reason, game.winner_seat) == (Termination.ILLEGAL_MOVE, 1)
        over = referee("classic", ScriptedBot(12), ScriptedBot(), cap=10, start=(7, 9))
        assert over.reason is Termination.ABOVE_CAP and over.detail == "12 is above the cap 10"

    def test_failures_of_a_bot(self) -> None:
        crash = referee("koth", ScriptedBot(Error(message="KeyError: 3", where="move")), ScriptedBot())
        assert (crash.reason, crash.detail, crash.moves) == (Termination.CRASH, "exception in move: KeyError: 3", ())
        oom = referee("koth", ScriptedBot(11), ScriptedBot(Error(message="MemoryError", error="MemoryError")))
        assert (oom.reason, oom.winner_seat, oom.detail) == (Termination.CRASH, 0, "out of memory in move: MemoryError")
        odd = referee("koth", ScriptedBot(Pong()), ScriptedBot())
        assert odd.reason is Termination.PROTOCOL and odd.detail == "expected a move, got {'type': 'pong'}"
        late = referee("koth", ScriptedBot(Reply(msg=None, failure="timeout", detail="used 21 s")), ScriptedBot())
        assert (late.reason, late.detail) == (Termination.TIMEOUT, "used 21 s")
        huge = referee("koth", ScriptedBot(OversizeInt.of(5001, about=True)), ScriptedBot())
        assert huge.reason is Termination.INVALID_MOVE and "about 5,001 digits" in huge.detail

    def test_strikes_and_the_chess_clock(self) -> None:
        game = referee("koth", ScriptedBot(8, 13, 3, 1), ScriptedBot(2), penalties=3)  # 8 and 13 forgiven
        assert [(s.seat, s.answer, s.reason) for s in game.strikes] == [(0, 8, Termination.ILLEGAL_MOVE),
                                                                      (0, 13, Termination.ILLEGAL_MOVE)]
        assert (game.moves, game.reason, game.winner_seat) == ((3, 2, 1), Termination.NAMED_ONE, 1)
        slow = referee("classic", ScriptedBot(11, 3, cpu=0.6), ScriptedBot(7, 6), clock=1.0)
        assert (slow.reason, slow.winner_seat, slow.moves) == (Termination.TIMEOUT, 1, (11, 7))
        assert slow.detail == "chess clock exhausted (1 s)" and slow.cpu[0] == pytest.approx(1.2)
