// Forbidden City's side panels (play and replay pages): each seat's colour, coins, tiles left and
// tile in hand (a person's own; all of them in a replay), the rooms the last tile closed.

import { el, nameSuffix } from "/static/js/common.js";
import * as common from "/static/js/views/panel2d.js";
import { SEAT, tileIcon } from "./forbidden_city_2d.js";

export const PILES_TITLE = null;            // no Monkey Card piles

export function statusLine(state, seats) {
  return common.statusLine(state, seats, { scoreName: "coins" });
}

export function decisionWords(d) {
  if (!d.placements.length) return "The tile in hand fits nowhere: set it aside.";
  return "Choose the tile's rotation (below, or R), then click a green cell to lay it; hover a cell to see the tile there.";
}

export function renderPlayers(root, state, seats, { hidden = [] } = {}) {
  root.replaceChildren();
  for (const p of state.players) {
    const current = !state.game_over && p.seat === state.current;
    const held = p.held && !hidden.includes(p.seat)
      ? el("div", { class: "held" }, tileIcon(p.held.face, { owner: p.colour, size: 40 }), el("span", { class: "small" }, ` in hand: ${p.held.words}`))
      : el("div", { class: "small" }, p.holds ? "a tile in hand (hidden)" : "no tile in hand");
    root.append(el("div", { class: `player${current ? " current" : ""}`, "data-seat": p.seat },
      el("div", { class: "player-head" },
        el("span", { class: "swatch", style: `background:${SEAT[p.colour]}` }),
        el("b", {}, `Seat ${p.seat + 1} (${p.colour})` + nameSuffix(seats, p.seat)),
        el("span", { class: "score", "data-score": p.coins }, `${p.coins} coins`)),
      el("div", { class: "small" }, `${p.tiles_left} tiles left (${p.stack} in the stack)` +
        (p.set_aside ? ` · ${p.set_aside} set aside` : "") + (p.end_coins ? ` · +${p.end_coins} for the last tiles` : "")),
      held));
  }
}

export function renderTray(root, state) {
  const colours = state.players.map((p) => p.colour);
  root.replaceChildren(el("div", { class: "small" }, `Turn ${state.turns_played + (state.game_over ? 0 : 1)} · ` +
      `${state.cells.length} cells on the table (${state.size}×${state.size})`),
    ...state.last_scores.map((r) => el("div", { class: "small scored-room" },
      `Closed a ${r.colour} room worth ${r.value} (${r.own} own + ${r.linked} linked): ` +
      r.coins.map((c, s) => `${colours[s]} ${c}`).join(", "))));
}

export function renderFinal(root, state, seats) {
  common.renderFinal(root, state, seats, "coins", [["colour", (s) => state.players[s].colour],
    ["last tiles", (s) => state.players[s].end_coins]]);
}
