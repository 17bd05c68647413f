// Small helpers of the 2-D board views (SVG): elements in the SVG namespace, text lines.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element: ``s("rect", {x: 1, class: "a"}, child, "text")``; null/false attributes are skipped. */
export function s(tag, attrs = {}, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === "") continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

/** A text of several lines (tspans), centred on x unless anchor says otherwise. */
export function lines(x, y, words, { size = 12, gap = 1.2, anchor = "middle", cls = null, fill = null, weight = null } = {}) {
  const t = s("text", { x, y, "font-size": size, "text-anchor": anchor, class: cls, fill, "font-weight": weight });
  words.forEach((w, i) => t.append(s("tspan", { x, dy: i === 0 ? 0 : size * gap }, w)));
  return t;
}

/** Words cut into lines of at most ``width`` characters. */
export function wrap(text, width) {
  const out = [];
  let line = "";
  for (const w of String(text).split(/\s+/)) {
    if (line && (line + " " + w).length > width) { out.push(line); line = w; } else line = line ? `${line} ${w}` : w;
  }
  if (line) out.push(line);
  return out;
}

/** A title (tooltip) child for an SVG element. */
export const tip = (text) => s("title", {}, text);

/** A fresh full-size SVG in the board container, with the given viewBox. */
export function board(container, viewBox) {
  const old = container.querySelector("svg.board2d");
  const svg = s("svg", { class: "board2d", viewBox, preserveAspectRatio: "xMidYMid meet", role: "img" });
  if (old) old.replaceWith(svg); else container.append(svg);
  return svg;
}

/** Make an SVG element a button: click, or Enter / Space when focused (Tab reaches it). */
export function clickable(e, onClick, label = null) {
  e.setAttribute("tabindex", "0");
  e.setAttribute("role", "button");
  if (label) e.setAttribute("aria-label", label);
  e.addEventListener("click", onClick);
  e.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); onClick(ev); }
  });
  return e;
}
