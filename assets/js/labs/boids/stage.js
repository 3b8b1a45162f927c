// Lab 3's stage: draws the boids, the treat and the keyboard cursor on one canvas.
//
// One model-to-view transform, owned here.  The model's frame (app/swarmlab/boids.py) is
// x right, y DOWN, in lengths, inside [0, width) x [0, height); the canvas is the same
// orientation in device pixels, so the transform is a pure scale per axis:
//
//     px = x * sx,   py = y * sy,   sx = canvas.width / width,   sy = canvas.height / height
//
// (a shared link's world keeps its size and is drawn stretched to the canvas, so sx and sy
// may differ slightly).  toModel() is its inverse for pointer positions.  A boid's fields
// (x, y, vx, vy) are read through the session's frame layout (fx.f), never fixed offsets.
// Nothing is allocated per frame: glyphs are grouped by heading colour with a counting sort
// into typed arrays kept between frames (grown only for a larger flock), one path and one fill
// per colour, and the treat's glow is one cached gradient drawn translated.

import { frameCount } from "../../ui/frame.js";
import { headingBin, headingPalette } from "../../ui/heading.js";
import { SKY, shapeScale } from "../../ui/look.js";

const GLYPH_LENGTH = 1.6;   // lengths: glyphs are drawn a little larger than a body
const GLYPH_MIN_PX = 7;     // CSS px, so glyphs stay visible on small screens...
const GLYPH_MIN_FAR = 3.5;  // ...and down to this when a big world is zoomed out (10,000 boids)
const HUES = 24;            // heading colour buckets (one path per bucket)
const NO_DASH = [];
const TREAT_FILL = "#ffd666", TREAT_EDGE = "#8a5a00";

export class BoidsStage {
  /** @param canvas the stage canvas; @param fx the session's frame index (ui/frame.js frameIndex). */
  constructor(canvas, fx) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.fx = fx;
    this.dpr = 1;
    this.world = { width: 1, height: 1 };
    this.sx = 1; this.sy = 1;
    this.palette = headingPalette(HUES);   // the dark sky's colours, or the projector's
    this.hueOf = new Uint8Array(0);        // per boid: its colour bucket
    this.byHue = new Int32Array(0);        // boid indices, grouped by bucket
    this.hueStart = new Int32Array(HUES + 1); // bucket h holds byHue[hueStart[h] .. hueStart[h + 1])
    this.hueNext = new Int32Array(HUES);      // counting sort's write cursor per bucket
    this.glow = null; this.glowRadius = -1;
    this.dash = [4, 3];
  }

  /** Size the canvas backing store: CSS width and height, device pixel ratio. */
  resize(cssW, cssH, dpr) {
    this.dpr = dpr;
    this.dash = [4 * dpr, 3 * dpr];
    this.canvas.style.height = `${cssH}px`;
    this.canvas.width = Math.round(cssW * dpr);
    this.canvas.height = Math.round(cssH * dpr);
    this._fit();
  }

  /** The model world drawn on the canvas, {width, height} in lengths. */
  setWorld(world) {
    this.world = { width: world.width, height: world.height };
    this._fit();
  }

  _fit() {
    this.sx = this.canvas.width / this.world.width;
    this.sy = this.canvas.height / this.world.height;
  }

  /** A pointer's client position -> model position (lengths), clamped inside the world. */
  toModel(clientX, clientY) {
    const r = this.canvas.getBoundingClientRect();
    const fx = clamp((clientX - r.left) / Math.max(1, r.width), 0, 0.99999);
    const fy = clamp((clientY - r.top) / Math.max(1, r.height), 0, 0.99999);
    return { x: fx * this.world.width, y: fy * this.world.height };
  }

  /** Draw one frame: the flock in ``frame`` (its first ``length`` floats), the treat
   *  ({on, x, y}) and, if ``cursor.visible``, the keyboard cursor ({x, y}). */
  draw(frame, length, treat, cursor) {
    const { g, fx, sx, sy, dpr } = this;
    const W = this.canvas.width, H = this.canvas.height;
    g.fillStyle = SKY;
    g.fillRect(0, 0, W, H);
    // the treat under the boids: a flock that swarms round it stays in sight on top of it
    if (treat.on) this._treat(treat.x * sx, treat.y * sy);
    const n = frameCount(fx, frame, length);
    const base = fx.offset, stride = fx.stride, X = fx.f.x, Y = fx.f.y, VX = fx.f.vx, VY = fx.f.vy;
    const zoom = Math.min(1, sx / (4 * dpr));           // 1 at the default sky, smaller zoomed out
    const L = Math.max(GLYPH_LENGTH * sx, (GLYPH_MIN_FAR + (GLYPH_MIN_PX - GLYPH_MIN_FAR) * zoom) * dpr) *
      shapeScale(); // ("Larger shapes": ui/look.js)
    if (this.hueOf.length < n) {
      this.hueOf = new Uint8Array(n);
      this.byHue = new Int32Array(n);
    }
    // Group the boids by colour (a counting sort into kept arrays): one path per colour.
    const { hueOf, byHue, hueStart, hueNext } = this;
    const hueStyles = this.palette();
    hueStart.fill(0);
    for (let k = 0; k < n; k++) {   // colour of each boid's heading; count per colour
      const o = base + stride * k;
      const a = Math.atan2(frame[o + VY], frame[o + VX]);
      const h = headingBin(a, HUES);
      hueOf[k] = h;
      hueStart[h + 1]++;
    }
    for (let h = 0; h < HUES; h++) hueStart[h + 1] += hueStart[h];  // counts -> where each bucket starts
    for (let h = 0; h < HUES; h++) hueNext[h] = hueStart[h];
    for (let k = 0; k < n; k++) byHue[hueNext[hueOf[k]]++] = k;      // in boid order within a bucket
    for (let h = 0; h < HUES; h++) {
      const from = hueStart[h], to = hueStart[h + 1];
      if (from === to) continue;
      g.beginPath();
      for (let m = from; m < to; m++) {
        const o = base + stride * byHue[m];
        const px = frame[o + X] * sx, py = frame[o + Y] * sy;
        let ux = frame[o + VX], uy = frame[o + VY];
        const s = Math.hypot(ux, uy) || 1;
        ux /= s; uy /= s;
        g.moveTo(px + ux * 0.6 * L, py + uy * 0.6 * L);
        g.lineTo(px - ux * 0.4 * L - uy * 0.3 * L, py - uy * 0.4 * L + ux * 0.3 * L);
        g.lineTo(px - ux * 0.2 * L, py - uy * 0.2 * L);
        g.lineTo(px - ux * 0.4 * L + uy * 0.3 * L, py - uy * 0.4 * L - ux * 0.3 * L);
        g.closePath();
      }
      g.fillStyle = hueStyles[h];
      g.fill();
    }
    if (cursor.visible) this._cursor(cursor.x * sx, cursor.y * sy);
  }

  _treat(tx, ty) {
    const { g, dpr } = this;
    const r = Math.max(1.2 * this.sx, 7 * dpr);
    if (r !== this.glowRadius) {           // a new gradient only when the scale changes
      this.glow = g.createRadialGradient(0, 0, 0, 0, 0, r * 4);
      this.glow.addColorStop(0, "rgba(255, 214, 102, .55)");
      this.glow.addColorStop(1, "rgba(255, 214, 102, 0)");
      this.glowRadius = r;
    }
    g.save();
    g.translate(tx, ty);
    g.fillStyle = this.glow;
    g.beginPath(); g.arc(0, 0, r * 4, 0, 2 * Math.PI); g.fill();
    g.fillStyle = TREAT_FILL;
    g.strokeStyle = TREAT_EDGE;
    g.lineWidth = 2 * dpr;
    g.beginPath(); g.arc(0, 0, r, 0, 2 * Math.PI); g.fill(); g.stroke();
    g.restore();
  }

  _cursor(cx, cy) {
    const { g, dpr } = this;
    const r = 10 * dpr;
    g.strokeStyle = "#ffffff";
    g.lineWidth = 1.5 * dpr;
    g.setLineDash(this.dash);
    g.beginPath(); g.arc(cx, cy, r, 0, 2 * Math.PI); g.stroke();
    g.setLineDash(NO_DASH);
    g.beginPath();
    g.moveTo(cx - 1.6 * r, cy); g.lineTo(cx - 0.5 * r, cy);
    g.moveTo(cx + 0.5 * r, cy); g.lineTo(cx + 1.6 * r, cy);
    g.moveTo(cx, cy - 1.6 * r); g.lineTo(cx, cy - 0.5 * r);
    g.moveTo(cx, cy + 0.5 * r); g.lineTo(cx, cy + 1.6 * r);
    g.stroke();
  }
}

function clamp(v, lo, hi) { return Math.min(hi, Math.max(lo, v)); }
