// Forbidden City in 2-D (SVG), drawn as the engine's render.py draws it: each tile's four quarters
// tinted by their floor colour (strong once the room is closed, pale while open), walls, doors
// (a gap with a red knob), the diagonal wall, advisors in the owner's colour with their number,
// dragons, the Imperial Palace and the gardens, and the owner's corner mark.
//
// A person lays the tile in hand: choose its rotation (the four drawn beside the board, or R /
// Shift+R), then click a highlighted cell; hovering an empty cell shows the tile there. The
// choices come from the server (apps/web.py of its folder): the legal (cell, rotation) pairs and
// the empty cells next to the city, where a click that the rules refuse is explained.

import { board, clickable, s, tip } from "/static/js/views/svg.js";

export const FLOOR = { green: ["#5e9c4c", "#b9d8ad"], pink: ["#d9668c", "#f2c4d3"], white: ["#bdb5a0", "#f6f3ea"],
  palace: ["#d4a017", "#d4a017"], garden: ["#2f5d34", "#2f5d34"] };
export const SEAT = { red: "#c0392b", blue: "#2e6fd0", yellow: "#e8c31a", purple: "#8e44ad" };
const WALL = "#4a2c17", DOOR = "#c0392b", U = 100;              // one cell is U units
const N = 0, E = 1;

function quarter(x, y, d) {
  const c = [x + U / 2, y + U / 2];
  const corners = [[[x, y], [x + U, y]], [[x + U, y], [x + U, y + U]], [[x + U, y + U], [x, y + U]], [[x, y + U], [x, y]]][d];
  return [corners[0], corners[1], c];
}

const pts = (list) => list.map((p) => p.join(",")).join(" ");

/** One tile face drawn with its north-west corner at (x, y) (SVG units); ``closed`` per part. */
export function tileShape(face, x, y, { closed = [], owner = null, opacity = 1, cls = "tile" } = {}) {
  const g = s("g", { class: cls, opacity });
  for (let d = 0; d < 4; d++) {
    const part = face.quarters[d];
    g.append(s("polygon", { points: pts(quarter(x, y, d)), fill: FLOOR[face.floors[part]][closed[part] ? 0 : 1] }));
  }
  g.append(s("rect", { x, y, width: U, height: U, fill: "none", stroke: "#00000030", "stroke-width": 1 }));
  if (face.floors.length === 2) {
    const line = face.quarters[N] === face.quarters[E] ? [[x, y], [x + U, y + U]] : [[x, y + U], [x + U, y]];
    g.append(s("line", { x1: line[0][0], y1: line[0][1], x2: line[1][0], y2: line[1][1], stroke: WALL, "stroke-width": 7,
      "stroke-linecap": "round", class: "diagonal" }));
  }
  for (let d = 0; d < 4; d++) {
    const side = face.sides[d];
    if (side === "open") continue;
    const [a0, b0] = quarter(x, y, d);
    const cx = x + U / 2, cy = y + U / 2, k = 0.04;
    const a = [a0[0] + (cx - a0[0]) * k, a0[1] + (cy - a0[1]) * k], b = [b0[0] + (cx - b0[0]) * k, b0[1] + (cy - b0[1]) * k];
    if (side === "wall") {
      g.append(s("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: WALL, "stroke-width": 7, class: "wall" }));
    } else {
      const m = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      for (const end of [a, b]) {
        const stop = [m[0] + (end[0] - m[0]) * 0.36, m[1] + (end[1] - m[1]) * 0.36];
        g.append(s("line", { x1: end[0], y1: end[1], x2: stop[0], y2: stop[1], stroke: WALL, "stroke-width": 7 }));
      }
      g.append(s("circle", { cx: m[0], cy: m[1], r: 7, fill: DOOR, stroke: WALL, "stroke-width": 2, class: "door" }));
    }
  }
  for (let part = 0; part < face.floors.length; part++) {
    let px = x + U / 2, py = y + U / 2;
    if (face.floors.length === 2) {
      const qs = [0, 1, 2, 3].filter((d) => face.quarters[d] === part).flatMap((d) => quarter(x, y, d));
      px = qs.reduce((t, p) => t + p[0], 0) / qs.length;
      py = qs.reduce((t, p) => t + p[1], 0) / qs.length;
    }
    if (face.advisors[part]) {
      const colour = owner ? SEAT[owner] : "#777";
      g.append(s("g", { class: "advisors" }, s("circle", { cx: px, cy: py, r: 19, fill: colour, stroke: "#000", "stroke-width": 1.5 }),
        s("text", { x: px, y: py + 7, "text-anchor": "middle", "font-size": 20, "font-weight": 700,
          fill: owner === "yellow" ? "#000" : "#fff" }, String(face.advisors[part]))));
    }
    if (face.dragons[part]) {
      g.append(s("g", { class: "dragon" }, s("polygon", { points: pts([[px, py - 24], [px + 21, py], [px, py + 24], [px - 21, py]]),
        fill: "#f1c40f", stroke: "#8b0000", "stroke-width": 2.5 }),
      s("text", { x: px, y: py + 7, "text-anchor": "middle", "font-size": 18, "font-weight": 700, fill: "#8b0000" }, "D")));
    }
  }
  if (face.floors[0] === "palace") {
    g.append(s("text", { x: x + U / 2, y: y + U / 2 + 6, "text-anchor": "middle", "font-size": 17, "font-weight": 700, fill: "#5a3b00" }, "Palace"));
  }
  if (owner) g.append(s("polygon", { points: pts([[x + 78, y + 6], [x + 94, y + 6], [x + 94, y + 22]]), fill: SEAT[owner] }));
  return g;
}

/** A small SVG of one face (the tile in hand, a rotation to choose). */
export function tileIcon(face, { owner = null, size = 64 } = {}) {
  return s("svg", { viewBox: `-8 -8 ${U + 16} ${U + 16}`, width: size, height: size, class: "tile-icon" },
    tileShape(face, 0, 0, { owner }));
}

export class BoardView {
  constructor(container, { onAction = null } = {}) {
    this.container = container;
    this.onAction = onAction;
    this.turns = 0;             // the rotation chosen for the tile in hand
    this.turnFor = null;        // the decision the rotation was chosen for
    document.addEventListener("keydown", (ev) => {
      if (!this.decision || (ev.key !== "r" && ev.key !== "R")) return;
      if (ev.target.tagName === "INPUT") return;
      this.setTurns((this.turns + (ev.shiftKey ? 3 : 1)) % 4);
    });
  }

  setTurns(turns) {
    this.turns = turns;
    if (this.last) this.render(this.last.state, this.last.opts);
  }

  /** Draw a state; ``mine``: the person lays the tile (cells and rotations clickable);
   *  ``controls``: where the rotations of the tile in hand go (the play page's decision box). */
  render(state, opts = {}) {
    const { mine = false, controls = null } = opts;
    this.last = { state, opts };
    const d = mine ? state.decision : null;
    this.decision = d;
    const colours = state.players.map((p) => p.colour);
    if (d && this.turnFor !== state.decisions) {      // a new decision: the first rotation that fits somewhere
      this.turnFor = state.decisions;
      const first = d.placements[0];
      this.turns = first ? first.turns : 0;
    }
    const b = state.bounds;
    const x0 = Math.max(0, b.x0 - 1), y0 = Math.max(0, b.y0 - 1);
    const x1 = Math.min(state.size - 1, b.x1 + 1), y1 = Math.min(state.size - 1, b.y1 + 1);
    const pad = 0.2 * U;
    const svg = board(this.container, `${x0 * U - pad} ${y0 * U - pad} ${(x1 - x0 + 1) * U + 2 * pad} ${(y1 - y0 + 1) * U + 2 * pad}`);
    this.svg = svg;
    svg.append(s("rect", { x: x0 * U - pad, y: y0 * U - pad, width: (x1 - x0 + 1) * U + 2 * pad, height: (y1 - y0 + 1) * U + 2 * pad,
      fill: "#e9e2cf" }));
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) {
      svg.append(s("rect", { x: x * U, y: y * U, width: U, height: U, fill: "none", stroke: "#00000012", "stroke-width": 1 }));
    }
    const scored = new Set(state.last_scores.map((r) => r.room));
    for (const c of state.cells) {
      const g = tileShape(c.face, c.x * U, c.y * U, { closed: c.closed, owner: c.owner >= 0 ? colours[c.owner] : null });
      g.setAttribute("data-cell", `${c.x},${c.y}`);
      g.append(tip(`(${c.x}, ${c.y}) ${c.owner >= 0 ? `laid by seat ${c.owner + 1} (${colours[c.owner]})` : "the start tile"}; ` +
        c.face.floors.map((f, p) => `${f} ${c.closed[p] ? "closed" : "open"} room`).join(", ")));
      svg.append(g);
      c.rooms.forEach((room, part) => {                 // the rooms the last tile closed, in gold
        if (!scored.has(room)) return;
        for (let q = 0; q < 4; q++) {
          if (c.face.quarters[q] === part) {
            svg.append(s("polygon", { points: pts(quarter(c.x * U, c.y * U, q)), fill: "#ffd23f", opacity: 0.35, class: "scored" }));
          }
        }
      });
    }
    if (state.last_laid) {
      const l = state.last_laid;
      svg.append(s("rect", { x: l.x * U + 3, y: l.y * U + 3, width: U - 6, height: U - 6, fill: "none", stroke: SEAT[colours[l.seat]],
        "stroke-width": 6, "stroke-dasharray": "14 6", class: "last-laid" }));
    }
    if (d) this.drawTargets(svg, state, d, colours);
    if (controls) this.drawControls(controls, d, colours);
  }

  drawTargets(svg, state, d, colours) {
    const legal = new Map();
    for (const p of d.placements) {
      const k = `${p.x},${p.y}`;
      if (!legal.has(k)) legal.set(k, new Map());
      legal.get(k).set(p.turns, p);
    }
    const preview = s("g", { class: "preview", "pointer-events": "none" });
    const face = d.rotations[this.turns];
    for (const [x, y] of d.frontier) {
      const here = legal.get(`${x},${y}`);
      const now = here && here.get(this.turns);
      const cls = now ? "target legal" : here ? "target other-rotation" : "target refused";
      const action = (y * state.size + x) * 4 + this.turns;        // the engine's action layout
      const words = now ? now.label : here ? `fits here turned ${[...here.keys()].map((t) => `${t * 90}°`).join(" or ")} (press R to turn)`
        : `(${x}, ${y}): the tile fits here in no rotation`;
      const cell = s("rect", { x: x * U + 4, y: y * U + 4, width: U - 8, height: U - 8, rx: 8, class: cls, "data-target": `${x},${y}`,
        "data-action": action, fill: now ? "#2e9d5a33" : "#ffffff22", stroke: now ? "#1f7a43" : here ? "#c8902a" : "#9a8f7a",
        "stroke-width": now ? 5 : 3, "stroke-dasharray": now ? null : "8 6" }, tip(words));
      const show = () => {
        preview.replaceChildren(tileShape(face, x * U, y * U, { owner: colours[d.seat], opacity: now ? 0.85 : 0.45 }),
          s("rect", { x: x * U + 2, y: y * U + 2, width: U - 4, height: U - 4, fill: "none", stroke: now ? "#1b6fd1" : "#b3261e",
            "stroke-width": 5 }));
      };
      cell.addEventListener("mouseenter", show);
      cell.addEventListener("focus", show);
      cell.addEventListener("mouseleave", () => preview.replaceChildren());
      cell.addEventListener("blur", () => preview.replaceChildren());
      clickable(cell, () => { if (this.onAction) this.onAction(action); }, words);
      svg.append(cell);
    }
    svg.append(preview);
  }

  drawControls(root, d, colours) {
    root.replaceChildren();
    if (!d || !d.rotations.length) return;
    const count = [0, 0, 0, 0];
    for (const p of d.placements) count[p.turns] += 1;
    const row = document.createElement("div");
    row.className = "rotations";
    d.rotations.forEach((face, t) => {
      const btn = document.createElement("button");
      btn.className = `rotation${t === this.turns ? " chosen" : ""}`;
      btn.dataset.turns = t;
      btn.title = `the tile turned ${t * 90}° clockwise: fits in ${count[t]} cell(s)`;
      btn.append(tileIcon(face, { owner: colours[d.seat], size: 58 }));
      const cap = document.createElement("div");
      cap.className = "small";
      cap.append(`${t * 90}°`, document.createElement("br"), `${count[t]} cell${count[t] === 1 ? "" : "s"}`);
      btn.append(cap);
      btn.addEventListener("click", () => this.setTurns(t));
      row.append(btn);
    });
    root.append(row);
  }
}
