"""Standings: points with the competitions' tiebreaks, per-bot statistics, and Elo with a 95 % margin.

Elo is the maximum-likelihood Bradley–Terry rating of all games (a draw is half a win), centred so
the field's mean is 0, with one virtual draw against a 0-rated opponent per bot so that a bot that
won (or lost) every game still gets a finite rating.  The margin is 1.96 standard errors from the
Fisher information of that bot's rating.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from sylver.arena.games import PlayedGame
from sylver.arena.rules import CLASSIC, Rules
from sylver.position import Termination

ELO_K = 400 / math.log(10)


@dataclass
class BotStats:
    """One line of the standings."""

    name: str
    rank: int = 0
    games: int = 0
    points: float = 0.0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    wins_first: int = 0
    wins_second: int = 0
    crashes: int = 0
    timeouts: int = 0
    illegal: int = 0
    named_one: int = 0
    learn_errors: int = 0
    moves: int = 0
    total_time: float = 0.0
    max_time: float = 0.0
    elo: float = 0.0
    elo_margin: float = 0.0
    match_score: float = 0.0
    wins_above_half: float = 0.0
    disqualified: bool = False
    lot: int = 0
    opponents: dict = field(default_factory=dict)

    @property
    def avg_time(self) -> float:
        return self.total_time / self.moves if self.moves else 0.0

    def to_json(self) -> dict:
        d = asdict(self)
        d["avg_time"] = self.avg_time
        d["wins_minus_losses"] = self.wins - self.losses
        return d


def elo_ratings(names: list[str], results: list[tuple[str, str, float]]) -> dict[str, tuple[float, float]]:
    """(Elo, ±95 %) per bot from (a, b, score of a) results, by Bradley–Terry maximum likelihood."""
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    if k == 0:
        return {}
    games = [[0.0] * k for _ in range(k)]
    score = [0.5] * k  # the virtual draw
    for a, b, s in results:
        i, j = idx[a], idx[b]
        games[i][j] += 1
        games[j][i] += 1
        score[i] += s
        score[j] += 1 - s
    gamma = [1.0] * k
    for _ in range(500):
        new = []
        for i in range(k):
            denom = 1.0 / (gamma[i] + 1.0)  # virtual opponent of strength 1 (Elo 0), one game
            for j in range(k):
                if games[i][j]:
                    denom += games[i][j] / (gamma[i] + gamma[j])
            new.append(score[i] / denom)
        # centre: geometric mean 1
        mean = math.exp(sum(math.log(g) for g in new) / k)
        new = [g / mean for g in new]
        delta = max(abs(math.log(a) - math.log(b)) for a, b in zip(new, gamma, strict=True))
        gamma = new
        if delta < 1e-9:
            break
    out = {}
    for n, i in idx.items():
        info = gamma[i] / (gamma[i] + 1) ** 2
        for j in range(k):
            if games[i][j]:
                p = gamma[i] / (gamma[i] + gamma[j])
                info += games[i][j] * p * (1 - p)
        out[n] = (ELO_K * math.log(gamma[i]), 1.96 * ELO_K / math.sqrt(info))
    return out


def standings(names: list[str], records: list[PlayedGame], rules: Rules, seed: int,
              disqualified: list[str] = ()) -> list[BotStats]:  # type: ignore[assignment]
    """The ranked standings of ``records`` (finished, non-void games of the current phase)."""
    stats = {n: BotStats(n) for n in names}
    lots = list(names)
    random.Random(f"lots:{seed}").shuffle(lots)
    for i, n in enumerate(lots):
        stats[n].lot = i
    pair: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    elo_results = []
    for r in records:
        a, b = r.players
        w, lo = r.winner, r.loser
        if a not in stats or b not in stats:
            continue
        for seat, n in enumerate((a, b)):
            st = stats[n]
            st.games += 1
            my_moves = [t for i, t in enumerate(r.times) if i % 2 == seat]
            st.moves += len(my_moves)
            st.total_time += sum(my_moves)
            if my_moves:
                st.max_time = max(st.max_time, max(my_moves))
        sw, sl = stats[w], stats[lo]
        sw.wins += 1
        sw.points += rules.win_points
        sl.losses += 1
        sl.points += rules.loss_points
        if r.winner_seat == 0:
            sw.wins_first += 1
        else:
            sw.wins_second += 1
        if r.reason.is_failure:
            sl.crashes += 1
        elif r.reason is Termination.TIMEOUT:
            sl.timeouts += 1
        elif r.reason.is_bad_answer:
            sl.illegal += 1
        elif r.reason is Termination.NAMED_ONE:
            sl.named_one += 1
        for e in r.learn_errors:
            if e.bot in stats:
                stats[e.bot].learn_errors += 1
                if e.reason is Termination.TIMEOUT:
                    stats[e.bot].timeouts += 1
                else:
                    stats[e.bot].crashes += 1
        pair[(w, lo)][0] += 1
        pair[(lo, w)][1] += 1
        elo_results.append((w, lo, 1.0))
    for (a, b), (won, lost) in pair.items():
        st = stats[a]
        st.opponents[b] = {"wins": won, "losses": lost}
        st.match_score += 1.0 if won > lost else 0.5 if won == lost else 0.0
    for st in stats.values():
        st.wins_above_half = st.wins - st.games / 2
        st.disqualified = st.name in disqualified
    for n, (elo, margin) in elo_ratings(list(names), elo_results).items():
        stats[n].elo, stats[n].elo_margin = elo, margin
    if rules.preset in CLASSIC:
        key = lambda s: (s.disqualified, -s.match_score, -s.wins, -(s.wins - s.losses), s.lot)  # noqa: E731
    else:
        key = lambda s: (s.disqualified, -s.points, -s.wins, 0, s.lot)  # noqa: E731
    ranked = sorted(stats.values(), key=key)
    for i, st in enumerate(ranked, 1):
        st.rank = i
    return ranked
