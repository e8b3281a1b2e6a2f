"""The ``cmd:`` protocol, version 1: the typed messages between the referee and a bot process
(docs/arena.md, "The ``cmd:`` protocol"), their JSON lines, and what a referee needs of a bot.

Standard library only: the bot host (:mod:`sylver.arena.host`) imports it before anything else.

Referee to bot: :class:`Hello`, :class:`NewGame` (no answer), :class:`TurnRequest`,
:class:`GameOver`, :class:`Ping`, :class:`Quit` (no answer).  Bot to referee: :class:`Ready`,
:class:`Move`, :class:`Ok`, :class:`Error`, :class:`Pong`, :class:`Log` (ignored at any time).  A
line is a JSON object whose ``type`` names the message; unknown fields are ignored, a message of an
unknown type reads as :class:`Unknown`.  Each class's ``to_json`` writes the very keys of version 1.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

PROTOCOL = 1
MAX_ANSWER_TEXT = 4000
"""Digits of the longest integer carried on the protocol (a longer one arrives as :class:`OversizeInt`)."""


class OversizeInt(str):
    """An integer answer too long to carry (its description; ``digits`` is its length)."""

    digits: int

    @classmethod
    def of(cls, digits: int, about: bool = False) -> OversizeInt:
        self = cls(f"<an integer with {'about ' if about else ''}{digits:,} digits>")
        self.digits = digits
        return self


def _cpu(d: dict[str, Any]) -> float | None:
    c = d.get("cpu")
    return float(c) if isinstance(c, int | float) and not isinstance(c, bool) else None


# -- referee to bot --------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Hello:
    """The first message: the bot's id (its position on the command line) and display name."""

    type: ClassVar[str] = "hello"
    id: int
    name: str
    protocol: int = PROTOCOL

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "protocol": self.protocol, "id": self.id, "name": self.name}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Hello:
        return cls(id=int(d.get("id", 0)), name=str(d.get("name", "")), protocol=int(d.get("protocol", PROTOCOL)))


@dataclass(frozen=True, kw_only=True)
class NewGame:
    """A game starts (no answer): the seat (0 moves first), the seed of the bot's random generator,
    the start, both bots' ids, the opponent's name and the rules."""

    type: ClassVar[str] = "game"
    game: int
    seat: int
    seed: int
    start: tuple[int, ...]
    first_id: int
    second_id: int
    opponent: str
    rules: dict[str, Any] = field(default_factory=dict)
    """``cap``, ``clock``, ``move_time``, ``no_prime_first``, ``time_arg``."""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "game": self.game, "seat": self.seat, "seed": self.seed, "start": list(self.start),
                "first_id": self.first_id, "second_id": self.second_id, "opponent": self.opponent,
                "rules": dict(self.rules)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NewGame:
        return cls(game=d.get("game", 0), seat=d.get("seat", 0), seed=int(d.get("seed", 0)),
                   start=tuple(d.get("start") or ()), first_id=d.get("first_id", 0), second_id=d.get("second_id", 1),
                   opponent=str(d.get("opponent", "")), rules=dict(d.get("rules") or {}))


@dataclass(frozen=True, kw_only=True)
class TurnRequest:
    """The bot is on move: every number named so far (the start first), its time, the rules' limits."""

    type: ClassVar[str] = "turn"
    game: int
    seat: int
    history: tuple[int, ...]
    time_left: float | None
    """Seconds the bot may use in this call (None: no limit)."""
    time_used: float = 0.0
    """Seconds the bot has used in this game so far."""
    max_move: int | None = None
    no_prime_first: bool = False
    """True when this is the game's first move and its rules forbid a prime."""
    gap_list_limit: int = 1_000_000

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "game": self.game, "seat": self.seat, "history": list(self.history),
                "time_left": self.time_left, "time_used": self.time_used, "max_move": self.max_move,
                "no_prime_first": self.no_prime_first, "gap_list_limit": self.gap_list_limit}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TurnRequest:
        return cls(game=d.get("game", 0), seat=d.get("seat", 0), history=tuple(d["history"]),
                   time_left=d.get("time_left"), time_used=float(d.get("time_used") or 0.0),
                   max_move=d.get("max_move"), no_prime_first=bool(d.get("no_prime_first")),
                   gap_list_limit=int(d.get("gap_list_limit", 1_000_000)))


@dataclass(frozen=True, kw_only=True)
class GameOver:
    """The game is over (``type`` ``result``): the whole list of answers (the losing one last), the
    winner's seat and the reason (a :class:`sylver.position.Termination` value)."""

    type: ClassVar[str] = "result"
    game: int
    seat: int
    history: tuple[object, ...]
    start: tuple[int, ...]
    first_id: int
    second_id: int
    winner: int
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "game": self.game, "seat": self.seat, "history": list(self.history),
                "start": list(self.start), "first_id": self.first_id, "second_id": self.second_id,
                "winner": self.winner, "reason": self.reason}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameOver:
        return cls(game=d.get("game", 0), seat=d.get("seat", 0), history=tuple(d["history"]),
                   start=tuple(d.get("start") or ()), first_id=d.get("first_id", 0),
                   second_id=d.get("second_id", 1), winner=d.get("winner", 0), reason=str(d.get("reason", "")))


@dataclass(frozen=True)
class Ping:
    type: ClassVar[str] = "ping"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(frozen=True)
class Quit:
    """The bot exits (no answer)."""

    type: ClassVar[str] = "quit"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


# -- bot to referee ----------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class Ready:
    """The answer to :class:`Hello`: the bot has loaded; ``api`` is the interface the host found."""

    type: ClassVar[str] = "ready"
    name: str = ""
    api: str = ""
    protocol: int = PROTOCOL

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "protocol": self.protocol, "name": self.name, "api": self.api}


@dataclass(frozen=True, kw_only=True)
class Move:
    """The answer to :class:`TurnRequest`: anything JSON carries (the referee judges it), an
    :class:`OversizeInt` for an integer too long to carry."""

    type: ClassVar[str] = "move"
    move: object
    repr: str = ""
    """The answer's ``repr`` when it is not an integer."""
    cpu: float | None = None
    """The CPU seconds the host measured for the call (the referee prefers it when it agrees)."""

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        if isinstance(self.move, OversizeInt):
            d.update(move=None, oversize_digits=self.move.digits)
        else:
            d["move"] = self.move
        if self.repr:
            d["repr"] = self.repr
        return _with_cpu(d, self.cpu)


@dataclass(frozen=True, kw_only=True)
class Ok:
    """The answer to :class:`GameOver`."""

    type: ClassVar[str] = "ok"
    cpu: float | None = None

    def to_json(self) -> dict[str, Any]:
        return _with_cpu({"type": self.type}, self.cpu)


@dataclass(frozen=True, kw_only=True)
class Error:
    """The bot failed: ``where`` (``load``, ``__init__``, ``move``, ``learn``, ``protocol``), the
    exception's class name and a one-line message."""

    type: ClassVar[str] = "error"
    message: str = "error"
    where: str = "move"
    error: str = ""
    cpu: float | None = None

    def to_json(self) -> dict[str, Any]:
        return _with_cpu({"type": self.type, "where": self.where, "error": self.error, "message": self.message},
                         self.cpu)


@dataclass(frozen=True)
class Pong:
    type: ClassVar[str] = "pong"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type}


@dataclass(frozen=True, kw_only=True)
class Log:
    """A line for the bot's log, allowed at any time (the referee skips it)."""

    type: ClassVar[str] = "log"
    message: object = ""

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message}


@dataclass(frozen=True)
class Unknown:
    """A JSON object that is no message of this version (kept as it came)."""

    raw: dict[str, Any]
    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        return dict(self.raw)


def _with_cpu(d: dict[str, Any], cpu: float | None) -> dict[str, Any]:
    if cpu is not None:
        d["cpu"] = cpu
    return d


Message = Hello | NewGame | TurnRequest | GameOver | Ping | Quit | Ready | Move | Ok | Error | Pong | Log | Unknown

_READERS: dict[str, Callable[[dict[str, Any]], Message]] = {
    "hello": Hello.from_json,
    "game": NewGame.from_json,
    "turn": TurnRequest.from_json,
    "result": GameOver.from_json,
    "ping": lambda d: Ping(),
    "quit": lambda d: Quit(),
    "ready": lambda d: Ready(name=str(d.get("name", "")), api=str(d.get("api", "")),
                             protocol=d.get("protocol", PROTOCOL)),
    "move": lambda d: Move(move=d.get("move"), repr=str(d.get("repr", "")), cpu=_cpu(d)),
    "ok": lambda d: Ok(cpu=_cpu(d)),
    "error": lambda d: Error(message=str(d.get("message", "error")), where=str(d.get("where", "move")),
                             error=str(d.get("error", "")), cpu=_cpu(d)),
    "pong": lambda d: Pong(),
    "log": lambda d: Log(message=d.get("message", "")),
}


def _parse_int(text: str) -> int | OversizeInt:
    return int(text) if len(text) <= MAX_ANSWER_TEXT + 1 else OversizeInt.of(len(text.lstrip("-")))


def message(d: dict[str, Any]) -> Message:
    """The message a decoded JSON object is (:class:`Unknown` if none; a malformed known message too)."""
    if isinstance(d.get("oversize_digits"), int) and d.get("type") == "move":
        d = {**d, "move": OversizeInt.of(d["oversize_digits"], about=True)}
    kind = d.get("type")
    read = _READERS.get(kind) if isinstance(kind, str) else None
    if read is None:
        return Unknown(d)
    try:
        return read(d)
    except (KeyError, TypeError, ValueError):
        return Unknown(d)


def decode(line: bytes | str) -> Message | None:
    """The message of one line, or None when the line is not a JSON object.  Integers longer than
    :data:`MAX_ANSWER_TEXT` digits are not converted (:class:`OversizeInt`)."""
    try:
        obj = json.loads(line, parse_int=_parse_int)
    except ValueError:
        return None
    return message(obj) if isinstance(obj, dict) else None


def encode(msg: Message) -> bytes:
    """One line of JSON."""
    return (json.dumps(msg.to_json()) + "\n").encode()


# -- what a referee needs of a bot -------------------------------------------------------------------
@dataclass(kw_only=True)
class Reply:
    """The outcome of one call: a message, or why there is none."""

    msg: Message | None
    cpu: float = 0.0
    wall: float = 0.0
    failure: str = ""
    """"" (a message came), ``timeout``, ``crash``, ``protocol``."""
    detail: str = ""


class BotChannel(Protocol):
    """A bot as the referee talks to it: :class:`sylver.arena.sandbox.BotProcess`, or a test double."""

    @property
    def alive(self) -> bool: ...

    @property
    def sandboxed(self) -> bool: ...

    def send(self, msg: Message) -> bool:
        """Send a message that needs no answer; False if the bot is gone."""

    def call(self, msg: Message, time_left: float | None, *, wall: float | None = None, pause: bool = True,
             before_wait: Callable[[], None] | None = None, idle: Callable[[], None] | None = None) -> Reply:
        """Send ``msg`` and wait for one answer within ``time_left`` seconds of CPU time; run
        ``before_wait`` once it is sent, ``idle`` (pause the opponent) once the call lasts."""

    def pause(self) -> None:
        """Stop the bot until its next call."""

    def reap_strays(self) -> int:
        """Kill every process the bot started (its own stays); how many."""

    def close(self) -> None:
        """Ask the bot to quit, then make sure it is gone."""
