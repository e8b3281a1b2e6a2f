"""The bot host: runs one Python bot (built-in; an ``announce``/``learn`` class of the
King-of-the-Hill Sylver Coinage bot competition; a ``nextMove`` class of the `nextMove` Sylver Coinage
bot competition; or a :class:`sylver.bots.Bot` subclass) as a JSON-lines protocol speaker.

It is started by the referee as ``python host.py '<spec json>'`` inside the sandbox (own process,
resource limits, own working directory).  It speaks exactly the ``cmd:`` protocol of docs/arena.md
(the typed messages of :mod:`sylver.arena.protocol`) on private copies of stdin/stdout, so whatever
the bot prints goes to its log (stderr), never into the protocol.  Only the standard library and
that module are imported up front; the rest of ``sylver`` (and numba) is imported when a built-in
bot or a ``nextMove`` bot needs positions.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import random
import select
import sys
import time
import traceback
from dataclasses import replace
from typing import Any

from sylver.arena.protocol import (
    MAX_ANSWER_TEXT,
    Error,
    GameOver,
    Hello,
    Message,
    Move,
    NewGame,
    Ok,
    OversizeInt,
    Ping,
    Pong,
    Quit,
    Ready,
    TurnRequest,
    decode,
    encode,
)

MAIN_PID = os.getpid()
IDLE_EXIT = 900.0
"""Seconds without any message after which the host exits by itself (an orphaned cache entry)."""


def warm_up() -> None:
    """Load sylver and compile the kernels the host uses (the referee runs this too, outside the
    sandbox, so that the compiled kernels are cached before a sandboxed host needs them)."""
    from sylver.position import Position  # noqa: PLC0415

    p = Position([5, 7]).play(9)
    p.is_legal(11)
    p.legal_moves()


def _read_only_kernel_cache(caching: Any) -> None:
    """In the sandbox the compiled-kernel cache next to the sources is read-only: load from it,
    never write (numba would otherwise refuse it and compile everything afresh)."""

    def ensure_cache_path(self) -> None:  # noqa: ANN001
        if not os.path.isdir(self.get_cache_path()):
            raise OSError("no kernel cache")

    save = caching.Cache.save_overload

    def save_overload(self, sig, data) -> None:  # noqa: ANN001
        try:
            save(self, sig, data)
        except OSError:
            pass

    caching._CacheLocator.ensure_cache_path = ensure_cache_path
    caching.Cache.save_overload = save_overload


class _KernelCacheHook:
    """Applies :func:`_read_only_kernel_cache` when numba's cache module is first imported (by sylver
    or by the bot), so that bots that never use numba do not pay for importing it."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> Any:
        if name != "numba.core.caching":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            run = spec.loader.exec_module

            def exec_module(module: Any) -> None:
                run(module)
                _read_only_kernel_cache(module)

            spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def _reap_children() -> None:
    """Collect the exit status of children that died (the referee kills a bot's strays after each
    game; unreaped, they would stay zombies and count against its process limit)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


class LoadError(Exception):
    """The bot cannot start (missing file or class, import error, unknown API)."""


def _positional(func: object, required_only: bool = False) -> int | None:
    """Number of positional parameters (self excluded; only those without a default when
    ``required_only``); None for *args or an uninspectable callable."""
    try:
        sig = inspect.signature(func)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    n = 0
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return None
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and (
            not required_only or p.default is p.empty
        ):
            n += 1
    return n


def _error(where: str, exc: BaseException) -> Error:
    if isinstance(exc, SystemExit):
        return Error(where=where, error="SystemExit", message=f"called sys.exit({exc.code!r})")
    tb = traceback.extract_tb(exc.__traceback__)
    loc = ""
    if tb:
        last = tb[-1]
        loc = f" (at {os.path.basename(last.filename)}:{last.lineno})"
    return Error(where=where, error=type(exc).__name__, message=f"{type(exc).__name__}: {exc}{loc}"[:500])


def _move(value: object) -> Move:
    """The bot's answer as a message: an int stays an int (numpy ints too); anything else is described."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() > 3.33 * MAX_ANSWER_TEXT and abs(value) >= 10**MAX_ANSWER_TEXT:
            return Move(move=OversizeInt.of(int(value.bit_length() * 0.30103) + 1))
        return Move(move=int(value))
    if type(value).__module__ == "numpy" and hasattr(value, "__index__") and not isinstance(value, bool):
        try:
            return Move(move=int(value.__index__()))  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001
            pass
    if value is None or isinstance(value, float | str | bool):
        return Move(move=value if not (isinstance(value, float) and value != value) else "nan", repr=repr(value)[:100])
    return Move(move=repr(value)[:100], repr=repr(value)[:100])


class Adapter:
    """One bot behind the protocol."""

    def __init__(self, spec: dict, bot_id: int) -> None:
        self.spec = spec
        self.bot_id = bot_id
        self.api = ""
        self.cls: object = None
        self.instance: object = None
        self.init_error: Error | None = None
        self.builtin = spec["kind"] == "builtin"
        self._pos: Any = None
        self._hist: tuple = ()
        self.rng_seed = 0
        self.time_arg = "left"
        """What ``nextMove`` gets as its third argument (the game's rules: ``left`` or ``used``)."""
        self.per_call = False
        """No chess clock in the game's rules: ``time_left`` is a per-call limit (``Turn.per_call``)."""
        self.cpu_clock = False
        """The referee charges CPU time (``Turn.cpu_clock``), as the game's rules say."""
        if self.builtin:
            from sylver.bots import BOTS  # noqa: PLC0415

            if spec["target"] not in BOTS:
                raise LoadError(f"unknown built-in bot {spec['target']!r}")
            self.api = "builtin"
        else:
            self._load(spec["target"], spec["cls"])
        if self.api != "announce":
            warm_up()  # positions are needed: load sylver and its kernels now, not on the bot's clock

    def _load(self, path: str, cls_name: str) -> None:
        if not os.path.isfile(path):
            raise LoadError(f"file {path} not found")
        folder = os.path.dirname(path)
        sys.path.insert(0, folder)
        mod_name = os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(mod_name, path)
        if spec is None or spec.loader is None:
            raise LoadError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException as exc:  # noqa: BLE001 - any failure to import is a start failure
            err = _error("import", exc)
            raise LoadError(f"cannot import {os.path.basename(path)}: {err.message}") from None
        if not cls_name:
            candidates = [v for k, v in vars(module).items() if inspect.isclass(v)
                          and v.__module__ == mod_name
                          and any(hasattr(v, a) for a in ("announce", "nextMove", "choose"))]
            if len(candidates) != 1:
                raise LoadError(f"{os.path.basename(path)}: name the bot class as {path}:Class "
                                f"({len(candidates)} candidate classes found)")
            cls: Any = candidates[0]
        else:
            cls = getattr(module, cls_name, None)
            if cls is None or not inspect.isclass(cls):
                raise LoadError(f"{os.path.basename(path)} has no class {cls_name!r}")
        if hasattr(cls, "nextMove"):
            self.api = "nextMove"
            n = _positional(cls.nextMove)
            self.next_args = 3 if n is None or n >= 4 else 2
        elif hasattr(cls, "announce"):
            self.api = "announce"
        elif hasattr(cls, "choose"):
            self.api = "choose"
        else:
            raise LoadError(f"class {cls.__name__} has neither announce() (King-of-the-Hill competition) "
                            "nor nextMove() (nextMove competition) nor choose() (sylver.bots.Bot)")
        self.cls = cls

    # -- instances -------------------------------------------------------------------------------
    def ensure_instance(self) -> Error | None:
        if self.instance is not None:
            return None
        try:
            if self.builtin:
                from sylver.bots import make_bot  # noqa: PLC0415

                options = dict(self.spec.get("options") or ())
                self.instance = make_bot(self.spec["target"], random.Random(self.rng_seed), **options)
            elif self.api == "choose":
                self.instance = self.cls()  # type: ignore[operator]
            else:
                need = _positional(self.cls.__init__, required_only=True)  # type: ignore[attr-defined,misc]
                need = 0 if need is None else need - 1  # minus self
                self.instance = self.cls(self.bot_id) if need >= 1 else self.cls()  # type: ignore[operator]
        except BaseException as exc:  # noqa: BLE001
            self.init_error = _error("__init__", exc)
            return self.init_error
        return None

    def new_game(self, msg: NewGame) -> None:
        self.rng_seed = msg.seed
        self.time_arg = str(msg.rules.get("time_arg") or "left")
        self.per_call = not msg.rules.get("clock")
        self.cpu_clock = bool(msg.rules.get("cpu_time"))
        random.seed(self.rng_seed)
        if "numpy" in sys.modules:
            try:
                sys.modules["numpy"].random.seed(self.rng_seed % (2**32))
            except Exception:  # noqa: BLE001
                pass
        if self.instance is not None and hasattr(self.instance, "rng") and self.builtin:
            self.instance.rng = random.Random(self.rng_seed)  # type: ignore[attr-defined]

    def position(self, history: list[int]):  # noqa: ANN201
        from sylver.position import Position  # noqa: PLC0415

        hist = tuple(history)
        k = len(self._hist)
        if self._pos is not None and hist[:k] == self._hist:
            pos = self._pos
            for x in hist[k:]:
                pos = pos.play(x) if pos.is_legal(x) else pos
        else:
            pos = Position(hist)
        self._pos, self._hist = pos, hist
        return pos

    def turn(self, msg: TurnRequest) -> object:
        history = list(msg.history)
        time_left = msg.time_left
        if self.api == "announce":
            return self.instance.announce(list(history))  # type: ignore[attr-defined]
        if self.api == "nextMove":
            from sylver.errors import TooLargeError  # noqa: PLC0415

            if self.time_arg == "used":  # the reference referee's argument: seconds used in this game
                t = msg.time_used
            else:
                t = float(time_left) if time_left is not None else 1e9
            remaining: list[int] = []
            limit = msg.gap_list_limit
            try:
                pos = self.position(history)
                if pos.is_finite and not pos.is_over and pos.genus <= limit:
                    remaining = pos.legal_moves(limit)
            except TooLargeError:  # numbers too large for an Apéry set: no list, as for infinitely many
                pass
            if self.next_args == 2:
                return self.instance.nextMove(list(history), remaining)  # type: ignore[attr-defined]
            return self.instance.nextMove(list(history), remaining, t)  # type: ignore[attr-defined]
        from sylver.bots.base import Turn  # noqa: PLC0415

        pos = self.position(history)
        turn = Turn(pos, tuple(history), time_left=time_left, per_call=self.per_call, cpu_clock=self.cpu_clock,
                    max_move=msg.max_move, no_prime_first=msg.no_prime_first,
                    extra={"seat": msg.seat, "game": msg.game})
        return self.instance.choose(turn)  # type: ignore[attr-defined]

    def learn(self, msg: GameOver) -> None:
        inst = self.instance
        if inst is None or not hasattr(inst, "learn"):
            return
        history = list(msg.history)
        if self.api == "announce":
            inst.learn(msg.first_id, msg.second_id, list(history))
        elif self.api == "nextMove":
            n = _positional(inst.learn)
            if n == 3:  # a King-of-the-Hill style learn on a nextMove bot
                inst.learn(msg.first_id, msg.second_id, list(history))
            elif n == 1:
                inst.learn(list(history))
        else:
            from sylver.position import GameRecord, Position  # noqa: PLC0415

            moves = tuple(history[len(msg.start):])
            inst.learn(GameRecord(Position(msg.start), moves), msg.seat)


class Channel:
    """Line I/O on raw file descriptors."""

    def __init__(self, fd_in: int, fd_out: int) -> None:
        self.fd_in, self.fd_out = fd_in, fd_out
        self.buf = b""

    def read(self) -> Message | None:
        """The next message (None at the end of input, or after IDLE_EXIT seconds of silence)."""
        while b"\n" not in self.buf:
            ready, _, _ = select.select([self.fd_in], [], [], IDLE_EXIT)
            if not ready:
                return None
            chunk = os.read(self.fd_in, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return decode(line)

    def write(self, msg: Message) -> None:
        if os.getpid() != MAIN_PID:  # a child the bot forked must never speak the protocol
            os._exit(0)
        data = encode(msg)
        while data:
            n = os.write(self.fd_out, data)
            data = data[n:]


def main() -> None:
    spec = json.loads(sys.argv[1])
    # The protocol gets private descriptors; the bot's stdin is empty and its stdout is the log.
    fd_in, fd_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
    if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
        del sys.path[0]
    if os.environ.get("SYLVER_SANDBOX"):
        sys.meta_path.insert(0, _KernelCacheHook())  # type: ignore[arg-type]
    ch = Channel(fd_in, fd_out)
    adapter: Adapter | None = None
    while True:
        msg = ch.read()
        if msg is None or isinstance(msg, Quit):
            break
        if isinstance(msg, Hello):
            try:
                adapter = Adapter(spec, msg.id)
            except LoadError as exc:
                ch.write(Error(where="load", error="LoadError", message=str(exc)))
                continue
            except BaseException as exc:  # noqa: BLE001
                ch.write(_error("load", exc))
                continue
            ch.write(Ready(name=spec.get("name", ""), api=adapter.api))
        elif adapter is None:
            ch.write(Error(where="protocol", error="ProtocolError", message="no successful hello"))
        elif isinstance(msg, Ping):
            ch.write(Pong())
        elif isinstance(msg, NewGame):
            _reap_children()
            adapter.new_game(msg)
        elif isinstance(msg, TurnRequest):
            c0 = time.process_time()
            reply: Move | Ok | Error | None = adapter.ensure_instance()
            if reply is None:
                try:
                    reply = _move(adapter.turn(msg))
                except BaseException as exc:  # noqa: BLE001 - every bot failure is reported
                    reply = _error("move", exc)
            ch.write(replace(reply, cpu=time.process_time() - c0))
        elif isinstance(msg, GameOver):
            c0 = time.process_time()
            try:
                adapter.learn(msg)
                reply = Ok()
            except BaseException as exc:  # noqa: BLE001
                reply = _error("learn", exc)
            ch.write(replace(reply, cpu=time.process_time() - c0))
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
