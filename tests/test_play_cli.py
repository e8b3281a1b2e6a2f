"""`sylver play`: a game in the terminal, driven through stdin."""

from __future__ import annotations

from typer.testing import CliRunner

from sylver.cli import app

runner = CliRunner()


def play(args, text):
    return runner.invoke(app, ["play", *args], input=text)


class TestPlay:
    def test_illegal_input_is_explained_and_asked_again(self):
        r = play(["--start", "4,5"], "13\nabc\n7\n6\n3\n")
        assert r.exit_code == 0, r.output
        assert "13 = 4·2 + 5·1" in r.output
        assert "'abc' is not a positive integer" in r.output
        assert "Legal moves: 1, 2, 3, 6, 7, 11" in r.output
        assert "I win" in r.output

    def test_human_can_win(self):
        r = play(["--start", "2,5"], "3\n")
        assert r.exit_code == 0, r.output
        assert "You win!" in r.output

    def test_naming_one_loses(self):
        r = play(["--start", "4,5"], "1\n")
        assert "You named 1: you lose" in r.output

    def test_second_and_eof(self):
        r = play(["--second", "--bot", "greedy", "--seed", "3"], "")
        assert r.exit_code == 0
        assert "I name" in r.output and "Game abandoned" in r.output

    def test_perfect_opens_with_a_prime(self):
        r = play(["--second"], "quit\n")
        assert "I name 5." in r.output

    def test_commands(self):
        r = play(["--start", "4,5"], "moves\nhint\nquit\n")
        assert "Winning moves: 11" in r.output

    def test_hint_in_a_koth_start(self):
        r = play(["--start", "123457 654323"], "hint\nquit\n")
        assert "strategy stealing" in r.output
        assert "40,389,988,416 legal moves" in r.output

    def test_bad_arguments(self):
        assert play(["chess"], "").exit_code == 2
        assert play(["--bot", "nobody"], "").exit_code == 2
        assert play(["--start", "1,5"], "").exit_code == 2
        assert play(["--start", "x"], "").exit_code == 2

    def test_wythoff(self):
        r = play(["wythoff"], "")
        assert r.exit_code == 0
        assert "Wythoff" in r.output


FLOAT_OPTIONS = [
    (["play", "--think"], "at least 0.05 seconds"),
    (["serve", "--bot-time"], "at least 0.05 seconds"),
    (["serve", "--solve-time"], "at least 0.05 seconds"),
    (["serve", "--job-time"], "at least 0.1 seconds"),
    (["solve", "4", "5", "--time-limit"], "a positive number of seconds"),
    (["match", "random", "greedy", "--clock"], "a positive number of seconds (0: none)"),
    (["match", "random", "greedy", "--move-time"], "a positive number of seconds (0: none)"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--clock"], "(0: none)"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--move-time"], "(0: none)"),
    (["conformance", "random", "--clock"], "(0: none)"),
    (["conformance", "random", "--move-time"], "(0: none)"),
    (["campaign", "run", "--time-limit"], "a positive number of seconds"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--solve-seconds"], "at least 0.01 seconds"),
    (["match", "random", "greedy", "--solve-seconds"], "at least 0.01 seconds"),
    (["blunders", "unused", "--solve-seconds"], "at least 0.01 seconds"),
    (["campaign", "run", "--first-budget"], "a positive number of seconds"),
]


def test_every_option_in_seconds_rejects_nan_inf_and_negatives(tmp_path, monkeypatch):
    """One validator (cli.common.seconds) for every float option: one line, exit 2, nothing run."""
    monkeypatch.chdir(tmp_path)
    for args, expected in FLOAT_OPTIONS:
        for bad in ("nan", "inf", "-inf", "-1"):
            r = runner.invoke(app, [*args, bad])
            assert r.exit_code == 2, (args, bad, r.output)
            line = f"sylver: error: {args[-1]} must be "
            assert r.output.startswith(line) and expected in r.output and r.output.count("\n") == 1, (args, bad, r.output)
    assert not (tmp_path / "unused").exists()


UNBOUNDED_INT_OPTIONS = {"--seed"}
"""Integer options that take any integer."""
INT_OPTIONS = [
    (["serve", "--port"], ("-1", "65536"), "from 0 to 65535"),
    (["serve", "--workers"], ("0", "65"), "from 1 to 64"),
    (["serve", "--queue"], ("-1",), "at least 0"),
    (["serve", "--max-number"], ("1",), "at least 2"),
    (["serve", "--max-multiplicity"], ("0",), "at least 2"),
    (["solve", "4", "5", "--jobs"], ("0",), "at least 1"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--rounds"], ("0",), "at least 1"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--concurrency"], ("0",), "at least 1"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--cap"], ("-1",), "at least 1 (0: no cap)"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--gap-list-limit"], ("-1",), "at least 0"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--penalties"], ("0",), "at least 1"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--memory"], ("63",), "at least 64 MiB"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--report-every"], ("-1",),
     "at least 1 (0: ~10 times)"),
    (["match", "random", "greedy", "-o", "unused", "--games"], ("0", "-3"), "at least 1"),
    (["match", "random", "greedy", "-o", "unused", "--concurrency"], ("0",), "at least 1"),
    (["match", "random", "greedy", "-o", "unused", "--cap"], ("-1",), "at least 1 (0: no cap)"),
    (["match", "random", "greedy", "-o", "unused", "--gap-list-limit"], ("-1",), "at least 0"),
    (["match", "random", "greedy", "-o", "unused", "--penalties"], ("0",), "at least 1"),
    (["match", "random", "greedy", "-o", "unused", "--memory"], ("1",), "at least 64 MiB"),
    (["conformance", "random", "--cap"], ("-1",), "at least 1 (0: no cap)"),
    (["conformance", "random", "--memory"], ("0",), "at least 64 MiB"),
    (["campaign", "run", "--jobs"], ("0",), "at least 1"),
    (["campaign", "verify", "--jobs"], ("0",), "at least 1"),
    (["verify", "unused.json", "--jobs"], ("0",), "at least 1"),
    (["tournament", "-b", "random", "-b", "greedy", "-o", "unused", "--max-t"], ("0",), "at least 1"),
    (["match", "random", "greedy", "-o", "unused", "--max-t"], ("0",), "at least 1"),
    (["blunders", "unused", "--jobs"], ("0",), "at least 1"),
    (["blunders", "unused", "--max-t"], ("0",), "at least 1"),
    (["campaign", "run", "--max-attempts"], ("0",), "at least 1"),
    (["campaign", "run", "--first-states"], ("0",), "at least 1"),
    (["sweep", "10", "16", "--up-to"], ("1",), "at least 2"),
    (["campaign", "show", "--depth"], ("-1",), "at least 0"),
]


GROUPS = {"campaign"}
"""The commands with subcommands (``sylver campaign run``)."""


def command_of(args: list[str]) -> str:
    """The command that ``args`` call: ``solve``, or ``campaign run`` for a command with subcommands."""
    return " ".join(args[:2]) if args[0] in GROUPS else args[0]


def _number_options(kind: str) -> set[tuple[str, str]]:
    """(command, option) for every option of ``kind`` ("integer" or "float") of every command and
    subcommand (``campaign run``)."""
    import typer.main

    names = {"integer": {"integer", "int"}, "float": {"float"}}[kind]  # Click's names, Typer's copy's
    group = typer.main.get_command(app)
    commands = [(f"{name} {sub}", c) for name in GROUPS for sub, c in group.commands[name].commands.items()]
    commands += [(name, c) for name, c in group.commands.items() if name not in GROUPS]
    return {(name, param.opts[0]) for name, command in commands for param in command.params
            if param.type.name in names and param.opts[0].startswith("--")}


def test_every_integer_option_rejects_out_of_range_values(tmp_path, monkeypatch):
    """One validator (cli.common.integer) for every integer option with a range: one line, exit 2,
    nothing run."""
    monkeypatch.chdir(tmp_path)
    for args, bad_values, expected in INT_OPTIONS:
        for bad in bad_values:
            r = runner.invoke(app, [*args, bad])
            assert r.exit_code == 2, (args, bad, r.output)
            line = f"sylver: error: {args[-1]} must be {expected}, not {bad}\n"
            assert r.output == line, (args, bad, r.output)
    ranged = {(command_of(args), "--concurrency" if args[-1] == "-j" else args[-1]) for args, _, _ in INT_OPTIONS}
    unbounded = {(c, o) for c, o in _number_options("integer") if o in UNBOUNDED_INT_OPTIONS}
    assert _number_options("integer") == ranged | unbounded
    assert not (tmp_path / "unused").exists()


def test_a_number_option_given_text_is_one_line(tmp_path, monkeypatch):
    """`--port abc`, `--clock x`: Click's reading error is one line too, and exit 2."""
    monkeypatch.chdir(tmp_path)
    options = _number_options("integer") | _number_options("float")
    assert len(options) > 20
    needs = {"solve": ["4", "5"], "match": ["random", "greedy"], "conformance": ["random"], "verify": ["unused.json"],
             "tournament": ["-b", "random", "-b", "greedy", "-o", "unused"]}
    for command, option in sorted(options):
        r = runner.invoke(app, [*command.split(), *needs.get(command, []), option, "1x"])
        assert r.exit_code == 2, (command, option, r.output)
        assert r.output.startswith(f"sylver: error: {option}: '1x' is not a valid ") and r.output.count("\n") == 1, (
            command, option, r.output)
    assert not (tmp_path / "unused").exists()
