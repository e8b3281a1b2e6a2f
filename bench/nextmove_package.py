"""The ``nextMove`` competition's own package, driven from the bench (issue 53): its referee's game
loop (``SylverCoinageGame`` in ``testingSylver-version-1.3.py``) and its bots, loaded from the
package's folder as they are.  Nothing of the package is copied here; its folder is an option of
bench/bench_strength.py (``--package DIR``), and the project's tests keep their own doubles.

Adapted, by wrapping only:

* The referee's module imports pandas for its round robin, which is not used here: a stand-in module
  is in ``sys.modules`` while it is imported, when pandas is not installed.
* ``usingStrongCounterV2`` and ``usingStrongCounterV3`` define ``nextMove(moves, remaining)``, while
  the referee calls ``nextMove(moves, remaining, time)``: their third argument is dropped (as the
  arena's bot host does), everything else is passed as the referee passes it.
* The cap.  The referee checks a move against the list of the numbers 1 .. 10^6 that the game's
  moves do not represent, and updates that list after every move in pure Python, in time about
  (numbers the moves leave) × (numbers they represent): after {7}: 27, 60 (gcd 3) that is 6.6 × 10^5
  × 3.7 × 10^4, hours for one move (measured: no next move after 5 minutes).  ``capped``
  runs the same function with that list's bound, its constant 1000001, replaced by ``cap`` + 1
  (a new code object, the rest of the function as it is); both referees then allow moves up to
  ``cap``.  Every position of t <= ``cap`` keeps all its moves, so the blunder analysis (t <= 400)
  judges the same games as under the 10^6 cap.

What the referee does that ours does not (``compare`` reports where the two results differ): its
legality list ignores the start position (in {16,20} it would accept 32), the first player is Player
1 when the start has an even number of numbers and Player 2 otherwise, a move past 30 s of a bot's
summed ``perf_counter`` time is replaced by 1, and an illegal answer is followed by a 1 as well.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import random
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sylver.arena.games import PlayedGame
from sylver.position import Termination

REFEREE_FILE = "testingSylver-version-1.3.py"

BOTS: dict[str, tuple[str, str]] = {
    "bestBot": ("bestBot", "myBot"),
    "strongCounterV2": ("usingStrongCounterV2", "strongCounterV2"),
    "strongCounterV3": ("usingStrongCounterV3", "strongCounterV3"),
}
"""The competition's three strongest bots: display name -> (module file, class)."""

GAP_BOUND = 1_000_001
"""The constant in the referee's ``range(1, 1000001)``: its list of allowed moves."""


@dataclass
class Package:
    """The loaded package: the referee's module and the bot modules by file name."""

    folder: Path
    referee: types.ModuleType
    modules: dict[str, types.ModuleType] = field(default_factory=dict)

    def bot_class(self, name: str) -> type:
        module, cls = BOTS[name]
        if module not in self.modules:
            self.modules[module] = _import(self.folder / f"{module}.py", module)
        return getattr(self.modules[module], cls)

    def spec(self, name: str) -> str:
        """The bot as an arena spec (``path.py:Class,name=NAME``)."""
        module, cls = BOTS[name]
        return f"{self.folder / module}.py:{cls},name={name}"


def _import(path: Path, name: str) -> types.ModuleType:
    if not path.is_file():
        raise SystemExit(f"bench_strength: error: {path} not found (--package: the nextMove competition's folder)")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    with contextlib.redirect_stdout(io.StringIO()):  # its import warnings (no myOwnBot.py, ...)
        spec.loader.exec_module(module)
    return module


def load_package(folder: str | Path) -> Package:
    """The referee and the bots of the package in ``folder`` (its modules import each other by name:
    the folder goes on ``sys.path``)."""
    folder = Path(folder).resolve()
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
    stand_in = "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None
    if stand_in:
        sys.modules["pandas"] = types.ModuleType("pandas")
    try:
        referee = _import(folder / REFEREE_FILE, "nextmove_referee")
    finally:
        if stand_in:
            del sys.modules["pandas"]
    return Package(folder, referee)


def capped(game: Callable[..., Any], cap: int) -> Callable[..., Any]:
    """The referee's game function with its list of allowed moves 1 .. ``cap`` (was 1 .. 10^6)."""
    code = game.__code__
    if code.co_consts.count(GAP_BOUND) != 1:
        raise SystemExit(f"bench_strength: error: {game.__name__} has not the one bound {GAP_BOUND} this bench adapts")
    consts = tuple(cap + 1 if c == GAP_BOUND and type(c) is int else c for c in code.co_consts)
    return types.FunctionType(code.replace(co_consts=consts), game.__globals__, game.__name__,
                              game.__defaults__, game.__closure__)


class Caller:
    """One player as the referee calls it: records each call (the moves it was shown, its answer,
    the ``perf_counter`` seconds) and, for a two-argument ``nextMove``, drops the time argument."""

    def __init__(self, name: str, next_move: Callable[..., Any], takes_time: bool) -> None:
        self.name = name
        self.next_move = next_move
        self.takes_time = takes_time
        self.calls: list[tuple[tuple[int, ...], object, float]] = []
        self.crashed: BaseException | None = None

    def __call__(self, moves: list, remaining: list, used: float) -> object:
        shown = tuple(moves)
        t0 = time.perf_counter()
        try:
            answer = self.next_move(moves, remaining, used) if self.takes_time else self.next_move(moves, remaining)
        except BaseException as exc:
            self.crashed = exc
            raise
        self.calls.append((shown, answer, time.perf_counter() - t0))
        return answer


def takes_time(next_move: Callable[..., Any]) -> bool:
    import inspect

    params = [p for p in inspect.signature(next_move).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(params) >= 3


def seat_seed(seed: int, seat: int) -> int:
    """The seed the arena's referee gives the bot in ``seat`` (0: the first player) of the game with
    ``seed``; its bot host seeds the global ``random`` with it at the game's start."""
    return seed * 2 + seat


def play(game: Callable[..., Any], first: Caller, second: Caller, start: tuple[int, ...], *, number: int,
         seed: int, random_seat: int, phase: int = 0, round_: int = 0) -> PlayedGame:
    """One game through the referee's loop, ``first`` moving first from ``start``; the global
    ``random`` seeded as the arena's bot host seeds it for the bot in ``random_seat`` (the package's
    bot: the only one here that draws from it); returned as the arena records a game (``times`` and
    ``walls`` the referee's ``perf_counter`` seconds)."""
    # the referee's turn rule: Player 1 moves first when len(start) is even (its first game)
    p1, p2 = (first, second) if len(start) % 2 == 0 else (second, first)
    for c in (first, second):
        c.calls.clear()
        c.crashed = None
    random.seed(seat_seed(seed, random_seat))
    out = io.StringIO()
    started = time.perf_counter()
    crash = ""
    try:
        with contextlib.redirect_stdout(out):
            wins, _, _ = game(p1, p2, 1, list(start))
        winner = first if (wins[0] == 1) == (p1 is first) else second
    except Exception as exc:  # noqa: BLE001 - the referee has no try: a bot's exception ends its loop
        culprit = first if first.crashed is not None else second
        winner, crash = (second if culprit is first else first), f"{culprit.name}: {exc!r}"[:300]
    wall = time.perf_counter() - started
    calls = sorted([(len(shown), c, answer, secs) for c in (first, second) for shown, answer, secs in c.calls],
                   key=lambda x: x[0])
    moves = tuple(a for _, _, a, _ in calls)
    secs = tuple(s for _, _, _, s in calls)
    text = out.getvalue()
    if crash:
        reason, detail = Termination.CRASH, crash
    elif "ran out of time" in text:
        reason, detail = Termination.TIMEOUT, "more than 30 s of perf_counter time (the referee's clock)"
    elif "Too many penalties" in text:
        reason, detail = Termination.ILLEGAL_MOVE, f"the referee refused {moves[-1]!r}"
    else:
        reason, detail = Termination.NAMED_ONE, ""
    used = {c.name: sum(s for _, cc, _, s in calls if cc is c) for c in (first, second)}
    return PlayedGame(
        game=number, phase=phase, round=round_, seed=seed, players=(first.name, second.name), start=tuple(start),
        moves=moves, times=secs, walls=secs, winner_seat=0 if winner is first else 1, reason=reason, detail=detail,
        cpu=(used[first.name], used[second.name]), wall=wall, worker="nextMove referee",
    )
