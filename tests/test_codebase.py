"""The code's own checks (issue 16), read from the sources with `ast` (nothing is imported or run).

- No private name crosses a module boundary: ``from sylver.x import _y``, ``import sylver.x._y``
  and ``x._y`` (``x`` a sylver module) are refused; dunder names (``__version__``) are public.
- No call of one of sylver's classes (dataclasses, enums, named tuples, exceptions... any class
  defined under ``src/sylver``) with more than ``MAX_POSITIONAL`` positional arguments: pass them
  by keyword.
- No function over ``MAX_LINES`` lines (``def`` to last line) unless it is a numba kernel
  (decorated with ``njit`` or ``jit``, numba's or :mod:`sylver.jit`'s) or its docstring says why
  it is long: a sentence with "because" and one of "long", "length", "one piece".

``ALLOWED`` lists the violations that remain in the solver package (none since the g > 1 engine's
answers became keyword-only and its long functions were split); it may only shrink: an entry that
no longer matches a violation fails the test too.

The imports follow the floors that ``docs/design.md`` draws (its "Dependencies" table): a module
imports only from its own unit and from lower floors, and there is no import circle between
modules; every import counts, those inside functions and under ``TYPE_CHECKING`` too.  Outside the
solver, a module imports it only through its entry points, ``sylver.solver`` and
``sylver.solver.gcd`` (issue 52; the proofs' builder also through the kernel's boundary).

And the tools are the ones tested (issue 31: pin what we test): the test extra pins the checkers
(``CHECKERS``) exactly, ``constraints.txt`` pins every installed dependency of sylver at its
installed version, and mypy and ruff find nothing.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from collections import Counter
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "sylver"
MAX_POSITIONAL = 4
MAX_LINES = 80
WHY_LONG = re.compile(r"[^.]*\bbecause\b[^.]*", re.IGNORECASE)
LENGTH_WORDS = re.compile(r"\b(long|length|one piece)\b", re.IGNORECASE)

ALLOWED: Counter[str] = Counter()
"""Violations still allowed, as :func:`violations` words them, with their number of occurrences.

Only in the solver package and ``cli/solve.py`` (issue 16 part 2's ground); ``python
tests/test_codebase.py`` prints the violations of the tree in this form."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


SOURCES = [(module_name(path), path, ast.parse(path.read_text(), filename=str(path)))
           for path in sorted(PACKAGE.rglob("*.py"))]
MODULES = {name for name, _, _ in SOURCES}
CLASSES = {node.name for _, _, tree in SOURCES for node in ast.walk(tree)
           if isinstance(node, ast.ClassDef)}
"""The names of sylver's classes (a call is checked if its name is bound to one of them)."""


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module an ``import from`` names, relative imports resolved against ``module``."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


class Scopes(ast.NodeVisitor):
    """Walks a module, knowing the enclosing function or class (``where``) of each node."""

    def __init__(self, module: str, path: Path) -> None:
        self.module = module
        self.is_package = path.name == "__init__.py"
        self.file = str(path.relative_to(SRC))
        self.stack: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> sylver module it is bound to
        self.classes: set[str] = set()  # local names bound to sylver classes
        self.found: list[str] = []

    def where(self) -> str:
        return ".".join(self.stack) or "<module>"

    def report(self, what: str) -> None:
        self.found.append(f"{self.file}: {self.where()}: {what}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.classes.add(node.name)
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.stack.append(node.name)
        self.check_length(node)
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def check_length(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        lines = (node.end_lineno or node.lineno) - node.lineno + 1
        if lines <= MAX_LINES or any(is_kernel_decorator(d) for d in node.decorator_list):
            return
        doc = ast.get_docstring(node) or ""
        if not any(LENGTH_WORDS.search(s) for s in WHY_LONG.findall(" ".join(doc.split()))):
            self.report(f"over {MAX_LINES} lines, no reason in the docstring")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name.split(".")[0] != "sylver":
                continue
            if any(is_private(part) for part in alias.name.split(".")):
                self.report(f"imports private {alias.name}")
            self.modules[alias.asname or alias.name.split(".")[0]] = (
                alias.name if alias.asname else "sylver")

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        source = absolute(self.module, self.is_package, node)
        if source.split(".")[0] != "sylver":
            return
        for alias in node.names:
            if is_private(alias.name) or any(is_private(p) for p in source.split(".")):
                self.report(f"imports private {source}.{alias.name}")
            if f"{source}.{alias.name}" in MODULES:
                self.modules[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif alias.name in CLASSES:
                self.classes.add(alias.asname or alias.name)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        owner = self.dotted(node.value)
        if owner in MODULES and owner != self.module and is_private(node.attr):
            self.report(f"uses private {owner}.{node.attr}")
        self.generic_visit(node)

    def dotted(self, node: ast.expr) -> str | None:
        """The sylver module an expression such as ``kernels`` or ``sylver.solver`` names."""
        if isinstance(node, ast.Name):
            return self.modules.get(node.id)
        if isinstance(node, ast.Attribute):
            owner = self.dotted(node.value)
            return f"{owner}.{node.attr}" if owner else None
        return None

    def visit_Call(self, node: ast.Call) -> None:
        name = self.class_called(node.func)
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        if name and len(positional) > MAX_POSITIONAL:
            self.report(f"{name}(...) with more than {MAX_POSITIONAL} positional arguments")
        self.generic_visit(node)

    def class_called(self, func: ast.expr) -> str | None:
        """The sylver class that ``func`` names: ``Solution``, ``solver.Solution``, ``cls``."""
        if isinstance(func, ast.Name):
            if func.id == "cls" and len(self.stack) >= 2:
                return self.stack[-2]
            return func.id if func.id in self.classes else None
        if isinstance(func, ast.Attribute) and func.attr in CLASSES and self.dotted(func.value):
            return func.attr
        return None


def is_kernel_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(
        target, ast.Attribute) else ""
    return name in {"njit", "jit"}


def violations() -> Counter[str]:
    """Every violation of the checks in ``src/sylver``, as ``file: where: what``."""
    found: Counter[str] = Counter()
    for module, path, tree in SOURCES:
        scopes = Scopes(module, path)
        scopes.visit(tree)
        found.update(scopes.found)
    return found


def test_allowlist_is_the_solvers_only() -> None:
    assert all(entry.startswith(("sylver/solver/", "sylver/cli/solve.py: ")) for entry in ALLOWED)


def test_no_violation_beyond_the_allowlist() -> None:
    extra = violations() - ALLOWED
    assert not extra, "\n" + "\n".join(sorted(extra.elements()))


def test_allowlist_only_shrinks() -> None:
    stale = ALLOWED - violations()
    assert not stale, "fixed: remove from ALLOWED\n" + "\n".join(sorted(stale.elements()))


@pytest.mark.parametrize(("source", "expected"), [
    ("from sylver.solver import _solve_local\n", "imports private sylver.solver._solve_local"),
    ("from .store import _open\n", "imports private sylver.arena.store._open"),
    ("import sylver.semigroup as sg\nsg._first_add(a, 1)\n",
     "uses private sylver.semigroup._first_add"),
    ("from sylver import theory\ntheory._special_gaps\n", "uses private sylver.theory._special_gaps"),
    ("from sylver.position import Position\nPosition(1, 2, 3, 4, 5)\n",
     "Position(...) with more than 4 positional arguments"),
    ("from sylver import position\nposition.Position(1, 2, 3, 4, 5)\n",
     "Position(...) with more than 4 positional arguments"),
    ("class A:\n    @classmethod\n    def of(cls):\n        return cls(1, 2, 3, 4, 5)\n",
     "A(...) with more than 4 positional arguments"),
    ("def f():\n    '''Short.'''\n" + "    x = 1\n" * 80, "over 80 lines, no reason in the docstring"),
])
def test_each_check_can_fail(source: str, expected: str, tmp_path: Path) -> None:
    path = PACKAGE / "arena" / "example.py"
    scopes = Scopes("sylver.arena.example", path)
    scopes.visit(ast.parse(source))
    assert [found.split(": ", 2)[2] for found in scopes.found] == [expected]


@pytest.mark.parametrize("source", [
    "from sylver.solver import solve\nfrom sylver import __version__\n",
    "from sylver.position import Position\nPosition(1, 2, 3, 4)\nPosition(*range(9))\n",
    "def _own():\n    pass\n_own()\n",
    "from rich.progress import Progress\nProgress(1, 2, 3, 4, 5)\n",
    "def f():\n    '''Long because the table reads best in one piece.'''\n" + "    x = 1\n" * 80,
    "@njit(cache=True)\ndef f():\n" + "    x = 1\n" * 90,
])
def test_what_passes(source: str) -> None:
    scopes = Scopes("sylver.arena.example", PACKAGE / "arena" / "example.py")
    scopes.visit(ast.parse(source))
    assert scopes.found == []


# -- imports (issue 33: three import circles) -----------------------------------------------------
DESIGN = ROOT / "docs" / "design.md"
FLOOR_LINE = re.compile(r"^\s*(\d+)\s{2,}(\S.*)$")


def floors(text: str) -> dict[str, int]:
    """The floor of each unit, read from the table of the "Dependencies" section of the design."""
    section = text.split("## Dependencies", 1)[1].split("\n## ", 1)[0]
    table = section.split("```", 2)[1]
    return {unit: int(m.group(1)) for line in table.splitlines() if (m := FLOOR_LINE.match(line))
            for unit in m.group(2).split()}


def unit(module: str) -> str:
    """The unit of a sylver module: ``sylver.solver.gcd.g2`` -> ``solver``; ``sylver`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imported(module: str, is_package: bool, tree: ast.AST) -> set[str]:
    """The sylver modules that ``module`` imports anywhere in its source: ``from sylver.solver
    import kernels`` names the module ``sylver.solver.kernels``, ``from sylver.solver import solve``
    the package ``sylver.solver``."""
    def known(name: str) -> str:
        while name not in MODULES and "." in name:
            name = name.rsplit(".", 1)[0]
        return name

    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {known(a.name) for a in node.names if a.name.split(".")[0] == "sylver"}
        elif isinstance(node, ast.ImportFrom):
            source = absolute(module, is_package, node)
            if source.split(".")[0] == "sylver":
                found |= {known(f"{source}.{a.name}") for a in node.names}
    return found - {module}


IMPORTS = {module: imported(module, path.name == "__init__.py", tree) for module, path, tree in SOURCES}
"""Each sylver module: the sylver modules it imports."""


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each strongly connected set of two modules or more, as one
    circle through some of them (``a -> b -> a``), found by depth-first search."""
    done: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in done:
            continue
        stack, path, on_path = [(start, iter(sorted(graph.get(start, ()))))], [start], {start}
        while stack:
            node, todo = stack[-1]
            nxt = next(todo, None)
            if nxt is None:
                stack.pop()
                path.pop()
                on_path.discard(node)
                done.add(node)
            elif nxt in on_path:
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in done:
                stack.append((nxt, iter(sorted(graph.get(nxt, ())))))
                path.append(nxt)
                on_path.add(nxt)
    return found


def upward(graph: dict[str, set[str]], floor: dict[str, int]) -> list[str]:
    """The imports of a unit from a unit on its own floor or above, as ``a imports b (floor x, y)``;
    a unit without a floor is one too."""
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = unit(module), unit(target)
            if a == b:
                continue
            if a not in floor or b not in floor:
                found.append(f"{module} imports {target}: {a if a not in floor else b} has no floor "
                             "in docs/design.md")
            elif floor[b] >= floor[a]:
                found.append(f"{module} (floor {floor[a]}) imports {target} (floor {floor[b]})")
    return found


SOLVER_ENTRIES = {"sylver.solver", "sylver.solver.gcd"}
"""What a module outside ``solver`` may import of it: the package's ``__init__`` and the g > 1
engine's."""
KERNEL_BOUNDARY = {"proof": {"sylver.solver.engine", "sylver.solver.kernels"}}
"""And, for the proofs' gcd-1 builder (which reads the engine's tables), the kernel's boundary."""


def behind_entries(graph: dict[str, set[str]]) -> list[str]:
    """The imports of a module of ``solver`` from outside it but through its entry points
    (:data:`SOLVER_ENTRIES`, :data:`KERNEL_BOUNDARY`), as ``a imports b``."""
    return [f"{module} imports {target}" for module, targets in sorted(graph.items()) for target in sorted(targets)
            if unit(target) == "solver" and unit(module) != "solver"
            and target not in SOLVER_ENTRIES | KERNEL_BOUNDARY.get(unit(module), set())]


def test_the_solver_is_imported_through_its_entry_points() -> None:
    found = behind_entries(IMPORTS)
    assert not found, "\n" + "\n".join(found)
    assert behind_entries({"sylver.cli.solve": {"sylver.solver", "sylver.solver.local"},
                           "sylver.proof.build": {"sylver.solver.engine", "sylver.solver.gcd.periodic"},
                           "sylver.solver.orchestration": {"sylver.solver.local"}}) == [
        "sylver.cli.solve imports sylver.solver.local", "sylver.proof.build imports sylver.solver.gcd.periodic"]


def test_no_import_circle() -> None:
    found = circles(IMPORTS)
    assert not found, "\n" + "\n".join(" -> ".join(c) for c in found)


def test_imports_go_down_the_floors() -> None:
    floor = floors(DESIGN.read_text())
    assert {unit(m) for m in MODULES} <= floor.keys(), "a unit without a floor in docs/design.md"
    found = upward(IMPORTS, floor)
    assert not found, "\n" + "\n".join(found)


def test_the_import_checks_can_fail() -> None:
    graph = {"sylver.jit": {"sylver.aot"}, "sylver.aot": {"sylver.jit"},
             "sylver.solver.a": {"sylver.solver.b"}, "sylver.solver.b": {"sylver.solver.c"},
             "sylver.solver.c": {"sylver.solver.a", "sylver.position"}, "sylver.position": {"sylver.cli"},
             "sylver.cli": {"sylver.extra"}}
    assert circles(graph) == [["sylver.aot", "sylver.jit", "sylver.aot"],
                              ["sylver.solver.a", "sylver.solver.b", "sylver.solver.c", "sylver.solver.a"]]
    floor = floors("## Dependencies\n```\nfloor  units\n  3    cli  jit\n  2    solver\n"
                   "  1    position  aot\n```\n## Next\n  9    later\n")
    assert floor == {"cli": 3, "jit": 3, "solver": 2, "position": 1, "aot": 1}
    assert upward(graph, floor) == [
        "sylver.aot (floor 1) imports sylver.jit (floor 3)",
        "sylver.cli imports sylver.extra: extra has no floor in docs/design.md",
        "sylver.position (floor 1) imports sylver.cli (floor 3)",
    ]
    assert imported("sylver.solver.x", False, ast.parse(
        "from sylver.solver import kernels, solve\nfrom . import engine\ndef f():\n"
        "    import sylver.position\n    from ..theory import is_prime\n")) == {
        "sylver.solver.kernels", "sylver.solver", "sylver.solver.engine", "sylver.position",
        "sylver.theory"}


# -- pins (issue 31: a fresh install brought a newer mypy, 16 errors where we had measured none) --
CHECKERS = ("mypy", "ruff")
"""The dev tools whose verdict changes with their version: pinned exactly in the test extra."""


def exact_pins(lines: list[str]) -> tuple[dict[str, Version], list[str]]:
    """The requirements in ``lines`` pinned with ``==`` (canonical name: version), and the others."""
    pins: dict[str, Version] = {}
    loose: list[str] = []
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        if len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version:
            pins[canonicalize_name(req.name)] = Version(specs[0].version)
        else:
            loose.append(line)
    return pins, loose


def installed_dependencies() -> set[str]:
    """sylver's requirements with its ``test`` extra, and theirs in turn, with the extras they ask
    for (``dask[distributed]``), as installed here: canonical names."""
    found: set[str] = set()
    done: set[tuple[str, str]] = set()
    todo = [("sylver", "test"), ("sylver", "")]
    while todo:
        name, extra = todo.pop()
        if (name, extra) in done:
            continue
        done.add((name, extra))
        for text in metadata.requires(name) or []:
            req = Requirement(text)
            # a requirement without a marker is a base one, met once, with extra ""
            if not (req.marker.evaluate({"extra": extra}) if req.marker else not extra):
                continue
            dep = canonicalize_name(req.name)
            found.add(dep)
            todo += [(dep, e) for e in ("", *req.extras)]
    return found


def test_the_checkers_are_pinned_exactly() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins, _ = exact_pins(project["optional-dependencies"]["test"])
    constraints, _ = exact_pins((ROOT / "constraints.txt").read_text().splitlines())
    for name in CHECKERS:
        assert name in pins, f"pyproject.toml: pin {name} exactly (==) in the test extra"
        assert pins[name] == constraints[name] == Version(metadata.version(name)), (
            f"{name}: pyproject {pins[name]}, constraints.txt {constraints[name]}, "
            f"installed {metadata.version(name)}")


def test_the_constraints_pin_every_installed_dependency() -> None:
    pins, loose = exact_pins((ROOT / "constraints.txt").read_text().splitlines())
    assert not loose, f"constraints.txt: not exact pins: {loose}"
    dependencies = installed_dependencies()
    assert {"numba", "numpy", "mypy", "ruff", "distributed", "psycopg-binary"} <= dependencies
    missing = sorted(dependencies - pins.keys())
    assert not missing, f"constraints.txt pins none of {missing} (see its header to regenerate it)"
    differ = {name: f"pinned {pins[name]}, installed {metadata.version(name)}"
              for name in sorted(dependencies) if pins[name] != Version(metadata.version(name))}
    assert not differ, f"the venv is not what constraints.txt pins (run make): {differ}"


def test_a_loose_pin_is_found() -> None:
    pins, loose = exact_pins(["# header", "numba>=0.58", "mypy==2.4.1  # checker", "ruff==0.*",
                              "Jinja2==3.1.6", "dask[distributed]>=2024.1"])
    assert pins == {"mypy": Version("2.4.1"), "jinja2": Version("3.1.6")}
    assert loose == ["numba>=0.58", "ruff==0.*", "dask[distributed]>=2024.1"]


@pytest.mark.parametrize("command", [["mypy", "src/sylver"],
                                     ["ruff", "check", "src", "tests", "bench"]], ids=CHECKERS)
def test_the_checkers_find_nothing(command: list[str]) -> None:
    """9 s for mypy with an empty cache (.mypy_cache), 0.4 s with it; ruff 0.05 s."""
    done = subprocess.run([sys.executable, "-m", *command], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


if __name__ == "__main__":
    for entry, count in sorted(violations().items()):
        print(f"    {entry!r}: {count},")
