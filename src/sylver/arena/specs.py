"""Bot specifications: ``random`` (built-in), ``path/file.py:Class``, ``cmd:PROGRAM ARGS``.

A display name can be given with ``name=NAME,SPEC`` (any kind) or ``SPEC,name=NAME`` (not ``cmd:``).
"""

from __future__ import annotations

import dataclasses
import os
import shlex
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path


@dataclass(frozen=True, kw_only=True)
class BotSpec:
    """How to start one bot."""

    kind: str
    """``builtin``, ``python`` or ``cmd``."""
    name: str
    """The bot's display name (unique in a tournament)."""
    target: str
    """Built-in name, absolute path of the .py file, or the program."""
    cls: str = ""
    """The class in the .py file."""
    argv: tuple[str, ...] = ()
    """``cmd:`` only: the program and its arguments."""
    text: str = ""
    """The spec as the user wrote it."""
    move_time: float | None = None
    """Seconds this bot may spend on one call, told and enforced instead of the rules' limit (a
    time-odds match, bench/bench_strength.py); None: the rules'."""
    options: tuple[tuple[str, float], ...] = ()
    """Keyword options of a built-in bot (``(("think", 20.0),)``: ``make_bot(name, rng, think=20.0)``)."""

    def to_json(self) -> dict:
        d = asdict(self)
        d["argv"] = list(self.argv)
        d["options"] = [list(o) for o in self.options]
        return d

    @classmethod
    def from_json(cls, d: dict) -> BotSpec:
        d = dict(d)
        d["argv"] = tuple(d.get("argv") or ())
        d["options"] = tuple((str(k), float(v)) for k, v in d.get("options") or ())
        return cls(**d)


def parse_spec(text: str) -> BotSpec:
    """Parse one ``--bot`` value; errors are ValueError with a one-line message."""
    from sylver.bots import BOTS

    raw = text.strip()
    name = ""
    if raw.startswith("name="):
        head, sep, rest = raw.partition(",")
        if not sep or not rest.strip():
            raise ValueError(f"bot spec {text!r}: expected name=NAME,SPEC")
        name, raw = head[5:].strip(), rest.strip()
    elif not raw.startswith("cmd:") and ",name=" in raw:
        raw, _, name = raw.rpartition(",name=")
        raw, name = raw.strip(), name.strip()
    if name == "" and text.strip().startswith("name="):
        raise ValueError(f"bot spec {text!r}: the name is empty")
    if not raw:
        raise ValueError("empty bot spec: give a built-in name, path/file.py:Class or cmd:PROGRAM")
    if raw.startswith("cmd:"):
        try:
            argv = tuple(shlex.split(raw[4:]))
        except ValueError as exc:
            raise ValueError(f"bot spec {text!r}: {exc}") from None
        if not argv:
            raise ValueError(f"bot spec {text!r}: cmd: needs a program")
        prog = argv[0]
        found = shutil.which(prog) if os.sep not in prog else (prog if os.access(prog, os.X_OK) else None)
        if not found:
            raise ValueError(f"bot {text!r}: program {prog!r} not found or not executable")
        # The bot runs in a directory of its own: arguments naming existing files become absolute.
        args = tuple(os.path.abspath(a) if not a.startswith("-") and os.path.exists(a) else a for a in argv[1:])
        argv = (os.path.abspath(found),) + args
        return BotSpec(kind="cmd", name=name or Path(prog).name, target=argv[0], argv=argv, text=text)
    if ":" in raw or raw.endswith(".py"):
        path, _, cls = raw.rpartition(":") if ":" in raw else (raw, "", "")
        p = Path(path).expanduser()
        if p.suffix != ".py":
            raise ValueError(f"bot spec {text!r}: expected path/file.py:Class")
        if not p.is_file():
            raise ValueError(f"bot {text!r}: file {path!r} not found")
        return BotSpec(kind="python", name=name or cls or p.stem, target=str(p.resolve()), cls=cls, text=text)
    if raw in BOTS:
        return BotSpec(kind="builtin", name=name or raw, target=raw, text=text)
    raise ValueError(
        f"unknown bot {raw!r}: give a built-in bot ({', '.join(sorted(BOTS))}), "
        "path/file.py:Class or cmd:PROGRAM ARGS"
    )


def parse_specs(texts: list[str]) -> list[BotSpec]:
    """Parse several specs and make the names unique (``random``, ``random#2``, ...)."""
    specs = [parse_spec(t) for t in texts]
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        n = seen.get(s.name, 0) + 1
        seen[s.name] = n
        if n > 1:
            s = dataclasses.replace(s, name=f"{s.name}#{n}")
        out.append(s)
    return out
