// "What can I sense?": the selected individual's world, zoomed in.
//
// Data: session op_selected() (indices into the frame arrays, weighted steering
// vectors per rule, the sentence) + the current frame for positions.  The zoomed
// view is centred on the selected animal; every other point is placed at its
// minimum-image displacement from it, so the view is seamless across the torus
// edges.  Steering arrows share one scale (the scale bar says how long one unit is);
// they are steering urges, not physical forces.

import { fitCanvas, num, pixelRatio, plural, setText } from "../../ui/dom.js";
import { ARROWS, ARROW_STYLES, NEIGHBOURS, NEIGHBOUR_WORDS, SELECTED, SHADES, drawThreat } from "./palette.js";
import { drawArrow, drawMark } from "../../ui/marks.js";
import { SKY } from "../../ui/look.js";
import { minImage } from "../../ui/periodic.js";

/** The session's urges ({key, label}, display().urges), each with its arrow's own colour and
 *  its own dash or head (palette.js ARROW_STYLES). */
function urgeArrows(urges) {
  return urges.map(({ key, label }) => {
    if (!ARROW_STYLES[key]) throw new Error(`palette.js has no arrow style for the urge "${key}"`);
    return { key, label, color: ARROWS[key], style: ARROW_STYLES[key] };
  });
}
const KEY_W = 30; // CSS px of a legend key (an arrow drawn as on the panel, on its dark ground)
const KEY_H = 14;
const SOCIAL = NEIGHBOURS.social;
const PERSONAL = NEIGHBOURS.personal;
const EXCLUDED = NEIGHBOURS.excluded;
// each neighbour class has its own shape as well as its colour (ui/marks.js; legend swatches alike)
export const NEIGHBOUR_SHAPES = { social: "disc", personal: "square", excluded: "ring" };

const RANGE_DASH = [4, 4], NO_DASH = [];
const SCALE_TEXT = "1 unit of steering";

/** Whether two lists of indices are the same, element for element. */
function sameList(a, b) {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** The selected animal's length on the panel, CSS px (its nose is this far ahead of its centre). */
export const ANIMAL_PX = 12;

/** CSS px for one unit of steering: the panel's radius `limit`, or less when an urge is longer
 *  than one unit, so every arrow fits.  (One unit was 0.45 of the radius: an alignment urge of
 *  0.19 was 9 px long, hidden under the 12 px animal it starts from.) */
export function arrowUnit(maxMag, limit) {
  return limit / Math.max(maxMag, 1);
}

export class SensePanel {
  /**
   * @param {HTMLElement} root  the panel element (its content is built here)
   * @param {object} opts {world: [W, H] in lengths (the session's constants), urges (the
   *   session's display().urges), onPrev(), onNext()}
   */
  constructor(root, opts = {}) {
    this.root = root;
    [this.W, this.H] = opts.world;
    this.urges = urgeArrows(opts.urges);
    root.innerHTML = `
      <div class="sense-head">
        <h3 id="swarm-sense-title">What can I sense?</h3>
        <div class="sense-nav" role="group" aria-label="Choose the individual">
          <button type="button" class="btn sense-prev" aria-label="Select the previous individual">◀</button>
          <button type="button" class="btn sense-next" aria-label="Select the next individual">▶</button>
        </div>
      </div>
      <p class="sense-who" aria-live="polite"></p>
      <canvas class="sense-canvas" role="img" aria-describedby="swarm-sense-text"></canvas>
      <ul class="legend sense-legend">
        <li><span class="swatch sw-selected"></span>this animal</li>
        <li><span class="swatch sw-social mark-disc"></span>social neighbour (disc)</li>
        <li><span class="swatch sw-personal mark-square"></span>in personal space (square)</li>
        <li><span class="swatch sw-excluded mark-ring"></span>nearby, not counted (ring)</li>
      </ul>
      <p class="sense-text" id="swarm-sense-text"></p>
      <p class="sense-counts"></p>
      <table class="sense-arrows">
        <caption>Steering urges (weighted; arrows share one scale; not physical forces)</caption>
        <thead><tr><th scope="col">urge</th><th scope="col">strength</th></tr></thead>
        <tbody></tbody>
      </table>
      <p class="sense-hint">Click or tap an animal on the stage to choose another one.</p>`;
    this.canvas = root.querySelector(".sense-canvas");
    this.g = this.canvas.getContext("2d");
    this.who = root.querySelector(".sense-who");
    this.textEl = root.querySelector(".sense-text");
    this.countsEl = root.querySelector(".sense-counts");
    this.tbody = root.querySelector(".sense-arrows tbody");
    this.rows = new Map();
    this.socialSet = new Set();
    this.personalSet = new Set();
    this.shown = null;  // the info whose lists the data-* attributes hold
    this.ring = {};     // the view's label (range and field of view) and its measured width
    // the legend's swatches are painted from the same palette as the drawing
    const swatch = { selected: SELECTED, social: SOCIAL, personal: PERSONAL, excluded: EXCLUDED };
    for (const [k, c] of Object.entries(swatch)) {
      const el = root.querySelector(`.sw-${k}`);
      // a ring swatch is an outline in the class colour on the stage's dark ground
      if (el.classList.contains("mark-ring")) el.style.borderColor = c;
      else el.style.background = c;
    }
    for (const r of this.urges) {
      const tr = document.createElement("tr");
      tr.innerHTML = `<th scope="row"><canvas class="arrow-key" aria-hidden="true"></canvas><span class="arrow-name">${r.label}</span>` +
        ` <span class="arrow-style">${r.style.words}</span></th><td class="num">–</td>`;
      const key = tr.querySelector(".arrow-key");
      key.style.color = r.color; // the legend's colour, readable from the element
      const dpr = pixelRatio();
      key.width = Math.round(KEY_W * dpr);
      key.height = Math.round(KEY_H * dpr);
      const kg = key.getContext("2d");
      kg.setTransform(dpr, 0, 0, dpr, 0, 0);
      drawArrow(kg, 3, KEY_H / 2, KEY_W - 3, KEY_H / 2, r.style, 2);
      this.tbody.append(tr);
      this.rows.set(r.key, tr.querySelector("td"));
    }
    root.querySelector(".sense-prev").addEventListener("click", () => opts.onPrev && opts.onPrev());
    root.querySelector(".sense-next").addEventListener("click", () => opts.onNext && opts.onNext());
    this.info = null;
    this.obstacles = [];
    this.resize();
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => this.resize()).observe(this.canvas);
  }

  /** The two sentences change with every refresh while the run plays ("33 ... / 41 social
   *  neighbours"), and on a narrow screen they wrapped to one line more, then one less, a few
   *  times a second: the page below jumped, and a course page's self-sizing frame resized with
   *  them.  Each keeps the tallest height it has had at this width (reset when the width
   *  changes), so the page only ever grows by a line, once. */
  _holdHeights() {
    const width = this.textEl.clientWidth;
    if (width !== this.heldWidth) {
      this.heldWidth = width;
      for (const el of [this.textEl, this.countsEl]) el.style.minHeight = "";
    }
    for (const el of [this.textEl, this.countsEl]) {
      const h = el.getBoundingClientRect().height;
      if (h > (parseFloat(el.style.minHeight) || 0)) el.style.minHeight = `${h}px`;
    }
  }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const w = Math.max(160, Math.round(rect.width || 300));
    const h = Math.round(w * 0.8);
    const dpr = fitCanvas(this.canvas, w, h);
    this.cssW = w;
    this.cssH = h;
    this.dpr = dpr;
  }

  setObstacles(list) { this.obstacles = list || []; }

  /** New panel data from the session (or null when nothing is selected). */
  setInfo(info) {
    this.info = info;
    // the neighbour classes, refilled in place (the panel is redrawn with every engine answer)
    this.socialSet.clear();
    this.personalSet.clear();
    if (info) {
      for (const j of info.social) this.socialSet.add(j);
      for (const j of info.personal) this.personalSet.add(j);
    }
    const root = this.root;
    if (!info) {
      // the "who" line is a polite live region: written only when it changes (setText), or a
      // screen reader would announce the same name again at every refresh while the run plays
      setText(this.who, "No individual selected. Click or tap one on the stage.");
      setText(this.textEl, "");
      setText(this.countsEl, "");
      for (const r of this.urges) setText(this.rows.get(r.key), "–"); // no one's steering
      root.dataset.index = "";
      this.shown = null;
      return;
    }
    setText(this.who, `Individual #${info.id + 1}`);
    setText(this.textEl, info.text || "");
    const ns = info.social.length;
    const np = info.personal.length;
    const ne = info.excluded.length;
    setText(this.countsEl,
      `${plural(ns, "social neighbour", "social neighbours")}, ${plural(np, "animal", "animals")} inside personal space, ` +
      `${plural(ne, "animal", "animals")} nearby (within ${num(info.nearby_radius)} lengths) but not counted.`);
    this._holdHeights();
    // machine-readable copies for tests and assistive tools, and the canvas's name: written
    // when the neighbourhood changes, not at every engine answer
    const last = this.shown;
    if (!last || last.index !== info.index || !sameList(last.social, info.social) ||
        !sameList(last.personal, info.personal) || !sameList(last.excluded, info.excluded)) {
      root.dataset.index = String(info.index);
      root.dataset.social = info.social.join(",");
      root.dataset.personal = info.personal.join(",");
      root.dataset.excluded = info.excluded.join(",");
      this.canvas.setAttribute("aria-label",
        `Zoomed view around individual #${info.id + 1}: ${ns} social neighbours as ${NEIGHBOUR_WORDS.social}, ${np} in personal space as ${NEIGHBOUR_WORDS.personal}, ${ne} nearby but not counted as ${NEIGHBOUR_WORDS.excluded}, with steering arrows.`);
    }
    this.shown = info;
    for (const r of this.urges) {
      const v = info.vectors[r.key];
      setText(this.rows.get(r.key), v ? Math.hypot(v[0], v[1]).toFixed(2) : "0.00");
    }
  }

  /** Draw the zoomed view from the current frame. */
  draw(data, f) {
    const g = this.g;
    const w = this.cssW;
    const h = this.cssH;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.fillStyle = SKY;
    g.fillRect(0, 0, w, h);
    const info = this.info;
    if (!info || info.index < 0 || info.index >= f.n) {
      g.fillStyle = "#9cb8cc";
      g.font = "14px system-ui, sans-serif";
      g.textAlign = "center";
      g.fillText("Select an individual on the stage", w / 2, h / 2);
      return;
    }
    const { W, H } = this;
    const o0 = f.offset + f.stride * info.index;
    const x0 = data[o0 + f.X];
    const y0 = data[o0 + f.Y];
    const th0 = data[o0 + f.TH];
    const ring = info.nearby_radius;
    const span = Math.max(ring, info.R, 6) * 1.08;
    const s = Math.min(w, h) / (2 * span);
    const cx = w / 2;
    const cy = h / 2;

    // obstacles (nearest image)
    if (this.obstacles.length) {
      g.beginPath();
      for (const d of this.obstacles) {
        const dx = minImage(d.x - x0, W);
        const dy = minImage(d.y - y0, H);
        g.moveTo(cx + dx * s + d.r * s, cy - dy * s);
        g.arc(cx + dx * s, cy - dy * s, d.r * s, 0, Math.PI * 2);
      }
      g.fillStyle = "#2c4256";
      g.fill();
    }
    // threat
    if (f.threatActive) {
      const dx = minImage(f.threatX - x0, W);
      const dy = minImage(f.threatY - y0, H);
      drawThreat(g, cx + dx * s, cy - dy * s, f.threatRadius * s, 5);
    }
    // field of view (the session's fov_deg) of radius R, personal space, nearby ring
    const R = info.R;
    const half = (info.fov_deg / 2) * (Math.PI / 180);
    g.beginPath();
    g.moveTo(cx, cy);
    g.arc(cx, cy, R * s, -th0 - half, -th0 + half);
    g.closePath();
    g.fillStyle = SHADES.viewFill;
    g.fill();
    g.strokeStyle = SHADES.viewEdge;
    g.lineWidth = 1;
    g.stroke();
    g.setLineDash(RANGE_DASH);
    g.beginPath();
    g.arc(cx, cy, info.personal_space * s, 0, Math.PI * 2);
    g.strokeStyle = SHADES.personalRing;
    g.stroke();
    g.beginPath();
    g.arc(cx, cy, ring * s, 0, Math.PI * 2);
    g.strokeStyle = SHADES.nearbyRing;
    g.stroke();
    g.setLineDash(NO_DASH);


    // neighbours (personal-space ones that are also social get a cyan ring)
    const dotR = Math.max(2.5, Math.min(4.5, 0.45 * s));
    for (const j of info.excluded) this._dot(data, f, j, x0, y0, cx, cy, s, dotR, EXCLUDED, null, NEIGHBOUR_SHAPES.excluded);
    for (const j of info.social) if (!this.personalSet.has(j)) this._dot(data, f, j, x0, y0, cx, cy, s, dotR, SOCIAL, null, NEIGHBOUR_SHAPES.social);
    for (const j of info.personal) this._dot(data, f, j, x0, y0, cx, cy, s, dotR, PERSONAL, this.socialSet.has(j) ? SOCIAL : null, NEIGHBOUR_SHAPES.personal);

    // the selected animal
    g.beginPath();
    const L = ANIMAL_PX;
    const c = Math.cos(th0);
    const sn = Math.sin(th0);
    g.moveTo(cx + L * c, cy - L * sn);
    g.lineTo(cx - 0.8 * L * c + 0.6 * L * sn, cy + 0.8 * L * sn + 0.6 * L * c);
    g.lineTo(cx - 0.4 * L * c, cy + 0.4 * L * sn);
    g.lineTo(cx - 0.8 * L * c - 0.6 * L * sn, cy + 0.8 * L * sn - 0.6 * L * c);
    g.closePath();
    g.fillStyle = SELECTED;
    g.fill();

    // arrows on one shared scale
    const vectors = info.vectors || {};
    let maxMag = 0;
    for (const r of this.urges) {
      const v = vectors[r.key];
      if (v) maxMag = Math.max(maxMag, Math.hypot(v[0], v[1]));
    }
    const unit = arrowUnit(maxMag, 0.92 * Math.min(w, h) / 2); // px for one unit of steering
    for (const r of this.urges) {
      const v = vectors[r.key];
      if (!v) continue;
      const m = Math.hypot(v[0], v[1]);
      if (m < 1e-6) continue;
      drawArrow(g, cx, cy, cx + v[0] * unit, cy - v[1] * unit, r.style);
    }
    // label for the view (drawn last, on a backdrop, so dots and rings never cover it)
    g.font = "11px system-ui, sans-serif";
    g.textAlign = "left";
    if (this.ring.R !== R || this.ring.fov !== info.fov_deg) {  // its text and width, when they change
      const text = `range R = ${R} lengths, ${info.fov_deg}° view`;
      this.ring = { R, fov: info.fov_deg, text, width: g.measureText(text).width };
    }
    g.fillStyle = "rgba(11, 29, 42, 0.8)";
    g.fillRect(2, 3, this.ring.width + 8, 15);
    g.fillStyle = SHADES.viewText;
    g.fillText(this.ring.text, 6, 14);
    // scale bar for one unit, on the same backdrop (an obstacle or a threat's ring may lie under it)
    const by = h - 10;
    if (this.scaleWidth === undefined) this.scaleWidth = g.measureText(SCALE_TEXT).width;  // (once)
    const scaleW = Math.max(unit, this.scaleWidth);
    g.fillStyle = "rgba(11, 29, 42, 0.8)";
    g.fillRect(w - 14 - scaleW, by - 19, scaleW + 8, 23);
    g.strokeStyle = "#e8f3fb";
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(w - 10 - unit, by);
    g.lineTo(w - 10, by);
    g.stroke();
    g.fillStyle = "#e8f3fb";
    g.textAlign = "right";
    g.fillText(SCALE_TEXT, w - 10, by - 7);
    if (!info.social.length && !info.personal.length) {
      g.textAlign = "center";
      g.fillStyle = "#e8f3fb";
      g.font = "13px system-ui, sans-serif";
      g.fillText("waiting for the first neighbourhood", w / 2, h - 34);
    }
  }

  _dot(data, f, j, x0, y0, cx, cy, s, r, color, ring, shape = "disc") {
    if (j < 0 || j >= f.n) return;
    const g = this.g;
    const o = f.offset + f.stride * j;
    const px = cx + minImage(data[o + f.X] - x0, this.W) * s;
    const py = cy - minImage(data[o + f.Y] - y0, this.H) * s;
    const th = data[o + f.TH];
    drawMark(g, px, py, r, shape, color);
    if (ring) {
      g.beginPath();
      g.arc(px, py, r + 1.5, 0, Math.PI * 2);
      g.strokeStyle = ring;
      g.lineWidth = 2;
      g.stroke();
    }
    g.beginPath();
    g.moveTo(px, py);
    g.lineTo(px + 2 * r * Math.cos(th), py - 2 * r * Math.sin(th));
    g.strokeStyle = color;
    g.lineWidth = 1.5;
    g.stroke();
  }
}
