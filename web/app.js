// The Kalah explorer: draws the position, asks this server for its values
// (/api/v1/query) and plays moves through it (/api/v1/play), so that the
// rules live in the engine alone. Nothing is fetched from anywhere else.
"use strict";

// What the status line says an answer came from (docs/json.md, "source").
const SOURCES = {
  table: "endgame tables",
  book: "opening book",
  kept: "answers kept from earlier searches",
  search: "search",
};

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const state = {
  history: [], // positions (text), oldest first
  index: -1, // the one shown
  rules: "std",
  end: "sweep",
  mode: "analyse", // or "S" / "N": the side the person plays
  answer: null, // the query's answer for the position shown, or null
  auto: false, // playing the perfect game to the end
  seq: 0, // the latest render; older answers are dropped
  pending: "", // a message for the next render (a bad position in the URL)
};

// The counts and side of a position's text (for drawing only).
function parse(text) {
  const words = text.trim().split(/[\s,]+/);
  const side = words.pop();
  const counts = words.map(Number);
  const m = counts.length / 2 - 1;
  return {
    m,
    south: counts.slice(0, m),
    southStore: counts[m],
    north: counts.slice(m + 1, 2 * m + 1),
    northStore: counts[2 * m + 1],
    side: side.toUpperCase(),
  };
}

// Where the page starts without a position in the URL: Kalah(6,3), whose
// start a search answers within the server's default budget.
const DEFAULT = "3 3 3 3 3 3 0 3 3 3 3 3 3 0 S";

// Whether a position's text has the shape of one (drawn before the server
// has checked it).
function drawable(pos) {
  const all = pos.south.concat(pos.north, [pos.southStore, pos.northStore]);
  return Number.isInteger(pos.m) && pos.m >= 1 && pos.m <= 8 && all.every(Number.isInteger) && ["S", "N"].includes(pos.side);
}

// The width under which the board is drawn for a phone (style.css has
// the same).
const NARROW = "(max-width: 40rem)";

function startPosition(m, n) {
  const row = Array(m).fill(n).join(" ");
  return `${row} 0 ${row} 0 S`;
}

function rulesQuery() {
  return `rules=${state.rules}&end=${state.end}`;
}

async function api(path) {
  const r = await fetch(path);
  let body;
  try {
    body = await r.json();
  } catch (e) {
    body = { error: `the server answered ${r.status}` };
  }
  return { ok: r.ok, status: r.status, body };
}

function signed(v) {
  return v > 0 ? `+${v}` : `${v}`;
}

function outcome(v) {
  return v > 0 ? "win" : v < 0 ? "loss" : "draw";
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

function text(parent, x, y, content, cls) {
  const t = el("text", { x, y, class: cls, "text-anchor": "middle", "dominant-baseline": "middle" }, parent);
  t.textContent = content;
  return t;
}

// Draws the board: North's houses m..1 on top, South's 1..m below, North's
// store left, South's right; the values of the mover's moves beside them.
function draw(pos, answer) {
  const svg = $("board");
  svg.replaceChildren();
  // On a narrow screen (a phone) the board is scaled down to about half:
  // its labels and values are drawn larger, with room for them, so that
  // they still read at 12-15 px.
  const narrow = window.matchMedia(NARROW).matches;
  svg.classList.toggle("narrow", narrow);
  const W = 80, H = 80, gap = 10, middle = 34;
  const band = narrow ? 96 : 52, valueAt = narrow ? 26 : 18, nameAt = narrow ? 70 : 40;
  const width = (pos.m + 2) * (W + gap) + gap;
  const top = band, bottom = top + H + middle;
  const height = bottom + H + band;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  el("rect", { x: 0, y: 0, width, height, rx: 24, class: "wood" }, svg);
  const values = new Map();
  if (answer) for (const mv of answer.moves) values.set(mv.house, mv);
  const best = new Set(answer ? answer.best : []);
  const over = answer && answer.source === "finished";
  // Stores: North's on the left, South's on the right.
  for (const [side, x, seeds] of [["N", gap, pos.northStore], ["S", width - gap - W, pos.southStore]]) {
    el("rect", { x, y: top, width: W, height: 2 * H + middle, rx: 36, class: "store" }, svg);
    text(svg, x + W / 2, top + H + middle / 2, seeds, "count");
    text(svg, x + W / 2, side === "N" ? top - valueAt : bottom + H + valueAt, side === "N" ? "North" : "South", "name");
  }
  for (const side of ["N", "S"]) {
    const seeds = side === "N" ? pos.north : pos.south;
    for (let h = 1; h <= pos.m; h++) {
      const col = side === "N" ? pos.m - h : h - 1;
      const x = gap + (col + 1) * (W + gap);
      const y = side === "N" ? top : bottom;
      const mover = side === pos.side && !over;
      const mv = mover ? values.get(h) : undefined;
      const g = el("g", { class: "house", "data-side": side, "data-house": h }, svg);
      const cls = ["pit"];
      if (mv) cls.push(outcome(mv.value));
      // Against perfect play, the person moves their own side only.
      const yours = state.mode === "analyse" || side === state.mode;
      if (mover && yours && seeds[h - 1] > 0) {
        cls.push("playable");
        g.setAttribute("role", "button");
        g.setAttribute("tabindex", "0");
      }
      if (mv && best.has(h)) el("rect", { x: x - 5, y: y - 5, width: W + 10, height: H + 10, rx: 37, class: "ring" }, g);
      el("rect", { x, y, width: W, height: H, rx: 32, class: cls.join(" ") }, g);
      text(g, x + W / 2, y + H / 2, seeds[h - 1], "count");
      // Outside the row: the house's name, then its move's value.
      const out = side === "N" ? -1 : 1;
      const edge = side === "N" ? y : y + H;
      text(g, x + W / 2, edge + out * nameAt, `${side}${h}`, "name");
      let aria = `${side === "N" ? "North" : "South"} house ${h}: ${seeds[h - 1]} seeds`;
      if (mv) {
        const v = text(g, x + W / 2, edge + out * valueAt, signed(mv.value) + (mv.extra_turn ? (narrow ? "\u21BB" : " \u21BB") : ""), `value ${outcome(mv.value)}`);
        v.setAttribute("data-house", h);
        aria += `, playing it: ${signed(mv.value)} (${outcome(mv.value)})${best.has(h) ? ", best" : ""}${mv.extra_turn ? ", extra turn" : ""}`;
      }
      g.setAttribute("aria-label", aria);
      if (cls.includes("playable")) {
        g.addEventListener("click", () => play(h));
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            play(h);
          }
        });
      }
    }
  }
  // Whose turn, between the rows.
  const who = pos.side === "N" ? "\u25B2 North to move" : "South to move \u25BC";
  text(svg, width / 2, top + H + middle / 2, over ? "game over" : who, "turn");
}

function describe(pos, a) {
  const who = pos.side === "N" ? "North" : "South";
  if (a.source === "finished") {
    return `Game over: ${who} ${a.value > 0 ? "won" : a.value < 0 ? "lost" : "drew"} by ${Math.abs(a.value)} (value ${signed(a.value)} for ${who}).`;
  }
  const best = a.best.map((h) => `${pos.side}${h}`).join(", ");
  return `Value ${signed(a.value)} for ${who} (${outcome(a.value)}), best: ${best} \u2014 from the ${SOURCES[a.source] || "search"}, ${a.ms} ms.`;
}

function syncUrl() {
  const pos = state.history[state.index];
  const q = `?position=${encodeURIComponent(pos).replace(/%20/g, "+")}&${rulesQuery()}` +
    (state.mode !== "analyse" ? `&mode=${state.mode}` : "");
  history.replaceState(null, "", q);
}

function setMessage(msg) {
  $("message").textContent = msg || "";
}

// Shows the current position: draws it at once, then with its values.
async function render() {
  const seq = ++state.seq;
  const text = state.history[state.index];
  const pos = parse(text);
  state.answer = null;
  document.body.dataset.ready = "0";
  $("position").value = text;
  syncUrl();
  if (drawable(pos)) draw(pos, null);
  $("status").textContent = "Asking the server\u2026";
  $("pv").textContent = "";
  updateButtons();
  const r = await api(`/api/v1/query?position=${encodeURIComponent(text)}&${rulesQuery()}`);
  if (seq !== state.seq) return;
  if (r.ok) {
    state.answer = r.body;
    draw(pos, r.body);
    $("status").textContent = describe(pos, r.body);
    $("pv").textContent = r.body.pv ? `Perfect game: ${r.body.pv}` : "";
    setMessage(r.body.note || state.pending);
    state.pending = "";
  } else if (r.status === 400 && state.history.length === 1) {
    // A bad position in the URL: say why, and start from the default.
    state.pending = r.body.error;
    state.history = [DEFAULT];
    render();
    return;
  } else {
    $("status").textContent = r.status === 503 ? "No value: the server's search budget ran out." : "No value.";
    setMessage(r.body.error);
    state.auto = false;
  }
  updateButtons();
  document.body.dataset.ready = "1";
  document.body.dataset.renders = String(seq);
  next();
}

// In play mode, or playing the perfect game, the engine's move comes next.
function next() {
  const a = state.answer;
  if (!a || a.source === "finished" || a.best.length === 0) {
    state.auto = false;
    updateButtons();
    return;
  }
  const side = a.to_move;
  const engine = state.auto || (state.mode !== "analyse" && side !== state.mode);
  if (engine) {
    const seq = state.seq;
    setTimeout(() => {
      if (seq === state.seq) play(a.best[0]);
    }, 450);
  }
}

async function play(house) {
  const text = state.history[state.index];
  const r = await api(`/api/v1/play?position=${encodeURIComponent(text)}&house=${house}&${rulesQuery()}`);
  if (!r.ok) {
    setMessage(r.body.error);
    return;
  }
  state.history.splice(state.index + 1, Infinity, r.body.position);
  state.index += 1;
  render();
}

function go(text) {
  state.auto = false;
  state.history.splice(state.index + 1, Infinity, text);
  state.index += 1;
  render();
}

function undo() {
  if (state.index === 0) return;
  state.auto = false;
  state.index -= 1;
  // Against perfect play, back to the person's own turn.
  while (state.mode !== "analyse" && state.index > 0 && parse(state.history[state.index]).side !== state.mode) {
    state.index -= 1;
  }
  render();
}

function redo() {
  if (state.index + 1 >= state.history.length) return;
  state.auto = false;
  state.index += 1;
  render();
}

function updateButtons() {
  $("undo").disabled = state.index <= 0;
  $("redo").disabled = state.index + 1 >= state.history.length;
  const can = !!state.answer && state.answer.best.length > 0;
  $("step").disabled = !can;
  $("auto").disabled = !can && !state.auto;
  $("auto").textContent = state.auto ? "Stop \u25A0" : "Perfect game \u25B6\u25B6";
}

// Reviews the pasted line from the position shown (/api/v1/analyze): a
// table of its moves, mistakes marked; a row shows its position.
async function review() {
  const out = $("review-out");
  const start = state.history[state.index];
  const line = $("line").value.trim();
  if (!line) return;
  out.textContent = "Reviewing\u2026";
  const idu = $("idu").checked ? 1 : 0;
  const r = await api(`/api/v1/analyze?position=${encodeURIComponent(start)}&line=${encodeURIComponent(line)}&idu=${idu}&${rulesQuery()}`);
  out.replaceChildren();
  if (!r.ok) {
    out.textContent = "";
    setMessage(r.body.error);
    return;
  }
  setMessage("");
  const j = r.body;
  const table = document.createElement("table");
  table.innerHTML = "<thead><tr><th>turn</th><th>side</th><th>move</th><th>value</th><th>played</th><th>loss</th><th>best</th></tr></thead>";
  const body = document.createElement("tbody");
  // The positions of the game reviewed, for the rows' clicks.
  const positions = j.moves.map((m) => m.position).concat([j.end]);
  j.moves.forEach((m, i) => {
    const tr = document.createElement("tr");
    if (m.mistake) tr.className = "mistake";
    const cells = [m.sowing === 1 ? m.turn : "", m.to_move, m.house + (m.extra_turn ? "+" : ""),
      signed(m.value), signed(m.played), m.loss, m.best.join(" ")];
    for (const c of cells) {
      const td = document.createElement("td");
      td.textContent = String(c);
      tr.appendChild(td);
    }
    tr.title = m.mistake ? `a mistake: gives away ${m.loss}` : "a best move";
    tr.addEventListener("click", () => {
      state.auto = false;
      state.history = positions.slice();
      state.index = i;
      render();
    });
    body.appendChild(tr);
  });
  table.appendChild(body);
  out.appendChild(table);
  const sum = document.createElement("p");
  sum.className = "summary";
  const side = (name, a) => a.mistakes === 0 ? `${name}: no mistakes` : `${name}: ${a.mistakes} mistake${a.mistakes === 1 ? "" : "s"}, ${a.loss} given away`;
  sum.textContent = `${side("South", j.south)}; ${side("North", j.north)}.` +
    (j.game_over ? ` Final score ${signed(j.final_score)} for South.` : "") +
    (j.stopped ? ` Stopped early: ${j.stopped}` : "");
  out.appendChild(sum);
  document.body.dataset.reviewed = String(j.moves.length);
}

function fillSelect(id, from, to, value) {
  const s = $(id);
  s.replaceChildren();
  for (let i = from; i <= to; i++) {
    const o = document.createElement("option");
    o.value = o.textContent = String(i);
    s.appendChild(o);
  }
  s.value = String(value);
}

function init() {
  const q = new URLSearchParams(location.search);
  state.rules = q.get("rules") === "ec" ? "ec" : "std";
  state.end = ["sweep", "delayed", "no-sweep"].includes(q.get("end")) ? q.get("end") : "sweep";
  state.mode = ["S", "N"].includes(q.get("mode")) ? q.get("mode") : "analyse";
  const start = q.get("position") || DEFAULT;
  const pos = parse(start);
  fillSelect("pits", 1, 8, pos.m >= 1 && pos.m <= 8 ? pos.m : 6);
  // A start position sets the seeds selector to its seeds.
  const even = pos.south.concat(pos.north);
  fillSelect("seeds", 1, 12, even.every((n) => n === even[0]) && even[0] >= 1 && even[0] <= 12 ? even[0] : 3);
  $("rules").value = state.rules;
  $("end").value = state.end;
  $("mode").value = state.mode;
  $("game").addEventListener("submit", (e) => {
    e.preventDefault();
    go(startPosition(Number($("pits").value), Number($("seeds").value)));
  });
  for (const id of ["rules", "end"]) {
    $(id).addEventListener("change", () => {
      state[id] = $(id).value;
      state.auto = false;
      render();
    });
  }
  $("mode").addEventListener("change", () => {
    state.mode = $("mode").value;
    state.auto = false;
    render();
  });
  $("goto").addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = $("position").value.trim();
    // Checked by the server first: a bad position keeps the one shown.
    const r = await api(`/api/v1/query?position=${encodeURIComponent(text)}&${rulesQuery()}`);
    if (r.status === 400) {
      setMessage(r.body.error);
      return;
    }
    go(r.ok ? r.body.position : text);
  });
  $("review").addEventListener("submit", (e) => {
    e.preventDefault();
    review();
  });
  $("undo").addEventListener("click", undo);
  $("redo").addEventListener("click", redo);
  $("step").addEventListener("click", () => {
    if (state.answer && state.answer.best.length) play(state.answer.best[0]);
  });
  $("auto").addEventListener("click", () => {
    state.auto = !state.auto;
    updateButtons();
    if (state.auto) next();
  });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement) return;
    if (e.key === "ArrowLeft") undo();
    else if (e.key === "ArrowRight") redo();
  });
  // Turning a phone, or resizing a window past the narrow width, redraws
  // the board for it (with the values already there).
  window.matchMedia(NARROW).addEventListener("change", () => {
    const shown = parse(state.history[state.index]);
    if (drawable(shown)) draw(shown, state.answer);
  });
  state.history = [start];
  state.index = 0;
  render();
}

init();
