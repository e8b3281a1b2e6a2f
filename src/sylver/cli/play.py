"""`sylver play [GAME]`: play Sylver Coinage (or Wythoff's Nim) against a built-in bot in the terminal."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from sylver.cli.common import app, ask_move, console, fail, seconds
from sylver.errors import InvalidMoveError, InvalidPositionError

if TYPE_CHECKING:  # imported where used: `sylver --help` and the other commands do not need it
    from sylver.position import Position

SHOW_MOVES_LIMIT = 120
"""Legal moves are listed when there are at most this many."""

_HELP = (
    "Name a positive integer that is not a sum with multiples of the numbers named so far; "
    "whoever names 1 loses. Commands: `moves` (list the legal moves), `hint` (a winning move, when "
    "the solver finds one quickly), `quit`."
)


def _moves_line(p: Position) -> str:
    if p.is_finite and p.genus <= SHOW_MOVES_LIMIT:
        return "Legal moves: " + ", ".join(map(str, p.legal_moves()))
    return "Legal moves: " + p.describe_moves()


def _hint(p: Position) -> str:
    from sylver.bots.oracle import hint
    from sylver.position import Outcome

    h = hint(p)
    if h.exact:
        if h.winning_moves:
            return "Winning moves: " + ", ".join(map(str, h.winning_moves))
        return "No winning move: this position is lost against perfect play."
    if h.winning_moves:
        return f"Winning move (by the theory): {h.winning_moves[0]}"
    if h.outcome is Outcome.P:
        return "No winning move: this position is lost against perfect play (theory)."
    if h.outcome is Outcome.N:
        return f"A winning move exists, but the position is too large to find it quickly: {h.reason}"
    return "Not known: the position is too large to solve quickly."


def play_sylver(
    bot_name: str = "perfect",
    start: Position | None = None,
    human_first: bool = True,
    seed: int | None = None,
    think: float = 2.0,
    input_fn: Callable[[str], str] = input,
) -> bool | None:
    """One game in the terminal; True if the human won, False if the bot won, None if abandoned."""
    from sylver.bots import make_bot
    from sylver.bots.base import Turn
    from sylver.position import Position

    options: dict[str, object] = {"think": think} if bot_name == "perfect" else {}
    bot = make_bot(bot_name, random.Random(seed), **options)
    p = start if start is not None else Position()
    history: list[int] = list(p.generators)
    human = human_first
    console.print(escape(f"Sylver Coinage against {bot_name}. " + _HELP), highlight=False)
    while True:
        console.print(f"Position: {p.braces()}", highlight=False)
        if human:
            console.print(escape(_moves_line(p)), highlight=False)
            if p.is_terminal:
                console.print("Only 1 is legal: you must name it. You lose; I win.")
                return False
            line = ask_move(console, input_fn)
            if line is None:
                return None
            word = line.lower()
            if word in {"", "?", "help"}:
                console.print(escape(_HELP), highlight=False)
                continue
            if word in {"m", "moves"}:
                console.print(escape(_moves_line(p)), highlight=False)
                continue
            if word in {"h", "hint"}:
                console.print(escape(_hint(p)), highlight=False)
                continue
            try:
                if not word.lstrip("+").isdigit():
                    raise InvalidMoveError(f"{line!r} is not a positive integer")
                p = p.play(int(word))
            except (InvalidMoveError, InvalidPositionError) as exc:
                console.print(f"Not a move: {escape(str(exc))}. Try again.", highlight=False)
                continue
            except ValueError as exc:  # IllegalMoveError: the message carries the witness
                console.print(f"Illegal: {escape(str(exc))}. Try again.", highlight=False)
                continue
            n = int(word)
            history.append(n)
            if not sys.stdin.isatty():  # echo piped input so the transcript reads well
                console.print(f"You name {n}.", highlight=False)
            if n == 1:
                console.print("You named 1: you lose. I win.")
                return False
            human = False
            continue
        n = bot.choose(Turn(p, tuple(history)))
        console.print(f"I name {n}.", highlight=False)
        if n == 1 or not p.is_legal(n):
            console.print("I named 1: I lose. You win!")
            return True
        p = p.play(n)
        history.append(n)
        human = True


@app.command()
def play(
    game: Annotated[
        str | None, typer.Argument(help="`sylver` (Sylver Coinage, the default) or `wythoff` (Wythoff's Nim).")
    ] = None,
    bot: Annotated[str, typer.Option(help="The opponent: a built-in bot (random, greedy, sage, perfect).")] = "perfect",
    start: Annotated[
        str | None, typer.Option(help='Start position, e.g. "4,5" (default: the empty position).')
    ] = None,
    first: Annotated[bool, typer.Option("--first/--second", help="Move first (default) or second.")] = True,
    seed: Annotated[int | None, typer.Option(help="Seed for the bot's random choices.")] = None,
    think: Annotated[float, typer.Option(help="Seconds the perfect bot may think per move.", callback=seconds(0.05))] = 2.0,
) -> None:
    """Play against a bot in the terminal (Sylver Coinage, or `sylver play wythoff`)."""
    name = (game or "sylver").lower()
    if name == "wythoff":
        from sylver.cli.wythoff import play_wythoff

        try:
            play_wythoff(console, start=start, first=first, rng=random.Random(seed))
        except KeyboardInterrupt:
            console.print("\nGame abandoned.")
        return
    if name not in {"sylver", "coinage", "sylver-coinage"}:
        fail(f"unknown game {game!r}: choose `sylver` (Sylver Coinage) or `wythoff` (Wythoff's Nim)")
    from sylver.bots import BOTS

    if bot not in BOTS:
        fail(f"unknown bot {bot!r}; built-in bots: {', '.join(sorted(BOTS))}")
    position = None
    if start is not None:
        from sylver.position import Position

        try:
            position = Position.parse(start)
        except InvalidPositionError as exc:
            fail(str(exc))
        if position.is_over:
            fail("the start position contains 1: the game is already over")
    try:
        play_sylver(bot, position, first, seed, think)
    except KeyboardInterrupt:
        console.print("\nGame abandoned.")
