"""`sylver wythoff` and the interactive game `play_wythoff`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from sylver.cli import main
from sylver.cli.wythoff import play_wythoff
from sylver.wythoff import WythoffPosition, is_p_position, winning_move, winning_moves

SYLVER = Path(sys.executable).with_name("sylver")


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    out, err = capsys.readouterr()
    return code, out, err


class TestCommand:
    @pytest.mark.parametrize(
        ("args", "expected"),
        [
            (["5", "0"], {"(0, 0)"}),
            (["2", "2"], {"(1, 2)", "(2, 1)", "(0, 0)"}),
            (["1", "2"], {"lost"}),
            (["13", "9"], {"(13, 8)", "(10, 6)"}),
            (["10", "6"], {"lost"}),
            (["5", "10"], {"(5, 3)"}),
            (["25", "30"], {"(8, 13)"}),
        ],
    )
    def test_seed_examples(self, capsys, args, expected):
        code, out, err = run(capsys, "wythoff", *args)
        assert code == 0 and err == ""
        assert out.strip() in expected

    def test_all(self, capsys):
        assert run(capsys, "wythoff", "2", "2", "--all") == (0, "(0, 0)\n(1, 2)\n(2, 1)\n", "")
        assert run(capsys, "wythoff", "--all", "10", "6") == (0, "lost\n", "")

    def test_json(self, capsys):
        code, out, _ = run(capsys, "wythoff", "13", "9", "--json")
        assert code == 0
        assert json.loads(out) == {
            "position": [13, 9],
            "outcome": "N",
            "winning_moves": [[10, 6], [13, 8]],
        }
        code, out, _ = run(capsys, "wythoff", "10", "6", "--json")
        assert json.loads(out) == {"position": [10, 6], "outcome": "P", "winning_moves": []}

    def test_misere(self, capsys):
        assert run(capsys, "wythoff", "1", "2", "--misere") == (0, "(0, 1)\n", "")
        assert run(capsys, "wythoff", "2", "2", "--misere") == (0, "lost\n", "")
        assert run(capsys, "wythoff", "0", "1", "--misere") == (0, "lost\n", "")
        code, out, _ = run(capsys, "wythoff", "0", "0", "--misere", "--json")
        assert json.loads(out) == {
            "position": [0, 0],
            "outcome": "N",
            "winning_moves": [],
            "misere": True,
        }
        code, out, _ = run(capsys, "wythoff", "0", "0", "--misere")
        assert out.startswith("won")

    def test_text_forms_of_a_position(self, capsys):
        for args in (["13,9"], ["(13, 9)"], ["13", "9"]):
            assert run(capsys, "wythoff", *args)[1] == "(10, 6)\n"

    def test_nim_value(self, capsys):
        assert run(capsys, "wythoff", "3", "4", "--nim-value") == (0, "nim value: 2\n(1, 2)\n", "")
        code, out, _ = run(capsys, "wythoff", "3", "4", "--nim-value", "--json")
        assert json.loads(out)["nim_value"] == 2

    def test_sum(self, capsys):
        assert run(capsys, "wythoff", "1", "2", "3", "4") == (
            0,
            "component 2: (3, 4) -> (1, 2)\n",
            "",
        )
        assert run(capsys, "wythoff", "1", "2", "3", "5") == (0, "lost\n", "")
        code, out, _ = run(capsys, "wythoff", "1", "2", "3", "4", "--json")
        assert json.loads(out) == {
            "components": [[1, 2], [3, 4]],
            "outcome": "N",
            "winning_move": {"index": 1, "before": [3, 4], "after": [1, 2]},
        }
        code, out, _ = run(capsys, "wythoff", "1", "2", "3", "4", "--misere")
        assert (code, out) == (0, "component 1: (1, 2) -> (0, 2)\n")
        assert run(capsys, "wythoff", "1", "1", "1", "1", "--misere")[1] == "lost\n"
        assert run(capsys, "wythoff", "0", "0", "0", "0", "--misere")[1].startswith("won")

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            ([], "give two pile sizes"),
            (["3"], "a position is a pair"),
            (["1", "2", "3"], "a position is a pair"),
            (["-1", "2"], "pile -1 is negative"),
            (["--", "-1", "2"], "pile -1 is negative"),
            (["2", "-5"], "pile -5 is negative"),
            (["1.5", "2"], "'1.5' is not a pile size"),
            (["x", "2"], "'x' is not a pile size"),
            (["--bogus", "1", "2"], "no such option: --bogus"),
            (["1", "2", "3", "4", "--all"], "--all"),
            (["1", "2", "3", "4", "--misere", "--nim-value"], "misère sum"),
            (["4", str(10**60), "--nim-value"], "cells"),
            (["4", "5", str(10**60), "4"], "cells"),
            (["3", "9" * 5000, "--nim-value"], "(3, a 5,000-digit number)"),
        ],
    )
    def test_bad_input(self, capsys, args, message):
        code, out, err = run(capsys, "wythoff", *args)
        assert code == 2 and out == ""
        assert err.startswith("sylver: error: ") and message in err
        assert err.count("\n") == 1 and len(err) < 300, err

    def test_huge_piles_console_script(self):
        i, j = "7" * 3000, "3" * 2999 + "1"
        proc = subprocess.run(
            [str(SYLVER), "wythoff", i, j, "--json"], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, proc.stderr
        sys.set_int_max_str_digits(0)
        data = json.loads(proc.stdout)
        assert data["position"] == [int(i), int(j)] and data["outcome"] == "N"
        assert data["winning_moves"] == [list(m) for m in winning_moves(int(i), int(j))]
        assert all(is_p_position(*m) for m in data["winning_moves"])


def feed(*lines: str):
    it = iter(lines)

    def input_fn(prompt: str) -> str:
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    return input_fn


def console() -> Console:
    return Console(record=True, width=100, force_terminal=False)


class TestPlay:
    def test_human_wins_with_perfect_play(self):
        c = console()
        positions = []

        def answer(prompt: str) -> str:
            text = c.export_text(clear=False)
            last = [ln for ln in text.splitlines() if ln.startswith("Position: ")][-1]
            pos = WythoffPosition.parse(last.removeprefix("Position: "))
            positions.append(pos)
            move = winning_move(pos.i, pos.j)
            assert move is not None, pos
            return f"{move.i} {move.j}"

        result = play_wythoff(c, start=(13, 9), first=True, input_fn=answer)
        assert result is True
        assert positions[0] == (13, 9)
        assert "You win!" in c.export_text()

    def test_computer_wins_when_human_faces_p_position(self):
        c = console()
        result = play_wythoff(c, start="10 6", input_fn=feed("10 5", "hint", "0 0", "quit"))
        text = c.export_text()
        assert text.count("I move to") == 1
        # after 10 5 the computer answers with a winning move; the hint then says the human is lost
        assert "No winning move: this position is lost" in text
        assert result is None  # the human quit

    def test_illegal_and_garbage_moves_are_refused(self):
        c = console()
        result = play_wythoff(
            c, start=(3, 4), input_fn=feed("3 4", "4 4", "2 1", "banana", "", "1 2")
        )
        text = c.export_text()
        assert text.count("Not a legal move") == 4
        assert "I move to" in text
        assert result is None  # input ran out (EOF) after the computer's reply

    def test_computer_first_and_finishing(self):
        c = console()
        # the computer moves first from (5, 0) straight to the corner and wins
        assert play_wythoff(c, start=(5, 0), first=False, input_fn=feed()) is False
        text = c.export_text()
        assert "I move to (0, 0)" in text and "I win." in text

    def test_misere_game(self):
        c = console()
        # misère: from (1, 1) the human moves to (0, 1); the computer must take the last counter
        assert play_wythoff(c, start=(1, 1), misere=True, input_fn=feed("0 1")) is True
        assert "misère" in c.export_text()

    def test_random_start_is_winnable(self):
        import random

        for first in (True, False):
            c = console()
            rng = random.Random(7)
            play_wythoff(c, first=first, input_fn=feed("quit"), rng=rng)
            text = c.export_text()
            start = [ln for ln in text.splitlines() if ln.startswith("Position: ")][0]
            pos = WythoffPosition.parse(start.removeprefix("Position: "))
            assert pos.is_p_position() != first

    def test_start_over(self):
        c = console()
        assert play_wythoff(c, start=(0, 0), input_fn=feed()) is False


DOC = Path(__file__).resolve().parents[1] / "docs" / "wythoff.md"


def _doc_console_examples() -> list[tuple[list[str], str]]:
    examples: list[tuple[list[str], str]] = []
    in_console = False
    for line in DOC.read_text().splitlines():
        if line.startswith("```"):
            in_console = line == "```console"
            continue
        if not in_console:
            continue
        if line.startswith("$ sylver "):
            command = line[len("$ sylver ") :].split("  #")[0].split()
            examples.append((command, ""))
        else:
            command, out = examples[-1]
            examples[-1] = (command, out + line + "\n")
    return examples


class TestDocs:
    def test_console_examples(self, capsys):
        examples = _doc_console_examples()
        assert len(examples) >= 8
        for command, expected in examples:
            code, out, err = run(capsys, *command)
            assert (code, out, err) == (0, expected, ""), command

    def test_python_examples(self):
        import doctest

        import sylver.wythoff

        result = doctest.testfile(str(DOC), module_relative=False)
        assert result.attempted >= 6 and result.failed == 0
        result = doctest.testmod(sylver.wythoff)
        assert result.attempted >= 15 and result.failed == 0
