/* hexarena replay viewer, part 3 of 5: the side panels (players, game panels, status, score
 * chart, move log) and the hover details. */
"use strict";

function playerName(role) {
  const players = (View.data.result && View.data.result.players) || [];
  const p = players.find((x) => (x.roles || []).includes(role));
  return p ? `${p.name}${p.type && p.type !== p.name ? ` (${p.type})` : ""}` : "";
}

function valueCell(v) {
  if (isRecord(v)) {
    const t = h("table", { className: "kv nested" });
    for (const [k, x] of Object.entries(v)) t.append(h("tr", {}, h("th", {}, k), h("td", {}, fmt(x))));
    return t;
  }
  const text = fmt(v);
  return h("span", { title: text.length > 160 ? text : "" }, text.length > 160 ? text.slice(0, 157) + "…" : text);
}

function renderPlayers(players) {
  const box = document.getElementById("players");
  box.replaceChildren();
  for (const p of Array.isArray(players) ? players : []) {
    const card = h("div", { className: "player" });
    card.dataset.role = p.role;
    const swatch = h("span", { className: "swatch" });
    swatch.style.background = roleColour(p.role);
    card.append(h("div", { className: "player-head" }, swatch, h("b", {}, String(p.role)),
      h("span", { className: "pname" }, playerName(p.role)),
      h("span", { className: "score" }, p.score != null ? fmt(p.score) : "")));
    const fields = p.fields && typeof p.fields === "object" ? p.fields : {};
    if (Object.keys(fields).length) {
      const t = h("table", { className: "kv" });
      for (const [k, v] of Object.entries(fields)) t.append(h("tr", {}, h("th", {}, k), h("td", {}, valueCell(v))));
      card.append(t);
    }
    box.append(card);
  }
  document.getElementById("players-sec").hidden = !box.children.length;
}

/** Outline the card of the player whose move led to the step shown. */
function markMover() {
  const role = View.cur ? View.cur.step.role : null;
  for (const card of document.querySelectorAll(".player")) card.classList.toggle("moved", card.dataset.role === role);
}

const isRecord = (v) => v != null && typeof v === "object" && !Array.isArray(v);

const LONG_CELL = 60; // characters of a cell's text beyond which it may wrap

/** A table of records: one row each, one column per key; ``names`` (a mapping's keys) go first. */
function gridTable(rows, names) {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const head = h("tr", {}, names ? h("th", {}, "") : null, ...cols.map((c) => h("th", {}, c)));
  const t = h("table", { className: "grid" }, head);
  // a long text cell may wrap where the wide screens keep cells on one line (a conqueror's five sacks)
  const cell = (v) => h("td", typeof v === "string" && v.length > LONG_CELL ? { className: "long" } : {}, valueCell(v));
  rows.forEach((r, i) => t.append(h("tr", {}, names ? h("th", {}, names[i]) : null, ...cols.map((c) => cell(r[c])))));
  return t;
}

/** A panel body: a list of records or a mapping of records as a grid, else key/value rows. */
function panelBody(body) {
  if (body == null || (typeof body === "object" && !Object.keys(body).length)) return h("p", { className: "none" }, "none");
  if (Array.isArray(body)) {
    return body.length && body.every(isRecord) ? gridTable(body) : h("ul", {}, ...body.map((r) => h("li", {}, fmt(r))));
  }
  if (isRecord(body)) {
    const values = Object.values(body);
    return values.length && values.every(isRecord) ? gridTable(values, Object.keys(body)) : valueCell(body);
  }
  return h("p", {}, fmt(body));
}

function renderPanels(panels) {
  const box = document.getElementById("panels");
  box.replaceChildren();
  for (const [title, body] of Object.entries(panels && typeof panels === "object" ? panels : {})) {
    const sec = h("section", { className: "panel" }, h("h2", {}, title));
    sec.dataset.title = title;
    sec.append(panelBody(body));
    box.append(sec);
  }
}

function renderStatus() {
  const s = View.step, last = View.model.snaps.length - 1, step = View.model.snaps[s].step;
  const when = ["round", "turn"].filter((k) => step[k] != null).map((k) => `${k} ${step[k]}`);
  const what = [...when, s === 0 ? "start" : [step.role, step.move].filter((x) => x != null).join(": ")].filter(Boolean).join(" · ");
  const status = document.getElementById("status");
  status.textContent = status.title = `Step ${s} / ${last}${what ? " · " + what : ""}`;
  const slider = document.getElementById("slider");
  slider.value = s;
  document.body.dataset.step = String(s);
}

/* ----------------------------------------------------------------- chart --- */
function buildChart() {
  const svg = document.getElementById("chart");
  const snaps = View.model.snaps, series = new Map();
  snaps.forEach((snap, s) => {
    for (const p of Array.isArray(snap.top.players) ? snap.top.players : []) {
      if (typeof p.score !== "number") continue;
      if (!series.has(p.role)) series.set(p.role, []);
      series.get(p.role).push([s, p.score]);
    }
  });
  document.getElementById("chart-sec").hidden = series.size === 0;
  View.chartCursor = null;
  if (!series.size) return;
  const W = 320, H = 130, pad = 24, all = [...series.values()].flat().map((p) => p[1]);
  let lo = Math.min(0, ...all), hi = Math.max(...all);
  if (hi === lo) hi = lo + 1;
  const nx = Math.max(1, snaps.length - 1);
  const X = (s) => pad + ((W - pad - 6) * s) / nx, Y = (v) => H - 16 - ((H - 24) * (v - lo)) / (hi - lo);
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren();
  el("line", { x1: pad, y1: Y(lo), x2: W - 6, y2: Y(lo), class: "axis" }, svg);
  el("line", { x1: pad, y1: Y(lo), x2: pad, y2: Y(hi), class: "axis" }, svg);
  el("text", { x: pad - 3, y: Y(hi) + 4, class: "tick", "text-anchor": "end" }, svg).textContent = fmt(hi);
  el("text", { x: pad - 3, y: Y(lo) + 4, class: "tick", "text-anchor": "end" }, svg).textContent = fmt(lo);
  el("text", { x: W - 6, y: H - 3, class: "tick", "text-anchor": "end" }, svg).textContent = String(nx);
  for (const [role, pts] of series) {
    el("polyline", {
      class: "series", "data-role": role, stroke: roleColour(role),
      points: pts.map(([s, v]) => `${X(s).toFixed(1)},${Y(v).toFixed(1)}`).join(" "),
    }, svg);
  }
  View.chartX = X;
  View.chartCursor = el("line", { y1: 4, y2: H - 16, class: "cursor" }, svg);
  svg.onclick = (ev) => {
    const box = svg.getBoundingClientRect(), x = ((ev.clientX - box.left) / box.width) * W;
    seek(Math.round(((x - pad) / (W - pad - 6)) * nx));
  };
  const legend = document.getElementById("legend");
  legend.replaceChildren(...[...series.keys()].map((role) => {
    const sw = h("span", { className: "swatch" });
    sw.style.background = roleColour(role);
    return h("span", { className: "legend-item" }, sw, String(role));
  }));
}
function markChart() {
  if (!View.chartCursor) return;
  const x = View.chartX(View.step).toFixed(1);
  View.chartCursor.setAttribute("x1", x);
  View.chartCursor.setAttribute("x2", x);
}

/* --------------------------------------------------------------- map key --- */
/** Every terrain, icon and edge kind the record uses, as drawn. */
function buildMapKey() {
  const terrains = new Set(), icons = new Map(), edges = new Set();
  for (const st of View.data.steps) {
    for (const c of st.delta.cells) {
      if (c.terrain != null) terrains.add(String(c.terrain));
      for (const x of Array.isArray(c.icons) ? c.icons : []) {
        const spec = iconSpec(x, null);
        if (!icons.has(spec.name)) icons.set(spec.name, spec.owner ? { ...spec, c: "#777" } : spec); // any owner
      }
    }
    for (const e of Array.isArray(st.delta.edges) ? st.delta.edges : []) edges.add(String(e.kind));
  }
  const chip = (draw, name) => {
    const svg = el("svg", { viewBox: "-8 -8 16 16", width: 16, height: 16 });
    draw(svg);
    return h("span", { className: "key-item" }, svg, h("span", { className: "key-name" }, name));
  };
  const items = [
    ...[...terrains].sort().map((t) => chip((g) => el("polygon", { points: hexPoints(0.36), fill: terrainColour(t) }, g), t)),
    ...[...icons.values()].sort((a, b) => a.name.localeCompare(b.name)).map((spec) => chip((g) => {
      SHAPES[spec.s in SHAPES ? spec.s : "circle"](g, 5).setAttribute("fill", spec.c);
      if (spec.t) el("text", { class: "icon-t", "font-size": spec.t.length > 1 ? 5.5 : 7 }, g).textContent = spec.t;
    }, spec.name)),
    ...[...edges].sort().map((kind) => chip((g) => {
      const style = lookup(View.vocab.edges, kind) || { c: `hsl(${hashHue(kind)},50%,40%)`, w: 3 };
      el("line", { x1: -7, y1: 0, x2: 7, y2: 0, stroke: style.c, "stroke-width": style.w }, g);
    }, kind)),
  ];
  document.getElementById("map-key").replaceChildren(...items);
  document.getElementById("key-sec").hidden = !items.length;
}

/* ------------------------------------------------------------------- log --- */
/** Group turns.jsonl events by the step they lead to: the attempts (and fallbacks) before an
 * accepted move belong to that move's step. Without a log, the frames' own moves are listed. */
function buildLog() {
  const box = document.getElementById("log");
  const snaps = View.model.snaps, byStep = new Map();
  let pending = [], moves = 0;
  for (const e of View.data.log) {
    pending.push(e);
    if (e.event === "move") { moves += 1; byStep.set(moves, pending); pending = []; }
  }
  const rows = [];
  for (let s = 1; s < snaps.length; s++) {
    const step = snaps[s].step, events = byStep.get(s) || [];
    if (step.role == null && step.move == null && !events.length) continue;
    rows.push(logEntry(s, step, events));
  }
  if (pending.length) rows.push(logEntry(null, {}, pending));
  box.replaceChildren(...rows);
  View.logRows = new Map(rows.filter((r) => r.dataset.step).map((r) => [Number(r.dataset.step), r]));
  document.getElementById("log-sec").hidden = !rows.length;
  summariseRejections();
  box.onclick = (ev) => {
    const row = ev.target.closest(".entry");
    if (row && row.dataset.step && !ev.target.closest("details")) seek(Number(row.dataset.step));
  };
}

/** "· 3 rejected (red 2, blue 1)" next to the log's title, and the filter to show only those moves. */
function summariseRejections() {
  const per = new Map();
  for (const e of View.data.log) {
    if (e.event === "attempt" && e.error && e.error !== "transport") per.set(e.role, (per.get(e.role) || 0) + 1);
  }
  const total = [...per.values()].reduce((a, b) => a + b, 0);
  document.getElementById("log-summary").textContent = total
    ? `· ${total} rejected (${[...per].map(([r, n]) => `${r} ${n}`).join(", ")})` : "";
  document.getElementById("only-wrap").hidden = !total;
  const only = document.getElementById("only-problems");
  if (!total) only.checked = false;
  document.getElementById("log").classList.toggle("problems", only.checked);
}

function rawDetails(label, e) {
  const meta = e.meta && Object.keys(e.meta).length ? e.meta : null;
  if (e.raw == null && !meta) return null;
  const text = (e.raw != null ? e.raw : "") + (meta ? `\n\n[${fmt(meta)}]` : "");
  return h("details", {}, h("summary", {}, label), h("pre", {}, text));
}

function logEntry(s, step, events) {
  const row = h("div", { className: "entry" });
  if (s != null) row.dataset.step = String(s);
  const move = events.find((e) => e.event === "move");
  const role = step.role != null ? step.role : move && move.role;
  const sw = h("span", { className: "swatch" });
  if (role != null) sw.style.background = roleColour(role);
  row.append(h("div", { className: "entry-head" }, h("span", { className: "num" }, s != null ? String(s) : "end"),
    role != null ? sw : null, role != null ? h("span", { className: "role" }, String(role)) : null,
    h("b", { className: "move" }, step.move != null ? String(step.move) : move ? fmt(move.text ?? move.move) : "")));
  for (const e of events) {
    if (e.event === "attempt" && e.error) {
      row.append(h("div", { className: "attempt rejected" },
        h("span", { className: "kind" }, `✗ attempt ${e.attempt} (${e.error})`), " ", h("span", { className: "msg" }, e.message || ""),
        rawDetails("reply", e)));
    } else if (e.event === "attempt") {
      const d = rawDetails(`reply${e.latency_ms != null ? ` · ${fmt(e.latency_ms)} ms` : ""}`, e);
      if (d) row.append(h("div", { className: "attempt accepted" }, d));
    } else if (e.event === "exhausted") {
      row.append(h("div", { className: "attempt exhausted" }, `⚠ ${e.role} exhausted: ${e.reason} → ${e.policy}`));
    } else if (e.event === "end") {
      row.append(h("div", { className: "attempt end" }, `Game over: ${(e.outcome && e.outcome.reason) || ""}`));
    }
  }
  return row;
}

function markLog() {
  if (!View.logRows) return;
  if (View.logCurrent) View.logCurrent.classList.remove("current");
  const row = View.logRows.get(View.step);
  View.logCurrent = row;
  if (!row) return;
  row.classList.add("current");
  const box = document.getElementById("log");
  if (row.offsetTop < box.scrollTop || row.offsetTop + row.offsetHeight > box.scrollTop + box.clientHeight) {
    box.scrollTop = row.offsetTop - box.clientHeight / 2;
  }
}

/* --------------------------------------------------------------- hover --- */
function showDetails(i) {
  const c = View.cur.cells[i], tip = document.getElementById("tip");
  if (!c) { hideDetails(); return; }
  View.hoverIndex = i;
  const t = h("table", { className: "kv" });
  const row = (k, v) => v != null && v !== "" && t.append(h("tr", {}, h("th", {}, k), h("td", {}, valueCell(v))));
  row("terrain", c.terrain);
  row("owner", c.owner);
  row("region", c.region);
  row("label", c.label);
  if (Array.isArray(c.icons) && c.icons.length) {
    row("icons", c.icons.map((x) => iconSpec(x, null)).map((x) => x.name + (x.owner ? ` (${x.owner})` : "")));
  }
  const fogs = View.data.roles.map((r) => [r, fogOf(i, c, r)]).filter(([, f]) => f !== undefined);
  if (fogs.length) row("fog", fogs.map(([r, f]) => `${r}: ${["unseen", "seen", "visible"][f] || f}`));
  for (const [k, v] of Object.entries(isRecord(c.info) ? c.info : {})) if (c[k] !== v) row(k, v); // no repeats
  // a game whose cells come in row-major order names them (row, col), as its text does
  const cols = View.cur.top.rowcol, where = cols > 0 ? `(${Math.floor(i / cols)}, ${i % cols})` : `(${c.q}, ${c.r})`;
  tip.replaceChildren(h("div", { className: "tip-head" }, `${c.id}`, h("span", { className: "qr" }, ` ${where}`)), t);
  tip.hidden = false;
  const mine = c.region != null ? (x) => (x.region === c.region ? 0 : null) : (x) => (x === c ? 0 : null);
  View.layers.hover.setAttribute("d", boundaries(View.cur.cells, mine).get(0) || "");
}
function hideDetails() {
  View.hoverIndex = undefined;
  document.getElementById("tip").hidden = true;
  View.layers.hover.setAttribute("d", "");
}
