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
    opts.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError(0, { error: { code: "network", message: "cannot reach the server" } });
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

const INFO = { bots: [], features: {}, limits: {} };

/* ------------------------------------------------------------------------------------------ tabs */
function setupTabs() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  const show = (tab, focus) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      $("#" + t.getAttribute("aria-controls")).hidden = !on;
    }
    if (focus) tab.focus();
    history.replaceState(null, "", "#" + tab.dataset.view);
    const hook = VIEW_SHOWN[tab.dataset.view];
    if (hook) hook();
  };
  tabs.forEach((t) => {
    t.addEventListener("click", () => show(t, false));
    t.addEventListener("keydown", (ev) => {
      const visible = tabs.filter((x) => !x.hidden);
      const i = visible.indexOf(t);
      if (ev.key === "ArrowRight") show(visible[(i + 1) % visible.length], true);
      else if (ev.key === "ArrowLeft") show(visible[(i - 1 + visible.length) % visible.length], true);
      else return;
      ev.preventDefault();
    });
  });
  const wanted = tabs.find((t) => "#" + t.dataset.view === location.hash && !t.hidden);
  if (wanted) show(wanted, false);
}
const VIEW_SHOWN = {};

/* =============================================================================== Sylver Coinage */
const PAGE = 500; // numbers per grid page when t is large

const sc = {
  start: [],
  moves: [],
  bot: "random",
  humanSeat: 0,
  state: null,
  lo: 1,          // first number shown in the grid
  window: null,   // {lo, hi, legal} when paging through a large range
  winning: null,  // Set of winning moves from the solver, when decided
  busy: false,
  token: 0,       // guards against answers that arrive after a newer request
};

function scSetError(msg) {
  const box = $("#sc-error");
  box.textContent = msg || "";
  box.hidden = !msg;
}

function scSetBusy(on) {
  sc.busy = on;
  for (const b of document.querySelectorAll("#sc-move-form button, #sc-new")) b.disabled = on;
  $("#sc-grid").setAttribute("aria-busy", on ? "true" : "false");
}

function botName() {
  return sc.bot;
}

function seatName(seat) {
  return seat === sc.humanSeat ? "You" : "Bot";
}

async function scNewGame(ev) {
  if (ev) ev.preventDefault();
  scSetError("");
  const form = $("#sc-setup");
  const kind = form.elements.start.value;
  sc.bot = form.elements.bot.value || "random";
  sc.humanSeat = form.elements.first.value === "human" ? 0 : 1;
  let start = [];
  try {
    if (kind === "list") start = $("#sc-start-list").value;
    else if (kind === "koth") start = (await api("GET", "/api/sylver/random-start")).start;
    sc.moves = [];
    const state = await api("POST", "/api/sylver/state", { start, moves: [] });
    sc.start = state.start;
    scShow(state);
    if (sc.humanSeat === 1) await scBotMove();
  } catch (e) {
    scSetError(e.message);
  }
}

async function scPlay(n) {
  if (sc.busy || !sc.state) return;
  scSetError("");
  if (sc.state.over) {
    scSetError("The game is over: start a new game or undo.");
    return;
  }
  if (sc.state.to_move !== sc.humanSeat) return;
  scSetBusy(true);
  try {
    const state = await api("POST", "/api/sylver/move", { start: sc.start, moves: sc.moves, move: n });
    scShow(state);
  } catch (e) {
    scSetBusy(false);
    scSetError(e.message);
    const cell = document.querySelector(`#sc-grid [data-n="${n}"]`);
    if (cell) { cell.classList.remove("shake"); void cell.offsetWidth; cell.classList.add("shake"); }
    return;
  }
  scSetBusy(false);
  if (!sc.state.over) await scBotMove();
}

async function scBotMove() {
  scSetBusy(true);
  $("#sc-status").innerHTML = "";
  $("#sc-status").append(el("span", { class: "spinner", "aria-hidden": "true" }), ` The ${botName()} bot is thinking…`);
  try {
    const state = await api("POST", "/api/sylver/bot-move", { start: sc.start, moves: sc.moves, bot: sc.bot });
    scSetBusy(false);
    scShow(state);
  } catch (e) {
    scSetBusy(false);
    scSetError(e.message);
    scStatus();
  }
}

async function scUndo() {
  if (sc.busy) return;
  scSetError("");
  const moves = sc.moves.slice();
  // Undo the human's last move and the bot's reply (if any).
  let removedHuman = false;
  while (moves.length) {
    const seat = (moves.length - 1) % 2;
    moves.pop();
    if (seat === sc.humanSeat) { removedHuman = true; break; }
  }
  if (!removedHuman) return;
  try {
    const state = await api("POST", "/api/sylver/state", { start: sc.start, moves });
    scShow(state);
  } catch (e) {
    scSetError(e.message);
  }
}

function scShow(state) {
  sc.state = state;
  sc.moves = state.moves;
  sc.window = null;
  sc.lo = 1;
  sc.winning = null;
  sc.token += 1;
  $("#sc-position").textContent = state.braces;
  $("#sc-describe").textContent = state.finite
    ? (state.over ? state.describe : `Legal moves: ${state.describe}.`)
    : `Legal moves: ${state.describe}.`;
  scStatus();
  scHistory();
  scGrid();
  scAnti();
  scFacts();
  scAnalyse();
  $("#sc-undo").disabled = !state.moves.some((_, i) => i % 2 === sc.humanSeat);
}

function scStatus() {
  const s = sc.state;
  const st = $("#sc-status");
  st.className = "status";
  if (!s) { st.textContent = ""; return; }
  if (s.result) {
    const r = s.result;
    const youWin = r.winner === sc.humanSeat;
    const who = r.loser === sc.humanSeat ? "you" : `the ${botName()} bot`;
    let why = r.reason === "named 1" ? `${who} named 1` : `${who} named ${fmt(r.move)}, which is illegal` + (r.detail ? ` (${r.detail})` : "");
    st.textContent = (youWin ? "You win: " : "The bot wins: ") + why + ".";
    st.classList.add(youWin ? "win" : "lose");
    return;
  }
  if (s.to_move === sc.humanSeat) {
    st.textContent = s.position.length === 2 && s.position[0] === 2 && s.position[1] === 3
      ? "Your move: only 1 is left — you must name it."
      : "Your move.";
  } else {
    st.textContent = `The ${botName()} bot's move.`;
  }
}

function scHistory() {
  const ol = $("#sc-history");
  ol.innerHTML = "";
  const s = sc.state;
  $("#sc-history-empty").hidden = s.moves.length > 0;
  if (s.start.length) {
    ol.append(el("li", { value: "0", class: "start" }, el("span", { class: "who", text: "Start" }), el("span", { class: "after", text: braces(s.start) })));
  }
  s.moves.forEach((n, i) => {
    const who = seatName(i % 2);
    ol.append(el("li", {}, el("span", { class: "who", text: who }), el("span", { class: "mv", text: fmt(n) })));
  });
  ol.scrollTop = ol.scrollHeight;
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
  grid.innerHTML = "";
  if (s.over && s.position.length === 1 && s.position[0] === 1) {
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
  const named = new Set(s.position);
  const t = s.frobenius_number;
  const frag = document.createDocumentFragment();
  for (let n = lo; n <= hi; n++) {
    const legal = scLegalAt(n);
    const cls = ["cell", legal ? "legal" : "illegal"];
    if (named.has(n)) cls.push("named");
    if (t !== null && n === t) cls.push("t");
    if (sc.winning && sc.winning.has(n)) cls.push("win");
    const label = `${n}: ${legal ? "legal" : "illegal"}${named.has(n) ? ", named" : ""}${t === n ? ", t (the largest legal move)" : ""}${sc.winning && sc.winning.has(n) ? ", a winning move" : ""}`;
    frag.append(el("button", {
      type: "button", class: cls.join(" "), "data-n": String(n), "aria-label": label,
      tabindex: legal ? "0" : "-1", text: String(n),
    }));
  }
  grid.append(frag);
  if (!s.finite) {
    grid.append(el("span", { class: "cell illegal", "aria-hidden": "true", text: "…" }));
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

function fact(dl, name, value, title) {
  dl.append(el("dt", { title }, name), el("dd", {}, value));
}

function scFacts() {
  const s = sc.state;
  const dl = $("#sc-facts");
  dl.innerHTML = "";
  fact(dl, "Position", s.braces);
  fact(dl, "g", String(s.gcd), "the gcd of the named numbers");
  if (s.finite) {
    fact(dl, "t", s.frobenius_number === null ? "—" : fmt(s.frobenius_number), "the largest legal move (Frobenius number)");
    fact(dl, "Genus", s.genus === null ? "—" : fmt(s.genus), "the number of legal moves");
  } else {
    fact(dl, "t̄", s.tbar === null ? "—" : fmt(s.tbar), "t̄ = g · t(S ÷ g)");
    fact(dl, "Legal moves", "infinitely many");
  }
  fact(dl, "To move", s.over ? "game over" : seatName(s.to_move));
}

/* The theory report and the solver: filled in by scAnalyse when the server offers them. */
async function scAnalyse() {
  const s = sc.state;
  const token = sc.token;
  const theory = $("#sc-theory");
  theory.innerHTML = "";
  const solver = $("#sc-solver");
  if (s.over) { solver.hidden = true; return; }
  if (INFO.features.theory) {
    try {
      const rep = await api("GET", `/api/sylver/analyze?position=${encodeURIComponent(s.position.join(","))}`);
      if (token !== sc.token) return;
      scTheory(rep);
    } catch (e) {
      if (token === sc.token) theory.append(el("p", { class: "error", text: e.message }));
    }
  }
  if (INFO.features.solver) {
    solver.hidden = false;
    const body = $("#sc-solver-body");
    body.innerHTML = "";
    if (!s.finite) {
      body.append(el("p", { class: "reason", text: "Exact solving needs g = 1: this position has infinitely many legal moves." }));
      return;
    }
    body.append(el("p", {}, el("span", { class: "spinner", "aria-hidden": "true" }), ` Solving (at most ${INFO.limits.solve_time} s)…`));
    try {
      const sol = await api("POST", "/api/sylver/solve", { position: s.position });
      if (token !== sc.token) return;
      scSolution(sol);
    } catch (e) {
      if (token !== sc.token) return;
      body.innerHTML = "";
      body.append(el("p", { class: "reason", text: e.message }));
    }
  }
}

function scTheory(rep) {
  const box = $("#sc-theory");
  const dl = el("dl", { class: "facts" });
  if (rep.ender !== null && rep.ender !== undefined) {
    const kinds = { quiet: "quiet ender", unquiet: "unquiet ender", none: "not an ender" };
    fact(dl, "Ender", kinds[rep.ender] || String(rep.ender), "an ender has t as its only end (sec. 1); quiet iff t is odd (sec. 3)");
  }
  if (Array.isArray(rep.ends)) fact(dl, "Ends", rep.ends.length ? rep.ends.map(fmt).join(", ") : "—", "legal moves that eliminate no other legal move");
  if (Array.isArray(rep.enclosure)) fact(dl, rep.gcd > 1 ? "Ē" : "E", braces(rep.enclosure), "the enclosure: the ender reached by imposing antisymmetry (sec. 3)");
  if (rep.outcome_by_theory) fact(dl, "Theory", el("span", { class: "badge " + rep.outcome_by_theory, text: rep.outcome_by_theory }));
  box.append(el("h3", { text: "Theory" }), dl);
  if (rep.reason) box.append(el("p", { class: "reason", text: rep.reason }));
}

function scSolution(sol) {
  const body = $("#sc-solver-body");
  body.innerHTML = "";
  if (!sol.decided) {
    body.append(el("p", { class: "reason", text: sol.reason }));
    return;
  }
  const dl = el("dl", { class: "facts" });
  const label = sol.outcome === "N" ? "N — the player to move wins" : "P — the player to move loses";
  fact(dl, "Outcome", el("span", { class: "badge " + sol.outcome, text: label }));
  const wins = sol.winning_moves || [];
  const chips = el("div", { class: "chips" });
  for (const w of wins) {
    chips.append(el("button", { type: "button", class: "chip", "aria-label": `play the winning move ${w}`, onclick: () => scPlay(w), text: fmt(w) }));
  }
  if (sol.outcome === "N") fact(dl, sol.complete ? "Winning moves" : "A winning move", wins.length ? chips : "—");
  else fact(dl, "Winning moves", "none");
  if (sol.states !== undefined) fact(dl, "Searched", `${fmt(sol.states)} position${sol.states === 1 ? "" : "s"} in ${sol.seconds.toFixed(3)} s${sol.from_store ? " (from the store)" : ""}`);
  body.append(dl);
  sc.winning = new Set(wins);
  scGrid();
}

function setupSylver() {
  const sel = $("#sc-bot");
  sel.innerHTML = "";
  for (const b of INFO.bots) sel.append(el("option", { value: b.name, title: b.about, text: b.name }));
  const preferred = INFO.bots.find((b) => b.name === "perfect") || INFO.bots[0];
  if (preferred) sel.value = preferred.name;
  $("#sc-setup").addEventListener("submit", scNewGame);
  $("#sc-start-list").addEventListener("focus", () => { $("#sc-setup").elements.start.value = "list"; });
  $("#sc-move-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const raw = $("#sc-move").value.trim().replace(/[\s,_]/g, "");
    if (!/^\d+$/.test(raw)) { scSetError(`"${$("#sc-move").value}" is not a positive integer.`); return; }
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < 1) { scSetError(`"${raw}" is not a positive integer the page can send.`); return; }
    $("#sc-move").value = "";
    scPlay(n);
  });
  $("#sc-undo").addEventListener("click", scUndo);
  const grid = $("#sc-grid");
  grid.addEventListener("click", (ev) => {
    const cell = ev.target.closest(".cell[data-n]");
    if (cell) scPlay(Number(cell.dataset.n));
  });
  grid.addEventListener("mouseover", (ev) => scPartner(ev, true));
  grid.addEventListener("mouseout", (ev) => scPartner(ev, false));
  grid.addEventListener("focusin", (ev) => scPartner(ev, true));
  grid.addEventListener("focusout", (ev) => scPartner(ev, false));
  $("#sc-prev").addEventListener("click", () => scPage(-1));
  $("#sc-next").addEventListener("click", () => scPage(1));
  $("#sc-goto").addEventListener("keydown", scGoto);
  scNewGame();
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
  if (INFO.features.wythoff) $("#tab-wythoff").hidden = false;
  if (INFO.features.results) $("#tab-results").hidden = false;
  setupSylver();
  if (INFO.features.wythoff && typeof setupWythoff === "function") setupWythoff();
  if (INFO.features.results && typeof setupResults === "function") setupResults();
  setupTabs();
  document.body.dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", boot);
