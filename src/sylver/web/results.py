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

from sylver.arena.games import GameLine, PlayedGame, VoidGame, game_from_json
from sylver.arena.openings import Suite
from sylver.arena.ratings import standings as compute_standings
from sylver.arena.report import result_text
from sylver.arena.rules import Rules
from sylver.position import Termination
from sylver.review import LOSING_ANSWERS

REPLAYED_ANSWERS = frozenset({Termination.NAMED_ONE, Termination.ILLEGAL_MOVE})
"""Losing answers the replay steps to: naming 1 (a legal move: the position has no move left), an
illegal number (the position stays, with the witness).  The game's own replay ends the game there
just as the referee did; the other losing answers (a prime first, a number above the cap, not a
number) are shown as the result only."""


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

    def records(self) -> list[GameLine]:
        def parse(data: bytes) -> list[GameLine]:
            out = []
            for line in data.split(b"\n"):
                if not line.strip():
                    continue
                try:
                    out.append(game_from_json(json.loads(line)))
                except (ValueError, KeyError, TypeError, AttributeError):  # a line being written right now
                    continue
            return out

        return self._read("games.jsonl", parse) or []

    # -- views ----------------------------------------------------------------------------------
    def summary(self) -> dict[str, Any]:
        """Rules, progress and the standings (final, or live while the tournament runs)."""
        plan = self.plan()
        config = plan["config"]
        rules = Rules.from_json(config["rules"])
        # the starts of an opening suite (--openings) in place of the rules' own, as in the tournament's
        # own Rules line (``Config.describe``)
        openings = Suite.from_json(config["openings"]) if config.get("openings") else None
        phases = plan.get("phases") or []
        phase: dict[str, Any] = (
            phases[-1] if phases else {"phase": 0, "bots": [b.get("name") for b in config.get("bots", [])], "games": []}
        )
        records = self.records()
        current = [r for r in records if r.phase == phase.get("phase", 0) and isinstance(r, PlayedGame)]
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
        bots = sorted({p for r in records for p in r.players} | set(phase.get("bots") or []))
        return {
            "directory": str(self.path),
            "rules": rules.describe(openings),
            "rounds": config.get("rounds"),
            "seed": config.get("seed"),
            "finished": finished,
            "games_planned": len(phase.get("games") or []),
            "games_played": len(current),
            "voids": sum(1 for r in records if r.void),
            "bots": bots,
            "standings": rows,
        }

    def games(self, offset: int, limit: int, bot: str | None) -> dict[str, Any]:
        """One page of the finished games by number (a phase's after the one before: the file holds
        them in the order they finished, which games played side by side mix), optionally those of
        one bot."""
        records = sorted(self.records(), key=lambda r: (r.phase or 0, r.game))
        if bot:
            records = [r for r in records if bot in r.players]
        page = records[offset : offset + limit]
        return {"total": len(records), "offset": offset, "games": [self._row(r) for r in page]}

    @staticmethod
    def _row(r: GameLine) -> dict[str, Any]:
        row: dict[str, Any] = {"game": r.game, "phase": r.phase, "round": r.round, "players": list(r.players)}
        if isinstance(r, VoidGame):
            return {**row, "first": None, "start": None, "moves": 0, "winner": None, "loser": None, "reason": None,
                    "void": True, "result": f"void: {r.error}"}
        return {**row, "first": r.first, "start": list(r.start), "moves": len(r.moves), "winner": r.winner,
                "loser": r.loser, "reason": r.reason.value, "void": False, "result": result_text(r)}

    def game(self, game: int, phase: int | None) -> dict[str, Any]:
        """The full record of one game, with how many of its moves the replay steps through
        (``steps``: every move, but a losing answer other than 1 or an illegal number) and the
        losing answer (``losing_move``), if the last move lost the game."""
        found = [r for r in self.records() if r.game == game and (phase is None or r.phase == phase)]
        if not found:
            raise KeyError(f"no finished game {game}" + (f" in phase {phase}" if phase is not None else ""))
        last = found[-1]
        rec = last.to_json()
        moves = rec.get("moves") or []
        reason = last.reason if isinstance(last, PlayedGame) else None
        losing_in_moves = reason in LOSING_ANSWERS and bool(moves)
        rec["steps"] = len(moves) - (1 if losing_in_moves and reason not in REPLAYED_ANSWERS else 0)
        rec["losing_move"] = moves[-1] if losing_in_moves else None
        rec["result"] = self._row(last)["result"]
        return rec

