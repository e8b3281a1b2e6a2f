"""sylver.jit: kernels created at first use, small calls run as Python with the same answers, and a
cold numba cache announced; the command modules import only what a command uses."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sylver import jit, semigroup, theory, wythoff
from sylver.semigroup import UNREACHABLE, Semigroup

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _python(code: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {}))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=full_env,
                          timeout=120)


def _kernels(module: object) -> set[str]:
    return {name for name, value in vars(module).items() if isinstance(value, jit.Kernel)}


def _apery(gens: list[int]) -> np.ndarray:
    return Semigroup(gens).apery_array().copy()


class TestInterpretedEqualsCompiled:
    """Every kernel gives the same answer run as Python (small calls in the `sylver` command) and
    compiled."""

    def test_every_kernel_is_covered(self) -> None:
        assert _kernels(semigroup) == {"round_robin_add", "_first_add", "_gaps_into"}
        assert _kernels(theory) == {"_special_gaps", "_enclosure_moves"}
        assert _kernels(wythoff) == {"grundy_rectangle"}

    @pytest.mark.parametrize("seed", range(6))
    def test_semigroup_and_theory_kernels(self, seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(15):
            m = rng.randint(2, 40)
            gens = sorted({m, *(rng.randint(m + 1, 6 * m) for _ in range(rng.randint(1, 4)))})
            if np.gcd.reduce(gens) != 1:
                gens.append(m + 1)
            ap = _apery(gens)
            a = rng.randint(m + 1, 8 * m)
            for kernel in (semigroup.round_robin_add, semigroup._first_add):
                start = ap.copy() if kernel is semigroup.round_robin_add else np.full(m, UNREACHABLE)
                start[0] = 0
                py, nb = start.copy(), start.copy()
                kernel.py_func(py, a)
                kernel.compiled()(nb, a)
                assert np.array_equal(py, nb), (kernel, gens, a)
            sg = Semigroup(gens)
            out_py, out_nb = np.zeros(sg.genus, np.int64), np.zeros(sg.genus, np.int64)
            assert semigroup._gaps_into.py_func(ap, out_py) == semigroup._gaps_into.compiled()(ap, out_nb)
            assert np.array_equal(out_py, out_nb) and sorted(out_py.tolist()) == sg.gaps()
            others = np.asarray(sg.generators[1:], dtype=np.int64)
            out_py, out_nb = np.zeros(m, np.int64), np.zeros(m, np.int64)
            k = theory._special_gaps.py_func(ap, others, out_py)
            assert k == theory._special_gaps.compiled()(ap, others, out_nb)
            assert np.array_equal(out_py[:k], out_nb[:k])
            t = sg.frobenius_number
            count = sg.genus - t // 2 - 1
            out_py, out_nb = np.zeros(count, np.int64), np.zeros(count, np.int64)
            assert theory._enclosure_moves.py_func(ap, t, out_py) == count
            assert theory._enclosure_moves.compiled()(ap, t, out_nb) == count
            assert np.array_equal(out_py, out_nb)

    def test_grundy_kernel(self) -> None:
        for rows, cols, terminal in ((0, 0, 0), (3, 7, 0), (6, 6, 1), (9, 12, 0)):
            py = wythoff.grundy_rectangle.py_func(rows, cols, terminal)
            assert np.array_equal(py, wythoff.grundy_rectangle.compiled()(rows, cols, terminal))


class TestTiers:
    def test_small_calls_run_as_python_until_the_budget_is_spent(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def double(a):  # type: ignore[no-untyped-def]
            for i in range(a.shape[0]):
                a[i] *= 2

        kernel = jit.Kernel(double, {"cache": False})
        monkeypatch.setattr(jit, "_budget", 10)
        a = np.ones(4, dtype=np.int64)
        kernel(a)
        assert a.tolist() == [2] * 4 and not kernel.loaded  # 4 elements: Python, 6 left
        kernel(np.ones(0, dtype=np.int64))  # nothing to measure the work by: compiled
        assert kernel.loaded
        other = jit.Kernel(double, {"cache": False})
        b = np.ones(8, dtype=np.int64)
        other(b)  # 8 elements > the 6 left: compiled
        assert b.tolist() == [2] * 8 and other.loaded and jit._budget == 6

    def test_pickled_by_name(self) -> None:
        import pickle

        assert pickle.loads(pickle.dumps(semigroup.round_robin_add)) is semigroup.round_robin_add

    def test_library_default_is_compiled(self) -> None:
        out = _python("from sylver import jit; print(jit._budget)")
        assert out.stdout.strip() == "0", out.stderr


class TestLazyImports:
    def test_public_names(self) -> None:
        code = (
            "import sys, sylver\n"
            "assert 'sylver.position' not in sys.modules and 'numpy' not in sys.modules\n"
            "from sylver import Position, Outcome, InvalidPositionError\n"
            "from sylver import theory\n"
            "assert 'numba' not in sys.modules\n"
            "print(Position('4,5').legal_moves(), Outcome.P, sorted(set(sylver.__all__) - set(dir(sylver))))\n"
            "try:\n    sylver.Nope\nexcept AttributeError as e:\n    print(e)\n"
        )
        out = _python(code)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines() == ["[1, 2, 3, 6, 7, 11] P []", "module 'sylver' has no attribute 'Nope'"]

    @pytest.mark.parametrize(
        ("args", "absent"),
        [
            (["--help"], {"numpy", "numba", "sylver.position", "pydantic", "markdown_it", "pygments",
                          "sylver.cli.solve", "sylver.cli.analyze"}),
            (["version"], {"numpy", "numba", "sylver.position", "pydantic", "rich.console", "sylver.cli.solve"}),
            (["wythoff", "13", "9"], {"numba", "sylver.theory", "sylver.solver", "pydantic", "rich.console",
                                      "sylver.cli.solve", "sylver.cli.analyze", "sylver.cli.arena"}),
            (["analyze", "4", "5"], {"numba", "sylver.solver", "pydantic", "sylver.cli.solve"}),
        ],
    )
    def test_commands_import_only_what_they_use(self, args: list[str], absent: set[str]) -> None:
        code = (
            "import sys\nfrom sylver.cli import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
        )
        out = _python(code, *args)
        assert out.returncode == 0, out.stderr
        loaded = set(out.stderr.split())
        assert not absent & loaded


    def test_rich_markdown_still_works_after_the_cli_deferred_it(self) -> None:
        code = (
            "import sys\nimport sylver.cli\n"
            "assert 'markdown_it' not in sys.modules\n"
            "from rich.markdown import Markdown, Heading\n"
            "import rich.markdown\n"
            "md = Markdown('# title')\n"
            "print(type(md).__module__, Heading.__name__, sys.modules['rich.markdown'].Markdown is type(md))\n"
        )
        out = _python(code)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["rich.markdown", "Heading", "True"]

    def test_rich_traceback_still_works_after_the_cli_deferred_it(self) -> None:
        code = (
            "import sys\nimport sylver.cli\n"
            "assert 'pygments' not in sys.modules\n"
            "from rich.traceback import Traceback\n"
            "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n"
            "    tb = Traceback.from_exception(type(e), e, e.__traceback__)\n"
            "    made = Traceback()\n"
            "print(type(tb).__module__, sys.modules['rich.traceback'].Traceback is type(tb), type(made).__name__)\n"
        )
        out = _python(code)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["rich.traceback", "True", "Traceback"]

    def test_help_lines_are_the_commands_docstrings(self) -> None:
        """``sylver --help`` lists :data:`COMMANDS` without building the commands: each line must be
        the first paragraph of that command's docstring, and each module the one registering it."""
        code = (
            "import importlib, inspect, json\n"
            "from sylver.cli.common import COMMANDS, app\n"
            "for module, _ in COMMANDS.values():\n"
            "    importlib.import_module('sylver.cli' + ('.' + module if module else ''))\n"
            "real = [(i.name or i.callback.__name__.replace('_', '-'), i.callback.__module__,\n"
            "         (i.help or inspect.getdoc(i.callback)).split(chr(10) * 2)[0]) for i in app.registered_commands]\n"
            "real += [(g.name, g.typer_instance.registered_callback.callback.__module__,\n"
            "          inspect.getdoc(g.typer_instance.registered_callback.callback).split(chr(10) * 2)[0])\n"
            "         for g in app.registered_groups]\n"
            "print(json.dumps(real))\n"
        )
        out = _python(code)
        assert out.returncode == 0, out.stderr
        from sylver.cli.common import COMMANDS

        real = {name: (module, line) for name, module, line in json.loads(out.stdout)}
        table = {name: ("sylver.cli" + ("." + module if module else ""), line)
                 for name, (module, line) in COMMANDS.items()}
        assert real == table
        modules = {path.stem for path in (Path(SRC) / "sylver" / "cli").glob("*.py")} - {"__init__", "common"}
        assert modules == {module for module, _ in COMMANDS.values()} - {""}  # a new module has its commands listed


class TestCompilationNotice:
    CODE = (
        "import sys\nfrom sylver import jit\n"
        "jit.watch_compilation(always=sys.argv[1] == 'always')\n"
        "kernel = jit.njit(cache=False)(lambda x: x + 1)\n"
        "print(kernel(1), kernel(2))\n"
    )

    def test_announced_once(self) -> None:
        out = _python(self.CODE, "always")
        assert out.returncode == 0 and out.stdout == "2 3\n", out.stderr
        assert out.stderr.count("sylver: compiling numba kernels for this machine") == 1

    def test_silent_when_nobody_is_watching(self) -> None:
        out = _python(self.CODE, "terminal-only")  # stderr is a pipe here
        assert out.returncode == 0 and out.stdout == "2 3\n" and out.stderr == ""


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("4", "4")])
def test_the_command_keeps_openblas_to_one_thread(monkeypatch: pytest.MonkeyPatch, capsys, given, expected) -> None:
    """``sylver`` sets OPENBLAS_NUM_THREADS=1 before numpy is imported (its idle thread spins for
    60-90 ms of CPU in every command), unless the user set it."""
    from sylver.cli import main

    if given is None:
        monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", given)
    with pytest.raises(SystemExit) as done:
        main(["version"])
    assert done.value.code in (0, None)
    assert os.environ["OPENBLAS_NUM_THREADS"] == expected
    assert capsys.readouterr().out.strip()
