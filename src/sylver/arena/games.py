"""The arena's data: a planned game (``plan.json``) and the record of a played one (``games.jsonl``).

Frozen dataclasses whose ``to_json``/``from_json`` are the only way they are written and read: the
JSON is that of the first version of these files (same keys, same values), so a results directory
written before them resumes, and one written now is read by the earlier code.  ``reason`` is a
:class:`sylver.position.Termination` (its value is the code in the file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sylver.position import GameResult, Termination


@dataclass(frozen=True, kw_only=True)
class GameSpec:
    """One game of the plan: who sits where, from which start, with which seed."""

    id: int
    phase: int
    round: int
    seats: tuple[int, int]
    """Indices of the bots in the tournament's list: seat 0 moves first."""
    players: tuple[str, str]
    seed: int
    start: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "phase": self.phase, "round": self.round, "seats": list(self.seats),
                "players": list(self.players), "seed": self.seed, "start": list(self.start)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> GameSpec:
        a, b = d["seats"]
        p, q = d["players"]
        return cls(id=d["id"], phase=d.get("phase", 0), round=d["round"], seats=(a, b), players=(p, q),
                   seed=d["seed"], start=tuple(int(x) for x in d["start"]))


@dataclass(frozen=True, kw_only=True)
class Strike:
    """An illegal answer that did not lose yet (rules with several penalties)."""

    seat: int
    ply: int
    answer: object
    reason: Termination
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "ply": self.ply, "answer": self.answer, "reason": self.reason.value,
                "detail": self.detail}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Strike:
        return cls(seat=d["seat"], ply=d["ply"], answer=d["answer"], reason=Termination(d["reason"]),
                   detail=d["detail"])


@dataclass(frozen=True, kw_only=True)
class LearnError:
    """A bot that failed while told the result (the game's result stands)."""

    seat: int
    bot: str
    reason: Termination
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "reason": self.reason.value, "detail": self.detail}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> LearnError:
        return cls(seat=d["seat"], bot=d["bot"], reason=Termination(d["reason"]), detail=d["detail"])


@dataclass(frozen=True, kw_only=True)
class PlayedGame:
    """The record of a finished game (one line of ``games.jsonl``)."""

    game: int
    phase: int
    round: int
    seed: int
    players: tuple[str, str]
    start: tuple[int, ...]
    moves: tuple[object, ...]
    """Every answer that counted, the losing one included (as given: it may be invalid)."""
    times: tuple[float, ...]
    """CPU seconds of each answer in ``moves``."""
    walls: tuple[float, ...]
    """Wall seconds of each answer in ``moves``."""
    winner_seat: int
    reason: Termination
    detail: str
    witness: dict[str, int] | None = None
    """For an illegal move: its coefficients over the named numbers (keys are the numbers, as text)."""
    strikes: tuple[Strike, ...] = ()
    learn_errors: tuple[LearnError, ...] = ()
    cpu: tuple[float, float] = (0.0, 0.0)
    """CPU seconds each seat used in the game."""
    wall: float = 0.0
    referee_cpu: float = 0.0
    update_cpu: float = 0.0
    """Referee CPU seconds for the Apéry updates (overlapped with the bots' thinking)."""
    worker: str = ""
    """``host:pid`` of the process that refereed it."""

    void = False

    @property
    def first(self) -> str:
        return self.players[0]

    @property
    def winner(self) -> str:
        return self.players[self.winner_seat]

    @property
    def loser(self) -> str:
        return self.players[1 - self.winner_seat]

    @property
    def result(self) -> GameResult:
        """How the game ended, as every referee says it (seats, not names)."""
        answered = self.reason is Termination.NAMED_ONE or self.reason.is_bad_answer  # the losing answer is in moves
        return GameResult(winner=self.winner_seat, loser=1 - self.winner_seat, reason=self.reason,
                          ply=len(self.moves) - (1 if answered else 0), detail=self.detail)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "game": self.game, "phase": self.phase, "round": self.round, "seed": self.seed,
            "players": list(self.players), "first": self.first, "start": list(self.start),
            "moves": list(self.moves), "times": list(self.times), "walls": list(self.walls),
            "winner": self.winner, "loser": self.loser, "winner_seat": self.winner_seat,
            "reason": self.reason.value, "detail": self.detail, "witness": self.witness,
            "strikes": [s.to_json() for s in self.strikes],
            "learn_errors": [e.to_json() for e in self.learn_errors],
            "cpu": list(self.cpu), "wall": self.wall, "referee_cpu": self.referee_cpu,
            "update_cpu": self.update_cpu,
        }
        if self.worker:
            d["worker"] = self.worker
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PlayedGame:
        p, q = d["players"]
        a, b = d.get("cpu") or (0.0, 0.0)
        return cls(
            game=d.get("game", 0), phase=d.get("phase", 0), round=d.get("round", 0), seed=d.get("seed", 0),
            players=(p, q), start=tuple(d.get("start", ())), moves=tuple(d.get("moves", ())),
            times=tuple(d.get("times", ())), walls=tuple(d.get("walls", ())),
            winner_seat=d["winner_seat"] if "winner_seat" in d else (0 if d["winner"] == p else 1),
            reason=Termination(d["reason"]), detail=d.get("detail", ""), witness=d.get("witness"),
            strikes=tuple(Strike.from_json(s) for s in d.get("strikes", ())),
            learn_errors=tuple(LearnError.from_json(e) for e in d.get("learn_errors", ())),
            cpu=(a, b), wall=d.get("wall", 0.0), referee_cpu=d.get("referee_cpu", 0.0),
            update_cpu=d.get("update_cpu", 0.0), worker=d.get("worker", ""),
        )


@dataclass(frozen=True, kw_only=True)
class VoidGame:
    """A game that could not be played to its end through no fault of a bot (it is played again
    on resume)."""

    game: int
    phase: int
    players: tuple[str, str]
    error: str
    round: int | None = None
    traceback: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys of the line this version does not know (kept as they were)."""

    void = True

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"game": self.game, "phase": self.phase, "void": True, "players": list(self.players),
                             "error": self.error}
        if self.traceback:
            d["traceback"] = self.traceback
        if self.round is not None:
            d["round"] = self.round
        return {**d, **self.extra}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> VoidGame:
        p, q = d["players"]
        known = {"game", "phase", "void", "players", "error", "traceback", "round"}
        return cls(game=d["game"], phase=d.get("phase", 0), players=(p, q), error=d.get("error", ""),
                   round=d.get("round"), traceback=d.get("traceback", ""),
                   extra={k: v for k, v in d.items() if k not in known})


GameLine = PlayedGame | VoidGame


def game_from_json(d: dict[str, Any]) -> GameLine:
    """A line of ``games.jsonl``: a played game, or a void one."""
    return VoidGame.from_json(d) if d.get("void") else PlayedGame.from_json(d)
