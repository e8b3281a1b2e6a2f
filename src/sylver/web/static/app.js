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
  if (!on) scControls();
}

function scControls() {
  const s = sc.state;
  const over = !!(s && s.over);
  $("#sc-move").disabled = over;
  $("#sc-move-form button[type=submit]").disabled = over || sc.busy;
  $("#sc-undo").disabled = sc.busy || !s || !s.moves.some((_, i) => i % 2 === sc.humanSeat);
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
  sc.ends = null;
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
  scControls();
  scSave();
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
    st.textContent = `The ${botName()} bot's move. `;
    st.append(el("button", { type: "button", class: "linkish retry", onclick: () => scBotMove(), text: "Ask it to move" }));
  }
}

/* The game in progress survives a reload of the page. */
const SAVE_KEY = "sylver.game";

function scSave() {
  try {
    localStorage.setItem(SAVE_KEY, JSON.stringify({ start: sc.start, moves: sc.moves, bot: sc.bot, humanSeat: sc.humanSeat }));
  } catch (e) { /* private mode: nothing to keep */ }
}

async function scRestore() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(SAVE_KEY) || "null"); } catch (e) { saved = null; }
  if (!saved || !Array.isArray(saved.start) || !Array.isArray(saved.moves) || !INFO.bots.some((b) => b.name === saved.bot)) return false;
  try {
    const state = await api("POST", "/api/sylver/state", { start: saved.start, moves: saved.moves });
    sc.start = state.start;
    sc.bot = saved.bot;
    sc.humanSeat = saved.humanSeat === 1 ? 1 : 0;
    const form = $("#sc-setup");
    form.elements.bot.value = sc.bot;
    form.elements.first.value = sc.humanSeat === 0 ? "human" : "bot";
    if (state.start.length) { form.elements.start.value = "list"; $("#sc-start-list").value = state.start.join(", "); }
    scShow(state);
    return true;
  } catch (e) {
    return false;
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
  // the grid is rebuilt when analysis arrives: keep the keyboard focus on the same number
  const focused = grid.contains(document.activeElement) ? document.activeElement.dataset.n : null;
  grid.innerHTML = "";
  const ended = s.over && s.position.length === 1 && s.position[0] === 1;
  document.querySelector("#view-sylver .legend").hidden = ended;
  if (ended) {
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
    if (sc.ends && sc.ends.has(n) && n !== t) cls.push("end");
    const label = `${n}: ${legal ? "legal" : "illegal"}${named.has(n) ? ", named" : ""}${t === n ? ", t (the largest legal move)" : ""}${sc.winning && sc.winning.has(n) ? ", a winning move" : ""}${sc.ends && sc.ends.has(n) ? ", an end" : ""}`;
    frag.append(el("button", {
      type: "button", class: cls.join(" "), "data-n": String(n), "aria-label": label,
      tabindex: legal ? "0" : "-1", text: String(n),
    }));
  }
  grid.append(frag);
  if (!s.finite) {
    grid.append(el("span", { class: "cell illegal", "aria-hidden": "true", text: "…" }));
  }
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

function verdict(outcome, p, n) {
  return el("span", { class: "verdict" },
    el("span", { class: "badge " + outcome, text: outcome }),
    el("span", { class: "verdict-text", text: outcome === "N" ? (n || "the player to move wins") : (p || "the player to move loses") }));
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
  if (s.position.length === 1 && s.position[0] === 1) {
    fact(dl, "Legal moves", "none: 1 has been named");
  } else if (s.finite) {
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
  if (Array.isArray(rep.ends)) {
    const shown = rep.ends.slice(0, 40).map(fmt).join(", ") + (rep.ends.length > 40 ? `, … (${fmt(rep.ends.length)})` : "");
    fact(dl, "Ends", rep.ends.length ? shown : "—", "legal moves that eliminate no other legal move");
  } else if (rep.end_count) {
    fact(dl, "Ends", fmt(rep.end_count));
  }
  if (Array.isArray(rep.enclosure) && rep.gcd > 0) {
    const name = rep.gcd > 1 ? "Ē" : "E";
    const adds = Array.isArray(rep.enclosure_moves) && rep.enclosure_moves.length ? ` (adjoins ${rep.enclosure_moves.map(fmt).join(", ")})` : " (it is its own enclosure)";
    fact(dl, `Enclosure ${name}`, braces(rep.enclosure) + (rep.gcd > 0 ? adds : ""), "the ender reached by imposing antisymmetry about t (sec. 3)");
  }
  if (rep.prime_multiple) fact(dl, "Prime multiple", rep.prime_multiple, "short: a prime multiple of a quiet ender; long otherwise (sec. 1)");
  if (rep.roberts) fact(dl, "Roberts", `case ${rep.roberts.case}: ${rep.roberts.ender} (a₀ = ${rep.roberts.a0}, d = ${rep.roberts.d}, s = ${rep.roberts.s})`, "arithmetic progressions (sec. 4)");
  fact(dl, "Outcome", rep.outcome_by_theory ? verdict(rep.outcome_by_theory) : "not decided by a theorem");
  if (rep.winning_move !== null && rep.winning_move !== undefined) {
    fact(dl, "Winning move", el("button", { type: "button", class: "chip", "aria-label": `play ${rep.winning_move}, a winning move by theory`, onclick: () => scPlay(rep.winning_move), text: fmt(rep.winning_move) }));
  }
  box.append(el("h3", { text: "Theory" }), dl);
  if (rep.reason) box.append(el("p", { class: "reason", text: rep.reason }));
  if (Array.isArray(rep.ends) && sc.state && sc.state.finite) {
    sc.ends = new Set(rep.ends);
    scGrid();
  }
}

function scSolution(sol) {
  const body = $("#sc-solver-body");
  body.innerHTML = "";
  if (!sol.decided) {
    body.append(el("p", { class: "reason", text: sol.reason }));
    return;
  }
  const dl = el("dl", { class: "facts" });
  fact(dl, "Outcome", verdict(sol.outcome));
  const wins = sol.winning_moves || [];
  const chips = el("div", { class: "chips" });
  for (const w of wins) {
    chips.append(el("button", { type: "button", class: "chip", "aria-label": `play the winning move ${w}`, onclick: () => scPlay(w), text: fmt(w) }));
  }
  if (sol.outcome === "N") fact(dl, sol.complete ? "Winning moves" : "A winning move", wins.length ? chips : "—");
  else fact(dl, "Winning moves", "none");
  if (sol.states !== undefined) fact(dl, "Searched", `${fmt(sol.states)} position${sol.states === 1 ? "" : "s"} in ${sol.seconds.toFixed(3)} s${sol.from_store ? " (from the store)" : ""}`);
  body.append(dl);
  if (!sol.complete && sol.reason) body.append(el("p", { class: "reason", text: sol.reason + " — there may be more winning moves." }));
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
  const spoilers = $("#sc-spoilers");
  try { spoilers.checked = localStorage.getItem("sylver.spoilers") !== "off"; } catch (e) { /* no storage */ }
  const applySpoilers = () => {
    document.body.classList.toggle("no-spoilers", !spoilers.checked);
    try { localStorage.setItem("sylver.spoilers", spoilers.checked ? "on" : "off"); } catch (e) { /* no storage */ }
  };
  spoilers.addEventListener("change", applySpoilers);
  applySpoilers();
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
    cells[Math.max(0, Math.min(cells.length - 1, i + step))].focus();
  });
  grid.addEventListener("mouseover", (ev) => scPartner(ev, true));
  grid.addEventListener("mouseout", (ev) => scPartner(ev, false));
  grid.addEventListener("focusin", (ev) => scPartner(ev, true));
  grid.addEventListener("focusout", (ev) => scPartner(ev, false));
  $("#sc-prev").addEventListener("click", () => scPage(-1));
  $("#sc-next").addEventListener("click", () => scPage(1));
  $("#sc-goto").addEventListener("keydown", scGoto);
  scRestore().then((restored) => { if (!restored) scNewGame(); });
}

/* ================================================================================ Wythoff */
const wy = { pos: [0, 0], size: 8, humanFirst: true, misere: false, facts: null, history: [], cold: null, over: false, busy: false };

function wySetError(msg) {
  const box = $("#wy-error");
  box.textContent = msg || "";
  box.hidden = !msg;
}

async function wyNewGame(ev) {
  if (ev) ev.preventDefault();
  wySetError("");
  const i = Number($("#wy-i").value), j = Number($("#wy-j").value);
  if (!Number.isInteger(i) || !Number.isInteger(j) || i < 0 || j < 0 || i > 40 || j > 40) {
    wySetError("The queen's square needs whole numbers from 0 to 40.");
    return;
  }
  wy.humanFirst = $("#wy-setup").elements.wyfirst.value === "human";
  wy.misere = $("#wy-misere").checked;
  $("#wy-rule").textContent = wy.misere
    ? "Misère: whoever moves her to the corner (0, 0) loses."
    : "Whoever moves her to the corner (0, 0) wins.";
  wy.size = Math.max(8, i + 1, j + 1);
  wy.history = [];
  wy.cold = null;
  try {
    const facts = await api("GET", `/api/wythoff/analyze?i=${i}&j=${j}&misere=${wy.misere}`);
    wyShow(facts, null);
    if (!wy.humanFirst && !facts.over) await wyComputer();
    else if ($("#wy-cold").checked) wyLoadCold();
  } catch (e) {
    wySetError(e.message);
  }
}

function wyShow(facts, winner) {
  wy.facts = facts;
  wy.pos = facts.position;
  wy.over = facts.over || !!winner;
  wy.winner = winner;
  $("#wy-position").textContent = `(${wy.pos[0]}, ${wy.pos[1]})`;
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
    st.textContent = "Your move: click a highlighted square.";
  }
  wyFacts();
  wyHistory();
  wyBoard();
}

async function wyMove(to) {
  if (wy.busy || wy.over) return;
  wySetError("");
  wy.busy = true;
  try {
    const from = wy.pos;
    const r = await api("POST", "/api/wythoff/move", { position: from, to, misere: wy.misere });
    wy.history.push({ who: "You", to: r.you });
    if (r.reply) wy.history.push({ who: "Perfect player", to: r.reply });
    wyShow(r, r.winner);
  } catch (e) {
    wySetError(e.message);
  } finally {
    wy.busy = false;
  }
}

async function wyComputer() {
  const r = await api("POST", "/api/wythoff/computer-move", { position: wy.pos, misere: wy.misere });
  wy.history.push({ who: "Perfect player", to: r.reply });
  wyShow(r, r.winner);
  if ($("#wy-cold").checked) wyLoadCold();
}

async function wyLoadCold() {
  try {
    const r = await api("GET", `/api/wythoff/cold?limit=${wy.size - 1}&misere=${wy.misere}`);
    wy.cold = new Set(r.cold.map((p) => p.join(",")));
    wyBoard();
  } catch (e) {
    wySetError(e.message);
  }
}

function wyFacts() {
  const f = wy.facts;
  const dl = $("#wy-facts");
  dl.innerHTML = "";
  fact(dl, "Queen at", `(${f.position[0]}, ${f.position[1]})`);
  fact(dl, "Rules", f.misere ? "misère: whoever takes the last counter loses" : "normal: whoever reaches the corner wins");
  if (!wy.over) {
    fact(dl, "Outcome", verdict(f.outcome, "cold: the player to move loses", "hot: the player to move wins"));
    if ($("#wy-hint").checked) {
      fact(dl, "Winning moves", f.winning_moves.length ? f.winning_moves.map((p) => `(${p[0]}, ${p[1]})`).join(", ") : "none");
    }
    if (f.nim_value !== null && f.nim_value !== undefined) fact(dl, "Nim value", String(f.nim_value), "the Grundy value of the position");
  }
}

function wyHistory() {
  const ol = $("#wy-history");
  ol.innerHTML = "";
  for (const h of wy.history) {
    ol.append(el("li", {}, el("span", { class: "who", text: h.who }), el("span", { class: "mv", text: `(${h.to[0]}, ${h.to[1]})` })));
  }
}

function wyBoard() {
  const board = $("#wy-board");
  board.innerHTML = "";
  const n = wy.size;
  board.style.gridTemplateColumns = `1.6rem repeat(${n}, minmax(0, 1fr))`;
  const reach = new Set(!wy.over && wy.facts.moves ? wy.facts.moves.map((p) => p.join(",")) : []);
  const wins = new Set($("#wy-hint").checked && !wy.over ? wy.facts.winning_moves.map((p) => p.join(",")) : []);
  const showCold = $("#wy-cold").checked && wy.cold;
  const frag = document.createDocumentFragment();
  for (let y = n - 1; y >= 0; y--) {
    frag.append(el("span", { class: "axis", "aria-hidden": "true", text: String(y) }));
    for (let x = 0; x < n; x++) {
      const key = `${x},${y}`;
      const queen = x === wy.pos[0] && y === wy.pos[1];
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

const QUEEN_SVG = '<svg viewBox="0 0 40 40" aria-hidden="true"><path class="queen" d="M6 14 L11 29 H29 L34 14 L26 21 L20 9 L14 21 Z"/><rect class="queen" x="10" y="31" width="20" height="4" rx="1.5"/><circle class="queen" cx="6" cy="12" r="3"/><circle class="queen" cx="20" cy="7" r="3"/><circle class="queen" cx="34" cy="12" r="3"/></svg>';

function setupWythoff() {
  $("#wy-setup").addEventListener("submit", wyNewGame);
  $("#wy-random").addEventListener("click", () => {
    $("#wy-i").value = 4 + Math.floor(Math.random() * 17);
    $("#wy-j").value = 4 + Math.floor(Math.random() * 17);
  });
  $("#wy-board").addEventListener("click", (ev) => {
    const b = ev.target.closest(".sq.reach");
    if (b) wyMove([Number(b.dataset.x), Number(b.dataset.y)]);
  });
  $("#wy-cold").addEventListener("change", () => { if ($("#wy-cold").checked && !wy.cold) wyLoadCold(); else wyBoard(); });
  $("#wy-hint").addEventListener("change", () => { wyFacts(); wyBoard(); });
  wyNewGame();
}

/* ============================================================================= tournament */
const rs = { offset: 0, limit: 50, bot: "", total: 0, game: null, ply: 0, token: 0, summary: null };

const STANDING_COLUMNS = [
  ["rank", "#"], ["name", "bot"], ["points", "points"], ["games", "games"], ["wl", "W–L"],
  ["firstsecond", "1st/2nd wins"], ["crashes", "crash"], ["timeouts", "timeout"], ["illegal", "illegal"],
  ["avg_time", "avg/move"], ["max_time", "max/move"], ["elo", "Elo ± 95%"],
];

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
    for (const [, label] of STANDING_COLUMNS) head.append(el("th", { scope: "col", text: label }));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (const r of s.standings) {
      const tr = el("tr");
      for (const [key] of STANDING_COLUMNS) {
        let v;
        if (key === "wl") v = `${r.wins}–${r.losses}`;
        else if (key === "firstsecond") v = `${r.wins_first}/${r.wins_second}`;
        else if (key === "avg_time" || key === "max_time") v = fmtTime(r[key]);
        else if (key === "elo") v = `${r.elo >= 0 ? "+" : ""}${Math.round(r.elo)} ± ${Math.round(r.elo_margin)}`;
        else if (key === "points") v = String(r.points);
        else v = r[key] === undefined ? "—" : String(r[key]);
        if (key === "name" && r.disqualified) v += " (disqualified)";
        tr.append(el("td", { class: key === "name" ? "" : "num", text: v }));
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
  for (const label of ["game", "round", "first", "second", "start", "moves", "result"]) head.append(el("th", { scope: "col", text: label }));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const g of r.games) {
    const tr = el("tr", { tabindex: "0", "data-game": String(g.game), "data-phase": String(g.phase), "aria-label": `Replay game ${g.game}: ${g.result}` },
      el("td", { class: "num", text: String(g.game) }),
      el("td", { class: "num", text: String(g.round ?? "") }),
      el("td", { text: g.players[0] }),
      el("td", { text: g.players[1] }),
      el("td", { text: braces(g.start || []) }),
      el("td", { class: "num", text: fmt(g.moves) }),
      el("td", { text: g.result }));
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

async function rsOpen(game, phase) {
  try {
    const g = await api("GET", `/api/results/games/${game}?phase=${phase}`);
    rs.game = g;
    for (const tr of document.querySelectorAll("#rs-games tbody tr")) {
      tr.classList.toggle("selected", tr.dataset.game === String(g.game) && tr.dataset.phase === String(g.phase ?? 0));
    }
    $("#rs-replay-hint").hidden = true;
    $("#rs-replay-body").hidden = false;
    $("#rs-game-title").textContent = `Game ${g.game}: ${g.players[0]} (first) vs ${g.players[1]} — ${g.result}`;
    const slider = $("#rs-slider");
    slider.max = String(g.steps);
    const ol = $("#rs-moves");
    ol.innerHTML = "";
    (g.moves || []).forEach((m, k) => {
      const losing = k >= g.steps;
      ol.append(el("li", { "data-ply": String(k + 1) },
        el("span", { class: "who", text: g.players[k % 2] }),
        el("button", { type: "button", class: "linkish mv", "data-ply": String(Math.min(k + 1, g.steps)), text: typeof m === "number" ? fmt(m) : JSON.stringify(m) }),
        losing ? el("span", { class: "after", text: "(loses)" }) : null));
    });
    await rsStep(0);
  } catch (e) {
    $("#rs-replay-hint").hidden = false;
    $("#rs-replay-hint").textContent = e.message;
  }
}

async function rsStep(ply) {
  const g = rs.game;
  if (!g) return;
  ply = Math.max(0, Math.min(ply, g.steps));
  rs.ply = ply;
  const token = ++rs.token;
  $("#rs-slider").value = String(ply);
  $("#rs-ply").textContent = `move ${ply} of ${g.steps}`;
  $("#rs-first").disabled = $("#rs-back").disabled = ply === 0;
  $("#rs-last").disabled = $("#rs-fwd").disabled = ply === g.steps;
  for (const li of document.querySelectorAll("#rs-moves li")) li.classList.toggle("current", Number(li.dataset.ply) === ply);
  const cur = document.querySelector(`#rs-moves li[data-ply="${ply}"]`);
  if (cur) cur.scrollIntoView({ block: "nearest" });
  try {
    const s = await api("GET", `/api/results/games/${g.game}/position?ply=${ply}&phase=${g.phase ?? 0}`);
    if (token !== rs.token) return;
    const dl = $("#rs-step");
    dl.innerHTML = "";
    if (ply > 0) fact(dl, "Move", `${g.players[(ply - 1) % 2]} named ${fmt(g.moves[ply - 1])}`);
    else fact(dl, "Move", "the start");
    const text = s.braces.length > 160 ? s.braces.slice(0, 160) + "…}" : s.braces;
    fact(dl, "Position", el("span", { class: "position-small", title: s.braces, text }));
    fact(dl, "g", String(s.gcd));
    if (s.finite) {
      fact(dl, "t", fmt(s.frobenius_number));
      fact(dl, "Genus", fmt(s.genus));
    } else {
      fact(dl, "Legal moves", s.describe);
    }
    if (ply === g.steps) fact(dl, "Result", g.result);
    else fact(dl, "To move", g.players[ply % 2]);
  } catch (e) {
    if (token === rs.token) $("#rs-step").textContent = e.message;
  }
}

function setupResults() {
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
  $("#rs-replay").addEventListener("keydown", (ev) => {
    if (ev.target.id === "rs-slider") return;
    if (ev.key === "ArrowRight") { rsStep(rs.ply + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { rsStep(rs.ply - 1); ev.preventDefault(); }
  });
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
