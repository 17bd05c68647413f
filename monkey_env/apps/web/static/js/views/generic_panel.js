// The side panels of the generic view: each seat's score, the final table.

import { el, nameSuffix } from "/static/js/common.js";
import * as common from "/static/js/views/panel2d.js";

export const PILES_TITLE = null;

export function statusLine(state, seats) {
  return common.statusLine(state, seats, { scoreName: state.score_name });
}

export function decisionWords() {
  return "Click an action.";
}

export function renderPlayers(root, state, seats) {
  root.replaceChildren(...state.players.map((p) =>
    el("div", { class: `player${!state.game_over && p.seat === state.current ? " current" : ""}`, "data-seat": p.seat },
      el("b", {}, `Seat ${p.seat + 1}` + nameSuffix(seats, p.seat)), " ",
      el("span", { class: "score", "data-score": p.score }, `${p.score} ${state.score_name}`))));
}

export function renderTray(root) {
  root.replaceChildren();
}

export function renderFinal(root, state, seats) {
  common.renderFinal(root, state, seats, state.score_name);
}
