"""The frontier of the opening 16 (issue 31): each published reply to 16 and each published P-position,
attacked by `sylver campaign`, with the answer, time, memory, and whether its certificate verified.

    .venv/bin/python bench/bench_frontier.py --quick            # the small items (minutes)
    .venv/bin/python bench/bench_frontier.py                    # every item (hours: 1800 s an item at most)
    .venv/bin/python bench/bench_frontier.py --only T --only 16,20 --only r22
    .venv/bin/python bench/bench_frontier.py --only U --time-limit 7200 --memory 12G --jobs 2
    .venv/bin/python bench/bench_frontier.py --quick --json      # one JSON line per item
    .venv/bin/python bench/bench_frontier.py --workdir DIR       # keep the campaigns (and their store)
    .venv/bin/python bench/bench_frontier.py --ledger c1638      # {16,38}'s obligations in a campaign's ledger
    .venv/bin/python bench/bench_frontier.py --ledger c1638 --node 16,38,72   # those of one node (a rung)
    .venv/bin/python bench/bench_frontier.py --strategies            # orders of replies, on known answers
    .venv/bin/python bench/bench_frontier.py --strategies --only 16,38,101 --memory 4G
    .venv/bin/python bench/bench_frontier.py --replacement 4G,256M,128M,64M   # what full tables cost in states

The published facts (rudi-cilibrasi/sylver-coinage, campaigns of 2026-09 and 2026-10; the file
opening16_public.json, copied into :data:`PUBLISHED`, or read from --data): each reply r to 16
answered by a ({16,r,a} P, so {16,r} N), the P-positions T, U, Y, Z, V, W, I, B24, B28, B56, Z', D,
four more P-positions, and {16,31,150}, claimed P but not replayed there.  Ours may answer a reply
with another (often smaller) winning move: that agrees, as long as the reply is N and certified; both
answers are printed.

Each item runs `sylver campaign run POSITION --dir WORKDIR/NAME --store WORKDIR/store.sqlite --time-limit
T` in a fresh directory (a reply r with `--try a`, its published answer: the campaign checks that claim
first; --blind leaves it to find one); the store is shared by the items of one workdir (a later item reuses what an
earlier one decided, as a researcher's campaigns would; --fresh-store gives each item its own).  The
peak memory is the largest sum of the RSS of the campaign's process and its children (its attempt
workers), polled every 0.1 s (pages shared between them count more than once).  Then the ledger is
read (`sylver campaign show --dir ... --json`) and the root's certificate is checked by `sylver
verify --json --known WORKDIR/known.jsonl` in its own process, timed: "valid" when it is valid, proves
(not "probably") the outcome the ledger says, and is about the root; a proof that it imports and that
an earlier item's check recorded (Z's under r30's, U's under r26's) is not checked again, nor is a root
certificate that such a record names (U's own item after r26: "checked before", with its time).  A campaign is for g > 1: an item with gcd 1 (D,
{16,31,150}) is decided by one `sylver solve --certificate` instead, with the same options.

A disagreement with a published outcome is printed loudly and makes the script exit 1; so does an
invalid certificate or a campaign that failed.  An item the time limit left open is only reported.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from machine import cpu_model, load  # noqa: E402 - bench/ is the script's directory

ROOT = Path(__file__).resolve().parent.parent
SYLVER = [sys.executable, "-m", "sylver"]

PUBLISHED = {
    "replies_answered": {2: 3, 4: 6, 6: 7, 8: 14, 10: 9, 12: 14, 14: 8, 18: 5, 20: 34, 22: 12, 24: 10,
                         26: 88, 28: 58, 30: 56, 34: 20, 36: 23, 56: 30, 58: 11, 62: 37, 86: 33, 88: 26,
                         90: 17, 140: 13, 156: 21},
    "p_positions": {"T": [16, 20, 34], "U": [16, 26, 88], "Y": [16, 28, 58], "Z": [16, 30, 56],
                    "V": [16, 26, 36, 56], "W": [16, 26, 62, 98], "I": [16, 20, 22, 24],
                    "B24": [16, 24, 38, 44], "B28": [16, 28, 38, 40], "B56": [16, 38, 56, 60],
                    "Z'": [16, 30, 40, 44], "D": [16, 26, 82, 88, 701]},
    "p_positions_more": [[16, 26, 54, 60, 62], [16, 26, 56, 62, 66], [16, 26, 30, 34], [16, 26, 46, 50, 56]],
    "claimed_not_replayed": [16, 31, 150],
}
"""opening16_public.json's replies and P-positions (the items of this bench)."""

QUICK = ("r2", "r4", "r6", "r8", "r10", "r12", "r14", "r18", "r20", "r22", "r24", "r34", "r58", "r140",
         "T", "I", "more3")
"""The items known to be small: each decided and certified within about a minute alone on 2 shared
cores (26 November 2026: r20 53 s, r34 45 s, r140 66 s, more3 25 s, the others under 3 s; with
--quick, T comes from the store after r20; the whole --quick run: 360 s).  Not small (open after 120 s at --memory 2G,
alone): r36, r62, r86, r90, r156, V, B24, B28, B56, Z'.  The items run in the order of
:func:`items`: the replies, then the P-positions."""


KNOWN_REPLIES = (
    ("16,38,101", 33, "{16,38}'s odd obligation 101 (record: 33)"),
    ("16,38,49,72", 90, "{16,38,72}'s odd obligation 49 (ours: 90)"),
    ("16,38,69,72", 66, "{16,38,72}'s odd obligation 69 (record and ours: 66)"),
    ("16,38,62,72", 45, "{16,38,72}'s long obligation 62 (record and ours: 45)"),
    ("16,38,58,72", 129, "{16,38,72}'s long obligation 58 (record and ours: 129)"),
    ("16,90", 17, "the reply 90 to 16 (record: 17)"),
    ("16,58", 11, "the reply 58 to 16 (record: 11)"),
    ("16,62", 37, "the reply 62 to 16 (record: 37)"),
    ("16,86", 33, "the reply 86 to 16 (record: 33)"),
    ("16,140", 13, "the reply 140 to 16 (record: 13)"),
    ("16,156", 21, "the reply 156 to 16 (record: 21)"),
)
"""Nodes whose winning replies are known (the public record, or ours with a certificate): the
strategies are compared on the states and seconds until a winning reply is found."""

STRATEGIES = ("frobenius", "ascending", "rounds")
"""The orders of the replies compared (``sylver sweep --order``, ``sylver solve --root-order``);
``rounds``: a sweep in the Frobenius order, in rounds of :data:`ROUND_STATES` states a reply, 4
times more each round (``sylver sweep --rounds``, any gcd)."""

ROUND_STATES = "100K"
"""``sylver sweep --rounds`` of the ``rounds`` strategy."""


def strategy_run(position: str, order: str, memory: str, time_limit: float, extra: tuple[str, ...] = ()) -> dict:
    """One search for a winning reply of ``position`` in ``order``, in a fresh process without the
    store: gcd 1 by ``sylver solve --first --root-order`` (``rounds``: ``sylver sweep --rounds``),
    otherwise ``sylver sweep`` of the replies that leave gcd 1.  Its answer, states, seconds (the process's CPU seconds too) and peak RSS."""
    nums = [int(x) for x in position.split(",")]
    g = 0
    for x in nums:
        g = __import__("math").gcd(g, x)
    rounds = order == "rounds"
    order = "frobenius" if rounds else order
    if g == 1 and not rounds:
        cmd = [*SYLVER, "solve", *position.split(","), "--first", "--root-order", order, "-j", "1"]
    else:
        cmd = [*SYLVER, "sweep", *position.split(","), "--order", order, *(("--rounds", ROUND_STATES) if rounds else ())]
    cmd += ["--no-store", "--memory", memory, "--time-limit", f"{time_limit:g}", "--json", *extra]
    before = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    peak = int(proc.stderr.strip().splitlines()[-1]) * 1024 if proc.stderr.strip() else 0
    out: dict[str, Any] = {"wall": wall, "cpu": children_cpu() - before, "peak": peak, "winning": None, "states": None}
    try:
        data = json.loads(proc.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        lines = [line for line in proc.stderr.strip().splitlines()[:-1]  # the last is /usr/bin/time's
                 if not line.startswith("Command exited with")]  # (and so is this, on an error)
        out["error"] = lines[-1] if lines else f"exit {proc.returncode}, no output"
        return out
    won = data.get("winning") if "winning" in data else data.get("winning_moves")
    out.update(winning=(won or [None])[0], states=data.get("states"), seconds=data.get("seconds"),
               saturated=data.get("saturated"), overwrites=(data.get("stats") or {}).get("overwrites"),
               tables=data.get("peak_bytes"))
    return out


def columns(values: list[str], widths: tuple[int, ...]) -> str:
    """One row of a table printed in columns of ``widths`` characters."""
    return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()


def line3(values: list[str]) -> str:
    return columns(values, (14, 6, 10, 16, 13, 8, 8, 9))


def strategies(ns: argparse.Namespace) -> int:
    """``--strategies``: each order of the replies on each node of :data:`KNOWN_REPLIES` (or
    ``--only``), one fresh process each, in one run (compare the figures of one run only)."""
    todo = [k for k in KNOWN_REPLIES if not ns.only or any(parse_position(w) == parse_position(k[0]) for w in ns.only)]
    memory = ns.memory or "4G"
    print(f"# strategies for finding a winning reply, {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print(f"# {cpu_model()}, {load()}; --memory {memory}, {ns.time_limit:g} s a run at most, no results store")
    print(line3(["node", "known", "order", "found", "states", "seconds", "cpu s", "peak"]))
    bad = 0
    for position, known, _what in todo:
        for order in STRATEGIES:
            r = strategy_run(position, order, memory, ns.time_limit)
            found = r["winning"]
            if r.get("error"):
                found_text = f"error: {r['error']}"
                bad += 1
            else:
                found_text = "none in time" if found is None else str(found) + ("" if found == known else " (another)")
            print(line3([braces([int(x) for x in position.split(",")]), str(known), order, found_text,
                         f"{r['states']:,}" if r["states"] is not None else "-",
                         f"{r['seconds']:.1f}" if r.get("seconds") is not None else "-",
                         f"{r['cpu']:.1f}", f"{r['peak'] / 2**20:,.0f} MB"]), flush=True)
    print(f"# {load()}")
    return 1 if bad else 0


REPLACEMENT_NODES = ("16,38,101",)
"""The default nodes of ``--replacement``: a sweep of about 14 M states to its known answer."""


def replacement(ns: argparse.Namespace) -> int:
    """``--replacement SIZES``: the same search for a winning reply (the record's order, a fresh
    process, no store, no self-check) under each ``--memory`` of SIZES, largest first: what a table
    that fills and overwrites costs in states, against the largest budget's run (``tables``: the
    transposition tables' largest size, ``peak``: the process's resident peak) (engine.md, "Past a
    billion states": the plan for 2-4 billion states is replacement beyond the machine's memory)."""
    from sylver.machine import parse_memory

    sizes = sorted(ns.replacement.split(","), key=parse_memory, reverse=True)
    known_of = {parse_position(k[0]): k[1] for k in KNOWN_REPLIES}
    nodes = [parse_position(w) for w in ns.only or REPLACEMENT_NODES]
    for w, node in zip(ns.only or REPLACEMENT_NODES, nodes, strict=True):
        if node is None:
            raise SystemExit(f"bench_frontier: error: --replacement takes positions (--only 16,38,101), not {w!r}")
    print(f"# replacement: states to a known winning reply by --memory, {time.strftime('%Y-%m-%d %H:%M:%S')}")
    print(f"# {cpu_model()}, {load()}; {ns.time_limit:g} s a run at most, no results store, no self-check")
    widths = (14, 7, 16, 13, 9, 13, 9, 9, 8, 8, 9)
    print(columns(["node", "memory", "found", "states", "x largest", "overwrites", "saturated", "tables", "seconds",
                   "cpu s", "peak"], widths))
    bad = 0
    for node in nodes:
        assert node is not None
        position, known = ",".join(map(str, node)), known_of.get(node)
        base = None
        for size in sizes:
            r = strategy_run(position, "frobenius", size, ns.time_limit, ("--no-self-check", "--stats"))
            found = r["winning"]
            if r.get("error"):
                found_text, bad = f"error: {r['error']}", bad + 1
            else:
                found_text = "none in time" if found is None else str(found) + ("" if known in (None, found) else " (another)")
            states = r["states"]
            if base is None and states:
                base = states
            row = [braces(list(node)), size, found_text,
                   f"{states:,}" if states is not None else "-",
                   f"{states / base:.2f}" if states and base else "-",
                   f"{r['overwrites']:,}" if r.get("overwrites") is not None else "-",
                   str(r.get("saturated", "-")).lower(),
                   f"{r['tables'] / 2**20:,.0f} MB" if r.get("tables") else "-",
                   f"{r['seconds']:.1f}" if r.get("seconds") is not None else "-",
                   f"{r['cpu']:.1f}", f"{r['peak'] / 2**20:,.0f} MB"]
            print(columns(row, widths), flush=True)
    print(f"# {load()}")
    return 1 if bad else 0


def items(data: dict) -> list[dict]:
    """The bench's items: name, position, expected outcome, the published answer (replies)."""
    out = []
    for r, a in data["replies_answered"].items():
        out.append({"name": f"r{r}", "position": [16, int(r)], "expected": "N", "published": int(a)})
    for name, pos in data["p_positions"].items():
        out.append({"name": name, "position": list(pos), "expected": "P", "published": None})
    for i, pos in enumerate(data["p_positions_more"], 1):
        out.append({"name": f"more{i}", "position": list(pos), "expected": "P", "published": None})
    claimed = data["claimed_not_replayed"]
    if isinstance(claimed, dict):
        claimed = claimed["position"]
    out.append({"name": "claimed", "position": list(claimed), "expected": "P", "published": None})
    return out


def load_data(path: str) -> dict:
    """The items of a file in opening16_public.json's format."""
    raw = json.loads(Path(path).read_text())
    facts = raw.get("facts", {})
    return {"replies_answered": raw["replies_answered"], "p_positions": raw["p_positions"],
            "p_positions_more": raw.get("p_positions_more", []),
            "claimed_not_replayed": facts.get("claimed_not_replayed", raw.get("claimed_not_replayed", [16, 31, 150]))}


def braces(pos: list[int]) -> str:
    return "{" + ",".join(map(str, pos)) + "}"


def parse_position(text: str) -> tuple[int, ...] | None:
    nums = re.findall(r"\d+", text)
    if not nums or re.search(r"[A-Za-z']", text):
        return None
    return tuple(sorted(int(n) for n in nums))


def chosen(item: dict, wanted: list[str]) -> bool:
    for w in wanted:
        if w.lower() == item["name"].lower():
            return True
        if parse_position(w) == tuple(sorted(item["position"])):
            return True
    return False


def fresh_dir(workdir: Path, name: str) -> Path:
    slug = re.sub(r"[^A-Za-z0-9_-]", "p", name)  # Z' -> Zp
    d, n = workdir / slug, 1
    while d.exists():
        n += 1
        d = workdir / f"{slug}-{n}"
    return d


def children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def run_tree(args: list[str], log: Path, time_limit: float, grace: float) -> dict:
    """Run ``args`` (stdout to ``log``, stderr to ``log``.err), polling its process tree's RSS: exit
    code, wall and CPU seconds, peak RSS (the sum over the tree).  Killed (it and its children, which
    this script started) if it runs ``grace`` seconds past ``time_limit``."""
    c0, t0 = children_cpu(), time.perf_counter()
    peak, killed = 0, False
    with open(log, "w") as out, open(f"{log}.err", "w") as err:
        proc = subprocess.Popen(args, stdout=out, stderr=err, cwd=ROOT)
        ps = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                tree = [ps, *ps.children(recursive=True)]
            except psutil.NoSuchProcess:
                break
            rss = 0
            for p in tree:
                try:
                    rss += p.memory_info().rss
                except psutil.NoSuchProcess:
                    pass
            peak = max(peak, rss)
            if not killed and time.perf_counter() - t0 > time_limit + grace:  # it did not stop at its limit
                killed = True
                for p in reversed(tree):
                    try:
                        p.kill()
                    except psutil.NoSuchProcess:
                        pass
            time.sleep(0.1)
        rc = proc.wait()
    return {"rc": rc, "killed": killed, "seconds": time.perf_counter() - t0, "cpu": children_cpu() - c0,
            "peak_rss": peak, "log": str(log)}


def gcd(pos: list[int]) -> int:
    from math import gcd as g

    out = 0
    for x in pos:
        out = g(out, x)
    return out


def common(ns: argparse.Namespace, store: Path) -> list[str]:
    args = ["--store", str(store), "--jobs", str(ns.jobs), "--time-limit", str(ns.time_limit)]
    return args + (["--memory", ns.memory] if ns.memory else [])


def campaign_item(item: dict, directory: Path, store: Path, ns: argparse.Namespace) -> dict:
    """g > 1: `sylver campaign` in ``directory``, then its ledger and the root's certificate."""
    args = [*SYLVER, "campaign", "run", *map(str, item["position"]), "--dir", str(directory), *common(ns, store)]
    if ns.first_budget is not None:
        args += ["--first-budget", str(ns.first_budget)]
    if item["published"] is not None and not ns.blind:
        args += ["--try", str(item["published"])]  # the published answer first: its claim is what is checked
    row = {"method": "campaign", **run_tree(args, directory.parent / f"{directory.name}.log", ns.time_limit, ns.grace)}
    ledger = read_ledger(directory)
    if ledger is None:
        row.update(ours="error", winning=None, agrees="error", certificate="none", verify_seconds=None,
                   error=f"the campaign ended with exit code {row['rc']} and no ledger (log: {row['log']}.err)")
        return row
    s = ledger["summary"]
    root_node = next((n for n in ledger["nodes"] if n.get("why") == "root"), None)
    row.update(ours=s["status"], winning=s.get("winning"), root=s["root"], nodes=s["nodes"],
               certified=s.get("certified"))
    cert = root_node.get("certificate") if root_node else None
    row["certificate_file"] = str(directory / cert) if cert else None
    searched = [n for n in ledger["nodes"] if n.get("method") == "solve" and n.get("states")]
    if searched:  # the largest search of the campaign, and the memory its attempt peaked at
        big = max(searched, key=lambda n: n["states"])
        row.update(largest_states=big["states"], largest_bytes=big.get("peak_bytes") or 0, largest=big["text"])
    return row


def solve_item(item: dict, directory: Path, store: Path, ns: argparse.Namespace) -> dict:
    """gcd 1 (D, {16,31,150}): a campaign is for g > 1, so one `sylver solve --certificate` decides it."""
    directory.mkdir(parents=True)
    cert = directory / "certificate.json"
    args = [*SYLVER, "solve", *map(str, item["position"]), "--json", "--certificate", str(cert), *common(ns, store)]
    row = {"method": "solve", **run_tree(args, directory / "solve.log", ns.time_limit, ns.grace)}
    try:
        res = json.loads(Path(row["log"]).read_text().strip().splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        res = None
    if row["rc"] == 3 or (res is None and row["killed"]):  # not solved within the time limit
        row.update(ours="open", winning=None, root=item["position"], certificate_file=None)
    elif res is None or row["rc"] != 0:
        row.update(ours="error", winning=None, certificate_file=None, agrees="error", certificate="none",
                   verify_seconds=None, error=f"sylver solve ended with exit code {row['rc']} (log: {row['log']}.err)")
        return row
    else:
        wins = res.get("winning_moves") or []
        row.update(ours=res["outcome"], winning=min(wins) if wins else None, root=res["position"],
                   certificate_file=str(cert) if cert.exists() else None, largest_states=res.get("states") or 0,
                   largest_bytes=row["peak_rss"], largest=braces(item["position"]))
    return row


def read_ledger(directory: Path) -> dict | None:
    out = subprocess.run([*SYLVER, "campaign", "show", "--dir", str(directory), "--json"], cwd=ROOT,
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return None
    try:
        return json.loads(out.stdout)
    except json.JSONDecodeError:
        return None


def verify(path: Path, status: str, root: list[int], jobs: int, known: Path) -> dict:
    """`sylver verify --json -j JOBS --known KNOWN` on the root's certificate, timed: valid / invalid /
    unproven / mismatch.  ``known`` (the workdir's record of checks): a proof that an earlier item's
    certificate imports and that was checked then (Z's, under r30's and r56's) is not checked again, nor
    a root certificate recorded there (U's own item after r26: "checked before", with its time)."""
    c0, t0 = children_cpu(), time.perf_counter()
    out = subprocess.run([*SYLVER, "verify", "--json", "-j", str(jobs), "--known", str(known), str(path)],
                         cwd=ROOT, capture_output=True, text=True, check=False)
    try:
        v = json.loads(out.stdout)
    except json.JSONDecodeError:
        v = {"valid": False, "flaw": (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]}
    res = {"verify_seconds": time.perf_counter() - t0, "verify_cpu": children_cpu() - c0}
    if not v.get("valid"):
        flaw = v.get("flaw")
        res.update(certificate="invalid", verify_note=str(flaw[0] if isinstance(flaw, list) else flaw))
        return res
    proves = v.get("proves") or []
    first = proves[0] if proves else ""
    if sorted(v.get("position", [])) != sorted(root) or v.get("outcome") != status:
        res.update(certificate="mismatch",
                   verify_note=f"the certificate is about {braces(v.get('position', []))}, {v.get('outcome')}")
    elif proves and not first.endswith(": proven"):  # a g > 1 certificate of a probably-P claim
        res.update(certificate="unproven", verify_note=first)
    else:
        res.update(certificate="valid", verify_note=first or f"{braces(root)} is {status}: proven (gcd 1: a search)")
    before = [braces(i["position"]) for i in v.get("imports", []) if i.get("how") == "checked before"]
    if before:
        res["verify_note"] += f"; rests on {', '.join(before)}, checked before"
    if v.get("checked_before"):
        res["verify_note"] += f" (this file checked before, {v['checked_before']}: not read again)"
    return res


def one(item: dict, workdir: Path, ns: argparse.Namespace) -> dict:
    directory = fresh_dir(workdir, item["name"])
    store = (directory.parent / f"{directory.name}.store.sqlite") if ns.fresh_store else workdir / "store.sqlite"
    row = {**item, "dir": str(directory)}
    run = campaign_item if gcd(item["position"]) > 1 else solve_item
    row.update(run(item, directory, store, ns))
    if row["ours"] == "error":
        return row
    if row["ours"] not in ("P", "N"):
        row["agrees"] = "open"
    else:
        row["agrees"] = "yes" if row["ours"] == item["expected"] else "no"
    if row["certificate_file"]:
        row.update(verify(Path(row["certificate_file"]), row["ours"], row["root"], ns.jobs, workdir / "known.jsonl"))
    else:
        row.update(certificate="none", verify_seconds=None)
    if row["rc"] != 0 and row["agrees"] == "open" and not (row["method"] == "solve" and row["rc"] == 3):
        row["error"] = f"{row['method']} ended with exit code {row['rc']}{' (killed)' if row['killed'] else ''}"
    return row


COLUMNS = ("name", "position", "expected", "ours", "agrees", "seconds", "cpu s", "peak RSS", "certificate",
           "verify s", "largest search", "B/state")
WIDTHS = (8, 20, 10, 10, 6, 8, 8, 9, 11, 8, 14, 7)


def cells(r: dict) -> list[str]:
    exp = r["expected"] + (f" {r['published']}" if r["published"] is not None else "")
    ours = r["ours"] + (f" {r['winning']}" if r.get("winning") is not None else "")
    vs = "" if r.get("verify_seconds") is None else f"{r['verify_seconds']:.1f}"
    states, nbytes = r.get("largest_states") or 0, r.get("largest_bytes") or 0
    return [r["name"], braces(r["position"]), exp, ours, r["agrees"], f"{r['seconds']:.1f}", f"{r['cpu']:.1f}",
            f"{r['peak_rss'] / 2**20:.0f} MB", r["certificate"], vs, f"{states:,}" if states else "",
            f"{nbytes / states:.1f}" if states and nbytes else ""]


def line(values: list[str]) -> str:
    return "  ".join(v.ljust(w) for v, w in zip(values, WIDTHS, strict=True)).rstrip()


def certified(node: Any, checked: set[Any]) -> str:
    """A decided node's certificate: "valid" (recorded so by `sylver campaign verify`), "written"
    (not checked yet), "to build"; '' while open, or decided by its children without a file yet."""
    from sylver.campaign.report import certificate_pending

    if not node.decided:
        return ""
    if node.certificate:
        return "valid" if node.position in checked else "written"
    return "to build" if certificate_pending(node.to_dict()) else ""


def obligations(directory: Path, at: str | None = None) -> int:
    """Print the root's moves (or those of the node ``at``, e.g. "16,38,72") in the campaign in
    ``directory`` (for {16,38}: its obligations): each
    decided one with its answer, each open one with the largest search that failed on it (and, for
    gcd 1, how many of its root moves the last attempt had decided: :func:`progress`); then the
    counts.  The exit status (0) does not depend on what is open."""
    from sylver.campaign import Ledger
    from sylver.campaign.proof import recorded_valid
    from sylver.campaign.report import certificates_line

    try:
        ledger = Ledger.open(directory, read_only=True)
    except ValueError as exc:
        print(f"bench_frontier.py: error: {exc}", file=sys.stderr)
        return 2
    top = ledger.root
    if at is not None:
        from sylver.position import Position

        try:
            top = Position.parse(at)
        except ValueError as exc:
            print(f"bench_frontier.py: error: --node {at!r}: {exc}", file=sys.stderr)
            return 2
    root = ledger.node(top)
    if root is None:
        print(f"bench_frontier.py: error: --node {top.braces()} is not in the ledger in {directory}", file=sys.stderr)
        return 2
    print(f"# the ledger of {ledger.root.braces()} in {directory}: {top.braces()} is {root.status}")
    print(line2(["move", "position", "kind", "status", "answer", "method", "attempts", "largest search", "seconds",
                 "root moves decided", "certificate"]))
    checked = recorded_valid(ledger)
    counts: dict[str, int] = {}
    for x, child in sorted(ledger.children(top)):
        node = ledger.node(child)
        if node is None:
            continue
        tried = ledger.attempts(child)
        states = max([a["states"] for a in tried] + [node.states])
        seconds = sum(a["seconds"] for a in tried) or node.seconds
        status = node.status if node.status != "working" else "open"
        side = "odd" if x % 2 else "even"
        counts[f"{side} {status}"] = counts.get(f"{side} {status}", 0) + 1
        if node.method == "theorem":
            continue
        print(line2([str(x), child.braces(), node.kind, status, "" if node.winning is None else str(node.winning),
                     node.method, str(node.attempts), f"{states:,}" if states else "", f"{seconds:.0f}",
                     progress(tried) if status == "open" else "", certified(node, checked)]))
    print("# " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + " (theorem-decided moves counted, not listed)")
    print("# " + certificates_line(ledger))
    ledger.close()
    return 0


def progress(tried: list[dict]) -> str:
    """How far the last attempt that says so got into an open gcd-1 node: "45 of 155" (its root moves
    decided, those of earlier attempts read from the results store included)."""
    for a in reversed(tried):
        m = re.search(r"\((\d+) of (\d+) root moves decided\)", a.get("note") or "")
        if m:
            return f"{m[1]} of {m[2]}"
    return ""


def line2(values: list[str]) -> str:
    widths = (5, 22, 9, 7, 7, 9, 8, 15, 8, 18, 8)
    return "  ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)).rstrip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", metavar="NAME_OR_POSITION",
                    help="run only this item: a name (r20, T, Z', B24, more1, claimed) or a position (16,20,34); "
                    "repeatable; adds to --quick")
    ap.add_argument("--quick", action="store_true", help=f"only the small items: {', '.join(QUICK)}")
    ap.add_argument("--json", action="store_true", help="one JSON line per item (the header on stderr)")
    ap.add_argument("--jobs", type=int, default=1, help="the campaign's --jobs, and sylver verify's (default 1: a shared machine)")
    ap.add_argument("--memory", help="the campaign's --memory (default: the campaign's own default)")
    ap.add_argument("--first-budget", type=float, help="the campaign's --first-budget (default: its own)")
    ap.add_argument("--blind", action="store_true",
                    help="do not give a reply's campaign the published answer to try first (--try): find one")
    ap.add_argument("--time-limit", type=float, default=1800.0, help="seconds an item at most (default 1800)")
    ap.add_argument("--grace", type=float, default=300.0, help=argparse.SUPPRESS)
    ap.add_argument("--workdir", help="where the campaigns go (default: a temporary directory, removed after)")
    ap.add_argument("--fresh-store", action="store_true",
                    help="give each item its own results store (default: one store for the workdir's items)")
    ap.add_argument("--data", help="read the items from a file in opening16_public.json's format")
    ap.add_argument("--ledger", metavar="DIR",
                    help="print the root's moves of the campaign in DIR (e.g. `sylver campaign run 16 38 --dir DIR`: "
                    "each obligation decided, or open with the largest search that failed) and exit")
    ap.add_argument("--node", metavar="POSITION",
                    help="with --ledger: the moves of this node instead of the root's (e.g. 16,38,72: a rung of the ladder)")
    ap.add_argument("--strategies", action="store_true",
                    help="compare the orders of replies (frobenius, ascending) on nodes with known answers: states "
                    "and seconds until a winning reply is found (--only POSITION, --memory, --time-limit)")
    ap.add_argument("--replacement", metavar="SIZES",
                    help="the record's order on a node with a known answer (--only; default 16,38,101) under each "
                    "--memory of SIZES (e.g. 4G,256M,128M,64M): states, overwrites and seconds, against the largest")
    ns = ap.parse_args()
    if ns.replacement:
        sys.exit(replacement(ns))
    if ns.strategies:
        sys.exit(strategies(ns))
    if ns.node and not ns.ledger:
        ap.error("--node needs --ledger DIR")
    if ns.ledger:
        print(f"# {cpu_model()}, {load()}")
        sys.exit(obligations(Path(ns.ledger), ns.node))

    all_items = items(load_data(ns.data) if ns.data else PUBLISHED)
    wanted = [*(QUICK if ns.quick else ()), *(ns.only or ())]
    todo = [it for it in all_items if not wanted or chosen(it, wanted)]
    unknown = [w for w in (ns.only or ()) if not any(chosen(it, [w]) for it in all_items)]
    if unknown:
        ap.error(f"--only {', '.join(unknown)}: no such item (names: {', '.join(i['name'] for i in all_items)})")

    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip() or "unknown"
    temp = ns.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="bench-frontier-")) if temp else Path(ns.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    head = [f"# opening-16 frontier benchmark (issue 31), {time.strftime('%Y-%m-%d %H:%M:%S')}",
            f"# {cpu_model()}, {load()}",
            f"# commit {commit}",
            f"# {len(todo)} items; sylver campaign run --jobs {ns.jobs}"
            f"{f' --memory {ns.memory}' if ns.memory else ''} --time-limit {ns.time_limit:g}"
            f"{f' --first-budget {ns.first_budget:g}' if ns.first_budget is not None else ''}; workdir {workdir}"
            f"{' (temporary)' if temp else ''}; "
            f"{'a store per item' if ns.fresh_store else 'one results store for the items: ' + str(workdir / 'store.sqlite')}"]
    hout = sys.stderr if ns.json else sys.stdout
    for h in head:
        print(h, file=hout, flush=True)
    if not ns.json:
        print(line(list(COLUMNS)), flush=True)
    bad: list[str] = []
    counts = {"yes": 0, "no": 0, "open": 0, "error": 0}
    t_all = time.perf_counter()
    try:
        for it in todo:
            r = one(it, workdir, ns)
            counts[r["agrees"]] += 1
            if ns.json:
                print(json.dumps({**r, "cpu_model": cpu_model(), "commit": commit}), flush=True)
            else:
                print(line(cells(r)), flush=True)
            problems = []
            if r["agrees"] == "no":
                problems.append(f"DISAGREEMENT: {r['name']} {braces(r['position'])} is {r['expected']} as "
                                f"published, ours is {r['ours']}"
                                + (f" ({r['winning']} wins)" if r.get("winning") is not None else ""))
            if r["certificate"] in ("invalid", "mismatch"):
                problems.append(f"CERTIFICATE {r['certificate'].upper()}: {r['name']} "
                                f"{braces(r['position'])}: {r.get('verify_note')} ({r.get('certificate_file')})")
            if r.get("error"):
                problems.append(f"FAILED: {r['name']} {braces(r['position'])}: {r['error']}")
            for p in problems:
                msg = f"!!!!!!!! {p} !!!!!!!!"
                print(msg, flush=True)
                if not ns.json:
                    print(msg, file=sys.stderr, flush=True)
            bad += problems
    finally:
        if temp:
            shutil.rmtree(workdir, ignore_errors=True)
    total = time.perf_counter() - t_all
    print(f"# {len(todo)} items in {total:.0f} s: {counts['yes']} agree, {counts['no']} disagree, {counts['open']} open, "
          f"{counts['error']} failed; {load()}", file=hout, flush=True)
    if bad:
        print(f"!!!!!!!! {len(bad)} problem(s): " + "; ".join(bad), file=hout, flush=True)
        sys.exit(1)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
