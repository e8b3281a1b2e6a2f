"""The results book (src/sylver/data/book.jsonl, sylver.store.book): consistent, read by the store,
answered by `sylver solve`, started from by a campaign, added to by `sylver book add`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from sylver import Outcome, Position
from sylver.solver import solve
from sylver.store import book as B
from sylver.store import public
from sylver.store.results import Store, StoreConflictError

SYLVER = [sys.executable, "-m", "sylver"]


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([*SYLVER, *args], capture_output=True, text=True, env={**os.environ, **env}, timeout=300)


def entry(text: str, outcome: str, winning: tuple[int, ...] = (), **more: object) -> B.Entry:
    return B.Entry(position=Position.parse(text), outcome=Outcome(outcome), winning=winning,
                   complete=outcome == "P", **more)  # type: ignore[arg-type]


class TestTheBook:
    def test_the_whole_book_is_consistent(self) -> None:
        book = B.read(B.PACKAGE_BOOK)
        assert len(book) > 500
        assert B.audit(book) == []

    def test_sorted_and_one_line_an_entry(self) -> None:
        text = B.PACKAGE_BOOK.read_text()
        assert B.read(B.PACKAGE_BOOK).text() == text
        assert [list(json.loads(line)) for line in text.splitlines()][0] == list(B.FIELDS)

    def test_what_it_holds_of_16_38_and_72(self) -> None:
        book = B.read(B.PACKAGE_BOOK)
        assert book.get(Position([16, 38, 101])).winning == (33,)
        for x, w in {58: 129, 62: 45, 49: 90, 69: 66, 26: 121, 68: 257}.items():
            assert w in book.get(Position([16, 38, 72]).play(x)).winning
        assert book.get(Position([16, 38, 56, 60])).outcome is Outcome.P

    def test_a_sample_solved_again_from_nothing(self) -> None:
        book = B.read(B.PACKAGE_BOOK)
        small = [e for e in book if e.position.gcd == 1 and e.position.genus <= 40][:12]
        assert len(small) >= 5
        for e in small:
            sol = solve(e.position, store=None)
            assert sol.outcome is e.outcome and set(e.winning) <= set(sol.winning_moves), e.describe()

    def test_the_public_copy_is_the_shared_one(self) -> None:
        shared = public.SHARED / "opening16_public.json"
        if not shared.is_file():
            pytest.skip("no ../shared/data here")
        assert json.loads(shared.read_text()) == json.loads(public.DATA.read_text())


class TestCheck:
    def test_an_n_whose_reply_leads_to_an_n_is_refused_in_one_line(self) -> None:
        book = B.read(B.PACKAGE_BOOK).merged([entry("16,38", "N", (101,))])  # {16,38,101} is N in the book
        failures = B.audit(book)
        assert failures == ["{16,38} N, 101 wins: its winning move 101 leads to {16,38,101}, which is not P in "
                            "the book nor by a theorem"]

    def test_a_short_p_with_an_obligation_not_n_is_refused(self) -> None:
        failures = B.audit(B.Book().merged([entry("16,20,46", "P")]))
        assert failures and failures[0].startswith("{16,20,46} P: its obligation")

    def test_against_the_paper_and_the_record(self) -> None:
        assert "paper" in B.audit(B.Book().merged([entry("8,14", "N", ())]))[0]
        assert "public record" in B.audit(B.Book().merged([entry("16,26,88", "N", ())]))[0]

    def test_merge_dedup_and_conflict(self) -> None:
        book = B.Book().merged([entry("16,38,101", "N", (33,)), entry("16,38,101", "N", (35,), states=5)])
        assert book.get(Position([16, 38, 101])).winning == (33, 35) and len(book) == 1
        with pytest.raises(B.ConflictError, match=r"\{16,38,101\}"):
            book.merged([entry("16,38,101", "P")])

    def test_the_same_search_added_again_keeps_the_books_note(self) -> None:
        """A store's record of a search the book has (as many states) does not replace the note and
        rebuild command written for it; a larger search does."""
        mine = entry("16,38,85", "N", (105,), states=920, note="found by our own sweep", rebuild="sylver sweep 16 38 85")
        again = entry("16,38,85", "N", (105,), states=920, note="found by a search", rebuild="sylver solve 16 38 85")
        kept = B.Book().merged([mine]).merged([again]).get(Position([16, 38, 85]))
        assert (kept.note, kept.rebuild) == ("found by our own sweep", "sylver sweep 16 38 85")
        larger = B.Book().merged([mine]).merged([replace(again, states=921)]).get(Position([16, 38, 85]))
        assert larger.note == "found by a search"

    def test_a_broken_line_is_one_line_and_exit_2(self, tmp_path: Path) -> None:
        bad = tmp_path / "b.jsonl"
        bad.write_text('{"position": "16,38", "outcome": "X"}\n')
        r = run(["book", "audit", "--book", str(bad)])
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "line 1" in r.stderr

    def test_audit_and_its_name_before(self) -> None:
        """``book audit`` (issue 52: "check" meant four things); ``book check``, its name before,
        still audits, after a one-line note."""
        good = B.PACKAGE_BOOK
        r = run(["book", "audit", "--book", str(good)])
        assert r.returncode == 0 and r.stdout == f"{good}: {len(B.read(good)):,} entries, consistent\n", r.stderr
        assert not r.stderr
        old = run(["book", "check", "--book", str(good)])
        assert old.stdout == r.stdout
        assert old.stderr == "sylver: note: `sylver book check` is deprecated: use `sylver book audit`\n"


class TestNovelty:
    def test_what_the_record_has_is_not_new(self) -> None:
        for text in ("16,38,101", "16,38,58,72", "16,38,62,72", "16,26,38,72", "16,38,69,72"):
            assert public.published(Position.parse(text)) is not None, text

    def test_no_result_called_new_is_in_the_public_data(self) -> None:
        for e in B.read(B.PACKAGE_BOOK):
            if public.published(e.position) is None:
                assert str(e.position) not in public.results()


class TestStore:
    def test_the_store_falls_back_to_the_book(self, tmp_path: Path) -> None:
        rec = Store(tmp_path / "s.sqlite").get(Position([16, 38, 101]))
        assert rec is not None and rec.source == "book" and rec.winning_moves == (33,)
        assert Store(tmp_path / "s.sqlite", book=False).get(Position([16, 38, 101])) is None

    def test_a_result_against_the_book_is_refused(self, tmp_path: Path) -> None:
        with pytest.raises(StoreConflictError, match=r"\{16,38,101\}"):
            Store(tmp_path / "s.sqlite").put_result(Position([16, 38, 101]), Outcome.P, (), True, 0)

    def test_solve_first_answers_from_the_book_with_its_source(self, tmp_path: Path) -> None:
        r = run(["solve", "16", "38", "101", "--first", "--json", "--store", str(tmp_path / "s.sqlite")])
        d = json.loads(r.stdout)
        assert d["source"] == "book" and d["winning_moves"] == [33] and d["states"] == 0
        assert d["book"]["position"] == "16,38,101"


def test_a_campaign_starts_with_what_a_small_book_decides(tmp_path: Path) -> None:
    small = tmp_path / "book.jsonl"
    full = B.read(B.PACKAGE_BOOK)
    keep = [e for e in full if all(x in e.position.semigroup for x in (16, 38, 72)) and len(e.position.generators) <= 5]
    B.write(B.closed(B.Book().merged(keep)), small)
    r = run(["campaign", "show", "16", "38", "--dir", str(tmp_path / "c"), "--store", str(tmp_path / "s.sqlite"),
             "--json"], SYLVER_BOOK=str(small))
    assert r.returncode == 0, r.stderr
    nodes = {tuple(n["position"]): n for n in json.loads(r.stdout)["nodes"]}
    assert nodes[(16, 26, 38, 72)]["method"] == "book" and nodes[(16, 26, 38, 72)]["winning"] == 121
    assert (16, 38, 101) not in nodes or nodes[(16, 38, 101)]["method"] != "book"  # not in the small book
    assert nodes[(16, 38, 58, 72)]["status"] == "N"


def test_book_add_takes_a_campaigns_decisions(tmp_path: Path) -> None:
    from sylver.campaign import Ledger

    d = tmp_path / "c"
    ledger = Ledger.create(d, Position([16, 46]), budget=2.0, store=str(tmp_path / "s.sqlite"))
    child = Position([16, 20, 46])
    ledger.expand(Position([16, 46]), [(20, child, "short", 3)], 2.0, [])
    ledger.decide(child, status="P", winning=None, method="solve", states=9, seconds=1.0, peak_bytes=0,
                  certificate="", note="")
    ledger.close()
    target = tmp_path / "book.jsonl"
    target.write_text(B.PACKAGE_BOOK.read_text())
    r = run(["book", "add", "--dir", str(d), "--book", str(target)])
    assert r.returncode == 0, r.stderr
    assert B.read(target).get(child).states >= 9
    assert B.audit(B.read(target)) == []


def test_frontier_md_is_what_the_book_generates() -> None:
    from sylver.store.bookpage import page

    committed = (Path(__file__).resolve().parents[1] / "docs" / "frontier.md").read_text()
    assert committed == page(B.read(B.PACKAGE_BOOK)), "run `sylver book page > docs/frontier.md`"
    new_part = committed.split("## New results")[1].split("## Reproduced")[0]
    for text in ("{16,38,101} |", "{16,38,58,72} |", "{16,38,62,72} |", "{16,26,38,72} |"):
        assert text not in new_part  # in the public record: not new


def test_verify_book_checks_a_rebuilt_certificate_against_the_receipt(tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    assert run(["solve", "12", "16", "18", "--no-store", "--certificate", str(cert)]).returncode == 0
    r = run(["verify", str(cert), "--book"])
    assert r.returncode == 0 and "match its receipt" in r.stdout
    other = tmp_path / "book.jsonl"
    e = B.read(B.PACKAGE_BOOK).get(Position([12, 16, 18]))
    assert e is not None and e.certificate is not None
    from dataclasses import replace

    other.write_text(replace(e, certificate=replace(e.certificate, sha256="0" * 64)).to_line() + "\n")
    r = run(["verify", str(cert), "--book"], SYLVER_BOOK=str(other))
    assert r.returncode == 1 and "not this file's" in r.stdout


def test_book_add_takes_a_store_under_a_root_and_the_receipts_of_checks(tmp_path: Path) -> None:
    """`book add --store S --root R` (no campaign) and `--verified` (the lines of `sylver verify
    --json`, or a --known file): a sweep's answer, the replies it decided, and a certificate's receipt."""
    book = tmp_path / "book.jsonl"
    book.write_text("")
    store = tmp_path / "s.sqlite"
    sylver = [sys.executable, "-m", "sylver"]
    env = {**os.environ, "SYLVER_BOOK": "off"}
    subprocess.run([*sylver, "sweep", "10", "16", "--store", str(store)], check=True, capture_output=True, env=env)
    cert = tmp_path / "p.json"
    subprocess.run([*sylver, "solve", "9", "10", "16", "--no-store", "--certificate", str(cert)], check=True,
                   capture_output=True, env=env)
    checked = subprocess.run([*sylver, "verify", str(cert), "--json"], capture_output=True, text=True, env=env)
    progress = {"sha256": "0" * 64, "bytes": 10, "checked_below": 5, "share": 0, "jobs": 1, "run": "r", "checker": 1,
                "time": "2026-11-29T23:00:00Z"}  # a --known file's record of a cut check: no receipt
    (tmp_path / "checks.jsonl").write_text(json.dumps(progress) + "\n" + checked.stdout)
    add = subprocess.run([*sylver, "book", "add", "--book", str(book), "--store", str(store), "--root", "10,16",
                          "--verified", str(tmp_path / "checks.jsonl")], capture_output=True, text=True, env=env)
    assert add.returncode == 0, add.stderr
    got = B.read(book)
    n, p = got.get(Position.parse("10,16")), got.get(Position.parse("9,10,16"))
    assert n is not None and n.outcome is Outcome.N and 9 in n.winning
    assert p is not None and p.outcome is Outcome.P and p.certificate is not None
    assert p.certificate.sha256 == json.loads(checked.stdout)["sha256"] and p.certificate.bytes == cert.stat().st_size
    assert any(e.outcome is Outcome.N and not e.winning for e in got)  # the replies the sweep decided
    bad = subprocess.run([*sylver, "book", "add", "--book", str(book), "--store", str(store)],
                         capture_output=True, text=True, env=env)
    assert bad.returncode == 2 and "--root" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_a_receipt_keeps_the_command_that_built_the_file() -> None:
    """A check's receipt merged into the book's entry keeps the entry's rebuild command (the sweep
    that built the file checked), not the receipt's generic `sylver solve`; its note comes first."""
    from sylver.campaign.harvest import engine
    from sylver.store.book import Certificate, Entry, merge

    pos = Position.parse("16,38,93")
    sweep = "sylver sweep 16 38 93 --order frobenius --memory 9G --certificate F && sylver verify F --book"
    old = Entry(position=pos, outcome=Outcome.N, winning=(83,), how="search", states=1_231_874_621, seconds=6030.0,
                engine=engine(), date="2026-11-29", rebuild=sweep, note="found by our own sweep; certificate not checked")
    receipt = Entry(position=pos, outcome=Outcome.N, winning=(83,), how="search", states=0, seconds=0.0,
                    engine=engine(), date="2026-11-30",
                    certificate=Certificate(sha256="f" * 64, bytes=8_357_233_851, checked="2026-11-30", nodes=36_794_330),
                    rebuild="sylver solve 16 38 93 --certificate F && sylver verify F --book",
                    note="certificate checked valid by `sylver verify` on 2026-11-30")
    got = merge(old, receipt)
    assert got.certificate == receipt.certificate and got.rebuild == sweep and got.states == old.states
    assert got.note == "certificate checked valid by `sylver verify` on 2026-11-30; found by our own sweep"
    alone = merge(replace(old, rebuild=""), receipt)  # no command of its own: the receipt's
    assert alone.rebuild == receipt.rebuild
