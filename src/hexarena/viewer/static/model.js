/* hexarena replay viewer, part 1 of 5: helpers, the decoded record, and the game's vocabulary.
 * The viewer draws any record in the hexarena-frames format (see core/frames.py) with plain JS
 * and SVG, no dependencies. page.py concatenates palette.js, model.js, map.js, panels.js,
 * screens.js and app.js into one script in the page. */
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

/** The viewer's whole state. */
const View = {
  data: null, model: null, vocab: null, // the record (from Python), its decoded steps, its palette
  step: 0, cur: null, timer: null, speed: 4, fogRole: "", // what is shown, playing, the fog view
  layers: null, groups: [], fogNodes: [], shown: [], refog: false, // SVG nodes, cells as drawn
  cornerOffset: -30, nbr: null, viewBox: null, homeBox: null, // geometry, neighbour table, zoom
  edgesRef: null, playersRef: null, panelsRef: null, fogRef: null, screensRef: null, // drawn last
  screen: "", screenRole: "", // the screen shown and the player it shows
  picked: null, pickRef: undefined, // the cell whose panel is open (its id) and its cell as drawn
  chartX: null, chartCursor: null, logRows: null, logCurrent: null, // score chart and move log
  roleColour: new Map(), hoverIndex: undefined, stopFollowing: false,
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
/** A name's entry in a vocabulary table, else the entry of its first known part. */
function lookup(table, key) {
  if (key == null) return undefined;
  const k = String(key).toLowerCase();
  for (const part of [k, ...k.split(/[_\-:\s/]+/)]) if (Object.hasOwn(table, part)) return table[part];
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
