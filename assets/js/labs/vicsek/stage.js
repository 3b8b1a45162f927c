// The Vicsek stage: N arrows in a periodic square of side L (the session's constants: the
// teaching box has N = 64 and L = 1), drawn on a canvas.
//
// Model frame (app/swarmlab/sessions/vicsek.py, frame()), read through the session's layout
// (ui/frame.js frameIndex: fields x, y, theta; two blocks of n records):
//   block A  the current update; x, y in [0, L), theta radians CCW from +x
//   block B  the previous update, positions UNWRAPPED next to block A
// so the straight step an arrow took is (x - px, y - py) even across the periodic edge.
// ingest() copies them into the stage's own arrays cur (A) and prev (B), [x, y, theta] * n.
//
// Screen mapping, the stage's one model-to-view transform (viewX/viewY, viewToModel):
// the canvas shows the box [0,L]^2 with y UP (model convention):
//   screenX = x * S / L,  screenY = (1 - y / L) * S   (S = canvas CSS size in px)
//
// Interpolation: between updates an arrow is drawn at p + s * (x - p), s in [0, 1],
// wrapped into the box, i.e. along its step vector, never across the box.
// Trail: the page keeps the last TRAIL update positions per arrow (ring buffer) and
// draws them as one polyline unwrapped with minimum-image steps (each step is the model's
// speed, at most half the box by its validation, so the minimum image is the true step).
// Everything that crosses an edge is drawn again at its periodic copies (ui/periodic.js
// periodicCopies); the box is clipped.
//
// The renderer allocates nothing per frame: all buffers are preallocated typed arrays,
// all colours and dash patterns are constants.

import { pixelRatio } from "../../ui/dom.js";
import { minImage, periodicCopies, wrap } from "../../ui/periodic.js";
import { headingBin, headingPalette } from "../../ui/heading.js";
import { SKY, gridColour, shapeScale } from "../../ui/look.js";

export const TRAIL = 8;            // updates of trail
const RING = TRAIL + 1;            // positions kept: now and 8 before
const HUES = 36;                   // heading colour wheel (ui/heading.js) in 10-degree bins
const HUE_FILLS = headingPalette(HUES); // the dark sky's colours, or the projector's
const TRAIL_STYLE = Array.from({ length: TRAIL }, (_, k) => `rgba(190, 215, 235, ${(0.55 * (1 - k / TRAIL)).toFixed(3)})`);
// The box edge is where arrows wrap: 3:1 or more against the ground in both looks (WCAG 1.4.11;
// tests/js/vicsek_stage.test.mjs computes both through ui/heading.js projected()).
export const EDGE = "rgba(255, 255, 255, 0.45)";
const SEL_FILL = "#ffffff";
const SEL_STROKE = "#ff7f66";
const NEIGH_STROKE = "#ffffff";
const CIRCLE_STROKE = "rgba(53, 208, 224, 0.95)";
const CIRCLE_FILL = "rgba(53, 208, 224, 0.10)";
const WEDGE_FILL = "rgba(255, 196, 84, 0.35)";
const WEDGE_STROKE = "rgba(255, 196, 84, 0.95)";
const AIM_STROKE = "rgba(255, 255, 255, 0.85)";
const DASH = [5, 4];
const NO_DASH = [];
const TAU = 2 * Math.PI;


export class Stage {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {number} n   number of arrows
   * @param {object} opts  { box, radius, speed, kick }  (lengths L, R and the step in model
   *                        units, the kick in radians: the session's constants)
   */
  constructor(canvas, n, opts) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d");
    this.n = n;
    if (!(opts.box > 0 && opts.speed >= 0)) throw new Error(`Lab 2's stage needs the box side and the step (got ${opts.box}, ${opts.speed})`);
    this.box = opts.box;
    this.radius = opts.radius;
    this.kick = opts.kick;
    // how far a trail reaches back from its arrow: TRAIL steps and the one being drawn, plus one
    this.trailReach = (RING + 1) * opts.speed;
    this.cur = new Float32Array(3 * n);   // block A
    this.prev = new Float32Array(3 * n);  // block B (unwrapped next to A)
    this.ring = new Float32Array(RING * n * 2); // wrapped positions, slot (head - k) = k updates ago
    this.ringHead = 0;
    this.ringCount = 0;
    this.trailU = new Float32Array(RING * n * 2); // unwrapped trail points relative to block A
    this.shifts = new Float64Array(18);   // periodicCopies' scratch: the copies of one shape
    this.hx = new Float32Array(n);        // displayed (interpolated, wrapped) positions
    this.hy = new Float32Array(n);
    this.neigh = new Uint8Array(n);       // 1 = neighbour of the selected arrow
    this.selected = -1;
    this.turnTo = NaN;                    // heading the rule points the selected arrow to (before the kick)
    this.s = 1;                           // interpolation fraction
    this.size = 0;                        // CSS px
    this.dpr = 1;
    this.hasFrame = false;
    this.resize();
  }

  /** Match the canvas backing store to its CSS size and devicePixelRatio. */
  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const css = Math.max(1, Math.round(rect.width));
    const dpr = pixelRatio();
    const px = Math.round(css * dpr);
    if (this.canvas.width !== px || this.canvas.height !== px) {
      this.canvas.width = px;
      this.canvas.height = px;
    }
    this.size = css;
    this.dpr = px / css;
    return this;
  }

  // ---- the transform (model units, y up  <->  CSS px inside the canvas, y down) ----
  viewX(x) { return (x / this.box) * this.size; }
  viewY(y) { return (1 - y / this.box) * this.size; }
  /** CSS px inside the canvas -> model point (not wrapped). */
  viewToModel(px, py) { return { x: (px / this.size) * this.box, y: (1 - py / this.size) * this.box }; }

  /**
   * Take a new model frame. `continues` = true when it is exactly one update after
   * the last one taken (the trail grows); otherwise the trail restarts from block B and A.
   */
  ingest(data, fx, continues) {
    const n = this.n, cur = this.cur, prev = this.prev;
    const X = fx.f.x, Y = fx.f.y, TH = fx.f.theta, stride = fx.stride;
    for (let i = 0, a = fx.offset, b = fx.offset + n * stride; i < n; i++, a += stride, b += stride) {
      cur[3 * i] = data[a + X]; cur[3 * i + 1] = data[a + Y]; cur[3 * i + 2] = data[a + TH];
      prev[3 * i] = data[b + X]; prev[3 * i + 1] = data[b + Y]; prev[3 * i + 2] = data[b + TH];
    }
    if (!continues || this.ringCount === 0) {
      this.ringCount = 0;
      // block B (wrapped) then A, unless B equals A (right after a reset)
      let same = true;
      for (let k = 0; k < 3 * n && same; k++) same = this.cur[k] === this.prev[k];
      if (!same) this._push(this.prev, true);
    }
    this._push(this.cur, false);
    this._unwrapTrail();
    this.hasFrame = true;
  }

  _push(src, wrapIt) {
    const n = this.n, L = this.box;
    this.ringHead = (this.ringHead + 1) % RING;
    const base = this.ringHead * n * 2;
    for (let i = 0; i < n; i++) {
      const x = src[3 * i], y = src[3 * i + 1];
      this.ring[base + 2 * i] = wrapIt ? wrap(x, L) : x;
      this.ring[base + 2 * i + 1] = wrapIt ? wrap(y, L) : y;
    }
    this.ringCount = Math.min(RING, this.ringCount + 1);
  }

  /** trailU[k] = position k updates ago, unwrapped step by step next to block A. */
  _unwrapTrail() {
    const n = this.n, R = this.ring, U = this.trailU, L = this.box;
    for (let i = 0; i < n; i++) {
      let ux = this.cur[3 * i], uy = this.cur[3 * i + 1];
      let wx = ux, wy = uy;
      U[2 * i] = ux;
      U[2 * i + 1] = uy;
      for (let k = 1; k < this.ringCount; k++) {
        const slot = ((this.ringHead - k) % RING + RING) % RING;
        const px = R[slot * n * 2 + 2 * i], py = R[slot * n * 2 + 2 * i + 1];
        ux += minImage(px - wx, L);
        uy += minImage(py - wy, L);
        wx = px;
        wy = py;
        U[(k * n + i) * 2] = ux;
        U[(k * n + i) * 2 + 1] = uy;
      }
    }
  }

  /** Select arrow i (or -1); neighbours is an array of indices (others only). */
  setSelection(i, neighbours = null, turnTo = NaN) {
    this.selected = i;
    this.neigh.fill(0);
    if (neighbours) for (const j of neighbours) this.neigh[j] = 1;
    this.turnTo = turnTo;
  }

  /** Index of the displayed arrow nearest to client point (cx, cy) within `tolPx`, else -1. */
  pick(cx, cy, tolPx) {
    const rect = this.canvas.getBoundingClientRect();
    if (!this.hasFrame || rect.width <= 0 || this.size <= 0) return -1;
    const k = this.size / rect.width; // client px -> the canvas's CSS px
    const { x, y } = this.viewToModel((cx - rect.left) * k, (cy - rect.top) * k);
    let best = -1, bestD = Infinity;
    for (let i = 0; i < this.n; i++) {
      const dx = minImage(this.hx[i] - x, this.box), dy = minImage(this.hy[i] - y, this.box);
      const d = dx * dx + dy * dy;
      if (d < bestD) { bestD = d; best = i; }
    }
    const tol = ((tolPx * k) / this.size) * this.box;
    return Math.sqrt(bestD) <= tol ? best : -1;
  }

  /** Client (CSS px) position of displayed arrow i. */
  clientPoint(i) {
    const rect = this.canvas.getBoundingClientRect();
    const k = rect.width / (this.size || 1);
    return { x: rect.left + this.viewX(this.hx[i]) * k, y: rect.top + this.viewY(this.hy[i]) * k };
  }

  /** Draw with interpolation fraction s in [0, 1]. */
  draw(s) {
    const g = this.g, S = this.size, n = this.n, L = this.box;
    this.s = s;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.fillStyle = SKY;
    g.fillRect(0, 0, S, S);
    // faint grid in tenths of the box, and the box edge (the wrap)
    g.strokeStyle = gridColour();
    g.lineWidth = 1;
    g.beginPath();
    for (let k = 1; k < 10; k++) {
      const p = Math.round((k / 10) * S) + 0.5;
      g.moveTo(p, 0); g.lineTo(p, S);
      g.moveTo(0, p); g.lineTo(S, p);
    }
    g.stroke();
    g.strokeStyle = EDGE;
    g.setLineDash(DASH);
    g.strokeRect(0.5, 0.5, S - 1, S - 1);
    g.setLineDash(NO_DASH);
    if (!this.hasFrame) return;

    // displayed positions: along the step vector, then wrapped
    const A = this.cur, B = this.prev;
    for (let i = 0; i < n; i++) {
      const px = B[3 * i], py = B[3 * i + 1];
      this.hx[i] = wrap(px + s * (A[3 * i] - px), L);
      this.hy[i] = wrap(py + s * (A[3 * i + 1] - py), L);
    }

    g.save();
    g.beginPath();
    g.rect(0, 0, S, S);
    g.clip();

    // selected arrow's neighbourhood circle and kick wedge (under the arrows)
    const sel = this.selected;
    if (sel >= 0) this._drawNeighbourhood(sel);

    // trails, one path per age so older segments are fainter
    const U = this.trailU;
    const segs = this.ringCount - 1; // full update segments available
    g.lineWidth = Math.max(1, S / 400);
    g.lineCap = "butt"; // round caps would double the alpha where segments of different ages meet
    for (let age = 0; age < TRAIL && age <= segs; age++) {
      g.strokeStyle = TRAIL_STYLE[age];
      g.beginPath();
      for (let i = 0; i < n; i++) {
        // the head segment runs from the interpolated point back to 1 update ago;
        // older ones from k to k+1 updates ago.  All unwrapped next to block A.
        let ax, ay, bx, by;
        if (age === 0) {
          if (segs < 1) break;
          const px = B[3 * i], py = B[3 * i + 1];
          ax = px + s * (A[3 * i] - px); ay = py + s * (A[3 * i + 1] - py);
          bx = U[(n + i) * 2]; by = U[(n + i) * 2 + 1];
        } else {
          if (age + 1 > segs) break;
          ax = U[(age * n + i) * 2]; ay = U[(age * n + i) * 2 + 1];
          bx = U[((age + 1) * n + i) * 2]; by = U[((age + 1) * n + i) * 2 + 1];
        }
        this._segmentCopies(ax, ay, bx, by, A[3 * i], A[3 * i + 1]);
      }
      g.stroke();
    }

    // arrows
    const fills = HUE_FILLS();
    const len = Math.max(9, Math.min(16, 0.024 * S)) * shapeScale(); // ("Larger shapes": ui/look.js)
    for (let i = 0; i < n; i++) {
      if (i === sel) continue;
      const th = A[3 * i + 2];
      this._arrowCopies(this.hx[i], this.hy[i], th, len, fills[headingBin(th, HUES)], this.neigh[i] ? NEIGH_STROKE : null);
    }
    if (sel >= 0) this._arrowCopies(this.hx[sel], this.hy[sel], A[3 * sel + 2], len * 1.35, SEL_FILL, SEL_STROKE);
    g.restore();
  }

  _segmentCopies(ax, ay, bx, by, cx, cy) {
    // cx, cy: the wrapped current position; the trail lies within trailReach of it
    const L = this.box, sh = this.shifts;
    for (let c = 0, k = periodicCopies(cx, cy, this.trailReach, L, L, sh); c < k; c++) {
      const ox = sh[2 * c], oy = sh[2 * c + 1];
      this._segment(ax + ox, ay + oy, bx + ox, by + oy);
    }
  }

  _segment(ax, ay, bx, by) {
    this.g.moveTo(this.viewX(ax), this.viewY(ay));
    this.g.lineTo(this.viewX(bx), this.viewY(by));
  }

  _arrowCopies(x, y, th, len, fill, stroke) {
    const L = this.box, m = (len / this.size) * 1.2 * L;  // the glyph's reach in model units
    const sh = this.shifts;
    for (let c = 0, k = periodicCopies(x, y, m, L, L, sh); c < k; c++) {
      this._arrow(x + sh[2 * c], y + sh[2 * c + 1], th, len, fill, stroke);
    }
  }

  /** A slim arrowhead centred on (x, y) pointing along th (model angle, y up). */
  _arrow(x, y, th, len, fill, stroke) {
    const g = this.g;
    const c = Math.cos(th), sn = -Math.sin(th); // screen y is down
    const X = this.viewX(x), Y = this.viewY(y);
    const hx = X + c * len * 0.55, hy = Y + sn * len * 0.55;       // tip
    const bx = X - c * len * 0.45, by = Y - sn * len * 0.45;       // back centre
    const w = len * 0.34;
    const nx = -sn * w, ny = c * w;
    g.beginPath();
    g.moveTo(hx, hy);
    g.lineTo(bx + nx, by + ny);
    g.lineTo(X - c * len * 0.2, Y - sn * len * 0.2);             // notch
    g.lineTo(bx - nx, by - ny);
    g.closePath();
    g.fillStyle = fill;
    g.fill();
    if (stroke) {
      g.lineWidth = 1.6;
      g.strokeStyle = stroke;
      g.stroke();
    }
  }

  _drawNeighbourhood(i) {
    const g = this.g, L = this.box, R = this.radius, k = this.size / L; // CSS px per length
    const x = this.hx[i], y = this.hy[i];
    const wedgeR = Math.min(R * 0.8, 0.09 * L);
    const aim = this.turnTo;
    const sh = this.shifts;
    for (let c = 0, n = periodicCopies(x, y, R, L, L, sh); c < n; c++) {
      const X = this.viewX(x + sh[2 * c]), Y = this.viewY(y + sh[2 * c + 1]);
      g.beginPath();
      g.arc(X, Y, R * k, 0, TAU);
      g.fillStyle = CIRCLE_FILL;
      g.fill();
      g.lineWidth = 2;
      g.strokeStyle = CIRCLE_STROKE;
      g.stroke();
      if (aim === aim) { // not NaN
        // the kick wedge: headings aim +- kick (canvas angles run clockwise: negate)
        g.beginPath();
        g.moveTo(X, Y);
        g.arc(X, Y, wedgeR * k, -(aim + this.kick), -(aim - this.kick), false);
        g.closePath();
        g.fillStyle = WEDGE_FILL;
        g.fill();
        g.lineWidth = 1.5;
        g.strokeStyle = WEDGE_STROKE;
        g.stroke();
        g.beginPath();
        g.moveTo(X, Y);
        g.lineTo(X + Math.cos(aim) * wedgeR * k, Y - Math.sin(aim) * wedgeR * k);
        g.setLineDash(DASH);
        g.strokeStyle = AIM_STROKE;
        g.stroke();
        g.setLineDash(NO_DASH);
      }
    }
  }
}
