// The replay page: /replay?source=game|record|arena&id=KEY&step=K. Every decision, forward and
// back (buttons, slider, arrow keys, Home/End); the URL always names the position shown.

import { api, el, nav, param, seatLabel, viewsFor } from "/static/js/common.js";

const $ = (id) => document.getElementById(id);
document.getElementById("nav").replaceWith(nav("Replay"));
const source = param("source", "game"), key = param("id");
let views, view, steps = 0, step = 0, moves = [], info = null, loading = false, wanted = null;

function url(k) {
  return `/replay?source=${encodeURIComponent(source)}&id=${encodeURIComponent(key)}&step=${k}`;
}

async function go(k) {
  k = Math.max(0, Math.min(steps, k));
  if (loading) { wanted = k; return; }
  loading = true;
  try {
    const r = await api(`/api/replays/${source}/${key}?step=${k}`);
    render(r, Math.abs(r.step - step) === 1);
  } catch (e) {
    $("message").textContent = e.message;
    $("message").style.display = "block";
  } finally {
    loading = false;
  }
  if (wanted !== null) { const w = wanted; wanted = null; go(w); }
}

function render(r, animate) {
  info = r;
  step = r.step; steps = r.steps; moves = r.moves;
  const f = r.frame;
  if (views.flat) {
    view.render(f, { mine: false, hidden: [], move: f.move });      // a replay shows every hand
  } else {
    view.setPalace(f.palace, { animate, duration: 300 });
    view.setMarker(f.turn.anchor ? { x: f.turn.anchor[0], y: f.turn.anchor[1], z: 0 } : null);
  }
  $("title").textContent = `Replay: ${r.title}`;
  $("status").textContent = views.panel.statusLine(f, r.seats);
  $("position").textContent = `Position ${step} of ${steps} (round ${f.round})`;
  $("move").textContent = f.move ? `Last decision: ${seatLabel(r.seats, f.move.seat)}: ${f.move.label}` : "The set-up, before the first decision.";
  $("slider").max = steps; $("slider").value = step;
  views.panel.renderPlayers($("players"), f, r.seats);
  views.panel.renderTray($("tray"), f);
  if (!views.flat) views.panel.renderPiles($("piles"), f, null, { readonly: true });
  views.panel.renderFinal($("final"), f, r.seats);
  $("permalink").href = url(step);
  $("permalink").textContent = location.origin + url(step);
  $("download").href = `/api/replays/${source}/${key}/record`;
  history.replaceState(null, "", url(step));
  const list = $("moves");
  if (list.childElementCount !== moves.length) {
    list.replaceChildren(...moves.map((m, i) => {
      const d = el("div", { "data-step": i + 1 }, `${i + 1}. seat ${m.seat + 1}: ${m.label}`);
      d.addEventListener("click", () => go(i + 1));
      return d;
    }));
  }
  for (const d of list.children) d.classList.toggle("at", Number(d.dataset.step) === step);
  const at = list.querySelector(".at");
  if (at) {                                   // scroll the list only, not the page
    const top = at.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - at.offsetHeight) list.scrollTop = top - list.clientHeight / 2;
  }
  document.body.dataset.step = step;
  document.body.dataset.steps = steps;
}

async function main() {
  if (!key) { $("status").textContent = "No replay chosen: open one from the home page."; return; }
  let r;
  try {
    r = await api(`/api/replays/${source}/${key}?step=${param("step", "0")}`);
  } catch (e) {
    $("status").textContent = `Cannot open the replay: ${e.message}`;
    return;
  }
  views = await viewsFor(r.game);
  document.body.dataset.game = r.game;
  if (views.flat) $("piles-box").hidden = true;
  view = views.flat ? new views.board.BoardView($("view")) : views.board.createPalaceView($("view"));
  window.mp = { view, go, get step() { return step; } };
  render(r, false);
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(step - 1));
  $("next").addEventListener("click", () => go(step + 1));
  $("last").addEventListener("click", () => go(steps));
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  document.addEventListener("keydown", (ev) => {
    if (ev.target.tagName === "INPUT" && ev.target.type !== "range") return;
    const k = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: steps }[ev.key];
    if (k !== undefined) { ev.preventDefault(); go(k); }
  });
  document.body.dataset.ready = "1";
}

main();
