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
    (["check", "random", "--clock"], "(0: none)"),
    (["check", "random", "--move-time"], "(0: none)"),
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
