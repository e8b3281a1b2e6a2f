"""Read-only view of an arena results directory (``sylver tournament --out DIR``) for the web page.

The directory holds ``plan.json`` (the configuration and every planned game), ``games.jsonl`` (one
JSON line per finished game, appended while the tournament runs) and, at the end,
``standings.json``.  The viewer never writes there; it rereads a file when its size or mtime
changes, skips a torn last line of a running tournament, and computes live standings with the
arena's own :func:`sylver.arena.ratings.standings` until ``standings.json`` exists.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from sylver.arena.ratings import standings as compute_standings
from sylver.arena.report import result_text
from sylver.arena.rules import Rules

LOSING_ANSWERS = frozenset({"named-one", "illegal", "prime-first", "above-cap", "invalid"})
"""Reasons whose losing answer is the last entry of ``moves`` (the others: no answer was given)."""


class ResultsError(ValueError):
    """The directory is not a readable arena results directory."""


class ResultsView:
    """The tournament in ``path``, reread when its files change."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[tuple[int, int], Any]] = {}
        if not (self.path / "plan.json").is_file():
            raise ResultsError(f"{self.path}: no plan.json here; give the --out directory of `sylver tournament`")
        self.plan()

    # -- files ----------------------------------------------------------------------------------
    def _read(self, name: str, parse: Any) -> Any:
        path = self.path / name
        try:
            st = path.stat()
        except FileNotFoundError:
            return None
        key = (st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._cache.get(name)
            if hit is not None and hit[0] == key:
                return hit[1]
        value = parse(path.read_bytes())
        with self._lock:
            self._cache[name] = (key, value)
        return value

    def plan(self) -> dict[str, Any]:
        def parse(data: bytes) -> dict[str, Any]:
            try:
                plan = json.loads(data)
                plan["config"]["rules"]
            except (ValueError, KeyError, TypeError):
                raise ResultsError(f"{self.path / 'plan.json'} is not an arena plan") from None
            return plan

        plan = self._read("plan.json", parse)
        if plan is None:
            raise ResultsError(f"{self.path / 'plan.json'} has disappeared")
        return plan

    def records(self) -> list[dict[str, Any]]:
        def parse(data: bytes) -> list[dict[str, Any]]:
            out = []
            for line in data.split(b"\n"):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:  # a line being written right now
                    continue
                if isinstance(rec, dict) and "game" in rec:
                    out.append(rec)
            return out

        return self._read("games.jsonl", parse) or []

    # -- views ----------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Rules, progress and the standings (final, or live while the tournament runs)."""
        plan = self.plan()
        config = plan["config"]
        rules = Rules.from_json(config["rules"])
        phases = plan.get("phases") or []
        phase: dict[str, Any] = (
            phases[-1] if phases else {"phase": 0, "bots": [b.get("name") for b in config.get("bots", [])], "games": []}
        )
        records = self.records()
        current = [r for r in records if r.get("phase", 0) == phase.get("phase", 0) and not r.get("void")]
        final = self._read("standings.json", lambda data: json.loads(data))
        if final is not None and isinstance(final, dict) and "standings" in final:
            rows = final["standings"]
            finished = True
        else:
            names = list(phase.get("bots") or [])
            dq = sorted({n for p in phases for n in p.get("disqualified", [])}) if phases else []
            table = compute_standings(names, current, rules, int(config.get("seed", 0)), dq)
            rows = [s.to_json() for s in table]
            finished = False
        for row in rows:
            row.pop("opponents", None)
        bots = sorted({p for r in records for p in r.get("players", [])} | set(phase.get("bots") or []))
        return {
            "directory": str(self.path),
            "rules": rules.describe(),
            "rounds": config.get("rounds"),
            "seed": config.get("seed"),
            "finished": finished,
            "games_planned": len(phase.get("games") or []),
            "games_played": len(current),
            "voids": sum(1 for r in records if r.get("void")),
            "bots": bots,
            "standings": rows,
        }

    def games(self, offset: int, limit: int, bot: str | None) -> dict[str, Any]:
        """One page of the finished games (file order), optionally those of one bot."""
        records = self.records()
        if bot:
            records = [r for r in records if bot in r.get("players", [])]
        page = records[offset : offset + limit]
        return {"total": len(records), "offset": offset, "games": [self._row(r) for r in page]}

    @staticmethod
    def _row(r: dict[str, Any]) -> dict[str, Any]:
        void = bool(r.get("void"))
        return {
            "game": r.get("game"),
            "phase": r.get("phase", 0),
            "round": r.get("round"),
            "players": r.get("players"),
            "first": r.get("first"),
            "start": r.get("start"),
            "moves": len(r.get("moves") or []),
            "winner": r.get("winner"),
            "loser": r.get("loser"),
            "reason": r.get("reason"),
            "void": void,
            "result": "void: " + str(r.get("error") or r.get("detail") or "") if void else record_result(r),
        }

    def game(self, game: int, phase: int | None) -> dict[str, Any]:
        """The full record of one game, with how many of its moves were legal moves (replay steps)."""
        found = [
            r for r in self.records() if r.get("game") == game and (phase is None or r.get("phase", 0) == phase)
        ]
        if not found:
            raise KeyError(f"no finished game {game}" + (f" in phase {phase}" if phase is not None else ""))
        rec = dict(found[-1])
        moves = rec.get("moves") or []
        losing_in_moves = rec.get("reason") in LOSING_ANSWERS and bool(moves) and not rec.get("void")
        rec["steps"] = len(moves) - (1 if losing_in_moves else 0)
        rec["losing_move"] = moves[-1] if losing_in_moves else None
        rec["result"] = self._row(rec)["result"]
        return rec


def record_result(r: dict[str, Any]) -> str:
    """The result line of a game record (``A wins {B named 1}``), or its reason if the record is odd."""
    try:
        return result_text(r)
    except (KeyError, TypeError):
        return str(r.get("reason", ""))
