// The Swarm Lab stage: the 160 x 100 torus drawn on a canvas.
//
// This module owns the ONE model-to-view transform of the stage (model lengths,
// y up  ->  CSS pixels, y down):
//     px = x * scale          py = (H - y) * scale          scale = cssWidth / W
// and its inverse viewToModel().  Every other drawing (trails, obstacles, threat)
// goes through viewX()/viewY(); clicks come back through viewToModel().
//
// Per-frame work allocates nothing: glyph outlines are precomputed Float32Arrays,
// trails live in a preallocated ring buffer (trails.js), and the frame itself is
// the engine's Float32Array, read in place.  Agents are drawn in one path and one
// fill; periodic copies of glyphs, obstacles and the threat ring are drawn where
// they cross an edge (ui/periodic.js periodicCopies).

import { TrailBuffer } from "./trails.js";
import { fitCanvas } from "../../ui/dom.js";
import { periodicCopies, wrap } from "../../ui/periodic.js";
import { SELECTED, SHADES, drawThreat } from "./palette.js";
import { SKY, gridColour, projectorColours, shapeScale } from "../../ui/look.js";

/** Glyph length in model lengths (enlarged for visibility; the caption says so). */
export const GLYPH_LENGTH = 2.0;
const MIN_GLYPH_PX = 7;

// Outlines in body coordinates: forward = +x, left = +y, length 1 (nose at +0.5).
const BIRD = new Float32Array([
  0.55, 0.0, -0.45, 0.42, -0.2, 0.0, -0.45, -0.42,
]);
const FISH = new Float32Array([
  0.55, 0.0, 0.35, 0.16, 0.05, 0.2, -0.2, 0.12, -0.32, 0.03,
  -0.5, 0.2, -0.44, 0.0, -0.5, -0.2, -0.32, -0.03, -0.2, -0.12, 0.05, -0.2, 0.35, -0.16,
]);

const COLORS = {
  agent: "#e3eef6",
  trail: "rgba(120, 205, 235, ALPHA)",
  selected: SELECTED,
  obstacleFill: "#2c4256",
  obstacleEdge: "#6f8aa1",
};
const TRAIL_BANDS = 4;
// the trails' bands, oldest first: on the dark sky, and (twice as opaque) for the projector
// colours, where the filter leaves the dark sky's faint trails a pale tint of white
const TRAIL_ALPHA_SETS = [["0.10", "0.20", "0.32", "0.45"], ["0.25", "0.45", "0.65", "0.85"]]
  .map((set) => set.map((a) => COLORS.trail.replace("ALPHA", a)));

export class StageRenderer {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {object} opts  {world: [W, H] in lengths (the session's constants), maxAgents, trailSeconds, trailEvery, dt}
   */
  constructor(canvas, opts = {}) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d", { alpha: false });
    [this.W, this.H] = opts.world;
    this.scale = 1;
    this.dpr = 1;
    this.cssW = 0;
    this.cssH = 0;
    this.appearance = "birds";
    this.obstacles = []; // [{x, y, r}] in model lengths
    this.shifts = new Float64Array(18); // periodicCopies' scratch: the copies of one shape
    this.trails = new TrailBuffer({
      maxAgents: opts.maxAgents,  // the population's largest value (the session's spec)
      every: opts.trailEvery,
      seconds: opts.trailSeconds,
      minInterval: opts.trailInterval || 1 / 30,
    });
    this.resize();
  }

  // ---- the transform --------------------------------------------------------------
  viewX(x) { return x * this.scale; }
  viewY(y) { return (this.H - y) * this.scale; }
  /** CSS pixel (relative to the canvas box) -> model point {x, y} (wrapped into the world). */
  viewToModel(px, py) {
    const x = px / this.scale;
    const y = this.H - py / this.scale;
    return { x: wrap(x, this.W), y: wrap(y, this.H) };
  }
  /** Model point -> CSS pixel {x, y} relative to the canvas box. */
  modelToView(x, y) { return { x: this.viewX(x), y: this.viewY(y) }; }

  /** Fit the canvas to its CSS width (aspect W:H) at devicePixelRatio. */
  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const cssW = Math.max(160, Math.round(rect.width || this.canvas.parentElement?.clientWidth || 640));
    const cssH = Math.round((cssW * this.H) / this.W);
    const dpr = fitCanvas(this.canvas, cssW, cssH);
    this.cssW = cssW;
    this.cssH = cssH;
    this.dpr = dpr;
    this.scale = cssW / this.W;
  }

  setObstacles(list) { this.obstacles = list || []; }

  /**
   * Draw one frame.
   * @param {Float32Array} data  the engine frame
   * @param {object} f           parsed header (frame.js): {n, t, selected, threat, offset, stride}
   */
  draw(data, f) {
    const g = this.g;
    const s = this.scale;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.fillStyle = SKY;
    g.fillRect(0, 0, this.cssW, this.cssH);
    this._grid();
    this._obstacles();
    this._trails(f.selected);
    if (f.threatActive) this._threat(f.threatX, f.threatY, f.threatRadius);
    this._agents(data, f);
    if (f.selected >= 0 && f.selected < f.n) {
      const o = f.offset + f.stride * f.selected;
      this._selected(data[o + f.X], data[o + f.Y], data[o + f.TH]);
    }
    this._scaleBar(s);
  }

  _grid() {
    const g = this.g;
    g.strokeStyle = gridColour();
    g.lineWidth = 1;
    g.beginPath();
    for (let x = 20; x < this.W; x += 20) {
      const px = Math.round(this.viewX(x)) + 0.5;
      g.moveTo(px, 0);
      g.lineTo(px, this.cssH);
    }
    for (let y = 20; y < this.H; y += 20) {
      const py = Math.round(this.viewY(y)) + 0.5;
      g.moveTo(0, py);
      g.lineTo(this.cssW, py);
    }
    g.stroke();
  }

  /** Every disc and its periodic copies (one path for all, then fill + edge). */
  _obstacles() {
    if (!this.obstacles.length) return;
    const g = this.g;
    g.beginPath();
    const sh = this.shifts;
    for (const d of this.obstacles) {
      for (let c = 0, k = periodicCopies(d.x, d.y, d.r, this.W, this.H, sh); c < k; c++) {
        const px = this.viewX(d.x + sh[2 * c]);
        const py = this.viewY(d.y + sh[2 * c + 1]);
        g.moveTo(px + d.r * this.scale, py);
        g.arc(px, py, d.r * this.scale, 0, Math.PI * 2);
      }
    }
    // Stroke every outline at double width, then fill the union on top: only the outer
    // half of the union's edge stays visible (no seams where periodic copies overlap).
    g.strokeStyle = COLORS.obstacleEdge;
    g.lineWidth = 3;
    g.stroke();
    g.fillStyle = COLORS.obstacleFill;
    g.fill("nonzero");
  }

  _trails(selected) {
    const g = this.g;
    const tr = this.trails;
    if (tr.count < 2) return;
    g.lineWidth = 1.2;
    g.lineCap = "round";
    // Age bands: one path per band (oldest faint, newest bright).
    const trailStyles = TRAIL_ALPHA_SETS[projectorColours() ? 1 : 0];
    for (let b = 0; b < TRAIL_BANDS; b++) {
      g.beginPath();
      tr.pathBand(g, this, b, TRAIL_BANDS);
      g.strokeStyle = trailStyles[b];
      g.stroke();
    }
    if (selected >= 0) {
      g.beginPath();
      tr.pathSelected(g, this);
      g.strokeStyle = SHADES.selectedTrail;
      g.lineWidth = 2;
      g.stroke();
    }
  }

  _threat(x, y, radius) {
    const g = this.g;
    const s = this.scale;
    const sh = this.shifts;
    for (let c = 0, k = periodicCopies(x, y, radius, this.W, this.H, sh); c < k; c++) {
      drawThreat(g, this.viewX(x + sh[2 * c]), this.viewY(y + sh[2 * c + 1]), radius * s, Math.max(5, 1.6 * s));
    }
  }

  /** All agents in one path: each glyph is a closed polygon (plus edge copies). */
  _agents(data, f) {
    const g = this.g;
    const shape = this.appearance === "fish" ? FISH : BIRD;
    const len = this._glyphLength();
    const margin = (0.6 * len) / this.scale; // model lengths near an edge that need a copy
    const sh = this.shifts;
    g.beginPath();
    for (let i = 0, o = f.offset; i < f.n; i++, o += f.stride) {
      const x = data[o + f.X];
      const y = data[o + f.Y];
      const th = data[o + f.TH];
      const c = Math.cos(th);
      const sn = Math.sin(th);
      // the glyph, and its periodic copies where it crosses an edge
      for (let j = 0, k = periodicCopies(x, y, margin, this.W, this.H, sh); j < k; j++) {
        this._glyph(shape, x + sh[2 * j], y + sh[2 * j + 1], c, sn, len);
      }
    }
    g.fillStyle = COLORS.agent;
    g.fill();
  }

  /** An animal's drawn length in CSS px: GLYPH_LENGTH lengths, at least MIN_GLYPH_PX, times
   *  the page's shape size (ui/look.js, "Larger shapes"). */
  _glyphLength() {
    return Math.max(MIN_GLYPH_PX, GLYPH_LENGTH * this.scale) * shapeScale();
  }

  _glyph(shape, x, y, c, s, len) {
    const g = this.g;
    const px = this.viewX(x);
    const py = this.viewY(y);
    // body (bx, by) -> model offset bx*u + by*n (n = left normal) -> screen (y flipped)
    for (let k = 0; k < shape.length; k += 2) {
      const bx = shape[k] * len;
      const by = shape[k + 1] * len;
      const sx = px + bx * c - by * s;
      const sy = py - (bx * s + by * c);
      if (k === 0) g.moveTo(sx, sy); else g.lineTo(sx, sy);
    }
    g.closePath();
  }

  _selected(x, y, th) {
    const g = this.g;
    const len = this._glyphLength();
    const shape = this.appearance === "fish" ? FISH : BIRD;
    g.beginPath();
    this._glyph(shape, x, y, Math.cos(th), Math.sin(th), len * 1.15);
    g.fillStyle = COLORS.selected;
    g.fill();
    // its ring, wide of the flock's glyphs and on a band of the sky's colour, so it stands out
    // inside a dense flock (also through the projector colours' filter, where the band turns white)
    g.beginPath();
    g.arc(this.viewX(x), this.viewY(y), len * 1.5, 0, Math.PI * 2);
    g.strokeStyle = SKY;
    g.lineWidth = 6;
    g.stroke();
    g.strokeStyle = COLORS.selected;
    g.lineWidth = 2.5;
    g.stroke();
  }

  _scaleBar(s) {
    const g = this.g;
    const x0 = 10;
    const y0 = this.cssH - 12;
    const w = 10 * s;
    g.fillStyle = "rgba(11, 29, 42, 0.75)";
    g.fillRect(x0 - 5, y0 - 15, w + 84, 22);
    g.strokeStyle = "rgba(232, 243, 251, 0.8)";
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(x0, y0 - 4);
    g.lineTo(x0, y0);
    g.lineTo(x0 + w, y0);
    g.lineTo(x0 + w, y0 - 4);
    g.stroke();
    g.fillStyle = "rgba(232, 243, 251, 0.85)";
    g.font = "12px system-ui, sans-serif";
    g.textBaseline = "bottom";
    g.textAlign = "left";
    g.fillText("10 lengths", x0 + w + 6, y0 + 4);
  }
}
