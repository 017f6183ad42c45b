// hexarena arena leaderboard: draws the combined and per-game tables and the list of matches.
"use strict";
(function () {
  const $ = (sel) => document.querySelector(sel);
  const el = (tag, attrs = {}, ...kids) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "class") node.className = v; else if (k.startsWith("data-")) node.setAttribute(k, v); else node[k] = v;
    }
    for (const kid of kids) node.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    return node;
  };
  let data = JSON.parse($("#lb-data").textContent);
  let section = "combined";
  const fmt = (x) => (x === null || x === undefined ? "" : Math.round(x).toString());
  const wdl = (row) => Object.entries(row.wdl_by_seat).map(([seat, v]) => `${seat} ${v.w}-${v.d}-${v.l}`).join(" · ");

  function board(name) {
    return name === "combined" ? data.board.combined : data.board.games[name];
  }

  function drawSections() {
    const nav = $("#sections");
    nav.replaceChildren();
    for (const name of ["combined", ...Object.keys(data.board.games)]) {
      const b = el("button", { class: name === section ? "active" : "", "data-section": name }, name);
      b.onclick = () => { section = name; draw(); };
      nav.append(b);
    }
  }

  function drawBoard() {
    const b = board(section);
    const rows = b.players;
    const llm = rows.some((r) => r.tokens !== null);
    const lo = Math.min(...rows.map((r) => r.low)), hi = Math.max(...rows.map((r) => r.high));
    const head = ["#", "player", "rating", "interval", "", "games", "W-D-L by seat", "inv/100", "forfeits", "errors", "avg len"];
    if (llm) head.push("ms/move", "tokens", "cost $");
    const table = el("table", { class: "board", "data-section": section });
    table.append(el("thead", {}, el("tr", {}, ...head.map((h) => el("th", { class: h === "player" ? "name" : "" }, h)))));
    const body = el("tbody");
    for (const r of rows) {
      const span = hi > lo ? 160 / (hi - lo) : 0;
      const bar = el("span", { class: "bar" });
      bar.style.marginLeft = `${(r.low - lo) * span}px`;
      bar.style.width = `${Math.max(2, (r.high - r.low) * span)}px`;
      const cells = [r.rank, r.player, fmt(r.rating), `${fmt(r.low)} to ${fmt(r.high)}`, bar, r.games, wdl(r),
        r.invalid_per_100.toFixed(1), r.forfeits, r.errors, fmt(r.avg_length)];
      if (llm) cells.push(fmt(r.latency_ms_per_move), r.tokens ?? "", r.cost_usd === null ? "" : r.cost_usd.toFixed(2));
      const tr = el("tr", { class: "player-row", "data-player": r.player });
      cells.forEach((c, i) => tr.append(el("td", { class: i === 1 ? "name" : "" }, c)));
      body.append(tr);
    }
    table.append(body);
    const fsa = section === "combined"
      ? Object.entries(b.first_seat_advantage).map(([g, v]) => `${g} ${fmt(v.rating)} (${fmt(v.low)} to ${fmt(v.high)})`).join("; ")
      : `${fmt(b.first_seat_advantage.rating)} (${fmt(b.first_seat_advantage.low)} to ${fmt(b.first_seat_advantage.high)})`;
    const model = section === "combined" ? b.model : `${b.model}, ${b.seats} seats, ${b.matches} matches`;
    $("#boards").replaceChildren(
      el("p", { class: "note" }, `${model}. Ratings on the Elo scale, ${data.board.anchor.player || "field mean"} = ${data.board.anchor.rating}; ${Math.round(100 * data.board.confidence)} % intervals.`),
      table,
      el("p", { class: "note", id: "first-seat" }, `First-seat advantage (rating points): ${fsa}`),
    );
  }

  function result(m) {
    if (m.status === "error") return `error after ${m.tries} tries: ${m.last_error || ""}`;
    if (m.status !== "done") return "not played yet";
    const order = m.seats.slice().sort((a, b) => a.place - b.place).map((s) => `${s.place}. ${s.player}`);
    return `${m.kind}: ${order.join(", ")}`;
  }

  function drawMatches() {
    const player = $("#filter-player").value, game = $("#filter-game").value;
    const body = $("#matches tbody");
    body.replaceChildren();
    let shown = 0;
    for (const m of data.matches) {
      if ((player && !m.seating.includes(player)) || (game && m.game !== game)) continue;
      shown += 1;
      const link = m.replay ? el("a", { class: "replay", href: m.replay }, "replay") : "";
      body.append(el("tr", { class: `match ${m.status}`, "data-id": m.id },
        el("td", {}, m.round), el("td", { class: "name" }, m.game), el("td", {}, m.seed),
        el("td", { class: "seating" }, m.seating.join(" · ")), el("td", { class: "name" }, result(m)),
        el("td", {}, m.moves ?? ""), el("td", {}, link)));
    }
    $("#match-count").textContent = `${shown} of ${data.matches.length} matches`;
  }

  function fillFilters() {
    for (const [sel, values] of [["#filter-player", data.players], ["#filter-game", Object.keys(data.board.games)]]) {
      const box = $(sel);
      if (box.options.length > 1) continue;
      for (const v of values) box.append(el("option", { value: v }, v));
      box.onchange = drawMatches;
    }
  }

  function draw() {
    const m = data.board.matches;
    $("#arena").textContent = data.board.arena;
    $("#summary").textContent = `${m.done} rated · ${m.errors} errors · ${m.pending} to play (of ${m.planned})`;
    drawSections();
    drawBoard();
    fillFilters();
    drawMatches();
    document.body.dataset.ready = "1";
  }

  draw();
  // Served by `hexarena view` while the arena still runs: follow it.
  if (location.protocol.startsWith("http") && data.board.matches.pending > 0) {
    setInterval(async () => {
      const r = await fetch("leaderboard-data.json", { cache: "no-store" });
      if (r.ok) { data = await r.json(); draw(); }
    }, 3000);
  }
})();
