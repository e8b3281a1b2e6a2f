"""`sylver wythoff`: the perfect Wythoff's Nim player (as the perfect-player challenge asks), and the
interactive game.

``sylver wythoff 13 9`` prints the position after a winning move, ``(10, 6)``, or ``lost``;
``--all`` every winning move, ``--json`` the complete answer, ``--misere`` the misère game,
``--nim-value`` the Grundy value.  More than one pair of piles is a sum of games:
``sylver wythoff 1 2 3 4`` prints ``component 2: (3, 4) -> (1, 2)``.

:func:`play_wythoff` is the terminal game against the perfect player (``sylver play wythoff``).
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from sylver.cli.common import app, ask_move, fail, print_json
from sylver.errors import InvalidMoveError, InvalidPositionError, TooLargeError

if TYPE_CHECKING:  # imported where used: `sylver --help` and the other commands do not need them
    from rich.console import Console

    from sylver.wythoff import WythoffPosition

_INT = re.compile(r"[+-]?\d+")
_SPLIT = re.compile(r"[\s,;()\[\]{}]+")


def _allow_huge_numbers() -> None:
    """Piles may have thousands of digits: lift Python's int <-> str digit limit for this process."""
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)


def _piles_from_args(args: list[str]) -> list[WythoffPosition]:
    from sylver.wythoff import WythoffPosition

    tokens = [t for a in args for t in _SPLIT.split(a) if t]
    for t in tokens:
        if not _INT.fullmatch(t):
            if t.startswith("-") and not t[1:2].isdigit():
                fail(f"no such option: {t} (see `sylver wythoff --help`)")
            fail(f"{t!r} is not a pile size (pile sizes are integers ≥ 0)")
    if not tokens:
        fail("give two pile sizes, e.g. `sylver wythoff 13 9` (or more pairs for a sum of games)")
    if len(tokens) % 2:
        fail(
            f"{len(tokens)} number{'s' if len(tokens) > 1 else ''} given: a position is a pair of "
            "pile sizes, e.g. `sylver wythoff 13 9`"
        )
    piles = []
    for a, b in zip(tokens[::2], tokens[1::2], strict=True):
        try:
            piles.append(WythoffPosition(int(a), int(b)))
        except InvalidPositionError as exc:
            fail(str(exc))
    return piles


@app.command(
    context_settings={"ignore_unknown_options": True},
    no_args_is_help=False,
)
def wythoff(
    piles: list[str] = typer.Argument(  # noqa: B008
        None,
        metavar="I J",
        help="The two pile sizes (any size); several pairs form a sum of games.",
        show_default=False,
    ),
    all_moves: bool = typer.Option(False, "--all", "-a", help="List every winning move."),
    misere: bool = typer.Option(
        False, "--misere", help="Misère play: whoever takes the last counter loses."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    show_value: bool = typer.Option(
        False, "--nim-value", help="Also print the Grundy (nim) value."
    ),
) -> None:
    """Wythoff's Nim: print the position after a winning move from I J, or `lost`.

    A move takes counters from one pile, or the same number from both; whoever takes the last counter wins (with --misere: loses). Several pairs of piles form a sum of games. Exit status 0 whether the position is won or lost.
    """
    _allow_huge_numbers()
    games = _piles_from_args(piles or [])
    try:
        if len(games) == 1:
            _single(games[0], all_moves, misere, json_out, show_value)
        else:
            if all_moves:
                fail(
                    "--all lists the winning moves of a single game; a sum prints one winning move"
                )
            _sum(games, misere, json_out, show_value)
    except TooLargeError as exc:
        fail(str(exc))


def _single(
    p: WythoffPosition, all_moves: bool, misere: bool, json_out: bool, show_value: bool
) -> None:
    from sylver.wythoff import nim_value, outcome, winning_move, winning_moves

    moves = winning_moves(p.i, p.j, misere)
    result = outcome(p.i, p.j, misere)
    if json_out:
        obj: dict[str, Any] = {
            "position": [p.i, p.j],
            "outcome": str(result),
            "winning_moves": [[m.i, m.j] for m in moves],
        }
        if misere:
            obj["misere"] = True
        if show_value:
            obj["nim_value"] = nim_value(p.i, p.j, misere)
        print_json(obj)
        return
    if show_value:
        label = "misère Grundy value" if misere else "nim value"
        print(f"{label}: {nim_value(p.i, p.j, misere)}")
    if misere and p.is_over():
        print("won (the game is over: the opponent took the last counter)")
    elif not moves:
        print("lost")
    elif all_moves:
        for m in moves:
            print(m)
    else:
        print(winning_move(p.i, p.j, misere))


def _sum(games: list[WythoffPosition], misere: bool, json_out: bool, show_value: bool) -> None:
    from sylver.wythoff import sum_nim_value, winning_move_in_sum

    move = winning_move_in_sum(games, misere=misere)
    over = misere and all(g.is_over() for g in games)
    won = move is not None or over
    if json_out:
        obj: dict[str, Any] = {
            "components": [[g.i, g.j] for g in games],
            "outcome": "N" if won else "P",
            "winning_move": None
            if move is None
            else {"index": move.index, "before": list(move.before), "after": list(move.after)},
        }
        if misere:
            obj["misere"] = True
        if show_value:
            if misere:
                fail("--nim-value: a misère sum has no Grundy value that decides it")
            obj["nim_value"] = sum_nim_value(games)
        print_json(obj)
        return
    if show_value:
        if misere:
            fail("--nim-value: a misère sum has no Grundy value that decides it")
        print(f"nim value: {sum_nim_value(games)}")
    if over:
        print("won (the game is over: the opponent took the last counter)")
    elif move is None:
        print("lost")
    else:
        print(move)


# ---------------------------------------------------------------------------------------------
# The interactive game


def _board(p: WythoffPosition) -> str:
    """The queen's quarter-board for small piles: Q the queen, * the corner."""
    rows = []
    for y in range(p.j, -1, -1):
        cells = []
        for x in range(p.i + 1):
            cells.append("Q" if (x, y) == (p.i, p.j) else "*" if (x, y) == (0, 0) else "·")
        rows.append(f"{y:>3} " + " ".join(cells))
    rows.append("    " + " ".join(str(x % 10) for x in range(p.i + 1)))
    return "\n".join(rows)


def _random_start(rng: random.Random, want_n: bool, misere: bool) -> WythoffPosition:
    from sylver.wythoff import WythoffPosition

    while True:
        p = WythoffPosition(rng.randint(4, 20), rng.randint(4, 20))
        if (not p.is_p_position(misere)) == want_n:
            return p


_HELP = (
    "Type the position after your move, e.g. `3 5` or `(3, 5)`: take counters from one pile, "
    "or the same number from both. Other commands: `hint` (a winning move, if any), "
    "`quit`."
)


def play_wythoff(
    console: Console,
    start: WythoffPosition | tuple[int, int] | str | None = None,
    first: bool = True,
    misere: bool = False,
    input_fn: Callable[[str], str] = input,
    rng: random.Random | None = None,
) -> bool | None:
    """Play Wythoff's Nim in the terminal against the perfect player.

    ``start``: the starting piles (a pair, a WythoffPosition or text like ``"13 9"``); by default
    a random position (piles 4..20) from which the human can win with perfect play: an N-position
    if the human moves first, a P-position otherwise.
    ``first``: the human moves first.  ``misere``: whoever takes the last counter loses.
    ``input_fn(prompt)`` reads one line (tests feed lines; EOF quits).

    Returns True if the human won, False if the computer won, None if the human quit.
    """
    from sylver.wythoff import WythoffPosition, computer_move, winner, winning_move

    rng = rng or random.Random()
    if start is None:
        pos = _random_start(rng, want_n=first, misere=misere)
    elif isinstance(start, str):
        pos = WythoffPosition.parse(start)
    else:
        pos = WythoffPosition(*start)
    rule = "takes the last counter loses" if misere else "takes the last counter wins"
    console.print(f"Wythoff's Nim{' (misère)' if misere else ''}: whoever {rule}.")
    console.print(escape(_HELP))
    human = first
    show = True  # draw the position when it is new to the human: at the start, after my moves, at the end
    while True:
        if show:
            if max(pos) <= 12:
                console.print(_board(pos), markup=False, highlight=False)
            console.print(f"Position: {pos}", highlight=False)
            show = False
        if pos.is_over():
            # the player to move faces (0, 0): the other one took the last counter
            human_won = winner(pos, last_mover=not human, other=human, misere=misere)
            console.print("You win!" if human_won else "I win.", highlight=False)
            return human_won
        if not human:
            new = computer_move(pos, misere)
            console.print(f"I move to {new}.", highlight=False)
            pos, human, show = new, True, True
            continue
        line = ask_move(console, input_fn)
        if line is None:
            return None
        word = line.lower()
        if word in {"h", "hint"}:
            hint = winning_move(pos.i, pos.j, misere)
            if hint is None:
                console.print("No winning move: this position is lost against perfect play.")
            else:
                console.print(f"Winning move: {hint}", highlight=False)
            continue
        if word in {"", "?", "help"}:
            console.print(escape(_HELP))
            continue
        try:
            pos = pos.play(WythoffPosition.parse(line))
        except (InvalidPositionError, InvalidMoveError) as exc:
            console.print(f"Not a legal move: {escape(str(exc))}", highlight=False)
            continue
        human, show = False, pos.is_over()
