// The play page: /play?id=GAME[&botDelay=MS]. A person's decisions are clicks (Monkey Palace: studs
// in the 3-D view, shapes in the list, piles, buttons; a 2-D game: what its board draws, and
// buttons); the bots' moves are asked for one at a time and shown one by one. Every move is saved
// by the server before it answers, so a reload resumes.

import { api, ApiError, el, nav, param, seatLabel, sleep, viewsFor } from "/static/js/common.js";

const gameId = param("id");
const botDelay = Number(param("botDelay", "700"));
const $ = (id) => document.getElementById(id);
document.getElementById("nav").replaceWith(nav("Play"));

let views, view, current = null, busy = false;

function showMessage(text) {
  const m = $("message");
  m.textContent = text || "";
  m.style.display = text ? "block" : "none";
}

function logMove(move, seats) {
  if (!move) return;
  $("log").append(el("li", {}, `${seatLabel(seats, move.seat)}: ${move.label}`));
  $("log").scrollTop = $("log").scrollHeight;
}

function humanToMove() {
  return current && !current.state.game_over && current.to_move === "human";
}

async function send(action) {
  if (busy || !humanToMove()) return;
  busy = true;
  try {
    const r = await api(`/api/games/${gameId}/move`, { method: "POST", body: { action, expect: current.state.decisions } });
    showMessage("");
    logMove(r.move, r.seats);
    show(r, { animate: true });
  } catch (e) {
    if (e instanceof ApiError && e.body.game) {
      showMessage(e.body.error === "illegal" ? `Not allowed: ${e.body.detail}` : e.body.detail);
      show(e.body.game);
    } else showMessage(String(e.message || e));
  } finally {
    busy = false;
  }
  runBots();
}

function renderDecision(state) {
  const d = state.decision;
  const mine = humanToMove();
  $("buttons").replaceChildren();
  $("shapes").replaceChildren();
  view.clearPreview();
  if (state.game_over) {
    $("decision-title").textContent = "The game is over";
    $("decision-words").textContent = "";
    view.setHighlights([]);
    view.setMarker(null);
    document.body.dataset.phase = "GAME_OVER";
    return;
  }
  if (!d) {                       // another seat's decision, withheld from this page
    document.body.dataset.phase = "WAIT";
    $("decision-title").textContent = `Seat ${state.current + 1} is thinking…`;
    $("decision-words").textContent = "";
    view.setHighlights([]);
    view.setMarker(null);
    return;
  }
  document.body.dataset.phase = mine ? d.phase : "WAIT";
  $("decision-title").textContent = mine ? `Your decision: ${d.words}` : `Seat ${d.seat + 1} is thinking…`;
  let words = "";
  if (d.phase === "ANCHOR") words = `Click a highlighted stud where your staircase starts (${d.studs.length} possible).`;
  if (d.phase === "MONKEY") words = "Click a highlighted arch end for the monkey, or let it stay.";
  if (d.phase === "SHAPE") words = `Staircases from (${d.anchor[0]}, ${d.anchor[1]}): hover one to see it in place, click to build it.`;
  if (d.phase === "BUY") words = `Credits: ${d.credits}, decoration ${d.colour}. Click a pile to buy its top card, or stop buying.`;
  $("decision-words").textContent = mine ? words : "";
  view.setHighlights(mine ? d.studs : []);
  view.setMarker(d.phase === "SHAPE" ? { x: d.anchor[0], y: d.anchor[1], z: 0 } : null);
  if (!mine) return;
  for (const b of d.buttons) {
    const btn = el("button", { "data-action": b.action, class: "decision-button" }, b.label);
    btn.addEventListener("click", () => send(b.action));
    $("buttons").append(btn);
  }
  for (const s of d.shapes) {
    // A next arch of a staircase built arch by arch has no decoration yet (deco_top null).
    const arch = s.deco_top === null;
    const uses = `${s.arches} arch(es), ${s.bricks} brick(s), ${s.columns} column(s)`;
    const earns = `+${s.credits} credit${s.credits === 1 ? "" : "s"}${s.bonus ? " + bonus card" : ""}`;
    const btn = el("button", { class: "shape", "data-action": s.action,
        title: arch ? `with this arch: ${uses}` : `${uses}; decoration at height ${s.deco_top}; ${earns}` },
      el("b", {}, arch ? `arch ${s.arches}` : earns), arch ? " · " : ` · height ${s.deco_top} · `, s.label);
    btn.addEventListener("mouseenter", () => view.showPreview(s.elements));
    btn.addEventListener("focus", () => view.showPreview(s.elements));
    btn.addEventListener("mouseleave", () => view.clearPreview());
    btn.addEventListener("click", () => send(s.action));
    $("shapes").append(btn);
  }
}

/** Seats whose hand is drawn face down: the bots', while a person plays (all open at the end). */
function hiddenSeats(g) {
  if (g.state.game_over || !g.seats.some((s) => s.kind === "human")) return [];
  return g.seats.map((s, i) => (s.kind === "bot" ? i : -1)).filter((i) => i >= 0);
}

// A 2-D game (views.flat): its board draws the legal choices and calls send(); the rest are buttons.
function showFlat(g) {
  current = g;
  const st = g.state, d = st.decision, mine = humanToMove(), hidden = hiddenSeats(g);
  view.render(st, { mine, hidden, controls: $("extra"), move: g.move || null });
  $("status").textContent = views.panel.statusLine(st, g.seats);
  views.panel.renderPlayers($("players"), st, g.seats, { hidden });
  views.panel.renderTray($("tray"), st);
  views.panel.renderFinal($("final"), st, g.seats);
  $("buttons").replaceChildren();
  $("shapes").replaceChildren();
  if (st.game_over) {
    $("decision-title").textContent = "The game is over";
    $("decision-words").textContent = "";
    document.body.dataset.phase = "GAME_OVER";
  } else if (!mine || !d) {       // another seat's decision (withheld from this page)
    document.body.dataset.phase = "WAIT";
    $("decision-title").textContent = `Seat ${st.current + 1} is thinking…`;
    $("decision-words").textContent = "";
  } else {
    document.body.dataset.phase = d.phase;
    $("decision-title").textContent = `Your decision: ${d.words}`;
    $("decision-words").textContent = views.panel.decisionWords(d);
    for (const b of d.buttons) {
      const btn = el("button", { "data-action": b.action, class: "decision-button" }, b.label);
      btn.addEventListener("click", () => send(b.action));
      $("buttons").append(btn);
    }
  }
  if (!mine) $("extra").replaceChildren();
  document.body.dataset.decisions = st.decisions;
  $("links").replaceChildren(el("a", { href: `/replay?source=game&id=${gameId}` }, "replay this game"), " · ",
    el("a", { href: `/api/games/${gameId}/record` }, "download the record"));
}

function show(g, { animate = false } = {}) {
  if (views.flat) { showFlat(g); return; }
  current = g;
  const st = g.state;
  view.setPalace(st.palace, { animate: animate && botDelay > 0, duration: Math.min(450, botDelay) });
  $("tooltip").style.display = "none";
  $("status").textContent = views.panel.statusLine(st, g.seats);
  views.panel.renderPlayers($("players"), st, g.seats);
  views.panel.renderTray($("tray"), st);
  views.panel.renderPiles($("piles"), st, humanToMove() && st.phase === "BUY" ? send : null);
  views.panel.renderFinal($("final"), st, g.seats);
  renderDecision(st);
  document.body.dataset.decisions = st.decisions;
  $("links").replaceChildren(el("a", { href: `/replay?source=game&id=${gameId}` }, "replay this game"), " · ",
    el("a", { href: `/api/games/${gameId}/record` }, "download the record"));
}

let botsRunning = false;
async function runBots() {
  if (botsRunning) return;
  botsRunning = true;
  try {
    while (current && !current.state.game_over && current.to_move === "bot") {
      if (botDelay > 0) await sleep(botDelay);
      try {
        const r = await api(`/api/games/${gameId}/bot`, { method: "POST", body: { expect: current.state.decisions } });
        logMove(r.move, r.seats);
        show(r, { animate: true });
        if (botDelay > 0 && !views.flat) await view.settled();
      } catch (e) {
        if (e instanceof ApiError && e.body.game) { show(e.body.game); continue; }   // another tab moved: go on
        showMessage(String(e.message || e));
        break;
      }
    }
  } finally {
    botsRunning = false;
  }
}

async function main() {
  if (!gameId) { $("status").textContent = "No game: start one from the home page."; return; }
  let g;
  try {
    g = await api(`/api/games/${gameId}`);
  } catch (e) {
    $("status").textContent = `Cannot open the game: ${e.message}`;
    return;
  }
  views = await viewsFor(g.game);
  document.body.dataset.game = g.game;
  if (views.flat) {
    $("piles-box").hidden = true;
    view = new views.board.BoardView($("view"), { onAction: send });
    window.mp = { view, send, get game() { return current; } };       // for tests and the console
    show(g);
    if (g.state.decisions) {                  // a resumed game: its moves so far in the log
      try {
        const r = await api(`/api/replays/game/${gameId}?step=0`);
        if (!$("log").childElementCount) for (const m of r.moves) logMove(m, g.seats);
      } catch (e) { /* the log stays empty; the game plays on */ }
    }
    document.body.dataset.ready = "1";
    runBots();
    return;
  }
  const tooltip = $("tooltip");
  view = views.board.createPalaceView($("view"), {
    onStudClick: (s) => send(s.action),
    onStudHover: (s, ev) => {
      if (!s) { tooltip.style.display = "none"; return; }
      const r = $("view").getBoundingClientRect();
      tooltip.textContent = s.label;
      tooltip.style.left = `${ev.clientX - r.left + 12}px`;
      tooltip.style.top = `${ev.clientY - r.top + 12}px`;
      tooltip.style.display = "block";
    },
  });
  window.mp = { view, send, get game() { return current; } };       // for tests and the console
  show(g);
  document.body.dataset.ready = "1";
  runBots();
}

main();
