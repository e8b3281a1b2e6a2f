"""Working a campaign: choose the next attempts, run them on an Executor (local processes or a Dask
cluster), record what they establish, and decide nodes from their children.

The choice (:meth:`Campaign.frontier`): among the open nodes that still matter (reached from the
root through open nodes only, each with an outcome that would help decide its parent,
:func:`sylver.campaign.tree.helps`: a long node that helps only by being P, such as a candidate
reply to a long obligation, is attempted but its children, which can only prove it N, are not),
those on the lines to try first (``--try``: the end of each line and
what it rests on) come first (with ``--only``, they alone are attempted), then the cheapest: least budget, then least weight (genus of S ÷ g),
then nearest the root.  A node's budget starts at ``first_budget`` seconds and grows ``growth``
times with each attempt that does not decide it, so that a hard node does not hold up easy ones and
hours go where the easy work has run out.  A node with g > 1 that one attempt did not decide is
expanded into its children (:mod:`sylver.campaign.tree`); a short node is then decided by them, a
long or composite one by a child that is P (or, long, by a direct solve at a larger budget).

Every result goes to the ledger, to the results store (with its certificate) and to a certificate
file before the next choice: a campaign killed at any moment loses only its running attempts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sylver.campaign import tree
from sylver.campaign.attempt import TOKEN, Attempt, Task, hard_limit, init_worker, run, unpack
from sylver.campaign.ledger import Ledger, Node
from sylver.campaign.proof import compose
from sylver.position import Outcome, Position
from sylver.store.results import Store, StoreConflictError

FIRST_BUDGET = 2.0
"""Seconds of a node's first attempt."""
GROWTH = 4.0
"""A node's budget after an attempt that did not decide it: this many times the last."""
CERTIFY_FACTOR = 3.0
"""The budget of an attempt at the certificate of a node that a solve decided: this many times the
seconds of that solve (the attempt solves again, for the tables, then proves: about twice the solve)."""
CERTIFY_WEIGHT = 4.0
"""An attempt at a certificate is chosen as if its budget were this many times larger: deciding
nodes comes first, proving the decisions follows."""
EXPAND_AFTER = 60.0
"""A node below the root is expanded once an attempt of this many seconds did not decide it: one
solve decides a position with far less work than attempts at its children (its tables serve all of
them), so the tree is only split where single solves have become long.  The root is expanded after
its first attempt: its obligations are the ledger a researcher reads."""


@dataclass(frozen=True, kw_only=True)
class Options:
    """How a campaign works (the options of ``sylver campaign``)."""

    jobs: int
    """Attempts running at once (local processes, or tasks on the cluster)."""
    memory: int
    """Bytes each attempt may use."""
    cluster: str | None = None
    """A Dask scheduler's address (None: local processes)."""
    first_budget: float = FIRST_BUDGET
    first_states: int | None = None
    """The states a node's first attempt may examine besides its seconds (None: no such limit);
    later attempts may examine as many more as their budget is larger (:meth:`Campaign.states`).
    Unlike seconds, states stop an attempt at the same point on any machine: a test that needs an
    attempt not to decide says so with them."""
    growth: float = GROWTH
    expand_after: float = EXPAND_AFTER
    """A node below the root is expanded once an attempt with this budget (seconds) failed."""
    time_limit: float | None = None
    """Stop after this many seconds (the running attempts are stopped, their nodes stay open)."""
    max_attempts: int | None = None
    """Stop after this many attempts have finished."""
    only: tuple[tuple[int, ...], ...] = ()
    """Lines of moves from the root (``--only``): when given, only the end of each and the nodes
    below it are attempted (the rest of the ledger waits for a later run)."""


class Campaign:
    """A campaign's work loop over its :class:`Ledger` and the results ``store``; ``report`` is
    called with a line for each event (an attempt started or finished, a node decided)."""

    def __init__(self, ledger: Ledger, store: Store, options: Options,
                 report: Callable[[str], None] | None = None) -> None:
        self.ledger = ledger
        self.store = store
        self.options = options
        self.report = report or (lambda _line: None)
        self.finished = 0
        self.token = ""
        self.wanted: dict[Position, frozenset[str]] = {}
        """The outcomes of each node in the last :meth:`frontier` that would help (:meth:`strategy`)."""
        """This run's mark in the certificate directory (:data:`~sylver.campaign.attempt.TOKEN`)."""

    # -- the tree --------------------------------------------------------------------------------
    def frontier(self, busy: set[Position]) -> list[Node]:
        """The nodes to attempt next, cheapest first (module docstring): the open nodes that still
        matter, and the decided nodes of the root's proof whose certificates are still to be built
        (their budgets count ``CERTIFY_WEIGHT`` times: deciding comes first).  With ``--only``,
        what matters to the end of each line instead of the root's: below a decided node, only
        its proof (a node decided N by its children: the winning one), so that ``--only`` on a
        decided line builds its certificates and nothing else; below an open end, what could help
        the root (:meth:`helping`: the end of 72,58,68 from {16,38} helps only by being P, and it is
        long, so its children wait)."""
        seen: dict[Position, frozenset[str]] = {}  # each node reached, and the outcomes of it that help
        items: dict[Position, tuple[float, Node]] = {}
        root = self.ledger.node(self.ledger.root)
        stack = [(self.end(line), self.helping(line), True) for line in self.options.only] \
            or [(self.ledger.root, tree.EITHER, root is not None and root.decided)]
        while stack:
            p, wanted, proof = stack.pop()  # proof: a node of a decided line's (or root's) proof
            if p in seen and wanted <= seen[p] and not proof:
                continue
            wanted = seen[p] = wanted | seen.get(p, frozenset())
            node = self.ledger.node(p)
            if node is None or node.method == "theorem" or p in busy:
                continue
            if node.decided:
                if node.certificate:
                    continue
                if node.method in ("solve", "store") or (node.method == "book" and proof):
                    items[p] = (node.budget * CERTIFY_WEIGHT, node)
                    continue
                kids = self.ledger.children(p)  # decided by its children: their certificates first
                stack.extend((c, tree.EITHER, True) for x, c in kids if node.status == "P" or x == node.winning)
                continue
            if node.status == "open" and not (node.expanded and node.kind != tree.Kind.LONG):
                items[p] = (node.budget, node)  # once expanded, only a long node's search can prove P
                self.wanted[p] = wanted
            helping = tree.helps(tree.Kind(node.kind), wanted)
            if helping:
                stack.extend((c, helping, False) for _, c in self.ledger.children(p))
        first = self.tried_first()
        order = sorted(items.values(), key=lambda item: (item[1].position not in first, item[0], item[1].weight,
                                                         item[1].depth, item[1].position.generators))
        return [n for _, n in order]

    def strategy(self, node: Node) -> str:
        """How the next attempt at ``node`` looks for its answer (:data:`~sylver.campaign.attempt.STRATEGIES`),
        in turns, so that each way gets its attempts and the results store shares their work: a
        gcd-1 node's solve decides its root moves by increasing Frobenius number of the position
        after them (the public record's order), then least first; a long node that helps only by
        being N is swept (its candidate replies leaving gcd 1, one table), by Frobenius number,
        then least first; one that could help by being P too alternates its own search (the only
        way to prove it P) with the sweep by Frobenius number."""
        if node.decided:
            return "solve"
        turn = node.attempts % 2
        kind = tree.Kind(node.kind)
        if kind is tree.Kind.GCD1:
            return ("solve-frobenius", "solve")[turn]
        if kind is tree.Kind.LONG:
            if self.wanted.get(node.position, tree.EITHER) == frozenset({"N"}):
                return ("sweep-frobenius", "sweep-ascending")[turn]
            return ("solve", "sweep-frobenius")[turn]
        return "solve"

    def helping(self, line: tuple[int, ...]) -> frozenset[str]:
        """The outcomes of the end of a line of moves from the root that would help decide the root
        (:func:`sylver.campaign.tree.helps` along the line): what ``--only LINE`` works towards."""
        wanted, p = tree.EITHER, self.ledger.root
        for x in line:
            node = self.ledger.node(p)
            wanted = tree.helps(tree.Kind(node.kind) if node is not None else tree.kind(p), wanted)
            p = p.play(x)
        return wanted

    def line_moves(self) -> dict[Position, set[int]]:
        """The positions inside the lines to try first (the root included) and, for each, the moves
        of the lines that go on from it."""
        steps: dict[Position, set[int]] = {}
        for line in self.ledger.lines:
            p = self.ledger.root
            for x in line:
                steps.setdefault(p, set()).add(x)
                p = p.play(x)
        return steps

    def tried_first(self) -> set[Position]:
        """The nodes worked on before any other: the last position of each line to try first and
        every node below it in the ledger (what its value rests on)."""
        return self.below(self.ledger.lines)

    def end(self, line: tuple[int, ...]) -> Position:
        """The position a line of moves from the root leads to."""
        p = self.ledger.root
        for x in line:
            p = p.play(x)
        return p

    def below(self, lines: list[tuple[int, ...]] | tuple[tuple[int, ...], ...]) -> set[Position]:
        """The last position of each of ``lines`` (moves from the root) and every node below it."""
        stack = [self.end(line) for line in lines]
        first: set[Position] = set()
        while stack:
            p = stack.pop()
            if p not in first:
                first.add(p)
                stack.extend(c for _, c in self.ledger.children(p))
        return first

    def follow_lines(self) -> None:
        """Expand the open nodes inside the lines to try first (the root included) at once, so that
        the end of each line is a node."""
        for p in self.line_moves():
            node = self.ledger.node(p)
            if node is not None and not node.decided and not node.expanded and node.kind != tree.Kind.GCD1:
                self.expand(node)

    def expand(self, node: Node) -> None:
        """Record the children of a node with g > 1 (with the moves of the lines to try first that go
        on from it, whatever the bound of its candidates); a child the store knows (with a
        certificate) is decided at once."""
        children, decided = [], []
        extra = self.line_moves().get(node.position, set())
        for x in sorted(set(tree.moves(node.position)) | extra):
            child = node.position.play(x)
            if tree.theorem_n(child):
                decided.append((x, child))
            else:
                children.append((x, child, tree.kind(child).value, tree.weight(child)))
        self.ledger.expand(node.position, children, self.options.first_budget, decided)
        self.report(f"expanded {node.position.braces()}: {len(children)} children to decide, "
                    f"{len(decided)} N by a theorem")
        for _, child, _, _ in children:
            if not self.from_book(child):
                self.from_store(child)

    def from_book(self, position: Position) -> bool:
        """Decide the open node ``position`` from the results book (:mod:`sylver.store.book`), with
        no search and no certificate file (method ``book``: its certificate is built only when the
        proof of a decided line or of the root needs it, :meth:`frontier`); whether it was."""
        node = self.ledger.node(position)
        entry = self.store.book_entry(position)
        if node is None or node.decided or entry is None:
            return False
        winning = min(entry.winning) if entry.winning else None
        self.ledger.decide(position, status=entry.outcome.value, winning=winning, method="book", states=entry.states,
                           seconds=entry.seconds, peak_bytes=0, certificate="", note=f"from the results book: "
                           f"{entry.evidence()}", next_budget=self.certify_budget(entry.seconds))
        self.report(f"decided {position.braces()}: {entry.outcome.value}" + (f", {winning} wins" if winning else "")
                    + " (from the results book)")
        return True

    def from_book_tree(self) -> None:
        """Start from what the results book decides: the root, if it has it; else the root expanded
        at once, and, below it, each open short node with a child the book decides (its obligations
        listed); a long or composite node with a child the book has P gets that child alone, which
        decides it N.  So the nodes the book decides are decided without a search."""
        book = self.store.book
        if book is None:
            return
        root = self.ledger.root
        stack, seen = [root], set()
        while stack:
            p = stack.pop()
            if p in seen:
                continue
            seen.add(p)
            node = self.ledger.node(p)
            if node is None or node.decided or node.kind == tree.Kind.GCD1 or self.from_book(p):
                continue
            children = book.children(p)
            if p == root or tree.Kind(node.kind).finite:  # its obligations: each may be decided
                if children and not node.expanded:
                    self.expand(node)
                stack.extend(c for _, c in self.ledger.children(p))
                continue
            won = [(x, e.position) for x, e in children if e.outcome is Outcome.P]
            if won and not node.expanded:  # a long or composite node: N by a P child, its only child here
                x, child = won[0]
                self.ledger.expand(p, [(x, child, tree.kind(child).value, tree.weight(child))],
                                   self.options.first_budget, [])
                self.from_book(child)

    def from_store(self, position: Position) -> bool:
        """Decide ``position`` from the store when it holds a complete result and its certificate (or,
        decided already without a certificate, take the store's when it proves the same).  The
        certificate is copied (or linked) to the node's file when it proves the record's outcome
        (:func:`sylver.proof.stored.copy_stored_outcome`)."""
        from sylver.proof.stored import copy_stored_outcome

        node = self.ledger.node(position)
        if node is None or (node.decided and node.certificate):
            return False
        rec = self.store.get(position)
        if rec is None or (node.decided and rec.outcome.value != node.status):
            return False
        path = self.ledger.certificate_path(position)
        proved = copy_stored_outcome(self.store, position, rec.outcome, path)
        if proved is None:
            return False
        if node.decided:
            self.certified(position, path, stored=True)
            return True
        winning = proved[0] if proved else None
        self.ledger.decide(position, status=rec.outcome.value, winning=winning, method="store", states=rec.states,
                           seconds=rec.seconds, peak_bytes=0, certificate=self.relative(path),
                           note="from the results store")
        self.report(f"decided {position.braces()}: {rec.outcome.value}"
                    + (f", {winning} wins" if winning else "") + " (from the results store)")
        return True

    def settle(self) -> None:
        """Decide the open nodes that their children decide, and compose the certificates of nodes
        so decided once their children's are written, until nothing changes."""
        changed = True
        while changed:
            changed = False
            for node in self.ledger.nodes():
                if not node.expanded or node.method == "theorem" or (node.decided and node.method != "children") \
                        or (node.decided and node.certificate):
                    continue
                kids = [(x, k) for x, c in self.ledger.children(node.position)
                        if (k := self.ledger.node(c)) is not None]
                if node.decided:
                    changed |= self.compose(node, kids)
                    continue
                won = [(x, k) for x, k in kids if k.status == "P"]
                if won:
                    x, child = won[0]
                    self.record(node, "N", x, states=child.states, seconds=child.seconds,
                                note=f"{x} leaves {child.position.braces()}, which is P")
                elif tree.Kind(node.kind).finite and all(k.status == "N" for _, k in kids):
                    self.record(node, "P", None, states=sum(k.states for _, k in kids),
                                seconds=sum(k.seconds for _, k in kids),
                                note=f"each of its {len(kids)} obligations is N")
                else:
                    continue
                changed = True

    def record(self, node: Node, outcome: str, winning: int | None, *, states: int, seconds: float,
               note: str) -> None:
        """A node decided by its children: store, ledger (its certificate: :meth:`compose`)."""
        self.store.put_result(node.position, Outcome(outcome), [winning] if winning else [], outcome == "P",
                              node.position.frobenius_number if node.position.gcd == 1 else 0)
        self.ledger.decide(node.position, status=outcome, winning=winning, method="children", states=states,
                           seconds=seconds, peak_bytes=0, certificate="", note=note)
        self.report(f"decided {node.position.braces()}: {outcome}" + (f", {winning} wins" if winning else "")
                    + f" ({note})")

    def compose(self, node: Node, kids: list[tuple[int, Node]]) -> bool:
        """Write the certificate of a node decided by its children, once theirs are all written
        (:func:`sylver.campaign.proof.compose`: their files streamed into its file); whether it
        was written."""
        files = []
        if node.status == "N":
            child = next(k for x, k in kids if x == node.winning)
            if not child.certificate:
                return False
            files.append(self.ledger.directory / child.certificate)
            winning, replies = [node.winning], None
        else:
            by_move = dict(kids)
            replies = []
            for k in (by_move[x] for x in tree.moves(node.position)):  # the checker's order
                if k.method == "theorem":
                    replies.append(0)
                    continue
                if not k.certificate or k.winning is None:
                    return False
                files.append(self.ledger.directory / k.certificate)
                replies.append(k.winning)
            winning = []
        path = self.ledger.certificate_path(node.position)
        compose(path, node.position, files, outcome=node.status, winning=winning,  # type: ignore[arg-type]
                root_replies=replies)
        self.certified(node.position, path)
        return True

    def certified(self, position: Position, path: Path, *, stored: bool = False,
                  attempt: dict[str, Any] | None = None) -> None:
        """A certificate written to ``path`` (its node's file): to the store (unless ``stored``
        there already) and to the ledger (``attempt``: the attempt at the certificate that built it,
        logged)."""
        if not stored:
            self.store.put_certificate(position, path)
        self.ledger.certified(position, self.relative(path), attempt=attempt)
        self.report(f"certificate of {position.braces()} written: {self.relative(path)}")

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.ledger.directory))

    def received(self, node: Node, result: Attempt) -> Path | None:
        """The node's certificate file from an attempt: written by the worker, or sent compressed
        (a worker on another machine) and written here; None when the attempt brought none."""
        path = self.ledger.certificate_path(node.position)
        if result.compressed is not None:
            unpack(result.compressed, path)
            return path
        if result.certificate is not None and Path(result.certificate) == path.resolve() and path.is_file() \
                and path.stat().st_size == result.certificate_size:
            return path
        return None

    def mark(self) -> str:
        """Start a run: remove what a killed run left half written that no build resumes from (the
        gcd-1 nodes of a g > 1 proof, ``*.nodes.part``) in the certificate directory, and put this
        run's mark there (:data:`~sylver.campaign.attempt.TOKEN`).  A gcd-1 certificate's ``FILE.part``
        stays: the next build of its answer resumes from it (``prove.stream_certificate``), and any
        other build replaces it."""
        directory = self.ledger.certificate_path(self.ledger.root).parent
        directory.mkdir(parents=True, exist_ok=True)
        for part in directory.glob("*.nodes.part"):
            part.unlink(missing_ok=True)
        token = uuid.uuid4().hex
        (directory / TOKEN).write_text(token)
        return token

    # -- attempts --------------------------------------------------------------------------------
    def absorb(self, node: Node, result: Attempt, started: float) -> None:
        """Record what an attempt at ``node`` established (a decision, a certificate, or neither)."""
        p = node.position
        grown = node.budget * self.options.growth
        if node.decided:  # an attempt at its certificate
            if result.outcome is not None and result.outcome != node.status:
                raise StoreConflictError(f"conflicting results for {p.braces()}: the ledger holds {node.status}, "
                                         f"a new search found {result.outcome}")
            path = self.received(node, result)
            if path is not None:
                self.certified(p, path, attempt={"budget": node.budget, "started": started, "seconds": result.seconds,
                                                 "worker": result.worker, "note": result.note})
            else:  # (a proof the builder could not find within the time may come with more)
                self.ledger.certify_failed(p, budget=node.budget, started=started, seconds=result.seconds,
                                           worker=result.worker, note=result.note, next_budget=grown)
                self.report(f"no certificate of {p.braces()} after {result.seconds:.1f} s ({result.note[:120]}); "
                            f"next budget {grown:g} s")
            return
        if result.outcome is None:
            self.ledger.record_attempt(p, budget=node.budget, started=started, seconds=result.seconds,
                                       result="open", states=result.states, peak_bytes=result.peak_bytes,
                                       worker=result.worker, note=result.note, next_budget=grown)
            self.report(f"open {p.braces()} after {result.seconds:.1f} s ({result.note[:120]}); "
                        f"next budget {grown:g} s")
            current = self.ledger.node(p)
            due = node.depth == 0 or node.budget >= self.options.expand_after
            if current is not None and node.kind != tree.Kind.GCD1 and due and not current.expanded \
                    and not current.decided:
                self.expand(current)
            return
        self.store.put_result(p, Outcome(result.outcome), [result.winning] if result.winning else [],
                              result.outcome == "P", p.frobenius_number if p.gcd == 1 else 0,
                              seconds=result.solve_seconds)
        self.ledger.decide(p, status=result.outcome, winning=result.winning, method="solve", states=result.states,
                           seconds=result.seconds, peak_bytes=result.peak_bytes, certificate="", note=result.note,
                           attempt={"budget": node.budget, "started": started, "worker": result.worker},
                           next_budget=self.certify_budget(result.solve_seconds, result.seconds - result.solve_seconds))
        self.report(f"decided {p.braces()}: {result.outcome}"
                    + (f", {result.winning} wins" if result.winning else "")
                    + f" ({result.seconds:.1f} s, {result.states:,} states)")
        path = self.received(node, result)
        if path is not None:
            self.certified(p, path)

    def states(self, node: Node) -> int | None:
        """The states an attempt at ``node`` may examine: ``first_states`` times its budget's share
        of the first (None: no limit; nor for an attempt at a certificate alone)."""
        first = self.options.first_states
        if first is None or node.decided:
            return None
        return max(1, round(first * node.budget / self.options.first_budget))

    def certify_budget(self, solve_seconds: float, tried: float = 0.0) -> float:
        """The budget of an attempt at the certificate of a node that a solve of ``solve_seconds``
        decided (:data:`CERTIFY_FACTOR`), after ``tried`` seconds spent on the certificate in vain
        (at least twice that: a solve answered from the store takes no time, its proof does)."""
        return max(self.options.first_budget, round(CERTIFY_FACTOR * solve_seconds, 1), round(2 * tried, 1))

    def failed(self, node: Node, started: float, why: str) -> None:
        """An attempt whose worker died: the node is open again, with the same budget; or, when it
        ran past its :func:`~sylver.campaign.attempt.hard_limit` (its worker ended itself), with a
        larger one.  When its solve had decided the node (it records its outcome in the store as
        soon as it has one, before the certificate is built), the node is decided without a
        certificate (:meth:`decided_before`), which the next attempt builds."""
        self.finished += 1
        seconds = time.time() - started
        budget = node.budget
        if seconds >= hard_limit(node.budget):
            why = f"it ran past {hard_limit(node.budget):g} s on a budget of {node.budget:g} s and was stopped"
            budget *= self.options.growth
        if not node.decided and self.decided_before(node, started, seconds, why):
            return
        if node.decided:
            self.ledger.certify_failed(node.position, budget=node.budget, started=started, seconds=seconds,
                                       worker="", note=why, next_budget=budget)
        else:
            self.ledger.record_attempt(node.position, budget=node.budget, started=started, seconds=seconds,
                                       result="failed", states=0, peak_bytes=0, worker="", note=why,
                                       next_budget=budget)
        self.report(f"attempt at {node.position.braces()} failed: {why}; it will be tried again")

    def decided_before(self, node: Node, started: float, seconds: float, why: str) -> bool:
        """Decide ``node`` without a certificate when the results store holds its outcome (its attempt's
        solve recorded it before the attempt was stopped building the certificate); the next attempt
        builds the certificate alone, with a budget sized from the solve's seconds (the store's, else
        the attempt's: at most that).  Whether it was."""
        rec = self.store.get(node.position)
        if rec is None or (rec.outcome is Outcome.N and not rec.winning_moves):
            return False
        winning = min(rec.winning_moves) if rec.winning_moves else None
        solve_seconds = rec.seconds if 0 < rec.seconds <= seconds else seconds
        note = f"decided by its solve ({solve_seconds:.1f} s); the attempt then failed: {why}"
        self.ledger.decide(node.position, status=rec.outcome.value, winning=winning, method="solve", states=rec.states,
                           seconds=solve_seconds, peak_bytes=0, certificate="", note=note,
                           attempt={"budget": node.budget, "started": started, "worker": ""},
                           next_budget=self.certify_budget(solve_seconds))
        self.report(f"decided {node.position.braces()}: {rec.outcome.value}" + (f", {winning} wins" if winning else "")
                    + f" (its solve, {solve_seconds:.1f} s; the attempt failed before its certificate: {why})")
        return True

    def work(self) -> dict[str, Any]:
        """Work until the root is decided, the time limit or the attempt cap is reached, or nothing
        is left to try; return the ledger's :meth:`~Ledger.summary`."""
        o = self.options
        deadline = None if o.time_limit is None else time.monotonic() + o.time_limit
        self.token = self.mark()
        root = self.ledger.node(self.ledger.root)
        if root is not None and not root.decided:
            self.from_store(root.position)
        self.from_book_tree()
        self.settle()
        with ExitStack() as stack:
            executor = stack.enter_context(_executor(o))
            running: dict[Future[Attempt], tuple[Node, float]] = {}
            try:
                while True:
                    self.follow_lines()
                    self.settle()
                    if self.stop(deadline):
                        break
                    busy = {n.position for n, _ in running.values()}
                    stored = False
                    for node in self.frontier(busy)[: max(0, _slots(executor, o) - len(running))]:
                        if self.from_store(node.position):  # recorded since, by another campaign or solve
                            stored = True
                            continue
                        memory = o.memory if o.cluster else o.memory // max(1, o.jobs)
                        task = Task(position=str(node.position), seconds=node.budget, states=self.states(node),
                                    strategy=self.strategy(node),
                                    memory=memory, store=str(self.store.path), token=self.token, certify=node.decided,
                                    certificate=str(self.ledger.certificate_path(node.position).resolve()))
                        self.ledger.set_working(node.position)
                        running[executor.submit(run, task)] = (node, time.time())
                        self.report(f"attempt {node.position.braces()} ({node.budget:g} s)")
                    if stored:
                        continue
                    if not running:
                        break
                    timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
                    done, _ = wait(running, timeout=timeout, return_when=FIRST_COMPLETED)
                    broken = False
                    for fut in done:
                        node, started = running.pop(fut)
                        try:
                            result = fut.result()
                        except BrokenProcessPool:
                            broken = True
                            self.failed(node, started, "its worker process died")
                            continue
                        except Exception as exc:  # noqa: BLE001 - the task was lost (Dask: KilledWorker)
                            self.failed(node, started, f"{type(exc).__name__}: {exc}")
                            continue
                        self.absorb(node, result, started)  # (a contradiction raises: never passed over)
                        self.finished += 1
                    if broken:  # a local pool with a dead worker cannot be used again: a new one
                        for node, started in running.values():
                            self.failed(node, started, "its pool broke")
                        running.clear()
                        stack.close()
                        executor = stack.enter_context(_executor(o))
            finally:
                if running:
                    from sylver.executors import stop_workers

                    stop_workers(executor, list(running))
                    for node, started in running.values():
                        self.failed(node, started, "the campaign stopped")
                self.ledger.reopen()  # (a node marked working whose attempt was not yet submitted: Ctrl-C)
        self.settle()
        return self.ledger.summary()

    def stop(self, deadline: float | None) -> bool:
        root = self.ledger.node(self.ledger.root)
        if root is None or (root.decided and root.certificate):
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return True
        return self.options.max_attempts is not None and self.finished >= self.options.max_attempts


def _executor(o: Options) -> Any:
    from sylver.executors import make_executor

    return make_executor(o.jobs, o.cluster, initializer=init_worker)


def _slots(executor: Executor, o: Options) -> int:
    """Attempts to keep running: ``jobs``; on a cluster, at least one per worker thread."""
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(o.jobs, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - the scheduler is gone: what was asked
            return o.jobs
    return o.jobs


__all__ = ["FIRST_BUDGET", "GROWTH", "Campaign", "Options"]
