"""Shared pieces of the CLI: the Typer app, error exit, option validators, position arguments,
JSON output."""

from __future__ import annotations

import importlib
import inspect
import json
import math
import sys
import types
from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING, Any, NoReturn

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from sylver.errors import InvalidPositionError

if TYPE_CHECKING:  # imported where used, so that every command does not pay for it
    from rich.console import Console

    from sylver.position import Position


def _defer(module: str, *classes: str) -> None:
    """Let Typer's help formatter import ``module`` without loading it.

    ``typer.rich_utils`` (imported to render ``--help`` and usage errors) imports ``rich.markdown``,
    which imports markdown-it (about 0.1 s, a third of ``sylver --help``), for markup mode
    "markdown", which this app does not use (``rich_markup_mode="rich"`` below); and
    ``rich.traceback``, which imports pygments (about 0.02 s), for pretty exceptions, which this app
    turns off.  Until one of ``classes`` is used (called, or a class attribute such as
    ``Traceback.from_exception`` read), the module is a placeholder whose classes load the real
    module (which then replaces the placeholder) and hand over to the real class."""
    if module in sys.modules:
        return

    def real() -> types.ModuleType:
        if sys.modules.get(module) is placeholder:
            del sys.modules[module]
        return importlib.import_module(module)

    class Deferred(type):
        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            return getattr(real(), cls.__name__)(*args, **kwargs)

        def __getattr__(cls, name: str) -> Any:
            return getattr(getattr(real(), cls.__name__), name)

    placeholder = types.ModuleType(module, "placeholder until one of its classes is used")
    for name in classes:
        setattr(placeholder, name, Deferred(name, (), {}))

    def attribute(name: str) -> Any:
        if name.startswith("__"):  # asked by the import system (``__path__``…): not the real module's
            raise AttributeError(name)
        return getattr(real(), name)

    placeholder.__getattr__ = attribute  # type: ignore[method-assign]
    sys.modules[module] = placeholder


_defer("rich.markdown", "Markdown")
_defer("rich.traceback", "Traceback")


COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module that registers it, first paragraph of its docstring: its line in ``--help``)
    "analyze": ("analyze", "Analyse a position with the theory of the game (t, ends, enders, enclosure, outcome)."),
    "book": ("book", "The results book: every result the project established, shipped with sylver and read by the results store."),
    "campaign": ("campaign", "Attack a root position for as long as it takes: a ledger of its proof tree, resumable, on local cores or a Dask cluster."),
    "tournament": ("arena", "Run (or resume) a round-robin tournament of bots; results go to --out."),
    "match": ("arena", "Play A against B: --games games in seat-swapped pairs."),
    "conformance": ("arena", "Test that a bot keeps the arena's protocol: it starts, answers legal moves in a few positions, learns and quits."),
    "blunders": ("arena", "Judge every move of a tournament's games that the engine can decide: winning, blunder, forced."),
    "play": ("play", "Play against a bot in the terminal (Sylver Coinage, or `sylver play wythoff`)."),
    "serve": ("serve", "Serve the web page: play and analyse Sylver Coinage and Wythoff's Nim in the browser."),
    "solve": ("solve", "Solve a position exactly: P or N, every winning move (or the least with --first), and a proof."),
    "sweep": ("solve", "Search for a winning reply: decide the replies that leave gcd 1 one at a time, in order, with one table, until one leaves P."),
    "verify": ("verify", "Verify a proof certificate independently of the solver; print `valid` or the first flaw "
                        "(exit 1)."),
    "warmup": ("warmup", "Compile the numba kernels and build the endgame table ahead (about two minutes, once per install; `make` runs it)."),
    "wythoff": ("wythoff", "Wythoff's Nim: print the position after a winning move from I J, or `lost`."),
    "version": ("", "Print the installed version of sylver."),
}
"""Every command, in the order of ``sylver --help``.  A command's module (``sylver.cli.<module>``;
"": ``sylver.cli`` itself) is imported, and the command built, only when that command runs: Typer
building every command's options from its signature, and importing every module, cost about a third
of ``sylver version``.  ``--help`` lists the lines here (a test checks that they are the docstrings')."""

RENAMED: dict[str, str] = {"check": "conformance"}
"""Commands renamed (issue 52: "check" meant four things), by their old name: the old name still
runs the command, after a one-line note (:func:`deprecated`); ``--help`` lists only the new."""


def unwrapped(doc: str) -> str:
    """A command's docstring as its ``--help`` shows it: each paragraph one line, which the help
    wraps to the terminal (the rich markup mode keeps a docstring's line breaks, so the text broke
    at the source's lines and again at the terminal's width)."""
    return "\n\n".join(" ".join(p.split()) for p in doc.split("\n\n"))


class LazyCommands(MutableMapping[str, Any]):
    """The group's commands by name: every name of :data:`COMMANDS`; a command not yet built is
    built (its module imported) when it is looked up."""

    def __init__(self, built: MutableMapping[str, Any]) -> None:
        self.built = dict(built)

    def __getitem__(self, name: str) -> Any:
        if name not in self.built:
            if name not in COMMANDS:
                raise KeyError(name)
            importlib.import_module("sylver.cli" + ("." + COMMANDS[name][0] if COMMANDS[name][0] else ""))
            group = next((g for g in app.registered_groups if g.name == name), None)
            self.built[name] = self._command(name) if group is None else self._group(group)
        return self.built[name]

    @staticmethod
    def _command(name: str) -> Any:
        info = next(i for i in app.registered_commands if i.callback is not None
                    and (i.name or typer.main.get_command_name(i.callback.__name__)) == name)
        if info.help is None:
            info.help = unwrapped(inspect.getdoc(info.callback) or "")
        return typer.main.get_command_from_info(
            info, pretty_exceptions_short=app.pretty_exceptions_short, rich_markup_mode=app.rich_markup_mode)

    @staticmethod
    def _group(info: Any) -> Any:
        """A command with subcommands (``sylver campaign run``): its help and theirs unwrapped too."""
        inner = info.typer_instance
        callback = inner.registered_callback.callback
        if not isinstance(info.help, str):  # not given to add_typer: Typer's placeholder
            info.help = unwrapped(inspect.getdoc(callback) or "")
        for command in inner.registered_commands:
            if command.help is None and command.callback is not None:
                command.help = unwrapped(inspect.getdoc(command.callback) or "")
        return typer.main.get_group_from_info(
            info, pretty_exceptions_short=app.pretty_exceptions_short, suggest_commands=True,
            rich_markup_mode=app.rich_markup_mode)

    def __setitem__(self, name: str, command: Any) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        del self.built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*COMMANDS, *self.built]))

    def __len__(self) -> int:
        return len(set(COMMANDS) | set(self.built))


class OneLineErrors(TyperGroup):
    """The command group: a value an option's type cannot read (``--port abc``, ``--clock x``) is a
    one-line error and exit 2 like every bad input, not Click's boxed usage message.  Its commands
    are built when used (:data:`COMMANDS`)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = LazyCommands(self.commands)
        self.listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self.listing and cmd_name in COMMANDS:  # the group's --help: its line, not the command
            return TyperCommand(name=cmd_name, help=COMMANDS[cmd_name][1])
        if cmd_name in RENAMED and not ctx.resilient_parsing:
            deprecated(f"sylver {cmd_name}", f"sylver {RENAMED[cmd_name]}")
            cmd_name = RENAMED[cmd_name]
        return self.commands.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False

    def invoke(self, ctx: Any) -> Any:  # Click's Context, or the copy in Typer >= 0.28
        try:
            return super().invoke(ctx)
        except typer.BadParameter as exc:
            if type(exc) is not typer.BadParameter or exc.param is None:  # e.g. a missing option
                raise
            name = exc.param.opts[0] if exc.param.opts else exc.param.human_readable_name
            fail(f"{name}: {exc.message.rstrip('.')}")


app = typer.Typer(
    cls=OneLineErrors,
    rich_markup_mode="rich",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def __getattr__(name: str) -> Console:
    """``console`` and ``err_console`` (stdout, stderr), made on first use: ``rich.console`` takes
    about 0.04 s to import, which ``sylver version`` and ``sylver wythoff`` need not pay."""
    if name not in ("console", "err_console"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from rich.console import Console

    made = globals()[name] = Console(stderr=name == "err_console")
    return made


MAX_GENERATOR = 10**15
"""Largest number the CLI accepts in a position (the library itself takes any int)."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``error: message`` on stderr (one line) and exit with ``code``."""
    print(f"sylver: error: {message}", file=sys.stderr)
    raise SystemExit(code)


def deprecated(old: str, new: str) -> None:
    """Say on stderr, in one line, that the spelling ``old`` (a command, or one with its options)
    still works for a while and that ``new`` replaces it."""
    print(f"sylver: note: `{old}` is deprecated: use `{new}`", file=sys.stderr)


def renamed_flag(command: str, new: str) -> Callable[..., bool | None]:
    """The Typer callback of a boolean flag's old spelling (``--check/--no-check``), kept a while
    beside ``new`` (``"--self-check/--no-self-check"``): when given, a note (:func:`deprecated`)
    that names the new spelling of the same value."""

    def note(ctx: typer.Context, param: typer.CallbackParam, value: bool | None) -> bool | None:
        if value is not None and not ctx.resilient_parsing:
            old = param.opts[0] if value else param.secondary_opts[0]
            on, off = new.split("/")
            deprecated(f"sylver {command} {old}", f"sylver {command} {on if value else off}")
        return value

    return note


def seconds(minimum: float = 0.0, *, zero: str = "") -> Callable[..., float | None]:
    """The Typer callback of every option given in seconds: a finite number, at least ``minimum``;
    when ``zero`` is set (e.g. "no limit"), 0 is accepted too and means that.  nan, inf and
    negative numbers exit with a one-line error naming the option."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: float | None) -> float | None:
        if value is None or ctx.resilient_parsing:
            return value
        name = param.opts[0] if param.opts else f"--{param.name}"
        if zero and value == 0:
            return value
        if not math.isfinite(value) or value < minimum or value <= 0:
            least = f"at least {minimum:g}" if minimum > 0 else "a positive number of"
            also = f" (0: {zero})" if zero else ""
            fail(f"{name} must be {least} seconds{also}, not {value:g}")
        return value

    return check


def memory_size() -> Callable[..., int | str | None]:
    """The Typer callback of every option given as a memory size (``--memory 4G``; declared with
    ``parser=str``, the parameter typed ``int``): its bytes, read by :func:`sylver.machine.parse_memory`; not
    given, the share of this machine that a solve takes (:func:`sylver.machine.default_memory`).
    A size it cannot read exits with a one-line error naming the option (as :func:`seconds`)."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> int | str | None:
        if ctx.resilient_parsing:
            return value
        from sylver.machine import default_memory, parse_memory

        if value is None:
            return default_memory()
        try:
            return parse_memory(value)
        except ValueError as exc:
            fail(f"{param.opts[0] if param.opts else f'--{param.name}'}: {exc}")

    return check


def states() -> Callable[..., int | None]:
    """The Typer callback of every option given as a number of states: a positive integer, with
    K, M or G for thousands, millions, billions (``--rounds 1M``); anything else exits with a
    one-line error naming the option (as :func:`seconds`)."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> int | None:
        if value is None or ctx.resilient_parsing:
            return None
        text = value.strip().upper()
        scale = {"K": 10**3, "M": 10**6, "G": 10**9}.get(text[-1:], 1)
        digits = text[:-1] if scale > 1 else text
        if not digits.isdigit() or int(digits) * scale < 1:
            name = param.opts[0] if param.opts else f"--{param.name}"
            fail(f"{name} must be a positive number of states (e.g. 500000, 250K, 1M), not {value!r}")
        return int(digits) * scale

    return check


def integer(minimum: int, maximum: int | None = None, *, zero: str = "", unit: str = "",
            ) -> Callable[..., int | None]:
    """The Typer callback of every integer option with a range: at least ``minimum``, at most
    ``maximum`` if given; when ``zero`` is set (e.g. "no cap"), 0 is accepted too and means that.
    A number out of range exits with a one-line error naming the option (as :func:`seconds`)."""

    def check(ctx: typer.Context, param: typer.CallbackParam, value: int | None) -> int | None:
        if value is None or ctx.resilient_parsing or (zero and value == 0):
            return value
        if value < minimum or (maximum is not None and value > maximum):
            name = param.opts[0] if param.opts else f"--{param.name}"
            allowed = f"from {minimum} to {maximum}" if maximum is not None else f"at least {minimum}"
            also = f" (0: {zero})" if zero else ""
            fail(f"{name} must be {allowed}{' ' + unit if unit else ''}{also}, not {value}")
        return value

    return check


def position_from_args(args: list[str], allow_empty: bool = False) -> Position:
    """``["4", "5"]``, ``["4,5"]`` or ``["{4,5}"]`` -> Position; bad input exits 2 with a message."""
    from sylver.position import Position

    text = " ".join(args)
    try:
        p = Position.parse(text)
    except InvalidPositionError as exc:
        fail(str(exc))
    if p.is_empty and not allow_empty:
        fail("the position is empty: give at least one positive integer, e.g. `4 5` or \"{4,5}\"")
    too_big = [x for x in p.generators if x > MAX_GENERATOR]
    if too_big:
        fail(f"{too_big[0]} is too large (numbers up to {MAX_GENERATOR:.0e} are accepted)")
    return p


QUIT_WORDS = {"q", "quit", "exit", "resign"}


def ask_move(out: Console, input_fn: Callable[[str], str]) -> str | None:
    """Prompt ``Your move:`` in a terminal game: the answer stripped, or None when the player quits
    (a quit word, end of input or Ctrl-C), after saying on ``out`` that the game is abandoned."""
    try:
        line = input_fn("Your move: ").strip()
    except (EOFError, KeyboardInterrupt):
        out.print("\nGame abandoned.")
        return None
    if line.lower() in QUIT_WORDS:
        out.print("Game abandoned.")
        return None
    return line


def print_json(obj: Any) -> None:
    """One JSON object on stdout."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


@app.callback()
def _root() -> None:
    """Sylver Coinage: analysis, exact solving, bots, tournaments; and Wythoff's Nim.

    The theory is that of G. Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002 ("sec. N" in the output refers to its sections). Tournaments follow the rules of the King-of-the-Hill Sylver Coinage bot competition or of the `nextMove` Sylver Coinage bot competition, whose bots run here unchanged.

    On a new install, the first command that needs compiled code compiles it (about a minute, once); `sylver warmup` does it ahead.
    """
