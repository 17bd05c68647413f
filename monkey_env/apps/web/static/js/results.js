// The results page: every tournament of the arena database (--db) with its leaderboard, ratings
// plot and win-rate matrix (plain SVG, values on hover), its games with links to their replays;
// then the balance lab's report: seat win rates per map and player count (interactive), and the
// whole report as written by `monkey-palace balance`.

import { api, el, nav } from "/static/js/common.js";

const $ = (id) => document.getElementById(id);
document.getElementById("nav").replaceWith(nav("Results"));
const SVG = "http://www.w3.org/2000/svg";
const tip = $("chart-tip");

function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function hover(node, text) {
  node.addEventListener("mousemove", (ev) => {
    tip.textContent = text; tip.style.display = "block";
    tip.style.left = `${ev.clientX + 12}px`; tip.style.top = `${ev.clientY + 12}px`;
  });
  node.addEventListener("mouseleave", () => { tip.style.display = "none"; });
  return node;
}

const pct = (x) => (x === null || x === undefined ? "-" : `${(100 * x).toFixed(1)}%`);

/** Redder below 50%, greener above. */
function rateColour(v) {
  const t = Math.max(0, Math.min(1, v));
  const r = t < 0.5 ? 215 : Math.round(215 - (t - 0.5) * 2 * 150);
  const g = t > 0.5 ? 190 : Math.round(80 + t * 2 * 110);
  return `rgb(${r},${g},90)`;
}

function ratingsPlot(board) {
  const w = 460, rowH = 28, h = 30 + rowH * board.length, left = 120;
  const lo = Math.min(...board.map((r) => r.mu - 3 * r.sigma)), hi = Math.max(...board.map((r) => r.mu + 3 * r.sigma));
  const x = (v) => left + ((v - lo) / (hi - lo || 1)) * (w - left - 20);
  const s = svg("svg", { width: w, height: h, role: "img", "aria-label": "ratings" });
  board.forEach((r, i) => {
    const y = 20 + i * rowH;
    s.append(svg("text", { x: 4, y: y + 4 }, r.agent));
    s.append(svg("line", { x1: x(r.mu - 3 * r.sigma), x2: x(r.mu + 3 * r.sigma), y1: y, y2: y, stroke: "#5d6b76", "stroke-width": 2 }));
    s.append(hover(svg("circle", { cx: x(r.mu), cy: y, r: 6, fill: "#1b6fd1" }),
      `${r.agent}: mu ${r.mu.toFixed(2)}, sigma ${r.sigma.toFixed(2)}, mu-3σ ${r.ordinal.toFixed(2)}; ${r.seat_games} games`));
  });
  s.append(svg("text", { x: left, y: h - 4, fill: "#5d6b76" }, "openskill mu, bars ±3 sigma"));
  return s;
}

function winMatrix(agents, rates) {
  const cell = 64, left = 110, top = 24;
  const s = svg("svg", { width: left + cell * agents.length + 10, height: top + cell * agents.length + 10, role: "img",
    "aria-label": "win-rate matrix" });
  agents.forEach((b, j) => s.append(svg("text", { x: left + j * cell + cell / 2, y: 16, "text-anchor": "middle" }, b)));
  agents.forEach((a, i) => {
    s.append(svg("text", { x: 4, y: top + i * cell + cell / 2 + 4 }, a));
    agents.forEach((b, j) => {
      const c = a === b ? null : rates[a][b];
      const x = left + j * cell, y = top + i * cell;
      const fill = !c || !c.games ? "#eef1f3" : rateColour(c.win_rate);
      const rect = svg("rect", { x, y, width: cell - 2, height: cell - 2, fill, rx: 4 });
      s.append(c && c.games ? hover(rect, `${a} vs ${b}: ${pct(c.win_rate)} [${pct(c.ci95[0])}, ${pct(c.ci95[1])}] over ${c.games} games`) : rect);
      if (c && c.games) s.append(svg("text", { x: x + cell / 2 - 1, y: y + cell / 2 + 4, "text-anchor": "middle", "pointer-events": "none" }, pct(c.win_rate)));
    });
  });
  return s;
}

async function arena() {
  const root = $("arena");
  let r;
  try {
    r = await api("/api/arena");
  } catch (e) {
    root.replaceChildren(el("p", { class: "small" }, `No arena results: ${e.message}`));
    return;
  }
  if (!r.tournaments.length) { root.replaceChildren(el("p", {}, "The database holds no games yet.")); return; }
  root.replaceChildren(...r.tournaments.map((t) => {
    const cfg = t.tournament;
    const agents = t.leaderboard.map((row) => row.agent);
    const board = el("table", { class: "leaderboard" },
      el("tr", {}, ...["#", "agent", "version", "mu", "sigma", "mu-3σ", "games", "win share", `mean ${t.score_name || "score"} (95% CI)`].map((h) => el("th", {}, h))),
      ...t.leaderboard.map((row) => el("tr", {}, el("td", {}, String(row.place)), el("td", {}, row.agent), el("td", { class: "small" }, row.version),
        el("td", {}, row.mu.toFixed(2)), el("td", {}, row.sigma.toFixed(2)), el("td", {}, row.ordinal.toFixed(2)),
        el("td", {}, String(row.seat_games)), el("td", {}, pct(row.first_place)),
        el("td", {}, row.mean_score === null ? "-" : `${row.mean_score.toFixed(2)} (${row.score_ci95[0].toFixed(2)}-${row.score_ci95[1].toFixed(2)})`))));
    const games = el("div", { class: "moves" }, ...t.games.map((g) => el("div", {},
      `#${g.game_index}: ${g.seats.join(" vs ")} → ${g.scores.join(" : ")} (${g.rounds} rounds) `,
      g.engine === "reference" ? el("a", { href: `/replay?source=arena&id=${cfg.id}-${g.game_index}` }, "replay")
        : el("span", { class: "small", title: "JAX-engine games are not replayed by the reference engine" }, "(jax)"))));
    return el("div", { class: "box", style: "margin-bottom:12px" },
      el("h2", {}, `Tournament ${cfg.id}`),
      el("p", { class: "small" }, `${t.games_recorded} games, ${cfg.players} players, map ${cfg.map}, ${cfg.engine} engine, seed ${cfg.seed}; ${t.shared_win}`),
      board,
      el("div", { class: "cards" }, el("div", {}, el("h3", {}, "Ratings"), ratingsPlot(t.leaderboard)),
        el("div", {}, el("h3", {}, "Win rate, row against column"), winMatrix(agents, t.win_rates))),
      el("h3", {}, "Games"), games);
  }));
}

function seatChart(cells, players) {
  const rows = cells.filter((c) => c.players === players);
  const seats = players, groupW = 40 + seats * 26, w = 60 + groupW * rows.length, h = 240, top = 10, bottom = 200;
  const y = (v) => bottom - v * (bottom - top) / 0.8;
  const s = svg("svg", { width: w, height: h, role: "img", "aria-label": "seat win rates" });
  for (const v of [0, 0.2, 0.4, 0.6, 0.8]) {
    s.append(svg("line", { x1: 40, x2: w, y1: y(v), y2: y(v), stroke: "#e3e8ec" }));
    s.append(svg("text", { x: 4, y: y(v) + 4 }, pct(v)));
  }
  const fair = rows.length ? rows[0].fair : 1 / players;
  rows.forEach((c, i) => {
    const x0 = 50 + i * groupW;
    c.seats.forEach((seat, k) => {
      const x = x0 + k * 26, v = seat.win;
      s.append(hover(svg("rect", { x, y: y(v.value), width: 20, height: bottom - y(v.value), fill: ["#d7263d", "#1b6fd1", "#f29e1f", "#8e44ad"][k], opacity: 0.85 }),
        `map ${c.map}, ${players} players, seat ${seat.seat}: wins ${pct(v.value)} [${pct(v.lo)}, ${pct(v.hi)}], n=${v.n}; ` +
        `mean Banana Points ${seat.bananas.value.toFixed(1)}`));
      s.append(svg("line", { x1: x + 10, x2: x + 10, y1: y(v.lo), y2: y(v.hi), stroke: "#1f2a33", "stroke-width": 1.5 }));
    });
    s.append(svg("text", { x: x0 + (seats * 26) / 2, y: bottom + 16, "text-anchor": "middle" }, c.map === "all" ? "all maps" : `map ${c.map}`));
  });
  s.append(svg("line", { x1: 40, x2: w, y1: y(fair), y2: y(fair), stroke: "#5d6b76", "stroke-dasharray": "4 3" }));
  s.append(svg("text", { x: 44, y: y(fair) - 4, fill: "#5d6b76" }, `fair ${pct(fair)}`));
  return s;
}

async function balance() {
  const root = $("balance");
  let figures;
  try {
    figures = await api("/api/balance");
  } catch (e) {
    root.replaceChildren(el("p", { class: "small" }, `No balance report: ${e.message}`));
    return;
  }
  const cells = [...(figures.seats.pooled || []), ...(figures.seats.cells || [])];
  const counts = [...new Set(cells.map((c) => c.players))].sort();
  const chart = el("div");
  const pick = el("select", { id: "balance-players" }, ...counts.map((n) => el("option", { value: n }, `${n} players`)));
  const draw = () => chart.replaceChildren(seatChart(cells, Number(pick.value)));
  pick.addEventListener("change", draw);
  draw();
  root.replaceChildren(el("div", { class: "box" }, el("h3", {}, "Win rate by seat (95% intervals; hover a bar)"), pick, chart,
      el("p", { class: "small" }, `${figures.meta.plan.games} games per cell, agents: ${figures.meta.plan.agents.join(", ")}. `,
        el("a", { href: "/reports/balance/report.html" }, "the whole report"), " · ",
        el("a", { href: "/reports/balance/report.md" }, "as Markdown"))),
    el("iframe", { src: "/reports/balance/report.html", title: "balance report", style: "width:100%;height:900px;border:1px solid #d5dde3;border-radius:8px;margin-top:10px;background:#fff" }));
}

arena();
balance().then(() => { document.body.dataset.ready = "1"; });
