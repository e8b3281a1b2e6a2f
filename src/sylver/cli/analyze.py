"""`sylver analyze POSITION...`: what the theory says about a position (Sicherman, "Theory and
Practice of Sylver Coinage", Integers 2002)."""

from __future__ import annotations

import re
from typing import Annotated, Any

import typer

from sylver.cli.common import app, console, fail, position_from_args, print_json

_NUMBER_LIKE = re.compile(r"^[-+]?[0-9.,{}\[\]() ]*$")


def _shown(values: list[int] | None, count: int | None = None, width: int = 40) -> str:
    if values is None:
        return "—" if count is None else f"{count:,} (too many to list)"
    if len(values) <= width:
        return ", ".join(map(str, values)) or "none"
    head = ", ".join(map(str, values[: width // 2]))
    tail = ", ".join(map(str, values[-5:]))
    return f"{head}, … ({len(values) - width // 2 - 5:,} more) …, {tail}"


def _rows(r: dict[str, Any]) -> list[tuple[str, str]]:
    rows = [("position", r["braces"]), ("g (gcd)", str(r["gcd"]))]
    if r["frobenius_number"] is not None and r["frobenius_number"] >= 0:
        rows.append(("t (largest legal move)", f"{r['frobenius_number']:,}"))
    if r["tbar"] is not None and r["gcd"] != 1:
        rows.append(("t̄ = g·t(S ÷ g)", f"{r['tbar']:,}"))
    if r["genus"] is not None:
        rows.append(("legal moves (genus)", f"{r['genus']:,}"))
    rows.append(("legal moves", r["legal_moves_description"] if r["legal_moves"] is None else _shown(r["legal_moves"])))
    if r["gcd"] == 1 and r["multiplicity"] > 1:
        rows.append(("multiplicity / Apéry set size", f"{r['multiplicity']:,}"))
    if r["end_count"] is not None:
        rows.append(("ends", _shown(r["ends"], r["end_count"])))
    if r["ender"] is not None:
        label = {"quiet": "quiet ender", "unquiet": "unquiet ender", "none": "non-ender"}[r["ender"]]
        anti = "strong" if r["strong_antisymmetry"] else "weak only" if r["weak_antisymmetry"] else "fails"
        rows.append(("ender (sec. 1)", f"{label}; antisymmetry (sec. 3): {anti}"))
    if r["enclosure"] is not None:
        name = "E(S)" if r["gcd"] == 1 else "Ē(S)"
        enc = r["enclosure"]
        text = "{" + ",".join(map(str, enc)) + "}" if len(enc) <= 40 else "{" + _shown(enc) + "}"
        rows.append((f"enclosure {name} (sec. 3)", text))
    if r["prime_multiple"] is not None:
        text = r["prime_multiple"]
        if r["short_bound"] is not None:
            text += f": no winning move prime to g above {r['short_bound']:,} (Quiet End Theorem)"
        rows.append(("prime multiple (sec. 1)", text))
    rb = r["roberts"]
    if rb is not None:
        rows.append((
            "Roberts (sec. 4)",
            f"case {rb['case']}: a0={rb['a0']}, d={rb['d']}, s={rb['s']}, t={rb['frobenius_number']:,}, {rb['ender']}",
        ))
    kr = r["known_result"]
    if kr is not None:
        wins = f" {kr['winning_moves']}{'' if kr['complete'] else ' (not all)'}" if kr["winning_moves"] else ""
        rows.append(("published", f"{kr['outcome']}{wins} — {kr['citation']}"))
    return rows


def _print_report(r: dict[str, Any]) -> None:
    from rich.table import Table
    from rich.text import Text

    from sylver.theory import PAPER

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in _rows(r):
        table.add_row(key, value)
    outcome = r["outcome_by_theory"]
    style = {"N": "bold green", "P": "bold red"}.get(outcome or "", "bold yellow")
    over = r["position"] == [1]
    verdict = Text(outcome or ("game over" if over else "undecided by theory"), style=style)
    if r["winning_move"] is not None:
        verdict.append(f" (winning move {r['winning_move']})", style="green")
    t = r["frobenius_number"]
    if r["legal_moves"] is not None and t is not None and 2 < t <= 60:
        legal = set(r["legal_moves"])
        table.add_row("legal below t (sec. 3)", " ".join(str(n) for n in range(1, t) if n in legal))
        table.add_row("illegal below t", " ".join(str(n) for n in range(1, t) if n not in legal))
    table.add_row("outcome", verdict)
    table.add_row("why", r["reason"])
    engine = r.get("engine")
    if engine is not None:
        wins = f" [{', '.join(map(str, engine['winning_moves']))}]" if engine["winning_moves"] else ""
        more = "" if engine["complete"] else " (not all)" if engine["winning_moves"] else ""
        table.add_row("engine (sylver solve)", f"{engine['outcome']}{wins}{more}: {engine['reason']}")
    for note in r["notes"]:
        table.add_row("note", Text(note, style="dim"))
    table.add_row("sec. N", Text(f"the sections of {PAPER}", style="dim"))
    console.print(table)


@app.command(context_settings={"ignore_unknown_options": True})
def analyze(
    position: Annotated[
        list[str] | None,
        typer.Argument(help='The named numbers: separate integers (4 5) or one string ("{4,5}", "4,5").'),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print one JSON object instead of a table.")
    ] = False,
    limit: Annotated[
        str,
        typer.Option(
            "--limit", metavar="N", help="List legal moves, ends and enclosure moves only up to N of them."
        ),
    ] = "10000",
) -> None:
    """Analyse a position with the theory of the game (t, ends, enders, enclosure, outcome).

    Prints t and t̄, the genus and legal moves, the ends, the ender kind and antisymmetry, the enclosure, short/long, Roberts's classification, the paper's published result, and the outcome where theorems alone decide it. POSITION is separate integers (4 5) or one string ("{4,5}").

    The theory and the sections cited ("sec. N") are those of G. Sicherman, "Theory and Practice of Sylver Coinage", Integers 2002.
    """
    args = position or []
    for arg in args:
        if arg.startswith("-") and not _NUMBER_LIKE.match(arg):
            fail(f"no such option: {arg} (see `sylver analyze --help`)")
    if not re.fullmatch(r"[0-9]{1,12}", limit.strip()):
        fail(f"--limit {limit!r} is not a non-negative integer")
    from sylver import theory

    p = position_from_args(args)
    r = theory.report(p, move_list_limit=int(limit))
    if p.gcd > 1:
        from sylver.solver.gcd import answer_within

        r["engine"] = answer_within(p)
    if json_output:
        print_json(r)
    else:
        _print_report(r)
