"""The endgame table (``sylver.solver.endgame``): the outcome of every position of small genus,
against published counts, the plain-Python reference solver and the search."""

from __future__ import annotations

import numpy as np
import pytest

from sylver import Position
from sylver.solver import endgame, reference, solve
from sylver.solver.engine import ENGINE, root_gaps
from test_solver import random_positions  # tests/ is on the path (rootdir conftest)

A007323 = [1, 1, 2, 4, 7, 12, 23, 39, 67, 118, 204, 343, 592, 1001, 1693, 2857, 4806, 8045, 13467, 22464, 37396]
"""Numerical semigroups of genus 0, 1, 2, ... (OEIS A007323; Bras-Amorós 2008)."""


@pytest.fixture(scope="module")
def table20() -> endgame.EndgameTable:
    return endgame.build(20)


def semigroups(genus: int) -> list[int]:
    """Every numerical semigroup of genus 1..``genus`` as its gap word, by brute force over the gap
    sets: a set G of positive integers (max < 2 genus) is the gap set of a semigroup iff its
    complement is closed under addition."""
    out = []

    def walk(n: int, gaps: int, count: int) -> None:
        if count > genus:
            return
        if n >= 2 * genus + 1:
            if count:
                out.append(gaps)
            return
        member_forced = any(not (gaps >> a) & 1 and not (gaps >> (n - a)) & 1 for a in range(1, n // 2 + 1))
        walk(n + 1, gaps, count)  # n a member
        if not member_forced:
            walk(n + 1, gaps | (1 << n), count + 1)  # n a gap

    walk(1, 0, 0)
    return out


class TestTable:
    def test_counts_are_the_numbers_of_semigroups(self, table20: endgame.EndgameTable) -> None:
        assert table20.counts == A007323

    def test_every_position_against_the_reference_solver(self, table20: endgame.EndgameTable) -> None:
        """All 2,413 positions of genus <= 13, listed by brute force (not by the tree), against the
        plain-Python reference solver."""
        words = semigroups(13)
        assert len(words) == sum(A007323[1:14])
        p_words = set()
        for w in words:
            gaps = frozenset(n for n in range(64) if (w >> n) & 1)
            if not reference.wins(gaps):
                p_words.add(w)
            assert table20.is_p(w) == (w in p_words), sorted(gaps)
        assert len(p_words) == sum(table20.p_counts[:14])

    def test_larger_genus_against_the_search(self, table20: endgame.EndgameTable) -> None:
        """Positions of genus 14..20, decided by the table, against the search without it."""
        positions = [Position(text) for text in ("5,13", "6,9,13", "7,8,17", "4,23")]
        positions += [p for p in random_positions(120, 7, max_genus=20) if p.genus >= 14]
        assert len(positions) > 30
        try:
            ENGINE.use_endgame = False
            for p in positions:
                ENGINE.clear()
                plain = solve(p, first=True).outcome
                assert table20.is_p(int(root_gaps(p, 1)[0])) == (plain.value == "P"), p
        finally:
            ENGINE.use_endgame = True

    def test_search_with_and_without_the_table(self, table20: endgame.EndgameTable) -> None:
        """The same outcomes and complete winning-move sets with the table and without."""
        positions = random_positions(25, 11, max_genus=45)
        positions = [p for p in positions if p.genus > 20] + [Position("16,20,28,35,54"), Position("12,17")]
        try:
            for p in positions:
                ENGINE.use_endgame = False
                ENGINE.clear()
                plain = solve(p)
                ENGINE.use_endgame = True
                ENGINE.set_endgame(table20)
                ENGINE.clear()
                tabled = solve(p)
                assert (plain.outcome, plain.winning_moves) == (tabled.outcome, tabled.winning_moves), p
                assert tabled.stats["endgame_hits"] > 0, p
        finally:
            from conftest import TEST_ENDGAME_GENUS

            ENGINE.use_endgame = True
            ENGINE.set_endgame(endgame.build(TEST_ENDGAME_GENUS))

    def test_endgame_cache_holds_the_table_outcomes(self, table20: endgame.EndgameTable) -> None:
        """After searches with the genus-20 table, every word of the search's endgame cache
        (``kernels.eg_cached``) is a position of the table in its own slot with the table's outcome
        (and the reference solver's, for genus <= 13); searching with another table clears it."""
        from conftest import TEST_ENDGAME_GENUS
        from sylver.solver import kernels

        def fmix64(z: int) -> int:  # kernels._mix_key (murmur3's finaliser), which eg_hash is
            z = ((z ^ (z >> 33)) * 0xFF51AFD7ED558CCD) & (2**64 - 1)
            z = ((z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53) & (2**64 - 1)
            return z ^ (z >> 33)

        try:
            ENGINE.set_endgame(table20)
            ENGINE.clear()
            for p in [Position("16,20,28,35,54"), Position("12,17")] + random_positions(10, 5, max_genus=40):
                solve(p)
            cache = ENGINE.stack.egcache
            slots = np.flatnonzero(cache)
            assert len(slots) > 1000
            outcomes = set()
            for slot in slots[:: max(1, len(slots) // 3000)]:
                e = int(cache[slot])
                w, p_bit = e & ~1, e & 1
                assert 0 < w.bit_count() <= 20 and w < 2**63
                assert fmix64(w) & (2**kernels.EGC_BITS - 1) == slot
                assert p_bit == table20.is_p(w), w
                if w.bit_count() <= 13:
                    assert p_bit == (not reference.wins(frozenset(n for n in range(64) if (w >> n) & 1))), w
                outcomes.add(p_bit)
            assert outcomes == {0, 1}
        finally:
            ENGINE.set_endgame(endgame.build(TEST_ENDGAME_GENUS))
        ENGINE.clear()
        solve(Position("7,9"))
        cache = ENGINE.stack.egcache
        assert all(int(e).bit_count() <= TEST_ENDGAME_GENUS + 1 for e in cache[cache != 0])


class TestFile:
    def test_save_and_read(self, table20: endgame.EndgameTable, tmp_path) -> None:
        stale = tmp_path / "sylver-endgame-g20-v0.npy"
        stale.write_bytes(b"an older version")
        path = endgame.save(table20, tmp_path)
        assert not stale.exists()
        again = endgame.read(20, tmp_path)
        assert again is not None and again.path == path
        assert np.array_equal(again.words(), table20.words())
        assert again.counts == table20.counts and again.p_counts == table20.p_counts
        assert endgame.read(19, tmp_path) is None

    def test_fill_puts_each_word_where_the_probe_would(self, table20: endgame.EndgameTable) -> None:
        """``kernels.eg_fill`` (a sequential sweep for words sorted by bucket, the probe otherwise)
        against a plain linear-probing insert: words sorted as a saved table is, shuffled, added to
        a table that holds words already (as the build does), and sweeping past the table's end."""
        from sylver.solver import kernels as k

        def probe_insert(table: np.ndarray, filt: np.ndarray, fshift: int, words: np.ndarray) -> None:
            buckets = table.shape[0] // 8
            for w in words.tolist():
                h = int(k.eg_hash(np.uint64(w)))
                i = h >> fshift
                filt[i] |= (1 << ((h >> 7) & 63)) | (1 << ((h >> 13) & 63))
                while not (table[8 * i : 8 * i + 8] == 0).any():
                    i = (i + 1) % buckets
                table[8 * i + int(np.flatnonzero(table[8 * i : 8 * i + 8] == 0)[0])] = w

        rng = np.random.default_rng(5)
        words = table20.words()
        slots, fwords = endgame.geometry(words.shape[0])
        fshift = 64 - (fwords.bit_length() - 1)

        def by_bucket(w: np.ndarray, shift: int = fshift) -> np.ndarray:
            return w[np.argsort(k.eg_bucket_order(w, shift), kind="stable")]

        half = words[rng.permutation(words.shape[0])[: words.shape[0] // 2]]
        rest = by_bucket(np.setdiff1d(words, half))
        cases = [(None, by_bucket(words)), (None, words[rng.permutation(words.shape[0])]), (half, rest)]
        for before, w in cases:
            got = [np.zeros(slots, np.uint64), np.zeros(fwords, np.uint64)]
            want = [a.copy() for a in got]
            if before is not None:
                for t in (got, want):
                    probe_insert(t[0], t[1], fshift, before)
            k.eg_fill(got[0], got[1], fshift, w)
            probe_insert(want[0], want[1], fshift, w)
            assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])
        last = np.array([w for w in words[:5000] if int(k.eg_hash(w)) >> 61 >= 6], dtype=np.uint64)[:40]
        got, want = [np.zeros(64, np.uint64), np.zeros(8, np.uint64)], [np.zeros(64, np.uint64), np.zeros(8, np.uint64)]
        k.eg_fill(got[0], got[1], 61, by_bucket(last, 61))  # 8 buckets: the sweep wraps to bucket 0
        probe_insert(want[0], want[1], 61, by_bucket(last, 61))
        assert last.shape[0] == 40 and np.array_equal(got[0], want[0]) and (got[0][:8] != 0).any()

    def test_damaged_file_is_never_used(self, table20: endgame.EndgameTable, tmp_path, monkeypatch, capsys) -> None:
        path = endgame.save(table20, tmp_path)
        data = bytearray(path.read_bytes())
        data[100] ^= 4  # one gap word changed: another position would be called P
        path.write_bytes(bytes(data))
        with pytest.raises(endgame.DamagedTable, match="checksum"):
            endgame.read(20, tmp_path)
        monkeypatch.setattr(endgame, "directory", lambda: tmp_path)
        monkeypatch.setattr(endgame, "_loaded", {})
        monkeypatch.setattr(endgame, "_warned", False)
        assert endgame.load(20) is None
        assert "endgame table is not used" in capsys.readouterr().err
        path.with_suffix(".json").write_text("{not json")
        with pytest.raises(endgame.DamagedTable):
            endgame.read(20, tmp_path)

    def test_saved_table(self) -> None:
        """The table `sylver warmup` built (genus 32), when it is there: its counts are the published
        numbers of semigroups, and it agrees with the reference solver on a sample."""
        eg = endgame.load()
        if eg is None:
            pytest.skip("the endgame table is not built (sylver warmup builds it)")
        assert eg.genus == endgame.GENUS
        assert eg.counts[: len(A007323)] == A007323
        assert eg.counts[30:33] == [5646773, 9266788, 15195070]
        assert sum(eg.p_counts) == eg.words().shape[0]
        small = endgame.build(20)
        assert np.array_equal(small.words(), eg.words()[np.array([bin(int(w)).count("1") <= 20 for w in eg.words()])])

    def test_warmup_where_it_cannot_be_saved(self, tmp_path, monkeypatch) -> None:
        """A place that cannot be written: one note line, no build, warm-up goes on."""
        from sylver.cli import warmup

        blocker = tmp_path / "file"
        blocker.write_text("")
        monkeypatch.setattr(endgame, "directory", lambda: blocker / "sub")
        monkeypatch.setattr(endgame, "build", lambda *a, **k: pytest.fail("built a table it cannot save"))
        lines: list[str] = []
        monkeypatch.setattr(warmup.err_console, "print", lambda text, **_: lines.append(text))
        warmup._endgame()
        assert len(lines) == 1 and "cannot be saved" in lines[0] and "searches those positions itself" in lines[0]

