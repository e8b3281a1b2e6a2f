"""Proof certificates: built from solves, checked independently, tampering rejected."""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sylver import Position
from sylver.proof import certificate as certmod
from sylver.proof.build import build_certificate, write_certificate
from sylver.proof.certificate import CertificateError, gap_mask, is_ender, moves, play, verify
from sylver.solver import solve


def make(text: str, first: bool = False) -> dict:
    return build_certificate(solve(Position(text), first=first))


class TestChecker:
    def test_checker_is_standalone(self) -> None:
        """The checker imports nothing but the standard library (no solver, no numba)."""
        tree = ast.parse(Path(certmod.__file__).read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                imported.add((node.module or "").split(".")[0])
        assert imported <= {"__future__", "array", "collections", "dataclasses", "datetime", "hashlib", "itertools", "json", "math",
                            "multiprocessing", "os", "sys", "time", "typing"}

    def test_arithmetic_matches_position(self) -> None:
        for text in ["4,5", "5,14,16,18", "16,20,28,35,54", "7,9,19,20,31"]:
            p = Position(text)
            gaps = gap_mask(list(p.generators))
            assert moves(gaps) == [x for x in p.legal_moves() if x != 1]
            for x in moves(gaps)[:10]:
                after = play(gaps, x)
                assert moves(after) == [y for y in p.play(x).legal_moves() if y != 1]

    def test_gap_mask_matches_the_definition(self) -> None:
        """The gap mask, closed up to a guess and tested for m members in a row there, is the one
        of the definition (the members up to Schur's bound), also where t is far above the largest
        generator ({16,37}: 539) and where the guess is doubled."""
        import math
        import random

        def reference(gens: list[int]) -> int:
            limit = (min(gens) - 1) * (max(gens) - 1) + 1
            member = [True] + [False] * limit
            for n in range(1, limit + 1):
                member[n] = any(n >= g and member[n - g] for g in gens)
            return sum(1 << n for n in range(limit + 1) if not member[n])

        rng = random.Random(7)
        cases = [[16, 37], [2, 3], [3, 5], [16, 37, 38, 72, 94], [29, 30], [5, 18, 101]]
        while len(cases) < 400:
            gens = [rng.randint(2, rng.choice([12, 40, 120])) for _ in range(rng.randint(1, 5))]
            if math.gcd(*gens) == 1:
                cases.append(gens)
        for gens in cases:
            assert gap_mask(gens) == reference(gens), gens

    def test_ender(self) -> None:
        assert is_ender(gap_mask([4, 5]))  # coprime pairs are enders (Hutchings)
        assert is_ender(gap_mask([4, 5, 7]))  # the paper's unquiet ender
        assert not is_ender(gap_mask([7, 11, 13, 15]))

    def test_ender_matches_theory(self) -> None:
        """The checker's bit-set test (the multiples of each gap against the members reflected
        about t) agrees with the library's, on every position a move or two from a few roots."""
        from sylver.theory import is_ender as theory_is_ender

        seen = 0
        for text in ["4,5", "5,7", "6,9,19,31", "7,9,19,20,31", "11,14"]:
            p = Position(text)
            for x in [x for x in p.legal_moves() if x != 1]:
                q = p.play(x)
                for r in [q, *(q.play(y) for y in q.legal_moves()[1:8])]:
                    if r.frobenius_number > 1:
                        assert is_ender(gap_mask(list(r.generators))) == theory_is_ender(r), r
                        seen += 1
        assert seen > 500


class TestRoundTrip:
    @pytest.mark.parametrize("text", ["2,3", "4,5", "5,14", "5,18", "6,9,19,31", "7,9,19,20,31"])
    def test_valid_complete(self, text: str, tmp_path: Path) -> None:
        cert = make(text)
        assert cert["complete"]
        path = tmp_path / "c.json"
        write_certificate(cert, path)
        certmod.verify_file(str(path))

    def test_first_only(self) -> None:
        cert = make("5,18", first=True)
        assert not cert["complete"] and cert["winning_moves"] == [14]
        verify(cert)

    def test_p_position_and_shared_subproofs_once(self) -> None:
        cert = make("16,20,28,35,54")
        keys = [tuple(n[0]) for n in cert["nodes"]]
        assert len(keys) == len(set(keys))
        assert cert["outcome"] == "P"
        verify(cert)

    def test_standalone_script(self, tmp_path: Path) -> None:
        path = tmp_path / "c.json"
        write_certificate(make("5,14"), path)
        out = subprocess.run(
            [sys.executable, certmod.__file__, str(path)], capture_output=True, text=True
        )
        assert out.returncode == 0 and out.stdout.strip() == "valid"


GOOD = make("5,14")


class TestTampering:
    @pytest.fixture
    def good(self) -> dict:
        return copy.deepcopy(GOOD)

    def rejects(self, cert: dict, match: str | None = None) -> None:
        with pytest.raises(CertificateError, match=match):
            verify(cert)

    def test_wrong_outcome(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        bad["outcome"], bad["winning_moves"] = "P", []
        self.rejects(bad)

    def test_extra_winning_move(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        bad["winning_moves"] = [2, 18]
        self.rejects(bad)

    def test_missing_winning_move_in_complete_set(self) -> None:
        bad = make("5,18")
        bad["winning_moves"] = [14, 16]
        self.rejects(bad)

    def test_changed_reply(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        _gens, replies = bad["nodes"][0]
        i = next(i for i, y in enumerate(replies) if y > 0)
        replies[i] = replies[i] + 1
        self.rejects(bad, "node")

    def test_false_ender_claim(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        for _gens, replies in bad["nodes"]:
            for i, y in enumerate(replies):
                if y > 0:
                    replies[i] = 0
                    break
            else:
                continue
            break
        self.rejects(bad)

    def test_dropped_node(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        bad["nodes"] = bad["nodes"][1:]
        self.rejects(bad, "not proved P")

    def test_changed_node_position(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        bad["nodes"][0][0] = bad["nodes"][0][0][:-1]
        self.rejects(bad)

    def test_missing_reply(self, good: dict) -> None:
        bad = copy.deepcopy(good)
        bad["nodes"][-1][1].pop()
        self.rejects(bad, "replies")

    def test_malformed(self, good: dict) -> None:
        self.rejects({"format": "nope"})
        bad = copy.deepcopy(good)
        del bad["nodes"]
        self.rejects(bad, "missing")
        bad = copy.deepcopy(good)
        bad["position"] = [4, 6]
        self.rejects(bad, "gcd")

    def test_a_pair_of_moves_answering_each_other(self) -> None:
        """A move x answered by y < x, where y is answered by x, is checked by y's reply (the
        position after both): the reply must still be the integer y, and that position a node."""
        cert = make("11,14")

        def pair(gens: list[int], replies: list[int]) -> tuple[int, int] | None:
            reply = dict(zip(moves(gap_mask(gens)), replies, strict=True))
            return next(((x, y) for x, y in reply.items() if type(y) is int and 2 <= y < x and reply[y] == x
                         and play(play(gap_mask(gens), y), x) != 0b10), None)

        n, (x, y) = next((n, p) for n, (gens, replies) in enumerate(cert["nodes"]) if (p := pair(gens, replies)))
        gens = cert["nodes"][n][0]
        legal = moves(gap_mask(gens))
        verify(cert)
        for wrong in (float(y), str(y), [y]):
            bad = copy.deepcopy(cert)
            bad["nodes"][n][1][legal.index(x)] = wrong
            self.rejects(bad, re.escape(f"reply {wrong!r} to {x} is not a legal move"))
        reached = play(play(gap_mask(gens), y), x)
        bad = copy.deepcopy(cert)
        bad["nodes"] = [node for node in bad["nodes"] if gap_mask(node[0]) != reached]
        self.rejects(bad, "not proved P")

    @pytest.mark.parametrize("value", ["x", None, [[5], 14], [5, "14"], [5, None], {"a": 1}, [True, 14], []])
    def test_wrong_shapes_are_named_not_raised(self, good: dict, value: object) -> None:
        for where in ("position", "winning_moves", "node", "replies", "root_replies"):
            bad = copy.deepcopy(good)
            if where == "node":
                bad["nodes"][0][0] = value
            elif where == "replies":
                bad["nodes"][0][1] = [value] * len(bad["nodes"][0][1])
            elif where == "root_replies":
                bad["root_replies"] = [value] * len(bad["root_replies"])
            else:
                bad[where] = value
            if where == "winning_moves" and value == []:
                continue  # a valid shape (and a false claim, tested above)
            self.rejects(bad)  # a CertificateError naming the flaw, never a TypeError
        bad = copy.deepcopy(good)
        bad["complete"] = "yes"
        self.rejects(bad, "'complete' must be true or false")


class TestVerifyCommand:
    def run(self, *args: str) -> subprocess.CompletedProcess:
        """The command, its output unwrapped (a line that wrapped at a space just before "(from the
        results store" lost that space to the newline: it depended on the length of the tmp path)."""
        return subprocess.run([sys.executable, "-m", "sylver", *args], capture_output=True, text=True, timeout=120,
                              env={**os.environ, "COLUMNS": "1000"})

    def test_solve_certificate_then_verify(self, tmp_path: Path) -> None:
        path = tmp_path / "proof.json"
        out = self.run("solve", "5", "18", "--no-store", "--certificate", str(path))
        assert out.returncode == 0, out.stderr
        ok = self.run("verify", str(path))
        assert ok.returncode == 0 and ok.stdout.strip() == "valid"
        cert = json.loads(path.read_text())
        cert["winning_moves"] = [14, 16]
        path.write_text(json.dumps(cert))
        bad = self.run("verify", str(path))
        assert bad.returncode == 1 and bad.stdout.startswith("invalid:")

    def test_certificate_taken_from_the_store(self, tmp_path: Path) -> None:
        """A second `solve --certificate` of a stored answer copies the stored proof, built once."""
        store, first, again = tmp_path / "s.sqlite", tmp_path / "a.json", tmp_path / "b.json"
        out = self.run("solve", "5", "18", "--store", str(store), "--certificate", str(first))
        assert out.returncode == 0 and "from the results store" not in out.stdout, out.stderr
        out = self.run("solve", "5", "18", "--store", str(store), "--certificate", str(again))
        assert out.returncode == 0 and f"{again} (from the results store, " in out.stdout.replace("\n", ""), out.stdout
        assert again.read_bytes() == first.read_bytes()
        assert self.run("verify", str(again)).stdout.strip() == "valid"
        out = self.run("solve", "5", "18", "--store", str(store), "--first", "--certificate", str(again))
        assert out.returncode == 0 and self.run("verify", str(again)).stdout.strip() == "valid"

    def test_verify_bad_input(self, tmp_path: Path) -> None:
        missing = self.run("verify", str(tmp_path / "none.json"))
        assert missing.returncode == 2 and "cannot read" in missing.stderr
        junk = tmp_path / "junk.json"
        junk.write_text("{not json")
        out = self.run("verify", str(junk))
        assert out.returncode == 2 and "not JSON" in out.stderr
        junk.write_text(json.dumps(dict(GOOD, position=[[5], "14"])))
        out = self.run("verify", str(junk))
        assert out.returncode == 1 and out.stdout.count("\n") == 1 and "Traceback" not in out.stdout + out.stderr
        assert out.stdout.startswith("invalid: 'position' [[5], \"14\"] is not a list of positive integers")


class TestWinningMoveOnly:
    """An N answer that is not complete, for any g > 1 (a long position with g = 3, a composite
    g): the certificate proves its winning move leaves a P-position and claims nothing else."""

    @pytest.mark.parametrize(("gens", "g"), [([9, 15, 21], 3), ([4], 4), ([8], 8)])
    def test_valid_and_checked(self, gens: list[int], g: int) -> None:
        from sylver.proof.build import build_gcd_certificate

        # a limit of states, not seconds, bounds the search for {8}'s winning move (53 states):
        # the same answer on any machine (its 10-s default once ran out on a cold, loaded one)
        sol = solve(Position(gens), first=True, max_states=100_000)
        assert sol.gcd == g and sol.verdict == "N" and not sol.complete
        cert = json.loads(json.dumps(build_gcd_certificate(sol)))
        lines = certmod.verify_any(cert)
        assert lines[0] == f"{Position(gens).braces()} is N: proven"
        w = cert["winning_moves"][0]
        for bad in (g * 1000, w + g * 7, 1):  # illegal (a multiple of g in S), another move, 1
            if bad == w:
                continue
            forged = copy.deepcopy(cert)
            forged["winning_moves"] = [bad]
            with pytest.raises(CertificateError):
                certmod.verify_any(forged)
        forged = copy.deepcopy(cert)
        forged["complete"] = True  # a complete claim needs a refutation of every move
        with pytest.raises(CertificateError):
            certmod.verify_any(forged)
