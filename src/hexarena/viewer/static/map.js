/* hexarena replay viewer, part 2 of 5: the hex map (cells, fog, outlines, borders, edges). */
"use strict";

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
  const f = fogOf(i, c);
  let node = View.fogNodes[i];
  if (f === undefined || f >= 2) { if (node) node.remove(); View.fogNodes[i] = undefined; return; }
  if (!node) node = View.fogNodes[i] = el("polygon", { points: View.hexOuter }, View.layers.fog);
  node.setAttribute("class", f === 0 ? "fog unseen" : "fog seen");
  node.setAttribute("transform", transform);
}

/** Cell i's fog for the chosen role: from the frame's per-role fog string (one digit per cell),
 * else from the cell's own ``fog`` mapping; undefined when no fog view is chosen. */
function fogOf(i, c, role = View.fogRole) {
  if (!role || !c) return undefined;
  const all = View.cur && View.cur.top.fog;
  if (all && typeof all[role] === "string") {
    const d = fogDigits(all, role).charCodeAt(i) - 48;
    return d >= 0 && d <= 9 ? d : undefined;
  }
  return c.fog ? c.fog[role] : undefined;
}

/** A role's fog as one digit per cell, decoded once per frame from the run form "r:<digit><count>,...". */
const FOG_DIGITS = new WeakMap();
function fogDigits(all, role) {
  let known = FOG_DIGITS.get(all);
  if (!known) FOG_DIGITS.set(all, (known = {}));
  if (!(role in known)) {
    const v = all[role];
    known[role] = v.startsWith("r:") ? v.slice(2).split(",").map((run) => run.charAt(0).repeat(Number(run.slice(1)) || 0)).join("") : v;
  }
  return known[role];
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
    let d = sharedSide(a, b);
    if (Math.hypot(b[0] - a[0], b[1] - a[1]) > R * 1.8) { // not neighbours on screen: a wrapped map's seam
      if (!Number.isInteger(e.side)) continue;
      const k = ((e.side % 6) + 6) % 6, back = (k + 3) % 6;
      const beyond = (c, j) => centre({ q: c.q + NEIGHBOURS[j][0], r: c.r + NEIGHBOURS[j][1] });
      d = sharedSide(a, beyond(ca, k)) + sharedSide(b, beyond(cb, back)); // the side on each edge of the map
    }
    const path = el("path", { d, class: `edge edge-${e.kind}`, stroke: style.c, "stroke-width": style.w }, layer);
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
    picked: el("path", { id: "picked" }, root),
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
  if (snap.top.fog !== View.fogRef) { // per-role fog strings: redraw the fog of every cell
    for (let i = 0; i < n; i++) if (cells[i]) drawFog(i, cells[i], View.groups[i].getAttribute("transform"));
    View.fogRef = snap.top.fog;
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
  if (screensChanged(snap)) renderScreens(snap);
  renderPick();
  renderStatus();
  markMover();
  markChart();
  markLog();
  if (View.hoverIndex !== undefined) showDetails(View.hoverIndex);
}
