// The Shadow Theater in 2-D (SVG): the three locations with their three spaces, the Monkey King
// and the monkeys; the reserve; each seat's supply, Lanterns, scroll and hand of weapon cards.
// A person's legal decisions are drawn where they happen: a free space (place a monkey, or send
// the King there), a location's monkeys (collect them), a card of the hand (play it), a Scroll
// tile drawn (keep it). Everything comes from the server's state (apps/web.py of its folder).

import { board, clickable, lines, s, tip, wrap } from "/static/js/views/svg.js";

export const LOCATION_COLOURS = { lair: "#b23a48", palace: "#c8902a", garden: "#4f9d69" };
export const SEAT_COLOURS = ["#2b6cb0", "#805ad5"];
const W = 760, H = 640;

function monkey(cx, cy, r, cls = "") {
  return s("g", { class: `monkey ${cls}` },
    s("circle", { cx: cx - r * 0.72, cy: cy - r * 0.55, r: r * 0.38, fill: "#8b5a2b", stroke: "#3b230f" }),
    s("circle", { cx: cx + r * 0.72, cy: cy - r * 0.55, r: r * 0.38, fill: "#8b5a2b", stroke: "#3b230f" }),
    s("circle", { cx, cy, r, fill: "#8b5a2b", stroke: "#3b230f", "stroke-width": 1.5 }),
    s("ellipse", { cx, cy: cy + r * 0.2, rx: r * 0.62, ry: r * 0.5, fill: "#e3b98a" }),
    s("circle", { cx: cx - r * 0.3, cy: cy - r * 0.1, r: r * 0.1, fill: "#1b1209" }),
    s("circle", { cx: cx + r * 0.3, cy: cy - r * 0.1, r: r * 0.1, fill: "#1b1209" }));
}

function king(cx, cy, r) {
  const crown = [[-0.6, 0.1], [-0.6, -0.55], [-0.3, -0.2], [0, -0.7], [0.3, -0.2], [0.6, -0.55], [0.6, 0.1]]
    .map(([x, y]) => `${cx + x * r},${cy + y * r}`).join(" ");
  return s("g", { class: "king" },
    s("circle", { cx, cy, r, fill: "#f4c430", stroke: "#5a3b00", "stroke-width": 2 }),
    s("polygon", { points: crown, fill: "#fff3b0", stroke: "#5a3b00", "stroke-width": 1.2 }),
    s("text", { x: cx, y: cy + r * 0.62, "text-anchor": "middle", "font-size": r * 0.55, "font-weight": 700, fill: "#5a3b00" }, "KING"));
}

/** A resource counter: an icon and a number. */
function counter(x, y, kind, n, { size = 16, fill = "#fff" } = {}) {
  const icon = {
    monkeys: () => monkey(x + size / 2, y - size / 3, size / 2.6),
    jade: () => s("polygon", { points: `${x + size / 2},${y - size} ${x + size},${y - size / 2} ${x + size / 2},${y} ${x},${y - size / 2}`,
      fill: "#3fae7a", stroke: "#14523a" }),
    peaches: () => s("g", {}, s("circle", { cx: x + size / 2, cy: y - size / 2.2, r: size / 2.3, fill: "#f59e80", stroke: "#a34b2c" }),
      s("ellipse", { cx: x + size * 0.72, cy: y - size * 0.95, rx: size / 5, ry: size / 9, fill: "#4f9d69" })),
    cards: () => s("rect", { x: x + size * 0.15, y: y - size, width: size * 0.7, height: size, rx: 2, fill: "#3c2f4f", stroke: "#d9c7f0" }),
  }[kind]();
  return s("g", { class: `counter counter-${kind}`, "data-count": n }, icon,
    s("text", { x: x + size + 4, y: y - 2, "font-size": size * 0.95, fill, "font-weight": 600 }, String(n)));
}

/** A card's effect, short enough for the card (its full words are its tooltip). */
function cardWords(card) {
  return card.effect === "treasure" ? "treasure: scores in hand" : card.words;
}

function cardShape(x, y, w, h, card, { back = false, playable = false, onClick = null } = {}) {
  if (back) {
    return s("g", { class: "card back" }, s("rect", { x, y, width: w, height: h, rx: 5, fill: "#3c2f4f", stroke: "#d9c7f0" }),
      s("text", { x: x + w / 2, y: y + h / 2 + 5, "text-anchor": "middle", "font-size": 16, fill: "#d9c7f0" }, "?"));
  }
  const g = s("g", { class: `card${playable ? " playable" : ""}`, "data-card": card.id, "data-action": playable ? playable.action : null },
    tip(playable ? playable.label : `${card.name} (${card.location}): ${card.words}; ${card.points} point${card.points === 1 ? "" : "s"} in hand`),
    s("rect", { x, y, width: w, height: h, rx: 5, fill: "#fbf6ec", stroke: playable ? "#ffd23f" : "#5d4b3c",
      "stroke-width": playable ? 3.5 : 1 }),
    s("rect", { x, y, width: w, height: 14, rx: 5, fill: LOCATION_COLOURS[card.location] }),
    s("text", { x: x + w / 2, y: y + 11, "text-anchor": "middle", "font-size": 9, fill: "#fff", "font-weight": 700 }, card.location),
    lines(x + w / 2, y + 29, wrap(card.name, 9).slice(0, 2), { size: 10.5, weight: 700, fill: "#2a1d12" }),
    lines(x + w / 2, y + 58, wrap(cardWords(card), 12).slice(0, 3), { size: 8.5, gap: 1.3, fill: "#5d4b3c" }),
    s("text", { x: x + w - 5, y: y + h - 5, "text-anchor": "end", "font-size": 9.5, fill: "#2a1d12", "font-weight": 600 },
      `${card.points} pt${card.points === 1 ? "" : "s"}`));
  if (onClick) clickable(g, onClick, playable ? playable.label : null);
  return g;
}

function scrollShape(x, y, w, h, scroll, { choice = null, onClick = null, faint = false } = {}) {
  const g = s("g", { class: `scroll${choice ? " choosable" : ""}`, "data-scroll": scroll.id, "data-action": choice ? choice.action : null,
      opacity: faint ? 0.75 : 1 },
    tip(choice ? choice.label : `${scroll.name}: ${scroll.words}`),
    s("rect", { x, y, width: w, height: h, rx: 8, fill: "#f3e2b3", stroke: choice ? "#ffd23f" : "#8a6d2f", "stroke-width": choice ? 3.5 : 1.2 }),
    lines(x + w / 2, y + 17, wrap(scroll.name, Math.floor(w / 7)).slice(0, 1), { size: 12, weight: 700, fill: "#4a3510" }),
    lines(x + w / 2, y + 34, wrap(scroll.words, Math.floor(w / 5.6)).slice(0, 2), { size: 10.5, fill: "#4a3510" }));
  if (onClick) clickable(g, onClick, choice ? choice.label : null);
  return g;
}

/** The location (0-2) a move happened at, or -1 (a card, a scroll, a pass). */
function moveLocation(layout, action) {
  for (const kind of ["place", "collect", "king"]) {
    if (action >= layout[kind] && action < layout[kind] + 3) return action - layout[kind];
  }
  return -1;
}

export class BoardView {
  constructor(container, { onAction = null } = {}) {
    this.container = container;
    this.onAction = onAction;
  }

  /** Draw a state; ``mine``: the decision is a person's (its choices are clickable);
   *  ``hidden``: seats whose hand is shown face down. */
  render(state, { mine = false, hidden = [], move = null } = {}) {
    const svg = board(this.container, `0 0 ${W} ${H}`);
    this.svg = svg;
    const d = mine ? state.decision : null;
    const act = (choice) => () => { if (this.onAction) this.onAction(choice.action); };
    svg.append(s("rect", { x: 0, y: 0, width: W, height: H, fill: "#1f1a24" }));
    // The three locations.
    state.locations.forEach((loc, i) => {
      const x = 10 + i * 248, y = 8, w = 236, h = 222;
      const place = d && d.place.find((p) => p.location === loc.name);
      const kingTo = d && d.king.find((p) => p.location === loc.name);
      const collect = d && d.collect.find((p) => p.location === loc.name);
      const g = s("g", { class: "location", "data-location": loc.name });
      g.append(s("rect", { x, y, width: w, height: h, rx: 12, fill: LOCATION_COLOURS[loc.name], opacity: 0.92,
        stroke: loc.king ? "#ffd23f" : "#ffffff", "stroke-width": loc.king ? 4 : 1 }),
      s("text", { x: x + w / 2, y: y + 26, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: "#fff" }, loc.title),
      lines(x + w / 2, y + 47, wrap(loc.effect, 30), { size: 12.5, fill: "#fff" }));
      // Spaces: the King first (where he is), then the monkeys, then the free spaces.
      const order = [...(loc.king ? ["king"] : []), ...Array(loc.monkeys).fill("monkey")];
      while (order.length < loc.spaces) order.push("free");
      order.forEach((what, k) => {
        const cx = x + 42 + k * 76, cy = y + 120;
        const target = what === "free" ? (place || kingTo) : null;
        const sp = s("g", { class: `space${target ? " target" : ""}`, "data-space": `${loc.name}-${k}`,
          "data-action": target ? target.action : null });
        sp.append(s("circle", { cx, cy, r: 32, fill: "#00000033", stroke: target ? "#ffd23f" : "#ffffffaa",
          "stroke-width": target ? 3.5 : 1.2, "stroke-dasharray": what === "free" && !target ? "5 4" : null }));
        if (what === "king") sp.append(king(cx, cy, 26));
        if (what === "monkey") sp.append(monkey(cx, cy + 3, 18, collect ? "collectable" : ""));
        if (target) {
          sp.append(tip(target.label));
          sp.append(s("text", { x: cx, y: cy + 5, "text-anchor": "middle", "font-size": 12, fill: "#ffd23f", "font-weight": 700 },
            kingTo ? "King" : "+"));
          clickable(sp, act(target), target.label);
        }
        if (what === "monkey" && collect) { sp.append(tip(collect.label)); sp.addEventListener("click", act(collect)); }   // the button below is the focusable one
        g.append(sp);
      });
      if (collect) {
        const b = s("g", { class: "collect target", "data-action": collect.action, "data-collect": loc.name }, tip(collect.label),
          s("rect", { x: x + 48, y: y + 172, width: w - 96, height: 32, rx: 8, fill: "#fff8e1", stroke: "#ffd23f", "stroke-width": 2.5 }),
          s("text", { x: x + w / 2, y: y + 193, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#5a3b00" },
            `collect ${collect.monkeys} monke${collect.monkeys === 1 ? "y" : "ys"}`));
        clickable(b, act(collect), collect.label);
        g.append(b);
      } else {
        g.append(s("text", { x: x + w / 2, y: y + 194, "text-anchor": "middle", "font-size": 12, fill: "#ffffffcc" },
          `${loc.monkeys} monke${loc.monkeys === 1 ? "y" : "ys"}${loc.king ? " · the King is here" : ""}`));
      }
      svg.append(g);
    });
    // The last move's location, marked (the bots' moves are shown one by one).
    const at = move ? moveLocation(state.layout, move.action) : -1;
    if (at >= 0) {
      svg.append(s("rect", { x: 10 + at * 248 - 4, y: 4, width: 244, height: 230, rx: 15, fill: "none", stroke: SEAT_COLOURS[move.seat],
        "stroke-width": 5, "stroke-dasharray": "12 6", class: "last-move", "pointer-events": "none" }));
    }
    // The reserve.
    const r = state.reserve;
    const res = s("g", { class: "reserve" }, s("text", { x: 14, y: 262, "font-size": 14, fill: "#fff", "font-weight": 700 }, "Reserve"));
    [["monkeys", r.monkeys], ["jade", r.jade], ["peaches", r.peaches], ["cards", r.cards]].forEach(([k, n], i) =>
      res.append(counter(90 + i * 80, 266, k, n, { size: 18, fill: state.exhausted.includes(k === "cards" ? "weapon cards" : k) ? "#ff8a80" : "#fff" })));
    res.append(s("text", { x: 750, y: 262, "font-size": 11.5, "text-anchor": "end", fill: move ? "#ffe08a" : "#d8cfe6", class: "caption" },
      move ? `Last: seat ${move.seat + 1}: ${move.label.replace(/ \(card \d+, .*\)$/, "")}`.slice(0, 62)
        : `${state.discard.length} card${state.discard.length === 1 ? "" : "s"} played this round · first to ${state.lanterns_to_win} Lanterns wins`));
    svg.append(res);
    // The two seats.
    state.players.forEach((p, seat) => {
      const x = 10 + seat * 375, y = 284, w = 365, h = 348;
      const toMove = !state.game_over && state.current === seat;
      const g = s("g", { class: "seat", "data-seat": seat });
      g.append(s("rect", { x, y, width: w, height: h, rx: 10, fill: SEAT_COLOURS[seat], opacity: 0.88,
        stroke: toMove ? "#ffd23f" : "#ffffff55", "stroke-width": toMove ? 4 : 1 }),
      s("text", { x: x + 12, y: y + 24, "font-size": 16, "font-weight": 700, fill: "#fff" },
        `Seat ${seat + 1}${p.starter ? " (started)" : ""}${toMove ? " · to play" : ""}`));
      for (let k = 0; k < state.lanterns_to_win; k++) {
        const lx = x + w - 24 - k * 26, ly = y + 16, lit = k < p.lanterns;
        g.append(s("g", { class: `lantern${lit ? " lit" : ""}` }, tip(`${p.lanterns} Lantern${p.lanterns === 1 ? "" : "s"}`),
          s("rect", { x: lx - 8, y: ly - 10, width: 16, height: 20, rx: 6, fill: lit ? "#ff5a36" : "#00000044", stroke: "#ffd23f" }),
          s("line", { x1: lx, y1: ly - 14, x2: lx, y2: ly - 10, stroke: "#ffd23f", "stroke-width": 2 })));
      }
      const sup = p.supply;
      [["monkeys", sup.monkeys], ["jade", sup.jade], ["peaches", sup.peaches]].forEach(([k, n], i) =>
        g.append(counter(x + 14 + i * 74, y + 56, k, n, { size: 20 })));
      const pts = p.points;
      // A hand face down (another seat's, before the round's end): its points are not known.
      const known = pts.total !== null;
      g.append(s("text", { x: x + 240, y: y + 52, "font-size": 13, fill: "#fff", "font-weight": 700 },
        known ? `${pts.total} points now` : `${pts.without_cards} points + hand`),
        s("text", { x: x + 240, y: y + 68, "font-size": 9.5, fill: "#e6e6f5" },
          `fed ${pts.fed_monkeys} · cards ${known ? pts.cards : "?"} · jade ${pts.jade_sets + pts.most_jade}`));
      // The scroll kept, or the two drawn (to keep one).
      const choices = d && d.seat === seat ? d.scrolls : [];
      if (p.scroll) g.append(scrollShape(x + 12, y + 80, w - 24, 50, p.scroll));
      else if (p.drawn.length && !hidden.includes(seat) && !p.drawn[0].hidden) {
        p.drawn.forEach((sc, k) => {
          const choice = choices.find((c) => c.choice === k);
          g.append(scrollShape(x + 12 + k * ((w - 24) / 2 + 2), y + 80, (w - 24) / 2 - 2, 50, sc,
            { choice, onClick: choice ? act(choice) : null, faint: !choice }));
        });
      } else {
        g.append(s("text", { x: x + 14, y: y + 106, "font-size": 12, fill: "#e6e6f5" }, p.drawn.length ? "choosing a scroll…" : "no scroll yet"));
      }
      // The hand.
      g.append(s("text", { x: x + 12, y: y + 148, "font-size": 12, fill: "#fff", "font-weight": 700 },
        `Hand: ${p.hand.length} weapon card${p.hand.length === 1 ? "" : "s"}`));
      const perRow = 5, cw = 64, ch = 90, gap = (w - 24 - perRow * cw) / (perRow - 1);
      p.hand.forEach((c, k) => {
        const cx = x + 12 + (k % perRow) * (cw + gap), cy = y + 156 + Math.floor(k / perRow) * (ch + 4);
        if (Math.floor(k / perRow) > 1) return;                // more than 12 cards: the count says it
        const playable = d && d.seat === seat ? d.cards.find((pc) => pc.card === c.id) : null;
        g.append(cardShape(cx, cy, cw, ch, c, { back: hidden.includes(seat) || c.hidden, playable, onClick: playable ? act(playable) : null }));
      });
      svg.append(g);
    });
  }
}
