/* hexarena replay viewer: draws any record in the hexarena-frames format (see core/frames.py).
 * Plain JS and SVG, no dependencies. The record's data is either inlined in the page (exported
 * HTML) or fetched from data.json (the local server). */
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const R = 20; // hex circumradius in SVG units
const SQ3 = Math.sqrt(3);
const SPEEDS = [1, 2, 4, 8, 16, 32];
const NEIGHBOURS = [[1, 0], [1, -1], [0, -1], [-1, 0], [-1, 1], [0, 1]];

/* ---------------------------------------------------------------- helpers --- */
function el(tag, attrs, parent) {
  const node = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) node.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(node);
  return node;
}
function h(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const c of children) if (c != null) node.append(c);
  return node;
}
function hashHue(text) {
  let x = 0;
  for (const ch of String(text)) x = (x * 31 + ch.charCodeAt(0)) >>> 0;
  return x % 360;
}
function fmt(v) {
  if (v == null) return "–";
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Math.round(v * 100) / 100);
  if (typeof v !== "object") return String(v);
  if (Array.isArray(v)) return v.map(fmt).join(", ");
  return Object.entries(v).map(([k, x]) => `${k}: ${fmt(x)}`).join("; ");
}
function hexPoints(scale) {
  const pts = [];
  for (let i = 0; i < 6; i++) {
    const a = (Math.PI / 180) * (60 * i + View.cornerOffset);
    pts.push(`${(R * scale * Math.cos(a)).toFixed(2)},${(R * scale * Math.sin(a)).toFixed(2)}`);
  }
  return pts.join(" ");
}

/* ------------------------------------------------------------------ model --- */
/** Full snapshots from the deltas: each step holds an array of cell objects (by cell index) and
 * the top-level keys. Unchanged cells are shared between steps, so drawing a step only touches
 * the cells whose object differs from the one on screen. */
function decode(steps, warnings) {
  const ids = [], index = new Map(), snaps = [];
  let cells = [], top = {}, unplaced = 0;
  for (const step of steps) {
    const d = step.delta;
    cells = cells.slice();
    for (const id of d.removed || []) if (index.has(id)) cells[index.get(id)] = undefined;
    for (const c of d.cells) {
      let i = index.get(c.id);
      if (i === undefined) { i = ids.length; ids.push(c.id); index.set(c.id, i); }
      const placed = Number.isFinite(c.q) && Number.isFinite(c.r);
      if (!placed) unplaced += 1;
      cells[i] = placed ? c : undefined;
    }
    top = Object.assign({}, top);
    for (const k of d.dropped || []) delete top[k];
    for (const k in d) if (k !== "cells" && k !== "removed" && k !== "dropped") top[k] = d[k];
    snaps.push({ cells, top, step });
  }
  if (unplaced) warnings.push(`${unplaced} cell entries without numeric q and r were not drawn`);
  return { ids, index, snaps };
}

const View = {
  data: null, model: null, vocab: null, step: 0, shown: [], groups: [], fogRole: "", timer: null,
  speed: 4, cornerOffset: -30, nbr: null, regionsKey: null, edgesRef: null, playersRef: null,
  panelsRef: null, viewBox: null, roleColour: new Map(),
};

function vocabFor(game) {
  const base = HEX_VOCAB.default, own = HEX_VOCAB[game] || {};
  return {
    title: own.title || game,
    ownerStyle: own.ownerStyle || base.ownerStyle,
    terrain: Object.assign({}, base.terrain, own.terrain),
    icons: Object.assign({}, base.icons, own.icons),
    edges: Object.assign({}, base.edges, own.edges),
  };
}
function lookup(table, key) {
  if (key == null) return undefined;
  const k = String(key).toLowerCase();
  if (table[k]) return table[k];
  for (const part of k.split(/[_\-:\s/]+/)) if (table[part]) return table[part];
  return undefined;
}
function terrainColour(t) {
  if (t == null) return View.vocab.terrain.empty;
  return lookup(View.vocab.terrain, t) || `hsl(${hashHue(t)},35%,62%)`;
}
function roleColour(role) {
  if (role == null) return null;
  if (!View.roleColour.has(role)) {
    const named = ROLE_COLOURS[String(role).toLowerCase()];
    const i = View.data.roles.indexOf(role);
    View.roleColour.set(role, named || (i >= 0 ? PLAYER_PALETTE[i % PLAYER_PALETTE.length] : `hsl(${hashHue(role)},60%,45%)`));
  }
  return View.roleColour.get(role);
}
/** An icon is "name", "name:role", "role:name" or {name, owner, label}; icons marked ``owned``
 * in the vocabulary (pawns, units) take the colour of their owner, else of the cell's owner. */
function iconSpec(icon, cellOwner) {
  let name = icon, owner = null, label = null;
  if (icon && typeof icon === "object") { name = icon.name; owner = icon.owner; label = icon.label; }
  else if (typeof icon === "string" && icon.includes(":")) {
    [name, owner] = icon.split(":", 2);
    if (View.data.roles.includes(name) && !View.data.roles.includes(owner)) [name, owner] = [owner, name];
  }
  const spec = lookup(View.vocab.icons, name) ||
    { s: "circle", c: `hsl(${hashHue(name)},45%,45%)`, t: String(name || "?").charAt(0).toUpperCase() };
  const p = spec.p !== undefined ? spec.p : owner ? 1 : 2;
  owner = owner || (spec.owned ? cellOwner : null);
  const t = label != null ? String(label) : spec.t;
  return { name: String(name), owner, p, s: spec.s, c: owner ? roleColour(owner) : spec.c, t };
}
function centre(c) {
  return View.cornerOffset === -30
    ? [R * SQ3 * (c.q + c.r / 2), R * 1.5 * c.r]
    : [R * 1.5 * c.q, R * SQ3 * (c.r + c.q / 2)];
}

/* ------------------------------------------------------------------ drawing --- */
const SHAPES = {
  circle: (g, s) => el("circle", { r: s }, g),
  square: (g, s) => el("rect", { x: -s, y: -s, width: 2 * s, height: 2 * s, rx: 1.5 }, g),
  tri: (g, s) => el("polygon", { points: `0,${-s * 1.2} ${s * 1.1},${s * 0.8} ${-s * 1.1},${s * 0.8}` }, g),
  diamond: (g, s) => el("polygon", { points: `0,${-s * 1.2} ${s},0 0,${s * 1.2} ${-s},0` }, g),
  star: (g, s) => {
    const p = [];
    for (let i = 0; i < 10; i++) {
      const a = (Math.PI / 5) * i - Math.PI / 2, rr = i % 2 ? s * 0.5 : s * 1.25;
      p.push(`${(rr * Math.cos(a)).toFixed(2)},${(rr * Math.sin(a)).toFixed(2)}`);
    }
    return el("polygon", { points: p.join(" ") }, g);
  },
};

function drawCell(i, c) {
  const g = View.groups[i];
  g.replaceChildren();
  if (!c) { g.style.display = "none"; drawFog(i, c, null); return; }
  g.style.display = "";
  const [x, y] = centre(c);
  g.setAttribute("transform", `translate(${x.toFixed(2)},${y.toFixed(2)})`);
  el("polygon", { class: "hex", points: View.hexOuter, fill: terrainColour(c.terrain) }, g);
  const owner = roleColour(c.owner);
  if (owner) {
    const style = View.vocab.ownerStyle;
    if (style === "fill") el("polygon", { class: "own stone", points: View.hexStone, fill: owner }, g);
    else if (style === "border") el("polygon", { class: "own tint", points: View.hexOuter, fill: owner }, g);
    else el("polygon", { class: "own ring", points: View.hexRing, stroke: owner }, g);
  }
  const icons = (Array.isArray(c.icons) ? c.icons : []).map((x) => iconSpec(x, c.owner));
  const shown = icons.length > 4 ? icons.slice().sort((a, b) => a.p - b.p).slice(0, 4) : icons;
  const labelled = c.label != null && c.label !== "";
  shown.forEach((spec, k) => {
    const [dx, dy, size] = iconSlot(k, shown.length, labelled);
    const ig = el("g", { class: "icon", transform: `translate(${dx},${dy})` }, g);
    SHAPES[spec.s in SHAPES ? spec.s : "circle"](ig, size).setAttribute("fill", spec.c);
    if (spec.t) el("text", { class: "icon-t", "font-size": (size * (spec.t.length > 1 ? 1.1 : 1.4)).toFixed(1) }, ig).textContent = spec.t;
  });
  if (icons.length > 4) el("text", { class: "more", x: 13, y: 0 }, g).textContent = `+${icons.length - 4}`;
  if (labelled) {
    const t = el("text", { class: "label", y: icons.length ? 9 : 0 }, g);
    t.textContent = String(c.label);
  }
  drawFog(i, c, g.getAttribute("transform"));
}

/** The fog over cell i for the chosen role, in a layer above rivers and borders so that they hide
 * too: dark where the role has never looked, dimmed where it saw the cell once. */
function drawFog(i, c, transform) {
  const f = View.fogRole && c && c.fog ? c.fog[View.fogRole] : undefined;
  let node = View.fogNodes[i];
  if (f === undefined || f >= 2) { if (node) node.remove(); View.fogNodes[i] = undefined; return; }
  if (!node) node = View.fogNodes[i] = el("polygon", { points: View.hexOuter }, View.layers.fog);
  node.setAttribute("class", f === 0 ? "fog unseen" : "fog seen");
  node.setAttribute("transform", transform);
}

/** Where icon ``k`` of ``n`` sits in its hex: one or two in a row, three or four in a square;
 * moved up when a label takes the bottom of the hex. */
function iconSlot(k, n, labelled) {
  if (n <= 2) return [n === 1 ? 0 : k ? 5.5 : -5.5, labelled ? -5 : 0, n === 1 ? 5.5 : 4.5];
  return [k % 2 ? 5 : -5, (k < 2 ? -4.5 : 4.5) - (labelled ? 4 : 0), 3.6];
}

/** Segment of the side shared by two neighbouring hex centres; ``inset`` (0..1) pulls it
 * towards ``a``, so that two territories meeting there both show their colour. */
function sharedSide(a, b, inset = 0) {
  const vx = b[0] - a[0], vy = b[1] - a[1], k = 0.5 - inset / 2, half = (R / 2) * (1 - inset * 0.6);
  const mx = a[0] + vx * k, my = a[1] + vy * k;
  const len = Math.hypot(vx, vy) || 1, px = (-vy / len) * half, py = (vx / len) * half;
  return `M${(mx + px).toFixed(1)},${(my + py).toFixed(1)}L${(mx - px).toFixed(1)},${(my - py).toFixed(1)}`;
}

/** The neighbour table of the cells on screen: ``View.nbr[i * 6 + k]`` is the index of cell i's
 * neighbour in direction k, or -1. Rebuilt only when cells move, appear or vanish. */
function buildNeighbours(cells) {
  const at = new Map();
  cells.forEach((c, i) => c && at.set(`${c.q},${c.r}`, i));
  View.nbr = new Int32Array(cells.length * 6).fill(-1);
  cells.forEach((c, i) => {
    if (!c) return;
    for (let k = 0; k < 6; k++) {
      const j = at.get(`${c.q + NEIGHBOURS[k][0]},${c.r + NEIGHBOURS[k][1]}`);
      if (j !== undefined) View.nbr[i * 6 + k] = j;
    }
  });
}

/** Where groups of cells end: for each group (``key(cell)``, null for none) the path of the sides
 * whose neighbour is missing or in another group. Without ``inset`` a side between two groups is
 * drawn once; with it, each group draws its own side pulled inwards. */
function boundaries(cells, key, inset = 0) {
  const out = new Map();
  cells.forEach((c, i) => {
    const group = c ? key(c) : null;
    if (group == null) return;
    const p = centre(c);
    for (let k = 0; k < 6; k++) {
      const j = View.nbr[i * 6 + k], n = j < 0 ? undefined : cells[j];
      const other = n ? key(n) : null;
      if (other === group || (!inset && other != null && j < i)) continue;
      const side = sharedSide(p, centre({ q: c.q + NEIGHBOURS[k][0], r: c.r + NEIGHBOURS[k][1] }), inset);
      out.set(group, (out.get(group) || "") + side);
    }
  });
  return out;
}

/** Territory borders in each owner's colour (the "border" owner style). */
function drawBorders(cells) {
  const layer = View.layers.borders;
  layer.replaceChildren();
  if (View.vocab.ownerStyle !== "border") return;
  for (const [owner, d] of boundaries(cells, (c) => c.owner, 0.12)) {
    el("path", { d, class: "border", stroke: roleColour(owner), "data-owner": owner }, layer);
  }
}

function drawEdges(edges) {
  const layer = View.layers.edges;
  layer.replaceChildren();
  for (const e of Array.isArray(edges) ? edges : []) {
    const ia = View.model.index.get(e.a), ib = View.model.index.get(e.b);
    const ca = View.cur.cells[ia], cb = View.cur.cells[ib];
    if (!ca || !cb) continue;
    const style = lookup(View.vocab.edges, e.kind) || { c: `hsl(${hashHue(e.kind)},50%,40%)`, w: 3 };
    const a = centre(ca), b = centre(cb);
    if (Math.hypot(b[0] - a[0], b[1] - a[1]) > R * 1.8) continue; // not neighbours on screen (a wrapped map's seam)
    const path = el("path", { d: sharedSide(a, b), class: `edge edge-${e.kind}`, stroke: style.c, "stroke-width": style.w }, layer);
    if (style.dash) path.setAttribute("stroke-dasharray", style.dash);
  }
}

function buildMap() {
  const svg = document.getElementById("map");
  const first = View.model.snaps[0].top;
  View.cornerOffset = first.layout === "flat" ? 0 : -30;
  View.hexOuter = hexPoints(1);
  View.hexRing = hexPoints(0.84);
  View.hexStone = hexPoints(0.8);
  svg.replaceChildren();
  const root = el("g", { id: "map-root" }, svg);
  View.layers = { // bottom to top
    cells: el("g", { id: "cells" }, root), borders: el("g", { id: "borders" }, root),
    regions: el("path", { id: "regions" }, root), edges: el("g", { id: "edges" }, root),
    fog: el("g", { id: "fog-layer" }, root), hover: el("path", { id: "hover" }, root),
  };
  View.fogNodes = [];
  View.groups = View.model.ids.map((id, i) => el("g", { class: "cell", "data-i": i }, View.layers.cells));
  // The view box covers every cell that appears in any step.
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const seen = new Set();
  for (const s of View.model.snaps) {
    for (const c of s.cells) {
      if (!c || seen.has(c)) continue;
      seen.add(c);
      const [x, y] = centre(c);
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
  }
  if (!isFinite(x0)) { x0 = y0 = 0; x1 = y1 = 1; }
  View.viewBox = View.homeBox = [x0 - R * 1.2, y0 - R * 1.2, x1 - x0 + R * 2.4, y1 - y0 + R * 2.4];
  applyViewBox();
  View.shown = [];
}

function applyViewBox() {
  document.getElementById("map").setAttribute("viewBox", View.viewBox.map((v) => v.toFixed(1)).join(" "));
}

/** Draw step ``s``: only cells whose object changed, and the side panels when their data changed. */
function render(s) {
  const snap = View.model.snaps[s];
  View.step = s;
  View.cur = snap;
  let geometry = false, owners = false;
  const cells = snap.cells, n = View.model.ids.length;
  for (let i = 0; i < n; i++) {
    const c = cells[i], old = View.shown[i];
    if (c === old && !View.refog) continue;
    if (!old || !c || old.q !== c.q || old.r !== c.r || old.region !== c.region) geometry = true;
    else if (old.owner !== c.owner) owners = true;
    drawCell(i, c);
    View.shown[i] = c;
  }
  View.refog = false;
  if (geometry) {
    buildNeighbours(cells);
    View.layers.regions.setAttribute("d", [...boundaries(cells, (c) => c.region).values()].join(""));
    View.edgesRef = null;
  }
  if (geometry || owners) drawBorders(cells);
  if (snap.top.edges !== View.edgesRef) { drawEdges(snap.top.edges); View.edgesRef = snap.top.edges; }
  if (snap.top.players !== View.playersRef) { renderPlayers(snap.top.players); View.playersRef = snap.top.players; }
  if (snap.top.panels !== View.panelsRef) { renderPanels(snap.top.panels); View.panelsRef = snap.top.panels; }
  renderStatus();
  markChart();
  markLog();
  if (View.hoverIndex !== undefined) showDetails(View.hoverIndex);
}

/* ---------------------------------------------------------------- panels --- */
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

const isRecord = (v) => v != null && typeof v === "object" && !Array.isArray(v);

/** A table of records: one row each, one column per key; ``names`` (a mapping's keys) go first. */
function gridTable(rows, names) {
  const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const head = h("tr", {}, names ? h("th", {}, "") : null, ...cols.map((c) => h("th", {}, c)));
  const t = h("table", { className: "grid" }, head);
  rows.forEach((r, i) => t.append(h("tr", {}, names ? h("th", {}, names[i]) : null, ...cols.map((c) => h("td", {}, valueCell(r[c]))))));
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
  document.getElementById("status").textContent = `Step ${s} / ${last}${what ? " · " + what : ""}`;
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
  box.onclick = (ev) => {
    const row = ev.target.closest(".entry");
    if (row && row.dataset.step && !ev.target.closest("details")) seek(Number(row.dataset.step));
  };
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
  if (c.fog) row("fog", Object.entries(c.fog).map(([r, f]) => `${r}: ${["unseen", "seen", "visible"][f] || f}`));
  for (const [k, v] of Object.entries(c.info && typeof c.info === "object" ? c.info : {})) row(k, v);
  tip.replaceChildren(h("div", { className: "tip-head" }, `${c.id}`, h("span", { className: "qr" }, ` (${c.q}, ${c.r})`)), t);
  tip.hidden = false;
  const mine = c.region != null ? (x) => (x.region === c.region ? 0 : null) : (x) => (x === c ? 0 : null);
  View.layers.hover.setAttribute("d", boundaries(View.cur.cells, mine).get(0) || "");
}
function hideDetails() {
  View.hoverIndex = undefined;
  document.getElementById("tip").hidden = true;
  View.layers.hover.setAttribute("d", "");
}

/* ------------------------------------------------------------ controls --- */
function seek(s) {
  const last = View.model.snaps.length - 1;
  s = Math.max(0, Math.min(last, Number.isFinite(s) ? s : 0));
  if (s === last) pause();
  render(s);
}
function play() {
  if (View.step >= View.model.snaps.length - 1) render(0);
  clearInterval(View.timer);
  View.timer = setInterval(() => seek(View.step + 1), 1000 / View.speed);
  document.getElementById("btn-play").textContent = "❚❚";
  document.body.dataset.playing = "1";
}
function pause() {
  clearInterval(View.timer);
  View.timer = null;
  document.getElementById("btn-play").textContent = "▶";
  document.body.dataset.playing = "";
}
function setSpeed(v) {
  View.speed = v;
  document.getElementById("speed").value = String(v);
  if (View.timer) play();
}
function cycleFog() {
  const sel = document.getElementById("fog");
  if (sel.options.length < 2) return;
  sel.selectedIndex = (sel.selectedIndex + 1) % sel.options.length;
  setFog(sel.value);
}
function setFog(role) {
  View.fogRole = role;
  document.getElementById("fog").value = role;
  View.refog = true;
  render(View.step);
}

function onKey(ev) {
  const tag = ev.target.tagName;
  if ((tag === "INPUT" && ev.target.type !== "range") || tag === "TEXTAREA" || tag === "SELECT") return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const big = ev.shiftKey ? 10 : 1, i = SPEEDS.indexOf(View.speed);
  const actions = {
    ArrowRight: () => seek(View.step + big), ArrowLeft: () => seek(View.step - big),
    PageDown: () => seek(View.step + 10), PageUp: () => seek(View.step - 10),
    Home: () => seek(0), End: () => seek(View.model.snaps.length - 1),
    " ": () => (View.timer ? pause() : play()), k: () => (View.timer ? pause() : play()),
    "+": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)]), "=": () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, i + 1)]),
    "-": () => setSpeed(SPEEDS[Math.max(0, i - 1)]), f: cycleFog,
    "?": () => { document.getElementById("help").hidden = !document.getElementById("help").hidden; },
  };
  const act = actions[ev.key];
  if (!act) return;
  ev.preventDefault();
  act();
}

function bindMap() {
  const svg = document.getElementById("map"), tip = document.getElementById("tip");
  svg.addEventListener("mousemove", (ev) => {
    const g = ev.target.closest && ev.target.closest(".cell");
    if (!g) { hideDetails(); return; }
    const i = Number(g.dataset.i);
    if (i !== View.hoverIndex) showDetails(i);
    const wrap = svg.parentElement.getBoundingClientRect();
    const x = ev.clientX - wrap.left + 14, y = ev.clientY - wrap.top + 14;
    tip.style.left = `${Math.min(x, wrap.width - tip.offsetWidth - 4)}px`;
    tip.style.top = `${Math.min(y, wrap.height - tip.offsetHeight - 4)}px`;
  });
  svg.addEventListener("mouseleave", hideDetails);
  svg.addEventListener("wheel", (ev) => {
    ev.preventDefault();
    const box = svg.getBoundingClientRect(), [x, y, w, hgt] = View.viewBox;
    const k = ev.deltaY > 0 ? 1.15 : 1 / 1.15;
    const px = x + (w * (ev.clientX - box.left)) / box.width, py = y + (hgt * (ev.clientY - box.top)) / box.height;
    View.viewBox = [px - (px - x) * k, py - (py - y) * k, w * k, hgt * k];
    applyViewBox();
  }, { passive: false });
  let drag = null;
  svg.addEventListener("mousedown", (ev) => { drag = [ev.clientX, ev.clientY, View.viewBox.slice()]; });
  window.addEventListener("mouseup", () => { drag = null; });
  window.addEventListener("mousemove", (ev) => {
    if (!drag) return;
    const box = svg.getBoundingClientRect(), [x, y, w, hgt] = drag[2];
    const scale = Math.max(w / box.width, hgt / box.height);
    View.viewBox = [x - (ev.clientX - drag[0]) * scale, y - (ev.clientY - drag[1]) * scale, w, hgt];
    applyViewBox();
  });
  svg.addEventListener("dblclick", () => { View.viewBox = View.homeBox; applyViewBox(); });
}

function bindControls() {
  const slider = document.getElementById("slider");
  slider.addEventListener("input", () => seek(Number(slider.value)));
  document.getElementById("btn-first").onclick = () => seek(0);
  document.getElementById("btn-prev").onclick = () => seek(View.step - 1);
  document.getElementById("btn-next").onclick = () => seek(View.step + 1);
  document.getElementById("btn-last").onclick = () => seek(View.model.snaps.length - 1);
  document.getElementById("btn-play").onclick = () => (View.timer ? pause() : play());
  const speed = document.getElementById("speed");
  speed.replaceChildren(...SPEEDS.map((v) => h("option", { value: String(v), textContent: `${v} steps/s` })));
  speed.value = String(View.speed);
  speed.onchange = () => setSpeed(Number(speed.value));
  const fog = document.getElementById("fog");
  fog.onchange = () => setFog(fog.value);
  // Give the keyboard back to the page after a click, so Space never presses a button twice.
  for (const control of document.querySelectorAll("nav button, nav select")) {
    control.addEventListener(control.tagName === "SELECT" ? "change" : "click", () => control.blur());
  }
  document.addEventListener("keydown", onKey);
}

/** The fog-of-war choices: off, and every role that some cell has fog for. */
function buildFogOptions() {
  const roles = new Set();
  for (const st of View.data.steps) for (const c of st.delta.cells) if (c.fog) for (const r in c.fog) roles.add(r);
  const fog = document.getElementById("fog");
  fog.replaceChildren(h("option", { value: "", textContent: "fog: off (all visible)" }),
    ...[...roles].map((r) => h("option", { value: r, textContent: `fog: ${r}` })));
  fog.value = roles.has(View.fogRole) ? View.fogRole : "";
  View.fogRole = fog.value;
  document.getElementById("fog-wrap").hidden = roles.size === 0;
}

/** Everything that depends on the record as a whole (the map's cells aside). */
function buildRecordViews() {
  renderHeader();
  document.getElementById("slider").max = String(View.model.snaps.length - 1);
  buildFogOptions();
  buildChart();
  buildLog();
}

function renderHeader() {
  const d = View.data, res = d.result;
  document.title = `${View.vocab.title} · ${d.title} · hexarena replay`;
  document.getElementById("game").textContent = View.vocab.title;
  document.getElementById("title").textContent = d.title;
  const out = res && res.outcome ? `${res.outcome.kind}: ${res.outcome.reason}` : "no result yet (running or crashed match)";
  document.getElementById("outcome").textContent = out;
  const warn = document.getElementById("warnings");
  warn.replaceChildren(...(d.warnings || []).map((w) => h("div", {}, w)));
  warn.hidden = !(d.warnings || []).length;
}

function start(data) {
  View.data = data;
  View.vocab = vocabFor(data.game);
  data.warnings = data.warnings || [];
  View.model = decode(data.steps, data.warnings);
  buildMap();
  bindMap();
  bindControls();
  buildRecordViews();
  render(0);
  document.body.dataset.ready = "1";
}

/** A newer version of the record (a running match): keep the view, follow the last step if on it. */
function refresh(data) {
  const following = View.step === View.model.snaps.length - 1, cells = View.model.ids.length;
  data.warnings = data.warnings || [];
  View.data = data;
  View.model = decode(data.steps, data.warnings);
  if (View.model.ids.length !== cells) buildMap();
  View.shown = [];
  View.edgesRef = View.playersRef = View.panelsRef = null;
  buildRecordViews();
  render(following ? View.model.snaps.length - 1 : Math.min(View.step, View.model.snaps.length - 1));
}

/** While the served record has no result (the match is running), ask for news every two seconds;
 * the server answers 304 while nothing changed. */
async function follow(etag) {
  while (!View.data.result && !View.stopFollowing) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const r = await fetch("data.json", { cache: "no-store", headers: etag ? { "If-None-Match": etag } : {} });
    if (r.status !== 200) continue; // 304: unchanged; an error: the record is being written
    etag = r.headers.get("ETag");
    refresh(await r.json());
  }
}

function fail(err) {
  const box = document.getElementById("warnings");
  box.hidden = false;
  box.textContent = `Could not show this record: ${err}`;
  console.error(err);
}

/** The data inlined by an export: gzipped JSON in base64. */
async function unpack(text) {
  const bytes = Uint8Array.from(atob(text.trim()), (ch) => ch.charCodeAt(0));
  const json = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(json).text());
}

async function main() {
  const inline = document.getElementById("hexarena-data").textContent;
  if (inline.trim()) { start(await unpack(inline)); return; }
  const r = await fetch("data.json", { cache: "no-store" });
  if (!r.ok) throw new Error((await r.text()) || r.statusText);
  start(await r.json());
  follow(r.headers.get("ETag")).catch(() => {}); // the server went away: nothing more to show
}

window.addEventListener("DOMContentLoaded", () => main().catch(fail));

window.hexarenaViewer = { seek, play, pause, setFog, view: View, stopFollowing: () => { View.stopFollowing = true; } };
