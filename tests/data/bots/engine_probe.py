# A sylver-style bot (choose) that tells whether the solver's process-wide table (ENGINE) held
# anything before its move (tests/test_bench_strength.py): if it did, it raises an error whose message
# says how many entries and the time it was told it may use; otherwise it solves its position (so its
# own table is no longer empty) and names the largest legal move.
from sylver.solver import solve
from sylver.solver.engine import ENGINE


class EngineProbe:
    def choose(self, turn):
        if ENGINE.count:
            raise RuntimeError(f"table held {ENGINE.count} entries; time left {turn.time_left}")
        solve(turn.position)
        return max(turn.position.legal_moves())
