// Monkey Palace's palace seen from above (SVG), for a browser without WebGL, where the 3-D view
// cannot draw. The plate's cells are coloured by what tops them (the ground map, or a brick,
// column, arch or decoration tinted by its builder) with the height written on built cells; arches
// are outlined as one piece, decorations ringed in the builder's colour, the animals drawn as
// lettered discs. Legal studs are yellow discs to click, and a staircase's preview outlines the
// cells it would build on with the heights they would reach.
//
// It has the 3-D view's methods that the pages and tests call (setPalace, setHighlights,
// setMarker, showPreview, clearPreview, settled, screenOf), so play.js and replay.js use either.

import { el } from "/static/js/common.js";
import { ARCH, BRICK, COLUMN, DECO, GROUND, HEADING, NEUTRAL, SEAT_COLOURS } from "./monkey_palace_colours.js";
import { clickable, s, tip } from "/static/js/views/svg.js";

export const NO_WEBGL = "This browser has no WebGL: showing the palace from above.";
const U = 20;                                        // one cell is U units of the SVG
const ANIMALS = { monkey: ["M", "#8b5a2b"], butterfly: ["B", "#e0309a"], frog: ["F", "#4cbb3c"] };
const GROUND_WORDS = ["light-green ground", "dark-green ground", "gold ground", "white start area", "blocked stud",
  "corner piece"];

const channels = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));

/** Hex colour ``a`` moved ``t`` of the way to ``b``. */
function mix(a, b, t) {
  const [ca, cb] = [channels(a), channels(b)];
  return "#" + ca.map((v, i) => Math.round(v + (cb[i] - v) * t).toString(16).padStart(2, "0")).join("");
}

/** A piece's colour with its builder's blended in, as the 3-D view tints it. */
function ownerColour(base, owner) {
  return owner === undefined || owner < 0 ? mix(base, NEUTRAL, 0.05) : mix(base, SEAT_COLOURS[owner % 4], 0.42);
}

/** Dark writing on light colours, white on dark ones. */
const ink = (colour) => (channels(colour).reduce((t, v, i) => t + v * [0.3, 0.59, 0.11][i], 0) > 140 ? "#1f2a33" : "#ffffff");

/** The cells an element tops, with the height of its top: [[x, y, top]]. */
function topsOf(e) {
  if (e.kind === "stack") return [[e.x, e.y, e.bottom + e.units]];
  if (e.kind === "decoration") return [[e.x, e.y, e.top]];
  const [sx, sy] = HEADING[e.heading];
  return [0, 1, 2, 3].map((i) => [e.x + i * sx, e.y + i * sy, e.level + 1]);
}

/** The colour and words of an element's top; a stack's columns stand under its bricks (three units each). */
function topOf(e) {
  const by = e.owner >= 0 ? ` of seat ${e.owner + 1}` : "";
  if (e.kind === "decoration") return [DECO[e.colour], `a ${e.colour} decoration${by}`];
  if (e.kind === "arch") return [ownerColour(ARCH, e.owner), `an arch${by}`];
  return e.units > 3 * (e.columns || 0) ? [ownerColour(BRICK, e.owner), `a brick${by}`]
    : [ownerColour(COLUMN, e.owner), `a column${by}`];
}

/** The rectangle around an arch's four cells. */
function archBox(e, inset) {
  const [x, y] = topsOf(e).reduce(([mx, my], [cx, cy]) => [Math.min(mx, cx), Math.min(my, cy)], [Infinity, Infinity]);
  const across = HEADING[e.heading][0] !== 0;
  return { x: x * U + inset, y: y * U + inset, width: (across ? 4 : 1) * U - 2 * inset,
    height: (across ? 1 : 4) * U - 2 * inset, rx: 4 };
}

export class PalaceMap {
  constructor(container, { onStudClick = null, onStudHover = null } = {}) {
    this.onStudClick = onStudClick;
    this.onStudHover = onStudHover;
    container.append(el("div", { class: "no-webgl", role: "status" }, NO_WEBGL));
    this.svg = s("svg", { class: "palace-map", preserveAspectRatio: "xMidYMid meet", role: "img",
      "aria-label": "the palace from above" });
    // Layers, bottom to top: cells, arch outlines and decorations, animals, preview, marker, studs to click.
    this.cells = s("g");
    this.pieces = s("g");
    this.animals = s("g");
    this.preview = s("g", { class: "preview" });
    this.marker = s("g", { "pointer-events": "none" });
    this.highlights = s("g");
    this.svg.append(this.cells, this.pieces, this.animals, this.preview, this.marker, this.highlights);
    container.append(this.svg);
    this.key = null;
  }

  /** Show a palace state (``animate`` is for the 3-D view's falling pieces: the map changes at once). */
  setPalace(palace) {
    const key = JSON.stringify([palace.ground, palace.elements, palace.animals]);
    if (key === this.key) return;
    this.key = key;
    const n = palace.size;
    this.svg.setAttribute("viewBox", `-2 -2 ${n * U + 4} ${n * U + 4}`);
    // What tops each cell: the last element to cover it (the engine builds upward, in list order).
    const top = palace.ground.map((row) => row.map((g) => ({ h: 0, colour: GROUND[g] || "#999999", words: GROUND_WORDS[g] })));
    for (const e of palace.elements) {
      const [colour, words] = topOf(e);
      for (const [x, y, h] of topsOf(e)) top[y][x] = { h, colour, words, e };
    }
    this.cells.replaceChildren();
    this.pieces.replaceChildren();
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      const t = top[y][x];
      const g = s("g", {}, tip(`(${x}, ${y}) ${t.words}, height ${t.h}`),
        s("rect", { x: x * U, y: y * U, width: U, height: U, fill: t.colour, stroke: "#00000026", "stroke-width": 0.6 }));
      if (t.h) g.append(s("text", { x: (x + 0.5) * U, y: (y + 0.5) * U + 3.5, "text-anchor": "middle", fill: ink(t.colour) }, t.h));
      this.cells.append(g);
      // A decoration still on top: ringed in its builder's colour, as in 3-D.
      if (t.e && t.e.kind === "decoration") {
        this.pieces.append(s("circle", { cx: (x + 0.5) * U, cy: (y + 0.5) * U, r: 0.4 * U, fill: "none",
          stroke: t.e.owner >= 0 ? SEAT_COLOURS[t.e.owner % 4] : NEUTRAL, "stroke-width": 2, "pointer-events": "none" }));
      }
    }
    for (const e of palace.elements) {
      if (e.kind !== "arch") continue;
      this.pieces.append(s("rect", { ...archBox(e, 1.5), fill: "none", "pointer-events": "none",
        stroke: e.owner >= 0 ? SEAT_COLOURS[e.owner % 4] : NEUTRAL, "stroke-width": 2 }));
    }
    this.animals.replaceChildren();
    for (const [name, cell] of Object.entries(palace.animals)) {
      if (!cell) continue;
      const [letter, colour] = ANIMALS[name];
      this.animals.append(s("g", { class: `animal ${name}`, "pointer-events": "none" },
        s("circle", { cx: (cell.x + 0.5) * U, cy: (cell.y + 0.5) * U, r: 0.42 * U, fill: colour, stroke: "#ffffff", "stroke-width": 1.5 }),
        s("text", { x: (cell.x + 0.5) * U, y: (cell.y + 0.5) * U + 3.5, "text-anchor": "middle", fill: "#ffffff",
          "font-weight": 700 }, letter)));
    }
  }

  /** Clickable discs on studs: [{x, y, z, action, label}]; a click calls onStudClick(stud). */
  setHighlights(studs) {
    this.highlights.replaceChildren();
    for (const stud of studs || []) {
      const disc = s("circle", { class: "stud target", cx: (stud.x + 0.5) * U, cy: (stud.y + 0.5) * U, r: 0.42 * U },
        tip(stud.label));
      clickable(disc, () => { if (this.onStudClick) this.onStudClick(stud); }, stud.label);
      if (this.onStudHover) {
        disc.addEventListener("pointerenter", (ev) => this.onStudHover(stud, ev));
        disc.addEventListener("pointerleave", (ev) => this.onStudHover(null, ev));
      }
      this.highlights.append(disc);
    }
  }

  /** A ring on one stud (the chosen anchor, the last move's stud), or none. */
  setMarker(cell) {
    this.marker.replaceChildren();
    if (cell) {
      this.marker.append(s("circle", { cx: (cell.x + 0.5) * U, cy: (cell.y + 0.5) * U, r: 0.62 * U, fill: "none",
        stroke: "#ff6d00", "stroke-width": 3 }));
    }
  }

  /** A staircase before it is built: the cells its elements top, with the heights they reach. */
  showPreview(elements) {
    this.preview.replaceChildren();
    for (const e of elements || []) {
      if (e.kind === "arch") this.preview.append(s("rect", { ...archBox(e, 0.5), fill: "none", stroke: "#b8860b", "stroke-width": 2.5 }));
      for (const [x, y, h] of topsOf(e)) {
        this.preview.append(s("rect", { x: x * U + 1, y: y * U + 1, width: U - 2, height: U - 2, fill: "#ffd54a", opacity: 0.85 }),
          s("text", { x: (x + 0.5) * U, y: (y + 0.5) * U + 3.5, "text-anchor": "middle", fill: "#5a3b00", "font-weight": 700 }, h));
      }
    }
  }

  clearPreview() {
    this.preview.replaceChildren();
  }

  /** Resolves at once: the map has no tweens to wait for. */
  settled() {
    return Promise.resolve();
  }

  /** Where a cell's centre appears on the page (client pixels): for tests and tooltips. */
  screenOf(x, y) {
    const p = new DOMPoint((x + 0.5) * U, (y + 0.5) * U).matrixTransform(this.svg.getScreenCTM());
    const r = this.svg.getBoundingClientRect();
    return { x: p.x, y: p.y, visible: p.x >= r.left && p.x <= r.right && p.y >= r.top && p.y <= r.bottom };
  }
}
