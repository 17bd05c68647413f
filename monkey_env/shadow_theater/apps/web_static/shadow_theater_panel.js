// The Shadow Theater's side panels (play and replay pages): each seat's Lanterns, supply, scroll,
// hand and points if the round ended now; the reserve, the cards played and the rounds scored.

import { el, nameSuffix } from "/static/js/common.js";
import * as common from "/static/js/views/panel2d.js";
import { SEAT_COLOURS } from "./shadow_theater_2d.js";

export const PILES_TITLE = null;            // no Monkey Card piles

export function statusLine(state, seats) {
  return common.statusLine(state, seats, { scoreName: "Lanterns" });
}

/** What a person is asked to do, in words. */
export function decisionWords(d) {
  if (d.phase === "DRAFT") return "Click the Scroll tile you keep for this round.";
  if (d.phase === "KING_MOVE") return "Click a free space of another location: the Monkey King goes there.";
  const bits = [];
  if (d.cards.length) bits.push("play a highlighted weapon card (optional)");
  if (d.place.length) bits.push("click a free space to place a monkey");
  if (d.collect.length) bits.push("or collect a location's monkeys");
  return bits.length ? `${bits.join(", then ")}.`.replace(/^./, (c) => c.toUpperCase()) : "Nothing to place or collect: pass.";
}

export function renderPlayers(root, state, seats, { hidden = [] } = {}) {
  root.replaceChildren();
  for (const p of state.players) {
    const current = !state.game_over && p.seat === state.current;
    const pts = p.points;
    const hand = hidden.includes(p.seat) ? `${p.hand.length} card(s), face down`
      : (p.hand.map((c) => c.name).join(", ") || "no cards");
    root.append(el("div", { class: `player${current ? " current" : ""}`, "data-seat": p.seat },
      el("div", { class: "player-head" },
        el("span", { class: "swatch", style: `background:${SEAT_COLOURS[p.seat]}` }),
        el("b", {}, `Seat ${p.seat + 1}` + nameSuffix(seats, p.seat)),
        el("span", { class: "score", "data-score": p.lanterns }, `${p.lanterns} Lantern${p.lanterns === 1 ? "" : "s"}`)),
      el("div", { class: "small" }, `${p.supply.monkeys} monkeys · ${p.supply.jade} jade · ${p.supply.peaches} peaches`),
      el("div", { class: "small" }, `scroll: ${p.scroll ? `${p.scroll.name} (${p.scroll.words})` : "-"}`),
      el("div", { class: "small" }, `hand: ${hand}`),
      el("div", { class: "small" }, `points if the round ended now: ${pts.total} (fed monkeys ${pts.fed_monkeys}, ` +
        `cards ${pts.cards}, jade sets ${pts.jade_sets}, most jade ${pts.most_jade})`)));
  }
}

export function renderTray(root, state) {
  const r = state.reserve;
  root.replaceChildren(
    el("div", { class: "small" }, `Reserve: ${r.monkeys} monkeys · ${r.jade} jade · ${r.peaches} peaches · ${r.cards} weapon cards`),
    el("div", { class: "small" }, `Played this round: ${state.discard.map((c) => c.name).join(", ") || "none"}`),
    // The final round's exhausted types matter no more once the game is over.
    state.exhausted.length && !state.game_over ? el("div", { class: "warn small" }, `Exhausted: ${state.exhausted.join(", ")}: the round ends after this turn.`) : "",
    ...state.round_log.map((e) => el("div", { class: "small", "data-round": e.round },
      `Round ${e.round}: points ${e.points[0]}–${e.points[1]}, ${e.winner < 0 ? "void" : `seat ${e.winner + 1} takes a Lantern (by ${e.by})`}`)));
}

export function renderFinal(root, state, seats) {
  common.renderFinal(root, state, seats, "Lanterns", [["rounds won", (s) => state.round_log.filter((e) => e.winner === s).length]]);
}
