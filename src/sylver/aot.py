"""Kernels compiled ahead of time: a kernel module's ``aot=`` kernels as a CPython extension module.

Importing numba and loading one kernel from its cache costs about 0.7 s, far more than the search
of a small position; ``sylver solve`` pays it at every start.  So ``sylver warmup`` (run by the
install) also compiles the kernels declared with ``aot=`` (see :mod:`sylver.jit`) with numba's AOT
compiler (``numba.pycc``), from the same Python functions, into an extension module that imports
in a millisecond without numba.  :class:`sylver.jit.Kernel` calls it when its arguments have exactly
the declared types; otherwise, and wherever no module is built (no C compiler), the numba JIT runs
the kernel as before.

The module lives in ``__pycache__/sylver-aot-<key>/`` next to the kernel module (``SYLVER_AOT_DIR``
sets another directory), with a manifest.  The key is a hash of everything its machine code
depends on: the kernel module's source and this package's ``jit.py`` and ``aot.py``, the versions of
Python, numpy and numba, and the CPU (it is compiled for the host's instruction set).  A module is
loaded only when its manifest has the current key and its file the manifest's SHA-256: a stale or
damaged module is never used (the JIT runs instead).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

import numpy as np

ENV_DIR = "SYLVER_AOT_DIR"
"""Environment variable: the directory of the ahead-of-time modules (default: ``__pycache__``
next to the kernel module)."""
MANIFEST = "manifest.json"

Export = tuple[Callable[..., Any], Callable[[tuple[Any, ...]], bool]]
"""An ahead-of-time function and the test that a call's arguments have its types."""

_lock = threading.Lock()
_patch_lock = threading.Lock()
_loaded: dict[str, tuple[dict[str, Export], str]] = {}
"""Per kernel module: its exports (empty when none is usable) and where they come from, or why not."""


@runtime_checkable
class Declared(Protocol):
    """What :func:`build` compiles: a kernel with its ahead-of-time argument types (``aot``, numba's
    signature syntax; None: not compiled ahead), as :class:`sylver.jit.Kernel` is.  A protocol, so
    that this module needs nothing of :mod:`sylver.jit`, which loads kernels through it."""

    __name__: str
    py_func: Callable[..., Any]
    options: dict[str, Any]
    aot: str | None

    def compiled(self) -> Any:
        """The kernel's numba dispatcher."""


class AotUnavailable(Exception):
    """The ahead-of-time module cannot be built here (no C compiler, no numba.pycc, a build error)."""


def directory(module: ModuleType) -> Path:
    """Where the ahead-of-time modules of the kernel module ``module`` live."""
    env = os.environ.get(ENV_DIR)
    return Path(env) if env else Path(module.__file__ or ".").parent / "__pycache__"


def _cpu() -> bytes:
    """What identifies the CPU's instruction set: vendor, model and feature flags (Linux), else the
    platform's processor name."""
    keep = ("vendor_id", "cpu family", "model", "model name", "flags", "Features", "CPU implementer",
            "CPU architecture", "CPU variant", "CPU part")
    try:
        lines: list[str] = []
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    if lines:
                        break
                    continue
                name = line.split(":", 1)[0].strip()
                if name in keep:
                    lines.append(line.strip())
        if lines:
            return "\n".join(lines).encode()
    except OSError:
        pass
    import platform

    return f"{platform.machine()} {platform.processor()}".encode()


def _numba_version() -> bytes:
    """numba's version file, read without importing numba (which takes 0.3 s)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return b"no numba"
    path = Path(spec.origin).parent / "_version.py"
    try:
        return path.read_bytes()
    except OSError:
        return spec.origin.encode()


def _environment() -> str:
    """A hash of what the machine code depends on besides the sources: Python, numpy, numba, the CPU."""
    h = hashlib.sha256()
    for part in (sys.version.encode(), sys.implementation.cache_tag.encode(), np.__version__.encode(),
                 _numba_version(), sys.platform.encode(), _cpu()):
        h.update(part)
        h.update(b"\0")
    return h.hexdigest()[:24]


def key(module: ModuleType) -> str:
    """The key of the ahead-of-time module of ``module`` (see the module doc)."""
    h = hashlib.sha256()
    here = Path(__file__).parent
    for path in (Path(module.__file__ or ""), here / "jit.py", here / "aot.py"):
        h.update(path.read_bytes())
        h.update(b"\0")
    h.update(_environment().encode())
    return h.hexdigest()[:24]


def _remove_stale(parent: Path, module_name: str, environment: str, keep: Path) -> None:
    """Delete the modules of ``module_name`` built in the same environment from older sources."""
    prefix = module_name.replace(".", "_") + "_"
    for d in parent.glob("sylver-aot-*"):
        if d == keep:
            continue
        try:
            manifest = json.loads((d / MANIFEST).read_text())
        except (OSError, ValueError):
            continue
        if str(manifest.get("module", "")).startswith(prefix) and manifest.get("environment") == environment:
            shutil.rmtree(d, ignore_errors=True)


def _checker(spec: list[Any]) -> Callable[[Any], bool]:
    """The test that a value has the numba type described by ``spec`` (see ``_spec``), as numba's
    ``typeof`` would type it."""
    kind = spec[0]
    if kind == "int64":
        return lambda v: (type(v) is int and -(1 << 63) <= v < 1 << 63) or type(v) is np.int64
    if kind == "bool":
        return lambda v: type(v) is bool or type(v) is np.bool_
    if kind == "array":
        dtype, ndim, layout, readonly = np.dtype(spec[1]), spec[2], spec[3], spec[4]

        def array(v: Any) -> bool:
            if type(v) is not np.ndarray or v.dtype != dtype or v.ndim != ndim:
                return False
            flags = v.flags
            return bool(flags.aligned and (layout != "C" or flags.c_contiguous) and (readonly or flags.writeable))

        return array
    if kind == "tuple":
        items = [_checker(s) for s in spec[1]]
        n = len(items)
        return lambda v: type(v) is tuple and len(v) == n and all(c(x) for c, x in zip(items, v, strict=True))
    raise ValueError(f"unknown argument type {spec!r}")


def _accepts(specs: list[list[Any]]) -> Callable[[tuple[Any, ...]], bool]:
    checks = [_checker(s) for s in specs]
    n = len(checks)

    def accepts(args: tuple[Any, ...]) -> bool:
        if len(args) != n:
            return False
        for check, value in zip(checks, args, strict=True):
            if not check(value):
                return False
        return True

    return accepts


def _load(module: ModuleType) -> tuple[dict[str, Export], str]:
    """The exports of the current ahead-of-time module of ``module`` and its path; none and why."""
    k = key(module)
    where = directory(module) / f"sylver-aot-{k}"
    try:
        manifest = json.loads((where / MANIFEST).read_text())
    except FileNotFoundError:
        return {}, f"not built ({where} does not exist: `sylver warmup` builds it)"
    except (OSError, ValueError) as e:
        return {}, f"unreadable manifest in {where}: {e}"
    if manifest.get("key") != k:
        return {}, f"stale: {where} was built for another key"
    path = where / str(manifest.get("file"))
    try:
        data = path.read_bytes()
    except OSError as e:
        return {}, f"missing module file {path}: {e}"
    if hashlib.sha256(data).hexdigest() != manifest.get("sha256"):
        return {}, f"damaged: {path} does not match its manifest's SHA-256"
    try:
        spec = importlib.util.spec_from_file_location(manifest["module"], path)
        if spec is None or spec.loader is None:
            return {}, f"cannot import {path}"
        ext = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(ext)
        exports = {name: (getattr(ext, name), _accepts(specs)) for name, specs in manifest["exports"].items()}
    except Exception as e:  # a module that does not load is not used: the JIT runs instead
        return {}, f"cannot import {path}: {type(e).__name__}: {e}"
    return exports, str(path)


def _module_state(module_name: str) -> tuple[dict[str, Export], str]:
    state = _loaded.get(module_name)
    if state is None:
        with _lock:
            state = _loaded.get(module_name)
            if state is None:
                state = _loaded[module_name] = _load(sys.modules[module_name])
    return state


def export(module_name: str, name: str) -> Export | None:
    """The ahead-of-time function ``name`` of the kernel module ``module_name`` and its argument
    test, when that module's ahead-of-time module is built and current; else None."""
    return _module_state(module_name)[0].get(name)


def status(module_name: str) -> tuple[bool, str]:
    """(True, the module's path) when ``module_name``'s kernels run ahead-of-time compiled code;
    (False, why not) otherwise."""
    importlib.import_module(module_name)
    exports, text = _module_state(module_name)
    return bool(exports), text


def forget(module_name: str | None = None) -> None:
    """Look for the ahead-of-time module again at the next call (after a build, or in tests); kernels
    already called keep what they found."""
    with _lock:
        if module_name is None:
            _loaded.clear()
        else:
            _loaded.pop(module_name, None)


# -- building -----------------------------------------------------------------------------------
def _spec(t: Any) -> list[Any]:
    """A numba argument type as JSON for ``_checker`` (int64, boolean, arrays, tuples of them)."""
    from numba import types
    from numba.np.numpy_support import as_dtype

    if t == types.int64:
        return ["int64"]
    if t == types.boolean:
        return ["bool"]
    if isinstance(t, types.Array) and t.layout in ("C", "A") and t.aligned:
        return ["array", as_dtype(t.dtype).str, t.ndim, t.layout, not t.mutable]
    if isinstance(t, (types.Tuple, types.UniTuple)):
        return ["tuple", [_spec(x) for x in t.types]]
    raise ValueError(f"argument type {t} is not supported ahead of time")


@contextmanager
def _releasing_gil(functions: set[Callable[..., Any]]) -> Iterator[None]:
    """While numba's AOT compiler runs: the exported wrappers of ``functions`` (kernels declared
    with ``nogil=True``) release the GIL, as their JIT form does (``numba.pycc`` has no option for
    it: it compiles every export with default flags)."""
    from numba.pycc import compiler

    real = compiler.compile_extra

    def compile_extra(typingctx: Any, targetctx: Any, func: Any, args: Any, return_type: Any,
                      flags: Any, locals: Any, **kw: Any) -> Any:
        if func in functions:
            flags = flags.copy()
            flags.release_gil = True
        return real(typingctx, targetctx, func, args, return_type, flags, locals, **kw)

    with _patch_lock:
        compiler.compile_extra = compile_extra
        try:
            yield
        finally:
            compiler.compile_extra = real


def build(module_name: str) -> Path:
    """Compile the ``aot=`` kernels of ``module_name`` ahead of time (nothing when the current module
    is built already); returns its directory.  Compiles (or loads from numba's cache) each kernel's
    JIT form first, whose return type it takes.  Raises :class:`AotUnavailable` when it cannot."""
    module = importlib.import_module(module_name)
    kernels = [v for v in vars(module).values()
               if isinstance(v, Declared) and v.aot is not None and v.__module__ == module_name]
    if not kernels:
        raise ValueError(f"{module_name} has no kernel declared with aot=")
    k = key(module)
    parent = directory(module)
    final = parent / f"sylver-aot-{k}"
    if _load(module)[0]:
        return final
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc's pending deprecation
        try:
            import setuptools  # noqa: F401 - numba.pycc builds with it
            from numba.core import sigutils
            from numba.pycc import CC
            from numba.pycc.platform import external_compiler_works
        except ImportError as e:
            raise AotUnavailable(f"numba's AOT compiler is not available ({e})") from e
        if not external_compiler_works():
            raise AotUnavailable("no working C compiler (numba's AOT compiler needs one, e.g. gcc)")
        try:
            parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=".sylver-aot-", dir=parent))
            tmp.chmod(0o755)  # readable by all, as numba's cache files are
        except OSError as e:
            raise AotUnavailable(f"cannot write to {parent}: {e}") from e
        try:
            name = f"{module_name.replace('.', '_')}_{k}"
            cc = CC(name)
            cc.output_dir = str(tmp)
            cc.target_cpu = "host"
            exports = {}
            for kernel in kernels:
                args, _ = sigutils.normalize_signature(kernel.aot)
                args = tuple(args)
                dispatcher = kernel.compiled()
                dispatcher.compile(args)
                ret = dispatcher.overloads[args].signature.return_type
                cc.export(kernel.__name__, ret(*args))(kernel.py_func)
                exports[kernel.__name__] = [_spec(a) for a in args]
            with _releasing_gil({k.py_func for k in kernels if k.options.get("nogil")}):
                cc.compile()
            data = (tmp / cc.output_file).read_bytes()
            manifest = {
                "key": k, "environment": _environment(), "module": name, "file": cc.output_file,
                "sha256": hashlib.sha256(data).hexdigest(), "exports": exports,
                "built_with": {"python": sys.version.split()[0], "numpy": np.__version__,
                               "numba": sys.modules["numba"].__version__},
            }
            (tmp / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
            try:
                if final.exists():  # damaged (a current module was not built again)
                    shutil.rmtree(final)
                os.replace(tmp, final)
            except OSError as e:  # another build of the same key finished first: use it
                if not _load(module)[0]:
                    raise AotUnavailable(f"cannot move the module into {final}: {e}") from e
        except AotUnavailable:
            raise
        except Exception as e:  # the JIT still runs the kernels: an install goes on without the module
            raise AotUnavailable(f"the AOT build failed: {type(e).__name__}: {e}") from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    _remove_stale(parent, module_name, _environment(), final)
    forget(module_name)
    return final
