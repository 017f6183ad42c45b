/* hexarena replay viewer, part 4 of 5: a game's extra screens (frame key "screens").
 * Data-driven: each screen is {title, kind, ...} and SCREEN_KINDS maps a kind to its renderer,
 * so a game adds a screen by writing it into its frames (a new kind needs one function here).
 * Kinds: "table" (rows, note), "plots" (player fields over time), "techtree" (tree, players),
 * "policies" (trees: the frame key of the policy trees; players: adopted and adoptable ids). */
"use strict";

const SCREEN_KINDS = {
  table: (screen) => h("div", {}, panelBody(screen.rows || []), screen.note ? h("p", { className: "note" }, screen.note) : null),
  plots: plotsScreen,
  techtree: techTreeScreen,
  policies: policiesScreen,
};
const PER_PLAYER_KINDS = new Set(["techtree", "policies"]);

function renderScreens(snap) {
  const sec = document.getElementById("screens-sec");
  const screens = Array.isArray(snap.top.screens) ? snap.top.screens.filter((x) => x && SCREEN_KINDS[x.kind]) : [];
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
  const note = `${View.screenRole}: ${adopted.size} adopted, ${adoptable.size} adoptable now, culture ${fmt(mine.culture)}`;
  return h("div", {}, h("p", { className: "note" }, note), h("div", { className: "policy-trees" }, ...columns));
}
