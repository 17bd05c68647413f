// Monkey Palace's palace in 3-D (three.js): the plate with its ground map and studs, every element
// of the engine's element list drawn as the LEGO piece it is (1x4 arches with their cut-out,
// bricks, round columns, decorations), the monkey, butterfly and frog, clickable highlights on
// legal studs, and a see-through preview of a staircase before it is built.
//
// World units: one stud pitch = 1; a brick is BRICK_H high. Cell (x, y) of the engine (x east,
// y south) spans [x, x+1] x [y, y+1] in three's x and z; height h (brick units) is y = h * BRICK_H.
// The scene is drawn on demand (after a change, while a tween runs, while the camera moves).

import * as THREE from "three";
import { OrbitControls } from "/static/vendor/three/OrbitControls.js";
import { ARCH, BRICK, COLUMN, DECO, GROUND, HEADING, NEUTRAL, SEAT_COLOURS } from "./monkey_palace_colours.js";
import { PalaceMap } from "./monkey_palace_map.js";

export const BRICK_H = 1.2;
const STUD_R = 0.3, STUD_H = 0.17, ARCH_OPEN = 0.66;

function ownerColour(base, owner) {
  const c = new THREE.Color(base);
  if (owner === undefined || owner < 0) return c.lerp(new THREE.Color(NEUTRAL), 0.05);
  return c.lerp(new THREE.Color(SEAT_COLOURS[owner % 4]), 0.42);
}

const studGeo = new THREE.CylinderGeometry(STUD_R, STUD_R, STUD_H, 20);
const brickGeo = new THREE.BoxGeometry(0.98, BRICK_H, 0.98);
const columnGeo = new THREE.CylinderGeometry(0.42, 0.42, 3 * BRICK_H, 24);
const decoPlateGeo = new THREE.CylinderGeometry(0.45, 0.45, 0.3 * BRICK_H, 24);
const decoRingGeo = new THREE.TorusGeometry(0.4, 0.05, 8, 24);
const decoConeGeo = new THREE.ConeGeometry(0.3, 0.5 * BRICK_H, 20);
const decoBallGeo = new THREE.SphereGeometry(0.16, 16, 12);
const highlightGeo = new THREE.CylinderGeometry(0.44, 0.44, 0.5, 20);
const markerGeo = new THREE.TorusGeometry(0.55, 0.09, 10, 32);
const markerMat = new THREE.MeshStandardMaterial({ color: "#ff6d00", emissive: "#ff6d00", emissiveIntensity: 0.7 });
const archGeoCache = {};

function archGeometry() {
  // A 1x4 arch seen from its side: four studs long, one brick high, its middle two studs cut
  // out underneath in an arc (the clearance rule F counts the middle knobs).
  if (archGeoCache.g) return archGeoCache.g;
  const s = new THREE.Shape();
  s.moveTo(0.01, 0); s.lineTo(0.99, 0);
  const rise = ARCH_OPEN * BRICK_H;
  // the cut-out: an elliptical arc from (1, 0) over to (3, 0)
  s.lineTo(0.99, 0);
  s.absellipse(2, 0, 1.01, rise, Math.PI, 0, true);
  s.lineTo(3.99, 0); s.lineTo(3.99, BRICK_H); s.lineTo(0.01, BRICK_H); s.lineTo(0.01, 0);
  const g = new THREE.ExtrudeGeometry(s, { depth: 0.98, bevelEnabled: false, curveSegments: 24 });
  archGeoCache.g = g;
  return g;
}

const materials = new Map();
/** One shared material per colour and look (fewer state changes per frame). */
function mat(colour, opts = {}) {
  const c = new THREE.Color(colour);
  const key = c.getHexString() + JSON.stringify(opts);
  if (!materials.has(key)) materials.set(key, new THREE.MeshStandardMaterial({ color: c, roughness: 0.55, metalness: 0.02, ...opts }));
  return materials.get(key);
}

/** Thrown when the browser gives three.js no WebGL context (none to be had, or WebGL switched off). */
class NoWebGL extends Error {}

/** The 3-D view, or the palace from above (monkey_palace_map.js, the same methods) where the browser
 *  has no WebGL: the pages call this rather than ``new PalaceView``. */
export function createPalaceView(container, handlers = {}) {
  try {
    return new PalaceView(container, handlers);
  } catch (e) {
    if (!(e instanceof NoWebGL)) throw e;
    console.warn(`no WebGL (${e.message}): drawing the palace from above`);
    return new PalaceMap(container, handlers);
  }
}

export class PalaceView {
  constructor(container, { onStudClick = null, onStudHover = null } = {}) {
    this.container = container;
    this.onStudClick = onStudClick;
    this.onStudHover = onStudHover;
    // ?aa=0 turns antialiasing off: much cheaper on a software renderer (headless tests).
    const aa = new URLSearchParams(location.search).get("aa") !== "0";
    try {
      this.renderer = new THREE.WebGLRenderer({ antialias: aa });
    } catch (e) {
      throw new NoWebGL(e.message);           // three.js throws when no context can be created
    }
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.renderer.shadowMap.enabled = false;
    container.appendChild(this.renderer.domElement);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color("#dfe8ee");
    this.camera = new THREE.PerspectiveCamera(38, 1, 0.5, 400);
    this.camera.position.set(43, 47, 53);
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.set(16.5, 0, 17.5);
    this.controls.maxPolarAngle = Math.PI * 0.48;
    this.controls.minDistance = 8;
    this.controls.maxDistance = 140;
    this.controls.addEventListener("change", () => this.requestRender());
    this.controls.update();
    this.scene.add(new THREE.HemisphereLight("#ffffff", "#7a8a6a", 1.6));
    const sun = new THREE.DirectionalLight("#ffffff", 1.8);
    sun.position.set(30, 60, 20);
    this.scene.add(sun);
    this.plate = new THREE.Group();
    this.pieces = new THREE.Group();
    this.animals = new THREE.Group();
    this.highlights = new THREE.Group();
    this.preview = new THREE.Group();
    this.marker = new THREE.Group();
    this.scene.add(this.plate, this.pieces, this.animals, this.highlights, this.preview, this.marker);
    this.elementKeys = [];
    this.groundKey = null;
    this.tweens = [];
    this.raycaster = new THREE.Raycaster();
    this.hovered = null;
    this.renderPending = false;
    this.renders = 0;
    this._bindPointer();
    new ResizeObserver(() => this.resize()).observe(container);
    this.resize();
  }

  resize() {
    const w = this.container.clientWidth || 800, h = this.container.clientHeight || 600;
    this.renderer.setSize(w, h, false);
    this.renderer.domElement.style.width = w + "px";
    this.renderer.domElement.style.height = h + "px";
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.requestRender();
  }

  requestRender() {
    if (this.renderPending) return;
    this.renderPending = true;
    requestAnimationFrame((t) => this._frame(t));
  }

  _frame(t) {
    this.renderPending = false;
    let running = false;
    for (const tw of this.tweens) {
      if (tw.start === null) tw.start = t;
      const k = Math.min(1, (t - tw.start) / tw.duration);
      tw.step(k);
      if (k < 1) running = true; else tw.done = true;
    }
    this.tweens = this.tweens.filter((tw) => !tw.done);
    this.renderer.render(this.scene, this.camera);
    this.renders += 1;
    if (running) this.requestRender();
  }

  /** Resolves when every running tween has finished. */
  settled() {
    return new Promise((resolve) => {
      const check = () => (this.tweens.length ? setTimeout(check, 16) : resolve());
      check();
    });
  }

  // ------------------------------------------------------------------ the plate
  _drawPlate(palace) {
    const key = JSON.stringify(palace.ground);
    if (key === this.groundKey) return;
    this.groundKey = key;
    this.plate.clear();
    const n = palace.size;
    const base = new THREE.Mesh(new THREE.BoxGeometry(n + 0.6, 0.45, n + 0.6), mat("#4b5a3a"));
    base.position.set(n / 2, -0.225, n / 2);
    this.plate.add(base);
    // The ground map as a texture of one texel per stud.
    const data = new Uint8Array(n * n * 4);
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) {
      const c = new THREE.Color(GROUND[palace.ground[y][x]] || "#999999");
      const i = (y * n + x) * 4;
      data[i] = c.r * 255; data[i + 1] = c.g * 255; data[i + 2] = c.b * 255; data[i + 3] = 255;
    }
    const tex = new THREE.DataTexture(data, n, n, THREE.RGBAFormat);
    tex.magFilter = THREE.NearestFilter;
    tex.colorSpace = THREE.SRGBColorSpace;
    tex.flipY = false;
    tex.needsUpdate = true;
    const ground = new THREE.Mesh(new THREE.PlaneGeometry(n, n), new THREE.MeshStandardMaterial({ map: tex, roughness: 0.8 }));
    ground.rotation.x = -Math.PI / 2;
    ground.position.set(n / 2, 0.001, n / 2);
    // PlaneGeometry's v runs bottom-up; after the rotation its top edge is z = 0 (north): flip v.
    const uv = ground.geometry.attributes.uv;
    for (let i = 0; i < uv.count; i++) uv.setY(i, 1 - uv.getY(i));
    this.plate.add(ground);
    const cells = [];
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (palace.ground[y][x] !== 4) cells.push([x, y]);
    const studs = new THREE.InstancedMesh(studGeo, mat("#ffffff"), cells.length);
    const m = new THREE.Matrix4();
    cells.forEach(([x, y], i) => {
      const corner = palace.ground[y][x] === 5;
      m.makeTranslation(x + 0.5, (corner ? 0.55 : 0) + STUD_H / 2, y + 0.5);
      studs.setMatrixAt(i, m);
      studs.setColorAt(i, new THREE.Color(GROUND[palace.ground[y][x]]).multiplyScalar(1.04));
    });
    this.plate.add(studs);
    for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) if (palace.ground[y][x] === 5) {
      const corner = new THREE.Mesh(new THREE.CylinderGeometry(0.75, 0.75, 0.55, 24), mat(GROUND[5]));
      corner.position.set(x + 0.5, 0.275, y + 0.5);
      this.plate.add(corner);
    }
  }

  // ------------------------------------------------------------------ elements
  /** The meshes of one element of the engine's list, in a group placed in world units. */
  elementObject(e, opts = {}) {
    const g = new THREE.Group();
    // A preview is see-through and glows a little, so it stands out from the built palace.
    const glow = (c) => new THREE.Color(c).lerp(new THREE.Color("#ffd54a"), 0.45);
    const material = (c) => (opts.ghost ? mat(glow(c), { transparent: true, opacity: 0.72, depthWrite: false,
      emissive: glow(c).multiplyScalar(0.55) }) : mat(c));
    const stud = (x, z, y, colour) => {
      const s = new THREE.Mesh(studGeo, material(colour));
      s.position.set(x + 0.5, y + STUD_H / 2, z + 0.5);
      g.add(s);
    };
    if (e.kind === "stack") {
      const colUnits = 3 * (e.columns || 0);
      let k = 0;
      for (; k < colUnits; k += 3) {
        const c = new THREE.Mesh(columnGeo, material(ownerColour(COLUMN, e.owner)));
        c.position.set(e.x + 0.5, (e.bottom + k + 1.5) * BRICK_H, e.y + 0.5);
        g.add(c);
      }
      for (; k < e.units; k++) {
        const b = new THREE.Mesh(brickGeo, material(ownerColour(BRICK, e.owner)));
        b.position.set(e.x + 0.5, (e.bottom + k + 0.5) * BRICK_H, e.y + 0.5);
        g.add(b);
      }
      stud(e.x, e.y, (e.bottom + e.units) * BRICK_H, ownerColour(k > colUnits ? BRICK : COLUMN, e.owner));
    } else if (e.kind === "arch") {
      const [sx, sy] = HEADING[e.heading];
      const cells = [0, 1, 2, 3].map((i) => [e.x + i * sx, e.y + i * sy]);
      const minX = Math.min(...cells.map((c) => c[0])), minY = Math.min(...cells.map((c) => c[1]));
      const colour = ownerColour(ARCH, e.owner);
      const a = new THREE.Mesh(archGeometry(), material(colour));
      if (sx !== 0) {
        a.position.set(minX, e.level * BRICK_H, minY + 0.01);
      } else {
        a.rotation.y = -Math.PI / 2;
        a.position.set(minX + 0.99, e.level * BRICK_H, minY);
      }
      g.add(a);
      for (const [cx, cy] of cells) stud(cx, cy, (e.level + 1) * BRICK_H, colour);
    } else if (e.kind === "decoration") {
      const colour = new THREE.Color(DECO[e.colour]);
      const y0 = (e.top - 1) * BRICK_H;
      const plate = new THREE.Mesh(decoPlateGeo, material(colour));
      plate.position.set(e.x + 0.5, y0 + 0.15 * BRICK_H, e.y + 0.5);
      g.add(plate);
      // A round ornament: a cone with a ball on top, edged in the builder's colour.
      const ring = new THREE.Mesh(decoRingGeo,
        material(e.owner >= 0 ? SEAT_COLOURS[e.owner % 4] : NEUTRAL));
      ring.rotation.x = Math.PI / 2;
      ring.position.set(e.x + 0.5, y0 + 0.3 * BRICK_H, e.y + 0.5);
      g.add(ring);
      const cone = new THREE.Mesh(decoConeGeo, material(colour.clone().multiplyScalar(0.9)));
      cone.position.set(e.x + 0.5, y0 + 0.55 * BRICK_H, e.y + 0.5);
      g.add(cone);
      const ball = new THREE.Mesh(decoBallGeo, material(colour.clone().lerp(new THREE.Color("#ffffff"), 0.3)));
      ball.position.set(e.x + 0.5, y0 + 0.85 * BRICK_H, e.y + 0.5);
      g.add(ball);
    }
    return g;
  }

  _drawAnimals(palace) {
    const key = JSON.stringify(palace.animals);
    if (key === this.animalsKey) return;
    this.animalsKey = key;
    this.animals.traverse((o) => { if (o.geometry) o.geometry.dispose(); });   // their materials are shared
    this.animals.clear();
    const a = palace.animals;
    if (a.monkey) this.animals.add(this._monkey(a.monkey));
    if (a.butterfly) this.animals.add(this._butterfly(a.butterfly));
    if (a.frog) this.animals.add(this._frog(a.frog));
  }

  _at(g, cell) {
    g.position.set(cell.x + 0.5, cell.z * BRICK_H, cell.y + 0.5);
    return g;
  }

  _monkey(cell) {
    const g = new THREE.Group(), fur = mat("#8b5a2b"), face = mat("#e0b48a");
    const body = new THREE.Mesh(new THREE.SphereGeometry(0.36, 18, 14), fur);
    body.scale.set(1, 1.25, 0.9); body.position.y = 0.5; g.add(body);
    const head = new THREE.Mesh(new THREE.SphereGeometry(0.3, 18, 14), fur); head.position.y = 1.15; g.add(head);
    const muzzle = new THREE.Mesh(new THREE.SphereGeometry(0.18, 14, 10), face);
    muzzle.position.set(0.12, 1.08, 0.16); g.add(muzzle);
    for (const s of [-1, 1]) {
      const ear = new THREE.Mesh(new THREE.SphereGeometry(0.1, 10, 8), face);
      ear.position.set(s * 0.3, 1.22, 0); g.add(ear);
    }
    const tail = new THREE.Mesh(new THREE.TorusGeometry(0.25, 0.05, 8, 16, Math.PI * 1.3), fur);
    tail.position.set(-0.3, 0.45, -0.2); tail.rotation.y = Math.PI / 2; g.add(tail);
    g.scale.setScalar(1.5);
    return this._at(g, cell);
  }

  _butterfly(cell) {
    const g = new THREE.Group(), wing = mat("#e0309a", { side: THREE.DoubleSide }), dark = mat("#3a2030");
    const body = new THREE.Mesh(new THREE.CylinderGeometry(0.05, 0.05, 0.6, 8), dark);
    body.rotation.x = Math.PI / 2; body.position.y = 0.5; g.add(body);
    for (const s of [-1, 1]) {
      const w = new THREE.Mesh(new THREE.CircleGeometry(0.32, 16), wing);
      w.position.set(s * 0.3, 0.62, 0); w.rotation.set(-Math.PI / 2 + 0.5, 0, s * 0.45); g.add(w);
      const w2 = new THREE.Mesh(new THREE.CircleGeometry(0.2, 12), wing);
      w2.position.set(s * 0.24, 0.58, 0.3); w2.rotation.set(-Math.PI / 2 + 0.5, 0, s * 0.45); g.add(w2);
    }
    return this._at(g, cell);
  }

  _frog(cell) {
    const g = new THREE.Group(), skin = mat("#4cbb3c"), eye = mat("#ffffff"), pupil = mat("#111111");
    const body = new THREE.Mesh(new THREE.SphereGeometry(0.38, 18, 12), skin);
    body.scale.set(1, 0.6, 1.15); body.position.y = 0.25; g.add(body);
    for (const s of [-1, 1]) {
      const e = new THREE.Mesh(new THREE.SphereGeometry(0.11, 12, 10), eye);
      e.position.set(s * 0.17, 0.5, 0.22); g.add(e);
      const p = new THREE.Mesh(new THREE.SphereGeometry(0.05, 8, 6), pupil);
      p.position.set(s * 0.17, 0.53, 0.31); g.add(p);
    }
    return this._at(g, cell);
  }

  /** Show a palace state; elements added since the last call drop in when ``animate`` is set. */
  setPalace(palace, { animate = false, duration = 450 } = {}) {
    this._drawPlate(palace);
    const keys = palace.elements.map((e) => JSON.stringify(e));
    const same = keys.length >= this.elementKeys.length && this.elementKeys.every((k, i) => k === keys[i]);
    let start = this.elementKeys.length;
    if (!same) { this.pieces.clear(); start = 0; }
    const added = [];
    for (let i = start; i < keys.length; i++) {
      const obj = this.elementObject(palace.elements[i]);
      this.pieces.add(obj);
      added.push(obj);
    }
    this.elementKeys = keys;
    this._drawAnimals(palace);
    if (animate && same && added.length) {
      added.forEach((obj, i) => {
        const delay = (i / added.length) * 0.5;
        obj.position.y = 6;
        this.tweens.push({ start: null, duration, step: (k) => {
          const t = Math.max(0, Math.min(1, (k - delay) / (1 - delay)));
          obj.position.y = 6 * (1 - t) * (1 - t);
        } });
      });
    }
    this.requestRender();
  }

  // ------------------------------------------------------------------ highlights and previews
  /** Clickable markers on studs: [{x, y, z, action, label}]. */
  setHighlights(studs) {
    for (const m of this.highlights.children) m.material.dispose();      // each has its own (hover) colour
    this.highlights.clear();
    this.hovered = null;
    for (const s of studs || []) {
      const m = new THREE.Mesh(highlightGeo,
        new THREE.MeshStandardMaterial({ color: "#ffe14d", emissive: "#ffb300", emissiveIntensity: 0.6,
          transparent: true, opacity: 0.85 }));
      m.position.set(s.x + 0.5, s.z * BRICK_H + 0.3, s.y + 0.5);
      m.userData = s;
      this.highlights.add(m);
    }
    this.requestRender();
  }

  /** A ring on one stud (the chosen anchor, the last move's stud), or none. */
  setMarker(cell) {
    this.marker.clear();
    if (cell) {
      const ring = new THREE.Mesh(markerGeo, markerMat);
      ring.rotation.x = Math.PI / 2;
      ring.position.set(cell.x + 0.5, (cell.z || 0) * BRICK_H + 0.12, cell.y + 0.5);
      this.marker.add(ring);
    }
    this.requestRender();
  }

  showPreview(elements) {
    this.preview.clear();
    for (const e of elements || []) this.preview.add(this.elementObject(e, { ghost: true }));
    this.requestRender();
  }

  clearPreview() {
    this.preview.clear();
    this.requestRender();
  }

  /** Where a point of the plate appears on the page (client pixels): for tests and tooltips. */
  screenOf(x, y, z = 0) {
    this.camera.updateMatrixWorld();
    const v = new THREE.Vector3(x + 0.5, z * BRICK_H + 0.3, y + 0.5).project(this.camera);
    const r = this.renderer.domElement.getBoundingClientRect();
    return { x: r.left + (v.x + 1) / 2 * r.width, y: r.top + (1 - v.y) / 2 * r.height,
             visible: v.z < 1 && Math.abs(v.x) < 1 && Math.abs(v.y) < 1 };
  }

  _pick(ev) {
    const r = this.renderer.domElement.getBoundingClientRect();
    const p = new THREE.Vector2(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
    // Highlights made since the last frame have no world matrix yet: compute it before the ray.
    this.highlights.updateMatrixWorld(true);
    this.camera.updateMatrixWorld();
    this.raycaster.setFromCamera(p, this.camera);
    const hit = this.raycaster.intersectObjects(this.highlights.children, false)[0];
    return hit ? hit.object : null;
  }

  _bindPointer() {
    const el = this.renderer.domElement;
    let down = null;
    el.addEventListener("pointerdown", (ev) => { down = [ev.clientX, ev.clientY]; });
    el.addEventListener("pointerup", (ev) => {
      if (!down) return;
      const moved = Math.hypot(ev.clientX - down[0], ev.clientY - down[1]);
      down = null;
      if (moved > 6) return;                                  // a drag turns the camera
      const obj = this._pick(ev);
      if (obj && this.onStudClick) this.onStudClick(obj.userData);
    });
    el.addEventListener("pointermove", (ev) => {
      if (!this.highlights.children.length) return;
      const obj = this._pick(ev);
      if (obj === this.hovered) return;
      if (this.hovered) this.hovered.material.color.set("#ffe14d");
      this.hovered = obj;
      if (obj) obj.material.color.set("#ff6d00");
      el.style.cursor = obj ? "pointer" : "";
      if (this.onStudHover) this.onStudHover(obj ? obj.userData : null, ev);
      this.requestRender();
    });
  }

  /** Mean variance of the canvas's pixels (a blank canvas gives 0): for tests. */
  pixelVariance() {
    this.renderer.render(this.scene, this.camera);
    const gl = this.renderer.getContext();
    const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    let s = 0, s2 = 0, n = 0;
    for (let i = 0; i < px.length; i += 4 * 7) { const v = px[i] + px[i + 1] + px[i + 2]; s += v; s2 += v * v; n++; }
    return s2 / n - (s / n) ** 2;
  }
}
