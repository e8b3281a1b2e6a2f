"""Certificates built and checked a node at a time (issue 32): the streaming builder proves what the
in-memory builder it replaced proved, node for node; the file checker accepts exactly what the
dict checker accepts, and refuses a tampered or truncated file with one line naming the flaw."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sylver import Position
from sylver.jit import njit
from sylver.proof.build import (
    SeenSet,
    build_certificate,
    stream_certificate,
    write_any_certificate,
    write_certificate,
)
from sylver.proof.certificate import (
    CertificateError,
    CertificateFileError,
    GapSet,
    verify,
    verify_path,
)
from sylver.solver import kernels as k
from sylver.solver import solve
from sylver.solver.engine import ENGINE, child_gaps, root_gaps

# gcd-1 positions, N and P, with t below and above 128 (exact and digest keys in the seen set)
POSITIONS = [
    "2,3", "4,5", "4,7", "5,6", "5,7", "5,8", "5,9", "5,11", "5,12", "5,13", "5,14", "5,18", "6,7",
    "6,11", "7,8", "7,9", "7,10", "7,11", "7,12", "8,9", "8,11", "9,10", "10,11", "11,13", "12,13",
    "5,14,16,18", "6,9,19,31", "7,9,19,20,31", "16,20,28,35,54", "12,17", "11,14",
]


def fresh_solve(text: str, first: bool = False) -> Any:
    """The solve of ``text`` from empty tables and move-ordering hints (so that two builds from it
    find the same replies in the table)."""
    ENGINE.clear()
    ENGINE.stack.clear_ordering()
    return solve(Position(text), first=first, store=None)


@njit(cache=True, interpret=False)
def known_p_reply(bits, W, ptab, egtabs, efshift, egg):  # pragma: no cover - compiled
    """The builder's reply rule, plainly: the least move y >= 2 from the position ``bits[0:W]``
    whose result (written to ``bits[W:2W]``) is {2,3}, P in the endgame table, or stored in the P
    table, else 0; on the array's whole width, gap by gap, the table's bucket read without its P
    filter (the builder: its own width, a word's gaps by trailing zeros, the filter first)."""
    egtab, egfilt = egtabs
    pg = k.bt_geometry(ptab, k.P_BASE)
    for y in range(2, 64 * W):
        if (bits[y // 64] >> np.uint64(y % 64)) & np.uint64(1) == np.uint64(0):
            continue
        k.play_into(bits, 0, W, W, y)
        if k.is_terminal(bits, W, W):
            return y
        c0 = bits[W]
        if k.eg_small(c0, egg) and k.eg_upper_zero(bits, W, W):
            if k.eg_has(egtab, egfilt, efshift, c0, k.eg_hash(c0)):
                return y
            continue
        hc, kc = k.state_keys(bits, W, W)
        i = k.bucket(hc, kc, pg)
        for s in range(k.SLOTS):
            if ptab[i + s] == kc:
                return y
    return 0


@njit(cache=True, interpret=False)
def refute_moves(gaps, ptab, replies, after, egtabs, efshift, egg):  # pragma: no cover - compiled
    """For each move x >= 2 of the P-position ``gaps`` (increasing): ``replies[k]`` is 0 when the
    position after it is an ender with t > 1, else ``known_p_reply`` (its position written to
    ``after[k*W:(k+1)*W]``), or -1 when none is known."""
    W = gaps.shape[0]
    bits = np.zeros(3 * W, dtype=np.uint64)
    bits[:W] = gaps
    n = 0
    for x in range(2, 64 * W):
        if (gaps[x // 64] >> np.uint64(x % 64)) & np.uint64(1) == np.uint64(0):
            continue
        k.play_into(bits, 0, W, W, x)
        t = k.top_bit(bits, W, W)
        if t > 1 and k.is_ender(bits, W, W, t):
            replies[n] = 0
        else:
            y = known_p_reply(bits[W:], W, ptab, egtabs, efshift, egg)
            replies[n] = y if y > 0 else -1
            after[n * W : (n + 1) * W] = bits[2 * W : 3 * W]
        n += 1


def reference_certificate(sol: Any) -> dict[str, Any]:
    """The in-memory builder that the streaming one replaced (prove.py before issue 32): every
    node kept in a dict, by its gap set's bytes, with its generators and replies; the nodes listed
    in the order in which they are taken off the stack (the streaming builder's order).  It finds
    replies with the plain kernels above (``refute_moves``, ``known_p_reply``: the rule of the
    builder's ``kernels.node_replies`` without its own width, its word tricks and its P filter)."""
    order: list[bytes] = []
    nodes: dict[bytes, tuple[list[int], list[int]]] = {}
    terminal: set[bytes] = set()
    todo: list[np.ndarray] = []

    def add(gaps: np.ndarray) -> None:
        key = gaps.tobytes()
        if key in nodes or key in terminal:
            return
        if k.is_terminal(gaps, 0, gaps.shape[0]):
            terminal.add(key)
            return
        nodes[key] = (k.min_generators(gaps, 0, gaps.shape[0]).tolist(), [])
        todo.append(gaps)

    def refute(gaps: np.ndarray, x: int) -> int:
        child = child_gaps(gaps, x)
        W = child.shape[0]
        t = int(k.top_bit(child, 0, W))
        if t > 1 and k.is_ender(child, 0, W, t):
            return 0
        buf = np.zeros(2 * W, dtype=np.uint64)
        buf[:W] = child
        egtab, egfilt, efshift, egg = ENGINE.endgame()
        y = int(known_p_reply(buf, W, ENGINE.ptable, (egtab, egfilt), efshift, egg))
        if y == 0:
            y = next(int(c) for c in k.gap_list(child, 0, W)
                     if c >= 2 and ENGINE.outcome(child_gaps(child, int(c))).value == "P")
        add(child_gaps(child, y))
        return y

    gaps = root_gaps(sol.position)
    cert: dict[str, Any] = {"format": "sylver-certificate", "version": 1, "position": list(sol.position.generators),
                            "outcome": sol.outcome.value, "winning_moves": list(sol.winning_moves),
                            "complete": sol.complete}
    if sol.complete:
        cert["root_replies"] = []
        for x in (int(x) for x in k.gap_list(gaps, 0, gaps.shape[0]) if x >= 2):
            if x in sol.winning_moves:
                cert["root_replies"].append(-1)
                add(child_gaps(gaps, x))
            else:
                cert["root_replies"].append(refute(gaps, x))
    else:
        for w in sol.winning_moves:
            add(child_gaps(gaps, w))
    while todo:
        g = todo.pop()
        order.append(g.tobytes())
        W = g.shape[0]
        moves = [int(x) for x in k.gap_list(g, 0, W) if x >= 2]
        found = np.empty(len(moves), dtype=np.int64)
        after = np.empty(len(moves) * W, dtype=np.uint64)
        egtab, egfilt, efshift, egg = ENGINE.endgame()
        refute_moves(g, ENGINE.ptable, found, after, (egtab, egfilt), efshift, egg)
        replies = nodes[g.tobytes()][1]
        for i, (x, y) in enumerate(zip(moves, found.tolist(), strict=True)):
            if y > 0:
                add(after[i * W : (i + 1) * W].copy())
            elif y < 0:
                y = refute(g, x)
            replies.append(y)
    cert["nodes"] = [list(nodes[key]) for key in order]
    return cert


def by_position(cert: dict[str, Any]) -> dict[tuple[int, ...], list[int]]:
    out = {tuple(gens): replies for gens, replies in cert["nodes"]}
    assert len(out) == len(cert["nodes"])
    return out



def wrong_reply(lines: list[str], at: int) -> str | None:
    """The certificate ``lines`` with the node on line ``at`` given a wrong reply (its first reply
    y > 0 made y + 1), or None when that node has no such reply."""
    gens, replies = json.loads(lines[at].rstrip(","))
    k = next((k for k, y in enumerate(replies) if y > 0), None)
    if k is None:
        return None
    replies[k] += 1
    comma = "," if lines[at].endswith(",") else ""
    return "\n".join([*lines[:at], json.dumps([gens, replies], separators=(",", ":")) + comma, *lines[at + 1:]])

class TestStreamingBuilder:
    @pytest.mark.parametrize("text", POSITIONS)
    def test_same_proof_as_the_in_memory_builder(self, text: str, tmp_path: Path) -> None:
        ref = reference_certificate(fresh_solve(text))
        path = tmp_path / "c.json"
        nodes, size = stream_certificate(fresh_solve(text), path)
        got = json.loads(path.read_text())
        assert size == path.stat().st_size and nodes == len(got["nodes"])
        assert {k: v for k, v in got.items() if k != "nodes"} == {k: v for k, v in ref.items() if k != "nodes"}
        assert by_position(got) == by_position(ref)
        write_certificate(ref, tmp_path / "ref.json")  # the same file, byte for byte
        assert path.read_bytes() == (tmp_path / "ref.json").read_bytes()
        assert verify_path(str(path)).nodes == nodes
        assert not (tmp_path / "c.json.part").exists()

    @pytest.mark.parametrize("text", ["5,18", "6,9,19,31", "12,17"])
    def test_first_only_and_in_memory(self, text: str) -> None:
        ref = reference_certificate(fresh_solve(text, first=True))
        got = build_certificate(fresh_solve(text, first=True))
        assert not got["complete"] and got["winning_moves"] == ref["winning_moves"]
        assert by_position(got) == by_position(ref)
        verify(got)

    def test_an_interrupted_build_leaves_its_part(self, tmp_path: Path) -> None:
        """``tick`` is called after each batch of nodes; what it raises stops the build (Ctrl-C: the
        partial file is kept, to be resumed: tests/test_certificate_resume.py)."""
        sol = solve(Position("5,18"), store=None)
        calls = []

        def stop(n: int) -> None:
            calls.append(n)
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            stream_certificate(sol, tmp_path / "c.json", tick=stop)
        assert len(calls) == 1 and calls[0] >= 1 and list(tmp_path.iterdir()) == [tmp_path / "c.json.part"]


    def test_the_deadline_cuts_a_build(self, tmp_path: Path) -> None:
        """The builder looks at the clock after every ``NODES_PER_LOOK`` nodes (a batch of its node
        kernel ends there), so a deadline passed stops it, leaving only its partial file."""
        from sylver.proof.build import NODES_PER_LOOK

        sol = fresh_solve("12,17", first=True)
        calls: list[int] = []
        nodes, _ = stream_certificate(sol, tmp_path / "a.json", tick=calls.append)
        assert nodes > 2 * NODES_PER_LOOK and calls[-1] == nodes
        assert set(range(NODES_PER_LOOK, nodes + 1, NODES_PER_LOOK)) <= set(calls)
        with pytest.raises(TimeoutError):
            stream_certificate(sol, tmp_path / "b.json", time_limit=1e-6)
        assert sorted(tmp_path.iterdir()) == [tmp_path / "a.json", tmp_path / "b.json.part"]


class TestSeenSet:
    @pytest.mark.parametrize("W", [1, 2, 3, 5])
    def test_a_set(self, W: int) -> None:
        """Exact keys (W <= 2) and digests (W > 2) behave as a set, across growths."""
        rng = np.random.default_rng(W)
        keys = rng.integers(0, 1 << 63, size=(3000, W), dtype=np.uint64) | np.uint64(2)
        keys[1000:2000] = keys[:1000]  # each of the first thousand twice
        seen, ref = SeenSet(slots=8), set()
        for chunk in range(0, 3000, 7):
            block = keys[chunk : chunk + 7]
            fresh = np.ones(len(block), dtype=np.bool_)
            seen.add(block.ravel().copy(), fresh)
            for row, new in zip(block, fresh.tolist(), strict=True):
                assert new == (row.tobytes() not in ref)
                ref.add(row.tobytes())
        assert seen.count == len(ref) == 2000


    def test_one_key_whatever_the_width(self) -> None:
        """A position has the same key in arrays of any width (zero words beyond t), exact below
        t = 128 and a digest beyond: one set serves the sub-proofs of a g > 1 certificate."""
        seen = SeenSet(slots=8)
        for text in ("5,7", "11,13", "16,20,28,35,54", "12,17"):
            narrow = root_gaps(Position(text))
            assert not seen.met(narrow)
            for words in (narrow.shape[0] + 1, narrow.shape[0] + 4):
                assert seen.met(root_gaps(Position(text), words))
        assert seen.count == 4


class TestGapSet:
    def test_a_set_in_order(self) -> None:
        rng = random.Random(5)
        masks = [rng.getrandbits(70) | 2 for _ in range(500)] + [0, 1 << 100]
        gs, ref = GapSet(10, 9), []  # grows past its size; the wide mask beside the table
        for m in masks + masks[:50]:
            assert gs.add(m) == (m not in ref)
            if m not in ref:
                ref.append(m)
        assert gs.size == len(ref) == len(masks)
        assert [gs.mask_at(j) for j in range(gs.size)] == ref
        for m in masks:
            assert m in gs
        for m in (rng.getrandbits(70) | 2 for _ in range(500)):
            assert (m in gs) == (m in ref)

    def test_what_no_set_holds(self) -> None:
        """An empty slot matches no mask: not 0, not a mask of all ones, not one wider than the
        table or negative; ``first_missing`` names the first mask missing."""
        for width in (1, 3, 9):
            empty, gs = GapSet(10, width), GapSet(10, width)
            for m in (2, 6, 0b1010):
                gs.add(m)
            for m in (0, 1, (1 << 8 * width) - 1, 1 << 8 * width, -1, 2**70 - 1):
                assert m not in empty and m not in gs
            assert gs.first_missing([2, 6, 0b1010]) == -1
            assert gs.first_missing([2, 6, 0, 0b1010]) == 2
            assert gs.first_missing([(1 << 8 * width) - 1, 2]) == 0


def tamperings(text: str) -> dict[str, str]:
    """A certificate file of ``text`` and its tampered copies: a changed reply, a dropped node, a
    duplicated node, and files cut short."""
    lines = text.split("\n")  # header, nodes (a comma after each but the last), "]}", ""
    nodes = lines[1:-2]
    i = next(i for i, line in enumerate(nodes) if any(y > 0 for y in json.loads(line.rstrip(","))[1]))
    gens, replies = json.loads(nodes[i].rstrip(","))
    j = next(j for j, y in enumerate(replies) if y > 0)
    replies[j] += 1
    changed = [*nodes[:i], json.dumps([gens, replies], separators=(",", ":")), *nodes[i + 1:]]
    last = nodes[-1].rstrip(",")

    def file(body: list[str]) -> str:
        body = [line.rstrip(",") + "," for line in body[:-1]] + [body[-1].rstrip(",")] if body else [""]
        return "\n".join([lines[0], *body, "]}", ""])

    generators = json.dumps(gens, separators=(",", ":"))
    leading_zero = nodes[i].replace(generators, generators.replace("[", "[0", 1), 1)  # not JSON
    reply_zero = json.dumps([gens, replies], separators=(",", ":")).replace(f",{replies[j]}", f",0{replies[j]}", 1)
    spaced = nodes[i].replace(generators, generators.replace(",", ", "), 1)  # JSON all the same
    return {
        "wrong reply": file(changed),
        "a generator written 011": file([*nodes[:i], leading_zero, *nodes[i + 1:]]),
        "a reply written 07": file([*nodes[:i], reply_zero, *nodes[i + 1:]]),
        "valid, spaced generators": file([*nodes[:i], spaced, *nodes[i + 1:]]),
        "missing node": file(nodes[:i] + nodes[i + 1:]),
        "duplicated node": file([*nodes, last]),
        "truncated after a node": "\n".join(lines[: len(lines) // 2]) + "\n",
        "truncated in a node": text[: len(text) // 2],
        "no end": "\n".join(lines[:-2]) + "\n",
    }


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The certificate file of {11,14} (N, t = 129: about 1,700 nodes)."""
    path = tmp_path_factory.mktemp("cert") / "c.json"
    stream_certificate(solve(Position("11,14"), store=None), path)
    return path.read_text()


class TestFileChecker:
    def test_accepts_what_the_dict_checker_accepts(self, certificate: str, tmp_path: Path) -> None:
        path = tmp_path / "c.json"
        for name, text in {"valid": certificate, **tamperings(certificate)}.items():
            path.write_text(text)
            try:
                whole: str | None = None
                verify(json.loads(text))
            except json.JSONDecodeError:
                whole = "not JSON"
            except CertificateError as exc:
                whole = str(exc)
            try:
                streamed: str | None = None
                verify_path(str(path))
            except CertificateFileError as exc:
                streamed = "not JSON"
                assert "truncated" in str(exc) or "not JSON" in str(exc), name
            except CertificateError as exc:
                streamed = str(exc)
            assert (whole is None) == (streamed is None) == name.startswith("valid"), (name, whole, streamed)
            if whole is not None:
                assert streamed is not None and "\n" not in streamed

    def test_flaws_are_named(self, certificate: str, tmp_path: Path) -> None:
        path = tmp_path / "c.json"
        want = {"wrong reply": "reply", "missing node": "not proved P", "duplicated node": "appears twice",
                "truncated after a node": "truncated", "truncated in a node": "truncated", "no end": "truncated",
                "a generator written 011": "not JSON", "a reply written 07": "not JSON"}
        for name, text in tamperings(certificate).items():
            if name.startswith("valid"):
                continue
            path.write_text(text)
            with pytest.raises(CertificateError, match=want[name]):
                verify_path(str(path))

    @pytest.mark.parametrize("jobs", [2, 3])
    def test_processes_share_the_second_reading(self, certificate: str, tmp_path: Path, jobs: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
        """With the second reading shared between processes, every certificate gets the verdict and
        the flaw (the first in the file) that one process gives, wherever the flaw is."""
        import sylver.proof.certificate as module

        monkeypatch.setattr(module, "PARALLEL_LEAST", 0)
        path = tmp_path / "c.json"
        lines = certificate.split("\n")
        texts = {"valid": certificate, **tamperings(certificate)}
        for at in (1, len(lines) // 3, len(lines) - 3):  # a wrong reply in the first, a middle and the last node
            wrong = wrong_reply(lines, at)
            if wrong is not None:
                texts[f"wrong reply at line {at}"] = wrong
        for name, text in texts.items():
            path.write_text(text)
            verdicts = []
            for n in (1, jobs):
                try:
                    verdicts.append(("valid", verify_path(str(path), n).nodes))
                except CertificateError as exc:
                    verdicts.append((type(exc).__name__, str(exc)))
            assert verdicts[0] == verdicts[1], (name, verdicts)
            assert (verdicts[0][0] == "valid") == name.startswith("valid"), (name, verdicts)

    def test_other_layouts_are_read_whole(self, certificate: str, tmp_path: Path) -> None:
        path = tmp_path / "c.json"
        path.write_text(json.dumps(json.loads(certificate), indent=1))
        assert verify_path(str(path)).nodes == len(json.loads(certificate)["nodes"])

    def test_verify_command(self, certificate: str, tmp_path: Path) -> None:
        def verify(text: str) -> subprocess.CompletedProcess:
            path = tmp_path / "c.json"
            path.write_text(text)
            return subprocess.run([sys.executable, "-m", "sylver", "verify", str(path)],
                                  capture_output=True, text=True, timeout=120)

        bad = tamperings(certificate)
        out = verify(bad["truncated after a node"])
        assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1 and "truncated" in out.stderr
        out = verify(bad["truncated in a node"])
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        for name in ("wrong reply", "duplicated node"):
            out = verify(bad[name])
            assert out.returncode == 1 and out.stdout.startswith("invalid:") and out.stdout.count("\n") == 1
        out = verify(certificate)
        assert out.returncode == 0 and out.stdout == "valid\n"

    @pytest.mark.parametrize("jobs", [1, 2])
    def test_progress_of_each_reading(self, certificate: str, tmp_path: Path, jobs: int,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
        """The verifier tells how far each of its two readings of a file has gone, from where the
        nodes start to the file's end; with processes sharing the second reading, one tells it."""
        import sylver.proof.certificate as module

        monkeypatch.setattr(module, "PARALLEL_LEAST", 0)
        monkeypatch.setattr(module, "PROGRESS_LINES", 100)
        path = tmp_path / "c.json"
        path.write_text(certificate)
        size = path.stat().st_size
        told: list[tuple[str, int]] = []
        checked = module.Verifier(jobs, progress=lambda p, what, done, total: told.append((what, done)) if total == size else None).verify(str(path))
        assert checked.nodes == certificate.count("\n") - 2  # the header line and the last, `]}`
        first = [done for what, done in told if what == "reading 1 of 2"]
        assert first[0] == len(certificate.split("\n")[0]) + 1 and first[-1] == size
        assert first == sorted(first) and len(first) >= checked.nodes // 100
        second = [done for what, done in told if what == "reading 2 of 2"]
        assert second == ([] if jobs > 1 else first)  # a forked worker tells its own terminal, not this list

    def test_progress_line_on_a_terminal(self, certificate: str, tmp_path: Path, on_terminal: Any) -> None:
        """`sylver verify` on a terminal: a line on stderr, rubbed out before `valid`; none in a pipe."""
        path = tmp_path / "c.json"
        path.write_text(certificate)
        out, shown = on_terminal(["verify", "-j", "1", str(path)])
        assert out.returncode == 0 and out.stdout == "valid\n"
        assert b"verifying c.json: reading 1 of 2, " in shown and shown.endswith(b"\r\x1b[K"), shown
        piped = subprocess.run([sys.executable, "-m", "sylver", "verify", str(path)],
                               capture_output=True, text=True, timeout=120)
        assert piped.stdout == "valid\n" and piped.stderr == ""


class TestCutChecks:
    """A check cut short (Ctrl-C, a kill, a machine taken back) with a ``known`` file continues, at
    the next check of the same file, where its progress records say it stood (issue 50: a 9.6-GB
    certificate takes 2 h 25 min to check on one core)."""

    CUT = 900

    def cut(self, path: Path, known: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
        """Check ``path`` with the node ``CUT`` failing as a bug would (each process recording its
        progress at every node), then let checks run again."""
        import sylver.proof.certificate as module

        monkeypatch.setattr(module, "PARALLEL_LEAST", 0)
        monkeypatch.setattr(module, "CHECKPOINT_SECONDS", 0.0)
        plain = module._Proof.verify_node

        def failing(proof: Any, i: int, item: Any) -> None:
            if i == self.CUT:
                raise RuntimeError("cut")
            plain(proof, i, item)

        monkeypatch.setattr(module._Proof, "verify_node", failing)
        with pytest.raises(RuntimeError, match="cut"):
            module.Verifier(jobs, str(known)).verify(str(path))
        monkeypatch.setattr(module._Proof, "verify_node", plain)

    @pytest.mark.parametrize("jobs", [1, 2])
    def test_the_next_check_continues(self, certificate: str, tmp_path: Path, jobs: int,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
        import sylver.proof.certificate as module

        path, known = tmp_path / "c.json", tmp_path / "known.jsonl"
        path.write_text(certificate)
        self.cut(path, known, jobs, monkeypatch)
        start = module.resume_point(str(known), *_digest(path))
        assert self.CUT - jobs < start <= self.CUT  # every process recorded, the cut one last at CUT
        assert module.read_records(str(known)) == {}  # progress is not a record of a valid check
        checked: list[int] = []
        plain = module._Proof.verify_node
        monkeypatch.setattr(module._Proof, "verify_node", lambda proof, i, item: (checked.append(i), plain(proof, i, item)))
        got = module.Verifier(1, str(known)).verify(str(path))
        nodes = certificate.count("\n") - 2
        assert got.nodes == nodes and got.resumed == start
        assert checked == list(range(start, nodes))  # the nodes below start are not checked again
        assert module.read_records(str(known))  # the complete check is recorded

    def test_a_flaw_past_the_cut_is_found(self, certificate: str, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
        path, known = tmp_path / "c.json", tmp_path / "known.jsonl"
        lines = certificate.split("\n")
        at = next(at for at in range(len(lines) - 3, 1, -1) if wrong_reply(lines, at) is not None)
        bad = wrong_reply(lines, at)
        assert bad is not None and at - 1 > self.CUT
        path.write_text(bad)
        self.cut(path, known, 1, monkeypatch)
        with pytest.raises(CertificateError, match="reply"):
            verify_path(str(path))
        import sylver.proof.certificate as module

        with pytest.raises(CertificateError, match="reply"):
            module.Verifier(1, str(known)).verify(str(path))

    def test_progress_of_another_file_is_not_used(self, certificate: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
        import sylver.proof.certificate as module

        path, known = tmp_path / "c.json", tmp_path / "known.jsonl"
        path.write_text(certificate)
        self.cut(path, known, 1, monkeypatch)
        path.write_text(certificate.replace("\n", "\n ", 1))  # the same proof, another SHA-256
        assert module.Verifier(1, str(known)).verify(str(path)).resumed == 0

    def test_resume_point_of_runs(self, tmp_path: Path) -> None:
        """A run counts when every one of its processes recorded; its point is the least of its
        processes' last records; the point is the most of the runs' (one resumed from another)."""
        from sylver.proof.certificate import VERIFIER_VERSION, RecordError, resume_point

        known = tmp_path / "known.jsonl"

        def rec(run: str, share: int, jobs: int, below: int, sha: str = "a", checker: int = VERIFIER_VERSION) -> str:
            return json.dumps({"sha256": sha, "bytes": 10, "checked_below": below, "share": share, "jobs": jobs,
                               "run": run, "checker": checker, "time": "t"})

        cases = [
            ([], 0),
            ([rec("r", 0, 2, 50)], 0),  # share 1 never recorded: nothing known of it
            ([rec("r", 0, 2, 50), rec("r", 1, 2, 30), rec("r", 1, 2, 70)], 50),
            ([rec("r", 0, 1, 40), rec("s", 0, 2, 90), rec("s", 1, 2, 80)], 80),
            ([rec("r", 0, 1, 40), rec("s", 0, 1, 90, sha="b"), rec("t", 0, 1, 95, checker=VERIFIER_VERSION + 1)], 40),
        ]
        for lines, want in cases:
            known.write_text("".join(line + "\n" for line in lines))
            assert resume_point(str(known), "a", 10) == want, lines
        assert resume_point(str(tmp_path / "none.jsonl"), "a", 10) == 0
        known.write_text('{"sha256":"a","bytes":10,"checked_below":5}\n')
        with pytest.raises(RecordError, match="line 1 is not a record of a check's progress"):
            resume_point(str(known), "a", 10)

    def test_verify_command_says_it_resumed(self, certificate: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
        path, known = tmp_path / "c.json", tmp_path / "known.jsonl"
        path.write_text(certificate)
        self.cut(path, known, 1, monkeypatch)
        out = subprocess.run([sys.executable, "-m", "sylver", "verify", "-j", "1", "--known", str(known), str(path)],
                             capture_output=True, text=True, timeout=120)
        nodes = certificate.count("\n") - 2
        assert out.returncode == 0, out.stderr
        assert out.stdout == (f"valid (resumed: the first {self.CUT:,} of its {nodes:,} P-positions were checked "
                              f"by an earlier run, recorded in {known})\n")
        known.write_text(known.read_text() + '{"sha256":"x","checked_below":1}\n')
        out = subprocess.run([sys.executable, "-m", "sylver", "verify", "--known", str(known), str(path)],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 2 and out.stdout == "" and out.stderr.count("\n") == 1
        assert "is not a record of a check's progress" in out.stderr


def _digest(path: Path) -> tuple[str, int]:
    import hashlib

    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest(), len(data)


class TestGcdFiles:
    """A certificate with g > 1 written an item a line: its claims held, its gcd-1 nodes read a
    line at a time, with the same verdict as the whole dict."""

    @pytest.mark.parametrize("gens", [[8, 10, 22], [8, 14], [6, 9], [12, 18, 21]], ids=str)
    def test_same_as_the_dict(self, gens: list[int], tmp_path: Path) -> None:
        from sylver.proof.build import build_gcd_certificate
        from sylver.proof.certificate import verify_any

        cert = json.loads(json.dumps(build_gcd_certificate(solve(Position(gens)))))
        path = tmp_path / "c.json"
        write_any_certificate(cert, path)
        checked = verify_path(str(path))
        assert checked.proves == verify_any(cert) and checked.nodes == len(cert["nodes"])
        lines = path.read_text().split("\n")
        path.write_text("\n".join(lines[:-3]) + "\n")
        with pytest.raises(CertificateFileError, match="truncated"):
            verify_path(str(path))
        if cert["claims"]:
            claims_end = lines.index('],"nodes":[')
            dropped = [*lines[:1], *lines[2:claims_end]]
            dropped[-1] = dropped[-1].rstrip(",")
            if len(dropped) == 1:
                dropped.append("")
            path.write_text("\n".join([*dropped, *lines[claims_end:]]))
            with pytest.raises(CertificateError, match="not proved P"):  # a claim dropped
                verify_path(str(path))

    @pytest.mark.parametrize("gens", [[8, 14], [10, 14], [12, 18, 21], [8, 12, 34, 38], [6, 9]], ids=str)
    def test_streamed(self, gens: list[int], tmp_path: Path) -> None:
        """The g > 1 builder writes its gcd-1 nodes as it proves them, each once across its
        sub-proofs (one seen set), and the file is the header, the claims and the nodes, as
        written from the dict; nothing else is left in the directory."""
        from sylver.proof.build import stream_gcd_certificate

        path = tmp_path / "c.json"
        written = stream_gcd_certificate(solve(Position(gens)), path)
        assert sorted(tmp_path.iterdir()) == [path] and written.size == path.stat().st_size
        cert = json.loads(path.read_text())
        assert {k: v for k, v in cert.items() if k not in ("claims", "nodes")} == written.head
        assert (len(cert["claims"]), len(cert["periodic"]), len(cert["nodes"])) == (
            written.claims, written.periodic, written.nodes)
        assert len({tuple(n[0]) for n in cert["nodes"]}) == written.nodes  # no node twice
        assert verify_path(str(path)).proves[0].endswith("is P: proven")
        again = tmp_path / "again.json"
        write_any_certificate(cert, again)
        assert again.read_text() == path.read_text()

    def test_processes_share_the_second_reading(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """As for gcd 1: with the gcd-1 nodes' second reading shared between 2 processes, a valid
        certificate proves the same and a tampered one gets the flaw that one process names (a
        wrong reply in the first, a middle and the last node; a claim dropped; a file cut short)."""
        import sylver.proof.certificate as module
        from sylver.proof.build import build_gcd_certificate

        monkeypatch.setattr(module, "PARALLEL_LEAST", 0)
        path = tmp_path / "c.json"
        write_any_certificate(build_gcd_certificate(solve(Position("12,18,21"))), path)  # 444 nodes, a claim
        lines = path.read_text().split("\n")
        first = lines.index('],"nodes":[') + 1  # then the nodes, "]}" and ""
        middle = (first + len(lines) - 3) // 2
        texts = {"valid": "\n".join(lines), "truncated": "\n".join(lines[:middle]) + "\n",
                 "claim dropped": "\n".join([lines[0], *([""] if first == 3 else []), *lines[2:]])}
        for at in (first, middle, len(lines) - 3):
            wrong = wrong_reply(lines, at)
            assert wrong is not None
            texts[f"wrong reply at line {at}"] = wrong
        for name, text in texts.items():
            path.write_text(text)
            verdicts = []
            for jobs in (1, 2):
                try:
                    verdicts.append(("valid", verify_path(str(path), jobs).proves))
                except CertificateError as exc:
                    verdicts.append((type(exc).__name__, [str(exc)]))
            assert verdicts[0] == verdicts[1], (name, verdicts)
            assert (verdicts[0][0] == "valid") == name.startswith("valid"), (name, verdicts)

    def test_a_failed_build_leaves_no_file(self, tmp_path: Path) -> None:
        from sylver.proof.build import stream_gcd_certificate

        with pytest.raises(TimeoutError):  # (a limit already past: on any machine)
            stream_gcd_certificate(solve(Position([16, 20, 34])), tmp_path / "c.json", time_limit=0.0)
        assert list(tmp_path.iterdir()) == []


def test_the_builder_takes_the_solves_budget(tmp_path: Path) -> None:
    """A solution answered from the results store found the tables at whatever size an earlier
    search left them ({16,26,38,72,121}: 2 MiB, and its proof's searches thrashed into a traceback);
    the builder sets the budget it is given (a budget far too small is then a MemoryBudgetError,
    one line from `sylver solve --certificate`, as the solve's own thrashing is)."""
    from sylver.machine import parse_memory
    from sylver.proof.build import stream_certificate
    from sylver.solver.engine import ENGINE

    sol = fresh_solve("16,20,28,35,54")
    ENGINE.set_memory(parse_memory("256K"))
    nodes, _ = stream_certificate(sol, tmp_path / "c.json", memory=parse_memory("64M"))
    assert nodes > 0
    assert (ENGINE.max_p + ENGINE.max_n) * 8 > parse_memory("32M")


class TestAnswerFromTheStore:
    """An answer read from the results store comes without tables: the builder searches the position
    again first (``prove.warmed``), so that its proof's searches start warm, as after a solve (a
    resumed build of {16,31,150} wrote 0.25 MB a minute cold, 60-70 MB warm)."""

    def test_searched_again_and_the_same_file(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        import sylver.solver as solver_api  # the builder calls sylver.solver.solve
        from sylver.store.results import Store

        text = "16,20,28,35,54"
        stream_certificate(fresh_solve(text), tmp_path / "fresh.json")
        store = Store(tmp_path / "s.sqlite")
        solve(Position(text), store=store)
        ENGINE.clear()
        ENGINE.stack.clear_ordering()
        sol = solve(Position(text), store=store)
        assert sol.from_store and sol.states == 0
        searches: list[Any] = []
        real = solver_api.solve

        def spy(*args: Any, **kwargs: Any) -> Any:
            searches.append(kwargs)
            return real(*args, **kwargs)

        monkeypatch.setattr(solver_api, "solve", spy)
        stream_certificate(sol, tmp_path / "stored.json", memory=64 << 20)
        assert len(searches) == 1 and searches[0]["memory"] == 64 << 20 and not searches[0]["first"]
        assert (tmp_path / "stored.json").read_bytes() == (tmp_path / "fresh.json").read_bytes()
        assert build_certificate(sol)["winning_moves"] == list(sol.winning_moves)
        from sylver.solver import SolveTimeout

        def late(*args: Any, **kwargs: Any) -> Any:
            raise SolveTimeout("not solved within the time limit")

        monkeypatch.setattr(solver_api, "solve", late)
        with pytest.raises(TimeoutError, match="read from the results store"):
            stream_certificate(sol, tmp_path / "late.json", time_limit=1.0)
        assert not list(tmp_path.glob("late.json*"))  # stopped before the file was begun

    def test_a_store_that_disagrees_is_damaged(self, tmp_path: Path) -> None:
        from sylver.errors import SelfCheckError
        from sylver.position import Outcome
        from sylver.store.results import Store

        store = Store(tmp_path / "s.sqlite")
        p = Position("5,18")  # N: its record says P, falsely
        store.put_result(p, Outcome.P, [], True, p.frobenius_number or 0, 1, 0.1)
        sol = solve(p, store=store)
        assert sol.from_store and sol.outcome is Outcome.P
        with pytest.raises(SelfCheckError, match=r"the results store says P, a new search says N \(.*\): the store is damaged"):
            stream_certificate(sol, tmp_path / "c.json")
        assert not list(tmp_path.glob("c.json*"))  # nothing of the certificate
        run = subprocess.run([sys.executable, "-m", "sylver", "solve", "5", "18", "--store", str(tmp_path / "s.sqlite"),
                              "--certificate", str(tmp_path / "c.json")], capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and "Traceback" not in run.stderr
        assert "the store is damaged" in " ".join(run.stderr.split()) and not (tmp_path / "c.json").exists()
