// Monkey Palace's side panels, shared by the play and replay pages: players (supplies, boards,
// Banana Points, trophies), the tray, the Monkey Card piles (buttons: only legal ones enabled when
// it is a person's decision) and the final scores.

import { SEAT_COLOURS } from "./monkey_palace_colours.js";
import { el, nameSuffix, seatLabel, seatName } from "/static/js/common.js";

const COLOUR_WORDS = { multi: "multicolour", light: "light green", dark: "dark green", gold: "gold" };
const ICON = { arches: "⌒", bricks: "▭", columns: "▮" };

function supplyText(s) {
  return `${ICON.arches} ${s.arches} arches · ${ICON.bricks} ${s.bricks} bricks · ${ICON.columns} ${s.columns} columns`;
}

function cardChip(card) {
  const rec = Object.entries(card.recurring).filter(([, n]) => n).map(([k, n]) => `${n}${ICON[k]}`).join(" ");
  const inst = card.instant.map((i) => i.replace("_or_", "/").replace("arch", ICON.arches).replace("brick", ICON.bricks)
    .replace("column", ICON.columns)).join(" ");
  return el("span", { class: `card card-${card.colour}`, title: `${COLOUR_WORDS[card.colour]} card of pile ${card.pile}: ` +
      `${card.bananas} Banana Points; now: ${card.instant.join(", ") || "nothing"}; every turn: ${rec || "nothing"}` },
    el("b", {}, `${card.bananas} BP`), inst ? ` +${inst}` : "", rec ? ` ↻${rec}` : "");
}

export function renderPlayers(root, state, seats) {
  root.replaceChildren();
  for (const p of state.players) {
    const current = !state.game_over && p.seat === state.current;
    const slots = el("div", { class: "slots" }, ...p.slots.map((slot, i) =>
      el("span", { class: "slot", title: `slot ${i + 1}: ${slot.length} card(s)` },
        slot.length ? cardChip(slot[slot.length - 1]) : el("span", { class: "empty" }, "empty"),
        slot.length > 1 ? el("small", {}, ` (${slot.length})`) : "")));
    const b = p.bananas;
    root.append(el("div", { class: `player${current ? " current" : ""}`, "data-seat": p.seat },
      el("div", { class: "player-head" },
        el("span", { class: "swatch", style: `background:${SEAT_COLOURS[p.seat % 4]}` }),
        el("b", {}, `Seat ${p.seat + 1}` + nameSuffix(seats, p.seat)),
        el("span", { class: "score", "data-score": b.total }, `${b.total}  BP`)),
      el("div", { class: "small" }, supplyText(p.supply)),
      slots,
      el("div", { class: "small" }, `cards ${b.cards} · bonus cards ${p.bonus_cards} (${b.bonus}) · trophies ${b.trophies}` +
        (p.trophies.length ? ` (${p.trophies.join(", ")})` : ""))));
  }
}

export function renderTray(root, state) {
  const t = state.tray;
  root.replaceChildren(el("div", { class: "small" }, `Tray: ${supplyText(t)} · bonus cards ${t.bonus_left}`),
    // Once the game is over, its end is no longer near: renderFinal says how it ended.
    state.end_triggered && !state.game_over ? el("div", { class: "warn small" }, `The end is near: ${state.end_reason}; this round is the last.`) : "");
}

/** The twelve piles; ``onBuy(action)`` makes the legal ones clickable. */
export function renderPiles(root, state, onBuy, { readonly = false } = {}) {
  root.replaceChildren();
  for (const pile of state.piles) {
    const top = pile.top;
    const enabled = Boolean(onBuy && pile.legal);
    // In a replay the piles are shown, not offered: no button look of a refusal.
    const btn = el(readonly ? "div" : "button", { class: `pile card-${top ? top.colour : "none"}${readonly ? " readonly" : ""}`,
        "data-pile": pile.id, "data-action": pile.action, disabled: enabled || readonly ? null : "",
        title: pile.legal ? `buy the top card of pile ${pile.id}` : (pile.reason || `pile ${pile.id}`) },
      el("div", { class: "pile-id" }, pile.id),
      top ? el("div", {}, el("b", {}, `${top.bananas} BP`), ` cost ${top.cost}`) : el("div", {}, "empty"),
      top ? cardChip(top) : "",
      el("div", { class: "small" }, `${pile.count} left`));
    if (enabled) btn.addEventListener("click", () => onBuy(pile.action));
    root.append(btn);
  }
}

export function renderFinal(root, state, seats) {
  if (!state.game_over) { root.replaceChildren(); root.hidden = true; return; }
  root.hidden = false;
  const order = state.players.map((p) => p.seat).sort((a, b) => state.places[a] - state.places[b]);
  root.replaceChildren(el("h3", {}, "Final scores"),
    el("p", { class: "small" }, state.end_reason || "the game is over"),
    el("table", { id: "final-scores" },
      el("tr", {}, el("th", {}, "place"), el("th", {}, "seat"), el("th", { title: "Banana Points" }, "BP"), el("th", {}, "cards"),
        el("th", {}, "bonus"), el("th", {}, "trophies")),
      ...order.map((s) => {
        const b = state.players[s].bananas;
        return el("tr", { class: state.winners.includes(s) ? "winner" : "" }, el("td", {}, String(state.places[s])),
          el("td", {}, `${s + 1}` + nameSuffix(seats, s)), el("td", { "data-final-score": b.total }, String(b.total)),
          el("td", {}, String(b.cards)), el("td", {}, String(b.bonus)), el("td", {}, String(b.trophies)));
      })));
}

export function statusLine(state, seats) {
  if (state.game_over) {
    const w = state.winners.map((s) => seatLabel(seats, s)).join(" and ");
    return `Game over after ${state.round} rounds: ${w} win${state.winners.length > 1 ? " (shared)" : "s"}.`;
  }
  const name = seatName(seats, state.current);
  const words = name === "you" ? state.phase_words : state.phase_words.replace(/\byour\b/g, "their");
  return `Round ${state.round} · ${seatLabel(seats, state.current)} must ${words}`;
}
