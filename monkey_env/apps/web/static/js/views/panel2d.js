// What the side panels of the 2-D games share: the final scores table, a status line.

import { el, nameSuffix, seatLabel, seatName } from "/static/js/common.js";

/** The final table: place, seat, the game's score (``scoreName``), and ``extra`` columns [[title, seat => text]]. */
export function renderFinal(root, state, seats, scoreName, extra = []) {
  if (!state.game_over) { root.replaceChildren(); root.hidden = true; return; }
  root.hidden = false;
  const order = state.scores.map((_, s) => s).sort((a, b) => state.places[a] - state.places[b]);
  root.replaceChildren(el("h3", {}, "Final scores"),
    el("p", { class: "small" }, state.end_reason || "the game is over"),
    el("table", { id: "final-scores" },
      el("tr", {}, el("th", {}, "place"), el("th", {}, "seat"), el("th", {}, scoreName), ...extra.map(([t]) => el("th", {}, t))),
      ...order.map((s) => el("tr", { class: state.winners.includes(s) ? "winner" : "" },
        el("td", {}, String(state.places[s])), el("td", {}, `${s + 1}` + nameSuffix(seats, s)),
        el("td", { "data-final-score": state.scores[s] }, String(state.scores[s])),
        ...extra.map(([, f]) => el("td", {}, String(f(s))))))));
}

/** "Round 2 · seat 1 (you) must ..." or who won. */
export function statusLine(state, seats, { roundWord = "Round", scoreName = "points" } = {}) {
  if (state.game_over) {
    const w = state.winners.map((s) => seatLabel(seats, s)).join(" and ");
    return `Game over: ${w} win${state.winners.length > 1 ? " (shared)" : "s"} · ${scoreName} ${state.scores.join("–")}.`;
  }
  const name = seatName(seats, state.current);
  const words = name === "you" ? state.phase_words : state.phase_words.replace(/\byour\b/g, "their");
  return `${roundWord} ${state.round} · ${seatLabel(seats, state.current)} must ${words}`;
}
