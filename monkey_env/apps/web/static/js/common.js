// Small helpers shared by the pages: DOM building and the JSON API.

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== "") e.append(c instanceof Node ? c : String(c));
  return e;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.detail ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
  }
}

export async function api(path, { method = "GET", body = undefined, raw = false } = {}) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.body = raw ? body : JSON.stringify(body);
    opts.headers["Content-Type"] = "application/json";
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

export function param(name, fallback = null) {
  const v = new URLSearchParams(location.search).get(name);
  return v === null ? fallback : v;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Who plays seat ``i``: "you", an agent's name, or null where the seats have no names (a replay
 *  of an uploaded record). */
export function seatName(seats, i) {
  const s = seats ? seats[i] : null;
  if (!s) return null;
  if (typeof s === "string") return s;
  return s.kind === "human" ? "you" : s.agent;
}

/** "seat 2 (random)", or "seat 2" alone for a seat with no name (not "seat 2 (seat 2)"). */
export function seatLabel(seats, i) {
  const name = seatName(seats, i);
  return name ? `seat ${i + 1} (${name})` : `seat ${i + 1}`;
}

/** ": random" to write after a seat's number, or nothing for a seat with no name. */
export function nameSuffix(seats, i) {
  const name = seatName(seats, i);
  return name ? `: ${name}` : "";
}

/** A game's board view and side panel, by the state's ``game`` field, from the scripts the server
 *  names for it (``/api/views/<game>``: the game's own, served from its folder, or the generic ones
 *  showing its text and legal actions). ``flat: true``: a 2-D view (``new board.BoardView(container,
 *  {onAction})``, ``render(state, opts)``); otherwise a 3-D one. */
export async function viewsFor(game) {
  const view = await api(`/api/views/${encodeURIComponent(game)}`);
  return { flat: view.flat, board: await import(view.board), panel: await import(view.panel) };
}

export function nav(active) {
  const links = [["/", "Home"], ["/results", "Results"]];
  return el("nav", {}, el("span", { class: "brand" }, "Monkey Palace"),
    ...links.map(([href, label]) => el("a", { href, class: active === label ? "active" : null }, label)));
}
