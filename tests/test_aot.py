"""sylver.aot: the solver's kernels compiled ahead of time give the JIT's answers, are used when built
and current (``sylver solve`` then starts without numba), and never when stale or damaged."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sylver import aot, jit
from sylver.position import Position
from sylver.solver import kernels, root_gaps, solve
from sylver.solver.engine import ENGINE, child_gaps
from test_solver import random_positions  # tests/ is on the path (rootdir conftest)

SRC = str(Path(__file__).resolve().parents[1] / "src")
SOLVER = "sylver.solver.kernels"


def _python(code: str, *args: str, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (str(cwd or ""), SRC, os.environ.get("PYTHONPATH", "")) if p)
    full_env = dict(os.environ, PYTHONPATH=path, **(env or {}))
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=full_env, timeout=300, cwd=cwd)


def _compiler_works() -> bool:
    out = _python("from numba.pycc.platform import external_compiler_works as w; print(w())")
    return out.stdout.strip() == "True"


@pytest.fixture(scope="module")
def solver_aot() -> None:
    """The solver's kernels' ahead-of-time module, built by ``sylver warmup`` (``make`` runs it)."""
    built, why = aot.status(SOLVER)
    if not built:
        if _compiler_works():
            pytest.fail(f"the solver's kernels are not compiled ahead of time ({why}); run `sylver warmup`")
        pytest.skip(f"no C compiler here: the solver's kernels run through numba's JIT ({why})")


SOLVE = (
    "import sys\nfrom sylver.cli import main\n"
    "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
    "from sylver.solver import kernels\n"
    "print('numba' in sys.modules, kernels.search.ahead_of_time is not None, file=sys.stderr)\n"
)


class TestSolveCommand:
    @pytest.mark.parametrize("jobs", ["1", "2"])
    def test_starts_without_numba(self, solver_aot: None, jobs: str) -> None:
        """One job or several (threads running the same ahead-of-time search, which releases the GIL)."""
        out = _python(SOLVE, "solve", "16", "20", "28", "35", "54", "--no-store", "--json", "--jobs", jobs)
        assert out.returncode == 0, out.stderr
        assert out.stderr.split()[-2:] == ["False", "True"], out.stderr
        result = json.loads(out.stdout)
        assert (result["outcome"], result["winning_moves"]) == ("P", [])

    def test_jit_when_not_built(self, tmp_path: Path) -> None:
        out = _python(SOLVE, "solve", "16", "20", "28", "35", "54", "--no-store", "--json",
                      env={aot.ENV_DIR: str(tmp_path)})
        assert out.returncode == 0, out.stderr
        assert out.stderr.split()[-2:] == ["True", "False"], out.stderr
        result = json.loads(out.stdout)
        assert (result["outcome"], result["winning_moves"]) == ("P", [])


class TestSameAnswers:
    """The ahead-of-time module against the numba JIT, kernel by kernel and whole searches."""

    @staticmethod
    def _both(kernel: jit.Kernel, *args: object) -> tuple[object, object]:
        assert kernel.ahead_of_time is not None and kernel._aot[1](args), kernel
        fresh = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        return kernel(*args), kernel.compiled()(*fresh)

    def test_bitset_kernels(self, solver_aot: None) -> None:
        rng = random.Random(15)
        for p in random_positions(60, 15, max_genus=40) + [Position("16,20,28,74,273"), Position("9,31")]:
            for words in (None, 5):
                gaps = root_gaps(p, words)
                W = gaps.shape[0]
                t = p.frobenius_number
                for kernel in (kernels.genus_of, kernels.top_bit, kernels.is_terminal, kernels.state_keys,
                               kernels.gap_list, kernels.min_generators):
                    a, b = self._both(kernel, gaps, 0, W)
                    assert np.array_equal(a, b), (kernel, p)
                a, b = self._both(kernels.is_ender, gaps, 0, W, t)
                assert a == b, p
                x = rng.choice([int(v) for v in kernels.gap_list(gaps, 0, W)])
                buf = np.zeros(2 * W, dtype=np.uint64)
                buf[:W] = gaps
                jit_buf = buf.copy()
                kernels.play_into(buf, 0, W, W, x)
                kernels.play_into.compiled()(jit_buf, 0, W, W, x)
                assert np.array_equal(buf, jit_buf) and np.array_equal(buf[W:], child_gaps(gaps, x))
        gaps = root_gaps(Position("5,7"))
        seen = np.zeros(1 << 10, dtype=np.uint64)
        assert self._both(kernels.count_reachable, gaps, seen) == (27, 27)

    def test_certificate_kernels(self, solver_aot: None) -> None:
        """The certificate builder's kernels (``prove.py``) both ways: the replies of a P-position's
        moves from the P table, a batch of nodes proved, the seen set."""
        p = Position("16,20,28,35,54")
        ENGINE.clear()
        assert solve(p).outcome.value == "P"
        gaps = root_gaps(p, 3)  # a word beyond t: the replies are found on the position's own width
        W = gaps.shape[0]
        n = sum(1 for x in kernels.gap_list(gaps, 0, W) if x >= 2)
        egtab, egfilt, efshift, egg = ENGINE.endgame()
        ptabs, egtabs = (ENGINE.ptable, ENGINE.pfilt), (egtab, egfilt)
        found, after = np.zeros(n, dtype=np.int64), np.zeros(n * W, dtype=np.uint64)
        jit_found, jit_after = found.copy(), after.copy()
        args = (gaps, ptabs, ENGINE.fshift, egtabs, efshift, egg)
        assert kernels.node_replies.ahead_of_time is not None and kernels.node_replies._aot[1]((*args, found, after))
        assert kernels.node_replies(*args, found, after) == kernels.node_replies.compiled()(*args, jit_found, jit_after) == n
        assert np.array_equal(found, jit_found) and np.array_equal(after, jit_after)
        assert (found > 0).sum() > n // 2  # most replies come from the table
        buf = np.zeros(2 * W, dtype=np.uint64)
        buf[:W] = child_gaps(gaps, 39)
        a, b = self._both(kernels.first_p_reply, buf, W, ptabs, ENGINE.fshift, egtabs, efshift, egg)
        assert a == b and a > 0

        runs = []
        for prove_nodes in (kernels.prove_nodes, kernels.prove_nodes.compiled()):
            stack = np.zeros(64 * W, dtype=np.uint64)
            stack[:W] = gaps  # two P-positions: the root, and after 39 and its reply on top
            stack[W : 2 * W] = child_gaps(child_gaps(gaps, 39), a)
            state = np.zeros(kernels.BATCH_SIZE, dtype=np.int64)
            state[kernels.BATCH_SP], state[kernels.BATCH_TODO] = 2, 1 << 20
            slots = np.zeros(1 << 14, dtype=np.uint64)
            out = np.zeros(1 << 16, dtype=np.uint8)
            status = prove_nodes(stack, state, slots, (ptabs, ENGINE.fshift, egtabs, efshift, egg),
                                 np.zeros(n, dtype=np.int64), np.zeros(n * W, dtype=np.uint64),
                                 np.zeros(W, dtype=np.uint64), out)
            runs.append((status, state.tolist(), slots.tobytes(), out[: state[kernels.BATCH_BYTES]].tobytes()))
        status, state, _, lines = runs[0]
        assert runs[0] == runs[1] and status != kernels.STOP_BATCH
        assert len(json.loads(b"[" + lines + b"]")) == state[kernels.BATCH_DONE]

        tables = []
        for add, rehash in ((kernels.seen_add, kernels.seen_rehash),
                            (kernels.seen_add.compiled(), kernels.seen_rehash.compiled())):
            slots, fresh = np.zeros(1 << 12, dtype=np.uint64), np.concatenate([found > 0, found > 0])
            added = add(slots, np.concatenate([after, after]), W, fresh)  # each position twice
            grown = np.zeros(4 * slots.shape[0], dtype=np.uint64)
            rehash(slots, grown)
            tables.append((added, fresh.tolist(), grown.tobytes()))
        assert tables[0] == tables[1] and 0 < tables[0][0] <= (found > 0).sum() and not any(tables[0][1][n:])

    def test_searches(self, solver_aot: None) -> None:
        """Outcome, winning moves, states and every counter of the search, for 2 words (t < 128, the
        specialised width), 3, 4 (t < 256, unrolled) and 5."""
        positions = random_positions(40, 3, max_genus=30) + [
            Position(text) for text in ("16,20,28,35,54", "12,17", "10,23", "5,53", "9,31", "7,47")
        ]
        assert {p.frobenius_number // 64 + 1 for p in positions} >= {2, 3, 4, 5}
        results = []
        for use in (True, False):
            jit.use_aot(use)
            try:
                ENGINE.clear()
                ENGINE.stack.clear_ordering()
                results.append([(p, s.outcome, s.winning_moves, s.states, s.stats)
                                for p in positions for s in [solve(p)]])
            finally:
                jit.use_aot(True)
        assert kernels.search.ahead_of_time is not None and kernels.search.loaded
        assert results[0] == results[1]


class TestReleasesTheGil:
    """``search`` releases the GIL, ahead of time as in the JIT (``nogil``): the threads of
    ``--jobs`` search at once."""

    @pytest.mark.parametrize("ahead", [True, False])
    def test_search_releases_the_gil(self, solver_aot: None, ahead: bool,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
        import threading
        import time

        from sylver.solver import engine

        monkeypatch.setattr(engine, "SLICE", 1 << 40)  # the whole search in one kernel call
        eng = engine.Engine()
        eng.use_endgame = False  # the endgame table would leave 23,000 states, a few hundredths of a second
        gaps = root_gaps(Position("16,20,28,35,54"))  # P: 150,000 states, a tenth of a second or more
        entered, done = threading.Event(), threading.Event()

        def search() -> None:
            entered.set()
            eng.search(gaps)
            done.set()

        jit.use_aot(ahead)
        try:
            if not ahead:
                kernels.search.compiled()  # loaded (or compiled) before, not during the count
            thread = threading.Thread(target=search)
            thread.start()
            entered.wait()
            turns = 0  # this thread's turns while the other one is in the kernel
            while not done.is_set():
                turns += 1
                time.sleep(0.001)
            thread.join()
        finally:
            jit.use_aot(True)
        assert kernels.search.ahead_of_time is not None
        assert turns >= 20  # holding the GIL it would be 1 or 2, whatever the machine


class TestArgumentTypes:
    """A call runs the ahead-of-time function only with exactly the declared argument types."""

    def test_accepts(self) -> None:
        accepts = aot._accepts([["array", "<u8", 1, "C", False], ["int64"],
                                ["tuple", [["array", "<i2", 1, "C", False], ["bool"]]],
                                ["array", "<i8", 1, "C", True]])
        a = np.zeros(4, dtype=np.uint64)
        s = np.zeros(3, dtype=np.int16)
        r = np.zeros(2, dtype=np.int64)
        r.flags.writeable = False
        assert accepts((a, 3, (s, True), r))
        assert accepts((a, np.int64(3), (s, np.bool_(False)), np.zeros(2, dtype=np.int64)))
        for bad in [
            (a.astype(np.int64), 3, (s, True), r),  # dtype
            (np.zeros(8, dtype=np.uint64)[::2], 3, (s, True), r),  # not contiguous
            (np.zeros((2, 2), dtype=np.uint64), 3, (s, True), r),  # dimensions
            (r.view(np.uint64), 3, (s, True), r),  # read-only where the kernel may write
            (a, True, (s, True), r),  # bool is not int64
            (a, 1 << 63, (s, True), r),  # not an int64
            (a, 3.0, (s, True), r),
            (a, 3, (s, True, 1), r),  # tuple length
            (a, 3, [s, True], r),  # a list is not a tuple
            (a, 3, (s, True)),  # argument count
        ]:
            assert not accepts(bad), bad

    def test_other_types_go_to_the_jit(self, solver_aot: None) -> None:
        gaps = root_gaps(Position("16,20,28,35,54"))
        strided = np.zeros(4, dtype=np.uint64)[::2]  # not contiguous: not the declared type
        strided[:] = gaps
        assert kernels.genus_of.ahead_of_time is not None
        assert not kernels.genus_of._aot[1]((strided, 0, 2))
        assert kernels.genus_of(strided, 0, 2) == kernels.genus_of(gaps, 0, 2) == 59
        assert kernels.genus_of.loaded

    def test_bind(self, solver_aot: None) -> None:
        """``Kernel.bind`` checks the types once: the ahead-of-time function for the declared types,
        else the kernel itself (whose calls go to the JIT); the search binds once per set of arrays."""
        gaps = root_gaps(Position("16,20,28,35,54"))
        assert kernels.genus_of.bind((gaps, 0, 2)) is kernels.genus_of.ahead_of_time
        strided = np.zeros(4, dtype=np.uint64)[::2]
        strided[:] = gaps
        assert kernels.genus_of.bind((strided, 0, 2)) is kernels.genus_of
        jit.use_aot(False)
        try:
            assert kernels.genus_of.bind((gaps, 0, 2)) is kernels.genus_of
        finally:
            jit.use_aot(True)
        ENGINE.clear()
        assert solve(Position("16,20,28,35,54")).outcome.value == "P"
        stack = ENGINE.stack
        refs, bound = stack._bound
        assert bound is kernels.search.ahead_of_time and refs and all(r() is not None for r in refs)
        tables = (ENGINE.ptable, ENGINE.ntable, ENGINE.pfilt)
        assert solve(Position("16,20,28,35,54,57")).outcome is not None
        if all(a is b for a, b in zip(tables, (ENGINE.ptable, ENGINE.ntable, ENGINE.pfilt), strict=True)):
            assert stack._bound[0] is refs  # the same arrays: not checked again

    def test_unchecked_only_for_the_declared_types(self, solver_aot: None) -> None:
        """The engine checks a bitset once (``aot_bits``, the same test as the ahead-of-time
        check) and then calls the kernels ``unchecked``; any other array takes the checked call,
        with the same answers."""
        from sylver.position import Outcome
        from sylver.solver.engine import aot_bits, settled

        assert kernels.top_bit.unchecked is kernels.top_bit.ahead_of_time
        jit.use_aot(False)
        try:
            assert kernels.top_bit.unchecked is kernels.top_bit
        finally:
            jit.use_aot(True)
        for text in ("4,5", "9,31", "16,20,28,35,54"):
            gaps = root_gaps(Position(text))
            W = gaps.shape[0]
            strided = np.zeros(2 * W, dtype=np.uint64)[::2]
            strided[:] = gaps
            readonly = gaps.copy()
            readonly.flags.writeable = False
            swapped = gaps.astype(">u8")
            expected = settled(gaps), ENGINE.outcome(gaps)
            assert aot_bits(gaps) and None not in expected[1:]
            for bits in (strided, readonly, swapped, gaps.astype(np.int64)):
                assert aot_bits(bits) == kernels.top_bit._aot[1]((bits, 0, W)), bits
                if W > 1 or bits is not strided:  # one word: a strided view is contiguous
                    assert not aot_bits(bits), bits
                if bits is not swapped:  # numba has no byte-swapped arrays
                    assert (settled(bits), ENGINE.outcome(bits)) == expected, bits
        assert settled(root_gaps(Position("4,5"))) is Outcome.N  # an ender


PROBE = '''
import numpy as np

from sylver.jit import intrinsic, njit

OFFSET = {offset}


@intrinsic
def _popcount(typingctx, x):  # pragma: no cover - compiled
    from numba import types

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@njit(forceinline=True, interpret=False)
def _weight(bits, i):  # pragma: no cover - compiled
    return np.int64(_popcount(bits[i]))


@njit(interpret=False, aot="(uint64[::1], int64)")
def weight(bits, n):  # pragma: no cover - compiled
    s = OFFSET
    for i in range(n):
        s += _weight(bits, i)
    return s
'''

USE = (
    "import sys\nimport numpy as np\nimport aot_probe\nfrom sylver import aot\n"
    "w = aot_probe.weight(np.array([7, 255, 1], dtype=np.uint64), 3)\n"
    "print(w, aot.status('aot_probe')[0], 'numba' in sys.modules)\n"
)


class TestBuild:
    """Build, load, then change the source: the module is stale and not used."""

    @pytest.mark.slow  # a C build: 10-20 s
    def test_build_use_and_stale(self, tmp_path: Path) -> None:
        if not _compiler_works():
            pytest.skip("no C compiler here")
        probe = tmp_path / "aot_probe.py"
        probe.write_text(PROBE.format(offset=0))
        env = {aot.ENV_DIR: str(tmp_path / "aot")}
        out = _python("from sylver import aot\nprint(aot.build('aot_probe'))", env=env, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        built = Path(out.stdout.strip())
        assert (built / aot.MANIFEST).exists()
        out = _python(USE, env=env, cwd=tmp_path)
        assert out.stdout.split() == ["12", "True", "False"], out.stderr  # 3 + 8 + 1 bits, no numba

        # damaged: one byte of the module changed
        so = next(built.glob("*.so"))
        data = bytearray(so.read_bytes())
        saved = bytes(data)
        data[len(data) // 2] ^= 0xFF
        so.write_bytes(bytes(data))
        out = _python(USE, env=env, cwd=tmp_path)
        assert out.stdout.split() == ["12", "False", "True"], out.stderr  # the JIT
        so.write_bytes(saved)

        # stale: the source changed (the module is keyed by it)
        probe.write_text(PROBE.format(offset=100))
        shutil.rmtree(tmp_path / "__pycache__", ignore_errors=True)
        out = _python(USE, env=env, cwd=tmp_path)
        assert out.stdout.split() == ["112", "False", "True"], out.stderr
        # ... even when the old module's directory is renamed to the new key
        new_key = _python("import aot_probe\nfrom sylver import aot\nprint(aot.key(aot_probe))", env=env,
                          cwd=tmp_path).stdout.strip()
        built.rename(built.with_name(f"sylver-aot-{new_key}"))
        out = _python(USE, env=env, cwd=tmp_path)
        assert out.stdout.split() == ["112", "False", "True"], out.stderr

    def test_without_a_compiler(self, tmp_path: Path) -> None:
        (tmp_path / "aot_probe.py").write_text(PROBE.format(offset=0))
        code = ("from sylver import aot\ntry:\n    aot.build('aot_probe')\n"
                "except aot.AotUnavailable as e:\n    print('unavailable:', e)\n")
        out = _python(code, env={aot.ENV_DIR: str(tmp_path / "aot"), "CC": str(tmp_path / "no-cc"),
                                 "CXX": str(tmp_path / "no-cxx")}, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith("unavailable: no working C compiler"), out.stdout + out.stderr
        assert not (tmp_path / "aot").exists() or not any((tmp_path / "aot").iterdir())


def test_a_build_removes_the_modules_of_older_sources(tmp_path: Path) -> None:
    """Same module and environment, another key: stale, removed; another environment or module: kept."""
    env = aot._environment()
    for name, module, environment in [("new", "m_k_new", env), ("old", "m_k_old", env),
                                      ("other-python", "m_k_x", "elsewhere"), ("other-module", "n_k_y", env)]:
        d = tmp_path / f"sylver-aot-{name}"
        d.mkdir()
        (d / aot.MANIFEST).write_text(json.dumps({"module": module, "environment": environment}))
    (tmp_path / "sylver-aot-unreadable").mkdir()
    aot._remove_stale(tmp_path, "m.k", env, tmp_path / "sylver-aot-new")
    assert sorted(d.name for d in tmp_path.iterdir()) == [
        "sylver-aot-new", "sylver-aot-other-module", "sylver-aot-other-python", "sylver-aot-unreadable"]
