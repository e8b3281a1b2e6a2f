"""bench/nextmove_package.py, the bench's driver of the ``nextMove`` competition's own referee and bots
(issue 53), on a double of that package written here: a referee with the same conventions (Player 1
first when the start has an even length, the time used as third argument, a list of allowed moves
1 .. 10^6, a refused move or 30 s of time replaced by a 1) and two bots, one with a two-argument
``nextMove``.  The package itself is not needed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sylver.position import Position, Termination

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from nextmove_package import Caller, capped, load_package, play, seat_seed, takes_time  # noqa: E402

REFEREE = '''
import time
import pandas as pd  # its round robin's table: the driver supplies a stand-in when pandas is missing


def representable(n, numbers):
    reach = [True] + [False] * n
    for i in range(1, n + 1):
        reach[i] = any(i >= a and reach[i - a] for a in numbers)
    return reach[n]


def SylverCoinageGame(Player1, Player2, numberOfGames=100, startingPosition=[]):
    wins = [0, 0]
    for game in range(numberOfGames):
        allowed = [i for i in range(1, 1000001)]
        moves = list(startingPosition)
        used = [0, 0]
        turn = (-1) ** ((game + 1) + len(moves))
        while 1 not in moves:
            seat = 0 if turn == -1 else 1
            start = time.perf_counter()
            move = (Player1, Player2)[seat](moves, [], used[seat])
            used[seat] += time.perf_counter() - start
            if used[seat] > 30:
                print("ran out of time")
                move = 1
            if move in allowed and not representable(move, moves):
                moves.append(move)
                turn = -turn
            else:
                print("Too many penalties, you lose")
                moves.append(1)
                turn = -turn  # the other player wins
        wins[0 if turn == -1 else 1] += 1
    return wins, [], []
'''

LEGAL = '''
def legal(n, numbers):
    reach = [True] + [False] * n
    for i in range(1, n + 1):
        reach[i] = any(i >= a and reach[i - a] for a in numbers)
    return not reach[n]


def smallest(numbers):
    return next((n for n in range(2, 200) if legal(n, numbers)), 1)
'''

BOTS = {
    "bestBot.py": LEGAL + '''

class myBot:
    def nextMove(self, movesPlayed, remainingGaps=[], playerTime=36):
        return smallest(movesPlayed)
''',
    "usingStrongCounterV3.py": LEGAL + '''
import random


class strongCounterV3:
    def nextMove(self, movesPlayed, remainingGaps=[]):
        big = [n for n in range(501, 521) if legal(n, movesPlayed)]
        return random.choice(big) if big else smallest(movesPlayed)
''',
}


@pytest.fixture
def package(tmp_path: Path):
    (tmp_path / "testingSylver-version-1.3.py").write_text(REFEREE)
    for name, text in BOTS.items():
        (tmp_path / name).write_text(text)
    had_pandas = "pandas" in sys.modules
    pkg = load_package(tmp_path)
    assert ("pandas" in sys.modules) == had_pandas  # a stand-in is gone once the referee is loaded
    return pkg


def callers(pkg):
    best = pkg.bot_class("bestBot")()
    counter = pkg.bot_class("strongCounterV3")()
    assert takes_time(best.nextMove) and not takes_time(counter.nextMove)
    return Caller("bestBot", best.nextMove, True), Caller("strongCounterV3", counter.nextMove, False)


def test_the_same_game_from_either_start_length(package) -> None:
    """``first`` moves first whatever the start's length (the referee's Player 1 or Player 2); the
    record is the arena's: players in seat order, the moves in order, the loser named 1."""
    game = package.referee.SylverCoinageGame
    best, counter = callers(package)
    for start in ((), (7,), (7, 11)):
        g = play(game, best, counter, start, number=1, seed=5, random_seat=1)
        assert g.players == ("bestBot", "strongCounterV3") and g.start == start
        p = Position(start)
        for n in g.moves[:-1]:
            p = p.play(n)  # every move legal
        assert g.moves[0] == 2 and (g.moves[1] == 3 if start else 501 <= g.moves[1] <= 519)  # {2,7}: 3
        assert g.reason is Termination.NAMED_ONE and g.moves[-1] == 1
        assert g.winner == ("bestBot" if len(g.moves) % 2 == 0 else "strongCounterV3")
        assert [s for s, _, _ in best.calls] == [tuple(start) + g.moves[:k] for k in range(0, len(g.moves), 2)]


def test_the_cap_bounds_the_referees_list_of_allowed_moves(package) -> None:
    """``capped`` runs the referee's own loop with its list 1 .. cap: the two-argument bot's odd
    number in 501 .. 519 after 2 is played under the referee's 10^6 and refused under a cap of 400."""
    best, counter = callers(package)
    g = play(package.referee.SylverCoinageGame, best, counter, (), number=1, seed=3, random_seat=1)
    assert g.moves[0] == 2 and 501 <= g.moves[1] <= 519 and g.reason is Termination.NAMED_ONE
    g = play(capped(package.referee.SylverCoinageGame, 400), best, counter, (), number=1, seed=3, random_seat=1)
    assert g.reason is Termination.ILLEGAL_MOVE and g.winner == "bestBot" and len(g.moves) == 2


def test_the_package_bot_draws_as_seeded_for_its_seat(package) -> None:
    """The global random is seeded as the arena's bot host seeds it for the bot's seat, so a game
    replayed with the same seed is the same game."""
    import random

    best, counter = callers(package)
    game = capped(package.referee.SylverCoinageGame, 400)
    answers = set()
    for seed in range(6):
        g = play(game, counter, best, (), number=1, seed=seed, random_seat=0)
        random.seed(seat_seed(seed, 0))
        assert g.moves[0] == random.choice(list(range(501, 521)))
        answers.add(g.moves[0])
    assert len(answers) > 1
