/* hexarena replay viewer, part 5 of 5: controls, keys, loading, following a running match. */
"use strict";

function seek(s) {
  const last = View.model.snaps.length - 1;
  s = Math.max(0, Math.min(last, Number.isFinite(s) ? s : 0));
  if (s === last) pause();
  render(s);
}
/** The first step of the next (dir = 1) or of the current or previous (dir = -1) player's turn:
 * a turn starts where the mover changes. */
function turnStart(dir) {
  const snaps = View.model.snaps, mover = (s) => snaps[s].step.role;
  let s = View.step;
  if (dir > 0) {
    do s += 1; while (s < snaps.length - 1 && mover(s) === mover(s - 1));
  } else { // from inside a turn back to its start, from its start to the previous turn's
    s -= 1;
    while (s > 1 && mover(s) === mover(s - 1)) s -= 1;
  }
  return s;
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
  View.fogRef = null;
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
    "]": () => seek(turnStart(1)), "[": () => seek(turnStart(-1)),
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
  let drag = null, down = null;
  svg.addEventListener("mousedown", (ev) => { drag = [ev.clientX, ev.clientY, View.viewBox.slice()]; down = [ev.clientX, ev.clientY]; });
  svg.addEventListener("click", (ev) => { // a click, not the end of a drag, on a cell with a panel opens it
    if (down && Math.hypot(ev.clientX - down[0], ev.clientY - down[1]) > 4) return;
    const g = ev.target.closest && ev.target.closest(".cell");
    const c = g ? View.cur.cells[Number(g.dataset.i)] : undefined;
    if (c && isRecord(c.panel)) pickCell(c.id);
  });
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
  const only = document.getElementById("only-problems");
  only.onchange = () => document.getElementById("log").classList.toggle("problems", only.checked);
  // Give the keyboard back to the page after a click, so Space never presses a button twice.
  for (const control of document.querySelectorAll("nav button, nav select, #only-problems")) {
    control.addEventListener(control.tagName === "BUTTON" ? "click" : "change", () => control.blur());
  }
  document.addEventListener("keydown", onKey);
}

/** The fog-of-war choices: off, and every role that some cell has fog for. */
function buildFogOptions() {
  const roles = new Set();
  for (const st of View.data.steps) {
    for (const c of st.delta.cells) if (c.fog) for (const r in c.fog) roles.add(r);
    if (st.delta.fog && typeof st.delta.fog === "object") for (const r in st.delta.fog) roles.add(r);
  }
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
  buildMapKey();
  buildChart();
  buildLog();
}

function renderHeader() {
  const d = View.data, res = d.result;
  document.title = `${View.vocab.title} · ${d.title} · hexarena replay`;
  document.getElementById("game").textContent = View.vocab.title;
  document.getElementById("title").textContent = d.title;
  const out = res && res.outcome ? `${res.outcome.kind}: ${res.outcome.reason}`
    : d.log.length ? "no result yet (running or crashed match)" : "frames only (no moves log, no result)";
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
  View.edgesRef = View.playersRef = View.panelsRef = View.fogRef = View.screensRef = null;
  View.pickRef = undefined;
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
