// The home page: start a game (game, options from the game's options model, who sits where),
// continue or replay a saved game, open a record, list the arena's games.

import { api, el, nav } from "/static/js/common.js";

const $ = (id) => document.getElementById(id);
document.getElementById("nav").replaceWith(nav("Home"));
let meta;

function optionInput(name, f) {
  const id = `opt-${name}`;
  if (f.type === "bool") return el("input", { type: "checkbox", id, name, checked: f.default ? "" : null });
  if (f.type === "int") return el("input", { type: "number", id, name, min: f.minimum ?? 0, value: f.default });
  return el("select", { id, name }, ...f.choices.map((c) => el("option", { value: c, selected: c === f.default ? "" : null }, String(c))));
}

function renderSeats() {
  const players = Number($("opt-players").value);
  const root = $("seats");
  const old = [...root.querySelectorAll("select")].map((s) => s.value);
  root.replaceChildren();
  for (let i = 0; i < players; i++) {
    const choices = ["human", ...(chosenGame().agents || meta.agents).map((a) => `bot:${a}`)];
    const fallback = i === 0 ? "human" : "bot:random";
    const sel = el("select", { id: `seat-${i}`, name: `seat-${i}` },
      ...choices.map((c) => el("option", { value: c, selected: c === (choices.includes(old[i]) ? old[i] : fallback) ? "" : null },
        c === "human" ? "a person (you)" : `bot: ${c.slice(4)}`)));
    root.append(el("label", { for: `seat-${i}` }, `Seat ${i + 1}`), sel);
  }
}

function chosenGame() {
  return meta.games.find((g) => g.name === $("opt-game").value) || meta.games[0];
}

function renderOptions() {
  const root = $("options");
  const game = chosenGame();
  root.replaceChildren(el("label", { for: "opt-game" }, "game"), $("opt-game"));
  for (const [name, f] of Object.entries(game.options)) {
    root.append(el("label", { for: `opt-${name}`, title: f.description }, name.replace("_", " ")), optionInput(name, f));
  }
  $("opt-players").addEventListener("change", renderSeats);
  renderSeats();
}

async function start(ev) {
  ev.preventDefault();
  const game = chosenGame();
  const options = {};
  for (const [name, f] of Object.entries(game.options)) {
    const input = $(`opt-${name}`);
    options[name] = f.type === "bool" ? input.checked : f.type === "int" || name === "players" ? Number(input.value) : input.value;
  }
  const seats = [];
  for (let i = 0; i < options.players; i++) {
    const v = $(`seat-${i}`).value;
    seats.push(v === "human" ? { kind: "human" } : { kind: "bot", agent: v.slice(4) });
  }
  try {
    const g = await api("/api/games", { method: "POST", body: { game: game.name, options, seats } });
    // The page's own settings (botDelay, aa) go on to the game's page.
    const q = new URLSearchParams(location.search);
    q.set("id", g.id);
    location.href = `/play?${q}`;
  } catch (e) {
    $("new-error").textContent = e.message;
  }
}

async function listGames() {
  const { games } = await api("/api/games");
  if (!games.length) { $("games").textContent = "No games yet."; return; }
  const titles = Object.fromEntries(meta.games.map((g) => [g.name, g.title]));
  $("games").replaceChildren(el("table", {}, el("tr", {}, el("th", {}, "game"), el("th", {}, "seats"), el("th", {}, "decisions"),
      el("th", {}, "updated"), el("th", {}, "")),
    ...games.slice(0, 40).map((g) => el("tr", {}, el("td", { title: g.id }, `${titles[g.game] || g.game} ${g.id.slice(0, 8)}`),
      el("td", {}, g.seats.map((s) => (s.kind === "human" ? "person" : s.agent)).join(" vs ")),
      el("td", {}, String(g.decisions) + (g.game_over ? " (over)" : "")), el("td", {}, g.updated.replace("T", " ").replace("Z", "")),
      el("td", {}, g.game_over ? "" : el("a", { href: `/play?id=${g.id}` }, "continue"), " ",
        el("a", { href: `/replay?source=game&id=${g.id}` }, "replay"))))));
}

async function upload() {
  const file = $("upload").files[0];
  if (!file) return;
  $("upload-error").textContent = "";
  if (file.size > 2 * 1024 * 1024) { $("upload-error").textContent = "The file is larger than 2 MB."; return; }
  try {
    const r = await api("/api/records", { method: "POST", body: await file.text(), raw: true });
    location.href = `/replay?source=record&id=${r.id}`;
  } catch (e) {
    $("upload-error").textContent = e.message;
  }
}

async function arena() {
  if (!meta.arena) { $("arena").textContent = "No arena database (start the server with --db FILE)."; return; }
  try {
    const r = await api("/api/arena");
    $("arena").replaceChildren(...r.tournaments.map((t) => el("div", {},
      `Tournament ${t.tournament.id} (${t.games_recorded} games, ${t.tournament.engine} engine): `,
      el("a", { href: "/results" }, "results"))));
  } catch (e) { $("arena").textContent = e.message; }
}

async function main() {
  meta = await api("/api/meta");
  // Which game: each brings its options (from its options model) and its board view.
  const pick = el("select", { id: "opt-game", name: "game" }, ...meta.games.map((g) => el("option", { value: g.name }, g.title)));
  $("options").append(pick);
  pick.addEventListener("change", renderOptions);
  renderOptions();
  $("new-game").addEventListener("submit", start);
  $("upload").addEventListener("change", upload);
  listGames();
  arena();
  document.body.dataset.ready = "1";
}

main();
