/* hexarena replay viewer, part 4 of 5: a game's extra screens (frame key "screens") and the panel
 * of a picked cell (a cell's "panel", opened by clicking it on the map or its row in a table).
 * Data-driven: each screen is {title, kind, ...} and SCREEN_KINDS maps a kind to its renderer,
 * so a game adds a screen by writing it into its frames (a new kind needs one function here).
 * A screen's changing body may live under its own top-level key ("data": the key), so that a
 * frame re-sends only the bodies that changed.
 * Kinds: "table" (rows, or sections: [{title, rows}]; note; cells: the map cell of each row),
 * "plots" (player fields over time), "techtree" (tree, players), "policies" (trees: the frame key
 * of the policy trees; players: adopted and adoptable ids; culture per player), "citystates"
 * (states: quest, leader, ally, influence and standing of each player, -1 not met .. 2 ally;
 * sites: the frame key of their names and places; players; friend and ally thresholds). */
"use strict";

const SCREEN_KINDS = {
  table: tableScreen,
  plots: plotsScreen,
  techtree: techTreeScreen,
  policies: policiesScreen,
  citystates: cityStatesScreen,
};
const PER_PLAYER_KINDS = new Set(["techtree", "policies"]);

/** The top-level keys holding a screen's body ("data": a key or a list of keys). */
const dataKeys = (x) => (Array.isArray(x.data) ? x.data : x.data != null ? [x.data] : []);
/** The screens of a step, each with its body (the top-level keys it names) merged in. */
function screensOf(snap) {
  const listed = Array.isArray(snap.top.screens) ? snap.top.screens.filter((x) => x && SCREEN_KINDS[x.kind]) : [];
  return listed.map((x) => Object.assign({}, x, ...dataKeys(x).map((k) => (isRecord(snap.top[k]) ? snap.top[k] : {}))));
}
/** What the screens of a step are drawn from: redraw when any of it changed. */
function screensChanged(snap) {
  const refs = [snap.top.screens];
  for (const x of Array.isArray(snap.top.screens) ? snap.top.screens : []) if (x) refs.push(...dataKeys(x).map((k) => snap.top[k]));
  const same = View.screensRef && refs.length === View.screensRef.length && refs.every((r, i) => r === View.screensRef[i]);
  View.screensRef = refs;
  return !same;
}

/** Open or close the screens wide, as a modal over the map (the sidebar squeezes a tech tree,
 * a victory table or a plot into 380 px); Esc closes it. */
function setScreensWide(on) {
  const sec = document.getElementById("screens-sec");
  sec.classList.toggle("wide", on);
  document.getElementById("screens-wide").textContent = on ? "✕ close" : "⤢ wide";
}
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Escape" && document.getElementById("screens-sec")?.classList.contains("wide")) setScreensWide(false);
});

function renderScreens(snap) {
  const sec = document.getElementById("screens-sec");
  document.getElementById("screens-wide").onclick = () => setScreensWide(!sec.classList.contains("wide"));
  const screens = screensOf(snap);
  sec.hidden = !screens.length;
  if (!screens.length) return;
  if (!screens.some((x) => x.title === View.screen)) View.screen = screens[0].title;
  const roles = View.data.roles;
  if (!roles.includes(View.screenRole)) View.screenRole = roles[0] || "";
  const tabs = document.getElementById("screen-tabs");
  tabs.replaceChildren(...screens.map((x) => h("button", {
    textContent: x.title, className: x.title === View.screen ? "tab on" : "tab",
    onclick: () => { View.screen = x.title; View.screensRef = null; render(View.step); },
  })));
  const pick = h("select", { id: "screen-role", onchange: (ev) => { View.screenRole = ev.target.value; View.screensRef = null; render(View.step); } },
    ...roles.map((r) => h("option", { value: r, textContent: r, selected: r === View.screenRole })));
  const screen = screens.find((x) => x.title === View.screen);
  const body = document.getElementById("screen");
  body.dataset.kind = screen.kind;
  body.replaceChildren(PER_PLAYER_KINDS.has(screen.kind) ? pick : "", SCREEN_KINDS[screen.kind](screen, snap));
}

/** Rows as a grid (or titled sections of rows); with ``cells``, a row click picks its map cell. */
function tableScreen(screen) {
  const grid = (rows, cells) => {
    const t = panelBody(rows || []);
    if (Array.isArray(cells) && t.tagName === "TABLE") {
      [...t.rows].slice(1).forEach((tr, i) => {
        if (!cells[i]) return;
        tr.className = cells[i] === View.picked ? "pickable picked" : "pickable";
        tr.dataset.cell = cells[i];
        tr.onclick = () => pickCell(cells[i]);
      });
    }
    return t;
  };
  const parts = Array.isArray(screen.sections)
    ? screen.sections.map((sec) => {
      const box = h("div", { className: "section" }, h("h4", {}, sec.title, h("small", {}, ` ${(sec.rows || []).length}`)), grid(sec.rows, sec.cells));
      box.dataset.title = sec.title;
      return box;
    })
    : [grid(screen.rows, screen.cells)];
  return h("div", {}, ...parts, screen.note ? h("p", { className: "note" }, screen.note) : null);
}

/** City states: one row each with the influence of every player as a bar (outlined: friend,
 * filled dark edge: ally), the quest and who leads it, the ally. */
function cityStatesScreen(screen, snap) {
  const players = screen.players || View.data.roles, sites = snap.top[screen.sites] || [];
  const states = (Array.isArray(screen.states) ? screen.states : []).map((x, k) => Object.assign({}, sites[k], x));
  const friend = Number(screen.friend) || 30, ally = Number(screen.ally) || 60;
  const top = Math.max(ally * 1.25, ...states.flatMap((x) => x.influence || []));
  const head = h("tr", {}, h("th", {}, "city state"), h("th", {}, "quest (leader)"), h("th", {}, "ally"),
    h("th", {}, `influence (friend ${friend}, ally ${ally})`));
  const t = h("table", { className: "grid citystates" }, head);
  for (const x of states) {
    const W = 120, bh = 5, svg = el("svg", { class: "influence", viewBox: `0 0 ${W} ${players.length * (bh + 1)}`, width: W, height: players.length * (bh + 1) });
    const X = (v) => (Math.max(0, v) / top) * W;
    for (const mark of [friend, ally]) el("line", { x1: X(mark), x2: X(mark), y1: 0, y2: players.length * (bh + 1), class: "mark" }, svg);
    players.forEach((role, i) => {
      const v = (x.influence || [])[i] || 0, status = (x.status || [])[i] || 0;
      const bar = el("rect", { x: 0, y: i * (bh + 1), width: Math.max(v > 0 ? 1 : 0, X(v)), height: bh, fill: roleColour(role),
        class: ["none", "friend", "ally"][status] || "none", "data-role": role }, svg);
      el("title", {}, bar).textContent = `${role}: influence ${fmt(v)}${status === 2 ? " (ally)" : status === 1 ? " (friend)" : ""}` +
        (status < 0 ? " (not met)" : "");
    });
    const sw = h("span", { className: "swatch" });
    if (x.ally) sw.style.background = roleColour(x.ally);
    const row = h("tr", {}, h("td", {}, h("b", {}, x.name), h("br"), h("small", {}, `${x.type} ${x.at}`)),
      h("td", {}, x.quest, h("br"), h("small", {}, x.leader ? `${x.leader} ${fmt(x.lead)}` : "nobody yet")),
      h("td", {}, x.ally ? sw : "", x.ally ? ` ${x.ally}` : "none"), h("td", {}, svg));
    row.dataset.citystate = x.name;
    t.append(row);
  }
  const friends = states.reduce((n, x) => n + (x.status || []).filter((v) => v === 1).length, 0);
  const allied = states.filter((x) => x.ally).length;
  const legend = h("div", { className: "cs-legend" }, ...players.map((role) => {
    const sw = h("span", { className: "swatch" });
    sw.style.background = roleColour(role);
    return h("span", { className: "legend-item" }, sw, role);
  }));
  return h("div", {}, h("p", { className: "note" }, `${states.length} city states, ${allied} allied, ${friends} friendships; ` +
    "a bar per player (faded: neutral, outlined: ally)"), legend, t);
}

/* ------------------------------------------------------------ picked cell --- */
/** Show the panel of map cell ``id`` (a city, say) and mark it on the map. */
function pickCell(id) {
  View.picked = id;
  View.pickRef = undefined;
  View.screensRef = null; // the tables mark the picked row
  render(View.step);
  const sec = document.getElementById("pick-sec");
  if (!sec.hidden) sec.scrollIntoView({ block: "nearest" });
}
function renderPick() {
  const sec = document.getElementById("pick-sec"), i = View.model.index.get(View.picked);
  const c = i === undefined ? undefined : View.cur.cells[i];
  if (View.picked == null) { sec.hidden = true; View.layers.picked.setAttribute("d", ""); return; }
  if (c === View.pickRef && !sec.hidden) return;
  View.pickRef = c;
  sec.hidden = false;
  const panel = c && isRecord(c.panel) ? c.panel : null;
  const close = h("button", { className: "close", title: "Close", textContent: "×", onclick: () => { View.picked = null; View.screensRef = null; render(View.step); } });
  const title = panel && panel.title != null ? String(panel.title) : View.picked;
  const t = h("table", { className: "kv" });
  for (const [k, v] of Object.entries(panel || {})) if (k !== "title") t.append(h("tr", {}, h("th", {}, k), h("td", {}, valueCell(v))));
  document.getElementById("pick").replaceChildren(panel ? t : h("p", { className: "none" }, "nothing here at this step"));
  document.getElementById("pick-title").replaceChildren(title, close);
  View.layers.picked.setAttribute("d", c ? boundaries(View.cur.cells, (x) => (x === c ? 0 : null)).get(0) || "" : "");
}

/** One small line chart per player field, over every step; the current step is marked. */
function plotsScreen(screen) {
  const snaps = View.model.snaps, W = 170, H = 80, pad = 4;
  const box = h("div", { className: "plots" });
  for (const field of screen.fields || []) {
    const series = new Map();
    let top = 0;
    snaps.forEach((snap, s) => {
      for (const p of Array.isArray(snap.top.players) ? snap.top.players : []) {
        const v = p.fields ? Number(p.fields[field]) : NaN;
        if (!Number.isFinite(v)) continue;
        if (!series.has(p.role)) series.set(p.role, []);
        series.get(p.role).push([s, v]);
        top = Math.max(top, v);
      }
    });
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "plot", "data-field": field, preserveAspectRatio: "none" });
    const x = (s) => pad + (s / Math.max(1, snaps.length - 1)) * (W - 2 * pad);
    const y = (v) => H - pad - (top > 0 ? v / top : 0) * (H - 2 * pad);
    for (const [role, pts] of series) {
      el("polyline", { points: pts.map(([s, v]) => `${x(s).toFixed(1)},${y(v).toFixed(1)}`).join(" "), stroke: roleColour(role), fill: "none", "stroke-width": 1.5, "vector-effect": "non-scaling-stroke" }, svg);
    }
    el("line", { x1: x(View.step), x2: x(View.step), y1: 0, y2: H, class: "cursor" }, svg);
    const now = (View.cur.top.players || []).map((p) => `${p.role} ${fmt(p.fields && p.fields[field])}`).join(", ");
    box.append(h("figure", {}, h("figcaption", {}, h("b", {}, field), ` (max ${fmt(top)}): ${now}`), svg));
  }
  return box;
}

/** The technology tree of the chosen player: known, being researched, available, locked. */
function techTreeScreen(screen, snap) {
  const tree = snap.top[screen.tree || "tech_tree"];
  if (!tree || !Array.isArray(tree.nodes)) return h("p", { className: "none" }, "no technology tree in this record");
  const mine = (screen.players || {})[View.screenRole] || { known: [], researching: -1 };
  const known = new Set(mine.known || []);
  const BW = 88, BH = 22, GX = 100, GY = 28;
  const cols = Math.max(...tree.nodes.map((n) => n.col)) + 1, rows = Math.max(...tree.nodes.map((n) => n.row)) + 1;
  const svg = el("svg", { viewBox: `0 0 ${cols * GX} ${rows * GY}`, class: "techtree", width: cols * GX, height: rows * GY });
  const at = (n) => [n.col * GX + 4, n.row * GY + 3];
  for (const n of tree.nodes) {
    const [x1, y1] = at(n);
    for (const p of n.prereqs || []) {
      const [x0, y0] = at(tree.nodes[p]);
      el("path", { d: `M${x0 + BW},${y0 + BH / 2}C${x0 + BW + 8},${y0 + BH / 2} ${x1 - 8},${y1 + BH / 2} ${x1},${y1 + BH / 2}`, class: "prereq" }, svg);
    }
  }
  const colour = roleColour(View.screenRole);
  tree.nodes.forEach((n, i) => {
    const status = known.has(i) ? "known" : i === mine.researching ? "researching"
      : (n.prereqs || []).every((p) => known.has(p)) ? "available" : "locked";
    const [x, y] = at(n);
    const g = el("g", { class: `tech ${status}`, "data-tech": n.name, transform: `translate(${x},${y})` }, svg);
    const box = el("rect", { width: BW, height: BH, rx: 4 }, g);
    if (status === "known") box.style.fill = colour; // a style: the stylesheet's fill would win over an attribute
    if (status === "researching") box.style.stroke = colour;
    el("text", { x: BW / 2, y: BH / 2 + 3.5, "text-anchor": "middle" }, g).textContent = n.name.replaceAll("_", " ");
    el("title", {}, g).textContent = `${n.name} (${n.era}, ${n.cost} science): ${status}`;
  });
  const counts = { known: known.size, researching: mine.researching >= 0 ? tree.nodes[mine.researching].name : "nothing" };
  return h("div", {}, h("p", { className: "note" }, `${View.screenRole}: ${counts.known} known, researching ${counts.researching}`),
    h("div", { className: "techtree-wrap" }, svg));
}

/** The social policies of the chosen player, one column per tree: adopted, adoptable, locked. */
function policiesScreen(screen, snap) {
  const trees = snap.top[screen.trees || "policy_trees"];
  if (!Array.isArray(trees)) return h("p", { className: "none" }, "no policy trees in this record");
  const mine = (screen.players || {})[View.screenRole] || { adopted: [], adoptable: [] };
  const adopted = new Set(mine.adopted || []), adoptable = new Set(mine.adoptable || []);
  const colour = roleColour(View.screenRole);
  const columns = trees.map((tree) => {
    const done = tree.policies.every((p) => adopted.has(p.id));
    const items = tree.policies.map((p) => {
      const status = adopted.has(p.id) ? "adopted" : adoptable.has(p.id) ? "adoptable" : "locked";
      const box = h("li", { className: `policy ${status}`, title: `${p.name} (${status}): ${p.effect}` },
        p.name.replace(/_opener$/, " (opener)").replaceAll("_", " "));
      box.dataset.policy = p.name;
      if (status === "adopted") box.style.background = colour;
      return box;
    });
    return h("div", { className: done ? "policy-tree finished" : "policy-tree", title: `finishing ${tree.name}: ${tree.finisher}` },
      h("h4", {}, tree.name, h("small", {}, ` ${tree.era}`)), h("ul", {}, ...items));
  });
  const culture = isRecord(screen.culture) ? screen.culture[View.screenRole] : mine.culture;
  const note = `${View.screenRole}: ${adopted.size} adopted, ${adoptable.size} adoptable now, culture ${fmt(culture)}`;
  return h("div", {}, h("p", { className: "note" }, note), h("div", { className: "policy-trees" }, ...columns));
}
