"""Console output of the arena: cutechess-style progress lines, a Rich progress bar, the tables."""

from __future__ import annotations

from collections import defaultdict

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from sylver.arena.analysis import FIRST_BLUNDERS_SHOWN, Analysis, BlunderStats
from sylver.arena.games import GameSpec, PlayedGame, VoidGame
from sylver.arena.ratings import BotStats
from sylver.arena.rules import CLASSIC, Rules
from sylver.arena.tournament import Events
from sylver.position import Termination

_WHY = {Termination.INVALID_MOVE: "invalid answer: ", Termination.TIMEOUT: "timeout: ", Termination.CRASH: "crash: ",
        Termination.PROTOCOL: "protocol error: "}
"""What precedes the detail of a loss in a result line (the detail of the others says it all)."""


def result_text(rec: PlayedGame) -> str:
    """``A wins {B: illegal move 13 = 4·2 + 5·1}``."""
    why = "named 1" if rec.reason is Termination.NAMED_ONE else f"{_WHY.get(rec.reason, '')}{rec.detail}"
    return f"{rec.winner} wins {{{rec.loser} {why}}}"


class ConsoleEvents(Events):
    """Prints the progress lines and drives a progress bar."""

    def __init__(self, console: Console, *, quiet: bool = False, match: bool = False, every: int = 0,
                 rules: Rules | None = None) -> None:
        self.console = console
        self.quiet = quiet
        self.match = match
        self.every = every
        self.rules = rules
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.count = 0
        self.names: list[str] = []
        self.score: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.points: dict[str, float] = defaultdict(float)

    def __enter__(self) -> ConsoleEvents:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
            console=self.console, transient=True,
        )
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def _print(self, text: str, style: str | None = None) -> None:
        out = self.progress.console if self.progress else self.console
        out.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def phase(self, phase: int, active: list[str], total: int, done: int) -> None:
        self.total = total
        if phase:
            self._print(f"Phase {phase + 1}: replaying every round with {', '.join(active)}", "bold")
        elif done:
            self._print(f"Resuming: {done} of {total} games already played")
        if self.progress is not None:
            if self.task is not None:
                self.progress.remove_task(self.task)
            self.task = self.progress.add_task("games", total=total, completed=done)
        self.count = done

    def started(self, game: GameSpec, number: int, total: int) -> None:
        if not self.quiet:
            a, b = game.players
            self._print(f"Started game {number} of {total} ({a} vs {b})")

    def finished(self, rec: PlayedGame, number: int, total: int) -> None:
        a, b = rec.players
        self.count += 1
        if self.progress is not None and self.task is not None:
            self.progress.advance(self.task)
        w = rec.winner
        self.score[w][0] += 1
        self.score[rec.loser][1] += 1
        if self.rules is not None:
            self.points[w] += self.rules.win_points
            self.points[rec.loser] += self.rules.loss_points
        if not self.quiet:
            self._print(f"Finished game {number} ({a} vs {b}): {result_text(rec)}")
            for e in rec.learn_errors:
                self._print(f"  {e.bot}: {e.reason.value} {e.detail}", "yellow")
        if self.match:
            if not self.quiet:
                x, y = self.names
                wx, wy = self.score[x][0], self.score[y][0]
                n = wx + wy
                self._print(f"Score of {x} vs {y}: {wx} - {wy} - 0  [{wx / n:.3f}] {n}")
        elif self.every and self.count % self.every == 0 and not self.quiet:
            top = sorted(self.points.items(), key=lambda kv: -kv[1])
            self._print("Standings after {} games: {}".format(
                self.count, ", ".join(f"{k} {v:g}" for k, v in top)))

    def void(self, rec: VoidGame) -> None:
        self._print(f"VOID game {rec.game} ({' vs '.join(rec.players)}): {rec.error}",
                    "bold red")

    def disqualified(self, names: list[str]) -> None:
        self._print(f"Disqualified for exceeding the time limit: {', '.join(names)}; every round is replayed "
                    "without them", "bold red")

    def note(self, text: str) -> None:
        self._print(text, "yellow")


def _fmt_time(x: float) -> str:
    if x >= 1:
        return f"{x:.2f} s"
    if x >= 1e-3:
        return f"{x * 1e3:.1f} ms"
    return f"{x * 1e6:.0f} µs"


BLUNDER_COLUMN = "blunders / decided N-moves [95 %]"


def standings_table(table: list[BotStats], rules: Rules, title: str = "Standings",
                    blunders: dict[str, BlunderStats] | None = None) -> Table:
    """The printed standings (the nextMove competition's columns for its presets), with each bot's
    blunder rate when the games were analysed."""
    t = Table(title=title)
    if rules.preset in CLASSIC:
        cols = ["#", "bot", "match score", "wins", "W−L", "wins above 50%", "moves", "total time", "avg/move",
                "crash", "timeout", "illegal", "Elo ± 95%"]
    else:
        cols = ["#", "bot", "points", "W–L", "1st/2nd wins", "crash", "timeout", "illegal", "avg/move", "max/move",
                "Elo ± 95%"]
    if blunders is not None:
        cols.append(BLUNDER_COLUMN)
    for c in cols:
        t.add_column(c, justify="left" if c == "bot" else "right")
    for s in table:
        name = s.name + (" (DQ)" if s.disqualified else "")
        elo = f"{s.elo:+.0f} ± {s.elo_margin:.0f}"
        if rules.preset in CLASSIC:
            row = [str(s.rank), name, f"{s.match_score:g}", str(s.wins), f"{s.wins - s.losses:+d}",
                   f"{s.wins_above_half:+g}", str(s.moves), _fmt_time(s.total_time), _fmt_time(s.avg_time),
                   str(s.crashes), str(s.timeouts), str(s.illegal), elo]
        else:
            row = [str(s.rank), name, f"{s.points:g}", f"{s.wins}–{s.losses}", f"{s.wins_first}/{s.wins_second}",
                   str(s.crashes), str(s.timeouts), str(s.illegal), _fmt_time(s.avg_time), _fmt_time(s.max_time),
                   elo]
        if blunders is not None:
            row.append(blunders[s.name].rate_text() if s.name in blunders else "")
        t.add_row(*row)
    return t


def blunder_table(analysis: Analysis, title: str = "Blunder analysis") -> Table:
    """Per bot: its moves analysed by verdict and its blunder rate."""
    t = Table(title=title)
    for c in ("bot", "moves", "winning", "blunders", "forced", "undecided", BLUNDER_COLUMN):
        t.add_column(c, justify="left" if c == "bot" else "right")
    for s in analysis.stats.values():
        t.add_row(s.name, str(s.moves), str(s.winning), str(s.blunders), str(s.forced), str(s.undecided),
                  s.rate_text())
    return t


def first_blunder_lines(analysis: Analysis, limit: int = FIRST_BLUNDERS_SHOWN) -> list[str]:
    """``Game 3: sage's first blunder, move 5 in {4,9}: 7 (1.20 s), best was 19``; at most ``limit``."""
    doc = analysis.to_json()
    lines = []
    for b in doc["first_blunders"][:limit]:
        where = "{" + ",".join(map(str, b["position"])) + "}"
        best = f"best was {b['best']}" if b["best"] is not None else "the position is N (by a theorem naming no move)"
        lines.append(f"Game {b['game']}: {b['bot']}'s first blunder, move {b['ply'] + 1} in {where}: "
                     f"{b['move']} ({_fmt_time(b['time'])}), {best}")
    more = len(doc["first_blunders"]) - limit
    if more > 0:
        lines.append(f"… and {more} more (analysis.json, blunders.csv)")
    return lines
