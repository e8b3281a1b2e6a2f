"""numba kernels that cost nothing until they run.

``@njit(cache=True)`` from this module instead of numba's defers everything to the kernel's first
call: importing numba (about 0.3 s), loading the machine code from numba's cache next to the sources,
or compiling it when the cache is cold (the first run on a machine; ``sylver warmup`` does it ahead).
So a module with kernels imports as fast as plain Python, and a command that never calls one never
pays for numba.

A kernel declared with ``aot=`` (its argument types, in numba's signature syntax) is also compiled
ahead of time, by ``sylver warmup``, into a CPython extension module of its kernel module
(:mod:`sylver.aot`): the same Python function compiled by numba's AOT compiler.  When that module
is built and current, a call whose arguments have exactly the declared types runs it, without
importing numba at all; any other call, or no module (no C compiler), goes to the numba JIT as
before, with the same answer.  A kernel may call other kernels and LLVM intrinsics declared with
:func:`intrinsic`, as numba kernels call each other.

A short-lived process (the ``sylver`` command) may also let small calls run the kernel's own Python
source instead (:func:`interpret_small_calls`): a call whose array arguments hold at most
``INTERPRET_ELEMENTS`` elements in all, while the elements handled that way stay within a budget
about the cost of loading compiled code.  It is the same function, so the answer is the same (the
tests compare both on every kernel); only the speed differs.  Long-running processes (bots, the web
workers, the solver) keep the default: compiled from the first call.

:func:`watch_compilation` makes a cold cache visible: one line on stderr when numba starts
compiling in this process, and one per kernel that took more than a second (when stderr is a
terminal, i.e. someone is waiting; ``sylver warmup`` prints them always).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

INTERPRET_ELEMENTS = 4096
"""Largest total size of a call's array arguments for which the Python source may run."""

_lock = threading.RLock()  # reentrant: compiling a kernel compiles the kernels it calls
_watch_lock = threading.Lock()
_budget = 0
"""Array elements that small calls may still handle in Python (0: every call is compiled)."""
_watching = False
_always = False
_fork_hook = False


def interpret_small_calls(budget: int = 200_000) -> None:
    """Run calls with small arrays as Python until they have handled ``budget`` elements in all.

    Meant for one-shot commands: the Python source handles an element in about a microsecond, so
    the default budget costs at most about what importing numba and loading a kernel would."""
    global _budget, _fork_hook
    _budget = budget
    if not _fork_hook:  # a forked worker lives long: it compiles from its first call
        os.register_at_fork(after_in_child=use_compiled)
        _fork_hook = True


def use_compiled() -> None:
    """From now on every kernel call runs compiled code (loaded, or compiled, at its next call)."""
    global _budget
    _budget = 0


def _numba() -> Any:
    import numba

    watch_compilation()
    return numba


_use_aot = True
_numba_hooks = False


def use_aot(enabled: bool = True) -> None:
    """Let kernels run their ahead-of-time compiled code when it is built (the default), or not:
    every call then goes to the numba JIT (``sylver warmup``, and the tests comparing the two)."""
    global _use_aot
    _use_aot = enabled


class Intrinsic:
    """An LLVM intrinsic for kernels (``numba.extending.intrinsic(defn)``), created when numba is
    first needed: the name it is bound to in its module then refers to numba's intrinsic."""

    def __init__(self, defn: Callable[..., Any]) -> None:
        self.defn = defn
        self._intrinsic: Any = None

    def real(self) -> Any:
        if self._intrinsic is None:
            from numba.extending import intrinsic as numba_intrinsic

            self._intrinsic = numba_intrinsic(self.defn)
        return self._intrinsic

    def __call__(self, *args: Any) -> Any:
        raise TypeError(f"{self.defn.__name__} is an LLVM intrinsic: it runs only inside compiled kernels")


def intrinsic(defn: Callable[..., Any]) -> Intrinsic:
    """``numba.extending.intrinsic``, created when numba is first needed (see :class:`Intrinsic`)."""
    return Intrinsic(defn)


def _prepare_numba(globals_: dict[str, Any]) -> None:
    """Before numba compiles a kernel: let it type the kernels and intrinsics that kernel refers to
    (a :class:`Kernel` as its numba dispatcher; an :class:`Intrinsic` replaced by numba's)."""
    global _numba_hooks
    for name, value in list(globals_.items()):
        if isinstance(value, Intrinsic):
            globals_[name] = value.real()
    if _numba_hooks:
        return
    from numba.extending import typeof_impl

    @typeof_impl.register(Kernel)
    def _typeof_kernel(value: Kernel, context: Any) -> Any:
        from numba.core.typing.typeof import typeof

        return typeof(value.compiled(), context)

    _numba_hooks = True


class Kernel:
    """A kernel whose numba dispatcher is created at its first compiled call.

    ``py_func`` is the Python source, as on a numba dispatcher; :meth:`compiled` the dispatcher.
    ``aot``: the argument types of its ahead-of-time compiled form (numba's signature syntax), or
    None; ``interpret``: whether small calls may run ``py_func`` (see the module doc)."""

    def __init__(self, py_func: Callable[..., Any], options: dict[str, Any], *,
                 aot: str | None = None, interpret: bool = True) -> None:
        self.py_func = py_func
        self.options = options
        self.aot = aot
        self.interpret = interpret
        self._dispatcher: Any = None
        self._aot: Any = None
        """(function, argument check) of the ahead-of-time module, False when there is none, None
        before the first call looked."""
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self.__wrapped__ = py_func

    @property
    def loaded(self) -> bool:
        """Has the numba dispatcher been created (numba imported, compiled code in use)?"""
        return self._dispatcher is not None

    @property
    def ahead_of_time(self) -> Any:
        """The ahead-of-time compiled function when its module is built and current, else None."""
        if self._aot is None:
            self._aot = False
            if self.aot is not None:
                from sylver import aot

                self._aot = aot.export(self.__module__, self.__name__) or False
        return self._aot[0] if self._aot else None

    def compiled(self) -> Any:
        """The numba dispatcher (numba imported now if it was not yet)."""
        if self._dispatcher is None:
            with _lock:
                if self._dispatcher is None:
                    numba = _numba()
                    _prepare_numba(self.py_func.__globals__)
                    self._dispatcher = numba.njit(**self.options)(self.py_func)
        return self._dispatcher

    def _aot_for(self, args: tuple[Any, ...]) -> Callable[..., Any] | None:
        """The ahead-of-time form of this kernel when there is one and ``args`` pass its type check."""
        if _use_aot and self.aot is not None:
            if self._aot is None:
                self.ahead_of_time  # noqa: B018 - looks for the module once
            if self._aot:
                func, accepts = self._aot
                if accepts(args):
                    return func  # type: ignore[no-any-return]
        return None

    @property
    def unchecked(self) -> Callable[..., Any]:
        """What runs this kernel on arguments its caller built itself with exactly the declared
        ``aot`` types (arrays it allocated, ints below 2**63): the ahead-of-time form without the
        per-call type check, which costs about 15 times the call of a small kernel, else the kernel.
        Only for such callers: the ahead-of-time form does not check what it is given."""
        if _use_aot and self.aot is not None:
            if self._aot is None:
                self.ahead_of_time  # noqa: B018 - looks for the module once
            if self._aot:
                return self._aot[0]  # type: ignore[no-any-return]
        return self

    def bind(self, args: tuple[Any, ...]) -> Callable[..., Any]:
        """What runs this kernel on ``args``, and on later calls with the same array objects (the
        search's slices): its ahead-of-time form when ``args`` pass its type check, checked once
        here instead of at every call (17 arrays: 30 us a call), else the kernel."""
        return self._aot_for(args) or self

    def __call__(self, *args: Any) -> Any:
        func = self._aot_for(args)
        if func is not None:
            return func(*args)
        if self._dispatcher is None and _budget and self.interpret and _small(args):
            return self.py_func(*args)
        return self.compiled()(*args)

    def __repr__(self) -> str:
        state = "not loaded" if self._dispatcher is None else "loaded"
        if self._aot:
            state += ", compiled ahead of time"
        return f"<kernel {self.__module__}.{self.__qualname__} ({state})>"

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        # by name, as functions and numba dispatchers pickle: a worker process finds its own copy
        return (_kernel_named, (self.__module__, self.__qualname__))


def _kernel_named(module: str, name: str) -> Kernel:
    import importlib

    return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


def _small(args: tuple[Any, ...]) -> bool:
    """Charge a call to the interpretation budget if its arrays are small enough (not thread-exact:
    the budget bounds time, it is not a resource count)."""
    global _budget
    size = 0
    for a in args:
        n = getattr(a, "size", None)
        if n is not None:
            size += n
    if size == 0 or size > INTERPRET_ELEMENTS or size > _budget:
        return False  # no arrays to measure the work by (e.g. a table size), or too much
    _budget -= size
    return True


def njit(*, aot: str | None = None, interpret: bool = True,
         **options: Any) -> Callable[[Callable[..., Any]], Kernel]:
    """``numba.njit(**options)``, created at the kernel's first compiled call (see the module doc);
    ``aot``: also compiled ahead of time for these argument types, e.g. ``"(uint64[::1], int64)"``;
    ``interpret=False``: never run as Python (a kernel that calls intrinsics)."""

    def wrap(func: Callable[..., Any]) -> Kernel:
        return Kernel(func, options, aot=aot, interpret=interpret)

    return wrap


def watch_compilation(*, always: bool = False) -> None:
    """Say on stderr when numba compiles in this process: if stderr is a terminal, or ``always``.

    Loading from numba's cache is silent; only a cold cache (a fresh install, a changed source file)
    compiles, which takes about a minute for the solver.  Idempotent; imports numba."""
    global _watching, _always
    _always = _always or always
    with _watch_lock:
        if _watching:
            return
        _watching = True
    from numba.core import event

    class _Notice(event.Listener):  # type: ignore[misc]
        def __init__(self) -> None:
            self.depth = 0
            self.started = 0.0
            self.announced = False

        def on_start(self, ev: Any) -> None:
            self.depth += 1
            if self.depth > 1:
                return
            self.started = time.monotonic()
            if not self.announced:
                self.announced = True
                _say("compiling numba kernels for this machine: once, about a minute (longer on a "
                     "busy machine); they are cached afterwards (`sylver warmup` does it ahead)")

        def on_end(self, ev: Any) -> None:
            self.depth -= 1
            if self.depth:
                return
            seconds = time.monotonic() - self.started
            if seconds >= 1.0:
                d = ev.data["dispatcher"]
                _say(f"compiled {d.py_func.__module__}.{d.py_func.__qualname__} in {seconds:.0f} s")

    event.register("numba:compile", _Notice())


def _say(text: str) -> None:
    try:
        if _always or sys.stderr.isatty():
            print(f"sylver: {text}", file=sys.stderr, flush=True)
    except (AttributeError, OSError, ValueError):  # no usable stderr: the notice is a courtesy
        pass
