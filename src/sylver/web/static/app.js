/* sylver web page: plain JavaScript, no build step.  Every rule and every computation lives on the
   server (the sylver library); this file only draws what the JSON API answers and sends clicks. */
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
};
const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));
const braces = (xs) => "{" + xs.join(",") + "}";
const plural = (n, word, many) => `${fmt(n)} ${n === 1 ? word : (many || word + "s")}`;
const narrow = () => window.matchMedia("(max-width: 900px)").matches;

/* A text of the library (a theorem's reason, a solver's message) as prose: ≥ and ≤ for >= and <=,
   lists without Python's brackets, and numbers of five digits or more with thousands separators
   (not inside braces: a position keeps its commas). */
function prose(text) {
  if (!text) return "";
  let depth = 0;
  return String(text)
    .replace(/ >= /g, " ≥ ").replace(/ <= /g, " ≤ ").replace(/ != /g, " ≠ ")
    .replace(/\[(\d+(?:, \d+)*)\]/g, "$1")
    .replace(/[{}]|\d+/g, (m) => {
      if (m === "{") { depth++; return m; }
      if (m === "}") { depth = Math.max(0, depth - 1); return m; }
      return depth || m.length < 5 ? m : m.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    });
}

/* A number typed or read from an address, shown briefly: 123,456 or "a number of 41 digits". */
const fmtDigits = (digits) => (digits.length > 15 ? `a number of ${fmt(digits.length)} digits` : fmt(Number(digits)));

/* t̄ drawn as a t with a bar over it (the combining macron sits beside the t in many fonts). */
const tbar = () => el("span", { class: "tbar", "aria-label": "t bar", text: "t" });

/* JSON with integers of any size: the Wythoff API answers piles with thousands of digits, which
   JSON.parse would round to doubles.  Integer literals of 16 digits or more (outside strings) are
   read as strings; the Wythoff code turns them into BigInt. */
function parseJSON(text) {
  if (!/\d{16}/.test(text)) return JSON.parse(text);
  const parts = [];
  let last = 0, inString = false;
  for (let k = 0; k < text.length; k++) {
    const c = text[k];
    if (inString) {
      if (c === "\\") k++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') { inString = true; continue; }
    if (c === "-" || (c >= "0" && c <= "9")) {
      let e = k + 1;
      while (e < text.length && "0123456789.eE+-".includes(text[e])) e++;
      const token = text.slice(k, e);
      if (/^-?\d{16,}$/.test(token)) { parts.push(text.slice(last, k), '"', token, '"'); last = e; }
      k = e - 1;
    }
  }
  parts.push(text.slice(last));
  return JSON.parse(parts.join(""));
}

/* JSON.stringify that writes BigInt values as JSON integers. */
function toJSON(value) {
  return JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `\u2060${v}` : v)).replace(/"\u2060(-?\d+)"/g, "$1");
}

class ApiError extends Error {
  constructor(status, body) {
    const err = (body && body.error) || {};
    super(err.message || `HTTP ${status}`);
    this.status = status;
    this.code = err.code || "error";
    this.body = err;
  }
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = toJSON(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, { error: { code: "network", message: "cannot reach the server" } });
  }
  let data = null;
  try { data = parseJSON(await res.text()); } catch (e) { data = null; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

const INFO = { bots: [], features: {}, limits: {}, paper: "" };
const cite = (sec) => `${INFO.paper}, sec. ${sec}`;

/* ------------------------------------------------------------------------------------ tabs, URLs */
/* The address names the view and, for Sylver Coinage, the game: #sylver/4,5/11,7 is the start {4,5}
   after the moves 11 and 7.  Each move (and each step through the move list) is a history entry,
   so Back and Forward walk through the game and a copied link reproduces the board. */
const VIEW_SHOWN = {};
const ROUTES = {};
let tabs = [];

function showView(name, focus) {
  const tab = tabs.find((t) => t.dataset.view === name && !t.hidden) || tabs[0];
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute("aria-selected", on ? "true" : "false");
    t.tabIndex = on ? 0 : -1;
    $("#" + t.getAttribute("aria-controls")).hidden = !on;
  }
  if (focus) tab.focus();
  if (tab.parentElement.scrollWidth > tab.parentElement.clientWidth) tab.scrollIntoView({ block: "nearest", inline: "nearest" });  // a phone's tabs scroll sideways
  const hook = VIEW_SHOWN[tab.dataset.view];
  if (hook) hook();
  return tab.dataset.view;
}

async function route(focus = false) {
  const parts = location.hash.replace(/^#/, "").split("/");
  if (parts[0] === "learn" && parts[1]) {  // #learn/NAME: a lesson on the Sylver Coinage board
    showView("sylver", focus);
    await lnRoute(decodeURIComponent(parts[1]));
    return;
  }
  if (sc.lesson && !(parts[0] === "sylver" && decodeURIComponent(parts[1] || "") === sc.lesson.start.join(","))) lnClose();
  if (parts[0] && !tabs.some((t) => t.dataset.view === parts[0] && !t.hidden)) {  // #nosuchview
    const views = tabs.filter((t) => !t.hidden).map((t) => "#" + t.dataset.view).join(", ");
    showView("sylver", focus);
    await scBadAddress(`The address ${decodeURIComponent(location.hash)} names no view of this page (${views}): the board shows the game you had.`);
    return;
  }
  const view = showView(parts[0] || "sylver", focus);
  const handler = ROUTES[view];
  if (handler) await handler(parts.slice(1));
}

function setupTabs() {
  tabs = [...document.querySelectorAll('[role="tab"]')];
  const go = (tab, focus) => {
    const view = tab.dataset.view;
    const url = view === "sylver" && sc.state ? scUrl() : view === "campaign" ? cpUrl()
      : view === "wythoff" && wy.facts ? wyUrl() : view === "results" && rs.game ? rsUrl() : "#" + view;
    if (location.hash !== url) history.pushState(null, "", url);
    route(focus);
  };
  tabs.forEach((t) => {
    t.addEventListener("click", () => go(t, false));
    t.addEventListener("keydown", (ev) => {
      const visible = tabs.filter((x) => !x.hidden);
      const i = visible.indexOf(t);
      if (ev.key === "ArrowRight") go(visible[(i + 1) % visible.length], true);
      else if (ev.key === "ArrowLeft") go(visible[(i - 1 + visible.length) % visible.length], true);
      else return;
      ev.preventDefault();
    });
  });
  window.addEventListener("popstate", () => route());
  document.addEventListener("keydown", pageKeys);
  for (const b of document.querySelectorAll("[data-copy-link]")) b.addEventListener("click", () => copyLink(b));
}

/* ←/→/Home/End anywhere on the page step through the game shown (or the replayed game), as on
   lichess; not while typing, in the tabs, or in the grid of numbers (its arrow keys move there). */
function pageKeys(ev) {
  const step = { ArrowLeft: -1, ArrowRight: 1, Home: "first", End: "last", ArrowUp: "up", ArrowDown: "down" }[ev.key];
  if (step === undefined || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
  const t = ev.target;
  if (t.closest && t.closest('input, textarea, select, [contenteditable], [role="tablist"], #sc-grid')) return;
  const to = (ply, last) => (step === "first" ? 0 : step === "last" ? last : ply + step);
  if (step === "up" || step === "down") {  // switch variations where there are some; else the page scrolls
    if ($("#view-sylver").hidden || !sc.state || !scSwitch(step === "up" ? -1 : 1)) return;
  } else if (!$("#view-sylver").hidden && sc.state) {
    if (sc.busy) return;
    scGo(to(sc.ply, sc.line.length));
  } else if (!$("#view-results").hidden && rs.game) {
    rsStep(to(rs.ply, rs.game.steps));
  } else {
    return;
  }
  ev.preventDefault();
}

/* "Copy link": the address of the view shown (a game, a replayed move) to the clipboard. */
async function copyLink(button) {
  try {
    await navigator.clipboard.writeText(location.href);
    button.textContent = "Link copied";
  } catch (e) {
    button.textContent = "Not copied: the address bar holds the link";
  }
  setTimeout(() => { button.textContent = "Copy link"; }, 2500);
}

/* Scroll a list (not the page) so that one of its items shows. */
function scrollWithin(list, item) {
  if (!item) return;
  const top = item.offsetTop - list.offsetTop;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + item.offsetHeight - list.clientHeight;
}

function verdict(outcome, p, n) {
  return el("span", { class: "verdict" },
    el("span", { class: "badge " + outcome, text: outcome }),
    el("span", { class: "verdict-text", text: outcome === "N" ? (n || "the player to move wins") : (p || "the player to move loses") }));
}

function fact(dl, name, value, title) {
  dl.append(el("dt", { title }, name), el("dd", {}, value));
}

/* The grid of numbers 1, 2, 3, …: legal ones green, illegal grey, named ones dark, t outlined.  Cells
   grow with the number of digits, so 11-digit numbers stay inside their cells on any screen. */
function gridCells(grid, { lo, hi, legalAt, named, t, winning, ruledOut, ends, buttons, more }) {
  const digits = String(hi).length;
  grid.style.setProperty("--digits", String(Math.max(digits, 2)));
  grid.classList.toggle("long", digits > 6);
  const frag = document.createDocumentFragment();
  for (let n = lo; n <= hi; n++) {
    const legal = legalAt(n);
    const cls = ["cell", legal ? "legal" : "illegal"];
    const notes = [legal ? "legal" : "illegal"];
    if (named.has(n)) { cls.push("named"); notes.push("named"); }
    if (t !== null && n === t) { cls.push("t"); notes.push("t, the largest legal move"); }
    // with "Show who wins" unticked the labels keep the secret too (a screen reader reads them)
    const tell = !document.body.classList.contains("no-spoilers");
    if (winning && winning.has(n)) { cls.push("win"); if (tell) notes.push("a winning move"); }
    else if (ruledOut && ruledOut.has(n)) { cls.push("lost"); if (tell) notes.push("ruled out: it loses"); }
    if (ends && ends.has(n) && n !== t) { cls.push("end"); notes.push("an end"); }
    const label = `${n}: ${notes.join(", ")}`;
    frag.append(buttons
      ? el("button", { type: "button", class: cls.join(" "), "data-n": String(n), "aria-label": label, tabindex: "-1", text: String(n) })
      : el("span", { class: cls.join(" "), "data-n": String(n), title: label, text: String(n) }));
  }
  grid.innerHTML = "";
  grid.append(frag);
  if (more) grid.append(el("span", { class: "cell illegal more", "aria-hidden": "true", text: "…" }));
  if (buttons) gridRove(grid, grid.querySelector(`[data-n="${grid.dataset.active}"]`) || grid.querySelector(".cell.legal:not(.named)") || grid.querySelector(".cell[data-n]"));
}

/* The grid is one Tab stop (a roving tabindex, as in WAI-ARIA composite widgets): the number last
   focused takes the Tab, the arrow keys move between the numbers. */
function gridRove(grid, cell) {
  if (!cell) return;
  const old = grid.querySelector('[tabindex="0"]');
  if (old && old !== cell) old.tabIndex = -1;
  cell.tabIndex = 0;
  grid.dataset.active = cell.dataset.n;
}

/* =============================================================================== Sylver Coinage */
const PAGE = 500;        // numbers per grid page when t is large
const SLICE = 1;         // seconds per solver request: the answer after each shows the progress
const sc = {
  lesson: null,    // the lesson shown above the board (#learn/NAME), or null
  puzzle: null,    // a puzzle lesson's state: {shown: its answer shown, found: the user found a winning move}
  start: [],
  root: null,      // the tree of the moves played from the start (scNode), the start itself at its root
  path: [],        // the line shown: the root, the moves to the current one and on along the main continuations
  ply: 0,          // the board shows the position after path[ply]
  get line() { return this.path.slice(1).map((x) => x.move); },  // the moves of the line shown
  state: null,
  bot: "perfect",  // "" : nobody, the user plays both sides
  humanSeat: 0,
  players: null,   // names of an imported record's players
  recordResult: null,
  lo: 1,           // first number shown in the grid
  window: null,    // {lo, hi, legal} when paging through a large range
  winning: null,   // Set of winning moves from the solver, when decided
  ruledOut: null,  // Set of moves the solver has proven to lose
  ends: null,
  asked: new Set(), // the lines whose outcomes were asked (/api/sylver/outcomes), kept in the tree's nodes
  busy: false,
  token: 0,        // guards against answers that arrive after a newer request
};
const ANALYSIS = new Map(); // position -> {theory, solve, defence}: walking back and forth is instant

/* The address of the game shown: #sylver/START/MOVES/vs=OPPONENT (vs=nobody: the user plays both
   sides; &first=bot: the bot moved first), so a shared link opens the same game against the same
   opponent. */
function scUrl() {
  const ls = sc.lesson;  // the lesson's own position has the lesson's address
  if (ls && sc.ply === 0 && braces(sc.start) === braces(ls.start) && (sc.bot || "nobody") === ls.vs && sc.humanSeat === 0) return `#learn/${ls.name}`;
  const vs = `vs=${encodeURIComponent(sc.bot || "nobody")}${sc.bot && sc.humanSeat === 1 ? "&first=bot" : ""}`;
  return `#sylver/${sc.start.join(",")}/${sc.line.slice(0, sc.ply).join(",")}/${vs}`;
}

function scSetUrl(push) {
  const url = scUrl();
  if (location.hash === url) return;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

function scSetError(msg) {
  const box = $("#sc-error");
  box.textContent = msg || "";
  box.hidden = !msg;
}

function scSetBusy(on) {
  sc.busy = on;
  for (const b of document.querySelectorAll("#sc-move-form button, #sc-new")) b.disabled = on;
  $("#sc-grid").setAttribute("aria-busy", on ? "true" : "false");
  if (!on) scControls();
}

function scBotTurn(s) {
  return !!sc.bot && !s.over && s.to_move !== sc.humanSeat;
}

function scControls() {
  const s = sc.state;
  const over = !!(s && s.over);
  $("#sc-move").disabled = over;
  $("#sc-move-form button[type=submit]").disabled = over || sc.busy;
  $("#sc-undo").disabled = sc.busy || sc.ply === 0;
  $("#sc-first").disabled = $("#sc-back").disabled = sc.busy || sc.ply === 0;
  $("#sc-fwd").disabled = $("#sc-last").disabled = sc.busy || sc.ply >= sc.line.length;
  const b = scBranch();
  $("#sc-var-prev").disabled = sc.busy || !b || b.at <= 0;
  $("#sc-var-next").disabled = sc.busy || !b || b.at >= b.moves.length - 1;
  let main = true;
  for (let x = sc.path[sc.ply]; x && x.parent; x = x.parent) main = main && x.parent.children[0] === x;
  $("#sc-promote").disabled = sc.busy || main;
  $("#sc-delete").disabled = sc.busy || sc.ply === 0;
}

/* The setup form shows the start of the game on the board, whoever chose it (a lesson, an address,
   an import); a KotH start chosen in the form stays chosen, so New game draws another. */
function scSetupShows(start) {
  const form = $("#sc-setup");
  form.elements.start.value = start.length ? "list" : "empty";
  $("#sc-start-list").value = start.join(", ");
}

function seatName(seat) {
  if (sc.players) return sc.players[seat];
  if (!sc.bot) return seat === 0 ? "First" : "Second";
  return seat === sc.humanSeat ? "You" : `${sc.bot} bot`;
}

function scSettings() {
  const form = $("#sc-setup");
  sc.bot = form.elements.bot.value;
  sc.humanSeat = form.elements.first.value === "human" ? 0 : 1;
}

async function scNewGame(ev) {
  if (ev) ev.preventDefault();
  lnClose();
  scSetError("");
  const form = $("#sc-setup");
  const kind = form.elements.start.value;
  scSettings();
  let start = [];
  try {
    if (kind === "list") start = $("#sc-start-list").value;
    else if (kind === "koth") start = (await api("GET", "/api/sylver/random-start")).start;
    const state = await api("POST", "/api/sylver/state", { start, moves: [] });
    scAdopt(state, null, null);
    if (kind === "koth") form.elements.start.value = "koth";
    scSetUrl(true);
    if (scBotTurn(state)) await scBotMove();
  } catch (e) {
    scSetError(e.message);
  }
}

/* ------------------------------------------------------------------------- the variation tree */
/* The moves played from the start form a tree, as on lichess: each node a move, its children the moves
   played after it, the first child its main continuation (the main line runs along first children).
   The line shown, sc.path, runs from the root (the start) through the current move, sc.path[sc.ply],
   and on along main continuations: ←/→ walk it, a move played off it starts a variation, ↑/↓ switch to
   another move at the nearest branch point.  Each node keeps its position's state once asked, and the
   outcome of the position after it (P, N or null) and a winning move there (`best`) once known. */
let scNodes = 0;
const scNode = (move, parent) => ({ id: ++scNodes, move, parent, children: [], state: null, out: undefined, best: null, illegal: false });

function scMovesTo(node) {
  const moves = [];
  for (let x = node; x.parent; x = x.parent) moves.push(x.move);
  return moves.reverse();
}

/* The root's path to `node`, continued along main continuations to the end of its line. */
function scLineThrough(node) {
  const path = [];
  for (let x = node; x; x = x.parent) path.push(x);
  path.reverse();
  for (let x = node; x.children.length; ) { x = x.children[0]; path.push(x); }
  return path;
}

/* The node the moves lead to from the root, adding the moves the tree lacks (a new move at a node
   that has moves after it is a variation: it comes after them). */
function scGrow(moves) {
  let node = sc.root;
  for (const m of moves) {
    let next = node.children.find((c) => c.move === m);
    if (!next) { next = scNode(m, node); node.children.push(next); }
    node = next;
  }
  return node;
}

function scFind(moves) {
  let node = sc.root;
  for (const m of moves) {
    node = node.children.find((c) => c.move === m);
    if (!node) return null;
  }
  return node;
}

/* The tree as a flat list (kept with the game in the browser): [parent, move] per node in preorder,
   a node's parent given by its index (0: the root, k: the k-th node listed), then the outcome after
   the move and a winning move there once known. */
const scMarksOf = (x) => (x.out === undefined ? [] : [x.out, x.best]);

function scTreeData() {
  const out = [], index = new Map([[sc.root, 0]]), stack = [...sc.root.children].reverse();
  while (stack.length) {
    const x = stack.pop();
    out.push([index.get(x.parent), x.move, ...scMarksOf(x)]);
    index.set(x, out.length);
    for (let k = x.children.length - 1; k >= 0; k--) stack.push(x.children[k]);
  }
  return out;
}

function scTreeFrom(data, rootMarks) {
  const nodes = [scNode(null, null)];
  const mark = (x, [out, best] = []) => {
    if (out === "P" || out === "N" || out === null) { x.out = out; x.best = Number.isSafeInteger(best) ? best : null; }
  };
  mark(nodes[0], rootMarks);
  for (const [parent, move, ...marks] of data) {
    const up = nodes[parent];
    if (!up || !Number.isSafeInteger(move) || move < 1) throw new Error("not a tree of moves");
    const x = scNode(move, up);
    mark(x, marks);
    up.children.push(x);
    nodes.push(x);
  }
  return nodes[0];
}

/* A new game (a new start, an import, an address of a game the board does not hold): a tree of one
   line, the board at its end. */
function scAdopt(state, players, result) {
  sc.start = state.start;
  sc.root = scNode(null, null);
  sc.asked = new Set();
  const end = scGrow(state.moves);
  end.state = state;
  sc.path = scLineThrough(end);
  sc.ply = sc.path.length - 1;
  sc.players = players;
  sc.recordResult = result;
  scSetupShows(sc.start);
  scShow(state);
}

async function scLoad(start, moves) {
  const state = await api("POST", "/api/sylver/state", { start, moves });
  scAdopt(state, null, null);
}

/* Show the position after `node`: the line shown goes on through it (unchanged when it holds it). */
async function scShowNode(node, push = true) {
  scSetError("");
  const root = sc.root;
  if (!node.state) {
    try {
      node.state = await api("POST", "/api/sylver/state", { start: sc.start, moves: scMovesTo(node) });
    } catch (e) {
      scSetError(e.message);
      return;
    }
    if (root !== sc.root) return;  // another game began meanwhile
  }
  const k = sc.path.indexOf(node);
  if (k >= 0) sc.ply = k;
  else { sc.path = scLineThrough(node); sc.ply = sc.path.indexOf(node); }
  scShow(node.state);
  scSetUrl(push);
}

/* Show the position after `ply` moves of the line shown (clicking a move, ◀ ▶, Back and Forward). */
async function scGo(ply, push = true) {
  ply = Math.max(0, Math.min(ply, sc.path.length - 1));
  if (ply === sc.ply && sc.state) return;
  await scShowNode(sc.path[ply], push);
}

/* The branch point nearest the move shown: the moves that could stand in the place of it or of an
   earlier move of its line (the nearest such move, the move shown first), else the moves that could
   follow it; `at` is the one the line shown takes.  ↑/↓ thus switch between sibling variations from
   any move inside one. */
function scBranch() {
  const node = sc.root && sc.path[sc.ply];
  if (!node) return null;
  for (let x = node; x.parent; x = x.parent) {
    if (x.parent.children.length > 1) return { moves: x.parent.children, at: x.parent.children.indexOf(x) };
  }
  if (node.children.length > 1) return { moves: node.children, at: node.children.indexOf(sc.path[sc.ply + 1]) };
  return null;
}

/* ↑/↓: the previous or next move at the branch point (false when there is none that way). */
function scSwitch(delta) {
  const b = scBranch();
  const to = b && b.moves[b.at + delta];
  if (!to || sc.busy) return false;
  scShowNode(to);
  return true;
}

/* Make the line of the move shown the main line: at each branch point on its way, its move first. */
function scPromote() {
  for (let x = sc.path[sc.ply]; x.parent; x = x.parent) {
    const sibs = x.parent.children;
    sibs.splice(sibs.indexOf(x), 1);
    sibs.unshift(x);
  }
  sc.path = scLineThrough(sc.path[sc.ply]);
  scRefresh();
}

/* Delete the move shown and every move after it; the board shows the position before it. */
async function scDelete() {
  if (sc.busy || sc.ply === 0) return;
  const node = sc.path[sc.ply];
  const sibs = node.parent.children;
  sibs.splice(sibs.indexOf(node), 1);
  sc.path = scLineThrough(node.parent);
  sc.ply = sc.path.indexOf(node.parent);
  await scShowNode(node.parent);
}

async function scPlay(n) {
  if (sc.busy || !sc.state) return;
  scSetError("");
  const s = sc.state;
  if (s.over) {
    scSetError("The game is over: start a new game, or go back in the move list.");
    return;
  }
  if (scBotTurn(s)) {
    scSetError(`It is the ${sc.bot} bot's move: ask it to move, or choose the opponent “nobody” to play both sides.`);
    return;
  }
  scSetBusy(true);
  const refuse = (msg) => {
    scSetBusy(false);
    scSetError(msg);
    const cell = document.querySelector(`#sc-grid [data-n="${n}"]`);
    if (cell) { cell.classList.remove("shake"); void cell.offsetWidth; cell.classList.add("shake"); }
  };
  try {
    // an illegal number is refused with its witness, asked of the server only when the grid does not know
    if (scLegalAt(n) !== true) {
      const w = await api("GET", `/api/sylver/witness?position=${encodeURIComponent(s.position.join(","))}&n=${n}`);
      if (!w.legal) { refuse(`${fmt(n)} is illegal in ${s.braces}: ${w.text}`); return; }
    }
    const state = await api("POST", "/api/sylver/move", { start: sc.start, moves: sc.line.slice(0, sc.ply), move: n });
    scSetBusy(false);
    scExtend(state);
  } catch (e) {
    refuse(e.message);
    return;
  }
  if (scBotTurn(sc.state)) await scBotMove();
}

/* A move played at the position shown: the tree holds it (a new move there, other than the one the
   line shown takes next, starts a variation), and the board shows the position after it. */
function scExtend(state) {
  const node = scGrow(state.moves);
  node.state = state;
  const k = sc.path.indexOf(node);
  if (k >= 0) sc.ply = k;
  else { sc.path = scLineThrough(node); sc.ply = sc.path.indexOf(node); }
  scShow(state);
  scSetUrl(true);
}

async function scBotMove() {
  scSetBusy(true);
  $("#sc-status").innerHTML = "";
  $("#sc-status").append(el("span", { class: "spinner", "aria-hidden": "true" }), ` The ${sc.bot} bot is thinking…`);
  try {
    const state = await api("POST", "/api/sylver/bot-move", { start: sc.start, moves: sc.line.slice(0, sc.ply), bot: sc.bot });
    scSetBusy(false);
    scExtend(state);
  } catch (e) {
    scSetBusy(false);
    scSetError(e.message);
    scStatus();
  }
}

/* Take back the user's last move and the bot's reply (against nobody: the last move): they leave the
   tree. */
async function scUndo() {
  if (sc.busy || sc.ply === 0) return;
  scSetError("");
  let ply = sc.ply - 1;
  if (sc.bot) while (ply > 0 && ply % 2 !== sc.humanSeat) ply -= 1;
  sc.ply = ply + 1;
  await scDelete();
}

function scShow(state) {
  sc.state = state;
  sc.window = null;
  sc.lo = 1;
  sc.winning = null;
  sc.ruledOut = null;
  sc.ends = null;
  sc.token += 1;
  $("#sc-position").textContent = state.braces;
  $("#sc-describe").textContent = state.over ? prose(state.describe) : `Legal moves: ${prose(state.describe)}.`;
  scStatus();
  scHistory();
  scGrid();
  scAnti();
  scFacts();
  scAnalyse();
  scControls();
  scSave();
  scOutcomes();
  lnFeedback();
}

/* Names or settings changed: redraw what shows them. */
function scRefresh() {
  scStatus();
  scHistory();
  scFacts();
  scControls();
  scSave();
}

function scStatus() {
  const s = sc.state;
  const st = $("#sc-status");
  st.className = "status";
  st.innerHTML = "";
  if (!s) return;
  const viewing = sc.ply < sc.line.length ? ` (move ${sc.ply} of ${sc.line.length}: a different move here starts a variation)` : "";
  if (s.result) {
    const r = s.result;
    if (r.winner === null) {
      st.textContent = "The game is over before it starts: the start holds 1, so no move is left.";
      return;
    }
    const loser = seatName(r.loser) === "You" ? "you" : seatName(r.loser);
    const why = r.reason === "named 1" ? `${loser} named 1` : `${loser} named ${fmt(r.move)}, which is illegal` + (r.detail ? ` (${r.detail})` : "");
    const youWin = sc.bot && !sc.players ? r.winner === sc.humanSeat : null;
    st.textContent = `${sc.bot && !sc.players ? (youWin ? "You win" : `The ${sc.bot} bot wins`) : seatName(r.winner) + " wins"}: ${why}.`;
    if (youWin !== null) st.classList.add(youWin ? "win" : "lose");
    else st.classList.add("over");
    return;
  }
  if (scBotTurn(s)) {
    st.append(`The ${sc.bot} bot's move${viewing}. `,
      el("button", { type: "button", class: "linkish retry", onclick: () => scBotMove(), text: "Ask it to move" }));
    return;
  }
  const only1 = s.position.length === 2 && s.position[0] === 2 && s.position[1] === 3;
  const who = sc.bot && !sc.players ? "Your move" : `${seatName(s.to_move)} to move`;
  st.textContent = who + (only1 ? ": only 1 is left, and naming it loses." : ".") + viewing;
}

/* The game in progress survives a reload of the page, its variations too (the address holds the
   position shown and the moves to it). */
const SAVE_KEY = "sylver.game";

function scSave() {
  try {
    localStorage.setItem(SAVE_KEY, JSON.stringify({ start: sc.start, tree: scTreeData(), marks: scMarksOf(sc.root), line: sc.line, ply: sc.ply, bot: sc.bot, humanSeat: sc.humanSeat, players: sc.players }));
  } catch (e) { /* private mode: nothing to keep */ }
}

function scSaved() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(SAVE_KEY) || "null"); } catch (e) { saved = null; }
  if (!saved || !Array.isArray(saved.start) || !Array.isArray(saved.line)) return null;
  return saved;
}

/* The saved game's tree and line, its position not yet shown (an older save has its line only). */
function scRestore(saved) {
  sc.start = saved.start;
  sc.root = Array.isArray(saved.tree) ? scTreeFrom(saved.tree, Array.isArray(saved.marks) ? saved.marks : []) : scNode(null, null);
  sc.asked = new Set();
  sc.path = scLineThrough(scGrow(saved.line));
  sc.ply = sc.path.length - 1;
  sc.players = Array.isArray(saved.players) ? saved.players : null;
  sc.recordResult = null;
  sc.state = null;
  scSetupShows(sc.start);
}

function scApplySettings(bot, humanSeat) {
  const form = $("#sc-setup");
  if (bot === "" || INFO.bots.some((b) => b.name === bot)) form.elements.bot.value = bot;
  form.elements.first.value = humanSeat === 1 ? "bot" : "human";
  scSettings();
  scBotAbout();
}

/* The description of the opponent chosen in the menu. */
function scBotAbout() {
  const b = INFO.bots.find((x) => x.name === $("#sc-bot").value);
  $("#sc-bot-about").textContent = b ? b.about : "You name the numbers for both players.";
}

/* The numbers of an address's start or moves ("4,5"; empty items are skipped), or an Error that
   says which item is wrong. */
function scAddressNumbers(text, what) {
  const items = decodeURIComponent(text || "").split(",").map((x) => x.trim()).filter((x) => x !== "");
  for (const x of items) {
    if (!/^\d+$/.test(x) || /^0+$/.test(x)) throw new Error(`its ${what} ${what === "start" ? "holds" : "hold"} “${x}”, which is not a positive integer`);
    const digits = x.replace(/^0+/, "");
    if (digits.length > 15 || Number(digits) > INFO.limits.max_number) {
      throw new Error(`its ${what} ${what === "start" ? "holds" : "hold"} ${fmtDigits(digits)}, larger than this server accepts (at most ${fmt(INFO.limits.max_number)})`);
    }
  }
  return items.map(Number);
}

/* The opponent an address names (vs=greedy&first=bot), or null when it names none. */
function scAddressOpponent(text) {
  if (!text) return null;
  const q = new URLSearchParams(decodeURIComponent(text));
  const vs = q.get("vs");
  if (vs === null) return null;
  const bot = vs === "nobody" ? "" : vs;
  if (bot && !INFO.bots.some((b) => b.name === bot)) throw new Error(`its opponent “${vs}” is not one of this server's bots`);
  return { bot, humanSeat: bot && q.get("first") === "bot" ? 1 : 0 };
}

/* The game of an address, every move checked: an illegal move (or one after 1 was named) is refused
   with a message that names it (1-based), and the board shows the game before it.  Answers the
   refusal ("" when every move was legal). */
async function scLoadChecked(start, moves) {
  const state = await api("POST", "/api/sylver/state", { start, moves, refuse_illegal: true });
  scAdopt(state, null, null);
  return scRefusal(state);
}

function scRefusal(state) {
  const r = state.refused;
  return r ? `Move ${r.ply} of the address (${fmt(r.move)}) is refused: ${r.message}. The board shows the game before it.` : "";
}

/* #sylver/START/MOVES: show that position.  A position the tree of the game on the board (or of the
   game saved before a reload) holds is shown in it, the rest of its line still walkable (Back,
   Forward, a copied link of the same game); other moves from the same start join the tree as a
   variation (a line of best play followed, a known reply); another start is a new game. */
async function scRoute(parts) {
  const saved = !sc.state ? scSaved() : null;
  if (saved) scApplySettings(saved.bot, saved.humanSeat);
  if (parts.length < 2 && parts.some((x) => x !== "")) {  // #sylver/4,5: a start without its moves part
    parts = [parts[0], ""];
  }
  if (parts.length === 2 && parts[1].startsWith("vs=")) parts = [parts[0], "", parts[1]];  // #sylver/4,5/vs=greedy
  if (parts.length < 2) {
    if (sc.state) { scSetUrl(false); return; }
    if (saved) {
      try {
        scRestore(saved);
        await scGo(Math.min(saved.ply ?? sc.line.length, sc.line.length), false);
        if (sc.state) { scSetUrl(false); return; }
      } catch (e) { /* a saved game this server refuses: start afresh */ }
    }
    await scNewGame();
    return;
  }
  let start, moves, opponent;
  try {
    start = scAddressNumbers(parts[0], "start");
    moves = scAddressNumbers(parts[1], "moves");
    opponent = scAddressOpponent(parts[2]);
  } catch (e) {
    await scBadAddress(`The address ${decodeURIComponent(location.hash)} does not name a game: ${e.message}. Expected #sylver/4,5/11,7 (the start, then the moves).`);
    return;
  }
  if (opponent) scApplySettings(opponent.bot, opponent.humanSeat);
  try {
    if (!sc.state && saved && braces(saved.start) === braces(start)) scRestore(saved);
    const ours = sc.root && braces(start) === braces(sc.start);
    const held = ours ? scFind(moves) : null;
    let refusal = "";
    if (held) {
      if (held !== sc.path[sc.ply] || !sc.state) await scShowNode(held, false);
    } else if (ours) {
      const state = await api("POST", "/api/sylver/state", { start, moves, refuse_illegal: true });
      const node = scGrow(state.moves);
      node.state = state;
      await scShowNode(node, false);
      refusal = scRefusal(state);
    }
    if (!sc.state || braces(start) !== braces(sc.start)) refusal = await scLoadChecked(start, moves);  // another start, or a saved game refused
    scSetError(refusal);
    if (refusal) scSetUrl(false);
    else if (opponent) scRefresh();
  } catch (e) {
    if (!sc.state) sc.root = null;
    await scBadAddress(`The address names a game the server refuses: ${e.message}`);
  }
}

/* An address that names no game: say why, and keep a board to play on (the game shown, else the
   empty start), with its own address. */
async function scBadAddress(msg) {
  if (!sc.state) {
    try { await scLoad([], []); } catch (e) { /* the error below says enough */ }
  }
  scSetError(msg);
  if (sc.state) scSetUrl(false);
}

/* The move list: the main line, one move a row, and after a move the variations that stand in its
   place, indented, their own variations in parentheses.  Click a move to see the position after it;
   each move is marked with the outcome it left (P: the mover has a won game; N: the opponent has) and
   a move that turned the game with the best move there. */
function scHistory(follow = true) {
  const ol = $("#sc-history");
  const hadFocus = ol.contains(document.activeElement) ? document.activeElement.dataset.node : null;
  ol.innerHTML = "";
  const cur = sc.path[sc.ply];
  $("#sc-history-empty").hidden = sc.root.children.length > 0;
  ol.append(el("li", { value: "0", "data-ply": "0", class: cur === sc.root ? "current" : null },
    el("button", { type: "button", class: "linkish who", "data-ply": "0", "data-node": String(sc.root.id),
      "aria-current": cur === sc.root ? "step" : null, text: "Start" }),
    el("span", { class: "after", text: braces(sc.start) })));
  let depth = 0;
  for (let x = sc.root; x.children.length; depth++) {
    const main = x.children[0];
    const m = scMark(main);
    const li = el("li", { "data-ply": String(depth + 1), class: [main === cur ? "current" : "", m.turn ? "turned" : ""].join(" ").trim() || null },
      el("span", { class: "who", text: seatName(depth % 2) }),
      el("button", { type: "button", class: "linkish mv", "data-ply": String(depth + 1), "data-node": String(main.id),
        "aria-current": main === cur ? "step" : null, "aria-label": `move ${depth + 1}: ${main.move}; show the position after it`, text: fmt(main.move) }),
      m.outcome ? el("span", { class: `badge small ${m.outcome}`, title: m.title, text: m.outcome }) : null,
      m.note ? el("span", { class: "note", text: m.note }) : null,
      m.turn ? el("span", { class: "note turn", text: "the game turned: a won position handed over"
        + (m.best !== null && m.best !== undefined ? `; best was ${fmt(m.best)}` : "") }) : null);
    if (x.children.length > 1) {
      const box = el("div", { class: "variations" });
      for (const alt of x.children.slice(1)) {
        box.append(el("div", { class: "variation", role: "group", "aria-label": `a variation: ${alt.move} instead of ${main.move} as move ${depth + 1}` },
          scVariationLine(alt, depth + 1, cur)));
      }
      li.append(box);
    }
    ol.append(li);
    x = main;
  }
  const current = ol.querySelector('[aria-current="step"]');
  scrollWithin(ol, current && current.closest(".variation, li"));
  // the list is rebuilt: after a step the keyboard focus follows the current move; when the marks
  // arrive it stays on the move it was on
  if (hadFocus) {
    const b = (!follow && ol.querySelector(`[data-node="${hadFocus}"]`)) || current;
    if (b) b.focus({ preventScroll: true });
  }
}

/* A variation: its first move, its main continuation, and the variations within it in parentheses. */
function scVariationLine(first, ply, cur) {
  const line = el("span", { class: "line" });
  let x = first;
  line.append(scVariationMove(x, ply, cur));
  while (x.children.length) {
    const next = x.children[0];
    ply += 1;
    line.append(" ", scVariationMove(next, ply, cur));
    for (const alt of x.children.slice(1)) line.append(" (", scVariationLine(alt, ply, cur), ")");
    x = next;
  }
  return line;
}

function scVariationMove(node, ply, cur) {
  const m = scMark(node);
  const label = `move ${ply} (variation): ${node.move} by ${seatName((ply - 1) % 2)}; show the position after it`
    + (m.turn ? `; the game turned here${m.best !== null && m.best !== undefined ? `, best was ${m.best}` : ""}` : "");
  return el("span", { class: "vm" + (m.turn ? " turned" : "") },
    el("button", { type: "button", class: "linkish vmv" + (node === cur ? " current" : ""), "data-node": String(node.id),
      "aria-current": node === cur ? "step" : null, "aria-label": label },
      el("span", { class: "num", text: `${ply}.` }), fmt(node.move)),
    m.outcome ? el("span", { class: `badge small ${m.outcome}`, title: m.title, text: m.outcome }) : null);
}

/* A move's marks: the outcome of the position it left, whether it handed over a won game (the game
   turned there) and the best move there, as far as they are known. */
function scMark(node) {
  const before = node.parent.out, after = node.out, n = node.move;
  const m = {};
  if (node.illegal) m.note = "illegal: loses";
  else if (n === 1) m.note = "named 1: loses";
  if (after) {
    m.outcome = after;
    m.title = after === "P" ? "left a P-position: the mover has a won game" : "left an N-position: the opponent has a won game";
  }
  m.turn = before === "N" && (after === "N" || n === 1 || node.illegal);
  m.best = m.turn ? node.parent.best : null;
  return m;
}

/* Ask who wins after each move of the line shown (once per line); the answers stay in the tree. */
async function scOutcomes() {
  const nodes = sc.path.slice();
  const key = braces(sc.start) + sc.line.join(",");
  if (sc.asked.has(key) || !INFO.features.solver || nodes.length < 2) return;
  sc.asked.add(key);
  const root = sc.root;
  try {
    const r = await api("POST", "/api/sylver/outcomes", { start: sc.start, moves: nodes.slice(1).map((x) => x.move) });
    nodes.forEach((x, k) => {
      if (k < r.outcomes.length) x.out = r.outcomes[k];
      x.best = r.best ? r.best[k] ?? null : null;
      x.illegal = k >= r.outcomes.length;
    });
    if (root === sc.root) { scHistory(false); scSave(); lnFeedback(); }
  } catch (e) {
    sc.asked.delete(key);
  }
}

function scLegalAt(n) {
  const s = sc.state;
  if (sc.window && n >= sc.window.lo && n <= sc.window.hi) return sc.window.legal[n - sc.window.lo] === "1";
  if (n >= 1 && n <= s.cells.length) return s.cells[n - 1] === "1";
  return null;
}

function scGrid() {
  const s = sc.state;
  const grid = $("#sc-grid");
  // the grid is rebuilt when analysis arrives: keep the keyboard focus on the same number
  const focused = grid.contains(document.activeElement) ? document.activeElement.dataset.n : null;
  const ended = s.position.length === 1 && s.position[0] === 1;
  document.querySelector("#view-sylver .legend").hidden = ended;
  if (ended) {
    grid.innerHTML = "";
    $("#sc-pager").hidden = true;
    return;
  }
  const top = s.cells_top;
  const paged = top > s.cells.length || top > PAGE * 2;
  $("#sc-pager").hidden = !paged;
  let lo = 1, hi = Math.min(top, s.cells.length);
  if (paged) {
    lo = sc.lo;
    hi = Math.min(top, lo + PAGE - 1);
    $("#sc-range").textContent = `${fmt(lo)}–${fmt(hi)} of ${s.finite ? "t = " + fmt(top) : fmt(top) + "…"}`;
    $("#sc-prev").disabled = lo <= 1;
    $("#sc-next").disabled = hi >= top;
    if (hi > s.cells.length && !(sc.window && sc.window.lo === lo)) {
      scLoadWindow(lo, hi);
      return;
    }
  }
  gridCells(grid, {
    lo, hi, legalAt: scLegalAt, named: new Set(s.position), t: s.frobenius_number,
    winning: sc.winning, ruledOut: sc.ruledOut, ends: sc.ends, buttons: true, more: !s.finite,
  });
  if (focused) {
    const cell = grid.querySelector(`[data-n="${focused}"]`);
    if (cell) cell.focus();
  }
}

async function scLoadWindow(lo, hi) {
  const token = sc.token;
  try {
    const w = await api("GET", `/api/sylver/cells?position=${encodeURIComponent(sc.state.position.join(","))}&lo=${lo}&hi=${hi}`);
    if (token !== sc.token) return;
    sc.window = w;
    scGrid();
  } catch (e) {
    scSetError(e.message);
  }
}

function scPage(delta) {
  const top = sc.state.cells_top;
  sc.lo = Math.max(1, Math.min(sc.lo + delta * PAGE, Math.max(1, top - PAGE + 1)));
  scGrid();
}

function scGoto(ev) {
  if (ev.key !== "Enter") return;
  ev.preventDefault();
  const n = Number($("#sc-goto").value.replace(/[\s,_]/g, ""));
  if (!Number.isInteger(n) || n < 1) { scSetError("Go to: type a positive integer."); return; }
  scSetError("");
  const top = sc.state.cells_top;
  sc.lo = Math.max(1, Math.min(n - (n - 1) % 100, Math.max(1, top - PAGE + 1)));
  scGrid();
  setTimeout(() => { const c = document.querySelector(`#sc-grid [data-n="${n}"]`); if (c) c.focus(); }, 300);
}

function scPartner(ev, on) {
  const cell = ev.target.closest && ev.target.closest(".cell");
  const t = sc.state && sc.state.frobenius_number;
  if (!cell || !t || t < 2) return;
  const n = Number(cell.dataset.n);
  if (!(n > 0 && n < t)) return;
  const p = document.querySelector(`#sc-grid [data-n="${t - n}"]`);
  if (p) p.classList.toggle("partner", on);
}

function scAnti() {
  const s = sc.state;
  const box = $("#sc-anti");
  const t = s.frobenius_number;
  if (!s.finite || s.over || t === null || t < 3 || t > s.cells.length || t > 1200) { box.hidden = true; return; }
  box.hidden = false;
  const half = Math.floor(t / 2);
  const perRow = Math.min(half, 24), w = 26, h = 20, rowH = 2 * h + 12;
  const rows = Math.ceil(half / perRow);
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  const left = 46, width = left + perRow * w, height = rows * rowH;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("role", "img");
  let both = 0;
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  const pairBox = (x, y, num, legal, title) => {
    const r = add("rect", { x, y, width: w - 3, height: h, rx: 3, class: legal ? "l" : "i" });
    add("title", {}, title);
    r.append(svg.lastChild);
    add("text", { x: x + (w - 3) / 2, y: y + h / 2 + 3.5, class: legal ? "nl" : "ni", "text-anchor": "middle" }, String(num));
  };
  for (let k = 0; k < half; k++) {
    const n = k + 1, m = t - n;
    const x = left + (k % perRow) * w, y = Math.floor(k / perRow) * rowH;
    const a = s.cells[n - 1] === "1", b = s.cells[m - 1] === "1";
    pairBox(x, y, n, a, `${n}: ${a ? "legal" : "illegal"}`);
    pairBox(x, y + h + 2, m, b, `${m} = t − ${n}: ${b ? "legal" : "illegal"}`);
    if (a && b) { both += 1; add("rect", { x, y: y + 2 * h + 4, width: w - 3, height: 4, rx: 2, class: "both" }); }
    if (k % perRow === 0) {
      add("text", { x: 0, y: y + h / 2 + 3.5, class: "lbl" }, "n");
      add("text", { x: 0, y: y + h + 2 + h / 2 + 3.5, class: "lbl" }, "t − n");
    }
  }
  svg.setAttribute("aria-label", `Pairs n and t − n for t = ${t}: ${both} pair${both === 1 ? "" : "s"} with both legal.`);
  const holder = $("#sc-anti-svg");
  holder.innerHTML = "";
  holder.append(svg);
  holder.append(el("p", { class: "hint", text: both === 0
    ? `For every n < t/2 exactly one of n and ${t} − n is legal.`
    : `${both} pair${both === 1 ? "" : "s"} with both numbers legal (marked below the column).` }));
}

function scFacts() {
  const s = sc.state;
  const dl = $("#sc-facts");
  dl.innerHTML = "";
  fact(dl, "Position", el("span", { class: "position-small", text: s.braces }));
  fact(dl, "g", String(s.gcd), "the gcd of the named numbers");
  if (s.position.length === 1 && s.position[0] === 1) {
    fact(dl, "Legal moves", "none: 1 has been named");
  } else if (s.finite) {
    fact(dl, "t", s.frobenius_number === null ? "—" : fmt(s.frobenius_number), "the largest legal move (the Frobenius number)");
    fact(dl, "Legal moves", s.genus === null ? "—" : fmt(s.genus), "the genus: how many numbers are still legal");
  } else {
    fact(dl, tbar(), s.tbar === null ? "—" : fmt(s.tbar), "t̄ = g · t(S ÷ g): the largest legal multiple of g");
    fact(dl, "Legal moves", "infinitely many");
  }
  fact(dl, "To move", s.over ? "nobody: the game is over" : seatName(s.to_move));
}

/* ------------------------------------------------------------------- theory, solver, best defence */
function scEntry(key) {
  let entry = ANALYSIS.get(key);
  if (!entry) {
    entry = {};
    ANALYSIS.set(key, entry);
    if (ANALYSIS.size > 300) ANALYSIS.delete(ANALYSIS.keys().next().value);
  }
  return entry;
}

function scAnalyse() {
  const s = sc.state;
  const token = sc.token;
  const entry = scEntry(braces(s.position));
  $("#sc-theory").innerHTML = "";
  $("#sc-defence").hidden = true;
  $("#sc-pv").hidden = true;
  $("#sc-pv-body").innerHTML = "";  // no line of the last position is left for a reader (or a test) to find
  const solver = $("#sc-solver");
  $("#sc-board16").hidden = true;
  $("#sc-replies").hidden = true;
  scVerdict();
  if (s.position.length === 1 && s.position[0] === 1) { solver.hidden = true; return; }
  if (INFO.features.theory) scTheoryFor(entry, token);
  if (INFO.features.board) scBoard(entry, token);
  if (INFO.features.store) scReplies(entry, token);
  // the solver is asked only about what it takes (gcd 1, t in its range): the theory and the g > 1
  // engine answer the others
  solver.hidden = !(INFO.features.solver && s.solvable);
  if (!solver.hidden) scSolve(entry, token, false);
}

async function scTheoryFor(entry, token) {
  const s = sc.state;
  if (!entry.theory) {
    // the theory answers at once for g = 1; for g > 1 its engine may take a few seconds
    $("#sc-theory").append(el("p", { class: "hint" }, el("span", { class: "spinner", "aria-hidden": "true" }),
      s.gcd > 1 ? " The theory and the g > 1 engine are working…" : " Asking the theory…"));
    try {
      entry.theory = await api("GET", `/api/sylver/analyze?position=${encodeURIComponent(s.position.join(","))}`);
    } catch (e) {
      if (token === sc.token) $("#sc-theory").replaceChildren(el("p", { class: "error", text: e.message }));
      return;
    }
  }
  if (token === sc.token) scTheory(entry.theory);
}

/* The verdict, first in the panel: one statement of who wins here, from the best source that has
   answered — the solver's complete answer, the results store (or book), a theorem, the g > 1 engine,
   or a winning move the solver has found so far — and the proof certificate when one can be had. */
function scVerdictOf(rep, sv) {
  const stored = rep && rep.stored;
  const from = (st) => (st && st.source === "book" ? "the results book" : "the results store");
  if (sv && sv.done && sv.last) {
    return { outcome: sv.last.outcome, wins: sv.last.winning_moves, complete: true,
      from: sv.last.source === "store" ? `${from(stored)}: solved before, answered at once` : "the solver", solved: sv.last.source !== "store" };
  }
  if (stored) return { outcome: stored.outcome, wins: stored.winning_moves, complete: stored.complete, from: from(stored) };
  if (rep && rep.outcome_by_theory) {
    return { outcome: rep.outcome_by_theory, wins: rep.winning_move === null || rep.winning_move === undefined ? [] : [rep.winning_move], complete: false, from: "a theorem (below)" };
  }
  const e = rep && rep.engine;
  if (e && (e.outcome === "P" || e.outcome === "N")) return { outcome: e.outcome, wins: e.winning_moves || [], complete: !!e.complete, from: "the g > 1 engine" };
  if (sv && sv.wins.size) {
    return { outcome: "N", wins: [...sv.wins].sort((a, b) => a - b), complete: false, from: "the solver, which has not yet examined every move" };
  }
  return null;
}

function scVerdict() {
  const s = sc.state;
  const box = $("#sc-verdict");
  box.innerHTML = "";
  if (!s || (s.position.length === 1 && s.position[0] === 1)) return;
  const entry = ANALYSIS.get(braces(s.position)) || {};
  const rep = entry.theory, sv = entry.solve;
  const v = scVerdictOf(rep, sv);
  const line = el("p", { class: "verdict-line" });
  box.append(line);
  if (!v) {
    const waiting = (INFO.features.theory && !rep) || (sv && sv.running);
    if (waiting) line.append(el("span", { class: "spinner", "aria-hidden": "true" }), " Working out who wins…");
    else if (rep && rep.engine && rep.engine.outcome === "probably-P") line.append(el("span", { class: "badge open", text: "P?" }), " probably P: the g > 1 engine's evidence, not a proof (below)");
    else line.append(el("span", { class: "badge open", text: "?" }), s.over ? " The game is over." : " Not decided: no theorem, stored result or search so far decides who wins here.");
    return;
  }
  line.append(verdict(v.outcome, "every move loses against perfect play", "the player to move wins"));
  if (v.outcome === "N" && v.wins.length) {
    const chips = el("span", { class: "chips" });
    for (const w of v.wins.slice(0, 12)) chips.append(el("button", { type: "button", class: "chip", "aria-label": `play ${w}`, onclick: () => scPlay(w), text: fmt(w) }), " ");
    box.append(el("p", { class: "verdict-wins" }, v.complete ? (v.wins.length === 1 ? "The only winning move: " : "The winning moves: ") : "Winning: ", chips,
      v.wins.length > 12 ? `… (${fmt(v.wins.length)})` : "", v.complete ? "" : " (there may be others)"));
  }
  box.append(el("p", { class: "hint verdict-from", text: `From ${v.from}.` }));
  const stored = rep && rep.stored;
  if (stored && stored.certificate) box.append(scCertificateLink());
  else if (v.solved && s.solvable) box.append(scCertificateBuild());
  else if (stored && v.from.startsWith("the results")) {
    box.append(el("p", { class: "hint cert", text: `No proof certificate is stored for it: sylver solve ${s.position.join(" ")} --certificate proof.json builds one.` }));
  }
}

const TERMS = [
  ["t", "the largest legal move (every larger number is a sum of named ones)", 1],
  ["end", "a legal move that makes no other move illegal; t is always one", 1],
  ["ender", "a position whose only end is t; the player to move wins every ender with t > 1 (strategy stealing), and an ender is quiet when t is odd", "1, 3"],
  ["enclosure E", "the ender reached by also naming, for each n < t/2 with n and t − n both legal, the larger of the two", 3],
];

function scTheory(rep) {
  const box = $("#sc-theory");
  box.innerHTML = "";
  const dl = el("dl", { class: "facts" });
  if (rep.ender !== null && rep.ender !== undefined) {
    const kinds = { quiet: "quiet ender (t odd)", unquiet: "unquiet ender (t even)", none: "not an ender" };
    fact(dl, "Ender", kinds[rep.ender] || String(rep.ender), "an ender has t as its only end (sec. 1); quiet iff t is odd (sec. 3)");
  }
  if (Array.isArray(rep.ends)) {
    const shown = rep.ends.slice(0, 40).map(fmt).join(", ") + (rep.ends.length > 40 ? `, … (${fmt(rep.ends.length)})` : "");
    fact(dl, "Ends", rep.ends.length ? shown : "—", "legal moves that make no other move illegal");
  } else if (rep.end_count) {
    fact(dl, "Ends", fmt(rep.end_count));
  }
  if (Array.isArray(rep.enclosure) && rep.gcd > 0) {
    const name = rep.gcd > 1 ? "Ē" : "E";
    const adds = Array.isArray(rep.enclosure_moves) && rep.enclosure_moves.length ? ` (adds ${rep.enclosure_moves.map(fmt).join(", ")})` : " (the position itself)";
    fact(dl, `Enclosure ${name}`, braces(rep.enclosure) + adds, "the ender reached by imposing antisymmetry about t (sec. 3)");
  }
  if (rep.prime_multiple) fact(dl, "Prime multiple", rep.prime_multiple, "short: a prime multiple of a quiet ender; long otherwise (sec. 1)");
  if (rep.roberts) fact(dl, "Roberts", `case ${rep.roberts.case}: ${rep.roberts.ender} (a₀ = ${rep.roberts.a0}, d = ${rep.roberts.d}, s = ${rep.roberts.s})`, "arithmetic progressions (sec. 4)");
  fact(dl, "Outcome", rep.outcome_by_theory ? verdict(rep.outcome_by_theory) : "no theorem decides it");
  if (rep.stored) fact(dl, "Known result", scStoredText(rep.stored), "what the results store holds about this position");
  if (rep.winning_move !== null && rep.winning_move !== undefined) {
    fact(dl, "Winning move", el("button", { type: "button", class: "chip", "aria-label": `play ${rep.winning_move}, a winning move by theory`, onclick: () => scPlay(rep.winning_move), text: fmt(rep.winning_move) }));
  }
  box.append(el("h3", { text: "Theory" }), dl);
  if (rep.reason) box.append(el("p", { class: "reason", text: "Why: " + prose(rep.reason) + "." }));
  if (rep.engine) {  // gcd > 1: what the engine proves within a few seconds (or the store holds)
    const e = rep.engine;
    const eng = el("dl", { class: "facts" });
    fact(eng, "Outcome", e.outcome === "P" || e.outcome === "N" ? verdict(e.outcome) : e.outcome);
    if (Array.isArray(e.winning_moves) && e.winning_moves.length) {
      const chips = el("span", {});
      for (const m of e.winning_moves.slice(0, 20)) {
        chips.append(el("button", { type: "button", class: "chip", "aria-label": `play ${m}, a winning move proven by the engine`, onclick: () => scPlay(m), text: fmt(m) }), " ");
      }
      fact(eng, e.complete ? "Winning moves" : "Winning moves (proven; others may exist)", chips);
      // the winning moves are marked in the grid, as the solver's are for gcd 1
      if (sc.state && sc.state.gcd > 1 && braces(sc.state.position) === braces(rep.position || sc.state.position)) sc.winning = new Set(e.winning_moves);
    }
    if (e.source === "store") fact(eng, "Source", "the results store (proven earlier)");
    box.append(el("h3", { text: "Engine (g > 1)" }), eng);
    if (e.reason) box.append(el("p", { class: "reason", text: "Why: " + prose(e.reason) + "." }));
  }
  const terms = el("ul", { class: "terms" });
  for (const [term, meaning, sec] of TERMS) terms.append(el("li", {}, el("b", { text: term }), `: ${meaning} (sec. ${sec}).`));
  box.append(el("details", { class: "about" }, el("summary", { text: "What these words mean" }), terms,
    el("p", { class: "hint cite", text: `Sections of ${INFO.paper}.` })));
  scVerdict();
  if (Array.isArray(rep.ends) && sc.state && sc.state.finite) sc.ends = new Set(rep.ends);
  if (sc.ends || sc.winning) scGrid();
  keepFocusInView($("#sc-analysis"));
}

/* The theory and the known replies arrive after the solver may have drawn its buttons, above them:
   a button of the panel that has the keyboard focus is scrolled back into view (the browser's scroll
   anchoring does not act while the panel is scrolled to its top). */
function keepFocusInView(panel) {
  const a = document.activeElement;
  if (a && a !== panel && panel.contains(a)) a.scrollIntoView({ block: "nearest" });
}

/* The replies whose results the store holds (the opening-16 table on #sylver/16//vs=nobody): each
   reply links to the game continued by it, the answers that beat it to the game continued by them. */
async function scReplies(entry, token) {
  if (!entry.replies) {
    try {
      entry.replies = await api("GET", `/api/sylver/replies?position=${encodeURIComponent(sc.state.position.join(","))}`);
    } catch (e) {
      return;  // a bonus: the panel works without it
    }
  }
  if (token !== sc.token || !entry.replies.replies.length || (entry.board && entry.board.applies)) return;
  const line = sc.line.slice(0, sc.ply);
  const link = (moves, text) => el("a", { href: `#sylver/${sc.start.join(",")}/${moves.join(",")}/vs=nobody`, text });
  const table = $("#sc-replies-table");
  table.innerHTML = "";
  const head = el("tr");
  for (const h of ["reply", "after it", "answers that win"]) head.append(el("th", { scope: "col", text: h }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  // a reply known to lose without its answer is one number in a line below, not a row of its own
  const bare = entry.replies.replies.filter((r) => r.outcome === "N" && !r.winning_moves.length);
  for (const r of entry.replies.replies) {
    if (bare.includes(r)) continue;
    const answers = el("td", {});
    r.winning_moves.slice(0, 12).forEach((w, i) => answers.append(i ? ", " : "", link([...line, r.move, w], fmt(w))));
    if (r.winning_moves.length > 12) answers.append(`, … (${fmt(r.winning_moves.length)})`);
    if (r.outcome === "N" && !r.complete) answers.append(" (and maybe others)");
    body.append(el("tr", {},
      el("th", { scope: "row" }, link([...line, r.move], fmt(r.move))),
      el("td", {}, el("span", { class: "badge small " + r.outcome, title: r.outcome === "P" ? "the reply wins" : "the reply loses", text: r.outcome })),
      answers));
  }
  table.append(body);
  table.hidden = !body.children.length;
  const more = $("#sc-replies-more");
  more.replaceChildren();
  more.hidden = !bare.length;
  if (bare.length) {
    more.append(`${bare.length === 1 ? "This reply loses" : `These ${bare.length} replies lose`} (N after it; the winning answer not kept): `);
    bare.forEach((r, i) => more.append(i ? ", " : "", link([...line, r.move], fmt(r.move))));
  }
  $("#sc-replies").hidden = false;
  keepFocusInView($("#sc-analysis"));
}

/* The research board of a root (the opening {16}, a campaign's root): every reply up to a bound,
   what is known of the position after it — lost by a theorem (one line), answered (the winning
   answer, published or ours, its certificate), or open (its campaign node, the largest search that
   failed) — read at once from the theory, the store, the results book, the public record and the
   ledgers.  The grid strikes the replies known to lose. */
async function scBoard(entry, token) {
  if (!entry.board) {
    try {
      entry.board = await api("GET", `/api/sylver/board?position=${encodeURIComponent(sc.state.position.join(","))}`);
    } catch (e) {
      return;  // a bonus: the panel works without it
    }
  }
  if (token !== sc.token || !entry.board.applies) return;
  const b = entry.board;
  const line = sc.line.slice(0, sc.ply);
  const game = (moves) => `#sylver/${sc.start.join(",")}/${moves.join(",")}/vs=nobody`;
  const link = (moves, text) => el("a", { href: game(moves), text });
  const lost = b.rows.filter((r) => r.outcome === "N"), won = b.rows.filter((r) => r.outcome === "P");
  const open = b.rows.filter((r) => !r.outcome);
  const body = $("#sc-board16-body");
  body.innerHTML = "";
  $("#sc-board16-title").textContent = `Every reply to ${braces(b.position)}`;
  body.append(el("p", { class: "board-summary", text:
    `${plural(b.rows.length, "legal reply", "legal replies")} up to ${fmt(b.bound)}: ${fmt(lost.length)} lose (N after them, struck), ` +
    `${fmt(won.length)} win (P after them), ${fmt(open.length)} open.${b.finite ? "" : ` Beyond ${fmt(b.bound)} nothing is known.`}` }));
  const camp = (r) => r.campaigns.map((c) => el("span", { class: "camp" }, el("a", { href: `#campaign/${c.index}/all`, text: `campaign ${c.index + 1}` }),
    `: ${c.status}${c.failed_states ? `, largest failed search ${fmt(c.failed_states)} states` : ""}`));
  const hutchings = (r) => r.outcome === "N" && r.theorem.includes("Hutchings");
  const theorem = lost.filter(hutchings);
  if (theorem.length) {
    const p = el("p", { class: "board-theorem" }, `${plural(theorem.length, "reply loses", "replies lose")} by Hutchings's theorem (the position after it is a coprime pair, an ender the player to move wins; sec. 1, 3): `);
    theorem.forEach((r, i) => p.append(i ? ", " : "", el("s", {}, el("a", { href: game([...line, r.move]), title: prose(r.why), text: fmt(r.move) }))));
    body.append(p);
  }
  const table = el("table", { class: "table" });
  const head = el("tr");
  // four columns fit the panel: whose result it is and its evidence (certificate, campaign nodes) share one
  for (const [h, title] of [["reply"], ["result", "N after the reply: it loses; P: it wins"], ["answer", "the answer that wins against the reply"],
    ["source", "whose result it is (published: the public record; ours: the results book, the store or a campaign), its certificate and its campaign nodes"]]) {
    head.append(el("th", { scope: "col", title, text: h }));
  }
  table.append(el("thead", {}, head));
  const tbody = el("tbody");
  for (const r of b.rows) {
    if (hutchings(r)) continue;
    const answers = el("td", {});
    r.winning.slice(0, 4).forEach((w, i) => answers.append(i ? ", " : "", link([...line, r.move, w], fmt(w))));
    if (r.winning.length > 4) answers.append(` … (${fmt(r.winning.length)})`);
    if (r.outcome === "N" && !r.winning.length) answers.append("not kept");
    const whose = !r.outcome ? "—" : r.published && r.ours ? "published; ours too" : r.published ? "published" : r.ours ? "ours (not published)" : r.theorem ? "a theorem" : "—";
    const evidence = el("td", { class: "source" }, el("span", { class: "whose", text: whose }), " ");
    if (r.certificate && r.certificate.stored) {
      const pos = r.position.join(",");
      evidence.append(el("a", { href: `/api/sylver/certificate?position=${encodeURIComponent(pos)}`, download: `sylver-certificate-${pos.replace(/,/g, "_")}.json`, text: "certificate" }), " ");
    } else if (r.certificate) {
      evidence.append(`certificate checked ${r.certificate.checked} `);
    }
    for (const c of camp(r)) evidence.append(c, " ");
    // N or P after the reply (the summary above says N: it loses), or open
    const status = r.outcome ? el("span", { class: "badge small " + r.outcome, title: r.outcome === "N" ? "N after it: the reply loses" : "P after it: the reply wins", text: r.outcome })
      : el("span", { class: "badge small open", text: "open" });
    const moveCell = el("th", { scope: "row" }, r.outcome === "N" ? el("s", {}, link([...line, r.move], fmt(r.move))) : link([...line, r.move], fmt(r.move)));
    tbody.append(el("tr", { class: r.outcome === "N" ? "lost" : r.outcome === "P" ? "won" : "open" }, moveCell, el("td", {}, status), answers, evidence));
  }
  table.append(tbody);
  body.append(el("div", { class: "table-wrap" }, table));
  if (b.root.campaigns.length) {
    const p = el("p", { class: "hint" }, `${braces(b.position)} in the ledger: `);
    for (const c of camp(b.root)) p.append(c, " ");
    body.append(p);
  }
  $("#sc-board16").hidden = false;
  $("#sc-replies").hidden = true;
  sc.ruledOut = new Set(lost.map((r) => r.move));
  sc.winning = won.length ? new Set(won.map((r) => r.move)) : sc.winning;
  scGrid();
  keepFocusInView($("#sc-analysis"));
}

/* One line for a result of the results store. */
function scStoredText(st) {
  const wins = st.outcome === "N" && st.winning_moves.length
    ? `; winning ${st.complete ? "" : "(some of them) "}${scList(st.winning_moves)}` : "";
  return `${st.outcome}${wins} (results store${st.states ? `, ${plural(st.states, "position")} searched` : ""})`;
}

/* A link that downloads the proof certificate of the position shown (sylver verify checks it). */
function scCertificateLink() {
  const pos = sc.state.position.join(",");
  return el("p", { class: "cert" }, el("a", {
    href: `/api/sylver/certificate?position=${encodeURIComponent(pos)}`, download: `sylver-certificate-${pos.replace(/,/g, "_")}.json`,
    text: "Download the proof certificate",
  }), el("span", { class: "hint", text: " (JSON; sylver verify checks it)" }));
}

/* A certificate the server may build within its time limit: built on request, with its progress and
   the reason when it could not be built (never a link that ends in a failed download). */
function scCertificateBuild() {
  const pos = sc.state.position.join(",");
  const box = el("p", { class: "cert" });
  const note = el("span", { class: "hint", role: "status" });
  const button = el("button", { type: "button", class: "linkish", text: "Build the proof certificate" });
  button.addEventListener("click", async () => {
    button.disabled = true;
    note.replaceChildren(" ", el("span", { class: "spinner", "aria-hidden": "true" }), ` building it (at most ${INFO.limits.solve_time} s)…`);
    let text = "", ok = false;
    try {
      const res = await fetch(`/api/sylver/certificate?position=${encodeURIComponent(pos)}`);
      text = await res.text();
      ok = res.ok;
      if (!ok) { try { text = JSON.parse(text).error.message; } catch (e) { text = `the server answered ${res.status}`; } }
    } catch (e) {
      text = e.message;
    }
    if (!ok) { button.disabled = false; note.textContent = ` Not built: ${text}.`; return; }
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    box.replaceChildren(el("a", { href: url, download: `sylver-certificate-${pos.replace(/,/g, "_")}.json`, text: "Download the proof certificate" }),
      el("span", { class: "hint", text: " (JSON; sylver verify checks it)" }));
    box.querySelector("a").focus();
  });
  box.append(button, note);
  return box;
}

/* The solver runs in short requests: each answer shows the progress (moves decided, winning moves,
   moves ruled out), and the next request continues where the last stopped, until the time limit
   of a round.  "Keep solving" grants another round. */
function scSolve(entry, token, more) {
  const s = sc.state;
  // until: the elapsed time at which the round ends (a round: the server's time limit)
  const sv = entry.solve || (entry.solve = { elapsed: 0, until: 0, requests: 0, states: 0, last: null, wins: new Set(), ruled: new Set(), done: false, error: null, running: false });
  sv.token = token;  // the page shows this position now: the running loop (if any) reports here
  if (!sv.done && !sv.error && !sv.running && (more || sv.until === 0)) sv.until = sv.elapsed + INFO.limits.solve_time;
  const go = !sv.done && !sv.error && !sv.running && sv.elapsed < sv.until;
  // a round starting is drawn as running until its first answer (not "not decided", with Keep solving)
  if (go) { sv.running = true; sv.since = performance.now(); }
  scSolverRender(sv);
  if (!go) return;
  const clock = setInterval(() => {
    const span = document.querySelector("#sc-solver-body .elapsed");
    if (span && sv.token === sc.token) span.textContent = (sv.elapsed + (performance.now() - sv.since) / 1000).toFixed(1);
  }, 100);
  (async () => {
    try {
      while (!sv.done && sv.elapsed < sv.until && sv.token === sc.token) {
        const slice = Math.max(0.05, Math.min(SLICE, sv.until - sv.elapsed));
        sv.since = performance.now();
        let r;
        try {
          r = await api("POST", "/api/sylver/solve", { position: s.position, time_limit: Number(slice.toFixed(2)) });
        } catch (e) {
          sv.error = e.message;
          break;
        } finally {
          sv.elapsed += (performance.now() - sv.since) / 1000;
        }
        sv.requests += 1;
        sv.states += r.states;
        sv.last = r;
        for (const w of r.winning_moves) sv.wins.add(w);
        for (const x of r.ruled_out) sv.ruled.add(x);
        sv.done = r.complete;
        if (sv.token === sc.token) scSolverRender(sv);
      }
    } finally {
      sv.running = false;
      clearInterval(clock);
      if (sv.token === sc.token) scSolverRender(sv);
    }
  })();
}

function scSolverRender(sv) {
  const token = sv.token;
  const body = $("#sc-solver-body");
  body.innerHTML = "";
  if (sv.error) {
    body.append(el("p", { class: "reason", text: prose(sv.error) }));
    return;
  }
  const r = sv.last;
  const limit = `${INFO.limits.solve_time} s`;
  if (sv.done) {
    const dl = el("dl", { class: "facts" });
    fact(dl, "Outcome", verdict(r.outcome, "every move loses against perfect play", "the player to move wins"));
    const chips = el("div", { class: "chips" });
    for (const w of r.winning_moves) chips.append(el("button", { type: "button", class: "chip", "aria-label": `play the winning move ${w}`, onclick: () => scPlay(w), text: fmt(w) }));
    fact(dl, "Winning moves", r.winning_moves.length ? chips : "none");
    fact(dl, "Losing moves", r.ruled_out.length ? scList(r.ruled_out) : "—", "every other legal move (1 always loses)");
    if (r.source === "store") fact(dl, "Source", "the results store: solved before, answered at once");
    else fact(dl, "Searched", `${plural(sv.states, "position")}; ${sv.elapsed.toFixed(2)} s in ${plural(sv.requests, "request")}`);
    body.append(dl);
  } else {
    const decided = sv.wins.size + sv.ruled.size;
    const total = r ? r.root_moves : null;
    const line = el("p", { class: "progress-line" });
    const all = total !== null && decided >= total;
    if (sv.running) line.append(el("span", { class: "spinner", "aria-hidden": "true" }), " Solving: ");
    else if (sv.wins.size && all) line.append("Every move decided; the solver's check of its answer did not finish within the time limit: ");
    else if (sv.wins.size) line.append("N (a winning move is found); the other moves not all decided within the time limit: ");
    else line.append("Not decided within the time limit: ");
    line.append(el("span", { class: "elapsed", text: sv.elapsed.toFixed(1) }), ` s of solving so far (time limit ${limit} per round)`);
    body.append(line);
    const bar = el("progress", { max: String(total || 1), "aria-label": "moves decided" });
    if (total !== null) bar.value = decided;
    body.append(bar);
    if (total !== null) body.append(el("p", { class: "hint", text: `${fmt(decided)} of ${plural(total, "move")} decided so far (1 always loses).` }));
    const dl = el("dl", { class: "facts" });
    if (sv.wins.size) {
      const chips = el("div", { class: "chips" });
      for (const w of [...sv.wins].sort((a, b) => a - b)) chips.append(el("button", { type: "button", class: "chip", onclick: () => scPlay(w), text: fmt(w) }));
      fact(dl, "Winning", chips, "the player to move wins: these moves win (there may be more)");
    }
    if (sv.ruled.size) fact(dl, "Ruled out", scList([...sv.ruled].sort((a, b) => a - b)), "moves proven to lose");
    body.append(dl);
    if (!sv.running) {
      body.append(el("button", { type: "button", id: "sc-keep", class: "primary", text: `${all && sv.wins.size ? "Finish the check" : "Keep solving"} (another ${limit})`,
        onclick: () => scSolve(scEntry(braces(sc.state.position)), sc.token, true) }));
    }
  }
  if (token !== sc.token) return;
  scVerdict();
  sc.winning = sv.wins.size ? new Set(sv.wins) : null;
  sc.ruledOut = sv.ruled.size ? new Set(sv.ruled) : null;
  scGrid();
  if (sv.done && r.outcome === "P") scDefence(ANALYSIS.get(braces(sc.state.position)), token);
  if (sv.done) scPrincipal(ANALYSIS.get(braces(sc.state.position)), token, r);
}

/* The principal variation of a decided position (g = 1): the line of best play.  The winner names a
   winning move (the solver's), the loser the best defence (the move hardest to refute, as in the
   best-defence list), the winner the first move that refutes it, and so on until only 1 is left to
   the loser.  Each step asks /api/sylver/defence about the position reached; the line stops where a
   move is not decided within the solver's time limit, or after PV_PLIES moves. */
const PV_PLIES = 24;

async function scPrincipal(entry, token, answer) {
  const box = $("#sc-pv");
  box.hidden = false;
  const body = $("#sc-pv-body");
  if (!entry.pv) {
    body.innerHTML = "";
    body.append(el("p", {}, el("span", { class: "spinner", "aria-hidden": "true" }), " Following the best play…"));
    if (entry.pvLoading) return;
    entry.pvLoading = true;
    try {
      entry.pv = await scPrincipalLine(sc.state.position, answer);
    } catch (e) {
      entry.pv = { error: e.message };
    } finally {
      entry.pvLoading = false;
    }
  }
  if (token !== sc.token) return;
  scPrincipalRender(entry.pv);
}

async function scPrincipalLine(position, answer) {
  const moves = [];
  let cur = position.slice();
  if (answer.outcome === "N") {
    moves.push(answer.winning_moves[0]);
    cur.push(answer.winning_moves[0]);
  }
  while (moves.length < PV_PLIES) {
    const d = await api("POST", "/api/sylver/defence", { position: cur });
    if (!d.moves.length) return { moves, end: "one" };
    const best = d.moves[0];
    if (!best.refutations || !best.refutations.length) return { moves, end: "undecided", next: best.move };
    moves.push(best.move, best.refutations[0]);
    cur = d.position.concat([best.move, best.refutations[0]]);
  }
  return { moves, end: "long" };
}

function scPrincipalRender(pv) {
  const body = $("#sc-pv-body");
  body.innerHTML = "";
  if (pv.error) { body.append(el("p", { class: "reason", text: pv.error })); return; }
  const s = sc.state;
  const before = sc.line.slice(0, sc.ply);
  const vs = `vs=${encodeURIComponent(sc.bot || "nobody")}${sc.bot && sc.humanSeat === 1 ? "&first=bot" : ""}`;
  const ol = el("ol", { class: "pv-line", "aria-label": "the line of best play" });
  pv.moves.forEach((m, k) => {
    const seat = (s.to_move + k) % 2;
    ol.append(el("li", {}, el("span", { class: "side", text: seatName(seat) }), " ", el("a", {
      href: `#sylver/${sc.start.join(",")}/${before.concat(pv.moves.slice(0, k + 1)).join(",")}/${vs}`,
      "aria-label": `${seatName(seat)} names ${fmt(m)}`, text: fmt(m) })));
  });
  const loser = (s.to_move + pv.moves.length) % 2;
  let end;
  if (pv.end === "one") end = `Then only 1 is left: ${seatName(loser)} must name it and loses.`;
  else if (pv.end === "undecided") end = `Here the best defence (${fmt(pv.next)}) is not refuted within the time limit: the line stops.`;
  else end = `The line goes on (shown to ${PV_PLIES} moves).`;
  body.append(el("p", { class: "hint", text: "Best play from here, each move a link to the position after it:" }));
  if (pv.moves.length) body.append(ol);
  body.append(el("p", { class: "pv-end", text: end }));
}

function scList(xs) {
  const shown = xs.slice(0, 30).map(fmt).join(", ");
  return xs.length > 30 ? `${shown}, … (${fmt(xs.length)})` : shown;
}

/* In a P-position every move loses; the best defence leaves the opponent the fewest winning replies
   (the hardest refutation to find), and a move no theorem refutes is a better try than one that a
   theorem does. */
async function scDefence(entry, token) {
  const box = $("#sc-defence");
  box.hidden = false;
  const body = $("#sc-defence-body");
  if (!entry.defence) {
    body.innerHTML = "";
    body.append(el("p", {}, el("span", { class: "spinner", "aria-hidden": "true" }), " Looking for the hardest moves to refute…"));
    if (entry.defenceLoading) return;
    entry.defenceLoading = true;
    try {
      entry.defence = await api("POST", "/api/sylver/defence", { position: sc.state.position });
    } catch (e) {
      entry.defence = { error: e.message };
    } finally {
      entry.defenceLoading = false;
    }
  }
  if (token !== sc.token) return;
  body.innerHTML = "";
  const d = entry.defence;
  if (d.error) { body.append(el("p", { class: "reason", text: d.error })); return; }
  if (!d.moves.length) { body.append(el("p", { class: "reason", text: "The only legal move is 1, and naming it loses." })); return; }
  const ol = el("ol", { class: "defence" });
  for (const row of d.moves.slice(0, 8)) {
    let how;
    if (row.refutations === null) how = "not refuted within the time limit";
    else if (row.refutations.length === 1) how = `only ${fmt(row.refutations[0])} wins against it (1 of ${plural(row.legal_replies, "reply", "replies")})`;
    else how = `${row.refutations.length} of ${plural(row.legal_replies, "reply", "replies")} win against it: ${scList(row.refutations)}`;
    ol.append(el("li", {},
      el("button", { type: "button", class: "chip plain", "aria-label": `play ${row.move}`, onclick: () => scPlay(row.move), text: fmt(row.move) }),
      ` ${how}`,
      row.theory ? el("span", { class: "tag", title: prose(row.theory), text: "a theorem refutes it" }) : el("span", { class: "tag good", text: "no theorem refutes it" })));
  }
  body.append(el("p", { class: "hint", text: "Every move loses against perfect play. The hardest to refute first:" }), ol);
  if (!d.complete) body.append(el("p", { class: "hint", text: `Not every move was examined within the time limit (${d.time_limit} s).` }));
}

/* ------------------------------------------------------------------------- import and export */
/* The record of the game: its main line (as an arena writes one line of games.jsonl) and, when the
   tree has some, its variations, each the moves from the start to the end of one (an import restores
   them). */
function scRecord() {
  const names = sc.players || [seatName(0), seatName(1)];
  const main = scLineThrough(sc.root);
  const rec = { start: sc.start, moves: main.slice(1).map((x) => x.move), players: names, first: names[0] };
  const ends = [], stack = [sc.root];
  while (stack.length) {
    const x = stack.pop();
    if (!x.children.length && !main.includes(x)) ends.push(scMovesTo(x));
    for (let k = x.children.length - 1; k >= 0; k--) stack.push(x.children[k]);
  }
  if (ends.length) rec.variations = ends;
  const last = main[main.length - 1].state;
  if (last && last.result && last.result.winner !== null) {
    const r = last.result;
    Object.assign(rec, {
      winner: names[r.winner], loser: names[r.loser],
      reason: r.reason === "named 1" ? "named-one" : "illegal",
      detail: r.reason === "named 1" ? "named 1" : `illegal move ${r.move} = ${r.detail}`,
    });
  }
  return rec;
}

/* The moves after `x` as text: the main continuation, each variation in parentheses after the move
   it replaces ("11 7 (6 2)"). */
function scTreeText(x) {
  const out = [];
  while (x.children.length) {
    const [main, ...alts] = x.children;
    out.push(String(main.move));
    for (const a of alts) out.push(`(${[String(a.move), scTreeText(a)].filter(Boolean).join(" ")})`);
    x = main;
  }
  return out.join(" ");
}

function scExport() {
  const rec = scRecord();
  $("#sc-export-json").value = JSON.stringify(rec);
  $("#sc-export-plain").value = `${braces(sc.start)} ${rec.moves.join(" ")}`.trim();
  $("#sc-export-tree").value = `${braces(sc.start)} ${scTreeText(sc.root)}`.trim();
  $("#sc-export-tree-box").hidden = !rec.variations;
  $("#sc-export-link").href = "data:application/json;charset=utf-8," + encodeURIComponent(JSON.stringify(rec) + "\n");
  $("#sc-export").hidden = false;
  $("#sc-import").hidden = true;
}

async function scImport(ev) {
  ev.preventDefault();
  const text = $("#sc-import-text").value;
  const err = $("#sc-import-error");
  err.hidden = true;
  try {
    const state = await api("POST", "/api/sylver/import", { text });
    scApplySettings("", sc.humanSeat);  // a record is analysed: the user plays both sides
    scAdopt(state, state.players, state.record_result);
    await scImportVariations(text, state);
    scSetUrl(true);
    $("#sc-import").hidden = true;
    $("#sc-import-text").value = "";
  } catch (e) {
    err.textContent = e.message;
    err.hidden = false;
  }
}

/* The variations of an exported record (its "variations": the moves from the start to the end of
   each), every move checked by the server: a variation is kept up to its first illegal move. */
async function scImportVariations(text, state) {
  let lines = null;
  try { lines = JSON.parse(text).variations; } catch (e) { return; }
  if (!Array.isArray(lines)) return;
  const root = sc.root;
  for (const moves of lines.slice(0, 200)) {
    if (!Array.isArray(moves) || !moves.every((m) => Number.isSafeInteger(m) && m >= 1)) continue;
    const checked = await api("POST", "/api/sylver/state", { start: state.start, moves, refuse_illegal: true });
    if (root !== sc.root) return;
    scGrow(checked.moves).state = checked;
  }
  scRefresh();
}

function setupSylver() {
  const sel = $("#sc-bot");
  sel.innerHTML = "";
  sel.append(el("option", { value: "", title: "You name the numbers for both players (an analysis board).", text: "nobody: I play both sides" }));
  for (const b of INFO.bots) sel.append(el("option", { value: b.name, title: b.about, text: b.name }));
  const preferred = INFO.bots.find((b) => b.name === "perfect") || INFO.bots[0];
  if (preferred) sel.value = preferred.name;
  sel.addEventListener("change", scBotAbout);
  scBotAbout();
  $("#sc-setup").addEventListener("submit", scNewGame);
  $("#sc-start-list").addEventListener("focus", () => { $("#sc-setup").elements.start.value = "list"; });
  $("#sc-move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const typed = $("#sc-move").value.trim();
    const raw = typed.replace(/[\s,_]/g, "");
    if (!/^\d+$/.test(raw) || /^0+$/.test(raw)) { scSetError(`“${typed}” is not a positive integer: type a number such as 11.`); return; }
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n > INFO.limits.max_number) { scSetError(`${raw} is larger than this server accepts (at most ${fmt(INFO.limits.max_number)}).`); return; }
    $("#sc-move").value = "";
    scPlay(n);
  });
  $("#sc-undo").addEventListener("click", scUndo);
  $("#sc-jump").addEventListener("click", () => $("#sc-analysis").scrollIntoView({ block: "start" }));
  $("#sc-first").addEventListener("click", () => scGo(0));
  $("#sc-back").addEventListener("click", () => scGo(sc.ply - 1));
  $("#sc-fwd").addEventListener("click", () => scGo(sc.ply + 1));
  $("#sc-last").addEventListener("click", () => scGo(sc.line.length));
  $("#sc-var-prev").addEventListener("click", () => scSwitch(-1));
  $("#sc-var-next").addEventListener("click", () => scSwitch(1));
  $("#sc-promote").addEventListener("click", scPromote);
  $("#sc-delete").addEventListener("click", scDelete);
  const hist = $("#sc-history");
  hist.addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-node]");
    if (!b || sc.busy) return;
    const id = Number(b.dataset.node);
    const stack = [sc.root];
    while (stack.length) {
      const x = stack.pop();
      if (x.id === id) { if (x !== sc.path[sc.ply]) scShowNode(x); return; }
      stack.push(...x.children);
    }
  });
  $("#sc-export-open").addEventListener("click", scExport);
  $("#sc-import-open").addEventListener("click", () => { $("#sc-import").hidden = false; $("#sc-export").hidden = true; $("#sc-import-text").focus(); });
  $("#sc-import").addEventListener("submit", scImport);
  for (const b of document.querySelectorAll("[data-copy]")) {
    b.addEventListener("click", async () => {
      const area = $("#" + b.dataset.copy);
      area.select();
      try { await navigator.clipboard.writeText(area.value); b.textContent = "Copied"; } catch (e) { document.execCommand("copy"); }
    });
  }
  const spoilers = $("#sc-spoilers");
  spoilers.checked = scSpoilersWanted();
  spoilers.addEventListener("change", () => {
    try { localStorage.setItem("sylver.spoilers", spoilers.checked ? "on" : "off"); } catch (e) { /* no storage */ }
    if (spoilers.checked && sc.puzzle && !sc.puzzle.shown) { lnReveal(); return; }  // ticked in a puzzle: its answer
    scSpoilersApply();
  });
  scSpoilersApply();
  const grid = $("#sc-grid");
  grid.addEventListener("click", (ev) => {
    const cell = ev.target.closest(".cell[data-n]");
    if (cell) scPlay(Number(cell.dataset.n));
  });
  grid.addEventListener("keydown", (ev) => {
    const cell = ev.target.closest(".cell[data-n]");
    if (!cell) return;
    const cells = [...grid.querySelectorAll(".cell[data-n]")];
    const i = cells.indexOf(cell);
    const cols = cells.filter((c) => c.offsetTop === cells[0].offsetTop).length || 1;
    const step = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: cols, ArrowUp: -cols, Home: -i, End: cells.length - 1 - i }[ev.key];
    if (step === undefined) return;
    ev.preventDefault();
    const to = cells[Math.max(0, Math.min(cells.length - 1, i + step))];
    gridRove(grid, to);
    to.focus();
  });
  grid.addEventListener("focusin", (ev) => { const c = ev.target.closest(".cell[data-n]"); if (c) gridRove(grid, c); });
  grid.addEventListener("mouseover", (ev) => scPartner(ev, true));
  grid.addEventListener("mouseout", (ev) => scPartner(ev, false));
  grid.addEventListener("focusin", (ev) => scPartner(ev, true));
  grid.addEventListener("focusout", (ev) => scPartner(ev, false));
  $("#sc-prev").addEventListener("click", () => scPage(-1));
  $("#sc-next").addEventListener("click", () => scPage(1));
  $("#sc-goto").addEventListener("keydown", scGoto);
  ROUTES.sylver = scRoute;
}

/* "Show who wins": the box says what the panel shows.  The user's choice is kept; a puzzle lesson
   (find a winning move) unticks it until the move is found or its answer asked for. */
function scSpoilersWanted() {
  try { return localStorage.getItem("sylver.spoilers") !== "off"; } catch (e) { return true; }
}

function scSpoilersApply() {
  const hide = !$("#sc-spoilers").checked;
  document.body.classList.toggle("no-spoilers", hide);
  if (sc.state) scGrid();
}

/* ================================================================================ Wythoff */
/* Piles are BigInt: the engine is exact for any size the server reads (thousands of digits).  The
   board is drawn while both piles are at most BOARD_MAX; beyond, the page shows the numbers and a
   "take k counters" form. */
const BOARD_MAX = 40;
const wy = { pos: [0n, 0n], size: 8, humanFirst: true, misere: false, facts: null, history: [], cold: null, over: false, busy: false,
  token: 0 };  // token: a new game's number; an answer about an earlier game is dropped
const pair = (p) => `(${p[0]}, ${p[1]})`;

function wySetError(msg) {
  const box = $("#wy-error");
  box.textContent = msg || "";
  box.hidden = !msg;
}

/* A pile size typed by the user: a whole number ≥ 0, or a one-line error naming the input. */
function readPile(input, name) {
  const typed = input.value.trim();
  const raw = typed.replace(/[\s,_]/g, "");
  if (raw === "") throw new Error(`${name} is empty: type the number of counters (0 or more).`);
  if (!/^\d+$/.test(raw)) throw new Error(`${name}: “${typed}” is not a whole number of counters (0 or more).`);
  const digits = raw.replace(/^0+(?=\d)/, "");
  if (digits.length > INFO.limits.max_pile_digits) {
    throw new Error(`${name} has ${fmt(digits.length)} digits; the server reads piles of up to ${fmt(INFO.limits.max_pile_digits)} digits.`);
  }
  return BigInt(digits);
}

const onBoard = () => wy.pos[0] <= BigInt(BOARD_MAX) && wy.pos[1] <= BigInt(BOARD_MAX);

async function wyNewGame(ev, push = true) {
  if (ev) ev.preventDefault();
  wySetError("");
  let i, j;
  try {
    i = readPile($("#wy-i"), "Pile i");
    j = readPile($("#wy-j"), "Pile j");
  } catch (e) {
    wySetError(e.message);
    return;
  }
  wy.humanFirst = $("#wy-setup").elements.wyfirst.value === "human";
  wy.misere = $("#wy-misere").checked;
  $("#wy-rule").textContent = wy.misere
    ? "Misère: whoever moves her to the corner (0, 0) loses."
    : "Whoever moves her to the corner (0, 0) wins.";
  wy.size = 8;
  wy.history = [];
  wy.cold = null;
  const token = ++wy.token;
  try {
    const facts = await api("GET", `/api/wythoff/analyze?i=${i}&j=${j}&misere=${wy.misere}`);
    if (token !== wy.token) return;  // a newer game was asked for meanwhile (the tab's first game, say)
    wyShow(facts, null);
    if (push && location.hash !== wyUrl()) history.pushState(null, "", wyUrl());
    if (!wy.humanFirst && !facts.over) await wyComputer();
    else if ($("#wy-cold").checked) wyLoadCold();
  } catch (e) {
    if (token === wy.token) wySetError(e.message);
  }
}

/* The address of the position shown: #wythoff/9,13 (and /misere for misère play). */
function wyUrl() {
  return `#wythoff/${wy.pos[0]},${wy.pos[1]}${wy.misere ? "/misere" : ""}`;
}

/* #wythoff/I,J[/misere]: a game from that position, the user to move; #wythoff: the game shown
   (a new one the first time). */
async function wyRoute(parts) {
  const m = /^(\d+),(\d+)$/.exec(decodeURIComponent(parts[0] || ""));
  if (!m) {
    if (parts[0]) wySetError(`The address ${decodeURIComponent(location.hash)} does not name a position: expected #wythoff/9,13 (the piles), or #wythoff/9,13/misere.`);
    if (!wy.facts) await wyNewGame(null, false);  // the address becomes the game's (wyShow replaces it)
    else if (!parts[0]) history.replaceState(null, "", wyUrl());
    return;
  }
  const misere = parts[1] === "misere";
  if (wy.facts && wy.pos[0] === BigInt(m[1]) && wy.pos[1] === BigInt(m[2]) && wy.misere === misere) return;
  $("#wy-i").value = m[1];
  $("#wy-j").value = m[2];
  $("#wy-misere").checked = misere;
  $("#wy-setup").elements.wyfirst.value = "human";
  await wyNewGame(null, false);
}

function wyShow(facts, winner) {
  wy.facts = facts;
  wy.pos = facts.position.map(BigInt);
  wy.over = facts.over || !!winner;
  wy.winner = winner;
  if (onBoard()) wy.size = Math.max(wy.size, Number(wy.pos[0]) + 1, Number(wy.pos[1]) + 1);
  $("#wy-position").textContent = pair(wy.pos);
  const st = $("#wy-status");
  st.className = "status";
  if (wy.over && !winner) {
    st.textContent = "The queen is already in the corner: choose another start.";
  } else if (wy.over) {
    const youWin = winner === "you";
    st.textContent = youWin
      ? (wy.misere ? "You win: the perfect player had to take the last counter." : "You win: you moved the queen to the corner.")
      : (wy.misere ? "The perfect player wins: you took the last counter." : "The perfect player wins: it moved the queen to the corner.");
    st.classList.add(youWin ? "win" : "lose");
  } else {
    st.textContent = onBoard() ? "Your move: click a highlighted square." : "Your move: take counters from one pile or the same number from both.";
  }
  wyFacts();
  wyHistory();
  wyBoard();
  if (!$("#view-wythoff").hidden && location.hash !== wyUrl()) history.replaceState(null, "", wyUrl());
}

async function wyMove(to) {
  if (wy.busy || wy.over) return;
  wySetError("");
  wy.busy = true;
  const token = wy.token;
  try {
    const r = await api("POST", "/api/wythoff/move", { position: wy.pos, to, misere: wy.misere });
    if (token !== wy.token) return;
    wy.history.push({ who: "You", to: r.you.map(BigInt) });
    if (r.reply) wy.history.push({ who: "Perfect player", to: r.reply.map(BigInt) });
    wyShow(r, r.winner);
  } catch (e) {
    if (token === wy.token) wySetError(e.message);
  } finally {
    wy.busy = false;
  }
}

async function wyComputer() {
  const token = wy.token;
  const r = await api("POST", "/api/wythoff/computer-move", { position: wy.pos, misere: wy.misere });
  if (token !== wy.token) return;
  wy.history.push({ who: "Perfect player", to: r.reply.map(BigInt) });
  wyShow(r, r.winner);
  if ($("#wy-cold").checked) wyLoadCold();
}

async function wyLoadCold() {
  if (!onBoard()) return;
  const token = wy.token;
  try {
    const r = await api("GET", `/api/wythoff/cold?limit=${wy.size - 1}&misere=${wy.misere}`);
    if (token !== wy.token) return;
    wy.cold = new Set(r.cold.map((p) => p.join(",")));
    wyBoard();
  } catch (e) {
    if (token === wy.token) wySetError(e.message);
  }
}

function wyFacts() {
  const f = wy.facts;
  const dl = $("#wy-facts");
  dl.innerHTML = "";
  fact(dl, "Queen at", el("span", { class: "number", text: pair(wy.pos) }));
  fact(dl, "Rules", f.misere ? "misère: whoever takes the last counter loses" : "normal: whoever reaches the corner wins");
  if (!wy.over) {
    fact(dl, "Outcome", verdict(f.outcome, "cold: the player to move loses", "hot: the player to move wins"));
    if ($("#wy-hint").checked) {
      fact(dl, "Winning moves", f.winning_moves.length ? el("span", { class: "number", text: f.winning_moves.map(pair).join(", ") }) : "none");
    }
    if (f.nim_value !== null && f.nim_value !== undefined) fact(dl, "Nim value", String(f.nim_value), "the Grundy value of the position");
  }
}

function wyHistory() {
  const ol = $("#wy-history");
  ol.innerHTML = "";
  for (const h of wy.history) {
    ol.append(el("li", {}, el("span", { class: "who", text: h.who }), el("span", { class: "mv number", text: pair(h.to) })));
  }
}

function wyBoard() {
  const board = $("#wy-board");
  const big = !onBoard();
  board.hidden = big;
  $("#wy-board-legend").hidden = big;
  $("#wy-numbers").hidden = !big;
  $("#wy-cold-switch").hidden = big;
  if (big) { wyNumbers(); return; }
  board.innerHTML = "";
  const n = wy.size;
  const [qi, qj] = wy.pos.map(Number);
  board.style.gridTemplateColumns = `1.6rem repeat(${n}, minmax(0, 1fr))`;
  const reach = new Set(!wy.over && wy.facts.moves ? wy.facts.moves.map((p) => p.join(",")) : []);
  const wins = new Set($("#wy-hint").checked && !wy.over ? wy.facts.winning_moves.map((p) => p.join(",")) : []);
  const showCold = $("#wy-cold").checked && wy.cold;
  const frag = document.createDocumentFragment();
  for (let y = n - 1; y >= 0; y--) {
    frag.append(el("span", { class: "axis", "aria-hidden": "true", text: String(y) }));
    for (let x = 0; x < n; x++) {
      const key = `${x},${y}`;
      const queen = x === qi && y === qj;
      const cls = ["sq"];
      if ((x + y) % 2 === 1) cls.push("dark");
      const canGo = reach.has(key);
      if (canGo) cls.push("reach");
      if (showCold && wy.cold.has(key)) cls.push("cold");
      if (wins.has(key)) cls.push("win");
      if (x === 0 && y === 0) cls.push("corner");
      let label = `(${x}, ${y})`;
      if (queen) label += ": the queen";
      else if (canGo) label += ": move here";
      if (showCold && wy.cold.has(key)) label += ", cold";
      if (wins.has(key)) label += ", winning move";
      const b = el("button", {
        type: "button", class: cls.join(" "), "data-x": String(x), "data-y": String(y),
        "aria-label": label, tabindex: canGo ? "0" : "-1", "aria-disabled": canGo ? null : "true",
      });
      if (queen) b.innerHTML = QUEEN_SVG;
      frag.append(b);
    }
  }
  frag.append(el("span", { "aria-hidden": "true" }));
  for (let x = 0; x < n; x++) frag.append(el("span", { class: "axis", "aria-hidden": "true", text: String(x) }));
  board.append(frag);
}

/* Piles too large for a board: the numbers, the winning moves (with the hint on) and a move form. */
function wyNumbers() {
  $("#wy-pile-i").textContent = String(wy.pos[0]);
  $("#wy-pile-j").textContent = String(wy.pos[1]);
  $("#wy-take").hidden = wy.over;
  const chips = $("#wy-win-chips");
  chips.innerHTML = "";
  if ($("#wy-hint").checked && !wy.over) {
    for (const w of wy.facts.winning_moves) {
      const to = w.map(BigInt);
      chips.append(el("button", { type: "button", class: "chip number", "aria-label": `move to ${pair(to)}, a winning move`, onclick: () => wyMove(to), text: pair(to) }));
    }
    if (!wy.facts.winning_moves.length) chips.append(el("span", { class: "hint", text: "No winning move: every move leaves a hot position." }));
  }
}

function wyTake(ev) {
  ev.preventDefault();
  wySetError("");
  let k;
  try {
    k = readPile($("#wy-take-k"), "The number of counters");
  } catch (e) {
    wySetError(e.message);
    return;
  }
  if (k < 1n) { wySetError("Take at least one counter."); return; }
  const from = $("#wy-take-from").value;
  const [i, j] = wy.pos;
  const to = from === "i" ? [i - k, j] : from === "j" ? [i, j - k] : [i - k, j - k];
  if (to[0] < 0n || to[1] < 0n) { wySetError(`There are not ${k} counters to take there.`); return; }
  wyMove(to);
}

const QUEEN_SVG = '<svg viewBox="0 0 40 40" aria-hidden="true"><path class="queen" d="M6 14 L11 29 H29 L34 14 L26 21 L20 9 L14 21 Z"/><rect class="queen" x="10" y="31" width="20" height="4" rx="1.5"/><circle class="queen" cx="6" cy="12" r="3"/><circle class="queen" cx="20" cy="7" r="3"/><circle class="queen" cx="34" cy="12" r="3"/></svg>';

function setupWythoff() {
  $("#wy-setup").addEventListener("submit", wyNewGame);
  $("#wy-random").addEventListener("click", () => {
    $("#wy-i").value = 4 + Math.floor(Math.random() * 17);
    $("#wy-j").value = 4 + Math.floor(Math.random() * 17);
  });
  $("#wy-board").addEventListener("click", (ev) => {
    const b = ev.target.closest(".sq.reach");
    if (b) wyMove([BigInt(b.dataset.x), BigInt(b.dataset.y)]);
  });
  $("#wy-take").addEventListener("submit", wyTake);
  $("#wy-cold").addEventListener("change", () => { if ($("#wy-cold").checked && !wy.cold) wyLoadCold(); else wyBoard(); });
  $("#wy-hint").addEventListener("change", () => { wyFacts(); wyBoard(); });
  ROUTES.wythoff = wyRoute;
}

/* ============================================================================= tournament */
const rs = { offset: 0, limit: 50, bot: "", total: 0, game: null, ply: 0, token: 0, summary: null, outcomes: null };

/* The address of the replay shown: #results/GAME/PLY (GAME: the game's number, "p" and its phase
   after a first phase: 12p1). */
function rsUrl() {
  const g = rs.game;
  return `#results/${g.game}${g.phase ? "p" + g.phase : ""}/${rs.ply}`;
}

async function rsRoute(parts) {
  const m = /^(\d+)(?:p(\d+))?$/.exec(parts[0] || "");
  if (!m) {
    if (rs.game) history.replaceState(null, "", rsUrl());
    return;
  }
  const game = Number(m[1]), phase = Number(m[2] || 0), ply = /^\d+$/.test(parts[1] || "") ? Number(parts[1]) : 0;
  if (!rs.game || rs.game.game !== game || (rs.game.phase ?? 0) !== phase) await rsOpen(game, phase, ply, false);
  else if (ply !== rs.ply) await rsStep(ply, false);
}

/* [key, label, class]: on a phone the "wide-col" columns go and the "phone-col" one (the three
   faults in one cell, each named in its title) comes, so that the standings fit without scrolling. */
const STANDING_COLUMNS = [
  ["rank", "#"], ["name", "bot"], ["points", "points"], ["games", "games"], ["wl", "W–L"],
  ["firstsecond", "1st/2nd wins", "wide-col"], ["crashes", "crash", "wide-col"], ["timeouts", "timeout", "wide-col"],
  ["illegal", "illegal", "wide-col"], ["faults", "faults", "phone-col"],
  ["avg_time", "avg/move", "wide-col"], ["max_time", "max/move", "wide-col"], ["elo", "Elo ± 95%"],
];

/* A game's result in words: the arena's "greedy wins {random named 1}" (cutechess's form, braces
   round the reason) reads like a position here: "greedy wins: random named 1". */
function rsResult(text) {
  return String(text || "").replace(/^(.*?) wins \{(.*)\}$/, "$1 wins: $2");
}

function fmtTime(x) {
  if (typeof x !== "number") return "—";
  return x < 1 ? `${(x * 1000).toFixed(1)} ms` : `${x.toFixed(2)} s`;
}

async function rsLoadSummary() {
  try {
    const s = await api("GET", "/api/results");
    rs.summary = s;
    $("#rs-about").textContent = `${s.rules}; ${s.rounds} round${s.rounds === 1 ? "" : "s"}, seed ${s.seed}. `
      + `${fmt(s.games_played)} of ${fmt(s.games_planned)} games played`
      + (s.finished ? " — final standings." : " — live standings (the tournament is running).")
      + (s.voids ? ` ${s.voids} void game${s.voids === 1 ? "" : "s"}.` : "");
    const table = $("#rs-standings");
    table.innerHTML = "";
    const head = el("tr");
    for (const [, label, cls] of STANDING_COLUMNS) head.append(el("th", { scope: "col", class: cls, text: label }));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (const r of s.standings) {
      const tr = el("tr");
      for (const [key, , cls] of STANDING_COLUMNS) {
        let v, title;
        if (key === "wl") v = `${r.wins}–${r.losses}`;
        else if (key === "faults") {
          v = String(r.crashes + r.timeouts + r.illegal);
          title = `${r.crashes} crashes, ${r.timeouts} timeouts, ${r.illegal} illegal moves`;
        }
        else if (key === "firstsecond") v = `${r.wins_first}/${r.wins_second}`;
        else if (key === "avg_time" || key === "max_time") v = fmtTime(r[key]);
        else if (key === "elo") v = `${r.elo >= 0 ? "+" : ""}${Math.round(r.elo)} ± ${Math.round(r.elo_margin)}`;
        else if (key === "points") v = String(r.points);
        else v = r[key] === undefined ? "—" : String(r[key]);
        if (key === "name" && r.disqualified) v += " (disqualified)";
        tr.append(el("td", { class: [key === "name" ? "" : "num", cls || ""].join(" ").trim(), text: v, title }));
      }
      body.append(tr);
    }
    table.append(body);
    const sel = $("#rs-filter");
    if (sel.options.length <= 1) for (const b of s.bots) sel.append(el("option", { value: b, text: b }));
    if (!s.finished) setTimeout(() => { if (!$("#view-results").hidden) { rsLoadSummary(); rsLoadGames(); } }, 5000);
  } catch (e) {
    $("#rs-about").textContent = e.message;
  }
}

async function rsLoadGames() {
  const q = new URLSearchParams({ offset: rs.offset, limit: rs.limit });
  if (rs.bot) q.set("bot", rs.bot);
  const r = await api("GET", "/api/results/games?" + q);
  rs.total = r.total;
  const table = $("#rs-games");
  table.innerHTML = "";
  const head = el("tr");
  for (const [label, cls] of [["game"], ["round", "wide-col"], ["first – second"], ["start"], ["moves"], ["result"]]) head.append(el("th", { scope: "col", class: cls, text: label }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const g of r.games) {
    const tr = el("tr", { tabindex: "0", "data-game": String(g.game), "data-phase": String(g.phase), "aria-label": `Replay game ${g.game}: ${rsResult(g.result)}` },
      el("td", { class: "num", text: String(g.game) }),
      el("td", { class: "num wide-col", text: String(g.round ?? "") }),
      el("td", { class: "players", text: `${g.players[0]} – ${g.players[1]}` }),
      el("td", { class: "start", text: braces(g.start || []).replace(/,/g, ",\u200b") }),  // it wraps after a comma
      el("td", { class: "num moves", text: fmt(g.moves) }),
      el("td", { class: "result", text: rsResult(g.result) }));
    if (rs.game && rs.game.game === g.game && rs.game.phase === g.phase) tr.classList.add("selected");
    body.append(tr);
  }
  table.append(body);
  const last = Math.min(rs.offset + rs.limit, rs.total);
  $("#rs-count").textContent = `${fmt(rs.total)} game${rs.total === 1 ? "" : "s"}`;
  $("#rs-page").textContent = rs.total ? `${fmt(rs.offset + 1)}–${fmt(last)} of ${fmt(rs.total)}` : "no finished game yet";
  $("#rs-prev").disabled = rs.offset === 0;
  $("#rs-next").disabled = last >= rs.total;
}

async function rsOpen(game, phase, ply = 0, push = true) {
  try {
    const g = await api("GET", `/api/results/games/${game}?phase=${phase}`);
    rs.game = g;
    rs.outcomes = null;
    for (const tr of document.querySelectorAll("#rs-games tbody tr")) {
      tr.classList.toggle("selected", tr.dataset.game === String(g.game) && tr.dataset.phase === String(g.phase ?? 0));
    }
    $("#rs-replay-hint").hidden = true;
    $("#rs-replay-body").hidden = false;
    $("#rs-game-title").textContent = `Game ${g.game}${g.round !== undefined && g.round !== null ? ` (round ${g.round})` : ""}: ${g.players[0]} (first) vs ${g.players[1]} — ${rsResult(g.result)}`;
    $("#rs-slider").max = String(g.steps);
    rsMoves();
    if (narrow()) $("#rs-replay").scrollIntoView({ block: "start" });
    if (push) history.pushState(null, "", `#results/${g.game}${g.phase ? "p" + g.phase : ""}/${ply}`);
    await rsStep(ply);
    rsLoadOutcomes(g);
  } catch (e) {
    $("#rs-replay-hint").hidden = false;
    $("#rs-replay-hint").textContent = e.message;
  }
}

/* The replay's move list: each move with the outcome it left and the move where the game turned. */
function rsMoves() {
  const g = rs.game;
  const ol = $("#rs-moves");
  ol.innerHTML = "";
  const o = rs.outcomes;
  const times = Array.isArray(g.times) ? g.times : [];
  (g.moves || []).forEach((m, k) => {
    const losing = g.losing_move !== null && g.losing_move !== undefined && k === g.moves.length - 1;
    const after = o && k + 1 < o.outcomes.length ? o.outcomes[k + 1] : null;
    const before = o ? o.outcomes[k] : null;
    const turned = before === "N" && (after === "N" || losing || m === 1);
    const best = turned && o.best && o.best[k] !== null && o.best[k] !== undefined ? `; best was ${fmt(o.best[k])}` : "";
    ol.append(el("li", { "data-ply": String(k + 1), class: [turned ? "turned" : "", rs.ply === k + 1 ? "current" : ""].join(" ").trim() || null },
      el("span", { class: "who", text: g.players[k % 2] }),
      el("button", { type: "button", class: "linkish mv", "data-ply": String(Math.min(k + 1, g.steps)), text: typeof m === "number" ? fmt(m) : JSON.stringify(m) }),
      after ? el("span", { class: `badge small ${after}`, title: after === "P" ? "left a P-position: the mover has a won game" : "left an N-position: the opponent has a won game", text: after }) : null,
      losing ? el("span", { class: "note", text: "loses" }) : null,
      turned ? el("span", { class: "note turn", text: "the game turned" + best }) : null,
      typeof times[k] === "number" ? el("span", { class: "note time", title: "time the mover used", text: fmtTime(times[k]) }) : null));
  });
}

async function rsLoadOutcomes(g) {
  if (!INFO.features.solver || !g.steps) return;
  try {
    const r = await api("POST", "/api/sylver/outcomes", { start: g.start || [], moves: g.moves.slice(0, g.steps) });
    if (rs.game !== g) return;
    rs.outcomes = r;
    rsMoves();
    rsVerdict();
  } catch (e) { /* the marks are a bonus: the replay works without them */ }
}

function rsVerdict() {
  const dd = $("#rs-verdict");
  if (!dd) return;
  const o = rs.outcomes ? rs.outcomes.outcomes[rs.ply] : null;
  dd.innerHTML = "";
  dd.append(o ? verdict(o, `${rs.game.players[rs.ply % 2]} (to move) loses with perfect play`, `${rs.game.players[rs.ply % 2]} (to move) wins with perfect play`) : "not decided");
}

async function rsStep(ply, address = true) {
  const g = rs.game;
  if (!g) return;
  ply = Math.max(0, Math.min(ply, g.steps));
  rs.ply = ply;
  if (address && !$("#view-results").hidden && location.hash !== rsUrl()) history.replaceState(null, "", rsUrl());
  const token = ++rs.token;
  $("#rs-slider").value = String(ply);
  $("#rs-ply").textContent = `move ${ply} of ${g.steps}`;
  $("#rs-first").disabled = $("#rs-back").disabled = ply === 0;
  $("#rs-last").disabled = $("#rs-fwd").disabled = ply === g.steps;
  for (const li of document.querySelectorAll("#rs-moves li")) li.classList.toggle("current", Number(li.dataset.ply) === ply);
  scrollWithin($("#rs-moves"), document.querySelector(`#rs-moves li[data-ply="${ply}"]`));
  // the analysis board takes the legal moves (an illegal losing answer is the result, not a move)
  const upto = ply === g.moves.length && g.losing_move !== null && g.losing_move !== 1 ? ply - 1 : ply;
  $("#rs-analyse").href = `#sylver/${(g.start || []).join(",")}/${g.moves.slice(0, upto).join(",")}/vs=nobody`;
  try {
    const s = await api("GET", `/api/results/games/${g.game}/position?ply=${ply}&phase=${g.phase ?? 0}`);
    if (token !== rs.token) return;
    const dl = $("#rs-step");
    dl.innerHTML = "";
    if (ply > 0) {
      const t = Array.isArray(g.times) && typeof g.times[ply - 1] === "number" ? ` (in ${fmtTime(g.times[ply - 1])})` : "";
      fact(dl, "Move", `${g.players[(ply - 1) % 2]} named ${fmt(g.moves[ply - 1])}${t}`);
    } else fact(dl, "Move", "the start");
    const text = s.braces.length > 160 ? s.braces.slice(0, 160) + "…}" : s.braces;
    fact(dl, "Position", el("span", { class: "position-small", title: s.braces, text }));
    const ended = s.position.length === 1 && s.position[0] === 1;
    fact(dl, "g", String(s.gcd));
    if (ended) {
      fact(dl, "Legal moves", "none: 1 has been named");
    } else if (s.finite) {
      fact(dl, "t", fmt(s.frobenius_number));
      fact(dl, "Legal moves", fmt(s.genus));
    } else {
      fact(dl, "Legal moves", prose(s.describe));
    }
    if (ply === g.steps) fact(dl, "Result", rsResult(g.result));
    else fact(dl, "To move", g.players[ply % 2]);
    if (!ended) {
      fact(dl, "Verdict", el("span", { id: "rs-verdict" }));
      rsVerdict();
    }
    rsBoard(s);
  } catch (e) {
    if (token === rs.token) $("#rs-step").textContent = e.message;
  }
}

/* The replayed position as a grid: the named numbers, the legal and illegal ones, t (the first
   numbers only when t is large). */
function rsBoard(s) {
  const grid = $("#rs-grid");
  const ended = s.position.length === 1 && s.position[0] === 1;
  grid.hidden = ended;
  if (ended) return;
  const hi = Math.min(s.cells.length, s.finite ? s.cells_top : s.cells.length, 300);
  gridCells(grid, {
    lo: 1, hi, legalAt: (n) => s.cells[n - 1] === "1", named: new Set(s.position), t: s.frobenius_number,
    buttons: false, more: !s.finite || hi < s.cells_top,
  });
  grid.setAttribute("aria-label", `The numbers 1 to ${hi}${hi < s.cells_top ? " (of " + fmt(s.cells_top) + ")" : ""}: green legal, grey illegal, dark named`);
}

function setupResults() {
  ROUTES.results = rsRoute;
  let loaded = false;
  VIEW_SHOWN.results = () => {
    if (loaded) return;
    loaded = true;
    rsLoadSummary();
    rsLoadGames().catch((e) => { $("#rs-page").textContent = e.message; });
  };
  $("#rs-filter").addEventListener("change", () => { rs.bot = $("#rs-filter").value; rs.offset = 0; rsLoadGames(); });
  $("#rs-prev").addEventListener("click", () => { rs.offset = Math.max(0, rs.offset - rs.limit); rsLoadGames(); });
  $("#rs-next").addEventListener("click", () => { rs.offset += rs.limit; rsLoadGames(); });
  const games = $("#rs-games");
  const open = (ev) => {
    const tr = ev.target.closest("tbody tr");
    if (tr) rsOpen(Number(tr.dataset.game), Number(tr.dataset.phase));
  };
  games.addEventListener("click", open);
  games.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); open(ev); } });
  $("#rs-first").addEventListener("click", () => rsStep(0));
  $("#rs-back").addEventListener("click", () => rsStep(rs.ply - 1));
  $("#rs-fwd").addEventListener("click", () => rsStep(rs.ply + 1));
  $("#rs-last").addEventListener("click", () => rsStep(rs.game ? rs.game.steps : 0));
  $("#rs-slider").addEventListener("input", () => rsStep(Number($("#rs-slider").value)));
  $("#rs-moves").addEventListener("click", (ev) => {
    const b = ev.target.closest("button[data-ply]");
    if (b) rsStep(Number(b.dataset.ply));
  });
  // "Analyse this position": the Sylver Coinage board, both sides played by the user
  $("#rs-analyse").addEventListener("click", async (ev) => {
    ev.preventDefault();
    history.pushState(null, "", $("#rs-analyse").getAttribute("href"));
    await route();
    scApplySettings("", sc.humanSeat);
    sc.players = rs.game.players.slice();
    scRefresh();
  });
}

/* ============================================================================= campaigns */
/* The ledger of a campaign (sylver serve --campaign DIR), read-only: the root's headline and a table
   of its nodes, the root's children first (the reply table).  The address names the campaign and the
   choice of nodes: #campaign/0 is the first campaign's replies, #campaign/0/all/N its N nodes at
   every depth.  While the root is open the ledger is read again every 10 s (a running campaign
   updates it); focus and scrolling stay where they were. */
const CP_REFRESH = 10000;
const CP_MAX_ROWS = 2000;
const CP_DEPTHS = ["1", "2", "3", "all"];
const CP_STATUSES = ["", "undecided", "open", "working", "P", "N"];
const cp = { index: 0, depth: "1", status: "", theorems: false, list: null, data: null, timer: null, token: 0, read: null };

/* The table's columns: what a reader looks for first (the reply, its position, status and winning
   move) on the left, so that a phone shows them without scrolling; the search's figures in one
   column; the parents' moves under the position, only when they say more than the reply does. */
const CP_COLUMNS = [
  ["reply", "reply", "The root's move that leads to this position"],
  ["position", "position", "The position (click to analyse it), and the parents' moves that lead to it when it is not one of the root's replies"],
  ["status", "status", "P: the player to move loses; N: the player to move wins; open; working: an attempt is running"],
  ["winning", "winning", "A winning move, for an N-position"],
  ["method", "method", "How it was decided: solve (one search), children (their values), store (an earlier result), theorem"],
  ["search", "search", "Attempts made, positions searched, seconds and peak memory of the search, and the seconds the next attempt gets"],
  ["certificate", "certificate", "The proof, a JSON file that sylver verify checks"],
  ["note", "note", "What decided it, or why the last attempt did not"],
];

function cpUrl() {
  let url = `#campaign/${cp.index}`;
  if (cp.depth !== "1" || cp.status) url += `/${cp.depth}`;
  if (cp.status) url += `/${cp.status}`;
  return url;
}

function cpSetUrl() {
  const url = cpUrl();
  if (location.hash !== url) history.replaceState(null, "", url);
}

function cpError(msg) {
  const p = $("#cp-error");
  p.textContent = msg || "";
  p.hidden = !msg;
}

/* No campaign shown (the address names none). */
function cpClear() {
  cp.data = null;
  $("#cp-title").textContent = "Campaign";
  for (const id of ["#cp-headline", "#cp-about", "#cp-count"]) $(id).textContent = "";
  for (const part of $("#cp-table").querySelectorAll("thead, tbody")) part.remove();
}

async function cpRoute(parts) {
  if (parts.length && parts[0] !== "") {
    const [index, depth = "1", status = ""] = parts;
    if (!/^\d+$/.test(index) || !CP_DEPTHS.includes(depth) || !CP_STATUSES.includes(status)) {
      ++cp.token;
      clearTimeout(cp.timer);
      cpClear();
      cpError(`The address ${location.hash} does not name a campaign view: expected #campaign/0, #campaign/0/2 or #campaign/0/all/N.`);
      return;
    }
    cp.index = Number(index);
    cp.depth = depth;
    cp.status = status;
  }
  $("#cp-depth").value = cp.depth;
  $("#cp-status").value = cp.status;
  await cpLoad();
}

async function cpLoad() {
  clearTimeout(cp.timer);
  cp.timer = null;
  const token = ++cp.token;
  const index = cp.index;
  const query = cp.depth === "all" ? "" : `?depth=${cp.depth}`;
  try {
    if (!cp.list || cp.list.length > 1) {
      const list = await api("GET", "/api/campaigns");
      if (token !== cp.token) return;
      cp.list = list;
      cpList();
    }
    if (index >= cp.list.length) {
      cpClear();
      cpError(`There is no campaign ${index}: this server shows ${plural(cp.list.length, "campaign")} (#campaign/0${cp.list.length > 1 ? ` to #campaign/${cp.list.length - 1}` : ""}).`);
      return;
    }
    const d = await api("GET", `/api/campaigns/${index}${query}`);
    if (token !== cp.token) return;
    cp.data = d;
    cp.read = new Date();
    cpError("");
    cpRender();
    if (!["P", "N"].includes(d.summary.status)) cp.timer = setTimeout(cpTick, CP_REFRESH);
  } catch (e) {
    if (token !== cp.token) return;
    if (e.status > 0 && e.status < 500) cpClear();  // otherwise keep what was read last, and try again
    cpError(e.message);
    if (e.status === 0 || e.status >= 500) cp.timer = setTimeout(cpTick, CP_REFRESH);  // try again
  }
}

function cpTick() {
  cp.timer = null;
  if ($("#view-campaign").hidden) return;  // showing the view again reads the ledger again
  if (document.hidden) { cp.timer = setTimeout(cpTick, CP_REFRESH); return; }
  cpLoad();
}

/* The list of the campaigns, when the server shows more than one. */
function cpList() {
  const nav = $("#cp-list");
  nav.hidden = cp.list.length < 2;
  const ul = nav.querySelector("ul");
  ul.innerHTML = "";
  for (const c of cp.list) {
    ul.append(el("li", {},
      el("a", { href: `#campaign/${c.index}`, "data-index": String(c.index), "aria-current": c.index === cp.index ? "page" : null, text: braces(c.root) }),
      " ", el("span", { class: "hint", text: `${c.headline} (${c.name})` })));
  }
}

function cpStatusCell(status) {
  if (status === "P" || status === "N") return el("span", { class: "badge " + status, text: status });
  return el("span", { class: "tag" + (status === "working" ? " good" : ""), text: status });
}

function cpShows(node) {
  const s = cp.status;
  if (!s) return true;
  if (s === "undecided") return node.status === "open" || node.status === "working";
  return node.status === s;
}

function cpRow(node) {
  const d = cp.data;
  const numbers = node.position.join(",");
  const decided = node.status === "P" || node.status === "N";
  const cell = (text, cls) => el("td", { class: cls, text });
  const certificate = node.certificate
    ? [el("a", { href: `/api/campaigns/${cp.index}/certificate/${numbers}`, download: node.certificate.split("/").pop(), "data-key": "cert:" + numbers,
                 text: node.certificate.split("/").pop() }),
       node.certificate_valid ? el("span", { class: "valid", title: "Found valid by the independent verifier (sylver campaign verify)", text: " ✓ valid" }) : ""]
    : node.certificate_pending ? el("span", { title: "Decided; its next attempt builds the certificate", text: "to build" }) : "";
  // the parents' moves, but the root's own (the reply column says them)
  const rootText = d.root;
  const why = node.why === "root" ? "" : node.why.split("; ").filter((w) => !node.replies.some((r) => w === `${rootText} + ${r}`)).join("; ");
  const search = [plural(node.attempts, "attempt"), node.states ? `${fmt(node.states)} states` : "",
    node.seconds ? `${node.seconds.toFixed(1)} s` : "", node.peak_bytes ? `${fmt(Math.round(node.peak_bytes / 2 ** 20))} MB` : "",
    decided && !node.certificate_pending ? "" : `next ${node.budget} s`].filter(Boolean).join(", ");
  return el("tr", { class: "st-" + node.status, "data-position": numbers },
    cell(node.replies.join(", "), "num"),
    el("th", { scope: "row" }, el("a", { href: `#sylver/${numbers}//vs=nobody`, "data-key": "pos:" + numbers, text: node.text }),
      why ? el("span", { class: "why", text: `from ${why}` }) : null),
    el("td", { class: "status" }, cpStatusCell(node.status)),
    cell(node.winning === null || node.winning === undefined ? "" : fmt(node.winning), "num winning"),
    cell(node.method),
    cell(search, "search"),
    el("td", { class: "certificate" }, ...[certificate].flat()),
    cell(node.note, "wrap note"));
}

/* One line for the positions a theorem decides (N, no search), unless they are to be listed. */
function cpTheoremRow(nodes, replies) {
  const notes = [...new Set(nodes.map((n) => n.note).filter(Boolean))];
  const which = replies
    ? nodes.flatMap((n) => n.replies).sort((a, b) => a - b).map(fmt).join(", ")
    : nodes.slice(0, 30).map((n) => n.text).join(", ") + (nodes.length > 30 ? ", …" : "");
  const what = replies ? `${plural(nodes.length, "reply", "replies")} leave an N-position by a theorem`
    : `${plural(nodes.length, "deeper position")} N by a theorem`;
  return el("tr", { class: "theorems" },
    el("td", { colspan: String(CP_COLUMNS.length) },
      el("span", { class: "theorem-what", text: `${what}: ` }), which,
      notes.length ? el("span", { class: "hint", text: ` (${notes.join("; ")})` }) : null, " ",
      el("button", { type: "button", class: "linkish list-theorems", "data-key": "theorems:" + (replies ? "replies" : "deeper"), text: "list them" })));
}

function cpRender() {
  const d = cp.data;
  if (!d) return;
  const open = !["P", "N"].includes(d.summary.status);
  $("#cp-title").textContent = `Campaign on ${d.root}`;
  const headline = $("#cp-headline");
  if (headline.textContent !== d.headline) headline.textContent = d.headline;  // announced only when it changes
  headline.classList.toggle("win", !open);
  const time = cp.read.toLocaleTimeString("en-GB");
  $("#cp-about").textContent = `${plural(d.attempts, "attempt")} made so far. Read at ${time}`
    + (open ? "; read again every 10 seconds while the root is open." : "; the root is decided.");

  const table = $("#cp-table");
  const wrap = $("#cp-wrap");
  const active = document.activeElement;
  const focusKey = active && table.contains(active) ? active.dataset.key || "" : null;
  const scroll = [wrap.scrollLeft, wrap.scrollTop];
  for (const part of table.querySelectorAll("thead, tbody")) part.remove();
  const head = el("tr");
  for (const [, label, title] of CP_COLUMNS) head.append(el("th", { scope: "col", title, text: label }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  const nodes = d.nodes.filter(cpShows);
  const groups = [
    nodes.filter((n) => n.depth === 0 && !n.replies.length),
    nodes.filter((n) => n.replies.length),
    nodes.filter((n) => n.depth > 0 && !n.replies.length),
  ];
  let shown = 0;
  let cut = false;
  groups.forEach((group, k) => {
    const theorems = cp.theorems ? [] : group.filter((n) => n.method === "theorem");
    for (const node of group) {
      if (theorems.length && node.method === "theorem") continue;
      if (shown >= CP_MAX_ROWS) { cut = true; break; }
      body.append(cpRow(node));
      shown++;
    }
    if (theorems.length) body.append(cpTheoremRow(theorems, k === 1));
  });
  if (!nodes.length) body.append(el("tr", {}, el("td", { colspan: String(CP_COLUMNS.length), class: "hint", text: "No node here with this status." })));
  table.append(body);
  $("#cp-caption").textContent = `The nodes of the campaign on ${d.root}`;
  const all = d.summary.nodes;
  $("#cp-count").textContent = `${fmt(nodes.length)} of ${plural(all, "node")}`
    + (d.depth !== null && d.depth !== undefined ? ` (depth ≤ ${d.depth})` : "")
    + (cut ? `; the first ${fmt(CP_MAX_ROWS)} rows shown: choose a status or a depth to see the others` : "");
  [wrap.scrollLeft, wrap.scrollTop] = scroll;
  cpScrollCue();
  if (focusKey !== null) {
    const again = [...table.querySelectorAll("[data-key]")].find((e) => e.dataset.key === focusKey);
    (again || table).focus({ preventScroll: true });
  }
}

/* A table wider than its frame says so (on a phone the columns on the right are off-screen). */
function cpScrollCue() {
  const wrap = $("#cp-wrap");
  $("#cp-scroll").hidden = !cp.data || wrap.scrollWidth <= wrap.clientWidth + 1;
}

function setupCampaign() {
  ROUTES.campaign = cpRoute;
  window.addEventListener("resize", cpScrollCue);
  $("#cp-status").addEventListener("change", () => { cp.status = $("#cp-status").value; cpSetUrl(); cpRender(); });
  $("#cp-depth").addEventListener("change", () => { cp.depth = $("#cp-depth").value; cpSetUrl(); cpLoad(); });
  $("#cp-theorems").addEventListener("change", () => { cp.theorems = $("#cp-theorems").checked; cpRender(); });
  $("#cp-refresh").addEventListener("click", () => cpLoad());
  const plain = (ev) => ev.button === 0 && !ev.ctrlKey && !ev.metaKey && !ev.shiftKey && !ev.altKey;
  $("#cp-table").addEventListener("click", async (ev) => {
    const b = ev.target.closest("button.list-theorems");
    if (b) {
      cp.theorems = $("#cp-theorems").checked = true;
      cpRender();
      $("#cp-theorems").focus();
      return;
    }
    // a position: open it on the Sylver Coinage board, both sides played by the user
    const a = ev.target.closest('a[href^="#sylver/"]');
    if (!a || !plain(ev)) return;
    ev.preventDefault();
    history.pushState(null, "", a.getAttribute("href"));
    await route();
    scApplySettings("", sc.humanSeat);
    scRefresh();
  });
  $("#cp-list").addEventListener("click", (ev) => {
    const a = ev.target.closest("a[data-index]");
    if (!a || !plain(ev)) return;
    ev.preventDefault();
    history.pushState(null, "", a.getAttribute("href"));
    route();
  });
}

/* ================================================================================ Learn */
/* Short lessons on the Sylver Coinage board: each a theorem of the paper (Sicherman, "Theory and
   Practice of Sylver Coinage", Integers 2002) with a position to play from against the perfect
   player.  #learn/NAME is the lesson's address (its position, before any move); the analysis panel
   shows what the library says about every position reached.  The lessons state theorems; every
   outcome on the board comes from the server, as in any game. */
const LESSONS = [
  {
    name: "sylvester", title: "Sylvester's formula", start: [4, 5], vs: "perfect", sec: "1",
    text: [
      "When the numbers named are two numbers a and b with no common factor, the illegal numbers are the sums a·i + b·j. Sylvester (1884) found that the largest number left legal is t = ab − a − b, and that exactly (a − 1)(b − 1)/2 numbers are legal: of each pair n, t − n, exactly one.",
      "Here a = 4 and b = 5: t = 20 − 4 − 5 = 11, and 3·4/2 = 6 numbers are legal: 1, 2, 3, 6, 7 and 11. Point at a number in the grid to outline its partner t − n; the strip below the grid pairs them all.",
    ],
    task: "Your move against the perfect player. In {4,5}, t itself wins (sec. 1, footnote): name 11 and win the game.",
  },
  {
    name: "enders", title: "Enders and strategy stealing", start: [7, 8, 10, 13], vs: "perfect", sec: "1",
    text: [
      "An end is a legal number that eliminates no other legal number; t, the largest legal number, is always one. A position is an ender when t is its only end: every other legal move eliminates t.",
      "Strategy stealing: in an ender with t > 1 the player to move wins. Name t. If that wins, good. If instead the opponent had a winning reply m, then m would have won at once: naming m eliminates t anyway, so S ∪ {m} is the same position as S ∪ {t, m}. Either way a winning move exists, but the argument does not say which one.",
      "{7,8,10,13} is an ender (the analysis panel says “quiet ender”) with t = 19, so it is N; yet 19 itself loses here.",
    ],
    task: "Find a winning move against the perfect player. The analysis panel keeps who wins to itself until you have found one (or ask for the answer).",
    puzzle: true,
  },
  {
    name: "quiet-end", title: "The Quiet End Theorem", start: [4, 6], vs: "perfect", sec: "1",
    text: [
      "An ender is quiet when each legal n < t eliminates t on its own: t − n is already a sum of the numbers named. Every pair {m, n} with no common factor is a quiet ender, and by the Odds-and-Enders theorem (sec. 3) an ender is quiet exactly when t is odd.",
      "The Quiet End Theorem: let h be a quiet ender and p a prime. In h × p (every number of h multiplied by p), each move z > t(h) that p does not divide leaves a quiet ender, which the next player wins by strategy stealing. Only finitely many moves are left to examine.",
      "{4,6} = {2,3} × 2, and {2,3} is a quiet ender with t = 1: every odd move from 3 on leaves a quiet ender. Of the even numbers only 2 is legal, and 3 answers it ({2,3}: only 1 is left). So {4,6} is P.",
    ],
    task: "You move first against the perfect player: every move loses. Try an odd number and read the analysis of the position it leaves.",
  },
  {
    name: "hutchings", title: "Hutchings's theorem", start: [5], vs: "perfect", sec: "1",
    text: [
      "Hutchings's theorem: every {m, n} with no common factor is an ender (a quiet one), and {2,3} is the only such pair with t = 1. So, by strategy stealing, the player to move wins every other such pair.",
      "The p-theorem follows: for a prime p ≥ 5, {p} is P. Every move n from {p} other than 1 leaves the pair {p, n} (the multiples of p are illegal), and the opponent wins it.",
    ],
    task: "{5}: you move first against the perfect player, and every move loses. Watch which winning reply it finds to yours.",
  },
  {
    name: "periodicity", title: "Periodicity when g = 2", start: [8, 10, 22], vs: "perfect", sec: "2",
    text: [
      "When every number named is even (g = 2), infinitely many numbers stay legal: all the odd ones. To decide such a position one needs, for every odd x, the outcome after x, a position with g = 1.",
      "Periodicity (sec. 2): for a long position with g = 2 these outcomes are eventually periodic in x. The positions reached after an odd move come in finitely many shapes that shift with x, so a scan of the odd moves that finds a period decides them all.",
      "{8,10,22} is long ({4,5,11} = S ÷ 2 is not a quiet ender) and P (sec. 2). The engine in the analysis panel scans the odd moves and certifies the period; each even move (2, 4, 6, 12, 14) has a winning reply.",
    ],
    task: "You move first against the perfect player: every move loses. Try an even move, then an odd one.",
  },
  {
    name: "four-six", title: "The {4,6} family", start: [4, 6, 13], vs: "perfect", sec: "1",
    text: [
      "Since {4,6} is P, the positions that hold 4 and 6 and some odd numbers are solved exactly. For odd x ≥ 5: {4,6,x,x+2} is P when x ≡ 1 (mod 4), and N when x ≡ 3 (mod 4) with x − 2 its only winning move; {4,6,x} is N, and its only winning move is x + 2 when x ≡ 1 (mod 4), x − 2 when x ≡ 3 (mod 4).",
      "The proof is an induction on x. In {4,6,x,x+2} the legal moves are 1, 2 and the odd numbers below x; 2 leaves the pair {2,x}, 3 leaves {3,4} (or {3,4,5}), and an odd y from 5 to x − 4 leaves {4,6,y}, N because y is a move from the P-position {4,6}. Only x − 2 remains to decide.",
    ],
    task: "{4,6,13}: 13 ≡ 1 (mod 4). Find its only winning move against the perfect player. The analysis panel keeps it to itself until you have found it (or ask for the answer).",
    puzzle: true,
  },
];

function lnSetup() {
  const ol = $("#ln-list");
  for (const ls of LESSONS) {
    ol.append(el("li", {}, el("a", { href: `#learn/${ls.name}`, text: ls.title }), ` — play from ${braces(ls.start)} (sec. ${ls.sec})`));
  }
  $("#sc-lesson-close").addEventListener("click", () => { lnClose(); scSetUrl(false); });
  $("#sc-lesson-again").addEventListener("click", (ev) => {
    if (ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey || !sc.lesson) return;
    ev.preventDefault();
    const ls = sc.lesson;
    sc.lesson = null;  // entered afresh: the lesson's position without the moves played since
    history.pushState(null, "", `#learn/${ls.name}`);
    route();
  });
}

/* #learn/NAME: the lesson's text above the board and its position on the board (a fresh game
   against the lesson's opponent, unless the board already shows this lesson's game: Back from a
   move returns to the lesson's position with the moves still in the list). */
async function lnRoute(name) {
  const i = LESSONS.findIndex((x) => x.name === name);
  if (i < 0) {
    lnClose();
    history.replaceState(null, "", "#learn");
    showView("learn");
    const err = $("#ln-error");
    err.textContent = `There is no lesson “${name}”: choose one below.`;
    err.hidden = false;
    return;
  }
  const ls = LESSONS[i];
  const fresh = sc.lesson !== ls || !sc.state || braces(sc.start) !== braces(ls.start);
  sc.lesson = ls;
  if (fresh) sc.puzzle = ls.puzzle ? { shown: false, found: false } : null;
  lnShow(i);
  scApplySettings(ls.vs, 0);
  scSetError("");
  try {
    if (fresh) await scLoad(ls.start, []);
    else await scGo(0, false);
    scRefresh();
    scSetUrl(false);
  } catch (e) {
    scSetError(`The lesson's position cannot be shown: ${e.message}`);
  }
}

function lnShow(i) {
  const ls = LESSONS[i];
  $("#ln-error").hidden = true;
  $("#sc-lesson").hidden = false;
  document.body.classList.add("in-lesson");  // on a phone the lesson stands in for the setup form
  $("#sc-lesson-index").textContent = `${i + 1} of ${LESSONS.length}`;
  $("#sc-lesson-title").textContent = ls.title;
  // the theorem's text folds away (folded on a phone, so that the board shows); the task stays in view
  const body = $("#sc-lesson-body");
  body.innerHTML = "";
  const text = el("details", { class: "lesson-text", open: !narrow() },
    el("summary", { text: `The theorem (sec. ${ls.sec})` }));
  for (const para of ls.text) text.append(el("p", { text: para }));
  text.append(el("p", { class: "hint cite", text: `${cite(ls.sec)}.` }));
  body.append(text, el("p", { class: "lesson-task", text: ls.task }),
    el("p", { id: "sc-lesson-feedback", class: "lesson-feedback", role: "status" }));
  if (sc.puzzle && !sc.puzzle.shown) {
    $("#sc-spoilers").checked = false;
    scSpoilersApply();
    body.append(el("p", { class: "lesson-answer" }, el("button", { type: "button", id: "sc-lesson-reveal", class: "linkish", onclick: lnReveal, text: "Show the answer" })));
  } else if ($("#sc-spoilers").checked !== scSpoilersWanted() && !(sc.puzzle && sc.puzzle.shown)) {
    $("#sc-spoilers").checked = scSpoilersWanted();  // after a puzzle: as the user has it
    scSpoilersApply();
  }
  lnFeedback();
  const prev = LESSONS[i - 1], next = LESSONS[i + 1];
  $("#sc-lesson-prev").hidden = !prev;
  if (prev) $("#sc-lesson-prev").href = `#learn/${prev.name}`;
  $("#sc-lesson-next").hidden = !next;
  if (next) $("#sc-lesson-next").href = `#learn/${next.name}`;
  $("#sc-lesson-again").href = `#learn/${ls.name}`;
}

function lnClose() {
  if (!sc.lesson) return;
  sc.lesson = null;
  $("#sc-lesson").hidden = true;
  document.body.classList.remove("in-lesson");
  if (sc.puzzle && !sc.puzzle.shown) { $("#sc-spoilers").checked = scSpoilersWanted(); scSpoilersApply(); }
  sc.puzzle = null;
}

/* The puzzle's answer shown (asked for, or the move found): "Show who wins" as the user had it. */
function lnReveal() {
  if (!sc.puzzle) return;
  sc.puzzle.shown = true;
  const b = $("#sc-lesson-reveal");
  if (b) b.parentElement.remove();
  $("#sc-spoilers").checked = true;
  scSpoilersApply();
}

/* What the lesson says of the first move played from its position, once the solver has judged it:
   right (it leaves a P-position), or not (the opponent has a winning answer). */
function lnFeedback() {
  const box = $("#sc-lesson-feedback");
  const ls = sc.lesson;
  if (!box || !ls) return;
  const first = sc.root && braces(sc.start) === braces(ls.start) && sc.path.length > 1 ? sc.path[1] : null;
  box.className = "lesson-feedback";
  if (!first) { box.textContent = ""; return; }
  const m = fmt(first.move);
  if (first.out === undefined || first.out === null) {
    box.textContent = first.out === null ? `${m}: the solver could not decide it within its time limit.` : `${m}: checking…`;
    return;
  }
  if (first.out === "P") {
    box.textContent = `Right: ${m} wins. It leaves a P-position: whatever the perfect player answers, you can win.`;
    box.classList.add("right");
    if (sc.puzzle && !sc.puzzle.found) { sc.puzzle.found = true; lnReveal(); }
  } else if (ls.puzzle || first.move === 1) {
    box.textContent = `Not this one: ${m} leaves an N-position, where the perfect player has a winning answer. Press Home and try another move.`;
    box.classList.add("wrong");
  } else {
    box.textContent = `As the theorem says, ${m} loses: it leaves an N-position, and the perfect player has a winning answer.`;
  }
}

/* ============================================================================= boot */
async function boot() {
  try {
    Object.assign(INFO, await api("GET", "/api/info"));
  } catch (e) {
    document.body.prepend(el("p", { class: "error", role: "alert", text: "Cannot load /api/info: " + e.message }));
    return;
  }
  $("#version").textContent = INFO.version || "";
  for (const span of document.querySelectorAll(".paper")) span.textContent = INFO.paper;
  if (INFO.features.wythoff) $("#tab-wythoff").hidden = false;
  if (INFO.features.results) $("#tab-results").hidden = false;
  if (INFO.features.campaigns) $("#tab-campaign").hidden = false;
  setupSylver();
  lnSetup();
  if (INFO.features.wythoff) setupWythoff();
  if (INFO.features.results) setupResults();
  if (INFO.features.campaigns) setupCampaign();
  setupTabs();
  await route();
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", boot);
